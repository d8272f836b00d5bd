//! Platform profiles (`kcontract-profile/1`, `docs/platforms.md`): what a platform provides and
//! promises — the default port, the grace period, the default user and the ids it allows, the
//! filesystems, how it maps a Service's resources to cgroup limits, the namespaces, capabilities,
//! masked and read-only paths, optional features. One file feeds the OCI config generator and the
//! values the judge expects.
//!
//! Read with serde-saphyr; every problem is a diagnostic at its `file:line:col` (K1101 for the
//! shape, K1102 for a value out of range), all of them in one run.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;
use strum::VariantArray;

use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};

use super::yaml::{YamlFile, read};

/// The `profile:` value this version reads.
pub(crate) const PROFILE_FORMAT: &str = "kcontract-profile/1";

/// Namespace types a profile may list (the OCI names).
pub(crate) const NAMESPACE_TYPES: &[&str] = &[
    "pid", "network", "ipc", "uts", "mount", "cgroup", "user", "time",
];

/// Optional features a profile may declare; recorded in every report, for the checks that need a
/// real platform.
pub(crate) const FEATURES: &[&str] = &["h2c-upgrade", "https", "metadata-service"];

/// `rootfsPropagation` values (OCI `config-linux.md`).
pub(crate) const PROPAGATIONS: &[&str] = &[
    "private",
    "rprivate",
    "slave",
    "rslave",
    "shared",
    "rshared",
    "unbindable",
    "runbindable",
];

/// Linux capabilities by number (`capability.h`): a profile's names must be among them.
pub(crate) const CAPABILITIES: &[&str] = &[
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
];

/// The bit mask of a list of capability names (unknown names are ignored: a profile's were checked).
pub(crate) fn capability_mask(names: &[String]) -> u64 {
    names
        .iter()
        .filter_map(|n| CAPABILITIES.iter().position(|c| c == n))
        .fold(0, |m, bit| m | (1u64 << bit))
}

/// A validated platform profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// A name for the platform (a report's column).
    pub name: String,
    /// What the profile describes.
    pub description: Option<String>,
    /// The port the platform gives when the developer names none.
    pub default_port: u16,
    /// SIGTERM to SIGKILL, when the Service does not set it.
    pub grace_period_s: u64,
    /// The Service's `timeoutSeconds` is the grace period (Knative: the pod's
    /// `terminationGracePeriodSeconds` is the revision's `timeoutSeconds`).
    pub grace_from_timeout: bool,
    /// The user a container runs as when the Service names none.
    pub default_user: DefaultUser,
    /// The user ids a Service may ask for (inclusive).
    pub allowed_uids: (u32, u32),
    /// How `/tmp` is provided.
    pub tmp: Filesystem,
    /// How `/var/log` is provided, if it is.
    pub var_log: Option<Filesystem>,
    /// The resolver configuration the platform writes into `/etc/resolv.conf`.
    pub resolv_conf: ResolvConf,
    /// How limits are exposed and computed.
    pub cgroups: Cgroups,
    /// The namespaces a container gets (OCI names).
    pub namespaces: Vec<String>,
    /// The capability bounding set (and the effective set of a root process).
    pub capabilities: Vec<String>,
    /// `process.noNewPrivileges`.
    pub no_new_privileges: bool,
    /// `linux.maskedPaths`.
    pub masked_paths: Vec<String>,
    /// `linux.readonlyPaths`.
    pub readonly_paths: Vec<String>,
    /// `linux.rootfsPropagation`; `None`: the runtime's default.
    pub rootfs_propagation: Option<String>,
    /// Optional features (of [`FEATURES`]).
    pub features: Vec<String>,
    /// `docs:`: the platform's documentation answering the contract's documentation clauses, by
    /// clause id ([`super::docs`] judges them).
    pub docs: BTreeMap<String, DocLink>,
}

/// A `docs:` entry: the link that answers a documentation clause, or why the clause does not
/// apply to the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocLink {
    /// `CLAUSE: URL`, or `CLAUSE: {url: URL, reviewed: {…}}` once a person reviewed it.
    Link {
        /// The page (`http://` or `https://`).
        url: String,
        /// The review `kcontract platform review-docs` recorded, if any.
        review: Option<DocReview>,
    },
    /// `CLAUSE: {not_applicable: REASON}`.
    NotApplicable(String),
}

/// A person's review of a documentation link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocReview {
    /// Who reviewed it.
    pub by: String,
    /// When (`YYYY-MM-DD`).
    pub date: String,
    /// The stamp (`docs::stamp`) of the clause's text and the link when reviewed: another link or
    /// another text of the clause makes the review stale.
    pub stamp: String,
}

/// The default user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultUser {
    /// The image's `USER`.
    Image,
    /// These ids.
    Ids {
        /// User id.
        uid: u32,
        /// Group id.
        gid: u32,
    },
}

/// A filesystem the platform provides at a fixed place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filesystem {
    /// The filesystem type mounted there (`tmpfs`), or `image`: the image's directory on the
    /// container's writable root, not a mount of its own.
    pub fstype: String,
    /// Permission bits (`0o1777`).
    pub mode: u32,
}

impl Filesystem {
    /// Whether the platform mounts a filesystem there (rather than using the image's directory).
    pub fn is_mount(&self) -> bool {
        self.fstype != "image"
    }
}

/// `/etc/resolv.conf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvConf {
    /// `nameserver` addresses.
    pub nameservers: Vec<String>,
    /// `search` domains.
    pub search: Vec<String>,
    /// `options`.
    pub options: Vec<String>,
}

/// Cgroup limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cgroups {
    /// Which files the limits are read from.
    pub version: CgroupVersion,
    /// The limit files are read-only in the container.
    pub read_only: bool,
    /// The CFS period the platform uses for a CPU limit.
    pub cpu_period_us: u64,
}

/// Which cgroup files a profile expects; its words in a profile (`auto`, `v1`, `v2`) come from
/// this declaration.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr, strum::EnumString,
)]
#[strum(serialize_all = "lowercase")]
pub enum CgroupVersion {
    /// Whichever the host has.
    Auto,
    /// cgroup v1 files.
    V1,
    /// cgroup v2 files.
    V2,
}

// --- The file's shape ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    profile: Spanned<String>,
    name: Spanned<String>,
    #[serde(default)]
    description: Option<String>,
    network: RawNetwork,
    lifecycle: RawLifecycle,
    user: RawUser,
    filesystems: RawFilesystems,
    cgroups: RawCgroups,
    namespaces: Spanned<Vec<Spanned<String>>>,
    capabilities: Vec<Spanned<String>>,
    no_new_privileges: bool,
    masked_paths: Vec<Spanned<String>>,
    readonly_paths: Vec<Spanned<String>>,
    #[serde(default)]
    rootfs_propagation: Option<Spanned<String>>,
    #[serde(default)]
    features: Vec<Spanned<String>>,
    #[serde(default)]
    docs: BTreeMap<String, Spanned<RawDoc>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawDoc {
    Url(String),
    Entry(RawDocEntry),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDocEntry {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    reviewed: Option<DocReview>,
    #[serde(default)]
    not_applicable: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNetwork {
    default_port: Spanned<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLifecycle {
    grace_period_s: Spanned<i64>,
    #[serde(default)]
    grace_from_timeout: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUser {
    default: Spanned<RawDefaultUser>,
    allowed_uids: Spanned<RawRange>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawDefaultUser {
    Word(String),
    Ids { uid: i64, gid: i64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRange {
    min: i64,
    max: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFilesystems {
    tmp: RawFilesystem,
    #[serde(default)]
    var_log: Option<RawFilesystem>,
    resolv_conf: RawResolvConf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFilesystem {
    #[serde(rename = "type")]
    fstype: Spanned<String>,
    mode: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResolvConf {
    nameservers: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    search: Vec<String>,
    #[serde(default)]
    options: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCgroups {
    version: Spanned<String>,
    read_only: bool,
    cpu_period_us: Spanned<i64>,
}

/// The profile at `path`, read into `sources`, or every problem found in it.
pub fn load(path: &Path, sources: &mut SourceMap) -> Result<Profile, Vec<Diagnostic>> {
    let id = read(path, sources, "K1101").map_err(|d| vec![d])?;
    parse(id, sources)
}

/// Where the value of the `docs:` entry of `clause` is in the profile in file `id` (`None`: no
/// such entry, or a file that is not a profile); `platform review-docs` rewrites it there.
pub fn doc_entry_span(id: FileId, sources: &SourceMap, clause: &str) -> Option<Span> {
    let y = YamlFile {
        id,
        file: sources.get(id),
    };
    let raw: RawProfile = y.parse("K1101", "platform profile", "").ok()?;
    raw.docs.get(clause).map(|d| y.span(d))
}

/// The profile in file `id` of `sources`.
pub fn parse(id: FileId, sources: &SourceMap) -> Result<Profile, Vec<Diagnostic>> {
    let y = YamlFile {
        id,
        file: sources.get(id),
    };
    let raw: RawProfile = y
        .parse(
            "K1101",
            "platform profile",
            "the fields of a profile are described in docs/platforms.md",
        )
        .map_err(|d| vec![d])?;
    let mut diags = Vec::new();
    let v = Validator {
        y: &y,
        diags: &mut diags,
    };
    let profile = v.profile(raw);
    if diags.is_empty() {
        Ok(profile)
    } else {
        Err(diags)
    }
}

/// Collects K1102 diagnostics while building the profile.
struct Validator<'a, 'b> {
    y: &'a YamlFile<'b>,
    diags: &'a mut Vec<Diagnostic>,
}

impl Validator<'_, '_> {
    fn bad<T>(&mut self, at: &Spanned<T>, message: String, label: &str, help: &str) {
        self.diags.push(
            Diagnostic::error("K1102", message)
                .at(self.y.span(at), label)
                .help(help),
        );
    }

    fn range(&mut self, v: &Spanned<i64>, lo: i64, hi: i64, what: &str) -> i64 {
        if v.value < lo || v.value > hi {
            self.bad(
                v,
                format!("{what} {} is out of range", v.value),
                &format!("must be from {lo} to {hi}"),
                &format!("write a number from {lo} to {hi}"),
            );
            return lo;
        }
        v.value
    }

    fn one_of(&mut self, v: &Spanned<String>, allowed: &[&str], what: &str) -> bool {
        if allowed.contains(&v.value.as_str()) {
            return true;
        }
        let help = match kcontract_spec::suggest::closest(&v.value, allowed.iter().copied(), |c| {
            c.len() / 3 + 1
        }) {
            Some(s) => format!("did you mean `{s}`?"),
            None if allowed.len() <= 10 => format!("one of: {}", allowed.join(", ")),
            None => format!("the {what}s are listed in docs/platforms.md"),
        };
        self.bad(
            v,
            format!("unknown {what} `{}`", v.value),
            &format!("not a {what}"),
            &help,
        );
        false
    }

    fn paths(&mut self, list: &[Spanned<String>], what: &str) -> Vec<String> {
        for p in list {
            if !p.value.starts_with('/') || p.value.split('/').any(|c| c == "..") {
                self.bad(
                    p,
                    format!("{what} `{}` is not an absolute path", p.value),
                    "not absolute",
                    "paths inside the container start with `/` and have no `..`",
                );
            }
        }
        list.iter().map(|p| p.value.clone()).collect()
    }

    fn filesystem(&mut self, raw: &RawFilesystem, place: &str) -> Filesystem {
        let t = &raw.fstype;
        if t.value.is_empty()
            || !t
                .value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            self.bad(
                t,
                format!("the type of {place} `{}` is not a filesystem type", t.value),
                "not a filesystem type",
                "a type such as `tmpfs`, or `image` for the image's directory",
            );
        }
        let m = &raw.mode;
        let mode = match u32::from_str_radix(&m.value, 8) {
            Ok(v) if (3..=4).contains(&m.value.len()) && v <= 0o7777 => v,
            _ => {
                self.bad(
                    m,
                    format!("the mode of {place} `{}` is not an octal mode", m.value),
                    "not an octal mode",
                    "three or four octal digits, quoted: \"1777\"",
                );
                0
            }
        };
        Filesystem {
            fstype: t.value.clone(),
            mode,
        }
    }

    /// The profile of `raw`, each field checked in the file's order: the format and the name,
    /// the network and the lifecycle, the user, the filesystems, the cgroups, the namespaces, the
    /// capabilities and paths, the features, the documentation links.
    fn profile(mut self, raw: RawProfile) -> Profile {
        let name = self.header(&raw);
        let default_port = self.range(&raw.network.default_port, 1, 65535, "the default port");
        let grace = self.range(&raw.lifecycle.grace_period_s, 1, 86_400, "the grace period");
        let default_user = self.default_user(&raw.user.default);
        let allowed_uids = self.allowed_uids(&raw.user.allowed_uids);
        let tmp = self.filesystem(&raw.filesystems.tmp, "/tmp");
        let var_log = raw
            .filesystems
            .var_log
            .as_ref()
            .map(|f| self.filesystem(f, "/var/log"));
        let nameservers = self.nameservers(&raw.filesystems.resolv_conf.nameservers);
        let cgroups = self.cgroups(&raw.cgroups);
        let namespaces = self.namespaces(&raw.namespaces);
        for c in &raw.capabilities {
            self.one_of(c, CAPABILITIES, "capability");
        }
        let masked_paths = self.paths(&raw.masked_paths, "masked path");
        let readonly_paths = self.paths(&raw.readonly_paths, "read-only path");
        if let Some(p) = &raw.rootfs_propagation {
            self.one_of(p, PROPAGATIONS, "rootfs propagation");
        }
        for f in &raw.features {
            self.one_of(f, FEATURES, "feature");
        }
        let docs = raw
            .docs
            .iter()
            .filter_map(|(id, d)| Some((id.clone(), self.doc(id, d)?)))
            .collect();
        Profile {
            name,
            description: raw.description,
            default_port: default_port as u16,
            grace_period_s: grace as u64,
            grace_from_timeout: raw.lifecycle.grace_from_timeout,
            default_user,
            allowed_uids,
            tmp,
            var_log,
            resolv_conf: ResolvConf {
                nameservers,
                search: raw.filesystems.resolv_conf.search,
                options: raw.filesystems.resolv_conf.options,
            },
            cgroups,
            namespaces,
            capabilities: raw.capabilities.into_iter().map(|c| c.value).collect(),
            no_new_privileges: raw.no_new_privileges,
            masked_paths,
            readonly_paths,
            rootfs_propagation: raw.rootfs_propagation.map(|p| p.value),
            features: raw.features.into_iter().map(|f| f.value).collect(),
            docs,
        }
    }

    /// `profile:` must be this version's format; the name is one word (returned trimmed).
    fn header(&mut self, raw: &RawProfile) -> String {
        if raw.profile.value != PROFILE_FORMAT {
            self.bad(
                &raw.profile,
                format!("this kcontract reads `{PROFILE_FORMAT}` profiles"),
                &format!("`{}`", raw.profile.value),
                &format!("write `profile: {PROFILE_FORMAT}`"),
            );
        }
        let name = raw.name.value.trim();
        if name.is_empty() || name.chars().any(char::is_whitespace) {
            self.bad(
                &raw.name,
                "a profile's name is one word".into(),
                "empty or has spaces",
                "a name such as `knative-reference` (letters, digits, `-`, `.`)",
            );
        }
        name.to_owned()
    }

    /// `user.default`: `image`, or ids.
    fn default_user(&mut self, raw: &Spanned<RawDefaultUser>) -> DefaultUser {
        match &raw.value {
            RawDefaultUser::Word(w) if w == "image" => DefaultUser::Image,
            RawDefaultUser::Ids { uid, gid }
                if (0..=i64::from(u32::MAX)).contains(uid)
                    && (0..=i64::from(u32::MAX)).contains(gid) =>
            {
                DefaultUser::Ids {
                    uid: *uid as u32,
                    gid: *gid as u32,
                }
            }
            _ => {
                self.bad(
                    raw,
                    "the default user is `image` or `{uid: N, gid: N}`".into(),
                    "not a default user",
                    "`image` runs the image's USER; ids are 0 to 4294967295",
                );
                DefaultUser::Image
            }
        }
    }

    /// `user.allowed_uids`: a range of ids, its start not above its end.
    fn allowed_uids(&mut self, r: &Spanned<RawRange>) -> (u32, u32) {
        let ids = 0..=i64::from(u32::MAX);
        if ids.contains(&r.value.min) && ids.contains(&r.value.max) && r.value.min <= r.value.max {
            return (r.value.min as u32, r.value.max as u32);
        }
        self.bad(
            r,
            format!(
                "the allowed user ids {}..{} are not a range of ids",
                r.value.min, r.value.max
            ),
            "not a range",
            "`{min: N, max: M}` with 0 <= N <= M <= 4294967295",
        );
        (0, 0)
    }

    /// `resolv_conf.nameservers`: at least one, each an IP address.
    fn nameservers(&mut self, ns: &Spanned<Vec<Spanned<String>>>) -> Vec<String> {
        if ns.value.is_empty() {
            self.bad(
                ns,
                "the profile lists no nameserver".into(),
                "empty",
                "list the cluster's resolver, e.g. `[10.96.0.10]`",
            );
        }
        for n in &ns.value {
            if n.value.parse::<IpAddr>().is_err() {
                self.bad(
                    n,
                    format!("nameserver `{}` is not an IP address", n.value),
                    "not an address",
                    "resolv.conf names resolvers by address (`10.96.0.10`, `fd00::a`)",
                );
            }
        }
        ns.value.iter().map(|n| n.value.clone()).collect()
    }

    /// `cgroups`: the version (`auto`, `v1`, `v2`) and the CFS period.
    fn cgroups(&mut self, raw: &RawCgroups) -> Cgroups {
        let version = raw.version.value.parse().unwrap_or_else(|_| {
            let words: Vec<&str> = CgroupVersion::VARIANTS.iter().map(|&v| v.into()).collect();
            self.one_of(&raw.version, &words, "cgroup version");
            CgroupVersion::Auto
        });
        let period = self.range(&raw.cpu_period_us, 1_000, 1_000_000, "the CFS period");
        Cgroups {
            version,
            read_only: raw.read_only,
            cpu_period_us: period as u64,
        }
    }

    /// `namespaces`: known types, each once, `mount` among them.
    fn namespaces(&mut self, raw: &Spanned<Vec<Spanned<String>>>) -> Vec<String> {
        let mut namespaces = Vec::new();
        for n in &raw.value {
            if self.one_of(n, NAMESPACE_TYPES, "namespace type") {
                if namespaces.contains(&n.value) {
                    self.bad(
                        n,
                        format!("namespace `{}` is listed twice", n.value),
                        "listed before",
                        "list each namespace once",
                    );
                }
                namespaces.push(n.value.clone());
            }
        }
        if !namespaces.iter().any(|n| n == "mount") {
            self.bad(
                raw,
                "the namespaces do not include `mount`".into(),
                "no mount namespace",
                "a container's filesystems need a mount namespace of its own",
            );
        }
        namespaces
    }

    /// A `docs:` entry, checked: a link is http(s), a review has a name, a date and a stamp,
    /// `not_applicable` goes alone.
    fn doc(&mut self, id: &str, d: &Spanned<RawDoc>) -> Option<DocLink> {
        let (url, review, na) = match &d.value {
            RawDoc::Url(u) => (Some(u), None, None),
            RawDoc::Entry(e) => (
                e.url.as_ref(),
                e.reviewed.as_ref(),
                e.not_applicable.as_ref(),
            ),
        };
        let help = "`CLAUSE: URL`, `CLAUSE: {url: URL, reviewed: {by: NAME, date: YYYY-MM-DD, \
                    stamp: HEX}}` (kcontract platform review-docs writes the review), or \
                    `CLAUSE: {not_applicable: REASON}`";
        match (url, na) {
            (Some(_), Some(_)) | (None, None) => {
                self.bad(
                    d,
                    format!("the docs entry of `{id}` needs a url or not_applicable, not both"),
                    "url or not_applicable",
                    help,
                );
                None
            }
            (None, Some(reason)) => {
                if review.is_some() {
                    self.bad(
                        d,
                        format!("the docs entry of `{id}` reviews no link"),
                        "a review without a url",
                        help,
                    );
                }
                Some(DocLink::NotApplicable(reason.clone()))
            }
            (Some(url), None) => {
                if kcontract_spec::url::judge(url) != Ok(kcontract_spec::url::UrlKind::Web)
                    || url.starts_with("//")
                {
                    self.bad(
                        d,
                        format!("the docs link of `{id}` is not an http(s) URL: `{url}`"),
                        "not a URL",
                        "the page of the platform's documentation, https://…",
                    );
                }
                if let Some(r) = review
                    && (r.by.trim().is_empty() || !is_date(&r.date) || r.stamp.is_empty())
                {
                    self.bad(
                        d,
                        format!("the review of `{id}`'s docs link is incomplete or malformed"),
                        "by, date (YYYY-MM-DD) and stamp",
                        "record reviews with `kcontract platform review-docs`",
                    );
                }
                Some(DocLink::Link {
                    url: url.clone(),
                    review: review.cloned(),
                })
            }
        }
    }
}

/// The text of `/etc/resolv.conf` for a profile.
pub(crate) fn resolv_conf_text(r: &ResolvConf) -> String {
    let mut out = String::new();
    for n in &r.nameservers {
        out.push_str(&format!("nameserver {n}\n"));
    }
    if !r.search.is_empty() {
        out.push_str(&format!("search {}\n", r.search.join(" ")));
    }
    if !r.options.is_empty() {
        out.push_str(&format!("options {}\n", r.options.join(" ")));
    }
    out
}

/// Whether `d` is a day written `YYYY-MM-DD` (digits and dashes; the calendar is not checked).
pub fn is_date(d: &str) -> bool {
    d.len() == 10
        && d.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}
