//! The one table of checks, for both routes that run the probe: per row the clause id, the
//! check's name, the container it looks at, what it asserts, the facts its judge needs, its judge
//! and its negative controls. A check is decided on every route that provides all the facts it
//! needs ([`Check::decided_on`]): `platform run` (the simulated route) judges the rows it can
//! decide, `platform verify` (the deployed route) the rows a deployed probe's `/report`, the
//! request through the ingress and the platform's log can decide; a row decided on both runs the
//! same judge on both. Clause ids follow the spec and may change with it; at run time a row whose
//! clause the loaded spec does not have is an error (K1106), never a skipped check.

use std::fmt;

use super::controls::Control;
use super::doctored::Doctor;
use super::judge;
use super::judge_deployed as deployed;
use super::observed::Role;
use super::routes::Route;
pub use super::verdict::{Input, Status, Verdict};

/// What a judge reads. Each route provides some of these ([`provides`]); a check is decided on
/// a route only when the route provides every fact the check needs. The words (kebab-case) and
/// the list come from this declaration.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::VariantArray, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Need {
    /// The probe's facts document (its first line under a runtime, its `/report` when deployed).
    Probe,
    /// An HTTP/1.x exchange the probe answered: inside the container's network namespace
    /// (simulated), or through the platform's ingress (deployed).
    Exchange,
    /// The `config.json` the runtime ran: only kcontract's own runs have it.
    Config,
    /// The probe's event lines as the harness read them from the container's standard output
    /// (the port it listens on, the signals it received), beside the harness's account of the run.
    Stdout,
    /// The harness's account of the shutdown it carried out: the signals it sent and when, whether
    /// the process was alive before the grace period ended.
    Shutdown,
    /// The namespaces of the host the container runs on (a container's own ones are compared with
    /// them): only a local run sees the host.
    HostNamespaces,
    /// A container deployed with the Service's `containerPort` and `runAsUser`. The deployed probe
    /// is deployed without them, so that the platform's defaults are what it reports.
    ServiceChoices,
    /// The request as it reached the deployed probe through the platform's ingress, what verify
    /// sent, the TLS handshake and the answer to an `Upgrade: h2c`.
    Ingress,
    /// The probe's event lines as the platform's log shows them (`platform verify --events`).
    Log,
}

impl Need {
    /// The word (`host-namespaces`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The facts `route` provides: the simulated route everything a local run observes but the
/// ingress and a platform's log; the deployed route the probe's facts, the exchange and the
/// request through the ingress, and the log when one is given.
pub fn provides(route: Route) -> &'static [Need] {
    match route {
        Route::Simulated => &[
            Need::Probe,
            Need::Exchange,
            Need::Config,
            Need::Stdout,
            Need::Shutdown,
            Need::HostNamespaces,
            Need::ServiceChoices,
        ],
        Route::Deployed => &[Need::Probe, Need::Exchange, Need::Ingress, Need::Log],
        Route::VendorLog | Route::Lint | Route::Model => &[],
    }
}

/// One row of the table.
pub struct Check {
    /// The clause it decides.
    pub clause: &'static str,
    /// The check's name (`env-port`).
    pub name: &'static str,
    /// The container it looks at in a local run (a deployed probe is both: it is deployed without
    /// the Service's port and user).
    pub role: Role,
    /// What it asserts.
    pub asserts: &'static str,
    /// Its judge.
    pub judge: fn(&Input<'_>) -> Verdict,
    /// What its judge reads: it is decided on the routes that provide all of it.
    pub needs: &'static [Need],
    /// The simulated route's negative control: the change to a local run that must make exactly
    /// this check (and the others naming the same control) fail. Every check decided on the
    /// simulated route names one; no other does.
    pub control: Option<Control>,
    /// The deployed route's negative controls: each a doctored `/report`, request or log that must
    /// make this check fail, a doctor failing exactly the checks that name it. A check may name a
    /// doctor that is mainly another's when it cannot pass under it either (without `PORT` there is
    /// no default port), or two ways of getting it wrong. Every check decided on the deployed
    /// route names one; no other does.
    pub doctored: &'static [Doctor],
}

impl Check {
    /// Whether `route` provides every fact the check needs.
    pub fn decided_on(&self, route: Route) -> bool {
        let given = provides(route);
        self.needs.iter().all(|n| given.contains(n))
    }
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.clause, self.name)
    }
}

/// Every check, in the spec's chapter order.
pub const CHECKS: &[Check] = &[
    Check {
        clause: "lifecycle.sigterm-on-kill",
        name: "sigterm-delivered",
        role: Role::Main,
        asserts: "the platform's kill reaches the process as SIGTERM first",
        judge: judge::sigterm_delivered,
        needs: &[Need::Stdout, Need::Shutdown],
        control: Some(Control::KillWithoutTerm),
        doctored: &[],
    },
    Check {
        clause: "lifecycle.sigterm-on-kill",
        name: "sigterm-in-log",
        role: Role::Main,
        asserts: "the platform's log shows the probe's start and SIGTERM as the first signal it received (a log that ends, with kcontract-log-end, without one fails)",
        judge: deployed::sigterm_in_log,
        needs: &[Need::Log],
        control: None,
        doctored: &[Doctor::KilledWithoutTerm],
    },
    Check {
        clause: "lifecycle.sigkill-after-grace",
        name: "sigkill-after-grace",
        role: Role::Defaults,
        asserts: "a process that ignores SIGTERM still runs shortly before the grace period ends, and SIGKILL then ends it",
        judge: judge::sigkill_after_grace,
        needs: &[Need::Stdout, Need::Shutdown],
        control: Some(Control::NoGrace),
        doctored: &[],
    },
    Check {
        clause: "lifecycle.sigkill-after-grace",
        name: "sigkill-in-log",
        role: Role::Defaults,
        asserts: "the log shows the probe, ignoring SIGTERM, alive after it and gone without exiting no later than the grace period after it",
        judge: deployed::sigkill_in_log,
        needs: &[Need::Log],
        control: None,
        doctored: &[Doctor::NoGrace, Doctor::NotKilledAfterGrace],
    },
    Check {
        clause: "lifecycle.hooks.not-developer-configurable",
        name: "no-hooks",
        role: Role::Main,
        asserts: "the config the runtime ran has no hooks (none come from the Service)",
        judge: judge::no_hooks,
        needs: &[Need::Config],
        control: Some(Control::DeveloperHook),
        doctored: &[],
    },
    Check {
        clause: "lifecycle.linux.stdin-eof",
        name: "stdin-eof",
        role: Role::Main,
        asserts: "a one-byte read of stdin returns end of file",
        judge: judge::stdin_eof,
        needs: &[Need::Probe],
        control: Some(Control::StdinData),
        doctored: &[Doctor::StdinData],
    },
    Check {
        clause: "network.ports.accept-http1",
        name: "http1-answered",
        role: Role::Main,
        asserts: "an HTTP/1.1 GET to the container's port, inside its network namespace, is answered over HTTP/1.1",
        judge: judge::http1_answered,
        needs: &[Need::Exchange],
        control: Some(Control::NoServe),
        doctored: &[Doctor::Http10ToProbe, Doctor::Http2ToProbe],
    },
    Check {
        clause: "network.ports.h2c-upgrade",
        name: "h2c-upgrade",
        role: Role::Main,
        asserts: "a GET with `Upgrade: h2c` is answered 101 Switching Protocols (when the profile lists h2c-upgrade; over http only: h2c is cleartext)",
        judge: deployed::h2c_upgrade,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::NoH2cUpgrade],
    },
    Check {
        clause: "network.ports.developer-may-specify",
        name: "port-from-service",
        role: Role::Main,
        asserts: "requests to the Service's containerPort reach the container (it listens where PORT says)",
        judge: judge::port_from_service,
        needs: &[Need::Exchange, Need::Stdout, Need::ServiceChoices],
        control: Some(Control::PortNotFromService),
        doctored: &[],
    },
    Check {
        clause: "network.ports.default-port",
        name: "default-port",
        role: Role::Defaults,
        asserts: "without a containerPort, PORT is the profile's default port",
        judge: judge::default_port,
        needs: &[Need::Probe],
        control: Some(Control::WrongDefaultPort),
        doctored: &[Doctor::WrongDefaultPort, Doctor::NoPort],
    },
    Check {
        clause: "network.ports.https-termination",
        name: "https-termination",
        role: Role::Main,
        asserts: "an https URL completes a verified TLS handshake and the probe receives the request as plain HTTP/1.x (over https; n/a when the profile does not list https)",
        judge: deployed::https_termination,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::Http2ToProbe],
    },
    Check {
        clause: "network.headers.preserve-inbound",
        name: "user-header-preserved",
        role: Role::Main,
        asserts: "the user header sent reaches the probe with its value unchanged",
        judge: deployed::preserve_inbound,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::UserHeaderDropped],
    },
    Check {
        clause: "network.headers.host",
        name: "host-forwarded",
        role: Role::Main,
        asserts: "`Host` reaches the probe as the URL's host (or --host)",
        judge: deployed::host,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::HostChanged],
    },
    Check {
        clause: "network.headers.forwarded",
        name: "forwarded-rfc7239",
        role: Role::Main,
        asserts: "`Forwarded` is set and follows RFC 7239's grammar",
        judge: deployed::forwarded,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::NoForwarded, Doctor::BareForwarded],
    },
    Check {
        clause: "network.headers.x-forwarded",
        name: "x-forwarded",
        role: Role::Main,
        asserts: "`X-Forwarded-For` is a list of IP addresses and `X-Forwarded-Proto` is the URL's scheme",
        judge: deployed::x_forwarded,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::NoXForwarded],
    },
    Check {
        clause: "network.headers.tracing",
        name: "traceparent-propagated",
        role: Role::Main,
        asserts: "the `traceparent` sent reaches the probe well-formed, with the same trace id",
        judge: deployed::tracing,
        needs: &[Need::Ingress],
        control: None,
        doctored: &[Doctor::TraceparentDropped, Doctor::NewTrace],
    },
    Check {
        clause: "network.dns.override-etc",
        name: "resolv-conf-mounted",
        role: Role::Main,
        asserts: "/etc/resolv.conf is a mount the platform provides, not the image's file",
        judge: judge::resolv_conf_mounted,
        needs: &[Need::Probe],
        control: Some(Control::ResolvConfFromImage),
        doctored: &[Doctor::ResolvConfFromImage],
    },
    Check {
        clause: "config.process.terminal-false",
        name: "no-terminal",
        role: Role::Main,
        asserts: "stdin, stdout and stderr are not terminals and /dev/console does not exist",
        judge: judge::no_terminal,
        needs: &[Need::Probe],
        control: Some(Control::StdoutTty),
        doctored: &[Doctor::StdoutTty],
    },
    Check {
        clause: "config.process.linux-not-developer-configurable",
        name: "process-security",
        role: Role::Main,
        asserts: "the capability sets are within the profile's and NoNewPrivs is the profile's",
        judge: judge::process_security,
        needs: &[Need::Probe],
        control: Some(Control::CapabilityAdded),
        doctored: &[Doctor::CapabilityAdded],
    },
    Check {
        clause: "config.env.port",
        name: "env-port",
        role: Role::Main,
        asserts: "PORT is set to a port number",
        judge: judge::env_port,
        needs: &[Need::Probe],
        control: Some(Control::NoPort),
        doctored: &[Doctor::NoPort],
    },
    Check {
        clause: "config.env.knative-names",
        name: "env-knative-names",
        role: Role::Main,
        asserts: "K_SERVICE, K_CONFIGURATION and K_REVISION name the Service, its configuration and revision",
        judge: judge::env_knative_names,
        needs: &[Need::Probe],
        control: Some(Control::NoKnativeNames),
        doctored: &[Doctor::NoKnativeNames],
    },
    Check {
        clause: "config.user.run-as-specified",
        name: "run-as-user",
        role: Role::Main,
        asserts: "the real and effective user (and group) ids are the Service's runAsUser (runAsGroup)",
        judge: judge::run_as_user,
        needs: &[Need::Probe, Need::ServiceChoices],
        control: Some(Control::RootUser),
        doctored: &[],
    },
    Check {
        clause: "config.user.platform-default",
        name: "default-user",
        role: Role::Defaults,
        asserts: "without runAsUser, the ids are the profile's default user",
        judge: judge::default_user,
        needs: &[Need::Probe],
        control: Some(Control::DefaultUserIgnored),
        doctored: &[Doctor::RootUser],
    },
    Check {
        clause: "config.filesystems.required-mounts",
        name: "tmp-provided",
        role: Role::Main,
        asserts: "/tmp is a directory open to every user (mode rwxrwxrwx), provided as the profile says (its own tmpfs)",
        judge: judge::tmp_provided,
        needs: &[Need::Probe],
        control: Some(Control::TmpNotMounted),
        doctored: &[Doctor::TmpNotMounted],
    },
    Check {
        clause: "config.filesystems.tmp-read-write",
        name: "tmp-writable",
        role: Role::Main,
        asserts: "the container's user creates, writes, reads back and removes a file in /tmp",
        judge: judge::tmp_writable,
        needs: &[Need::Probe],
        control: Some(Control::TmpReadOnly),
        doctored: &[Doctor::TmpReadOnly],
    },
    Check {
        clause: "config.filesystems.resolv-conf",
        name: "resolv-conf",
        role: Role::Main,
        asserts: "/etc/resolv.conf is readable by all and names the profile's resolvers and search domains",
        judge: judge::resolv_conf,
        needs: &[Need::Probe],
        control: Some(Control::ResolvConfEmpty),
        doctored: &[Doctor::ResolvConfEmpty],
    },
    Check {
        clause: "config.namespaces.platform-provided",
        name: "namespaces",
        role: Role::Main,
        asserts: "the container is in its own namespace of every type the profile lists, and is PID 1 of its pid namespace",
        judge: judge::namespaces,
        needs: &[Need::Probe, Need::HostNamespaces],
        control: Some(Control::HostNetwork),
        doctored: &[],
    },
    Check {
        clause: "config.devices.default-only",
        name: "default-devices",
        role: Role::Main,
        asserts: "the devices under /dev are the OCI default devices",
        judge: judge::default_devices,
        needs: &[Need::Probe],
        control: Some(Control::ExtraDevice),
        doctored: &[Doctor::ExtraDevice],
    },
    Check {
        clause: "config.cgroups.platform-configured",
        name: "cgroup-limits",
        role: Role::Main,
        asserts: "the container's cgroup holds the limits the profile derives from the Service's resources",
        judge: judge::cgroup_limits,
        needs: &[Need::Probe],
        control: Some(Control::NoMemoryLimit),
        doctored: &[Doctor::NoMemoryLimit],
    },
    Check {
        clause: "config.cgroups.read-only",
        name: "cgroup-read-only",
        role: Role::Main,
        asserts: "the cgroup limit files are on read-only mounts and writing them fails",
        judge: judge::cgroup_read_only,
        needs: &[Need::Probe],
        control: Some(Control::CgroupWritable),
        doctored: &[Doctor::CgroupWritable],
    },
    Check {
        clause: "config.cgroups.limits-exposed",
        name: "cgroup-files",
        role: Role::Main,
        asserts: "the contract's limit files (v1 or v2) are readable in the container and hold the enforced limits",
        judge: judge::cgroup_files,
        needs: &[Need::Probe],
        control: Some(Control::NoCgroupMount),
        doctored: &[Doctor::CgroupUnreadable],
    },
    Check {
        clause: "config.sysctl.not-developer-tunable",
        name: "proc-sys-read-only",
        role: Role::Main,
        asserts: "/proc/sys is a read-only proc mount",
        judge: judge::proc_sys_read_only,
        needs: &[Need::Probe],
        control: Some(Control::ProcSysWritable),
        doctored: &[Doctor::ProcSysWritable],
    },
    Check {
        clause: "config.rootfs-propagation.not-developer-configurable",
        name: "rootfs-propagation",
        role: Role::Main,
        asserts: "the root's propagation is the profile's, in the config and as the container sees it",
        judge: judge::rootfs_propagation,
        needs: &[Need::Probe],
        control: Some(Control::RootfsShared),
        doctored: &[Doctor::RootfsShared],
    },
    Check {
        clause: "config.masked-paths.not-developer-configurable",
        name: "masked-paths",
        role: Role::Main,
        asserts: "every masked path of the profile that exists is covered by a mount",
        judge: judge::masked_paths,
        needs: &[Need::Probe],
        control: Some(Control::MaskedPathsDropped),
        doctored: &[Doctor::MaskedPathsOpen],
    },
    Check {
        clause: "config.readonly-paths.not-developer-configurable",
        name: "readonly-paths",
        role: Role::Main,
        asserts: "every read-only path of the profile that exists (but /proc/sys, judged by the sysctl clause) is a read-only mount",
        judge: judge::readonly_paths,
        needs: &[Need::Probe],
        control: Some(Control::ReadonlyPathsDropped),
        doctored: &[Doctor::ReadonlyPathsWritable],
    },
    Check {
        clause: "config.hooks.not-developer-configurable",
        name: "no-hooks",
        role: Role::Main,
        asserts: "the config the runtime ran has no hooks (none come from the Service)",
        judge: judge::no_hooks,
        needs: &[Need::Config],
        control: Some(Control::DeveloperHook),
        doctored: &[],
    },
];

/// The checks decided on `route`.
pub fn on(route: Route) -> impl Iterator<Item = &'static Check> {
    CHECKS.iter().filter(move |c| c.decided_on(route))
}

/// The rows of `route` that decide `clause`.
pub(crate) fn for_clause_on(
    clause: &str,
    route: Route,
) -> impl Iterator<Item = &'static Check> + '_ {
    on(route).filter(move |c| c.clause == clause)
}

/// The clauses whose simulated checks name `control`: what it must make fail, and nothing else.
pub fn clauses_failed_by(control: Control) -> Vec<&'static str> {
    on(Route::Simulated)
        .filter(|c| c.control == Some(control))
        .map(|c| c.clause)
        .collect()
}

/// The clauses whose deployed checks name `doctor`: what it must make fail, and nothing else.
pub fn clauses_failed_by_doctor(doctor: Doctor) -> Vec<&'static str> {
    let mut v: Vec<&str> = on(Route::Deployed)
        .filter(|c| c.doctored.contains(&doctor))
        .map(|c| c.clause)
        .collect();
    v.dedup();
    v
}

/// The table of `platform run` (the simulated route) as [`crate::contract::missing`] reads it.
pub fn table() -> crate::contract::Table {
    crate::contract::Table {
        command: "platform run",
        place: "crates/platform/src/checks.rs (CHECKS, the one table of clauses and checks)",
        rows: on(Route::Simulated).map(|c| (c.name, c.clause)).collect(),
    }
}

/// The table of `platform verify` (the deployed route) as [`crate::contract::missing`] reads it.
pub fn deployed_table() -> crate::contract::Table {
    crate::contract::Table {
        command: "platform verify",
        place: "crates/platform/src/checks.rs (CHECKS, the rows decided on the deployed route)",
        rows: on(Route::Deployed).map(|c| (c.name, c.clause)).collect(),
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
    /// Every check decided on the simulated route names one, and only those.
    #[test]
    fn every_control_is_run_and_named_by_a_check() {
        let run: BTreeSet<Control> = Control::VARIANTS.iter().copied().collect();
        let named: BTreeSet<Control> = CHECKS.iter().filter_map(|c| c.control).collect();
        let without: Vec<String> = CHECKS
            .iter()
            .filter(|c| c.decided_on(Route::Simulated) != c.control.is_some())
            .map(|c| format!("{c:?}"))
            .collect();
        assert!(
            without.is_empty(),
            "a check decided on the simulated route without a control, or one with a control it \
             is never run under: {without:?}"
        );
        let unnamed: Vec<&str> = run.difference(&named).map(|c| c.name()).collect();
        assert!(
            unnamed.is_empty(),
            "controls no check names (they would fail nothing): {unnamed:?}"
        );
    }

    /// The same for the deployed route: every check `platform verify` decides names a doctored
    /// `/report`, request or log (`tests/suite/platform_deployed.rs` serves each on 127.0.0.1 and
    /// requires it to fail exactly the checks naming it), every doctor is named by such a check,
    /// and a check the deployed route does not decide names none.
    #[test]
    fn every_deployed_check_names_a_doctor_and_every_doctor_is_named() {
        let without: Vec<String> = CHECKS
            .iter()
            .filter(|c| c.decided_on(Route::Deployed) == c.doctored.is_empty())
            .map(|c| format!("{c:?}"))
            .collect();
        assert!(
            without.is_empty(),
            "a check decided on the deployed route without a doctored control, or one naming \
             doctors it is never judged under: {without:?}"
        );
        let named: BTreeSet<Doctor> = CHECKS
            .iter()
            .flat_map(|c| c.doctored.iter().copied())
            .collect();
        let unnamed: Vec<&str> = Doctor::VARIANTS
            .iter()
            .filter(|d| !named.contains(d))
            .map(|d| d.name())
            .collect();
        assert!(unnamed.is_empty(), "doctors no check names: {unnamed:?}");
    }

    /// Each need is provided by some route and needed by some check: a need nothing provides
    /// would hide a check from every route.
    #[test]
    fn every_need_is_provided_and_needed() {
        for n in Need::VARIANTS {
            assert!(
                Route::ALL.iter().any(|r| provides(*r).contains(n)),
                "{n:?} is provided by no route"
            );
            assert!(
                CHECKS.iter().any(|c| c.needs.contains(n)),
                "{n:?} is needed by no check"
            );
        }
        for c in CHECKS {
            assert!(
                Route::ALL.iter().any(|r| c.decided_on(*r)),
                "{c:?} is decided on no route"
            );
        }
    }
}
