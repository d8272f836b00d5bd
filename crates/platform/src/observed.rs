//! What a run observed, the judge's input. A local run (the simulated route): per container the
//! config the runtime was given, the probe's facts and events, the HTTP exchange, the cgroup limits
//! read on the host and what the shutdown did; and the host's own namespaces. A deployed probe
//! (`platform verify`): its facts as both containers, the exchange through the ingress, the
//! request as it arrived ([`Ingress`]) and the platform's log of it ([`PlatformLog`]).

use std::collections::BTreeMap;

use kcontract_probe::facts::{Event, Facts, Request, mount_of};
use serde_json::Value;

use super::expect::Expected;
use super::platform_log::PlatformLog;
use super::tls::Handshake;
use super::verify::{Target, Upgrade};

/// The two containers of a run (`main`, `defaults`: the words come from this declaration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Role {
    /// The Service as given: the port, the user and the limits it asks for; it serves HTTP, and
    /// exits on SIGTERM.
    Main,
    /// The Service without a port or user: the platform's defaults; it ignores SIGTERM, so the
    /// platform's SIGKILL after the grace period ends it.
    Defaults,
}

impl Role {
    /// `main`, `defaults`.
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One HTTP exchange with the probe, inside the container's network namespace.
#[derive(Debug, Clone, Default)]
pub struct Http {
    /// The port it was sent to.
    pub port: u16,
    /// The response's status line (`HTTP/1.1 200 OK`), when one came.
    pub status_line: Option<String>,
    /// The facts in the body of a `200`.
    pub facts: Option<Facts>,
    /// What went wrong.
    pub error: Option<String>,
}

/// What the shutdown did: the platform's part (signals, timing) as the harness carried it out.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    /// The first signal sent (`SIGTERM`; a control sends `SIGKILL`).
    pub first_signal: String,
    /// The grace period, in milliseconds.
    pub grace_ms: u64,
    /// Whether the process was alive shortly before the grace period ended (`None`: not looked).
    pub alive_before_grace: Option<bool>,
    /// When `SIGKILL` was sent, after the first signal (ms), if it was.
    pub kill_after_ms: Option<u64>,
    /// When the process was gone, after the first signal (ms), if it went.
    pub gone_after_ms: Option<u64>,
    /// The status `state` reported once it was gone.
    pub final_status: Option<String>,
}

/// One container of a run.
#[derive(Debug, Clone)]
pub struct Container {
    /// Which one.
    pub role: Role,
    /// The values the profile promises its Service.
    pub expected: Expected,
    /// The `config.json` given to the runtime (after a control's change); `None` for a deployed
    /// probe, whose config only the platform knows.
    pub config: Option<Value>,
    /// The first line of its standard output.
    pub facts: Option<Facts>,
    /// Why there are no facts (the runtime failed, the probe printed nothing).
    pub problem: Option<String>,
    /// The later lines of its standard output.
    pub events: Vec<Event>,
    /// The request to `/report` on the port the probe listens on (the main container).
    pub http: Option<Http>,
    /// The request to `/report` on the port the platform assigned (the Service's or the
    /// profile's): the same exchange as [`Container::http`] when the probe listens there.
    pub routed: Option<Http>,
    /// The contract's cgroup files as the host sees them for this container, by the path they
    /// have inside it (`/sys/fs/cgroup/memory/memory.limit_in_bytes`).
    pub host_cgroup: BTreeMap<String, String>,
    /// The shutdown.
    pub shutdown: Shutdown,
}

impl Container {
    /// The `listening` event's port.
    pub(crate) fn listening_port(&self) -> Option<u16> {
        self.events.iter().find_map(|e| match e {
            Event::Listening { port, .. } => Some(*port),
            _ => None,
        })
    }

    /// Whether the probe logged receiving `signal`.
    pub(crate) fn saw_signal(&self, signal: &str) -> Option<u64> {
        self.events.iter().find_map(|e| match e {
            Event::Signal { signal: s, ms, .. } if s == signal => Some(*ms),
            _ => None,
        })
    }
}

/// What `platform verify` sent a deployed probe through the platform's ingress, and what came of it.
#[derive(Debug, Clone)]
pub struct Ingress {
    /// The URL read (with the `Host` sent).
    pub target: Target,
    /// The request as the probe received it.
    pub request: Request,
    /// The answer to an `Upgrade: h2c` request (`None`: not tried: the profile does not list the
    /// feature, or the URL is https).
    pub upgrade: Option<Upgrade>,
    /// The TLS handshake (`None` over http).
    pub tls: Option<Handshake>,
}

/// Everything a run observed.
#[derive(Debug, Clone)]
pub struct Observed {
    /// The main container.
    pub main: Container,
    /// The defaults container.
    pub defaults: Container,
    /// The harness's own namespaces (`/proc/self/ns`), by the names the probe uses (empty for a
    /// deployed probe).
    pub host_namespaces: BTreeMap<String, u64>,
    /// The request through the ingress: a deployed probe read over http or https only.
    pub ingress: Option<Ingress>,
    /// The platform's log of the deployed probe (`platform verify --events`), when given.
    pub log: Option<PlatformLog>,
}

impl Observed {
    /// The container with `role`.
    pub(crate) fn container(&self, role: Role) -> &Container {
        match role {
            Role::Main => &self.main,
            Role::Defaults => &self.defaults,
        }
    }
}

/// One fact of a report in a line, for the catalogue of runtime findings: `PATH mode` (octal, or
/// `absent`), `PATH write` (`ok`, the error, or `not tried`), `PATH writable` (`access(W_OK)`:
/// `yes`, `no`), `PATH propagation` (of the mount at PATH: `shared`, `master`, `private` …, without
/// the peer group numbers, which change from run to run), `PATH options` (the mount containing PATH,
/// comma-separated). `None` for a key of another form.
pub fn fact_summary(facts: &Facts, key: &str) -> Option<String> {
    let (path, what) = key.rsplit_once(' ')?;
    let fact = facts.path(path);
    Some(match what {
        "mode" => fact
            .and_then(|f| f.mode.clone())
            .unwrap_or_else(|| "absent".into()),
        "write" => match fact.and_then(|f| f.write.as_ref()) {
            Some(w) if w.ok => "ok".into(),
            Some(w) => w.error.clone().unwrap_or_else(|| "failed".into()),
            None => "not tried".into(),
        },
        "writable" => match fact.and_then(|f| f.writable) {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => "absent".into(),
        },
        "propagation" => {
            let m = facts.mount_at(path)?;
            if m.propagation.is_empty() {
                "private".into()
            } else {
                m.propagation
                    .iter()
                    .map(|t| t.split(':').next().unwrap_or(t).to_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
        "options" => mount_of(&facts.mounts, path)?.options.join(","),
        _ => return None,
    })
}
