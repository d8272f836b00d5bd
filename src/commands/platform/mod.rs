//! `kcontract platform run`: the probe under a local OCI runtime, as the platform a profile
//! describes; every clause judged (needs root). `lint`, `import-log`: manifests and vendor logs.
//! `image`: the probe as an OCI image, for a real platform; `verify`: that probe, deployed, read
//! over http or https; `review-docs`: a person's review of a profile's documentation link.

mod bodies;

use std::path::PathBuf;
use strum::VariantArray;

use self::bodies::{
    ImportRequest, ReviewDocsRequest, RunRequest, VerifyRequest, find_probe, import_log, lint,
    review_docs, run, verify,
};
use crate::terminal::{Ctx, Failure, Outcome, print, shell_word};
use kcontract_oci::conformance::OciRuntime;
use kcontract_platform::controls::Control;
use kcontract_platform::image::{REF_NAME, User, digest, layout};
use kcontract_platform::verify::Target;

/// Platforms: run the probe as a profile's platform and judge the contract's clauses (the Knative
/// Runtime Contract built into kcontract, so these commands run from any folder; `--spec DIR` only
/// for a copy of that contract).
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Platform {
    /// Run the probe under runc or crun as the profile's platform would (config from the profile
    /// and the Service, SIGTERM, grace period, SIGKILL), judge every clause, write the report.
    /// Needs root. Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise.
    Run(RunArgs),
    /// Read the `go test -v` log of Knative's runtime conformance suite as a platform's results:
    /// each clause judged from the tests its `upstream-tests` name (a skipped test is not-run,
    /// never a pass), written as a report. Exit 0 when no MUST or MUST NOT clause fails, 1
    /// otherwise or when the log cannot be read.
    ImportLog(ImportLogArgs),
    /// Check Knative Service, Configuration and Revision manifests for what the contract says a
    /// developer must not or should not set, each finding at its line with its clause. Exit 1
    /// when a MUST or MUST NOT clause is broken or a file is not a Knative manifest, 0 otherwise
    /// (SHOULD and SHOULD NOT findings are warnings).
    ///
    /// The clauses are the Knative Runtime Contract's, built into kcontract: run it from any
    /// folder (your own repository, CI) with no spec folder. `--spec DIR` only for a copy of that
    /// contract; a folder without its clauses (your own contract) is one error, K1108.
    Lint(LintArgs),
    /// Write the static probe as an OCI image layout in one tar archive (one layer, a non-root
    /// user, the probe's `serve` mode as entry point), to push with your own tools, e.g.
    /// `skopeo copy oci-archive:probe.tar docker://REGISTRY/kcontract-probe:TAG`.
    Image(ImageArgs),
    /// Read a probe deployed on a platform (`serve` mode, behind the platform's ingress) over
    /// http or https: send a user header, a W3C traceparent and (over http) an `Upgrade: h2c`
    /// request, judge the request-side clauses (Host, Forwarded, X-Forwarded-*, tracing, inbound
    /// headers, h2c, https termination) and the platform's default port and user, write the
    /// report. Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise or when the probe cannot
    /// be read, 2 for a bad URL.
    Verify(VerifyArgs),
    /// Record that you reviewed the profile's `docs:` link for a documentation clause (one the
    /// platform must or should document): who, when, and a stamp of the link and the clause's
    /// text, written into the profile. Only a reviewed link makes the clause `documented` in
    /// reports and the matrix; another link or another text of the clause makes the review stale.
    ReviewDocs(ReviewDocsArgs),
}

#[derive(clap::Args, Debug)]
pub(crate) struct ReviewDocsArgs {
    /// The documentation clause whose link you reviewed.
    #[arg(value_name = "CLAUSE")]
    clause: String,
    /// The platform profile whose `docs:` holds the link; the review is written into it.
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// Your name, as the review records it.
    #[arg(long, value_name = "NAME")]
    by: String,
    /// The day of the review (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct VerifyArgs {
    /// The deployed probe's URL (http[s]://HOST[:PORT][/PATH]); verify reads URL/report.
    #[arg(long, value_name = "URL")]
    url: String,
    /// The platform profile (docs/platforms.md) the probe is judged against.
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
    /// Seconds to wait for each request's answer (a platform scaling from zero is slow).
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    timeout: u64,
    /// For an https URL: the PEM certificate(s) of the authority that signed the platform's
    /// certificate, trusted instead of the system's roots (a private platform's own CA).
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
}

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

#[derive(clap::Args, Debug)]
pub(crate) struct ImportLogArgs {
    /// The platform's name (one word: the report's column, e.g. `google-cloud-run`).
    #[arg(long, value_name = "NAME")]
    platform: String,
    /// The `go test -v` output.
    #[arg(value_name = "LOG")]
    log: PathBuf,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
    /// The platform's profile: its reviewed `docs:` links decide the documentation clauses in the
    /// report (without it they are undocumented: a log says nothing about documentation).
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ImageArgs {
    /// Where to write the archive (an OCI image layout, tar).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The static probe [default: as `platform run` finds it].
    #[arg(long, value_name = "FILE")]
    probe: Option<PathBuf>,
    /// The user the image runs as: UID or UID:GID, never 0.
    #[arg(long, value_name = "UID[:GID]", default_value = "65532:65532")]
    user: String,
}

/// The local runtimes a run can use.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum LocalRuntime {
    Runc,
    Crun,
}

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// The OCI runtime (found on PATH).
    #[arg(long, value_enum)]
    runtime: LocalRuntime,
    /// The platform profile (docs/platforms.md).
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// The Knative Service to deploy [default: platforms/services/conformance.yaml, built in].
    #[arg(long, value_name = "FILE")]
    service: Option<PathBuf>,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
    /// Also write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the results as TAP version 13.
    #[arg(long, value_name = "FILE")]
    tap: Option<PathBuf>,
    /// The static probe [default: $KCONTRACT_PROBE, kcontract-probe beside this binary, or
    /// target/probe/x86_64-unknown-linux-gnu/release/kcontract-probe].
    #[arg(long, value_name = "FILE")]
    probe: Option<PathBuf>,
    /// Apply a negative control (docs/platforms.md lists them): the run must then fail exactly
    /// the clauses whose checks name it.
    #[arg(long, value_name = "NAME")]
    control: Option<String>,
}

impl Platform {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let a = match self {
            Platform::Run(a) => a,
            Platform::ImportLog(a) => return import(ctx, a),
            Platform::Lint(a) => return lint(ctx, &a.files, a.format == LintFormat::Json),
            Platform::Image(a) => return image(ctx, a),
            Platform::Verify(a) => return verify_probe(ctx, a),
            Platform::ReviewDocs(a) => return review(ctx, a),
        };
        let control = match a.control.as_deref().map(|n| (n, Control::from_name(n))) {
            None => None,
            Some((_, Some(c))) => Some(c),
            Some((n, None)) => {
                let names: Vec<&str> = Control::VARIANTS.iter().map(|c| c.name()).collect();
                return Err(ctx.usage(
                    &format!("no negative control `{n}`"),
                    &format!("one of: {}", names.join(", ")),
                ));
            }
        };
        run(
            ctx,
            RunRequest {
                runtime: match a.runtime {
                    LocalRuntime::Runc => OciRuntime::Runc,
                    LocalRuntime::Crun => OciRuntime::Crun,
                },
                profile: a.profile,
                service: a.service,
                report: a.report,
                junit: a.junit,
                tap: a.tap,
                probe: a.probe,
                control,
            },
        )
    }
}

/// `platform import-log`, after checking the name: one word, as a column's name must be.
fn import(ctx: &Ctx, a: ImportLogArgs) -> Outcome {
    let word = !a.platform.is_empty()
        && a.platform
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !word {
        return Err(ctx.usage(
            &format!("`{}` is not a platform name", a.platform),
            "one word of letters, digits, `-`, `_` and `.` (the report's column), e.g. google-cloud-run",
        ));
    }
    import_log(
        ctx,
        ImportRequest {
            platform: a.platform,
            log: a.log,
            report: a.report,
            profile: a.profile,
        },
    )
}

/// `platform image`: the probe packed, after checking the user and the output path.
fn image(ctx: &Ctx, a: ImageArgs) -> Outcome {
    let user = User::parse(&a.user).map_err(|e| {
        ctx.usage(
            &format!("--user {e}"),
            "give a non-root UID or UID:GID, e.g. --user 65532:65532",
        )
    })?;
    let failed = |message: String| {
        eprintln!("error: {message}\n\nno image was written");
        Failure::Input
    };
    if a.out.is_dir() {
        return Err(failed(format!(
            "--out {} is a folder; the image is one file (a tar archive)",
            a.out.display()
        )));
    }
    let probe = find_probe(a.probe.as_deref()).map_err(failed)?;
    let bytes = kcontract_spec::fsutil::read_regular(&probe, 256 << 20)
        .map_err(|e| failed(format!("cannot read {}: {e}", probe.display())))?;
    let archive = layout(&bytes, user, env!("CARGO_PKG_VERSION")).map_err(failed)?;
    kcontract_spec::fsutil::write_atomic(&a.out, &archive)
        .map_err(|e| failed(format!("cannot write {}: {e}", a.out.display())))?;
    print(&format!(
        "wrote {} ({} bytes): an OCI image layout of {} ({}), user {}:{}\n\
         push it with your own tools, e.g.\n  skopeo copy oci-archive:{}:{REF_NAME} docker://REGISTRY/kcontract-probe:TAG\n",
        a.out.display(),
        archive.len(),
        probe.display(),
        digest(&bytes),
        user.uid,
        user.gid,
        shell_word(&a.out.display().to_string()),
    ))
}

/// `platform verify`, after checking the URL, the timeout and that `--ca-cert` goes with https.
fn verify_probe(ctx: &Ctx, a: VerifyArgs) -> Outcome {
    let target = Target::parse(&a.url).map_err(|e| {
        ctx.usage(
            &format!("--url {e}"),
            "give the deployed probe's URL, e.g. --url http://kcontract-probe.default.example.com",
        )
    })?;
    if a.ca_cert.is_some() && !target.https {
        return Err(ctx.usage(
            "--ca-cert with an http:// URL: there is no certificate to check",
            "give the https:// URL, or leave --ca-cert out",
        ));
    }
    if a.timeout == 0 {
        return Err(ctx.usage(
            "--timeout 0: a request cannot be answered in no time",
            "give a number of seconds, e.g. --timeout 10",
        ));
    }
    verify(
        ctx,
        VerifyRequest {
            target,
            profile: a.profile,
            report: a.report,
            timeout: std::time::Duration::from_secs(a.timeout),
            ca_cert: a.ca_cert,
        },
    )
}

/// `platform review-docs`, after checking the name and the date.
fn review(ctx: &Ctx, a: ReviewDocsArgs) -> Outcome {
    if a.by.trim().is_empty() || a.by.contains(['\n', '\r']) {
        return Err(ctx.usage(
            "--by needs a name on one line",
            "give the reviewer's name, e.g. --by \"Ada Lovelace\"",
        ));
    }
    if let Some(d) = &a.date
        && !kcontract_platform::profile::is_date(d)
    {
        return Err(ctx.usage(
            &format!("--date {d} is not a date YYYY-MM-DD"),
            "give the day of the review, e.g. --date 2026-11-27, or leave it out for today",
        ));
    }
    review_docs(
        ctx,
        ReviewDocsRequest {
            clause: a.clause,
            profile: a.profile,
            by: a.by.trim().to_owned(),
            date: a.date,
        },
    )
}
