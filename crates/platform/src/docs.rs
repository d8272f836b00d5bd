//! The documentation clauses (`route_reason: documentation` in [`super::routes`]: "the platform
//! MUST/SHOULD document …"): a profile's `docs:` links answer them, but only a person can tell
//! whether a page documents what a clause asks. A clause is `documented` only when its link
//! carries a review (`kcontract platform review-docs`) whose stamp is that of the link and of the
//! clause's current text; a link alone, or a review of another link or another text, is
//! `undocumented`, saying which. kcontract never fetches the page (no network at run time): the
//! stamp covers what the reviewer was shown, the link and the clause.

use super::profile::{DocLink, DocReview, Profile};
// The report's record of a documentation clause: its format is the report's.
pub use super::report::{DocResult, DocStatus, Undocumented};
use super::routes::{self, Reason};
use kcontract_spec::diagnostic::{Diagnostic, Span};
use kcontract_spec::{Clause, Spec};

/// The stamp of a review of `url` for `clause`: the first 12 hex digits of the SHA-256 of the
/// clause's id, its stamp (its text) and the link.
pub fn stamp(clause: &Clause, url: &str) -> String {
    let mut s = super::report::sha256(
        format!(
            "kcontract-docs-review/1\n{}\n{}\n{url}",
            clause.id, clause.stamp
        )
        .as_bytes(),
    );
    s.truncate(12);
    s
}

/// Whether `clause` is one a platform's documentation answers.
pub fn is_documentation(clause: &Clause) -> bool {
    routes::of(clause).reason == Some(Reason::Documentation)
}

/// `clause` on a platform whose profile has `entry` for it.
pub fn judge(clause: &Clause, entry: Option<&DocLink>) -> DocResult {
    let result =
        |status, undocumented, url: Option<&String>, review: Option<&DocReview>, message| {
            DocResult {
                id: clause.id.clone(),
                stamp: clause.stamp.clone(),
                status,
                undocumented,
                url: url.cloned(),
                review: review.cloned(),
                message,
            }
        };
    match entry {
        None => result(
            DocStatus::Undocumented,
            Some(Undocumented::NoLink),
            None,
            None,
            "no link: the profile's `docs` does not name the clause".to_owned(),
        ),
        Some(DocLink::NotApplicable(why)) => result(
            DocStatus::NotApplicable,
            None,
            None,
            None,
            format!("not applicable: {why}"),
        ),
        Some(DocLink::Link { url, review: None }) => result(
            DocStatus::Undocumented,
            Some(Undocumented::NotReviewed),
            Some(url),
            None,
            format!(
                "a link without a review: {url} (a person reviews it with `kcontract platform \
                 review-docs`)"
            ),
        ),
        Some(DocLink::Link {
            url,
            review: Some(r),
        }) if r.stamp == stamp(clause, url) => result(
            DocStatus::Documented,
            None,
            Some(url),
            Some(r),
            format!("{url}, reviewed by {} on {}", r.by, r.date),
        ),
        Some(DocLink::Link {
            url,
            review: Some(r),
        }) => result(
            DocStatus::Undocumented,
            Some(Undocumented::StaleReview),
            Some(url),
            Some(r),
            format!(
                "a stale review: {} reviewed it on {} for another link or another text of the \
                 clause (stamp {}, now {}); review {url} again",
                r.by,
                r.date,
                r.stamp,
                stamp(clause, url)
            ),
        ),
    }
}

/// Every documentation clause of `spec` on the platform of `profile`, in spec order.
pub fn judge_all(spec: &Spec, profile: &Profile) -> Vec<DocResult> {
    spec.clauses
        .iter()
        .filter(|c| is_documentation(c))
        .map(|c| judge(c, profile.docs.get(&c.id)))
        .collect()
}

/// The `docs:` ids of `profile` that are not documentation clauses of `spec` (a typo, a renamed
/// clause, a clause a test decides).
pub fn unknown_ids<'a>(spec: &Spec, profile: &'a Profile) -> Vec<&'a str> {
    profile
        .docs
        .keys()
        .filter(|id| !spec.clause(id).is_some_and(is_documentation))
        .map(String::as_str)
        .collect()
}

/// The `docs:` entry of a reviewed link, on one line (YAML flow style; the strings as JSON,
/// which YAML reads as double-quoted scalars).
pub fn reviewed_entry(url: &str, review: &DocReview) -> String {
    let q = |v: &str| serde_json::to_string(v).unwrap_or_default();
    format!(
        "{{url: {}, reviewed: {{by: {}, date: {}, stamp: {}}}}}",
        q(url),
        q(&review.by),
        q(&review.date),
        q(&review.stamp)
    )
}

/// Why a `docs:` entry cannot be rewritten with its review (K1136): the command rewrites an entry
/// on its key's line only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    /// The value starts on a later line (a block mapping).
    #[error("its value does not stand on the line of its key")]
    NotOnKeyLine,
    /// The value goes on past the key's line (an unclosed flow mapping or quote).
    #[error("its value does not end on the line of its key")]
    PastKeyLine,
}

impl RewriteError {
    /// The error as the binary reports it: K1136 at the entry of `clause` (`span`), nothing written.
    pub fn diagnostic(&self, clause: &str, span: Span) -> Diagnostic {
        Diagnostic::error(
            "K1136",
            format!("the docs entry of `{clause}` cannot be rewritten: {self}"),
        )
        .at(span, "this entry")
        .help("write the entry on one line, `CLAUSE: URL` or `CLAUSE: {url: URL}`, then review it")
    }
}

/// `text` with the `docs:` entry whose value starts at byte `start` replaced by `entry`. The
/// value must stand on its key's line, whole: a plain or quoted scalar (the link) or a flow
/// mapping (`{url: …}`); a trailing comment stays. The error says why it cannot be rewritten.
pub fn rewrite_entry(text: &str, start: usize, entry: &str) -> Result<String, RewriteError> {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    if !text[line_start..start].trim_end().ends_with(':') {
        return Err(RewriteError::NotOnKeyLine);
    }
    let rest = &text[start..line_end];
    let len = value_len(rest).ok_or(RewriteError::PastKeyLine)?;
    Ok(format!("{}{entry}{}", &text[..start], &text[start + len..]))
}

/// The length of the YAML value at the start of `rest` (one line): a flow mapping to its closing
/// brace, a quoted scalar to its closing quote, a plain scalar to a comment or the line's end.
fn value_len(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    match bytes.first()? {
        b'{' => {
            let (mut depth, mut quote, mut escaped) = (0usize, None::<u8>, false);
            for (i, &b) in bytes.iter().enumerate() {
                match quote {
                    Some(_) if escaped => escaped = false,
                    Some(b'"') if b == b'\\' => escaped = true,
                    Some(q) if b == q => quote = None,
                    Some(_) => {}
                    None => match b {
                        b'"' | b'\'' => quote = Some(b),
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(i + 1);
                            }
                        }
                        _ => {}
                    },
                }
            }
            None
        }
        q @ (b'"' | b'\'') => {
            let mut escaped = false;
            for (i, &b) in bytes.iter().enumerate().skip(1) {
                if escaped {
                    escaped = false;
                } else if *q == b'"' && b == b'\\' {
                    escaped = true;
                } else if b == *q {
                    return Some(i + 1);
                }
            }
            None
        }
        _ => {
            let end = rest.find(" #").unwrap_or(rest.len());
            Some(rest[..end].trim_end().len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_rewritten_on_its_line_only() {
        let text = "docs:\n  a.documented: https://x.example/a # the page\n  b: c\n";
        let start = text.find("https").unwrap();
        assert_eq!(
            rewrite_entry(text, start, "{url: \"u\"}").unwrap(),
            "docs:\n  a.documented: {url: \"u\"} # the page\n  b: c\n"
        );
        let flow = "docs:\n  a: {url: \"https://x/}\", reviewed: {by: 'O''Neil', date: \"d\", stamp: \"s\"}}\n";
        let start = flow.find('{').unwrap();
        assert_eq!(
            rewrite_entry(flow, start, "NEW").unwrap(),
            "docs:\n  a: NEW\n"
        );
        let quoted = "docs:\n  a: \"https://x/\\\"q\" # c\n";
        let start = quoted.find('"').unwrap();
        assert_eq!(
            rewrite_entry(quoted, start, "N").unwrap(),
            "docs:\n  a: N # c\n"
        );
        // A block mapping's value starts on the next line; an unclosed flow mapping goes on.
        let block = "docs:\n  a:\n    url: https://x/\n";
        assert!(rewrite_entry(block, block.find("url").unwrap(), "N").is_err());
        let open = "docs:\n  a: {url: https://x/,\n    reviewed: {}}\n";
        assert!(rewrite_entry(open, open.find('{').unwrap(), "N").is_err());
    }
}
