//! `kcontract.toml`: what a tested crate says once instead of on every command line — where the
//! contract is, which of its clauses the crate answers for, which of those do not apply to it and
//! why, and where its test source can be read on the web.
//!
//! ```toml
//! spec = "../knative-spec/spec"                  # relative to this file
//! select = "actor:platform,verify:conformance"   # the gate's selector grammar (crate::selector)
//! tests-link = "https://git.example/platform-tests/blob/main/"
//! tests = ["conformance/**/*_test.go"]           # instead of the Cargo layout (tests/, src/)
//! languages = { gotest = "go" }                  # an extension kcontract does not know
//!
//! [exempt]
//! "config.env.port" = "our platform never sets PORT: the developer does"
//! ```
//!
//! It is found beside the crate's `Cargo.toml`: in the folder of `--tests-root`/`--manifest-path`,
//! of `scaffold --crate --out DIR`, or else the working directory. A crate outside the spec's
//! repository is then as easy to work in as this one: `kcontract matrix` run in it needs no flag.
//! Unknown keys are errors (a misspelt `selcet` would silently widen the gate), and so are an
//! exemption without a reason or naming no clause: an exemption is a claim a reviewer must be able
//! to read.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::matrix::Scope;
use crate::selector::Selector;
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};

/// The file's name.
pub const FILE: &str = "kcontract.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    spec: Option<String>,
    select: Option<String>,
    tests_link: Option<String>,
    tests: Option<Vec<String>>,
    #[serde(default)]
    languages: BTreeMap<String, String>,
    #[serde(default)]
    exempt: BTreeMap<String, String>,
}

/// A crate's `kcontract.toml`, read.
#[derive(Clone, Debug)]
pub struct CrateConfig {
    /// The crate's folder (where the file is).
    pub dir: PathBuf,
    /// The file, for diagnostics.
    pub file: FileId,
    /// `spec`, joined to `dir`.
    pub spec: Option<PathBuf>,
    /// `spec` as written.
    pub spec_text: Option<String>,
    /// `select`, parsed.
    pub select: Option<Selector>,
    /// `tests-link`: the base URL the matrix links test files under.
    pub tests_link: Option<String>,
    /// `[exempt]`: clause id → reason.
    pub exempt: BTreeMap<String, String>,
    /// `tests` and `languages`: the crate's test files (globs relative to `dir`) instead of the
    /// Cargo layout, for a crate of Go, Python or other tests; `None` when neither key is given.
    pub tests: Option<kcontract_spec::TestGlobs>,
}

/// The byte range of the first line of `text` starting with `key` (after blanks), or the file's
/// start: where a diagnostic about that key points.
fn line_of(text: &str, key: &str) -> Range<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(key) {
            let start = at + (line.len() - t.len());
            return start..at + line.trim_end().len();
        }
        at += line.len();
    }
    0..0
}

/// `tests` and `languages` as the scan takes them: each glob valid and relative, each language
/// one kcontract reads (K0520 at its line). A misspelt language would leave the files read as
/// Rust and their tests silently unclaimed; an absolute glob would select nothing.
fn test_globs(
    raw: &Raw,
    text: &str,
    file: FileId,
) -> Result<Option<kcontract_spec::TestGlobs>, Diagnostic> {
    if raw.tests.is_none() && raw.languages.is_empty() {
        return Ok(None);
    }
    let mut globs = kcontract_spec::TestGlobs {
        include: vec!["tests/**/*.rs".into(), "src/**/*.rs".into()],
        exclude: Vec::new(),
        languages: BTreeMap::new(),
    };
    if let Some(tests) = &raw.tests {
        for g in tests {
            if let Some(why) = kcontract_spec::globs::wrong_glob(g) {
                return Err(Diagnostic::error("K0520", format!("`{g}` in `tests` is not a glob"))
                    .at(Span::new(file, line_of(text, "tests")), why)
                    .help("globs relative to this file's folder, `/`-separated: `*` within a folder, `**` across folders, e.g. `conformance/**/*_test.go`"));
            }
        }
        globs.include = tests.clone();
    }
    for (ext, word) in &raw.languages {
        let lang = word.parse::<kcontract_spec::TestLanguage>().ok();
        match lang {
            Some(lang) if !ext.is_empty() && !ext.contains(['.', '/', '*']) => {
                globs.languages.insert(ext.clone(), lang);
            }
            _ => {
                return Err(Diagnostic::error(
                    "K0520",
                    format!("`{ext} = \"{word}\"` in `languages` is not an extension and a language"),
                )
                .at(Span::new(file, line_of(text, "languages")), "here")
                .help("an extension without its dot and one of rust, go, python, javascript, c, java: `languages = { cu = \"c\" }`"));
            }
        }
    }
    Ok(Some(globs))
}

impl CrateConfig {
    /// Read `dir/kcontract.toml` if there is one. A file that cannot be read or used is an error
    /// diagnostic (its text is in `sources`).
    pub fn read(dir: &Path, sources: &mut SourceMap) -> Result<Option<Self>, Diagnostic> {
        let path = if dir == Path::new(".") {
            PathBuf::from(FILE)
        } else {
            dir.join(FILE)
        };
        let text = match kcontract_spec::fsutil::read_text(&path) {
            Ok(t) => kcontract_spec::fsutil::plain_text(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Diagnostic::error(
                    "K0520",
                    format!("cannot read `{}`: {e}", path.display()),
                )
                .in_file(&path)
                .help("check the file's permissions"));
            }
        };
        let file = sources.add(path.clone(), text.clone());
        let raw: Raw = toml::from_str(&text).map_err(|e| {
            let range = e.span().unwrap_or(0..0);
            Diagnostic::error("K0520", format!("`{}` cannot be used", path.display()))
                .at(Span::new(file, range), e.message().trim().to_string())
                .help("keys: spec, select, tests-link, tests, languages, and an [exempt] table of `\"clause.id\" = \"reason\"`")
        })?;
        let select = match &raw.select {
            None => None,
            Some(s) => Some(s.parse::<Selector>().map_err(|e| {
                Diagnostic::error("K0520", "`select` is not a selector")
                    .at(Span::new(file, line_of(&text, "select")), e.to_string())
                    .help("the grammar of `matrix --require`, e.g. `actor:platform,verify:conformance`")
            })?),
        };
        let tests = test_globs(&raw, &text, file)?;
        Ok(Some(CrateConfig {
            tests,
            spec: raw.spec.as_ref().map(|s| dir.join(s)),
            spec_text: raw.spec,
            dir: dir.to_path_buf(),
            file,
            select,
            tests_link: raw.tests_link,
            exempt: raw.exempt,
        }))
    }

    /// What the file says that the contract contradicts: a selection naming an actor or verify
    /// kind it lacks, or picking no clause; an exemption naming no clause, or without a reason.
    pub fn check(&self, spec: &Spec, sources: &SourceMap) -> Vec<Diagnostic> {
        let text = &sources.get(self.file).text;
        let mut out = Vec::new();
        if let Some(sel) = &self.select {
            let why = match sel.unknown_name(&spec.contract) {
                Some((term, known)) => {
                    Some(format!("`{term}` names nothing in this contract: {known}"))
                }
                None => sel.selects_nothing(spec),
            };
            if let Some(why) = why {
                out.push(
                    Diagnostic::error("K0520", format!("`select = \"{sel}\"` selects no clause"))
                        .at(Span::new(self.file, line_of(text, "select")), "here")
                        .help(format!(
                            "{why}; a crate that answers for nothing would pass every gate"
                        )),
                );
            }
        }
        for (id, reason) in &self.exempt {
            let quoted = format!("\"{id}\"");
            let range = text
                .find(&quoted)
                .map_or_else(|| line_of(text, id), |i| i..i + quoted.len());
            if spec.clause(id).is_none() {
                let near = kcontract_spec::suggest::closest(
                    id,
                    spec.by_id.keys().map(String::as_str),
                    |k| 3.max(k.len() / 6),
                );
                out.push(
                    Diagnostic::error("K0521", format!("`[exempt]` names no clause `{id}`"))
                        .at(Span::new(self.file, range), "not a clause of the contract")
                        .help(match near {
                            Some(n) => format!("did you mean `{n}`? (`kcontract list` shows every id)"),
                            None => "`kcontract list` shows every clause id; remove the line if the clause was removed".into(),
                        }),
                );
            } else if reason.split_whitespace().count() < 2 {
                out.push(
                    Diagnostic::error("K0521", format!("the exemption of `{id}` gives no reason"))
                        .at(Span::new(self.file, range), "a reason of a few words is needed")
                        .help("say why the clause does not apply to this crate; the matrix shows it beside the clause"),
                );
            }
        }
        out
    }

    /// The selection and exemptions, for the matrix.
    pub fn scope(&self) -> Scope {
        Scope {
            select: self.select.clone(),
            exempt: self.exempt.clone(),
        }
    }
}

/// A new `kcontract.toml` for `scaffold --crate`: the spec's path relative to the crate (`None`:
/// the contract built into kcontract, named in a comment only), the selection if one was given,
/// and the other keys explained in comments.
pub fn template(spec: Option<&str>, select: Option<&str>) -> String {
    let q = |s: &str| toml_string(s);
    let spec = match spec {
        Some(s) => format!("# The contract, relative to this file.\nspec = {}\n", q(s)),
        None => "# The contract: none named, so the one built into kcontract is used (every command says\n\
                 # so); name a spec folder, relative to this file, to use another.\n\
                 # spec = \"../knative-spec/spec\"\n"
            .to_string(),
    };
    let select = match select {
        Some(s) => format!("select = {}\n", q(s)),
        None => "# select = \"actor:platform,verify:conformance\"\n".into(),
    };
    format!(
        "# kcontract's settings for this crate, read by every kcontract command run here (or given\n\
         # this crate with --tests-root/--manifest-path), so they need not be repeated.\n\
         \n\
         {spec}\
         \n\
         # The clauses this crate answers for (the selector grammar of `matrix --require`: terms joined\n\
         # by `,` all hold, alternatives joined by `|`, `!` negates, `id:` takes a glob). `scaffold`\n\
         # writes stubs only for them; `matrix` shows and gates only them.\n\
         {select}\
         \n\
         # The base URL of this crate's source on the web: the matrix links each test's file:line there.\n\
         # tests-link = \"https://git.example/platform-tests/blob/main/\"\n\
         \n\
         # Clauses that do not apply to this crate, each with its reason: shown as `exempt`, never as\n\
         # covered; their untouched stubs are removed.\n\
         [exempt]\n"
    )
}

/// `s` as a TOML basic string.
pub(crate) fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` (a `kcontract.toml`) with its `select` line set to `select`: the line replaced when
/// there is one, or added after `spec`'s (else at the top). Every other byte is kept: the file is
/// the crate's.
pub fn set_select(text: &str, select: &str) -> String {
    let line = format!("select = {}", toml_string(select));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Only top-level keys: stop at the first table header.
    let top = lines
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .unwrap_or(lines.len());
    let is_key = |l: &str, k: &str| {
        let t = l.trim_start();
        t.strip_prefix(k)
            .is_some_and(|r| r.trim_start().starts_with('='))
    };
    if let Some(i) = lines[..top].iter().position(|l| is_key(l, "select")) {
        lines[i] = line;
    } else if let Some(i) = lines[..top].iter().position(|l| is_key(l, "spec")) {
        lines.insert(i + 1, line);
    } else {
        lines.insert(0, line);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_reads_back() {
        let t = template(Some("../spec"), Some("actor:platform"));
        let raw: Raw = toml::from_str(&t).unwrap();
        assert_eq!(raw.spec.as_deref(), Some("../spec"));
        assert_eq!(raw.select.as_deref(), Some("actor:platform"));
        assert!(raw.exempt.is_empty());
        let t = template(Some("a \"b\""), None);
        let raw: Raw = toml::from_str(&t).unwrap();
        assert_eq!(raw.spec.as_deref(), Some("a \"b\""));
        assert_eq!(raw.select, None);
        let raw: Raw = toml::from_str(&template(None, None)).unwrap();
        assert_eq!(raw.spec, None, "the built-in contract: no folder named");
    }

    #[test]
    fn select_is_set_in_place() {
        let t = template(Some("../spec"), None);
        let with = set_select(&t, "MUST");
        let raw: Raw = toml::from_str(&with).unwrap();
        assert_eq!(raw.select.as_deref(), Some("MUST"));
        let again = set_select(&with, "MAY|id:a.*");
        let raw: Raw = toml::from_str(&again).unwrap();
        assert_eq!(raw.select.as_deref(), Some("MAY|id:a.*"));
        assert_eq!(again.lines().count(), with.lines().count());
        let kept = "spec = \"s\" # mine\n\n[exempt]\n\"a.b\" = \"select = no\"\n";
        let out = set_select(kept, "MUST");
        assert_eq!(
            out,
            "spec = \"s\" # mine\nselect = \"MUST\"\n\n[exempt]\n\"a.b\" = \"select = no\"\n"
        );
    }
}
