//! A fast path for the plain YAML that clause blocks almost always are.
//!
//! Profiling `check` on the contract ×100 showed the general YAML parser (serde-saphyr with per-value
//! spans) taking over a third of the time. Clause blocks use a tiny part of YAML: `key: plain value`,
//! `key: "quoted value"` without escapes, `key: >-` / `key: |` block scalars (a literal one may hold
//! deeper-indented lines, as a nested list in a text does), and `key:` followed by `  - item` lines. This module parses
//! exactly that subset and gives up — returns `None` — at the first thing outside it (quotes, comments,
//! tabs, flow collections, anchors, special scalars, odd indentation, duplicate keys, anything it is
//! not sure of). The caller then uses serde-saphyr, which also produces every error message, so the
//! fast path can never change what a user sees. The property tests at the end of `clause_block.rs`
//! check that it yields the same values and spans as serde-saphyr on random blocks.

use std::borrow::Cow;
use std::ops::Range;

/// A scalar with its byte range in the file. The value borrows from the block when it is a piece
/// of it (keys, plain and quoted values); a block scalar, whose lines are joined, owns its value.
/// (Copying every key and value was most of the allocations of loading a large spec.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scalar<'a> {
    /// The text, quotes removed, block scalar lines joined.
    pub value: Cow<'a, str>,
    /// Byte range of the scalar in the file (as serde-saphyr reports it).
    pub range: Range<usize>,
}

/// A field's value: the only two shapes clause blocks use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// A scalar (plain, double-quoted or block).
    Str(Scalar<'a>),
    /// A block sequence of scalars (`  - item` lines).
    List(Vec<Scalar<'a>>),
}

/// `key: value`, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// The key.
    pub key: Scalar<'a>,
    /// Its value.
    pub value: Value<'a>,
}

struct Line<'a> {
    /// Byte offset of the line start in the file.
    start: usize,
    /// The line without its newline.
    text: &'a str,
}

impl Line<'_> {
    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }
    fn is_blank(&self) -> bool {
        self.text.trim_matches(' ').is_empty()
    }
}

/// Parse `text` (the block content, starting at file offset `base`) if it is in the subset.
pub(crate) fn parse(text: &str, base: usize) -> Option<Vec<Field<'_>>> {
    if text.contains(['\t', '\r', '\u{feff}', '\0']) {
        return None;
    }
    // A clause block is a dozen lines or so: sized once.
    let mut lines = Vec::with_capacity(16);
    let mut offset = base;
    for l in text.split_inclusive('\n') {
        lines.push(Line {
            start: offset,
            text: l.strip_suffix('\n').unwrap_or(l),
        });
        offset += l.len();
    }
    let mut fields: Vec<Field> = Vec::with_capacity(8);
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if line.is_blank() {
            i += 1;
            continue;
        }
        if line.indent() != 0 {
            return None;
        }
        let colon = line.text.find(':')?;
        let key = &line.text[..colon];
        if key.is_empty()
            || !key.starts_with(|c: char| c.is_ascii_lowercase())
            || !key.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            || fields.iter().any(|f| f.key.value == key)
        {
            return None;
        }
        let key = Scalar {
            value: Cow::Borrowed(key),
            range: line.start..line.start + colon,
        };
        let rest = &line.text[colon + 1..];
        let (value, next) = if rest.is_empty() {
            list(&lines, i + 1)?
        } else {
            let rest_start = line.start + colon + 2;
            match rest.strip_prefix(' ')? {
                ">-" => block(&lines, i + 1, true)?,
                "|" => block(&lines, i + 1, false)?,
                v => {
                    // A scalar must fit on its line: an indented next line would continue it.
                    if lines
                        .get(i + 1)
                        .is_some_and(|n| !n.is_blank() && n.indent() > 0)
                    {
                        return None;
                    }
                    let scalar = match v.strip_prefix('"') {
                        Some(_) => quoted(v, rest_start)?,
                        None => plain(v, rest_start)?,
                    };
                    (Value::Str(scalar), i + 1)
                }
            }
        };
        fields.push(Field { key, value });
        i = next;
    }
    (!fields.is_empty()).then_some(fields)
}

/// A plain scalar that needs no YAML interpretation: no indicator at the start, no `: ` or ` #`
/// inside, not a null/boolean/number look-alike, not empty. Trailing spaces are not part of it.
fn plain(v: &str, start: usize) -> Option<Scalar<'_>> {
    let trimmed = v.trim_end_matches(' ');
    let first = trimmed.chars().next()?;
    if "-?:,[]{}#&*!|>'\"%@` ".contains(first)
        || trimmed.contains(": ")
        || trimmed.contains(" #")
        || trimmed.ends_with(':')
    {
        return None;
    }
    // Null and boolean spellings are not strings to YAML; leave them to the full parser. (Numbers
    // are read as their text when a string is expected, so hex stamps like `3a7163a0d52f` and ids
    // like `12` stay on the fast path; the equivalence test covers them.)
    const SPECIAL: [&str; 10] = [
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
    ];
    if SPECIAL.iter().any(|w| trimmed.eq_ignore_ascii_case(w)) || trimmed.starts_with("...") {
        return None;
    }
    Some(Scalar {
        value: Cow::Borrowed(trimmed),
        range: start..start + trimmed.len(),
    })
}

/// A double-quoted scalar that is the whole rest of its line and needs no unescaping: no backslash
/// and no quote inside. Its value is the text between the quotes.
fn quoted(v: &str, start: usize) -> Option<Scalar<'_>> {
    let inner = v.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains(['"', '\\']) {
        return None;
    }
    Some(Scalar {
        value: Cow::Borrowed(inner),
        range: start..start + v.len(),
    })
}

/// `key:` followed by `  - item` lines, all at the same indentation.
fn list<'a>(lines: &[Line<'a>], from: usize) -> Option<(Value<'a>, usize)> {
    let mut items = Vec::new();
    let mut indent = None;
    let mut i = from;
    while let Some(line) = lines.get(i) {
        if line.is_blank() {
            i += 1;
            continue;
        }
        let n = line.indent();
        if n == 0 {
            break;
        }
        if indent.is_some_and(|ind| ind != n) {
            return None;
        }
        indent = Some(n);
        let item = line.text[n..].strip_prefix("- ")?;
        items.push(plain(item, line.start + n + 2)?);
        i += 1;
    }
    (!items.is_empty()).then_some((Value::List(items), i))
}

/// A `>-` (folded, strip) or `|` (literal, clip) block scalar whose lines all share one
/// indentation. Blank lines are allowed between content lines only.
fn block<'a>(lines: &[Line<'a>], from: usize, folded: bool) -> Option<(Value<'a>, usize)> {
    let first = lines.get(from)?;
    let indent = first.indent();
    if indent == 0 || first.is_blank() {
        return None;
    }
    // One pass: each content line is appended after the separator its preceding blank lines call
    // for; blank lines after the last content line are dropped (`-` strips, `|` clips).
    let mut value = String::new();
    let mut last = first;
    let mut blanks = 0;
    let mut i = from;
    while let Some(line) = lines.get(i) {
        if line.is_blank() {
            // A blank line with more spaces than the indentation would carry content spaces.
            if line.text.len() > indent {
                return None;
            }
            blanks += 1;
            i += 1;
            continue;
        }
        let n = line.indent();
        if n == 0 {
            break;
        }
        // A literal block keeps the extra indentation of a deeper line as content (a nested list
        // in a clause text); a folded one would stop folding there, which is left to serde-saphyr.
        if n < indent || (folded && n != indent) {
            return None;
        }
        if i > from {
            if !folded {
                value.extend(std::iter::repeat_n('\n', blanks + 1));
            } else if blanks == 0 {
                value.push(' ');
            } else {
                value.extend(std::iter::repeat_n('\n', blanks));
            }
        } else {
            // Room for the whole block as written, which the value never exceeds by much.
            let end = lines
                .iter()
                .skip(from)
                .take_while(|l| l.is_blank() || l.indent() > 0)
                .last()
                .map_or(line.start, |l| l.start + l.text.len());
            value.reserve(end - line.start + 1);
        }
        value.push_str(&line.text[indent..]);
        last = line;
        blanks = 0;
        i += 1;
    }
    if value.ends_with(' ') {
        // Trailing spaces of the last line are content in YAML; keep out of the subset.
        return None;
    }
    if !folded {
        value.push('\n');
    }
    let start = first.start + indent;
    let end = last.start + last.text.len();
    Some((
        Value::Str(Scalar {
            value: Cow::Owned(value),
            range: start..end,
        }),
        i,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Option<Vec<(String, String)>> {
        parse(text, 0).map(|fields| {
            fields
                .into_iter()
                .map(|f| {
                    let v = match f.value {
                        Value::Str(s) => s.value.into_owned(),
                        Value::List(items) => items
                            .into_iter()
                            .map(|i| i.value)
                            .collect::<Vec<_>>()
                            .join("|"),
                    };
                    (f.key.value.into_owned(), v)
                })
                .collect()
        })
    }

    #[test]
    fn the_subset() {
        let v = values("id: a.b\ntext: >-\n  The platform MUST\n  do it.\n\n  Again.\nupstream-tests:\n  - a_test.go\n  - b_test.go\nreason: |\n  one\n  two\n").unwrap();
        assert_eq!(v[0], ("id".into(), "a.b".into()));
        assert_eq!(
            v[1],
            ("text".into(), "The platform MUST do it.\nAgain.".into())
        );
        assert_eq!(
            v[2],
            ("upstream-tests".into(), "a_test.go|b_test.go".into())
        );
        assert_eq!(v[3], ("reason".into(), "one\ntwo\n".into()));
    }

    #[test]
    fn quoted_values_and_deeper_lines_in_literal_blocks() {
        let v = values("id: \"a: b # c\"\ntext: |\n  The list:\n\n  - one\n    more\n").unwrap();
        assert_eq!(v[0], ("id".into(), "a: b # c".into()));
        assert_eq!(v[1], ("text".into(), "The list:\n\n- one\n  more\n".into()));
        let f = parse("id: \"x\"\n", 10).unwrap();
        let Value::Str(s) = &f[0].value else { panic!() };
        // The span covers the quotes, as serde-saphyr's does.
        assert_eq!(s.range, 14..17);
    }

    #[test]
    fn gives_up_outside_it() {
        for text in [
            "id: \"esc\\\"aped\"\n",
            "id: \"new\\nline\"\n",
            "id: \"a\" # comment\n",
            "id: \"unclosed\n",
            "id: a # comment\n",
            "# comment\nid: a\n",
            "id: a\nid: b\n",
            "id: [a]\n",
            "id: &x a\n",
            "id: true\n",
            "id: ~\n",
            "id:\n",
            "text: a\n  continued\n",
            "text: >-\n  a\n    more indented\n",
            "text: >\n  a\n",
            "text: |-\n  a\n",
            "list:\n- a\n",
            "Id: a\n",
            "id:\ta\n",
            "",
            "id: a: b\n",
        ] {
            assert_eq!(parse(text, 0), None, "{text:?}");
        }
    }

    #[test]
    fn ranges_point_into_the_file() {
        let text = "id: a.b\ntext: >-\n  x y\n  z\n";
        let f = parse(text, 100).unwrap();
        assert_eq!(f[0].key.range, 100..102);
        let Value::Str(s) = &f[0].value else { panic!() };
        assert_eq!(s.range, 104..107);
        let Value::Str(t) = &f[1].value else { panic!() };
        assert_eq!(&text[t.range.start - 100..t.range.end - 100], "x y\n  z");
    }
}
