//! `kcontract platform run`: load the spec, the profile and the Service (every problem reported at
//! its line), check the environment (root, the runtime, a static probe), run the probe as the
//! profile's platform would, judge every check, write the report (and its JUnit and TAP exports),
//! print the results. Exit 0 when no MUST or MUST NOT clause fails (or could not be checked), 1
//! otherwise or for a problem in the input or the environment, 2 for usage errors.

use std::path::{Path, PathBuf};

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_oci::conformance::is_root;
use kcontract_oci::conformance::is_static_elf;
use kcontract_oci::conformance::{OciRuntime, Session};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, SourceMap};
use kcontract_spec::{LoadOptions, Loaded};

use kcontract_platform::checks::Status;
use kcontract_platform::contract::Source;
use kcontract_platform::controls::Control;
use kcontract_platform::local::run_all;
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::report::{self, ContractRef, FileRef, Platform, Report, sha256};
use kcontract_platform::service::{self, CONFORMANCE_SERVICE, CONFORMANCE_SERVICE_PATH, Service};

/// Where the static probe is looked for when `--probe` is not given (after `$KCONTRACT_PROBE` and
/// beside the kcontract binary): the path the build command in the README writes it to.
pub(super) const PROBE_BUILD_PATH: &str =
    "target/probe/x86_64-unknown-linux-gnu/release/kcontract-probe";

/// The command that builds it.
pub(super) const PROBE_BUILD_COMMAND: &str = "RUSTFLAGS=-Ctarget-feature=+crt-static CARGO_TARGET_DIR=target/probe \
     cargo build -p kcontract-probe --release --target x86_64-unknown-linux-gnu";

/// What `platform run` was asked for.
#[derive(Debug)]
pub(super) struct RunRequest {
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

/// A warning per `docs:` id of `profile` that is not a documentation clause of `spec`: its link
/// answers nothing (a typo, a renamed clause, a clause a check decides).
fn docs_warnings(spec: &Spec, profile: &Profile, path: &Path) -> Vec<Diagnostic> {
    kcontract_platform::docs::unknown_ids(spec, profile)
        .into_iter()
        .map(|id| {
            Diagnostic::warning(
                "K1102",
                format!("the profile's docs name `{id}`, which is not a documentation clause of the spec: ignored"),
            )
            .in_file(path)
            .help("the documentation clauses are those with `route_reason: documentation` in `kcontract matrix --format json`")
        })
        .collect()
}

/// The profile and the Service, or the command's end after reporting their problems.
fn inputs(
    ctx: &Ctx,
    spec: &Spec,
    source: &Source,
    req: &RunRequest,
) -> Result<(Profile, Service, FileRef, FileRef), Failure> {
    let mut sources = SourceMap::default();
    let mut diags =
        kcontract_platform::contract::missing(spec, source, &kcontract_platform::checks::table());
    let profile = match profile::load(&req.profile, &mut sources) {
        Ok(p) => {
            diags.extend(docs_warnings(spec, &p, &req.profile));
            Some(p)
        }
        Err(d) => {
            diags.extend(d);
            None
        }
    };
    let (service_id, service_path) = match &req.service {
        Some(p) => match kcontract_platform::yaml::read(p, &mut sources, "K1103") {
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
pub(super) fn find_probe(given: Option<&Path>) -> Result<PathBuf, String> {
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
    } else if kcontract_oci::conformance::is_cgroup_hybrid() {
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

/// The report as JSON, written to `path`.
fn write_report(path: &Path, report: &Report) -> Outcome {
    let json = serde_json::to_string_pretty(report).map_err(|e| {
        eprintln!("error: cannot write the report: {e}");
        Failure::Input
    })? + "\n";
    write_output(path, &json)
}

/// The report of `clauses` about `platform`: this version's format, the counts.
/// A report of `clauses`; `documentation`: the documentation clauses judged from the profile's
/// `docs` (none without a profile).
fn report_of(
    platform: Platform,
    clauses: Vec<report::ClauseResult>,
    documentation: Vec<kcontract_platform::docs::DocResult>,
) -> Report {
    Report {
        format: report::RUN_FORMAT.to_owned(),
        platform,
        summary: report::summary(&clauses),
        clauses,
        documentation,
    }
}

/// The spec a report is judged against.
fn contract_ref(spec: &Spec) -> ContractRef {
    ContractRef {
        title: spec.contract.title.clone(),
        version: spec.contract.version.clone(),
    }
}

/// The exit of a command that wrote `report`: 1 when a MUST or MUST NOT clause fails or errs.
fn verdict(report: &Report) -> Outcome {
    if report::passes(&report.clauses) {
        Ok(())
    } else {
        Err(Failure::Input)
    }
}

fn write_output(path: &Path, text: &str) -> Outcome {
    kcontract_spec::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", path.display());
        Failure::Input
    })
}

/// Runs the command.
pub(crate) fn run(ctx: &Ctx, req: RunRequest) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let (profile, service, profile_ref, service_ref) = inputs(ctx, spec, &source, &req)?;
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
    let grace = kcontract_platform::expect::expected(
        &profile,
        &service,
        &kcontract_platform::expect::probe_image(Vec::new()),
    )
    .grace;
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
    let report = report_of(
        Platform {
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
            contract: contract_ref(spec),
            control: req.control.map(|c| c.name().to_owned()),
        },
        clauses,
        kcontract_platform::docs::judge_all(spec, &profile),
    );
    write_report(&req.report, &report)?;
    if let Some(p) = &req.junit {
        write_output(p, &kcontract_platform::export::junit(&report))?;
    }
    if let Some(p) = &req.tap {
        write_output(p, &kcontract_platform::export::tap(&report))?;
    }
    print(&results_text(&report))?;
    verdict(&report)
}

fn probe_version(j: &kcontract_platform::local::Judged) -> String {
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
    if !r.documentation.is_empty() {
        let count = |s: kcontract_platform::docs::DocStatus| {
            r.documentation.iter().filter(|d| d.status == s).count()
        };
        out.push_str(&format!(
            "documentation clauses: {} documented (a reviewed link), {} undocumented, {} n/a\n",
            count(kcontract_platform::docs::DocStatus::Documented),
            count(kcontract_platform::docs::DocStatus::Undocumented),
            count(kcontract_platform::docs::DocStatus::NotApplicable),
        ));
    }
    out
}

/// What `platform import-log` was asked for.
#[derive(Debug)]
pub(super) struct ImportRequest {
    /// `--platform`: the column's name.
    pub platform: String,
    /// The `go test -v` log.
    pub log: PathBuf,
    /// `--report`.
    pub report: PathBuf,
    /// `--profile`: the platform's profile, whose reviewed `docs:` links decide the documentation
    /// clauses (a log says nothing about them).
    pub profile: Option<PathBuf>,
}

/// The `platform.runtime` of such a report.
pub(super) const LOG_RUNTIME: &str = "knative conformance log";

/// `YYYY-MM-DD` at the start of the log's file name (the vendors' logs are named by the day of
/// their run), else today.
fn date_of(log: &Path) -> String {
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.get(..10) {
        Some(day) if kcontract_platform::profile::is_date(day) => day.to_owned(),
        _ => today(),
    }
}

/// Runs `platform import-log`: read the log, judge every testable clause from its tests, write the
/// report, print the results. Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise or when
/// the log cannot be read or names no test.
pub(crate) fn import_log(ctx: &Ctx, req: ImportRequest) -> Outcome {
    let (loaded, _) = load_contract(ctx)?;
    let spec = &loaded.spec;
    // The profile first: a broken one stops the command before the log is read.
    let documentation = match &req.profile {
        Some(path) => {
            let mut sources = SourceMap::default();
            let (profile, diags) = match profile::load(path, &mut sources) {
                Ok(p) => {
                    let warnings = docs_warnings(spec, &p, path);
                    (Some(p), warnings)
                }
                Err(d) => (None, d),
            };
            ctx.report(&diags, &sources)?;
            let profile = profile.ok_or(Failure::Input)?;
            kcontract_platform::docs::judge_all(spec, &profile)
        }
        None => Vec::new(),
    };
    let not_read = |message: String, help: &str| {
        let d = Diagnostic::error("K1120", message)
            .in_file(&req.log)
            .help(help);
        ctx.report(&[d], &SourceMap::default())
            .err()
            .unwrap_or(Failure::Input)
    };
    let bytes = kcontract_spec::fsutil::read_regular(&req.log, kcontract_spec::fsutil::MAX_INPUT)
        .map_err(|e| {
        not_read(
            format!("cannot read the log `{}`: {e}", req.log.display()),
            "give the file `go test -v` wrote",
        )
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let log = kcontract_platform::import_log::parse(&text);
    if log.results.is_empty() {
        return Err(not_read(
            format!(
                "`{}` is not a `go test -v` log: it has no `=== RUN` or `--- PASS/FAIL/SKIP:` line",
                req.log.display()
            ),
            "give the output of `go test -v` of Knative's conformance suite (without -v there are no per-test lines)",
        ));
    }
    let log_ref = FileRef {
        name: req
            .log
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        path: Some(req.log.display().to_string()),
        sha256: sha256(&bytes),
    };
    let clauses = kcontract_platform::import_log::clause_results(spec, &log);
    let report = report_of(
        Platform {
            kind: report::LOG_KIND.into(),
            runtime: LOG_RUNTIME.into(),
            runtime_version: String::new(),
            host: req.platform.clone(),
            date: date_of(&req.log),
            // The column's name (see `Platform::column_name`), and the profile when one was given.
            profile: FileRef {
                name: req.platform.clone(),
                path: req.profile.as_ref().map(|p| p.display().to_string()),
                sha256: sha256(
                    req.profile
                        .as_ref()
                        .and_then(|p| std::fs::read(p).ok())
                        .unwrap_or_default()
                        .as_slice(),
                ),
            },
            service: log_ref.clone(),
            grace_period_s: 0,
            features: Vec::new(),
            probe: log_ref,
            kcontract: env!("CARGO_PKG_VERSION").to_owned(),
            contract: contract_ref(spec),
            control: None,
        },
        clauses,
        documentation,
    );
    write_report(&req.report, &report)?;
    eprintln!(
        "platform import-log: {} tests in {}, platform {}",
        log.results.len(),
        req.log.display(),
        req.platform
    );
    print(&results_text(&report))?;
    verdict(&report)
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

/// Runs `platform lint`: every file's documents checked, the findings printed as diagnostics (or
/// as JSON on stdout). Exit 1 when a finding is a MUST or MUST NOT clause's or a file cannot be
/// read as a Knative manifest, else 0 (warnings for SHOULD and SHOULD NOT clauses).
pub(crate) fn lint(ctx: &Ctx, files: &[PathBuf], json: bool) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    report_missing(ctx, spec, &source, &kcontract_platform::lint::table())?;
    let mut sources = SourceMap::default();
    let mut findings = Vec::new();
    for path in files {
        match kcontract_platform::yaml::read(path, &mut sources, "K1121") {
            Ok(id) => findings.extend(kcontract_platform::lint::lint(spec, id, &sources)),
            Err(d) => findings.push(kcontract_platform::lint::Finding {
                diagnostic: d,
                check: None,
                level: None,
            }),
        }
    }
    let errors = findings.iter().filter(|f| f.diagnostic.is_error()).count();
    if json {
        let entries = findings
            .iter()
            .map(|f| {
                let d = &f.diagnostic;
                let pos = d.position(&sources);
                LintEntry {
                    code: d.code,
                    severity: if d.is_error() { "error" } else { "warning" },
                    file: pos.as_ref().map_or_else(
                        || {
                            d.path
                                .as_ref()
                                .map(|p| p.display().to_string())
                                .unwrap_or_default()
                        },
                        |(p, _, _)| p.display().to_string(),
                    ),
                    line: pos.as_ref().map(|p| p.1),
                    column: pos.as_ref().map(|p| p.2),
                    message: d.message.clone(),
                    check: f.check.map(|c| c.name),
                    clause: f.check.map(|c| c.clause),
                    level: f.level.clone(),
                }
            })
            .collect();
        let out = LintOutput {
            format: "kcontract-lint/1",
            diagnostics: entries,
            errors,
            warnings: findings.len() - errors,
        };
        let text = serde_json::to_string_pretty(&out).map_err(|e| {
            eprintln!("error: cannot write the findings: {e}");
            Failure::Input
        })? + "\n";
        print(&text)?;
        if errors > 0 {
            Err(Failure::Input)
        } else {
            Ok(())
        }
    } else {
        let diags: Vec<Diagnostic> = findings.into_iter().map(|f| f.diagnostic).collect();
        let r = ctx.report(&diags, &sources);
        if r.is_ok() {
            let warnings = diags.len();
            eprintln!(
                "platform lint: {} file{}, no MUST or MUST NOT clause broken, {warnings} warning{}",
                files.len(),
                crate::terminal::plural(files.len()),
                crate::terminal::plural(warnings)
            );
        }
        r
    }
}

/// What `platform verify` was asked for.
#[derive(Debug)]
pub(super) struct VerifyRequest {
    /// `--url`, read.
    pub target: kcontract_platform::verify::Target,
    /// `--profile`.
    pub profile: PathBuf,
    /// `--report`.
    pub report: PathBuf,
    /// `--timeout`.
    pub timeout: std::time::Duration,
    /// `--ca-cert`: the roots of an https URL instead of the system's.
    pub ca_cert: Option<PathBuf>,
}

/// The `platform.kind` of a report of `platform verify`.
pub(super) const VERIFY_KIND: &str = "verify";

/// Runs `platform verify`: read the deployed probe, judge the request-side clauses and the
/// platform's defaults, write the report, print the results. Exit 0 when no MUST or MUST NOT clause
/// fails, 1 otherwise and when the probe cannot be read (K1130 unreachable, K1131 timeout, K1132
/// not a probe, K1133 an untrusted certificate, K1134 no TLS on an https URL, K1135 an unusable
/// `--ca-cert`) or the profile is wrong.
pub(crate) fn verify(ctx: &Ctx, req: VerifyRequest) -> Outcome {
    use kcontract_platform::verify::{self as v, FetchError};
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let mut sources = SourceMap::default();
    let mut diags = kcontract_platform::contract::missing(spec, &source, &v::table());
    let profile = profile::load(&req.profile, &mut sources).map_err(|d| diags.extend(d));
    if let Ok(p) = &profile {
        diags.extend(docs_warnings(spec, p, &req.profile));
    }
    let sid = sources.add(
        PathBuf::from(CONFORMANCE_SERVICE_PATH),
        CONFORMANCE_SERVICE.to_owned(),
    );
    let service = service::parse(sid, &sources).map_err(|d| diags.extend(d));
    let trust = match (&req.ca_cert, req.target.https) {
        (Some(path), _) => kcontract_platform::tls::Trust::from_pem_file(path).map_err(|m| {
            diags.push(Diagnostic::error("K1135", m).in_file(path).help(
                "give the PEM file of the certificate authority that signed the platform's \
                     certificate (`-----BEGIN CERTIFICATE-----` blocks)",
            ));
        }),
        (None, true) => Ok(kcontract_platform::tls::Trust::system()),
        (None, false) => Ok(kcontract_platform::tls::Trust::default()),
    };
    ctx.report(&diags, &sources)?;
    let (Ok(profile), Ok(service), Ok(trust)) = (profile, service, trust) else {
        return Err(Failure::Input);
    };
    let service = service.service;
    let roots = if req.target.https {
        format!(", roots: {}", trust.source)
    } else {
        String::new()
    };
    eprintln!(
        "platform verify: {} (timeout {} s{roots}), profile {} ({})",
        req.target.report_url(),
        req.timeout.as_secs(),
        profile.name,
        req.profile.display()
    );
    let read = v::fetch(&req.target, &trust, req.timeout).map_err(|e| {
        let (code, message, help) = match e {
            FetchError::Unreachable(m) => (
                "K1130",
                m,
                "check the URL (the Service's URL, as `kn service describe` or `kubectl get ksvc` shows it) and that the platform answers on it",
            ),
            FetchError::Timeout(m) => (
                "K1131",
                m,
                "the probe may be scaling from zero: try again, or give a longer --timeout SECS",
            ),
            FetchError::NotAProbe(m) => (
                "K1132",
                m,
                "give the URL of a Service running the probe in `serve` mode (`kcontract platform image`); verify reads URL/report",
            ),
            FetchError::Untrusted(m) => (
                "K1133",
                m,
                "for a platform whose certificates a private authority signs, give that authority's certificate with --ca-cert FILE; the URL's host must be a name the certificate lists",
            ),
            FetchError::NotTls(m) => (
                "K1134",
                m,
                "check the URL's port; if the platform serves this URL in plain http, give http://",
            ),
        };
        let d = Diagnostic::error(code, message).help(help);
        ctx.report(&[d], &SourceMap::default())
            .err()
            .unwrap_or(Failure::Input)
    })?;
    // h2c is cleartext: over https the judge says so instead.
    let upgrade = (!req.target.https && profile.features.iter().any(|f| f == "h2c-upgrade"))
        .then(|| v::try_h2c(&req.target, req.timeout));
    let observed = v::observed(&profile, &service, &read.facts);
    let Some(request) = read.facts.request.as_ref() else {
        return Err(Failure::Input);
    };
    let seen = v::Seen {
        target: &req.target,
        profile: &profile,
        facts: &read.facts,
        request,
        upgrade: upgrade.as_ref(),
        tls: read.tls.as_ref(),
        observed: &observed,
    };
    let clauses = v::clause_results(spec, &seen);
    let body_ref = FileRef {
        name: format!("kcontract-probe {}", read.facts.probe.version),
        path: Some(req.target.report_url()),
        sha256: sha256(read.body.as_bytes()),
    };
    let report = report_of(
        Platform {
            kind: VERIFY_KIND.into(),
            runtime: req.target.host.clone(),
            runtime_version: String::new(),
            host: req.target.url.clone(),
            date: today(),
            profile: FileRef {
                name: profile.name.clone(),
                path: Some(req.profile.display().to_string()),
                sha256: sha256(std::fs::read(&req.profile).unwrap_or_default().as_slice()),
            },
            service: FileRef {
                name: "the deployed probe's Service (no containerPort, no runAsUser)".into(),
                path: None,
                sha256: sha256(b""),
            },
            grace_period_s: 0,
            features: profile.features.clone(),
            probe: body_ref,
            kcontract: env!("CARGO_PKG_VERSION").to_owned(),
            contract: contract_ref(spec),
            control: None,
        },
        clauses,
        kcontract_platform::docs::judge_all(spec, &profile),
    );
    write_report(&req.report, &report)?;
    print(&results_text(&report))?;
    verdict(&report)
}

/// What `platform review-docs` was asked for.
#[derive(Debug)]
pub(super) struct ReviewDocsRequest {
    /// The documentation clause.
    pub clause: String,
    /// `--profile`: the file holding the link, rewritten with the review.
    pub profile: PathBuf,
    /// `--by`.
    pub by: String,
    /// `--date` (`None`: today).
    pub date: Option<String>,
}

/// Runs `platform review-docs`: the clause must be a documentation clause of the spec and the
/// profile must link it; the entry is rewritten on its line as `{url: …, reviewed: {by, date,
/// stamp}}` (the profile read back first, so a file that would not load is never written).
/// Exit 1 when there is no link to review (K1136) or the profile is wrong, 2 for a clause that
/// is not a documentation clause.
pub(crate) fn review_docs(ctx: &Ctx, req: ReviewDocsRequest) -> Outcome {
    use kcontract_platform::docs;
    let (loaded, _) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let Some(clause) = spec.clause(&req.clause) else {
        return Err(crate::commands::review::unknown(ctx, spec, &req.clause));
    };
    if !docs::is_documentation(clause) {
        return Err(ctx.usage(
            &format!(
                "`{}` is not a documentation clause: a check, a log or a person's test decides it",
                clause.id
            ),
            "the documentation clauses are those with `route_reason: documentation` in `kcontract matrix --format json`",
        ));
    }
    let mut sources = SourceMap::default();
    let file = kcontract_platform::yaml::read(&req.profile, &mut sources, "K1101")
        .map_err(|d| ctx.report(&[d], &sources).err().unwrap_or(Failure::Input))?;
    let profile = profile::parse(file, &sources)
        .map_err(|d| ctx.report(&d, &sources).err().unwrap_or(Failure::Input))?;
    let shown = req.profile.display();
    let cannot = |message: String, help: &str| {
        let d = Diagnostic::error("K1136", message)
            .in_file(&req.profile)
            .help(help.to_owned());
        ctx.report(&[d], &SourceMap::default())
            .err()
            .unwrap_or(Failure::Input)
    };
    let url = match profile.docs.get(&clause.id) {
        Some(profile::DocLink::Link { url, .. }) => url.clone(),
        Some(profile::DocLink::NotApplicable(_)) => {
            return Err(cannot(
                format!(
                    "`{shown}` says `{}` is not applicable: there is no link to review",
                    clause.id
                ),
                "to review a link instead, write `CLAUSE: URL` under `docs:`",
            ));
        }
        None => {
            return Err(cannot(
                format!("`{shown}` has no docs link for `{}`", clause.id),
                &format!(
                    "add the page of the platform's documentation under `docs:`, `{}: https://…`, then review it",
                    clause.id
                ),
            ));
        }
    };
    let Some(span) = profile::doc_entry_span(file, &sources, &clause.id) else {
        return Err(Failure::Input);
    };
    let review = profile::DocReview {
        by: req.by.clone(),
        date: req.date.clone().unwrap_or_else(today),
        stamp: docs::stamp(clause, &url),
    };
    let text = &sources.get(file).text;
    let new_text =
        docs::rewrite_entry(text, span.range.start, &docs::reviewed_entry(&url, &review)).map_err(
            |why| {
                let d = Diagnostic::error(
            "K1136",
            format!(
                "the docs entry of `{}` cannot be rewritten: {why}",
                clause.id
            ),
        )
        .at(span.clone(), "this entry")
        .help("write the entry on one line, `CLAUSE: URL` or `CLAUSE: {url: URL}`, then review it");
                ctx.report(&[d], &sources).err().unwrap_or(Failure::Input)
            },
        )?;
    // The new text must load and judge the clause documented before it replaces the file.
    let mut check = SourceMap::default();
    let cid = check.add(req.profile.clone(), new_text.clone());
    let judged = profile::parse(cid, &check)
        .ok()
        .map(|p| docs::judge(clause, p.docs.get(&clause.id)).status);
    if judged != Some(docs::DocStatus::Documented) {
        eprintln!(
            "error: the review could not be written into `{shown}` without breaking it; nothing was written"
        );
        return Err(Failure::Input);
    }
    kcontract_spec::fsutil::write_atomic(&req.profile, new_text.as_bytes()).map_err(|e| {
        cannot(
            format!("cannot write `{shown}`: {e}"),
            "check the file's permissions; nothing was written",
        )
    })?;
    print(&format!(
        "reviewed the docs link of {} by {} on {}: {url} (stamp {}) in {shown}\n",
        clause.id, review.by, review.date, review.stamp
    ))
}

/// The contract a platform command judges against: the folder `--spec` names when it was given
/// (its problems reported as every command reports a spec's), else the built-in one (only its
/// errors reported: its warnings are for the contract's editors, not for whoever runs the
/// command). Stops the command on an error.
fn load_contract(ctx: &Ctx) -> Result<(Loaded, Source), Failure> {
    if ctx.spec_given {
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::All)?;
        return Ok((loaded, Source::Given(ctx.spec.clone())));
    }
    let mut loaded = crate::embedded::built_in();
    loaded.diagnostics.retain(Diagnostic::is_error);
    ctx.report(&loaded.diagnostics, &loaded.sources)?;
    Ok((loaded, Source::BuiltIn))
}

/// The rows of `table` whose clause the contract lacks
/// ([`kcontract_platform::contract::missing`]), reported; stops on an error.
fn report_missing(
    ctx: &Ctx,
    spec: &Spec,
    source: &Source,
    table: &kcontract_platform::contract::Table,
) -> Result<(), Failure> {
    ctx.report(
        &kcontract_platform::contract::missing(spec, source, table),
        &SourceMap::default(),
    )
}
