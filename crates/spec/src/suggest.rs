//! "Did you mean …?": the nearest candidate by edit distance, for typos in field names and ids.

/// Levenshtein distance in characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `word` whose distance is at most `max_distance(candidate)`; ties go to
/// the lexically smallest candidate, so the suggestion is deterministic.
pub fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    max_distance: impl Fn(&str) -> usize,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= max_distance(c))
        .min()
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_choices() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("a.b", "a.b"), 0);
        assert_eq!(edit_distance("容器", "容"), 1);
        assert_eq!(closest("verfy", ["verify", "id"], |_| 2), Some("verify"));
        assert_eq!(closest("zzzz", ["verify", "id"], |_| 2), None);
        assert_eq!(closest("ab", ["ac", "aa"], |_| 1), Some("aa"));
    }
}
