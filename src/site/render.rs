//! The render pass: every file of the site, from the templates and the contexts, handed to a sink.
//!
//! One language after the other: its clause contexts (Markdown → HTML, translation state, status)
//! are made once and shared by every page of that language, each clause's `clause.html` and each
//! chapter's prose are rendered once (its chapter page and the print page show that HTML), then
//! every file of the language is one job of a parallel pass, the print page first, and the
//! language's state is dropped.
//! The index and matrix pages include their row templates in a loop. So there is one definition of
//! each piece, and an override of a piece applies everywhere.
//!
//! Each page is given an [`Env`]: a compiled template reads its fields, tera its serialisation
//! (see [`render_page`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tera::Context;

use super::compiled::{self, Missing};
use super::context::{self, BlockView, ClauseCtx, Env, Html, PrintChapter, Shared};
use super::interface::Interface;
use super::markdown::{SectionHead, prose_html};
use super::templates::{Templates, template_error};
use super::{files, runtimes_page, search};
use crate::diagnostic::Diagnostic;
use crate::matrix::{self, Matrix};
use crate::runtimes::Catalogue;
use crate::spec::{Block, Document};

/// Receives each rendered file as soon as it is ready, from several threads.
pub(super) type Put<'p> = dyn Fn(String, Vec<u8>) -> Result<(), Diagnostic> + Sync + 'p;

/// What a render reports besides the files.
pub struct Rendered {
    /// HTML pages rendered.
    pub pages: usize,
    /// Thread time of each part of rendering (summed over threads), for `--timings`.
    pub parts: Vec<(&'static str, Duration)>,
}

/// One language's shared render state.
struct Lang<'s> {
    lang: &'s str,
    docs: &'s [Document],
    t: &'s Interface,
    shared: Shared<'s>,
    /// The table of contents, rendered once per language.
    toc: String,
    /// Where each page's link in `toc` ends (see [`toc_links`]).
    toc_links: HashMap<String, usize>,
    /// Each clause's text without markup (the search index's), in the order of `spec.clauses`.
    plain: Vec<String>,
    /// Each clause's context, in the same order (with `only`, those of other chapters are empty).
    clauses: Vec<ClauseCtx<'s>>,
    /// Each clause's `clause.html`, rendered once and shown by its chapter page and the print
    /// page alike (in the same order; with `only`, empty for the clauses of other chapters).
    html: Vec<String>,
    /// The pages in reading order, for previous/next.
    order: Vec<context::PageLink<'s>>,
    /// Each chapter's prose blocks as HTML and its section numbers (see [`chapter_prose`]), made
    /// once: its chapter page and the print page both show them (with `only`, empty for the
    /// other chapters).
    prose: Vec<(Vec<String>, Vec<String>)>,
}

/// One file to render; the list of them is run in parallel (see [`jobs_of`] for the order).
#[derive(Clone, Copy)]
enum Job {
    ClausesJson,
    MatrixJson,
    MatrixCsv,
    ClauseIndex(usize),
    Matrix(usize),
    Search(usize),
    Index(usize),
    Print(usize),
    Runtimes(usize),
    Chapter(usize, usize),
}

/// Render every file of the site and hand it to `put` — or, with `only`, just the pages of those
/// chapters in every language (what `serve` shows first after an edit of a chapter file; each such
/// page is byte for byte the full render's). Returns the page count and the timed parts.
pub(super) fn render_into(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    only: Option<&BTreeSet<String>>,
    put: &Put,
) -> Result<Rendered, Diagnostic> {
    let together = m.spec.clauses.len() * m.spec.contract.languages.len() <= TOGETHER;
    render_with(m, runtimes, tpl, only, together, put)
}

/// [`render_into`], with every language's files in one pass (`together`) or one language after
/// the other; the files are the same either way.
fn render_with(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    only: Option<&BTreeSet<String>>,
    together: bool,
    put: &Put,
) -> Result<Rendered, Diagnostic> {
    let spec = m.spec;
    let tera = &tpl.tera;
    let langs = &spec.contract.languages;
    let parts = Parts::default();
    let interfaces: Vec<(&str, &Interface)> = langs
        .iter()
        .map(|l| Ok((l.as_str(), tpl.interfaces.get(l)?)))
        .collect::<Result<_, Diagnostic>>()?;
    let lang_state = |i: usize| {
        let (lang, t) = interfaces[i];
        let start = Instant::now();
        let l = lang_state(m, tpl, lang, t, &interfaces, runtimes.is_some(), only);
        parts.add(Part::Contexts, start);
        l
    };

    if let Some(chapters) = only {
        let per_lang: Vec<Lang> = (0..interfaces.len())
            .map(lang_state)
            .collect::<Result<_, _>>()?;
        let jobs: Vec<Job> = per_lang
            .iter()
            .enumerate()
            .flat_map(|(l, lr)| {
                lr.docs
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| chapters.contains(&d.chapter))
                    .map(move |(d, _)| Job::Chapter(l, d))
            })
            .collect();
        let pages = render_jobs(m, runtimes, tpl, &per_lang, &jobs, &parts, put, false)?;
        return Ok(Rendered {
            pages,
            parts: parts.report(),
        });
    }
    // A small site: every language's state at once, then all their files in one parallel pass,
    // instead of two passes with a wait between them per language (see `TOGETHER`).
    let mut done = 0;
    if together {
        let per_lang: Vec<Lang> = (0..interfaces.len())
            .into_par_iter()
            .map(lang_state)
            .collect::<Result<_, _>>()?;
        let jobs: Vec<Job> = per_lang
            .iter()
            .enumerate()
            .flat_map(|(l, lr)| jobs_of(l, l == 0, runtimes.is_some(), lr.docs.len()))
            .collect();
        done += render_jobs(m, runtimes, tpl, &per_lang, &jobs, &parts, put, true)?;
    } else {
        // One language after the other, each language's state dropped before the next is made:
        // the pass over a language's files is parallel, and holding every language's clause
        // values and pieces at once was the largest share of the peak memory (BENCHMARKS.md,
        // "Session 8").
        for i in 0..interfaces.len() {
            let lr = [lang_state(i)?];
            let jobs = jobs_of(0, i == 0, runtimes.is_some(), lr[0].docs.len());
            done += render_jobs(m, runtimes, tpl, &lr, &jobs, &parts, put, true)?;
        }
    }
    for (name, content) in &tpl.assets {
        put(format!("assets/{name}"), content.clone())?;
    }
    if let Some(first) = langs.first() {
        let mut ctx = Context::new();
        ctx.insert("lang", first);
        ctx.insert("title", &spec.contract.title);
        let html = tera
            .render("redirect.html", &ctx)
            .map_err(|e| template_error(&e))?;
        put("index.html".into(), html.into_bytes())?;
    }
    Ok(Rendered {
        pages: done + 1,
        parts: parts.report(),
    })
}

/// The most clauses × languages rendered in one pass, every language's state held at once. In
/// this repository's build (105 clauses × 2) that took 7 % off the wall time; at ×100 (10,500 × 2)
/// it raised the peak memory from 136 to 182 MB, so above this the languages go one after the
/// other (BENCHMARKS.md, "Session 11").
const TOGETHER: usize = 2_000;

/// The files of the language at index `l` of the states passed to [`render_jobs`]; the
/// language-independent files (`clauses.json`, the matrix files) with the `first` language.
/// The largest files come first, each a single job (the print page, the search index, clauses.json,
/// the matrix and the clause index), then the small chapter pages: the pass hands out jobs in
/// this order to whichever thread is free, so the big ones start at once on both threads and the
/// chapter pages fill the gaps. Started late, a big job is a tail the other core waits for
/// (BENCHMARKS.md, "Session 14" and "Session 16").
fn jobs_of(l: usize, first: bool, runtimes: bool, chapters: usize) -> Vec<Job> {
    let mut jobs = vec![Job::Print(l), Job::Search(l)];
    if first {
        jobs.push(Job::ClausesJson);
    }
    jobs.extend([Job::Matrix(l), Job::ClauseIndex(l)]);
    if first {
        jobs.extend([Job::MatrixJson, Job::MatrixCsv]);
    }
    jobs.push(Job::Index(l));
    if runtimes {
        jobs.push(Job::Runtimes(l));
    }
    jobs.extend((0..chapters).map(|d| Job::Chapter(l, d)));
    jobs
}

/// Run `jobs` (each a file handed to `put`; in parallel if `parallel`, see [`lang_state`] for when
/// not); returns how many were pages.
#[allow(clippy::too_many_arguments)]
fn render_jobs(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    per_lang: &[Lang],
    jobs: &[Job],
    parts: &Parts,
    put: &Put,
    parallel: bool,
) -> Result<usize, Diagnostic> {
    let spec = m.spec;
    // Each clause's tests, the same in every language (`tests_by_clause` of `matrix.html`).
    let tests: Vec<&[crate::matrix::TestView]> =
        m.rows.iter().map(|r| r.tests.as_slice()).collect();
    let pages = jobs.iter().filter(|j| j.is_page()).count();

    // Render `template` as the page `env.page` of `lr`, with `env` (the page's own values); the
    // sidebar and previous/next are added here.
    // On a chapter page, `sections` (the sidebar's list of its sections) goes right after its link.
    // `blocks`: the bytes of the HTML blocks the page shows, so its buffer is made large enough
    // at once instead of doubling up to the print page's 16 MB at ×100 (each doubling holding the
    // old and the new buffer).
    let page = |lr: &Lang, template: &str, env: Env, rel: String, sections: &str, blocks: usize| {
        let name = env.page;
        let at = lr.order.iter().position(|p| p.name == name);
        let prev = at
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| lr.order.get(i));
        let next = at.and_then(|i| lr.order.get(i + 1));
        let toc = match lr.toc_links.get(name) {
            Some(&end) => {
                let close = lr.toc[end..].find("</a>").map_or(end, |i| end + i + 4);
                [
                    &lr.toc[..end],
                    " aria-current=\"page\"",
                    &lr.toc[end..close],
                    sections,
                    &lr.toc[close..],
                ]
                .concat()
            }
            None => lr.toc.clone(),
        };
        let env = Env {
            prev,
            next,
            toc: Html(&toc),
            ..env
        };
        let html = render_page(tpl, template, &env, toc.len() + blocks + blocks / 8 + 16384)?;
        put(rel, html)
    };
    let run = |job: &Job| -> Result<(), Diagnostic> {
        match *job {
            Job::ClausesJson => put("clauses.json".into(), files::clauses_json(spec)?),
            Job::MatrixJson => {
                let json = matrix::json(m).map_err(|e| {
                    Diagnostic::error("K0401", format!("matrix.json cannot be written: {e}"))
                })?;
                put("matrix.json".into(), json.into_bytes())
            }
            Job::MatrixCsv => put("matrix.csv".into(), matrix::csv(m).into_bytes()),
            Job::Chapter(l, d) => {
                let lr = &per_lang[l];
                let doc = &lr.docs[d];
                let (blocks, bytes) = block_views(lr, d);
                let sections = toc_sections(
                    tpl,
                    &Env::of(&lr.shared),
                    &context::sections(&doc.headings, &lr.prose[d].1),
                )?;
                let env = Env {
                    page: &doc.chapter,
                    page_title: &doc.title,
                    blocks: &blocks,
                    ..Env::of(&lr.shared)
                };
                page(
                    lr,
                    "chapter.html",
                    env,
                    format!("{}/{}.html", lr.lang, doc.chapter),
                    &sections,
                    bytes,
                )
            }
            Job::Print(l) => {
                let lr = &per_lang[l];
                let mut bytes = 0;
                let chapters: Vec<PrintChapter> = (0..lr.docs.len())
                    .map(|d| {
                        let (blocks, b) = block_views(lr, d);
                        bytes += b;
                        PrintChapter {
                            name: &lr.docs[d].chapter,
                            blocks,
                        }
                    })
                    .collect();
                let env = Env {
                    page: "print",
                    page_title: lr.t.text("print_short"),
                    print_chapters: &chapters,
                    ..Env::of(&lr.shared)
                };
                page(
                    lr,
                    "print.html",
                    env,
                    format!("{}/print.html", lr.lang),
                    "",
                    bytes,
                )
            }
            Job::Index(l) => {
                let lr = &per_lang[l];
                let env = Env {
                    page: "index",
                    page_title: spec.contract.title_in(lr.lang),
                    clause_count: Some(lr.clauses.len()),
                    ..Env::of(&lr.shared)
                };
                page(
                    lr,
                    "index.html",
                    env,
                    format!("{}/index.html", lr.lang),
                    "",
                    0,
                )
            }
            Job::ClauseIndex(l) => {
                let lr = &per_lang[l];
                let env = Env {
                    page: "clauses",
                    page_title: lr.t.text("clauses"),
                    clauses: &lr.clauses,
                    ..Env::of(&lr.shared)
                };
                page(
                    lr,
                    "clauses.html",
                    env,
                    format!("{}/clauses.html", lr.lang),
                    "",
                    0,
                )
            }
            Job::Matrix(l) => {
                let lr = &per_lang[l];
                let summary = context::matrix_summary(m, lr.t, lr.lang);
                let env = Env {
                    page: "matrix",
                    page_title: lr.t.text("matrix"),
                    clauses: &lr.clauses,
                    tests_by_clause: &tests,
                    statuses: &summary.statuses,
                    coverage: &summary.coverage,
                    results: summary.results,
                    ..Env::of(&lr.shared)
                };
                page(
                    lr,
                    "matrix.html",
                    env,
                    format!("{}/matrix.html", lr.lang),
                    "",
                    0,
                )
            }
            Job::Search(l) => {
                let lr = &per_lang[l];
                let rt = runtimes.map(|rt| (rt, lr.t.text("runtimes")));
                let index = search::index_script(spec, lr.docs, &lr.plain, lr.lang, rt)?;
                put(format!("assets/search-{}.js", lr.lang), index)
            }
            Job::Runtimes(l) => match runtimes {
                Some(rt) => {
                    let lr = &per_lang[l];
                    let values = runtimes_page::context(rt, lr.lang)?;
                    let env = Env {
                        page: "runtimes",
                        page_title: lr.t.text("runtimes"),
                        rt: Some(&values),
                        ..Env::of(&lr.shared)
                    };
                    page(
                        lr,
                        "runtimes.html",
                        env,
                        format!("{}/runtimes.html", lr.lang),
                        "",
                        0,
                    )
                }
                None => Ok(()),
            },
        }
    };
    let timed = |job: &Job| {
        let start = Instant::now();
        let done = run(job);
        parts.add(job.part(), start);
        done
    };
    if parallel {
        // A shared queue taken in list order. (`par_iter` splits the list in halves, and the
        // thread that starts keeps the front: at ×100 the search index, fifth, began only after
        // the print page, clauses.json, the clause index and the matrix, on the same thread, and
        // ran last, alone, for 30–50 ms per language; BENCHMARKS.md, "Session 16".)
        jobs.iter().par_bridge().try_for_each(timed)?;
    } else {
        jobs.iter().try_for_each(timed)?;
    }

    Ok(pages)
}

/// The prose blocks of chapter `d` of `docs` as HTML (with their headings' ids and section
/// numbers), in order, and those section numbers.
fn chapter_prose(docs: &[Document], d: usize) -> (Vec<String>, Vec<String>) {
    let doc = &docs[d];
    let numbers = crate::spec::section_numbers(d + 1, &doc.headings);
    let mut heads = doc.headings.iter().zip(&numbers).map(|(h, n)| SectionHead {
        id: &h.anchor,
        number: n,
    });
    let prose = doc
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Prose(p) => Some(prose_html(p, &mut heads)),
            Block::Clause(_) => None,
        })
        .collect();
    (prose, numbers)
}

/// The blocks of chapter `d` of `lr` for `chapter.html`: its prose and its clauses' shared contexts
/// and pieces, as made once for the language; and their bytes.
fn block_views<'a>(lr: &'a Lang, d: usize) -> (Vec<BlockView<'a>>, usize) {
    let mut prose = lr.prose[d].0.iter();
    let mut bytes = 0;
    let blocks = lr.docs[d]
        .blocks
        .iter()
        .map(|b| {
            let (kind, html, clause) = match b {
                Block::Prose(_) => ("prose", prose.next().map_or("", String::as_str), None),
                Block::Clause(i) => ("clause", lr.html[*i].as_str(), Some(&lr.clauses[*i])),
            };
            bytes += html.len();
            BlockView {
                kind,
                html: Html(html),
                clause,
            }
        })
        .collect();
    (blocks, bytes)
}

/// Render the page template `template` with `env` into a buffer of `capacity` bytes: its
/// compiled code, or tera's where it is not compiled or `--templates` replaced a part of it.
fn render_page(
    tpl: &Templates,
    template: &str,
    env: &Env,
    capacity: usize,
) -> Result<Vec<u8>, Diagnostic> {
    if tpl.compiled(template) {
        let mut out = String::with_capacity(capacity);
        if let Some(done) = compiled::render_page(template, &mut out, env) {
            done.map_err(|m| missing(template, m))?;
            return Ok(out.into_bytes());
        }
    }
    let ctx = env.to_tera().map_err(|e| template_error(&e))?;
    let mut out = Vec::with_capacity(capacity);
    tpl.tera
        .render_to(template, &ctx, &mut out)
        .map_err(|e| template_error(&e))?;
    Ok(out)
}

/// `toc-sections.html` for a chapter's `sections`.
fn toc_sections(
    tpl: &Templates,
    env: &Env,
    sections: &[context::Section],
) -> Result<String, Diagnostic> {
    const TEMPLATE: &str = "toc-sections.html";
    if tpl.compiled(TEMPLATE) {
        let mut out = String::new();
        compiled::toc_sections_html(&mut out, env, sections).map_err(|m| missing(TEMPLATE, m))?;
        return Ok(out);
    }
    let mut side = Context::new();
    side.insert("sections", sections);
    side.insert("t", env.t);
    tpl.tera
        .render(TEMPLATE, &side)
        .map_err(|e| template_error(&e))
}

/// A compiled template's failed lookup, as tera's errors are reported.
fn missing(template: &str, m: Missing) -> Diagnostic {
    Diagnostic::error("K0403", "a template has an error").help(format!(
        "`{template}`: {}\nfix the template (see templates/ for the defaults)",
        m.0
    ))
}

/// A language's shared state for [`render_into`].
fn lang_state<'s>(
    m: &'s Matrix,
    tpl: &Templates,
    lang: &'s str,
    t: &'s Interface,
    interfaces: &[(&'s str, &'s Interface)],
    has_runtimes: bool,
    only: Option<&BTreeSet<String>>,
) -> Result<Lang<'s>, Diagnostic> {
    let spec = m.spec;
    let (docs, tr) = context::documents(spec, lang);
    let shared = context::shared(spec, lang, docs, t, interfaces, has_runtimes, tpl.serve);
    let order = context::page_order(docs, t, has_runtimes);
    let toc = {
        let bytes = render_page(tpl, "toc.html", &Env::of(&shared), 0)?;
        String::from_utf8(bytes).map_err(|e| {
            Diagnostic::error("K0403", format!("toc.html rendered invalid UTF-8: {e}"))
        })?
    };
    let clause = |i: usize| {
        let c = &spec.clauses[i];
        context::clause(i, c, tr, m.rows[i].status, &spec.contract.links)
    };
    // Each clause's piece is rendered once per language: the chapter page and the print page both
    // show it (rendering it in each made every clause twice). With tera, the language's context is
    // made once per thread and given each clause as `c`.
    let base = Env::of(&shared);
    let compiled = tpl.compiled("clause.html");
    let piece = |ctx: &mut Option<Context>, c: &ClauseCtx| -> Result<String, Diagnostic> {
        if compiled {
            let mut out = String::new();
            compiled::clause_html(&mut out, &base, c).map_err(|e| missing("clause.html", e))?;
            return Ok(out);
        }
        if ctx.is_none() {
            *ctx = Some(base.to_tera().map_err(|e| template_error(&e))?);
        }
        let ctx = ctx.as_mut().expect("made just above");
        ctx.insert("c", c);
        tpl.tera
            .render("clause.html", ctx)
            .map_err(|e| template_error(&e))
    };
    let n = spec.clauses.len();
    let (mut clauses, html, prose) = match only {
        None => {
            let clauses: Vec<ClauseCtx> = (0..n).into_par_iter().map(clause).collect();
            let html = clauses
                .par_iter()
                .map_init(|| None, piece)
                .collect::<Result<Vec<_>, Diagnostic>>()?;
            let prose = (0..docs.len())
                .into_par_iter()
                .map(|d| chapter_prose(docs, d))
                .collect();
            (clauses, html, prose)
        }
        // The clauses of those chapters alone, on this thread: `serve`'s first pages after an
        // edit, a chapter's few dozen clauses. A rayon call from serve's thread has to wake a pool
        // thread; on a busy 2-core machine that cost 14 ms, against 0.5 ms for the work
        // (BENCHMARKS.md, "Session 10"). The other clauses' and chapters' entries stay empty, so
        // that a chapter finds its clauses and prose by index as in a full render.
        Some(chapters) => {
            let mut clauses: Vec<ClauseCtx> = (0..n).map(|_| ClauseCtx::empty()).collect();
            let mut html = vec![String::new(); n];
            let mut prose = vec![Default::default(); docs.len()];
            let mut ctx = None;
            for (d, doc) in docs.iter().enumerate() {
                if !chapters.contains(&doc.chapter) {
                    continue;
                }
                prose[d] = chapter_prose(docs, d);
                for b in &doc.blocks {
                    if let Block::Clause(i) = *b {
                        clauses[i] = clause(i);
                        html[i] = piece(&mut ctx, &clauses[i])?;
                    }
                }
            }
            (clauses, html, prose)
        }
    };
    let plain = clauses
        .iter_mut()
        .map(|c| std::mem::take(&mut c.plain))
        .collect();
    Ok(Lang {
        lang,
        docs,
        t,
        shared,
        toc_links: toc_links(&toc),
        toc,
        plain,
        clauses,
        html,
        order,
        prose,
    })
}

/// Where each page's link in `toc` ends: just after the first `href="NAME.html"` of each page it
/// links to (chapter names are validated slugs, so a link's text is exactly that). The sidebar is
/// rendered once per language and this link marked `aria-current="page"` on each page: rendering it
/// once per page would interpret it as many times as there are pages (see `templates/toc.html`).
fn toc_links(toc: &str) -> HashMap<String, usize> {
    const OPEN: &str = "href=\"";
    const CLOSE: &str = ".html\"";
    let mut links = HashMap::new();
    let mut at = 0;
    while let Some(i) = toc[at..].find(OPEN) {
        let name_start = at + i + OPEN.len();
        let Some(len) = toc[name_start..].find('"') else {
            break;
        };
        let end = name_start + len + 1;
        if let Some(name) = toc[name_start..end].strip_suffix(CLOSE) {
            links.entry(name.to_string()).or_insert(end);
        }
        at = end;
    }
    links
}

/// The parts `--timings` shows under render+write, in the order shown (see [`PART_NAMES`]).
#[derive(Clone, Copy)]
enum Part {
    Contexts,
    Chapters,
    ClauseIndex,
    MatrixPage,
    SearchIndex,
    ClausesJson,
    MatrixFiles,
}

const PART_NAMES: [&str; 7] = [
    "contexts",
    "chapters",
    "clause index",
    "matrix page",
    "search index",
    "clauses.json",
    "matrix files",
];

/// Time per part of [`render_into`], added up across the pool.
#[derive(Default)]
struct Parts([AtomicU64; PART_NAMES.len()]);

impl Parts {
    fn add(&self, part: Part, since: Instant) {
        self.0[part as usize].fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    fn report(&self) -> Vec<(&'static str, Duration)> {
        PART_NAMES
            .iter()
            .zip(&self.0)
            .map(|(p, n)| (*p, Duration::from_nanos(n.load(Ordering::Relaxed))))
            .collect()
    }
}

impl Job {
    /// Which part this job is timed in (the small pages go with the chapters).
    fn part(&self) -> Part {
        match self {
            Job::ClausesJson => Part::ClausesJson,
            Job::MatrixJson | Job::MatrixCsv => Part::MatrixFiles,
            Job::ClauseIndex(_) => Part::ClauseIndex,
            Job::Matrix(_) => Part::MatrixPage,
            Job::Search(_) => Part::SearchIndex,
            Job::Index(_) | Job::Print(_) | Job::Runtimes(_) | Job::Chapter(..) => Part::Chapters,
        }
    }

    /// An HTML page (not a data file).
    fn is_page(&self) -> bool {
        !matches!(
            self,
            Job::ClausesJson | Job::MatrixJson | Job::MatrixCsv | Job::Search(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;

    /// The shipped spec's site, rendered with every language in one pass and one language after
    /// the other: the same files, byte for byte. The real build takes the first way and a large
    /// spec the second, so without this only the benchmarks would see the second.
    #[test]
    fn languages_together_or_one_after_the_other_render_the_same_files() {
        super::super::with_shipped(|m, rt, tpl| {
            let render = |together: bool| {
                let files = Mutex::new(BTreeMap::new());
                let r = render_with(m, rt, tpl, None, together, &|rel, b| {
                    let old = files.lock().unwrap().insert(rel.clone(), b);
                    assert!(old.is_none(), "{rel} written twice");
                    Ok(())
                })
                .unwrap();
                (r.pages, files.into_inner().unwrap())
            };
            let (pages_together, together) = render(true);
            let (pages_apart, apart) = render(false);
            assert_eq!(pages_together, pages_apart);
            assert!(together.len() > 20, "{} files", together.len());
            assert_eq!(
                together.keys().collect::<Vec<_>>(),
                apart.keys().collect::<Vec<_>>()
            );
            for (rel, bytes) in &together {
                assert!(apart[rel] == *bytes, "{rel} differs");
            }
        })
    }
}
