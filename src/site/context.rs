//! What the templates are given: each clause's context, each language's base context (interface
//! text, chapters, the language switch) and the matrix page's summary.

use serde::Serialize;
use tera::Context;
use tera::value::Value;

use super::interface::Interface;
use super::markdown::{self, level_class, to_html, to_inline_html};
use crate::matrix::{self, Matrix, Status};
use crate::spec::{Block, Clause, Document, Heading, Links, Spec, Translation, TranslationState};

/// A clause as the templates see it (`c` in `clause.html`, `clause-row.html` and `matrix-row.html`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ClauseCtx<'s> {
    pub id: &'s str,
    pub level: &'static str,
    pub level_class: &'static str,
    pub keyword: &'s str,
    pub actor: &'static str,
    pub verify: &'static str,
    pub text_html: String,
    /// Why untestable, in the page's language where translated (inline Markdown rendered).
    pub reason_html: Option<String>,
    /// `reason_html` is the source language's text on a translated page.
    pub reason_source: bool,
    /// Why a keyword-less statement binds, as `reason_html`.
    pub implicit_html: Option<String>,
    /// `implicit_html` is the source language's text on a translated page.
    pub implicit_source: bool,
    /// The text is the source language's on a translated page (the translation is missing).
    pub text_source: bool,
    pub oci: Option<&'s str>,
    pub oci_url: Option<String>,
    /// Each upstream test and its link (none without `links.upstream-tests` in contract.yaml).
    pub upstream_tests: Vec<(&'s str, Option<String>)>,
    pub chapter: &'s str,
    /// `current`, `stale` or `missing` (always `current` in the source language).
    pub state: &'static str,
    pub original_html: Option<String>,
    /// The clause's status in the traceability matrix.
    pub status: Status,
    /// The text without markup, for the search index (from the same Markdown parse as `text_html`).
    #[serde(skip)]
    pub plain: String,
}

#[derive(Serialize)]
struct ChapterLink<'s> {
    name: &'s str,
    title: &'s str,
    clauses: usize,
}

/// A link of the language switch: another configured language, named in itself.
#[derive(Serialize)]
struct LangLink<'a> {
    lang: &'a str,
    name: &'a str,
    html_lang: &'a str,
}

/// The chapters of `lang`: its translation's documents, or the source's.
pub(super) fn documents<'s>(
    spec: &'s Spec,
    lang: &str,
) -> (&'s [Document], Option<&'s Translation>) {
    match spec.translations.iter().find(|t| t.lang == lang) {
        Some(t) => (&t.documents, Some(t)),
        None => (&spec.documents, None),
    }
}

/// What every page of `lang` shares: `lang`, `html_lang`, `other_langs` (the language switch), `t`,
/// `title`, `version`, `upstream`, `chapters`, `has_runtimes`.
pub(super) fn base(
    spec: &Spec,
    lang: &str,
    docs: &[Document],
    own: &Interface,
    interfaces: &[(&str, &Interface)],
    has_runtimes: bool,
) -> Context {
    let others: Vec<LangLink> = interfaces
        .iter()
        .filter(|(l, _)| *l != lang)
        .map(|(l, i)| LangLink {
            lang: l,
            name: &i.name,
            html_lang: &i.html_lang,
        })
        .collect();
    let chapters: Vec<ChapterLink> = docs
        .iter()
        .map(|d| ChapterLink {
            name: &d.chapter,
            title: &d.title,
            clauses: d
                .blocks
                .iter()
                .filter(|b| matches!(b, Block::Clause(_)))
                .count(),
        })
        .collect();
    let mut ctx = Context::new();
    ctx.insert("lang", lang);
    ctx.insert("html_lang", &own.html_lang);
    ctx.insert("other_langs", &others);
    ctx.insert("t", &own.text);
    ctx.insert("title", spec.contract.title_in(lang));
    let attribution = spec.contract.attribution_in(lang);
    let translated = attribution.is_none_or(|(_, translated)| translated);
    ctx.insert("attribution", &attribution.map(|(text, _)| text));
    // The language the attribution is written in, when it is not the page's.
    let source = spec.contract.languages.first().map_or("en", String::as_str);
    ctx.insert(
        "attribution_lang",
        &(!translated && lang != source).then_some(source),
    );
    ctx.insert("version", &spec.contract.version);
    ctx.insert("upstream", &spec.contract.upstream);
    // The vocabulary's words and labels come from contract.yaml (a word without a label in this
    // language shows its name); the links' labels too, else the interface text's.
    let c = &spec.contract;
    let labels = |words: Vec<(&str, Option<&str>)>| {
        words
            .into_iter()
            .map(|(name, label)| (name.to_string(), label.unwrap_or(name).to_string()))
            .collect::<std::collections::BTreeMap<String, String>>()
    };
    let actors: Vec<&str> = c.actor_list().map(|a| a.as_str()).collect();
    let verify: Vec<&str> = c.verify_list().map(|v| v.as_str()).collect();
    ctx.insert("actors", &actors);
    ctx.insert("verify_kinds", &verify);
    ctx.insert(
        "actor_label",
        &labels(
            c.actors
                .iter()
                .map(|a| (a.value.as_str(), a.label(lang)))
                .collect(),
        ),
    );
    ctx.insert(
        "verify_label",
        &labels(
            c.verify
                .iter()
                .map(|v| (v.value.as_str(), v.label(lang)))
                .collect(),
        ),
    );
    let link_label = |l: Option<&crate::spec::LinkBase>, key: &str| {
        l.and_then(|l| l.labels.get(lang))
            .or_else(|| own.text.get(key))
            .cloned()
            .unwrap_or_else(|| key.to_string())
    };
    ctx.insert("oci_label", &link_label(c.links.oci.as_ref(), "oci"));
    ctx.insert(
        "upstream_tests_label",
        &link_label(c.links.upstream_tests.as_ref(), "upstream_tests"),
    );
    // `links.tests`: the matrix page links each test as `BASE<file>#L<line>` (see `Links::tests`).
    ctx.insert(
        "tests_base",
        &c.links.tests.as_ref().map(|l| l.base.as_str()),
    );
    ctx.insert("chapters", &chapters);
    ctx.insert("has_runtimes", &has_runtimes);
    ctx
}

/// A page of the site, for previous/next links: its file name (without `.html`) and title.
#[derive(Serialize)]
pub(super) struct PageLink<'s> {
    pub name: &'s str,
    pub title: &'s str,
}

/// The pages of a language in reading order: the index, the chapters, the clause index, the matrix
/// and the runtimes page.
pub(super) fn page_order<'s>(
    docs: &'s [Document],
    t: &'s Interface,
    has_runtimes: bool,
) -> Vec<PageLink<'s>> {
    let text = |key: &'static str| t.text.get(key).map_or(key, String::as_str);
    let mut order = vec![PageLink {
        name: "index",
        title: text("home"),
    }];
    order.extend(docs.iter().map(|d| PageLink {
        name: &d.chapter,
        title: &d.title,
    }));
    order.push(PageLink {
        name: "clauses",
        title: text("clauses"),
    });
    order.push(PageLink {
        name: "matrix",
        title: text("matrix"),
    });
    if has_runtimes {
        order.push(PageLink {
            name: "runtimes",
            title: text("runtimes"),
        });
    }
    order
}

/// A section in the sidebar of its chapter page (`sections` of `toc-sections.html`).
#[derive(Serialize)]
pub(super) struct Section<'s> {
    id: &'s str,
    number: &'s str,
    title: &'s str,
    level: u8,
}

/// The sections of a chapter (its headings below the title), with their numbers.
pub(super) fn sections<'s>(headings: &'s [Heading], numbers: &'s [String]) -> Vec<Section<'s>> {
    headings
        .iter()
        .zip(numbers)
        .filter(|(h, _)| h.level > 1)
        .map(|(h, n)| Section {
            id: &h.anchor,
            number: n,
            title: &h.title,
            level: h.level,
        })
        .collect()
}

/// The matrix page's summary: `coverage` groups, `statuses` and `results` (the rows are `rows`).
pub(super) fn matrix_summary(m: &Matrix, t: &Interface, lang: &str, ctx: &mut Context) {
    #[derive(Serialize)]
    struct Group {
        label: String,
        clauses: usize,
        counts: Vec<usize>,
        ratio: String,
    }
    let summary = m.summary();
    let group = |g: &matrix::Coverage, label: String| Group {
        label,
        clauses: g.clauses,
        counts: Status::ALL.iter().map(|s| g.status.get(*s)).collect(),
        ratio: g.ratio(),
    };
    let text = |key: &str| t.text.get(key).cloned().unwrap_or_else(|| key.to_string());
    let mut groups: Vec<Group> = summary
        .by_level
        .iter()
        .map(|g| group(g, g.group.clone()))
        .collect();
    let actor_label = |name: &str| {
        let a = m
            .spec
            .contract
            .actors
            .iter()
            .find(|a| a.value.as_str() == name);
        a.and_then(|a| a.label(lang)).unwrap_or(name).to_string()
    };
    groups.extend(
        summary
            .by_actor
            .iter()
            .map(|g| group(g, actor_label(&g.group))),
    );
    groups.push(group(&summary.total, text("total")));
    ctx.insert("statuses", &Status::ALL.map(Status::as_str));
    ctx.insert("coverage", &groups);
    ctx.insert("results", &m.results);
}

/// The context of `c`, the clause at `index` of `spec.clauses`, in the language of `tr` (`None`:
/// the source language).
pub(super) fn clause<'s>(
    index: usize,
    c: &'s Clause,
    tr: Option<&Translation>,
    status: Status,
    links: &Links,
) -> ClauseCtx<'s> {
    // A missing translation shows the source text once, marked as the source language's (the badge
    // says it is not translated); a stale one shows the translation and the original beside it.
    let (text, state, original, translated) = match tr {
        None => (c.text.as_str(), "current", None, None),
        Some(t) => match t.lookup(index, c) {
            (TranslationState::Current, Some(x)) => (x.text.as_str(), "current", None, Some(x)),
            (TranslationState::Stale, Some(x)) => {
                (x.text.as_str(), "stale", Some(to_html(&c.text)), Some(x))
            }
            _ => (c.text.as_str(), "missing", None, None),
        },
    };
    // `reason` and `implicit` in the page's language where the translation gives them; else the
    // source's, marked as such (`*_source`).
    let pick = |source: Option<&'s String>, translated: Option<&Option<String>>| match (
        source,
        translated.and_then(Option::as_ref),
    ) {
        (None, _) => (None, false),
        (Some(_), Some(t)) => (Some(to_inline_html(t)), false),
        (Some(s), None) => (Some(to_inline_html(s)), tr.is_some()),
    };
    let (reason_html, reason_source) = pick(c.reason.as_ref(), translated.map(|x| &x.reason));
    let (implicit_html, implicit_source) =
        pick(c.implicit.as_ref(), translated.map(|x| &x.implicit));
    let (text_html, plain) = markdown::to_html_and_text(text, &c.chapter);
    ClauseCtx {
        id: &c.id,
        level: c.level.as_str(),
        level_class: level_class(c.level),
        keyword: &c.keyword,
        actor: c.actor.as_str(),
        verify: c.verify.as_str(),
        text_html,
        plain,
        reason_html,
        reason_source,
        implicit_html,
        implicit_source,
        text_source: tr.is_some() && state == "missing",
        oci_url: c
            .oci
            .as_ref()
            .and_then(|o| Some(links.oci.as_ref()?.url(o))),
        oci: c.oci.as_deref(),
        upstream_tests: c
            .upstream_tests
            .iter()
            .map(|p| (p.as_str(), links.upstream_tests.as_ref().map(|l| l.url(p))))
            .collect(),
        chapter: &c.chapter,
        state,
        original_html: original,
        status,
    }
}

/// A prose block of a chapter page (`blocks` of `chapter.html`): `{kind: "prose", html}`, finished
/// HTML marked safe.
pub(super) fn prose_block(html: Value) -> Value {
    let mut map = std::collections::BTreeMap::new();
    map.insert("kind", Value::from("prose"));
    map.insert("html", html);
    Value::from(map)
}

/// A clause block of a chapter page: `{kind: "clause", clause, html}`, `html` being `clause.html`
/// rendered for `clause` (marked safe).
pub(super) fn clause_block(clause: Value, html: Value) -> Value {
    let mut map = std::collections::BTreeMap::new();
    map.insert("kind", Value::from("clause"));
    map.insert("clause", clause);
    map.insert("html", html);
    Value::from(map)
}
