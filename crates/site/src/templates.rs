//! The templates and interface text a build renders with: embedded in the binary, each replaceable
//! by a file of the same name in `--templates DIR` (interface text: `DIR/i18n/<lang>.yaml`).
//!
//! Every byte of HTML the site has comes from these templates (the Markdown of the spec aside), all
//! rendered by tera; the per-clause pieces (`clause.html`, `clause-row.html`, `matrix-row.html`) are
//! rendered or included for every clause, so overriding one of them changes every clause.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tera::Tera;
use walkdir::WalkDir;

use super::interface::Interfaces;
use super::pages::OwnPage;
use Embedded::{Page, Piece};
use kcontract_spec::diagnostic::Diagnostic;

/// A template kcontract embeds: a page of the site's own (its name and source are the page's,
/// [`OwnPage::template`]) or a piece the pages share or include.
enum Embedded {
    Page(OwnPage),
    Piece(&'static str, &'static str),
}

/// The embedded templates, in the order messages list them (K0402, K0406). Each page of
/// [`OwnPage`] is here once (a test holds it so).
const EMBEDDED: [Embedded; 18] = [
    Piece("base.html", include_str!("../../../templates/base.html")),
    Piece(
        "legend.html",
        include_str!("../../../templates/legend.html"),
    ),
    Piece("toc.html", include_str!("../../../templates/toc.html")),
    Piece(
        "toc-item.html",
        include_str!("../../../templates/toc-item.html"),
    ),
    Piece(
        "toc-sections.html",
        include_str!("../../../templates/toc-sections.html"),
    ),
    Piece(
        "chapter.html",
        include_str!("../../../templates/chapter.html"),
    ),
    Page(OwnPage::Print),
    Piece(
        "clause.html",
        include_str!("../../../templates/clause.html"),
    ),
    Page(OwnPage::Index),
    Page(OwnPage::Clauses),
    Piece(
        "clause-row.html",
        include_str!("../../../templates/clause-row.html"),
    ),
    Page(OwnPage::Matrix),
    Piece(
        "matrix-row.html",
        include_str!("../../../templates/matrix-row.html"),
    ),
    Page(OwnPage::Runtimes),
    Page(OwnPage::Changes),
    Page(OwnPage::Platforms),
    Piece(
        "redirect.html",
        include_str!("../../../templates/redirect.html"),
    ),
    Piece(
        "serve/reload.html",
        include_str!("../../../templates/serve/reload.html"),
    ),
];

/// The embedded templates: (name, source), in the order messages list them.
pub(crate) fn embedded() -> impl Iterator<Item = (&'static str, &'static str)> {
    EMBEDDED.iter().map(|e| match e {
        Page(page) => page.template(),
        Piece(name, source) => (*name, *source),
    })
}

/// Files copied into `assets/` as they are, each replaceable by `DIR/assets/<name>`.
const ASSETS: [(&str, &str); 2] = [
    (
        "style.css",
        include_str!("../../../templates/assets/style.css"),
    ),
    ("site.js", include_str!("../../../templates/assets/site.js")),
];

/// The parsed templates and the interface text of every known language.
pub struct Templates {
    pub(super) tera: Tera,
    pub(super) interfaces: Interfaces,
    /// Rendering for `kcontract serve` (see [`Templates::serving`]).
    pub(super) serve: bool,
    /// The files of `assets/` (path inside it → bytes): the built-in style and script, each
    /// replaced by a file of the same name in `DIR/assets/`, and every other file there (what a
    /// replaced style uses: images, fonts).
    pub(super) assets: BTreeMap<String, Vec<u8>>,
    /// Files in `--templates DIR` that no build reads (K0406): a misspelt template name would
    /// otherwise change nothing, silently; and the interface text shown in English (K0404, see
    /// [`Templates::for_languages`]).
    pub warnings: Vec<Diagnostic>,
}

impl Templates {
    /// Ready for a contract in `languages`: each has every interface key, English standing in
    /// for what its file lacks, with a warning in [`Templates::warnings`].
    pub fn for_languages(&mut self, languages: &[String]) {
        let fallbacks = self.interfaces.complete(languages);
        self.warnings.extend(fallbacks);
    }
}

/// The templates folder a command uses: `given` (`--templates DIR`), else `templates/` beside the
/// spec folder when it holds interface text (`i18n/`), as `kcontract init` writes it for a language
/// that has none built in. Why: a new language's labels are then found by every `build`, `check`
/// and `serve` without a flag, and `init` then `build` works with no other step. The `i18n/`
/// condition keeps an unrelated `templates/` folder of the project out.
pub fn templates_folder(given: Option<&Path>, spec: &Path) -> Option<std::path::PathBuf> {
    if let Some(dir) = given {
        return Some(dir.to_path_buf());
    }
    let dir = spec.parent().unwrap_or(Path::new("")).join("templates");
    dir.join("i18n").is_dir().then_some(dir)
}

/// The run reports `build` shows when it is given none (`--platform`): every `*.json` in
/// `platforms/results/` beside the spec folder, by file name. Why a folder beside the spec, as
/// `templates/` is: the committed site of a contract shows the platform results committed with
/// it, and a plain `kcontract build` (the one every checkout and the merge run) makes the same site
/// as the one committed; a folder that is not there is no report.
pub fn platform_reports(spec: &Path) -> Vec<PathBuf> {
    let dir = spec
        .parent()
        .unwrap_or(Path::new(""))
        .join("platforms")
        .join("results");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.is_dir())
        .collect();
    out.sort();
    out
}

/// Parse the templates once: embedded, then the overrides in `dir`.
pub fn templates(dir: Option<&Path>) -> Result<Templates, Diagnostic> {
    let mut sources: Vec<(&str, String)> = embedded().map(|(n, s)| (n, s.to_string())).collect();
    if let Some(dir) = dir {
        if !dir.is_dir() {
            let names: Vec<&str> = embedded().map(|(n, _)| n).collect();
            return Err(Diagnostic::error(
                "K0402",
                format!("the templates folder `{}` does not exist", dir.display()),
            )
            .help(format!(
                "pass a folder holding any of {} (or i18n/<lang>.yaml) to override",
                names.join(", ")
            )));
        }
        for (name, src) in &mut sources {
            let p = dir.join(*name);
            if p.exists() {
                *src = kcontract_spec::fsutil::read_text_inside(dir, &p)
                    .map(kcontract_spec::fsutil::plain_text)
                    .map_err(|e| kcontract_spec::io_error(&p, &e))?;
            }
        }
    }
    let mut tera = Tera::default();
    tera.add_raw_templates(sources.iter().map(|(n, s)| (*n, s.as_str())))
        .map_err(|e| template_error(&e))?;
    // The folder is walked once: its `assets/` are published, and what no build reads is named.
    let files = dir.map(files_under).transpose()?.unwrap_or_default();
    Ok(Templates {
        tera,
        interfaces: Interfaces::load(dir)?,
        serve: false,
        assets: assets(dir, &files)?,
        warnings: unused_files(&files),
    })
}

/// The files under `dir` (by path inside it, `/`-separated, sorted), hidden ones (a name starting
/// with `.`, such as `.gitkeep`) and folders left out.
fn files_under(dir: &Path) -> Result<Vec<(String, PathBuf)>, Diagnostic> {
    let mut out = Vec::new();
    let walk = WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walk {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_path_buf();
            kcontract_spec::io_error(&path, &e.into())
        })?;
        // `is_file` follows a symbolic link, as reading the file does.
        if !entry.path().is_file() {
            continue;
        }
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let parts: Option<Vec<&str>> = rel.iter().map(|c| c.to_str()).collect();
        let Some(parts) = parts else {
            return Err(Diagnostic::error(
                "K0407",
                format!("the file name `{}` is not UTF-8", rel.display()),
            )
            .in_file(entry.path())
            .help("rename it: a file of the templates folder is named in the site's links"));
        };
        out.push((parts.join("/"), entry.path().to_path_buf()));
    }
    Ok(out)
}

/// The files of `assets/` (see [`Templates::assets`]) from the folder's `files`.
fn assets(
    dir: Option<&Path>,
    files: &[(String, PathBuf)],
) -> Result<BTreeMap<String, Vec<u8>>, Diagnostic> {
    let mut out: BTreeMap<String, Vec<u8>> = ASSETS
        .iter()
        .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
        .collect();
    for (rel, path) in files {
        let Some(name) = rel.strip_prefix("assets/") else {
            continue;
        };
        // The search indexes are written into `assets/` by the build; a file of that name would
        // replace one language's index, or be replaced by it.
        if name.starts_with("search-") && name.ends_with(".js") {
            return Err(Diagnostic::error(
                "K0407",
                format!("`assets/{name}` is the name of a generated search index"),
            )
            .in_file(path)
            .help("rename the file: `assets/search-<lang>.js` is written by the build"));
        }
        // Inside the templates folder only: `assets/leak.txt -> /proc/self/environ` would
        // publish the build's environment.
        let root = dir.unwrap_or(Path::new("."));
        let bytes =
            kcontract_spec::fsutil::read_inside(root, path, kcontract_spec::fsutil::MAX_INPUT)
                .map_err(|e| kcontract_spec::io_error(path, &e))?;
        out.insert(name.to_string(), bytes);
    }
    Ok(out)
}

/// A warning (K0406) for each of the folder's `files` that no build reads: not a template name,
/// not `i18n/<lang>.yaml`, not under `assets/`.
fn unused_files(files: &[(String, PathBuf)]) -> Vec<Diagnostic> {
    let names: Vec<&str> = embedded().map(|(n, _)| n).collect();
    let used = |rel: &str| {
        names.contains(&rel)
            || rel.starts_with("assets/")
            || rel
                .strip_prefix("i18n/")
                .is_some_and(|f| f.ends_with(".yaml") && !f.contains('/'))
    };
    let what = format!(
        "templates are {}; interface text is `i18n/<lang>.yaml`; the style, the script and the files they use go in `assets/`",
        names.join(", ")
    );
    files
        .iter()
        .filter(|(rel, _)| !used(rel))
        .map(|(rel, path)| {
            let help = match kcontract_spec::suggest::closest(rel, names.iter().copied(), |_| 3) {
                Some(n) => format!("did you mean `{n}`? The {what}"),
                None => format!("the {what}"),
            };
            Diagnostic::warning(
                "K0406",
                format!("`{rel}` in the templates folder is not read by any build; it is ignored"),
            )
            .in_file(path)
            .help(help)
        })
        .collect()
}

impl Templates {
    /// Render every page for `kcontract serve`: sets `serve` for all templates, so `base.html`
    /// includes `serve/reload.html` (live reload, the build-error overlay). A plain build never
    /// sets it.
    pub fn serving(&mut self) {
        self.serve = true;
    }
}

/// A template that does not parse or fails to render: tera's message with its causes.
pub(super) fn template_error(e: &tera::Error) -> Diagnostic {
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
