//! Ids that survive a re-import: the clauses of a new import take the ids of the earlier import's
//! clauses whose statement they are, the same text or nearly (a reworded sentence, a level
//! changed).
//!
//! The rule, so that a person can predict it: two texts are compared by what they say as written —
//! their key words ([`crate::words::key_words`]: the plain words, markup and link targets left out,
//! neither stop words nor RFC 2119 keywords, lowercase, a plural `s` dropped) — as the Dice
//! coefficient of the two multisets (twice the words in common over the words of both). A new
//! clause takes an old clause's id when they have a similarity of at least [`SIMILAR`] at the same
//! level, or [`LEVEL_SIMILAR`] at another (a `SHOULD` made `MUST`, the words as good as kept); the
//! most similar pairs are matched first — a pair under the same section heading counting as a
//! little more similar ([`SAME_SECTION`]), so that a sentence repeated in several sections keeps
//! the id of its own section's; at equal similarity, those of the same level — each id once, so a
//! text that did not change always keeps its id.

use std::collections::BTreeMap;

use kcontract_spec::keywords::Level;

pub(super) use crate::words::similarity;

/// The least similarity at which a new clause takes the id of an old one of its level.
pub(super) const SIMILAR: f64 = 0.6;

/// The least similarity at which a new clause takes the id of an old one of another level: the
/// same statement with its level changed, not another statement of similar words.
pub(super) const LEVEL_SIMILAR: f64 = 0.85;

/// How much more similar two statements under the same section heading count when the pairs are
/// ranked (not when the thresholds are met).
const SAME_SECTION: f64 = 0.05;

/// The words [`similarity`] compares, sorted.
pub(super) fn words(text: &str) -> Vec<String> {
    crate::words::key_words(text, false)
}

/// Do two texts say the same words (markup, link targets and line breaks aside)?
pub(crate) fn same_meaning(a: &str, b: &str) -> bool {
    crate::words::plain(a) == crate::words::plain(b)
}

/// A clause as the matching sees it: its level, text and section (the slug of its heading's words).
pub(super) struct Statement<'a> {
    pub(super) level: Level,
    pub(super) text: &'a str,
    pub(super) section: &'a str,
}

/// For each new clause (by index) that takes an old id, that id: best pairs first (ties: the same
/// level first, then in the order of the new, then the old clauses), each side once.
pub(super) fn matches(
    new: &[Statement<'_>],
    old: &[(Statement<'_>, &str)],
) -> BTreeMap<usize, String> {
    let new_words: Vec<Vec<String>> = new.iter().map(|s| words(s.text)).collect();
    let old_words: Vec<Vec<String>> = old.iter().map(|(s, _)| words(s.text)).collect();
    let new_plain: Vec<String> = new.iter().map(|s| crate::words::plain(s.text)).collect();
    let old_plain: Vec<String> = old
        .iter()
        .map(|(s, _)| crate::words::plain(s.text))
        .collect();
    let mut pairs = Vec::new();
    for (i, n) in new.iter().enumerate() {
        for (j, (o, _)) in old.iter().enumerate() {
            let same_level = n.level == o.level;
            // The same text always matches, even with no key words at all.
            let s = if new_plain[i] == old_plain[j] {
                2.0
            } else {
                similarity(&new_words[i], &old_words[j])
            };
            if s >= if same_level { SIMILAR } else { LEVEL_SIMILAR } {
                let near = if n.section == o.section {
                    SAME_SECTION
                } else {
                    0.0
                };
                pairs.push((s + near, !same_level, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let mut taken_new = vec![false; new.len()];
    let mut taken_old = vec![false; old.len()];
    let mut out = BTreeMap::new();
    for (_, _, i, j) in pairs {
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
        Statement {
            level,
            text,
            section: "",
        }
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
            (
                st(Level::Should, "The producer SHOULD sign every event."),
                "p.sign",
            ),
        ];
        let new = [
            // Another level and another verb: another statement.
            st(
                Level::Should,
                "A consumer SHOULD log events it cannot parse.",
            ),
            st(
                Level::Must,
                "Producers MUST put a unique id into every event.",
            ),
            // The same words, stronger: the same statement, its level changed.
            st(Level::Must, "The producer MUST sign every event."),
        ];
        assert_eq!(
            matches(&new, &old),
            BTreeMap::from([(1, "p.id".to_string()), (2, "p.sign".to_string())])
        );
    }

    /// Two statements of the same words at two levels keep their own ids, whatever their order.
    #[test]
    fn the_same_level_wins_a_tie() {
        let old = [
            (st(Level::Must, "The variables MUST be set:"), "v.must"),
            (
                st(Level::Should, "The variables SHOULD be set:"),
                "v.should",
            ),
        ];
        let new = [
            st(Level::Should, "The variables SHOULD be set:"),
            st(Level::Must, "The variables MUST be set:"),
        ];
        assert_eq!(
            matches(&new, &old),
            BTreeMap::from([(0, "v.should".to_string()), (1, "v.must".to_string())])
        );
        // A link on the keyword is not a change of words.
        assert!(same_meaning(
            "The variables [MUST](https://x/a_test.go) be set:",
            "The variables MUST\nbe set:"
        ));
    }

    /// A sentence repeated under several headings keeps the id of its own section's.
    #[test]
    fn a_repeated_sentence_keeps_its_sections_id() {
        let at = |section, text| Statement {
            level: Level::Must,
            text,
            section,
        };
        let old = [
            (
                at("masked", "The option MUST be set by operators."),
                "masked.op",
            ),
            (
                at("readonly", "The option MUST be set by operators."),
                "readonly.op",
            ),
        ];
        let new = [
            at("readonly", "The option MUST be set by operators only."),
            at("masked", "The option MUST be set by operators only."),
        ];
        assert_eq!(
            matches(&new, &old),
            BTreeMap::from([(0, "readonly.op".to_string()), (1, "masked.op".to_string())])
        );
    }
}
