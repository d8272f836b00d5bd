//! What a platform promises a given Service, computed from its profile: the port, the user, the
//! `K_*` names, the cgroup limits, the grace period. The OCI config generator builds the config
//! from these values and the judge compares the probe's facts with the same values: one definition
//! of the mapping.

use std::time::Duration;

use super::profile::{DefaultUser, Profile};
use super::service::Service;

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The Service asked for it.
    Service,
    /// The profile's default.
    Profile,
    /// The image (its `USER`).
    Image,
}

/// The image a run deploys: what a registry would hold (its root filesystem is built by the
/// harness).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The entrypoint and arguments.
    pub args: Vec<String>,
    /// Its environment (`PATH`).
    pub env: Vec<(String, String)>,
    /// Its `USER` (uid, gid).
    pub user: (u32, u32),
}

/// The probe image: the static probe at `/kcontract-probe`, running as 65532 (the conventional
/// "nonroot" user of distroless images, as Knative's runtime test image does).
pub fn probe_image(args: Vec<String>) -> Image {
    Image {
        args,
        env: vec![("PATH".into(), "/".into())],
        user: (65532, 65532),
    }
}

/// Cgroup limits for a Service (Kubernetes' mapping: `kuberuntime` and runc's conversions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// `memory.limit_in_bytes` / `memory.max`.
    pub memory_bytes: Option<u64>,
    /// `cpu.cfs_quota_us` (the period is [`Limits::cpu_period_us`]).
    pub cpu_quota_us: Option<u64>,
    /// `cpu.cfs_period_us`.
    pub cpu_period_us: u64,
    /// `cpu.shares` (cgroup v1).
    pub cpu_shares: Option<u64>,
}

impl Limits {
    /// `cpu.weight` (cgroup v2) for the shares: runc's and the kubelet's conversion,
    /// `1 + ((shares - 2) * 9999) / 262142`.
    pub fn cpu_weight(&self) -> Option<u64> {
        self.cpu_shares
            .map(|s| 1 + (s.clamp(2, 262_144) - 2) * 9_999 / 262_142)
    }

    /// `cpu.max` (cgroup v2): `QUOTA PERIOD` or `max PERIOD`.
    pub(crate) fn cpu_max(&self) -> String {
        match self.cpu_quota_us {
            Some(q) => format!("{q} {}", self.cpu_period_us),
            None => format!("max {}", self.cpu_period_us),
        }
    }
}

/// What the platform promises a Service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// `PORT` and the port requests reach.
    pub port: u16,
    /// Whether the Service or the profile chose it.
    pub port_from: Origin,
    /// The user id.
    pub uid: u32,
    /// The group id.
    pub gid: u32,
    /// Where the user id came from.
    pub user_from: Origin,
    /// Where the group id came from.
    pub group_from: Origin,
    /// `K_SERVICE`, `K_CONFIGURATION`, `K_REVISION` and their values.
    pub names: Vec<(String, String)>,
    /// The whole environment, in the order it is set.
    pub env: Vec<(String, String)>,
    /// The limits.
    pub limits: Limits,
    /// SIGTERM to SIGKILL.
    pub grace: Duration,
    /// Where the grace period came from.
    pub grace_from: Origin,
}

/// Millicores to CFS quota for `period` (Kubernetes' `milliCPUToQuota`, at least 1 ms).
fn quota(millis: u64, period: u64) -> u64 {
    (millis * period / 1_000).max(1_000)
}

/// Millicores to shares (Kubernetes' `MilliCPUToShares`, at least 2).
fn shares(millis: u64) -> u64 {
    (millis * 1_024 / 1_000).max(2)
}

/// What `profile` promises `service` deployed from `image`.
pub fn expected(profile: &Profile, service: &Service, image: &Image) -> Expected {
    let (port, port_from) = match service.container_port {
        Some(p) => (p, Origin::Service),
        None => (profile.default_port, Origin::Profile),
    };
    let (default_uid, default_gid, default_from) = match profile.default_user {
        DefaultUser::Image => (image.user.0, image.user.1, Origin::Image),
        DefaultUser::Ids { uid, gid } => (uid, gid, Origin::Profile),
    };
    let (uid, user_from) = match service.run_as_user {
        Some(u) => (u, Origin::Service),
        None => (default_uid, default_from),
    };
    let (gid, group_from) = match service.run_as_group {
        Some(g) => (g, Origin::Service),
        None => (default_gid, default_from),
    };
    let names = vec![
        ("K_SERVICE".to_owned(), service.name.clone()),
        ("K_CONFIGURATION".to_owned(), service.name.clone()),
        ("K_REVISION".to_owned(), service.revision.clone()),
    ];
    let mut env = image.env.clone();
    env.extend(service.env.iter().cloned());
    env.push(("PORT".into(), port.to_string()));
    env.extend(names.iter().cloned());
    let r = &service.resources;
    let period = profile.cgroups.cpu_period_us;
    // Kubernetes defaults a missing request to the limit.
    let request = r.cpu_request_m.or(r.cpu_limit_m);
    let limits = Limits {
        memory_bytes: r.memory_limit,
        cpu_quota_us: r.cpu_limit_m.map(|m| quota(m, period)),
        cpu_period_us: period,
        cpu_shares: request.map(shares),
    };
    let (grace, grace_from) = match service.timeout_seconds {
        Some(t) if profile.grace_from_timeout => (t, Origin::Service),
        _ => (profile.grace_period_s, Origin::Profile),
    };
    Expected {
        port,
        port_from,
        uid,
        gid,
        user_from,
        group_from,
        names,
        env,
        limits,
        grace: Duration::from_secs(grace),
        grace_from,
    }
}
