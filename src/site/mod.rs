//! `kcontract build`: the multilingual static site.
//!
//! A one-way pipeline: the matrix (spec, tests, statuses) and the runtimes catalogue → contexts
//! (`context.rs`, `runtimes_page.rs`) → the templates ([`templates`](fn@templates), interface text
//! from `interface.rs`) → files (`render.rs`, data files from `files.rs` and `search.rs`) → the
//! output folder (`output.rs`), written beside the old one and swapped in at the end, so a failed build
//! leaves the previous site untouched. Every path written is built from fixed names and validated
//! chapter and language names, never from clause text.

mod compiled;
mod context;
mod files;
mod interface;
mod markdown;
mod output;
mod render;
mod runtimes_page;
mod search;
mod templates;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::diagnostic::Diagnostic;
use crate::matrix::Matrix;
use crate::runtimes::Catalogue;

use output::OutputDir;

pub use markdown::{level_class, to_html, to_inline_html};
pub use render::Rendered;
pub use templates::{TEMPLATES, Templates, templates};

/// What a build wrote.
pub struct BuildReport {
    /// HTML pages written.
    pub pages: usize,
    /// All files written (pages, JSON, CSV, scripts, styles).
    pub files: usize,
    /// The steps of the build and the parts of rendering, for `--timings`.
    pub timings: crate::timings::Timings,
}

/// Render every page into memory: (relative path, bytes), sorted. Pure: no I/O (tests, fuzzing).
pub fn render(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    render_some(m, runtimes, tpl, None)
}

/// [`render`], or with `chapters` only those chapters' pages in every language, each byte for
/// byte the full render's: what `serve` shows first after a chapter file was edited.
pub fn render_chapters(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    chapters: &BTreeSet<String>,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    render_some(m, runtimes, tpl, Some(chapters))
}

fn render_some(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    only: Option<&BTreeSet<String>>,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let files = Mutex::new(Vec::new());
    render::render_into(m, runtimes, tpl, only, &|rel, bytes| {
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

/// Render with `tpl` ([`templates`]) and write the site atomically into the folder `out` (a failed
/// build leaves it as it was).
pub fn build(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    tpl: &Templates,
    out: &Path,
) -> Result<BuildReport, Diagnostic> {
    let mut timings = crate::timings::Timings::default();
    let out = timings.time("prepare", || OutputDir::prepare(out))?;
    let files = AtomicUsize::new(0);
    let write_nanos = AtomicU64::new(0);
    let rendered = timings.time("render+write", || {
        render::render_into(m, runtimes, tpl, None, &|rel, bytes| {
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

/// The English interface text file made the start of `lang`'s (for `kcontract init`): its values
/// are to be translated.
pub(crate) fn interface_template(lang: &str) -> String {
    include_str!("../../templates/i18n/en.yaml")
        .replacen("name: \"English\"", &format!("name: \"{lang}\""), 1)
        .replacen("html_lang: \"en\"", &format!("html_lang: \"{lang}\""), 1)
}

/// `f` with the shipped spec's matrix (no tests), its runtimes catalogue and the embedded
/// templates: what the render tests start from.
#[cfg(test)]
pub(super) fn with_shipped<R>(f: impl FnOnce(&Matrix, Option<&Catalogue>, &Templates) -> R) -> R {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec");
    let loaded = crate::spec_source::load(&dir);
    assert!(!loaded.has_errors());
    let m = crate::matrix::compute(&loaded.spec, &[], None);
    let rt = crate::runtimes::load(&dir);
    f(&m, rt.catalogue.as_ref(), &templates(None).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under `serve` (every page includes `serve/reload.html`) the compiled templates render what
    /// tera renders from the same files, as in a build (tests/compiled_templates.rs): the built-in
    /// templates compiled, against every one of them given as an override.
    #[test]
    fn served_pages_compiled_are_what_tera_renders() {
        with_shipped(|m, rt, _| {
            let mut compiled = templates(None).unwrap();
            let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
            let mut interpreted = templates(Some(&all)).unwrap();
            assert!(compiled.compiled("chapter.html") && compiled.compiled("clause.html"));
            assert!(!interpreted.compiled("chapter.html") && !interpreted.compiled("clause.html"));
            compiled.serving();
            interpreted.serving();
            let a = render(m, rt, &compiled).unwrap();
            let b = render(m, rt, &interpreted).unwrap();
            assert!(a.len() > 20, "{} files", a.len());
            assert_eq!(a.len(), b.len());
            for ((rel, x), (rel_b, y)) in a.iter().zip(&b) {
                assert_eq!(rel, rel_b);
                assert!(x == y, "{rel} differs");
            }
            let page = String::from_utf8_lossy(&a[0].1).into_owned();
            let chapter = a
                .iter()
                .find(|(rel, _)| rel.ends_with(&format!("/{}.html", m.spec.contract.chapters[0])))
                .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
                .unwrap_or(page);
            assert!(
                chapter.contains("kc-serve-overlay"),
                "no live reload in {chapter:.200}"
            );
        })
    }

    /// `serve`'s first pass: the pages of the edited chapters alone, each byte for byte what the
    /// full render makes of it, and nothing else.
    #[test]
    fn a_chapter_render_is_the_full_renders_pages_of_that_chapter() {
        with_shipped(|m, rt, tpl| {
            let full: std::collections::BTreeMap<String, Vec<u8>> =
                render(m, rt, tpl).unwrap().into_iter().collect();
            for chapter in &m.spec.contract.chapters {
                let only = BTreeSet::from([chapter.clone()]);
                let pages = render_chapters(m, rt, tpl, &only).unwrap();
                let names: Vec<&str> = pages.iter().map(|(rel, _)| rel.as_str()).collect();
                let want: Vec<String> = m
                    .spec
                    .contract
                    .languages
                    .iter()
                    .map(|l| format!("{l}/{chapter}.html"))
                    .collect();
                assert_eq!(names, want);
                for (rel, bytes) in &pages {
                    assert!(full[rel] == *bytes, "{rel} differs from the full render");
                }
            }
        })
    }
}
