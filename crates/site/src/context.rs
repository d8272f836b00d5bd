//! What the templates are given: each clause's context, each language's base context (interface
//! text, chapters, the language switch) and the matrix page's summary.

use std::collections::BTreeMap;

use serde::Serialize;

use super::changes_page::Changed;
use super::interface::Interface;
use super::markdown::{self, level_class, to_inline_html_in};
use super::pages::{OwnPage, Pages, Place};
use kcontract_spec::{
    Block, Clause, Document, Heading, LinkDefs, Links, Spec, Translation, TranslationState,
};
use kcontract_trace::matrix::{self, Matrix, Status};

/// A clause as the templates see it (`c` in `clause.html`, `clause-row.html` and `matrix-row.html`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ClauseCtx<'s> {
    pub id: &'s str,
    pub level: &'static str,
    pub level_class: &'static str,
    pub keyword: &'s str,
    pub actor: &'static str,
    pub verify: &'static str,
    /// The actor, the verify kind and the status as the page's language shows them (display-ready:
    /// the templates need no lookup).
    pub actor_label: &'s str,
    pub verify_label: &'s str,
    pub status_label: &'s str,
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
    pub state: TranslationState,
    pub original_html: Option<String>,
    /// The clause's status in the traceability matrix.
    pub status: Status,
    /// It changed in the latest version step: its entry on the Changes page.
    pub changed: Option<Changed>,
    /// A fragment clause's whole upstream sentence, its own part marked (`sentences.rs`).
    pub sentence_html: Option<String>,
    /// The language the sentence is in when it is not the page's (the source language).
    pub sentence_lang: Option<&'s str>,
    /// The note on a clause upstream has since contradicted, and the language it is in when it
    /// is not the page's.
    pub contradicted_html: Option<String>,
    pub contradicted_lang: Option<&'s str>,
    /// The text without markup, for the search index (from the same Markdown parse as `text_html`).
    #[serde(skip)]
    pub plain: String,
}

/// A chapter in the table of contents and on the index page.
#[derive(Serialize)]
pub(super) struct ChapterLink<'s> {
    pub(super) name: &'s str,
    pub(super) title: &'s str,
    /// Its number in the contract (`1`, … `12`), empty when the title carries its own.
    pub(super) number: String,
    pub(super) clauses: usize,
}

/// A link of the language switch: another configured language, named in itself.
#[derive(Serialize)]
pub(super) struct LangLink<'a> {
    pub(super) lang: &'a str,
    pub(super) name: &'a str,
    pub(super) html_lang: &'a str,
}

/// What every page of a language shares: `lang`, `html_lang`, `other_langs` (the language
/// switch), `t`, `title`, `attribution`, `version`, `upstream`, the vocabulary and its labels,
/// `chapters`, `has_runtimes`, `has_changes`, `serve`.
#[derive(Serialize)]
pub(super) struct Shared<'s> {
    pub(super) lang: &'s str,
    pub(super) html_lang: &'s str,
    pub(super) other_langs: Vec<LangLink<'s>>,
    pub(super) t: &'s BTreeMap<String, String>,
    pub(super) title: &'s str,
    pub(super) attribution: Option<&'s str>,
    /// The language the attribution is written in, when it is not the page's.
    pub(super) attribution_lang: Option<&'s str>,
    pub(super) version: &'s str,
    pub(super) upstream: Option<&'s kcontract_spec::Upstream>,
    pub(super) actors: Vec<&'s str>,
    pub(super) verify_kinds: Vec<&'s str>,
    pub(super) actor_label: BTreeMap<String, String>,
    pub(super) verify_label: BTreeMap<String, String>,
    pub(super) oci_label: String,
    pub(super) upstream_tests_label: String,
    /// `links.tests`: the matrix page links each test as `BASE<file>#L<line>` (see `Links::tests`).
    pub(super) tests_base: Option<&'s str>,
    pub(super) chapters: Vec<ChapterLink<'s>>,
    pub(super) has_runtimes: bool,
    /// The contract has earlier versions: the site has a Changes page.
    pub(super) has_changes: bool,
    /// The site has a platforms page ([`Pages::platforms`](super::pages::Pages::platforms)).
    pub(super) has_platforms: bool,
    /// Rendering for `kcontract serve` (`base.html` includes `serve/reload.html`).
    pub(super) serve: bool,
    /// The example words of the search box in this language (`search_hint` of `contract.yaml`).
    pub(super) search_hint: Option<&'s str>,
    /// Each chapter's link reference definitions, in the source language and in this page's: a
    /// clause's text resolves its references against those of the file it was written in.
    #[serde(skip)]
    pub(super) link_defs: [BTreeMap<&'s str, &'s LinkDefs>; 2],
    /// The language's translation (`None`: the source language), for its clauses' texts.
    #[serde(skip)]
    pub(super) translation: Option<&'s Translation>,
    /// `links:` of contract.yaml, for each clause's OCI and upstream-test links.
    #[serde(skip)]
    pub(super) links: &'s Links,
    /// The contract, for the links from a clause id in a text to its card.
    #[serde(skip)]
    pub(super) spec: &'s Spec,
    /// The source language (the first of `languages`).
    pub(super) source_lang: &'s str,
    /// Every level, `(keyword, CSS class)`, strongest first (the legend's).
    pub(super) level_names: Vec<(&'static str, &'static str)>,
    /// Every test status's name, in display order (the legend's).
    pub(super) status_names: [&'static str; Status::ALL.len()],
    /// The first eight digits of the upstream revision, when `contract.yaml` names one.
    pub(super) upstream_short: Option<&'s str>,
}

impl<'s> Shared<'s> {
    /// The definitions of `chapter` in the source language (`translated` false) or in the
    /// page's.
    pub(super) fn link_defs(&self, chapter: &str, translated: bool) -> Option<&'s LinkDefs> {
        self.link_defs[usize::from(translated)]
            .get(chapter)
            .copied()
    }

    /// `html` with the clause ids in its code spans linked to their cards
    /// ([`markdown::link_clause_ids`]).
    pub(super) fn link_ids(&self, html: String) -> String {
        let spec = self.spec;
        markdown::link_clause_ids(html, &|id| {
            spec.clause(id)
                .map(|c| format!("{}.html#{}", c.chapter, c.id))
        })
    }
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

/// What a language's [`Shared`] values are made of.
pub(super) struct Language<'a, 's> {
    pub(super) spec: &'s Spec,
    pub(super) lang: &'s str,
    /// Its chapters and its translation ([`documents`]).
    pub(super) docs: &'s [Document],
    pub(super) translation: Option<&'s Translation>,
    /// Its interface text.
    pub(super) own: &'s Interface,
    /// Every configured language's interface text, in the contract's order (the language switch).
    pub(super) interfaces: &'a [(&'s str, &'s Interface)],
    /// The pages the site has.
    pub(super) pages: Pages,
    /// Rendering for `kcontract serve`.
    pub(super) serve: bool,
}

/// What every page of `of.lang` shares.
pub(super) fn shared<'s>(of: &Language<'_, 's>) -> Shared<'s> {
    let Language {
        spec,
        lang,
        docs,
        translation,
        own,
        interfaces,
        pages,
        serve,
    } = *of;
    let other_langs: Vec<LangLink> = interfaces
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
        .enumerate()
        .map(|(i, d)| ChapterLink {
            name: &d.chapter,
            title: &d.title,
            number: if numbers_itself(&d.title) {
                String::new()
            } else {
                (i + 1).to_string()
            },
            clauses: d
                .blocks
                .iter()
                .filter(|b| matches!(b, Block::Clause(_)))
                .count(),
        })
        .collect();
    let attribution = spec.contract.attribution_in(lang);
    let translated = attribution.is_none_or(|(_, translated)| translated);
    let source = spec.contract.languages.first().map_or("en", String::as_str);
    // The vocabulary's words and labels come from contract.yaml (a word without a label in this
    // language shows its name); the links' labels too, else the interface text's.
    let c = &spec.contract;
    let labels = |words: Vec<(&str, Option<&str>)>| {
        words
            .into_iter()
            .map(|(name, label)| (name.to_string(), label.unwrap_or(name).to_string()))
            .collect::<BTreeMap<String, String>>()
    };
    let link_label = |l: Option<&kcontract_spec::LinkBase>, key: &str| {
        l.and_then(|l| l.labels.get(lang))
            .or_else(|| own.text.get(key))
            .cloned()
            .unwrap_or_else(|| key.to_string())
    };
    Shared {
        lang,
        html_lang: &own.html_lang,
        other_langs,
        t: &own.text,
        title: spec.contract.title_in(lang),
        attribution: attribution.map(|(text, _)| text),
        attribution_lang: (!translated && lang != source).then_some(source),
        version: &spec.contract.version,
        upstream: spec.contract.upstream.as_ref(),
        actors: c.actor_list().map(|a| a.as_str()).collect(),
        verify_kinds: c.verify_list().map(|v| v.as_str()).collect(),
        actor_label: labels(
            c.actors
                .iter()
                .map(|a| (a.value.as_str(), a.label(lang)))
                .collect(),
        ),
        verify_label: labels(
            c.verify
                .iter()
                .map(|v| (v.value.as_str(), v.label(lang)))
                .collect(),
        ),
        oci_label: link_label(c.links.oci.as_ref(), "oci"),
        upstream_tests_label: link_label(c.links.upstream_tests.as_ref(), "upstream_tests"),
        tests_base: c.links.tests.as_ref().map(|l| l.base.as_str()),
        chapters,
        has_runtimes: pages.has(OwnPage::Runtimes),
        has_changes: pages.has(OwnPage::Changes),
        has_platforms: pages.has(OwnPage::Platforms),
        serve,
        translation,
        links: &c.links,
        search_hint: c.search_hint.get(lang).map(String::as_str),
        spec,
        source_lang: source,
        level_names: kcontract_spec::keywords::Level::ALL
            .iter()
            .map(|l| (l.as_str(), level_class(*l)))
            .collect(),
        status_names: Status::ALL.map(Status::as_str),
        upstream_short: spec
            .contract
            .upstream
            .as_ref()
            .and_then(|u| u.revision.as_deref())
            .map(|r| r.get(..8).unwrap_or(r)),
        link_defs: [&spec.documents[..], docs].map(|docs| {
            docs.iter()
                .map(|d| (d.chapter.as_str(), &d.link_defs))
                .collect()
        }),
    }
}

/// A page of the site, for previous/next links: its file name (without `.html`) and title.
#[derive(Serialize)]
pub(super) struct PageLink<'s> {
    pub name: &'s str,
    pub title: &'s str,
}

/// The pages of a language in reading order: the pages of the site's own placed first (the
/// index), the chapters, then the others the site has ([`OwnPage`]'s order; the print page is not
/// in it).
pub(super) fn page_order<'s>(
    docs: &'s [Document],
    t: &'s Interface,
    pages: Pages,
) -> Vec<PageLink<'s>> {
    let own = |place| {
        pages.at(place).map(|p: OwnPage| PageLink {
            name: p.name(),
            title: t.text(p.title_key()),
        })
    };
    let mut order: Vec<PageLink> = own(Place::First).collect();
    order.extend(docs.iter().map(|d| PageLink {
        name: &d.chapter,
        title: &d.title,
    }));
    order.extend(own(Place::AfterChapters));
    order
}

/// A section in the sidebar of its chapter page (`sections` of `toc-sections.html`).
#[derive(Serialize)]
pub(super) struct Section<'s> {
    pub(super) id: &'s str,
    pub(super) number: &'s str,
    pub(super) title: &'s str,
    pub(super) level: u8,
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

/// Does a heading carry its own section number (`3. HTTP`, `4.2 Limits`, `A.1 Terms`)? Specs
/// written for GitHub often number their headings by hand; the site's number beside it would read
/// `3 3. HTTP`, so such a heading is shown as written.
pub(super) fn numbers_itself(title: &str) -> bool {
    let Some((first, _)) = title.trim_start().split_once(char::is_whitespace) else {
        return false;
    };
    let parts: Vec<&str> = first.trim_end_matches('.').split('.').collect();
    let numeric = |p: &str| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit());
    let appendix = |p: &str| p.len() == 1 && p.chars().all(|c| c.is_ascii_uppercase());
    match parts.as_slice() {
        [one] => numeric(one) && first.ends_with('.'),
        [head, rest @ ..] => (numeric(head) || appendix(head)) && rest.iter().all(|p| numeric(p)),
        [] => false,
    }
}

/// The section numbers of `headings` as the site shows them ([`kcontract_spec::section_numbers`]):
/// empty for a heading that [numbers itself](numbers_itself).
pub(super) fn shown_numbers(chapter: usize, headings: &[Heading]) -> Vec<String> {
    kcontract_spec::section_numbers(chapter, headings)
        .into_iter()
        .zip(headings)
        .map(|(n, h)| {
            if numbers_itself(&h.title) {
                String::new()
            } else {
                n
            }
        })
        .collect()
}

/// A row of the matrix page's coverage table.
#[derive(Serialize)]
pub(super) struct Group {
    pub(super) label: String,
    pub(super) clauses: usize,
    pub(super) counts: Vec<usize>,
    /// Clauses a platform check decided (null without run reports: no column).
    pub(super) executed: Option<usize>,
    pub(super) ratio: String,
}

/// The matrix page's summary: `coverage` groups, `statuses` and `results` (the rows are
/// `clauses` and `tests_by_clause`).
#[derive(Serialize)]
pub(super) struct MatrixSummary<'a> {
    pub(super) statuses: [&'static str; Status::ALL.len()],
    pub(super) coverage: Vec<Group>,
    /// The results files, as the site names them ([`super::files::shown_path`]).
    pub(super) results: Vec<String>,
    /// The run reports' platforms, one column each (empty: no column), their files as the site
    /// names them, each with the route it was decided by (`route`, when kcontract knows it).
    pub(super) platforms: Vec<ColumnCtx<'a>>,
}

/// A platform column as the matrix and platforms pages show it.
#[derive(Serialize)]
pub(super) struct ColumnCtx<'a> {
    pub(super) name: &'a str,
    /// The report file, as the site names it.
    pub(super) file: String,
    pub(super) runtime_version: &'a str,
    pub(super) profile: &'a str,
    pub(super) date: &'a str,
    pub(super) host: &'a str,
    /// The first report's kind (shown when no clause of the column has a route).
    pub(super) kind: &'a str,
    /// The routes the column's reports decided clauses on (`route_<route>` of the interface
    /// text): one, or several for a column merging reports (`--platform NAME=FILE` repeated).
    pub(super) routes: Vec<&'static str>,
}

impl<'a> ColumnCtx<'a> {
    /// The columns of `m`.
    pub(super) fn of(m: &'a Matrix) -> Vec<ColumnCtx<'a>> {
        m.platforms
            .iter()
            .map(|c| ColumnCtx {
                name: &c.name,
                file: super::files::shown_path(&c.file),
                runtime_version: &c.runtime_version,
                profile: &c.profile,
                date: &c.date,
                host: &c.host,
                kind: &c.kind,
                routes: c.routes.iter().map(|r| r.as_str()).collect(),
            })
            .collect()
    }
}

/// A clause in one platform's column of the matrix page (`cells` in `matrix-row.html`).
#[derive(Serialize)]
pub(super) struct PlatformCellCtx<'a> {
    /// The column's name (`runc`).
    pub(super) platform: &'a str,
    /// The status as a CSS class and the end of its interface key.
    pub(super) key: CellKey,
    /// The checks that failed or could not be made, `check: message` (shown under the badge).
    pub(super) problems: Vec<String>,
    /// The stamp a stale report judged.
    pub(super) stale_stamp: Option<&'a str>,
}

/// A platform cell's status as the matrix and platforms pages show it: its CSS class
/// (`platform-<key>`), the end of its interface key (`platform_<key>`) and a value of the
/// platforms page's filter, in the filter's order ([`CellKey::VARIANTS`](strum::VariantArray)).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub(super) enum CellKey {
    /// The platform passed the clause's checks.
    Pass,
    /// A check failed.
    Fail,
    /// The clause does not apply to the platform (a check's or the profile's documentation).
    Na,
    /// No check of the clause ran.
    NotRun,
    /// A check could not be made.
    Error,
    /// The report judged an older text of the clause.
    Stale,
    /// The report has no entry for the clause.
    Absent,
    /// A documentation clause: a reviewed link in the platform profile.
    Documented,
    /// A documentation clause without a link, or with a link no one has reviewed.
    Undocumented,
}

impl CellKey {
    /// The key as a word.
    pub(super) fn as_str(self) -> &'static str {
        self.into()
    }

    /// The key of a cell, the same on the matrix and platforms pages: a documentation clause's
    /// `documented`, `undocumented` or `na`; else the report's status, `stale`, or `absent` when
    /// the report lacks the clause.
    pub(super) fn of(p: &matrix::PlatformCell) -> CellKey {
        use kcontract_platform::docs::DocStatus as D;
        use kcontract_trace::matrix::{PlatformStatus as P, ReportStatus as R};
        if let Some(d) = &p.documentation {
            return match d.status {
                D::Documented => CellKey::Documented,
                D::Undocumented => CellKey::Undocumented,
                D::NotApplicable => CellKey::Na,
            };
        }
        match p.status {
            None => CellKey::Absent,
            Some(P::Reported(R::Pass)) => CellKey::Pass,
            Some(P::Reported(R::Fail)) => CellKey::Fail,
            Some(P::Reported(R::NotApplicable)) => CellKey::Na,
            Some(P::Reported(R::NotRun)) => CellKey::NotRun,
            Some(P::Reported(R::Error)) => CellKey::Error,
            Some(P::Stale) => CellKey::Stale,
        }
    }
}

/// Each row's platform cells, the same in every language (`platforms_by_clause` of `matrix.html`).
pub(super) fn platform_cells<'a>(m: &'a Matrix) -> Vec<Vec<PlatformCellCtx<'a>>> {
    use kcontract_platform::docs::DocStatus;
    use kcontract_trace::matrix::{PlatformStatus as P, ReportStatus as R};
    m.rows
        .iter()
        .map(|r| {
            r.platforms
                .iter()
                .map(|p| PlatformCellCtx {
                    platform: &p.platform,
                    key: CellKey::of(p),
                    problems: if let Some(d) = &p.documentation {
                        // A link waiting for a person's review says so under the badge.
                        d.url
                            .as_ref()
                            .filter(|_| d.status == DocStatus::Undocumented)
                            .map(|_| d.message.clone())
                            .into_iter()
                            .collect()
                    } else if p.status == Some(P::Stale) {
                        Vec::new()
                    } else {
                        p.checks
                            .iter()
                            .filter(|c| matches!(c.status, R::Fail | R::Error))
                            .map(|c| {
                                format!("{}: {}", c.check.as_deref().unwrap_or("-"), c.message)
                            })
                            .collect()
                    },
                    stale_stamp: p.stale_stamp.as_deref(),
                })
                .collect()
        })
        .collect()
}

/// The matrix page's summary in `lang`.
pub(super) fn matrix_summary<'a>(m: &'a Matrix, t: &Interface, lang: &str) -> MatrixSummary<'a> {
    let summary = m.summary();
    let group = |g: &matrix::Coverage, label: String| Group {
        label,
        clauses: g.clauses,
        counts: Status::ALL.iter().map(|s| g.status.get(*s)).collect(),
        executed: g.executed,
        ratio: g.ratio(),
    };
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
    groups.push(group(&summary.total, t.text("total").to_string()));
    MatrixSummary {
        statuses: Status::ALL.map(Status::as_str),
        coverage: groups,
        results: m
            .results
            .iter()
            .map(|r| super::files::shown_path(r))
            .collect(),
        platforms: ColumnCtx::of(m),
    }
}

/// A clause to make the context of, and what the matrix and the history say of it.
pub(super) struct ClauseAt<'s> {
    /// Its place in `spec.clauses`.
    pub(super) index: usize,
    pub(super) clause: &'s Clause,
    /// Its status in the traceability matrix.
    pub(super) status: Status,
    /// Its entry on the Changes page, when it changed in the latest version step.
    pub(super) changed: Option<Changed>,
    /// Its whole upstream sentence, when it is a fragment (Markdown, its part marked).
    pub(super) sentence: Option<&'s str>,
    /// The note on it, when upstream has since contradicted it, and whether the note is the
    /// source language's on a translated page.
    pub(super) contradicted: Option<(&'s str, bool)>,
}

/// The context of a clause in the language of `shared` (its translation, or the source text).
pub(super) fn clause<'s>(at: ClauseAt<'s>, shared: &'s Shared<'s>) -> ClauseCtx<'s> {
    let ClauseAt {
        index,
        clause: c,
        status,
        changed,
        sentence,
        contradicted,
    } = at;
    let (tr, links) = (shared.translation, shared.links);
    let label = |labels: &'s BTreeMap<String, String>, name: &'s str| {
        labels.get(name).map_or(name, String::as_str)
    };
    // A missing translation shows the source text once, marked as the source language's (the badge
    // says it is not translated); a stale one shows the translation and the original beside it.
    let source_defs = shared.link_defs(&c.chapter, false);
    let own_defs = shared.link_defs(&c.chapter, true);
    let (text, state, original, translated) = match tr {
        None => (c.text.as_str(), TranslationState::Current, None, None),
        Some(t) => match t.lookup(index, c) {
            (TranslationState::Current, Some(x)) => {
                (x.text.as_str(), TranslationState::Current, None, Some(x))
            }
            (TranslationState::Stale, Some(x)) => (
                x.text.as_str(),
                TranslationState::Stale,
                Some(markdown::to_html_in(&c.text, Some(&c.chapter), source_defs)),
                Some(x),
            ),
            _ => (c.text.as_str(), TranslationState::Missing, None, None),
        },
    };
    // `reason` and `implicit` in the page's language where the translation gives them; else the
    // source's, marked as such (`*_source`).
    let pick = |source: Option<&'s String>, translated: Option<&Option<String>>| match (
        source,
        translated.and_then(Option::as_ref),
    ) {
        (None, _) => (None, false),
        (Some(_), Some(t)) => (
            Some(to_inline_html_in(t, Some(&c.chapter), own_defs)),
            false,
        ),
        (Some(s), None) => (
            Some(to_inline_html_in(s, Some(&c.chapter), source_defs)),
            tr.is_some(),
        ),
    };
    let (reason_html, reason_source) = pick(c.reason.as_ref(), translated.map(|x| &x.reason));
    let (implicit_html, implicit_source) =
        pick(c.implicit.as_ref(), translated.map(|x| &x.implicit));
    let defs = if translated.is_some() {
        own_defs
    } else {
        source_defs
    };
    let (text_html, plain) = markdown::to_html_and_text(text, &c.chapter, defs);
    let linked = |html: Option<String>| html.map(|h| shared.link_ids(h));
    let sentence_html = sentence.map(|s| {
        let html = markdown::to_html_in(s, Some(&c.chapter), source_defs)
            .replace(super::sentences::MARK_OPEN, "<mark>")
            .replace(super::sentences::MARK_CLOSE, "</mark>");
        shared.link_ids(html)
    });
    let contradicted_html = contradicted.map(|(note, source)| {
        shared.link_ids(to_inline_html_in(
            note,
            Some(&c.chapter),
            if source { source_defs } else { own_defs },
        ))
    });
    let in_source = tr.map(|_| shared.source_lang);
    ClauseCtx {
        id: &c.id,
        level: c.level.as_str(),
        level_class: level_class(c.level),
        keyword: &c.keyword,
        actor: c.actor.as_str(),
        verify: c.verify.as_str(),
        actor_label: label(&shared.actor_label, c.actor.as_str()),
        verify_label: label(&shared.verify_label, c.verify.as_str()),
        status_label: label(shared.t, status.as_str()),
        text_html: shared.link_ids(text_html),
        plain,
        reason_html: linked(reason_html),
        reason_source,
        implicit_html: linked(implicit_html),
        implicit_source,
        text_source: tr.is_some() && state == TranslationState::Missing,
        oci_url: c
            .oci
            .as_ref()
            .and_then(|o| Some(links.oci.as_ref()?.url(o))),
        oci: c.oci.as_deref(),
        upstream_tests: c
            .upstream_tests
            .iter()
            // The link is the file's: `#TestName` names a function, not an anchor of the file view.
            .map(|p| {
                let file = p.split_once('#').map_or(p.as_str(), |(file, _)| file);
                (
                    p.as_str(),
                    links.upstream_tests.as_ref().map(|l| l.url(file)),
                )
            })
            .collect(),
        chapter: &c.chapter,
        state,
        original_html: linked(original),
        status,
        changed,
        sentence_lang: sentence_html.as_ref().and(in_source),
        sentence_html,
        contradicted_lang: contradicted.filter(|(_, source)| *source).and(in_source),
        contradicted_html,
    }
}

#[cfg(test)]
mod tests {
    use super::{CellKey, numbers_itself};
    use crate::interface::Interfaces;
    use strum::VariantArray;

    /// Every platform cell's key has its words in every embedded language.
    #[test]
    fn every_cell_key_has_interface_text() {
        let all = Interfaces::load(None).unwrap();
        for lang in ["en", "zh"] {
            let t = all.get(lang).unwrap();
            for key in CellKey::VARIANTS {
                let key = format!("platform_{}", key.as_str());
                assert!(t.text.contains_key(&key), "{lang}: {key}");
            }
        }
    }

    #[test]
    fn headings_that_number_themselves() {
        for t in [
            "3. HTTP",
            "3.1 Requests",
            "4.2. Limits",
            "A.1 Terms",
            "10. Appendix",
        ] {
            assert!(numbers_itself(t), "{t}");
        }
        for t in [
            "3",
            "HTTP 2",
            "2024 in review",
            "A Widget",
            "1000. Big",
            "v1.2 API",
            "",
        ] {
            assert!(!numbers_itself(t), "{t}");
        }
    }
}
