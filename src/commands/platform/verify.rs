//! `kcontract platform verify`: read the deployed probe (`--url`) and the platform's log of it
//! (`--events`), judge every check of the deployed route, write the report, print the results.
//! Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise and when the probe cannot be read
//! (K1130 unreachable, K1131 timeout, K1132 not a probe, K1133 an untrusted certificate, K1134 no
//! TLS on an https URL, K1135 an unusable `--ca-cert`, K1140 an `--events` or `--token-file` that
//! cannot be read) or the profile or the Service is wrong, 2 for a bad URL or a bad combination.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::shared::{
    contract_ref, docs_warnings, fail, load_contract, report_of, results_text, today, verdict,
    write_report,
};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_platform::platform_log::PlatformLog;
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::report::{FileRef, Platform, Report, sha256};
use kcontract_platform::service::{self, DEPLOY_SERVICE, DEPLOY_SERVICE_PATH, Service};
use kcontract_platform::tls::Trust;
use kcontract_platform::verify::{self as v, Target};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap};

#[derive(clap::Args, Debug)]
pub(crate) struct VerifyArgs {
    /// The deployed probe's URL (http[s]://HOST[:PORT][/PATH]); verify reads URL/report.
    #[arg(long, value_name = "URL", required_unless_present = "events")]
    url: Option<String>,
    /// The platform's log of the probe: what `kubectl logs -f` printed until the container
    /// ended, then a `kcontract-log-end` line (docs/deploying.md). Decides SIGTERM on a kill and
    /// SIGKILL after the grace period; with or without --url.
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
    /// The `Host` header to send instead of the URL's: an ingress reached by its address that
    /// routes by name (http only).
    #[arg(long, value_name = "NAME")]
    host: Option<String>,
    /// A file holding the bearer token the probe asks for (its Service sets
    /// KCONTRACT_PROBE_TOKEN).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The platform profile (docs/platforms.md) the probe is judged against.
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// The Service the probe was deployed with: its names, resources and timeoutSeconds are
    /// what the judges expect [default: platforms/deploy/service.yaml, built in].
    #[arg(long, value_name = "FILE")]
    service: Option<PathBuf>,
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

/// The `platform.kind` of a report of `platform verify`.
const VERIFY_KIND: &str = "verify";

/// What `platform verify` was asked for, checked.
struct Request {
    target: Option<Target>,
    events: Option<PathBuf>,
    token_file: Option<PathBuf>,
    profile: PathBuf,
    service: Option<PathBuf>,
    report: PathBuf,
    timeout: Duration,
    ca_cert: Option<PathBuf>,
}

/// The profile, the Service the deployed probe runs, the roots to check its certificate against,
/// the token and the log.
struct Inputs {
    profile: Profile,
    service: Service,
    service_ref: FileRef,
    trust: Trust,
    token: Option<String>,
    log: Option<PlatformLog>,
}

impl VerifyArgs {
    /// Runs the command, after checking the URL, the timeout, `--host` and that `--ca-cert` goes
    /// with https.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        super::shared::outputs_apart(
            ctx,
            &[
                ("--profile", Some(&self.profile), false),
                ("--service", self.service.as_deref(), false),
                ("--events", self.events.as_deref(), false),
                ("--token-file", self.token_file.as_deref(), false),
                ("--ca-cert", self.ca_cert.as_deref(), false),
                ("--report", Some(&self.report), true),
            ],
        )?;
        let target = self.target(ctx)?;
        let https = target.as_ref().is_some_and(|t| t.https);
        let usage = |what: &str, hint: &str| Err(ctx.usage(what, hint));
        if self.ca_cert.is_some() && !https {
            return usage(
                "--ca-cert without an https:// URL: there is no certificate to check",
                "give the https:// URL, or leave --ca-cert out",
            );
        }
        if self.timeout == 0 {
            return usage(
                "--timeout 0: a request cannot be answered in no time",
                "give a number of seconds, e.g. --timeout 10",
            );
        }
        if target.is_none() && (self.host.is_some() || self.token_file.is_some()) {
            return usage(
                "--host and --token-file go with --url: without it nothing is requested",
                "give the deployed probe's URL with --url, or leave them out",
            );
        }
        verify(
            ctx,
            &Request {
                target,
                events: self.events,
                token_file: self.token_file,
                profile: self.profile,
                service: self.service,
                report: self.report,
                timeout: Duration::from_secs(self.timeout),
                ca_cert: self.ca_cert,
            },
        )
    }

    /// `--url` read, with `--host`; a usage error for a bad URL or a `--host` over https.
    fn target(&self, ctx: &Ctx) -> Result<Option<Target>, Failure> {
        let Some(url) = &self.url else {
            return Ok(None);
        };
        let mut target = Target::parse(url).map_err(|e| {
            ctx.usage(
                &format!("--url {e}"),
                "give the deployed probe's URL, e.g. --url http://kcontract-probe.default.example.com",
            )
        })?;
        if let Some(h) = &self.host {
            if target.https {
                return Err(ctx.usage(
                    "--host with an https:// URL: the certificate is checked for the URL's host",
                    "give the name in the URL (https://NAME/, resolved by DNS or /etc/hosts), or \
                     reach the ingress over http with --host",
                ));
            }
            if h.is_empty()
                || h.chars()
                    .any(|c| c.is_whitespace() || c.is_control() || c == '/')
            {
                return Err(ctx.usage(
                    &format!("--host `{h}` is not a host name"),
                    "give the Service's host name, e.g. --host kcontract-probe.default.example.com",
                ));
            }
            target.host_header = Some(h.clone());
        }
        Ok(Some(target))
    }
}

/// The command's steps: the contract, the inputs, the probe read, the clauses judged, the report.
fn verify(ctx: &Ctx, req: &Request) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let Inputs {
        profile,
        service,
        service_ref,
        trust,
        token,
        log,
    } = inputs(ctx, spec, &source, req)?;
    announce(req, &profile, &trust, log.as_ref());
    let read = match &req.target {
        None => None,
        Some(t) => {
            let read = v::fetch(t, &trust, req.timeout, token.as_deref())
                .map_err(|e| fail(ctx, e.diagnostic()))?;
            // h2c is cleartext: over https the judge says so instead.
            let upgrade = (!t.https && profile.features.iter().any(|f| f == "h2c-upgrade"))
                .then(|| v::try_h2c(t, req.timeout));
            Some((t.clone(), read, upgrade))
        }
    };
    let probe_ref = probe_ref(req, read.as_ref().map(|(_, r, _)| r), log.as_ref());
    let observed = v::observed(&profile, &service, v::Seen { read, log });
    let clauses = v::clause_results(spec, &profile, &observed);
    let grace = observed.defaults.expected.grace.as_secs();
    let report = report(
        spec,
        req,
        &profile,
        (service_ref, probe_ref, grace),
        clauses,
    );
    write_report(ctx, &req.report, &report)?;
    print(&results_text(&report))?;
    verdict(&report)
}

/// Says on stderr what is read and what it is judged against.
fn announce(req: &Request, profile: &Profile, trust: &Trust, log: Option<&PlatformLog>) {
    let mut what = Vec::new();
    if let Some(t) = &req.target {
        let roots = if t.https {
            format!(", roots: {}", trust.source)
        } else {
            String::new()
        };
        let host = t
            .host_header
            .as_ref()
            .map_or_else(String::new, |h| format!(", Host: {h}"));
        what.push(format!(
            "{} (timeout {} s{roots}{host})",
            t.report_url(),
            req.timeout.as_secs()
        ));
    }
    if let Some(l) = log {
        what.push(format!(
            "the log {} ({} lines, {} of the probe's)",
            l.file,
            l.lines,
            l.events.len()
        ));
    }
    eprintln!(
        "platform verify: {}, profile {} ({})",
        what.join(" and "),
        profile.name,
        req.profile.display()
    );
}

/// The profile, the Service (`--service`, else the kit's), the roots, the token and the log, or
/// the command's end after reporting their problems (K1135 for `--ca-cert`, K1140 for a file that
/// cannot be read).
fn inputs(
    ctx: &Ctx,
    spec: &Spec,
    source: &kcontract_platform::contract::Source,
    req: &Request,
) -> Result<Inputs, Failure> {
    let mut sources = SourceMap::default();
    let mut diags = kcontract_platform::contract::missing(spec, source, &v::table());
    let profile = profile::load(&req.profile, &mut sources).map_err(|d| diags.extend(d));
    if let Ok(p) = &profile {
        diags.extend(docs_warnings(spec, p, &req.profile));
    }
    let service = service_file(req.service.as_deref(), &mut sources)
        .map_err(|d| diags.push(d))
        .and_then(|(sid, path)| {
            let parsed = service::parse(sid, &sources).map_err(|d| diags.extend(d))?;
            diags.extend(parsed.warnings);
            let r = FileRef {
                name: parsed.service.name.clone(),
                path,
                sha256: sha256(sources.get(sid).text.as_bytes()),
            };
            Ok((parsed.service, r))
        });
    let https = req.target.as_ref().is_some_and(|t| t.https);
    let trust = match (&req.ca_cert, https) {
        (Some(path), _) => Trust::from_pem_file(path).map_err(|e| diags.push(e.diagnostic())),
        (None, true) => Ok(Trust::system()),
        (None, false) => Ok(Trust::default()),
    };
    let token = match &req.token_file {
        None => Ok(None),
        Some(p) => read_file(p, "--token-file").map(|t| Some(t.trim().to_owned())),
    }
    .map_err(|d| diags.push(d));
    let log = match &req.events {
        None => Ok(None),
        Some(p) => read_file(p, "--events")
            .map(|text| Some(PlatformLog::parse(&p.display().to_string(), &text))),
    }
    .map_err(|d| diags.push(d));
    ctx.report(&diags, &sources)?;
    let (Ok(profile), Ok((service, service_ref)), Ok(trust), Ok(token), Ok(log)) =
        (profile, service, trust, token, log)
    else {
        return Err(Failure::Input);
    };
    Ok(Inputs {
        profile,
        service,
        service_ref,
        trust,
        token,
        log,
    })
}

/// The Service's file, read into `sources`: `--service`, else the kit's Service (whose report
/// reference has no path).
fn service_file(
    given: Option<&Path>,
    sources: &mut SourceMap,
) -> Result<(FileId, Option<String>), Diagnostic> {
    match given {
        Some(p) => kcontract_platform::yaml::read(p, sources, "K1103")
            .map(|id| (id, Some(p.display().to_string()))),
        None => Ok((
            sources.add(
                PathBuf::from(DEPLOY_SERVICE_PATH),
                DEPLOY_SERVICE.to_owned(),
            ),
            None,
        )),
    }
}

/// The text of `path`, given with `option`, or K1140.
fn read_file(path: &Path, option: &str) -> Result<String, Diagnostic> {
    kcontract_platform::input::read_text(path, |e| {
        Diagnostic::error(
            "K1140",
            format!("cannot read {option} {}: {e}", path.display()),
        )
        .in_file(path)
        .help(match option {
            "--events" => {
                "give the file the platform's log was captured into (docs/deploying.md, \
                 \"Collect the log\")"
            }
            _ => "give a file holding the token the probe's Secret holds",
        })
    })
}

/// The report's `probe`: `kcontract-probe VERSION` from the facts with the `/report` URL and the
/// SHA-256 of the answer; without a `/report`, the log (its path and SHA-256).
fn probe_ref(req: &Request, read: Option<&v::Read>, log: Option<&PlatformLog>) -> FileRef {
    match (read, &req.target, log) {
        (Some(r), Some(t), _) => FileRef {
            name: format!("kcontract-probe {}", r.facts.probe.version),
            path: Some(t.report_url()),
            sha256: sha256(r.body.as_bytes()),
        },
        (_, _, Some(l)) => FileRef {
            name: "kcontract-probe (its log)".into(),
            path: Some(l.file.clone()),
            sha256: sha256(
                kcontract_spec::fsutil::read_given(
                    Path::new(&l.file),
                    kcontract_spec::fsutil::MAX_INPUT,
                )
                .unwrap_or_default()
                .as_slice(),
            ),
        },
        _ => FileRef {
            name: "kcontract-probe".into(),
            path: None,
            sha256: sha256(b""),
        },
    }
}

/// The report: the platform is the URL's host (the log's file without a URL).
fn report(
    spec: &Spec,
    req: &Request,
    profile: &Profile,
    (service, probe, grace_period_s): (FileRef, FileRef, u64),
    clauses: Vec<kcontract_platform::report::ClauseResult>,
) -> Report {
    let (runtime, host) = match (&req.target, &req.events) {
        (Some(t), _) => (t.host.clone(), t.url.clone()),
        (None, Some(e)) => ("platform log".to_owned(), e.display().to_string()),
        (None, None) => (String::new(), String::new()),
    };
    let platform = Platform {
        kind: VERIFY_KIND.into(),
        runtime,
        runtime_version: String::new(),
        host,
        date: today(),
        profile: FileRef {
            name: profile.name.clone(),
            path: Some(req.profile.display().to_string()),
            sha256: sha256(
                kcontract_spec::fsutil::read_given(&req.profile, kcontract_spec::fsutil::MAX_INPUT)
                    .unwrap_or_default()
                    .as_slice(),
            ),
        },
        service,
        grace_period_s,
        features: profile.features.clone(),
        probe,
        kcontract: env!("CARGO_PKG_VERSION").to_owned(),
        contract: contract_ref(spec),
        control: None,
    };
    report_of(
        platform,
        clauses,
        kcontract_platform::docs::judge_all(spec, profile),
    )
}
