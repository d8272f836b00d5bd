//! `scaffold --lang go` and `--lang python` (issue #52): regenerating Go or Python stubs never loses
//! a line of the team's work
//! (a property test in the style of `scaffold_props`: random contracts, random edits, random code
//! added, the contract changed, regenerated), and, with the `go` feature, its output passes
//! `go vet` and `go test` (every stub skipped).

use std::collections::{BTreeMap, BTreeSet};

use kcontract_trace::annotations::{Lang, parse_in};
use kcontract_trace::scaffold::{Stubs, plan_for};
use proptest::prelude::*;

use crate::scaffold_props::{ClauseGen, clause_gen, id, spec};

fn go() -> Stubs {
    Stubs::Go {
        package: "contract".into(),
    }
}

/// What `edit` writes in each language: the skip line of a stub, a real body for it, a helper
/// (given its number), a note inside a body, and the language.
struct Snippets {
    skip: &'static str,
    body: fn(usize) -> String,
    helper: fn(usize) -> String,
    note: fn(usize) -> String,
    lang: Lang,
    stubs: Stubs,
}

fn go_snippets() -> Snippets {
    Snippets {
        skip: "\tt.Skip(\"not yet written: ",
        body: |k| format!("\tif n := {k}; n < 0 {{\n\t\tt.Fatalf(\"edited {k}: %d\", n)\n\t}}"),
        helper: |k| {
            format!(
                "\n\n// helper{k} is the team's code between tests.\nfunc helper{k}() int {{ return {k} }}"
            )
        },
        note: |k| format!("\t// The team's note {k}.\n"),
        lang: Lang::Go,
        stubs: go(),
    }
}

fn python_snippets() -> Snippets {
    Snippets {
        skip: "    pytest.skip(\"not yet written: ",
        body: |k| format!("    n = {k}\n    assert n > 0, \"edited {k}\""),
        helper: |k| {
            format!(
                "\n\n# helper{k} is the team's code between tests.\ndef helper{k}():\n    return {k}"
            )
        },
        note: |k| format!("    # The team's note {k}.\n"),
        lang: Lang::Python,
        stubs: Stubs::Python,
    }
}

/// Each Go test of the files (`file`, `name`) with the ids it claims.
fn tests_in(
    files: &BTreeMap<String, String>,
    lang: Lang,
) -> BTreeMap<(String, String), Vec<String>> {
    let mut out = BTreeMap::new();
    for (file, text) in files {
        let syn = parse_in(lang, text).unwrap_or_else(|e| panic!("{file}: {e:?}\n{text}"));
        for f in &syn.fns {
            out.insert(
                (file.clone(), f.name.clone()),
                syn.claims_of(f).map(|s| s.id.clone()).collect(),
            );
        }
    }
    out
}

/// Edit the stubs picked by `edits` (a real body in place of the skip) and add a helper after
/// them; return the edited texts and the helpers, which must survive regeneration byte for byte.
fn edit(files: &mut BTreeMap<String, String>, edits: &[u8], sn: &Snippets) -> Vec<String> {
    let mut kept = Vec::new();
    let mut k = 0;
    for text in files.values_mut() {
        let skips: Vec<usize> = text.match_indices(sn.skip).map(|(i, _)| i).collect();
        for at in skips.into_iter().rev() {
            let e = edits.get(k).copied().unwrap_or(0);
            k += 1;
            let end = at + text[at..].find('\n').unwrap();
            match e % 4 {
                1 => {
                    let body = (sn.body)(k);
                    text.replace_range(at..end, &body);
                    kept.push(body);
                }
                2 => {
                    // After the stub: its closing brace in Go, its last line in Python.
                    let close = match sn.lang {
                        Lang::Go => end + text[end..].find("\n}").unwrap() + 2,
                        _ => end,
                    };
                    let helper = (sn.helper)(k);
                    text.insert_str(close, &helper);
                    kept.push(helper.trim().to_string());
                }
                3 => {
                    let line = (sn.note)(k);
                    text.insert_str(at, &line);
                    kept.push(line);
                }
                _ => {}
            }
        }
    }
    kept
}

fn check(gens: &[ClauseGen], edits: &[u8], sn: &Snippets) {
    let (a, b) = (spec(gens, false), spec(gens, true));
    let none = BTreeSet::new();
    let first = plan_for(&a, &BTreeMap::new(), &none, &sn.stubs).unwrap();
    assert!(
        first
            .files
            .keys()
            .all(|f| f.ends_with("_test.go") || (f.starts_with("test_") && f.ends_with(".py"))),
        "{:?}",
        first.files.keys()
    );
    let mut files = first.files.clone();
    let kept = edit(&mut files, edits, sn);
    let real: BTreeSet<String> = gens
        .iter()
        .enumerate()
        .filter(|(_, g)| g.real_elsewhere_b)
        .map(|(n, _)| id(n))
        .collect();
    let second = plan_for(&b, &files, &real, &sn.stubs).unwrap();
    let all: String = second.files.values().cloned().collect();
    for k in &kept {
        assert!(all.contains(k.as_str()), "lost:\n{k}\n---\n{all}");
    }
    // Every testable clause of the new contract has a test, unless a real test elsewhere claims
    // it; every test claiming a clause of the old one is still there (edited ones as orphans).
    let after = tests_in(&second.files, sn.lang);
    let claimed: BTreeSet<&String> = after.values().flatten().collect();
    for c in b.clauses.iter().filter(|c| !c.verify.is_untestable()) {
        assert!(
            claimed.contains(&c.id) || real.contains(&c.id),
            "{} has no test\n{all}",
            c.id
        );
    }
    let before = tests_in(&files, sn.lang);
    for ((file, name), ids) in &before {
        let edited = [(sn.body)(0), (sn.note)(0)].iter().any(|snippet| {
            let head: String = snippet.chars().take(8).collect();
            files[file].contains(&format!("{name}(t *testing.T) {{\n{head}"))
                || files[file].contains(&format!("{name}():\n{head}"))
        });
        if edited {
            assert_eq!(
                after.get(&(file.clone(), name.clone())),
                Some(ids),
                "{name} kept"
            );
        }
    }
    // Regenerating again changes nothing.
    let third = plan_for(&b, &second.files, &real, &sn.stubs).unwrap();
    assert_eq!(third.files, second.files);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn regenerating_go_stubs_never_loses_work(
        gens in prop::collection::vec(clause_gen(), 1..10),
        edits in prop::collection::vec(0u8..8, 0..12),
    ) {
        check(&gens, &edits, &go_snippets());
    }

    #[test]
    fn regenerating_python_stubs_never_loses_work(
        gens in prop::collection::vec(clause_gen(), 1..10),
        edits in prop::collection::vec(0u8..8, 0..12),
    ) {
        check(&gens, &edits, &python_snippets());
    }
}

/// The built-in contract's Go stubs in a module of their own: `go vet` accepts them and `go test`
/// runs them, every one skipped. A team's edit survives a second run.
#[test]
#[cfg_attr(not(feature = "go"), ignore = "needs Go: cargo test --features go")]
fn go_vet_accepts_the_stubs() {
    use crate::common::cli::kcontract;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/knative-contract\n\ngo 1.19\n",
    )
    .unwrap();
    let (code, out, err) = kcontract(dir, &["scaffold", "--lang", "go", "--out", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("_test.go"), "{out}");
    let go = |args: &[&str]| {
        let out = std::process::Command::new("go")
            .args(args)
            .current_dir(dir)
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOCACHE", dir.join(".gocache"))
            .output()
            .expect("go is installed (the `go` feature)");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (ok, said) = go(&["vet", "./..."]);
    assert!(ok, "go vet: {said}");
    let (ok, said) = go(&["test", "-v", "./..."]);
    assert!(ok, "go test: {said}");
    assert!(
        said.contains("--- SKIP: Test") && !said.contains("--- PASS"),
        "{said}"
    );
    // The package is the module's last path element.
    let some = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with("_test.go"))
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&some).unwrap();
    assert!(text.contains("\npackage knative_contract\n"), "{text}");
    // An edit survives regeneration, and the result still vets.
    let edited = text.replacen(
        "\tt.Skip(\"not yet written: ",
        "\tt.Log(\"checked by hand\")\n\tt.Skip(\"not yet written: ",
        1,
    );
    std::fs::write(&some, &edited).unwrap();
    let (code, _, err) = kcontract(dir, &["scaffold", "--lang", "go", "--out", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&some).unwrap(), edited);
    let (ok, said) = go(&["vet", "./..."]);
    assert!(ok, "go vet: {said}");
}
