//! The error catalogue: one small bad spec per class of problem, run through the real binary.
//! Each snapshot holds the exact diagnostic text and the exit code; review a changed snapshot like
//! code (`cargo insta review`), because it is what a spec editor will read.

use std::path::Path;
use std::process::Command;

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

const GOOD_CLAUSE: &str = "```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n";

/// Write `files` under a fresh temp dir (as `spec/...`), run `kcontract --spec spec <args>` there.
fn run(files: &[(&str, &[u8])], args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    run_in(dir.path(), args)
}

fn run_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .args(["--color", "never", "--spec", "spec"])
        .args(args)
        .output()
        .unwrap();
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn chapter(body: &str) -> String {
    run(
        &[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/one.md", format!("# One\n\n{body}").as_bytes()),
        ],
        &["check"],
    )
}

macro_rules! case {
    ($name:ident, $body:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(chapter($body));
        }
    };
}

case!(
    k0101_yaml_syntax,
    "```clause\nid: one.a\nlevel: MUST\ntext: \"unterminated\nverify: manual\n```\n"
);
case!(k0101_not_a_mapping, "```clause\n- id: one.a\n```\n");
case!(
    k0102_unknown_field,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverfy: manual\ncolour: red\n```\n"
);
case!(
    k0103_missing_fields,
    "```clause\nid: one.a\ntext: It MUST.\n```\n"
);
case!(
    k0104_level_contradicts_keyword,
    "```clause\nid: one.a\nlevel: SHOULD\nactor: platform\ntext: >-\n  The platform\n  MUST do it.\nverify: manual\n```\n"
);
case!(
    k0104_must_not_is_not_must,
    "```clause\nid: one.a\nlevel: MUST\nactor: developer\ntext: Developers MUST NOT set it.\nverify: manual\n```\n"
);
case!(
    k0105_no_keyword,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The container is sent a `SIGTERM`.\nverify: model\n```\n"
);
case!(
    k0106_two_levels,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST NOT be configurable, and MAY be set by the operator.\nverify: manual\n```\n"
);
case!(
    k0107_malformed_ids,
    "```clause\nid: Lifecycle.Kill\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\n```\n\n```clause\nid: lifecycle\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\n```\n\n```clause\nid: \"a.b\\u200Bc\"\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\n```\n"
);
case!(
    k0108_duplicate_id,
    &format!("{GOOD_CLAUSE}\nProse.\n\n{GOOD_CLAUSE}")
);
case!(
    k0109_unknown_level,
    "```clause\nid: one.a\nlevel: must\nactor: platform\ntext: It MUST.\nverify: manual\n```\n"
);
case!(
    k0110_unknown_actor,
    "```clause\nid: one.a\nlevel: MUST\nactor: operator\ntext: It MUST.\nverify: manual\n```\n"
);
case!(
    k0111_unknown_verify,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: unit\n```\n"
);
case!(
    k0112_untestable_without_reason,
    "```clause\nid: one.a\nlevel: MAY\nactor: platform\ntext: It MAY.\nverify: untestable\n```\n"
);
case!(
    k0114_nested_clause,
    "- a list item\n\n  ```clause\n  id: one.a\n  ```\n"
);
case!(
    k0115_implicit_with_keyword,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\nimplicit: because\n```\n"
);
case!(
    k0116_bad_oci_reference,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\noci: https://example.com/runtime.md\n```\n"
);
case!(
    k0117_bad_upstream_test,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: conformance\nupstream-tests:\n  - test/conformance/runtime/envvars.go\n```\n"
);
case!(
    k0201_keyword_in_prose,
    "Containers SHOULD start fast, but `MUST` in code and \"MAY\" quoted are fine.\n\n```text\nMUST in a code block is fine\n```\n\n| Mount | Rule |\n| --- | --- |\n| `/tmp` | MUST be read-write |\n"
);

#[test]
fn boilerplate_marker_exempts_one_paragraph_only() {
    insta::assert_snapshot!(chapter(
        "<!-- kcontract: rfc2119-boilerplate -->\nThe key words MUST and MAY are described in RFC 2119.\n\nBut this MAY is not exempt.\n"
    ));
}

#[test]
fn all_problems_reported_in_one_run() {
    // Problems in different blocks and files are all reported, sorted by position.
    let out = chapter(&format!(
        "It MUST.\n\n```clause\nid: Bad\n```\n\n{GOOD_CLAUSE}\n{GOOD_CLAUSE}"
    ));
    for code in ["K0201", "K0107", "K0103", "K0108"] {
        assert!(out.contains(code), "{code} missing from:\n{out}");
    }
    assert!(out.starts_with("exit: 1\n"), "{out}");
}

#[test]
fn k0002_invalid_utf8() {
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/one.md", b"# One\n\nCaf\xe9 au lait\n"),
        ],
        &["check"],
    ));
}

#[test]
fn k0003_missing_spec_dir() {
    insta::assert_snapshot!(run(&[], &["check"]));
}

#[test]
fn k0001_contract_yaml_missing() {
    insta::assert_snapshot!(run(&[("spec/en/one.md", b"# One\n")], &["check"]));
}

#[test]
fn k0010_contract_unknown_field() {
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                format!("{CONTRACT}chapter: [two]\n").as_bytes()
            ),
            ("spec/en/one.md", b"# One\n"),
        ],
        &["check"],
    ));
}

#[test]
fn k0011_k0012_chapter_missing_and_unlisted() {
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/two.md", b"# Two\n"),
        ],
        &["check"],
    ));
}

#[test]
fn usage_error_exits_2() {
    let out = run(&[], &["chek"]);
    assert!(out.starts_with("exit: 2\n"), "{out}");
}

#[test]
fn list_refuses_to_print_a_broken_spec() {
    let out = run(
        &[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/one.md", b"# One\n\nIt MUST.\n"),
        ],
        &["list", "--format", "json"],
    );
    assert!(
        out.starts_with("exit: 1\n--- stdout\n--- stderr\n"),
        "{out}"
    );
}
