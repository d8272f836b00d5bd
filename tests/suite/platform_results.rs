//! The committed platform results (`platforms/results/`, issue #48 item 4) are what the tools make
//! from the committed inputs: the committed site shows them as the platforms' columns, so a stale or
//! hand-edited report would be a false verdict on the site.
//!
//! - The vendor logs' reports come from `kcontract platform import-log`, deterministic and without
//!   root: regenerated here from the committed logs, they must be byte-identical.
//! - The reference runs on runc and crun need root and the runtimes: here every run checks that they
//!   judged the clauses as the spec has them now (same ids, levels and stamps); with
//!   `--features runtimes` (CI) they are run again and must give each clause the same status
//!   (timings, dates and the host are not compared).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::cli::{kcontract, root};

/// The vendor logs' reports: (report, `--platform`, the log), paths from the repository's root.
const VENDOR: [(&str, &str, &str); 3] = [
    (
        "platforms/results/google-cloud-run.json",
        "google-cloud-run",
        "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
    ),
    (
        "platforms/results/ibm-code-engine.json",
        "ibm-code-engine",
        "upstream/knative/conformance-logs/2022-11-15-ibm-cloud-code-engine.serving_runtime_e2e.log",
    ),
    (
        "platforms/results/google-cloud-run-for-anthos.json",
        "google-cloud-run-for-anthos",
        "upstream/knative/conformance-logs/2022-04-13-google-cloud-run-for-anthos.serving_runtime_e2e.log",
    ),
];

/// The reference runs: (report, `--runtime`).
const REFERENCE: [(&str, &str); 2] = [
    ("platforms/results/runc.json", "runc"),
    ("platforms/results/crun.json", "crun"),
];

/// The profile the reference runs use.
const PROFILE: &str = "platforms/knative-reference.yaml";

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Each clause of a report: id → (level, stamp, status).
fn by_clause(report: &Value) -> BTreeMap<String, (String, String, String)> {
    report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("id"), (s("level"), s("stamp"), s("status")))
        })
        .collect()
}

/// The folder holds exactly the five reports this file tests, and its README: a report added
/// without a freshness test would be shown on the site unchecked.
#[test]
fn the_folder_holds_the_tested_reports() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("platforms/results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = VENDOR
        .iter()
        .map(|v| v.0)
        .chain(REFERENCE.iter().map(|r| r.0))
        .map(|p| p.rsplit('/').next().unwrap().to_string())
        .chain(["README.md".to_string()])
        .collect();
    expected.sort();
    assert_eq!(names, expected);
}

#[test]
fn vendor_reports_are_what_import_log_makes() {
    let tmp = tempfile::tempdir().unwrap();
    for (report, platform, log) in VENDOR {
        let fresh = tmp.path().join(format!("{platform}.json"));
        // As the README says, from the repository's root with relative paths (the report
        // records the log's path as given).
        let (code, out, err) = kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "platform",
                "import-log",
                "--platform",
                platform,
                log,
                "--report",
                fresh.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            std::fs::read(&fresh).unwrap() == std::fs::read(root().join(report)).unwrap(),
            "{report} is not what `kcontract --spec spec platform import-log --platform \
             {platform} {log} --report {report}` makes now: run it and commit the report \
             (platforms/results/README.md)"
        );
    }
}

/// The reference runs judged the clauses of the spec as it is: every testable clause (a run report
/// has no entry for an untestable one) once, at its level and with its stamp. A clause whose text changed makes its stamp differ: the runs must be made again
/// (as root, platforms/results/README.md), or the site would show their results as stale.
#[test]
fn reference_runs_judged_the_current_clauses() {
    let (code, out, err) = kcontract(&root(), &["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    let spec: BTreeMap<String, (String, String)> = list["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verify"] != "untestable")
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("id"), (s("level"), s("stamp")))
        })
        .collect();
    for (report, _) in REFERENCE {
        let judged: BTreeMap<String, (String, String)> = by_clause(&read(&root().join(report)))
            .into_iter()
            .map(|(id, (level, stamp, _))| (id, (level, stamp)))
            .collect();
        assert_eq!(
            judged, spec,
            "{report} judged another text of the contract: run it again (platforms/results/README.md)"
        );
    }
}

/// A reference run made again gives every clause the status the committed report gives it.
#[test]
#[cfg_attr(
    not(feature = "runtimes"),
    ignore = "needs root, runc and crun: cargo test --features runtimes"
)]
fn reference_runs_are_what_platform_run_makes() {
    let probe = crate::common::probe::static_probe();
    let tmp = tempfile::tempdir().unwrap();
    for (report, runtime) in REFERENCE {
        let fresh = tmp.path().join(format!("{runtime}.json"));
        let (code, out, err) = kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "platform",
                "run",
                "--runtime",
                runtime,
                "--profile",
                PROFILE,
                "--probe",
                probe.to_str().unwrap(),
                "--report",
                fresh.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{out}{err}");
        let status = |v: &Value| {
            by_clause(v)
                .into_iter()
                .map(|(id, (_, _, status))| (id, status))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(
            status(&read(&fresh)),
            status(&read(&root().join(report))),
            "{report}: a run made now judges some clause otherwise: make it again and commit it \
             (platforms/results/README.md)"
        );
    }
}

/// Every file of the site under `dir`, as text (lossy).
fn site_texts(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                out.push((p.display().to_string(), text));
            }
        }
    }
    out
}

/// No absolute path of the builder in a built site: the committed reports' site (the default
/// folder, found through an absolute `--spec`) and one given the reports by their absolute paths
/// show each report by its relative path or its name. The builder's path said nothing to a
/// reader, named the builder's machine, and made two checkouts' sites differ.
#[test]
fn no_absolute_path_of_the_builder_in_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let root = root();
    let spec = root.join("spec");
    let reports: Vec<String> = VENDOR
        .iter()
        .map(|v| v.0)
        .chain(REFERENCE.iter().map(|r| r.0))
        .map(|r| root.join(r).display().to_string())
        .collect();
    for (name, extra) in [("default", Vec::new()), ("given", reports)] {
        let out = tmp.path().join(name);
        let mut args = vec![
            "--spec".to_string(),
            spec.display().to_string(),
            "build".to_string(),
            "--out".to_string(),
            out.display().to_string(),
        ];
        for r in &extra {
            args.extend(["--platform".to_string(), r.clone()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = kcontract(tmp.path(), &args);
        assert_eq!(code, 0, "{err}");
        let platforms = std::fs::read_to_string(out.join("en/platforms.html")).unwrap();
        assert!(
            platforms.contains("<code>runc.json</code>")
                || platforms.contains("<code>platforms/results/runc.json</code>"),
            "{name}: the runc column's report"
        );
        for (file, text) in site_texts(&out) {
            for path in [root.display().to_string(), tmp.path().display().to_string()] {
                assert!(!text.contains(&path), "{name}: {file} holds {path}");
            }
        }
    }
}

/// The committed site shows the five committed reports as columns, each with its route.
#[test]
fn committed_site_shows_five_platform_columns() {
    let page = std::fs::read_to_string(root().join("site/en/platforms.html")).unwrap();
    let columns = page.matches("<tr class=\"column\"").count();
    assert!(columns >= 5, "site/en/platforms.html has {columns} columns");
    for name in [
        "google-cloud-run",
        "ibm-code-engine",
        "google-cloud-run-for-anthos",
        "runc",
        "crun",
    ] {
        assert!(
            page.contains(&format!("data-platform=\"{name}\"")),
            "no column {name}"
        );
    }
    assert!(page.contains("href=\"#route-"), "the columns name no route");
}
