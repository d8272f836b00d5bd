//! The site's data files: `clauses.json` (the clause list JSON of `kcontract list --format json`,
//! plus each clause's translations), through the serde types of [`kcontract_spec::list`].

use serde::Serialize;

use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::list::{CLAUSES_FORMAT, ClauseView, ContractInfo};
use kcontract_spec::{Clause, Spec, Translation, TranslationState};

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

/// A clause's translations, by language (sorted by language).
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

/// The clauses, each made as it is written (no list of them all).
struct Clauses<'a>(&'a Spec, &'a [&'a Translation]);

impl Serialize for Clauses<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clauses.iter().enumerate().map(|(i, c)| WithTr {
            clause: ClauseView::new(c).published(c),
            translations: Translations(self.1, i, c),
        }))
    }
}

#[derive(Serialize)]
struct ClausesFile<'a> {
    format: &'a str,
    contract: ContractInfo<'a>,
    clauses: Clauses<'a>,
}

/// `site/clauses.json`: the `list --format json` shape with each clause's `translations:
/// {lang: {text, state}}`, pretty-printed.
pub(super) fn clauses_json(spec: &Spec) -> Result<Vec<u8>, Diagnostic> {
    let mut by_lang: Vec<&Translation> = spec.translations.iter().collect();
    by_lang.sort_by(|a, b| a.lang.cmp(&b.lang));
    let file = ClausesFile {
        format: CLAUSES_FORMAT,
        contract: ContractInfo::of(spec),
        clauses: Clauses(spec, &by_lang),
    };
    let mut buf = Vec::new();
    serde_json::to_writer_pretty(&mut buf, &file).map_err(|e| json_error("clauses.json", &e))?;
    buf.push(b'\n');
    Ok(buf)
}

/// Serialising our own types failed (it cannot with these types; reported, never swallowed).
pub(super) fn json_error(what: &str, e: &serde_json::Error) -> Diagnostic {
    Diagnostic::error("K0401", format!("{what} could not be written as JSON"))
        .help(format!("{e}; this is a bug in kcontract, please report it"))
}

/// A file a build was given (a run report, a results file) as the site names it: as given when
/// relative (the same from any checkout: `platforms/results/runc.json`), its name alone when
/// absolute. Why: the builder's absolute path says nothing to a reader, names the builder's
/// machine, and made two checkouts' sites differ.
pub(super) fn shown_path(file: &str) -> String {
    let b = file.as_bytes();
    let drive =
        b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\');
    if std::path::Path::new(file).is_absolute() || file.starts_with(['/', '\\']) || drive {
        file.rsplit(['/', '\\']).next().unwrap_or(file).to_string()
    } else {
        file.replace('\\', "/")
    }
}

/// `matrix.json` of the site: [`kcontract_trace::matrix::json`] with each file it names (the
/// results and the run reports) as [`shown_path`] gives it.
pub(super) fn matrix_json(m: &kcontract_trace::matrix::Matrix) -> Result<Vec<u8>, Diagnostic> {
    let mut json = kcontract_trace::matrix::json(m).map_err(|e| json_error("matrix.json", &e))?;
    let files = m.results.iter().chain(m.platforms.iter().map(|p| &p.file));
    for file in files {
        let shown = shown_path(file);
        if shown != *file {
            // A JSON string literal of the path is the path as the JSON names it: replaced whole.
            let (Ok(from), Ok(to)) = (serde_json::to_string(file), serde_json::to_string(&shown))
            else {
                continue;
            };
            json = json.replace(&from, &to);
        }
    }
    Ok(json.into_bytes())
}

/// The spec's images (`images/` beside contract.yaml, [`kcontract_spec::spec_images`]) given to
/// `put` as `images/NAME`, where a chapter page's `../images/NAME` lands. Each is read as every
/// spec file is: a regular file inside the spec folder (a link leading out is refused, K0004).
pub(super) fn publish_images(
    spec: &std::path::Path,
    put: &dyn Fn(String, Vec<u8>) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    use kcontract_spec::{IMAGES_FOLDER, fsutil};
    for name in kcontract_spec::spec_images(spec) {
        let path = spec.join(IMAGES_FOLDER).join(&name);
        let bytes = fsutil::read_inside(spec, &path, fsutil::MAX_INPUT)
            .map_err(|e| kcontract_spec::io_error(&path, &e))?;
        put(format!("{IMAGES_FOLDER}/{name}"), bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::shown_path;

    #[test]
    fn absolute_paths_are_shown_by_name() {
        assert_eq!(shown_path("/home/me/r/runc.json"), "runc.json");
        assert_eq!(shown_path("C:\\Users\\me\\crun.json"), "crun.json");
        assert_eq!(
            shown_path("platforms/results/runc.json"),
            "platforms/results/runc.json"
        );
        assert_eq!(shown_path("../r/runc.json"), "../r/runc.json");
    }
}
