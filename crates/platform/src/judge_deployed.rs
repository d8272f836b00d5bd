//! The judges of the checks only the deployed route decides (`platform verify`): the request as
//! it reached the probe through the platform's ingress (verify sent it, so it knows what the
//! platform added, changed or dropped on the way: `Host`, `Forwarded`, `X-Forwarded-*`, the trace
//! context, a user header, an `Upgrade: h2c`, TLS termination), and the platform's log of the
//! probe (`--events`: SIGTERM, the grace period, SIGKILL). The checks both routes decide use the
//! judges of `judge` on the deployed probe's facts.

use serde_json::{Value, json};

use super::judge::{either, fail, not_applicable, pass};
use super::observed::{Ingress, Role};
use super::platform_log::{END_MARKER, PlatformLog};
use super::verdict::{Input, Status, Verdict};
use super::verify::{TRACE_ID, TRACEPARENT, USER_HEADER};

/// A check's `not-run`: what it needs is not there.
pub(crate) fn not_run(message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::NotRun,
        evidence: Value::Null,
        message: message.into(),
    }
}

/// The request through the ingress, or the `error` verdict: a row of the deployed route judged on
/// another.
macro_rules! ingress_or_return {
    ($input:expr) => {
        match &$input.observed.ingress {
            Some(i) => i,
            None => {
                return Verdict {
                    status: Status::Error,
                    evidence: Value::Null,
                    message: "no request through a platform's ingress on this route".into(),
                };
            }
        }
    };
}

/// Whether the profile lists the optional `feature`.
fn has_feature(input: &Input<'_>, feature: &str) -> bool {
    input.profile.features.iter().any(|f| f == feature)
}

/// Every value of the header `name` (case-insensitive) the probe received, joined by `, ` as RFC
/// 9110 folds repeated fields; `None` when it was not received.
fn header(s: &Ingress, name: &str) -> Option<String> {
    let values: Vec<&str> = s
        .request
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// `network.ports.h2c-upgrade`.
pub(crate) fn h2c_upgrade(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    if s.target.https && has_feature(input, "h2c-upgrade") {
        return not_run(
            "h2c is HTTP/2 over cleartext TCP (RFC 7540 section 3.2): verify the Service's http:// \
             URL to judge the upgrade",
        );
    }
    let Some(u) = &s.upgrade else {
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
pub(crate) fn https_termination(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let Some(tls) = &s.tls else {
        if !has_feature(input, "https") {
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
            "X-Forwarded-Proto": header(s, "X-Forwarded-Proto"),
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

/// `network.headers.preserve-inbound`.
pub(crate) fn preserve_inbound(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let got = header(s, USER_HEADER.0);
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

/// `network.headers.host`.
pub(crate) fn host(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let got = header(s, "Host");
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
pub(crate) fn forwarded(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let got = header(s, "Forwarded");
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
pub(crate) fn x_forwarded(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let xff = header(s, "X-Forwarded-For");
    let proto = header(s, "X-Forwarded-Proto");
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
            "X-Forwarded-Host": header(s, "X-Forwarded-Host"),
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
pub(crate) fn tracing(input: &Input<'_>) -> Verdict {
    let s = ingress_or_return!(input);
    let got = header(s, "traceparent");
    let id = got.as_deref().and_then(trace_id);
    either(
        id == Some(TRACE_ID),
        json!({"sent": TRACEPARENT, "received": got, "tracestate": header(s, "tracestate")}),
        "traceparent reached the probe with the trace id sent",
        match (&got, id) {
            (None, _) => "traceparent was dropped".to_owned(),
            (Some(g), None) => format!("traceparent `{g}` is not W3C trace context"),
            (Some(g), Some(_)) => format!("traceparent `{g}` lost the trace id {TRACE_ID}"),
        },
    )
}

/// What the log judges share: the log, its evidence, or the `not-run` saying why it decides nothing
/// (no log given, none of the probe's lines, not one start of the probe).
fn log_or_not_run<'a>(input: &Input<'a>) -> Result<(&'a PlatformLog, Value), Verdict> {
    let Some(log) = &input.observed.log else {
        return Err(not_run(
            "no log of the probe was given: capture it as docs/deploying.md says and give it with \
             `platform verify --events FILE`",
        ));
    };
    let evidence = json!({
        "log": log.file,
        "lines": log.lines,
        "probe_events": log.events.len(),
        "starts": log.starts(),
        "first_signal": log.first_signal().map(|(s, ms, a)| json!({"signal": s, "ms": ms, "action": a})),
        "last_seen_ms": log.last_seen(),
        "exited": log.exited(),
        "ends_with_the_container": log.ended,
    });
    let why = match log.starts() {
        _ if log.events.is_empty() => Some(format!(
            "`{}` has none of the probe's event lines: give the log of the probe's container",
            log.file
        )),
        0 => Some(format!(
            "`{}` does not begin with the probe's start (its `listening` line): capture the log from \
             the container's start",
            log.file
        )),
        1 => None,
        n => Some(format!(
            "`{}` holds {n} starts of the probe: give the log of one container",
            log.file
        )),
    };
    match why {
        Some(m) => Err(Verdict {
            evidence,
            ..not_run(m)
        }),
        None => Ok((log, evidence)),
    }
}

/// `lifecycle.sigterm-on-kill` from the platform's log: SIGTERM is the first signal the probe
/// received. A log without one fails only when it says it runs to the container's end.
pub(crate) fn sigterm_in_log(input: &Input<'_>) -> Verdict {
    let (log, evidence) = match log_or_not_run(input) {
        Ok(x) => x,
        Err(v) => return v,
    };
    match log.first_signal() {
        Some(("SIGTERM", ms, _)) => pass(
            evidence,
            format!(
                "the probe received SIGTERM {ms} ms after it started, the first signal it received"
            ),
        ),
        Some((other, _, _)) => fail(
            evidence,
            format!("the first signal the probe received was {other}, not SIGTERM"),
        ),
        None if log.ended => fail(
            evidence,
            format!(
                "the log runs to the container's end ({END_MARKER}) and the probe received no \
                 signal: it was stopped without SIGTERM"
            ),
        ),
        None => Verdict {
            evidence,
            ..not_run(format!(
                "the probe received no signal in this log, which does not say it runs to the \
                 container's end (a `{END_MARKER}` line): capture it until the container stops"
            ))
        },
    }
}

/// How much later than the grace period the probe may last have been seen: its `alive` interval
/// (a second) and the log's own delay.
const LOG_SLACK_MS: u64 = 2_000;

/// `lifecycle.sigkill-after-grace` from the platform's log: the probe, ignoring SIGTERM, was alive
/// after it and then gone without exiting, no later than the grace period after it. Only the upper
/// bound is judged: a platform may spend part of the grace period before SIGTERM (Knative's
/// `preStop` drain of the queue-proxy), so how long the probe ran on says nothing of when the grace
/// period began.
pub(crate) fn sigkill_in_log(input: &Input<'_>) -> Verdict {
    let (log, mut evidence) = match log_or_not_run(input) {
        Ok(x) => x,
        Err(v) => return v,
    };
    let grace_ms = u64::try_from(
        input
            .observed
            .container(Role::Defaults)
            .expected
            .grace
            .as_millis(),
    )
    .unwrap_or(u64::MAX);
    evidence["grace_ms"] = json!(grace_ms);
    let undecided = |evidence: Value, m: String| Verdict {
        evidence,
        ..not_run(m)
    };
    let (term_ms, action) = match log.first_signal() {
        Some(("SIGTERM", ms, action)) => (ms, action),
        _ => {
            return undecided(
                evidence,
                "no SIGTERM in the log: the grace period this clause times never began \
                 (lifecycle.sigterm-on-kill says why)"
                    .into(),
            );
        }
    };
    if action == "exit" || log.exited() {
        return undecided(
            evidence,
            "the probe exited by itself after SIGTERM: deploy it with `--on-term ignore` (the \
             kit's Service does) so that only SIGKILL ends it"
                .into(),
        );
    }
    if !log.ended {
        return undecided(
            evidence,
            format!(
                "the log does not say it runs to the container's end (a `{END_MARKER}` line): a \
                 SIGKILL leaves no line, so only the end of the capture can show it"
            ),
        );
    }
    let ran_on = log.last_seen().unwrap_or(term_ms).saturating_sub(term_ms);
    evidence["ran_on_after_sigterm_ms"] = json!(ran_on);
    if ran_on == 0 {
        return fail(
            evidence,
            format!(
                "no `alive` line after SIGTERM: the process was gone within a second of it, not \
                 given the {grace_ms} ms grace period"
            ),
        );
    }
    either(
        ran_on <= grace_ms + LOG_SLACK_MS,
        evidence,
        format!(
            "the probe ignored SIGTERM, ran on {ran_on} ms and was gone without exiting within the \
             {grace_ms} ms grace period: killed"
        ),
        format!(
            "the probe was still alive {ran_on} ms after SIGTERM, beyond the {grace_ms} ms grace \
             period: no SIGKILL when it ended"
        ),
    )
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
}
