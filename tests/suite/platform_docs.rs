//! The documentation clauses: a profile's `docs:` links, `kcontract platform review-docs`, and
//! what a report (`platform verify` against a conforming fake ingress) and the matrix then say.
//! A link alone is never `documented`; a review is; another link makes the review stale.

use std::path::Path;

use serde_json::Value;

use crate::common::cli::{kcontract, root};
use crate::platform_verify::{Fault, ingress, verify_with};

/// The documentation clause the tests review.
const TRACING: &str = "network.headers.trace-context-documented";
/// One the profile says does not apply.
const METADATA: &str = "network.metadata.schema-documented";
const LINK: &str = "https://docs.example.com/platform/tracing";

/// The reference profile with `docs` linking [`TRACING`] (no review) and [`METADATA`] n/a.
fn profile(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("platforms/knative-reference.yaml")).unwrap();
    let p = dir.join("profile.yaml");
    std::fs::write(
        &p,
        format!(
            "{text}docs:\n  {TRACING}: {LINK}  # the tracing page\n  {METADATA}: {{not_applicable: \"no metadata service\"}}\n  network.headers.host: https://docs.example.com/host\n"
        ),
    )
    .unwrap();
    p
}

/// `platform verify` of a conforming ingress with `profile`: the report and stdout.
fn report(dir: &Path, profile: &Path) -> (Value, String) {
    let addr = ingress(Fault::None);
    let (code, out, err, report) = verify_with(
        profile.to_str().unwrap(),
        &format!("http://{addr}"),
        &dir.join("r.json"),
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    // A link for a clause that is not a documentation clause answers nothing, and says so.
    assert!(
        err.contains("warning[K1102]: the profile's docs name `network.headers.host`, which is not a documentation clause of the spec: ignored"),
        "{err}"
    );
    (report.expect("a report"), out)
}

/// The interface text's title of a documentation badge (`platform_<key>_title`; no character
/// the page escapes).
fn title(lang: &str, key: &str) -> String {
    let text = std::fs::read_to_string(root().join(format!("templates/i18n/{lang}.yaml"))).unwrap();
    let prefix = format!("  platform_{key}_title: \"");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{lang}: no {prefix}"));
    line.trim_end_matches('"').to_owned()
}

/// The report's entry for `id` in `documentation`.
fn doc<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["documentation"]
        .as_array()
        .expect("documentation")
        .iter()
        .find(|d| d["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

fn review(profile: &Path, clause: &str, by: &str) -> (i32, String, String) {
    review_on(profile, clause, by, "2026-11-27")
}

/// `platform review-docs CLAUSE --profile PROFILE --by BY --date DATE`.
fn review_on(profile: &Path, clause: &str, by: &str, date: &str) -> (i32, String, String) {
    kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "platform",
            "review-docs",
            clause,
            "--profile",
            profile.to_str().unwrap(),
            "--by",
            by,
            "--date",
            date,
        ],
    )
}

/// The report's documentation with the stamps (they follow the clauses' texts) replaced.
fn shape(report: &Value) -> String {
    let mut d = report["documentation"].clone();
    for e in d.as_array_mut().unwrap() {
        e["stamp"] = "STAMP".into();
        if e["review"].is_object() {
            e["review"]["stamp"] = "STAMP".into();
        }
        if let Some(m) = e["message"].as_str() {
            let m: String = m
                .split(' ')
                .map(|w| {
                    let core = w.trim_end_matches([',', ')', ';']);
                    if core.len() == 12 && core.bytes().all(|b| b.is_ascii_hexdigit()) {
                        w.replace(core, "STAMP")
                    } else {
                        w.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            e["message"] = m.into();
        }
    }
    serde_json::to_string_pretty(&d).unwrap()
}

#[test]
fn a_link_is_documented_only_once_reviewed_and_a_changed_link_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let p = profile(dir.path());

    // A link alone: undocumented, saying so; n/a as the profile says; the others have no link.
    let (r, out) = report(dir.path(), &p);
    let t = doc(&r, TRACING);
    assert_eq!(
        (&t["status"], &t["undocumented"], &t["url"]),
        (&"undocumented".into(), &"not-reviewed".into(), &LINK.into())
    );
    assert_eq!(doc(&r, METADATA)["status"], "n/a");
    let docs = r["documentation"].as_array().unwrap();
    assert_eq!(docs.len(), 6, "the contract's six documentation clauses");
    assert!(
        docs.iter()
            .filter(|d| d["id"] != TRACING && d["id"] != METADATA)
            .all(|d| d["status"] == "undocumented" && d["undocumented"] == "no-link")
    );
    assert!(
        out.contains(
            "documentation clauses: 0 documented (a reviewed link), 5 undocumented, 1 n/a"
        ),
        "{out}"
    );

    // A person reviews it: documented, with who and when.
    let (code, out, err) = review(&p, TRACING, "Ada Lovelace");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with(&format!(
            "reviewed the docs link of {TRACING} by Ada Lovelace on 2026-11-27: {LINK}"
        )),
        "{out}"
    );
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("# the tracing page"),
        "the comment stays:\n{text}"
    );
    assert!(
        text.contains("reviewed: {by: \"Ada Lovelace\", date: \"2026-11-27\", stamp: \""),
        "{text}"
    );
    let (r, out) = report(dir.path(), &p);
    let t = doc(&r, TRACING);
    assert_eq!(
        (&t["status"], &t["undocumented"]),
        (&"documented".into(), &Value::Null)
    );
    assert_eq!(t["review"]["by"], "Ada Lovelace");
    assert!(
        out.contains("1 documented (a reviewed link), 4 undocumented, 1 n/a"),
        "{out}"
    );
    insta::assert_snapshot!("documentation_json_shape", shape(&r));

    // The matrix shows it per platform column, in JSON, CSV and the table; so does the site.
    let report_path = dir.path().join("r.json");
    matrix_shows_the_review(&report_path);
    site_shows_the_review(dir.path(), &report_path);

    // Another link: the review is stale, and the clause undocumented again.
    std::fs::write(
        &p,
        text.replace(LINK, "https://docs.example.com/platform/other"),
    )
    .unwrap();
    let (r, _) = report(dir.path(), &p);
    let t = doc(&r, TRACING);
    assert_eq!(
        (&t["status"], &t["undocumented"]),
        (&"undocumented".into(), &"stale-review".into())
    );
    assert!(
        t["message"]
            .as_str()
            .unwrap()
            .contains("review https://docs.example.com/platform/other again")
    );
    let table = matrix(&report_path, "table");
    assert!(
        table.contains("undocumented: a stale review: Ada Lovelace reviewed it on 2026-11-27"),
        "{table}"
    );
}

/// `kcontract matrix --platform REPORT --format FORMAT` on the repository's spec: its stdout.
fn matrix(report: &Path, format: &str) -> String {
    let (code, out, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "matrix",
            "--platform",
            report.to_str().unwrap(),
            "--format",
            format,
        ],
    );
    assert!(code == 0 || code == 1, "{err}");
    out
}

/// The matrix of a report whose tracing link was reviewed shows it documented per platform
/// column, in JSON, CSV and the table.
fn matrix_shows_the_review(report_path: &Path) {
    let matrix = |format: &str| matrix(report_path, format);
    let m: Value = serde_json::from_str(&matrix("json")).unwrap();
    let cell = |id: &str| {
        m["clauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["platforms"][0]
            .clone()
    };
    assert_eq!(cell(TRACING)["documentation"]["status"], "documented");
    assert_eq!(cell(METADATA)["documentation"]["status"], "n/a");
    assert_eq!(
        cell("config.user.document-default")["documentation"]["undocumented"],
        "no-link"
    );
    assert!(cell("network.headers.host").get("documentation").is_none());
    let csv = matrix("csv");
    let row = csv.lines().find(|l| l.starts_with(TRACING)).unwrap();
    assert!(row.ends_with(",documented"), "{row}");
    let table = matrix("table");
    let row = table
        .lines()
        .find(|l| l.starts_with("config.user.document-default"))
        .unwrap();
    assert!(row.trim_end().ends_with("undocumented"), "{row}");
}

/// The site built with that report: the platforms page's cell says documented, links the page and
/// names the reviewer; the matrix page's cell too; in both languages.
fn site_shows_the_review(dir: &Path, report_path: &Path) {
    let out = dir.join("site");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "build",
            "--out",
            out.to_str().unwrap(),
            "--platform",
            report_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    for (lang, documented, undocumented, by) in [
        ("en", "docs ok", "no docs", "reviewed by"),
        ("zh", "有文档", "无文档", "审阅人"),
    ] {
        let page = std::fs::read_to_string(out.join(lang).join("platforms.html")).unwrap();
        let cell = page
            .split(&format!("id=\"127.0.0.1--{TRACING}\""))
            .nth(1)
            .and_then(|rest| rest.split("</td>").next())
            .unwrap_or_else(|| panic!("{lang}: no cell"));
        let badge = |key: &str, word: &str| {
            format!(
                "<span class=\"badge platform-{key}\" title=\"{}\">{word}</span>",
                title(lang, key)
            )
        };
        assert!(
            cell.contains(&badge("documented", documented)),
            "{lang}: {cell}"
        );
        assert!(
            cell.contains(&format!("<a href=\"{LINK}\" rel=\"nofollow\">")),
            "{cell}"
        );
        assert!(
            cell.contains(&format!("{by} Ada Lovelace, 2026-11-27")),
            "{cell}"
        );
        assert!(
            page.contains(&badge("undocumented", undocumented)),
            "{lang}"
        );
        let matrix_page = std::fs::read_to_string(out.join(lang).join("matrix.html")).unwrap();
        assert!(
            matrix_page.contains(&badge("documented", documented)),
            "{lang}"
        );
    }
}

#[test]
fn review_docs_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = profile(dir.path());
    let mut all = String::new();
    // No link for the clause; the clause not applicable; an entry spread over lines.
    for clause in ["config.user.document-default", METADATA] {
        let (code, out, err) = review(&p, clause, "Ada");
        assert_eq!(code, 1, "{out}{err}");
        all.push_str(&format!("--- {clause}\n{err}"));
    }
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace(
            &format!("{TRACING}: {LINK}"),
            &format!("{TRACING}:\n    url: {LINK}\n "),
        ),
    )
    .unwrap();
    let (code, out, err) = review(&p, TRACING, "Ada");
    assert_eq!(code, 1, "{out}{err}");
    all.push_str(&format!("--- block\n{err}"));
    insta::assert_snapshot!(all.replace(dir.path().to_str().unwrap(), "DIR"));
    // Usage: not a documentation clause, an unknown one, a bad date, no name.
    for (clause, by, date, needle) in [
        (
            "network.headers.host",
            "Ada",
            "2026-11-27",
            "is not a documentation clause",
        ),
        (
            "network.headers.nope",
            "Ada",
            "2026-11-27",
            "no clause `network.headers.nope`",
        ),
        (TRACING, "Ada", "27.11.2026", "is not a date YYYY-MM-DD"),
        (TRACING, " ", "2026-11-27", "--by needs a name"),
    ] {
        let (code, out, err) = review_on(&p, clause, by, date);
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(needle), "{err}");
    }
    // A profile entry with both a link and not_applicable is refused when the profile loads.
    std::fs::write(
        &p,
        format!(
            "{text}  config.user.document-default: {{url: \"{LINK}\", not_applicable: \"x\"}}\n"
        ),
    )
    .unwrap();
    let (code, _, err) = review(&p, TRACING, "Ada");
    assert_eq!(code, 1);
    assert!(err.contains("error[K1102]: the docs entry of `config.user.document-default` needs a url or not_applicable, not both"), "{err}");
}

/// A vendor's conformance log says nothing about documentation: `import-log` without a profile
/// leaves every documentation clause undocumented (no link); with the vendor's profile its reviewed
/// links decide them, as in a run or a verify report, and the column keeps the `--platform` name.
#[test]
fn import_log_takes_the_documentation_from_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let p = profile(dir.path());
    let (code, out, err) = review(&p, TRACING, "Ada Lovelace");
    assert_eq!(code, 0, "{out}{err}");
    let log = root().join(
        "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
    );
    let import = |extra: &[&str], name: &str| {
        let report = dir.path().join(name);
        let mut args = vec![
            "platform",
            "import-log",
            "--platform",
            "vendor",
            log.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (_, out, err) = kcontract(&root(), &args);
        let text = std::fs::read_to_string(&report).unwrap_or_else(|_| panic!("{out}{err}"));
        (out, err, serde_json::from_str::<Value>(&text).unwrap())
    };
    let (_, _, bare) = import(&[], "bare.json");
    // No `documentation` at all: the matrix then shows these clauses undocumented (no link).
    assert!(bare.get("documentation").is_none(), "{bare}");
    let (out, err, with) = import(&["--profile", p.to_str().unwrap()], "with.json");
    assert_eq!(doc(&with, TRACING)["status"], "documented", "{out}{err}");
    assert_eq!(doc(&with, METADATA)["status"], "n/a");
    assert_eq!(with["platform"]["profile"]["name"], "vendor");
    assert!(err.contains("warning[K1102]"), "{err}");
    // The same clauses judged from the log either way.
    assert_eq!(bare["clauses"], with["clauses"]);
}
