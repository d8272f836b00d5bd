//! `kcontract platform lint`: Knative `Service`, `Configuration` and `Revision` manifests checked
//! without a platform, for what the contract says a developer must not or should not set. Each
//! finding is a diagnostic at the YAML value that breaks the rule, naming the clause and its level:
//! an error for a MUST or MUST NOT clause, a warning for a SHOULD or SHOULD NOT one.
//!
//! [`LINT_CHECKS`] is the one table of checks and clauses. Levels come from the contract the command
//! loads (the one built into the binary, or `--spec`'s: `contract.rs`), never from this file, so a
//! clause whose level changes changes the severity; a row whose clause that contract does not have
//! stops the command (K1106, K1108) rather than being skipped.
//!
//! The manifest is read into the shape `platform run` reads (`manifest.rs`), in which every
//! field is optional: the lint checks what is there.
//!
//! Findings are K1122; a file that cannot be read, is not YAML or holds a document that is not a
//! Kubernetes object is K1121 (an error). A deploy folder mixes kinds: an object of another API
//! (a `ConfigMap`, a `Deployment`) or a Knative object without containers (a `Route`) is skipped
//! with a K1121 warning, a `kind: List`'s items are linted one by one, and the command fails
//! (K1121) only when no file held a Knative object to lint: a lint of nothing passes nothing.

use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};

use super::manifest::{Container, Object, PodSpec, Port, PortRef, Probe, SecurityContext};
use super::report::blocks;
use super::service::PORT_NAMES;
use super::yaml::YamlFile;

/// One check of the lint: what it finds, and the clause that forbids or discourages it.
#[derive(Debug)]
pub struct LintCheck {
    /// The check's name (`host-port`), in the JSON output.
    pub name: &'static str,
    /// The clause.
    pub clause: &'static str,
    /// What it looks for, for docs/platforms.md.
    pub finds: &'static str,
}

macro_rules! checks {
    ($($id:ident = $name:literal, $clause:literal, $finds:literal;)*) => {
        $(
            #[doc = $finds]
            const $id: &LintCheck = &LintCheck { name: $name, clause: $clause, finds: $finds };
        )*
        /// Every check, in the order a manifest is walked.
        pub const LINT_CHECKS: &[&LintCheck] = &[$($id),*];
    };
}

checks! {
    PORTS = "single-port", "network.ports.single-container-port", "more than one entry under a container's `ports`";
    HOST_PORT = "host-port", "network.ports.no-host-port-developer", "`hostPort` on a port";
    PORT_NAME = "port-name", "network.ports.no-arbitrary-port-names", "a port `name` other than \"\", `http1` or `h2c`";
    PROBE_HANDLER = "probe-handler", "network.probes.http-or-tcp-on-port", "a liveness, readiness or startup probe with a handler other than `httpGet` or `tcpSocket` (`exec`, `grpc`)";
    PROBE_PORT = "probe-port", "network.probes.http-or-tcp-on-port", "a probe whose `port` is not the container's port (by number or name)";
    INITIAL_DELAY = "initial-delay", "network.probes.defaults", "a probe's `initialDelaySeconds` above 0";
    HOOKS = "lifecycle-hooks", "lifecycle.hooks.not-developer-configurable", "`lifecycle` (`postStart`, `preStop` hooks)";
    RUN_AS_USER = "run-as-user", "config.user.invalid-identity-fails", "a `runAsUser` outside 0 to 2147483647 (the pod's or a container's)";
    NAMESPACES = "host-namespaces", "config.namespaces.developer-must-not-set", "`hostNetwork`, `hostPID`, `hostIPC` or `shareProcessNamespace` set to true";
    PROPAGATION = "mount-propagation", "config.rootfs-propagation.not-developer-configurable", "a volume mount's `mountPropagation` other than `None`";
    PROC_MOUNT = "proc-mount", "config.masked-paths.not-developer-configurable", "`securityContext.procMount` other than `Default` (`Unmasked` lifts the masked paths)";
    SYSCTLS = "sysctls", "config.sysctl.not-developer-tunable", "the pod's `securityContext.sysctls`";
    PERSISTENT = "persistent-volume", "config.mounts.per-container-volumes", "a `persistentVolumeClaim` volume";
    DEVICES = "devices", "config.devices.default-only", "a container's `volumeDevices` (a raw block device)";
}

/// How much of a clause's text a finding's help quotes.
const HELP_CHARS: usize = 160;

/// The kinds the lint reads, and where each keeps its pod spec.
const KINDS: &[&str] = &["Service", "Configuration", "Revision"];

// --- The walk -----------------------------------------------------------------------------------

/// A finding: the diagnostic, and the check and clause it comes from (for `--format json`).
#[derive(Debug)]
pub struct Finding {
    /// The diagnostic (K1122, or K1121 for the input).
    pub diagnostic: Diagnostic,
    /// The check (`None` for a problem with the input).
    pub check: Option<&'static LintCheck>,
    /// The clause's level as the spec has it.
    pub level: Option<String>,
}

/// The table as [`super::contract::missing`] reads it.
pub fn table() -> super::contract::Table {
    super::contract::Table {
        command: "platform lint",
        place: "crates/platform/src/lint.rs (LINT_CHECKS)",
        rows: LINT_CHECKS.iter().map(|c| (c.name, c.clause)).collect(),
    }
}

/// Checks every document of file `id`: its findings, in document order, and how many Knative
/// objects with containers (Service, Configuration, Revision) it linted.
pub fn lint(spec: &Spec, id: FileId, sources: &SourceMap) -> (Vec<Finding>, usize) {
    let y = YamlFile {
        id,
        file: sources.get(id),
    };
    let input = |d: Diagnostic| Finding {
        diagnostic: d,
        check: None,
        level: None,
    };
    let docs: Vec<Object> = match y.parse_all(
        "K1121",
        "Knative manifest",
        "a Knative Service, Configuration or Revision in YAML (documents separated by `---`)",
    ) {
        Ok(d) => d,
        Err(d) => return (vec![input(d)], 0),
    };
    if docs.is_empty() {
        return (
            vec![input(
                Diagnostic::error(
                    "K1121",
                    format!("`{}` holds no YAML document", y.file.path.display()),
                )
                .in_file(&y.file.path)
                .help("give a Knative Service, Configuration or Revision manifest"),
            )],
            0,
        );
    }
    let mut w = Walk {
        spec,
        y: &y,
        out: Vec::new(),
        linted: 0,
    };
    for doc in docs {
        w.object(doc);
    }
    (w.out, w.linted)
}

struct Walk<'a> {
    spec: &'a Spec,
    y: &'a YamlFile<'a>,
    out: Vec<Finding>,
    /// The Knative objects with containers walked.
    linted: usize,
}

impl Walk<'_> {
    /// A finding of `check` at `span`: an error when its clause is a MUST or MUST NOT.
    fn find(&mut self, check: &'static LintCheck, span: Span, what: String, label: &str) {
        let Some(clause) = self.spec.clauses.iter().find(|c| c.id == check.clause) else {
            // Reported by `contract::missing` before any file is read.
            return;
        };
        let level = clause.level.as_str();
        let message = format!("{what}: `{}` ({level})", check.clause);
        let d = if blocks(level) {
            Diagnostic::error("K1122", message)
        } else {
            Diagnostic::warning("K1122", message)
        };
        let text = clause.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = match text.char_indices().nth(HELP_CHARS) {
            Some((cut, _)) => format!(
                "{} …",
                text[..cut]
                    .rsplit_once(' ')
                    .map_or(&text[..cut], |(a, _)| a)
            ),
            None => text,
        };
        let d = d.at(span, label).help(format!(
            "the contract ({}:{}): {text}",
            clause.file.display(),
            clause.line
        ));
        self.out.push(Finding {
            diagnostic: d,
            check: Some(check),
            level: Some(level.to_owned()),
        });
    }

    fn input(&mut self, d: Diagnostic) {
        self.out.push(Finding {
            diagnostic: d,
            check: None,
            level: None,
        });
    }

    fn object(&mut self, doc: Object) {
        let y = self.y;
        let (Some(api), Some(kind)) = (&doc.api_version, &doc.kind) else {
            let d = Diagnostic::error("K1121", "not a Kubernetes object".to_owned());
            let d = match doc.api_version.as_ref().or(doc.kind.as_ref()) {
                Some(s) => d.at(y.span(s), "`apiVersion` and `kind` are both needed"),
                None => d.in_file(&y.file.path),
            };
            self.input(d.help(
                "a Knative manifest starts with `apiVersion: serving.knative.dev/v1` and `kind: Service`",
            ));
            return;
        };
        if api.value == "v1" && kind.value == "List" {
            for item in doc.items.into_iter().flatten() {
                self.object(item);
            }
            return;
        }
        if !api.value.starts_with("serving.knative.dev/") {
            self.input(
                Diagnostic::warning("K1121", format!("`{}` (`{}`) is not a Knative Serving object: skipped", kind.value, api.value))
                    .at(y.span(api), "not serving.knative.dev")
                    .help("the lint reads Knative Service, Configuration and Revision manifests (`apiVersion: serving.knative.dev/v1`); the other objects of a deploy folder are left alone"),
            );
            return;
        }
        if !KINDS.contains(&kind.value.as_str()) {
            self.input(
                Diagnostic::warning("K1121", format!("kind `{}` is not linted", kind.value))
                    .at(y.span(kind), "no containers to check")
                    .help(
                        "the lint reads the containers of a Service, a Configuration or a Revision",
                    ),
            );
            return;
        }
        let Some(spec) = doc.spec else {
            self.input(
                Diagnostic::error("K1121", format!("the {} has no `spec`", kind.value))
                    .at(y.span(kind), "no spec")
                    .help("a Service and a Configuration hold the pod spec in `spec.template.spec`, a Revision in `spec`"),
            );
            return;
        };
        self.linted += 1;
        let pod = if kind.value == "Revision" {
            Some(spec.value)
        } else {
            spec.value
                .template
                .and_then(|t| t.value.spec)
                .map(|s| s.value)
        };
        if let Some(pod) = pod {
            self.pod(&pod);
        }
    }

    fn pod(&mut self, pod: &PodSpec) {
        let y = self.y;
        for (what, field) in [
            ("hostNetwork", &pod.host_network),
            ("hostPID", &pod.host_pid),
            ("hostIPC", &pod.host_ipc),
            ("shareProcessNamespace", &pod.share_process_namespace),
        ] {
            if let Some(f) = field.as_ref().filter(|f| f.value) {
                self.find(
                    NAMESPACES,
                    y.span(f),
                    format!("`{what}: true` sets the pod's namespaces"),
                    "the platform chooses the namespaces",
                );
            }
        }
        if let Some(sc) = &pod.security_context {
            self.security_context(sc);
            if let Some(s) = &sc.sysctls {
                self.find(
                    SYSCTLS,
                    self.y.key("sysctls", s),
                    "`sysctls` tunes the kernel".into(),
                    "sysctls are the platform's",
                );
            }
        }
        for v in &pod.volumes {
            if let Some(p) = &v.persistent_volume_claim {
                self.find(
                    PERSISTENT,
                    self.y.key("persistentVolumeClaim", p),
                    "a persistent volume".into(),
                    "state outside the request",
                );
            }
        }
        for c in pod.containers.iter().flat_map(|c| &c.value) {
            self.container(c);
        }
    }

    fn security_context(&mut self, sc: &SecurityContext) {
        let y = self.y;
        if let Some(u) = sc
            .run_as_user
            .as_ref()
            .filter(|u| !(0..=i64::from(i32::MAX)).contains(&u.value))
        {
            self.find(
                RUN_AS_USER,
                y.span(u),
                format!("runAsUser {} is not a valid user id", u.value),
                "user ids are 0 to 2147483647",
            );
        }
        if let Some(p) = sc.proc_mount.as_ref().filter(|p| p.value != "Default") {
            self.find(
                PROC_MOUNT,
                y.span(p),
                format!("`procMount: {}` changes what /proc masks", p.value),
                "the masked paths are the platform's",
            );
        }
    }

    fn container(&mut self, c: &Container) {
        let y = self.y;
        let ports = c.ports.as_ref();
        if let Some(ps) = ports.filter(|p| p.value.len() > 1) {
            self.find(
                PORTS,
                self.y.key("ports", ps),
                format!("{} container ports", ps.value.len()),
                "one inbound port only",
            );
        }
        for p in ports.iter().flat_map(|p| &p.value).map(|p| &p.value) {
            if let Some(h) = &p.host_port {
                self.find(
                    HOST_PORT,
                    y.span(h),
                    "`hostPort` is set".into(),
                    "it can interfere with ingress and autoscaling",
                );
            }
            if let Some(n) = p
                .name
                .as_ref()
                .filter(|n| !PORT_NAMES.contains(&n.value.as_str()))
            {
                self.find(
                    PORT_NAME,
                    y.span(n),
                    format!("port name `{}`", n.value),
                    "not \"\", `http1` or `h2c`",
                );
            }
        }
        let first = ports.and_then(|p| p.value.first()).map(|p| &p.value);
        for (which, probe) in [
            ("livenessProbe", &c.liveness_probe),
            ("readinessProbe", &c.readiness_probe),
            ("startupProbe", &c.startup_probe),
        ] {
            if let Some(probe) = probe {
                self.probe(which, probe, first);
            }
        }
        if let Some(l) = &c.lifecycle {
            self.find(
                HOOKS,
                self.y.key("lifecycle", l),
                "`lifecycle` hooks".into(),
                "hooks are the platform's",
            );
        }
        if let Some(sc) = &c.security_context {
            self.security_context(sc);
        }
        for m in &c.volume_mounts {
            if let Some(p) = m.mount_propagation.as_ref().filter(|p| p.value != "None") {
                self.find(
                    PROPAGATION,
                    y.span(p),
                    format!("`mountPropagation: {}`", p.value),
                    "mount propagation is the platform's",
                );
            }
        }
        if let Some(d) = &c.volume_devices {
            self.find(
                DEVICES,
                self.y.key("volumeDevices", d),
                "`volumeDevices` requests a device".into(),
                "beyond the OCI default devices",
            );
        }
    }

    fn probe(&mut self, which: &str, probe: &Probe, port: Option<&Port>) {
        let y = self.y;
        for (handler, field) in [("exec", &probe.exec), ("grpc", &probe.grpc)] {
            if let Some(f) = field {
                self.find(
                    PROBE_HANDLER,
                    self.y.key(handler, f),
                    format!("`{which}` uses `{handler}`"),
                    "only httpGet or tcpSocket",
                );
            }
        }
        for h in [&probe.http_get, &probe.tcp_socket].into_iter().flatten() {
            let Some(p) = &h.port else { continue };
            // Without a declared port there is nothing to compare with: the platform's default
            // port is the platform's to say.
            let Some(port) = port else { continue };
            let matches = match &p.value {
                PortRef::Number(n) => port.container_port.as_ref().is_none_or(|c| c.value == *n),
                PortRef::Name(n) => port.name.as_ref().is_some_and(|m| m.value == *n),
            };
            if !matches {
                let target = match &p.value {
                    PortRef::Number(n) => n.to_string(),
                    PortRef::Name(n) => format!("`{n}`"),
                };
                self.find(
                    PROBE_PORT,
                    y.span(p),
                    format!("`{which}` targets port {target}"),
                    "not the container's port",
                );
            }
        }
        if let Some(d) = probe.initial_delay_seconds.as_ref().filter(|d| d.value > 0) {
            self.find(
                INITIAL_DELAY,
                y.span(d),
                format!("`{which}` waits {} s before its first probe", d.value),
                "the contract's default is 0: a delay adds to every cold start",
            );
        }
    }
}
