//! Run reports (`kcontract-run/1`) for this repository's spec as it is now, for the tests of the
//! matrix page's platform columns: made from `kcontract list --format json`, so their stamps are
//! current whatever the spec's text, except where a test wants one stale.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::cli::{kcontract, root};

/// What the two reports say of three clauses (the first three testable ones), for the tests to
/// look for on the pages.
pub(crate) struct Reports {
    /// `runc.json` and `crun.json`, in that order.
    pub(crate) files: [PathBuf; 2],
    /// runc fails it; crun passes it.
    pub(crate) failed_on_runc: String,
    /// runc's report has an older stamp for it (`stale`); crun passes it.
    pub(crate) stale_on_runc: String,
    /// crun did not run it; runc passes it.
    pub(crate) not_run_on_crun: String,
}

fn platform(runtime: &str, version: &str) -> Value {
    let file = |name: &str| json!({"name": name, "path": null, "sha256": "0".repeat(64)});
    json!({
        "kind": "local", "runtime": runtime, "runtime_version": version,
        "host": "a test fixture", "date": "2026-11-25",
        "profile": file("knative-reference"), "service": file("kcontract-probe"),
        "grace_period_s": 2, "features": [], "probe": file("kcontract-probe 0.1.0"),
        "kcontract": "0.1.0", "contract": {"title": "t", "version": "v"}, "control": null
    })
}

/// Writes the two reports into `dir`: every testable clause passes on both, but for the three
/// clauses [`Reports`] names.
pub(crate) fn write(dir: &Path) -> Reports {
    let (code, out, err) = kcontract(&root(), &["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    let testable: Vec<&Value> = list["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verify"] != "untestable")
        .collect();
    let id = |i: usize| testable[i]["id"].as_str().unwrap().to_string();
    let reports = Reports {
        files: [dir.join("runc.json"), dir.join("crun.json")],
        failed_on_runc: id(0),
        stale_on_runc: id(1),
        not_run_on_crun: id(2),
    };
    for (i, (runtime, version)) in [("runc", "1.1.5+ds1"), ("crun", "1.8.1")]
        .iter()
        .enumerate()
    {
        let clauses: Vec<Value> = testable
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let (status, stamp) = match (i, n) {
                    (0, 0) => ("fail", c["stamp"].clone()),
                    (0, 1) => ("pass", json!("000000000000")),
                    (1, 2) => ("not-run", c["stamp"].clone()),
                    _ => ("pass", c["stamp"].clone()),
                };
                json!({"id": c["id"], "level": c["level"], "stamp": stamp, "status": status,
                       "check": "fixture-check", "evidence": null, "message": "a fixture"})
            })
            .collect();
        let report = json!({
            "format": "kcontract-run/1", "platform": platform(runtime, version),
            "summary": {}, "clauses": clauses
        });
        std::fs::write(
            &reports.files[i],
            serde_json::to_string_pretty(&report).unwrap(),
        )
        .unwrap();
    }
    reports
}

/// The two vendor logs shipped in `upstream/` imported into `dir` with `kcontract platform
/// import-log` (so their stamps are the spec's as it is now): `google-cloud-run.json` and
/// `ibm-code-engine.json`, in that order.
pub(crate) fn write_vendor(dir: &Path) -> [PathBuf; 2] {
    let logs = root().join("upstream/knative/conformance-logs");
    let vendors = [
        (
            "google-cloud-run",
            "2022-04-11-google-cloud-run.serving_runtime_e2e.log",
        ),
        (
            "ibm-code-engine",
            "2022-11-15-ibm-cloud-code-engine.serving_runtime_e2e.log",
        ),
    ];
    vendors.map(|(name, log)| {
        let report = dir.join(format!("{name}.json"));
        let (code, _, err) = kcontract(
            &root(),
            &[
                "platform",
                "import-log",
                "--platform",
                name,
                logs.join(log).to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{err}");
        report
    })
}

/// Two local-like reports ([`write`]) and two vendor ones ([`write_vendor`]) in `dir`, as
/// `--platform` arguments in column order: runc, crun, google-cloud-run, ibm-code-engine.
pub(crate) fn four_columns(dir: &Path) -> (Reports, Vec<String>) {
    let local = write(dir);
    let vendor = write_vendor(dir);
    let args = local
        .files
        .iter()
        .chain(&vendor)
        .flat_map(|f| ["--platform".to_string(), f.to_str().unwrap().to_string()])
        .collect();
    (local, args)
}

/// A clause's `routes` in `matrix --format json`.
pub(crate) fn routes(clause: &Value) -> Vec<&str> {
    clause["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect()
}

/// The entry of clause `id` in a run report.
pub(crate) fn clause<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no clause {id}"))
}
