//! `kcontract platform verify`: a probe deployed on a real platform (`kcontract-probe serve`
//! behind the platform's ingress), read over http or https, and the platform's log of it. The
//! route is `deployed`: every check of the one table (`checks::CHECKS`) whose facts the deployed
//! probe gives ([`checks::provides`]) is judged, with the same judge a local run uses where both
//! routes decide it. The probe reports the request as it reached the container; the verifier sent
//! that request, so it knows what the platform added, changed or dropped on the way (`Host`,
//! `Forwarded`, `X-Forwarded-*`, the trace context, a user header, an `Upgrade: h2c`,
//! `judge_deployed`). The facts answer what the probe sees of its container (the environment, the
//! user, the filesystems, the cgroup, the devices, the capabilities); the log (`--events`) the
//! shutdown.
//!
//! Over https ([`super::tls`]) the certificate is verified against the system's roots or
//! `--ca-cert`, and what arrives at the probe judges the platform's TLS termination; the h2c
//! upgrade, cleartext HTTP/2 by definition, is judged over http only.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use kcontract_probe::facts::{FORMAT, Facts};
use serde_json::Value;

use super::checks::{self, Input, Status, Verdict};
use super::expect::{expected, probe_image};
use super::observed::{Container, Http, Ingress, Observed, Role, Shutdown};
use super::platform_log::PlatformLog;
use super::profile::Profile;
use super::report::ClauseResult;
use super::routes::{self, Route};
use super::service::Service;
use super::tls::{self, Handshake, Trust};
use kcontract_spec::Spec;

/// The user header sent with the request (the name Knative's `TestShouldHaveHeadersSet` uses);
/// its value has spaces, a colon and mixed case, which a proxy must pass as they are.
pub(crate) const USER_HEADER: (&str, &str) =
    ("This-Was-User-Set", "kcontract verify: Mixed Case 1");

/// The W3C trace id sent (`kcontract-verify` in hexadecimal: the same in every run, so reports
/// of the same platform compare).
pub(crate) const TRACE_ID: &str = "6b636f6e74726163742d766572696679";

/// The `traceparent` sent: version 00, [`TRACE_ID`], a parent id, sampled.
pub(crate) const TRACEPARENT: &str = "00-6b636f6e74726163742d766572696679-6b636f6e74726163-01";

/// `HTTP2-Settings` of the upgrade request: base64url of a SETTINGS payload
/// (MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE 65535), RFC 7540 section 3.2.1.
const HTTP2_SETTINGS: &str = "AAMAAABkAAQAAP__";

/// The largest `/report` answer read (a probe's facts are tens of kilobytes).
const MAX_BODY: u64 = 16 << 20;

/// Why `--url` is not a URL `verify` can read (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    /// It does not parse as a URL.
    #[error("`{url}` is not a URL: {source}")]
    NotAUrl {
        /// The URL as given.
        url: String,
        /// What the parser found.
        #[source]
        source: ureq::http::uri::InvalidUri,
    },
    /// Its scheme is not http or https.
    #[error("`{url}`: the scheme `{scheme}` is neither http nor https")]
    Scheme {
        /// The URL as given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// It has no scheme.
    #[error("`{0}` has no scheme: give http://HOST[:PORT]")]
    NoScheme(String),
    /// It has no host.
    #[error("`{0}` has no host")]
    NoHost(String),
    /// It has a query, which the path `verify` adds would follow.
    #[error("`{0}` has a query; verify adds /report to the URL's path")]
    Query(String),
}

/// A URL `verify` can read: `http[s]://HOST[:PORT][/PATH]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL as given.
    pub url: String,
    /// Whether it is an `https://` URL.
    pub https: bool,
    /// Its host (a name, an IPv4 address, or an IPv6 address without brackets).
    pub host: String,
    /// Its port (80, or 443 for https, when not given).
    pub port: u16,
    /// Whether the URL names the port.
    pub explicit_port: bool,
    /// Its path without a trailing `/` (`""` for none).
    pub base_path: String,
    /// The `Host` to send instead of the URL's (`--host`: an ingress reached by its address that
    /// routes by name).
    pub host_header: Option<String>,
}

impl Target {
    /// Reads `url`. The error is a usage error.
    pub fn parse(url: &str) -> Result<Target, UrlError> {
        let uri: ureq::http::Uri = url.parse().map_err(|source| UrlError::NotAUrl {
            url: url.to_owned(),
            source,
        })?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => {
                return Err(UrlError::Scheme {
                    url: url.to_owned(),
                    scheme: other.to_owned(),
                });
            }
            None => return Err(UrlError::NoScheme(url.to_owned())),
        };
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| UrlError::NoHost(url.to_owned()))?;
        if uri.query().is_some() {
            return Err(UrlError::Query(url.to_owned()));
        }
        Ok(Target {
            url: url.to_owned(),
            https,
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port: uri.port_u16().unwrap_or(if https { 443 } else { 80 }),
            explicit_port: uri.port().is_some(),
            base_path: uri.path().trim_end_matches('/').to_owned(),
            host_header: None,
        })
    }

    /// The `Host` the client sends: `--host`, else the URL's host with the port when the URL
    /// names one.
    pub(crate) fn authority(&self) -> String {
        self.host_header
            .clone()
            .unwrap_or_else(|| self.url_authority())
    }

    /// The URL's host, with the port when the URL names one.
    fn url_authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.explicit_port {
            format!("{host}:{}", self.port)
        } else {
            host
        }
    }

    /// `http` or `https`.
    pub(crate) fn scheme(&self) -> &'static str {
        if self.https { "https" } else { "http" }
    }

    /// The probe's `/report` under the URL.
    pub fn report_url(&self) -> String {
        format!(
            "{}://{}{}/report",
            self.scheme(),
            self.url_authority(),
            self.base_path
        )
    }
}

pub use super::fetch_error::FetchError;

/// What the verifier read from the probe.
#[derive(Debug, Clone)]
pub struct Read {
    /// The facts, with the request as the probe received it.
    pub facts: Facts,
    /// The answer's bytes (the report's SHA-256 is of these).
    pub body: String,
    /// The TLS handshake, over https.
    pub tls: Option<Handshake>,
    /// The answer's status line as the client saw it (`HTTP/1.1 200 OK`).
    pub status_line: String,
}

/// Reads `target`'s `/report`, sending [`USER_HEADER`], [`TRACEPARENT`], the `Host` of `--host`
/// and the bearer `token` when given; over https the server's certificate must chain to `trust`
/// (a handshake of its own first, whose failure says exactly what is wrong; then ureq's request
/// with the same roots).
pub fn fetch(
    target: &Target,
    trust: &Trust,
    timeout: Duration,
    token: Option<&str>,
) -> Result<Read, FetchError> {
    let url = target.report_url();
    let what = format!("GET {url}");
    let tls = if target.https {
        tls::install_provider();
        Some(tls::handshake(
            &target.host,
            target.port,
            trust,
            timeout,
            &what,
        )?)
    } else {
        None
    };
    let tls_config = ureq::tls::TlsConfig::builder()
        .provider(ureq::tls::TlsProvider::Rustls)
        .root_certs(trust.ureq_roots())
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .tls_config(tls_config)
        .build()
        .into();
    let classify = |e: ureq::Error| {
        let timed_out = matches!(&e, ureq::Error::Timeout(_))
            || matches!(&e, ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut);
        let rustls_error = match &e {
            ureq::Error::Rustls(r) => Some(r.clone()),
            ureq::Error::Io(io) => io
                .get_ref()
                .and_then(|i| i.downcast_ref::<rustls::Error>())
                .cloned(),
            _ => None,
        };
        match (e, rustls_error) {
            _ if timed_out => FetchError::Timeout(format!(
                "GET {url} had no answer within {} s",
                timeout.as_secs()
            )),
            (_, Some(r)) => tls::from_rustls(&r, &target.host, trust, &what),
            (
                e
                @ (ureq::Error::Io(_) | ureq::Error::HostNotFound | ureq::Error::ConnectionFailed),
                None,
            ) => FetchError::Unreachable(format!("GET {url}: {e}")),
            (other, None) => FetchError::NotAProbe(format!("GET {url}: {other}")),
        }
    };
    let mut request = agent
        .get(&url)
        .header(USER_HEADER.0, USER_HEADER.1)
        .header("traceparent", TRACEPARENT);
    if let Some(h) = &target.host_header {
        request = request.header("Host", h);
    }
    if let Some(t) = token {
        request = request.header("Authorization", format!("Bearer {t}"));
    }
    let response = request.call().map_err(classify)?;
    let status = response.status().as_u16();
    let status_line = format!(
        "{:?} {status} {}",
        response.version(),
        response.status().canonical_reason().unwrap_or("")
    );
    // A platform that sends http to https answers with a redirect, which is not followed: the
    // message names where it points.
    let location = response
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .map(str::to_owned);
    let body = response
        .into_body()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .map_err(classify)?;
    if status != 200 {
        let why = match (status, location) {
            (300..=399, Some(l)) => format!(" (a redirect to {l}, not followed)"),
            (401, _) if token.is_some() => {
                " (the probe refused the bearer token of --token-file)".to_owned()
            }
            (401, _) => " (the probe asks for a bearer token: its Service sets \
                          KCONTRACT_PROBE_TOKEN; give it with --token-file FILE)"
                .to_owned(),
            _ => String::new(),
        };
        return Err(FetchError::NotAProbe(format!(
            "GET {url} answered {status}{why}, not 200 with the probe's facts"
        )));
    }
    let facts = facts_of(&url, &body)?;
    Ok(Read {
        facts,
        body,
        tls,
        status_line,
    })
}

/// The facts of a `200` answer's `body`, or why it is not a serving probe's.
fn facts_of(url: &str, body: &str) -> Result<Facts, FetchError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        FetchError::NotAProbe(format!("GET {url} answered 200, but not with JSON: {e}"))
    })?;
    match value.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(FetchError::NotAProbe(format!(
                "GET {url} answered a `{other}` document, not `{FORMAT}` facts"
            )));
        }
        None => {
            return Err(FetchError::NotAProbe(format!(
                "GET {url} answered JSON without `format`: not `{FORMAT}` facts"
            )));
        }
    }
    let facts: Facts = serde_json::from_value(value).map_err(|e| {
        FetchError::NotAProbe(format!(
            "GET {url} answered malformed `{FORMAT}` facts: {e}"
        ))
    })?;
    if facts.request.is_none() {
        return Err(FetchError::NotAProbe(format!(
            "GET {url} answered facts without the request: the probe is not in `serve` mode"
        )));
    }
    Ok(facts)
}

/// The answer to an `Upgrade: h2c` request: its status line, or what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    /// `HTTP/1.1 101 Switching Protocols`, when an answer came.
    pub status_line: Option<String>,
    /// The error, when none did.
    pub error: Option<String>,
}

/// Sends `GET /report` with `Upgrade: h2c` (RFC 7540 section 3.2) on a connection of its own (the
/// client's side of an upgrade, which an HTTP library does not expose) and reads the status line.
pub fn try_h2c(target: &Target, timeout: Duration) -> Upgrade {
    let attempt = || -> std::io::Result<String> {
        let addr = (target.host.as_str(), target.port)
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other("the host has no address"))?;
        let mut s = TcpStream::connect_timeout(&addr, timeout)?;
        s.set_read_timeout(Some(timeout))?;
        s.set_write_timeout(Some(timeout))?;
        write!(
            s,
            "GET {}/report HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade, HTTP2-Settings\r\n\
             Upgrade: h2c\r\nHTTP2-Settings: {HTTP2_SETTINGS}\r\n\r\n",
            target.base_path,
            target.authority()
        )?;
        s.flush()?;
        let mut line = String::new();
        BufReader::new(std::io::Read::take(s, 8192)).read_line(&mut line)?;
        Ok(line.trim_end().to_owned())
    };
    match attempt() {
        Ok(l) if !l.is_empty() => Upgrade {
            status_line: Some(l),
            error: None,
        },
        Ok(_) => Upgrade {
            status_line: None,
            error: Some("the connection closed without an answer".into()),
        },
        Err(e) => Upgrade {
            status_line: None,
            error: Some(e.to_string()),
        },
    }
}

/// What verify saw: the probe's answer and the upgrade over the ingress (`None` when only a log
/// was given), the platform's log (`None` when none was).
pub struct Seen {
    /// The `/report` read, with the URL and the `Upgrade: h2c` answer.
    pub read: Option<(Target, Read, Option<Upgrade>)>,
    /// The platform's log of the probe.
    pub log: Option<PlatformLog>,
}

/// The deployed probe as a run's observations: both containers are the deployed one, whose
/// Service (`service`, the kit's by default) names no port and no user, so the judges of the
/// platform's defaults compare its facts with the profile; the exchange is the one through the
/// ingress. Without a `/report` (only a log) there are no facts: the checks that need them are
/// not judged.
pub fn observed(profile: &Profile, service: &Service, seen: Seen) -> Observed {
    let bare = service.without_developer_choices();
    let facts = seen.read.as_ref().map(|(_, r, _)| r.facts.clone());
    let http = seen.read.as_ref().map(|(_, r, _)| Http {
        port: r
            .facts
            .env
            .get("PORT")
            .and_then(|p| p.parse().ok())
            .unwrap_or(0),
        status_line: Some(r.status_line.clone()),
        facts: Some(r.facts.clone()),
        error: None,
    });
    let container = |role| Container {
        role,
        expected: expected(profile, &bare, &probe_image(Vec::new())),
        config: None,
        facts: facts.clone(),
        problem: facts
            .is_none()
            .then(|| "no /report was read (only a log was given)".to_owned()),
        events: Vec::new(),
        http: http.clone(),
        routed: None,
        host_cgroup: BTreeMap::new(),
        shutdown: Shutdown::default(),
    };
    let ingress = seen.read.and_then(|(target, read, upgrade)| {
        Some(Ingress {
            request: read.facts.request?,
            target,
            upgrade,
            tls: read.tls,
        })
    });
    Observed {
        main: container(Role::Main),
        defaults: container(Role::Defaults),
        host_namespaces: BTreeMap::new(),
        ingress,
        log: seen.log,
    }
}

/// Whether `observed` has what `need` names: the probe's facts and the exchange only from a
/// `/report`, the ingress only from a request, the log only when one was given.
fn has(observed: &Observed, need: checks::Need) -> bool {
    use checks::Need;
    match need {
        Need::Probe | Need::Exchange => observed.main.facts.is_some(),
        Need::Ingress => observed.ingress.is_some(),
        Need::Log => observed.log.is_some(),
        _ => false,
    }
}

/// Every testable clause of `spec`: the verdict of each of its checks the deployed route decides
/// (`not-run`, saying what to give, when this verify lacks what a check needs: a `/report` or a
/// log), else one `not-run` entry naming the routes that decide it.
pub fn clause_results(spec: &Spec, profile: &Profile, observed: &Observed) -> Vec<ClauseResult> {
    let input = Input { profile, observed };
    let mut out = Vec::new();
    for c in spec.clauses.iter().filter(|c| !c.verify.is_untestable()) {
        let entry = |check: Option<&str>, v: Verdict| ClauseResult {
            id: c.id.clone(),
            level: c.level.as_str().to_owned(),
            stamp: c.stamp.clone(),
            status: v.status,
            check: check.map(str::to_owned),
            evidence: v.evidence,
            message: v.message,
            route: Some(Route::Deployed),
        };
        let rows: Vec<_> = checks::for_clause_on(&c.id, Route::Deployed).collect();
        if rows.is_empty() {
            out.push(entry(None, not_run(elsewhere(c))));
            continue;
        }
        for row in rows {
            let v = match row.needs.iter().find(|n| !has(observed, **n)) {
                None => (row.judge)(&input),
                Some(checks::Need::Log) => not_run(
                    "no log of the probe was given: capture it as docs/deploying.md says and give \
                     it with `platform verify --events FILE`",
                ),
                Some(_) => {
                    not_run("no /report was read: give the deployed probe's URL with `--url`")
                }
            };
            out.push(entry(Some(row.name), v));
        }
    }
    out
}

/// Why the deployed route does not judge `clause`: the routes that do, or why none does.
fn elsewhere(clause: &kcontract_spec::Clause) -> String {
    let r = routes::of(clause);
    if r.routes.is_empty() {
        return format!(
            "no route of kcontract decides it ({})",
            r.reason.map_or("untestable", |x| x.as_str())
        );
    }
    let names: Vec<&str> = r.routes.iter().map(|r| r.as_str()).collect();
    format!(
        "the deployed route does not decide it: {} (docs/platforms.md, \"Routes\")",
        names.join(", ")
    )
}

fn not_run(message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::NotRun,
        evidence: Value::Null,
        message: message.into(),
    }
}

/// The table as [`super::contract::missing`] reads it.
pub fn table() -> super::contract::Table {
    checks::deployed_table()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(t.report_url(), "http://127.0.0.1:8080/report");
        assert_eq!(t.authority(), "127.0.0.1:8080");
        let t = Target::parse("http://probe.example.com/x/").unwrap();
        assert_eq!((t.port, t.authority().as_str()), (80, "probe.example.com"));
        assert_eq!(t.report_url(), "http://probe.example.com/x/report");
        let t = Target::parse("https://a.example/p").unwrap();
        assert_eq!((t.https, t.port), (true, 443));
        assert_eq!(t.report_url(), "https://a.example/p/report");
        assert_eq!(
            Target::parse("https://a.example:8443").unwrap().authority(),
            "a.example:8443"
        );
        assert!(Target::parse("ftp://a.example").is_err());
        assert!(Target::parse("not a url").is_err());
        assert!(Target::parse("a.example").is_err());
    }
}
