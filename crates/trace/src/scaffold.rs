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
//! clauses, claimed by `tests/model_*.rs`) and one already claimed by any test in the folder.
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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::Range;

use crate::annotations::{
    AttrKind, FileSyntax, FnItem, LexFailure, STUB_IGNORE_PREFIX, parse_source,
};
use crate::matrix::Scope;
use kcontract_spec::{Clause, Spec};

/// Line width of generated doc comments (rustfmt's default `max_width`).
const WIDTH: usize = 100;

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
    /// Clauses in scope whose stub was written before (the folder's [`RECORD`]) and is gone,
    /// with no other test: deleted by hand, so not written again (the matrix shows them
    /// `untested` until they are exempted with a reason or their line leaves the record).
    pub deleted: Vec<String>,
    /// The folder's new record: the clauses in scope that have had a test in it.
    pub record: BTreeSet<String>,
}

/// The file in the scaffold's folder that records which clauses have had a stub, so that a stub
/// deleted by hand stays deleted: one id per line, sorted, after a comment.
pub const RECORD: &str = ".scaffolded";

/// The record's text for these ids.
pub fn record_text(ids: &BTreeSet<String>) -> String {
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
pub fn record_ids(text: &str) -> BTreeSet<String> {
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
pub(crate) fn module_name(chapter: &str) -> String {
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
pub(crate) fn fn_name(id: &str) -> String {
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

/// Wrap one Markdown text into `/// ` lines of at most [`WIDTH`] columns where words allow. List
/// items keep their continuation indent (so rustdoc and clippy see one item), and a line is never
/// broken before a word that would start a new Markdown block (`-`, `#`, `>`, `1.`, …).
fn doc_lines(text: &str, out: &mut String) {
    let width = WIDTH - 4;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.trim().is_empty() {
            out.push_str("///\n");
            continue;
        }
        let indent = trimmed.len() - trimmed.trim_start().len();
        let body = trimmed.trim_start();
        let marker = list_marker(body);
        let cont = " ".repeat(indent + marker);
        let mut cur = " ".repeat(indent);
        let mut cur_has_word = false;
        for word in body.split(' ').filter(|w| !w.is_empty()) {
            let fits = cur.chars().count() + 1 + word.chars().count() <= width;
            if cur_has_word && !fits && !starts_block(word) {
                push_doc(out, &cur);
                cur = cont.clone();
                cur_has_word = false;
            }
            if cur_has_word {
                cur.push(' ');
            }
            cur.push_str(word);
            cur_has_word = true;
        }
        push_doc(out, &cur);
    }
}

fn push_doc(out: &mut String, line: &str) {
    let line = line.trim_end();
    if line.is_empty() {
        out.push_str("///\n");
    } else {
        let _ = writeln!(out, "/// {line}");
    }
}

/// Width of a list marker with its space (`- `, `* `, `+ `, `12. `), or 0.
fn list_marker(s: &str) -> usize {
    if s.starts_with("- ") || s.starts_with("* ") || s.starts_with("+ ") {
        return 2;
    }
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && (s[digits..].starts_with(". ") || s[digits..].starts_with(") ")) {
        return digits + 2;
    }
    0
}

/// Would this word, at the start of a line, begin a new Markdown block (a list item, heading,
/// quote, table, HTML block, fence, rule or setext underline)?
fn starts_block(word: &str) -> bool {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    matches!(word, "-" | "*" | "+")
        || word.starts_with(['#', '>', '|', '<'])
        || word.starts_with("```")
        || word.starts_with("~~~")
        || word.chars().all(|c| matches!(c, '-' | '=' | '*' | '_'))
        || (digits > 0 && word.len() == digits + 1 && word[digits..].starts_with(['.', ')']))
}

/// The generated text of one stub (no trailing newline).
pub fn render_stub(c: &Clause, name: &str) -> String {
    let mut s = String::new();
    doc_lines(&c.text, &mut s);
    s.push_str("///\n");
    let mut meta = format!("{} · {} · verify: {}", c.level, c.actor, c.verify);
    if !c.upstream_tests.is_empty() {
        let list: Vec<String> = c.upstream_tests.iter().map(|t| format!("`{t}`")).collect();
        let _ = write!(meta, " · upstream: {}", list.join(", "));
    }
    doc_lines(&meta, &mut s);
    s.push_str("///\n");
    let _ = writeln!(s, "/// Clause: {} @ {}", c.id, c.stamp);
    s.push_str("#[test]\n");
    let _ = writeln!(s, "#[ignore = \"{STUB_IGNORE_PREFIX}{}\"]", c.id);
    let _ = write!(s, "fn {name}() {{\n    todo!()\n}}");
    s
}

fn chapter_header(spec: &Spec, chapter: &str) -> String {
    let title = spec
        .documents
        .iter()
        .find(|d| d.chapter == chapter)
        .map_or(chapter, |d| d.title.as_str());
    let lang = spec.contract.languages.first().map_or("en", String::as_str);
    format!(
        "//! Contract tests for the chapter “{title}” (`spec/{lang}/{chapter}.md`).\n\
         //!\n\
         //! Generated by `kcontract scaffold`, then yours: regenerating keeps every test whose body\n\
         //! you changed and all code outside the stubs byte for byte, refreshes the doc comments of\n\
         //! untouched stubs, adds stubs for new clauses, removes the untouched stubs of clauses\n\
         //! that are gone, and reports (never deletes) tests you wrote whose clause is gone.\n"
    )
}

fn main_header(spec: &Spec) -> String {
    format!(
        "//! Contract tests for the {} {}: one module per chapter, generated by\n\
         //! `kcontract scaffold`. Cargo builds this folder as one test binary.\n",
        spec.contract.title, spec.contract.version
    )
}

/// Is `f` an untouched stub (see the module documentation)? Returns its clause id.
///
/// Lossless by construction: the stub's text must be, byte for byte, what [`render_stub`] writes
/// for *some* version of its clause — its doc comment the wrapped clause text, a blank line, the
/// meta line (level · actor · verify · upstream), a blank line and `Clause: ID @ STAMP`, where the
/// clause text's [`kcontract_spec::stamp`] is STAMP (so an added or edited doc line is detected: the
/// stamp is over the words), and the rest `#[test]`, the ignore, `fn NAME() {` and `todo!()` laid
/// out as generated. A stub without a stamp (written before stamps) counts only when its doc is the
/// current clause's. Anything else is the author's, kept as it is.
pub fn untouched_stub(src: &str, syntax: &FileSyntax, f: &FnItem, spec: &Spec) -> Option<String> {
    if !f.module.is_empty() || f.in_macro {
        return None;
    }
    let Some(Some(reason)) = f.ignore_reason() else {
        return None;
    };
    let id = reason.strip_prefix(STUB_IGNORE_PREFIX)?;
    let claims: Vec<&crate::annotations::Site> = syntax.claims_of(f).collect();
    if claims.len() != 1
        || claims[0].id != id
        || syntax
            .sites
            .iter()
            .any(|s| s.miscased && f.range.contains(&s.id_range.start))
    {
        return None;
    }
    // The exact layout: doc lines, one per line, then the generated tail.
    let mut expected = String::new();
    let mut lines: Vec<&str> = Vec::new();
    for a in &f.attrs {
        if let AttrKind::Doc(_) = a.kind {
            let text = src.get(a.range.clone())?;
            let body = text.strip_prefix("///")?;
            if body.starts_with('/') || body.contains('\n') {
                return None;
            }
            expected.push_str(text);
            expected.push('\n');
            lines.push(body.strip_prefix(' ').unwrap_or(body));
        }
    }
    let _ = write!(
        expected,
        "#[test]\n#[ignore = \"{STUB_IGNORE_PREFIX}{id}\"]\nfn {}() {{\n    todo!()\n}}",
        f.name
    );
    if src.get(f.range.clone())? != expected {
        return None;
    }
    // The doc: text, "", meta, "", `Clause: ID[ @ STAMP]`.
    let (last, rest) = lines.split_last()?;
    let stamp = match claims[0].stamp.as_deref() {
        Some(st) => {
            (*last == format!("Clause: {id} @ {st}")).then_some(())?;
            Some(st)
        }
        None => {
            (*last == format!("Clause: {id}")).then_some(())?;
            None
        }
    };
    let words = stub_words(rest, &spec.contract)?;
    // The stamp these words make as the clause's text (a clause's stamp also covers its `reason`
    // and `implicit`, which a stub does not show: the clause's current ones are taken).
    let clause = spec.clause(id);
    let words_stamp = match clause {
        Some(c) => kcontract_spec::clause_stamp(
            &words,
            c.reason.as_deref(),
            c.implicit.as_deref(),
            c.level,
        ),
        None => kcontract_spec::stamp(&words),
    };
    // A stub is written for a testable clause, which has no `reason`: when the clause has become
    // untestable since, its reason is not in the stamp the stub recorded.
    let without_reason = clause.and_then(|c| {
        c.reason
            .as_ref()
            .map(|_| kcontract_spec::clause_stamp(&words, None, c.implicit.as_deref(), c.level))
    });
    let ok = match stamp {
        Some(st) => words_stamp == st || without_reason.as_deref() == Some(st),
        None => clause.is_some_and(|c| words_stamp == c.stamp),
    };
    ok.then(|| id.to_string())
}

/// The doc comment `scaffold` wrote on a test that someone has since written, when it is still,
/// word for word, the clause text its `Clause: ID @ STAMP` line was reviewed against: its byte
/// range (from the first doc line to the `Clause:` line) and the block for the clause's current
/// text. `review` replaces it when it records the new stamp, so the test's doc does not keep
/// the old words beside the new stamp. A doc line typed into the block (or above it) changes its
/// words, and the doc is left alone; lines after the `Clause:` line are never part of it.
pub fn stale_doc(
    src: &str,
    syntax: &FileSyntax,
    f: &FnItem,
    spec: &Spec,
) -> Option<(Range<usize>, String)> {
    let claims: Vec<&crate::annotations::Site> = syntax.claims_of(f).collect();
    let [claim] = claims.as_slice() else {
        return None;
    };
    let c = spec.clause(&claim.id)?;
    let recorded = claim.stamp.as_deref()?;
    if recorded == c.stamp {
        return None;
    }
    let docs: Vec<&crate::annotations::Attr> = f
        .attrs
        .iter()
        .filter(|a| matches!(a.kind, AttrKind::Doc(_)))
        .collect();
    let mut lines: Vec<&str> = Vec::new();
    let mut end = None;
    for a in &docs {
        let text = src.get(a.range.clone())?;
        let body = text.strip_prefix("///")?;
        if body.starts_with('/') || body.contains('\n') {
            return None;
        }
        let body = body.strip_prefix(' ').unwrap_or(body);
        if body == format!("Clause: {} @ {recorded}", claim.id) {
            end = Some(a.range.start);
            break;
        }
        lines.push(body);
    }
    let end = end?;
    let words = stub_words(&lines, &spec.contract)?;
    let then =
        kcontract_spec::clause_stamp(&words, c.reason.as_deref(), c.implicit.as_deref(), c.level);
    let plain = kcontract_spec::clause_stamp(&words, None, c.implicit.as_deref(), c.level);
    if then != recorded && plain != recorded {
        return None;
    }
    let fresh = render_stub(c, &f.name);
    let block = &fresh[..fresh.find("/// Clause: ")?];
    Some((docs.first()?.range.start..end, block.to_string()))
}

/// The clause text of a doc comment [`render_stub`] wrote, from its lines before the `Clause:`
/// line (text, a blank line, the meta block, a blank line); `None` when they are not in that shape
/// or the meta block is not one it writes.
fn stub_words(lines: &[&str], contract: &kcontract_spec::Contract) -> Option<String> {
    let (blank, rest) = lines.split_last()?;
    if !blank.is_empty() {
        return None;
    }
    // The meta block is the lines after the last blank line of `rest`.
    let split = rest.iter().rposition(|l| l.is_empty())?;
    let (text, meta) = (&rest[..split], &rest[split + 1..]);
    if text.is_empty() || !is_generated_meta(meta, contract) {
        return None;
    }
    Some(text.join("\n"))
}

/// Are these doc lines the meta block [`render_stub`] writes: `LEVEL · ACTOR · verify: V` and
/// optionally ` · upstream: `a`, `b``, wrapped as it wraps them?
fn is_generated_meta(lines: &[&str], contract: &kcontract_spec::Contract) -> bool {
    let joined = lines.join(" ");
    let parts: Vec<&str> = joined.split(" · ").collect();
    let level_ok = parts.first().is_some_and(|l| {
        kcontract_spec::Level::ALL
            .iter()
            .any(|lv| lv.to_string() == *l)
    });
    let actor_ok = parts.get(1).is_some_and(|a| contract.actor(a).is_some());
    let verify_ok = parts.get(2).is_some_and(|v| {
        v.strip_prefix("verify: ")
            .is_some_and(|v| contract.verify_kind(v).is_some())
    });
    let upstream_ok = match parts.get(3) {
        None => true,
        Some(u) => u.strip_prefix("upstream: ").is_some_and(|u| {
            u.split(", ").all(|t| {
                t.len() >= 2
                    && t.starts_with('`')
                    && t.ends_with('`')
                    && !t[1..t.len() - 1].contains('`')
            })
        }),
    };
    if !(level_ok && actor_ok && verify_ok && upstream_ok && parts.len() <= 4) {
        return false;
    }
    let mut again = String::new();
    doc_lines(&joined, &mut again);
    let rendered: Vec<&str> = again
        .lines()
        .map(|l| {
            l.strip_prefix("/// ")
                .or(l.strip_prefix("///"))
                .unwrap_or(l)
        })
        .collect();
    rendered == lines
}

/// Merge one existing file with the stubs it should gain. Pure.
///
/// `add` are the clauses (indices into `spec.clauses`, ascending) that get new stubs here.
pub fn merge_file(
    file: &str,
    existing: &str,
    add: &[usize],
    spec: &Spec,
) -> Result<(String, FileReport, Vec<Orphan>), LexFailure> {
    merge_file_in(file, existing, add, spec, &Scope::default())
}

/// Is clause `id` one that gets a stub: in the contract, testable, in the crate's selection and
/// not exempt in it?
fn wanted(spec: &Spec, scope: &Scope, id: &str) -> bool {
    spec.clause(id).is_some_and(|c| {
        !c.verify.is_untestable()
            && scope.select.as_ref().is_none_or(|s| s.selects(c))
            && !scope.exempt.contains_key(id)
    })
}

/// The byte range an untouched stub takes with the blank lines before it, and the generated
/// section heading above it when nothing else is under that heading (the next item is another
/// heading, or the file ends).
fn removal_range(src: &str, range: &Range<usize>) -> Range<usize> {
    let before = src[..range.start].trim_end();
    let mut start = before.len();
    let after = src[range.end..].trim_start();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let heading = |l: &str| {
        l.trim()
            .strip_prefix("// ")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    let next_line = after.lines().next().unwrap_or("");
    if heading(&before[line_start..]) && (after.is_empty() || heading(next_line)) {
        start = src[..line_start].trim_end().len();
    }
    if start == 0 {
        // The first item of the file: take the blank lines after it instead.
        return 0..src.len() - after.len();
    }
    start..range.end
}

/// [`merge_file`] for a crate's scope: untouched stubs of clauses outside it are removed.
pub(crate) fn merge_file_in(
    file: &str,
    existing: &str,
    add: &[usize],
    spec: &Spec,
    scope: &Scope,
) -> Result<(String, FileReport, Vec<Orphan>), LexFailure> {
    let syntax = parse_source(existing)?;
    let mut report = FileReport {
        file: file.to_string(),
        ..FileReport::default()
    };
    let mut orphans = Vec::new();
    // (range, replacement): replacements of untouched stubs and insertions (empty ranges).
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    // Top-level tests that claim a current clause: (spec index, fn range), to place new stubs.
    let mut anchors: Vec<(usize, Range<usize>)> = Vec::new();
    let mut taken: BTreeSet<String> = syntax
        .fns
        .iter()
        .filter(|f| f.module.is_empty())
        .map(|f| f.name.clone())
        .collect();

    for f in syntax.fns.iter().filter(|f| f.is_test()) {
        let claims: Vec<&str> = syntax.claims_of(f).map(|s| s.id.as_str()).collect();
        if claims.is_empty() {
            continue;
        }
        let mut path = f.module.clone();
        path.push(f.name.clone());
        let test = path.join("::");
        let untouched = untouched_stub(existing, &syntax, f, spec);
        if let Some(id) = &untouched
            && !wanted(spec, scope, id)
        {
            // Generated and untouched, for a clause that gets no stub: nothing of anyone's.
            // The text after the stub on its last line, if any, must not join the line before
            // it (a `// comment` there would swallow it).
            let rest_of_line = existing[f.range.end..].split('\n').next().unwrap_or("");
            let sep = if rest_of_line.trim().is_empty() {
                ""
            } else {
                "\n"
            };
            edits.push((removal_range(existing, &f.range), sep.to_string()));
            report.removed.push(id.clone());
            continue;
        }
        for id in &claims {
            let why = match spec.clause(id) {
                None => Some(OrphanWhy::Removed),
                Some(c) if c.verify.is_untestable() => Some(OrphanWhy::Untestable),
                Some(_) => None,
            };
            if let Some(why) = why {
                let stamp = syntax
                    .claims_of(f)
                    .find(|s| s.id == *id)
                    .and_then(|s| s.stamp.clone());
                orphans.push(Orphan {
                    file: file.to_string(),
                    test: test.clone(),
                    name_range: f.name_range.clone(),
                    id: id.to_string(),
                    why,
                    renamed_to: crate::annotations::renamed_to(spec, stamp.as_deref())
                        .filter(|new| *new != *id)
                        .map(str::to_string),
                });
            }
        }
        if f.module.is_empty()
            && !f.in_macro
            && let Some(&first) = claims.iter().find_map(|id| spec.by_id.get(*id))
        {
            anchors.push((first, f.range.clone()));
        }
        match untouched {
            Some(id) if spec.clause(&id).is_some_and(|c| !c.verify.is_untestable()) => {
                let c = spec.clause(&id).expect("checked above");
                edits.push((f.range.clone(), render_stub(c, &f.name)));
                report.refreshed.push(id);
            }
            _ => report.kept.push(test),
        }
    }

    // Insertions, grouped by anchor position. A stub that opens a section in the file (its
    // neighbour is in another section, and the file has no such heading yet) is preceded by the
    // section's heading as a comment, so the stubs read in the spec's sections.
    let mut after: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut at_end: Vec<String> = Vec::new();
    let label_of = |j: usize| section_label(spec, &spec.clauses[j]);
    let mut headed: BTreeSet<String> = existing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// ").map(str::to_string))
        .collect();
    let mut end_section = anchors
        .iter()
        .max_by_key(|(_, r)| r.end)
        .and_then(|(j, _)| label_of(*j));
    for &i in add {
        let c = &spec.clauses[i];
        let mut name = fn_name(&c.id);
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{}_{n}", fn_name(&c.id));
            n += 1;
        }
        taken.insert(name.clone());
        let mut stub = render_stub(c, &name);
        report.added.push(c.id.clone());
        let prev = anchors
            .iter()
            .filter(|(j, _)| *j < i)
            .max_by_key(|(j, r)| (*j, r.end));
        let next = anchors
            .iter()
            .filter(|(j, _)| *j > i)
            .min_by_key(|(j, r)| (*j, r.start));
        let label = section_label(spec, c);
        // Into its own section when the test before it is in another one and the one after it
        // is in its section: under that section's heading, not at the end of the previous
        // section (where a stub deleted by hand and written again used to land).
        let into_next = next.filter(|(j, _)| {
            label.is_some()
                && label_of(*j) == label
                && prev.is_none_or(|(p, _)| label_of(*p) != label)
        });
        let neighbour = match (prev, next) {
            _ if into_next.is_some() => label.clone(),
            (Some((j, _)), _) => label_of(*j),
            (None, Some((j, _))) => label_of(*j),
            (None, None) => end_section.clone(),
        };
        if let Some(l) = &label
            && label != neighbour
            && headed.insert(l.clone())
        {
            stub = format!("// {l}\n\n{stub}");
        }
        match (prev, next) {
            _ if into_next.is_some() => {
                let (_, r) = into_next.expect("checked");
                before.entry(r.start).or_default().push(stub);
            }
            (Some((_, r)), _) => after.entry(r.end).or_default().push(stub),
            (None, Some((_, r))) => {
                // Above the next test's section heading, if it has one, not between the two.
                let at = heading_above(existing, r.start, label_of(next.expect("some").0));
                before.entry(at).or_default().push(stub);
            }
            (None, None) => {
                end_section = label;
                at_end.push(stub);
            }
        }
    }
    for (pos, stubs) in after {
        let text: String = stubs.iter().map(|s| format!("\n\n{s}")).collect();
        edits.push((pos..pos, text));
    }
    for (pos, stubs) in before {
        let text: String = stubs.iter().map(|s| format!("{s}\n\n")).collect();
        edits.push((pos..pos, text));
    }
    // Stable order: by start, insertions (empty) before a replacement starting at the same place.
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out =
        String::with_capacity(existing.len() + edits.iter().map(|e| e.1.len()).sum::<usize>());
    let mut pos = 0;
    for (r, text) in &edits {
        out.push_str(&existing[pos..r.start]);
        out.push_str(text);
        pos = r.end;
    }
    out.push_str(&existing[pos..]);
    if !at_end.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        for s in &at_end {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(s);
            out.push('\n');
        }
    }
    Ok((out, report, orphans))
}

/// The heading a clause's stub is grouped under, numbered as the site numbers it
/// (`5.1 Root Filesystem`): the section the clause is in; `None` directly under the chapter's
/// title or before it.
fn section_label(spec: &Spec, c: &Clause) -> Option<String> {
    let (d, doc) = spec
        .documents
        .iter()
        .enumerate()
        .find(|(_, d)| d.chapter == c.chapter)?;
    let section = c.section.as_ref()?;
    let i = doc
        .headings
        .iter()
        .position(|h| h.anchor == section.anchor)?;
    // The chapter's title heads the whole file already (its `//!` header).
    if doc.headings[i].level <= 1 {
        return None;
    }
    let numbers = kcontract_spec::section_numbers(d + 1, &doc.headings);
    Some(format!("{} {}", numbers.get(i)?, doc.headings[i].title))
}

/// Where to insert above the item starting at `start`: before the `// LABEL` line just above it
/// (blank lines between allowed), if there is one, else at `start`.
fn heading_above(src: &str, start: usize, label: Option<String>) -> usize {
    let Some(label) = label else { return start };
    let above = src[..start].trim_end();
    let line_start = above.rfind('\n').map_or(0, |i| i + 1);
    if above[line_start..].trim() == format!("// {label}") {
        line_start
    } else {
        start
    }
}

/// Add `mod NAME;` lines for missing modules to `main.rs`, keeping the declarations sorted the
/// way rustfmt orders them. The file is read as Rust tokens (`crate::annotations::mod_decls`), so
/// a declaration with a comment after it (`mod x; // ours`), inside a `/* */` or with attributes
/// is seen as the compiler sees it and never declared twice (E0428). A new line goes before the
/// first declaration (its attributes included) whose name sorts after it, else after the line of
/// the last declaration, else at the end; every other byte is kept.
pub(crate) fn merge_main(existing: &str, modules: &BTreeSet<String>) -> Result<String, LexFailure> {
    let mut text = existing.to_string();
    for m in modules {
        let decls = crate::annotations::mod_decls(&text)?;
        if decls.iter().any(|d| d.name == *m) {
            continue;
        }
        let line = format!("mod {m};\n");
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        if let Some(d) = decls.iter().find(|d| d.name > *m) {
            let at = line_start(d.item.start);
            text.insert_str(at, &line);
        } else if let Some(d) = decls.last() {
            let at = text[d.item.end..]
                .find('\n')
                .map_or(text.len(), |i| d.item.end + i + 1);
            if at == text.len() && !text.ends_with('\n') {
                text.push('\n');
            }
            let at = at.min(text.len());
            text.insert_str(at, &line);
        } else {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.trim().is_empty() && !text.ends_with("\n\n") {
                text.push('\n');
            }
            text.push_str(&line);
        }
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Plan a regeneration of the folder. Pure: `existing` maps the folder's `.rs` file names to
/// their text; `real_tests` are the clause ids that a real test in the scanned project claims.
pub fn plan(
    spec: &Spec,
    existing: &BTreeMap<String, String>,
    real_tests: &BTreeSet<String>,
) -> Result<Plan, Unreadable> {
    plan_in(
        spec,
        existing,
        real_tests,
        &Scope::default(),
        &BTreeSet::new(),
    )
}

/// [`plan`] for a crate's scope (its selection and exemptions), with the folder's record of the
/// clauses that have had a stub (`recorded`; see [`RECORD`]).
pub fn plan_in(
    spec: &Spec,
    existing: &BTreeMap<String, String>,
    real_tests: &BTreeSet<String>,
    scope: &Scope,
    recorded: &BTreeSet<String>,
) -> Result<Plan, Unreadable> {
    let mut plan = Plan::default();
    // Every clause claimed by any test in the folder already has its test; so has the new id of
    // a renamed clause whose old id a written test claims (K0510 says to re-point it): a second
    // test for it would be a stub beside the author's work.
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    for (file, text) in existing {
        let syntax = parse_source(text).map_err(|failure| Unreadable {
            file: file.clone(),
            failure,
        })?;
        for f in syntax.fns.iter().filter(|f| f.is_test()) {
            let written = untouched_stub(text, &syntax, f, spec).is_none();
            for s in syntax.claims_of(f) {
                claimed.insert(s.id.clone());
                if written
                    && spec.clause(&s.id).is_none()
                    && let Some(new) = crate::annotations::renamed_to(spec, s.stamp.as_deref())
                {
                    claimed.insert(new.to_string());
                }
            }
        }
    }
    let mut by_file: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, c) in spec.clauses.iter().enumerate() {
        if !wanted(spec, scope, &c.id) || claimed.contains(&c.id) {
            continue;
        }
        if real_tests.contains(&c.id) {
            plan.elsewhere.push(c.id.clone());
            continue;
        }
        if recorded.contains(&c.id) {
            plan.deleted.push(c.id.clone());
            continue;
        }
        by_file
            .entry(format!("{}.rs", module_name(&c.chapter)))
            .or_default()
            .push(i);
    }
    let mut modules: BTreeSet<String> = BTreeSet::new();
    let mut names: BTreeSet<String> = existing
        .keys()
        .filter(|f| *f != "main.rs")
        .cloned()
        .collect();
    names.extend(by_file.keys().cloned());
    for file in names {
        let add = by_file.get(&file).map_or(&[][..], Vec::as_slice);
        let header;
        let old = match existing.get(&file) {
            Some(t) => t.as_str(),
            None => {
                let chapter = &spec.clauses[add[0]].chapter;
                header = chapter_header(spec, chapter);
                header.as_str()
            }
        };
        let (text, report, orphans) =
            merge_file_in(&file, old, add, spec, scope).map_err(|failure| Unreadable {
                file: file.clone(),
                failure,
            })?;
        modules.insert(file.trim_end_matches(".rs").to_string());
        plan.files.insert(file, text);
        plan.reports.push(report);
        plan.orphans.extend(orphans);
    }
    plan.record = recorded
        .iter()
        .chain(&claimed)
        .chain(plan.reports.iter().flat_map(|r| &r.added))
        .filter(|id| wanted(spec, scope, id))
        .cloned()
        .collect();
    let main_old = existing
        .get("main.rs")
        .cloned()
        .unwrap_or_else(|| main_header(spec));
    let main = merge_main(&main_old, &modules).map_err(|failure| Unreadable {
        file: "main.rs".into(),
        failure,
    })?;
    plan.files.insert("main.rs".into(), main);
    Ok(plan)
}

/// `Cargo.toml` of a standalone test crate (written only when missing).
pub fn crate_manifest(spec: &Spec, name: &str) -> String {
    format!(
        "[package]\n\
         name = \"{name}\"\n\
         version = \"0.1.0\"\n\
         edition = \"2024\"\n\
         publish = false\n\
         description = \"Tests for the {} {}, scaffolded by kcontract\"\n\
         \n\
         # A workspace of its own, so the crate builds wherever it is put.\n\
         [workspace]\n\
         \n\
         [dependencies]\n",
        spec.contract.title.replace(['"', '\\'], ""),
        spec.contract.version.replace(['"', '\\'], "")
    )
}

/// `.config/nextest.toml` of a standalone test crate (written only when missing): the `ci` profile
/// whose JUnit report `kcontract matrix --results` reads.
pub const CRATE_NEXTEST: &str = "# cargo-nextest configuration, written once by `kcontract scaffold --crate`. The `ci` profile runs\n# every test even after a failure and writes a JUnit report to target/nextest/ci/junit.xml, which\n# `kcontract matrix --results` reads.\n[profile.ci]\nfail-fast = false\n\n[profile.ci.junit]\npath = \"junit.xml\"\n";

/// `README.md` of a standalone test crate (written only when missing): the workflow, run in the
/// crate (its `kcontract.toml` names the spec and the selection, so no command needs a flag).
pub fn crate_readme(spec: &Spec, name: &str) -> String {
    format!(
        "# {name}\n\n\
         Tests for the {title} {version}, scaffolded by `kcontract`. Each file in `tests/contract/` is\n\
         a chapter; each test claims its clause with a `/// Clause: <id> @ <stamp>` line. Write a test's\n\
         body and remove its `#[ignore]` line; regenerating keeps your work. `kcontract.toml` says where\n\
         the contract is, which clauses this crate answers for (`select`) and which do not apply here\n\
         (`[exempt]`, each with its reason); every command below reads it.\n\n\
         ```sh\n\
         # 1. generate (again, after the contract changed: new clauses get stubs, nothing is lost)\n\
         kcontract scaffold\n\
         # 2. run the tests, with a JUnit report (the `ci` profile of .config/nextest.toml)\n\
         cargo nextest run --profile ci\n\
         # 3. the traceability matrix of the selected clauses; exit 1 unless each passes (or is exempt)\n\
         kcontract matrix --results target/nextest/ci/junit.xml --require '*=passing'\n\
         # 4. in CI, also fail when coverage drops below the committed snapshot (write it once with --accept)\n\
         kcontract matrix --results target/nextest/ci/junit.xml --ci coverage.json\n\
         ```\n",
        title = spec.contract.title,
        version = spec.contract.version,
    )
}

/// `.gitignore` of a standalone test crate (written only when missing): Cargo's output, where
/// kcontract also keeps its scan cache.
pub const CRATE_GITIGNORE: &str = "/target\n";

/// `src/lib.rs` of a standalone test crate (written only when missing).
pub const CRATE_LIB: &str = "//! Helpers shared by the contract tests in `tests/contract/` (a client for the platform\n//! under test, fixtures, …). `kcontract scaffold` wrote this file once and never touches it again.\n";

/// Is `name` usable as a Cargo package name?
pub fn check_crate_name(name: &str) -> Result<String, String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    if ok {
        Ok(name.to_string())
    } else {
        Err(format!(
            "`{name}` is not a Cargo package name: use ASCII letters, digits, `-` and `_`, starting with a letter or `_`, at most 64 characters"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapped(text: &str) -> String {
        let mut s = String::new();
        doc_lines(text, &mut s);
        s
    }

    #[test]
    fn doc_lines_wrap_and_keep_lists_together() {
        let long = "word ".repeat(40);
        let out = wrapped(long.trim());
        assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
        assert!(out.lines().count() >= 2);
        let out = wrapped(&format!(
            "Intro:\n\n- {}\n  tail",
            "item ".repeat(30).trim()
        ));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "/// Intro:");
        assert_eq!(lines[1], "///");
        assert!(lines[2].starts_with("/// - item"));
        assert!(lines[3..].iter().all(|l| l.starts_with("///   ")), "{out}");
        // Never a line starting a list by accident.
        let out = wrapped(&format!("{} - dash 1. one", "x".repeat(90)));
        assert!(
            !out.lines()
                .skip(1)
                .any(|l| l.starts_with("/// -") || l.starts_with("/// 1.")),
            "{out}"
        );
    }

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

    #[test]
    fn main_rs_gains_sorted_declarations() {
        let m: BTreeSet<String> = ["b", "d"].map(String::from).into();
        let out = merge_main("//! doc\n", &m).unwrap();
        assert_eq!(out, "//! doc\n\nmod b;\nmod d;\n");
        let m: BTreeSet<String> = ["a", "b", "c", "d", "e"].map(String::from).into();
        let out = merge_main("//! doc\n\nmod b;\nmod d;\n\nfn helper() {}\n", &m).unwrap();
        assert_eq!(
            out,
            "//! doc\n\nmod a;\nmod b;\nmod c;\nmod d;\nmod e;\n\nfn helper() {}\n"
        );
        // Declarations are read as tokens (issue #36: `mod b; // ours` was declared again, E0428).
        let m: BTreeSet<String> = ["b", "c", "d"].map(String::from).into();
        for (old, want) in [
            (
                "mod b; // added by the platform team\n",
                "mod b; // added by the platform team\nmod c;\nmod d;\n",
            ),
            ("mod b; /* ours */\n", "mod b; /* ours */\nmod c;\nmod d;\n"),
            (
                "pub mod b;\n#[cfg(feature = \"x\")]\nmod d;\n",
                "pub mod b;\nmod c;\n#[cfg(feature = \"x\")]\nmod d;\n",
            ),
            (
                "mod b {\n    fn x() {}\n}\nmod c;\nmod d;",
                "mod b {\n    fn x() {}\n}\nmod c;\nmod d;\n",
            ),
        ] {
            assert_eq!(merge_main(old, &m).unwrap(), want, "{old}");
        }
        // `// mod c;` is a comment: c is declared.
        assert_eq!(
            merge_main("mod b;\n// mod c;\nmod d;\n", &m).unwrap(),
            "mod b;\n// mod c;\nmod c;\nmod d;\n"
        );
        assert!(merge_main("mod b; \"\n", &m).is_err());
    }

    /// A spec in memory: one chapter with clauses under its title and in two sections.
    fn sectioned_spec(extra: &str) -> Spec {
        use kcontract_spec::{LoadOptions, Tree, load_from};
        use std::path::{Path, PathBuf};
        let block = |id: &str, text: &str| {
            format!(
                "```clause\nid: {id}\nlevel: MUST\nactor: platform\ntext: {text}\nverify: manual\n```\n\n"
            )
        };
        let chapter = format!(
            "# Chapter\n\n{}## Alpha\n\n{}{}## Beta\n\n{}{extra}",
            block("c.top", "The platform MUST be."),
            block("c.a1", "The platform MUST do a1."),
            block("c.a2", "The platform MUST do a2."),
            block("c.b1", "The platform MUST do b1."),
        );
        let files = BTreeMap::from([
            (
                PathBuf::from("s/contract.yaml"),
                b"title: T\nversion: 1.0.0\nlanguages: [en]\nchapters: [ch]\n".to_vec(),
            ),
            (PathBuf::from("s/en/ch.md"), chapter.into_bytes()),
        ]);
        let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.spec
    }

    fn all(spec: &Spec) -> Vec<usize> {
        (0..spec.clauses.len()).collect()
    }

    /// Found by `scan_fuzz` (corrupted real files): text after a removed stub's closing brace on
    /// the same line must not join the comment line before the stub.
    #[test]
    fn removing_a_stub_keeps_the_rest_of_its_line_on_a_line_of_its_own() {
        let spec = sectioned_spec("");
        let fresh = merge_file("ch.rs", "//! header\n", &all(&spec), &spec)
            .unwrap()
            .0;
        let at = fresh.find("fn c_a1() {\n    todo!()\n}").unwrap()
            + "fn c_a1() {\n    todo!()\n}".len();
        let corrupted = format!("{}ed() {{\n    todo!()\n}}{}", &fresh[..at], &fresh[at..]);
        let empty = Spec::default();
        let (merged, report, _) = merge_file("ch.rs", &corrupted, &[], &empty).unwrap();
        assert!(report.removed.contains(&"c.a1".to_string()), "{report:?}");
        assert!(parse_source(&merged).is_ok(), "{merged}");
        assert!(merged.contains("\ned() {"), "{merged}");
    }

    /// A removed stub takes the generated heading above it when nothing else is under it.
    #[test]
    fn removing_the_last_stub_of_a_section_takes_its_heading() {
        let spec = sectioned_spec("");
        let fresh = merge_file("ch.rs", "//! header\n", &all(&spec), &spec)
            .unwrap()
            .0;
        assert!(fresh.contains("// 1.2 Beta\n"));
        let scope = Scope {
            exempt: [("c.b1".to_string(), "not here".to_string())].into(),
            ..Scope::default()
        };
        let (out, report, _) = merge_file_in("ch.rs", &fresh, &[], &spec, &scope).unwrap();
        assert_eq!(report.removed, ["c.b1"]);
        assert!(!out.contains("1.2 Beta") && !out.contains("c_b1"), "{out}");
        assert!(out.ends_with("fn c_a2() {\n    todo!()\n}\n"), "{out}");
        // Alpha keeps its heading: a2 is still under it.
        let scope = Scope {
            exempt: [("c.a1".to_string(), "not here".to_string())].into(),
            ..Scope::default()
        };
        let (out, _, _) = merge_file_in("ch.rs", &fresh, &[], &spec, &scope).unwrap();
        assert!(
            out.contains("// 1.1 Alpha\n\n/// The platform MUST do a2."),
            "{out}"
        );
    }

    #[test]
    fn stubs_are_grouped_under_their_section_headings() {
        let spec = sectioned_spec("");
        let (fresh, _, _) = merge_file("ch.rs", "//! header\n", &all(&spec), &spec).unwrap();
        let heads: Vec<&str> = fresh.lines().filter(|l| l.starts_with("// ")).collect();
        assert_eq!(heads, ["// 1.1 Alpha", "// 1.2 Beta"], "{fresh}");
        // The clause under the chapter's title comes first, with no heading of its own.
        let top = fresh.find("fn c_top").unwrap();
        assert!(top < fresh.find("// 1.1 Alpha").unwrap());
        assert!(fresh.find("fn c_a2").unwrap() < fresh.find("// 1.2 Beta").unwrap());
        // Regenerating changes nothing.
        let (again, _, _) = merge_file("ch.rs", &fresh, &[], &spec).unwrap();
        assert_eq!(again, fresh);

        // A new clause in an existing section joins it; one in a new section opens it with its
        // heading, after the section before it.
        let spec2 = sectioned_spec(
            "```clause\nid: c.b2\nlevel: MUST\nactor: platform\ntext: The platform MUST do b2.\nverify: manual\n```\n\n## Gamma\n\n```clause\nid: c.g1\nlevel: MUST\nactor: platform\ntext: The platform MUST do g1.\nverify: manual\n```\n",
        );
        let new: Vec<usize> = ["c.b2", "c.g1"].iter().map(|id| spec2.by_id[*id]).collect();
        let (grown, _, _) = merge_file("ch.rs", &fresh, &new, &spec2).unwrap();
        let heads: Vec<&str> = grown.lines().filter(|l| l.starts_with("// ")).collect();
        assert_eq!(
            heads,
            ["// 1.1 Alpha", "// 1.2 Beta", "// 1.3 Gamma"],
            "{grown}"
        );
        let at = |f: &str| grown.find(f).unwrap();
        assert!(at("fn c_b1") < at("fn c_b2") && at("fn c_b2") < at("// 1.3 Gamma"));
        assert!(at("// 1.3 Gamma") < at("fn c_g1"));
        assert!(grown.starts_with(&fresh[..fresh.find("fn c_b1").unwrap()]));

        // A stub placed before the file's first test goes above that test's heading.
        let only_beta = {
            let b1 = spec.by_id["c.b1"];
            merge_file("ch.rs", "//! header\n", &[b1], &spec).unwrap().0
        };
        assert!(
            only_beta.contains("// 1.2 Beta\n\n/// The platform MUST do b1."),
            "{only_beta}"
        );
        // A stub written again at the start of a section whose heading is still there (issue
        // #36: it landed at the end of the section before, under that heading).
        let spec_b2 = sectioned_spec(
            "```clause\nid: c.b2\nlevel: MUST\nactor: platform\ntext: The platform MUST do b2.\nverify: manual\n```\n",
        );
        let full = merge_file("ch.rs", "//! header\n", &all(&spec_b2), &spec_b2)
            .unwrap()
            .0;
        let without_b1 = {
            let start = full.find("/// The platform MUST do b1.").unwrap();
            let end = start + full[start..].find("}\n\n").unwrap() + 3;
            format!("{}{}", &full[..start], &full[end..])
        };
        assert!(!without_b1.contains("fn c_b1") && without_b1.contains("fn c_b2"));
        let (back, _, _) =
            merge_file("ch.rs", &without_b1, &[spec_b2.by_id["c.b1"]], &spec_b2).unwrap();
        let at = |f: &str| back.find(f).unwrap();
        assert!(
            at("// 1.2 Beta") < at("fn c_b1") && at("fn c_b1") < at("fn c_b2"),
            "{back}"
        );
        assert_eq!(back, full, "written again where it was");

        let a1 = spec.by_id["c.a1"];
        let (out, _, _) = merge_file("ch.rs", &only_beta, &[a1], &spec).unwrap();
        let at = |f: &str| out.find(f).unwrap();
        assert!(
            at("// 1.1 Alpha") < at("fn c_a1") && at("fn c_a1") < at("// 1.2 Beta"),
            "{out}"
        );
    }
}
