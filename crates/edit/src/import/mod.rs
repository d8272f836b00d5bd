//! `kcontract import`: plain RFC 2119 Markdown into a spec folder. Chapters are the top-level
//! sections; every sentence (or table row, quote) holding a keyword becomes a clause, with
//! its level from the keyword, an id from its section and key words, and a guessed actor; the rest
//! stays prose, verbatim. Lists stay lists: a statement in an item becomes a clause block inside
//! that item, so nesting and the numbers of steps survive. A statement ending with `:` holds the
//! list, table or code block that completes it. A note or an example stays informative. What a
//! person has to decide (two levels in one clause, an actor the subject does not name, a negated
//! keyword) is a `review:` note, which `check` reports until it is removed.
//!
//! Following an upstream: with the earlier import of the text ([`Earlier`]), each clause that
//! restates an earlier one keeps its id and the editors' decisions ([`carry`]).
//!
//! Pure: [`import`] turns a text into files; the command writes them.

mod carry;
mod ids;
pub mod images;
mod links;
pub mod save;
pub mod source;
mod text;
mod vocabulary;
mod writer;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};

use kcontract_spec::{Contract, LoadOptions, Tree, load_from, markdown_options};

pub use carry::{Carry, Earlier};
pub use links::local_images;
use writer::{Writer, push_block};

/// A clause as written by a pass, in order: what the next pass matches with an earlier version
/// (`carry` reads what `writer` wrote; here so that neither names the other).
#[derive(Clone, Debug)]
pub(super) struct Written {
    pub(super) level: kcontract_spec::Level,
    pub(super) text: String,
    /// The section it is under (the slug of the heading's words).
    pub(super) section: String,
}

/// A spec folder made from one Markdown text.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The contract's title (the text's first heading).
    pub title: String,
    /// `contract.yaml`.
    pub contract_yaml: String,
    /// Each chapter: its name and the text of `en/<name>.md` (of the source language), in order.
    pub chapters: Vec<(String, String)>,
    /// The translations kept from the earlier version: language, chapter, the file's text.
    pub translations: Vec<(String, String, String)>,
    /// How many clauses, and how many of them carry a `review:` note.
    pub clauses: usize,
    /// Clauses with a `review:` note.
    pub reviews: usize,
    /// Clauses whose actor is a guess (their subject names none of the contract's actors).
    pub guessed: usize,
    /// The language of `chapters` (the contract's first): `en`, or the earlier version's.
    pub source_lang: String,
    /// Clauses holding the list, table or code block that completes them (a sentence ending with
    /// `:`).
    pub attached: usize,
    /// Notes and examples holding a keyword, kept informative.
    pub informative: usize,
    /// RFC 2119 boilerplate paragraphs recognised (and marked).
    pub boilerplate: usize,
    /// Links to a section of the source, now to the chapter holding it, and links to other files
    /// now under the link base.
    pub links_rewritten: usize,
    /// How many clauses kept the id of an earlier import's clause (`Options::earlier`).
    pub kept: usize,
    /// Whether `contract.yaml` is the earlier version's (its editors' vocabulary, upstream and
    /// wording kept, less its `history:`), not a new one.
    pub contract_kept: bool,
    /// The nouns that the subjects of clauses whose actor is a guess end with ("The producer
    /// MUST": `producer`), most frequent first: the actors the text itself suggests.
    pub subjects: Vec<(String, usize)>,
    /// The actors taken from the subjects (no vocabulary was given), each with how many clauses
    /// name it; empty when the actors were given.
    pub actors_from_subjects: Vec<(String, usize)>,
    /// The targets of links kept as their words only (another file and no link base, or a
    /// section no chapter has): the command reports them.
    pub links_dropped: Vec<String>,
    /// Every clause written, in order (what a later import is matched with).
    written: Vec<Written>,
}

/// What an import is made with besides the text and its vocabulary.
#[derive(Default)]
pub struct Options<'a> {
    /// Where the source's relative links to other files point (`--link-base`).
    pub link_base: Option<&'a str>,
    /// The earlier import of the text (`--keep-ids-from`): a clause whose statement it had, the
    /// same, reworded or at another level ([`ids`]), keeps its id and what [`Carry`] says; no other
    /// clause takes one of its ids.
    pub earlier: Option<Earlier<'a>>,
    /// The contract imported into (`--into`): its clause ids are taken, and the introduction (text
    /// before the first heading) is named apart from its chapters. A link to another file of it
    /// (`other.md#section`) lands where that section is.
    pub into: Option<&'a kcontract_spec::Spec>,
    /// No vocabulary was given (no `--actors`, `--into` or `--keep-ids-from`): the actors are the
    /// nouns the subjects name, and a clause naming none gets the neutral actor
    /// [`vocabulary::UNASSIGNED`] with a review note; the verify kinds are a new contract's.
    pub actors_from_subjects: bool,
    /// The other documents imported in the same run (`import A.md B.md --into DIR`), by file
    /// name, with where their sections went ([`Imported::placed`]): a link to one of them
    /// (`b.md`, `b.md#section`) lands on the chapter now holding it. The document itself may be
    /// among them (a link to its own file name).
    pub siblings: BTreeMap<String, Placed>,
    /// Clause ids and chapter names the documents imported before this one in the same run
    /// took: no clause or introduction of this one takes them.
    pub taken: Taken,
    /// The local images of the text ([`local_images`]) the command copies into the spec: each
    /// destination as written, and its name in the spec's `images/` folder. An image not named
    /// here keeps its words (its alt text), reported in [`Imported::links_dropped`].
    pub images: BTreeMap<String, String>,
}

/// Where a document's sections went: what a link to it from another document lands on.
#[derive(Debug, Clone, Default)]
pub struct Placed {
    /// Each heading's id, and the chapter holding it.
    pub anchors: BTreeMap<String, String>,
    /// Its first chapter (a link to the file without a section lands there).
    pub first: String,
}

/// Clause ids and chapter names taken by documents imported before, in the same run.
#[derive(Debug, Clone, Default)]
pub struct Taken {
    /// Clause ids.
    pub ids: BTreeSet<String>,
    /// Chapter names.
    pub chapters: BTreeSet<String>,
}

impl Imported {
    /// Where this import's sections went, for the links of documents imported with it.
    pub fn placed(&self) -> Placed {
        Placed {
            anchors: heading_chapters(&load_imported(self).spec),
            first: self
                .chapters
                .first()
                .map(|(n, _)| n.clone())
                .unwrap_or_default(),
        }
    }

    /// Add this import's clause ids and chapter names to `taken`.
    pub fn take(&self, taken: &mut Taken) {
        let loaded = load_imported(self);
        taken
            .ids
            .extend(loaded.spec.clauses.iter().map(|c| c.id.clone()));
        taken
            .chapters
            .extend(self.chapters.iter().map(|(n, _)| n.clone()));
    }
}

/// A top-level block of the source: its range, and what it is.
struct Block {
    range: Range<usize>,
    kind: Kind,
}

enum Kind {
    Heading(u8),
    Paragraph,
    /// A list, with the range of each of its items.
    List(Vec<Range<usize>>),
    /// A table (GitHub's pipe tables).
    Table,
    /// A code block, fenced or indented.
    Code,
    /// A block quote.
    Quote,
    /// Anything else (HTML, a rule): kept whole.
    Other,
}

/// The top-level blocks of `src`.
fn blocks(src: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<Block> = None;
    for (event, range) in Parser::new_ext(src, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Heading { level, .. } => Kind::Heading(heading_level(level)),
                        Tag::Paragraph => Kind::Paragraph,
                        Tag::List(_) => Kind::List(Vec::new()),
                        Tag::Table(_) => Kind::Table,
                        Tag::CodeBlock(_) => Kind::Code,
                        Tag::BlockQuote(_) => Kind::Quote,
                        _ => Kind::Other,
                    };
                    current = Some(Block {
                        range: range.clone(),
                        kind,
                    });
                } else if depth == 1
                    && let (
                        Tag::Item,
                        Some(Block {
                            kind: Kind::List(items),
                            ..
                        }),
                    ) = (&tag, current.as_mut())
                {
                    items.push(range.clone());
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some(b) = current.take()
                {
                    out.push(b);
                }
            }
            // Leaf blocks at the top (a rule, an HTML block's text outside a tag pair).
            _ if depth == 0 => out.push(Block {
                range,
                kind: Kind::Other,
            }),
            _ => {}
        }
    }
    out
}

fn heading_level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The text of a heading's source line(s): `#`s, closing `#`s and HTML tags left out.
fn heading_text(src: &str) -> String {
    let line = src.lines().next().unwrap_or("").trim();
    let line = line.trim_start_matches('#').trim_end_matches('#').trim();
    let mut out = String::new();
    let mut in_tag = false;
    for c in line.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// One chapter being written.
struct Chapter {
    name: String,
    out: String,
}

/// Where a pass starts: the ids taken (the earlier version's, the contract imported into's), the
/// chapter names taken, and what each clause (by its index in the pass) carries.
#[derive(Default, Clone)]
struct Start {
    taken: BTreeSet<String>,
    chapters: BTreeSet<String>,
    carried: BTreeMap<usize, carry::Carried>,
}

/// What one pass over a text is made with.
struct Pass<'a> {
    /// Names the text in `contract.yaml`.
    origin: &'a str,
    contract: &'a Contract,
    /// The actor of a clause whose subject names none of the contract's.
    fallback: &'a str,
    /// The link reference definitions each chapter ends with, those it uses.
    definitions: &'a BTreeMap<String, links::Definition>,
    start: &'a Start,
}

/// Import `src` (Markdown; `origin` names it in `contract.yaml`) with the vocabulary of `contract`
/// (its actors are guessed among; the first verify kind that is not `untestable` is given), or the
/// one the text's subjects make ([`Options::actors_from_subjects`]).
///
/// Passes: the first places the headings in chapters, so that links to sections can point at the
/// chapters now holding them; the second writes the text with its links made to land; with an
/// earlier version, its clauses are matched with the second pass's and a third writes them with
/// what they carry (only ids and decisions differ: the clauses are the same, in the same order).
pub fn import(src: &str, origin: &str, contract: &Contract, options: &Options<'_>) -> Imported {
    let mut start = Start::default();
    let earlier_spec = options.earlier.as_ref().map(|e| &e.loaded.spec);
    for spec in [earlier_spec, options.into].into_iter().flatten() {
        // An earlier version's ids are never given to another statement.
        start
            .taken
            .extend(spec.clauses.iter().map(|c| c.id.clone()));
    }
    if let Some(into) = options.into {
        start
            .chapters
            .extend(into.contract.chapters.iter().cloned());
    }
    start.taken.extend(options.taken.ids.iter().cloned());
    start
        .chapters
        .extend(options.taken.chapters.iter().cloned());
    let no_definitions = BTreeMap::new();
    let derived = options
        .actors_from_subjects
        .then(|| vocabulary::from_subjects(src, origin, &start));
    let (contract, fallback) = match &derived {
        Some((c, _)) => (c, vocabulary::UNASSIGNED.to_string()),
        None => (
            contract,
            contract
                .actor_list()
                .next()
                .map_or_else(String::new, |a| a.as_str().to_string()),
        ),
    };
    let mut pass = Pass {
        origin,
        contract,
        fallback: &fallback,
        definitions: &no_definitions,
        start: &start,
    };
    let first = import_text(src, &pass);
    let mut anchors = anchors(&first, options.into);
    anchors.siblings = options.siblings.clone();
    anchors.images = options.images.clone();
    let links = links::rewrite(src, &anchors, options.link_base);
    let definitions = links::definitions(src, &anchors, options.link_base);
    let rewritten = links.to_chapters + links.to_base;
    let again = rewritten > 0 || !links.to_text.is_empty() || !definitions.is_empty();
    let text = if again { links.text.as_str() } else { src };
    pass.definitions = &definitions;
    let mut out = if again {
        import_text(text, &pass)
    } else {
        first
    };
    if let Some(earlier) = &options.earlier {
        let mut with = start.clone();
        with.carried = carry::carried(&out.written, &earlier.loaded.spec, earlier.carry);
        pass.start = &with;
        out = import_text(text, &pass);
        if earlier.carry == Carry::Decisions {
            keep_files(&mut out, earlier);
        }
    }
    out.links_rewritten = rewritten;
    out.links_dropped = links.to_text;
    out.actors_from_subjects = derived.map(|(_, named)| named).unwrap_or_default();
    out
}

/// Each heading's id (anchor) of `spec` and the chapter holding it: where an imported section
/// went, for the links to it.
fn heading_chapters<T: FromIterator<(String, String)>>(spec: &kcontract_spec::Spec) -> T {
    spec.documents
        .iter()
        .flat_map(|d| {
            d.headings
                .iter()
                .map(|h| (h.anchor.clone(), d.chapter.clone()))
        })
        .collect()
}

/// Where each heading of the source went, by its id: the chapters the loader reads, in memory,
/// give the ids `check` resolves links against (one definition of a heading's id). With `into`,
/// its own headings too, each only where one chapter has it: a link to another file imported
/// before (`other.md#section`) lands there.
fn anchors(first: &Imported, into: Option<&kcontract_spec::Spec>) -> links::Anchors {
    let own = heading_chapters(&load_imported(first).spec);
    let mut elsewhere: BTreeMap<String, Option<String>> = BTreeMap::new();
    for d in into.map(|s| s.documents.as_slice()).unwrap_or_default() {
        for h in &d.headings {
            elsewhere
                .entry(h.anchor.clone())
                .and_modify(|c| {
                    if c.as_deref() != Some(d.chapter.as_str()) {
                        *c = None
                    }
                })
                .or_insert_with(|| Some(d.chapter.clone()));
        }
    }
    links::Anchors {
        own,
        elsewhere: elsewhere
            .into_iter()
            .filter_map(|(a, c)| Some((a, c?)))
            .collect(),
        siblings: BTreeMap::new(),
        images: BTreeMap::new(),
    }
}

/// The earlier version's `contract.yaml` (its chapters the new ones) and translations, kept.
fn keep_files(out: &mut Imported, earlier: &Earlier<'_>) {
    let names: Vec<String> = out.chapters.iter().map(|(n, _)| n.clone()).collect();
    if let Some(yaml) = carry::contract_yaml(earlier, &names) {
        out.contract_yaml = yaml;
        if let Some(lang) = earlier.loaded.spec.contract.languages.first() {
            out.source_lang = lang.clone();
        }
        out.contract_kept = true;
        let loaded = load_imported(out);
        let ids: BTreeSet<String> = loaded.spec.clauses.iter().map(|c| c.id.clone()).collect();
        out.translations = carry::translations(earlier, &names, &ids);
    }
}

/// An import's spec folder as `check` reads it, in memory.
fn load_imported(imported: &Imported) -> kcontract_spec::Loaded {
    let mut files: BTreeMap<PathBuf, Vec<u8>> = imported
        .chapters
        .iter()
        .map(|(name, text)| {
            (
                PathBuf::from(format!("spec/{}/{name}.md", imported.source_lang)),
                text.clone().into_bytes(),
            )
        })
        .collect();
    files.insert(
        "spec/contract.yaml".into(),
        imported.contract_yaml.clone().into_bytes(),
    );
    load_from(
        &Tree::Memory(files),
        Path::new("spec"),
        LoadOptions::default(),
    )
}

/// One pass of [`import`] over `src` as it is (its links are the pass's business, not this
/// one's); each chapter ends with the link reference definitions it uses.
fn import_text(src: &str, pass: &Pass<'_>) -> Imported {
    let contract = pass.contract;
    // `manual` (a person checks it) when the vocabulary has it: nothing is known yet about how an
    // imported clause can be tested.
    let verify = contract
        .verify_list()
        .find(|v| v.as_str() == "manual")
        .or_else(|| contract.verify_list().find(|v| !v.is_untestable()))
        .map_or("untestable", |v| v.as_str())
        .to_string();
    let mut w = Writer::new(contract, verify, pass.fallback.to_string());
    w.ids = pass.start.taken.clone();
    w.carried = pass.start.carried.clone();
    let (title, mut chapters) = write_chapters(src, &mut w, pass);
    for c in &mut chapters {
        let used = links::definitions_used(&c.out, pass.definitions);
        if !used.is_empty() {
            push_block(&mut c.out, &used);
        }
    }
    let chapter_names: Vec<String> = chapters.iter().map(|c| c.name.clone()).collect();
    let contract_yaml = contract_yaml(&title, pass.origin, &chapter_names, contract);
    let mut subjects: Vec<(String, usize)> = w.subjects.into_iter().collect();
    subjects.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Imported {
        title,
        contract_yaml,
        chapters: chapters
            .into_iter()
            // In the canonical form `kcontract fmt` writes (one definition of it), so that a
            // first `fmt --check` of the new spec passes.
            .map(|c| {
                (
                    c.name,
                    crate::fmt::format_chapter(&format!("{}\n", c.out.trim_end())),
                )
            })
            .collect(),
        translations: Vec::new(),
        clauses: w.clauses,
        reviews: w.reviews,
        guessed: w.guessed,
        source_lang: "en".to_string(),
        attached: w.attached,
        informative: w.informative,
        boilerplate: w.boilerplate,
        links_rewritten: 0,
        links_dropped: Vec::new(),
        kept: w.kept_ids,
        contract_kept: false,
        subjects,
        actors_from_subjects: Vec::new(),
        written: w.written,
    }
}

/// The title and the chapters of `src`: a chapter per heading of the chapter level (the top one,
/// or the one below a single title heading), the text before the first an introduction.
fn write_chapters(src: &str, w: &mut Writer<'_>, pass: &Pass<'_>) -> (String, Vec<Chapter>) {
    let blocks = blocks(src);
    let headings: Vec<u8> = blocks
        .iter()
        .filter_map(|b| match b.kind {
            Kind::Heading(l) => Some(l),
            _ => None,
        })
        .collect();
    let top = headings.iter().copied().min().unwrap_or(1);
    // One heading at the top level, first: the document's title; its subsections are chapters.
    let titled =
        headings.first() == Some(&top) && headings.iter().filter(|l| **l == top).count() == 1;
    let chapter_level = if titled {
        headings
            .iter()
            .copied()
            .filter(|l| *l > top)
            .min()
            .unwrap_or(top + 1)
    } else {
        top
    };
    let mut title = String::new();
    let mut chapters: Vec<Chapter> = Vec::new();
    let mut names = BTreeSet::new();
    let mut intro = String::new();
    for b in &blocks {
        let s = &src[b.range.clone()];
        let Kind::Heading(level) = b.kind else {
            let out = chapters.last_mut().map_or(&mut intro, |c| &mut c.out);
            w.block(out, s, &b.kind, b.range.start);
            continue;
        };
        w.flush(chapters.last_mut().map_or(&mut intro, |c| &mut c.out));
        let text = heading_text(s);
        if titled && level == top && title.is_empty() {
            title = text;
            continue;
        }
        w.section = text::slug(text::unnumbered(&text), 40);
        if level <= chapter_level {
            let base = if w.section.is_empty() {
                "chapter".to_string()
            } else {
                w.section.clone()
            };
            let (mut name, mut n) = (base.clone(), 2);
            while !names.insert(name.clone()) {
                name = format!("{base}-{n}");
                n += 1;
            }
            chapters.push(Chapter {
                name,
                out: String::new(),
            });
        }
        let out = chapters.last_mut().map_or(&mut intro, |c| &mut c.out);
        push_block(out, &shift_heading(s, level, chapter_level));
    }
    w.flush(chapters.last_mut().map_or(&mut intro, |c| &mut c.out));
    if title.is_empty() {
        title = pass.origin.to_string();
    }
    if !intro.trim().is_empty() {
        // Named by no heading, so free to avoid the chapters of the contract imported into.
        let mut name = "introduction".to_string();
        while names.contains(&name) || pass.start.chapters.contains(&name) {
            name.push_str("-0");
        }
        let out = format!("# {title}\n\n{intro}");
        chapters.insert(0, Chapter { name, out });
    }
    if chapters.is_empty() {
        let out = format!("# {title}");
        chapters.push(Chapter {
            name: "main".into(),
            out,
        });
    }
    (title, chapters)
}

/// A heading at `level` moved so that chapter headings are level 1 (ATX headings only).
fn shift_heading(s: &str, level: u8, chapter_level: u8) -> String {
    let new = level.saturating_sub(chapter_level.saturating_sub(1)).max(1);
    let t = s.trim_start();
    if !t.starts_with('#') {
        return s.to_string();
    }
    let hashes = t.chars().take_while(|c| *c == '#').count();
    format!("{}{}", "#".repeat(usize::from(new)), &t[hashes..])
}

/// The `contract.yaml` of an import: title, one language, the chapters, the vocabulary (the
/// actors and verify kinds of `contract`, spelled out so that the editor sees and can change
/// them), and the upstream left for the editor to fill in.
fn contract_yaml(title: &str, origin: &str, chapters: &[String], contract: &Contract) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut y = format!(
        "# Made by `kcontract import {origin}`. Check every clause carrying `review:`, then delete that line.\ntitle: {}\nversion: 0.1.0\nlanguages: [en]\nchapters:\n",
        q(title)
    );
    for c in chapters {
        y.push_str(&format!("  - {c}\n"));
    }
    let list = |words: Vec<&str>| words.join(", ");
    y.push_str(&format!(
        "# Who a clause binds (`actor:`) and how it is verified (`verify:`).\nactors: [{}]\nverify: [{}]\n",
        list(contract.actor_list().map(|a| a.as_str()).collect()),
        list(contract.verify_list().map(|v| v.as_str()).collect()),
    ));
    y.push_str(&format!(
        "# Optional: where the text came from, shown on the site.\n# upstream:\n#   title: {}\n#   url: https://…\n#   license: …\n#   attribution: …\n",
        q(title)
    ));
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcontract_spec::keywords::find_keywords;
    use proptest::prelude::*;

    /// Keyword count per level.
    fn levels(text: &str) -> std::collections::BTreeMap<kcontract_spec::keywords::Level, usize> {
        let mut m = std::collections::BTreeMap::new();
        for h in find_keywords(text) {
            *m.entry(h.level).or_insert(0) += 1;
        }
        m
    }

    /// A sentence: a few words, sometimes a keyword, code span or link, and an end.
    fn sentence() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            Just("the".to_string()),
            Just("runtime".to_string()),
            Just("container".to_string()),
            Just("MUST".to_string()),
            Just("SHOULD NOT".to_string()),
            Just("MAY".to_string()),
            Just("`a. MUST b`".to_string()),
            Just("[x. y](u.md#z)".to_string()),
            Just("e.g.".to_string()),
            "[a-z]{1,8}",
        ];
        (
            prop::collection::vec(word, 1..8),
            prop_oneof![Just("."), Just("!"), Just("")],
        )
            .prop_map(|(w, end)| format!("{}{end}", w.join(" ")))
    }

    /// A list of `items` (`- ` or numbered), each maybe with a nested list, tight or loose.
    fn list(items: Vec<(String, Vec<String>)>, ordered: bool, loose: bool) -> String {
        let mut out = Vec::new();
        for (n, (item, nested)) in items.iter().enumerate() {
            let marker = if ordered {
                format!("{}.", n + 1)
            } else {
                "-".into()
            };
            let pad = " ".repeat(marker.len() + 1);
            let mut text = format!("{marker} {item}");
            for s in nested {
                text.push_str(&format!("\n{pad}- {s}"));
            }
            out.push(text);
        }
        out.join(if loose { "\n\n" } else { "\n" })
    }

    /// A document: headings, paragraphs of sentences, lists (nested, numbered, after a lead-in
    /// ending with `:`), tables.
    fn document() -> impl Strategy<Value = String> {
        let item = (sentence(), prop::collection::vec(sentence(), 0..3));
        let block = prop_oneof![
            "[A-Z][a-z]{2,8}".prop_map(|t| format!("## {t}")),
            prop::collection::vec(sentence(), 1..4).prop_map(|s| s.join(" ")),
            (
                prop::collection::vec(item, 1..4),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(items, ordered, loose)| list(items, ordered, loose)),
            (sentence(), prop::collection::vec(sentence(), 1..3)).prop_map(|(lead, steps)| {
                let steps = steps.into_iter().map(|s| (s, Vec::new())).collect();
                format!("{lead}:\n\n{}", list(steps, true, false))
            }),
            prop::collection::vec((sentence(), sentence()), 1..4).prop_map(|rows| {
                let rows: Vec<String> =
                    rows.iter().map(|(a, b)| format!("| {a} | {b} |")).collect();
                format!("| name | rule |\n| --- | --- |\n{}", rows.join("\n"))
            }),
        ];
        prop::collection::vec(block, 1..8).prop_map(|b| format!("# Title\n\n{}\n", b.join("\n\n")))
    }

    /// A normative sentence of its own: `n` makes it unlike every other.
    fn statement(n: usize, words: &[String]) -> String {
        format!("The runtime MUST handle case {n} {}.", words.join(" "))
    }

    /// Each clause's id by its text.
    fn ids_by_text(loaded: &kcontract_spec::Loaded) -> BTreeMap<String, String> {
        loaded
            .spec
            .clauses
            .iter()
            .map(|c| (c.text.clone(), c.id.clone()))
            .collect()
    }

    /// The earlier version as `--keep-ids-from` gives it.
    fn earlier(loaded: &kcontract_spec::Loaded) -> Earlier<'_> {
        Earlier {
            loaded,
            dir: Path::new("spec"),
            carry: Carry::Decisions,
        }
    }

    /// A statement that changed its level, its words kept, is the same one: it keeps its id; a
    /// reworded one keeps its id.
    #[test]
    fn ids_of_an_earlier_version_are_kept_or_left_alone() {
        let v1 = "# T\n\n## 4.1 Stops\n\nThe runtime MUST stop. The producer MUST include a unique id in every event.\n";
        let v2 = "# T\n\n## 4.2 Stops\n\nThe runtime MUST NOT stop. Producers MUST put a unique id into every event.\n";
        let first = import(v1, "v1.md", &Contract::default(), &Options::default());
        let before = load_imported(&first);
        let options = Options {
            earlier: Some(earlier(&before)),
            ..Default::default()
        };
        let second = import(v2, "v2.md", &Contract::default(), &options);
        let ids = |l: &kcontract_spec::Loaded| {
            l.spec
                .clauses
                .iter()
                .map(|c| c.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&before),
            [
                "stops.runtime-stop",
                "stops.producer-include-unique-id-every-event"
            ]
        );
        assert_eq!(
            ids(&load_imported(&second)),
            [
                "stops.runtime-stop",
                "stops.producer-include-unique-id-every-event"
            ]
        );
        assert_eq!(second.kept, 2);
    }

    proptest! {
        /// A re-import of a newer version, with sentences added and removed around the others,
        /// keeps the id of every clause whose text did not change, and gives no new clause an id
        /// the earlier version had for another text.
        #[test]
        fn unchanged_clauses_keep_their_ids(
            words in prop::collection::vec(prop::collection::vec("[a-z]{1,6}", 0..4), 2..10),
            keep in prop::collection::vec(any::<bool>(), 10),
            added in prop::collection::vec(prop::collection::vec("[a-z]{1,6}", 0..4), 0..4),
            sections in 1usize..3,
        ) {
            let doc = |sentences: &[String]| {
                let per = sentences.len().div_ceil(sections).max(1);
                let parts: Vec<String> = sentences
                    .chunks(per)
                    .enumerate()
                    .map(|(i, c)| format!("## Part {i}\n\n{}", c.join(" ")))
                    .collect();
                format!("# Title\n\n{}\n", parts.join("\n\n"))
            };
            let old: Vec<String> = words.iter().enumerate().map(|(n, w)| statement(n, w)).collect();
            let mut new: Vec<String> = Vec::new();
            for (i, s) in old.iter().enumerate() {
                if let Some(w) = added.get(i) {
                    new.push(statement(100 + i, w));
                }
                if keep[i] {
                    new.push(s.clone());
                }
            }
            let first = import(&doc(&old), "v1.md", &Contract::default(), &Options::default());
            let before = load_imported(&first);
            prop_assert!(!before.has_errors());
            let options = Options { earlier: Some(earlier(&before)), ..Default::default() };
            let second = import(&doc(&new), "v2.md", &Contract::default(), &options);
            let after = load_imported(&second);
            prop_assert!(!after.has_errors());
            let (was, is) = (ids_by_text(&before), ids_by_text(&after));
            for (text, id) in &is {
                match was.get(text) {
                    Some(old_id) => prop_assert_eq!(old_id, id, "{}", text),
                    // A new text takes an old id only as a rewording of that id's text.
                    None => {
                        for (old_text, _) in was.iter().filter(|(_, o)| *o == id) {
                            let s = ids::similarity(&ids::words(text), &ids::words(old_text));
                            prop_assert!(s >= ids::SIMILAR, "{} took {} from {}", text, id, old_text);
                        }
                    }
                }
            }
        }

        /// Sentences cover the paragraph exactly, in order.
        #[test]
        fn sentences_cover_the_text(s in prop::collection::vec(sentence(), 0..6)) {
            let text = s.join(" ");
            let pieces: String = text::sentences(&text).into_iter().map(|r| &text[r]).collect();
            prop_assert_eq!(pieces, text);
        }

        /// Every keyword of the source lands in a clause, at its level, or in a note or an example
        /// marked informative; the rest of the prose holds none; the result loads without errors.
        #[test]
        fn every_keyword_lands_in_a_clause(doc in document()) {
            let imported = import(&doc, "doc.md", &Contract::default(), &Options::default());
            let dir = tempfile::tempdir().unwrap();
            let spec = dir.path().join("spec");
            std::fs::create_dir_all(spec.join("en")).unwrap();
            std::fs::write(spec.join("contract.yaml"), &imported.contract_yaml).unwrap();
            for (name, text) in &imported.chapters {
                std::fs::write(spec.join("en").join(format!("{name}.md")), text).unwrap();
            }
            let loaded = kcontract_spec::load(&spec);
            let errors: Vec<String> = loaded
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{d:?}"))
                .collect();
            prop_assert!(errors.is_empty(), "{doc}\n{errors:?}");
            let mut in_clauses = std::collections::BTreeMap::new();
            for c in &loaded.spec.clauses {
                for (l, n) in levels(&c.text) {
                    *in_clauses.entry(l).or_insert(0) += n;
                }
            }
            // A note or an example keeps its keywords as informative prose, after the marker.
            for (_, text) in &imported.chapters {
                for block in text.split(kcontract_spec::INFORMATIVE_MARKER).skip(1) {
                    let block = block.trim_start().split("\n\n").next().unwrap_or("");
                    for (l, n) in levels(block) {
                        *in_clauses.entry(l).or_insert(0) += n;
                    }
                }
            }
            prop_assert_eq!(in_clauses, levels(&doc), "{}", doc);
        }
    }
}
