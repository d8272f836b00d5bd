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
//!   readers; [`IgnoredAny`] where only its presence matters (what the contract reserves to the
//!   platform: a run names it in a K1105 warning, the lint in a K1122 finding).
//! - [`Spanned`] where a diagnostic points at the value, or (for a mapping) at the key above it.
//! - Unknown fields are ignored: a manifest holds much more than either reader checks.

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

/// One YAML document: a Kubernetes object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Object {
    /// Both: a Knative Serving object (`serving.knative.dev/…`; a run takes only `…/v1`).
    #[serde(default)]
    pub(super) api_version: Option<Spanned<String>>,
    /// Both: a run takes a `Service`; the lint a `Service`, `Configuration` or `Revision`.
    #[serde(default)]
    pub(super) kind: Option<Spanned<String>>,
    /// Run: the Service's name (`K_SERVICE`) and namespace.
    #[serde(default)]
    pub(super) metadata: Option<Spanned<Metadata>>,
    /// Both: a Revision's pod spec, or a Service's and Configuration's spec holding `template`.
    #[serde(default)]
    pub(super) spec: Option<Spanned<PodSpec>>,
}

/// A field that may be left out but, when written, is a `T`: `containers:` with nothing after it
/// is refused where the list should be (as a plain `Option` would read it as left out).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An object's or a revision template's `metadata`.
#[derive(Deserialize)]
pub(super) struct Metadata {
    /// Run: the Service's name; in a template, the revision's name (`K_REVISION`).
    #[serde(default)]
    pub(super) name: Option<Spanned<String>>,
    /// Run: the Service's namespace (`default` when left out).
    #[serde(default)]
    pub(super) namespace: Option<String>,
}

/// A pod spec (a Revision's `spec`, a template's `spec`), or a Service's and Configuration's
/// `spec`, whose `template` holds one: one type for both, as each reader knows by `kind` which it
/// has.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PodSpec {
    /// Both: a Service's and Configuration's revision template.
    #[serde(default)]
    pub(super) template: Option<Spanned<Box<Template>>>,
    /// Both: a run maps exactly one container; the lint checks each.
    #[serde(default, deserialize_with = "present")]
    pub(super) containers: Option<Spanned<Vec<Container>>>,
    /// Run: the grace period (`timeoutSeconds`).
    #[serde(default)]
    pub(super) timeout_seconds: Option<Spanned<i64>>,
    /// Both: the pod's user and group ids, sysctls and proc mount.
    #[serde(default)]
    pub(super) security_context: Option<SecurityContext>,
    /// Both: the pod's namespaces are the platform's (a run warns, the lint finds a `true`).
    #[serde(default)]
    pub(super) host_network: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    #[serde(default, rename = "hostPID")]
    pub(super) host_pid: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    #[serde(default, rename = "hostIPC")]
    pub(super) host_ipc: Option<Spanned<bool>>,
    /// Like `hostNetwork`.
    #[serde(default)]
    pub(super) share_process_namespace: Option<Spanned<bool>>,
    /// Lint: a persistent volume keeps state outside the request.
    #[serde(default)]
    pub(super) volumes: Vec<Volume>,
}

/// A Service's and Configuration's `spec.template`.
#[derive(Deserialize)]
pub(super) struct Template {
    /// Run: the revision's name.
    #[serde(default)]
    pub(super) metadata: Option<Metadata>,
    /// Both: the revision's pod spec.
    #[serde(default)]
    pub(super) spec: Option<Spanned<PodSpec>>,
}

/// A pod's or a container's `securityContext` (Kubernetes has one type for each; each reader
/// reads here the fields of the level it checks).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SecurityContext {
    /// Run: the process's user (the container's over the pod's); lint: a valid user id.
    #[serde(default)]
    pub(super) run_as_user: Option<Spanned<i64>>,
    /// Run: the process's group (likewise).
    #[serde(default)]
    pub(super) run_as_group: Option<Spanned<i64>>,
    /// Both, the pod's: the kernel's tunables are the platform's.
    #[serde(default)]
    pub(super) sysctls: Option<Spanned<IgnoredAny>>,
    /// Both: the masked paths are the platform's (the lint finds one other than `Default`).
    #[serde(default)]
    pub(super) proc_mount: Option<Spanned<String>>,
    /// Run, the container's: the capabilities are the profile's.
    #[serde(default)]
    pub(super) capabilities: Option<Spanned<IgnoredAny>>,
    /// Run, the container's: likewise.
    #[serde(default)]
    pub(super) privileged: Option<Spanned<IgnoredAny>>,
    /// Run, the container's: `noNewPrivileges` is the profile's.
    #[serde(default)]
    pub(super) allow_privilege_escalation: Option<Spanned<IgnoredAny>>,
    /// Run, the container's: the seccomp profile is the platform's.
    #[serde(default)]
    pub(super) seccomp_profile: Option<Spanned<IgnoredAny>>,
}

/// A pod's volume.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Volume {
    /// Lint: state outside the request.
    #[serde(default)]
    pub(super) persistent_volume_claim: Option<Spanned<IgnoredAny>>,
}

/// A container.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Container {
    /// Both: at most one port; a run takes its number and name.
    #[serde(default)]
    pub(super) ports: Option<Spanned<Vec<Spanned<Port>>>>,
    /// Run: the environment (the platform's own variables refused).
    #[serde(default)]
    pub(super) env: Vec<Spanned<Env>>,
    /// Both: the container's user and group ids, capabilities and proc mount.
    #[serde(default)]
    pub(super) security_context: Option<SecurityContext>,
    /// Run: limits and requests.
    #[serde(default)]
    pub(super) resources: Option<ResourceRequirements>,
    /// Both: hooks are the platform's.
    #[serde(default)]
    pub(super) lifecycle: Option<Spanned<IgnoredAny>>,
    /// Run: the platform gives the process no terminal and no stdin.
    #[serde(default)]
    pub(super) stdin: Option<Spanned<IgnoredAny>>,
    /// Run: likewise.
    #[serde(default)]
    pub(super) tty: Option<Spanned<IgnoredAny>>,
    /// Both: only the OCI default devices.
    #[serde(default)]
    pub(super) volume_devices: Option<Spanned<IgnoredAny>>,
    /// Both: mount propagation is the platform's.
    #[serde(default)]
    pub(super) volume_mounts: Vec<VolumeMount>,
    /// Lint: a probe's handler, port and initial delay.
    #[serde(default)]
    pub(super) liveness_probe: Option<Probe>,
    /// Like `livenessProbe`.
    #[serde(default)]
    pub(super) readiness_probe: Option<Probe>,
    /// Like `livenessProbe`.
    #[serde(default)]
    pub(super) startup_probe: Option<Probe>,
}

/// A container's port.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Port {
    /// Run: `PORT` (required there); lint: what a probe's port must match.
    #[serde(default)]
    pub(super) container_port: Option<Spanned<i64>>,
    /// Both: the transport (`""`, `http1`, `h2c`); lint: what a probe's named port must match.
    #[serde(default)]
    pub(super) name: Option<Spanned<String>>,
    /// Both: a host port is the platform's.
    #[serde(default)]
    pub(super) host_port: Option<Spanned<IgnoredAny>>,
}

/// An environment variable.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Env {
    /// Run: the name (required there).
    #[serde(default)]
    pub(super) name: Option<Spanned<String>>,
    /// Run: the value (empty when left out).
    #[serde(default)]
    pub(super) value: Option<String>,
    /// Run: a value from a Secret or ConfigMap needs a cluster.
    #[serde(default)]
    pub(super) value_from: Option<Spanned<IgnoredAny>>,
}

/// A volume mount.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VolumeMount {
    /// Both: a run warns whatever it is; the lint finds one other than `None`.
    #[serde(default)]
    pub(super) mount_propagation: Option<Spanned<String>>,
}

/// A liveness, readiness or startup probe.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Probe {
    /// Lint: an allowed handler, whose port must be the container's.
    #[serde(default)]
    pub(super) http_get: Option<Handler>,
    /// Lint: likewise.
    #[serde(default)]
    pub(super) tcp_socket: Option<Handler>,
    /// Lint: a handler the contract does not allow.
    #[serde(default)]
    pub(super) exec: Option<Spanned<IgnoredAny>>,
    /// Lint: likewise.
    #[serde(default)]
    pub(super) grpc: Option<Spanned<IgnoredAny>>,
    /// Lint: the contract's default is 0.
    #[serde(default)]
    pub(super) initial_delay_seconds: Option<Spanned<i64>>,
}

/// A probe's `httpGet` or `tcpSocket`.
#[derive(Deserialize)]
pub(super) struct Handler {
    /// Lint: the port probed.
    #[serde(default)]
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
    #[serde(default)]
    pub(super) limits: Option<Quantities>,
    /// Run: the CPU shares (and Kubernetes' default of a limit).
    #[serde(default)]
    pub(super) requests: Option<Quantities>,
}

/// `limits` or `requests`.
#[derive(Deserialize)]
pub(super) struct Quantities {
    /// Run: CPU (`1`, `0.5`, `125m`).
    #[serde(default)]
    pub(super) cpu: Option<Spanned<Quantity>>,
    /// Run: memory (`128Mi`, bytes).
    #[serde(default)]
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
