//! kcontract-site: the multilingual static site of a contract (`kcontract build`, `kcontract
//! serve`), rendered from the traceability matrix, the runtimes catalogue and the history.
//!
//! What the crate offers:
//! - **Templates**: [`templates`] parses the embedded templates, interface text and assets, each
//!   replaceable from a `--templates` folder ([`templates_folder`] finds the default one), into
//!   [`Templates`]; [`built_in`] and [`interface_template`] tell which languages have interface
//!   text and give a new one its file to translate (`kcontract init`, `i18n add`).
//! - **Rendering**: [`render`] makes every file of the site in memory (pure: `serve`, tests,
//!   fuzzing); [`build`] writes it into an output folder atomically and returns a [`BuildReport`].
//! - **The output folder**: [`check_output`] says whether `build` may replace a folder (only an
//!   empty one or a site kcontract built, never the spec folder), [`restore_output`] puts back a
//!   site a stopped build left moved aside ([`Restored`]), [`manifest_files`] reads a site's
//!   manifest.
//! - [`serve`]: the HTTP side of `kcontract serve`, a site held in memory and the open pages told
//!   when it changes.
//!
//! How a build goes, one way: the matrix (spec, tests, statuses), the runtimes catalogue and the
//! history ([`History`]: what changed from each earlier version to the next) → contexts
//! (`context.rs`, `runtimes_page.rs`, `changes_page.rs`, `platforms_page.rs`) → the templates
//! (interface text from `interface.rs`; the site's own pages declared once in `pages.rs`) → files
//! (`render.rs`, data files from `files.rs` and `search.rs`) → the output folder (`output.rs`),
//! written beside the old one and swapped in at the end, so a failed build leaves the previous
//! site untouched. Every path written is built from fixed names and validated chapter and
//! language names, never from clause text.
//!
//! Nothing here prints or exits: diagnostics and notes are returned, and the binary renders them.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a file that cannot be read, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

mod changes_page;
mod context;
mod files;
mod interface;
mod legend;
mod markdown;
mod output;
mod pages;
mod platforms_page;
mod render;
mod runtimes_page;
mod sanitize;
mod search;
mod sentences;
pub mod serve;
mod templates;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use kcontract_oci::runtimes::Catalogue;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_trace::matrix::Matrix;

use output::OutputDir;
pub use output::{Restored, SwapStep, check_output, manifest_files, restore_output};

pub use kcontract_edit::diff::history::History;

pub use templates::{Templates, platform_reports, templates, templates_folder};

/// What a build wrote.
pub struct BuildReport {
    /// HTML pages written.
    pub pages: usize,
    /// All files written (pages, JSON, CSV, scripts, styles).
    pub files: usize,
    /// The steps of the build and the parts of rendering, for `--timings`.
    pub timings: kcontract_spec::timings::Timings,
    /// The output folder's site was put back from where a stopped build had moved it, before
    /// this build replaced it (the binary shows a note).
    pub restored: Option<Restored>,
}

/// Render every page into memory: (relative path, bytes), sorted. Pure: no I/O (`serve`, tests,
/// fuzzing). `history` makes the Changes page (none when it is empty: `History::default()`).
pub fn render(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    history: &History,
    tpl: &Templates,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let mut files = in_memory(|put| {
        render::render_site(m, runtimes, history, tpl, put, &mut Default::default()).map(|_| ())
    })?;
    files.sort();
    Ok(files)
}

/// What `write` gives its `put` (relative path, bytes), kept in memory: [`render`] and [`images`]
/// without a folder.
fn in_memory(
    write: impl FnOnce(&render::Put) -> Result<(), Diagnostic>,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let files = Mutex::new(Vec::new());
    let put = |rel, bytes| {
        files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((rel, bytes));
        Ok(())
    };
    write(&put)?;
    Ok(files.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The spec's images as the site publishes them (`images/NAME`, read as every spec file is):
/// what `serve` adds to [`render`]'s pages, so a chapter's image shows there as in `build`.
pub fn images(spec: &Path) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    in_memory(|put| files::publish_images(spec, put))
}

/// Where a build writes: the output folder, and what it must stay clear of.
pub struct Output<'a> {
    /// The folder the site goes into: empty, absent or a site kcontract built.
    pub out: &'a Path,
    /// The spec folder: `out` must not be it, inside it or hold it ([`check_output`]).
    pub spec: &'a Path,
    /// Told each step of the final swap as it is reached ([`SwapStep`]); the binary uses it to
    /// stop the process there under test, the library never stops anything.
    pub at: &'a dyn Fn(SwapStep),
}

/// Render with `tpl` ([`templates`]) and write the site atomically into `output.out` (a failed
/// build leaves it as it was): the output folder prepared beside the old one, every file rendered
/// into it, then swapped in.
pub fn build(
    m: &Matrix,
    runtimes: Option<&Catalogue>,
    history: &History,
    tpl: &Templates,
    output: &Output<'_>,
) -> Result<BuildReport, Diagnostic> {
    let mut timings = kcontract_spec::timings::Timings::default();
    let mut out = timings.time("prepare", || OutputDir::prepare(output.out, output.spec))?;
    let restored = out.restored.take();
    let files = AtomicUsize::new(0);
    let put = |rel: String, bytes: Vec<u8>| {
        files.fetch_add(1, Ordering::Relaxed);
        out.write(&rel, &bytes)
    };
    let mut steps = kcontract_spec::timings::Timings::default();
    let rendered = timings.time("render+write", || {
        render::render_site(m, runtimes, history, tpl, &put, &mut steps)
            .and_then(|pages| files::publish_images(output.spec, &put).map(|()| pages))
    });
    timings.extend(&steps);
    let pages = match rendered {
        Ok(pages) => pages,
        Err(d) => {
            out.abandon();
            return Err(d);
        }
    };
    timings.time("swap", || out.commit(output.at))?;
    Ok(BuildReport {
        pages,
        files: files.into_inner(),
        timings,
        restored,
    })
}

pub use interface::built_in;

/// Each fragment clause of `spec` (a text with `…`) whose whole upstream sentence the site shows,
/// and that sentence as Markdown: `(id, sentence)`, in the order of the clauses. For the test that
/// holds every such sentence to the upstream text (`tests/suite/site_sentences.rs`).
pub fn upstream_sentences(spec: &kcontract_spec::Spec) -> Vec<(String, String)> {
    sentences::sentences(spec)
        .into_iter()
        .map(|(i, s)| (spec.clauses[i].id.clone(), sentences::plain(&s)))
        .collect()
}

/// The interface text file a language without built-in text starts from (for `kcontract init`
/// and `i18n add`): the English file's keys and values, with a header saying it is `lang`'s, copied
/// from English and to be translated, and a `name` (what the language switch shows) that is the tag
/// until the person sets the language's own name. The English header would claim the file is
/// English, and its pages would then show English words with nothing pointing at the fix.
pub fn interface_template(lang: &str) -> String {
    let english = include_str!("../../../templates/i18n/en.yaml");
    let mut out = format!(
        "# Interface text of the site in `{lang}`: the page chrome, badges and labels (the `t` of the\n\
         # templates). kcontract COPIED IT FROM ENGLISH: translate every value below into `{lang}` (the\n\
         # keys stay as they are), and set `name` to the language's own name (e.g. \"Deutsch\", \"Français\").\n\
         # Until then the `{lang}` pages show these English words, and the language switch shows \"{lang}\".\n"
    );
    // en.yaml's first line says the file is English: left out; the rest is kept.
    for line in english.lines().skip(1) {
        let line = if line.starts_with("name:") {
            format!(
                "name: \"{lang}\"     # TO TRANSLATE: `{lang}`'s own name, shown in the language switch"
            )
        } else if line.starts_with("html_lang:") {
            format!("html_lang: \"{lang}\"     # the HTML `lang` of its pages")
        } else {
            line.to_string()
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}
