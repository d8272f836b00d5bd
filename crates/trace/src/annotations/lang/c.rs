//! C and C++: the lexer (strings, character literals, C++ raw strings `R"d(…)d"`, line and block
//! comments, preprocessor lines) and the tests of GoogleTest (`TEST(Suite, Name)`, `TEST_F`) and
//! Criterion (`Test(suite, name)`), at the top level or in namespaces.

use super::{Cursor, Item, Tok, Token, Tokens, failure};
use crate::annotations::syntax::LexFailure;

/// The tokens of a C or C++ file, comments included; a preprocessor line (with its backslash
/// continuations) is one token.
pub(super) fn lex(src: &str) -> Result<Vec<Token>, LexFailure> {
    let mut c = Cursor::new(src);
    while !c.at_end() {
        let ch = c.peek(0);
        let (start, line, col) = c.here();
        let first_on_line = c.last().is_none_or(|t| t.line != line);
        match ch {
            b'\n' | b' ' | b'\t' | b'\r' | b'\x0c' => c.bump(),
            b'\\' if c.peek(1) == b'\n' => {
                c.bump();
                c.bump();
            }
            b'/' if c.peek(1) == b'/' => c.line_comment(2),
            b'/' if c.peek(1) == b'*' => c.block_comment()?,
            b'#' if first_on_line => preprocessor(&mut c),
            b'"' => {
                let v = c.quoted(b'"')?;
                c.push(Tok::Str(Some(v)), start, line, col);
            }
            b'\'' => {
                c.quoted(b'\'')?;
                c.push(Tok::Other, start, line, col);
            }
            c0 if c0.is_ascii_alphabetic() || c0 == b'_' || c0 >= 0x80 => {
                if let Some(open) = raw_string_quote(&c) {
                    raw_string(&mut c, open)?;
                } else {
                    c.ident(false);
                }
            }
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

/// A preprocessor line: to the end of the line, continuations included (a comment on it ends it;
/// a string or character literal in it is skipped whole, a `//` in one being text).
fn preprocessor(c: &mut Cursor) {
    let (start, line, col) = c.here();
    while !c.at_end() && c.peek(0) != b'\n' {
        match c.peek(0) {
            b'\\' if c.peek(1) == b'\n' => c.bump(),
            b'/' if c.peek(1) == b'/' || c.peek(1) == b'*' => break,
            q @ (b'"' | b'\'') => {
                c.bump();
                while !c.at_end() && c.peek(0) != q && c.peek(0) != b'\n' {
                    if c.peek(0) == b'\\' {
                        c.bump();
                    }
                    c.bump();
                }
                if c.at_end() || c.peek(0) == b'\n' {
                    break;
                }
            }
            _ => {}
        }
        c.bump();
    }
    c.push(Tok::Other, start, line, col);
}

/// At a raw string's prefix (`R"`, `u8R"`, `LR"`, `uR"`, `UR"`): the offset of its `"`.
fn raw_string_quote(c: &Cursor) -> Option<usize> {
    ["R\"", "u8R\"", "LR\"", "uR\"", "UR\""]
        .iter()
        .find(|p| c.src[c.i..].starts_with(**p))
        .map(|p| c.i + p.len() - 1)
}

/// `R"delim( … )delim"`, lines included.
fn raw_string(c: &mut Cursor, quote: usize) -> Result<(), LexFailure> {
    let (start, line, col) = c.here();
    let open = c.src[quote..].find('(').map(|k| quote + k);
    let Some(open) = open.filter(|&o| o - quote <= 17) else {
        return Err(failure(start..quote + 1, "a raw string without its `(`"));
    };
    let close = format!("){}\"", &c.src[quote + 1..open]);
    let Some(end) = c.src[open..].find(&close).map(|k| open + k + close.len()) else {
        return Err(failure(start..open + 1, "this raw string is never closed"));
    };
    while c.i < end {
        c.bump();
    }
    c.push(Tok::Str(None), start, line, col);
    Ok(())
}

/// The macros that declare a test: GoogleTest's and Criterion's.
const TESTS: [&str; 4] = ["TEST", "TEST_F", "TYPED_TEST", "Test"];

/// The tests of a file, named `Suite.Name` as GoogleTest prints them (and Criterion's XML nests
/// them).
pub(super) fn items(t: &Tokens) -> Vec<Item> {
    let mut out = Vec::new();
    block(t, 0, t.code.len(), &mut out);
    out
}

/// The tests among code tokens `from..to`, entering `namespace … { … }` and `extern "C" { … }`.
fn block(t: &Tokens, from: usize, to: usize, out: &mut Vec<Item>) {
    let mut k = from;
    while k < to {
        if t.is_word(k, "namespace") || t.is_word(k, "extern") {
            // The first brace group after it, unless a `;` comes first.
            let mut j = k + 1;
            while j < to && !t.is_punct(j, '{') && !t.is_punct(j, ';') {
                j += 1;
            }
            if t.is_punct(j, '{')
                && let Some(close) = t.close[j]
            {
                block(t, j + 1, close, out);
                k = close + 1;
                continue;
            }
        }
        if let Some((item, next)) = test_macro(t, k) {
            out.push(item);
            k = next;
            continue;
        }
        k = t.after_group(k);
    }
}

/// `TEST(Suite, Name) { … }` (or `Test(suite, name, .opts…) { … }`) at `k`, with the token after it.
fn test_macro(t: &Tokens, k: usize) -> Option<(Item, usize)> {
    let word = t.text(k);
    if t.code[k].kind != Tok::Ident || !TESTS.contains(&word) || !t.is_punct(k + 1, '(') {
        return None;
    }
    let args_end = t.close[k + 1]?;
    let ident = |i: usize| t.code.get(i).is_some_and(|x| x.kind == Tok::Ident);
    if !(ident(k + 2) && t.is_punct(k + 3, ',') && ident(k + 4)) {
        return None;
    }
    let open = args_end + 1;
    if !t.is_punct(open, '{') {
        return None;
    }
    let close = t.close[open]?;
    let (suite, name) = (t.text(k + 2), t.text(k + 4));
    // `.disabled = true` (Criterion) or a `DISABLED_` name (GoogleTest): declared skipped.
    let disabled = (k + 5..args_end).any(|j| t.is_word(j, "disabled"))
        || name.starts_with("DISABLED_")
        || suite.starts_with("DISABLED_");
    let item = Item {
        module: vec![suite.to_string()],
        name: name.to_string(),
        name_range: t.code[k + 4].range.clone(),
        lines: vec![t.code[k].line],
        range: t.code[k].range.start..t.code[close].range.end,
        body: t.code[open].range.start..t.code[close].range.end,
        stub: only_skips(t, open, close),
        ignored: disabled,
    };
    Some((item, close + 1))
}

/// The body holds nothing, or only `GTEST_SKIP() [<< "…"];` or `cr_skip_test(…);`.
fn only_skips(t: &Tokens, open: usize, close: usize) -> bool {
    let k = open + 1;
    if k == close {
        return true;
    }
    let skip =
        (t.is_word(k, "GTEST_SKIP") || t.is_word(k, "cr_skip_test")) && t.is_punct(k + 1, '(');
    if !skip {
        return false;
    }
    // The rest of the statement (`<< "why"`) up to its `;`, which must end the body.
    let mut j = t.after_group(k + 1);
    while j < close && !t.is_punct(j, ';') {
        j = t.after_group(j);
    }
    j + 1 >= close
}
