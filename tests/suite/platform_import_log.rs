//! `kcontract platform import-log`: the vendors' published `go test -v` logs of Knative's runtime
//! conformance suite read as platform columns (`crates/platform/src/import_log.rs`), through the real
//! binary; and the log reader itself, whose result must not depend on how parallel tests
//! interleave their lines.

use std::collections::BTreeMap;
use std::path::Path;

use kcontract_platform::import_log::{Outcome, parse};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::cli::{kcontract, root};
use crate::common::platform_reports::clause;

/// The two vendors' runtime logs (upstream/README.md): platform name, file.
const LOGS: &[(&str, &str)] = &[
    (
        "google-cloud-run",
        "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
    ),
    (
        "ibm-cloud-code-engine",
        "upstream/knative/conformance-logs/2022-11-15-ibm-cloud-code-engine.serving_runtime_e2e.log",
    ),
];

/// `kcontract --spec spec platform import-log --platform PLATFORM LOG --report REPORT`.
fn run(platform: &str, log: &Path, report: &Path) -> (i32, String, String) {
    kcontract(
        &root(),
        &[
            "--spec",
            "spec",
            "platform",
            "import-log",
            "--platform",
            platform,
            log.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    )
}

/// `import-log` of `log` as `platform`: exit code, stdout, stderr, the report (if written).
fn import(platform: &str, log: &Path) -> (i32, String, String, Option<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let (code, out, err) = run(platform, log, &report);
    let value = std::fs::read(&report)
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap());
    (code, out, err, value)
}

/// A test's result lines in a log, read independently of the reader under test: every
/// `--- SKIP|PASS|FAIL: name` word for `name`.
fn result_words(log: &str, name: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix("--- ")?;
            let (word, rest) = l.split_once(": ")?;
            (rest.split(' ').next() == Some(name)).then(|| word.to_owned())
        })
        .collect()
}

#[test]
fn the_vendor_logs_become_columns() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/run-report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (platform, file) in LOGS {
        let path = root().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let (code, out, err, report) = import(platform, &path);
        assert_eq!(code, 0, "{out}{err}");
        let r = report.expect("a report");
        let problems: Vec<String> = validator.iter_errors(&r).map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(r["platform"]["kind"], "conformance-log");
        assert_eq!(r["platform"]["runtime"], "knative conformance log");
        assert_eq!(r["platform"]["host"], *platform);
        assert_eq!(r["platform"]["profile"]["name"], *platform);
        assert_eq!(
            r["platform"]["date"],
            file.split('/').next_back().unwrap()[..10]
        );
        assert_eq!(
            r["platform"]["probe"]["sha256"],
            kcontract_platform::report::sha256(text.as_bytes())
        );
        // Round trip through the reader the matrix uses.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("r.json");
        std::fs::write(&copy, r.to_string()).unwrap();
        kcontract_platform::report::read(&copy).expect("the matrix's reader reads it");

        let port = clause(&r, "config.env.port");
        assert_eq!(port["status"], "pass", "{port}");
        assert_eq!(port["evidence"]["TestMustEnvVars"], "pass");
        let user = clause(&r, "config.user.run-as-specified");
        assert_eq!(user["status"], "not-run", "{user}");
        assert_eq!(user["evidence"]["TestMustRunAsUser"], "skip");
        assert!(
            user["message"]
                .as_str()
                .unwrap()
                .contains("TestMustRunAsUser"),
            "{user}"
        );
        // No clause passes unless every test it names has only PASS lines in the log, and at
        // least one of them (judged from the raw lines, not by the reader under test).
        let mut passes = 0;
        for c in r["clauses"].as_array().unwrap() {
            let tests: Vec<&str> = c["evidence"]
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if c["status"] != "pass" {
                continue;
            }
            passes += 1;
            assert!(!tests.is_empty(), "{c}");
            for t in tests {
                let words = result_words(&text, t);
                assert!(
                    !words.is_empty() && words.iter().all(|w| w == "PASS"),
                    "{} passes but {t} has {words:?}",
                    c["id"]
                );
                let skipped_subtests = text
                    .lines()
                    .filter(|l| l.trim_start().starts_with(&format!("--- SKIP: {t}/")))
                    .count();
                assert_eq!(skipped_subtests, 0, "{} passes on {t}", c["id"]);
            }
        }
        // The figures docs/platforms.md and the README give.
        assert_eq!(
            (passes, &r["summary"]["not-run"]),
            (26, &serde_json::json!(41))
        );
        // Every testable clause has its entry, and clauses without an upstream test say why.
        let listed = kcontract(&root(), &["--spec", "spec", "list", "--format", "json"]).1;
        let listed: Value = serde_json::from_str(&listed).unwrap();
        for c in listed["clauses"].as_array().unwrap() {
            if c["verify"] == "untestable" {
                continue;
            }
            let e = clause(&r, c["id"].as_str().unwrap());
            // A clause no test of the suite decides (neither its `upstream-tests:` nor import-log's
            // table of the suite's other tests) has no check, and says why.
            if c["upstream_tests"].as_array().unwrap().is_empty() && e["check"].is_null() {
                assert_eq!(e["status"], "not-run");
                assert!(e["message"].as_str().unwrap().contains("upstream-tests"));
            }
        }
    }
}

/// A failing test fails its clauses and the command; a skipped one never passes them.
#[test]
fn a_failed_test_fails_its_clause_and_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("vendor.log");
    std::fs::write(
        &log,
        "=== RUN   TestMustEnvVars\n=== RUN   TestShouldEnvVars\n--- FAIL: TestMustEnvVars (1.00s)\n--- SKIP: TestShouldEnvVars (0.00s)\nFAIL\n",
    )
    .unwrap();
    let (code, out, _, report) = import("acme", &log);
    assert_eq!(code, 1, "{out}");
    let r = report.expect("the report is written all the same");
    assert_eq!(clause(&r, "config.env.port")["status"], "fail");
    assert_eq!(clause(&r, "config.env.knative-names")["status"], "not-run");
    assert!(out.contains("failed: config.env.port"), "{out}");
}

/// Input that is not a log, or not a file, is a clear error (exit 1), a bad name a usage error.
#[test]
fn bad_input_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "hello\n").unwrap();
    crate::common::cli::mkfifo(&d.join("fifo"));
    let mut out = String::new();
    for (name, file) in [
        ("acme", "missing.log"),
        ("acme", "notes.txt"),
        ("acme", "fifo"),
        ("two words", "notes.txt"),
    ] {
        let (code, stdout, stderr) = run(name, &d.join(file), &d.join("r.json"));
        let stderr = stderr.replace(d.to_str().unwrap(), "TMP");
        out.push_str(&format!("$ {name} {file}\nexit {code}\n{stdout}{stderr}\n"));
    }
    assert!(!d.join("r.json").exists(), "no report on bad input");
    insta::assert_snapshot!(out);
}

// --- The reader ---------------------------------------------------------------------------------

/// One test's lines in a log: its `=== RUN`, maybe `=== PAUSE`/`=== CONT`, some output, and its
/// result line (indented for a subtest).
fn lines_of(name: &str, outcome: Option<Outcome>, paused: bool) -> Vec<String> {
    let depth = name.matches('/').count();
    let mut v = vec![format!("=== RUN   {name}")];
    if paused {
        v.push(format!("=== PAUSE {name}"));
        v.push(format!("=== CONT  {name}"));
    }
    v.push(format!(
        "    {}.go:12: --- FAIL: {name} is only output",
        depth
    ));
    if let Some(o) = outcome {
        let word = match o {
            Outcome::Pass => "PASS",
            Outcome::Skip => "SKIP",
            Outcome::Fail => "FAIL",
            Outcome::Unfinished => unreachable!(),
        };
        v.push(format!(
            "{}--- {word}: {name} (0.01s)",
            "    ".repeat(depth)
        ));
    }
    v
}

fn outcome() -> impl Strategy<Value = Option<Outcome>> {
    prop_oneof![
        Just(Some(Outcome::Pass)),
        Just(Some(Outcome::Skip)),
        Just(Some(Outcome::Fail)),
        Just(None),
    ]
}

proptest! {
    /// However the lines of parallel tests interleave, the log reads the same: each test's result,
    /// `unfinished` for one without a result line, and nothing from output lines.
    #[test]
    fn any_interleaving_reads_the_same(
        tests in proptest::collection::btree_map(
            "Test[A-D][a-z]{0,3}(/[a-z_]{1,4})?",
            (outcome(), any::<bool>()),
            1..12,
        ),
        seed in any::<u64>(),
    ) {
        let expected: BTreeMap<String, Outcome> = tests
            .iter()
            .map(|(n, (o, _))| (n.clone(), o.unwrap_or(Outcome::Unfinished)))
            .collect();
        let lines: Vec<String> = tests
            .iter()
            .flat_map(|(n, (o, p))| lines_of(n, *o, *p))
            .collect();
        let in_order = parse(&lines.join("\n"));
        prop_assert_eq!(&in_order.results, &expected);
        // A deterministic shuffle from the seed (xorshift), so a failure replays.
        let mut shuffled = lines.clone();
        let mut s = seed | 1;
        for i in (1..shuffled.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            shuffled.swap(i, (s % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(parse(&shuffled.join("\n")), in_order);
    }
}

/// A vendor's runtime and API logs read as one: the API suite's test decides its clause, and a
/// clause that also names a skipped runtime test stays not-run.
#[test]
fn runtime_and_api_logs_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("2022-04-11-both.log");
    let mut text = String::new();
    for suite in ["runtime", "api"] {
        text += &std::fs::read_to_string(root().join(format!(
            "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_{suite}_e2e.log"
        )))
        .unwrap();
    }
    std::fs::write(&both, text).unwrap();
    let (code, out, _, report) = import("google-cloud-run", &both);
    assert_eq!(code, 0, "{out}");
    let r = report.unwrap();
    let failed = clause(&r, "network.probes.deployment-failed-revision");
    assert_eq!(failed["status"], "pass", "{failed}");
    let start = clause(&r, "network.probes.deployment-start");
    assert_eq!(start["status"], "not-run", "{start}");
    assert_eq!(start["evidence"]["TestContainerExitingMsg"], "pass");
    assert_eq!(start["evidence"]["TestProbeRuntime"], "skip");
    assert_eq!(r["summary"]["pass"], 27);
}

// --- The suite read whole (issue #47) -----------------------------------------------------------

/// The third vendor's runtime log, run with Knative 1.3's suite, and the same run as `go test
/// -json` events and a JUnit report, both made from it by `tests/fixtures/import-log/convert.py`.
const ANTHOS: &str =
    "upstream/knative/conformance-logs/2022-04-13-google-cloud-run-for-anthos.serving_runtime_e2e";

/// `import-log` of one run in its three forms gives one report: the same clauses, the same
/// results printed, the same unmapped results named (the first line says which form was read).
#[test]
fn the_three_forms_of_one_run_give_one_report() {
    let forms = [
        ("log", "go test -v"),
        ("json", "go test -json"),
        ("junit.xml", "JUnit XML"),
    ];
    let mut seen: Option<(Value, String, String)> = None;
    for (ext, form) in forms {
        let path = root().join(format!("{ANTHOS}.{ext}"));
        let (code, out, err, report) = import("anthos", &path);
        assert_eq!(code, 0, "{ext}: {err}");
        let clauses = report.unwrap()["clauses"].clone();
        let (first, rest) = err.split_once('\n').unwrap();
        assert!(
            first.starts_with("platform import-log: 50 tests in ") && first.contains(form),
            "{first}"
        );
        let rest = rest.replace(&path.display().to_string(), "LOG");
        assert!(
            rest.contains("warning[K1123]: 12 of the log's 50 results decide no clause"),
            "{rest}"
        );
        match &seen {
            None => seen = Some((clauses, out, rest)),
            Some((c, o, r)) => {
                assert_eq!(&clauses, c, "{ext}: the clauses");
                assert_eq!(&out, o, "{ext}: the results printed");
                assert_eq!(&rest, r, "{ext}: the unmapped results");
            }
        }
    }
    let (_, _, unmapped) = seen.unwrap();
    for name in [
        "TestCmdArgs",
        "TestSecretsViaEnv/envFrom",
        "TestProtocols/h2c",
    ] {
        assert!(unmapped.contains(&format!("  {name} ")), "{unmapped}");
    }
}

/// The four probe-port cases of the 1.3 suite decide `network.probes.http-or-tcp-on-port`, which
/// no test of today's suite does; and a failure of one fails it (a negative control).
#[test]
fn the_probe_port_subtests_decide_the_probe_clause() {
    let (code, out, _, report) = import("anthos", &root().join(format!("{ANTHOS}.log")));
    assert_eq!(code, 0, "{out}");
    let r = report.unwrap();
    let e = clause(&r, "network.probes.http-or-tcp-on-port");
    assert_eq!(e["status"], "pass", "{e}");
    for port in [
        "TestReadinessHTTPProbePort",
        "TestLivenessHTTPProbePort",
        "TestReadinessTCPProbePort",
        "TestLivenessTCPProbePort",
    ] {
        assert_eq!(
            e["evidence"][format!("TestMustNotContainerConstraints/{port}")],
            "pass",
            "{e}"
        );
    }
    // The default user: a pass decides `config.user.platform-default`.
    assert_eq!(clause(&r, "config.user.platform-default")["status"], "pass");

    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("vendor.log");
    std::fs::write(
        &log,
        "=== RUN   TestMustNotContainerConstraints\n=== RUN   TestMustNotContainerConstraints/TestReadinessTCPProbePort\n    --- FAIL: TestMustNotContainerConstraints/TestReadinessTCPProbePort (1.00s)\n=== RUN   TestShouldRunAsUserContainerDefault\n--- FAIL: TestShouldRunAsUserContainerDefault (1.00s)\n--- FAIL: TestMustNotContainerConstraints (1.00s)\nFAIL\n",
    )
    .unwrap();
    let (code, out, _, report) = import("acme", &log);
    assert_eq!(code, 1, "{out}");
    let r = report.unwrap();
    assert_eq!(
        clause(&r, "network.probes.http-or-tcp-on-port")["status"],
        "fail"
    );
    // Another default user than the image's is allowed: that failure decides nothing.
    let user = clause(&r, "config.user.platform-default");
    assert_eq!(user["status"], "not-run", "{user}");
    assert_eq!(
        user["evidence"]["TestShouldRunAsUserContainerDefault"],
        "fail (undecided)"
    );
}

/// A result no clause is decided by is named with a warning (K1123); `--require-tests` fails
/// when the log lacks a listed test (K1124) and passes when it holds them all.
#[test]
fn unmapped_results_are_named_and_required_tests_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("vendor.log"),
        "=== RUN   TestMustEnvVars\n--- PASS: TestMustEnvVars (1.00s)\n=== RUN   TestCmdArgs\n--- PASS: TestCmdArgs (1.00s)\n=== RUN   TestSomethingNew\n--- PASS: TestSomethingNew (0.50s)\nPASS\n",
    )
    .unwrap();
    std::fs::write(
        d.join("all.txt"),
        "# what we ran\nTestMustEnvVars\ntest/conformance/runtime/cmd_args_test.go#TestCmdArgs\n",
    )
    .unwrap();
    std::fs::write(
        d.join("more.txt"),
        "TestMustEnvVars\nTestMustHaveFiles\nTestShouldEnvVars\n",
    )
    .unwrap();
    let with = |list: &str| {
        kcontract(
            d,
            &[
                "--spec",
                root().join("spec").to_str().unwrap(),
                "platform",
                "import-log",
                "--platform",
                "acme",
                "vendor.log",
                "--report",
                "r.json",
                "--require-tests",
                list,
            ],
        )
    };
    let (code, _, err) = with("all.txt");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K1124"), "{err}");
    let (code, _, err2) = with("more.txt");
    assert_eq!(code, 1, "{err2}");
    assert!(
        d.join("r.json").exists(),
        "the report is written all the same"
    );
    let (code, _, err3) = with("missing.txt");
    assert_eq!(code, 1, "{err3}");
    insta::assert_snapshot!(format!(
        "$ --require-tests all.txt\n{err}\n$ --require-tests more.txt\n{err2}\n$ --require-tests missing.txt\n{err3}"
    ));
}
