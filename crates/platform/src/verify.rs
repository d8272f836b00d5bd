//! `kcontract platform verify`: a probe deployed on a real platform (`kcontract-probe serve`
//! behind the platform's ingress), read over http or https. The probe reports the request as it reached the
//! container; the verifier sent that request, so it knows what the platform added, changed or
//! dropped on the way: `Host`, `Forwarded`, `X-Forwarded-*`, the trace context, a user header, an
//! `Upgrade: h2c`. The facts themselves answer the platform's defaults (`PORT`, the user), judged
//! by the same judges as a local run (`judge::default_port`, `judge::default_user`).
//!
//! Over https ([`super::tls`]) the certificate is verified against the system's roots or
//! `--ca-cert`, and what arrives at the probe judges the platform's TLS termination; the h2c
//! upgrade, cleartext HTTP/2 by definition, is judged over http only.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use kcontract_probe::facts::{FORMAT, Facts, Request};
use serde_json::{Value, json};

use super::checks::{Input, Status, Verdict};
use super::expect::{expected, probe_image};
use super::judge::{self, either, not_applicable};
use super::observed::{Container, Observed, Role, Shutdown};
use super::profile::Profile;
use super::report::ClauseResult;
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
        })
    }

    /// The `Host` the client sends: the host, with the port when the URL names one.
    pub(crate) fn authority(&self) -> String {
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
            self.authority(),
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
}

/// Reads `target`'s `/report`, sending [`USER_HEADER`] and [`TRACEPARENT`]; over https the
/// server's certificate must chain to `trust` (a handshake of its own first, whose failure says
/// exactly what is wrong; then ureq's request with the same roots).
pub fn fetch(target: &Target, trust: &Trust, timeout: Duration) -> Result<Read, FetchError> {
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
    let response = agent
        .get(&url)
        .header(USER_HEADER.0, USER_HEADER.1)
        .header("traceparent", TRACEPARENT)
        .call()
        .map_err(classify)?;
    let status = response.status().as_u16();
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
        let redirect = match (status, location) {
            (300..=399, Some(l)) => format!(" (a redirect to {l}, not followed)"),
            _ => String::new(),
        };
        return Err(FetchError::NotAProbe(format!(
            "GET {url} answered {status}{redirect}, not 200 with the probe's facts"
        )));
    }
    let value: Value = serde_json::from_str(&body).map_err(|e| {
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
    Ok(Read { facts, body, tls })
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

/// What the judges of a verification see.
pub struct Seen<'a> {
    /// The URL read.
    pub target: &'a Target,
    /// The profile judged against.
    pub profile: &'a Profile,
    /// The probe's facts.
    pub facts: &'a Facts,
    /// The request as the probe received it.
    pub request: &'a Request,
    /// The `Upgrade: h2c` answer (`None`: not tried: the profile does not list the feature, or
    /// the URL is https).
    pub upgrade: Option<&'a Upgrade>,
    /// The TLS handshake (`None` over http).
    pub tls: Option<&'a Handshake>,
    /// The facts as a local run's observations, for the judges shared with `platform run`.
    pub observed: &'a Observed,
}

impl Seen<'_> {
    /// Every value of the header `name` (case-insensitive), joined by `, ` as RFC 9110 folds
    /// repeated fields; `None` when it was not received.
    fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .request
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }
}

/// One row of verify's table: the clause, the check's name, its judge (what it asserts is the
/// comment above each row, and docs/platforms.md's table).
pub(crate) struct VerifyCheck {
    /// The clause it decides.
    pub clause: &'static str,
    /// The check's name.
    pub name: &'static str,
    /// Its judge.
    pub judge: fn(&Seen<'_>) -> Verdict,
}

/// The clauses `verify` judges, in the spec's order.
pub(crate) const VERIFY_CHECKS: &[VerifyCheck] = &[
    // a GET with `Upgrade: h2c` is answered `101 Switching Protocols` (only when the profile lists
    // h2c-upgrade; over http only: h2c is cleartext)
    VerifyCheck {
        clause: "network.ports.h2c-upgrade",
        name: "h2c-upgrade",
        judge: h2c_upgrade,
    },
    // the probe, deployed without a containerPort, has PORT = the profile's default port
    VerifyCheck {
        clause: "network.ports.default-port",
        name: "default-port",
        judge: default_port,
    },
    // an https URL completes a verified TLS handshake and the probe receives the request as plain
    // HTTP/1.x (over https only; n/a when the profile does not list https)
    VerifyCheck {
        clause: "network.ports.https-termination",
        name: "https-termination",
        judge: https_termination,
    },
    // the user header sent reaches the probe with its value unchanged
    VerifyCheck {
        clause: "network.headers.preserve-inbound",
        name: "user-header-preserved",
        judge: preserve_inbound,
    },
    // every header dropped on the way starts with the profile's stripped-header prefix
    VerifyCheck {
        clause: "network.headers.stripped-common-prefix",
        name: "stripped-prefix",
        judge: stripped_prefix,
    },
    // `Host` reaches the probe as the URL's host
    VerifyCheck {
        clause: "network.headers.host",
        name: "host-forwarded",
        judge: host,
    },
    // `Forwarded` is set and follows RFC 7239's grammar
    VerifyCheck {
        clause: "network.headers.forwarded",
        name: "forwarded-rfc7239",
        judge: forwarded,
    },
    // `X-Forwarded-For` is a list of IP addresses and `X-Forwarded-Proto` is the URL's scheme
    VerifyCheck {
        clause: "network.headers.x-forwarded",
        name: "x-forwarded",
        judge: x_forwarded,
    },
    // the `traceparent` sent reaches the probe well-formed, with the same trace id
    VerifyCheck {
        clause: "network.headers.tracing",
        name: "traceparent-propagated",
        judge: tracing,
    },
    // the probe, deployed without runAsUser, runs as the profile's default user
    VerifyCheck {
        clause: "config.user.platform-default",
        name: "default-user",
        judge: default_user,
    },
];

fn not_run(message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::NotRun,
        evidence: Value::Null,
        message: message.into(),
    }
}

/// Whether the profile lists the optional `feature`.
fn has_feature(s: &Seen<'_>, feature: &str) -> bool {
    s.profile.features.iter().any(|f| f == feature)
}

/// `network.ports.h2c-upgrade`.
fn h2c_upgrade(s: &Seen<'_>) -> Verdict {
    if s.target.https && has_feature(s, "h2c-upgrade") {
        return not_run(
            "h2c is HTTP/2 over cleartext TCP (RFC 7540 section 3.2): verify the Service's http:// \
             URL to judge the upgrade",
        );
    }
    let Some(u) = s.upgrade else {
        return not_applicable("the profile does not list the h2c-upgrade feature");
    };
    let ok = u.status_line.as_deref().is_some_and(|l| {
        let mut w = l.split(' ');
        w.next().is_some_and(|p| p.starts_with("HTTP/1.")) && w.next() == Some("101")
    });
    either(
        ok,
        json!({"sent": "Upgrade: h2c", "status_line": u.status_line, "error": u.error}),
        "the h2c upgrade was answered 101 Switching Protocols",
        format!(
            "the h2c upgrade was not accepted: {}",
            u.status_line
                .as_deref()
                .or(u.error.as_deref())
                .unwrap_or("no answer")
        ),
    )
}

/// `network.ports.https-termination`: the platform answered an https URL with a certificate the
/// roots vouch for (else verify stopped with K1133 or K1134: no verdict from a failed handshake),
/// and the request reached the probe, which speaks plain HTTP/1.1 only, as HTTP/1.x: TLS was
/// terminated and the protocol transformed on the way.
fn https_termination(s: &Seen<'_>) -> Verdict {
    let Some(tls) = s.tls else {
        if !has_feature(s, "https") {
            return not_applicable("the profile does not list the https feature");
        }
        return not_run("verify read an http:// URL: give the Service's https:// URL to judge it");
    };
    let received = s.request.protocol.as_str();
    either(
        received.starts_with("HTTP/1."),
        json!({
            "tls": tls.evidence(),
            "received_protocol": received,
            "X-Forwarded-Proto": s.header("X-Forwarded-Proto"),
        }),
        format!(
            "TLS ({}) was terminated before the probe, which received {received}",
            tls.version
        ),
        format!(
            "the probe received `{received}`: the platform did not turn the https request into \
             plain HTTP/1.1"
        ),
    )
}

/// `network.ports.default-port`: `platform run`'s judge, on the deployed probe's facts.
fn default_port(s: &Seen<'_>) -> Verdict {
    judge::default_port(&Input {
        profile: s.profile,
        observed: s.observed,
    })
}

/// `config.user.platform-default`: `platform run`'s judge, on the deployed probe's facts.
fn default_user(s: &Seen<'_>) -> Verdict {
    judge::default_user(&Input {
        profile: s.profile,
        observed: s.observed,
    })
}

/// `network.headers.preserve-inbound`.
fn preserve_inbound(s: &Seen<'_>) -> Verdict {
    let got = s.header(USER_HEADER.0);
    either(
        got.as_deref() == Some(USER_HEADER.1),
        json!({"header": USER_HEADER.0, "sent": USER_HEADER.1, "received": got}),
        format!("{} reached the probe unchanged", USER_HEADER.0),
        match &got {
            None => format!("{} was dropped", USER_HEADER.0),
            Some(v) => format!("{} was changed to `{v}`", USER_HEADER.0),
        },
    )
}

/// `network.headers.stripped-common-prefix`.
fn stripped_prefix(_: &Seen<'_>) -> Verdict {
    not_run(
        "the profile format (kcontract-profile/1) has no stripped-header prefix to tell an allowed \
         strip from a lost header",
    )
}

/// `network.headers.host`.
fn host(s: &Seen<'_>) -> Verdict {
    let got = s.header("Host");
    let want = s.target.authority();
    // A client may omit the default port, and a proxy may add it: the host is compared, and the
    // port only when both name one.
    let split = |h: &str| -> (String, Option<String>) {
        match h.rsplit_once(':') {
            Some((n, p)) if !p.contains(']') => (n.to_ascii_lowercase(), Some(p.to_owned())),
            _ => (h.to_ascii_lowercase(), None),
        }
    };
    let ok = got.as_deref().is_some_and(|g| {
        let ((gh, gp), (wh, wp)) = (split(g), split(&want));
        gh == wh && (gp.is_none() || wp.is_none() || gp == wp)
    });
    either(
        ok,
        json!({"sent": want, "received": got}),
        format!("Host is {want}"),
        match &got {
            None => "no Host header reached the probe".to_owned(),
            Some(g) => format!("Host is `{g}`, the URL's host is {want}"),
        },
    )
}

/// RFC 7230 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Whether `v` follows RFC 7239's `Forwarded` grammar: `1#forwarded-element`, each
/// `[pair] *( ";" [pair] )`, a pair `token "=" ( token / quoted-string )`; with at least one pair.
pub(crate) fn is_rfc7239(v: &str) -> bool {
    let mut chars = v.chars().peekable();
    let mut pairs = 0;
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            chars.next();
        }
        match chars.peek() {
            None => return pairs > 0,
            Some(',' | ';') => {
                chars.next();
                continue;
            }
            _ => {}
        }
        let mut name = 0;
        while chars.peek().is_some_and(|c| is_tchar(*c)) {
            chars.next();
            name += 1;
        }
        if name == 0 || chars.next() != Some('=') {
            return false;
        }
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    None => return false,
                    Some('"') => break,
                    Some('\\') => {
                        if chars.next().is_none() {
                            return false;
                        }
                    }
                    Some(c) if c == '\t' || (' '..='~').contains(&c) || !c.is_ascii() => {}
                    Some(_) => return false,
                }
            }
        } else {
            let mut value = 0;
            while chars.peek().is_some_and(|c| is_tchar(*c)) {
                chars.next();
                value += 1;
            }
            if value == 0 {
                return false;
            }
        }
        pairs += 1;
        while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            chars.next();
        }
        match chars.peek() {
            None | Some(',' | ';') => {}
            Some(_) => return false,
        }
    }
}

/// `network.headers.forwarded`.
fn forwarded(s: &Seen<'_>) -> Verdict {
    let got = s.header("Forwarded");
    either(
        got.as_deref().is_some_and(is_rfc7239),
        json!({"received": got}),
        "Forwarded is set, as RFC 7239 writes it",
        match &got {
            None => "no Forwarded header reached the probe".to_owned(),
            Some(g) => format!("Forwarded `{g}` does not follow RFC 7239"),
        },
    )
}

/// `network.headers.x-forwarded`.
fn x_forwarded(s: &Seen<'_>) -> Verdict {
    let xff = s.header("X-Forwarded-For");
    let proto = s.header("X-Forwarded-Proto");
    let ips_ok = xff.as_deref().is_some_and(|v| {
        v.split(',').all(|a| {
            let a = a.trim();
            a.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok()
        })
    });
    let scheme = s.target.scheme();
    let proto_ok = proto.as_deref() == Some(scheme);
    let mut wrong = Vec::new();
    if !ips_ok {
        wrong.push(match &xff {
            None => "X-Forwarded-For is missing".to_owned(),
            Some(v) => format!("X-Forwarded-For `{v}` is not a list of IP addresses"),
        });
    }
    if !proto_ok {
        wrong.push(match &proto {
            None => "X-Forwarded-Proto is missing".to_owned(),
            Some(v) => format!("X-Forwarded-Proto is `{v}`, the URL's scheme is {scheme}"),
        });
    }
    either(
        wrong.is_empty(),
        json!({
            "X-Forwarded-For": xff,
            "X-Forwarded-Proto": proto,
            "X-Forwarded-Host": s.header("X-Forwarded-Host"),
        }),
        format!("X-Forwarded-For lists IP addresses and X-Forwarded-Proto is {scheme}"),
        wrong.join("; "),
    )
}

/// Whether `v` is a W3C `traceparent` (version, trace id, parent id, flags; lowercase hex, neither
/// id all zeros, version not `ff`). Its trace id when it is.
pub(crate) fn trace_id(v: &str) -> Option<&str> {
    let parts: Vec<&str> = v.trim().split('-').collect();
    let hex = |p: &str, n: usize| {
        p.len() == n
            && p.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let ok = parts.len() >= 4
        && hex(parts[0], 2)
        && parts[0] != "ff"
        && (parts[0] != "00" || parts.len() == 4)
        && hex(parts[1], 32)
        && parts[1].bytes().any(|b| b != b'0')
        && hex(parts[2], 16)
        && parts[2].bytes().any(|b| b != b'0')
        && hex(parts[3], 2);
    ok.then_some(parts[1])
}

/// `network.headers.tracing`.
fn tracing(s: &Seen<'_>) -> Verdict {
    let got = s.header("traceparent");
    let id = got.as_deref().and_then(trace_id);
    either(
        id == Some(TRACE_ID),
        json!({"sent": TRACEPARENT, "received": got, "tracestate": s.header("tracestate")}),
        "traceparent reached the probe with the trace id sent",
        match (&got, id) {
            (None, _) => "traceparent was dropped".to_owned(),
            (Some(g), None) => format!("traceparent `{g}` is not W3C trace context"),
            (Some(g), Some(_)) => format!("traceparent `{g}` lost the trace id {TRACE_ID}"),
        },
    )
}

/// The deployed probe's facts as a local run's observations: both containers are the deployed
/// one, whose Service names no port and no user (the probe image's defaults), so the judges of
/// the platform's defaults compare its facts with the profile.
pub fn observed(profile: &Profile, service: &Service, facts: &Facts) -> Observed {
    let bare = service.without_developer_choices();
    let container = |role| Container {
        role,
        expected: expected(profile, &bare, &probe_image(Vec::new())),
        config: Value::Null,
        facts: Some(facts.clone()),
        problem: None,
        events: Vec::new(),
        http: None,
        routed: None,
        host_cgroup: BTreeMap::new(),
        shutdown: Shutdown::default(),
    };
    Observed {
        main: container(Role::Main),
        defaults: container(Role::Defaults),
        host_namespaces: BTreeMap::new(),
    }
}

/// Every testable clause of `spec`: the verdict of its verify check, else `not-run` saying which
/// route decides it.
pub fn clause_results(spec: &Spec, seen: &Seen<'_>) -> Vec<ClauseResult> {
    spec.clauses
        .iter()
        .filter(|c| !c.verify.is_untestable())
        .map(|c| {
            let row = VERIFY_CHECKS.iter().find(|r| r.clause == c.id);
            let v = row.map_or_else(
                || {
                    not_run(
                        "not a request-side clause: verify does not judge it (platform run, lint, \
                         import-log or a review does)",
                    )
                },
                |r| (r.judge)(seen),
            );
            ClauseResult {
                id: c.id.clone(),
                level: c.level.as_str().to_owned(),
                stamp: c.stamp.clone(),
                status: v.status,
                check: row.map(|r| r.name.to_owned()),
                evidence: v.evidence,
                message: v.message,
            }
        })
        .collect()
}

/// The table as [`super::contract::missing`] reads it.
pub fn table() -> super::contract::Table {
    super::contract::Table {
        command: "platform verify",
        place: "crates/platform/src/verify.rs (VERIFY_CHECKS)",
        rows: VERIFY_CHECKS.iter().map(|r| (r.name, r.clause)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_grammar() {
        for ok in [
            "for=192.0.2.60;proto=http;by=203.0.113.43",
            "for=\"[2001:db8:cafe::17]:4711\"",
            "for=192.0.2.43, for=198.51.100.17",
            "For=\"_gazonk\"",
        ] {
            assert!(is_rfc7239(ok), "{ok}");
        }
        for bad in [
            "",
            "192.0.2.60",
            "for=",
            "for=\"unterminated",
            "for=a b",
            "=x",
        ] {
            assert!(!is_rfc7239(bad), "{bad}");
        }
    }

    #[test]
    fn traceparent_shape() {
        assert_eq!(trace_id(TRACEPARENT), Some(TRACE_ID));
        assert_eq!(
            trace_id("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"),
            Some("0af7651916cd43dd8448eb211c80319c")
        );
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7",
        ] {
            assert_eq!(trace_id(bad), None, "{bad}");
        }
    }

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
