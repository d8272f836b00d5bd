//! The small text tools of `import`: sentences of a paragraph, slugs for ids and chapter names,
//! the key words of a sentence, and the actor a sentence is about.

use kcontract_spec::Contract;

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

/// The most key words an id takes.
const KEY_WORDS: usize = 6;

/// The key words of a clause's text, for its id: the ASCII words that are neither stop words nor
/// RFC 2119 keywords (Markdown and link targets left out) of its first phrase — up to the first
/// `,` `;` `:` `(` or sentence end after its keyword, so that an id ends where a phrase does —
/// at most [`KEY_WORDS`] of them; the whole text's when that phrase has fewer than two. When the
/// text has none, its keyword (`optional`): an item that is a keyword alone ("OPTIONAL").
pub(super) fn key_words(text: &str) -> String {
    let plain = strip_link_targets(text);
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .filter(|w| kcontract_spec::keywords::Level::from_keyword(w).is_none() && *w != "NOT")
            .map(str::to_ascii_lowercase)
            .filter(|w| !is_stop(w))
            .take(KEY_WORDS)
            .collect()
    };
    let hits = kcontract_spec::keywords::find_keywords(&plain);
    let phrase = hits.first().map_or(plain.as_str(), |k| {
        let rest = &plain[k.range.end..];
        let end = rest
            .char_indices()
            .find(|&(i, c)| {
                matches!(c, ',' | ';' | ':' | '(')
                    || (matches!(c, '.' | '?' | '!')
                        && rest[i + 1..].starts_with(char::is_whitespace))
            })
            .map_or(plain.len(), |(i, _)| k.range.end + i);
        &plain[..end]
    });
    let mut found = words(phrase);
    if found.len() < 2 {
        found = words(&plain);
    }
    if found.is_empty()
        && let Some(k) = hits.first()
    {
        return slug(&plain[k.range.clone()], 40);
    }
    found.join("-")
}

/// A heading's words without the section number it starts with (`5.3 HTTP Mapping`,
/// `2. Terms`, `A.1 Notes`): a number belongs to the upstream's layout, not to ids.
pub(super) fn unnumbered(heading: &str) -> &str {
    let t = heading.trim();
    let mut words = t.splitn(2, char::is_whitespace);
    let first = words.next().unwrap_or("");
    let numbered = first.chars().any(|c| c.is_ascii_digit())
        && first
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ')' || c.is_ascii_uppercase())
        && first.chars().filter(char::is_ascii_uppercase).count() <= 1;
    match words.next() {
        Some(rest) if numbered && !rest.trim().is_empty() => rest.trim_start(),
        _ => t,
    }
}

/// Is `word` (lowercase) a stop word ([`crate::words::is_stop`])?
pub(super) fn is_stop(word: &str) -> bool {
    crate::words::is_stop(word)
}

/// Does `s` (a sentence, a paragraph, a quote) open as a note or an example ("Note:", "(For
/// example, …", "E.g.", "> **Example**")? Such text illustrates a requirement; its keywords
/// do not make one. "Note that … MUST" is a requirement written as a remark, not a note.
pub(super) fn informative_start(s: &str) -> bool {
    let t = s
        .trim_start()
        .trim_start_matches(['>', ' ', '(', '*', '_', '[', '!'])
        .to_ascii_lowercase();
    ["note", "example", "for example", "e.g.", "for instance", "informative"]
        .iter()
        .any(|w| {
            t.strip_prefix(w).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with([':', ',', ' ', '*', '_', ']', ')', '.'])
            })
        })
        // "Note that the runtime MUST …" points at a requirement: it stays one.
        && !t.starts_with("note that")
}

/// Does a sentence end where it still needs what follows: with `:`, or with no end at all ("… MUST
/// be exposed in")?
pub(super) fn ends_open(s: &str) -> bool {
    let t = s.trim_end();
    t.ends_with(':') || t.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '`' | ','))
}

/// Is `src` (a paragraph) a label of the block after it: one short line ending with `:`
/// ("cgroup v2:")?
pub(super) fn is_label(src: &str) -> bool {
    let t = src.trim();
    t.ends_with(':') && !t.contains('\n') && t.chars().count() <= 60
}

/// The review notes a clause's keywords call for when written in a form whose level is not what
/// the sentence means: a keyword negated by a word outside it ("not REQUIRED", "MUST not",
/// "never REQUIRED") and `MAY NOT`, which RFC 2119 does not define.
pub(super) fn unusual_forms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for hit in kcontract_spec::keywords::find_keywords(text) {
        let written = text[hit.range.clone()]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let before = text[..hit.range.start]
            .split_whitespace()
            .last()
            .unwrap_or("");
        let after = text[hit.range.end..]
            .split(|c: char| !c.is_ascii_alphabetic())
            .find(|w| !w.is_empty())
            .unwrap_or("");
        let note = if matches!(before, "not" | "never" | "NOT" | "NEVER") {
            Some(format!(
                "`{before} {written}`: the keyword reads as {} but the sentence negates it; decide its level",
                hit.level
            ))
        } else if written == "MAY" && after == "NOT" {
            Some("`MAY NOT` is no RFC 2119 keyword (it reads as MAY): decide whether it means MUST NOT or a permission not to".to_string())
        } else if !written.contains(' ') && after == "not" && written != "MAY" {
            Some(format!(
                "`{written} not`: the keyword reads as {} but the sentence negates it; decide its level",
                hit.level
            ))
        } else {
            None
        };
        out.extend(note.filter(|n| !out.contains(n)));
    }
    out
}

/// `text` without the `(target)` of its Markdown links and without HTML tags.
pub(super) fn strip_link_targets(text: &str) -> String {
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

/// Does `word` (lowercase) name the actor `name`: its name or its name's last word
/// (`event-producer`: `producer`), singular or plural (`intermediary`: `intermediaries`), or, for
/// a default actor, one of its words ([`ACTOR_WORDS`])?
fn names_actor(word: &str, name: &str) -> bool {
    let head = name.rsplit(['-', '_']).next().unwrap_or(name);
    let plural = |n: &str| {
        [
            format!("{n}s"),
            format!("{n}es"),
            n.strip_suffix('y')
                .map_or_else(String::new, |s| format!("{s}ies")),
        ]
    };
    word == name
        || word == head
        || plural(head).iter().any(|p| p == word)
        || ACTOR_WORDS
            .iter()
            .any(|(n, list)| *n == name && list.contains(&word))
}

/// The actors of `contract` named among `words`.
fn actors_in<'c>(contract: &'c Contract, words: &[&str]) -> Vec<&'c str> {
    contract
        .actor_list()
        .map(|a| a.as_str())
        .filter(|name| words.iter().any(|w| names_actor(w, name)))
        .collect()
}

/// The noun a sentence's subject ends with, singular ("The producer SHOULD": `producer`;
/// "Intermediaries MUST": `intermediary`; "If a consumer asks, a registry MUST": `registry`):
/// the last word before the keyword, in the subject's last part (after its last `,` or `;`),
/// when it stands alone there or after a determiner (`the`, `a`, `each`, …) that no preposition
/// governs. `None` for a
/// subject of another shape ("It MUST", "… be a non-empty string"), which names no actor.
pub(super) fn subject_noun(text: &str, first_keyword: usize) -> Option<String> {
    const DETERMINERS: [&str; 8] = ["the", "a", "an", "each", "every", "any", "all", "some"];
    let subject = strip_link_targets(&text[..first_keyword]).to_ascii_lowercase();
    // A table cell is a part too: "| receiver gone | a relay MUST": the subject is `a relay`.
    let last = subject
        .rsplit([',', ';', ':', '|'])
        .next()
        .unwrap_or(&subject);
    let words: Vec<&str> = last
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let (noun, before) = match words.as_slice() {
        [noun] => (*noun, None),
        [.., before, noun] => (*noun, Some(*before)),
        [] => return None,
    };
    // "… of an event MUST": the noun of a prepositional phrase is not the subject's head.
    let governed = words.len() >= 3
        && matches!(
            words[words.len() - 3],
            "of" | "in" | "for" | "to" | "from" | "with" | "by" | "on" | "at"
        );
    if governed
        || before.is_some_and(|b| !DETERMINERS.contains(&b))
        || is_stop(noun)
        || noun.len() < 3
        || noun.chars().any(|c| c.is_ascii_digit())
    {
        return None;
    }
    let singular = if let Some(stem) = noun.strip_suffix("ies") {
        format!("{stem}y")
    } else if noun.ends_with("ss") || noun.len() <= 3 {
        noun.to_string()
    } else {
        noun.strip_suffix('s').unwrap_or(noun).to_string()
    };
    Some(singular)
}

/// The actor a sentence binds, guessed from the words before its first keyword (its subject), and
/// whether the guess is sure: exactly one actor is named there, or in the last part of it (after
/// its last `,` or `;`: "If the consumer asks, the producer MUST"; or its last table cell). Otherwise the contract's first
/// actor, not sure.
pub(super) fn guess_actor(contract: &Contract, text: &str, first_keyword: usize) -> (String, bool) {
    let subject = strip_link_targets(&text[..first_keyword]).to_ascii_lowercase();
    let words = |s: &'_ str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    // A table row's cells are parts: the cell before holds the case, not the subject.
    let last = subject.rsplit([',', ';', '|']).next().unwrap_or(&subject);
    let found = |s: &str| {
        let w = words(s);
        let refs: Vec<&str> = w.iter().map(String::as_str).collect();
        actors_in(contract, &refs)
    };
    let mut named = found(&subject);
    if named.len() > 1 {
        named = found(last);
    }
    match named.as_slice() {
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
            "runtime-run-user-program-now"
        );
        // The first phrase after the keyword, at most six words, never a keyword alone.
        assert_eq!(
            key_words("The sender MUST print the label, in black ink, on paper."),
            "sender-print-label"
        );
        assert_eq!(key_words("MUST: be x, y."), "x-y");
        assert_eq!(key_words("OPTIONAL"), "optional");
        assert_eq!(
            key_words("A depot SHOULD weigh every parcel twice at each and every gate."),
            "depot-weigh-every-parcel-twice-each"
        );
        assert_eq!(
            unnumbered("5.3 HTTP Message Mapping"),
            "HTTP Message Mapping"
        );
        assert_eq!(unnumbered("2. Terms"), "Terms");
        assert_eq!(unnumbered("A.1 Notes"), "Notes");
        assert_eq!(unnumbered("HTTP 2 Mapping"), "HTTP 2 Mapping");
        assert_eq!(unnumbered("3"), "3");
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
        // A contract's own actors, singular or plural, the last part of the subject deciding.
        let own = Contract {
            actors: ["event-producer", "consumer", "intermediary", "registry"]
                .map(|a| kcontract_spec::Labelled::plain(kcontract_spec::Actor::new(a)))
                .into(),
            ..Contract::default()
        };
        let g = |s: &str| guess_actor(&own, s, s.find("MUST").unwrap());
        assert_eq!(g("The producer MUST"), ("event-producer".into(), true));
        assert_eq!(g("Intermediaries MUST"), ("intermediary".into(), true));
        assert_eq!(g("A registry MUST"), ("registry".into(), true));
        assert_eq!(
            g("If a consumer asks, the producer MUST"),
            ("event-producer".into(), true)
        );
        assert_eq!(
            g("Consumers and registries MUST"),
            ("event-producer".into(), false)
        );
        assert_eq!(g("It MUST"), ("event-producer".into(), false));
        let n = |s: &str| subject_noun(s, s.find("MUST").unwrap());
        assert_eq!(n("The producer MUST").as_deref(), Some("producer"));
        assert_eq!(n("Intermediaries MUST").as_deref(), Some("intermediary"));
        assert_eq!(
            n("If a consumer asks, every registry MUST").as_deref(),
            Some("registry")
        );
        assert_eq!(n("Brokers MUST").as_deref(), Some("broker"));
        assert_eq!(n("It MUST"), None);
        assert_eq!(n("MUST be x"), None);
        assert_eq!(n("The id attribute of an event MUST").as_deref(), None);
    }
}
