//! Java: the lexer (strings, text blocks `"""…"""`, character literals, line and block comments)
//! and JUnit's test methods (`@Test`, in classes at any depth), named by the class's qualified
//! name as Maven's and Gradle's JUnit XML give it.

use super::{Cursor, Item, Tok, Token, Tokens, failure};
use crate::annotations::syntax::LexFailure;

/// Java's tokens, comments included.
pub(super) fn lex(src: &str) -> Result<Vec<Token>, LexFailure> {
    let mut c = Cursor::new(src);
    while !c.at_end() {
        let ch = c.peek(0);
        let (start, line, col) = c.here();
        match ch {
            b'\n' | b' ' | b'\t' | b'\r' | b'\x0c' => c.bump(),
            b'/' if c.peek(1) == b'/' => c.line_comment(2),
            b'/' if c.peek(1) == b'*' => c.block_comment()?,
            b'"' if c.peek(1) == b'"' && c.peek(2) == b'"' => {
                c.i += 3;
                loop {
                    if c.at_end() {
                        return Err(failure(start..start + 3, "this text block is never closed"));
                    }
                    if c.peek(0) == b'\\' {
                        c.bump();
                    } else if c.src[c.i..].starts_with("\"\"\"") {
                        c.i += 3;
                        break;
                    }
                    c.bump();
                }
                c.push(Tok::Str(None), start, line, col);
            }
            b'"' => {
                let v = c.quoted(b'"')?;
                c.push(Tok::Str(Some(v)), start, line, col);
            }
            b'\'' => {
                c.quoted(b'\'')?;
                c.push(Tok::Other, start, line, col);
            }
            c0 if c0.is_ascii_alphabetic() || c0 == b'_' || c0 == b'$' || c0 >= 0x80 => {
                c.ident(true);
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

/// The `@Test` methods of a file, each with its class's qualified name (`$` between nested
/// classes, as in the XML reports).
pub(super) fn items(t: &Tokens) -> Vec<Item> {
    let mut package = String::new();
    if let Some(p) = (0..t.code.len()).find(|&k| t.is_word(k, "package")) {
        let mut k = p + 1;
        while k < t.code.len() && !t.is_punct(k, ';') {
            package.push_str(t.text(k));
            k += 1;
        }
    }
    let mut out = Vec::new();
    body(t, 0, t.code.len(), &package, &mut out);
    out
}

const TYPES: [&str; 4] = ["class", "interface", "enum", "record"];

/// The members of a file or a class body (code tokens `from..to`); `owner` is the enclosing
/// class's qualified name (the package at the top level).
fn body(t: &Tokens, from: usize, to: usize, owner: &str, out: &mut Vec<Item>) {
    let mut annotations: Vec<(usize, String)> = Vec::new();
    let mut k = from;
    while k < to {
        if t.is_punct(k, '@') && t.code.get(k + 1).is_some_and(|x| x.kind == Tok::Ident) {
            // `@Name`, `@a.b.Name`, maybe with arguments.
            let mut j = k + 1;
            while t.is_punct(j + 1, '.') && t.code.get(j + 2).is_some_and(|x| x.kind == Tok::Ident)
            {
                j += 2;
            }
            if t.is_word(j + 1, "interface") {
                k = j + 1;
                continue;
            }
            annotations.push((k, t.text(j).to_string()));
            k = if t.is_punct(j + 1, '(') {
                t.after_group(j + 1)
            } else {
                j + 1
            };
            continue;
        }
        if TYPES.iter().any(|w| t.is_word(k, w))
            && t.code.get(k + 1).is_some_and(|x| x.kind == Tok::Ident)
        {
            let name = t.text(k + 1);
            let inner = match owner {
                "" => name.to_string(),
                o if from == 0 => format!("{o}.{name}"),
                o => format!("{o}${name}"),
            };
            let mut j = k + 2;
            while j < to && !t.is_punct(j, '{') {
                j = t.after_group(j);
            }
            if let Some(close) = t.close.get(j).copied().flatten() {
                body(t, j + 1, close, &inner, out);
                k = close + 1;
            } else {
                k = j + 1;
            }
            annotations.clear();
            continue;
        }
        // A method: its name before `(`, its body the brace group after `)` (and `throws …`).
        if t.code.get(k).is_some_and(|x| x.kind == Tok::Ident) && t.is_punct(k + 1, '(') && from > 0
        {
            let params_end = t.after_group(k + 1);
            let mut j = params_end;
            while j < to && !t.is_punct(j, '{') && !t.is_punct(j, ';') {
                j = t.after_group(j);
            }
            let is_test = annotations.iter().any(|(_, a)| a == "Test");
            if is_test
                && t.is_punct(j, '{')
                && let Some(close) = t.close[j]
            {
                out.push(method(t, k, (j, close), owner, &annotations));
            }
            k = if t.is_punct(j, '{') {
                t.after_group(j)
            } else {
                j + 1
            };
            annotations.clear();
            continue;
        }
        if t.is_punct(k, ';') || t.is_punct(k, '}') || t.is_punct(k, '=') {
            annotations.clear();
        }
        k = t.after_group(k);
    }
}

/// One `@Test` method named at `k`, its body between brackets `braces`.
fn method(
    t: &Tokens,
    k: usize,
    (open, close): (usize, usize),
    owner: &str,
    annotations: &[(usize, String)],
) -> Item {
    let mut lines: Vec<usize> = annotations.iter().map(|(a, _)| t.code[*a].line).collect();
    lines.push(t.code[k].line);
    let start = annotations
        .first()
        .map_or(t.code[k].range.start, |(a, _)| t.code[*a].range.start);
    Item {
        module: vec![owner.to_string()],
        name: t.text(k).to_string(),
        name_range: t.code[k].range.clone(),
        lines,
        range: start..t.code[close].range.end,
        body: t.code[open].range.start..t.code[close].range.end,
        stub: only_skips(t, open, close),
        ignored: annotations
            .iter()
            .any(|(_, a)| a == "Disabled" || a == "Ignore"),
    }
}

/// The body holds nothing, or only `abort(…)`/`Assumptions.abort(…)` (JUnit 5's "not run").
fn only_skips(t: &Tokens, open: usize, close: usize) -> bool {
    let mut k = open + 1;
    if k == close {
        return true;
    }
    if t.is_word(k, "Assumptions") && t.is_punct(k + 1, '.') {
        k += 2;
    }
    if !(t.is_word(k, "abort") && t.is_punct(k + 1, '(')) {
        return false;
    }
    let end = t.after_group(k + 1);
    end + 1 == close && t.is_punct(end, ';')
}
