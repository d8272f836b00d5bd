//! The shape of a Knative manifest (`serving.knative.dev/v1` `Service`, `Configuration`,
//! `Revision`) as kcontract reads it: the one set of serde types that both readers deserialize
//! into and walk, `platform run`'s Service ([`super::service`]) and `platform lint`
//! ([`super::lint`]). A field a reader needs is here once, with the reader named on it.
//!
//! - **Every field is optional.** The lint reads whatever a manifest has (a Revision has no
//!   `metadata.name` it needs); a run checks the fields it cannot do without itself
//!   (`service::required`: K1103 naming the missing field), so each reader keeps its strictness
//!   over one shape.
//! - **A field holds its Kubernetes type** (a boolean, a string, an integer) where a reader looks at
//!   the value, so a value of the wrong type is the parser's diagnostic at its `line:col` for both
//!   readers; [`Presence`] (`IgnoredAny`) where only its presence matters (what the contract reserves to the
//!   platform: a run names it in a K1105 warning, the lint in a K1122 finding).
//! - [`Spanned`] where a diagnostic points at the value, or (for a mapping) at the key above it.
//! - Unknown fields are ignored: a manifest holds much more than either reader checks. A field
//!   left out is `None` (serde's rule for an `Option`), a list left out is empty.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

/// One YAML document: a Kubernetes object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Object {
    /// Both: a Knative Serving object (`serving.knative.dev/…`; a run takes only `…/v1`).
    pub(super) api_version: Option<Spanned<String>>,
    /// Both: a run takes a `Service`; the lint a `Service`, `Configuration` or `Revision`.
    pub(super) kind: Option<Spanned<String>>,
    /// Run: the Service's name (`K_SERVICE`) and namespace.
    pub(super) metadata: Option<Spanned<Metadata>>,
    /// Both: a Revision's pod spec, or a Service's and Configuration's spec holding `template`.
    pub(super) spec: Option<Spanned<PodSpec>>,
    /// Lint: a `kind: List`'s objects (what `kubectl get -o yaml` writes), each linted as a
    /// document of its own.
    pub(super) items: Option<Vec<Object>>,
}

/// A field only whose presence a reader needs (whatever its value): where it is written.
pub(super) type Presence = Option<Spanned<IgnoredAny>>;

/// A field that may be left out but, when written, is a `T`: `containers:` with nothing after it
/// is refused where the list should be (as a plain `Option` would read it as left out).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An object's or a revision template's `metadata`.
#[derive(Deserialize)]
pub(super) struct Metadata {
    /// Run: the Service's name; in a template, the revision's name (`K_REVISION`).
    pub(super) name: Option<Spanned<String>>,
    /// Run: the Service's namespace (`default` when left out).
    pub(super) namespace: Option<String>,
}

/// A pod spec (a Revision's `spec`, a template's `spec`), or a Service's and Configuration's
/// `spec`, whose `template` holds one: one type for both, as each reader knows by `kind` which it
/// has.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PodSpec {
    /// Both: a Service's and Configuration's revision template.
    pub(super) template: Option<Spanned<Box<Template>>>,
    /// Both: a run maps exactly one container; the lint checks each.
    #[serde(default, deserialize_with = "present")]
    pub(super) containers: Option<Spanned<Vec<Container>>>,
    /// Run: the grace period (`timeoutSeconds`).
    pub(super) timeout_seconds: Option<Spanned<i64>>,
    /// Both: the pod's user and group ids, sysctls and proc mount.
    pub(super) security_context: Option<SecurityContext>,
    /// Both: the pod's namespaces are the platform's (a run warns, the lint finds a `true`).
    pub(super) host_network: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    #[serde(rename = "hostPID")]
    pub(super) host_pid: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    #[serde(rename = "hostIPC")]
    pub(super) host_ipc: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    pub(super) share_process_namespace: Option<Spanned<bool>>,
    /// Lint: a persistent volume keeps state outside the request.
    #[serde(default)]
    pub(super) volumes: Vec<Volume>,
}

/// A Service's and Configuration's `spec.template`.
#[derive(Deserialize)]
pub(super) struct Template {
    /// Run: the revision's name.
    pub(super) metadata: Option<Metadata>,
    /// Both: the revision's pod spec.
    pub(super) spec: Option<Spanned<PodSpec>>,
}

/// A pod's or a container's `securityContext` (Kubernetes has one type for each; each reader
/// reads here the fields of the level it checks).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SecurityContext {
    /// Run: the process's user (the container's over the pod's); lint: a valid user id.
    pub(super) run_as_user: Option<Spanned<i64>>,
    /// Run: the process's group (likewise).
    pub(super) run_as_group: Option<Spanned<i64>>,
    /// Both, the pod's: the kernel's tunables are the platform's.
    pub(super) sysctls: Presence,
    /// Both: the masked paths are the platform's (the lint finds one other than `Default`).
    pub(super) proc_mount: Option<Spanned<String>>,
    /// Run, the container's: the capabilities are the profile's.
    pub(super) capabilities: Presence,
    /// Run, the container's: likewise.
    pub(super) privileged: Presence,
    /// Run, the container's: `noNewPrivileges` is the profile's.
    pub(super) allow_privilege_escalation: Presence,
    /// Run, the container's: the seccomp profile is the platform's.
    pub(super) seccomp_profile: Presence,
}

/// A pod's volume.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Volume {
    /// Lint: state outside the request.
    pub(super) persistent_volume_claim: Presence,
}

/// A container.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Container {
    /// Both: at most one port; a run takes its number and name.
    pub(super) ports: Option<Spanned<Vec<Spanned<Port>>>>,
    /// Run: the environment (the platform's own variables refused).
    #[serde(default)]
    pub(super) env: Vec<Spanned<Env>>,
    /// Both: the container's user and group ids, capabilities and proc mount.
    pub(super) security_context: Option<SecurityContext>,
    /// Run: limits and requests.
    pub(super) resources: Option<ResourceRequirements>,
    /// Both: hooks are the platform's.
    pub(super) lifecycle: Presence,
    /// Run: the platform gives the process no terminal and no stdin.
    pub(super) stdin: Presence,
    /// Run: likewise.
    pub(super) tty: Presence,
    /// Both: only the OCI default devices.
    pub(super) volume_devices: Presence,
    /// Both: mount propagation is the platform's.
    #[serde(default)]
    pub(super) volume_mounts: Vec<VolumeMount>,
    /// Lint: a probe's handler, port and initial delay.
    pub(super) liveness_probe: Option<Probe>,
    /// Like `livenessProbe`.
    pub(super) readiness_probe: Option<Probe>,
    /// Like `livenessProbe`.
    pub(super) startup_probe: Option<Probe>,
}

/// A container's port.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Port {
    /// Run: `PORT` (required there); lint: what a probe's port must match.
    pub(super) container_port: Option<Spanned<i64>>,
    /// Both: the transport (`""`, `http1`, `h2c`); lint: what a probe's named port must match.
    pub(super) name: Option<Spanned<String>>,
    /// Both: a host port is the platform's.
    pub(super) host_port: Presence,
}

/// An environment variable.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Env {
    /// Run: the name (required there).
    pub(super) name: Option<Spanned<String>>,
    /// Run: the value (empty when left out).
    pub(super) value: Option<String>,
    /// Run: a value from a Secret or ConfigMap needs a cluster.
    pub(super) value_from: Presence,
}

/// A volume mount.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VolumeMount {
    /// Both: a run warns whatever it is; the lint finds one other than `None`.
    pub(super) mount_propagation: Option<Spanned<String>>,
}

/// A liveness, readiness or startup probe.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Probe {
    /// Lint: an allowed handler, whose port must be the container's.
    pub(super) http_get: Option<Handler>,
    /// Lint: likewise.
    pub(super) tcp_socket: Option<Handler>,
    /// Lint: a handler the contract does not allow.
    pub(super) exec: Presence,
    /// Lint: likewise.
    pub(super) grpc: Presence,
    /// Lint: the contract's default is 0.
    pub(super) initial_delay_seconds: Option<Spanned<i64>>,
}

/// A probe's `httpGet` or `tcpSocket`.
#[derive(Deserialize)]
pub(super) struct Handler {
    /// Lint: the port probed.
    pub(super) port: Option<Spanned<PortRef>>,
}

/// A probe's port: a number or the name of a container port.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum PortRef {
    /// A port number.
    Number(i64),
    /// A container port's name.
    Name(String),
}

/// A container's `resources`.
#[derive(Deserialize)]
pub(super) struct ResourceRequirements {
    /// Run: the cgroup limits.
    pub(super) limits: Option<Quantities>,
    /// Run: the CPU shares (and Kubernetes' default of a limit).
    pub(super) requests: Option<Quantities>,
}

/// `limits` or `requests`.
#[derive(Deserialize)]
pub(super) struct Quantities {
    /// Run: CPU (`1`, `0.5`, `125m`).
    pub(super) cpu: Option<Spanned<Quantity>>,
    /// Run: memory (`128Mi`, bytes).
    pub(super) memory: Option<Spanned<Quantity>>,
}

/// A quantity written as a string (`"128Mi"`) or a number (`1`, `0.5`).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Quantity {
    /// A whole number.
    Int(u64),
    /// A fraction.
    Float(f64),
    /// Text, such as `128Mi` or `125m`.
    Text(String),
}

impl Quantity {
    /// The quantity as written, for the parsers of [`super::quantity`].
    pub(super) fn text(&self) -> String {
        match self {
            Quantity::Int(n) => n.to_string(),
            Quantity::Float(f) => f.to_string(),
            Quantity::Text(t) => t.clone(),
        }
    }
}
