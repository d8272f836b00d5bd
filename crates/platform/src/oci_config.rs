//! The OCI `config.json` a platform would give a runtime for a Service: the profile decides the
//! mounts, namespaces, capabilities, masked and read-only paths and propagation; the Service
//! decides only what the contract lets a developer set — the port (`PORT`), its own environment,
//! the user and group, the resources (through [`Expected`]). Nothing else of a Service reaches the
//! config: no hooks, sysctls, masked or read-only paths, devices, propagation or capabilities
//! (`tests/suite/platform.rs` holds the generator to that with generated Services).

use std::path::Path;

use serde_json::{Value, json};

use super::expect::{Expected, Image};
use super::profile::{Filesystem, Profile};

/// The `ociVersion` of the generated configs (accepted by runc 1.1 and crun 1.8).
pub(crate) const OCI_VERSION: &str = "1.0.2";

/// Where the host keeps what the config points at.
#[derive(Debug, Clone)]
pub struct HostPaths<'a> {
    /// The container's root filesystem.
    pub rootfs: &'a Path,
    /// The file bind-mounted at `/etc/resolv.conf` (the profile's resolver configuration).
    pub resolv_conf: &'a Path,
    /// `linux.cgroupsPath`.
    pub cgroups_path: &'a str,
}

fn filesystem_mount(destination: &str, fs: &Filesystem) -> Value {
    json!({
        "destination": destination,
        "type": fs.fstype,
        "source": fs.fstype,
        "options": ["nosuid", "nodev", format!("mode={:o}", fs.mode)]
    })
}

/// The config for `expected` (what the profile promises the Service) and `image`.
pub fn config(
    profile: &Profile,
    expected: &Expected,
    image: &Image,
    host: &HostPaths<'_>,
) -> Value {
    let mut mounts = vec![
        json!({"destination": "/proc", "type": "proc", "source": "proc"}),
        json!({"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
               "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]}),
        json!({"destination": "/dev/pts", "type": "devpts", "source": "devpts",
               "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]}),
        json!({"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
               "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]}),
        json!({"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
               "options": ["nosuid", "noexec", "nodev"]}),
        json!({"destination": "/sys", "type": "sysfs", "source": "sysfs",
               "options": ["nosuid", "noexec", "nodev", "ro"]}),
        json!({"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
               "options": ["nosuid", "noexec", "nodev", "relatime",
                           if profile.cgroups.read_only { "ro" } else { "rw" }]}),
    ];
    if profile.tmp.is_mount() {
        mounts.push(filesystem_mount("/tmp", &profile.tmp));
    }
    if let Some(v) = profile.var_log.as_ref().filter(|v| v.is_mount()) {
        mounts.push(filesystem_mount("/var/log", v));
    }
    mounts.push(json!({"destination": "/etc/resolv.conf", "type": "bind",
                       "source": host.resolv_conf, "options": ["rbind", "ro"]}));
    let caps = &profile.capabilities;
    let l = &expected.limits;
    let mut resources = json!({"devices": [{"allow": false, "access": "rwm"}]});
    if let Some(m) = l.memory_bytes {
        resources["memory"] = json!({"limit": m});
    }
    let mut cpu = serde_json::Map::new();
    if let Some(s) = l.cpu_shares {
        cpu.insert("shares".into(), json!(s));
    }
    if let Some(q) = l.cpu_quota_us {
        cpu.insert("quota".into(), json!(q));
        cpu.insert("period".into(), json!(l.cpu_period_us));
    }
    if !cpu.is_empty() {
        resources["cpu"] = Value::Object(cpu);
    }
    let mut linux = json!({
        "resources": resources,
        "cgroupsPath": host.cgroups_path,
        "namespaces": profile.namespaces.iter().map(|n| json!({"type": n})).collect::<Vec<_>>(),
        "maskedPaths": profile.masked_paths,
        "readonlyPaths": profile.readonly_paths,
    });
    if let Some(p) = &profile.rootfs_propagation {
        linux["rootfsPropagation"] = json!(p);
    }
    json!({
        "ociVersion": OCI_VERSION,
        "process": {
            "terminal": false,
            "user": {"uid": expected.uid, "gid": expected.gid},
            "args": image.args,
            "env": expected.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
            "cwd": "/",
            "capabilities": {"bounding": caps, "effective": caps, "permitted": caps},
            "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
            "noNewPrivileges": profile.no_new_privileges
        },
        "root": {"path": host.rootfs, "readonly": false},
        "hostname": expected.names.iter().find(|(k, _)| k == "K_REVISION").map_or("kcontract", |(_, v)| v.as_str()),
        "mounts": mounts,
        "linux": linux
    })
}
