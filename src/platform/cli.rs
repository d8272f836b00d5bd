//! `kcontract platform run`: load the spec, the profile and the Service (every problem reported at
//! its line), check the environment (root, the runtime, a static probe), run the probe as the
//! profile's platform would, judge every check, write the report (and its JUnit and TAP exports),
//! print the results. Exit 0 when no MUST or MUST NOT clause fails (or could not be checked), 1
//! otherwise or for a problem in the input or the environment, 2 for usage errors.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::conformance::bundle::is_static_elf;
use crate::conformance::cli::is_root;
use crate::conformance::{OciRuntime, Session};
use crate::diagnostic::{Diagnostic, SourceMap};
use crate::pipeline::{Show, Stages};
use crate::spec::Spec;
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Failure, Outcome, print};

use super::checks::{CHECKS, Status};
use super::controls::Control;
use super::local::run_all;
use super::profile::{self, Profile};
use super::report::{self, ContractRef, FileRef, Platform, Report, sha256};
use super::service::{self, CONFORMANCE_SERVICE, CONFORMANCE_SERVICE_PATH, Service};

/// Where the static probe is looked for when `--probe` is not given (after `$KCONTRACT_PROBE` and
/// beside the kcontract binary): the path the build command in the README writes it to.
pub const PROBE_BUILD_PATH: &str = "target/probe/x86_64-unknown-linux-gnu/release/kcontract-probe";

/// The command that builds it.
pub const PROBE_BUILD_COMMAND: &str = "RUSTFLAGS=-Ctarget-feature=+crt-static CARGO_TARGET_DIR=target/probe \
     cargo build -p kcontract-probe --release --target x86_64-unknown-linux-gnu";

/// What `platform run` was asked for.
#[derive(Debug)]
pub struct RunRequest {
    /// The runtime.
    pub runtime: OciRuntime,
    /// `--profile`.
    pub profile: PathBuf,
    /// `--service`.
    pub service: Option<PathBuf>,
    /// `--report`.
    pub report: PathBuf,
    /// `--junit`.
    pub junit: Option<PathBuf>,
    /// `--tap`.
    pub tap: Option<PathBuf>,
    /// `--probe`.
    pub probe: Option<PathBuf>,
    /// `--control`.
    pub control: Option<Control>,
}

/// K1106 for every check whose clause the spec does not have.
pub fn table_diagnostics(spec: &Spec) -> Vec<Diagnostic> {
    let ids: BTreeSet<&str> = spec.clauses.iter().map(|c| c.id.as_str()).collect();
    CHECKS
        .iter()
        .filter(|c| !ids.contains(c.clause))
        .map(|c| {
            Diagnostic::error(
                "K1106",
                format!(
                    "check `{}` decides clause `{}`, which the spec does not have",
                    c.name, c.clause
                ),
            )
            .help(
                "the clause was renamed or removed: change its row in src/platform/checks.rs \
                 (the one table of clauses and checks), or remove the row",
            )
        })
        .collect()
}

/// The profile and the Service, or the command's end after reporting their problems.
fn inputs(
    ctx: &Ctx,
    spec: &Spec,
    req: &RunRequest,
) -> Result<(Profile, Service, FileRef, FileRef), Failure> {
    let mut sources = SourceMap::default();
    let mut diags = table_diagnostics(spec);
    let profile = match profile::load(&req.profile, &mut sources) {
        Ok(p) => Some(p),
        Err(d) => {
            diags.extend(d);
            None
        }
    };
    let (service_id, service_path) = match &req.service {
        Some(p) => match super::yaml::read(p, &mut sources, "K1103") {
            Ok(id) => (Some(id), Some(p.display().to_string())),
            Err(d) => {
                diags.push(d);
                (None, None)
            }
        },
        None => (
            Some(sources.add(
                PathBuf::from(CONFORMANCE_SERVICE_PATH),
                CONFORMANCE_SERVICE.to_owned(),
            )),
            None,
        ),
    };
    let service = service_id.and_then(|id| match service::parse(id, &sources) {
        Ok(p) => {
            diags.extend(p.warnings);
            Some(p.service)
        }
        Err(d) => {
            diags.extend(d);
            None
        }
    });
    if let (Some(p), Some(s)) = (&profile, &service) {
        diags.extend(service::check_against(s, p));
    }
    ctx.report(&diags, &sources)?;
    let (Some(profile), Some(service), Some(sid)) = (profile, service, service_id) else {
        return Err(Failure::Input);
    };
    let profile_ref = FileRef {
        name: profile.name.clone(),
        path: Some(req.profile.display().to_string()),
        sha256: sha256(std::fs::read(&req.profile).unwrap_or_default().as_slice()),
    };
    let service_ref = FileRef {
        name: service.name.clone(),
        path: service_path,
        sha256: sha256(sources.get(sid).text.as_bytes()),
    };
    Ok((profile, service, profile_ref, service_ref))
}

/// `--probe`, else the first static executable of `$KCONTRACT_PROBE`, `kcontract-probe` beside
/// this binary (a plain `cargo build` puts a dynamically linked one there, which is passed over) and
/// the build path under the working folder. It must be static: the container holds nothing else.
pub fn find_probe(given: Option<&Path>) -> Result<PathBuf, String> {
    let is_static = |p: &Path| std::fs::read(p).is_ok_and(|b| is_static_elf(&b));
    if let Some(p) = given {
        if !p.is_file() {
            return Err(format!("the probe {} does not exist", p.display()));
        }
        if !is_static(p) {
            return Err(format!(
                "{} is not a static executable; the container holds nothing but the probe: build it with `{PROBE_BUILD_COMMAND}`",
                p.display()
            ));
        }
        return Ok(p.to_owned());
    }
    let candidates: Vec<PathBuf> = std::env::var_os("KCONTRACT_PROBE")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            std::env::current_exe()
                .ok()
                .and_then(|e| e.parent().map(|d| d.join("kcontract-probe"))),
        )
        .chain([PathBuf::from(PROBE_BUILD_PATH)])
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file() && is_static(p))
        .cloned()
        .ok_or_else(|| {
            format!(
                "no static probe found (looked at {}); build it with `{PROBE_BUILD_COMMAND}`, or pass --probe FILE",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The host, in a line: the OS, kernel, architecture, cgroup layout.
fn host_line() -> String {
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| "Linux".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let cgroups = if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
        "cgroup v2"
    } else if crate::conformance::oci::is_cgroup_hybrid() {
        "cgroup v1 hybrid layout"
    } else {
        "cgroup v1"
    };
    format!(
        "{os}, Linux {}, {}, {cgroups}",
        kernel.trim(),
        std::env::consts::ARCH
    )
}

/// Today (UTC) as `YYYY-MM-DD` (the civil-from-days algorithm of H. Hinnant's `chrono`-compatible
/// date algorithms).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn write_output(path: &Path, text: &str) -> Outcome {
    crate::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", path.display());
        Failure::Input
    })
}

/// Runs the command.
pub(crate) fn run(ctx: &Ctx, req: RunRequest) -> Outcome {
    let mut stages = Stages::new(ctx);
    let loaded = stages.spec(LoadOptions::default(), Show::All)?;
    let spec = &loaded.spec;
    let (profile, service, profile_ref, service_ref) = inputs(ctx, spec, &req)?;
    let environment = || -> Result<(PathBuf, Session), String> {
        if !is_root() {
            return Err(
                "platform run needs root: the runtime creates namespaces, mounts and cgroups"
                    .into(),
            );
        }
        let probe = find_probe(req.probe.as_deref())?;
        let session = Session::bare(req.runtime)?;
        Ok((probe, session))
    };
    let (probe, session) = environment().map_err(|e| {
        eprintln!("error: {e}");
        Failure::Input
    })?;
    let probe_bytes = std::fs::read(&probe).unwrap_or_default();
    let grace =
        super::expect::expected(&profile, &service, &super::expect::probe_image(Vec::new())).grace;
    eprintln!(
        "platform run: {} {} ({}), profile {} ({}), Service {}; grace period {} s",
        req.runtime,
        session.cli().version(),
        session.cli().program().display(),
        profile.name,
        req.profile.display(),
        service.name,
        grace.as_secs()
    );
    if let Some(c) = req.control {
        eprintln!("negative control `{}`: {}", c.name(), c.describe());
    }
    let progress = |line: &str| eprintln!("  {line}");
    let mut results = run_all(
        &session,
        &probe,
        &profile,
        &service,
        &[req.control],
        1,
        &progress,
    );
    let judged = match results.pop() {
        Some(Ok(j)) => j,
        Some(Err(e)) => {
            eprintln!("error: the harness failed: {e}");
            return Err(Failure::Input);
        }
        None => return Err(Failure::Input),
    };
    let runtime_version = session.cli().version().to_owned();
    drop(session);
    let clauses = report::clause_results(spec, &judged.verdicts);
    let report = Report {
        format: report::RUN_FORMAT.to_owned(),
        platform: Platform {
            kind: "local".into(),
            runtime: req.runtime.to_string(),
            runtime_version,
            host: host_line(),
            date: today(),
            profile: profile_ref,
            service: service_ref,
            grace_period_s: grace.as_secs(),
            features: profile.features.clone(),
            probe: FileRef {
                name: format!("kcontract-probe {}", probe_version(&judged)),
                path: Some(probe.display().to_string()),
                sha256: sha256(&probe_bytes),
            },
            kcontract: env!("CARGO_PKG_VERSION").to_owned(),
            contract: ContractRef {
                title: spec.contract.title.clone(),
                version: spec.contract.version.clone(),
            },
            control: req.control.map(|c| c.name().to_owned()),
        },
        summary: report::summary(&clauses),
        clauses,
    };
    let json = serde_json::to_string_pretty(&report).map_err(|e| {
        eprintln!("error: cannot write the report: {e}");
        Failure::Input
    })? + "\n";
    write_output(&req.report, &json)?;
    if let Some(p) = &req.junit {
        write_output(p, &super::export::junit(&report))?;
    }
    if let Some(p) = &req.tap {
        write_output(p, &super::export::tap(&report))?;
    }
    print(&results_text(&report))?;
    if report::passes(&report.clauses) {
        Ok(())
    } else {
        Err(Failure::Input)
    }
}

fn probe_version(j: &super::local::Judged) -> String {
    j.observed
        .main
        .facts
        .as_ref()
        .map_or_else(|| "unknown".to_owned(), |f| f.probe.version.clone())
}

/// The results as the command prints them: a line per clause that a check decided, then the
/// counts and the verdict.
fn results_text(r: &Report) -> String {
    let mut out = String::new();
    for c in r.clauses.iter().filter(|c| c.check.is_some()) {
        out.push_str(&format!(
            "{:<8} {:<10} {:<54} {}\n",
            c.status.as_str(),
            c.level,
            c.id,
            c.message
        ));
    }
    let count = |s: Status| r.summary.get(s.as_str()).copied().unwrap_or(0);
    out.push_str(&format!(
        "{} clauses: {} pass, {} fail, {} n/a, {} not-run, {} error\n",
        r.clauses.len(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::NotApplicable),
        count(Status::NotRun),
        count(Status::Error),
    ));
    let blocking: Vec<&str> = r
        .clauses
        .iter()
        .filter(|c| report::blocks(&c.level) && matches!(c.status, Status::Fail | Status::Error))
        .map(|c| c.id.as_str())
        .collect();
    if blocking.is_empty() {
        out.push_str("ok: no MUST or MUST NOT clause fails\n");
    } else {
        out.push_str(&format!("failed: {}\n", blocking.join(", ")));
    }
    out
}
