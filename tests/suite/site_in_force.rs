//! What is in force is the only thing shown as in force (issue #48, item 1): the search index, the
//! clause index and the chapter pages hold the current clauses only, and an earlier version's
//! clause (the Changes page's) is in the search index only as an entry not in force, with no level.
//!
//! Why: searching "L7 proxy" ranked first the 2019 "Developers MUST assume all traffic is
//! intermediated by an L7 proxy" with a red MUST badge, above today's "Developers can assume…";
//! "dev/log" likewise. site.js ranks an entry of a kind it does not know after everything in force
//! and marks it; the browser test (`browser.rs`) runs that ranking, this test holds the data it
//! ranks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::cli::{kcontract, root};

/// The kinds of index entries site.js ranks as in force (its `KIND_TIER`).
const IN_FORCE: [&str; 4] = ["clause", "deviation", "heading", "text"];

/// A fresh build of the repository's contract, in a temporary folder.
fn build() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let (code, _, err) = kcontract(&root(), &["build", "--out", site.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    (tmp, site)
}

/// The entries of `site/assets/search-LANG.js`.
fn index(site: &Path, lang: &str) -> Vec<Value> {
    let script = std::fs::read_to_string(site.join(format!("assets/search-{lang}.js"))).unwrap();
    let json = script
        .strip_prefix("window.KC_SEARCH = ")
        .expect("the index script starts with its variable")
        .trim_end()
        .trim_end_matches(';');
    serde_json::from_str::<Vec<Value>>(json).unwrap()
}

/// The ids of the contract's clauses in force, and the names of its chapters.
fn current() -> (BTreeSet<String>, Vec<String>) {
    let loaded = kcontract_spec::load(&root().join("spec"));
    assert!(!loaded.has_errors());
    let ids = loaded.spec.clauses.iter().map(|c| c.id.clone()).collect();
    let chapters = loaded
        .spec
        .documents
        .iter()
        .map(|d| d.chapter.clone())
        .collect();
    (ids, chapters)
}

/// Every value of `attr="…"` on a tag that starts with `open` in `html` (`<section class="clause`).
fn attr_of_tags(html: &str, open: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    html.match_indices(open)
        .filter_map(|(at, _)| {
            let tag = &html[at..at + html[at..].find('>')?];
            let from = tag.find(&needle)? + needle.len();
            Some(tag[from..from + tag[from..].find('"')?].to_string())
        })
        .collect()
}

/// Is the entry one site.js ranks as in force?
fn in_force(e: &Value) -> bool {
    IN_FORCE.contains(&e["kind"].as_str().unwrap_or(""))
}

#[test]
fn search_holds_earlier_clauses_only_as_not_in_force() {
    let (_tmp, site) = build();
    let (current, _) = current();
    for lang in ["en", "zh"] {
        let entries = index(&site, lang);
        let mut earlier = 0;
        for e in &entries {
            let id = e["id"].as_str();
            // Every entry with a level is a clause in force.
            if !e["level"].is_null() {
                assert_eq!(e["kind"], "clause", "{lang}: a level on a non-clause: {e}");
                assert!(
                    id.is_some_and(|id| current.contains(id)),
                    "{lang}: a level on a clause not in force: {e}"
                );
            }
            if e["kind"] == "clause" {
                assert!(id.is_some_and(|id| current.contains(id)), "{lang}: {e}");
            }
            // An entry of the Changes page that is not its heading is an earlier text.
            let on_changes = e["url"].as_str().unwrap().starts_with("changes.html#");
            if on_changes && e["kind"] != "heading" {
                earlier += 1;
                assert!(
                    !in_force(e),
                    "{lang}: an earlier text ranked as in force: {e}"
                );
                assert!(e["level"].is_null(), "{lang}: {e}");
                // Its words, not its Markdown (`[OCI interface](…)` was shown raw).
                assert!(!e["text"].as_str().unwrap().contains("]("), "{lang}: {e}");
            }
        }
        // The two queries of the issue: each finds an earlier clause, and it is not in force;
        // each also finds today's text, in force.
        for (query, old) in [
            (
                "L7 proxy",
                "protocols-and-ports.developers-assume-traffic-intermediated-l7-proxy",
            ),
            (
                "dev/log",
                "default-filesystems.dev-log-writable-socket-syslog",
            ),
        ] {
            let found: Vec<&Value> = entries
                .iter()
                .filter(|e| e["text"].as_str().unwrap().contains(query))
                .collect();
            let removed: Vec<&&Value> = found.iter().filter(|e| e["id"] == old).collect();
            if lang == "en" {
                assert!(!removed.is_empty(), "{lang}: {query:?} finds no {old}");
            }
            for e in removed {
                assert!(
                    !in_force(e) && e["level"].is_null(),
                    "{lang}: {query:?}: {e}"
                );
            }
            // Today's text of the L7 proxy (informative prose now); `/dev/log` is in no text
            // in force.
            if lang == "en" && query == "L7 proxy" {
                assert!(found.iter().any(|e| in_force(e)), "{lang}: {query:?}");
            }
        }
        if lang == "en" {
            assert!(
                earlier > 0,
                "the Changes page has no earlier clause to test with"
            );
        }
    }
}

#[test]
fn clause_index_and_chapters_hold_current_clauses_only() {
    let (_tmp, site) = build();
    let (current, chapters) = current();
    let earlier: BTreeSet<String> = index(&site, "en")
        .iter()
        .filter(|e| !in_force(e))
        .filter_map(|e| e["id"].as_str().map(String::from))
        .filter(|id| !current.contains(id))
        .collect();
    assert!(
        earlier.contains("protocols-and-ports.developers-assume-traffic-intermediated-l7-proxy"),
        "{earlier:?}"
    );
    for lang in ["en", "zh"] {
        let dir = site.join(lang);
        // The clause index: one row per clause in force, each linked to its card.
        let rows = std::fs::read_to_string(dir.join("clauses.html")).unwrap();
        assert_eq!(
            rows.matches("<tr data-level").count(),
            current.len(),
            "{lang}/clauses.html"
        );
        for id in &current {
            assert!(
                rows.contains(&format!("#{id}\"")),
                "{lang}/clauses.html: {id}"
            );
        }
        for id in &earlier {
            assert!(
                !rows.contains(&format!("#{id}\"")),
                "{lang}/clauses.html links to {id}, not in force"
            );
        }
        // The chapter pages: their clause cards are exactly the clauses in force.
        let mut cards = BTreeSet::new();
        for chapter in &chapters {
            let html = std::fs::read_to_string(dir.join(format!("{chapter}.html"))).unwrap();
            cards.extend(attr_of_tags(&html, "<section class=\"clause", "id"));
        }
        assert_eq!(
            cards, current,
            "{lang}: the clause cards of the chapter pages"
        );
    }
}
