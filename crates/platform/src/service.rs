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

use super::manifest::{Container, Object, PodSpec, Presence, Quantity, Template};
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
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let service = build(&y, &raw, &mut errors, &mut warnings);
    if errors.is_empty() {
        Ok(Parsed { service, warnings })
    } else {
        errors.extend(warnings);
        Err(errors)
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

fn build(
    y: &YamlFile<'_>,
    raw: &Required<'_>,
    errors: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> Service {
    if raw.api_version.value != "serving.knative.dev/v1" || raw.kind.value != "Service" {
        let at = if raw.kind.value != "Service" {
            y.span(raw.kind)
        } else {
            y.span(raw.api_version)
        };
        errors.push(
            Diagnostic::error("K1103", "not a Knative Service".to_owned())
                .at(
                    at,
                    "expected `apiVersion: serving.knative.dev/v1` and `kind: Service`",
                )
                .help("a platform run reads a serving.knative.dev/v1 Service"),
        );
    }
    let name = raw.name.value.clone();
    if !is_dns_label(&name) {
        errors.push(refuse(
            y,
            raw.name,
            format!("`{name}` is not a valid Service name"),
            "not a DNS-1035 label",
            "lowercase letters, digits and `-`, starting with a letter, at most 63 characters",
        ));
    }
    let spec = raw.pod;
    let revision = match raw.template.metadata.as_ref().and_then(|m| m.name.as_ref()) {
        Some(n) if n.value.starts_with(&format!("{name}-")) && is_dns_label(&n.value) => {
            n.value.clone()
        }
        Some(n) => {
            errors.push(refuse(
                y,
                n,
                format!("revision name `{}` does not start with `{name}-`", n.value),
                "not a revision name of this Service",
                "Knative requires a template name of the form `<service>-<suffix>`",
            ));
            String::new()
        }
        None => format!("{name}-00001"),
    };
    let containers = raw.containers;
    if containers.value.len() != 1 {
        errors.push(refuse(
            y,
            containers,
            format!(
                "{} containers; a run maps exactly one",
                containers.value.len()
            ),
            "one container expected",
            "write one entry under `containers`",
        ));
    }
    let pruned = |what: &str, at: Span, warnings: &mut Vec<Diagnostic>| {
        warnings.push(
            Diagnostic::warning("K1105", format!("`{what}` is not taken from the developer"))
                .at(at, "ignored: the platform sets this, never the Service")
                .help(
                    "the contract reserves it to the operator or the platform (docs/platforms.md)",
                ),
        );
    };
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
    for (what, field) in [
        ("hostNetwork", &spec.host_network),
        ("hostPID", &spec.host_pid),
        ("hostIPC", &spec.host_ipc),
        ("shareProcessNamespace", &spec.share_process_namespace),
    ] {
        if let Some(f) = field {
            pruned(what, y.span(f), warnings);
        }
    }
    if let Some(t) = &spec.timeout_seconds {
        if (1..=86_400).contains(&t.value) {
            service.timeout_seconds = Some(t.value as u64);
        } else {
            errors.push(refuse(
                y,
                t,
                format!("timeoutSeconds {} is out of range", t.value),
                "must be from 1 to 86400",
                "seconds, from 1 to 86400",
            ));
        }
    }
    let id = |v: &Spanned<i64>, what: &str, errors: &mut Vec<Diagnostic>| -> Option<u32> {
        match u32::try_from(v.value) {
            Ok(n) => Some(n),
            Err(_) => {
                errors.push(refuse(
                    y,
                    v,
                    format!("{what} {} is not a valid id", v.value),
                    "not an id",
                    "ids are 0 to 4294967295",
                ));
                None
            }
        }
    };
    if let Some(psc) = &spec.security_context {
        if let Some(u) = &psc.run_as_user {
            service.run_as_user = id(u, "runAsUser", errors);
            service.id_spans.0 = Some(y.span(u));
        }
        if let Some(g) = &psc.run_as_group {
            service.run_as_group = id(g, "runAsGroup", errors);
            service.id_spans.1 = Some(y.span(g));
        }
        if let Some(s) = &psc.sysctls {
            pruned("securityContext.sysctls", y.span(s), warnings);
        }
    }
    let Some(c) = containers.value.first() else {
        return service;
    };
    for (what, field) in [
        ("lifecycle", &c.lifecycle),
        ("stdin", &c.stdin),
        ("tty", &c.tty),
        ("volumeDevices", &c.volume_devices),
    ] {
        if let Some(f) = field {
            pruned(what, y.span(f), warnings);
        }
    }
    for m in &c.volume_mounts {
        if let Some(p) = &m.mount_propagation {
            pruned("volumeMounts[].mountPropagation", y.span(p), warnings);
        }
    }
    if let Some(ports) = &c.ports {
        if ports.value.len() > 1 {
            errors.push(refuse(
                y,
                ports,
                format!("{} ports; a container has at most one", ports.value.len()),
                "more than one port",
                "network.ports.single-container-port: list one `containerPort`",
            ));
        }
        if let Some(p) = ports.value.first().map(|p| &p.value) {
            if let Some(cp) = &p.container_port {
                match u16::try_from(cp.value) {
                    Ok(n) if n > 0 => service.container_port = Some(n),
                    _ => errors.push(refuse(
                        y,
                        cp,
                        format!("containerPort {} is out of range", cp.value),
                        "not a port",
                        "a port from 1 to 65535",
                    )),
                }
            }
            if let Some(n) = &p.name {
                if PORT_NAMES.contains(&n.value.as_str()) {
                    service.port_name = Some(n.value.clone());
                } else {
                    errors.push(refuse(
                        y,
                        n,
                        format!("port name `{}` is not allowed", n.value),
                        "not a transport name",
                        "network.ports.no-arbitrary-port-names: leave it out, or write `http1` or `h2c`",
                    ));
                }
            }
            if let Some(h) = &p.host_port {
                pruned("ports[].hostPort", y.span(h), warnings);
            }
        }
    }
    for e in c.env.iter().map(|e| &e.value) {
        let Some(name) = &e.name else { continue };
        let n = &name.value;
        if RESERVED_ENV.contains(&n.as_str()) {
            errors.push(refuse(
                y,
                name,
                format!("`{n}` is set by the platform"),
                "reserved",
                &format!("the platform sets {}; remove it", RESERVED_ENV.join(", ")),
            ));
        } else if n.is_empty() || n.contains('=') || n.contains('\0') {
            errors.push(refuse(
                y,
                name,
                format!("`{n}` is not an environment variable name"),
                "not a name",
                "a non-empty name without `=`",
            ));
        } else if let Some(v) = &e.value_from {
            errors.push(refuse(
                y,
                v,
                format!("`{n}` takes its value from a Secret or ConfigMap"),
                "valueFrom needs a cluster",
                "write the value itself (`value:`) for a platform run",
            ));
        } else {
            service
                .env
                .push((n.clone(), e.value.clone().unwrap_or_default()));
        }
    }
    if let Some(sc) = &c.security_context {
        if let Some(u) = &sc.run_as_user {
            service.run_as_user = id(u, "runAsUser", errors);
            service.id_spans.0 = Some(y.span(u));
        }
        if let Some(g) = &sc.run_as_group {
            service.run_as_group = id(g, "runAsGroup", errors);
            service.id_spans.1 = Some(y.span(g));
        }
        let at = |f: &Presence| f.as_ref().map(|f| y.span(f));
        for (what, at) in [
            ("securityContext.capabilities", at(&sc.capabilities)),
            ("securityContext.privileged", at(&sc.privileged)),
            (
                "securityContext.procMount",
                sc.proc_mount.as_ref().map(|f| y.span(f)),
            ),
            (
                "securityContext.allowPrivilegeEscalation",
                at(&sc.allow_privilege_escalation),
            ),
            ("securityContext.seccompProfile", at(&sc.seccomp_profile)),
        ] {
            if let Some(at) = at {
                pruned(what, at, warnings);
            }
        }
    }
    if let Some(r) = &c.resources {
        let quantity = |q: &Option<Spanned<Quantity>>,
                        what: &str,
                        parse: fn(&str) -> Option<u64>,
                        errors: &mut Vec<Diagnostic>|
         -> Option<u64> {
            let q = q.as_ref()?;
            let text = q.value.text();
            let v = parse(&text).filter(|v| *v > 0);
            if v.is_none() {
                errors.push(refuse(
                    y,
                    q,
                    format!("{what} `{text}` is not a positive quantity"),
                    "not a quantity",
                    "CPU as `1`, `0.5` or `125m`; memory as `128Mi`, `1Gi` or bytes",
                ));
            }
            v
        };
        if let Some(l) = &r.limits {
            service.resources.cpu_limit_m = quantity(&l.cpu, "limits.cpu", cpu_millis, errors);
            service.resources.memory_limit =
                quantity(&l.memory, "limits.memory", memory_bytes, errors);
        }
        if let Some(q) = &r.requests {
            service.resources.cpu_request_m = quantity(&q.cpu, "requests.cpu", cpu_millis, errors);
            service.resources.memory_request =
                quantity(&q.memory, "requests.memory", memory_bytes, errors);
        }
    }
    service
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
