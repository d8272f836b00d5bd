//! The spec follows the upstream contract: every RFC 2119 keyword the upstream uses ends up in the
//! text of a clause of the same level, with its upstream wording, and every keyword the upstream
//! links to a Knative conformance test file is in a clause that names a test of that file.
//!
//! The upstream is `upstream/knative/runtime-contract.knative-specs.md` (knative/specs
//! `specs/serving/runtime-contract.md` at c6ebb0c3, the revision `spec/contract.yaml` names). For
//! each keyword occurrence we take the keyword and up to three following words (stopping at the end
//! of a sentence or table cell) and look for that phrase, whitespace-normalised, in a clause whose
//! level is the keyword's level. The upstream writes some keywords as links to a test file
//! (`[SHOULD NOT](https://github.com/knative/serving/blob/main/test/conformance/runtime/container_test.go)`);
//! a clause keeps the keyword plain and names the test itself in `upstream-tests:`
//! (`…/container_test.go#TestShouldNotContainerConstraints/TestPoststartHook`), so the link is read
//! off before the phrase is taken.

use std::collections::BTreeSet;
use std::path::Path;

use kcontract_spec::keywords::find_keywords;
use kcontract_spec::load;

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const UPSTREAM: &str = "upstream/knative/runtime-contract.knative-specs.md";

/// Where the upstream's links from a keyword to a test file point: the file view of knative/serving.
const TEST_LINK_BASE: &str = "https://github.com/knative/serving/blob/main/";

/// The upstream's keyword links whose test file checks nothing of the clause: (clause, file, why).
/// The clause does not name that file; everything else the upstream links is named.
const LINKS_THAT_TEST_NOTHING: &[(&str, &str, &str)] = &[
    (
        "network.probes.http-or-tcp-on-port",
        "test/conformance/runtime/container_test.go",
        "its probe cases (TestReadinessHTTPProbePort, …) were removed by knative/serving #12606 \
         (afe46a93, 2022-03-07), when a probe port other than the container port became allowed",
    ),
    (
        "network.probes.deployment-failed-revision",
        "test/conformance/runtime/readiness_probe_test.go",
        "TestProbeRuntime deploys only containers that become ready and TestProbeRuntimeAfterStartup \
         fails readiness after startup; a failed deployment is test/conformance/api/v1/\
         errorcondition_test.go#TestContainerExitingMsg",
    ),
];

/// The upstream text with each keyword link `[KEYWORD](URL)` replaced by the keyword, and for each
/// link the offset of its keyword in the returned text and the URL.
fn without_keyword_links(text: &str) -> (String, Vec<(usize, String)>) {
    let mut out = String::with_capacity(text.len());
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let link = after.find("](").and_then(|close| {
            let word = &after[..close];
            let url_len = after[close + 2..].find(')')?;
            let is_keyword = find_keywords(word)
                .first()
                .is_some_and(|h| h.range == (0..word.len()));
            is_keyword.then(|| {
                (
                    word,
                    &after[close + 2..close + 2 + url_len],
                    close + 2 + url_len + 1,
                )
            })
        });
        match link {
            Some((word, url, len)) => {
                links.push((out.len(), url.to_string()));
                out.push_str(word);
                rest = &after[len..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, links)
}

/// What [`coverage`] found.
struct Coverage {
    /// Keyword uses in no clause of their level.
    missing: Vec<String>,
    /// Keyword links to a test file whose clause cites no test of that file.
    unlinked: Vec<String>,
    /// Keyword uses in the upstream text.
    hits: usize,
    /// Keyword links in the upstream text, and how many of them were checked.
    links: usize,
    links_checked: usize,
}

/// Compare the upstream text at `upstream_file` with the spec folder `spec_dir` (both relative to
/// the repository): each keyword use in a clause of its level, each keyword link in a clause that
/// cites a test of the linked file.
fn coverage(upstream_file: &str, spec_dir: &str) -> Coverage {
    coverage_of(upstream_file, spec_dir, false)
}

/// [`coverage`]; with `two_levels` (an earlier version, an import nobody edits), a keyword may
/// also be in a clause of another level that carries a `review:` note (a sentence holding two
/// levels, left for a person to split), and the keywords' links to tests are not checked (an
/// earlier version cites no tests).
fn coverage_of(upstream_file: &str, spec_dir: &str, two_levels: bool) -> Coverage {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream_path = root.join(upstream_file);
    let upstream = std::fs::read_to_string(&upstream_path)
        .unwrap_or_else(|e| panic!("{} is needed for this test: {e}", upstream_path.display()));
    // Table pipes and the `<p>` line break inside a table cell are layout, not wording.
    let upstream = upstream.replace("<p>", " | ");
    let (upstream, links) = without_keyword_links(&upstream);

    let loaded = load(&root.join(spec_dir));
    assert!(!loaded.has_errors(), "{spec_dir} has errors");
    let clauses: Vec<(&kcontract_spec::Clause, String)> = loaded
        .spec
        .clauses
        .iter()
        .map(|c| {
            // An earlier version's clauses keep upstream's keyword links in their text.
            let text = if two_levels {
                without_keyword_links(&c.text).0
            } else {
                c.text.clone()
            };
            (c, normalise(&text))
        })
        .collect();

    let hits = find_keywords(&upstream);
    let mut missing = Vec::new();
    let mut unlinked = Vec::new();
    let mut links_seen = 0;
    for h in &hits {
        // Whitespace-separated tokens from the keyword on: the keyword's own words, then three more,
        // stopping after a token that ends a sentence or clause.
        let kw_words = upstream[h.range.clone()].split_whitespace().count();
        let mut phrase: Vec<String> = Vec::new();
        for (i, word) in upstream[h.range.start..]
            .split_whitespace()
            .take(kw_words + 3)
            .enumerate()
        {
            if word == "|" {
                break;
            }
            let end = word.ends_with(['.', ',', ';', ':']);
            phrase.push(word.trim_end_matches(['.', ',', ';', ':']).to_string());
            if end && i + 1 >= kw_words {
                break;
            }
        }
        let phrase = phrase.join(" ");
        let line = upstream[..h.range.start].matches('\n').count() + 1;
        let holding: Vec<&kcontract_spec::Clause> = clauses
            .iter()
            .filter(|(c, text)| {
                (c.level == h.level || two_levels && c.review.is_some()) && text.contains(&phrase)
            })
            .map(|(c, _)| *c)
            .collect();
        if holding.is_empty() {
            missing.push(format!("line {line}: {} «{phrase}»", h.level));
            continue;
        }
        // An earlier version cites no tests: its keywords' links are not checked.
        let Some((_, url)) = links
            .iter()
            .find(|(at, _)| *at == h.range.start && !two_levels)
        else {
            continue;
        };
        links_seen += 1;
        let file = url.strip_prefix(TEST_LINK_BASE).unwrap_or_else(|| {
            panic!("line {line}: the keyword links to {url}, not to a file of knative/serving")
        });
        // The phrase can be in two clauses ("MUST be set" of `Host` and of `Forwarded`): the clause
        // a link belongs to is the one that also has the words before the keyword, up to three,
        // from the start of the paragraph, list item or sentence on.
        let para = upstream[..h.range.start].rfind("\n\n").map_or(0, |i| i + 2);
        let before: Vec<&str> = upstream[para..h.range.start].split_whitespace().collect();
        let from = before
            .iter()
            .rposition(|w| *w == "-" || *w == "|" || w.ends_with(['.', ';', ':']))
            .map_or(0, |i| i + 1)
            .max(before.len().saturating_sub(3));
        let wide = format!("{} {phrase}", before[from..].join(" "));
        let holding: Vec<&kcontract_spec::Clause> = holding
            .into_iter()
            .filter(|c| normalise(&c.text).contains(wide.trim()))
            .collect();
        if holding.is_empty() {
            unlinked.push(format!(
                "line {line}: {} «{}» (linked to {file}) is in no clause",
                h.level,
                wide.trim()
            ));
            continue;
        }
        let names_file = |c: &kcontract_spec::Clause| {
            c.upstream_tests
                .iter()
                .any(|t| t.split_once('#').map_or(t.as_str(), |(f, _)| f) == file)
        };
        let excused = |c: &kcontract_spec::Clause| {
            LINKS_THAT_TEST_NOTHING
                .iter()
                .any(|(id, f, _)| *id == c.id && *f == file)
        };
        if !holding.iter().any(|c| names_file(c) || excused(c)) {
            let ids: Vec<&str> = holding.iter().map(|c| c.id.as_str()).collect();
            unlinked.push(format!(
                "line {line}: {} «{phrase}» links to {file}, which no upstream-tests entry of {} names",
                h.level,
                ids.join(", ")
            ));
        }
    }
    Coverage {
        missing,
        unlinked,
        hits: hits.len(),
        links: links.len(),
        links_checked: links_seen,
    }
}

#[test]
fn every_upstream_keyword_is_inside_a_clause_of_its_level() {
    let Coverage {
        missing,
        unlinked,
        hits,
        links,
        links_checked,
    } = coverage(UPSTREAM, "spec");
    assert!(
        missing.is_empty(),
        "{} upstream keyword occurrences are not in a clause of their level:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(
        unlinked.is_empty(),
        "{} upstream keyword links to a test file are not among the clause's upstream-tests:\n{}",
        unlinked.len(),
        unlinked.join("\n")
    );
    // The scan saw the text: the upstream uses 102 keywords, 24 of them linked to a test file.
    assert!(hits >= 100, "only {hits} keywords found upstream");
    assert!(
        links >= 24 && links_checked == links,
        "{links} keyword links found upstream, {links_checked} of them checked"
    );
}

/// The upstream text an earlier version of `history:` was imported from: the file
/// `upstream/knative/history/index.tsv` lists for its revision.
fn earlier_upstream(root: &Path, revision: &str) -> String {
    let index = std::fs::read_to_string(root.join("upstream/knative/history/index.tsv")).unwrap();
    let file = index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f[3] == revision)
        .unwrap_or_else(|| panic!("no upstream text for {revision} in index.tsv"))[6];
    format!("upstream/knative/history/{file}")
}

/// Each earlier version of `history:` is a complete spec that loads without errors, its entry's
/// url names the upstream revision it gives, and it has every keyword of that upstream text (the
/// version index.tsv lists for the revision) in a clause of its level, or in a sentence of two
/// levels the import left with a review note: the folder is the whole earlier version, not a part
/// of it.
#[test]
fn every_earlier_version_is_whole_and_follows_its_upstream_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("spec");
    let loaded = load(&spec);
    assert!(!loaded.has_errors());
    let history = &loaded.spec.contract.history;
    assert!(
        history.len() >= 13,
        "spec/contract.yaml lists {} earlier versions",
        history.len()
    );
    for v in history {
        let earlier = load(&v.dir(&spec));
        assert!(!earlier.has_errors(), "{} has errors", v.path);
        assert!(v.url.contains(&v.revision), "{}", v.path);
        let text = earlier_upstream(root, &v.revision);
        let c = coverage_of(&text, &format!("spec/{}", v.path), true);
        assert!(
            c.missing.is_empty(),
            "{}:\n{}",
            v.path,
            c.missing.join("\n")
        );
        assert!(c.hits >= 60, "only {} keywords in {text}", c.hits);
    }
}

/// Each exception names a clause that exists and a file the upstream does link from it: an
/// exception left behind after the upstream or the spec changed is an error, not a silent pass.
#[test]
fn the_links_that_test_nothing_are_still_linked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream = std::fs::read_to_string(root.join(UPSTREAM)).expect("upstream text");
    let loaded = load(&root.join("spec"));
    for (id, file, _) in LINKS_THAT_TEST_NOTHING {
        let clause = loaded
            .spec
            .clauses
            .iter()
            .find(|c| c.id == *id)
            .unwrap_or_else(|| panic!("{id} is not a clause"));
        assert!(
            upstream.contains(&format!("{TEST_LINK_BASE}{file})")),
            "the upstream no longer links {file}"
        );
        assert!(
            !clause.upstream_tests.iter().any(|t| t.starts_with(file)),
            "{id} names {file} after all: drop the exception"
        );
    }
}

#[test]
fn the_keyword_links_are_read_off() {
    let (text, links) = without_keyword_links(
        "a [SHOULD NOT](https://x/a_test.go)\nbe set; [offer it](https://y) [MUST](u) [`MAY`](v)",
    );
    assert_eq!(
        text,
        "a SHOULD NOT\nbe set; [offer it](https://y) MUST [`MAY`](v)"
    );
    assert_eq!(
        links,
        vec![
            (2, "https://x/a_test.go".to_string()),
            (43, "u".to_string())
        ]
    );
}

#[test]
fn the_boilerplate_mentions_are_not_uses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream = std::fs::read_to_string(root.join(UPSTREAM)).expect("upstream text");
    let start = upstream.find("The key words").expect("boilerplate present");
    let end = start + upstream[start..].find("\n\n").expect("paragraph end");
    assert_eq!(find_keywords(&upstream[start..end]), vec![]);
}

#[test]
fn the_shipped_spec_has_at_least_80_clauses() {
    let loaded = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("spec"));
    assert!(!loaded.has_errors());
    assert!(
        loaded.spec.clauses.len() >= 80,
        "{}",
        loaded.spec.clauses.len()
    );
}

/// The test names of a `go test -v` log, as `kcontract platform import-log` reads them.
fn names_in_go_test_log(log: &str) -> BTreeSet<String> {
    kcontract_platform::import_log::parse(log)
        .names()
        .map(str::to_owned)
        .collect()
}

/// The vendors' published logs of Knative's conformance suites (`upstream/knative/conformance-logs/`):
/// every test name that ran, and how many logs were read.
fn names_in_vendor_logs(root: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let dir = root.join("upstream/knative/conformance-logs");
    let (mut all, mut runtime) = (BTreeSet::new(), BTreeSet::new());
    let mut logs = 0;
    for e in std::fs::read_dir(&dir).expect("upstream/knative/conformance-logs") {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "log") {
            let names = names_in_go_test_log(&std::fs::read_to_string(&path).unwrap());
            assert!(!names.is_empty(), "{} names no test", path.display());
            if path.to_string_lossy().contains("serving_runtime") {
                runtime.extend(names.iter().cloned());
            }
            all.extend(names);
            logs += 1;
        }
    }
    assert_eq!(
        logs, 5,
        "three vendors' runtime logs, two of their API logs"
    );
    (all, runtime)
}

/// `upstream/knative/conformance-tests.txt`: `<file>#<Function>` and `<file>#<Function>/<subtest>`,
/// derived from knative/serving (its provenance is in the file and in upstream/README.md).
fn upstream_test_list(root: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(root.join("upstream/knative/conformance-tests.txt"))
        .expect("upstream/knative/conformance-tests.txt");
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (file, test) = l
                .split_once('#')
                .unwrap_or_else(|| panic!("not file#Test: {l}"));
            assert!(
                file.ends_with("_test.go") && test.starts_with("Test"),
                "{l}"
            );
            (file.to_string(), test.to_string())
        })
        .collect()
}

/// Every `upstream-tests` entry of the spec, as `kcontract list --format json` gives them, names a
/// test function (and subtest) of a file of knative/serving's conformance suites that the vendors'
/// logs show ran: a file path alone, a misspelt function or a subtest of another function fails.
#[test]
fn every_upstream_test_entry_names_a_test_that_ran_upstream() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(root)
        .args(["--spec", "spec", "list", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let known = upstream_test_list(root);
    let files: BTreeSet<&str> = known.iter().map(|(f, _)| f.as_str()).collect();
    let (ran, _) = names_in_vendor_logs(root);
    let (mut checked, mut wrong) = (0, Vec::new());
    for c in list["clauses"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        for entry in c["upstream_tests"].as_array().unwrap() {
            let entry = entry.as_str().unwrap();
            checked += 1;
            let Some((file, test)) = entry.split_once('#') else {
                wrong.push(format!(
                    "{id}: `{entry}` names a file, not a test function (`{entry}#TestX`)"
                ));
                continue;
            };
            if !files.contains(file) {
                wrong.push(format!(
                    "{id}: `{file}` is not a file of upstream/knative/conformance-tests.txt"
                ));
            } else if !known.contains(&(file.to_string(), test.to_string())) {
                wrong.push(format!("{id}: `{file}` has no test `{test}`"));
            } else if !ran.contains(test) {
                wrong.push(format!("{id}: `{test}` is not in the vendors' logs"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "upstream-tests entries that name no test:\n{}",
        wrong.join("\n")
    );
    // 39 entries today: a gate must not pass because it selected nothing.
    assert!(
        checked >= 35,
        "only {checked} upstream-tests entries checked"
    );
}

/// The committed list of upstream tests is not stale against the vendors' runs: every test the two
/// runtime logs show (functions and subtests) is in it, in some file.
#[test]
fn the_upstream_test_list_has_every_test_the_runtime_logs_ran() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let known: BTreeSet<String> = upstream_test_list(root)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let (_, runtime) = names_in_vendor_logs(root);
    // A test upstream has since removed (the 1.3 suite's probe-port cases, in the 2022-04-13 log)
    // is not in today's list: `import-log`'s table of the suite names it with its removal.
    let removed = |n: &str| {
        kcontract_platform::import_log::suite::entry(n).is_some_and(|e| e.removed.is_some())
    };
    // A subtest named at run time (TestProbeRuntime's) is not in the list, which has only literal
    // names: it is known when its function is and the list has no literal subtest of it.
    let named_at_run_time = |n: &str| {
        n.split_once('/').is_some_and(|(f, _)| {
            known.contains(f) && !known.iter().any(|k| k.starts_with(&format!("{f}/")))
        })
    };
    let missing: Vec<&String> = runtime
        .iter()
        .filter(|n| !known.contains(*n) && !removed(n) && !named_at_run_time(n))
        .collect();
    assert!(
        runtime.len() >= 30,
        "{} names in the runtime logs",
        runtime.len()
    );
    assert!(
        missing.is_empty(),
        "not in upstream/knative/conformance-tests.txt: {missing:?}"
    );
}

#[test]
fn go_test_log_names_are_read() {
    let log = "=== RUN   TestA\n=== PAUSE TestA\n    --- PASS: TestA/sub_1 (0.01s)\n--- SKIP: TestB (0.00s)\n    x.go:3: --- PASS: no\nPASS\n";
    let names: Vec<String> = names_in_go_test_log(log).into_iter().collect();
    assert_eq!(names, ["TestA", "TestA/sub_1", "TestB"]);
}

/// The repository's files: `git ls-files` in a checkout; in an archive without `.git`, every file
/// under the root but `target/`, `node_modules/` and the fuzzer's local corpus and artifacts.
fn repository_files(root: &Path) -> Vec<std::path::PathBuf> {
    let git = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    if let Ok(out) = git
        && out.status.success()
    {
        return out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect();
    }
    let skip = ["target", "node_modules", ".git", "corpus", "artifacts"];
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && skip.iter().any(|s| e.file_name() == *s)))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

/// A clone has no folder beside it: nothing in the repository may read the development machine's
/// `shared` folder (the upstream texts the tests read are in `upstream/`, with their sources).
#[test]
fn no_file_of_the_repository_names_the_folder_beside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Spelled in two pieces so that this file does not name it.
    let needles = [format!("../{}", "shared"), format!("{}/upstream", "shared")];
    let files = repository_files(root);
    assert!(files.len() > 100, "only {} files found", files.len());
    let mut found = Vec::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue; // deleted in the working tree but still in the index
        };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|needle| line.contains(needle.as_str())) {
                let rel = path.strip_prefix(root).unwrap_or(path);
                found.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files of the repository name the folder beside the checkout, which a clone does not have \
         (copy what is needed into upstream/, with its source):\n{}",
        found.join("\n")
    );
}
