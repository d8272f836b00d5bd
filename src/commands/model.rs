//! `kcontract model replay FILE [--oci-version V] [--profile R]`: the reference model of the OCI
//! container lifecycle replaying a trace. It reads a trace, not the spec, so it works from any
//! folder. The trace's reader and the flags' values are shared with `kcontract conformance`.

use std::path::{Path, PathBuf};

use strum::VariantArray;

use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_oci::model::{
    OciRuntime, OciVersion, TraceError, replay_lines, replay_profiled, write_lines,
};
use kcontract_spec::diagnostic::{Diagnostic, SourceMap, Span};

/// The reference model of the OCI container lifecycle.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Model {
    /// Replay a JSON trace against the model; prints one JSON object per step.
    Replay {
        /// The trace file.
        file: PathBuf,
        /// OCI runtime-spec version to follow (1.0.1 or 1.3.0), overriding the trace's `oci_version`.
        #[arg(long)]
        oci_version: Option<String>,
        /// Reproduce a real runtime's documented deviations (runc, crun or youki; see
        /// spec/runtimes/deviations.yaml); each line then lists the deviations that took effect.
        #[arg(long, value_name = "RUNTIME")]
        profile: Option<String>,
    },
}

impl Model {
    /// Runs the replay: one JSON line per step on stdout. Exit 0 whenever the trace is well-formed
    /// (failed operations are data); 1 for an unreadable file (K0001, K0004) or a malformed trace
    /// (K0702, at its line and column, with the path of the offending step or field); 2 for an
    /// unsupported `--oci-version` or an unknown `--profile` (usage errors naming the accepted
    /// values). With `--profile` (`runc`, `crun`, `youki`) the model reproduces that runtime's
    /// documented deviations (`spec/runtimes/deviations.yaml`) and each line gains a `deviations`
    /// field listing the ids that took effect in the step.
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let Model::Replay {
            file,
            oci_version,
            profile,
        } = self;
        let profile = profile
            .map(|p| runtime_arg(ctx, "--profile", &p))
            .transpose()?;
        let version = oci_version.map(|v| version_arg(ctx, &v)).transpose()?;
        let text = read_trace(ctx, &file)?;
        let results = replay_profiled(&text, version, profile)
            .map_err(|e| malformed(ctx, &file, &text, &e))?;
        print_lines(&replay_lines(&results))
    }
}

/// The value of `--oci-version`, or the usage error naming the accepted values.
pub(super) fn version_arg(ctx: &Ctx, value: &str) -> Result<OciVersion, Failure> {
    value.parse().map_err(|_| {
        bad_value(
            ctx,
            "unsupported",
            "--oci-version",
            value,
            OciVersion::VARIANTS.iter().map(|v| v.as_str()),
        )
    })
}

/// A runtime name given to `flag` (`--profile`, `--runtime`), or the usage error naming the
/// accepted values.
pub(super) fn runtime_arg(ctx: &Ctx, flag: &str, value: &str) -> Result<OciRuntime, Failure> {
    value.parse().map_err(|_| {
        bad_value(
            ctx,
            "unknown",
            flag,
            value,
            OciRuntime::VARIANTS.iter().map(|r| r.as_str()),
        )
    })
}

/// The usage error of a value `flag` does not take: ``unknown --flag `x` `` and the accepted
/// values, `a, b or c`.
fn bad_value<'a>(
    ctx: &Ctx,
    adjective: &str,
    flag: &str,
    value: &str,
    names: impl Iterator<Item = &'a str>,
) -> Failure {
    let names: Vec<&str> = names.collect();
    let expected = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    ctx.usage(
        &format!("{adjective} {flag} `{value}`"),
        &format!("expected {expected}"),
    )
}

/// The trace file's text (a BOM and Windows line ends removed), or the command's end after
/// reporting why it cannot be read (K0001, K0004).
pub(super) fn read_trace(ctx: &Ctx, path: &Path) -> Result<String, Failure> {
    kcontract_spec::fsutil::read_text(path)
        .map(kcontract_spec::fsutil::plain_text)
        .map_err(|e| {
            fail(
                ctx,
                &[kcontract_spec::io_error(path, &e)],
                &SourceMap::default(),
            )
        })
}

/// Reports the malformed trace `text` of `path` (K0702): at its line and column when the reader
/// knows them, with the path of the offending value. The same for `model replay` and
/// `conformance`.
pub(super) fn malformed(ctx: &Ctx, path: &Path, text: &str, e: &TraceError) -> Failure {
    let at = if e.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", e.path)
    };
    let mut sources = SourceMap::default();
    let d = Diagnostic::error("K0702", format!("malformed trace{at}: {}", e.message)).help(
        "a trace is `{\"oci_version\": \"1.0.1\" | \"1.3.0\", \"steps\": [...]}`: docs/model.md describes it, docs/trace.schema.json is its schema",
    );
    let d = if e.line == 0 {
        d.in_file(path)
    } else {
        let file = sources.add(path.to_owned(), text.to_owned());
        let start = sources.get(file).offset_of(e.line, e.column);
        let end = text[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
        d.at(Span::new(file, start..end), "here")
    };
    fail(ctx, &[d], &sources)
}

/// Prints `lines`, one JSON object per line, on stdout.
pub(super) fn print_lines<T: serde::Serialize>(lines: &[T]) -> Outcome {
    let mut out = Vec::new();
    // Into memory, the lines' plain fields (strings, numbers, lists) cannot fail to serialise.
    write_lines(&mut out, lines).expect("a line serialises to JSON");
    print(&String::from_utf8_lossy(&out))
}

/// Reports `diags`, errors that end the command; the failure to return.
fn fail(ctx: &Ctx, diags: &[Diagnostic], sources: &SourceMap) -> Failure {
    ctx.report(diags, sources).err().unwrap_or(Failure::Input)
}
