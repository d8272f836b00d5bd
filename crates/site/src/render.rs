//! The render pass: every file of the site, from the templates and the contexts, handed to a sink.
//!
//! One language after the other (so a large site's memory holds one language's values at a time),
//! each in the same steps: its values ([`Lang::new`]: every clause's context and `clause.html`
//! piece, every chapter's prose and blocks, made once and shared by the pages that show them, and
//! the Changes page's steps, whose latest one gives the chapter pages' "changed" badges),
//! then its pages ([`Lang::pages`], one parallel pass) and, alongside them, its search index. The
//! data files of the whole site are written alongside the languages; then the assets and the root
//! redirect. tera renders every page; a page is a template and the values its context adds to the
//! language's. (Running the independent steps alongside each other took 12 % off the real build's
//! wall time on two cores: docs/benchmarks-history.md, "Session 19".)

use rayon::prelude::*;
use strum::VariantArray;
use tera::Context;
use tera::value::Value;

use super::changes_page::{self, SearchItem};
use super::context::{self, ClauseAt, PageLink, Shared};
use super::interface::Interface;
use super::legend::{self, Shows};
use super::markdown::{SectionHead, prose_html};
use super::pages::{OwnPage, Pages};
use super::templates::{Templates, template_error};
use super::{files, platforms_page, runtimes_page, search, sentences};
use kcontract_edit::diff::history::History;
use kcontract_oci::runtimes::Catalogue;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::timings::Timings;
use kcontract_spec::{Block, Document};
use kcontract_trace::matrix::{self, Matrix};

/// Receives each rendered file as soon as it is ready, from several threads.
pub(super) type Put<'p> = dyn Fn(String, Vec<u8>) -> Result<(), Diagnostic> + Sync + 'p;

/// Render every file of the site and hand it to `put`; returns how many were HTML pages. The
/// steps' times go into `timings`.
pub(super) fn render_site(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    history: &History,
    tpl: &Templates,
    put: &Put,
    timings: &mut Timings,
) -> Result<usize, Diagnostic> {
    // The data files need only the matrix: they are written alongside the languages' pages.
    let (languages, (data, took)) = rayon::join(
        || languages(m, runtimes, history, tpl, put, timings),
        || timed(|| data_files(m, put)),
    );
    timings.add_detail("data files", took);
    let mut pages = languages?;
    data?;
    timings.detail("assets", || assets(tpl, put))?;
    pages += redirect(m, tpl, put)?;
    Ok(pages)
}

/// Every language's pages and search index, one language after the other; returns how many pages.
fn languages(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    history: &History,
    tpl: &Templates,
    put: &Put,
    timings: &mut Timings,
) -> Result<usize, Diagnostic> {
    let mut pages = 0;
    // Each clause's tests, the same in every language (`tests_by_clause` of `matrix.html`).
    let tests = Value::from_serializable(&m.rows.iter().map(|r| &r.tests).collect::<Vec<_>>());
    // Each clause's cells in the platforms' columns (`platforms_by_clause`), likewise.
    let cells = Value::from_serializable(&context::platform_cells(m));
    for lang in &m.spec.contract.languages {
        let l = timings.detail("contexts", || Lang::new(m, runtimes, history, tpl, lang))?;
        // The search index needs none of the pages: it is made while they render.
        let ((n, took_pages), (index, took_index)) = rayon::join(
            || timed(|| l.pages(&tests, &cells, put)),
            || timed(|| l.search_index(put)),
        );
        timings.add_detail("pages", took_pages);
        timings.add_detail("search index", took_index);
        pages += n?;
        index?;
    }
    Ok(pages)
}

/// `f`'s result and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, std::time::Duration) {
    let start = std::time::Instant::now();
    (f(), start.elapsed())
}

/// One language's values, shared by its pages.
struct Lang<'s> {
    m: &'s Matrix<'s>,
    runtimes: Option<&'s Catalogue>,
    tpl: &'s Templates,
    lang: &'s str,
    t: &'s Interface,
    docs: &'s [Document],
    /// What every page of the language is given (`Shared`, as a tera context).
    base: Context,
    /// The pages in reading order, for previous/next.
    order: Vec<PageLink<'s>>,
    /// Every clause's context (`c` of the templates), in the order of `spec.clauses`.
    clauses: Value,
    /// Each clause's text without markup, for the search index (same order).
    plain: Vec<String>,
    /// Each chapter's blocks (`blocks` of `chapter.html`: prose and clause pieces as HTML).
    blocks: Vec<Value>,
    /// Each chapter's sections, for its sidebar (`sections` of `toc-sections.html`).
    sections: Vec<Value>,
    /// Each chapter's first block that shows a clause: where its legend goes (`legend_at`).
    legend_at: Vec<Option<usize>>,
    /// What the language's pages show, for their legends.
    shows: Shows,
    /// The first clause's card, the landing page's example of one.
    example: Option<Value>,
    /// The Changes page's steps (`steps` of `changes.html`); `None` without earlier versions.
    changes: Option<Value>,
    /// The Changes page's entries of the search index.
    change_search: Vec<SearchItem>,
    /// The pages of the site's own it has.
    pages: Pages,
    /// The sidebar's chapter entries, made once for all pages ([`Toc`]).
    toc: Toc,
}

/// The sidebar's chapter entries of one language (`toc-item.html`), each rendered once: every page
/// lists every chapter, so a large contract's pages would otherwise each render the whole list
/// again, and the build would grow with the square of its chapters. A page takes the entries
/// before and after its own chapter as two pieces of one string, and renders only its own entry
/// (marked current, with its sections) in `toc.html`.
struct Toc {
    /// Every entry, in order.
    html: String,
    /// Where each entry starts in `html`, and (last) its length.
    starts: Vec<usize>,
    /// Each chapter's link (`ch` of `toc-item.html`), for the entry its own page renders.
    chapters: Vec<Value>,
}

impl Toc {
    /// The entries of `chapters` rendered with the language's `base` context.
    fn new(
        tpl: &Templates,
        base: &Context,
        chapters: &[context::ChapterLink],
    ) -> Result<Self, Diagnostic> {
        let chapters: Vec<Value> = chapters.iter().map(Value::from_serializable).collect();
        let mut ctx = base.clone();
        ctx.insert("page", "");
        let mut html = String::new();
        let mut starts = Vec::with_capacity(chapters.len() + 1);
        for ch in &chapters {
            starts.push(html.len());
            ctx.insert_value("ch", ch.clone());
            html += &tpl
                .tera
                .render("toc-item.html", &ctx)
                .map_err(|e| template_error(&e))?;
        }
        starts.push(html.len());
        Ok(Toc {
            html,
            starts,
            chapters,
        })
    }

    /// `toc_before`, `toc_current` and `toc_after` of a page: around chapter `d` on its page, all
    /// of the entries before it on another page (`None`).
    fn parts(&self, d: Option<usize>) -> [(&'static str, Value); 3] {
        let (before, current, after) = match d {
            Some(d) => (
                &self.html[..self.starts[d]],
                self.chapters[d].clone(),
                &self.html[self.starts[d + 1]..],
            ),
            None => (self.html.as_str(), Value::none(), ""),
        };
        [
            ("toc_before", Value::safe_string(before)),
            ("toc_current", current),
            ("toc_after", Value::safe_string(after)),
        ]
    }
}

impl<'s> Lang<'s> {
    /// The values of `lang`: the clauses' contexts, their `clause.html` pieces and the chapters'
    /// prose, each made once (a chapter page and the print page show the same blocks).
    fn new(
        m: &'s Matrix<'s>,
        runtimes: Option<&'s Catalogue>,
        history: &'s History,
        tpl: &'s Templates,
        lang: &'s str,
    ) -> Result<Self, Diagnostic> {
        let spec = m.spec;
        let t = tpl.interfaces.get(lang)?;
        let interfaces: Vec<(&str, &Interface)> = spec
            .contract
            .languages
            .iter()
            .map(|l| Ok((l.as_str(), tpl.interfaces.get(l)?)))
            .collect::<Result<_, Diagnostic>>()?;
        let (docs, translation) = context::documents(spec, lang);
        let pages = Pages {
            runtimes: runtimes.is_some(),
            changes: !history.is_empty(),
            platforms: !m.platforms.is_empty() || kcontract_platform::routes::knows(&spec.clauses),
        };
        let shared: Shared = context::shared(&context::Language {
            spec,
            lang,
            docs,
            translation,
            own: t,
            interfaces: &interfaces,
            pages,
            serve: tpl.serve,
        });
        let mut base = Context::from_serialize(&shared).map_err(|e| template_error(&e))?;
        let toc = Toc::new(tpl, &base, &shared.chapters)?;
        // A contract nothing tests yet (no test claims a clause, none lists upstream tests; the
        // untestable ones are waived) shows no status on its clauses: "untested" on every one
        // says nothing.
        let tested = m
            .rows
            .iter()
            .any(|r| !matches!(r.status, matrix::Status::Untested | matrix::Status::Waived));
        base.insert("tested", &tested);
        let shows = Shows {
            statuses: tested,
            translated: translation.is_some(),
        };
        // Each fragment clause's whole upstream sentence; the notes on contradicted clauses in
        // the page's language, else the source's.
        let whole = sentences::sentences(spec);
        let (own_notes, source_notes) = (
            sentences::contradicted(docs),
            sentences::contradicted(&spec.documents),
        );

        // The Changes page first: its latest step says which clauses show a "changed" badge.
        let names = interfaces
            .iter()
            .map(|(l, i)| (*l, i.name.as_str()))
            .collect();
        let steps = changes_page::context(history, spec, docs, t, &names, lang);
        let mut changed = changes_page::changed_in_latest(history, &steps);
        let change_search = changes_page::search_entries(&steps);
        let changes = pages.changes.then(|| Value::from_serializable(&steps));
        drop(steps);

        // Each clause's context (`c` of the templates), its text without markup (for the search
        // index) and its `clause.html` piece (rendered once for its chapter page and the print
        // page), in one parallel pass.
        let changed: Vec<_> = spec.clauses.iter().map(|c| changed.remove(&c.id)).collect();
        let per_clause: Vec<(Value, String, Value)> = changed
            .into_par_iter()
            .enumerate()
            .map_init(
                || base.clone(),
                |ctx, (i, changed)| {
                    let c = &spec.clauses[i];
                    let at = ClauseAt {
                        index: i,
                        clause: c,
                        status: m.rows[i].status,
                        changed,
                        sentence: whole.get(&i).map(String::as_str),
                        contradicted: own_notes.get(c.id.as_str()).map(|n| (*n, false)).or_else(
                            || {
                                source_notes
                                    .get(c.id.as_str())
                                    .map(|n| (*n, translation.is_some()))
                            },
                        ),
                    };
                    let mut clause = context::clause(at, &shared);
                    let plain = std::mem::take(&mut clause.plain);
                    let value = Value::from_serializable(&clause);
                    ctx.insert_value("c", value.clone());
                    let html = tpl
                        .tera
                        .render("clause.html", ctx)
                        .map_err(|e| template_error(&e))?;
                    Ok((value, plain, Value::safe_string(&html)))
                },
            )
            .collect::<Result<_, Diagnostic>>()?;
        let mut values = Vec::with_capacity(per_clause.len());
        let mut plain = Vec::with_capacity(per_clause.len());
        let mut pieces = Vec::with_capacity(per_clause.len());
        for (v, p, h) in per_clause {
            values.push(v);
            plain.push(p);
            pieces.push(h);
        }
        let ids: Vec<&str> = spec.clauses.iter().map(|c| c.id.as_str()).collect();
        let link = |html: String| shared.link_ids(html);
        let langs = (
            m.spec.contract.languages[0].as_str(),
            t.text("informative_note"),
        );
        let per_chapter: Vec<(Value, Value, Option<usize>)> = (0..docs.len())
            .into_par_iter()
            .map(|d| chapter_blocks(docs, d, &ids, langs, (&values, &pieces), &link))
            .collect();
        let mut blocks = Vec::with_capacity(per_chapter.len());
        let mut sections = Vec::with_capacity(per_chapter.len());
        let mut legend_at = Vec::with_capacity(per_chapter.len());
        for (b, s, at) in per_chapter {
            blocks.push(b);
            sections.push(s);
            legend_at.push(at);
        }
        let example = pieces.first().cloned();
        Ok(Lang {
            m,
            runtimes,
            tpl,
            lang,
            t,
            docs,
            base,
            order: context::page_order(docs, t, pages),
            clauses: Value::from(values),
            plain,
            blocks,
            sections,
            legend_at,
            shows,
            example,
            changes,
            change_search,
            pages,
            toc,
        })
    }

    /// Every page of the language, rendered in parallel; returns how many.
    fn pages(&self, tests: &Value, cells: &Value, put: &Put) -> Result<usize, Diagnostic> {
        let mut pages = Vec::with_capacity(self.docs.len() + OwnPage::VARIANTS.len());
        for (d, doc) in self.docs.iter().enumerate() {
            pages.push(
                self.page_of_chapter(d, doc)
                    .with("blocks", self.blocks[d].clone())
                    .with("sections", self.sections[d].clone())
                    .with(
                        "legend",
                        Value::from_serializable(&self.shows.chapter(false)),
                    )
                    .with(
                        "legend_at",
                        self.legend_at[d].map_or_else(Value::none, Value::from),
                    ),
            );
        }
        for own in self.pages.all() {
            pages.push(self.own_page(own, tests, cells)?);
        }
        let count = pages.len();
        pages.into_par_iter().try_for_each(|mut p| {
            // The sidebar's pieces are copies of most of it: added as each page is rendered, so
            // only the pages being rendered hold them.
            for (key, value) in self.toc.parts(p.chapter) {
                p.ctx.insert_value(key, value);
            }
            let mut out = Vec::new();
            self.tpl
                .tera
                .render_to(p.template, &p.ctx, &mut out)
                .map_err(|e| template_error(&e))?;
            put(format!("{}/{}.html", self.lang, p.name), out)
        })?;
        Ok(count)
    }

    /// The page `own` of the site's own, with the values its template shows beside the
    /// language's. `tests` and `cells` are the matrix page's rows' tests and platform cells.
    fn own_page(&self, own: OwnPage, tests: &Value, cells: &Value) -> Result<Page<'s>, Diagnostic> {
        let spec = self.m.spec;
        let title = match own {
            // The landing page's heading is the contract's title ("home" in links to it).
            OwnPage::Index => spec.contract.title_in(self.lang),
            _ => self.t.text(own.title_key()),
        };
        let page = self.page_at(own.template().0, own.name(), title, None);
        let kinds: Vec<&[kcontract_platform::routes::Route]> =
            self.m.platforms.iter().map(|p| &p.routes[..]).collect();
        let legend = |l: legend::Legend| Value::from_serializable(&l);
        Ok(match own {
            OwnPage::Index => page
                .with("clause_count", spec.clauses.len().into())
                .with("example", self.example.clone().unwrap_or_else(Value::none))
                .with("legend", legend(self.shows.chapter(false))),
            OwnPage::Clauses => page
                .with("clauses", self.clauses.clone())
                .with("legend", legend(self.shows.clauses())),
            OwnPage::Matrix => {
                let summary = context::matrix_summary(self.m, self.t, self.lang);
                page.with("clauses", self.clauses.clone())
                    .with("legend", legend(self.shows.matrix(&kinds)))
                    .with("tests_by_clause", tests.clone())
                    .with("statuses", Value::from_serializable(&summary.statuses))
                    .with("coverage", Value::from_serializable(&summary.coverage))
                    .with("results", Value::from_serializable(&summary.results))
                    .with("platforms", Value::from_serializable(&summary.platforms))
                    .with("platforms_by_clause", cells.clone())
            }
            OwnPage::Platforms => {
                let values = platforms_page::context(self.m);
                page.with("pp", Value::from_serializable(&values))
                    .with("legend", legend(self.shows.platforms(&kinds)))
            }
            OwnPage::Changes => page
                .with("steps", self.changes.clone().unwrap_or_else(Value::none))
                .with("source_lang", spec.contract.languages[0].as_str().into()),
            OwnPage::Runtimes => match self.runtimes {
                Some(rt) => {
                    let values = runtimes_page::context(rt, self.lang)?;
                    page.with("rt", Value::from_serializable(&values))
                }
                None => page,
            },
            OwnPage::Print => {
                let chapters: Vec<Value> = self
                    .docs
                    .iter()
                    .zip(&self.blocks)
                    .map(|(doc, blocks)| {
                        map([
                            ("name", doc.chapter.as_str().into()),
                            ("blocks", blocks.clone()),
                        ])
                    })
                    .collect();
                page.with("print_chapters", chapters.into())
                    .with("legend", legend(self.shows.chapter(true)))
            }
        })
    }

    /// The page of chapter `d`, `doc`: its sidebar entry is the current one.
    fn page_of_chapter(&self, d: usize, doc: &'s Document) -> Page<'s> {
        self.page_at("chapter.html", &doc.chapter, &doc.title, Some(d))
    }

    /// The page `name` (its file without `.html`), rendered with `template`: the language's values,
    /// the page's name and title, and the pages before and after it; on chapter `d`'s page, its
    /// sidebar entry is the current one.
    fn page_at(
        &self,
        template: &'static str,
        name: &'s str,
        title: &str,
        d: Option<usize>,
    ) -> Page<'s> {
        let at = self.order.iter().position(|p| p.name == name);
        let prev = at.and_then(|i| i.checked_sub(1)).map(|i| &self.order[i]);
        let next = at.and_then(|i| self.order.get(i + 1));
        let mut ctx = self.base.clone();
        ctx.insert("page", name);
        ctx.insert("page_title", title);
        ctx.insert("prev", &prev);
        ctx.insert("next", &next);
        Page {
            template,
            name,
            ctx,
            chapter: d,
        }
    }

    /// `assets/search-<lang>.js`: the language's offline search index.
    fn search_index(&self, put: &Put) -> Result<(), Diagnostic> {
        let rt = self.runtimes.map(|rt| (rt, self.t.text("runtimes")));
        let changes = (self.change_search.as_slice(), self.t.text("changes"));
        let index =
            search::index_script(self.m.spec, self.docs, &self.plain, self.lang, rt, changes)?;
        put(format!("assets/search-{}.js", self.lang), index)
    }
}

/// A page to render: its template, its file name, its context and, on a chapter's page, which
/// chapter (its sidebar entry is the current one).
struct Page<'s> {
    template: &'static str,
    name: &'s str,
    ctx: Context,
    chapter: Option<usize>,
}

impl Page<'_> {
    /// The page with `key` set to `value` in its context.
    fn with(mut self, key: &'static str, value: Value) -> Self {
        self.ctx.insert_value(key, value);
        self
    }
}

/// A tera map of `entries`.
fn map<const N: usize>(entries: [(&'static str, Value); N]) -> Value {
    Value::from(std::collections::BTreeMap::from(entries))
}

/// Chapter `d` of `docs` for `chapter.html`: its blocks (`{kind: "prose", html}`, `{kind:
/// "untranslated", lang, html}`: prose of the source language `source_lang`, or `{kind:
/// "clause", clause, html}`, the clause's context and piece from `shown`, in the order of
/// `spec.clauses` as `ids` are), its sections for the sidebar (their headings' ids and numbers),
/// and the first block that shows a clause (where the legend goes). `link` links the clause ids
/// of its prose; `note_label` labels its informative notes.
fn chapter_blocks(
    docs: &[Document],
    d: usize,
    ids: &[&str],
    (source_lang, note_label): (&str, &str),
    (clauses, pieces): (&[Value], &[Value]),
    link: &dyn Fn(String) -> String,
) -> (Value, Value, Option<usize>) {
    let doc = &docs[d];
    let numbers = context::shown_numbers(d + 1, &doc.headings);
    let mut heads = doc.headings.iter().zip(&numbers).map(|(h, n)| SectionHead {
        id: &h.anchor,
        number: n,
    });
    // The clauses a prose block shows inside its list items, each shown there only.
    let inside = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let nested = |id: &str| {
        let i = doc.blocks.iter().find_map(|b| match b {
            Block::Clause(i) if ids[*i] == id => Some(*i),
            _ => None,
        })?;
        inside.borrow_mut().insert(i);
        pieces[i].as_str().map(str::to_string)
    };
    // The first block that shows a clause: a clause's own, or prose with clauses in its lists.
    let mut first_clause: Option<usize> = None;
    let mut blocks: Vec<Value> = Vec::with_capacity(doc.blocks.len());
    for b in &doc.blocks {
        let before = inside.borrow().len();
        let block = match b {
            Block::Prose(p) => map([
                ("kind", "prose".into()),
                (
                    "html",
                    Value::safe_string(&link(prose_html(
                        p,
                        &mut heads,
                        &doc.link_defs,
                        &nested,
                        note_label,
                    ))),
                ),
            ]),
            // The source language's prose where the translation has none yet, under a banner.
            Block::Untranslated(p) => map([
                ("kind", "untranslated".into()),
                ("lang", source_lang.into()),
                (
                    "html",
                    Value::safe_string(&link(prose_html(
                        p,
                        &mut heads,
                        &doc.link_defs,
                        &nested,
                        note_label,
                    ))),
                ),
            ]),
            Block::Clause(i) if inside.borrow().contains(i) => continue,
            Block::Clause(i) => map([
                ("kind", "clause".into()),
                ("html", pieces[*i].clone()),
                ("clause", clauses[*i].clone()),
            ]),
        };
        let shows_clause = matches!(b, Block::Clause(_)) || inside.borrow().len() > before;
        if shows_clause && first_clause.is_none() {
            first_clause = Some(blocks.len());
        }
        blocks.push(block);
    }
    let sections = Value::from_serializable(&context::sections(&doc.headings, &numbers));
    (blocks.into(), sections, first_clause)
}

/// The files of the whole site, the same in every language: `clauses.json`, `matrix.json` and
/// `matrix.csv`.
fn data_files(m: &Matrix, put: &Put) -> Result<(), Diagnostic> {
    put("clauses.json".into(), files::clauses_json(m.spec)?)?;
    put("matrix.json".into(), files::matrix_json(m)?)?;
    put("matrix.csv".into(), matrix::csv(m).into_bytes())
}

/// The style, the script and the files a replaced style brings (see [`Templates::assets`]).
fn assets(tpl: &Templates, put: &Put) -> Result<(), Diagnostic> {
    for (name, content) in &tpl.assets {
        put(format!("assets/{name}"), content.clone())?;
    }
    Ok(())
}

/// The root `index.html`, sending the reader to the first language's index; returns the pages
/// written (none for a contract without languages).
fn redirect(m: &Matrix, tpl: &Templates, put: &Put) -> Result<usize, Diagnostic> {
    let Some(first) = m.spec.contract.languages.first() else {
        return Ok(0);
    };
    let mut ctx = Context::new();
    ctx.insert("lang", first);
    ctx.insert("title", &m.spec.contract.title);
    let html = tpl
        .tera
        .render("redirect.html", &ctx)
        .map_err(|e| template_error(&e))?;
    put("index.html".into(), html.into_bytes())?;
    Ok(1)
}
