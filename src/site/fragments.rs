//! The per-clause pieces of the site, written in Rust: a clause's section on its chapter page, its
//! row in the clause index and its row in the matrix.
//!
//! Why: at ×100 a build renders 10,500 clauses three times per language, and interpreting a tera
//! template for each of them was most of the build's time. The templates `clause.html`,
//! `clause-row.html` and `matrix-row.html` stay the definition of the markup: these functions write
//! the same bytes as the embedded templates (a property test in this module renders both and
//! compares them), and a `--templates` folder that overrides one of the three makes the build render
//! that piece through tera instead, clause by clause.

use std::collections::BTreeMap;

use super::ClauseCtx;
use crate::matrix::TestView;

/// Interface text of one language (the `t` of the templates).
pub type Ui = BTreeMap<&'static str, &'static str>;

/// The same text HTML-escaped once per language, for the pieces written here (it was escaped again
/// for every badge of every clause).
pub type EscapedUi = BTreeMap<&'static str, String>;

pub fn escaped(t: &Ui) -> EscapedUi {
    t.iter()
        .map(|(k, v)| {
            let mut e = String::with_capacity(v.len());
            escape_into(&mut e, v);
            (*k, e)
        })
        .collect()
}

/// HTML-escape `s` onto `out`, exactly as tera's default escaper does.
pub use crate::escape::escape_html as escape_into;

/// The same escaper as a tera escape function, so the page templates escape the same way, faster.
pub fn tera_escape(s: &str, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    crate::escape::html_runs(s, |run| w.write_all(run.as_bytes()))
}

pub fn escaped_str(s: &str) -> String {
    let mut e = String::with_capacity(s.len());
    escape_into(&mut e, s);
    e
}

/// A small writer: literal markup with `s`, escaped text with `e`.
struct Out<'a>(&'a mut String);

impl Out<'_> {
    fn s(&mut self, lit: &str) -> &mut Self {
        self.0.push_str(lit);
        self
    }
    fn e(&mut self, text: &str) -> &mut Self {
        escape_into(self.0, text);
        self
    }
}

/// `t[key]` of the templates; a key the interface text lacks is a bug in this crate, shown as the key.
fn tr<'a>(t: &'a EscapedUi, key: &'a str) -> &'a str {
    t.get(key).map_or(key, String::as_str)
}

/// `<span lang="en">` around English-only notes on a page in another language.
fn en_span_open(o: &mut Out, lang: &str) {
    if lang == "en" {
        o.s("<span>");
    } else {
        o.s("<span lang=\"en\">");
    }
}

fn upstream_tests(o: &mut Out, c: &ClauseCtx, t: &EscapedUi) {
    if c.upstream_tests.is_empty() {
        return;
    }
    o.s("<p class=\"meta\"><strong>")
        .s(tr(t, "upstream_tests"))
        .s(":</strong> ");
    for (i, (path, url)) in c.upstream_tests.iter().enumerate() {
        if i > 0 {
            o.s(", ");
        }
        o.s("<a href=\"")
            .e(url)
            .s("\"><code>")
            .e(path)
            .s("</code></a>");
    }
    o.s("</p>");
}

fn some(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

/// `templates/clause.html`.
pub fn clause_section(out: &mut String, c: &ClauseCtx, t: &EscapedUi, lang: &str) {
    let id = &escaped_str(c.id);
    let o = &mut Out(out);
    o.s("<section class=\"clause level-")
        .e(c.level_class)
        .s(" state-")
        .e(c.state)
        .s("\" id=\"")
        .s(id)
        .s("\" aria-labelledby=\"")
        .s(id)
        .s("-h\">\n  <header>\n    <a class=\"pilcrow\" href=\"#")
        .s(id)
        .s("\" title=\"")
        .s(tr(t, "permalink"))
        .s("\" aria-label=\"")
        .s(tr(t, "permalink"))
        .s(": ")
        .s(id)
        .s("\">¶</a>\n    <code class=\"cid\" id=\"")
        .s(id)
        .s("-h\">")
        .s(id)
        .s("</code>\n    <span class=\"badge lvl lvl-")
        .e(c.level_class)
        .s("\" title=\"")
        .s(tr(t, "level"))
        .s("\">")
        .e(c.keyword)
        .s("</span>\n    <span class=\"badge actor\" title=\"")
        .s(tr(t, "actor"))
        .s("\">")
        .s(tr(t, c.actor))
        .s("</span>\n    <span class=\"badge verify\" title=\"")
        .s(tr(t, "verify"))
        .s("\">")
        .s(tr(t, c.verify))
        .s("</span>\n    <a class=\"badge status status-")
        .e(c.status.as_str())
        .s("\" href=\"matrix.html#")
        .s(id)
        .s("\" title=\"")
        .s(tr(t, "matrix_link"))
        .s("\">")
        .s(tr(t, c.status.as_str()))
        .s("</a>\n    ");
    if c.state == "stale" {
        o.s("<span class=\"badge warn\">")
            .s(tr(t, "stale"))
            .s("</span>");
    }
    o.s("\n    ");
    if c.state == "missing" {
        o.s("<span class=\"badge warn\">")
            .s(tr(t, "missing"))
            .s("</span>");
    }
    o.s("\n  </header>\n  <div class=\"text\">")
        .s(&c.text_html)
        .s("</div>\n  ");
    if let Some(original) = some(&c.original_html) {
        o.s("<details class=\"original\" open><summary>")
            .s(tr(t, "original"))
            .s("</summary><div lang=\"en\">")
            .s(original)
            .s("</div></details>");
    }
    o.s("\n  ");
    for (key, html) in [("implicit", &c.implicit_html), ("reason", &c.reason_html)] {
        if let Some(html) = some(html) {
            o.s("<p class=\"meta\"><strong>")
                .s(tr(t, key))
                .s(":</strong> ");
            en_span_open(o, lang);
            o.s(html).s("</span></p>");
        }
        o.s("\n  ");
    }
    if let Some(oci) = c.oci.filter(|s| !s.is_empty()) {
        o.s("<p class=\"meta\"><strong>")
            .s(tr(t, "oci"))
            .s(":</strong> <a href=\"")
            .e(c.oci_url.as_deref().unwrap_or(""))
            .s("\">")
            .e(oci)
            .s("</a></p>");
    }
    o.s("\n  ");
    upstream_tests(o, c, t);
    o.s("\n</section>\n");
}

/// The cells both rows share: id link, level badge, actor and verification.
fn row_cells(o: &mut Out, c: &ClauseCtx, t: &EscapedUi) {
    o.s("<td><a href=\"")
        .e(c.chapter)
        .s(".html#")
        .e(c.id)
        .s("\"><code>")
        .e(c.id)
        .s("</code></a></td><td><span class=\"badge lvl lvl-")
        .e(c.level_class)
        .s("\">")
        .e(c.keyword)
        .s("</span></td><td>")
        .s(tr(t, c.actor))
        .s("</td><td>")
        .s(tr(t, c.verify))
        .s("</td>");
}

/// `templates/clause-row.html`.
pub fn index_row(out: &mut String, c: &ClauseCtx, t: &EscapedUi) {
    let o = &mut Out(out);
    o.s("<tr data-level=\"")
        .e(c.level)
        .s("\" data-actor=\"")
        .e(c.actor)
        .s("\" data-verify=\"")
        .e(c.verify)
        .s("\">");
    row_cells(o, c, t);
    o.s("<td>").s(&c.text_html).s("</td></tr>\n");
}

/// `templates/matrix-row.html`.
pub fn matrix_row(out: &mut String, c: &ClauseCtx, tests: &[TestView], t: &EscapedUi, lang: &str) {
    let o = &mut Out(out);
    o.s("<tr id=\"")
        .e(c.id)
        .s("\" data-level=\"")
        .e(c.level)
        .s("\" data-actor=\"")
        .e(c.actor)
        .s("\" data-verify=\"")
        .e(c.verify)
        .s("\" data-status=\"")
        .e(c.status.as_str())
        .s("\">");
    row_cells(o, c, t);
    o.s("<td><span class=\"badge status status-")
        .e(c.status.as_str())
        .s("\">")
        .s(tr(t, c.status.as_str()))
        .s("</span></td><td>");
    if !tests.is_empty() {
        o.s("<ul class=\"tests\">");
        for x in tests {
            o.s("<li><code>").e(&x.name).s("</code> <small>");
            if let Some(bin) = x.binary.as_deref().filter(|b| !b.is_empty()) {
                o.e(bin).s(" · ");
            }
            o.e(&x.file).s(":").s(&x.line.to_string());
            if x.stub {
                o.s(" · ").s(tr(t, "stub_test"));
            } else if x.ignored {
                o.s(" · ").s(tr(t, "ignored"));
            }
            if let Some(outcome) = x.outcome {
                o.s(" · ").s(tr(t, outcome.as_str()));
            }
            o.s("</small></li>");
        }
        o.s("</ul>");
    }
    upstream_tests(o, c, t);
    if let Some(reason) = some(&c.reason_html) {
        o.s("<p class=\"meta\"><strong>")
            .s(tr(t, "reason"))
            .s(":</strong> ");
        en_span_open(o, lang);
        o.s(reason).s("</span></p>");
    }
    o.s("</td></tr>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::Status;
    use crate::results::Outcome;
    use crate::site::{ClauseCtx, RowCtx, templates, ui};
    use proptest::prelude::*;
    use tera::Context;
    use tera::value::Value;

    /// Text with everything an escaper must handle: markup characters, quotes, CJK, spaces.
    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-z<>&\"' 容器·.#/:_-]{0,12}").unwrap()
    }

    fn opt_text() -> impl Strategy<Value = Option<String>> {
        prop_oneof![Just(None), Just(Some(String::new())), text().prop_map(Some)]
    }

    /// The owned data of a random [`ClauseCtx`] (which borrows its strings from the spec).
    #[derive(Debug, Clone)]
    struct Owned {
        id: String,
        keyword: String,
        chapter: String,
        oci: Option<String>,
        upstream_tests: Vec<(String, String)>,
        level: &'static str,
        rest: ClauseCtx<'static>,
    }

    impl Owned {
        fn ctx(&self) -> ClauseCtx<'_> {
            ClauseCtx {
                id: &self.id,
                level: self.level,
                keyword: &self.keyword,
                chapter: &self.chapter,
                oci: self.oci.as_deref(),
                upstream_tests: self
                    .upstream_tests
                    .iter()
                    .map(|(p, u)| (p.as_str(), u.clone()))
                    .collect(),
                ..self.rest.clone()
            }
        }
    }

    fn clause() -> impl Strategy<Value = Owned> {
        (
            (text(), text(), text(), text()),
            (opt_text(), opt_text(), opt_text(), opt_text(), opt_text()),
            proptest::collection::vec((text(), text()), 0..3),
            (
                prop::sample::select(vec!["must", "must-not", "may"]),
                prop::sample::select(vec!["current", "stale", "missing"]),
                prop::sample::select(vec!["platform", "developer", "container"]),
                prop::sample::select(vec!["model", "conformance", "manual", "untestable"]),
                prop::sample::select(Status::ALL.to_vec()),
                prop::sample::select(vec!["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]),
            ),
        )
            .prop_map(
                |(
                    (id, keyword, text_html, chapter),
                    (reason_html, implicit_html, oci, oci_url, original_html),
                    upstream_tests,
                    (level_class, state, actor, verify, status, level),
                )| Owned {
                    id,
                    keyword,
                    chapter,
                    oci,
                    upstream_tests,
                    level,
                    rest: ClauseCtx {
                        id: "",
                        level,
                        level_class,
                        keyword: "",
                        actor,
                        verify,
                        text_html,
                        reason_html,
                        implicit_html,
                        oci: None,
                        oci_url,
                        upstream_tests: Vec::new(),
                        chapter: "",
                        state,
                        original_html,
                        status,
                        plain: String::new(),
                    },
                },
            )
    }

    fn test_view() -> impl Strategy<Value = TestView> {
        (
            opt_text(),
            text(),
            text(),
            0usize..100_000,
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(vec![
                None,
                Some(Outcome::Passed),
                Some(Outcome::Failed),
                Some(Outcome::Skipped),
            ]),
        )
            .prop_map(
                |(binary, name, file, line, stub, ignored, outcome)| TestView {
                    binary,
                    name,
                    file,
                    line,
                    stub,
                    ignored,
                    outcome,
                },
            )
    }

    fn through_tera(name: &str, lang: &str, var: &'static str, value: Value) -> String {
        let tpl = templates(None).unwrap();
        let mut ctx = Context::new();
        ctx.insert("t", &ui(lang));
        ctx.insert("lang", lang);
        ctx.insert_value(var, value);
        tpl.tera.render(name, &ctx).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("KC_FRAGMENT_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
        ))]

        /// Each piece written here equals its embedded template rendered by tera, on random clauses.
        #[test]
        fn native_pieces_equal_their_templates(
            owned in clause(),
            tests in proptest::collection::vec(test_view(), 0..3),
            lang in prop::sample::select(vec!["en", "zh"]),
        ) {
            let c = owned.ctx();
            let t = escaped(&ui(lang));
            let mut native = String::new();
            clause_section(&mut native, &c, &t, lang);
            prop_assert_eq!(native, through_tera("clause.html", lang, "c", Value::from_serializable(&c)));
            let mut native = String::new();
            index_row(&mut native, &c, &t);
            prop_assert_eq!(native, through_tera("clause-row.html", lang, "c", Value::from_serializable(&c)));
            let mut native = String::new();
            matrix_row(&mut native, &c, &tests, &t, lang);
            let row = RowCtx { clause: &c, tests: &tests };
            prop_assert_eq!(native, through_tera("matrix-row.html", lang, "r", Value::from_serializable(&row)));
        }

        /// The escaper writes what tera's own default escaper writes.
        #[test]
        fn escaping_matches_tera(s in ".{0,40}") {
            let mut ours = String::new();
            escape_into(&mut ours, &s);
            let mut w = Vec::new();
            tera_escape(&s, &mut w).unwrap();
            prop_assert_eq!(&ours, &String::from_utf8(w).unwrap());
            let mut ctx = Context::new();
            ctx.insert("s", &s);
            prop_assert_eq!(ours, tera::Tera::one_off("{{ s }}", &ctx, true).unwrap());
        }
    }
}
