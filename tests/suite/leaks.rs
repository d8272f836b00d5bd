//! Nothing leaks (issue #50): every URL from any input through one judge
//! (`kcontract_spec::url::judge`), every output path not an input of the same command, every file
//! read inside the folder it was given.

use std::path::Path;

use crate::common::cli::{kcontract, root};

/// The committed runc run report with its first documentation entry's link set to `url`, written
/// to `dir/r.json`.
fn report_with_doc_url(dir: &Path, url: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("platforms/results/runc.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["documentation"][0]["url"] = url.into();
    let p = dir.join("r.json");
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    p
}

/// A run report's `documentation[].url` of `javascript:` is refused with a diagnostic at the
/// link, and no platforms page (en/ or zh/) carries it live; an http(s) link is published.
#[test]
fn a_script_link_in_a_run_report_is_refused_and_never_live() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [
        "javascript:alert(document.cookie)",
        "java\tscript:alert(1)",
        "data:text/html,x",
    ] {
        let report = report_with_doc_url(dir.path(), bad);
        let out = dir.path().join("site");
        let (code, _, err) = kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "build",
                "--out",
                out.to_str().unwrap(),
                "--platform",
                report.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 1, "{bad:?}: {err}");
        assert!(err.contains("error[K1107]"), "{err}");
        assert!(err.contains("is not a web address"), "{err}");
        for lang in ["en", "zh"] {
            if let Ok(page) = std::fs::read_to_string(out.join(lang).join("platforms.html")) {
                assert!(
                    !page.to_ascii_lowercase().contains("script:alert"),
                    "{lang}"
                );
                assert!(!page.contains("data:text"), "{lang}");
            }
        }
    }
    // The control: an https link is published, live, on both pages.
    let good = "https://docs.example.com/lifecycle";
    let report = report_with_doc_url(dir.path(), good);
    let out = dir.path().join("site");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "build",
            "--out",
            out.to_str().unwrap(),
            "--platform",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    for lang in ["en", "zh"] {
        let page = std::fs::read_to_string(out.join(lang).join("platforms.html")).unwrap();
        assert!(
            page.contains(&format!("<a href=\"{good}\" rel=\"nofollow\">")),
            "{lang}"
        );
    }
}

/// An output naming an input of the same command is a usage error (exit 2) before anything is
/// read or written: `--report` naming the `--profile` (also through a symbolic link or a hard
/// link), `--report` naming the log; the profile and the log stay as they were. The control: the
/// same command with another `--report` writes it (exit 0).
#[test]
fn an_output_naming_an_input_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("vendor.log");
    std::fs::copy(
        root().join(
            "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
        ),
        &log,
    )
    .unwrap();
    let profile = dir.path().join("profile.yaml");
    std::fs::copy(root().join("platforms/knative-reference.yaml"), &profile).unwrap();
    let profile_text = std::fs::read(&profile).unwrap();
    let log_text = std::fs::read(&log).unwrap();
    let linked = dir.path().join("linked.yaml");
    std::os::unix::fs::symlink(&profile, &linked).unwrap();
    let hard = dir.path().join("hard.yaml");
    std::fs::hard_link(&profile, &hard).unwrap();
    let import = |report: &Path| {
        let p = profile.to_str().unwrap();
        kcontract(
            &root(),
            &[
                "--spec",
                "spec",
                "platform",
                "import-log",
                "--platform",
                "acme",
                log.to_str().unwrap(),
                "--profile",
                p,
                "--report",
                report.to_str().unwrap(),
            ],
        )
    };
    for report in [&profile, &linked, &hard, &log] {
        let (code, _, err) = import(report);
        assert_eq!(code, 2, "{}: {err}", report.display());
        assert!(
            err.contains("--report") && err.contains("writing it would replace it"),
            "{err}"
        );
    }
    // `platform run` refuses it before looking for a runtime.
    let p = profile.to_str().unwrap();
    let (code, _, err) = kcontract(
        &root(),
        &[
            "platform",
            "run",
            "--runtime",
            "runc",
            "--profile",
            p,
            "--report",
            p,
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--report") && err.contains("--profile"),
        "{err}"
    );
    assert_eq!(std::fs::read(&profile).unwrap(), profile_text);
    assert_eq!(std::fs::read(&log).unwrap(), log_text);
    let good = dir.path().join("r.json");
    let (code, _, err) = import(&good);
    assert!(code == 0 || code == 1, "{err}");
    assert!(good.exists(), "{err}");
}
