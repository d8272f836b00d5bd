//! Ids that survive a re-import: the clauses of a new import take the ids of the earlier import's
//! clauses whose statement they are, the same text or nearly (a reworded sentence).
//!
//! The rule, so that a person can predict it: two texts are compared by their key words — the
//! lowercase ASCII words that are neither stop words nor RFC 2119 keywords, a plural `s` dropped,
//! link targets left out — as the Dice coefficient of the two multisets (twice the words in
//! common over the words of both). A new clause takes an old clause's id when they have the same
//! level and a similarity of at least [`SIMILAR`]; the most similar pairs are matched first, each
//! id once, so a text that did not change (similarity 1) always keeps its id.

use std::collections::BTreeMap;

use kcontract_spec::keywords::Level;

/// The least similarity at which a new clause takes an old one's id.
pub(super) const SIMILAR: f64 = 0.6;

/// The words [`similarity`] compares, sorted.
pub(super) fn words(text: &str) -> Vec<String> {
    let plain = super::text::strip_link_targets(text);
    let mut out: Vec<String> = plain
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| Level::from_keyword(w).is_none() && *w != "NOT")
        .map(str::to_ascii_lowercase)
        .filter(|w| !super::text::is_stop(w))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect();
    out.sort();
    out
}

/// The key under which a text's id is kept: its words, in order of the text (the same text
/// whatever its line breaks or folding).
pub(super) fn key(text: &str) -> String {
    super::text::strip_link_targets(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Dice coefficient of two sorted word lists: 1 for the same words, 0 for none in common.
pub(super) fn similarity(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

/// A clause as the matching sees it: its level and text.
pub(super) struct Statement<'a> {
    pub(super) level: Level,
    pub(super) text: &'a str,
}

/// For each new clause (by index) that takes an old id, that id: best pairs first (ties in the
/// order of the new, then the old clauses), each side once.
pub(super) fn matches(
    new: &[Statement<'_>],
    old: &[(Statement<'_>, &str)],
) -> BTreeMap<usize, String> {
    let new_words: Vec<Vec<String>> = new.iter().map(|s| words(s.text)).collect();
    let old_words: Vec<Vec<String>> = old.iter().map(|(s, _)| words(s.text)).collect();
    let mut pairs = Vec::new();
    for (i, n) in new.iter().enumerate() {
        for (j, (o, _)) in old.iter().enumerate() {
            if n.level != o.level {
                continue;
            }
            // The same text always matches, even with no key words at all.
            let same = key(n.text) == key(o.text);
            let s = if same {
                2.0
            } else {
                similarity(&new_words[i], &old_words[j])
            };
            if s >= SIMILAR {
                pairs.push((s, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut taken_new = vec![false; new.len()];
    let mut taken_old = vec![false; old.len()];
    let mut out = BTreeMap::new();
    for (_, i, j) in pairs {
        if !taken_new[i] && !taken_old[j] {
            taken_new[i] = true;
            taken_old[j] = true;
            out.insert(i, old[j].1.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(level: Level, text: &str) -> Statement<'_> {
        Statement { level, text }
    }

    #[test]
    fn reworded_keeps_and_different_does_not() {
        let a = words("The producer MUST include a unique id in every event.");
        let b = words("Producers MUST put a unique id into every event.");
        assert!(similarity(&a, &b) >= SIMILAR, "{}", similarity(&a, &b));
        let c = words("A consumer MAY drop events it cannot parse.");
        assert!(similarity(&a, &c) < SIMILAR);
        let old = [
            (
                st(
                    Level::Must,
                    "The producer MUST include a unique id in every event.",
                ),
                "p.id",
            ),
            (
                st(Level::May, "A consumer MAY drop events it cannot parse."),
                "c.drop",
            ),
        ];
        let new = [
            st(
                Level::Should,
                "A consumer SHOULD log events it cannot parse.",
            ),
            st(
                Level::Must,
                "Producers MUST put a unique id into every event.",
            ),
        ];
        // The reworded one keeps its id; the other changed its level: a new statement.
        assert_eq!(
            matches(&new, &old),
            BTreeMap::from([(1, "p.id".to_string())])
        );
    }
}
