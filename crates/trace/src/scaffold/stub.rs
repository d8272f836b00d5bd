//! A stub's text as `scaffold` writes it, and whether a test is still, byte for byte, one it
//! wrote (an *untouched* stub, which it may rewrite) or a doc comment it wrote that `review` may
//! refresh.

use std::fmt::Write as _;
use std::ops::Range;

use super::go::Stubs;
use crate::annotations::{AttrKind, FileSyntax, FnItem, STUB_IGNORE_PREFIX};
use kcontract_spec::{Clause, Spec};

/// Line width of generated doc comments (rustfmt's default `max_width`).
const WIDTH: usize = 100;

/// Wrap one Markdown text into `/// ` lines of at most [`WIDTH`] columns where words allow. List
/// items keep their continuation indent (so rustdoc and clippy see one item), and a line is never
/// broken before a word that would start a new Markdown block (`-`, `#`, `>`, `1.`, …).
fn doc_lines(text: &str, out: &mut String) {
    doc_lines_with("///", text, out);
}

/// [`doc_lines`] with another comment marker (`//` for Go), wrapped at the same width, so the
/// words of a stub read back the same in any language.
pub(super) fn doc_lines_with(prefix: &str, text: &str, out: &mut String) {
    let width = WIDTH - 4;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.trim().is_empty() {
            out.push_str(prefix);
            out.push('\n');
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
                push_doc(prefix, out, &cur);
                cur = cont.clone();
                cur_has_word = false;
            }
            if cur_has_word {
                cur.push(' ');
            }
            cur.push_str(word);
            cur_has_word = true;
        }
        push_doc(prefix, out, &cur);
    }
}

fn push_doc(prefix: &str, out: &mut String, line: &str) {
    let line = line.trim_end();
    if line.is_empty() {
        let _ = writeln!(out, "{prefix}");
    } else {
        let _ = writeln!(out, "{prefix} {line}");
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
    doc_lines(&meta_line(c), &mut s);
    s.push_str("///\n");
    let _ = writeln!(s, "/// Clause: {} @ {}", c.id, c.stamp);
    s.push_str("#[test]\n");
    let _ = writeln!(s, "#[ignore = \"{STUB_IGNORE_PREFIX}{}\"]", c.id);
    let _ = write!(s, "fn {name}() {{\n    todo!()\n}}");
    s
}

/// A stub's meta line: `LEVEL · ACTOR · verify: V` and the upstream tests.
pub(super) fn meta_line(c: &Clause) -> String {
    let mut meta = format!("{} · {} · verify: {}", c.level, c.actor, c.verify);
    if !c.upstream_tests.is_empty() {
        let list: Vec<String> = c.upstream_tests.iter().map(|t| format!("`{t}`")).collect();
        let _ = write!(meta, " · upstream: {}", list.join(", "));
    }
    meta
}

/// [`render_stub`] in the language of `stubs`.
pub(super) fn render_stub_for(stubs: &Stubs, c: &Clause, name: &str) -> String {
    match stubs {
        Stubs::Rust => render_stub(c, name),
        Stubs::Go { .. } => super::go::render(c, name),
        Stubs::Python => super::python::render(c, name),
    }
}

/// [`untouched_stub`] in the language of `stubs`.
pub(super) fn untouched_stub_for(
    stubs: &Stubs,
    src: &str,
    syntax: &FileSyntax,
    f: &FnItem,
    spec: &Spec,
) -> Option<String> {
    match stubs {
        Stubs::Rust => untouched_stub(src, syntax, f, spec),
        Stubs::Go { .. } => super::go::untouched(src, syntax, f, spec),
        Stubs::Python => super::python::untouched(src, syntax, f, spec),
    }
}

pub(super) fn chapter_header(spec: &Spec, chapter: &str) -> String {
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

pub(super) fn main_header(spec: &Spec) -> String {
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
    generated_doc(id, &lines, claims[0].stamp.as_deref(), spec)
}

/// Whether a stub's comment lines (markers taken off) are what `scaffold` wrote for some version
/// of clause `id`: the text, a blank line, the meta block, a blank line and `Clause: ID[ @ STAMP]`,
/// the words making STAMP (`recorded`, the claim's); the id when they are.
pub(super) fn generated_doc(
    id: &str,
    lines: &[&str],
    recorded: Option<&str>,
    spec: &Spec,
) -> Option<String> {
    // The doc: text, "", meta, "", `Clause: ID[ @ STAMP]`.
    let (last, rest) = lines.split_last()?;
    let stamp = match recorded {
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

/// Is `f` an untouched stub of a language whose comments start with `comment` (`//`, `#`), its
/// body `tail(name, id)` as the language's stubs are written? Its clause id, when it is: one
/// claim, one comment block, the item exactly the block and the tail, and the block the one
/// [`generated_doc`] would write. Go and Python stubs share it; what differs is passed in.
pub(super) fn untouched_comment_stub(
    src: &str,
    syntax: &FileSyntax,
    f: &FnItem,
    spec: &Spec,
    comment: &str,
    tail: fn(&str, &str) -> String,
) -> Option<String> {
    if !f.module.is_empty() || !f.is_stub() {
        return None;
    }
    let claims: Vec<&crate::annotations::Site> = syntax.claims_of(f).collect();
    let [claim] = claims.as_slice() else {
        return None;
    };
    let docs: Vec<&crate::annotations::Attr> = f
        .attrs
        .iter()
        .filter(|a| matches!(a.kind, AttrKind::Doc(_)))
        .collect();
    let [doc] = docs.as_slice() else {
        return None;
    };
    let block = src.get(doc.range.clone())?;
    let expected = format!("{block}\n{}", tail(&f.name, &claim.id));
    if src.get(f.range.clone())? != expected {
        return None;
    }
    let lines: Vec<&str> = block
        .lines()
        .map(|l| {
            l.strip_prefix(comment)
                .map(|b| b.strip_prefix(' ').unwrap_or(b))
        })
        .collect::<Option<_>>()?;
    generated_doc(&claim.id, &lines, claim.stamp.as_deref(), spec)
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
}
