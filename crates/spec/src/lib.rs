//! kcontract-spec: a clause-structured spec folder loaded into an immutable [`Spec`], with every
//! problem found on the way as a [`diagnostic::Diagnostic`] (a stable code, a span, a hint).
//!
//! What the crate offers:
//! - **Loading**: [`load`], [`load_with`] and [`load_from`] read a folder (on disk, or a [`Tree`]
//!   in memory: a git revision, the contract a binary embeds) into a [`Loaded`]: the [`Spec`], the
//!   files read ([`diagnostic::SourceMap`]) and the diagnostics, never stopping at the first problem.
//! - **The spec's values**: [`Spec`], its [`Contract`] (`contract.yaml`), [`Document`]s of
//!   [`Block`]s, [`Clause`]s with their [`Level`], [`Actor`] and [`Verify`] method, translations,
//!   earlier versions; [`stamp`] and [`clause_stamp`], the hashes translations and reviewed tests
//!   record.
//! - **Reading pieces of a spec** for the editors' tools (`kcontract-edit`): [`read_source`],
//!   [`markdown_options`], [`ClauseYaml`], [`paragraphs`] and the other items re-exported below.
//! - Namespaces shared by every stage: [`diagnostic`] (the one diagnostic type and its rendering),
//!   [`fsutil`] (the careful reader and the atomic writer every person's file goes through),
//!   [`keywords`] (the RFC 2119 keyword detector), [`globs`], [`list`] (the clause list and its JSON),
//!   [`suggest`] ("did you mean"), [`timings`].
//!
//! Nothing here prints or exits: the binary renders the diagnostics.

pub mod diagnostic;
pub mod fsutil;
pub mod globs;
pub mod keywords;
pub mod list;
mod spec;
mod spec_source;
pub mod suggest;
pub mod timings;
pub mod url;

pub use spec::{
    Actor, Block, Clause, Contract, Document, EarlierVersion, Heading, Labelled, Level, LinkBase,
    LinkDefs, Links, Prose, SectionRef, Spec, TestGlobs, TestLanguage, Translation,
    TranslationState, Upstream, Verify, check_id, clause_stamp, link_label, section_numbers, stamp,
};
pub use spec_source::{
    BOILERPLATE_MARKER, ClauseYaml, FieldValue, IMAGE_EXTENSIONS, IMAGES_FOLDER,
    INFORMATIVE_MARKER, LINK_SCHEMES, LoadOptions, Loaded, Tree, chapter_file, image_of_link,
    io_error, is_image_name, is_language_tag, is_note_quote, load, load_alongside, load_from,
    load_with, markdown_options, paragraphs, read_source, read_spec_source, resolver, spec_images,
};
