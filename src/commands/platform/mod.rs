//! `kcontract platform run`: the probe under a local OCI runtime, as the platform a profile
//! describes; every clause judged (needs root). `lint`, `import-log`: manifests and vendor logs.
//! `image`: the probe as an OCI image, for a real platform; `verify`: that probe, deployed, read
//! over http or https; `review-docs`: a person's review of a profile's documentation link.
//!
//! One file per command (its arguments and its steps); `shared` holds what they share: the
//! contract they judge against, the static probe, the report they write and the results they print.

mod controls_run;
mod image;
mod import_log;
mod lint;
mod review_docs;
mod run;
mod shared;
mod verify;

use self::image::ImageArgs;
use self::import_log::ImportLogArgs;
use self::lint::LintArgs;
use self::review_docs::ReviewDocsArgs;
use self::run::RunArgs;
use self::verify::VerifyArgs;
use crate::terminal::{Ctx, Outcome};

/// Platforms: run the probe as a profile's platform and judge the contract's clauses (the Knative
/// Runtime Contract built into kcontract, so these commands run from any folder; `--spec DIR` only
/// for a copy of that contract).
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Platform {
    /// Run the probe under runc or crun as the profile's platform would (config from the profile
    /// and the Service, SIGTERM, grace period, SIGKILL), judge every clause, write the report.
    /// Needs root. Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise.
    Run(RunArgs),
    /// Read a log of Knative's runtime conformance suite (`go test -v`, `go test -json` or JUnit
    /// XML) as a vendor's results: each clause judged from the tests its `upstream-tests` name (a
    /// skipped test is not-run, never a pass), written as a report. Exit 0 when no MUST or MUST NOT clause fails, 1
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
    /// Read a probe deployed on a real platform (`serve` mode, behind the platform's ingress) over
    /// http or https, and the platform's log of it: send a user header, a W3C traceparent and
    /// (over http) an `Upgrade: h2c` request, judge every check of the deployed route (the request
    /// side: Host, Forwarded, X-Forwarded-*, tracing, inbound headers, h2c, https termination; what
    /// the probe sees of its container: the environment, the user, the filesystems, the cgroup,
    /// the devices, the capabilities; from the log: SIGTERM and SIGKILL after the grace period),
    /// write the report (docs/deploying.md). Exit 0 when no MUST or MUST NOT clause fails, 1
    /// otherwise or when the probe cannot be read, 2 for a bad URL.
    Verify(VerifyArgs),
    /// Record that you reviewed the profile's `docs:` link for a documentation clause (one the
    /// platform must or should document): who, when, and a stamp of the link and the clause's
    /// text, written into the profile. Only a reviewed link makes the clause `documented` in
    /// reports and the matrix; another link or another text of the clause makes the review stale.
    ReviewDocs(ReviewDocsArgs),
}

impl Platform {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        match self {
            Platform::Run(a) => {
                let (runtime, controls) = a.plan(ctx)?;
                match controls.as_slice() {
                    [] => run::run(ctx, &a, runtime, None),
                    [one] => run::run(ctx, &a, runtime, Some(*one)),
                    several => controls_run::run(ctx, &a, runtime, several),
                }
            }
            Platform::ImportLog(a) => a.run(ctx),
            Platform::Lint(a) => a.run(ctx),
            Platform::Image(a) => a.run(ctx),
            Platform::Verify(a) => a.run(ctx),
            Platform::ReviewDocs(a) => a.run(ctx),
        }
    }
}
