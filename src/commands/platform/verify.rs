//! `kcontract platform verify`: read the deployed probe, judge the request-side clauses and the
//! platform's defaults, write the report, print the results. Exit 0 when no MUST or MUST NOT clause
//! fails, 1 otherwise and when the probe cannot be read (K1130 unreachable, K1131 timeout, K1132
//! not a probe, K1133 an untrusted certificate, K1134 no TLS on an https URL, K1135 an unusable
//! `--ca-cert`) or the profile is wrong, 2 for a bad URL.

use std::path::PathBuf;
use std::time::Duration;

use super::shared::{
    contract_ref, docs_warnings, fail, load_contract, report_of, results_text, today, verdict,
    write_report,
};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::report::{FileRef, Platform, Report, sha256};
use kcontract_platform::service::{self, CONFORMANCE_SERVICE, CONFORMANCE_SERVICE_PATH, Service};
use kcontract_platform::tls::Trust;
use kcontract_platform::verify::{self as v, Target};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::SourceMap;

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

/// The `platform.kind` of a report of `platform verify`.
const VERIFY_KIND: &str = "verify";

/// What `platform verify` was asked for, checked.
struct Request {
    target: Target,
    profile: PathBuf,
    report: PathBuf,
    timeout: Duration,
    ca_cert: Option<PathBuf>,
}

/// The profile, the Service a deployed probe runs and the roots to check its certificate against.
struct Inputs {
    profile: Profile,
    service: Service,
    trust: Trust,
}

impl VerifyArgs {
    /// Runs the command, after checking the URL, the timeout and that `--ca-cert` goes with https.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        let target = Target::parse(&self.url).map_err(|e| {
            ctx.usage(
                &format!("--url {e}"),
                "give the deployed probe's URL, e.g. --url http://kcontract-probe.default.example.com",
            )
        })?;
        if self.ca_cert.is_some() && !target.https {
            return Err(ctx.usage(
                "--ca-cert with an http:// URL: there is no certificate to check",
                "give the https:// URL, or leave --ca-cert out",
            ));
        }
        if self.timeout == 0 {
            return Err(ctx.usage(
                "--timeout 0: a request cannot be answered in no time",
                "give a number of seconds, e.g. --timeout 10",
            ));
        }
        verify(
            ctx,
            &Request {
                target,
                profile: self.profile,
                report: self.report,
                timeout: Duration::from_secs(self.timeout),
                ca_cert: self.ca_cert,
            },
        )
    }
}

/// The command's steps: the contract, the inputs, the probe read, the clauses judged, the report.
fn verify(ctx: &Ctx, req: &Request) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let Inputs {
        profile,
        service,
        trust,
    } = inputs(ctx, spec, &source, req)?;
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
    let read = v::fetch(&req.target, &trust, req.timeout).map_err(|e| fail(ctx, e.diagnostic()))?;
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
    let report = report(spec, req, &profile, &read, v::clause_results(spec, &seen));
    write_report(ctx, &req.report, &report)?;
    print(&results_text(&report))?;
    verdict(&report)
}

/// The profile, the Service the probe's image stands for (the built-in conformance Service) and
/// the roots, or the command's end after reporting their problems (K1135 for `--ca-cert`).
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
    let sid = sources.add(
        PathBuf::from(CONFORMANCE_SERVICE_PATH),
        CONFORMANCE_SERVICE.to_owned(),
    );
    let service = service::parse(sid, &sources).map_err(|d| diags.extend(d));
    let trust = match (&req.ca_cert, req.target.https) {
        (Some(path), _) => Trust::from_pem_file(path).map_err(|e| diags.push(e.diagnostic())),
        (None, true) => Ok(Trust::system()),
        (None, false) => Ok(Trust::default()),
    };
    ctx.report(&diags, &sources)?;
    let (Ok(profile), Ok(service), Ok(trust)) = (profile, service, trust) else {
        return Err(Failure::Input);
    };
    Ok(Inputs {
        profile,
        service: service.service,
        trust,
    })
}

/// The report of what `read` showed: the platform is the URL's host, the probe its answer.
fn report(
    spec: &Spec,
    req: &Request,
    profile: &Profile,
    read: &v::Read,
    clauses: Vec<kcontract_platform::report::ClauseResult>,
) -> Report {
    let platform = Platform {
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
        probe: FileRef {
            name: format!("kcontract-probe {}", read.facts.probe.version),
            path: Some(req.target.report_url()),
            sha256: sha256(read.body.as_bytes()),
        },
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
