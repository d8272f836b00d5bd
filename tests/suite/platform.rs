//! The platform run's parts that need no runtime: profiles and Services read with `file:line:col`
//! diagnostics (K1101–K1107, snapshots like `tests/error_catalog.rs`'s), the OCI config generator
//! held by a property test to taking from a Service only what the contract lets a developer set,
//! the probe's facts and the run report against their JSON Schemas, the JUnit and TAP exports,
//! and the table of clauses, checks and negative controls against the spec and the docs.
//! The runs themselves are `tests/platform_controls.rs` (root, runc, crun).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::cli::{kcontract, root, spec_with_clause_renamed};
use kcontract_platform::checks::{CHECKS, Status, Verdict, on};
use kcontract_platform::controls::Control;
use kcontract_platform::expect::{Image, expected, probe_image};
use kcontract_platform::observed::Role;
use kcontract_platform::oci_config::{HostPaths, config};
use kcontract_platform::profile::{self, Profile};
use kcontract_platform::report::{self, ContractRef, FileRef, Platform, Report};
use kcontract_platform::routes::Route;
use kcontract_platform::service::{self, CONFORMANCE_SERVICE, Service};
use kcontract_spec::diagnostic::SourceMap;
use proptest::prelude::*;
use serde_json::{Value, json};
use strum::VariantArray;

const REFERENCE: &str = "platforms/knative-reference.yaml";

fn reference() -> Profile {
    let mut sources = SourceMap::default();
    profile::load(&root().join(REFERENCE), &mut sources).expect("the reference profile is valid")
}

fn parse_service(text: &str) -> Result<service::Parsed, String> {
    let mut sources = SourceMap::default();
    let id = sources.add(PathBuf::from("service.yaml"), text.to_owned());
    service::parse(id, &sources).map_err(|d| {
        d.iter()
            .map(|d| d.render(&sources))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn spec() -> kcontract_spec::Spec {
    let loaded = kcontract_spec::load(&root().join("spec"));
    assert!(
        loaded.diagnostics.iter().all(|d| !d.is_error()),
        "the repository's spec loads"
    );
    loaded.spec
}

// --- Diagnostics, through the binary (as a user sees them) ------------------------------------

/// `platform run` in a fresh folder holding `files`, judged against this repository's spec (or the
/// one in the folder with `own_spec`); the exit code and the output, as the catalogue shows them.
fn platform_run(files: &[(&str, &str)], args: &[&str], own_spec: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (p, text) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let spec = root().join("spec");
    let spec = if own_spec {
        "spec".into()
    } else {
        spec.display().to_string()
    };
    let mut all = vec![
        "--spec",
        spec.as_str(),
        "platform",
        "run",
        "--runtime",
        "runc",
    ];
    all.extend_from_slice(args);
    let (code, out, err) = kcontract(dir.path(), &all);
    format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}")
}

fn reference_text() -> String {
    std::fs::read_to_string(root().join(REFERENCE)).unwrap()
}

#[test]
fn k1101_profile_with_a_misspelt_field() {
    let bad = reference_text().replace("  default_port: 8080", "  default_prot: 8080");
    insta::assert_snapshot!(platform_run(
        &[("p.yaml", &bad)],
        &["--profile", "p.yaml", "--report", "r.json"],
        false
    ));
}

#[test]
fn k1101_profile_missing() {
    let out = platform_run(
        &[],
        &["--profile", "nowhere.yaml", "--report", "r.json"],
        false,
    );
    assert!(
        out.starts_with("exit: 1\n") && out.contains("[K1101]"),
        "{out}"
    );
}

#[test]
fn k1102_profile_values_out_of_range() {
    let bad = reference_text()
        .replace("default_port: 8080", "default_port: 0")
        .replace("grace_period_s: 300", "grace_period_s: 0")
        .replace(
            "mode: \"1777\"}\n  # /var/log",
            "mode: \"1787\"}\n  # /var/log",
        )
        .replace("nameservers: [10.96.0.10]", "nameservers: [10.96.0.300]")
        .replace("namespaces: [pid, network,", "namespaces: [pid, netwrok,")
        .replace("  - CAP_KILL\n", "  - CAP_KIL\n")
        .replace("  - /proc/scsi\n", "  - proc/scsi\n");
    insta::assert_snapshot!(platform_run(
        &[("p.yaml", &bad)],
        &["--profile", "p.yaml", "--report", "r.json"],
        false
    ));
}

#[test]
fn k1103_not_a_knative_service() {
    let bad = CONFORMANCE_SERVICE.replace("kind: Service", "kind: Deployment");
    insta::assert_snapshot!(platform_run(
        &[("p.yaml", &reference_text()), ("s.yaml", &bad)],
        &[
            "--profile",
            "p.yaml",
            "--service",
            "s.yaml",
            "--report",
            "r.json"
        ],
        false
    ));
}

/// Each field a run needs, left out alone: one K1103 naming it, at the key whose mapping lacks it
/// (the document's start for a top-level field, the list item for an item's); `containers:` with
/// nothing after it is not a list, where the list should be.
#[test]
fn k1103_missing_required_fields() {
    let cases: &[(&str, &str, &str)] = &[
        ("apiVersion", "apiVersion: serving.knative.dev/v1\n", ""),
        ("kind", "kind: Service\n", ""),
        (
            "metadata",
            "metadata:\n  name: kcontract-probe\n  namespace: default\n",
            "",
        ),
        ("metadata.name", "  name: kcontract-probe\n", ""),
        (
            "spec",
            "spec:\n  template:\n    spec:\n",
            "other:\n  template:\n    spec:\n",
        ),
        ("spec.template", "  template:\n", "  other:\n"),
        ("spec.template.spec", "    spec:\n", "    other:\n"),
        ("containers", "      containers:", "      other:"),
        ("containerPort", "- containerPort: 8801", "- name: http1"),
        (
            "env name",
            "- name: KCONTRACT_GREETING",
            "- other: KCONTRACT_GREETING",
        ),
        (
            "a list of containers",
            "      containers:\n",
            "      containers:\n      other:\n",
        ),
    ];
    let mut out = String::new();
    for (field, from, to) in cases {
        assert!(CONFORMANCE_SERVICE.contains(from), "{field}");
        let err = parse_service(&CONFORMANCE_SERVICE.replacen(from, to, 1))
            .err()
            .unwrap_or_else(|| panic!("without {field} the Service is refused"));
        out.push_str(&format!("--- without {field}\n{err}\n"));
    }
    insta::assert_snapshot!(out);
}

/// A Service or profile file with no document (empty, or comments only) is said to hold none, as
/// `platform lint` says it, not a Service missing `apiVersion` past the file's end or the parser's
/// "unexpected end of input"; a document that is not a mapping is the parser's error at it.
#[test]
fn k1101_k1103_a_file_without_a_document() {
    for text in ["", "\n", "# the Service is still to be written\n"] {
        let err = parse_service(text).err().unwrap();
        assert!(
            err.contains("error[K1103]: `service.yaml` holds no YAML document"),
            "{text:?}: {err}"
        );
        assert!(
            err.contains("help: a Knative Service has apiVersion"),
            "{err}"
        );
        let mut sources = SourceMap::default();
        let id = sources.add(PathBuf::from("profile.yaml"), text.to_owned());
        let err = profile::parse(id, &sources).err().unwrap()[0].render(&sources);
        assert!(
            err.contains("error[K1101]: `profile.yaml` holds no YAML document"),
            "{text:?}: {err}"
        );
    }
    let err = parse_service("just words\n").err().unwrap();
    assert!(
        err.contains("error[K1103]: `service.yaml` is not a valid Knative Service")
            && err.contains("service.yaml:1:1"),
        "{err}"
    );
}

#[test]
fn k1104_k1105_service_values_refused_and_fields_ignored() {
    let bad = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: probe\nspec:\n  template:\n    spec:\n      containers:\n        - image: x\n          ports:\n            - containerPort: 70000\n              name: grpc\n            - containerPort: 8080\n          env:\n            - name: PORT\n              value: \"1\"\n          securityContext:\n            runAsUser: 0\n            capabilities:\n              add: [SYS_ADMIN]\n          lifecycle:\n            postStart:\n              exec: {command: [sh]}\n          resources:\n            limits:\n              memory: 12x\n";
    let strict = reference_text().replace("allowed_uids: {min: 0,", "allowed_uids: {min: 1,");
    insta::assert_snapshot!(platform_run(
        &[("p.yaml", &strict), ("s.yaml", bad)],
        &[
            "--profile",
            "p.yaml",
            "--service",
            "s.yaml",
            "--report",
            "r.json"
        ],
        false
    ));
}

#[test]
fn k1104_run_as_user_the_profile_does_not_allow() {
    let strict = reference_text().replace("allowed_uids: {min: 0,", "allowed_uids: {min: 3000,");
    let out = platform_run(
        &[("p.yaml", &strict)],
        &["--profile", "p.yaml", "--report", "r.json"],
        false,
    );
    assert!(
        out.starts_with("exit: 1\n")
            && out.contains(
                "error[K1104]: runAsUser 2020 is not allowed by profile `knative-reference`"
            )
            && out.contains("platforms/services/conformance.yaml:"),
        "{out}"
    );
}

#[test]
/// `--spec` naming a copy of the contract without one clause a check decides (another version of
/// it): one K1108 naming it, before anything runs.
fn k1108_a_run_against_a_spec_lacking_a_checked_clause() {
    let dir = tempfile::tempdir().unwrap();
    spec_with_clause_renamed(
        dir.path(),
        "configuration",
        "config.devices.default-only",
        "config.devices.defaults-only",
    );
    std::fs::write(dir.path().join("p.yaml"), reference_text()).unwrap();
    let (code, out, err) = kcontract(
        dir.path(),
        &[
            "--spec",
            "spec",
            "platform",
            "run",
            "--runtime",
            "runc",
            "--profile",
            "p.yaml",
            "--report",
            "r.json",
        ],
    );
    insta::assert_snapshot!(format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}"));
}

#[test]
fn k1107_report_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.json");
    std::fs::write(&p, "{\"format\": \"kcontract-run/0\"}").unwrap();
    let d = report::read(&p).unwrap_err();
    let shown = d
        .render(&SourceMap::default())
        .replace(&dir.path().display().to_string(), "$DIR");
    insta::assert_snapshot!(shown);
    std::fs::write(&p, "{}").unwrap();
    assert!(
        report::read(&p)
            .unwrap_err()
            .message
            .contains("not a run report")
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--runtime", "youki", "--profile", "p", "--report", "r"][..],
        &["--profile", "p", "--report", "r"][..],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut all = vec!["platform", "run"];
        all.extend_from_slice(args);
        let (code, _, err) = kcontract(dir.path(), &all);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    let out = platform_run(
        &[("p.yaml", &reference_text())],
        &[
            "--profile",
            "p.yaml",
            "--report",
            "r.json",
            "--control",
            "no-such",
        ],
        false,
    );
    assert!(
        out.starts_with("exit: 2\n") && out.contains("no negative control `no-such`"),
        "{out}"
    );
}

// --- Profiles and Services ----------------------------------------------------------------------

#[test]
fn the_reference_profile_and_the_conformance_service_are_what_the_docs_say() {
    let p = reference();
    assert_eq!(p.name, "knative-reference");
    assert_eq!(p.default_port, 8080);
    assert!(p.var_log.is_some() && p.tmp.is_mount());
    assert_eq!(p.namespaces, ["pid", "network", "ipc", "uts", "mount"]);
    let s = parse_service(CONFORMANCE_SERVICE).unwrap();
    assert!(s.warnings.is_empty());
    let s = s.service;
    assert_eq!(s.container_port, Some(8801));
    assert_eq!((s.run_as_user, s.run_as_group), (Some(2020), Some(2020)));
    assert_eq!(s.revision, "kcontract-probe-00001");
    let e = expected(&p, &s, &probe_image(vec![]));
    assert_eq!(e.limits.memory_bytes, Some(128 << 20));
    assert_eq!(e.limits.cpu_quota_us, Some(100_000));
    assert_eq!(e.limits.cpu_shares, Some(128));
    // The cgroup v2 value Knative's cgroup test accepts (cpu.weight > 0) and runc writes.
    assert_eq!(e.limits.cpu_weight(), Some(5));
    assert_eq!(e.grace.as_secs(), 2);
    let d = expected(&p, &s.without_developer_choices(), &probe_image(vec![]));
    assert_eq!((d.port, d.uid), (8080, 65532));
}

// --- The generator: only what a developer may set -----------------------------------------------

/// A generated Service: the values a developer may set, and fields the contract reserves to the
/// platform, each present or not.
#[derive(Debug, Clone)]
struct Generated {
    name: String,
    port: Option<u16>,
    env: Vec<(String, String)>,
    user: Option<u32>,
    group: Option<u32>,
    cpu_limit_m: Option<u64>,
    memory: Option<u64>,
    cpu_request_m: Option<u64>,
    timeout: Option<u64>,
    reserved: Vec<bool>,
}

/// The reserved fields, as YAML at the container's level (`c`) or the pod's (`p`).
const RESERVED: &[(char, &str)] = &[
    (
        'c',
        "lifecycle:\n            preStop:\n              exec: {command: [sh, -c, 'sleep 1']}",
    ),
    ('s', "capabilities: {add: [SYS_ADMIN, NET_ADMIN]}"),
    ('s', "privileged: true"),
    ('s', "procMount: Unmasked"),
    ('s', "allowPrivilegeEscalation: true"),
    ('s', "seccompProfile: {type: Unconfined}"),
    ('c', "stdin: true"),
    ('c', "tty: true"),
    (
        'c',
        "volumeMounts:\n            - {name: v, mountPath: /data, mountPropagation: Bidirectional}",
    ),
    (
        'c',
        "volumeDevices:\n            - {name: d, devicePath: /dev/xvda}",
    ),
    ('p', "hostNetwork: true"),
    ('p', "hostPID: true"),
    (
        'p',
        "securityContext:\n        sysctls: [{name: kernel.shm_rmid_forced, value: '1'}]",
    ),
];

impl Generated {
    fn yaml(&self, with_reserved: bool) -> String {
        let on = |i: usize| with_reserved && self.reserved[i];
        let mut c = String::from("        - image: probe\n");
        if let Some(p) = self.port {
            c.push_str(&format!(
                "          ports:\n            - containerPort: {p}\n"
            ));
            if with_reserved {
                c.push_str("              hostPort: 80\n");
            }
        }
        if !self.env.is_empty() {
            c.push_str("          env:\n");
            for (k, v) in &self.env {
                c.push_str(&format!(
                    "            - name: {k}\n              value: {}\n",
                    serde_json::to_string(v).unwrap()
                ));
            }
        }
        let mut sc = Vec::new();
        if let Some(u) = self.user {
            sc.push(format!("runAsUser: {u}"));
        }
        if let Some(g) = self.group {
            sc.push(format!("runAsGroup: {g}"));
        }
        for (i, (at, text)) in RESERVED.iter().enumerate() {
            if *at == 's' && on(i) {
                sc.push((*text).to_owned());
            }
        }
        if !sc.is_empty() {
            c.push_str("          securityContext:\n");
            for s in sc {
                c.push_str(&format!("            {s}\n"));
            }
        }
        let mut limits = Vec::new();
        if let Some(m) = self.cpu_limit_m {
            limits.push(format!("cpu: {m}m"));
        }
        if let Some(b) = self.memory {
            limits.push(format!("memory: \"{b}\""));
        }
        if !limits.is_empty() || self.cpu_request_m.is_some() {
            c.push_str("          resources:\n");
            if !limits.is_empty() {
                c.push_str(&format!("            limits: {{{}}}\n", limits.join(", ")));
            }
            if let Some(r) = self.cpu_request_m {
                c.push_str(&format!("            requests: {{cpu: {r}m}}\n"));
            }
        }
        for (i, (at, text)) in RESERVED.iter().enumerate() {
            if *at == 'c' && on(i) {
                c.push_str(&format!("          {text}\n"));
            }
        }
        let mut pod = String::new();
        if let Some(t) = self.timeout {
            pod.push_str(&format!("      timeoutSeconds: {t}\n"));
        }
        for (i, (at, text)) in RESERVED.iter().enumerate() {
            if *at == 'p' && on(i) {
                pod.push_str(&format!("      {text}\n"));
            }
        }
        format!(
            "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: {}\nspec:\n  template:\n    spec:\n{pod}      containers:\n{c}",
            self.name
        )
    }

    fn reserved_count(&self) -> usize {
        self.reserved.iter().filter(|r| **r).count() + usize::from(self.port.is_some())
    }
}

fn generated() -> impl Strategy<Value = Generated> {
    let env_name = "[A-Z][A-Z0-9_]{0,8}".prop_filter("not reserved", |n| {
        !service::RESERVED_ENV.contains(&n.as_str())
    });
    (
        "[a-z][a-z0-9]{0,10}",
        proptest::option::of(1u16..=65535),
        proptest::collection::vec((env_name, "[ -~]{0,12}"), 0..4),
        proptest::option::of(0u32..=2_147_483_647),
        proptest::option::of(0u32..=2_147_483_647),
        proptest::option::of(1u64..=64_000),
        proptest::option::of(4096u64..=(1 << 36)),
        proptest::option::of(1u64..=64_000),
        proptest::option::of(1u64..=600),
        proptest::collection::vec(any::<bool>(), RESERVED.len()),
    )
        .prop_map(
            |(
                name,
                port,
                env,
                user,
                group,
                cpu_limit_m,
                memory,
                cpu_request_m,
                timeout,
                reserved,
            )| {
                Generated {
                    name,
                    port,
                    env,
                    user,
                    group,
                    cpu_limit_m,
                    memory,
                    cpu_request_m,
                    timeout,
                    reserved,
                }
            },
        )
}

fn generate(p: &Profile, s: &Service, image: &Image) -> Value {
    let e = expected(p, s, image);
    config(
        p,
        &e,
        image,
        &HostPaths {
            rootfs: Path::new("/rootfs"),
            resolv_conf: Path::new("/resolv.conf"),
            cgroups_path: "/kc",
        },
    )
}

fn env_of(config: &Value) -> Vec<String> {
    config["process"]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The reserved fields change nothing in the config (and each is named in a K1105 warning);
    /// what a developer may set reaches it as asked.
    #[test]
    fn only_what_a_developer_may_set_reaches_the_config(g in generated()) {
        let p = reference();
        let image = probe_image(vec!["/kcontract-probe".into(), "report".into()]);
        let plain = parse_service(&g.yaml(false)).map_err(TestCaseError::fail)?;
        let with = parse_service(&g.yaml(true)).map_err(TestCaseError::fail)?;
        prop_assert!(plain.warnings.is_empty());
        prop_assert_eq!(with.warnings.len(), g.reserved_count(), "{}", g.yaml(true));
        prop_assert!(with.warnings.iter().all(|w| w.code == "K1105"));
        let c = generate(&p, &with.service, &image);
        prop_assert_eq!(&c, &generate(&p, &plain.service, &image));
        // What only the profile decides.
        prop_assert!(c.get("hooks").is_none());
        prop_assert!(c["linux"].get("sysctl").is_none());
        prop_assert!(c["linux"].get("devices").is_none());
        prop_assert!(c["linux"].get("rootfsPropagation").is_none());
        prop_assert_eq!(&c["linux"]["maskedPaths"], &json!(p.masked_paths));
        prop_assert_eq!(&c["linux"]["readonlyPaths"], &json!(p.readonly_paths));
        prop_assert_eq!(
            &c["linux"]["namespaces"],
            &json!(p.namespaces.iter().map(|n| json!({"type": n})).collect::<Vec<_>>())
        );
        let caps = &c["process"]["capabilities"];
        prop_assert_eq!(caps.as_object().unwrap().len(), 3);
        for set in ["bounding", "effective", "permitted"] {
            prop_assert_eq!(&caps[set], &json!(p.capabilities));
        }
        prop_assert_eq!(&c["process"]["terminal"], &json!(false));
        prop_assert_eq!(&c["process"]["noNewPrivileges"], &json!(p.no_new_privileges));
        // What the developer asked for.
        let env = env_of(&c);
        let port = g.port.unwrap_or(p.default_port);
        let port_line = format!("PORT={port}");
        let name_line = format!("K_SERVICE={}", g.name);
        prop_assert!(env.contains(&port_line), "{:?}", env);
        prop_assert!(env.contains(&name_line), "{:?}", env);
        let user_env: Vec<String> = g.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let start = env.iter().position(|e| Some(e) == user_env.first());
        if let Some(start) = start {
            prop_assert_eq!(&env[start..start + user_env.len()], &user_env[..]);
        }
        prop_assert_eq!(&c["process"]["user"]["uid"], &json!(g.user.unwrap_or(65532)));
        prop_assert_eq!(&c["process"]["user"]["gid"], &json!(g.group.unwrap_or(65532)));
        prop_assert_eq!(&c["linux"]["resources"]["memory"]["limit"], &json!(g.memory));
        if let Some(m) = g.cpu_limit_m {
            prop_assert_eq!(&c["linux"]["resources"]["cpu"]["quota"], &json!((m * 100).max(1_000)));
        }
    }
}

// --- Schemas ------------------------------------------------------------------------------------

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

fn problems(v: &jsonschema::Validator, instance: &Value) -> String {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The facts the probe collects on the test host (a report), and as `serve` answers a request,
/// are valid; so is the document read back into the types kcontract judges with.
#[test]
fn probe_facts_follow_their_schema() {
    use kcontract_probe::collect::{Options, collect};
    let v = validator("probe-facts.schema.json");
    let mut facts = collect(&Options {
        mode: "report".into(),
        args: vec!["report".into()],
        paths: vec!["/proc/self".into()],
        write_tests: vec![std::env::temp_dir().display().to_string()],
        stdin_wait: std::time::Duration::ZERO,
        show_env: Vec::new(),
    });
    let doc = serde_json::to_value(&facts).unwrap();
    let p = problems(&v, &doc);
    assert!(p.is_empty(), "{p}");
    assert!(
        facts.paths.len() >= 30 && facts.mounts.len() > 1,
        "{facts:?}"
    );
    assert!(facts.path("/tmp").unwrap().exists);
    assert!(
        facts
            .path(&std::env::temp_dir().display().to_string())
            .unwrap()
            .write
            .as_ref()
            .unwrap()
            .ok,
        "the write test of a writable folder works"
    );
    facts.request = kcontract_probe::http::parse_head("GET /report HTTP/1.1\r\nHost: x\r\n\r\n");
    facts.signals.push(kcontract_probe::facts::SignalSeen {
        signal: "SIGTERM".into(),
        ms: 5,
    });
    let doc = serde_json::to_value(&facts).unwrap();
    let p = problems(&v, &doc);
    assert!(p.is_empty(), "{p}");
    let back: kcontract_probe::facts::Facts = serde_json::from_value(doc).unwrap();
    assert_eq!(back, facts);
    // The schema is not vacuous.
    let mut broken = serde_json::to_value(&facts).unwrap();
    broken["stdio"]["stdin_read"]["outcome"] = json!("maybe");
    broken["format"] = json!("kcontract-probe/2");
    assert!(problems(&v, &broken).lines().count() >= 2);
}

/// A report with every status (judged against this repository's spec) is valid, reads back,
/// and exports to JUnit XML that parses and TAP whose plan matches its lines.
#[test]
fn the_report_follows_its_schema_and_exports() {
    let spec = spec();
    let mut verdicts = BTreeMap::new();
    for (i, c) in CHECKS.iter().enumerate() {
        let status = [
            Status::Pass,
            Status::Fail,
            Status::NotApplicable,
            Status::Error,
        ][i % 4];
        verdicts.insert(
            (c.clause.to_owned(), c.name.to_owned()),
            Verdict {
                status,
                evidence: json!({"check": c.name, "quote": "a \"b\" <c> & d # e"}),
                message: format!("{} <&> # message", c.name),
            },
        );
    }
    let clauses = report::clause_results(&spec, &verdicts);
    let testable = spec
        .clauses
        .iter()
        .filter(|c| !c.verify.is_untestable())
        .count();
    assert_eq!(
        clauses.len(),
        testable,
        "one entry per testable clause and check"
    );
    let file = FileRef {
        name: "n".into(),
        path: None,
        sha256: report::sha256(b""),
    };
    let r = Report {
        format: report::RUN_FORMAT.into(),
        platform: Platform {
            kind: "local".into(),
            runtime: "runc".into(),
            runtime_version: "1.1.5".into(),
            host: "h".into(),
            date: "2026-11-25".into(),
            profile: file.clone(),
            service: file.clone(),
            grace_period_s: 2,
            features: vec![],
            probe: file,
            kcontract: "0.1.0".into(),
            contract: ContractRef {
                title: "t".into(),
                version: "v".into(),
            },
            control: None,
        },
        summary: report::summary(&clauses),
        clauses,
        // One documentation clause reviewed, one a link waiting for review: both shapes validate.
        documentation: vec![
            kcontract_platform::docs::DocResult {
                id: "a.documented".into(),
                stamp: "0123456789ab".into(),
                status: kcontract_platform::docs::DocStatus::Documented,
                undocumented: None,
                url: Some("https://docs.example.com/a".into()),
                review: Some(kcontract_platform::profile::DocReview {
                    by: "Ada".into(),
                    date: "2026-11-27".into(),
                    stamp: "fedcba987654".into(),
                }),
                message: "reviewed".into(),
            },
            kcontract_platform::docs::DocResult {
                id: "b.documented".into(),
                stamp: "0123456789ab".into(),
                status: kcontract_platform::docs::DocStatus::Undocumented,
                undocumented: Some(kcontract_platform::docs::Undocumented::NotReviewed),
                url: Some("https://docs.example.com/b".into()),
                review: None,
                message: "a link without a review".into(),
            },
        ],
    };
    let v = validator("run-report.schema.json");
    let doc = serde_json::to_value(&r).unwrap();
    let p = problems(&v, &doc);
    assert!(p.is_empty(), "{p}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    std::fs::write(&path, serde_json::to_string_pretty(&r).unwrap()).unwrap();
    assert_eq!(report::read(&path).unwrap(), r);
    assert!(!report::passes(&r.clauses), "a failing MUST fails the run");
    let junit = kcontract_platform::export::junit(&r);
    let xml = roxmltree::Document::parse(&junit).expect("JUnit parses");
    let cases = xml
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(cases, r.clauses.len());
    let failures = xml
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(failures, r.summary["fail"]);
    let tap = kcontract_platform::export::tap(&r);
    let lines: Vec<&str> = tap.lines().collect();
    assert_eq!(lines[0], "TAP version 13");
    assert_eq!(lines[1], format!("1..{}", r.clauses.len()));
    let tests: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("ok ") || l.starts_with("not ok "))
        .collect();
    assert_eq!(tests.len(), r.clauses.len());
    for (i, l) in tests.iter().enumerate() {
        let n = l.trim_start_matches("not ").trim_start_matches("ok ");
        assert!(n.starts_with(&format!("{} - ", i + 1)), "{l}");
        // `#` only as the SKIP directive.
        let desc = n.split_once(" - ").unwrap().1;
        assert!(
            !desc.replace("\\#", "").contains('#') || desc.contains(" # SKIP "),
            "{l}"
        );
    }
}

// --- The table ----------------------------------------------------------------------------------

/// Every row names a clause of the spec (at run time a missing one is K1106 or K1108); every control is
/// named by a check of the container it changes; only the two hooks clauses (one statement in two
/// chapters) share a check and its control; the docs list every check and control.
#[test]
fn the_table_of_checks_agrees_with_the_spec_the_controls_and_the_docs() {
    let spec = spec();
    let ids: BTreeSet<&str> = spec.clauses.iter().map(|c| c.id.as_str()).collect();
    let mut by_control: BTreeMap<Control, Vec<&str>> = BTreeMap::new();
    for c in CHECKS {
        assert!(ids.contains(c.clause), "{c:?}: not a clause of the spec");
        let clause = spec.clauses.iter().find(|x| x.id == c.clause).unwrap();
        assert!(
            !clause.verify.is_untestable(),
            "{c:?} judges an untestable clause"
        );
        let Some(control) = c.control else {
            continue;
        };
        assert_eq!(
            control.role(),
            c.role,
            "{c:?}: its control changes the other container"
        );
        by_control.entry(control).or_default().push(c.clause);
    }
    let unused: Vec<&str> = Control::VARIANTS
        .iter()
        .filter(|c| !by_control.contains_key(c))
        .map(|c| c.name())
        .collect();
    assert!(unused.is_empty(), "controls no check names: {unused:?}");
    let shared: Vec<_> = by_control.iter().filter(|(_, v)| v.len() > 1).collect();
    assert_eq!(
        format!("{shared:?}"),
        "[(DeveloperHook, [\"lifecycle.hooks.not-developer-configurable\", \"config.hooks.not-developer-configurable\"])]"
    );
    let names: BTreeSet<&str> = Control::VARIANTS.iter().map(|c| c.name()).collect();
    assert_eq!(names.len(), Control::VARIANTS.len());
    let docs = std::fs::read_to_string(root().join("docs/platforms.md")).unwrap();
    for c in CHECKS {
        assert!(
            docs.contains(&format!("`{}`", c.clause)),
            "docs/platforms.md does not list {c:?}"
        );
        if let Some(control) = c.control {
            assert!(
                docs.contains(&format!("`{}`", control.name())),
                "docs/platforms.md does not list {c:?}'s control `{}`",
                control.name()
            );
        }
    }
    let simulated: Vec<_> = on(Route::Simulated).collect();
    let local: BTreeSet<&str> = simulated.iter().map(|c| c.clause).collect();
    let deployed: BTreeSet<&str> = on(Route::Deployed).map(|c| c.clause).collect();
    eprintln!(
        "{} clauses judged on the simulated route by {} checks with {} negative controls; {} on \
         the deployed route",
        local.len(),
        simulated.len(),
        Control::VARIANTS.len(),
        deployed.len()
    );
    assert_eq!(
        local.len(),
        simulated.len(),
        "one simulated check per clause"
    );
    assert!(local.len() >= 25);
    assert!(deployed.len() >= 28, "{deployed:?}");
    assert!(CHECKS.iter().filter(|c| c.role == Role::Defaults).count() >= 3);
}

/// Inputs the fuzzer (`fuzz/run.sh`, target `platform_readers`) found panicking, read as a
/// profile and as a Service with every diagnostic rendered: a lone carriage return counts as a line
/// end to the YAML reader but not to the file's lines, which put a span inside a character
/// (`\u{200b}`) and panicked the renderer.
#[test]
fn fuzzer_finds_render_without_panicking() {
    let dir = kcontract_fixtures().join("fuzz");
    let mut found = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().contains("platform-readers") {
            continue;
        }
        found += 1;
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let mut sources = kcontract_spec::diagnostic::SourceMap::default();
        let fid = sources.add(path.clone(), text);
        for diags in [
            profile::parse(fid, &sources).err(),
            service::parse(fid, &sources).err(),
        ]
        .into_iter()
        .flatten()
        {
            for d in diags {
                assert!(!d.render(&sources).is_empty());
            }
        }
    }
    assert!(found > 0, "no fuzzer finds in {}", dir.display());
}

fn kcontract_fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `platform run` says, before anything runs, when the Service sets no `timeoutSeconds` and what
/// the run will wait (the profile's grace period), and says nothing when it sets one; the controls'
/// names and `--jobs` are checked before anything runs.
#[test]
fn platform_run_says_what_it_waits_without_timeout_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let service = dir.path().join("service.yaml");
    std::fs::write(
        &service,
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  template:\n    spec:\n      containers:\n        - image: kcontract-probe\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let report = dir.path().join("r.json");
        let mut args = vec![
            "platform",
            "run",
            "--runtime",
            "runc",
            "--profile",
            "platforms/knative-reference.yaml",
            "--report",
            report.to_str().unwrap(),
            "--probe",
            "/nonexistent/kcontract-probe",
        ];
        args.extend_from_slice(extra);
        kcontract(&root(), &args)
    };
    let (_, out, err) = run(&["--service", service.to_str().unwrap()]);
    assert!(
        err.contains("note: the Service sets no timeoutSeconds: the grace period is the profile's lifecycle.grace_period_s, 300 s, and the run waits it out (300 s)"),
        "{out}{err}"
    );
    let (_, out, err) = run(&[]);
    assert!(!err.contains("timeoutSeconds"), "{out}{err}");
    let (code, _, err) = run(&["--control", "no-such-control"]);
    assert_eq!(code, 2);
    assert!(err.contains("all, or one of: no-port"), "{err}");
    let (code, _, err) = run(&["--control", "all", "--jobs", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--jobs 0"), "{err}");
}
