//! The conversion lost nothing: every RFC 2119 keyword the upstream contract uses ends up in the text
//! of a clause of the same level, with its upstream wording.
//!
//! For each keyword occurrence in `upstream/knative/runtime-contract.en.md` we take the
//! keyword and up to three following words (stopping at the end of a sentence or table cell) and look
//! for that phrase, whitespace-normalised, in a clause whose level is the keyword's level.

use std::path::Path;

use kcontract::keywords::find_keywords;
use kcontract::load;

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_upstream_keyword_is_inside_a_clause_of_its_level() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream_path = root.join("upstream/knative/runtime-contract.en.md");
    let upstream = std::fs::read_to_string(&upstream_path)
        .unwrap_or_else(|e| panic!("{} is needed for this test: {e}", upstream_path.display()));
    // Table pipes and the `<p>` line break inside a table cell are layout, not wording.
    let upstream = upstream.replace("<p>", " | ");

    let loaded = load(&root.join("spec"));
    assert!(!loaded.has_errors(), "the shipped spec has errors");
    let clauses: Vec<(String, kcontract::spec::Level)> = loaded
        .spec
        .clauses
        .iter()
        .map(|c| (normalise(&c.text), c.level))
        .collect();

    let hits = find_keywords(&upstream);
    let mut missing = Vec::new();
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
        if !clauses
            .iter()
            .any(|(text, level)| *level == h.level && text.contains(&phrase))
        {
            let line = upstream[..h.range.start].matches('\n').count() + 1;
            missing.push(format!("line {line}: {} «{phrase}»", h.level));
        }
    }
    assert!(
        missing.is_empty(),
        "{} upstream keyword occurrences are not in a clause of their level:\n{}",
        missing.len(),
        missing.join("\n")
    );
    // The scan saw the text: the upstream uses about a hundred keywords.
    assert!(
        hits.len() >= 90,
        "only {} keywords found upstream",
        hits.len()
    );
}

#[test]
fn the_boilerplate_mentions_are_not_uses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upstream = std::fs::read_to_string(root.join("upstream/knative/runtime-contract.en.md"))
        .expect("upstream text");
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
