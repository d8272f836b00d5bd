//! `kcontract scaffold`: Rust test stubs for the clauses, regenerated without ever losing work.
//!
//! Layout: a folder of test modules, one file per chapter (`runtime_and_lifecycle.rs` for the
//! chapter `runtime-and-lifecycle`: module names cannot hold `-`) and a `main.rs` declaring them,
//! so that `tests/contract/` is one integration-test binary (`contract`) that Cargo finds by itself.
//! With `--crate NAME` the folder is `DIR/tests/contract/` of a standalone crate whose `Cargo.toml`
//! and `src/lib.rs` are written once, when missing, and never touched again.
//!
//! A stub, for a clause whose `verify` is not `untestable`:
//!
//! ```text
//! /// <the clause text, wrapped>
//! ///
//! /// MUST · platform · verify: conformance · upstream: `test/conformance/…`
//! ///
//! /// Clause: <id> @ <stamp>
//! #[test]
//! #[ignore = "not yet written: <id>"]
//! fn <id with `.` and `-` as `_`>() {
//!     todo!()
//! }
//! ```
//!
//! **Which clauses get a stub.** Every testable clause of the chapter, except one that a real (not
//! stub) test in the scanned project already claims (in this repository, the five `verify: model`
//! clauses, claimed by `tests/suite/model_*.rs`) and one already claimed by any test in the folder.
//!
//! **Regeneration.** Only *untouched* stubs are ever rewritten. An untouched stub is a top-level
//! test function whose text, once its `///` doc lines and all whitespace are taken out, is exactly
//! `#[test]#[ignore="not yet written: ID"]fn NAME(){todo!()}` and whose doc claims exactly that ID.
//! Its doc comment is generated: regenerating replaces it with the current clause text (keeping the
//! function's name). Anything else — an edited body, an added attribute or `//` comment, a changed
//! signature — makes it the author's test, kept byte for byte, as is every byte outside untouched
//! stubs. New clauses get stubs inserted after the test of the nearest preceding clause (in spec
//! order), else before the nearest following one, else at the end. The stubs read in the spec's
//! sections: a stub that opens a section in the file (its neighbour is in another one) comes under
//! a `// 5.1 Root Filesystem` comment, the heading numbered as the site numbers it, unless the file
//! already has that line; those comments are the author's afterwards like any other. Untouched
//! stubs of clauses that were removed, became untestable, left the crate's selection or are exempt
//! in it are removed (generated code, nobody's work; with them a generated heading left with
//! nothing under it); tests someone wrote whose clause was removed or became untestable are
//! reported as orphans and kept, and when one's stamp is that of a current clause (a rename) no
//! stub is added for it beside the author's test. A stub stays in the file it is in (and is
//! refreshed there) when its clause moves to another chapter. The folder's `.scaffolded` record
//! lists the clauses that have had a test there, so a stub deleted by hand stays deleted (its
//! clause shows `untested` until exempted with a reason). Running it twice changes nothing.
//!
//! ## The files, one job each
//!
//! `stub` (a stub's text, and whether a test is still one) → `merge` (one file merged with the
//! stubs it gains) → `plan` (the folder: every file's new text) → `write` (the folder read, the
//! plan turned into the files to write and what to say, written); `target` (where a run writes),
//! `crate_files` (a standalone crate's other files), `error` (what can go wrong on disk).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::annotations::LexFailure;

mod crate_files;
mod error;
mod go;
mod merge;
mod plan;
mod python;
mod stub;
mod stubs;
mod target;
mod write;

pub use crate_files::{CrateNameError, check_crate_name};
pub use error::ScaffoldError;
pub use go::package_for;
pub use merge::merge_file;
pub use plan::{plan, plan_for};
pub use stub::{render_stub, stale_doc, untouched_stub};
pub use stubs::Stubs;
pub use target::Target;
pub use write::{Folder, Job, Prepared, WriteFailure};

/// Why a test is an orphan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OrphanWhy {
    /// The clause is no longer in the contract.
    Removed,
    /// The clause is now `verify: untestable`.
    Untestable,
}

/// A kept test whose claimed clause is gone or untestable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orphan {
    /// The file's name inside the tests folder.
    pub file: String,
    /// The test's module path and function name, `::`-joined.
    pub test: String,
    /// Byte range of the function's name in the file, for the diagnostic.
    pub name_range: Range<usize>,
    /// The clause id the test claims.
    pub id: String,
    /// Whether the clause was removed or became untestable.
    pub why: OrphanWhy,
    /// The clause whose stamp is the one on the test's claim: where a renamed clause went.
    pub renamed_to: Option<String>,
}

/// What regenerating one file did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReport {
    /// The file's name inside the tests folder.
    pub file: String,
    /// Ids of the stubs added.
    pub added: Vec<String>,
    /// Ids of the untouched stubs rewritten (most are byte-identical).
    pub refreshed: Vec<String>,
    /// Names of the claiming tests kept as written.
    pub kept: Vec<String>,
    /// Ids of the untouched stubs removed: their clause was removed, became untestable, is
    /// outside the crate's selection or exempt in it. Generated code, nobody's work.
    pub removed: Vec<String>,
}

/// The result of planning a regeneration: every file's new text, and what happened.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// File name inside the folder → full new text. Includes every existing `.rs` file.
    pub files: BTreeMap<String, String>,
    /// What happened to each file.
    pub reports: Vec<FileReport>,
    /// Tests kept whose claimed clause is gone or untestable (reported as K0510).
    pub orphans: Vec<Orphan>,
    /// Testable clauses with no stub because a real test elsewhere claims them.
    pub elsewhere: Vec<String>,
    /// Clauses in scope whose stub was written before (the folder's `.scaffolded` record) and is
    /// gone, with no other test: deleted by hand, so not written again (the matrix shows them
    /// `untested` until they are exempted with a reason or their line leaves the record).
    pub deleted: Vec<String>,
    /// The folder's new record: the clauses in scope that have had a test in it.
    pub record: BTreeSet<String>,
}

/// The file in the scaffold's folder that records which clauses have had a stub, so that a stub
/// deleted by hand stays deleted: one id per line, sorted, after a comment.
const RECORD: &str = ".scaffolded";

/// The record's text for these ids.
fn record_text(ids: &BTreeSet<String>) -> String {
    let mut s = String::from(
        "# Clauses kcontract scaffold has written a stub for (one id a line). A clause listed here whose\n\
         # test is gone was deleted by hand and gets no new stub; remove its line to have it back.\n",
    );
    for id in ids {
        s.push_str(id);
        s.push('\n');
    }
    s
}

/// The ids of a record's text.
fn record_ids(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// A file in the folder that cannot be read as Rust tokens: nothing can be merged safely.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// The file's name inside the tests folder.
    pub file: String,
    /// Why the tokenizer gave up.
    pub failure: LexFailure,
}

/// The module (and file stem) for a chapter name.
fn module_name(chapter: &str) -> String {
    let mut m = chapter.replace('-', "_");
    if m.starts_with(|c: char| c.is_ascii_digit()) {
        m.insert_str(0, "ch_");
    }
    if is_keyword(&m) {
        m.push('_');
    }
    m
}

/// The default function name for a clause id: `.` and `-` become `_`.
fn fn_name(id: &str) -> String {
    let mut n = id.replace(['.', '-'], "_");
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        n.insert_str(0, "c_");
    }
    n
}

fn is_keyword(s: &str) -> bool {
    const KW: [&str; 52] = [
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
        "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
        "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
        "union",
    ];
    KW.contains(&s) || s == "_"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            module_name("runtime-and-lifecycle"),
            "runtime_and_lifecycle"
        );
        assert_eq!(module_name("1st"), "ch_1st");
        assert_eq!(module_name("type"), "type_");
        assert_eq!(
            fn_name("lifecycle.sigterm-on-kill"),
            "lifecycle_sigterm_on_kill"
        );
        assert_eq!(fn_name("3d.x"), "c_3d_x");
        assert!(check_crate_name("my-tests_2").is_ok());
        for bad in ["", "2x", "-x", "a b", "a/b", "ü"] {
            assert!(check_crate_name(bad).is_err(), "{bad}");
        }
    }
}
