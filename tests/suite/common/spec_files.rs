//! This repository's spec as files in memory, for the tests that edit it and load it again
//! (`tests/reuse.rs`, `tests/edit.rs`): the loader reads them through `Tree::Memory`.

#![allow(clippy::disallowed_methods)] // shared with tests/contract: tests read the repository's own spec (clippy.toml)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The shipped spec's chapters, in contract order.
pub(crate) const CHAPTERS: [&str; 5] = [
    "abstract",
    "background",
    "runtime-and-lifecycle",
    "network-environment",
    "configuration",
];
/// Its languages, the source first.
pub(crate) const LANGS: [&str; 2] = ["en", "zh"];

/// The shipped spec as files in memory, under `s/`.
pub(crate) fn shipped() -> BTreeMap<PathBuf, Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec");
    let mut files = BTreeMap::new();
    files.insert(
        PathBuf::from("s/contract.yaml"),
        std::fs::read(root.join("contract.yaml")).unwrap(),
    );
    for lang in LANGS {
        for c in CHAPTERS {
            let rel = format!("{lang}/{c}.md");
            files.insert(
                Path::new("s").join(&rel),
                std::fs::read(root.join(&rel)).unwrap(),
            );
        }
    }
    files
}

/// The file of `chapter` in language number `lang`, under `s/`.
pub(crate) fn path(lang: usize, chapter: &str) -> PathBuf {
    Path::new("s")
        .join(LANGS[lang])
        .join(format!("{chapter}.md"))
}

/// Replace the `nth` occurrence of `what` (or the last one, when there are fewer).
pub(crate) fn replace_nth(text: &str, what: &str, with: &str, nth: usize) -> String {
    let hits: Vec<usize> = text.match_indices(what).map(|(i, _)| i).collect();
    let Some(&at) = hits.get(nth).or(hits.last()) else {
        return text.to_string();
    };
    format!("{}{with}{}", &text[..at], &text[at + what.len()..])
}
