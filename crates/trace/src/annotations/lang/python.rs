//! Python: the lexer (strings with any prefix, triple-quoted strings, `#` comments, line
//! continuations) and pytest's test items (`def test_…` at the top level or in `class Test…`).

use super::{Cursor, Item, Tok, Token, Tokens, failure};
use crate::annotations::syntax::LexFailure;

/// Python's tokens, comments included. A token after a backslash continuation is not the first of
/// its line (it continues a logical line).
pub(super) fn lex(src: &str) -> Result<Vec<Token>, LexFailure> {
    let mut c = Cursor::new(src);
    while !c.at_end() {
        let ch = c.peek(0);
        let (start, line, col) = c.here();
        match ch {
            b'\n' | b' ' | b'\t' | b'\r' | b'\x0c' => c.bump(),
            b'\\' if c.peek(1) == b'\n' || (c.peek(1) == b'\r' && c.peek(2) == b'\n') => {
                while c.peek(0) != b'\n' {
                    c.bump();
                }
                c.bump();
                c.continue_line();
            }
            b'#' => c.line_comment(1),
            b'"' | b'\'' => string(&mut c, 0)?,
            c0 if c0.is_ascii_alphabetic() || c0 == b'_' || c0 >= 0x80 => match prefix_len(&c) {
                Some(n) => string(&mut c, n)?,
                None => c.ident(false),
            },
            c0 if c0.is_ascii_digit() => c.number(),
            b'.' if c.peek(1).is_ascii_digit() => c.number(),
            _ => {
                c.i += 1;
                c.push(Tok::Punct(ch as char), start, line, col);
            }
        }
    }
    Ok(c.out)
}

/// The length of a string prefix (`r`, `b`, `f`, `u`, `rb`, `br`, `fr`, `rf`, any case) at the
/// cursor, when a quote follows it.
fn prefix_len(c: &Cursor) -> Option<usize> {
    let letters = (0..3)
        .take_while(|&k| c.peek(k).is_ascii_alphabetic())
        .count();
    let quote = c.peek(letters);
    if letters == 0 || letters > 2 || (quote != b'"' && quote != b'\'') {
        return None;
    }
    let p = c.src[c.i..c.i + letters].to_ascii_lowercase();
    ["r", "u", "b", "f", "rb", "br", "fr", "rf"]
        .contains(&p.as_str())
        .then_some(letters)
}

/// A string literal after a prefix of `prefix` bytes: triple-quoted (lines included) or on one line
/// (a backslash escapes the next character, a newline too). Raw strings end the same way.
fn string(c: &mut Cursor, prefix: usize) -> Result<(), LexFailure> {
    let (start, line, col) = c.here();
    c.i += prefix;
    let q = c.peek(0);
    let triple = c.peek(1) == q && c.peek(2) == q;
    c.i += if triple { 3 } else { 1 };
    loop {
        if c.at_end() || (!triple && c.peek(0) == b'\n') {
            return Err(failure(
                start..c.i.min(start + prefix + 3).max(start + 1),
                "this string is never closed",
            ));
        }
        match c.peek(0) {
            b'\\' => {
                c.bump();
                if !c.at_end() {
                    c.bump();
                }
            }
            x if x == q && (!triple || (c.peek(1) == q && c.peek(2) == q)) => {
                c.i += if triple { 3 } else { 1 };
                break;
            }
            _ => c.bump(),
        }
    }
    c.push(Tok::Str(None), start, line, col);
    Ok(())
}

/// What encloses a statement: a class (whether pytest collects its methods, and whether it is
/// skipped as a whole) or a function (nothing in it is collected).
enum Frame {
    Class {
        name: String,
        collected: bool,
        skipped: bool,
    },
    Def,
}

/// The statements of the file (tokens that start a logical line), as code-token indices.
fn statements(t: &Tokens) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.code.len() {
        if t.code[i].bol {
            out.push(i);
        }
        i = t.after_group(i);
    }
    out
}

/// pytest's test functions, with the classes they are in.
pub(super) fn items(t: &Tokens) -> Vec<Item> {
    let starts = statements(t);
    let mut out = Vec::new();
    let mut stack: Vec<(usize, Frame)> = Vec::new();
    let mut decorators: Vec<(usize, bool, usize)> = Vec::new();
    for (n, &s) in starts.iter().enumerate() {
        let col = t.code[s].col;
        while stack.last().is_some_and(|(c, _)| *c >= col) {
            stack.pop();
        }
        let collected = stack.iter().all(|(_, f)| {
            matches!(
                f,
                Frame::Class {
                    collected: true,
                    ..
                }
            )
        });
        let class_skipped = stack
            .iter()
            .any(|(_, f)| matches!(f, Frame::Class { skipped: true, .. }));
        if t.is_punct(s, '@') {
            decorators.push((t.code[s].line, is_skip(t, s + 1), t.code[s].range.start));
            continue;
        }
        let def_at = if t.is_word(s, "async") { s + 1 } else { s };
        if t.is_word(s, "class") {
            let name = t.text(s + 1).to_string();
            let frame = Frame::Class {
                collected: collected && name.starts_with("Test"),
                skipped: class_skipped || decorators.iter().any(|d| d.1),
                name,
            };
            stack.push((col, frame));
        } else if t.is_word(def_at, "def") {
            let name = t.text(def_at + 1).to_string();
            if collected && name.starts_with("test") {
                let end = starts
                    .get(n + 1..)
                    .and_then(|rest| rest.iter().copied().find(|&j| t.code[j].col <= col));
                let module: Vec<String> = stack
                    .iter()
                    .filter_map(|(_, f)| match f {
                        Frame::Class { name, .. } => Some(name.clone()),
                        Frame::Def => None,
                    })
                    .collect();
                let at = Def {
                    start: s,
                    def: def_at,
                    end: end.unwrap_or(t.code.len()),
                    ignored: class_skipped || decorators.iter().any(|d| d.1),
                };
                if let Some(item) = test_def(t, &at, module, &decorators) {
                    out.push(item);
                }
            }
            stack.push((col, Frame::Def));
        }
        decorators.clear();
    }
    out
}

/// Where a `def` is: its first token (`async` or `def`), the `def`, the first token after its
/// block, and whether a decorator or its class skips it.
struct Def {
    start: usize,
    def: usize,
    end: usize,
    ignored: bool,
}

/// One `def test_…(…):` and its block.
fn test_def(
    t: &Tokens,
    at: &Def,
    module: Vec<String>,
    decorators: &[(usize, bool, usize)],
) -> Option<Item> {
    let name_at = at.def + 1;
    if !t.is_punct(name_at + 1, '(') {
        return None;
    }
    // The `:` that opens the block, after the parameters and any `-> type`.
    let mut k = t.after_group(name_at + 1);
    while k < at.end && !t.is_punct(k, ':') {
        k = t.after_group(k);
    }
    if k >= at.end {
        return None;
    }
    let last = at.end.checked_sub(1)?;
    let mut lines: Vec<usize> = decorators.iter().map(|d| d.0).collect();
    lines.push(t.code[at.start].line);
    let first = decorators
        .first()
        .map_or(t.code[at.start].range.start, |d| d.2);
    let end = t.code[last].range.end;
    Some(Item {
        module,
        name: t.text(name_at).to_string(),
        name_range: t.code[name_at].range.clone(),
        lines,
        range: first..end,
        body: t.code.get(k + 1).map_or(end, |x| x.range.start)..end,
        stub: only_skips(t, k + 1, at.end),
        ignored: at.ignored,
    })
}

/// A decorator (after its `@`) that skips unconditionally: `pytest.mark.skip`, `unittest.skip`.
fn is_skip(t: &Tokens, i: usize) -> bool {
    let word = |k: usize, w: &str| t.is_word(k, w);
    (word(i, "pytest") && t.is_punct(i + 1, '.') && word(i + 2, "mark") && t.is_punct(i + 3, '.'))
        && word(i + 4, "skip")
        || (word(i, "unittest") && t.is_punct(i + 1, '.') && word(i + 2, "skip"))
}

/// The block (code tokens `from..to`) holds only `pass`, `...`, strings (a docstring) and
/// `pytest.skip(…)` statements: the test verifies nothing.
fn only_skips(t: &Tokens, from: usize, to: usize) -> bool {
    let mut k = from;
    while k < to {
        // One statement: up to the next token that starts a line (outside brackets) or a `;`.
        let mut end = k;
        while end < to && (end == k || !t.code[end].bol) && !t.is_punct(end, ';') {
            end = t.after_group(end);
        }
        let stmt = k..end.min(to);
        let n = stmt.len();
        let ok = (n == 1 && t.is_word(k, "pass"))
            || (n == 3 && stmt.clone().all(|j| t.is_punct(j, '.')))
            || (n > 0 && stmt.clone().all(|j| matches!(t.code[j].kind, Tok::Str(_))))
            || (t.is_word(k, "pytest")
                && t.is_punct(k + 1, '.')
                && t.is_word(k + 2, "skip")
                && t.is_punct(k + 3, '(')
                && t.after_group(k + 3) == end);
        if !ok {
            return false;
        }
        k = if t.is_punct(end, ';') { end + 1 } else { end };
    }
    true
}
