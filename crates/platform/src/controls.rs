//! Negative controls: each a change to a run — to the generated config, to the container's
//! standard streams, to what the harness does as the platform, or to the image — that must make
//! exactly the checks naming it fail (`checks::CHECKS`). A probe or a judge that always says
//! "pass" then turns the controls' test red (`tests/suite/platform_controls.rs`).

use std::path::Path;

use serde_json::{Value, json};

use super::observed::Role;

/// A negative control. Its name (`--control NAME`, reports: kebab-case), the sentence saying what it
/// changes (`message`), the list of every control (in the order the checks name them) and the
/// parsing of a name come from this one declaration (strum): a control declared here is run by the
/// negative-control test, and the checks' table must name it (`checks`'s tests).
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
    strum::EnumString,
    strum::EnumMessage,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Control {
    /// `PORT` left out of the environment.
    #[strum(message = "PORT is left out of the environment")]
    NoPort,
    /// `K_SERVICE`, `K_CONFIGURATION`, `K_REVISION` left out.
    #[strum(message = "K_SERVICE, K_CONFIGURATION and K_REVISION are left out")]
    NoKnativeNames,
    /// `PORT` is the profile's default although the Service names a port.
    #[strum(message = "PORT is the profile's default port although the Service names one")]
    PortNotFromService,
    /// The defaults container's `PORT` is not the profile's default port.
    #[strum(message = "without a port in the Service, PORT is not the profile's default")]
    WrongDefaultPort,
    /// The container runs as root although the Service asks for another user.
    #[strum(message = "the container runs as root although the Service asks for another user")]
    RootUser,
    /// The defaults container runs as root, not as the platform's default user.
    #[strum(message = "without runAsUser, the container runs as root, not the platform's default")]
    DefaultUserIgnored,
    /// Standard input is a pipe holding data.
    #[strum(message = "standard input is a pipe holding data")]
    StdinData,
    /// Standard output is a terminal.
    #[strum(message = "standard output is a terminal")]
    StdoutTty,
    /// `/tmp` is mounted read-only.
    #[strum(message = "/tmp is mounted read-only")]
    TmpReadOnly,
    /// `/tmp` is not mounted: the image's directory on the writable root.
    #[strum(message = "/tmp is not mounted (the image's directory on a writable root)")]
    TmpNotMounted,
    /// `/etc/resolv.conf` names no resolver.
    #[strum(message = "/etc/resolv.conf names no resolver")]
    ResolvConfEmpty,
    /// `/etc/resolv.conf` is the image's file, not one the platform provides.
    #[strum(message = "/etc/resolv.conf is the image's file, not a platform mount")]
    ResolvConfFromImage,
    /// No network namespace: the host's.
    #[strum(message = "the container shares the host's network namespace")]
    HostNetwork,
    /// The cgroup filesystem is mounted read-write.
    #[strum(message = "the cgroup filesystem is mounted read-write")]
    CgroupWritable,
    /// No memory limit.
    #[strum(message = "the memory limit is left out")]
    NoMemoryLimit,
    /// No cgroup filesystem in the container.
    #[strum(message = "the cgroup filesystem is not mounted in the container")]
    NoCgroupMount,
    /// `/proc/sys` is not among the read-only paths.
    #[strum(message = "/proc/sys is not read-only")]
    ProcSysWritable,
    /// No masked paths.
    #[strum(message = "no path is masked")]
    MaskedPathsDropped,
    /// No read-only paths but `/proc/sys`.
    #[strum(message = "no path but /proc/sys is read-only")]
    ReadonlyPathsDropped,
    /// `/dev/kmsg` among the devices.
    #[strum(message = "the device /dev/kmsg is added")]
    ExtraDevice,
    /// `CAP_SYS_ADMIN` in every capability set, ambient included.
    #[strum(message = "CAP_SYS_ADMIN is added to every capability set")]
    CapabilityAdded,
    /// `rootfsPropagation: shared`.
    #[strum(message = "rootfsPropagation is `shared`")]
    RootfsShared,
    /// A `poststart` hook, as a developer's `lifecycle.postStart` would give.
    #[strum(message = "a poststart hook (a developer's lifecycle.postStart) is passed through")]
    DeveloperHook,
    /// The platform stops the container with `SIGKILL`, no `SIGTERM`.
    #[strum(message = "the platform stops the container with SIGKILL and no SIGTERM")]
    KillWithoutTerm,
    /// The platform sends `SIGKILL` right after `SIGTERM`, without the grace period.
    #[strum(message = "the platform sends SIGKILL right after SIGTERM")]
    NoGrace,
    /// The image does not serve HTTP.
    #[strum(message = "the image does not serve HTTP")]
    NoServe,
}

impl Control {
    /// The kebab-case name (`--control NAME`, reports).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The control named `name`.
    pub fn from_name(name: &str) -> Option<Control> {
        name.parse().ok()
    }

    /// What it changes, in a sentence.
    pub fn describe(self) -> &'static str {
        strum::EnumMessage::get_message(&self).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    /// The names are the words `--control` takes and reports record: the derive must keep them.
    #[test]
    fn names_are_the_documented_words_and_parse_back() {
        let names: Vec<&str> = Control::VARIANTS.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            [
                "no-port",
                "no-knative-names",
                "port-not-from-service",
                "wrong-default-port",
                "root-user",
                "default-user-ignored",
                "stdin-data",
                "stdout-tty",
                "tmp-read-only",
                "tmp-not-mounted",
                "resolv-conf-empty",
                "resolv-conf-from-image",
                "host-network",
                "cgroup-writable",
                "no-memory-limit",
                "no-cgroup-mount",
                "proc-sys-writable",
                "masked-paths-dropped",
                "readonly-paths-dropped",
                "extra-device",
                "capability-added",
                "rootfs-shared",
                "developer-hook",
                "kill-without-term",
                "no-grace",
                "no-serve",
            ]
        );
        for &c in Control::VARIANTS {
            assert_eq!(Control::from_name(c.name()), Some(c));
            assert!(!c.describe().is_empty(), "{c:?} has no sentence");
        }
        assert_eq!(Control::from_name("No-Port"), None);
    }
}
