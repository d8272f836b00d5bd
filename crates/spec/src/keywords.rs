//! RFC 2119 keywords: the five normalised levels and a detector for keywords in Markdown text.
//!
//! The detector is shared by every place that asks "is this sentence normative?": clause texts (the
//! level must agree with the words), prose (no keyword may hide outside a clause) and the test that
//! compares the spec with the upstream text. Keeping one detector means those three can never disagree.

use std::fmt;
use std::ops::Range;

use serde::{Serialize, Serializer};

/// A requirement level after normalisation (RFC 2119 §1–5). Its word (`MUST NOT`) is declared once,
/// on its variant: [`Level::as_str`], [`fmt::Display`] and the serialised form all read it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
pub enum Level {
    /// `MUST`, also written `REQUIRED` or `SHALL`.
    #[strum(serialize = "MUST")]
    Must,
    /// `MUST NOT`, also written `SHALL NOT`.
    #[strum(serialize = "MUST NOT")]
    MustNot,
    /// `SHOULD`, also written `RECOMMENDED`.
    #[strum(serialize = "SHOULD")]
    Should,
    /// `SHOULD NOT`, also written `NOT RECOMMENDED`.
    #[strum(serialize = "SHOULD NOT")]
    ShouldNot,
    /// `MAY`, also written `OPTIONAL`.
    #[strum(serialize = "MAY")]
    May,
}

impl Level {
    /// Every level, strongest first (the order of summaries): the order of the declaration.
    pub const ALL: &'static [Level] = <Level as strum::VariantArray>::VARIANTS;

    /// The normalised keyword (`MUST NOT`), as written in `level:` and serialised.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Normalise one of the eleven RFC 2119 keywords. Internal whitespace may be any run of spaces,
    /// tabs or newlines (a keyword can wrap across lines). Case-sensitive: `must` is English.
    pub fn from_keyword(word: &str) -> Option<Level> {
        let mut parts = word.split_whitespace();
        let first = parts.next()?;
        let second = parts.next();
        if parts.next().is_some() {
            return None;
        }
        Some(match (first, second) {
            ("MUST" | "REQUIRED" | "SHALL", None) => Level::Must,
            ("MUST" | "SHALL", Some("NOT")) => Level::MustNot,
            ("SHOULD" | "RECOMMENDED", None) => Level::Should,
            ("SHOULD", Some("NOT")) | ("NOT", Some("RECOMMENDED")) => Level::ShouldNot,
            ("MAY" | "OPTIONAL", None) => Level::May,
            _ => return None,
        })
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Serialised as its keyword (`"MUST NOT"`), the word of its variant.
impl Serialize for Level {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One keyword found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeywordHit {
    /// Byte range of the keyword (for two-word keywords, both words and the space between).
    pub range: Range<usize>,
    /// The level the keyword normalises to.
    pub level: Level,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Find the RFC 2119 keywords used in a piece of Markdown.
///
/// Not keywords: lowercase words (RFC 8174), parts of longer words (`MUSTARD`), text inside code
/// spans (`` `MUST` ``), link destinations and HTML comments, and quoted mentions (`"MUST"`, `“MAY”`),
/// which talk about a keyword rather than use it. Fenced code blocks are the caller's business: this
/// sees inline text only.
pub fn find_keywords(text: &str) -> Vec<KeywordHit> {
    let b = text.as_bytes();
    let mut hits = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'`' => {
                // A code span closes at the next backtick run of the same length (CommonMark);
                // an unmatched run is literal text.
                let run = count_run(b, i, b'`');
                match find_closing_run(b, i + run, run) {
                    Some(end) => i = end + run,
                    None => i += run,
                }
                continue;
            }
            b'<' if b[i..].starts_with(b"<!--") => {
                i = text[i..].find("-->").map_or(b.len(), |e| i + e + 3);
                continue;
            }
            b']' if b.get(i + 1) == Some(&b'(') => {
                // Skip a link destination: `](...)`, with balanced parentheses.
                let mut depth = 0usize;
                let mut j = i + 1;
                while j < b.len() {
                    match b[j] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b'\n' if b.get(j + 1) == Some(&b'\n') => break,
                        _ => {}
                    }
                    j += 1;
                }
                i = j + 1;
                continue;
            }
            c if c.is_ascii_uppercase() && (i == 0 || !is_word_byte(b[i - 1])) => {
                let end = word_end(b, i);
                if let Some((range, level)) = keyword_at(text, i, end) {
                    if !is_quoted_mention(text, &range) {
                        hits.push(KeywordHit {
                            range: range.clone(),
                            level,
                        });
                    }
                    i = range.end;
                } else {
                    i = end;
                }
                continue;
            }
            c if is_word_byte(c) => {
                i = word_end(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    hits
}

fn count_run(b: &[u8], start: usize, ch: u8) -> usize {
    b[start..].iter().take_while(|&&c| c == ch).count()
}

fn find_closing_run(b: &[u8], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        if b[j] == b'`' {
            let r = count_run(b, j, b'`');
            if r == run {
                return Some(j);
            }
            j += r;
        } else {
            j += 1;
        }
    }
    None
}

fn word_end(b: &[u8], start: usize) -> usize {
    start + b[start..].iter().take_while(|&&c| is_word_byte(c)).count()
}

/// If the word at `start..end` begins a keyword, return the keyword's full range and level.
fn keyword_at(text: &str, start: usize, end: usize) -> Option<(Range<usize>, Level)> {
    let word = &text[start..end];
    let b = text.as_bytes();
    // Look for a second word after whitespace: `MUST NOT`, `NOT RECOMMENDED`.
    let second = || {
        let ws = b[end..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        if ws == 0 || text[end..end + ws].matches('\n').count() > 1 {
            return None;
        }
        let s = end + ws;
        let e = word_end(b, s);
        (e > s).then(|| (&text[s..e], e))
    };
    match word {
        "MUST" | "SHALL" | "SHOULD" => match second() {
            Some(("NOT", e)) => Some((start..e, Level::from_keyword(&text[start..e])?)),
            _ => Some((start..end, Level::from_keyword(word)?)),
        },
        "NOT" => match second() {
            Some(("RECOMMENDED", e)) => Some((start..e, Level::ShouldNot)),
            _ => None,
        },
        "REQUIRED" | "RECOMMENDED" | "MAY" | "OPTIONAL" => {
            Some((start..end, Level::from_keyword(word)?))
        }
        _ => None,
    }
}

/// `"MUST"`, `'MAY'`, `“SHOULD”`: a keyword that is the whole content of a quotation is a mention.
fn is_quoted_mention(text: &str, range: &Range<usize>) -> bool {
    let before = text[..range.start].chars().next_back();
    let after = text[range.end..].chars().next();
    matches!(
        (before, after),
        (Some('"'), Some('"'))
            | (Some('\''), Some('\''))
            | (Some('“'), Some('”'))
            | (Some('‘'), Some('’'))
    )
}

/// The distinct levels used in a text, in order of first appearance.
pub(crate) fn levels_in(text: &str) -> Vec<Level> {
    let mut out = Vec::new();
    for h in find_keywords(text) {
        if !out.contains(&h.level) {
            out.push(h.level);
        }
    }
    out
}

/// The Chinese terms of the RFC 2119 keywords (the table in `spec/README.md`): a Chinese clause
/// writes the term followed by the English keyword in full-width brackets, 必须（MUST）. Longer
/// terms first, so 不应该 is read before 应该.
pub(crate) const CHINESE_TERMS: [(&str, Level); 11] = [
    ("不推荐", Level::ShouldNot),
    ("不应该", Level::ShouldNot),
    ("必须", Level::Must),
    ("不得", Level::MustNot),
    ("不应", Level::ShouldNot),
    ("应该", Level::Should),
    ("应当", Level::Should),
    ("推荐", Level::Should),
    ("建议", Level::Should),
    ("可以", Level::May),
    ("可选", Level::May),
];

/// A keyword of a Chinese text whose Chinese term does not say its level: 应当（SHALL）, which a
/// reader takes for SHOULD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChineseMismatch {
    /// The term and the keyword as written (`应当（SHALL）`), byte range in the text.
    pub range: Range<usize>,
    /// The keyword as written (`SHALL`).
    pub keyword: String,
    /// What the keyword means.
    pub level: Level,
    /// The Chinese term before it and what it means, or `None` when no term of the table is there.
    pub term: Option<(&'static str, Level)>,
}

/// Every keyword of a Chinese text written in brackets (`（MUST）`, `(MUST)`) whose Chinese term
/// right before the bracket is missing or means another level.
pub(crate) fn chinese_mismatches(text: &str) -> Vec<ChineseMismatch> {
    let mut out = Vec::new();
    for hit in find_keywords(text) {
        let before = &text[..hit.range.start];
        let after = &text[hit.range.end..];
        let Some(open) = before
            .strip_suffix('（')
            .or_else(|| before.strip_suffix('('))
        else {
            continue;
        };
        if !(after.starts_with('）') || after.starts_with(')')) {
            continue;
        }
        let close = hit.range.end + after.chars().next().map_or(0, char::len_utf8);
        let term = CHINESE_TERMS
            .iter()
            .find(|(t, _)| open.ends_with(t))
            .copied();
        if term.is_some_and(|(_, l)| l == hit.level) {
            continue;
        }
        let start = term.map_or(open.len(), |(t, _)| open.len() - t.len());
        out.push(ChineseMismatch {
            range: start..close,
            keyword: text[hit.range.clone()]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            level: hit.level,
            term,
        });
    }
    out
}

/// The accepted Chinese terms of `level`, for a hint: `必须`, `不得`, …
pub(crate) fn chinese_terms(level: Level) -> Vec<&'static str> {
    CHINESE_TERMS
        .iter()
        .filter(|(_, l)| *l == level)
        .map(|(t, _)| *t)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_terms_agree_with_their_keywords() {
        assert!(
            chinese_mismatches("容器必须（MUST）退出，不得（MUST NOT）停留，可以（MAY）重启。")
                .is_empty()
        );
        assert!(chinese_mismatches("不应该（SHOULD NOT）设置；不推荐（NOT RECOMMENDED）使用；推荐（RECOMMENDED）定义；可选（OPTIONAL）。").is_empty());
        assert!(
            chinese_mismatches("必须（SHALL）使用；必须（REQUIRED）为；不得（SHALL NOT）")
                .is_empty()
        );
        let m = chinese_mismatches("则应当（SHALL）使用平台特定的默认值");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].keyword, "SHALL");
        assert_eq!(m[0].level, Level::Must);
        assert_eq!(m[0].term, Some(("应当", Level::Should)));
        assert_eq!(&"则应当（SHALL）使用"[m[0].range.clone()], "应当（SHALL）");
        let m = chinese_mismatches("它们必需（REQUIRED）为");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].term, None);
        assert_eq!(
            &"它们必需（REQUIRED）为"[m[0].range.clone()],
            "（REQUIRED）"
        );
        // 应该 before SHOULD NOT: the negation is missing.
        assert_eq!(chinese_mismatches("应该（SHOULD NOT）").len(), 1);
        // A keyword without brackets is K0304's business, not this check's.
        assert!(chinese_mismatches("平台 MUST 做").is_empty());
    }

    proptest::proptest! {
        /// Any term of the table before any keyword: a mismatch exactly when their levels differ,
        /// pointing at the term and the bracketed keyword, whatever text surrounds them.
        #[test]
        fn a_chinese_term_and_a_keyword_disagree_exactly_when_their_levels_do(
            term in 0..CHINESE_TERMS.len(),
            keyword in proptest::sample::select(vec!["MUST", "REQUIRED", "SHALL", "MUST NOT", "SHALL NOT", "SHOULD", "RECOMMENDED", "SHOULD NOT", "NOT RECOMMENDED", "MAY", "OPTIONAL"]),
            before in "(容器|平台|，|`x`| |a){0,4}",
            after in "(使用|。|（|）| ){0,4}",
        ) {
            let (t, _) = CHINESE_TERMS[term];
            let text = format!("{before}{t}（{keyword}）{after}");
            let level = Level::from_keyword(keyword).unwrap();
            let found = chinese_mismatches(&text);
            // A shorter term can be the end of a longer one (应该 in 不应该): the longest is read.
            let read = CHINESE_TERMS.iter().find(|(x, _)| format!("{before}{t}").ends_with(x)).unwrap();
            if read.1 == level {
                proptest::prop_assert!(found.is_empty(), "{} {:?}", text, found);
            } else {
                proptest::prop_assert_eq!(found.len(), 1, "{}", text);
                proptest::prop_assert_eq!(&text[found[0].range.clone()], format!("{}（{keyword}）", read.0));
            }
        }

        /// Arbitrary mixes of terms, brackets and keywords: no panic, and every range is a slice.
        #[test]
        fn chinese_mismatches_never_panic(
            text in r#"(必须|不得|应该|应当|不应该|推荐|不推荐|可以|可选|必需|（|）|\(|\)|MUST|SHALL|NOT|SHOULD|MAY|RECOMMENDED|OPTIONAL| |`|容){0,16}"#
        ) {
            for m in chinese_mismatches(&text) {
                proptest::prop_assert!(text.get(m.range.clone()).is_some());
            }
        }
    }

    fn words(text: &str) -> Vec<(&str, Level)> {
        find_keywords(text)
            .into_iter()
            .map(|h| (&text[h.range], h.level))
            .collect()
    }

    /// The words, their order in `ALL` (strongest first: the summaries' order) and the serialised
    /// form all come from the one declaration.
    #[test]
    fn levels_in_order_with_their_words() {
        let words: Vec<&str> = Level::ALL.iter().map(|l| l.as_str()).collect();
        assert_eq!(words, ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]);
        for l in Level::ALL {
            assert_eq!(serde_json::to_string(l).unwrap(), format!("\"{l}\""));
            assert_eq!(Level::from_keyword(l.as_str()), Some(*l));
        }
    }

    #[test]
    fn normalises_the_eleven_keywords() {
        let cases = [
            ("MUST", Level::Must),
            ("REQUIRED", Level::Must),
            ("SHALL", Level::Must),
            ("MUST NOT", Level::MustNot),
            ("SHALL NOT", Level::MustNot),
            ("SHOULD", Level::Should),
            ("RECOMMENDED", Level::Should),
            ("SHOULD NOT", Level::ShouldNot),
            ("NOT RECOMMENDED", Level::ShouldNot),
            ("MAY", Level::May),
            ("OPTIONAL", Level::May),
            ("MUST\n  NOT", Level::MustNot),
        ];
        for (kw, level) in cases {
            assert_eq!(Level::from_keyword(kw), Some(level), "{kw}");
        }
        for bad in [
            "must",
            "May",
            "MAY NOT",
            "NOT",
            "MUST NOT EVER",
            "",
            "OPTIONALLY",
        ] {
            assert_eq!(Level::from_keyword(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn must_not_is_one_keyword_not_must() {
        assert_eq!(
            words("It MUST NOT be set."),
            vec![("MUST NOT", Level::MustNot)]
        );
        assert_eq!(
            words("It MUST\n  NOT be set."),
            vec![("MUST\n  NOT", Level::MustNot)]
        );
        assert_eq!(
            words("are NOT RECOMMENDED."),
            vec![("NOT RECOMMENDED", Level::ShouldNot)]
        );
        assert_eq!(words("It MUST, NOT later"), vec![("MUST", Level::Must)]);
        assert_eq!(words("NOT here"), vec![]);
    }

    #[test]
    fn word_boundaries() {
        assert_eq!(words("MUSTARD MAYBE SHOULDER _MUST MUST_ XMAY"), vec![]);
        assert_eq!(
            words("(MAY) MUST. SHOULD,"),
            vec![
                ("MAY", Level::May),
                ("MUST", Level::Must),
                ("SHOULD", Level::Should)
            ]
        );
        assert_eq!(words("必须（MUST）"), vec![("MUST", Level::Must)]);
        assert_eq!(words("should may must"), vec![]);
    }

    #[test]
    fn code_spans_links_and_comments_are_not_prose() {
        assert_eq!(words("set `MUST` and ``a ` MAY``"), vec![]);
        assert_eq!(words("[link](http://x/MUST) ok"), vec![]);
        assert_eq!(
            words("[SHOULD offer](http://x) ok"),
            vec![("SHOULD", Level::Should)]
        );
        assert_eq!(words("<!-- MUST --> MAY"), vec![("MAY", Level::May)]);
        // An unmatched backtick is literal text, so the keyword after it counts.
        assert_eq!(words("a ` MUST"), vec![("MUST", Level::Must)]);
    }

    #[test]
    fn quoted_mentions_are_not_keywords() {
        assert_eq!(
            words(r#"The key words "MUST", "MUST NOT" and 'MAY'"#),
            vec![]
        );
        assert_eq!(words("“SHOULD” and ‘OPTIONAL’"), vec![]);
        // A quotation that uses a keyword inside a sentence is still a use.
        assert_eq!(
            words(r#""normal orderly shutdown MUST send a SIGTERM""#),
            vec![("MUST", Level::Must)]
        );
    }

    #[test]
    fn levels_in_lists_distinct_levels() {
        assert_eq!(
            levels_in("REQUIRED to be x, and MUST target y; MAY z"),
            vec![Level::Must, Level::May]
        );
    }
}
