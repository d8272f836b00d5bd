//! OCI bundles for the harness: one shared read-only root filesystem holding a static busybox, and
//! per container a `config.json` generated from the trace's `create` step plus a control folder
//! bind-mounted at `/ctl`.
//!
//! The container's program is a busybox shell script whose behaviour the host controls and observes
//! through `/ctl`:
//!
//! - it creates `/ctl/started` first thing, so the harness knows the user-specified program really
//!   runs (a runtime may report `running` before that);
//! - it traps SIGTERM: with `on_sigterm: exit` it appends `TERM exit` to `/ctl/signals` and exits 0,
//!   with `ignore` it appends `TERM` and goes on; other catchable signals are appended and ignored
//!   (the model: "other signals change nothing");
//! - it waits, without polling, in a blocking `read` of the FIFO `/ctl/exit`, and exits with the
//!   status the host writes into it (the trace's `exit` step). A trapped signal interrupts the
//!   blocking `open`, so the trap runs at once and the loop then reopens the FIFO.
//!
//! Hooks are host commands (busybox `sh -c`) that read the state from stdin, append
//! `NAME[INDEX] STATUS` to `hooks.log` in the control folder and exit 0 (`ok`) or 1 (`fail`). Hooks
//! that run in the runtime namespace reach the control folder by its host path; hooks that run in
//! the container namespace (`createContainer`, `startContainer`) may run before or after the
//! runtime has changed the root to the rootfs, so the script uses the host path when it exists and
//! `/ctl` otherwise.
//!
//! The namespaces, mounts, masked paths and capabilities are those of `runc spec`'s stock
//! configuration (a new network namespace with only loopback, so the program cannot reach the
//! network), minus the cgroup filesystem mount, which the program does not need.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use strum::VariantArray;

use crate::model::{Config, HookName, HookOutcome, OnSigterm};

use super::error::{HarnessError, IoContext};
use super::oci::find_in_path;

/// The `ociVersion` written into every `config.json`: the first release that defines the
/// `createRuntime`, `createContainer` and `startContainer` hooks, accepted by all three runtimes.
pub(crate) const CONFIG_OCI_VERSION: &str = "1.0.2";

/// Signals the program traps, logs and otherwise ignores (besides SIGTERM, whose handling follows
/// `on_sigterm`). Names as busybox `trap` spells them.
pub(crate) const LOGGED_SIGNALS: [&str; 6] = ["HUP", "INT", "QUIT", "USR1", "USR2", "ALRM"];

/// The shared root filesystem: `bin/busybox` (a copy of the host's static busybox) and empty mount
/// points. Read-only for the containers.
#[derive(Debug, Clone)]
pub struct Rootfs {
    path: PathBuf,
    /// The host busybox, also used as the hook program (so it exists at the same path inside).
    busybox: PathBuf,
}

impl Rootfs {
    /// Builds the rootfs in `dir` from the host's busybox, which must be statically linked (a
    /// dynamically linked one would need the host's libraries inside the container).
    pub fn prepare(dir: &Path) -> Result<Rootfs, HarnessError> {
        let busybox = find_in_path("busybox").ok_or(HarnessError::NotInstalled {
            program: "busybox",
            why: "",
            install: "apt-get install busybox-static (Debian)",
        })?;
        let bytes = kcontract_spec::fsutil::read_regular(&busybox, 64 << 20)
            .doing(|| format!("read {}", busybox.display()))?;
        if !is_static_elf(&bytes) {
            return Err(HarnessError::NotStatic { path: busybox });
        }
        let mk = |p: &Path| std::fs::create_dir_all(p).doing(|| format!("create {}", p.display()));
        for sub in ["bin", "proc", "dev", "sys", "ctl", "tmp"] {
            mk(&dir.join(sub))?;
        }
        // The hook program path must resolve both on the host and, for container-namespace hooks
        // run after the root change, inside the rootfs.
        let mut copies = vec![dir.join("bin/busybox")];
        if let Ok(rel) = busybox.strip_prefix("/") {
            copies.push(dir.join(rel));
        }
        for copy in copies {
            if let Some(parent) = copy.parent() {
                mk(parent)?;
            }
            if !copy.exists() {
                std::fs::copy(&busybox, &copy)
                    .doing(|| format!("copy busybox to {}", copy.display()))?;
            }
        }
        Ok(Rootfs {
            path: dir.to_owned(),
            busybox,
        })
    }

    /// The rootfs folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The host's busybox.
    pub(crate) fn busybox(&self) -> &Path {
        &self.busybox
    }
}

/// Whether an ELF file has no program interpreter (`PT_INTERP`), i.e. is statically linked.
pub fn is_static_elf(bytes: &[u8]) -> bool {
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_le_bytes)
    };
    // 64-bit little-endian ELF only (the hosts this runs on).
    if bytes.get(..6) != Some(&[0x7f, b'E', b'L', b'F', 2, 1][..]) {
        return false;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        return false;
    };
    const PT_INTERP: u32 = 3;
    (0..usize::from(phnum)).all(|i| {
        usize::try_from(phoff)
            .ok()
            .and_then(|off| off.checked_add(i * usize::from(phentsize)))
            .and_then(u32_at)
            .is_some_and(|t| t != PT_INTERP)
    })
}

/// The program's shell script for a given SIGTERM behaviour.
pub(crate) fn program_script(on_sigterm: OnSigterm) -> String {
    let term = match on_sigterm {
        OnSigterm::Exit => "echo 'TERM exit' >> /ctl/signals; exit 0",
        OnSigterm::Ignore => "echo TERM >> /ctl/signals",
    };
    let mut s = String::from("touch /ctl/started; ");
    s.push_str(&format!("trap \"{term}\" TERM; "));
    for sig in LOGGED_SIGNALS {
        s.push_str(&format!("trap 'echo {sig} >> /ctl/signals' {sig}; "));
    }
    s.push_str(
        "while :; do code=; read code < /ctl/exit; [ -n \"$code\" ] && exit \"$code\"; done",
    );
    s
}

/// The hook script: `$1` = `NAME[INDEX]`, `$2` = host control folder, `$3` = exit status, `$4` =
/// the clean-up marker. It logs `NAME[INDEX] STATUS PID` from the state on its stdin (either may be
/// empty). Once the marker exists the hook succeeds silently: youki runs the poststop
/// hooks even for `delete --force` and refuses to delete while one fails, so the clean-up guards
/// create the marker before deleting.
const HOOK_SCRIPT: &str = concat!(
    "s=$(tr -d ' \\t\\n'); ",
    "st=$(echo \"$s\" | sed -n 's/.*\"status\":\"\\([a-z]*\\)\".*/\\1/p'); ",
    "pid=$(echo \"$s\" | sed -n 's/.*\"pid\":\\([0-9]*\\).*/\\1/p'); ",
    "[ -e \"$4\" ] && exit 0; ",
    "if [ -d \"$2\" ]; then d=\"$2\"; else d=/ctl; fi; ",
    "echo \"$1 $st $pid\" >> \"$d/hooks.log\"; exit \"$3\""
);

/// The `config.json` for a container created with `config`, whose control folder is `ctl` on the
/// host; `disarm` is the clean-up marker (see the hook script).
pub(crate) fn config_json(rootfs: &Rootfs, ctl: &Path, disarm: &Path, config: &Config) -> Value {
    let mut doc = json!({
        "ociVersion": CONFIG_OCI_VERSION,
        "root": {"path": rootfs.path(), "readonly": true},
        "hostname": "kcontract",
        "mounts": mounts(ctl),
        "linux": {
            "resources": {"devices": [{"allow": false, "access": "rwm"}]},
            "namespaces": [
                {"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"},
                {"type": "mount"}
            ],
            "maskedPaths": [
                "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
                "/proc/scsi"
            ],
            "readonlyPaths": [
                "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"
            ]
        }
    });
    if config.process {
        let caps = json!(["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]);
        doc["process"] = json!({
            "terminal": false,
            "user": {"uid": 0, "gid": 0},
            "args": ["/bin/busybox", "sh", "-c", program_script(config.on_sigterm)],
            "env": ["PATH=/bin"],
            "cwd": "/",
            "capabilities": {
                "bounding": caps, "effective": caps, "permitted": caps, "ambient": caps
            },
            "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
            "noNewPrivileges": true
        });
    }
    let mut hooks = serde_json::Map::new();
    for &hook in HookName::VARIANTS {
        let entries: Vec<Value> = config
            .hooks
            .get(hook)
            .iter()
            .enumerate()
            .map(|(i, outcome)| {
                let code = match outcome {
                    HookOutcome::Ok => "0",
                    HookOutcome::Fail => "1",
                };
                json!({
                    "path": rootfs.busybox(),
                    "args": [
                        "busybox", "sh", "-c", HOOK_SCRIPT, "hook", format!("{hook}[{i}]"), ctl, code,
                        disarm
                    ],
                    "timeout": 20
                })
            })
            .collect();
        if !entries.is_empty() {
            hooks.insert(hook.as_str().to_owned(), Value::Array(entries));
        }
    }
    if !hooks.is_empty() {
        doc["hooks"] = Value::Object(hooks);
    }
    doc
}

fn mounts(ctl: &Path) -> Value {
    json!([
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
         "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
        {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
         "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
         "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
        {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
         "options": ["nosuid", "noexec", "nodev"]},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs",
         "options": ["nosuid", "noexec", "nodev", "ro"]},
        {"destination": "/ctl", "type": "bind", "source": ctl, "options": ["rbind", "rw"]}
    ])
}

/// Writes a bundle for `config` into `dir` (created): `config.json` and the control folder
/// `dir/ctl` holding the FIFO `exit`. Returns the control folder. `cgroup` names the container's
/// cgroup (`linux.cgroupsPath` `/<cgroup>`): without it runc and crun name the cgroup after the
/// container ID, and two sessions (runc's and crun's, run in parallel) passing the same verbatim ID
/// would share one.
pub fn write_bundle(
    rootfs: &Rootfs,
    dir: &Path,
    disarm: &Path,
    config: &Config,
    cgroup: &str,
) -> Result<PathBuf, HarnessError> {
    let ctl = dir.join("ctl");
    std::fs::create_dir_all(&ctl).doing(|| format!("create {}", ctl.display()))?;
    // The program's exit trigger (std has no mkfifo; busybox is a requirement anyway).
    let fifo = ctl.join("exit");
    let made = std::process::Command::new(rootfs.busybox())
        .arg("mkfifo")
        .arg(&fifo)
        .status()
        .doing(|| format!("run `busybox mkfifo {}`", fifo.display()))?;
    if !made.success() {
        return Err(HarnessError::Unexpected(format!(
            "cannot mkfifo {}",
            fifo.display()
        )));
    }
    let mut doc = config_json(rootfs, &ctl, disarm, config);
    doc["linux"]["cgroupsPath"] = Value::from(format!("/{cgroup}"));
    let path = dir.join("config.json");
    serde_json::to_string_pretty(&doc)
        .map_err(std::io::Error::from)
        .and_then(|text| std::fs::write(&path, text))
        .doing(|| format!("write {}", path.display()))?;
    Ok(ctl)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Hooks;

    #[test]
    fn elf_interpreter_is_detected() {
        // A minimal 64-bit header with one program header of type PT_INTERP at offset 64.
        let mut elf = vec![0u8; 64 + 56];
        elf[..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1]);
        elf[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        elf[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        elf[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
        elf[64..68].copy_from_slice(&3u32.to_le_bytes());
        assert!(!is_static_elf(&elf));
        elf[64..68].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        assert!(is_static_elf(&elf));
        assert!(!is_static_elf(b"#!/bin/sh\n"));
        assert!(!is_static_elf(&elf[..0x30]));
    }

    #[test]
    fn config_follows_the_step() {
        let rootfs = Rootfs {
            path: "/r".into(),
            busybox: "/bin/busybox".into(),
        };
        let config = Config {
            process: false,
            hooks: Hooks::none()
                .with(HookName::Poststop, &[HookOutcome::Ok, HookOutcome::Fail])
                .with(HookName::CreateRuntime, &[HookOutcome::Fail]),
            ..Config::default()
        };
        let doc = config_json(&rootfs, Path::new("/c/ctl"), Path::new("/c/off"), &config);
        assert!(doc.get("process").is_none());
        let poststop = doc["hooks"]["poststop"].as_array().unwrap();
        assert_eq!(poststop.len(), 2);
        assert_eq!(poststop[1]["args"][5], "poststop[1]");
        assert_eq!(poststop[1]["args"][7], "1");
        assert_eq!(poststop[1]["args"][8], "/c/off");
        assert_eq!(doc["hooks"]["createRuntime"][0]["args"][7], "1");
        assert!(doc["hooks"].get("prestart").is_none());
        // Stock namespaces: a private network namespace among them.
        assert!(
            doc["linux"]["namespaces"]
                .as_array()
                .unwrap()
                .contains(&json!({"type": "network"}))
        );
        let with_process = config_json(
            &rootfs,
            Path::new("/c/ctl"),
            Path::new("/c/off"),
            &Config::default(),
        );
        let script = with_process["process"]["args"][3].as_str().unwrap();
        assert!(script.contains("exit 0\" TERM"), "{script}");
        assert!(with_process.get("hooks").is_none());
    }
}
