//! `kcontract fmt`: the shipped spec is formatted; `--check` reports and writes nothing; `fmt`
//! fixes; and the property that matters most — formatting never changes what a spec says and is
//! idempotent — on random chapters in every style the loader accepts.
//!
//! `KCONTRACT_FMT_CASES` (default 64, about a second) sets the number of random specs; the
//! benchmark run (BENCHMARKS.md) uses 10,000.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kcontract_edit::fmt::{Meaning, format_chapter, format_chapter_with_kept};
use kcontract_spec::{LoadOptions, Tree, load_from};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .args(["--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_shipped_spec_is_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = run_in(root, &["fmt", "--check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !err.contains("K0806"),
        "a shipped block is outside the subset: {err}"
    );
    assert!(out.starts_with("ok: 10 files already formatted"), "{out}");
}

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

const UNFORMATTED: &str = "# One\nIntro.\n```clause\nverify: manual\nlevel: MUST\nid: one.a\nactor: \"platform\"\ntext: The platform MUST keep every line of a person's work, however long the line that holds it may be.\n```\n\n\n```clause\nid: one.b\nlevel: MAY\nactor: container\ntext: >-\n  The container MAY\n   write.\nverify: manual\n```\nEnd.\n";

#[test]
fn check_reports_writes_nothing_and_fmt_fixes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en")).unwrap();
    std::fs::write(dir.path().join("spec/contract.yaml"), CONTRACT).unwrap();
    let one = dir.path().join("spec/en/one.md");
    std::fs::write(&one, UNFORMATTED).unwrap();
    let (code, out, err) = run_in(dir.path(), &["fmt", "--check"]);
    assert_eq!(code, 1);
    assert_eq!(std::fs::read_to_string(&one).unwrap(), UNFORMATTED);
    insta::assert_snapshot!(format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}"));
    let (code, out, err) = run_in(dir.path(), &["fmt"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "formatted spec/en/one.md\nok: 1 file formatted, 0 unchanged\n"
    );
    let formatted = std::fs::read_to_string(&one).unwrap();
    insta::assert_snapshot!(formatted);
    // `one.b` (a deeper-indented line in a folded text: YAML keeps that line break) is outside
    // the plain subset; it is written anew as the literal text YAML reads, so nothing is left.
    assert!(
        formatted.contains("text: |-\n  The container MAY\n   write.\n"),
        "{formatted}"
    );
    let (code, out, _) = run_in(dir.path(), &["fmt", "--check"]);
    assert_eq!((code, out.as_str()), (0, "ok: 1 file already formatted\n"));
}

/// A block outside the subset fmt rewrites is kept byte for byte, with a warning, and the "ok" line
/// says so rather than reading as if every block were formatted.
#[test]
fn a_block_left_as_written_is_named_beside_the_ok() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en")).unwrap();
    std::fs::write(dir.path().join("spec/contract.yaml"), CONTRACT).unwrap();
    let text = "# One\n\n```clause\nid: one.a # a comment\nlevel: MUST\nactor: platform\ntext: The platform MUST do it.\nverify: manual\n```\n";
    std::fs::write(dir.path().join("spec/en/one.md"), text).unwrap();
    let (code, out, err) = run_in(dir.path(), &["fmt", "--check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning[K0806]"), "{err}");
    insta::assert_snapshot!(err);
    assert_eq!(
        out,
        "ok: 1 file already formatted (1 clause block left as written, above)\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("spec/en/one.md")).unwrap(),
        text
    );
}

/// A clause block in a list item of a chapter a translation shows untranslated: its lines are the
/// clause's, not the untranslated prose's, so formatting it keeps the meaning (it used to be
/// refused with K0804, the banner's prose holding the block's YAML as written).
#[test]
fn a_clause_in_a_list_of_an_untranslated_chapter_is_formatted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en")).unwrap();
    std::fs::write(
        dir.path().join("spec/contract.yaml"),
        CONTRACT.replace("[en]", "[en, zh]"),
    )
    .unwrap();
    let one = dir.path().join("spec/en/one.md");
    let item = "# One\n\n- Item:\n  ```clause\n  level: MUST\n  id: one.a\n  actor: platform\n  \
                text: The platform MUST do it.\n  verify: manual\n  ```\n- Next.\n";
    std::fs::write(&one, item).unwrap();
    let (code, out, err) = run_in(dir.path(), &["fmt"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "formatted spec/en/one.md\nok: 1 file formatted, 0 unchanged\n"
    );
    assert_eq!(
        std::fs::read_to_string(&one).unwrap(),
        item.replace(
            "  level: MUST\n  id: one.a\n",
            "  id: one.a\n  level: MUST\n"
        )
    );
}

#[test]
fn a_spec_with_errors_is_not_formatted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("spec/en")).unwrap();
    std::fs::write(dir.path().join("spec/contract.yaml"), CONTRACT).unwrap();
    let one = dir.path().join("spec/en/one.md");
    let broken = UNFORMATTED.replace("actor: container", "actor: nobody");
    std::fs::write(&one, &broken).unwrap();
    let (code, _, err) = run_in(dir.path(), &["fmt"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0110]") && err.contains("nothing was formatted"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&one).unwrap(), broken);
}

// --- The property: same meaning, idempotent. ---

/// A field value in one of the styles editors write, rendered as YAML lines after `key:`.
#[derive(Clone, Debug)]
enum Style {
    Plain,
    Quoted,
    /// Folded, breaking at the given word indices.
    Folded(Vec<usize>),
    /// A literal block (the value gets a list).
    Literal,
    /// Outside the plain subset the loader's fast path reads: single quotes, spaces after the
    /// colon, a literal block without its final line break.
    SingleQuoted,
    Spaced,
    LiteralStrip,
}

fn words() -> impl Strategy<Value = Vec<String>> {
    let word = prop_oneof![
        "[a-z]{1,8}",
        "[A-Z][a-z]{0,6}",
        Just("`SIGTERM`".to_owned()),
        Just("[link](https://example.com/a#b)".to_owned()),
        Just("\"quoted\"".to_owned()),
        Just("容器".to_owned()),
        Just("必须（MUST）".to_owned()),
        Just("a:b".to_owned()),
        Just("#hash".to_owned()),
        Just("1.5".to_owned()),
        Just("…".to_owned()),
        "[a-z]{30,60}",
    ];
    prop::collection::vec(word, 1..40)
}

fn style() -> impl Strategy<Value = Style> {
    prop_oneof![
        Just(Style::Plain),
        Just(Style::Quoted),
        prop::collection::vec(0usize..40, 0..6).prop_map(Style::Folded),
        Just(Style::Literal),
        Just(Style::SingleQuoted),
        Just(Style::Spaced),
        Just(Style::LiteralStrip),
    ]
}

/// `key: value` in `style`, or quoted when the style cannot hold the value exactly.
fn field(key: &str, words: &[String], style: &Style) -> String {
    let value = words.join(" ");
    match style {
        Style::Plain
            if !value.contains(": ")
                && !value.contains(" #")
                && !value.starts_with(['"', '`', '[', '#', '…'])
                && !value.ends_with(':') =>
        {
            format!("{key}: {value}\n")
        }
        Style::Folded(breaks) => {
            let mut s = format!("{key}: >-\n  ");
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    s.push(if breaks.contains(&i) { '\n' } else { ' ' });
                    if breaks.contains(&i) {
                        s.push_str("  ");
                    }
                }
                s.push_str(w);
            }
            s.push('\n');
            s
        }
        Style::Literal => format!("{key}: |\n  {value}\n\n  - one\n    - two\n"),
        Style::LiteralStrip => format!("{key}: |-\n  {value}\n  - one\n"),
        Style::SingleQuoted => format!("{key}: '{}'\n", value.replace('\'', "''")),
        Style::Spaced if !value.contains(": ") && !value.contains(" #") => {
            format!("{key}:   {}\n", serde_json::to_string(&value).unwrap())
        }
        _ => format!("{key}: {}\n", serde_json::to_string(&value).unwrap()),
    }
}

/// A clause block: fields in a random order, with random styles, blank lines and extras.
fn block() -> impl Strategy<Value = String> {
    (
        0usize..3,
        words(),
        style(),
        words(),
        style(),
        Just(()).prop_perturb(|_, mut rng| rng.random::<u64>()),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(level, text, text_style, reason, reason_style, order, tests, odd, flow)| {
                let (lv, kw) = [("MUST", "MUST"), ("SHOULD", "SHOULD"), ("MAY", "MAY")][level];
                let mut text = text;
                text.insert(0, kw.to_owned());
                text.insert(0, "platform".to_owned());
                text.insert(0, "The".to_owned());
                let mut fields = vec![
                    format!("id: one.c{}\n", order % 1000),
                    format!("level: {lv}\n"),
                    "actor: platform\n".to_owned(),
                    field("text", &text, &text_style),
                    "verify: untestable\n".to_owned(),
                    field("reason", &reason, &reason_style),
                ];
                if tests && flow {
                    fields.push(
                        "upstream-tests: [test/conformance/a_test.go, 'b_test.go']\n".to_owned(),
                    );
                } else if tests {
                    fields.push("upstream-tests:\n  - test/conformance/a_test.go\n".to_owned());
                }
                if odd {
                    fields.push("oci: runtime.md#kill # a comment\n".to_owned());
                }
                // A deterministic shuffle from `order`.
                let mut key = order;
                for i in (1..fields.len()).rev() {
                    fields.swap(i, (key % (i as u64 + 1)) as usize);
                    key /= i as u64 + 1;
                }
                let blank = if order % 5 == 0 { "\n" } else { "" };
                format!("```clause\n{}```\n", fields.join(blank))
            },
        )
}

fn chapter() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        block(),
        // A clause block in a list item, at the item's indent (the fence on the item's line or
        // under it).
        (block(), any::<bool>()).prop_map(|(b, on_marker)| {
            let indented: String = b
                .split_inclusive('\n')
                .enumerate()
                .map(|(i, l)| match (i, on_marker, l) {
                    (0, true, _) => format!("- {l}"),
                    (_, _, "\n") => l.to_owned(),
                    _ => format!("  {l}"),
                })
                .collect();
            if on_marker {
                indented
            } else {
                format!("- An item:\n{indented}")
            }
        }),
        Just("Some prose.\n".to_owned()),
        Just("## A heading\n".to_owned()),
        Just("- a list\n- of items\n".to_owned()),
        Just("    indented code   \n".to_owned()),
        Just("\n".to_owned()),
        Just("\n\n\n".to_owned()),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| format!("# One\n\n{}", p.concat()))
}

fn load(chapter: &str) -> Meaning {
    let mut files = BTreeMap::new();
    files.insert(
        PathBuf::from("s/contract.yaml"),
        CONTRACT.as_bytes().to_vec(),
    );
    files.insert(PathBuf::from("s/en/one.md"), chapter.as_bytes().to_vec());
    let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
    let codes: Vec<&str> = loaded.diagnostics.iter().map(|d| d.code).collect();
    Meaning::of(&loaded.spec, &codes)
}

#[test]
fn formatting_keeps_the_meaning_and_is_idempotent() {
    let cases = std::env::var("KCONTRACT_FMT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&chapter(), |src| {
            let once = format_chapter(&src);
            prop_assert_eq!(
                load(&src),
                load(&once),
                "meaning changed:\n{}\n---\n{}",
                src,
                once
            );
            let twice = format_chapter(&once);
            prop_assert_eq!(&twice, &once, "not idempotent");
            // Only a comment (or what may be one) keeps a block as written.
            for kept in format_chapter_with_kept(&src).1 {
                let block = &src[kept.start..];
                let block = &block[..block[3..].find("```").map_or(block.len(), |e| e + 6)];
                prop_assert!(block.contains('#'), "left as written:\n{}", block);
            }
            Ok(())
        })
        .unwrap();
}
