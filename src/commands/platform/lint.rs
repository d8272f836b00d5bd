//! `kcontract platform lint`: every file's documents checked, the findings printed as diagnostics
//! (or as JSON on stdout). Exit 1 when a finding is a MUST or MUST NOT clause's or a file cannot be
//! read as a Knative manifest, else 0 (warnings for SHOULD and SHOULD NOT clauses).

use std::path::PathBuf;

use super::shared::{fail, load_contract, report_missing};
use crate::terminal::{Ctx, Failure, Outcome, plural, print};
use kcontract_platform::lint::Finding;
use kcontract_spec::diagnostic::{Diagnostic, SourceMap};

#[derive(clap::Args, Debug)]
pub(crate) struct LintArgs {
    /// The manifests (YAML, several documents separated by `---` allowed).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// `human`: rustc-style diagnostics on stderr; `json`: the findings on stdout (a `--spec`
    /// that will not load or is not the contract: its error on stderr, nothing on stdout).
    #[arg(long, value_enum, default_value = "human")]
    format: LintFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LintFormat {
    Human,
    Json,
}

/// One diagnostic of `platform lint --format json`.
#[derive(serde::Serialize)]
struct LintEntry {
    /// `K1122` for a finding, `K1121` for a file the lint could not read.
    code: &'static str,
    /// `error` or `warning`.
    severity: &'static str,
    file: String,
    /// 1-based; `null` when the problem has no place in the file (it cannot be read).
    line: Option<usize>,
    column: Option<usize>,
    message: String,
    /// The check and its clause (`null` for a file the lint could not read).
    check: Option<&'static str>,
    clause: Option<&'static str>,
    level: Option<String>,
}

/// `platform lint --format json`: every diagnostic, then the counts.
#[derive(serde::Serialize)]
struct LintOutput {
    format: &'static str,
    diagnostics: Vec<LintEntry>,
    errors: usize,
    warnings: usize,
}

impl LintArgs {
    /// Runs the command: the contract, every file's findings, printed in the format asked for.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        let (loaded, source) = load_contract(ctx)?;
        let spec = &loaded.spec;
        report_missing(ctx, spec, &source, &kcontract_platform::lint::table())?;
        let mut sources = SourceMap::default();
        let mut findings = Vec::new();
        let mut linted = 0;
        for path in &self.files {
            match kcontract_platform::yaml::read(path, &mut sources, "K1121") {
                Ok(id) => {
                    let (found, objects) = kcontract_platform::lint::lint(spec, id, &sources);
                    findings.extend(found);
                    linted += objects;
                }
                Err(d) => findings.push(input(d)),
            }
        }
        // Objects of other kinds are skipped with a warning; a lint that checked no object at all
        // would pass whatever the manifests say.
        if linted == 0 && !findings.iter().any(|f| f.diagnostic.is_error()) {
            findings.push(input(
                Diagnostic::error(
                    "K1121",
                    format!(
                        "no Knative Service, Configuration or Revision in the {} file{} given: nothing was linted",
                        self.files.len(),
                        plural(self.files.len())
                    ),
                )
                .help("give the manifests of the Knative Services (`apiVersion: serving.knative.dev/v1`, `kind: Service`)"),
            ));
        }
        match self.format {
            LintFormat::Json => print_json(ctx, &findings, &sources),
            LintFormat::Human => print_human(ctx, self.files.len(), findings, &sources),
        }
    }
}

/// The findings as JSON on stdout; exit 1 with an error among them.
fn print_json(ctx: &Ctx, findings: &[Finding], sources: &SourceMap) -> Outcome {
    let errors = findings.iter().filter(|f| f.diagnostic.is_error()).count();
    let out = LintOutput {
        format: "kcontract-lint/1",
        diagnostics: findings.iter().map(|f| entry(f, sources)).collect(),
        errors,
        warnings: findings.len() - errors,
    };
    let text = serde_json::to_string_pretty(&out).map_err(|e| {
        fail(
            ctx,
            Diagnostic::error("K0006", format!("cannot write the findings: {e}")),
        )
    })? + "\n";
    print(&text)?;
    if errors > 0 {
        Err(Failure::Input)
    } else {
        Ok(())
    }
}

/// One finding as JSON: where it is (the file's path when it has no place in it), what it says,
/// and the check that found it.
fn entry(f: &Finding, sources: &SourceMap) -> LintEntry {
    let d = &f.diagnostic;
    let pos = d.position(sources);
    let file = match (&pos, &d.path) {
        (Some((p, _, _)), _) => p.display().to_string(),
        (None, Some(p)) => p.display().to_string(),
        (None, None) => String::new(),
    };
    LintEntry {
        code: d.code,
        severity: if d.is_error() { "error" } else { "warning" },
        file,
        line: pos.as_ref().map(|p| p.1),
        column: pos.as_ref().map(|p| p.2),
        message: d.message.clone(),
        check: f.check.map(|c| c.name),
        clause: f.check.map(|c| c.clause),
        level: f.level.clone(),
    }
}

/// The findings as diagnostics on stderr; without an error among them, a line counting the files
/// and the warnings.
fn print_human(ctx: &Ctx, files: usize, findings: Vec<Finding>, sources: &SourceMap) -> Outcome {
    let diags: Vec<Diagnostic> = findings.into_iter().map(|f| f.diagnostic).collect();
    ctx.report(&diags, sources)?;
    let warnings = diags.len();
    eprintln!(
        "platform lint: {files} file{}, no MUST or MUST NOT clause broken, {warnings} warning{}",
        plural(files),
        plural(warnings)
    );
    Ok(())
}

/// A problem with the input, not a finding of a check.
fn input(diagnostic: Diagnostic) -> Finding {
    Finding {
        diagnostic,
        check: None,
        level: None,
    }
}
