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
