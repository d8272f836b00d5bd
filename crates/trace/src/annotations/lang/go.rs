//! Go: the lexer (interpreted, raw and rune literals, line and block comments) and the test items
//! (`func TestX(t *testing.T)` at the top level, `t.Run("name", func…)` subtests in their bodies).

use super::{Cursor, Item, Tok, Token, Tokens, failure};
use crate::annotations::syntax::LexFailure;

/// Go's tokens, comments included.
pub(super) fn lex(src: &str) -> Result<Vec<Token>, LexFailure> {
    let mut c = Cursor::new(src);
    while !c.at_end() {
        let ch = c.peek(0);
        let (start, line, col) = c.here();
        match ch {
            b'\n' | b' ' | b'\t' | b'\r' | b'\x0c' => c.bump(),
            b'/' if c.peek(1) == b'/' => c.line_comment(2),
            b'/' if c.peek(1) == b'*' => c.block_comment()?,
            b'"' => {
                let v = c.quoted(b'"')?;
                c.push(Tok::Str(Some(v)), start, line, col);
            }
            b'\'' => {
                c.quoted(b'\'')?;
                c.push(Tok::Other, start, line, col);
            }
            b'`' => {
                // A raw string: everything up to the next backquote, lines included; Go drops its
                // carriage returns.
                let Some(end) = src[start + 1..].find('`').map(|k| start + 1 + k) else {
                    return Err(failure(start..start + 1, "this raw string is never closed"));
                };
                let value = src[start + 1..end].replace('\r', "");
                while c.i <= end {
                    c.bump();
                }
                c.push(Tok::Str(Some(value)), start, line, col);
            }
            c0 if c0.is_ascii_alphabetic() || c0 == b'_' || c0 >= 0x80 => c.ident(false),
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

/// The test functions of a file and their subtests.
pub(super) fn items(t: &Tokens) -> Vec<Item> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.code.len() {
        if t.is_word(i, "func")
            && let Some(item) = test_func(t, i)
        {
            let body = item.1;
            out.push(item.0);
            let name = out.last().map(|it| it.name.clone()).unwrap_or_default();
            subtests(t, body.0 + 1, body.1, &[name], &mut out);
            i = body.1 + 1;
            continue;
        }
        i = t.after_group(i);
    }
    out
}

/// `func TestX(t *testing.T) { … }` at `i`: the item, and its body's bracket indices.
fn test_func(t: &Tokens, i: usize) -> Option<(Item, (usize, usize))> {
    let name_at = i + 1;
    let name = t.text(name_at);
    if t.code.get(name_at)?.kind != Tok::Ident || !is_test_name(name) || !t.is_punct(i + 2, '(') {
        return None;
    }
    let params_end = t.close[i + 2]?;
    let takes_t = (i + 3..params_end)
        .any(|k| t.is_word(k, "testing") && t.is_punct(k + 1, '.') && t.is_word(k + 2, "T"));
    if !takes_t || !t.is_punct(params_end + 1, '{') {
        return None;
    }
    let open = params_end + 1;
    let close = t.close[open]?;
    let item = Item {
        module: Vec::new(),
        name: name.to_string(),
        name_range: t.code[name_at].range.clone(),
        lines: vec![t.code[i].line],
        range: t.code[i].range.start..t.code[close].range.end,
        body: t.code[open].range.start..t.code[close].range.end,
        stub: only_skips(t, open, close),
        ignored: false,
    };
    Some((item, (open, close)))
}

/// `go test` runs `TestX` when the letter after `Test` is not a lower-case one.
fn is_test_name(name: &str) -> bool {
    name.strip_prefix("Test")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_lowercase()))
}

/// `x.Run("name", func(…) { … })` subtests between code tokens `from` and `to`, at any depth (in a
/// loop, an `if`); each one's own subtests under its name.
fn subtests(t: &Tokens, from: usize, to: usize, module: &[String], out: &mut Vec<Item>) {
    let mut k = from;
    while k < to {
        let call = t.code.get(k).is_some_and(|x| x.kind == Tok::Ident)
            && t.is_punct(k + 1, '.')
            && t.is_word(k + 2, "Run")
            && t.is_punct(k + 3, '(');
        let name = match t.code.get(k + 4).map(|x| &x.kind) {
            Some(Tok::Str(Some(v))) if call && t.is_punct(k + 5, ',') => v.clone(),
            _ => {
                k += 1;
                continue;
            }
        };
        let args_end = t.close[k + 3].unwrap_or(to);
        // The function literal's body: the first `{` after `func (…)`.
        let body = (k + 6..args_end)
            .find(|&j| t.is_word(j, "func"))
            .and_then(|f| t.close[f + 1].map(|p| p + 1))
            .filter(|&open| t.is_punct(open, '{'))
            .and_then(|open| Some((open, t.close[open]?)));
        let Some((open, close)) = body else {
            k += 1;
            continue;
        };
        // `go test` writes a subtest's spaces as `_`.
        let name = name.replace(' ', "_");
        out.push(Item {
            module: module.to_vec(),
            name: name.clone(),
            name_range: t.code[k + 4].range.clone(),
            lines: vec![t.code[k].line],
            range: t.code[k].range.start..t.code[args_end].range.end,
            body: t.code[open].range.start..t.code[close].range.end,
            stub: only_skips(t, open, close),
            ignored: false,
        });
        let mut inner = module.to_vec();
        inner.push(name);
        subtests(t, open + 1, close, &inner, out);
        k = args_end + 1;
    }
}

/// The body between brackets `open` and `close` holds nothing, or only one `t.Skip(…)`,
/// `t.Skipf(…)` or `t.SkipNow()` (what `scaffold --lang go` writes): the test verifies nothing.
fn only_skips(t: &Tokens, open: usize, close: usize) -> bool {
    let mut k = open + 1;
    while k < close && t.is_punct(k, ';') {
        k += 1;
    }
    if k == close {
        return true;
    }
    let skip = t.code[k].kind == Tok::Ident
        && t.is_punct(k + 1, '.')
        && ["Skip", "Skipf", "SkipNow"].contains(&t.text(k + 2))
        && t.is_punct(k + 3, '(');
    if !skip {
        return false;
    }
    let mut after = t.after_group(k + 3);
    while after < close && t.is_punct(after, ';') {
        after += 1;
    }
    after == close
}
