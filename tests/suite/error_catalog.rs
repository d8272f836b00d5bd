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
// A clause block in a list item is read like any other: its problems point into the item.
case!(
    k0104_in_a_list_item,
    "1. First step.\n2. ```clause\n   id: one.a\n   level: SHOULD\n   actor: platform\n   text: >-\n     The platform\n     MUST do it.\n   verify: manual\n   ```\n"
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
    "> a quote\n>\n> ```clause\n> id: one.a\n> ```\n"
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
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: conformance\nupstream-tests:\n  - ../conformance/runtime/envvars_test.go\n```\n"
);
case!(
    k0118_undefined_link_reference,
    "See [the RFC][rfc-2119] and [Keys][].\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST follow [RFC 2119][rfc-2119]; [plain brackets] are text.\nverify: manual\n```\n\n[rfc2119]: https://www.rfc-editor.org/rfc/rfc2119\n"
);
case!(
    k0120_open_code_block_swallows_a_clause,
    "An example:\n\n```sh\nkcontract check\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST.\nverify: manual\n```\n"
);
// A clause block's opening line mistyped: its requirement would be code, listed nowhere. A code
// example (YAML that is no clause, a clause block shown inside a longer fence) is not reported.
case!(
    k0121_mistyped_clause_fence,
    "```Clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n\n```yaml\nid: one.b\nlevel: MAY\nactor: platform\ntext: The platform MAY do more.\nverify: manual\n```\n\n```yaml\nid: web\nlevel: 3\n```\n\n````markdown\n```clause\nid: one.c\nlevel: MAY\n```\n````\n"
);
/// A clause block left open at the end of the file (and one in a list item) still reads, warned;
/// an error under `--strict`.
#[test]
fn k0122_clause_block_never_closed() {
    let files = |args| {
        run(&[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/one.md", b"# One\n\n- A step:\n  ```clause\n  id: one.a\n  level: MUST\n  actor: platform\n  text: The platform MUST do it.\n  verify: manual\n- Next.\n\n```clause\nid: one.b\nlevel: MAY\nactor: platform\ntext: The platform MAY do more.\nverify: manual\n"),
        ], args)
    };
    insta::assert_snapshot!(format!(
        "{}\n=== with --strict\n{}",
        files(&["check"]),
        files(&["check", "--strict"])
    ));
}
case!(
    k0123_clause_block_runs_on,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n\n## Two\n\nSome prose: that the block swallowed.\n\n```clause\nid: one.b\nlevel: MAY\nactor: platform\ntext: The platform MAY do more.\nverify: manual\n```\n"
);
// The negative control: the same first clause, closed, with a real YAML error in it, is still
// K0101 with its quoting hint, not K0123.
case!(
    k0123_not_for_a_closed_block,
    "```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\nreason: `code` first\n```\n\nSome prose: after the block.\n"
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

/// A contract.yaml with comments only says it holds no document, not the YAML reader's "unexpected
/// end of input".
#[test]
fn k0010_contract_without_a_document() {
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", b"# to be written\n\n"),
            ("spec/en/one.md", b"# One\n"),
        ],
        &["check"],
    ));
}

/// `history:` and `upstream.revision`: a bad name, a name listed twice, paths that leave the spec
/// folder or name a folder without contract.yaml, revisions and dates that are not; the last entry
/// is good and raises nothing.
#[test]
fn k0015_history_and_revision() {
    let contract = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n\
upstream: {title: t, url: u, revision: HEAD, license: Apache-2.0, attribution: a}\n\
history:\n\
  - {name: Old, path: /abs/old, url: u, revision: 95e6390a, date: 2019-04-28}\n\
  - {name: two, path: history/../two, url: u, revision: 95E6390A, date: 2019-4-28}\n\
  - {name: two, path: history/missing, url: u, revision: 95e6390a, date: 2019-13-01}\n\
  - {name: three, path: history/three, url: u, revision: c6ebb0c3be6a9b95b8826ff629970858428f1c5d, date: 2024-01-11}\n";
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", contract.as_bytes()),
            ("spec/en/one.md", b"# One\n"),
            ("spec/history/three/contract.yaml", CONTRACT.as_bytes()),
            ("spec/history/three/en/one.md", b"# One\n"),
        ],
        &["check"],
    ));
}

/// `build` loads each earlier version to show what changed since: one that does not load (here a
/// clause without its fields) stops the build, its errors shown in its own files, then K0016 at
/// its `history:` entry; nothing is written.
#[test]
fn k0016_an_earlier_version_with_errors() {
    let contract = format!(
        "{CONTRACT}history:\n  - {{name: old, path: history/old, url: u, revision: 95e6390a, date: 2019-04-28}}\n"
    );
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", contract.as_bytes()),
            (
                "spec/en/one.md",
                format!("# One\n\n{GOOD_CLAUSE}").as_bytes()
            ),
            ("spec/history/old/contract.yaml", CONTRACT.as_bytes()),
            (
                "spec/history/old/en/one.md",
                b"# One\n\n```clause\nid: one.good\ntext: The platform MUST do it.\n```\n"
            ),
        ],
        &["build", "--out", "site"],
    ));
}

/// In a clause block too, a quoted value left open is shown on the line its quote opens, not on
/// the next field's, and a tab in the indentation at the tab.
/// A key with nothing after it says so, in the editor's words, not the reader's advice to
/// programmers ("use Option<String>"); the same in contract.yaml (K0010).
#[test]
fn k0101_k0010_a_key_without_a_value() {
    let contract = b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n".as_slice();
    let chapter = b"# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext:\nverify: manual\n```\n".as_slice();
    insta::assert_snapshot!(format!(
        "{}\n=== contract.yaml\n{}",
        run(
            &[
                ("spec/contract.yaml", contract),
                ("spec/en/one.md", chapter)
            ],
            &["check"],
        ),
        run(
            &[
                (
                    "spec/contract.yaml",
                    b"title:\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n".as_slice()
                ),
                ("spec/en/one.md", b"# One\n".as_slice()),
            ],
            &["check"],
        )
    ));
}

/// A value in a message is shown as written (`MUSTN'T`, not `MUSTN\'T`), but a character that
/// would act on the terminal (here an escape sequence that colours red) is written as an escape.
#[test]
fn k0109_k0110_values_shown_as_written_but_control_characters_escaped() {
    let out = run(
        &[
            (
                "spec/contract.yaml",
                b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n".as_slice(),
            ),
            (
                "spec/en/one.md",
                b"# One\n\n```clause\nid: one.a\nlevel: MUSTN'T\nactor: \"x\\e[31my\"\ntext: It MUST run.\nverify: manual\n```\n".as_slice(),
            ),
        ],
        &["check"],
    );
    assert!(out.contains("unknown level `MUSTN'T`"), "{out}");
    assert!(out.contains("unknown actor `x\\u{1b}[31my`"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
}

/// `tests:` patterns that do not parse, or are absolute paths (which would select nothing,
/// silently), are refused at their line.
#[test]
fn k0507_invalid_and_absolute_test_globs() {
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\ntests:\n  include: [\"/etc/**/*.rs\", \"../tests/**/*.rs\"]\n  exclude: [\"../tests/[ab.rs\"]\n".as_slice(),
            ),
            ("spec/en/one.md", b"# One\n".as_slice()),
        ],
        &["check"],
    ));
}

/// A translated clause's hints are a translator's: the fields a translation needs, and that a
/// clause translated twice loses one translation (not that it gets a new id).
#[test]
fn k0103_k0108_hints_for_a_translation() {
    let source = b"# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: It MUST run.\nverify: manual\n```\n\n```clause\nid: one.b\nlevel: MAY\nactor: platform\ntext: It MAY stop.\nverify: manual\n```\n";
    let translation = b"# Eins\n\n```clause\nid: one.a\ntext: Es MUSS (MUST) laufen.\n```\n\n```clause\nid: one.b\ntext: Es KANN (MAY) anhalten.\nsource: 0123456789ab\n```\n\n```clause\nid: one.b\ntext: Es DARF (MAY) anhalten.\nsource: 0123456789ab\n```\n";
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                b"title: T\nversion: 0.1.0\nlanguages: [en, de]\nchapters: [one]\n".as_slice(),
            ),
            ("spec/en/one.md", source.as_slice()),
            ("spec/de/one.md", translation.as_slice()),
        ],
        &["check"],
    ));
}

#[test]
fn k0101_unclosed_quote_and_tab_in_a_clause_block() {
    let contract = (
        "spec/contract.yaml",
        b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n".as_slice(),
    );
    insta::assert_snapshot!(format!(
        "{}\n=== a tab\n{}",
        run(
            &[
                contract,
                (
                    "spec/en/one.md",
                    b"# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: \"The platform MUST run.\nverify: manual\n```\n".as_slice()
                ),
            ],
            &["check"],
        ),
        run(
            &[
                contract,
                (
                    "spec/en/one.md",
                    b"# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: >-\n\tThe platform MUST run.\nverify: manual\n```\n".as_slice()
                ),
            ],
            &["check"],
        )
    ));
}

/// A misspelt field of a `history:` entry is named, with the fields it may have.
/// A quoted value left open is shown where its quote opens (the YAML reader stops lines later), and a
/// tab in the indentation is named as one, at the tab.
#[test]
fn k0010_unclosed_quote_and_tab() {
    let one = ("spec/en/one.md", b"# One\n".as_slice());
    insta::assert_snapshot!(format!(
        "{}\n=== a tab\n{}",
        run(
            &[
                (
                    "spec/contract.yaml",
                    b"title: \"T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n".as_slice()
                ),
                one,
            ],
            &["check"],
        ),
        run(
            &[
                (
                    "spec/contract.yaml",
                    b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters:\n\t- one\n".as_slice()
                ),
                one,
            ],
            &["check"],
        )
    ));
}

#[test]
fn k0010_history_unknown_field() {
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                format!("{CONTRACT}history:\n  - {{name: old, path: old, url: u, revison: 95e6390a, date: 2019-04-28}}\n").as_bytes()
            ),
            ("spec/en/one.md", b"# One\n"),
        ],
        &["check"],
    ));
}

/// A chapter that is a symbolic link out of the spec folder, and one that is a FIFO: neither is
/// read (the FIFO would have hung the command), each is named. The secret is in no output.
#[cfg(unix)]
#[test]
fn k0004_chapter_linked_out_of_the_spec_folder_or_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec");
    std::fs::create_dir_all(spec.join("en")).unwrap();
    std::fs::write(
        spec.join("contract.yaml"),
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, two]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("secret.txt"), "TOKEN=hunter2\n").unwrap();
    std::os::unix::fs::symlink("../../secret.txt", spec.join("en/one.md")).unwrap();
    crate::common::cli::mkfifo(&spec.join("en/two.md"));
    let out = run_in(dir.path(), &["check"]);
    assert!(!out.contains("hunter2"), "{out}");
    let real = std::fs::canonicalize(dir.path()).unwrap();
    insta::assert_snapshot!(out.replace(&real.display().to_string(), "[DIR]"));
}

#[test]
fn k0005_nul_byte_in_a_chapter() {
    insta::assert_snapshot!(chapter("Some prose with a \0 byte.\n"));
}

/// Chapters named like the site's own pages, and a language named like its assets folder.
#[test]
fn k0013_k0010_reserved_chapter_and_language_names() {
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                b"title: T\nversion: 0.1.0\nlanguages: [en, assets]\nchapters: [index, one, changes]\n"
            ),
            ("spec/en/index.md", b"# Index\n"),
            ("spec/en/one.md", b"# One\n"),
            ("spec/en/changes.md", b"# Changes\n"),
        ],
        &["check"],
    ));
}

/// Link bases and addresses that are not web links: a `javascript:` base, one hidden by a tab,
/// a `data:` upstream URL; a relative base is fine.
#[test]
fn k0017_addresses_that_are_not_web_links() {
    let contract = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n\
upstream: {title: t, url: \"data:text/html,x\", license: l, attribution: a}\n\
links:\n  oci: {base: \"javascript:alert(1)//\"}\n  upstream-tests: {base: \"java\\tscript:alert(2)//\"}\n  tests: {base: ../tests/}\n";
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", contract.as_bytes()),
            ("spec/en/one.md", b"# One\n"),
        ],
        &["check"],
    ));
}

/// A chapter's links with schemes the site does not publish: a warning each (the site shows `#`);
/// the https link beside them is fine.
#[test]
fn k0124_links_the_site_does_not_publish() {
    let one = "# One\n\nSee [a](javascript:alert(1)), [b](mailto:a@b.example) and [c](https://x.example/).\n\n```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it ([d](data:text/html,x)).\nverify: manual\n```\n";
    insta::assert_snapshot!(run(
        &[
            ("spec/contract.yaml", CONTRACT.as_bytes()),
            ("spec/en/one.md", one.as_bytes()),
        ],
        &["check"],
    ));
}

/// `build --out` into a folder holding a person's file: refused before anything is read or
/// written, the file kept.
#[test]
fn k0408_output_folder_that_is_not_a_site() {
    let dir = tempfile::tempdir().unwrap();
    for (p, c) in [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", ONE_GOOD),
        ("notes/todo.txt", "mine"),
    ] {
        std::fs::create_dir_all(dir.path().join(p).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(p), c).unwrap();
    }
    let out = run_in(dir.path(), &["build", "--out", "notes"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/todo.txt")).unwrap(),
        "mine"
    );
    insta::assert_snapshot!(out);
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

const CONTRACT_ZH: &str = "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";
const EN_TWO: &str = "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n\n```clause\nid: one.b\nlevel: MAY\nactor: platform\ntext: The platform MAY do more.\nverify: manual\n```\n";

fn bilingual(zh: &str, args: &[&str]) -> String {
    run(
        &[
            ("spec/contract.yaml", CONTRACT_ZH.as_bytes()),
            ("spec/en/one.md", EN_TWO.as_bytes()),
            ("spec/zh/one.md", zh.as_bytes()),
        ],
        args,
    )
}

/// `stamp` of "The platform MUST do it." (checked by `stamps_in_fixtures_are_current`).
const STAMP_A: &str = "87b30d4e0373";

#[test]
fn stamps_in_fixtures_are_current() {
    assert_eq!(kcontract_spec::stamp("The platform MUST do it."), STAMP_A);
}

#[test]
fn k0301_missing_translation_warning_and_strict() {
    let zh = format!(
        "# 一\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n"
    );
    insta::assert_snapshot!(format!(
        "{}\n=== with --strict\n{}",
        bilingual(&zh, &["check"]),
        bilingual(&zh, &["check", "--strict"])
    ));
}

#[test]
fn k0302_translation_of_unknown_clause() {
    let zh = format!(
        "# 一\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n\n```clause\nid: one.c\ntext: 平台可以（MAY）。\nsource: 000000000000\n```\n"
    );
    insta::assert_snapshot!(bilingual(&zh, &["check"]));
}

#[test]
fn k0303_stale_translation() {
    let zh = "# 一\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: 0123456789ab\n```\n\n```clause\nid: one.b\ntext: 平台可以（MAY）做更多。\nsource: pending\n```\n";
    insta::assert_snapshot!(bilingual(zh, &["check", "--strict"]));
}

#[test]
fn k0304_translation_changes_the_level() {
    let zh = format!(
        "# 一\n\n```clause\nid: one.a\ntext: 平台应该（SHOULD）这样做。\nsource: {STAMP_A}\n```\n"
    );
    insta::assert_snapshot!(bilingual(&zh, &["check"]));
}

/// A translation's mistyped clause block is reported as a source chapter's is (K0121); the clause
/// it should have translated is then missing (K0301).
#[test]
fn k0121_translation_with_a_mistyped_clause_fence() {
    let zh = format!(
        "# 一\n\n```claus\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n\n```yaml\nid: one.b\ntext: 平台可以（MAY）做更多。\nsource: 0123456789ab\n```\n"
    );
    insta::assert_snapshot!(bilingual(&zh, &["check"]));
}

#[test]
fn k0102_translation_with_inherited_field() {
    let zh = format!(
        "# 一\n\n```clause\nid: one.a\nlevel: MUST\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n"
    );
    insta::assert_snapshot!(bilingual(&zh, &["check"]));
}

/// A translation without a chapter's file: a warning naming the file (the chapter is shown from the
/// source), an error under `--strict`; and a stub (the source text kept) is a missing translation.
#[test]
fn k0310_chapter_without_translation_file_and_a_stub() {
    fn files(zh: Option<&str>) -> Vec<(&str, &[u8])> {
        let mut f: Vec<(&str, &[u8])> = vec![
            ("spec/contract.yaml", CONTRACT_ZH.as_bytes()),
            ("spec/en/one.md", EN_TWO.as_bytes()),
        ];
        f.extend(zh.map(|z| ("spec/zh/one.md", z.as_bytes())));
        f
    }
    let stub = format!(
        "# 一\n\n```clause\nid: one.a\ntext: The platform MUST do it.\nsource: {STAMP_A}\n```\n"
    );
    insta::assert_snapshot!(format!(
        "{}\n=== with --strict\n{}\n=== a stub\n{}",
        run(&files(None), &["check"]),
        run(&files(None), &["check", "--strict"]),
        run(&files(Some(&stub)), &["check"]),
    ));
}

/// `i18n add` cannot extend a `languages:` it does not recognise as a list.
#[test]
fn k0311_i18n_add_cannot_extend_languages() {
    insta::assert_snapshot!(run(
        &[
            (
                "spec/contract.yaml",
                b"title: T\nversion: 0.1.0\nlanguages: !!seq [en]\nchapters: [one]\n"
            ),
            (
                "spec/en/one.md",
                format!("# One\n\n{GOOD_CLAUSE}").as_bytes()
            ),
        ],
        &["i18n", "add", "de"],
    ));
}

#[test]
fn k0305_stamp_unknown_id() {
    let zh = format!(
        "# 一\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: {STAMP_A}\n```\n"
    );
    insta::assert_snapshot!(bilingual(&zh, &["i18n", "stamp", "one.zzz"]));
}

#[test]
fn k0013_bad_and_duplicate_chapter_names() {
    insta::assert_snapshot!(run(
        &[(
            "spec/contract.yaml",
            b"title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, One, one]\nupstream: {title: t, url: u, license: l, attribution: a}\n"
        )],
        &["check"],
    ));
}

#[test]
fn k0001_chapter_is_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en/one.md")).unwrap();
    std::fs::write(dir.path().join("spec/contract.yaml"), CONTRACT).unwrap();
    insta::assert_snapshot!(run_in(dir.path(), &["check"]));
}

fn good_spec() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("spec/contract.yaml", CONTRACT.as_bytes().to_vec()),
        (
            "spec/en/one.md",
            format!("# One\n\n{GOOD_CLAUSE}").into_bytes(),
        ),
    ]
}

fn run_owned(files: &[(&str, Vec<u8>)], args: &[&str]) -> String {
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (*p, b.as_slice())).collect();
    run(&borrowed, args)
}

#[test]
fn k0401_output_is_a_file() {
    let mut files = good_spec();
    files.push(("site", b"a file".to_vec()));
    insta::assert_snapshot!(run_owned(&files, &["build"]));
}

#[test]
fn k0402_templates_folder_missing() {
    insta::assert_snapshot!(run_owned(
        &good_spec(),
        &["build", "--templates", "nowhere"]
    ));
}

#[test]
fn k0403_template_error() {
    let mut files = good_spec();
    files.push(("tpl/chapter.html", b"{% extends \"base.html\" %}{% block content %}{{ blocks | no_such_filter }}{% endblock %}".to_vec()));
    insta::assert_snapshot!(run_owned(&files, &["build", "--templates", "tpl"]));
}

#[test]
fn k0406_unread_file_in_the_templates_folder() {
    let mut files = good_spec();
    files.push(("tpl/chaper.html", b"<p>typo</p>".to_vec()));
    files.push(("tpl/.gitkeep", Vec::new()));
    files.push(("tpl/assets/logo.svg", b"<svg/>".to_vec()));
    insta::assert_snapshot!(run_owned(&files, &["build", "--templates", "tpl"]));
}

#[test]
fn k0407_asset_named_like_a_search_index() {
    let mut files = good_spec();
    files.push((
        "tpl/assets/search-en.js",
        b"window.KC_SEARCH = [];".to_vec(),
    ));
    insta::assert_snapshot!(run_owned(&files, &["build", "--templates", "tpl"]));
}

#[test]
fn explain_prints_the_catalogue_entry() {
    // Without `run`'s `--spec`: explain reads no spec folder, and refuses the flag.
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = crate::common::cli::kcontract(dir.path(), &["explain", "K0104"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("## K0104: the level contradicts the text\n"),
        "{out}"
    );
    let (code, _, err) = crate::common::cli::kcontract(dir.path(), &["explain", "K9999"]);
    // An unknown code is a usage error (exit 2), like an unknown flag.
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no diagnostic `K9999`"), "{err}");
}

/// Every code the source can emit is documented, and every documented code has a snapshot here
/// (exceptions are named in their catalogue entry and listed below).
#[test]
fn catalogue_matches_the_code_and_the_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut emitted = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("src"), root.join("crates")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for (i, _) in text.match_indices("\"K") {
                    let code = &text[i + 1..(i + 6).min(text.len())];
                    if code.len() == 5
                        && code[1..].chars().all(|c| c.is_ascii_digit())
                        && text[i + 6..].starts_with('"')
                    {
                        emitted.insert(code.to_string());
                    }
                }
            }
        }
    }
    // The catalogue the binary embeds (`kcontract explain` reads the same file): its `## Kxxxx:`
    // headings.
    let catalogue = std::fs::read_to_string(root.join("docs/errors.md")).unwrap();
    let documented: std::collections::BTreeSet<String> = catalogue
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|l| l.split(':').next())
        .filter(|c| c.len() == 5 && c.starts_with('K'))
        .map(str::to_string)
        .collect();
    let undocumented: Vec<_> = emitted.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "codes without a docs/errors.md entry: {undocumented:?}"
    );
    let unused: Vec<_> = documented.difference(&emitted).collect();
    assert!(
        unused.is_empty(),
        "documented codes the source never emits: {unused:?}"
    );

    let snapshots: Vec<String> = std::fs::read_dir(root.join("tests/suite/snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // Failures to write or read that need an unwritable or unreadable place, which root (the tests'
    // user) does not have; their entries say so.
    let not_snapshot_testable = ["K0306", "K0512", "K0804", "K0805", "K0902"];
    for code in &documented {
        if not_snapshot_testable.contains(&code.as_str()) {
            continue;
        }
        let found = snapshots.iter().any(|s| {
            let body = std::fs::read_to_string(root.join("tests/suite/snapshots").join(s))
                .unwrap_or_default();
            body.contains(&format!("[{code}]"))
        });
        assert!(found, "no snapshot shows {code}");
    }
}

// --- The test authors' workflow (K05xx annotations and scaffold, K06xx results and matrix). ---

const ONE_GOOD: &str = "# One\n\n```clause\nid: one.good\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n";

fn project(extra: &[(&str, &[u8])], args: &[&str]) -> String {
    let mut files: Vec<(&str, &[u8])> = vec![
        ("spec/contract.yaml", CONTRACT.as_bytes()),
        ("spec/en/one.md", ONE_GOOD.as_bytes()),
    ];
    files.extend_from_slice(extra);
    run(&files, args)
}

#[test]
fn k0506_test_file_not_utf8() {
    insta::assert_snapshot!(project(
        &[("tests/x.rs", b"fn x() { \"\xff\" }\n")],
        &["check"]
    ));
}

#[test]
fn k0510_orphan_test_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    for (p, c) in [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", ONE_GOOD),
    ] {
        std::fs::create_dir_all(dir.path().join(p).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(p), c).unwrap();
    }
    assert!(run_in(dir.path(), &["scaffold"]).starts_with("exit: 0"));
    // The stub is written for real, then its clause renamed (same text, so the same stamp).
    let file = dir.path().join("tests/contract/one.rs");
    let written = std::fs::read_to_string(&file)
        .unwrap()
        .replace("todo!()", "assert!(true);");
    std::fs::write(&file, &written).unwrap();
    std::fs::write(
        dir.path().join("spec/en/one.md"),
        ONE_GOOD.replace("one.good", "one.better"),
    )
    .unwrap();
    let out = run_in(dir.path(), &["scaffold"]);
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        kept, written,
        "the written test is kept, and no stub is added beside it"
    );
    insta::assert_snapshot!(out);
}

/// An untouched stub of a removed clause is generated code: removed (issue #36), and `check`
/// then passes.
#[test]
fn removed_clause_takes_its_untouched_stub() {
    let dir = tempfile::tempdir().unwrap();
    let two = format!(
        "{ONE_GOOD}\n```clause\nid: one.gone\nlevel: MUST\nactor: platform\ntext: The platform MUST go.\nverify: manual\n```\n"
    );
    for (p, c) in [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", two.as_str()),
    ] {
        std::fs::create_dir_all(dir.path().join(p).parent().unwrap()).unwrap();
        std::fs::write(dir.path().join(p), c).unwrap();
    }
    assert!(run_in(dir.path(), &["scaffold"]).starts_with("exit: 0"));
    std::fs::write(dir.path().join("spec/en/one.md"), ONE_GOOD).unwrap();
    let out = run_in(dir.path(), &["scaffold", "--check"]);
    assert!(out.starts_with("exit: 1"), "{out}");
    assert!(!out.contains("+fn one_good"), "no second stub: {out}");
    let out = run_in(dir.path(), &["scaffold"]);
    assert!(out.contains("1 untouched stub removed"), "{out}");
    let text = std::fs::read_to_string(dir.path().join("tests/contract/one.rs")).unwrap();
    assert!(
        !text.contains("one_gone") && text.contains("fn one_good()"),
        "{text}"
    );
    let out = run_in(dir.path(), &["check"]);
    assert!(out.starts_with("exit: 0"), "{out}");
}

#[test]
fn k0520_crate_config_unusable() {
    insta::assert_snapshot!(project(
        &[("kcontract.toml", b"spec = \"spec\"\nselcet = \"MUST\"\n")],
        &["matrix"]
    ));
}

#[test]
fn k0520_crate_config_selects_nothing() {
    insta::assert_snapshot!(project(
        &[(
            "kcontract.toml",
            b"spec = \"spec\"\nselect = \"chapter:on\"\n"
        )],
        &["matrix"]
    ));
}

#[test]
fn k0521_exemption_without_reason_or_clause() {
    insta::assert_snapshot!(project(
        &[(
            "kcontract.toml",
            b"spec = \"spec\"\n\n[exempt]\n\"one.good\" = \"no\"\n\"one.goood\" = \"we do not run this\"\n"
        )],
        &["check"]
    ));
}

#[test]
fn k0607_results_of_another_crate() {
    insta::assert_snapshot!(project(
        &[
            ("Cargo.toml", b"[package]\nname = \"platform-tests\"\nversion = \"0.1.0\"\n"),
            ("tests/t.rs", b"/// Clause: one.good\n#[test]\nfn t() {}\n"),
            ("r.txt", b"     Running unittests src/lib.rs (target/debug/deps/other_tests-0123abcd)\n\nrunning 0 tests\n\ntest result: ok. 0 passed\n\n     Running tests/t.rs (target/debug/deps/t-99)\n\nrunning 1 test\ntest t ... ok\n\ntest result: ok. 1 passed\n\n   Doc-tests other_tests\n"),
        ],
        &["matrix", "--tests-root", ".", "--results", "r.txt"],
    ));
}

#[test]
fn k0611_coverage_dropped() {
    insta::assert_snapshot!(project(
        &[
            ("tests/t.rs", b"/// Clause: one.good\n#[test]\nfn t() { todo!() }\n"),
            ("coverage.json", b"{\n  \"format\": \"kcontract-coverage/1\",\n  \"selection\": null,\n  \"covered\": \"1/1 (100%)\",\n  \"clauses\": {\n    \"one.good\": \"implemented\"\n  }\n}\n"),
        ],
        &["matrix", "--format", "csv", "--ci", "coverage.json"],
    ));
}

#[test]
fn k0511_scaffold_out_of_date() {
    insta::assert_snapshot!(project(&[], &["scaffold", "--check"]));
}

#[test]
fn k0513_scaffold_target_not_utf8() {
    insta::assert_snapshot!(project(
        &[("tests/contract/bad.rs", b"fn x() { \"\xff\" }\n")],
        &["scaffold"]
    ));
}

#[test]
fn k0605_annotated_test_missing_from_results() {
    insta::assert_snapshot!(project(
        &[
            ("tests/t.rs", b"/// Clause: one.good\n#[test]\nfn t() { assert!(true) }\n\n/// Clause: one.good\n#[test]\nfn u() { assert!(true) }\n"),
            ("r.xml", b"<testsuites><testsuite name=\"p::t\"><testcase classname=\"p::t\" name=\"u\"/></testsuite></testsuites>\n"),
        ],
        &["matrix", "--format", "csv", "--results", "r.xml"],
    ));
}

#[test]
fn k0610_requirement_not_met() {
    insta::assert_snapshot!(project(
        &[],
        &["matrix", "--format", "csv", "--require", "MUST=passing"]
    ));
}

/// An empty catalogue says it holds no document.
#[test]
fn k0701_runtimes_catalogue_without_a_document() {
    insta::assert_snapshot!(project(
        &[("spec/runtimes/deviations.yaml", b"")],
        &["check"],
    ));
}

#[test]
fn k0701_runtimes_catalogue_malformed() {
    insta::assert_snapshot!(project(
        &[("spec/runtimes/deviations.yaml", b"format: kcontract-runtimes/1\nmeasured: {host: h, runtimes: [], differential: []}\ndeviations: []\nhooks: {summary: s, summary_zh: s, traces: []}\ncolour: red\n")],
        &["check"],
    ));
}

/// K0006: standard output that cannot be written (a full device) is a coded diagnostic, exit 1,
/// not a raw message or a panic.
#[test]
fn k0006_standard_output_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en")).unwrap();
    std::fs::write(dir.path().join("spec/contract.yaml"), CONTRACT).unwrap();
    std::fs::write(
        dir.path().join("spec/en/one.md"),
        format!("# One\n\n{GOOD_CLAUSE}"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir.path())
        .args(["--color", "never", "--spec", "spec", "list"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    insta::assert_snapshot!(format!(
        "exit: {}\n--- stderr\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stderr)
    ));
}
