//! The offline search index: a script that defines `window.KC_SEARCH`, loaded with a plain
//! `<script src>` so it works from `file://` (no fetch, no server, no wasm). Tokenisation happens in
//! `site.js`, the same way for the index and the query: ASCII words, and overlapping character
//! bigrams for CJK text (Chinese has no spaces; bigrams find "容器" inside "容器进程").

use crate::json::JsonWriter;
use crate::spec::Spec;

/// The index of one language: each clause's id, page, level, section and plain text (`clauses`
/// are the language's clause contexts, in the order of `spec.clauses`), as compact JSON with `<`
/// written `\u003c` (so a `</script>` in a text stays inert in the script file). Written entry by
/// entry into the script; `tests::the_index_is_what_serde_writes` holds it equal to serialising
/// the serde type it mirrors.
pub(crate) fn index_script(spec: &Spec, clauses: &[crate::site::ClauseCtx]) -> Vec<u8> {
    const START: &[u8] = b"window.KC_SEARCH = ";
    let mut out: Vec<u8> =
        Vec::with_capacity(clauses.iter().map(|c| c.plain.len() + 160).sum::<usize>() + 32);
    out.extend_from_slice(START);
    let mut w = JsonWriter::compact_script_safe(&mut out);
    w.begin_array();
    for (c, ctx) in spec.clauses.iter().zip(clauses) {
        w.item();
        w.begin_object();
        w.field_str("id", &c.id);
        w.key("url");
        w.str_parts(&[&c.chapter, ".html#", &c.id]);
        w.field_str("level", c.level.as_str());
        w.field_opt_str("section", c.section.as_ref().map(|s| s.title.as_str()));
        w.field_str("text", &ctx.plain);
        w.end_object();
    }
    w.end_array();
    out.extend_from_slice(b";\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Serialize;

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
    /// are the language's clause contexts, in the order of `spec.clauses`). Serialised entry by entry
    /// into the script (a list of entries, then a JSON string, then the script were three copies).
    fn index_script_serde(spec: &Spec, clauses: &[crate::site::ClauseCtx]) -> Vec<u8> {
        struct Entries<'a>(&'a Spec, &'a [crate::site::ClauseCtx<'a>]);
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
        let mut out: Vec<u8> =
            Vec::with_capacity(clauses.iter().map(|c| c.plain.len() + 160).sum::<usize>() + 32);
        out.extend_from_slice(b"window.KC_SEARCH = ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, ScriptSafe);
        if Entries(spec, clauses).serialize(&mut ser).is_err() {
            out.truncate("window.KC_SEARCH = ".len());
            out.extend_from_slice(b"[]");
        }
        out.extend_from_slice(b";\n");
        out
    }

    #[test]
    fn the_index_is_what_serde_writes() {
        let spec = crate::spec_source::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec"),
        )
        .spec;
        // The source language (whose texts hold a `<`) and each translation.
        let langs = std::iter::once(None).chain(spec.translations.iter().map(Some));
        for tr in langs {
            let clauses: Vec<crate::site::ClauseCtx> = spec
                .clauses
                .iter()
                .enumerate()
                .map(|(i, c)| crate::site::clause_ctx(i, c, tr, crate::matrix::Status::Stub))
                .collect();
            if tr.is_none() {
                assert!(clauses.iter().any(|c| c.plain.contains('<')));
            }
            assert_eq!(
                String::from_utf8(index_script(&spec, &clauses)).unwrap(),
                String::from_utf8(index_script_serde(&spec, &clauses)).unwrap()
            );
        }
    }

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
