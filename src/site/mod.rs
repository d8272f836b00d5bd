//! `kcontract build`: the bilingual static site.
//!
//! Reads `&Spec` only. Templates (tera 2, autoescaping) are embedded in the binary and can be
//! overridden file by file with `--templates DIR`. The site is written to a temporary folder beside
//! the output and swapped in at the end, so a failed build leaves the previous site untouched; all
//! paths written are built from fixed names and validated chapter names, never from clause text.

mod fragments;
mod markdown;
mod output;
mod search;
mod splice;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use serde::Serialize;
use tera::value::Value;
use tera::{Context, Tera};

use crate::diagnostic::Diagnostic;
use crate::matrix::{self, Matrix, Status};
use crate::spec::{Block, Clause, Document, Spec, Translation, TranslationState};

use output::OutputDir;
use splice::Slots;

pub use fragments::escape_into;
pub use markdown::{level_class, to_html, to_inline_html};

/// The embedded templates: (name, source). A file of the same name in `--templates DIR` replaces one.
/// `toc.html` is rendered once per language; `clause.html`, `clause-row.html` and `matrix-row.html`
/// once per clause (see [`fragments`]); the others once per page.
pub const TEMPLATES: [(&str, &str); 10] = [
    ("base.html", include_str!("../../templates/base.html")),
    ("toc.html", include_str!("../../templates/toc.html")),
    ("chapter.html", include_str!("../../templates/chapter.html")),
    ("clause.html", include_str!("../../templates/clause.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("clauses.html", include_str!("../../templates/clauses.html")),
    (
        "clause-row.html",
        include_str!("../../templates/clause-row.html"),
    ),
    ("matrix.html", include_str!("../../templates/matrix.html")),
    (
        "matrix-row.html",
        include_str!("../../templates/matrix-row.html"),
    ),
    (
        "runtimes.html",
        include_str!("../../templates/runtimes.html"),
    ),
];

/// The per-clause templates that [`fragments`] writes natively unless they are overridden.
const FRAGMENTS: [&str; 3] = ["clause.html", "clause-row.html", "matrix-row.html"];

const ASSETS: [(&str, &str); 2] = [
    (
        "style.css",
        include_str!("../../templates/assets/style.css"),
    ),
    ("site.js", include_str!("../../templates/assets/site.js")),
];

pub struct BuildOptions {
    pub out: PathBuf,
    pub templates: Option<PathBuf>,
}

/// What a build wrote.
pub struct BuildReport {
    pub pages: usize,
    pub files: usize,
    pub timings: crate::timings::Timings,
}

/// Interface text in each language.
fn ui(lang: &str) -> fragments::Ui {
    let pairs: &[(&str, &str, &str)] = &[
        ("contents", "Contents", "目录"),
        ("clauses", "Clause index", "条款索引"),
        ("search", "Search clauses", "搜索条款"),
        (
            "search_placeholder",
            "Search (e.g. SIGTERM, PORT)",
            "搜索（例如 容器、信号、PORT）",
        ),
        ("no_results", "No matching clause", "没有匹配的条款"),
        ("language", "Language", "语言"),
        ("other_language", "中文", "English"),
        ("theme", "Toggle dark mode", "切换深色模式"),
        ("level", "Level", "级别"),
        ("actor", "Actor", "约束对象"),
        ("verify", "Verification", "验证方式"),
        ("id", "Clause", "条款"),
        ("text", "Text", "内容"),
        ("chapter", "Chapter", "章节"),
        ("all", "All", "全部"),
        (
            "upstream_tests",
            "Knative conformance tests",
            "Knative 一致性测试",
        ),
        ("oci", "OCI runtime spec", "OCI 运行时规范"),
        ("reason", "Why untestable", "无法测试的原因"),
        (
            "implicit",
            "Normative without a keyword",
            "无关键词的规范性陈述",
        ),
        ("stale", "Translation out of date", "译文已过期"),
        ("missing", "Not yet translated", "尚未翻译"),
        ("original", "English original", "英文原文"),
        ("permalink", "Link to this clause", "本条款的链接"),
        ("attribution", "Attribution", "来源与许可"),
        ("skip", "Skip to content", "跳到正文"),
        ("shown", "clauses shown", "条条款"),
        ("platform", "platform", "平台"),
        ("developer", "developer", "开发人员"),
        ("container", "container", "容器"),
        ("model", "model", "模型"),
        ("conformance", "conformance", "一致性测试"),
        ("manual", "manual", "人工审查"),
        ("untestable", "untestable", "无法测试"),
        ("matrix", "Traceability matrix", "追溯矩阵"),
        ("runtimes", "Runtimes vs the spec", "运行时与规范的差异"),
        (
            "runtimes_intro",
            "How real OCI runtimes behave where the reference model follows the OCI runtime spec: each deviation with the spec sentence, the runtimes and versions, a minimal trace, and the model's and the runtimes' output. Measured by kcontract's differential tests (docs/runtimes.md).",
            "真实的 OCI 运行时在参考模型遵循 OCI 运行时规范之处的实际行为：每项偏差都列出规范原文、涉及的运行时及其版本、最小跟踪，以及模型与运行时的输出。数据来自 kcontract 的差分测试（docs/runtimes.md）。",
        ),
        ("measured", "What was measured", "测量环境"),
        ("runtime", "Runtime", "运行时"),
        ("version", "Version", "版本"),
        ("source", "Source", "来源"),
        ("sequences", "Generated sequences", "生成的序列"),
        ("steps", "Steps", "步骤"),
        ("seconds", "Seconds", "秒"),
        ("unexplained", "Unexplained differences", "无法解释的差异"),
        ("deviations", "Deviations", "偏差"),
        ("spec_sentence", "The spec says", "规范原文"),
        ("breaks", "Model invariant it breaks", "违反的模型不变量"),
        ("minimal_trace", "Minimal trace", "最小跟踪"),
        ("expected", "The model (spec)", "模型（规范）"),
        ("observed", "Observed", "实测"),
        (
            "hooks",
            "Hook order and hook failures",
            "钩子顺序与钩子失败",
        ),
        (
            "hooks_more",
            "Each trace below was run on each runtime and on the model at OCI 1.0.1 and 1.3.0; hook runs are written name[index]@status-seen.",
            "下列每个跟踪都在各运行时以及 OCI 1.0.1 与 1.3.0 两个版本的模型上运行过；钩子运行记为 名称[序号]@看到的状态。",
        ),
        ("model_at", "Model at", "模型，版本"),
        (
            "matrix_link",
            "Tests and status of this clause",
            "本条款的测试与状态",
        ),
        ("status", "Status", "状态"),
        ("matrix_rows", "Clauses and their tests", "条款及其测试"),
        ("tests", "Tests", "测试"),
        ("coverage", "Coverage", "覆盖率"),
        ("clause_count", "Clauses", "条款数"),
        (
            "covered",
            "Covered (real tests / testable)",
            "已覆盖（有实际测试 / 可测试）",
        ),
        ("by_level", "By level", "按级别"),
        ("by_actor", "By actor", "按约束对象"),
        ("total", "All clauses", "全部条款"),
        (
            "results_none",
            "Built from the repository's files alone, without test results: a clause with a real test shows as implemented, not passing.",
            "仅根据仓库中的文件生成，未使用测试结果：有实际测试的条款显示为“已实现”，而非“通过”。",
        ),
        ("results_from", "Test results from", "测试结果来源"),
        ("untested", "untested", "未测试"),
        ("stub", "stub", "测试桩"),
        ("implemented", "implemented", "已实现"),
        ("passing", "passing", "通过"),
        ("failing", "failing", "失败"),
        ("external", "external", "外部测试"),
        ("waived", "waived", "豁免"),
        ("passed", "passed", "已通过"),
        ("failed", "failed", "未通过"),
        ("skipped", "skipped", "已跳过"),
        ("stub_test", "stub", "测试桩"),
        ("ignored", "ignored", "已忽略"),
    ];
    let zh = lang == "zh";
    pairs
        .iter()
        .map(|(k, en, zh_text)| (*k, if zh { *zh_text } else { *en }))
        .collect()
}

fn html_lang(lang: &str) -> &str {
    match lang {
        "zh" => "zh-CN",
        other => other,
    }
}

#[derive(Serialize)]
struct ChapterLink {
    name: String,
    title: String,
    clauses: usize,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ClauseCtx<'s> {
    // Borrowed from the spec where it can be: 21,000 contexts at ×100 made ~150,000 small
    // allocations (and as many frees at the end) for copies of strings the spec already holds.
    id: &'s str,
    level: &'static str,
    level_class: &'static str,
    keyword: &'s str,
    actor: &'static str,
    verify: &'static str,
    text_html: String,
    /// Editors' notes are English-only metadata, rendered as inline Markdown.
    reason_html: Option<String>,
    implicit_html: Option<String>,
    oci: Option<&'s str>,
    oci_url: Option<String>,
    upstream_tests: Vec<(&'s str, String)>,
    chapter: &'s str,
    /// `current`, `stale` or `missing` (always `current` in the source language).
    state: &'static str,
    original_html: Option<String>,
    /// The clause's status in the traceability matrix.
    status: Status,
    /// The text without markup, for the search index (from the same Markdown parse as `text_html`).
    #[serde(skip)]
    plain: String,
}

/// A block of a chapter page for `chapter.html`: `{kind: prose|clause, html}`, the HTML already
/// marked safe (a `| safe` in a template would copy it once more).
fn block_value(kind: &str, html: Value) -> Value {
    let mut map = BTreeMap::new();
    map.insert("kind", Value::from(kind));
    map.insert("html", html);
    Value::from(map)
}

/// The parsed templates, and which per-clause pieces are written by [`fragments`] (those the user
/// did not override).
pub struct Templates {
    tera: Tera,
    native: [bool; 3],
    /// No page template is overridden: finished HTML goes to them as placeholders (see [`splice`]).
    splice: bool,
    /// Pages whose placeholders did not check out, rendered again with the real values.
    unspliced: AtomicUsize,
}

impl Templates {
    /// Render every per-clause piece through tera, as when all three are overridden. Tests build the
    /// site both ways and compare the bytes.
    pub fn interpreted(mut self) -> Templates {
        self.native = [false; 3];
        self.splice = false;
        self
    }

    /// How many pages so far were rendered again because their placeholders did not check out
    /// (tests: none should be, unless spec text forges one).
    pub fn unspliced(&self) -> usize {
        self.unspliced.load(Ordering::Relaxed)
    }

    fn native(&self, name: &str) -> bool {
        FRAGMENTS
            .iter()
            .position(|f| *f == name)
            .is_some_and(|i| self.native[i])
    }
}

/// Parse the templates once: embedded, then overrides.
pub fn templates(dir: Option<&Path>) -> Result<Templates, Diagnostic> {
    let mut tera = Tera::default();
    let mut native = [true; 3];
    let mut splice = true;
    let mut sources: Vec<(String, String)> = TEMPLATES
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    if let Some(dir) = dir {
        if !dir.is_dir() {
            return Err(Diagnostic::error("K0402", format!("the templates folder `{}` does not exist", dir.display()))
                .help("pass a folder holding any of base.html, toc.html, chapter.html, clause.html, index.html, clauses.html, clause-row.html, matrix.html, matrix-row.html or runtimes.html to override"));
        }
        for (name, src) in &mut sources {
            let p = dir.join(&*name);
            if p.exists() {
                *src = fs::read_to_string(&p).map_err(|e| crate::spec_source::io_error(&p, &e))?;
                match FRAGMENTS.iter().position(|f| f == name) {
                    Some(i) => native[i] = false,
                    // The sidebar is rendered once, as a whole; any other page template might
                    // use the finished HTML it is given in other ways than printing it.
                    None if name != "toc.html" => splice = false,
                    None => {}
                }
            }
        }
    }
    tera.set_escape_fn(fragments::tera_escape);
    tera.add_raw_templates(sources.iter().map(|(n, s)| (n.as_str(), s.as_str())))
        .map_err(|e| template_error(&e))?;
    Ok(Templates {
        tera,
        native,
        splice,
        unspliced: AtomicUsize::new(0),
    })
}

fn template_error(e: &tera::Error) -> Diagnostic {
    let mut msg = e.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(&format!("\n{s}"));
        src = s.source();
    }
    Diagnostic::error("K0403", "a template has an error").help(format!(
        "{msg}\nfix the template (see templates/ for the defaults)"
    ))
}

/// Render every page into memory: (relative path, bytes), sorted. Pure: no I/O (tests, fuzzing).
pub fn render(
    m: &Matrix,
    runtimes: Option<&crate::runtimes::Catalogue>,
    tpl: &Templates,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let files = Mutex::new(Vec::new());
    render_into(m, runtimes, tpl, &|rel, bytes| {
        files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((rel, bytes));
        Ok(())
    })?;
    let mut files = files.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort();
    Ok(files)
}

/// Receives each rendered file as soon as it is ready, from several threads.
type Put<'p> = dyn Fn(String, Vec<u8>) -> Result<(), Diagnostic> + Sync + 'p;

/// `toc` with the link to the current page marked (see `templates/toc.html`), as pieces: up to the
/// link's `href`, the `aria-current` attribute, the rest. `at` is where that `href` ends
/// ([`toc_links`]).
fn toc_pieces(toc: &str, at: Option<usize>) -> Vec<&str> {
    match at {
        Some(end) => vec![&toc[..end], " aria-current=\"page\"", &toc[end..]],
        None => vec![toc],
    }
}

/// Where each page's link in `toc` ends: just after the first `href="NAME.html"` of each page it
/// links to (chapter names are validated slugs, so a link's text is exactly that). Read off the
/// sidebar once per language, not searched for once per page.
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

/// One language's shared render state: interface text, the base context of every page, the table
/// of contents, and each clause's context.
struct LangRender<'s> {
    lang: &'s str,
    docs: &'s [Document],
    t: fragments::Ui,
    t_esc: fragments::EscapedUi,
    base: Context,
    toc: String,
    /// Where each page's link in `toc` ends.
    toc_links: HashMap<String, usize>,
    clauses: Vec<ClauseCtx<'s>>,
}

/// One file to render; the list of them is run in parallel, largest first.
#[derive(Clone, Copy)]
enum Job {
    ClausesJson,
    MatrixJson,
    MatrixCsv,
    ClauseIndex(usize),
    Matrix(usize),
    Search(usize),
    Index(usize),
    Runtimes(usize),
    Chapter(usize, usize),
}

/// Render every file of the site and hand it to `put`. First each language's clause contexts
/// (Markdown → HTML, translation state, status) are computed, once, in parallel; then every file of
/// every language is one job in a single parallel pass, the whole-contract files first (they are
/// the largest). A clause's section, index row and matrix row are written by [`fragments`] (or by
/// tera when overridden) and handed to the page templates as finished HTML, so a page template
/// interprets a few dozen variables, not thousands of clauses. The table of contents is rendered
/// once per language. Returns the page count.
pub fn render_into(
    m: &Matrix,
    runtimes: Option<&crate::runtimes::Catalogue>,
    tpl: &Templates,
    put: &Put,
) -> Result<Rendered, Diagnostic> {
    let spec = m.spec;
    let tera = &tpl.tera;
    let langs = &spec.contract.languages;
    let parts = Parts::default();
    let per_lang: Vec<LangRender> = langs
        .par_iter()
        .map(|lang| lang_render(m, runtimes.is_some(), tera, lang, &parts))
        .collect::<Result<_, _>>()?;

    let mut jobs = vec![Job::ClausesJson];
    for l in 0..per_lang.len() {
        jobs.extend([Job::ClauseIndex(l), Job::Matrix(l), Job::Search(l)]);
    }
    jobs.extend([Job::MatrixJson, Job::MatrixCsv]);
    for (l, lr) in per_lang.iter().enumerate() {
        jobs.push(Job::Index(l));
        if runtimes.is_some() {
            jobs.push(Job::Runtimes(l));
        }
        jobs.extend((0..lr.docs.len()).map(|d| Job::Chapter(l, d)));
    }
    let pages = jobs
        .iter()
        .filter(|j| {
            !matches!(
                j,
                Job::ClausesJson | Job::MatrixJson | Job::MatrixCsv | Job::Search(_)
            )
        })
        .count();

    // Render a page: `context` builds its context from the value of each of `slots` (the page's
    // finished HTML; the sidebar is added here). With the embedded page templates the values are
    // placeholders and the HTML is spliced in afterwards (see `splice`).
    let page = |lr: &LangRender,
                template: &str,
                slots: Slots<'_>,
                context: &PageContext,
                name: &str,
                rel: String| {
        // Rebound, so it may also borrow from `lr` (the slots only need to live for this call).
        let mut slots: Slots = slots;
        let toc = slots.add(&toc_pieces(&lr.toc, lr.toc_links.get(name).copied()));
        let render = |placeholders: bool| -> Result<Vec<u8>, Diagnostic> {
            let value = |i: usize| slots.value(i, placeholders);
            let mut ctx = context(&value);
            ctx.insert("page", name);
            ctx.insert_value("toc", value(toc));
            let size = if placeholders { 0 } else { slots.len() };
            let mut html = Vec::with_capacity(size + 8192);
            tera.render_to(template, &ctx, &mut html)
                .map_err(|e| template_error(&e))?;
            Ok(html)
        };
        let html = match tpl.splice {
            true => match slots.splice(&render(true)?) {
                Some(html) => html,
                None => {
                    tpl.unspliced.fetch_add(1, Ordering::Relaxed);
                    render(false)?
                }
            },
            false => render(false)?,
        };
        put(rel, html)
    };
    // A page of one row per clause (`<name>.html`): the rows go to the template as `rows_html`.
    let rows_page = |lr: &LangRender, ctx: &dyn Fn() -> Context, rows: String, name: &str| {
        let mut slots = Slots::default();
        let slot = slots.add(&[&rows]);
        page(
            lr,
            &format!("{name}.html"),
            slots,
            &|value| {
                let mut c = ctx();
                c.insert_value("rows_html", value(slot));
                c
            },
            name,
            format!("{}/{name}.html", lr.lang),
        )
    };
    // One clause's piece through its (overridden) template.
    let piece = |lr: &LangRender, name: &str, out: &mut String, var: &'static str, value: Value| {
        let mut ctx = lr.base.clone();
        ctx.insert_value(var, value);
        tera.render_to(name, &ctx, StringWriter(out))
            .map_err(|e| template_error(&e))
    };
    let run = |job: &Job| -> Result<(), Diagnostic> {
        match *job {
            Job::ClausesJson => put("clauses.json".into(), clauses_json(spec)),
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
                // Every block's HTML, one after the other in one buffer.
                let mut body = String::with_capacity(doc.blocks.len() * 2048);
                let mut blocks = Vec::with_capacity(doc.blocks.len());
                for b in &doc.blocks {
                    let start = body.len();
                    let kind = match b {
                        Block::Prose(p) => {
                            body.push_str(&to_html(p));
                            "prose"
                        }
                        Block::Clause(i) => {
                            let c = &lr.clauses[*i];
                            if tpl.native("clause.html") {
                                fragments::clause_section(&mut body, c, &lr.t_esc, lr.lang);
                            } else {
                                piece(
                                    lr,
                                    "clause.html",
                                    &mut body,
                                    "c",
                                    Value::from_serializable(c),
                                )?;
                            }
                            "clause"
                        }
                    };
                    blocks.push((kind, start..body.len()));
                }
                let mut slots = Slots::default();
                let blocks: Vec<(&str, usize)> = blocks
                    .into_iter()
                    .map(|(kind, range)| (kind, slots.add(&[&body[range]])))
                    .collect();
                page(
                    lr,
                    "chapter.html",
                    slots,
                    &|value| {
                        let mut ctx = lr.base.clone();
                        ctx.insert("page_title", &doc.title);
                        let blocks: Vec<Value> = blocks
                            .iter()
                            .map(|(kind, slot)| block_value(kind, value(*slot)))
                            .collect();
                        ctx.insert_value("blocks", Value::from(blocks));
                        ctx
                    },
                    &doc.chapter,
                    format!("{}/{}.html", lr.lang, doc.chapter),
                )
            }
            Job::Index(l) => {
                let lr = &per_lang[l];
                page(
                    lr,
                    "index.html",
                    Slots::default(),
                    &|_| {
                        let mut ctx = lr.base.clone();
                        ctx.insert("page_title", &spec.contract.title);
                        ctx.insert("clause_count", &lr.clauses.len());
                        ctx
                    },
                    "index",
                    format!("{}/index.html", lr.lang),
                )
            }
            Job::ClauseIndex(l) => {
                let lr = &per_lang[l];
                let text: usize = lr.clauses.iter().map(|c| c.text_html.len() + 400).sum();
                let mut rows = String::with_capacity(text);
                for c in &lr.clauses {
                    if tpl.native("clause-row.html") {
                        fragments::index_row(&mut rows, c, &lr.t_esc);
                    } else {
                        piece(
                            lr,
                            "clause-row.html",
                            &mut rows,
                            "c",
                            Value::from_serializable(c),
                        )?;
                    }
                }
                let ctx = || {
                    let mut ctx = lr.base.clone();
                    ctx.insert("page_title", lr.t["clauses"]);
                    ctx
                };
                rows_page(lr, &ctx, rows, "clauses")
            }
            Job::Matrix(l) => {
                let lr = &per_lang[l];
                let mut rows = String::with_capacity(640 * lr.clauses.len());
                for (c, r) in lr.clauses.iter().zip(&m.rows) {
                    if tpl.native("matrix-row.html") {
                        fragments::matrix_row(&mut rows, c, &r.tests, &lr.t_esc, lr.lang);
                    } else {
                        let row = RowCtx {
                            clause: c,
                            tests: &r.tests,
                        };
                        piece(
                            lr,
                            "matrix-row.html",
                            &mut rows,
                            "r",
                            Value::from_serializable(&row),
                        )?;
                    }
                }
                let ctx = || {
                    let mut ctx = lr.base.clone();
                    ctx.insert("page_title", lr.t["matrix"]);
                    matrix_ctx(m, &lr.t, &mut ctx);
                    ctx
                };
                rows_page(lr, &ctx, rows, "matrix")
            }
            Job::Search(l) => {
                let lr = &per_lang[l];
                let index = search::index_script(spec, &lr.clauses);
                put(format!("assets/search-{}.js", lr.lang), index)
            }
            Job::Runtimes(l) => match runtimes {
                Some(rt) => {
                    let lr = &per_lang[l];
                    let rt = runtimes_ctx(rt, lr.lang);
                    page(
                        lr,
                        "runtimes.html",
                        Slots::default(),
                        &|_| {
                            let mut ctx = lr.base.clone();
                            ctx.insert("page_title", lr.t["runtimes"]);
                            ctx.insert("rt", &rt);
                            ctx
                        },
                        "runtimes",
                        format!("{}/runtimes.html", lr.lang),
                    )
                }
                None => Ok(()),
            },
        }
    };
    jobs.par_iter().with_max_len(1).try_for_each(|job| {
        let start = std::time::Instant::now();
        let done = run(job);
        parts.add(job.part(), start);
        done
    })?;

    for (name, content) in ASSETS {
        put(format!("assets/{name}"), content.as_bytes().to_vec())?;
    }
    let first = langs.first().cloned().unwrap_or_else(|| "en".into());
    put(
        "index.html".into(),
        format!("<!doctype html>\n<html lang=\"{first}\"><head><meta charset=\"utf-8\"><title>{}</title><meta http-equiv=\"refresh\" content=\"0; url={first}/index.html\"></head><body><a href=\"{first}/index.html\">{}</a></body></html>\n",
            fragments::escaped_str(&spec.contract.title), fragments::escaped_str(&spec.contract.title)).into_bytes(),
    )?;
    // Freeing 21,000 clause contexts one by one on this thread was a visible serial step at the
    // end of a large build; split it over the pool.
    per_lang
        .into_par_iter()
        .for_each(|lr| lr.clauses.into_par_iter().for_each(drop));
    Ok(Rendered {
        pages: pages + 1,
        parts: parts.report(),
    })
}

/// A language's shared state for [`render_into`].
fn lang_render<'s>(
    m: &'s Matrix,
    has_runtimes: bool,
    tera: &Tera,
    lang: &'s str,
    parts: &Parts,
) -> Result<LangRender<'s>, Diagnostic> {
    let spec = m.spec;
    let langs = &spec.contract.languages;
    let tr = spec.translations.iter().find(|t| t.lang == lang);
    let docs: &[Document] = match tr {
        Some(t) => &t.documents,
        None => &spec.documents,
    };
    let other = langs.iter().find(|l| *l != lang).cloned();
    let chapters: Vec<ChapterLink> = docs
        .iter()
        .map(|d| ChapterLink {
            name: d.chapter.clone(),
            title: d.title.clone(),
            clauses: d
                .blocks
                .iter()
                .filter(|b| matches!(b, Block::Clause(_)))
                .count(),
        })
        .collect();
    let t = ui(lang);
    let mut base = Context::new();
    base.insert("lang", lang);
    base.insert("html_lang", html_lang(lang));
    base.insert("other_lang", &other);
    base.insert("t", &t);
    base.insert("title", &spec.contract.title);
    base.insert("version", &spec.contract.version);
    base.insert("upstream", &spec.contract.upstream);
    base.insert("chapters", &chapters);
    base.insert("has_runtimes", &has_runtimes);
    let toc = tera
        .render("toc.html", &base)
        .map_err(|e| template_error(&e))?;
    // In chunks, each timed (a clock read per clause would be a cost of its own).
    const CHUNK: usize = 64;
    let clauses: Vec<ClauseCtx> = spec
        .clauses
        .par_chunks(CHUNK)
        .zip(m.rows.par_chunks(CHUNK))
        .enumerate()
        .flat_map_iter(|(k, (cs, rows))| {
            let start = std::time::Instant::now();
            let chunk: Vec<ClauseCtx> = cs
                .iter()
                .zip(rows)
                .enumerate()
                .map(|(i, (c, r))| clause_ctx(k * CHUNK + i, c, tr, r.status))
                .collect();
            parts.add(Part::Contexts, start);
            chunk
        })
        .collect();
    let toc_links = toc_links(&toc);
    Ok(LangRender {
        lang,
        docs,
        t_esc: fragments::escaped(&t),
        t,
        base,
        toc,
        toc_links,
        clauses,
    })
}

/// Builds a page's context, given the value of each of its slots of finished HTML.
type PageContext<'a> = dyn Fn(&dyn Fn(usize) -> Value) -> Context + 'a;

/// Lets tera write a piece straight onto the page being assembled.
struct StringWriter<'a>(&'a mut String);

impl std::io::Write for StringWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // tera writes whole UTF-8 strings (template text, values, escaped values).
        let s = std::str::from_utf8(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.0.push_str(s);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A matrix row's context for an overridden `matrix-row.html`: the clause's fields and its tests.
#[derive(Serialize)]
struct RowCtx<'a> {
    #[serde(flatten)]
    clause: &'a ClauseCtx<'a>,
    tests: &'a [matrix::TestView],
}

/// What [`render_into`] reports besides the files.
pub struct Rendered {
    pub pages: usize,
    /// Thread time of each part of rendering (summed over threads), for `--timings`.
    pub parts: Vec<(&'static str, std::time::Duration)>,
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

/// Thread time per part of [`render_into`], added up across the pool.
#[derive(Default)]
struct Parts([AtomicU64; PART_NAMES.len()]);

impl Parts {
    fn add(&self, part: Part, since: std::time::Instant) {
        self.0[part as usize].fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    fn report(&self) -> Vec<(&'static str, std::time::Duration)> {
        PART_NAMES
            .iter()
            .zip(&self.0)
            .map(|(p, n)| {
                (
                    *p,
                    std::time::Duration::from_nanos(n.load(Ordering::Relaxed)),
                )
            })
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
            Job::Index(_) | Job::Runtimes(_) | Job::Chapter(..) => Part::Chapters,
        }
    }
}

/// The "Runtimes vs the spec" page: the catalogue in the page's language, JSON lines one per line.
fn runtimes_ctx(rt: &crate::runtimes::Catalogue, lang: &str) -> serde_json::Value {
    let zh = lang == "zh";
    let pick = |en: &str, zh_text: &str| {
        if zh {
            zh_text.to_string()
        } else {
            en.to_string()
        }
    };
    let lines = |lines: &[String], comparable: &[String]| {
        if lines.is_empty() {
            comparable.join("\n")
        } else {
            lines.join("\n")
        }
    };
    let observed = |o: &[crate::runtimes::Observed]| {
        o.iter()
            .map(|o| serde_json::json!({"runtime": o.runtime, "lines": lines(&o.lines, &o.comparable)}))
            .collect::<Vec<_>>()
    };
    let deviations: Vec<serde_json::Value> = rt
        .deviations
        .iter()
        .map(|d| {
            let note = match (&d.note, &d.note_zh) {
                (Some(en), Some(z)) => Some(to_html(&pick(en, z))),
                (Some(en), None) => Some(to_html(en)),
                _ => None,
            };
            serde_json::json!({
                "id": d.id,
                "title_html": to_inline_html(&pick(&d.title, &d.title_zh)),
                "summary_html": to_html(&pick(&d.summary, &d.summary_zh)),
                "note_html": note,
                "source": d.spec.source,
                "versions": d.spec.versions.join(", "),
                "sentence_html": to_inline_html(&d.spec.sentence),
                "runtimes": d.runtimes.iter().map(|r| format!("{} {}", r.name, r.version)).collect::<Vec<_>>().join(", "),
                "breaks": d.breaks,
                "trace": serde_json::to_string_pretty(&d.trace).unwrap_or_default(),
                "expected_version": d.expected.version,
                "expected": lines(&d.expected.lines, &d.expected.comparable),
                "observed": observed(&d.observed),
            })
        })
        .collect();
    let hooks: Vec<serde_json::Value> = rt
        .hooks
        .traces
        .iter()
        .map(|h| {
            serde_json::json!({
                "id": h.id,
                "title_html": to_inline_html(&pick(&h.title, &h.title_zh)),
                "trace": serde_json::to_string_pretty(&h.trace).unwrap_or_default(),
                "expected": h.expected.iter().map(|e| serde_json::json!({"version": e.version, "lines": lines(&e.lines, &e.comparable)})).collect::<Vec<_>>(),
                "observed": observed(&h.observed),
            })
        })
        .collect();
    serde_json::json!({
        "host": rt.measured.host,
        "runtimes": rt.measured.runtimes,
        "differential": rt.measured.differential,
        "deviations": deviations,
        "hooks_summary_html": to_html(&pick(&rt.hooks.summary, &rt.hooks.summary_zh)),
        "hooks": hooks,
    })
}

/// The matrix page's summary: coverage groups, status names and the results files (rows are
/// rendered apart).
fn matrix_ctx(m: &Matrix, lang_ui: &fragments::Ui, ctx: &mut Context) {
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
    let mut groups: Vec<Group> = summary
        .by_level
        .iter()
        .map(|g| group(g, g.group.clone()))
        .collect();
    groups.extend(summary.by_actor.iter().map(|g| {
        let label = lang_ui
            .get(g.group.as_str())
            .map_or(g.group.clone(), |s| s.to_string());
        group(g, label)
    }));
    groups.push(group(&summary.total, lang_ui["total"].to_string()));
    ctx.insert("statuses", &Status::ALL.map(Status::as_str));
    ctx.insert("coverage", &groups);
    ctx.insert("results", &m.results);
}

/// The context of `c`, the clause at `index` of `spec.clauses`, in the language of `tr` (`None`:
/// the source language).
fn clause_ctx<'s>(
    index: usize,
    c: &'s Clause,
    tr: Option<&Translation>,
    status: Status,
) -> ClauseCtx<'s> {
    let (text, state, original) = match tr {
        None => (c.text.as_str(), "current", None),
        Some(t) => match t.lookup(index, c) {
            (TranslationState::Current, Some(x)) => (x.text.as_str(), "current", None),
            (TranslationState::Stale, Some(x)) => {
                (x.text.as_str(), "stale", Some(to_html(&c.text)))
            }
            _ => (c.text.as_str(), "missing", Some(to_html(&c.text))),
        },
    };
    let (text_html, plain) = markdown::to_html_and_text(text);
    ClauseCtx {
        id: &c.id,
        level: c.level.as_str(),
        level_class: level_class(c.level),
        keyword: &c.keyword,
        actor: c.actor.as_str(),
        verify: c.verify.as_str(),
        text_html,
        plain,
        reason_html: c.reason.as_deref().map(to_inline_html),
        implicit_html: c.implicit.as_deref().map(to_inline_html),
        oci_url: c
            .oci
            .as_ref()
            .map(|o| format!("https://github.com/opencontainers/runtime-spec/blob/v1.0.1/{o}")),
        oci: c.oci.as_deref(),
        upstream_tests: c
            .upstream_tests
            .iter()
            .map(|p| {
                (
                    p.as_str(),
                    format!("https://github.com/knative/serving/blob/main/{p}"),
                )
            })
            .collect(),
        chapter: &c.chapter,
        state,
        original_html: original,
        status,
    }
}

/// `site/clauses.json`: the `list --format json` shape, with each translation's text and state
/// (`{lang: {text, state}}` after each clause's members), pretty-printed as serde_json does.
/// Written by hand ([`crate::json`]); `tests::clauses_json_is_what_serde_writes` holds it equal
/// to serialising the serde types.
fn clauses_json(spec: &Spec) -> Vec<u8> {
    let mut by_lang: Vec<&Translation> = spec.translations.iter().collect();
    by_lang.sort_by(|a, b| a.lang.cmp(&b.lang));
    // Sized up front: grown by doubling, the buffer of a 10 MB file peaked at 16 MB, then 32 MB
    // for the final newline.
    let estimate: usize = spec
        .clauses
        .iter()
        .map(|c| 2 * c.text.len() + 640)
        .sum::<usize>()
        + spec
            .translations
            .iter()
            .flat_map(|t| t.clauses.iter().flatten())
            .map(|t| t.text.len() * 2)
            .sum::<usize>();
    let mut buf = Vec::with_capacity(estimate);
    let mut w = crate::json::JsonWriter::pretty(&mut buf);
    w.begin_object();
    w.field_str("format", crate::list::CLAUSES_FORMAT);
    w.key("contract");
    crate::list::ContractInfo::of(spec).write(&mut w);
    w.key("clauses");
    w.begin_array();
    for (i, c) in spec.clauses.iter().enumerate() {
        w.item();
        w.begin_object();
        crate::list::ClauseView::new(c).write_members(&mut w);
        w.key("translations");
        w.begin_object();
        for t in &by_lang {
            let (state, tc) = t.lookup(i, c);
            w.key(&t.lang);
            w.begin_object();
            w.field_opt_str("text", tc.map(|x| x.text.as_str()));
            w.field_str("state", state.as_str());
            w.end_object();
        }
        w.end_object();
        w.end_object();
    }
    w.end_array();
    w.end_object();
    buf.push(b'\n');
    buf
}

/// Render and write the site atomically into `opts.out`.
pub fn build(
    m: &Matrix,
    runtimes: Option<&crate::runtimes::Catalogue>,
    opts: &BuildOptions,
) -> Result<BuildReport, Diagnostic> {
    let mut timings = crate::timings::Timings::default();
    let tpl = timings.time("templates", || templates(opts.templates.as_deref()))?;
    let out = timings.time("prepare", || OutputDir::prepare(&opts.out))?;
    let files = AtomicUsize::new(0);
    let write_nanos = AtomicU64::new(0);
    let rendered = timings.time("render+write", || {
        render_into(m, runtimes, &tpl, &|rel, bytes| {
            files.fetch_add(1, Ordering::Relaxed);
            let start = std::time::Instant::now();
            let r = out.write(&rel, &bytes);
            write_nanos.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
            r
        })
    });
    let pages = match rendered {
        Ok(r) => {
            // Parts of render+write, summed over the threads that did them (so they can add up to
            // more than the wall time above). Each part includes handing its files to the output;
            // "file writes" is that share of all of them.
            for (part, d) in r.parts {
                timings.add_detail(part, d);
            }
            timings.add_detail(
                "file writes",
                std::time::Duration::from_nanos(write_nanos.into_inner()),
            );
            r.pages
        }
        Err(d) => {
            out.abandon();
            return Err(d);
        }
    };
    timings.time("swap", || out.commit())?;
    Ok(BuildReport {
        pages,
        files: files.into_inner(),
        timings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::ClauseView;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// The serde types that define `clauses.json`'s shape, serialised by serde_json: the oracle
    /// of the hand-written [`super::clauses_json`].
    fn clauses_json_serde(spec: &Spec) -> Vec<u8> {
        #[derive(Serialize)]
        struct Tr<'a> {
            text: Option<&'a str>,
            state: TranslationState,
        }
        #[derive(Serialize)]
        struct WithTr<'a> {
            #[serde(flatten)]
            clause: ClauseView<'a>,
            translations: Translations<'a>,
        }
        /// A clause's translations, by language.
        struct Translations<'a>(&'a [&'a Translation], usize, &'a Clause);
        impl Serialize for Translations<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|t| {
                    let (state, tc) = t.lookup(self.1, self.2);
                    let text = tc.map(|x| x.text.as_str());
                    (t.lang.as_str(), Tr { text, state })
                }))
            }
        }
        /// The clauses, each made as it is written: a list of them all was a large transient
        /// allocation of a big build.
        struct Clauses<'a>(&'a Spec, &'a [&'a Translation]);
        impl Serialize for Clauses<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.clauses.iter().enumerate().map(|(i, c)| WithTr {
                    clause: ClauseView::new(c),
                    translations: Translations(self.1, i, c),
                }))
            }
        }
        let mut by_lang: Vec<&Translation> = spec.translations.iter().collect();
        by_lang.sort_by(|a, b| a.lang.cmp(&b.lang));
        #[derive(Serialize)]
        struct Out<'a> {
            format: &'a str,
            contract: crate::list::ContractInfo<'a>,
            clauses: Clauses<'a>,
        }
        let out = Out {
            format: crate::list::CLAUSES_FORMAT,
            contract: crate::list::ContractInfo::of(spec),
            clauses: Clauses(spec, &by_lang),
        };
        let mut buf = Vec::new();
        if serde_json::to_writer_pretty(&mut buf, &out).is_err() {
            buf.clear();
        }
        buf.push(b'\n');
        buf
    }

    fn shipped() -> &'static Spec {
        static SPEC: OnceLock<Spec> = OnceLock::new();
        SPEC.get_or_init(|| {
            let loaded =
                crate::spec_source::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("spec"));
            assert!(!loaded.has_errors());
            loaded.spec
        })
    }

    #[test]
    fn clauses_json_is_what_serde_writes() {
        let spec = shipped();
        let ours = clauses_json(spec);
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(clauses_json_serde(spec)).unwrap()
        );
    }

    fn text() -> impl Strategy<Value = String> {
        "(a|<|\"|\\\\|\n|\t|\u{1}|\u{7f}|容|é| )*"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every optional member present or absent, lists empty or not, odd text, a translation
        /// missing: still serde's bytes.
        #[test]
        fn clauses_json_is_what_serde_writes_for_any_clause(
            text in text(),
            reason in proptest::option::of(text()),
            implicit in proptest::option::of(text()),
            oci in proptest::option::of(text()),
            tests in proptest::collection::vec(text(), 0..3),
            section in proptest::option::of((text(), text())),
            line in any::<usize>(),
            drop_translation in any::<bool>(),
        ) {
            let mut spec = shipped().clone();
            let c = &mut spec.clauses[0];
            c.text = text;
            c.reason = reason;
            c.implicit = implicit;
            c.oci = oci;
            c.upstream_tests = tests;
            c.section = section.map(|(title, anchor)| crate::spec::SectionRef { title, anchor });
            c.line = line;
            if drop_translation {
                for t in &mut spec.translations {
                    t.clauses[0] = None;
                }
            }
            prop_assert_eq!(
                String::from_utf8(clauses_json(&spec)).unwrap(),
                String::from_utf8(clauses_json_serde(&spec)).unwrap()
            );
        }
    }
}
