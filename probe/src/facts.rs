//! The facts a probe reports (`kcontract-probe/1`): what it found about its environment, never a
//! verdict. kcontract judges them against a platform profile; keeping judgement out of the probe
//! means an old report can be judged again after a clause changes, and the expected values (the
//! port, the user, the limits) never have to be built into the image.
//!
//! The JSON Schema is `docs/probe-facts.schema.json`. Within `kcontract-probe/1` fields are only
//! added, never removed or changed in meaning; readers ignore fields they do not know.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `format` of every facts document this version writes.
pub const FORMAT: &str = "kcontract-probe/1";

/// The paths every report looks at: the contract's filesystems and files, the OCI default masked
/// and read-only paths, and the places where a container runtime's interface would show.
pub const CONTRACT_PATHS: &[&str] = &[
    "/tmp",
    "/var/log",
    "/dev/log",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/hostname",
    "/dev/console",
    "/dev/pts",
    "/dev/shm",
    "/dev/mqueue",
    "/sys/fs/cgroup",
    "/proc/acpi",
    "/proc/asound",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/proc/bus",
    "/proc/fs",
    "/proc/irq",
    "/proc/sys",
    "/proc/sysrq-trigger",
];

/// Where container runtimes and engines keep their sockets and state: none of them should be
/// visible inside a container (the OCI interface is not exposed there).
pub const RUNTIME_INTERFACE_PATHS: &[&str] = &[
    "/run/containerd/containerd.sock",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/crio/crio.sock",
    "/var/run/crio/crio.sock",
    "/run/podman/podman.sock",
    "/run/runc",
    "/run/crun",
    "/run/youki",
];

/// The environment variables whose values every document shows: the ones the contract defines.
/// Every other value is [`REDACTED`] unless the operator lists its name (`--show-env NAME`): a
/// platform's environment holds its secrets, and `/report` answers whoever reaches the route.
pub const CONTRACT_ENV: &[&str] = &["PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION"];

/// What a redacted environment value reads as.
pub const REDACTED: &str = "<redacted>";

/// The variable holding the bearer token `serve` requires for `/report` when it is set (from a
/// Secret, in a Service). Its value is never shown, even when listed with `--show-env`.
pub const TOKEN_ENV: &str = "KCONTRACT_PROBE_TOKEN";

/// The directories a report tries to create, write and remove a file in.
pub const WRITE_TESTED: &[&str] = &["/tmp", "/var/log"];

/// The cgroup files whose values and writability every report records: the ones the contract
/// names (cgroup v1 and v2).
pub const CGROUP_FILES: &[(&str, &str)] = &[
    ("v1", "/sys/fs/cgroup/memory/memory.limit_in_bytes"),
    ("v1", "/sys/fs/cgroup/cpu/cpu.shares"),
    ("v1", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"),
    ("v1", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
    ("v2", "/sys/fs/cgroup/memory.max"),
    ("v2", "/sys/fs/cgroup/cpu.weight"),
    ("v2", "/sys/fs/cgroup/cpu.max"),
];

/// One facts document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// Always [`FORMAT`].
    pub format: String,
    /// Which probe wrote it, and how it was started.
    pub probe: ProbeInfo,
    /// The process: ids, capabilities, security flags.
    pub process: Process,
    /// The environment variables, sorted by name; the values of those not in `env_shown` are
    /// [`REDACTED`].
    pub env: BTreeMap<String, String>,
    /// The names whose values `env` shows: [`CONTRACT_ENV`] and those listed with `--show-env`
    /// (added within `kcontract-probe/1`: absent from a document of an older probe, which showed
    /// every value).
    #[serde(default)]
    pub env_shown: Vec<String>,
    /// Namespace inode numbers by type (`net`, `pid`, …), from `/proc/self/ns`; `null` when the
    /// link cannot be read.
    pub namespaces: BTreeMap<String, Option<u64>>,
    /// The contract's paths and any asked for with `--path`.
    pub paths: Vec<PathFact>,
    /// `/proc/self/mountinfo`, parsed.
    pub mounts: Vec<Mount>,
    /// The cgroup files of [`CGROUP_FILES`] and `/proc/self/cgroup`.
    pub cgroups: Cgroups,
    /// Standard streams.
    pub stdio: Stdio,
    /// The entries directly under `/dev`.
    pub dev: Vec<DevEntry>,
    /// `/etc/resolv.conf`, parsed.
    pub resolv_conf: ResolvConf,
    /// `/proc/sys/kernel/hostname`.
    pub hostname: Option<String>,
    /// Signals received so far (a report printed at start has none).
    pub signals: Vec<SignalSeen>,
    /// The request this document answers (`serve` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Request>,
}

/// The probe itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeInfo {
    /// The probe's version (its crate version).
    pub version: String,
    /// `report` or `serve`.
    pub mode: String,
    /// The command line it was started with, after the program name.
    pub args: Vec<String>,
}

/// Real, effective, saved and filesystem ids (the four columns of `Uid:` and `Gid:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ids {
    /// Real id.
    pub real: u32,
    /// Effective id.
    pub effective: u32,
    /// Saved set-id.
    pub saved: u32,
    /// Filesystem id.
    pub filesystem: u32,
}

/// The process, from `/proc/self/status` and the process's own calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Process {
    /// Its pid in its own pid namespace.
    pub pid: u32,
    /// Its parent's pid (0 for the first process of a pid namespace).
    pub ppid: u32,
    /// User ids.
    pub uid: Option<Ids>,
    /// Group ids.
    pub gid: Option<Ids>,
    /// Supplementary groups.
    pub groups: Vec<u32>,
    /// Working directory.
    pub cwd: Option<String>,
    /// `CapEff`, `CapPrm`, `CapBnd`, `CapInh`, `CapAmb` as hexadecimal masks.
    pub capabilities: BTreeMap<String, String>,
    /// `NoNewPrivs`.
    pub no_new_privs: Option<bool>,
    /// `Seccomp` (0 off, 1 strict, 2 filter).
    pub seccomp: Option<u32>,
}

/// The outcome of trying something (a write, a read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// It worked.
    pub ok: bool,
    /// The error's name when it did not (`EROFS`, `EACCES`, …; `errno N` for others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the probe found at a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathFact {
    /// The path.
    pub path: String,
    /// Whether `lstat` found something.
    pub exists: bool,
    /// `dir`, `file`, `symlink`, `socket`, `char`, `block`, `fifo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Permission bits in octal, with the sticky, setuid and setgid bits (`1777`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    /// Group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<u32>,
    /// `access(R_OK)` for the process's real ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readable: Option<bool>,
    /// `access(W_OK)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writable: Option<bool>,
    /// Whether the path is itself a mount point (in `mountinfo`).
    pub mount_point: bool,
    /// The mount the path is on: the `mountinfo` entry with the longest mount point that
    /// contains it (the last such entry when mounts are stacked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount: Option<MountRef>,
    /// For files: reading up to 4 KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadAttempt>,
    /// For the directories of [`WRITE_TESTED`]: creating, writing, reading back and removing a
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<Attempt>,
    /// `lstat`'s error other than "does not exist".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A read of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadAttempt {
    /// It worked.
    pub ok: bool,
    /// Bytes read (at most 4,096).
    pub bytes: usize,
    /// The error's name when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The mount a path is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountRef {
    /// The `mountinfo` mount id.
    pub id: u32,
    /// Where it is mounted.
    pub mount_point: String,
    /// Filesystem type.
    pub fstype: String,
    /// Per-mount options (`ro`, `nosuid`, …).
    pub options: Vec<String>,
}

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    /// Mount id.
    pub id: u32,
    /// Parent's mount id.
    pub parent: u32,
    /// `major:minor` of the device.
    pub device: String,
    /// The root of the mount within its filesystem.
    pub root: String,
    /// Where it is mounted, relative to the process's root.
    pub mount_point: String,
    /// Per-mount options.
    pub options: Vec<String>,
    /// Optional fields: propagation (`shared:1`, `master:2`, `propagate_from:3`, `unbindable`).
    pub propagation: Vec<String>,
    /// Filesystem type.
    pub fstype: String,
    /// Mount source.
    pub source: String,
    /// Per-superblock options.
    pub super_options: Vec<String>,
}

/// The cgroup files and the process's cgroups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cgroups {
    /// `/proc/self/cgroup`, one entry per line.
    pub membership: Vec<String>,
    /// One per file of [`CGROUP_FILES`].
    pub files: Vec<CgroupFile>,
}

/// A cgroup limit file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CgroupFile {
    /// `v1` or `v2`.
    pub version: String,
    /// The file.
    pub path: String,
    /// Whether it exists.
    pub exists: bool,
    /// Its content, trimmed, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The read error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_error: Option<String>,
    /// Writing the value just read back into the file (which changes nothing when it works):
    /// whether the container could change its own limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<Attempt>,
}

/// The standard streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stdio {
    /// Standard input is a terminal.
    pub stdin_tty: bool,
    /// Standard output is a terminal.
    pub stdout_tty: bool,
    /// Standard error is a terminal.
    pub stderr_tty: bool,
    /// A one-byte read of standard input.
    pub stdin_read: StdinRead,
}

/// What a one-byte read of standard input gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StdinRead {
    /// `eof` (0 bytes), `data` (a byte), `blocked` (nothing to read within `waited_ms`),
    /// `error`.
    pub outcome: String,
    /// How long the probe waited for standard input to become readable.
    pub waited_ms: u64,
    /// The error's name for `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An entry directly under `/dev`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevEntry {
    /// The name (`null`, `pts`).
    pub name: String,
    /// As in [`PathFact::kind`].
    pub kind: String,
    /// For devices: `major:minor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// `/etc/resolv.conf`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ResolvConf {
    /// Whether it could be read.
    pub readable: bool,
    /// The read error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `nameserver` lines, in order.
    pub nameservers: Vec<String>,
    /// `search` (and `domain`) domains, in order.
    pub search: Vec<String>,
    /// `options`.
    pub options: Vec<String>,
}

/// A signal the probe received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalSeen {
    /// `SIGTERM`, `SIGINT`, …
    pub signal: String,
    /// Milliseconds since the probe started.
    pub ms: u64,
}

/// The HTTP request a served report answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// `GET`.
    pub method: String,
    /// The request target (`/report`).
    pub target: String,
    /// `HTTP/1.1`.
    pub protocol: String,
    /// Every header as received, in order (names as sent).
    pub headers: Vec<(String, String)>,
    /// The peer's address.
    pub peer: Option<String>,
}

/// A line the probe prints on standard output after the facts (`report --then …`), one JSON
/// object per line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// It listens for HTTP on `port`; `source` is `PORT` or `fallback` (`--port-fallback`, when
    /// `PORT` is unset or invalid).
    Listening {
        /// The port.
        port: u16,
        /// Where the port came from.
        source: String,
    },
    /// It does not serve (`--then wait`) and waits for signals.
    Waiting,
    /// It could not serve.
    ServeError {
        /// Why.
        message: String,
    },
    /// A signal arrived.
    Signal {
        /// Its name.
        signal: String,
        /// Milliseconds since start.
        ms: u64,
        /// What the probe does about it: `exit`, `ignore`, `delay:N`, `record`.
        action: String,
    },
    /// It is still running after a SIGTERM it did not exit on (`--on-term ignore`, `delay:N`):
    /// printed every `--alive-ms`, so that a platform's log shows how long the process ran on
    /// after SIGTERM and when it stopped (a SIGKILL leaves no line of its own).
    Alive {
        /// Milliseconds since start.
        ms: u64,
    },
    /// It exits now, with this status.
    Exit {
        /// The exit status.
        code: i32,
        /// Milliseconds since start.
        ms: u64,
    },
}

impl Event {
    /// Whether it is the first line a probe prints once it runs (`listening`, `waiting`,
    /// `serve-error`): one per start of the probe.
    pub fn is_start(&self) -> bool {
        matches!(
            self,
            Event::Listening { .. } | Event::Waiting | Event::ServeError { .. }
        )
    }
}

/// Whether the environment variable `name`'s value is shown, given the names the operator listed.
pub fn env_shown(name: &str, listed: &[String]) -> bool {
    name != TOKEN_ENV && (CONTRACT_ENV.contains(&name) || listed.iter().any(|l| l == name))
}

impl Facts {
    /// The fact about `path`, when the report has one.
    pub fn path(&self, path: &str) -> Option<&PathFact> {
        self.paths.iter().find(|p| p.path == path)
    }

    /// The cgroup file `path`, when the report has it.
    pub fn cgroup_file(&self, path: &str) -> Option<&CgroupFile> {
        self.cgroups.files.iter().find(|f| f.path == path)
    }

    /// The mount mounted last at `mount_point` (the visible one when mounts are stacked).
    pub fn mount_at(&self, mount_point: &str) -> Option<&Mount> {
        self.mounts
            .iter()
            .rev()
            .find(|m| m.mount_point == mount_point)
    }
}

/// Parses `/proc/self/mountinfo` text (`proc(5)`): lines that do not have the documented shape
/// are skipped. Octal escapes (`\040` for a space) in paths are decoded.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_mountinfo_line).collect()
}

fn parse_mountinfo_line(line: &str) -> Option<Mount> {
    let (left, right) = line.split_once(" - ")?;
    let mut l = left.split(' ');
    let id = l.next()?.parse().ok()?;
    let parent = l.next()?.parse().ok()?;
    let device = l.next()?.to_owned();
    let root = unescape(l.next()?);
    let mount_point = unescape(l.next()?);
    let options = l.next()?.split(',').map(str::to_owned).collect();
    let propagation = l.filter(|s| !s.is_empty()).map(str::to_owned).collect();
    let mut r = right.split(' ');
    let fstype = r.next()?.to_owned();
    let source = unescape(r.next()?);
    let super_options = r
        .next()
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    Some(Mount {
        id,
        parent,
        device,
        root,
        mount_point,
        options,
        propagation,
        fstype,
        source,
        super_options,
    })
}

/// Decodes the kernel's `\NNN` octal escapes.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let digit = |k: usize| u32::from(b[i + k] - b'0');
            let v = digit(1) * 64 + digit(2) * 8 + digit(3);
            if let Ok(byte) = u8::try_from(v) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount `path` is on: the entry with the longest mount point containing it, the last one
/// when several are mounted at the same place.
pub fn mount_of<'a>(mounts: &'a [Mount], path: &str) -> Option<&'a Mount> {
    let mut best: Option<&Mount> = None;
    for m in mounts {
        if contains(&m.mount_point, path)
            && best.is_none_or(|b| m.mount_point.len() >= b.mount_point.len())
        {
            best = Some(m);
        }
    }
    best
}

/// Whether `path` is `dir` or under it (by path components).
fn contains(dir: &str, path: &str) -> bool {
    dir == "/"
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Parses `resolv.conf` text (`resolv.conf(5)`): comments start with `#` or `;`.
pub fn parse_resolv_conf(text: &str) -> ResolvConf {
    let mut out = ResolvConf {
        readable: true,
        ..ResolvConf::default()
    };
    for line in text.lines() {
        let line = line.split(['#', ';']).next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("nameserver") => out.nameservers.extend(words.next().map(str::to_owned)),
            Some("search" | "domain") => out.search.extend(words.map(str::to_owned)),
            Some("options") => out.options.extend(words.map(str::to_owned)),
            _ => {}
        }
    }
    out
}
