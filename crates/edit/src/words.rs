//! What a text says, as words: the plain words of a Markdown text (its markup and link targets
//! left out), and the key words two statements are compared by. One definition for the import's
//! id matching and `diff`'s judgements (a rewording, a change of link targets only, a requirement
//! turned into informative text), so that they cannot disagree about what "the same words" is.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use kcontract_spec::keywords::Level;
use kcontract_spec::markdown_options;

/// The words a reader reads in `markdown`, one space between them: text and code spans, without
/// link targets, emphasis, HTML tags or list and table syntax.
pub(crate) fn plain(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, markdown_options()) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::Html(_) | Event::InlineHtml(_) => out.push(' '),
            // Inline markup joins its words to the text around it; a block or a break separates.
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. })
            | Event::End(
                TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link,
            ) => {}
            Event::SoftBreak | Event::HardBreak | Event::Start(_) | Event::End(_) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words that say nothing about what a sentence requires.
const STOP: [&str; 42] = [
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "as", "be",
    "is", "are", "it", "its", "this", "that", "these", "those", "if", "when", "then", "any", "all",
    "from", "not", "no", "which", "such", "their", "there", "will", "has", "have", "can", "into",
    "they", "them",
];

/// Is `word` (lowercase) one of the [`STOP`] words?
pub(crate) fn is_stop(word: &str) -> bool {
    STOP.contains(&word)
}

/// Lowercase words that only say how binding a sentence is, in informative text ("can", "might",
/// "ought"): left out when a requirement is compared with the prose it became.
const MODAL: [&str; 8] = [
    "might", "ought", "should", "may", "must", "could", "would", "shall",
];

/// The key words of `text`, sorted: its plain words that are neither stop words nor RFC 2119
/// keywords (nor, with `modal`, lowercase modal verbs), lowercase, a plural `s` dropped.
pub(crate) fn key_words(text: &str, modal: bool) -> Vec<String> {
    let mut out = key_words_in_order(text, modal);
    out.sort();
    out
}

/// Dice coefficient of two sorted word lists: 1 for the same words, 0 for none in common.
pub(crate) fn similarity(a: &[String], b: &[String]) -> f64 {
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

/// How much of a requirement's key words the prose it became must have ([`now_prose`]).
const TURNED: f64 = 0.8;

/// The key words of `text` in their order (as [`key_words`], not sorted).
fn key_words_in_order(text: &str, modal: bool) -> Vec<String> {
    let plain = plain(text);
    plain
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| Level::from_keyword(w).is_none() && *w != "NOT")
        .map(str::to_ascii_lowercase)
        .filter(|w| !(is_stop(w) || modal && MODAL.contains(&w.as_str())))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Whether the statement `text` is said in `prose` (a chapter's informative text) as informative
/// words: some run of the prose's key words, not much longer than the statement's, holds
/// [`TURNED`] of them, modal verbs left out ("Developers MUST assume" → "Developers can
/// assume"). What tells a requirement upstream turned into prose from one it deleted.
pub(crate) fn now_prose(text: &str, prose: &str) -> bool {
    let want = key_words(text, true);
    if want.is_empty() {
        return false;
    }
    let words = key_words_in_order(prose, true);
    let need = (want.len() as f64 * TURNED).ceil() as usize;
    let span = want.len() + want.len() / 2 + 1;
    (0..words.len()).any(|start| {
        let mut window: Vec<String> = words[start..(start + span).min(words.len())].to_vec();
        window.sort();
        let found = want
            .iter()
            .filter(|w| {
                window
                    .binary_search(w)
                    .map(|at| {
                        window.remove(at);
                    })
                    .is_ok()
            })
            .count();
        found >= need
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_leave_markup_and_link_targets_out() {
        assert_eq!(
            plain("The env [MUST](https://x/y_test.go) be *set*:\n\n- `PORT`\n- <b>K</b>"),
            "The env MUST be set: PORT K"
        );
        assert_eq!(
            plain("| a | b |\n| - | - |\n| `x` | MUST<p>y |"),
            "a b x MUST y"
        );
    }

    #[test]
    fn key_words_of_a_requirement_and_of_its_prose() {
        let req = key_words(
            "Developers MUST assume all traffic is intermediated by an L7 proxy.",
            true,
        );
        let prose = key_words(
            "Developers can assume all traffic is intermediated by an L7 proxy.",
            true,
        );
        assert_eq!(similarity(&req, &prose), 1.0);
        assert!(
            key_words("It might be so.", true)
                .iter()
                .all(|w| w != "might")
        );
    }
}

#[cfg(test)]
mod now_prose_tests {
    use super::now_prose;

    /// #4550 of the Knative contract: "Developers MUST assume …" became "Developers can assume …"
    /// in a paragraph run on from a list item; #4531 deleted the `/dev/log` requirement.
    #[test]
    fn a_requirement_turned_into_prose_is_found_there_and_a_deleted_one_is_not() {
        let prose = "- `h2c`: HTTP/2 transport, as described in section 3.4 of the HTTP2 spec\nDevelopers can assume all traffic is\nintermediated by an L7 proxy. Other words.";
        assert!(now_prose(
            "Developers MUST assume all traffic is intermediated by an L7 proxy.",
            prose
        ));
        assert!(!now_prose(
            "The platform MUST mount /dev/log as a writable socket to syslog.",
            prose
        ));
    }
}
