//! The deployed route's negative controls: each a doctored `/report`, a doctored request (as the
//! probe reports it received it), an ingress that refuses the h2c upgrade, or a doctored platform
//! log — what a platform getting one thing wrong would show `platform verify`. Each must make
//! exactly the checks naming it fail (`checks::CHECKS`, `doctored`): the test suite serves each on
//! 127.0.0.1 and runs `kcontract platform verify` against it (`tests/suite/platform_deployed.rs`),
//! so a judge that always says "pass" on the deployed route turns the suite red, as the simulated
//! route's controls (`controls`) do for `platform run`.
//!
//! Nothing here runs in a command: it is the tests' material, kept beside the table that names it
//! so that a row and its control are one edit.

use kcontract_probe::facts::{DevEntry, Event, Facts, Ids, MountRef};

use super::profile::Profile;
use super::verify::USER_HEADER;

/// A doctored control of the deployed route. Its name (kebab-case), its sentence and the list of
/// every doctor come from this one declaration (strum).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Doctor {
    /// The ingress drops the user's header.
    #[strum(message = "the ingress drops the user's header")]
    UserHeaderDropped,
    /// The ingress hands the probe its own name for the Service as `Host`.
    #[strum(message = "the ingress sends another Host")]
    HostChanged,
    /// No `Forwarded`.
    #[strum(message = "the ingress sets no Forwarded")]
    NoForwarded,
    /// `Forwarded` is a bare address, not RFC 7239 pairs.
    #[strum(message = "the ingress sets Forwarded to a bare address")]
    BareForwarded,
    /// No `X-Forwarded-For` nor `X-Forwarded-Proto`.
    #[strum(message = "the ingress sets no X-Forwarded-For or X-Forwarded-Proto")]
    NoXForwarded,
    /// `traceparent` dropped.
    #[strum(message = "the ingress drops traceparent")]
    TraceparentDropped,
    /// A new trace instead of the client's.
    #[strum(message = "the ingress starts a new trace")]
    NewTrace,
    /// The ingress answers `Upgrade: h2c` as a plain request.
    #[strum(message = "the ingress ignores Upgrade: h2c")]
    NoH2cUpgrade,
    /// Over https: the request reaches the probe as HTTP/2.
    #[strum(message = "the request reaches the probe as HTTP/2.0")]
    Http2ToProbe,
    /// The request reaches the probe as HTTP/1.0.
    #[strum(message = "the request reaches the probe as HTTP/1.0")]
    Http10ToProbe,
    /// No `PORT`.
    #[strum(message = "PORT is not in the environment")]
    NoPort,
    /// `PORT` is not the profile's default.
    #[strum(message = "PORT is not the profile's default port")]
    WrongDefaultPort,
    /// No `K_SERVICE`, `K_CONFIGURATION`, `K_REVISION`.
    #[strum(message = "K_SERVICE, K_CONFIGURATION and K_REVISION are not in the environment")]
    NoKnativeNames,
    /// The probe runs as root.
    #[strum(message = "the probe runs as root")]
    RootUser,
    /// Standard input held data.
    #[strum(message = "reading stdin gave data")]
    StdinData,
    /// Standard output is a terminal.
    #[strum(message = "stdout is a terminal")]
    StdoutTty,
    /// `/tmp` is not a mount of its own.
    #[strum(message = "/tmp is not a mount of its own")]
    TmpNotMounted,
    /// Writing in `/tmp` fails (read-only).
    #[strum(message = "/tmp is read-only")]
    TmpReadOnly,
    /// `/etc/resolv.conf` names no resolver.
    #[strum(message = "/etc/resolv.conf names no resolver")]
    ResolvConfEmpty,
    /// `/etc/resolv.conf` is the image's file.
    #[strum(message = "/etc/resolv.conf is not a mount")]
    ResolvConfFromImage,
    /// `/dev/kmsg` is there.
    #[strum(message = "/dev/kmsg is among the devices")]
    ExtraDevice,
    /// `CAP_SYS_ADMIN` in the effective, permitted and bounding sets.
    #[strum(message = "CAP_SYS_ADMIN is in the capability sets")]
    CapabilityAdded,
    /// The memory limit file says no limit.
    #[strum(message = "the memory limit file holds no limit")]
    NoMemoryLimit,
    /// Writing a cgroup limit file works.
    #[strum(message = "the cgroup limit files can be written")]
    CgroupWritable,
    /// The CPU quota file cannot be read.
    #[strum(message = "the CPU quota file cannot be read")]
    CgroupUnreadable,
    /// `/proc/sys` is mounted read-write.
    #[strum(message = "/proc/sys is mounted read-write")]
    ProcSysWritable,
    /// No masked path is covered.
    #[strum(message = "the masked paths are not masked")]
    MaskedPathsOpen,
    /// No read-only path (but `/proc/sys`) is a read-only mount.
    #[strum(message = "the read-only paths are not read-only mounts")]
    ReadonlyPathsWritable,
    /// The root is a shared mount.
    #[strum(message = "the root is a shared mount")]
    RootfsShared,
    /// The log: the probe started and ended without a signal.
    #[strum(message = "the log shows the probe ended without SIGTERM")]
    KilledWithoutTerm,
    /// The log: SIGTERM, then nothing (no `alive` line): killed at once.
    #[strum(message = "the log shows the probe killed right after SIGTERM")]
    NoGrace,
    /// The log: the probe still alive well after the grace period.
    #[strum(message = "the log shows the probe alive long after the grace period")]
    NotKilledAfterGrace,
}

/// The cgroup files that hold a memory limit (v1, v2).
const MEMORY_FILES: &[&str] = &[
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    "/sys/fs/cgroup/memory.max",
];

/// The CPU quota files (v1, v2): a Service with a CPU request and no CPU limit leaves them unlimited.
const QUOTA_FILES: &[&str] = &[
    "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
    "/sys/fs/cgroup/cpu.max",
];

impl Doctor {
    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// What it changes, in a sentence.
    pub fn describe(self) -> &'static str {
        strum::EnumMessage::get_message(&self).unwrap_or_default()
    }

    /// Whether its test reads the probe over https (the protocol the probe receives behind TLS
    /// termination): every other one reads it over http.
    pub fn over_https(self) -> bool {
        self == Doctor::Http2ToProbe
    }

    /// Whether the ingress answers `Upgrade: h2c` as a plain request.
    pub fn refuses_h2c(self) -> bool {
        self == Doctor::NoH2cUpgrade
    }

    /// Changes `facts` (with the request the probe received) as the platform getting it wrong would
    /// show them; `profile` names the paths that should be masked or read-only.
    pub fn apply(self, profile: &Profile, facts: &mut Facts) {
        if self.apply_to_request(facts) {
            return;
        }
        match self {
            Doctor::NoPort => {
                facts.env.remove("PORT");
            }
            Doctor::WrongDefaultPort => {
                let port = facts.env.get("PORT").and_then(|p| p.parse::<u16>().ok());
                let other = port.map_or(1, |p| p.checked_add(1).unwrap_or(1));
                facts.env.insert("PORT".into(), other.to_string());
            }
            Doctor::NoKnativeNames => {
                for n in ["K_SERVICE", "K_CONFIGURATION", "K_REVISION"] {
                    facts.env.remove(n);
                }
            }
            Doctor::RootUser => {
                let root = Ids {
                    real: 0,
                    effective: 0,
                    saved: 0,
                    filesystem: 0,
                };
                facts.process.uid = Some(root);
                facts.process.gid = Some(root);
            }
            Doctor::StdinData => facts.stdio.stdin_read.outcome = "data".into(),
            Doctor::StdoutTty => facts.stdio.stdout_tty = true,
            Doctor::ResolvConfEmpty => facts.resolv_conf.nameservers.clear(),
            Doctor::ExtraDevice => facts.dev.push(DevEntry {
                name: "kmsg".into(),
                kind: "char".into(),
                device: Some("1:11".into()),
            }),
            Doctor::CapabilityAdded => {
                for set in ["CapEff", "CapPrm", "CapBnd"] {
                    if let Some(v) = facts.process.capabilities.get_mut(set) {
                        let bits = u64::from_str_radix(v, 16).unwrap_or(0) | (1 << 21);
                        *v = format!("{bits:016x}");
                    }
                }
            }
            _ => self.apply_to_files(profile, facts),
        }
    }

    /// The request-side doctors; whether `self` is one.
    fn apply_to_request(self, facts: &mut Facts) -> bool {
        let Some(req) = facts.request.as_mut() else {
            return false;
        };
        let mut set = |name: &str, value: Option<&str>| {
            req.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            if let Some(v) = value {
                req.headers.push((name.to_owned(), v.to_owned()));
            }
        };
        match self {
            Doctor::UserHeaderDropped => set(USER_HEADER.0, None),
            Doctor::HostChanged => set("Host", Some("kcontract-probe.default.svc.cluster.local")),
            Doctor::NoForwarded => set("Forwarded", None),
            Doctor::BareForwarded => set("Forwarded", Some("192.0.2.1")),
            Doctor::NoXForwarded => {
                set("X-Forwarded-For", None);
                set("X-Forwarded-Proto", None);
            }
            Doctor::TraceparentDropped => set("traceparent", None),
            Doctor::NewTrace => set(
                "traceparent",
                Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            ),
            Doctor::Http2ToProbe => req.protocol = "HTTP/2.0".into(),
            Doctor::Http10ToProbe => req.protocol = "HTTP/1.0".into(),
            Doctor::NoH2cUpgrade => {}
            _ => return false,
        }
        true
    }

    /// The doctors of paths, mounts and cgroup files.
    fn apply_to_files(self, profile: &Profile, facts: &mut Facts) {
        let root = facts.mount_at("/").map(|m| MountRef {
            id: m.id,
            mount_point: m.mount_point.clone(),
            fstype: m.fstype.clone(),
            options: m.options.clone(),
        });
        let not_a_mount = |facts: &mut Facts, path: &str| {
            if let Some(p) = facts.paths.iter_mut().find(|p| p.path == path) {
                p.mount_point = false;
                p.mount.clone_from(&root);
            }
        };
        match self {
            Doctor::TmpNotMounted => not_a_mount(facts, "/tmp"),
            Doctor::ResolvConfFromImage => not_a_mount(facts, "/etc/resolv.conf"),
            Doctor::MaskedPathsOpen => {
                for p in &profile.masked_paths {
                    not_a_mount(facts, p);
                }
            }
            Doctor::ReadonlyPathsWritable => {
                for p in profile.readonly_paths.iter().filter(|p| *p != "/proc/sys") {
                    not_a_mount(facts, p);
                }
            }
            Doctor::TmpReadOnly => {
                if let Some(p) = facts.paths.iter_mut().find(|p| p.path == "/tmp") {
                    p.write = Some(kcontract_probe::facts::Attempt {
                        ok: false,
                        error: Some("EROFS".into()),
                    });
                }
            }
            Doctor::ProcSysWritable => {
                for m in facts
                    .mounts
                    .iter_mut()
                    .filter(|m| m.mount_point == "/proc/sys")
                {
                    m.options.retain(|o| o != "ro");
                    m.options.insert(0, "rw".into());
                }
            }
            Doctor::RootfsShared => {
                if let Some(m) = facts.mounts.iter_mut().rev().find(|m| m.mount_point == "/") {
                    m.propagation = vec!["shared:1".into()];
                }
            }
            Doctor::NoMemoryLimit => {
                for f in facts.cgroups.files.iter_mut() {
                    if MEMORY_FILES.contains(&f.path.as_str()) && f.exists {
                        f.value = Some(if f.version == "v2" {
                            "max".into()
                        } else {
                            "9223372036854771712".into()
                        });
                    }
                }
            }
            Doctor::CgroupWritable => {
                for f in facts.cgroups.files.iter_mut().filter(|f| f.exists) {
                    f.write = Some(kcontract_probe::facts::Attempt {
                        ok: true,
                        error: None,
                    });
                }
            }
            Doctor::CgroupUnreadable => {
                for f in facts.cgroups.files.iter_mut() {
                    if QUOTA_FILES.contains(&f.path.as_str()) && f.exists {
                        f.value = None;
                        f.read_error = Some("EACCES".into());
                        f.write = None;
                    }
                }
            }
            _ => {}
        }
    }

    /// Changes the probe's event lines of a conforming shutdown (start, SIGTERM ignored, `alive`
    /// lines) as a platform getting the shutdown wrong would log them; `grace_ms` is the grace
    /// period the profile promises.
    pub fn apply_to_log(self, events: &mut Vec<Event>, grace_ms: u64) {
        let term = events.iter().find_map(|e| match e {
            Event::Signal { ms, .. } => Some(*ms),
            _ => None,
        });
        match self {
            Doctor::KilledWithoutTerm => {
                events.retain(|e| !matches!(e, Event::Signal { .. } | Event::Alive { .. }));
            }
            Doctor::NoGrace => events.retain(|e| !matches!(e, Event::Alive { .. })),
            Doctor::NotKilledAfterGrace => {
                let t = term.unwrap_or(0);
                let last = events
                    .iter()
                    .filter_map(|e| match e {
                        Event::Alive { ms } => Some(*ms),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(t);
                let mut ms = last + 1000;
                while ms <= t + grace_ms + 10_000 {
                    events.push(Event::Alive { ms });
                    ms += 1000;
                }
            }
            _ => {}
        }
    }
}
