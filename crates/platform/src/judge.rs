//! The judges of the checks table (`checks::CHECKS`): each compares facts — the probe's, the
//! harness's — with what the profile promises, and says pass or fail with the facts it compared.
//! A container that produced no facts makes its checks `error`, never `pass`.

use std::collections::BTreeMap;

use kcontract_probe::facts::{Facts, mount_of};
use serde_json::{Value, json};

use super::expect::Origin;
use super::observed::{Container, Role};
use super::profile::{CAPABILITIES, CgroupVersion, capability_mask};
use super::verdict::{Input, Status, Verdict};

pub(super) fn pass(evidence: Value, message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::Pass,
        evidence,
        message: message.into(),
    }
}

pub(super) fn fail(evidence: Value, message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::Fail,
        evidence,
        message: message.into(),
    }
}

pub(super) fn either(
    ok: bool,
    evidence: Value,
    yes: impl Into<String>,
    no: impl Into<String>,
) -> Verdict {
    if ok {
        pass(evidence, yes)
    } else {
        fail(evidence, no)
    }
}

pub(super) fn not_applicable(message: impl Into<String>) -> Verdict {
    Verdict {
        status: Status::NotApplicable,
        evidence: Value::Null,
        message: message.into(),
    }
}

/// The container of `role` and its facts, or the `error` verdict saying why there are none.
fn facts<'a>(input: &'a Input<'_>, role: Role) -> Result<(&'a Container, &'a Facts), Verdict> {
    let c = input.observed.container(role);
    match &c.facts {
        Some(f) => Ok((c, f)),
        None => Err(Verdict {
            status: Status::Error,
            evidence: json!({"container": role.as_str()}),
            message: format!(
                "no facts from the {} container: {}",
                role.as_str(),
                c.problem.as_deref().unwrap_or("the probe printed none")
            ),
        }),
    }
}

macro_rules! facts_or_return {
    ($input:expr, $role:expr) => {
        match facts($input, $role) {
            Ok(x) => x,
            Err(v) => return v,
        }
    };
}

fn env<'a>(f: &'a Facts, name: &str) -> Option<&'a str> {
    f.env.get(name).map(String::as_str)
}

/// `lifecycle.sigterm-on-kill`.
pub(crate) fn sigterm_delivered(input: &Input<'_>) -> Verdict {
    let (c, _) = facts_or_return!(input, Role::Main);
    let s = &c.shutdown;
    let seen = c.saw_signal("SIGTERM");
    let evidence = json!({
        "first_signal": s.first_signal,
        "probe_saw_sigterm_ms": seen,
        "gone_after_ms": s.gone_after_ms,
    });
    either(
        seen.is_some(),
        evidence,
        format!("the probe received SIGTERM ({} sent first)", s.first_signal),
        format!(
            "the probe never received SIGTERM: the platform sent {} first",
            s.first_signal
        ),
    )
}

/// `lifecycle.sigkill-after-grace`.
pub(crate) fn sigkill_after_grace(input: &Input<'_>) -> Verdict {
    let (c, _) = facts_or_return!(input, Role::Defaults);
    let s = &c.shutdown;
    let seen = c.saw_signal("SIGTERM");
    let evidence = json!({
        "grace_ms": s.grace_ms,
        "probe_saw_sigterm_ms": seen,
        "alive_before_grace_ended": s.alive_before_grace,
        "sigkill_after_ms": s.kill_after_ms,
        "gone_after_ms": s.gone_after_ms,
        "final_status": s.final_status,
    });
    let ok = seen.is_some()
        && s.alive_before_grace == Some(true)
        && s.kill_after_ms.is_some_and(|k| k >= s.grace_ms)
        && s.gone_after_ms
            .zip(s.kill_after_ms)
            .is_some_and(|(g, k)| g >= k);
    either(
        ok,
        evidence,
        format!(
            "the process ignored SIGTERM, ran until the {} ms grace period ended and was gone after SIGKILL",
            s.grace_ms
        ),
        match (seen, s.alive_before_grace) {
            (None, _) => "the probe never received SIGTERM".to_owned(),
            (_, Some(false)) => format!(
                "the process was gone before the {} ms grace period ended",
                s.grace_ms
            ),
            _ => "SIGKILL after the grace period did not end the process".to_owned(),
        },
    )
}

/// `lifecycle.hooks.not-developer-configurable`, `config.hooks.not-developer-configurable`.
pub(crate) fn no_hooks(input: &Input<'_>) -> Verdict {
    let (c, _) = facts_or_return!(input, Role::Main);
    let Some(config) = &c.config else {
        return Verdict {
            status: Status::Error,
            evidence: Value::Null,
            message: "the config the runtime ran is not known on this route".into(),
        };
    };
    let hooks = config.get("hooks").cloned().unwrap_or(Value::Null);
    let any = hooks.as_object().is_some_and(|h| {
        h.values()
            .any(|v| v.as_array().is_some_and(|a| !a.is_empty()))
    });
    either(
        !any,
        json!({"config_hooks": hooks}),
        "the config the runtime ran has no hooks",
        "the config the runtime ran has hooks",
    )
}

/// `lifecycle.linux.stdin-eof`.
pub(crate) fn stdin_eof(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let r = &f.stdio.stdin_read;
    either(
        r.outcome == "eof",
        json!({"stdin_read": r}),
        "reading stdin gave end of file",
        format!("reading stdin gave `{}`, not end of file", r.outcome),
    )
}

/// `network.ports.accept-http1`.
pub(crate) fn http1_answered(input: &Input<'_>) -> Verdict {
    let (c, _) = facts_or_return!(input, Role::Main);
    let Some(h) = &c.http else {
        return fail(
            json!({"listening": c.listening_port()}),
            "the container does not listen on a port (no request could be sent)",
        );
    };
    let protocol = h
        .facts
        .as_ref()
        .and_then(|f| f.request.as_ref())
        .map(|r| r.protocol.clone());
    let evidence = json!({
        "port": h.port,
        "status_line": h.status_line,
        "request_protocol_seen": protocol,
        "error": h.error,
    });
    let ok = h
        .status_line
        .as_deref()
        .is_some_and(|s| s.starts_with("HTTP/1.1 2"))
        && protocol.as_deref() == Some("HTTP/1.1");
    either(
        ok,
        evidence,
        format!("GET /report HTTP/1.1 on port {} was answered", h.port),
        format!(
            "GET /report HTTP/1.1 on port {} was not answered over HTTP/1.1: {}",
            h.port,
            h.error
                .clone()
                .or(h.status_line.clone())
                .unwrap_or_default()
        ),
    )
}

/// `network.ports.developer-may-specify`.
pub(crate) fn port_from_service(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    if c.expected.port_from != Origin::Service {
        return not_applicable("the Service names no containerPort");
    }
    let want = c.expected.port;
    let routed = c.routed.as_ref();
    let status = routed.and_then(|h| h.status_line.clone());
    let answered = status
        .as_deref()
        .is_some_and(|s| s.starts_with("HTTP/1.") && s.contains(" 200 "));
    let port_env = env(f, "PORT");
    if c.listening_port().is_none() {
        // An image that serves nothing shows no routing; the platform's part is then `PORT`.
        let want_text = want.to_string();
        return either(
            port_env == Some(want_text.as_str()),
            json!({"containerPort": want, "PORT": port_env, "listening": null}),
            format!("the container serves nothing; PORT is the Service's containerPort {want}"),
            format!(
                "the container serves nothing, and PORT is {}, not the Service's containerPort {want}",
                port_env.unwrap_or("unset")
            ),
        );
    }
    either(
        answered,
        json!({
            "containerPort": want,
            "PORT": port_env,
            "listening": c.listening_port(),
            "status_line": status,
            "error": routed.and_then(|h| h.error.clone()),
        }),
        format!("requests to the Service's containerPort {want} reach the container"),
        format!(
            "requests to the Service's containerPort {want} do not reach the container (PORT is {}, it listens on {})",
            env(f, "PORT").unwrap_or("unset"),
            c.listening_port()
                .map_or("no port".to_owned(), |p| p.to_string())
        ),
    )
}

/// `network.ports.default-port`.
pub(crate) fn default_port(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Defaults);
    let port = env(f, "PORT");
    let want = input.profile.default_port.to_string();
    either(
        port == Some(want.as_str()),
        json!({"PORT": port, "profile_default_port": input.profile.default_port}),
        format!("without a containerPort, PORT is the default {want}"),
        format!(
            "without a containerPort, PORT is {}, the profile's default is {want}",
            port.unwrap_or("unset")
        ),
    )
}

/// `network.dns.override-etc`.
pub(crate) fn resolv_conf_mounted(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let p = f.path("/etc/resolv.conf");
    let mounted = p.is_some_and(|p| p.exists && p.mount_point);
    either(
        mounted,
        json!({"exists": p.map(|p| p.exists), "mount_point": p.map(|p| p.mount_point)}),
        "/etc/resolv.conf is mounted by the platform",
        "/etc/resolv.conf is not a mount: the image's file (or none) is used",
    )
}

/// `config.process.terminal-false`.
pub(crate) fn no_terminal(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let s = &f.stdio;
    let console = f.path("/dev/console").is_some_and(|p| p.exists);
    let ttys: Vec<&str> = [
        ("stdin", s.stdin_tty),
        ("stdout", s.stdout_tty),
        ("stderr", s.stderr_tty),
    ]
    .iter()
    .filter(|(_, t)| *t)
    .map(|(n, _)| *n)
    .collect();
    either(
        ttys.is_empty() && !console,
        json!({"terminals": ttys, "dev_console": console}),
        "no standard stream is a terminal and /dev/console does not exist",
        if console {
            format!("/dev/console exists; terminals: {ttys:?}")
        } else {
            format!("terminals: {}", ttys.join(", "))
        },
    )
}

/// Capability names of the bits in `mask` (numbers for bits without a name).
fn cap_names(mask: u64) -> Vec<String> {
    (0..64)
        .filter(|b| mask & (1u64 << b) != 0)
        .map(|b| {
            CAPABILITIES
                .get(b)
                .map_or_else(|| format!("bit {b}"), |n| (*n).to_owned())
        })
        .collect()
}

/// `config.process.linux-not-developer-configurable`.
pub(crate) fn process_security(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let allowed = capability_mask(&input.profile.capabilities);
    let mut beyond = BTreeMap::new();
    let mut sets = BTreeMap::new();
    for (set, hex) in &f.process.capabilities {
        let Ok(v) = u64::from_str_radix(hex, 16) else {
            beyond.insert(set.clone(), vec![format!("unreadable `{hex}`")]);
            continue;
        };
        sets.insert(set.clone(), hex.clone());
        if v & !allowed != 0 {
            beyond.insert(set.clone(), cap_names(v & !allowed));
        }
    }
    let nnp = f.process.no_new_privs;
    let nnp_ok = nnp == Some(input.profile.no_new_privileges);
    let evidence = json!({
        "capabilities": sets,
        "beyond_profile": beyond,
        "no_new_privs": nnp,
        "profile_no_new_privileges": input.profile.no_new_privileges,
    });
    if sets.is_empty() {
        return fail(evidence, "the process's capabilities could not be read");
    }
    either(
        beyond.is_empty() && nnp_ok,
        evidence,
        "the capability sets are within the profile's and NoNewPrivs is the profile's",
        if !beyond.is_empty() {
            format!("capabilities beyond the profile's: {beyond:?}")
        } else {
            format!(
                "NoNewPrivs is {nnp:?}, the profile says {}",
                input.profile.no_new_privileges
            )
        },
    )
}

/// `config.env.port`.
pub(crate) fn env_port(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let port = env(f, "PORT");
    let ok = port
        .and_then(|p| p.parse::<u16>().ok())
        .is_some_and(|p| p > 0);
    either(
        ok,
        json!({"PORT": port}),
        format!("PORT is {}", port.unwrap_or_default()),
        match port {
            None => "PORT is not set".to_owned(),
            Some(p) => format!("PORT is `{p}`, not a port"),
        },
    )
}

/// `config.env.knative-names`.
pub(crate) fn env_knative_names(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    let mut seen = BTreeMap::new();
    let mut wrong = Vec::new();
    for (name, want) in &c.expected.names {
        let got = env(f, name);
        seen.insert(name.clone(), json!({"found": got, "expected": want}));
        if got != Some(want.as_str()) {
            wrong.push(name.as_str());
        }
    }
    either(
        wrong.is_empty(),
        json!(seen),
        "K_SERVICE, K_CONFIGURATION and K_REVISION are set to the Service's names",
        format!("missing or wrong: {}", wrong.join(", ")),
    )
}

fn ids_verdict(c: &Container, f: &Facts, check_group: bool, what: &str) -> Verdict {
    let (uid, gid) = (f.process.uid, f.process.gid);
    let e = &c.expected;
    let uid_ok = uid.is_some_and(|u| u.real == e.uid && u.effective == e.uid);
    let gid_ok = !check_group || gid.is_some_and(|g| g.real == e.gid && g.effective == e.gid);
    either(
        uid_ok && gid_ok,
        json!({
            "uid": uid, "gid": gid,
            "expected_uid": e.uid,
            "expected_gid": if check_group { Some(e.gid) } else { None },
        }),
        format!("the process runs as {what} {}", e.uid),
        format!(
            "the process runs as uid {} gid {}; {what} is uid {}{}",
            uid.map_or("?".into(), |u| u.effective.to_string()),
            gid.map_or("?".into(), |g| g.effective.to_string()),
            e.uid,
            if check_group {
                format!(" gid {}", e.gid)
            } else {
                String::new()
            }
        ),
    )
}

/// `config.user.run-as-specified`.
pub(crate) fn run_as_user(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    if c.expected.user_from != Origin::Service {
        return not_applicable("the Service names no runAsUser");
    }
    ids_verdict(
        c,
        f,
        c.expected.group_from == Origin::Service,
        "the Service's user",
    )
}

/// `config.user.platform-default`.
pub(crate) fn default_user(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Defaults);
    ids_verdict(c, f, true, "the platform's default user")
}

/// `config.filesystems.required-mounts`.
pub(crate) fn tmp_provided(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let want = &input.profile.tmp;
    let Some(p) = f.path("/tmp").filter(|p| p.exists) else {
        return fail(json!({"exists": false}), "/tmp does not exist");
    };
    let mode = p
        .mode
        .as_deref()
        .and_then(|m| u32::from_str_radix(m, 8).ok())
        .unwrap_or(0);
    let fstype = p.mount.as_ref().map(|m| m.fstype.as_str());
    let evidence = json!({
        "kind": p.kind, "mode": p.mode, "mount_point": p.mount_point, "fstype": fstype,
        "profile": {"type": want.fstype, "mode": format!("{:o}", want.mode)},
    });
    if p.kind.as_deref() != Some("dir") || mode & 0o777 != 0o777 {
        return fail(
            evidence,
            format!(
                "/tmp is a {} with mode {}, not a directory open to every user",
                p.kind.as_deref().unwrap_or("?"),
                p.mode.as_deref().unwrap_or("?")
            ),
        );
    }
    if want.is_mount() && !(p.mount_point && fstype == Some(want.fstype.as_str())) {
        return fail(
            evidence,
            format!(
                "/tmp is not a {} mount of its own (the profile provides one)",
                want.fstype
            ),
        );
    }
    pass(evidence, "/tmp is provided as the profile says")
}

fn write_verdict(f: &Facts, dir: &str) -> Verdict {
    let p = f.path(dir).filter(|p| p.exists);
    let write = p.and_then(|p| p.write.clone());
    let ok = write.as_ref().is_some_and(|w| w.ok);
    either(
        ok,
        json!({"exists": p.is_some(), "write": write, "mount_options": p.and_then(|p| p.mount.as_ref()).map(|m| &m.options)}),
        format!("a file was created, written, read back and removed in {dir}"),
        match (p, &write) {
            (None, _) => format!("{dir} does not exist"),
            (_, Some(w)) => format!(
                "writing a file in {dir} failed: {}",
                w.error.as_deref().unwrap_or("?")
            ),
            _ => format!("{dir} was not written to"),
        },
    )
}

/// `config.filesystems.tmp-read-write`.
pub(crate) fn tmp_writable(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    write_verdict(f, "/tmp")
}

/// `config.filesystems.resolv-conf`.
pub(crate) fn resolv_conf(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let want = &input.profile.resolv_conf;
    let r = &f.resolv_conf;
    let mode = f
        .path("/etc/resolv.conf")
        .and_then(|p| p.mode.as_deref())
        .and_then(|m| u32::from_str_radix(m, 8).ok());
    let evidence = json!({
        "readable": r.readable, "mode": mode.map(|m| format!("{m:o}")),
        "nameservers": r.nameservers, "search": r.search,
        "profile": {"nameservers": want.nameservers, "search": want.search},
    });
    let problem = if !r.readable {
        Some(format!(
            "/etc/resolv.conf cannot be read: {}",
            r.error.as_deref().unwrap_or("?")
        ))
    } else if mode.is_none_or(|m| m & 0o444 != 0o444) {
        Some("/etc/resolv.conf is not readable by every user".to_owned())
    } else if r.nameservers.is_empty() {
        Some("/etc/resolv.conf names no resolver".to_owned())
    } else if r.nameservers != want.nameservers {
        Some(format!(
            "the resolvers are {:?}, the profile's are {:?}",
            r.nameservers, want.nameservers
        ))
    } else if !want.search.is_empty() && r.search != want.search {
        Some(format!(
            "the search domains are {:?}, the profile's are {:?}",
            r.search, want.search
        ))
    } else {
        None
    };
    match problem {
        None => pass(evidence, "/etc/resolv.conf names the profile's resolvers"),
        Some(p) => fail(evidence, p),
    }
}

/// `config.namespaces.platform-provided`.
pub(crate) fn namespaces(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let host = &input.observed.host_namespaces;
    let mut evidence = BTreeMap::new();
    let mut shared = Vec::new();
    for ns in &input.profile.namespaces {
        let name = match ns.as_str() {
            "network" => "net",
            "mount" => "mnt",
            other => other,
        };
        let inside = f.namespaces.get(name).copied().flatten();
        let outside = host.get(name).copied();
        evidence.insert(
            name.to_owned(),
            json!({"container": inside, "host": outside}),
        );
        if inside.is_none() || outside.is_none() || inside == outside {
            shared.push(name.to_owned());
        }
    }
    let pid_one = !input.profile.namespaces.iter().any(|n| n == "pid") || f.process.pid == 1;
    evidence.insert(
        "pid".into(),
        json!({"container_pid": f.process.pid, "namespace": evidence.get("pid")}),
    );
    either(
        shared.is_empty() && pid_one,
        json!(evidence),
        "the container has its own namespace of every type the profile lists",
        if shared.is_empty() {
            format!(
                "the process is PID {} of its pid namespace, not 1",
                f.process.pid
            )
        } else {
            format!(
                "not a namespace of its own (or unreadable): {}",
                shared.join(", ")
            )
        },
    )
}

/// The OCI default devices (`config-linux.md`, "Default Devices") by `major:minor`.
const DEFAULT_DEVICES: &[(&str, &str)] = &[
    ("1:3", "null"),
    ("1:5", "zero"),
    ("1:7", "full"),
    ("1:8", "random"),
    ("1:9", "urandom"),
    ("5:0", "tty"),
    ("5:1", "console"),
    ("5:2", "ptmx"),
];

/// `config.devices.default-only`.
pub(crate) fn default_devices(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let devices: Vec<String> = f
        .dev
        .iter()
        .filter_map(|d| d.device.as_ref().map(|n| format!("{} {n}", d.name)))
        .collect();
    let extra: Vec<String> = f
        .dev
        .iter()
        .filter(|d| {
            d.device
                .as_deref()
                .is_some_and(|n| !DEFAULT_DEVICES.iter().any(|(m, _)| *m == n))
        })
        .map(|d| format!("/dev/{} ({})", d.name, d.device.as_deref().unwrap_or("")))
        .collect();
    if devices.is_empty() {
        return fail(
            json!({"devices": devices}),
            "no device was found under /dev",
        );
    }
    either(
        extra.is_empty(),
        json!({"devices": devices, "beyond_defaults": extra}),
        "the devices under /dev are OCI default devices",
        format!("devices beyond the OCI defaults: {}", extra.join(", ")),
    )
}

/// The contract's limit files for a version, by their path in the container.
fn limit_files(version: CgroupVersion) -> &'static [&'static str] {
    match version {
        CgroupVersion::V2 => &[
            "/sys/fs/cgroup/memory.max",
            "/sys/fs/cgroup/cpu.weight",
            "/sys/fs/cgroup/cpu.max",
        ],
        _ => &[
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/cpu/cpu.shares",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
        ],
    }
}

/// The version whose files the container (or the host) shows, when the profile says `auto`.
fn version_of(input: &Input<'_>, c: &Container, f: &Facts) -> CgroupVersion {
    match input.profile.cgroups.version {
        CgroupVersion::Auto => {
            let v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes";
            if c.host_cgroup.contains_key(v1) || f.cgroup_file(v1).is_some_and(|x| x.exists) {
                CgroupVersion::V1
            } else {
                CgroupVersion::V2
            }
        }
        v => v,
    }
}

/// `config.cgroups.platform-configured`.
pub(crate) fn cgroup_limits(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    let l = &c.expected.limits;
    if l.memory_bytes.is_none() && l.cpu_quota_us.is_none() && l.cpu_shares.is_none() {
        return not_applicable("the Service sets no resources");
    }
    let version = version_of(input, c, f);
    let from_host = !c.host_cgroup.is_empty();
    let found = |path: &str| -> Option<String> {
        if from_host {
            c.host_cgroup.get(path).cloned()
        } else {
            f.cgroup_file(path).and_then(|x| x.value.clone())
        }
    };
    let mut wanted: Vec<(&str, String)> = Vec::new();
    match version {
        CgroupVersion::V2 => {
            if let Some(m) = l.memory_bytes {
                wanted.push(("/sys/fs/cgroup/memory.max", m.to_string()));
            }
            if l.cpu_quota_us.is_some() {
                wanted.push(("/sys/fs/cgroup/cpu.max", l.cpu_max()));
            }
            if let Some(w) = l.cpu_weight() {
                wanted.push(("/sys/fs/cgroup/cpu.weight", w.to_string()));
            }
        }
        _ => {
            if let Some(m) = l.memory_bytes {
                // The kernel keeps a multiple of the page size.
                wanted.push((
                    "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                    (m / 4096 * 4096).to_string(),
                ));
            }
            if let Some(q) = l.cpu_quota_us {
                wanted.push(("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", q.to_string()));
                wanted.push((
                    "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
                    l.cpu_period_us.to_string(),
                ));
            }
            if let Some(s) = l.cpu_shares {
                wanted.push(("/sys/fs/cgroup/cpu/cpu.shares", s.to_string()));
            }
        }
    }
    let mut table = BTreeMap::new();
    let mut wrong = Vec::new();
    for (path, want) in &wanted {
        let got = found(path);
        if got.as_deref() != Some(want.as_str()) {
            wrong.push(format!(
                "{path} is {}, expected {want}",
                got.as_deref().unwrap_or("missing")
            ));
        }
        table.insert(*path, json!({"expected": want, "found": got}));
    }
    either(
        wrong.is_empty(),
        json!({"read_from": if from_host { "host" } else { "container" }, "files": table}),
        "the container's cgroup holds the limits derived from the Service",
        wrong.join("; "),
    )
}

/// `config.cgroups.read-only`.
pub(crate) fn cgroup_read_only(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let files: Vec<_> = f.cgroups.files.iter().filter(|x| x.exists).collect();
    if files.is_empty() {
        return not_applicable("no cgroup limit file is visible in the container");
    }
    let mut table = BTreeMap::new();
    let mut writable = Vec::new();
    for x in &files {
        let mount = mount_of(&f.mounts, &x.path);
        let ro = mount.is_some_and(|m| m.options.iter().any(|o| o == "ro"));
        let written = x.write.as_ref().is_some_and(|w| w.ok);
        if !ro || written {
            writable.push(x.path.as_str());
        }
        table.insert(
            x.path.as_str(),
            json!({"mount_options": mount.map(|m| &m.options), "write": x.write}),
        );
    }
    either(
        writable.is_empty(),
        json!(table),
        "every limit file is on a read-only mount and refused the write",
        format!("not read-only: {}", writable.join(", ")),
    )
}

/// `config.cgroups.limits-exposed`.
pub(crate) fn cgroup_files(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    let version = version_of(input, c, f);
    let mut table = BTreeMap::new();
    let mut problems = Vec::new();
    for path in limit_files(version) {
        let x = f.cgroup_file(path);
        let value = x.and_then(|x| x.value.clone());
        let host = c.host_cgroup.get(*path);
        match (&value, host) {
            (None, _) => problems.push(format!("{path} cannot be read")),
            (Some(v), Some(h)) if v != h => {
                problems.push(format!("{path} shows {v}, the host's cgroup holds {h}"))
            }
            _ => {}
        }
        table.insert(*path, json!({"value": value, "host": host}));
    }
    either(
        problems.is_empty(),
        json!({"version": <&str>::from(version), "files": table}),
        "the contract's limit files show the enforced limits",
        problems.join("; "),
    )
}

/// `config.sysctl.not-developer-tunable`.
pub(crate) fn proc_sys_read_only(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let m = mount_of(&f.mounts, "/proc/sys");
    let ok = m.is_some_and(|m| m.fstype == "proc" && m.options.iter().any(|o| o == "ro"));
    either(
        ok,
        json!({"mount_point": m.map(|m| &m.mount_point), "fstype": m.map(|m| &m.fstype), "options": m.map(|m| &m.options)}),
        "/proc/sys is a read-only proc mount",
        "/proc/sys is writable",
    )
}

/// `config.rootfs-propagation.not-developer-configurable`: the root's propagation as the container
/// sees it, and in the config the runtime ran when the route knows it (a local run: runc 1.1.5 does
/// not show `shared` in the container, `spec/runtimes/deviations.yaml`).
pub(crate) fn rootfs_propagation(input: &Input<'_>) -> Verdict {
    let (c, f) = facts_or_return!(input, Role::Main);
    let want = input.profile.rootfs_propagation.as_deref();
    let configured = c.config.as_ref().map(|config| {
        config["linux"]
            .get("rootfsPropagation")
            .and_then(Value::as_str)
    });
    let root = f.mount_at("/");
    let tags: Vec<&str> = root
        .map(|m| m.propagation.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let shared = tags.iter().any(|t| t.starts_with("shared:"));
    let want_shared = matches!(want, Some("shared" | "rshared"));
    let evidence = json!({
        "profile": want,
        "config": configured.map_or(json!("not known on this route"), |c| json!(c)),
        "root_propagation": tags,
    });
    if let Some(configured) = configured
        && configured != want
    {
        return fail(
            evidence,
            format!(
                "the config sets rootfsPropagation {}, the profile {}",
                configured.unwrap_or("(none)"),
                want.unwrap_or("(none)")
            ),
        );
    }
    either(
        shared == want_shared,
        evidence,
        "the root's propagation is the profile's",
        format!(
            "the root is {}shared in the container; the profile says {}",
            if shared { "" } else { "not " },
            want.unwrap_or("the runtime's default")
        ),
    )
}

/// `config.masked-paths.not-developer-configurable`.
pub(crate) fn masked_paths(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let mut table = BTreeMap::new();
    let mut open = Vec::new();
    let mut existing = 0;
    for p in &input.profile.masked_paths {
        let fact = f.path(p);
        let exists = fact.is_some_and(|x| x.exists);
        let masked = fact.is_some_and(|x| x.mount_point);
        if exists {
            existing += 1;
            if !masked {
                open.push(p.as_str());
            }
        }
        table.insert(
            p.as_str(),
            json!({"reported": fact.is_some(), "exists": exists, "masked": masked}),
        );
    }
    if f.paths.is_empty()
        || input
            .profile
            .masked_paths
            .iter()
            .any(|p| f.path(p).is_none())
    {
        return Verdict {
            status: Status::Error,
            evidence: json!(table),
            message: "the probe did not report every masked path".into(),
        };
    }
    if existing == 0 {
        return not_applicable("none of the profile's masked paths exists on this kernel");
    }
    either(
        open.is_empty(),
        json!(table),
        format!("the {existing} masked paths that exist are covered"),
        format!("not masked: {}", open.join(", ")),
    )
}

/// `config.readonly-paths.not-developer-configurable`.
pub(crate) fn readonly_paths(input: &Input<'_>) -> Verdict {
    let (_, f) = facts_or_return!(input, Role::Main);
    let mut table = BTreeMap::new();
    let mut writable = Vec::new();
    let mut existing = 0;
    for p in input
        .profile
        .readonly_paths
        .iter()
        .filter(|p| p.as_str() != "/proc/sys")
    {
        let Some(fact) = f.path(p) else {
            return Verdict {
                status: Status::Error,
                evidence: json!(table),
                message: format!("the probe did not report {p}"),
            };
        };
        if !fact.exists {
            table.insert(p.as_str(), json!({"exists": false}));
            continue;
        }
        existing += 1;
        let ro = fact.mount_point
            && fact
                .mount
                .as_ref()
                .is_some_and(|m| m.options.iter().any(|o| o == "ro"));
        if !ro {
            writable.push(p.as_str());
        }
        table.insert(
            p.as_str(),
            json!({"exists": true, "mount_point": fact.mount_point, "options": fact.mount.as_ref().map(|m| &m.options)}),
        );
    }
    if existing == 0 {
        return not_applicable("none of the profile's read-only paths exists on this kernel");
    }
    either(
        writable.is_empty(),
        json!(table),
        format!("the {existing} read-only paths that exist are read-only mounts"),
        format!("not read-only: {}", writable.join(", ")),
    )
}
