//! `kcontract platform run`: load the spec, the profile and the Service (every problem reported at
//! its line), check the environment (root, the runtime, a static probe), run the probe as the
//! profile's platform would (the simulated route), judge every check it decides, write the report
//! (and its JUnit and TAP exports), print the results. Exit 0 when no MUST or MUST NOT clause fails
//! (or could not be checked), 1 otherwise or for a problem in the input or the environment, 2 for
//! usage errors. With several negative controls (`--control all`) the runs go concurrently and
//! each control must fail exactly the clauses whose checks name it.

use std::path::{Path, PathBuf};

use strum::VariantArray;

use super::shared::{
    contract_ref, docs_warnings, fail, find_probe, load_contract, report_of, results_text, today,
    verdict, write_output, write_report,
};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_oci::conformance::{OciRuntime, Session, require_root};
use kcontract_platform::contract::Source;
use kcontract_platform::controls::Control;
use kcontract_platform::local::{Judged, RunPlan, run_all};
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::report::{self, FileRef, Platform, Report, sha256};
use kcontract_platform::service::{self, CONFORMANCE_SERVICE, CONFORMANCE_SERVICE_PATH, Service};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap};

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
    pub(super) probe: Option<PathBuf>,
    /// Apply a negative control (docs/platforms.md lists them): the run must then fail exactly
    /// the clauses whose checks name it. Repeatable, or `all`: then the profile's own run (the
    /// report) and each control's run go concurrently, and each control must fail exactly its
    /// clauses (exit 1 otherwise).
    #[arg(long, value_name = "NAME")]
    control: Vec<String>,
    /// With several controls: how many runs at a time (each mostly waits out its grace period).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(super) jobs: usize,
}

/// The local runtimes a run can use.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum LocalRuntime {
    Runc,
    Crun,
}

impl RunArgs {
    /// Checks the outputs, the controls' names and `--jobs`: the runtime and the controls to run
    /// (none: the profile's own run). The platform dispatcher then runs one run here or several
    /// in `controls_run`, which builds on this file's steps (so this file does not call it).
    pub(super) fn plan(&self, ctx: &Ctx) -> Result<(OciRuntime, Vec<Control>), Failure> {
        super::shared::outputs_apart(
            ctx,
            &[
                ("--profile", Some(&self.profile), false),
                ("--service", self.service.as_deref(), false),
                ("--probe", self.probe.as_deref(), false),
                ("--report", Some(&self.report), true),
                ("--junit", self.junit.as_deref(), true),
                ("--tap", self.tap.as_deref(), true),
            ],
        )?;
        let mut controls: Vec<Control> = Vec::new();
        for name in &self.control {
            if name == "all" {
                controls.extend(Control::VARIANTS);
                continue;
            }
            controls.push(Control::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Control::VARIANTS.iter().map(|c| c.name()).collect();
                ctx.usage(
                    &format!("no negative control `{name}`"),
                    &format!("all, or one of: {}", names.join(", ")),
                )
            })?);
        }
        controls.sort_unstable();
        controls.dedup();
        if self.jobs == 0 {
            return Err(ctx.usage(
                "--jobs 0: no run would start",
                "give how many runs go at a time, e.g. --jobs 4",
            ));
        }
        let runtime = match self.runtime {
            LocalRuntime::Runc => OciRuntime::Runc,
            LocalRuntime::Crun => OciRuntime::Crun,
        };
        Ok((runtime, controls))
    }
}

/// The profile and the Service, read and checked, with the references the report gives them.
pub(super) struct Inputs {
    pub(super) profile: Profile,
    pub(super) service: Service,
    profile_ref: FileRef,
    service_ref: FileRef,
}

/// What the run runs on: the static probe (and its digest, taken before the run) and a session on
/// the runtime.
pub(super) struct Environment {
    pub(super) probe: PathBuf,
    probe_sha256: String,
    pub(super) session: Session,
}

/// The command's steps: the contract, the inputs, the environment, the run, the report.
pub(super) fn run(
    ctx: &Ctx,
    args: &RunArgs,
    runtime: OciRuntime,
    control: Option<Control>,
) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let inputs = inputs(ctx, spec, &source, args)?;
    let env = environment(args.probe.as_deref(), runtime).map_err(|d| fail(ctx, d))?;
    let grace = announce(args, runtime, &inputs, &env, control);
    let judged = run_judged(ctx, &env, &inputs, control)?;
    let report = report_of_run(spec, runtime, inputs, env, (&judged, grace));
    write_all(ctx, args, &report)?;
    print(&results_text(&report))?;
    verdict(&report)
}

/// The report of `judged`, a run with `grace` seconds of grace period; the session is cleaned up
/// (every container and folder it made) before.
pub(super) fn report_of_run(
    spec: &Spec,
    runtime: OciRuntime,
    inputs: Inputs,
    env: Environment,
    (judged, grace): (&Judged, u64),
) -> Report {
    let control = judged.control;
    let Environment {
        probe,
        probe_sha256,
        session,
    } = env;
    let runtime_version = session.cli().version().to_owned();
    // The session's clean-up (every container and folder it made) before the report is written.
    drop(session);
    let platform = Platform {
        kind: "local".into(),
        runtime: runtime.to_string(),
        runtime_version,
        host: host_line(),
        date: today(),
        grace_period_s: grace,
        features: inputs.profile.features.clone(),
        probe: FileRef {
            name: format!("kcontract-probe {}", probe_version(judged)),
            path: Some(probe.display().to_string()),
            sha256: probe_sha256,
        },
        kcontract: env!("CARGO_PKG_VERSION").to_owned(),
        contract: contract_ref(spec),
        control: control.map(|c| c.name().to_owned()),
        profile: inputs.profile_ref,
        service: inputs.service_ref,
    };
    report_of(
        platform,
        report::clause_results(spec, &judged.verdicts),
        kcontract_platform::docs::judge_all(spec, &inputs.profile),
    )
}

/// The profile and the Service, or the command's end after reporting their problems (all of them,
/// with the contract's missing clauses, at once); then, before anything runs, what the run will
/// wait when the Service sets no `timeoutSeconds` ([`grace_note`]).
pub(super) fn inputs(
    ctx: &Ctx,
    spec: &Spec,
    source: &Source,
    args: &RunArgs,
) -> Result<Inputs, Failure> {
    let inputs = read_inputs(ctx, spec, source, args)?;
    if let Some(note) = grace_note(&inputs.profile, &inputs.service) {
        eprintln!("{note}");
    }
    Ok(inputs)
}

/// When the Service sets no `timeoutSeconds` (or the profile does not take the grace period from
/// it): where the grace period comes from and what the run waits for it. A run's second container
/// ignores SIGTERM, so the run lasts the grace period; the profile's default (Knative's 300 s)
/// would otherwise pass silently as a hang.
pub(super) fn grace_note(profile: &Profile, service: &Service) -> Option<String> {
    let grace = profile.grace_period_s;
    match service.timeout_seconds {
        None => Some(format!(
            "note: the Service sets no timeoutSeconds: the grace period is the profile's \
             lifecycle.grace_period_s, {grace} s, and the run waits it out ({grace} s) before \
             SIGKILL ends the container that ignores SIGTERM; set \
             spec.template.spec.timeoutSeconds in the Service for a shorter run"
        )),
        Some(t) if !profile.grace_from_timeout && t != grace => Some(format!(
            "note: the profile does not take the grace period from timeoutSeconds \
             (lifecycle.grace_from_timeout is false): the run waits the profile's {grace} s, not \
             the Service's {t} s"
        )),
        Some(_) => None,
    }
}

/// [`inputs`]' reading and checking.
fn read_inputs(ctx: &Ctx, spec: &Spec, source: &Source, args: &RunArgs) -> Result<Inputs, Failure> {
    let mut sources = SourceMap::default();
    let mut diags =
        kcontract_platform::contract::missing(spec, source, &kcontract_platform::checks::table());
    let profile = match profile::load(&args.profile, &mut sources) {
        Ok(p) => {
            diags.extend(docs_warnings(spec, &p, &args.profile));
            Some(p)
        }
        Err(d) => {
            diags.extend(d);
            None
        }
    };
    let file = match service_file(args.service.as_deref(), &mut sources) {
        Ok(f) => Some(f),
        Err(d) => {
            diags.push(d);
            None
        }
    };
    let service = file
        .as_ref()
        .and_then(|&(id, _)| match service::parse(id, &sources) {
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
    let (Some(profile), Some(service), Some((sid, service_path))) = (profile, service, file) else {
        return Err(Failure::Input);
    };
    Ok(Inputs {
        profile_ref: FileRef {
            name: profile.name.clone(),
            path: Some(args.profile.display().to_string()),
            sha256: sha256(
                kcontract_spec::fsutil::read_given(
                    &args.profile,
                    kcontract_spec::fsutil::MAX_INPUT,
                )
                .unwrap_or_default()
                .as_slice(),
            ),
        },
        service_ref: FileRef {
            name: service.name.clone(),
            path: service_path,
            sha256: sha256(sources.get(sid).text.as_bytes()),
        },
        profile,
        service,
    })
}

/// The Service's file, read into `sources`: `--service`, else the built-in conformance Service
/// (whose report reference has no path).
fn service_file(
    given: Option<&Path>,
    sources: &mut SourceMap,
) -> Result<(FileId, Option<String>), Diagnostic> {
    match given {
        Some(p) => kcontract_platform::yaml::read(p, sources, "K1103")
            .map(|id| (id, Some(p.display().to_string()))),
        None => Ok((
            sources.add(
                PathBuf::from(CONFORMANCE_SERVICE_PATH),
                CONFORMANCE_SERVICE.to_owned(),
            ),
            None,
        )),
    }
}

/// Root, the static probe and a session on the runtime, or why not (K0703, K1110).
pub(super) fn environment(
    probe: Option<&Path>,
    runtime: OciRuntime,
) -> Result<Environment, Diagnostic> {
    require_root("platform run").map_err(|e| e.diagnostic())?;
    let probe = find_probe(probe)?;
    let session = Session::bare(runtime).map_err(|e| e.diagnostic())?;
    Ok(Environment {
        probe_sha256: sha256(
            &kcontract_spec::fsutil::read_regular(&probe, 256 << 20).unwrap_or_default(),
        ),
        probe,
        session,
    })
}

/// Says on stderr what runs, where and with which control; the grace period, in seconds.
pub(super) fn announce(
    args: &RunArgs,
    runtime: OciRuntime,
    inputs: &Inputs,
    env: &Environment,
    control: Option<Control>,
) -> u64 {
    let grace = kcontract_platform::expect::expected(
        &inputs.profile,
        &inputs.service,
        &kcontract_platform::expect::probe_image(Vec::new()),
    )
    .grace
    .as_secs();
    eprintln!(
        "platform run: {} {} ({}), profile {} ({}), Service {}; grace period {grace} s",
        runtime,
        env.session.cli().version(),
        env.session.cli().program().display(),
        inputs.profile.name,
        args.profile.display(),
        inputs.service.name,
    );
    if let Some(c) = control {
        eprintln!("negative control `{}`: {}", c.name(), c.describe());
    }
    grace
}

/// The one run, judged; its progress on stderr. A harness failure is K0703.
fn run_judged(
    ctx: &Ctx,
    env: &Environment,
    inputs: &Inputs,
    control: Option<Control>,
) -> Result<Judged, Failure> {
    let plan = RunPlan {
        session: &env.session,
        probe: &env.probe,
        profile: &inputs.profile,
        service: &inputs.service,
        runs: &[control],
        jobs: 1,
    };
    match run_all(&plan, &|line: &str| eprintln!("  {line}")).pop() {
        Some(Ok(j)) => Ok(j),
        Some(Err(e)) => Err(fail(ctx, e.diagnostic())),
        None => Err(Failure::Input),
    }
}

/// The report, and its JUnit and TAP exports when asked for.
pub(super) fn write_all(ctx: &Ctx, args: &RunArgs, report: &Report) -> Outcome {
    write_report(ctx, &args.report, report)?;
    if let Some(p) = &args.junit {
        write_output(ctx, p, &kcontract_platform::export::junit(report))?;
    }
    if let Some(p) = &args.tap {
        write_output(ctx, p, &kcontract_platform::export::tap(report))?;
    }
    Ok(())
}

/// The probe's version, as its facts say.
fn probe_version(j: &Judged) -> String {
    j.observed
        .main
        .facts
        .as_ref()
        .map_or_else(|| "unknown".to_owned(), |f| f.probe.version.clone())
}

/// The host, in a line: the OS, kernel, architecture, cgroup layout.
fn host_line() -> String {
    #[allow(clippy::disallowed_methods)] // /etc/os-release, the host's, for the report's host line
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| "Linux".into());
    #[allow(clippy::disallowed_methods)] // /proc, the kernel's state
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
