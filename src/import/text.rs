//! The small text tools of `import`: sentences of a paragraph, slugs for ids and chapter names,
//! the key words of a sentence, and the actor a sentence is about.

use crate::spec::Contract;

/// Byte ranges of the sentences of a paragraph's Markdown source. A sentence ends after `.`, `?`
/// or `!` followed by whitespace, outside code spans, links and parentheses, and not after a
/// common abbreviation (`e.g.`). Every byte belongs to one sentence (the whitespace between two
/// goes with the first), so joining the pieces gives the paragraph back.
pub(super) fn sentences(src: &str) -> Vec<std::ops::Range<usize>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0usize; // brackets and parentheses
    let mut code = 0usize; // length of the open code span's backtick run
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'`' {
            let mut run = 1;
            while i + run < b.len() && b[i + run] == b'`' {
                run += 1;
            }
            if code == 0 {
                // Open only if a closing run exists, as CommonMark does.
                let closes = src[i + run..]
                    .match_indices(&"`".repeat(run))
                    .any(|(j, _)| {
                        let k = i + run + j;
                        (k + run >= b.len() || b[k + run] != b'`') && (k == 0 || b[k - 1] != b'`')
                    });
                if closes {
                    code = run;
                }
            } else if run == code {
                code = 0;
            }
            i += run;
            continue;
        }
        if code == 0 {
            match c {
                b'[' | b'(' => depth += 1,
                b']' | b')' => depth = depth.saturating_sub(1),
                b'.' | b'?' | b'!' if depth == 0 => {
                    let next = b.get(i + 1).copied();
                    if next.is_some_and(|n| n.is_ascii_whitespace())
                        && !abbreviation(&src[start..=i])
                    {
                        let mut end = i + 1;
                        while end < b.len() && b[end].is_ascii_whitespace() {
                            end += 1;
                        }
                        if end < b.len() {
                            out.push(start..end);
                            start = end;
                        }
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    if start < b.len() {
        out.push(start..b.len());
    }
    out
}

/// Does `s` end with an abbreviation whose dot does not end a sentence?
fn abbreviation(s: &str) -> bool {
    let last = s
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    matches!(
        last.to_ascii_lowercase().as_str(),
        "e.g." | "i.e." | "etc." | "vs." | "cf." | "mr." | "dr." | "no." | "approx."
    )
}

/// `[a-z0-9]` words of `s` joined by `-`, at most `max` bytes (cut at a word boundary); empty when
/// `s` has no ASCII letter or digit.
pub(super) fn slug(s: &str, max: usize) -> String {
    let mut out = String::new();
    for word in s
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_ascii_lowercase();
        let extra = word.len() + usize::from(!out.is_empty());
        if out.len() + extra > max {
            if out.is_empty() {
                out.push_str(&word[..max.min(word.len())]);
            }
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word);
    }
    out
}

/// Words that say nothing about what a sentence requires.
const STOP: [&str; 40] = [
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "as", "be",
    "is", "are", "it", "its", "this", "that", "these", "those", "if", "when", "then", "any", "all",
    "from", "not", "no", "which", "such", "their", "there", "will", "has", "have", "can", "into",
];

/// The key words of a clause's text: its first four ASCII words that are neither stop words nor
/// RFC 2119 keywords, Markdown and link targets left out.
pub(super) fn key_words(text: &str) -> String {
    let plain = strip_link_targets(text);
    let words: Vec<String> = plain
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| crate::keywords::Level::from_keyword(w).is_none() && *w != "NOT")
        .map(str::to_ascii_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .take(4)
        .collect();
    words.join("-")
}

/// `text` without the `(target)` of its Markdown links and without HTML tags.
fn strip_link_targets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut prev = ' ';
    while let Some((_, c)) = chars.next() {
        if c == '(' && prev == ']' {
            let mut depth = 1;
            for (_, d) in chars.by_ref() {
                match d {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            prev = ')';
            continue;
        }
        if c == '<' {
            for (_, d) in chars.by_ref() {
                if d == '>' {
                    break;
                }
            }
            prev = '>';
            out.push(' ');
            continue;
        }
        out.push(c);
        prev = c;
    }
    out
}

/// Words that name each of the default actors, in the subject of a sentence.
const ACTOR_WORDS: [(&str, &[&str]); 3] = [
    (
        "platform",
        &[
            "platform",
            "runtime",
            "runtimes",
            "operator",
            "operators",
            "provider",
            "knative",
            "implementation",
            "implementations",
            "system",
            "serving",
        ],
    ),
    (
        "developer",
        &[
            "developer",
            "developers",
            "user",
            "users",
            "author",
            "authors",
        ],
    ),
    (
        "container",
        &[
            "container",
            "containers",
            "application",
            "applications",
            "process",
            "code",
            "app",
            "apps",
        ],
    ),
];

/// The actor a sentence binds, guessed from the words before its first keyword (its subject), and
/// whether the guess is sure: exactly one actor's words appear there. Otherwise the contract's
/// first actor, not sure. Actors outside the defaults are matched by their own name.
pub(super) fn guess_actor(contract: &Contract, text: &str, first_keyword: usize) -> (String, bool) {
    let subject = strip_link_targets(&text[..first_keyword]).to_ascii_lowercase();
    let words: Vec<&str> = subject
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let found: Vec<&str> = contract
        .actor_list()
        .map(|a| a.as_str())
        .filter(|name| {
            let named = ACTOR_WORDS.iter().find(|(n, _)| n == name);
            words
                .iter()
                .any(|w| w == name || named.is_some_and(|(_, list)| list.contains(w)))
        })
        .collect();
    match found.as_slice() {
        [one] => (one.to_string(), true),
        _ => (
            contract
                .actor_list()
                .next()
                .map_or_else(String::new, |a| a.as_str().to_string()),
            false,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<&str> {
        sentences(s).into_iter().map(|r| &s[r]).collect()
    }

    #[test]
    fn sentences_split_outside_code_links_and_abbreviations() {
        assert_eq!(
            split("One MUST. Two, e.g. this, MAY.\nThree `a. b` [x. y](u.v) too."),
            [
                "One MUST. ",
                "Two, e.g. this, MAY.\n",
                "Three `a. b` [x. y](u.v) too."
            ]
        );
        assert_eq!(split("No end"), ["No end"]);
        let s = "A. B.  ";
        assert_eq!(split(s).concat(), s);
    }

    #[test]
    fn slugs_and_key_words() {
        assert_eq!(
            slug("<a name=\"x\" />Scope of a Container", 40),
            "a-name-x-scope-of-a-container"
        );
        assert_eq!(slug("Protocols and Ports", 10), "protocols");
        assert_eq!(slug("中文", 10), "");
        assert_eq!(
            key_words("The runtime MUST NOT run the [user program](config.md#process) now."),
            "runtime-run-user-program"
        );
    }

    #[test]
    fn actors_from_the_subject() {
        let c = Contract::default();
        assert_eq!(
            guess_actor(&c, "The runtime MUST x", 12),
            ("platform".into(), true)
        );
        assert_eq!(
            guess_actor(&c, "Developers MAY x", 11),
            ("developer".into(), true)
        );
        assert_eq!(guess_actor(&c, "It MUST", 3), ("platform".into(), false));
        assert_eq!(
            guess_actor(&c, "The container's runtime MUST", 24),
            ("platform".into(), false)
        );
    }
}
