//! The offline search index: a script that defines `window.KC_SEARCH`, loaded with a plain
//! `<script src>` so it works from `file://` (no fetch, no server, no wasm). Tokenisation happens in
//! `site.js`, the same way for the index and the query: ASCII words, and overlapping character
//! bigrams for CJK text (Chinese has no spaces; bigrams find "容器" inside "容器进程").

use serde::Serialize;

use super::context::ClauseCtx;
use crate::diagnostic::Diagnostic;
use crate::spec::Spec;

/// One clause in the index.
#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    url: Url<'a>,
    level: &'static str,
    section: Option<&'a str>,
    text: &'a str,
}

/// `chapter.html#id`, written straight into the JSON string.
struct Url<'a>(&'a str, &'a str);

impl Serialize for Url<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}.html#{}", self.0, self.1))
    }
}

/// The entries, each made as it is written (no list of them all).
struct Entries<'a>(&'a Spec, &'a [ClauseCtx<'a>]);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clauses.iter().zip(self.1).map(|(c, ctx)| Entry {
            id: &c.id,
            url: Url(&c.chapter, &c.id),
            level: c.level.as_str(),
            section: c.section.as_ref().map(|s| s.title.as_str()),
            text: &ctx.plain,
        }))
    }
}

/// Compact JSON in which `<` (only ever inside strings) is written `\u003c`, so a `</script>` in
/// a text stays inert in the script file.
struct ScriptSafe;

impl serde_json::ser::Formatter for ScriptSafe {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find('<') {
            w.write_all(&rest.as_bytes()[..at])?;
            w.write_all(b"\\u003c")?;
            rest = &rest[at + 1..];
        }
        w.write_all(rest.as_bytes())
    }
}

/// The index of one language: each clause's id, page, level, section and plain text (`clauses`
/// are the language's clause contexts, in the order of `spec.clauses`).
pub(super) fn index_script(spec: &Spec, clauses: &[ClauseCtx]) -> Result<Vec<u8>, Diagnostic> {
    const START: &[u8] = b"window.KC_SEARCH = ";
    let mut out: Vec<u8> =
        Vec::with_capacity(clauses.iter().map(|c| c.plain.len() + 160).sum::<usize>() + 32);
    out.extend_from_slice(START);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, ScriptSafe);
    Entries(spec, clauses)
        .serialize(&mut ser)
        .map_err(|e| super::files::json_error("the search index", &e))?;
    out.extend_from_slice(b";\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn script_safe(v: &impl Serialize) -> String {
        let mut out = Vec::new();
        v.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, ScriptSafe,
        ))
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    proptest! {
        /// Any strings: no `<` in the script, and the JSON reads back as the same strings.
        #[test]
        fn script_safe_json_has_no_lt_and_reads_back(texts in proptest::collection::vec("(<|/|script|\"|\\\\|容|\n| |a)*", 0..4)) {
            let json = script_safe(&texts);
            prop_assert!(!json.contains('<'), "{}", json);
            let back: Vec<String> = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, texts);
        }
    }

    #[test]
    fn a_closing_script_tag_is_escaped() {
        assert_eq!(script_safe(&"</script>"), r#""\u003c/script>""#);
    }
}
