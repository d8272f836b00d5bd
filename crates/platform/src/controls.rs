//! Negative controls: each a change to a run — to the generated config, to the container's
//! standard streams, to what the harness does as the platform, or to the image — that must make
//! exactly the checks naming it fail (`checks::CHECKS`). A probe or a judge that always says
//! "pass" then turns the controls' test red (`tests/suite/platform_controls.rs`).

use std::path::Path;

use serde_json::{Value, json};

use super::observed::Role;

/// A negative control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Control {
    /// `PORT` left out of the environment.
    NoPort,
    /// `K_SERVICE`, `K_CONFIGURATION`, `K_REVISION` left out.
    NoKnativeNames,
    /// `PORT` is the profile's default although the Service names a port.
    PortNotFromService,
    /// The defaults container's `PORT` is not the profile's default port.
    WrongDefaultPort,
    /// The container runs as root although the Service asks for another user.
    RootUser,
    /// The defaults container runs as root, not as the platform's default user.
    DefaultUserIgnored,
    /// Standard input is a pipe holding data.
    StdinData,
    /// Standard output is a terminal.
    StdoutTty,
    /// `/tmp` is mounted read-only.
    TmpReadOnly,
    /// `/tmp` is not mounted: the image's directory on the writable root.
    TmpNotMounted,
    /// `/etc/resolv.conf` names no resolver.
    ResolvConfEmpty,
    /// `/etc/resolv.conf` is the image's file, not one the platform provides.
    ResolvConfFromImage,
    /// No network namespace: the host's.
    HostNetwork,
    /// The cgroup filesystem is mounted read-write.
    CgroupWritable,
    /// No memory limit.
    NoMemoryLimit,
    /// No cgroup filesystem in the container.
    NoCgroupMount,
    /// `/proc/sys` is not among the read-only paths.
    ProcSysWritable,
    /// No masked paths.
    MaskedPathsDropped,
    /// No read-only paths but `/proc/sys`.
    ReadonlyPathsDropped,
    /// `/dev/kmsg` among the devices.
    ExtraDevice,
    /// `CAP_SYS_ADMIN` in every capability set, ambient included.
    CapabilityAdded,
    /// `rootfsPropagation: shared`.
    RootfsShared,
    /// A `poststart` hook, as a developer's `lifecycle.postStart` would give.
    DeveloperHook,
    /// The platform stops the container with `SIGKILL`, no `SIGTERM`.
    KillWithoutTerm,
    /// The platform sends `SIGKILL` right after `SIGTERM`, without the grace period.
    NoGrace,
    /// The image does not serve HTTP.
    NoServe,
}

impl Control {
    /// Every control, in the order the checks name them.
    pub const ALL: [Control; 26] = [
        Control::NoPort,
        Control::NoKnativeNames,
        Control::PortNotFromService,
        Control::WrongDefaultPort,
        Control::RootUser,
        Control::DefaultUserIgnored,
        Control::StdinData,
        Control::StdoutTty,
        Control::TmpReadOnly,
        Control::TmpNotMounted,
        Control::ResolvConfEmpty,
        Control::ResolvConfFromImage,
        Control::HostNetwork,
        Control::CgroupWritable,
        Control::NoMemoryLimit,
        Control::NoCgroupMount,
        Control::ProcSysWritable,
        Control::MaskedPathsDropped,
        Control::ReadonlyPathsDropped,
        Control::ExtraDevice,
        Control::CapabilityAdded,
        Control::RootfsShared,
        Control::DeveloperHook,
        Control::KillWithoutTerm,
        Control::NoGrace,
        Control::NoServe,
    ];

    /// The kebab-case name (`--control NAME`, reports).
    pub fn name(self) -> &'static str {
        match self {
            Control::NoPort => "no-port",
            Control::NoKnativeNames => "no-knative-names",
            Control::PortNotFromService => "port-not-from-service",
            Control::WrongDefaultPort => "wrong-default-port",
            Control::RootUser => "root-user",
            Control::DefaultUserIgnored => "default-user-ignored",
            Control::StdinData => "stdin-data",
            Control::StdoutTty => "stdout-tty",
            Control::TmpReadOnly => "tmp-read-only",
            Control::TmpNotMounted => "tmp-not-mounted",
            Control::ResolvConfEmpty => "resolv-conf-empty",
            Control::ResolvConfFromImage => "resolv-conf-from-image",
            Control::HostNetwork => "host-network",
            Control::CgroupWritable => "cgroup-writable",
            Control::NoMemoryLimit => "no-memory-limit",
            Control::NoCgroupMount => "no-cgroup-mount",
            Control::ProcSysWritable => "proc-sys-writable",
            Control::MaskedPathsDropped => "masked-paths-dropped",
            Control::ReadonlyPathsDropped => "readonly-paths-dropped",
            Control::ExtraDevice => "extra-device",
            Control::CapabilityAdded => "capability-added",
            Control::RootfsShared => "rootfs-shared",
            Control::DeveloperHook => "developer-hook",
            Control::KillWithoutTerm => "kill-without-term",
            Control::NoGrace => "no-grace",
            Control::NoServe => "no-serve",
        }
    }

    /// The control named `name`.
    pub fn from_name(name: &str) -> Option<Control> {
        Control::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What it changes, in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Control::NoPort => "PORT is left out of the environment",
            Control::NoKnativeNames => "K_SERVICE, K_CONFIGURATION and K_REVISION are left out",
            Control::PortNotFromService => {
                "PORT is the profile's default port although the Service names one"
            }
            Control::WrongDefaultPort => {
                "without a port in the Service, PORT is not the profile's default"
            }
            Control::RootUser => {
                "the container runs as root although the Service asks for another user"
            }
            Control::DefaultUserIgnored => {
                "without runAsUser, the container runs as root, not the platform's default"
            }
            Control::StdinData => "standard input is a pipe holding data",
            Control::StdoutTty => "standard output is a terminal",
            Control::TmpReadOnly => "/tmp is mounted read-only",
            Control::TmpNotMounted => {
                "/tmp is not mounted (the image's directory on a writable root)"
            }
            Control::ResolvConfEmpty => "/etc/resolv.conf names no resolver",
            Control::ResolvConfFromImage => {
                "/etc/resolv.conf is the image's file, not a platform mount"
            }
            Control::HostNetwork => "the container shares the host's network namespace",
            Control::CgroupWritable => "the cgroup filesystem is mounted read-write",
            Control::NoMemoryLimit => "the memory limit is left out",
            Control::NoCgroupMount => "the cgroup filesystem is not mounted in the container",
            Control::ProcSysWritable => "/proc/sys is not read-only",
            Control::MaskedPathsDropped => "no path is masked",
            Control::ReadonlyPathsDropped => "no path but /proc/sys is read-only",
            Control::ExtraDevice => "the device /dev/kmsg is added",
            Control::CapabilityAdded => "CAP_SYS_ADMIN is added to every capability set",
            Control::RootfsShared => "rootfsPropagation is `shared`",
            Control::DeveloperHook => {
                "a poststart hook (a developer's lifecycle.postStart) is passed through"
            }
            Control::KillWithoutTerm => {
                "the platform stops the container with SIGKILL and no SIGTERM"
            }
            Control::NoGrace => "the platform sends SIGKILL right after SIGTERM",
            Control::NoServe => "the image does not serve HTTP",
        }
    }

    /// The container it changes.
    pub fn role(self) -> Role {
        match self {
            Control::WrongDefaultPort | Control::DefaultUserIgnored | Control::NoGrace => {
                Role::Defaults
            }
            _ => Role::Main,
        }
    }

    /// The first signal of the shutdown.
    pub(crate) fn first_signal(self) -> &'static str {
        match self {
            Control::KillWithoutTerm => "SIGKILL",
            _ => "SIGTERM",
        }
    }
}

/// What a control's config change needs from the harness.
#[derive(Debug, Clone)]
pub(crate) struct ControlEnv<'a> {
    /// The profile's default port.
    pub default_port: u16,
    /// A host shell (the hook's `path`).
    pub hook_program: &'a Path,
    /// A resolver configuration without nameservers.
    pub empty_resolv_conf: &'a Path,
}

fn env_without(config: &mut Value, names: &[&str]) {
    if let Some(env) = config["process"]["env"].as_array_mut() {
        env.retain(|e| {
            let name = e.as_str().and_then(|s| s.split('=').next()).unwrap_or("");
            !names.contains(&name)
        });
    }
}

fn set_env(config: &mut Value, name: &str, value: &str) {
    env_without(config, &[name]);
    if let Some(env) = config["process"]["env"].as_array_mut() {
        env.push(json!(format!("{name}={value}")));
    }
}

fn mount_mut<'a>(config: &'a mut Value, destination: &str) -> Option<&'a mut Value> {
    config["mounts"]
        .as_array_mut()?
        .iter_mut()
        .find(|m| m["destination"] == destination)
}

fn drop_mount(config: &mut Value, destination: &str) {
    if let Some(m) = config["mounts"].as_array_mut() {
        m.retain(|m| m["destination"] != destination);
    }
}

fn set_read_only(config: &mut Value, destination: &str, read_only: bool) {
    if let Some(m) = mount_mut(config, destination)
        && let Some(options) = m["options"].as_array_mut()
    {
        options.retain(|o| o != "ro" && o != "rw");
        options.push(json!(if read_only { "ro" } else { "rw" }));
    }
}

/// Changes the config of the control's container (`role`); the other container's and the other
/// controls' configs are left as generated.
pub(crate) fn apply(control: Control, config: &mut Value, env: &ControlEnv<'_>) {
    match control {
        Control::NoPort => env_without(config, &["PORT"]),
        Control::NoKnativeNames => {
            env_without(config, &["K_SERVICE", "K_CONFIGURATION", "K_REVISION"])
        }
        Control::PortNotFromService => set_env(config, "PORT", &env.default_port.to_string()),
        Control::WrongDefaultPort => {
            let other = if env.default_port == 65535 {
                1
            } else {
                env.default_port + 1
            };
            set_env(config, "PORT", &other.to_string());
        }
        Control::RootUser | Control::DefaultUserIgnored => {
            config["process"]["user"] = json!({"uid": 0, "gid": 0});
        }
        Control::TmpReadOnly => set_read_only(config, "/tmp", true),
        Control::TmpNotMounted => drop_mount(config, "/tmp"),
        Control::ResolvConfEmpty => {
            if let Some(m) = mount_mut(config, "/etc/resolv.conf") {
                m["source"] = json!(env.empty_resolv_conf);
            }
        }
        Control::ResolvConfFromImage => drop_mount(config, "/etc/resolv.conf"),
        Control::HostNetwork => {
            if let Some(ns) = config["linux"]["namespaces"].as_array_mut() {
                ns.retain(|n| n["type"] != "network");
            }
        }
        Control::CgroupWritable => set_read_only(config, "/sys/fs/cgroup", false),
        Control::NoMemoryLimit => {
            if let Some(r) = config["linux"]["resources"].as_object_mut() {
                r.remove("memory");
            }
        }
        Control::NoCgroupMount => drop_mount(config, "/sys/fs/cgroup"),
        Control::ProcSysWritable => {
            if let Some(p) = config["linux"]["readonlyPaths"].as_array_mut() {
                p.retain(|p| p != "/proc/sys");
            }
        }
        Control::MaskedPathsDropped => config["linux"]["maskedPaths"] = json!([]),
        Control::ReadonlyPathsDropped => {
            if let Some(p) = config["linux"]["readonlyPaths"].as_array_mut() {
                p.retain(|p| p == "/proc/sys");
            }
        }
        Control::ExtraDevice => {
            config["linux"]["devices"] = json!([{
                "path": "/dev/kmsg", "type": "c", "major": 1, "minor": 11,
                "fileMode": 0o644, "uid": 0, "gid": 0
            }]);
        }
        Control::CapabilityAdded => {
            let caps = &mut config["process"]["capabilities"];
            for set in [
                "bounding",
                "effective",
                "permitted",
                "inheritable",
                "ambient",
            ] {
                if caps[set].as_array().is_none() {
                    caps[set] = json!([]);
                }
                if let Some(list) = caps[set].as_array_mut() {
                    list.push(json!("CAP_SYS_ADMIN"));
                }
            }
        }
        Control::RootfsShared => config["linux"]["rootfsPropagation"] = json!("shared"),
        Control::DeveloperHook => {
            // The hook reads the state the runtime writes to its stdin: one that exits without
            // reading it can end crun 1.8's `start` with SIGPIPE, now and then (containers/crun#1551).
            config["hooks"] = json!({"poststart": [{
                "path": env.hook_program, "args": ["sh", "-c", "cat > /dev/null"]
            }]});
        }
        Control::NoServe => {
            if let Some(args) = config["process"]["args"].as_array_mut()
                && let Some(i) = args.iter().position(|a| a == "serve")
            {
                args[i] = json!("wait");
            }
        }
        Control::StdinData | Control::StdoutTty | Control::KillWithoutTerm | Control::NoGrace => {}
    }
}
