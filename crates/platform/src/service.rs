//! Knative `Service` manifests (`serving.knative.dev/v1`), as far as a platform run reads them: the
//! names, the container port, the environment, `runAsUser`/`runAsGroup`, the resources and
//! `timeoutSeconds`. These are what the contract lets a developer set; everything else a manifest
//! may hold is not read, and the fields the contract reserves to the platform (hooks, capabilities,
//! sysctls, mount propagation, …) are named in a warning (K1105) and never reach the OCI config.
//!
//! The manifest is read into the shape `platform lint` reads too (`manifest.rs`), where every
//! field is optional; the fields a run cannot do without are checked here (`required`).
//!
//! Problems are diagnostics at their `file:line:col`: K1103 for the shape, K1104 for a value the
//! platform refuses (a port out of range, two ports, an arbitrary port name, a reserved
//! environment variable, a user id the profile does not allow, a malformed quantity).

use serde_saphyr::Spanned;

use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};

use super::manifest::{
    Container, Object, PodSpec, Port, Presence, Quantity, ResourceRequirements, SecurityContext,
    Template,
};
use super::profile::Profile;
use super::quantity::{cpu_millis, memory_bytes};
use super::yaml::YamlFile;

/// Environment variables the platform sets; a Service may not (Knative rejects them too).
pub const RESERVED_ENV: &[&str] = &["PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION"];

/// Port names the contract allows (`network.ports.no-arbitrary-port-names`).
pub(crate) const PORT_NAMES: &[&str] = &["", "http1", "h2c"];

/// The Service the command uses without `--service` (`platforms/services/conformance.yaml`): the
/// values of Knative's own runtime conformance tests (port 8801, user 2020, 1 CPU and 128 MiB,
/// a request of 125 millicores), with a two-second `timeoutSeconds` so that a run waits two
/// seconds for the grace period.
pub const CONFORMANCE_SERVICE: &str = include_str!("../../../platforms/services/conformance.yaml");

/// The file name shown for [`CONFORMANCE_SERVICE`].
pub const CONFORMANCE_SERVICE_PATH: &str = "platforms/services/conformance.yaml";

/// The deployment kit's Service (`platforms/deploy/service.yaml`): the probe as a platform team
/// deploys it, and what `platform verify` judges a deployed probe against by default.
pub const DEPLOY_SERVICE: &str = include_str!("../../../platforms/deploy/service.yaml");

/// The file name shown for [`DEPLOY_SERVICE`].
pub const DEPLOY_SERVICE_PATH: &str = "platforms/deploy/service.yaml";

/// What a run takes from a Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// `metadata.name`: `K_SERVICE` and `K_CONFIGURATION`.
    pub name: String,
    /// `metadata.namespace` (default `default`).
    pub namespace: String,
    /// The revision's name: `spec.template.metadata.name`, else `<name>-00001`.
    pub revision: String,
    /// `ports[0].containerPort`.
    pub container_port: Option<u16>,
    /// `ports[0].name`.
    pub port_name: Option<String>,
    /// `env` (`name`, `value`), in order.
    pub env: Vec<(String, String)>,
    /// `securityContext.runAsUser` (the container's, else the pod's).
    pub run_as_user: Option<u32>,
    /// `securityContext.runAsGroup` (likewise).
    pub run_as_group: Option<u32>,
    /// `resources`.
    pub resources: Resources,
    /// `spec.template.spec.timeoutSeconds`.
    pub timeout_seconds: Option<u64>,
    /// Where `runAsUser` and `runAsGroup` are written, for diagnostics against a profile.
    pub(crate) id_spans: (Option<Span>, Option<Span>),
}

/// Limits and requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resources {
    /// `limits.cpu` in millicores.
    pub cpu_limit_m: Option<u64>,
    /// `requests.cpu` in millicores.
    pub cpu_request_m: Option<u64>,
    /// `limits.memory` in bytes.
    pub memory_limit: Option<u64>,
    /// `requests.memory` in bytes.
    pub memory_request: Option<u64>,
}

impl Service {
    /// The same Service without what a developer may leave to the platform's defaults: the
    /// container port and the user and group ids.
    pub fn without_developer_choices(&self) -> Service {
        Service {
            container_port: None,
            port_name: None,
            run_as_user: None,
            run_as_group: None,
            id_spans: (None, None),
            ..self.clone()
        }
    }
}

/// A parsed Service with the warnings about what it asked for that the platform does not take.
#[derive(Debug)]
pub struct Parsed {
    /// The Service.
    pub service: Service,
    /// K1105 warnings.
    pub warnings: Vec<Diagnostic>,
}

/// What a K1103 for the Service's shape says.
const WHAT: &str = "Knative Service";

/// The help of a K1103 for the Service's shape.
const SHAPE_HELP: &str = "a Knative Service has apiVersion, kind, metadata.name and \
    spec.template.spec.containers (docs/platforms.md says which fields a run reads)";

/// The Service in file `id` of `sources`.
pub fn parse(id: FileId, sources: &SourceMap) -> Result<Parsed, Vec<Diagnostic>> {
    let y = YamlFile {
        id,
        file: sources.get(id),
    };
    let doc: Spanned<Object> = y.parse("K1103", WHAT, SHAPE_HELP).map_err(|d| vec![d])?;
    let raw = required(&y, &doc).map_err(|d| vec![d])?;
    let mut b = Builder {
        y: &y,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let service = b.build(&raw);
    if b.errors.is_empty() {
        Ok(Parsed {
            service,
            warnings: b.warnings,
        })
    } else {
        b.errors.extend(b.warnings);
        Err(b.errors)
    }
}

/// The fields of the manifest a run cannot do without, each known present.
struct Required<'a> {
    api_version: &'a Spanned<String>,
    kind: &'a Spanned<String>,
    name: &'a Spanned<String>,
    namespace: Option<&'a String>,
    template: &'a Template,
    pod: &'a PodSpec,
    containers: &'a Spanned<Vec<Container>>,
}

/// The fields a run needs, or a K1103 naming the first one missing, at the key whose mapping lacks
/// it (the document's first line for a top-level field, the list item for a port's
/// `containerPort` and a variable's `name`): the manifest's shape has every field optional, as the
/// lint needs.
fn required<'a>(y: &YamlFile<'_>, doc: &'a Spanned<Object>) -> Result<Required<'a>, Diagnostic> {
    let missing = |at: Span, field: &str| {
        y.not_valid(
            "K1103",
            WHAT,
            Some(at),
            format!("missing field `{field}`"),
            SHAPE_HELP,
        )
    };
    let o = &doc.value;
    let top = |field: &str| missing(y.span(doc), field);
    let api_version = o.api_version.as_ref().ok_or_else(|| top("apiVersion"))?;
    let kind = o.kind.as_ref().ok_or_else(|| top("kind"))?;
    let metadata = o.metadata.as_ref().ok_or_else(|| top("metadata"))?;
    let spec = o.spec.as_ref().ok_or_else(|| top("spec"))?;
    let name = (metadata.value.name.as_ref())
        .ok_or_else(|| missing(y.key("metadata", metadata), "name"))?;
    let template =
        (spec.value.template.as_ref()).ok_or_else(|| missing(y.key("spec", spec), "template"))?;
    let pod = (template.value.spec.as_ref())
        .ok_or_else(|| missing(y.key("template", template), "spec"))?;
    let containers =
        (pod.value.containers.as_ref()).ok_or_else(|| missing(y.key("spec", pod), "containers"))?;
    for c in &containers.value {
        if let Some(p) =
            (c.ports.iter().flat_map(|p| &p.value)).find(|p| p.value.container_port.is_none())
        {
            return Err(missing(y.span(p), "containerPort"));
        }
        if let Some(e) = c.env.iter().find(|e| e.value.name.is_none()) {
            return Err(missing(y.span(e), "name"));
        }
    }
    Ok(Required {
        api_version,
        kind,
        name,
        namespace: metadata.value.namespace.as_ref(),
        template: &template.value,
        pod: &pod.value,
        containers,
    })
}

fn refuse<T>(
    y: &YamlFile<'_>,
    at: &Spanned<T>,
    message: String,
    label: &str,
    help: &str,
) -> Diagnostic {
    Diagnostic::error("K1104", message)
        .at(y.span(at), label)
        .help(help)
}

/// A Service being read from a manifest, with the problems found on the way: K1103 and K1104
/// errors, K1105 warnings (each list in the order the fields are read).
struct Builder<'y, 'f> {
    y: &'y YamlFile<'f>,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

impl Builder<'_, '_> {
    /// The Service of `raw`, read in the manifest's order: what it is and its names, its one
    /// container, the pod's fields, then the container's ports, environment, user and resources.
    fn build(&mut self, raw: &Required<'_>) -> Service {
        self.check_kind(raw);
        let name = self.name(raw.name);
        let revision = self.revision(raw.template, &name);
        let containers = raw.containers;
        if containers.value.len() != 1 {
            self.refuse(
                containers,
                format!(
                    "{} containers; a run maps exactly one",
                    containers.value.len()
                ),
                "one container expected",
                "write one entry under `containers`",
            );
        }
        let mut service = Service {
            name,
            namespace: raw
                .namespace
                .map_or_else(|| "default".to_owned(), Clone::clone),
            revision,
            container_port: None,
            port_name: None,
            env: Vec::new(),
            run_as_user: None,
            run_as_group: None,
            resources: Resources::default(),
            timeout_seconds: None,
            id_spans: (None, None),
        };
        self.pod(raw.pod, &mut service);
        if let Some(c) = containers.value.first() {
            self.container_pruned(c);
            if let Some(ports) = &c.ports {
                self.ports(ports, &mut service);
            }
            self.env(c, &mut service);
            if let Some(sc) = &c.security_context {
                self.container_security(sc, &mut service);
            }
            if let Some(r) = &c.resources {
                self.resources(r, &mut service.resources);
            }
        }
        service
    }

    /// A K1104 error at `at`.
    fn refuse<T>(&mut self, at: &Spanned<T>, message: String, label: &str, help: &str) {
        let d = refuse(self.y, at, message, label, help);
        self.errors.push(d);
    }

    /// A K1105 warning: `what`, at `at`, is left to the platform.
    fn pruned(&mut self, what: &str, at: Span) {
        self.warnings.push(
            Diagnostic::warning("K1105", format!("`{what}` is not taken from the developer"))
                .at(at, "ignored: the platform sets this, never the Service")
                .help(
                    "the contract reserves it to the operator or the platform (docs/platforms.md)",
                ),
        );
    }

    /// `apiVersion: serving.knative.dev/v1` and `kind: Service`, or K1103.
    fn check_kind(&mut self, raw: &Required<'_>) {
        if raw.api_version.value == "serving.knative.dev/v1" && raw.kind.value == "Service" {
            return;
        }
        let at = if raw.kind.value != "Service" {
            self.y.span(raw.kind)
        } else {
            self.y.span(raw.api_version)
        };
        self.errors.push(
            Diagnostic::error("K1103", "not a Knative Service".to_owned())
                .at(
                    at,
                    "expected `apiVersion: serving.knative.dev/v1` and `kind: Service`",
                )
                .help("a platform run reads a serving.knative.dev/v1 Service"),
        );
    }

    /// `metadata.name`, which must be a DNS-1035 label.
    fn name(&mut self, name: &Spanned<String>) -> String {
        let n = name.value.clone();
        if !is_dns_label(&n) {
            self.refuse(
                name,
                format!("`{n}` is not a valid Service name"),
                "not a DNS-1035 label",
                "lowercase letters, digits and `-`, starting with a letter, at most 63 characters",
            );
        }
        n
    }

    /// The revision's name: the template's, which must start with the Service's, else
    /// `<name>-00001`.
    fn revision(&mut self, template: &Template, name: &str) -> String {
        match template.metadata.as_ref().and_then(|m| m.name.as_ref()) {
            Some(n) if n.value.starts_with(&format!("{name}-")) && is_dns_label(&n.value) => {
                n.value.clone()
            }
            Some(n) => {
                self.refuse(
                    n,
                    format!("revision name `{}` does not start with `{name}-`", n.value),
                    "not a revision name of this Service",
                    "Knative requires a template name of the form `<service>-<suffix>`",
                );
                String::new()
            }
            None => format!("{name}-00001"),
        }
    }

    /// The pod's fields: those left to the platform (warned), `timeoutSeconds`, and the pod's
    /// `runAsUser` and `runAsGroup`.
    fn pod(&mut self, spec: &PodSpec, service: &mut Service) {
        for (what, field) in [
            ("hostNetwork", &spec.host_network),
            ("hostPID", &spec.host_pid),
            ("hostIPC", &spec.host_ipc),
            ("shareProcessNamespace", &spec.share_process_namespace),
        ] {
            if let Some(f) = field {
                self.pruned(what, self.y.span(f));
            }
        }
        if let Some(t) = &spec.timeout_seconds {
            if (1..=86_400).contains(&t.value) {
                service.timeout_seconds = Some(t.value as u64);
            } else {
                self.refuse(
                    t,
                    format!("timeoutSeconds {} is out of range", t.value),
                    "must be from 1 to 86400",
                    "seconds, from 1 to 86400",
                );
            }
        }
        if let Some(psc) = &spec.security_context {
            self.ids(&psc.run_as_user, &psc.run_as_group, service);
            if let Some(s) = &psc.sysctls {
                self.pruned("securityContext.sysctls", self.y.span(s));
            }
        }
    }

    /// `runAsUser` and `runAsGroup` (the container's, read after the pod's, win), with where they
    /// are written.
    fn ids(
        &mut self,
        user: &Option<Spanned<i64>>,
        group: &Option<Spanned<i64>>,
        service: &mut Service,
    ) {
        if let Some(u) = user {
            service.run_as_user = self.id(u, "runAsUser");
            service.id_spans.0 = Some(self.y.span(u));
        }
        if let Some(g) = group {
            service.run_as_group = self.id(g, "runAsGroup");
            service.id_spans.1 = Some(self.y.span(g));
        }
    }

    /// A user or group id, or K1104.
    fn id(&mut self, v: &Spanned<i64>, what: &str) -> Option<u32> {
        let id = u32::try_from(v.value).ok();
        if id.is_none() {
            self.refuse(
                v,
                format!("{what} {} is not a valid id", v.value),
                "not an id",
                "ids are 0 to 4294967295",
            );
        }
        id
    }

    /// The container's fields left to the platform, warned.
    fn container_pruned(&mut self, c: &Container) {
        for (what, field) in [
            ("lifecycle", &c.lifecycle),
            ("stdin", &c.stdin),
            ("tty", &c.tty),
            ("volumeDevices", &c.volume_devices),
        ] {
            if let Some(f) = field {
                self.pruned(what, self.y.span(f));
            }
        }
        for m in &c.volume_mounts {
            if let Some(p) = &m.mount_propagation {
                self.pruned("volumeMounts[].mountPropagation", self.y.span(p));
            }
        }
    }

    /// The one port: its number and name (`http1`, `h2c` or none); a `hostPort` is warned.
    fn ports(&mut self, ports: &Spanned<Vec<Spanned<Port>>>, service: &mut Service) {
        if ports.value.len() > 1 {
            self.refuse(
                ports,
                format!("{} ports; a container has at most one", ports.value.len()),
                "more than one port",
                "network.ports.single-container-port: list one `containerPort`",
            );
        }
        let Some(p) = ports.value.first().map(|p| &p.value) else {
            return;
        };
        if let Some(cp) = &p.container_port {
            match u16::try_from(cp.value) {
                Ok(n) if n > 0 => service.container_port = Some(n),
                _ => self.refuse(
                    cp,
                    format!("containerPort {} is out of range", cp.value),
                    "not a port",
                    "a port from 1 to 65535",
                ),
            }
        }
        if let Some(n) = &p.name {
            if PORT_NAMES.contains(&n.value.as_str()) {
                service.port_name = Some(n.value.clone());
            } else {
                self.refuse(
                    n,
                    format!("port name `{}` is not allowed", n.value),
                    "not a transport name",
                    "network.ports.no-arbitrary-port-names: leave it out, or write `http1` or `h2c`",
                );
            }
        }
        if let Some(h) = &p.host_port {
            self.pruned("ports[].hostPort", self.y.span(h));
        }
    }

    /// The environment: each variable with a name the platform does not set and a value of its
    /// own, in order.
    fn env(&mut self, c: &Container, service: &mut Service) {
        for e in c.env.iter().map(|e| &e.value) {
            let Some(name) = &e.name else { continue };
            let n = &name.value;
            if RESERVED_ENV.contains(&n.as_str()) {
                self.refuse(
                    name,
                    format!("`{n}` is set by the platform"),
                    "reserved",
                    &format!("the platform sets {}; remove it", RESERVED_ENV.join(", ")),
                );
            } else if n.is_empty() || n.contains('=') || n.contains('\0') {
                self.refuse(
                    name,
                    format!("`{n}` is not an environment variable name"),
                    "not a name",
                    "a non-empty name without `=`",
                );
            } else if let Some(v) = &e.value_from {
                self.refuse(
                    v,
                    format!("`{n}` takes its value from a Secret or ConfigMap"),
                    "valueFrom needs a cluster",
                    "write the value itself (`value:`) for a platform run",
                );
            } else {
                service
                    .env
                    .push((n.clone(), e.value.clone().unwrap_or_default()));
            }
        }
    }

    /// The container's `runAsUser` and `runAsGroup`, and its security fields left to the platform
    /// (warned).
    fn container_security(&mut self, sc: &SecurityContext, service: &mut Service) {
        self.ids(&sc.run_as_user, &sc.run_as_group, service);
        let at = |f: &Presence| f.as_ref().map(|f| self.y.span(f));
        let fields = [
            ("securityContext.capabilities", at(&sc.capabilities)),
            ("securityContext.privileged", at(&sc.privileged)),
            (
                "securityContext.procMount",
                sc.proc_mount.as_ref().map(|f| self.y.span(f)),
            ),
            (
                "securityContext.allowPrivilegeEscalation",
                at(&sc.allow_privilege_escalation),
            ),
            ("securityContext.seccompProfile", at(&sc.seccomp_profile)),
        ];
        for (what, at) in fields {
            if let Some(at) = at {
                self.pruned(what, at);
            }
        }
    }

    /// The limits and requests, each a positive quantity or K1104.
    fn resources(&mut self, r: &ResourceRequirements, out: &mut Resources) {
        if let Some(l) = &r.limits {
            out.cpu_limit_m = self.quantity(&l.cpu, "limits.cpu", cpu_millis);
            out.memory_limit = self.quantity(&l.memory, "limits.memory", memory_bytes);
        }
        if let Some(q) = &r.requests {
            out.cpu_request_m = self.quantity(&q.cpu, "requests.cpu", cpu_millis);
            out.memory_request = self.quantity(&q.memory, "requests.memory", memory_bytes);
        }
    }

    /// One quantity, read by `parse`, when it is positive; else K1104.
    fn quantity(
        &mut self,
        q: &Option<Spanned<Quantity>>,
        what: &str,
        parse: fn(&str) -> Option<u64>,
    ) -> Option<u64> {
        let q = q.as_ref()?;
        let text = q.value.text();
        let v = parse(&text).filter(|v| *v > 0);
        if v.is_none() {
            self.refuse(
                q,
                format!("{what} `{text}` is not a positive quantity"),
                "not a quantity",
                "CPU as `1`, `0.5` or `125m`; memory as `128Mi`, `1Gi` or bytes",
            );
        }
        v
    }
}

/// Whether `s` is a DNS-1035 label (Knative's Service names).
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The Service's user id against the profile's allowed ids: K1104 when the profile does not allow
/// it (the platform must refuse to run it: `config.user.invalid-identity-fails`).
pub fn check_against(service: &Service, profile: &Profile) -> Vec<Diagnostic> {
    let (lo, hi) = profile.allowed_uids;
    match (service.run_as_user, &service.id_spans.0) {
        (Some(uid), Some(span)) if uid < lo || uid > hi => vec![
            Diagnostic::error(
                "K1104",
                format!(
                    "runAsUser {uid} is not allowed by profile `{}`",
                    profile.name
                ),
            )
            .at(span.clone(), format!("the profile allows {lo} to {hi}"))
            .help("ask for an allowed id, or leave runAsUser out for the platform's default"),
        ],
        _ => Vec::new(),
    }
}
