//! The one table that maps the contract's clauses to the checks a local run makes: per row the
//! clause id, the check's name, the container it looks at, what it asserts, its judge and its
//! negative control. Clause ids follow the spec and may change with it; at run time a row whose
//! clause the loaded spec does not have is an error (K1106), never a skipped check.

use std::fmt;

use super::controls::Control;
use super::judge;
use super::observed::Role;
pub use super::verdict::{Input, Status, Verdict};

/// One row of the table.
pub struct Check {
    /// The clause it decides.
    pub clause: &'static str,
    /// The check's name (`env-port`).
    pub name: &'static str,
    /// The container it looks at.
    pub role: Role,
    /// What it asserts.
    pub asserts: &'static str,
    /// Its judge.
    pub judge: fn(&Input<'_>) -> Verdict,
    /// The change to the run that must make exactly this check (and the others naming the same
    /// control) fail.
    pub control: Control,
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.clause, self.name)
    }
}

/// The clauses a local run judges, in the spec's chapter order.
pub const CHECKS: &[Check] = &[
    Check {
        clause: "lifecycle.sigterm-on-kill",
        name: "sigterm-delivered",
        role: Role::Main,
        asserts: "the platform's kill reaches the process as SIGTERM first",
        judge: judge::sigterm_delivered,
        control: Control::KillWithoutTerm,
    },
    Check {
        clause: "lifecycle.sigkill-after-grace",
        name: "sigkill-after-grace",
        role: Role::Defaults,
        asserts: "a process that ignores SIGTERM still runs shortly before the grace period ends, and SIGKILL then ends it",
        judge: judge::sigkill_after_grace,
        control: Control::NoGrace,
    },
    Check {
        clause: "lifecycle.hooks.not-developer-configurable",
        name: "no-hooks",
        role: Role::Main,
        asserts: "the config the runtime ran has no hooks (none come from the Service)",
        judge: judge::no_hooks,
        control: Control::DeveloperHook,
    },
    Check {
        clause: "lifecycle.linux.stdin-eof",
        name: "stdin-eof",
        role: Role::Main,
        asserts: "a one-byte read of stdin returns end of file",
        judge: judge::stdin_eof,
        control: Control::StdinData,
    },
    Check {
        clause: "network.ports.accept-http1",
        name: "http1-answered",
        role: Role::Main,
        asserts: "an HTTP/1.1 GET to the container's port, inside its network namespace, is answered over HTTP/1.1",
        judge: judge::http1_answered,
        control: Control::NoServe,
    },
    Check {
        clause: "network.ports.developer-may-specify",
        name: "port-from-service",
        role: Role::Main,
        asserts: "requests to the Service's containerPort reach the container (it listens where PORT says)",
        judge: judge::port_from_service,
        control: Control::PortNotFromService,
    },
    Check {
        clause: "network.ports.default-port",
        name: "default-port",
        role: Role::Defaults,
        asserts: "without a containerPort, PORT is the profile's default port",
        judge: judge::default_port,
        control: Control::WrongDefaultPort,
    },
    Check {
        clause: "network.dns.override-etc",
        name: "resolv-conf-mounted",
        role: Role::Main,
        asserts: "/etc/resolv.conf is a mount the platform provides, not the image's file",
        judge: judge::resolv_conf_mounted,
        control: Control::ResolvConfFromImage,
    },
    Check {
        clause: "config.process.terminal-false",
        name: "no-terminal",
        role: Role::Main,
        asserts: "stdin, stdout and stderr are not terminals and /dev/console does not exist",
        judge: judge::no_terminal,
        control: Control::StdoutTty,
    },
    Check {
        clause: "config.process.linux-not-developer-configurable",
        name: "process-security",
        role: Role::Main,
        asserts: "the capability sets are within the profile's and NoNewPrivs is the profile's",
        judge: judge::process_security,
        control: Control::CapabilityAdded,
    },
    Check {
        clause: "config.env.port",
        name: "env-port",
        role: Role::Main,
        asserts: "PORT is set to a port number",
        judge: judge::env_port,
        control: Control::NoPort,
    },
    Check {
        clause: "config.env.knative-names",
        name: "env-knative-names",
        role: Role::Main,
        asserts: "K_SERVICE, K_CONFIGURATION and K_REVISION name the Service, its configuration and revision",
        judge: judge::env_knative_names,
        control: Control::NoKnativeNames,
    },
    Check {
        clause: "config.user.run-as-specified",
        name: "run-as-user",
        role: Role::Main,
        asserts: "the real and effective user (and group) ids are the Service's runAsUser (runAsGroup)",
        judge: judge::run_as_user,
        control: Control::RootUser,
    },
    Check {
        clause: "config.user.platform-default",
        name: "default-user",
        role: Role::Defaults,
        asserts: "without runAsUser, the ids are the profile's default user",
        judge: judge::default_user,
        control: Control::DefaultUserIgnored,
    },
    Check {
        clause: "config.filesystems.required-mounts",
        name: "tmp-provided",
        role: Role::Main,
        asserts: "/tmp is a directory open to every user (mode rwxrwxrwx), provided as the profile says (its own tmpfs)",
        judge: judge::tmp_provided,
        control: Control::TmpNotMounted,
    },
    Check {
        clause: "config.filesystems.tmp-read-write",
        name: "tmp-writable",
        role: Role::Main,
        asserts: "the container's user creates, writes, reads back and removes a file in /tmp",
        judge: judge::tmp_writable,
        control: Control::TmpReadOnly,
    },
    Check {
        clause: "config.filesystems.resolv-conf",
        name: "resolv-conf",
        role: Role::Main,
        asserts: "/etc/resolv.conf is readable by all and names the profile's resolvers and search domains",
        judge: judge::resolv_conf,
        control: Control::ResolvConfEmpty,
    },
    Check {
        clause: "config.namespaces.platform-provided",
        name: "namespaces",
        role: Role::Main,
        asserts: "the container is in its own namespace of every type the profile lists, and is PID 1 of its pid namespace",
        judge: judge::namespaces,
        control: Control::HostNetwork,
    },
    Check {
        clause: "config.devices.default-only",
        name: "default-devices",
        role: Role::Main,
        asserts: "the devices under /dev are the OCI default devices",
        judge: judge::default_devices,
        control: Control::ExtraDevice,
    },
    Check {
        clause: "config.cgroups.platform-configured",
        name: "cgroup-limits",
        role: Role::Main,
        asserts: "the container's cgroup holds the limits the profile derives from the Service's resources",
        judge: judge::cgroup_limits,
        control: Control::NoMemoryLimit,
    },
    Check {
        clause: "config.cgroups.read-only",
        name: "cgroup-read-only",
        role: Role::Main,
        asserts: "the cgroup limit files are on read-only mounts and writing them fails",
        judge: judge::cgroup_read_only,
        control: Control::CgroupWritable,
    },
    Check {
        clause: "config.cgroups.limits-exposed",
        name: "cgroup-files",
        role: Role::Main,
        asserts: "the contract's limit files (v1 or v2) are readable in the container and hold the enforced limits",
        judge: judge::cgroup_files,
        control: Control::NoCgroupMount,
    },
    Check {
        clause: "config.sysctl.not-developer-tunable",
        name: "proc-sys-read-only",
        role: Role::Main,
        asserts: "/proc/sys is a read-only proc mount",
        judge: judge::proc_sys_read_only,
        control: Control::ProcSysWritable,
    },
    Check {
        clause: "config.rootfs-propagation.not-developer-configurable",
        name: "rootfs-propagation",
        role: Role::Main,
        asserts: "the root's propagation is the profile's, in the config and as the container sees it",
        judge: judge::rootfs_propagation,
        control: Control::RootfsShared,
    },
    Check {
        clause: "config.masked-paths.not-developer-configurable",
        name: "masked-paths",
        role: Role::Main,
        asserts: "every masked path of the profile that exists is covered by a mount",
        judge: judge::masked_paths,
        control: Control::MaskedPathsDropped,
    },
    Check {
        clause: "config.readonly-paths.not-developer-configurable",
        name: "readonly-paths",
        role: Role::Main,
        asserts: "every read-only path of the profile that exists (but /proc/sys, judged by the sysctl clause) is a read-only mount",
        judge: judge::readonly_paths,
        control: Control::ReadonlyPathsDropped,
    },
    Check {
        clause: "config.hooks.not-developer-configurable",
        name: "no-hooks",
        role: Role::Main,
        asserts: "the config the runtime ran has no hooks (none come from the Service)",
        judge: judge::no_hooks,
        control: Control::DeveloperHook,
    },
];

/// The rows that decide `clause`.
pub(crate) fn for_clause(clause: &str) -> impl Iterator<Item = &'static Check> + '_ {
    CHECKS.iter().filter(move |c| c.clause == clause)
}

/// The clauses whose checks name `control`: what it must make fail, and nothing else.
pub fn clauses_failed_by(control: Control) -> Vec<&'static str> {
    CHECKS
        .iter()
        .filter(|c| c.control == control)
        .map(|c| c.clause)
        .collect()
}

/// The table of `platform run` as [`crate::contract::missing`] reads it.
pub fn table() -> crate::contract::Table {
    crate::contract::Table {
        command: "platform run",
        place: "crates/platform/src/checks.rs (CHECKS, the one table of clauses and checks)",
        rows: CHECKS.iter().map(|c| (c.name, c.clause)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use strum::VariantArray;

    use super::*;

    /// The negative controls and the checks name each other: every control a check names is in the
    /// list the negative-control runs apply (`Control::VARIANTS`, the enum's one declaration), and
    /// every control of that list is named by a check. A control no check names would be run and
    /// judged against nothing; a check whose control is not run would never be shown to fail.
    #[test]
    fn every_control_is_run_and_named_by_a_check() {
        let run: BTreeSet<Control> = Control::VARIANTS.iter().copied().collect();
        let named: BTreeSet<Control> = CHECKS.iter().map(|c| c.control).collect();
        let not_run: Vec<String> = CHECKS
            .iter()
            .filter(|c| !run.contains(&c.control))
            .map(|c| format!("{c:?} names `{}`", c.control.name()))
            .collect();
        assert!(
            not_run.is_empty(),
            "checks name a control the negative-control runs do not apply: {not_run:?}"
        );
        let unnamed: Vec<&str> = run.difference(&named).map(|c| c.name()).collect();
        assert!(
            unnamed.is_empty(),
            "controls no check names (they would fail nothing): {unnamed:?}"
        );
    }
}
