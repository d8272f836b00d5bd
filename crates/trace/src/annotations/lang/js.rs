//! JavaScript and TypeScript: the lexer (quoted strings, template literals with `${…}` nesting,
//! regular expression literals, line and block comments) and the test items of Jest, Vitest and
//! Mocha (`test(…)`/`it(…)` calls, at the top level or in `describe(…)` callbacks).

use super::{Cursor, Item, Tok, Token, Tokens, failure};
use crate::annotations::syntax::LexFailure;

/// The tokens of JavaScript or TypeScript, comments included. The `${` and `}` around a template
/// literal's substitution are not tokens (they are part of the literal); what is between them is.
pub(super) fn lex(src: &str) -> Result<Vec<Token>, LexFailure> {
    let mut c = Cursor::new(src);
    if src[c.i..].starts_with("#!") {
        c.line_comment(2);
    }
    // For each open brace: whether it is a template literal's `${`.
    let mut braces: Vec<bool> = Vec::new();
    while !c.at_end() {
        let ch = c.peek(0);
        let (start, line, col) = c.here();
        match ch {
            b'\n' | b' ' | b'\t' | b'\r' | b'\x0c' => c.bump(),
            b'/' if c.peek(1) == b'/' => c.line_comment(2),
            b'/' if c.peek(1) == b'*' => c.block_comment()?,
            b'/' if regex_allowed(c.last(), src) => regex(&mut c)?,
            b'"' | b'\'' => {
                let v = c.quoted(ch)?;
                c.push(Tok::Str(Some(v)), start, line, col);
            }
            b'`' => {
                c.i += 1;
                template(&mut c, start, line, col, &mut braces)?;
            }
            b'}' if braces.last() == Some(&true) => {
                braces.pop();
                c.i += 1;
                let (s, l, k) = c.here();
                template(&mut c, s, l, k, &mut braces)?;
            }
            c0 if c0.is_ascii_alphabetic() || c0 == b'_' || c0 == b'$' || c0 >= 0x80 => {
                c.ident(true);
            }
            c0 if c0.is_ascii_digit() => c.number(),
            b'.' if c.peek(1).is_ascii_digit() => c.number(),
            _ => {
                if ch == b'{' {
                    braces.push(false);
                } else if ch == b'}' {
                    braces.pop();
                }
                c.i += 1;
                c.push(Tok::Punct(ch as char), start, line, col);
            }
        }
    }
    Ok(c.out)
}

/// Words after which a `/` starts a regular expression, not a division.
const BEFORE_REGEX: [&str; 14] = [
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
];

/// A `/` after `last` starts a regular expression: at the start, after an operator or an opening
/// bracket, or after a keyword that takes an expression.
fn regex_allowed(last: Option<&Token>, src: &str) -> bool {
    match last.map(|t| (&t.kind, t)) {
        None => true,
        Some((Tok::Punct(p), _)) => !matches!(p, ')' | ']' | '}'),
        Some((Tok::Ident, t)) => BEFORE_REGEX.contains(&&src[t.range.clone()]),
        Some(_) => false,
    }
}

/// A regular expression literal: to the `/` outside a character class, then its flags.
fn regex(c: &mut Cursor) -> Result<(), LexFailure> {
    let (start, line, col) = c.here();
    c.i += 1;
    let mut in_class = false;
    loop {
        match c.peek(0) {
            _ if c.at_end() => break,
            b'\n' => break,
            b'\\' => {
                c.i += 1;
                if c.peek(0) != b'\n' && !c.at_end() {
                    c.i += 1;
                }
            }
            b'[' => {
                in_class = true;
                c.i += 1;
            }
            b']' => {
                in_class = false;
                c.i += 1;
            }
            b'/' if !in_class => {
                c.i += 1;
                while c.peek(0).is_ascii_alphabetic() {
                    c.i += 1;
                }
                c.push(Tok::Other, start, line, col);
                return Ok(());
            }
            _ => c.i += 1,
        }
    }
    Err(failure(
        start..start + 1,
        "this regular expression is never closed on its line",
    ))
}

/// The rest of a template literal from the cursor (just after its `` ` `` or a substitution's
/// `}`) to its closing `` ` `` or its next `${`. A literal without substitutions is a string with
/// its text as value.
fn template(
    c: &mut Cursor,
    start: usize,
    line: usize,
    col: usize,
    braces: &mut Vec<bool>,
) -> Result<(), LexFailure> {
    let whole = c.src.as_bytes().get(start) == Some(&b'`');
    let from = c.i;
    loop {
        if c.at_end() {
            return Err(failure(
                start..start + 1,
                "this template literal is never closed",
            ));
        }
        match c.peek(0) {
            b'\\' => {
                c.bump();
                if !c.at_end() {
                    c.bump();
                }
            }
            b'`' => {
                let value = (whole && !c.src[from..c.i].contains('\\'))
                    .then(|| c.src[from..c.i].replace('\r', ""));
                c.i += 1;
                c.push(Tok::Str(value), start, line, col);
                return Ok(());
            }
            b'$' if c.peek(1) == b'{' => {
                c.i += 2;
                braces.push(true);
                c.push(Tok::Str(None), start, line, col);
                return Ok(());
            }
            _ => c.bump(),
        }
    }
}

/// The names that declare a group of tests, and those that declare a test.
const GROUPS: [&str; 6] = [
    "describe",
    "context",
    "suite",
    "xdescribe",
    "fdescribe",
    "xcontext",
];
const TESTS: [&str; 7] = ["test", "it", "specify", "xit", "xtest", "fit", "xspecify"];

/// The tests of a file, with the `describe` blocks they are in.
pub(super) fn items(t: &Tokens) -> Vec<Item> {
    let mut out = Vec::new();
    block(t, 0, t.code.len(), &[], false, &mut out);
    out
}

/// The test calls among the statements of code tokens `from..to` (a file, or a `describe`
/// callback's body), entering `describe` callbacks.
fn block(
    t: &Tokens,
    from: usize,
    to: usize,
    module: &[String],
    skipped: bool,
    out: &mut Vec<Item>,
) {
    let mut k = from;
    while k < to {
        let starts_statement =
            k == from || t.code[k].bol || t.is_punct(k - 1, ';') || t.is_punct(k - 1, '}');
        match starts_statement.then(|| call(t, k)).flatten() {
            Some(c) => {
                let ignored = skipped || c.skipped;
                if c.group {
                    if let Some((open, close)) = c.callback {
                        let mut inner = module.to_vec();
                        inner.push(c.name);
                        block(t, open + 1, close, &inner, ignored, out);
                    }
                } else {
                    let body = c.callback.map_or(c.args.clone(), |(open, close)| {
                        t.code[open].range.start..t.code[close].range.end
                    });
                    out.push(Item {
                        module: module.to_vec(),
                        name: c.name,
                        name_range: t.code[c.name_at].range.clone(),
                        lines: vec![t.code[k].line],
                        range: t.code[k].range.start..c.args.end,
                        body,
                        stub: c.todo || c.callback.is_none_or(|(o, e)| o + 1 == e),
                        ignored,
                    });
                }
                k = c.next;
            }
            None => k = t.after_group(k),
        }
    }
}

/// A `describe`, `test` or `it` call with a literal name.
struct Call {
    /// It declares a group of tests (`describe`).
    group: bool,
    name: String,
    /// The code token of the name.
    name_at: usize,
    /// `.skip`, or an `x` name.
    skipped: bool,
    /// `.todo`: a test with no body yet.
    todo: bool,
    /// The callback's body, as code-token indices of its braces.
    callback: Option<(usize, usize)>,
    /// The call's parentheses.
    args: std::ops::Range<usize>,
    /// The token after the call.
    next: usize,
}

/// The call at `k`, when it is one of a test or a group: `name(.modifier)*("literal", callback)`.
/// `.each` tables are not read (their names are made at run time).
fn call(t: &Tokens, k: usize) -> Option<Call> {
    let callee = t.text(k);
    let group = GROUPS.contains(&callee);
    if t.code[k].kind != Tok::Ident || !(group || TESTS.contains(&callee)) {
        return None;
    }
    let mut p = k + 1;
    let mut modifiers: Vec<&str> = Vec::new();
    while t.is_punct(p, '.') && t.code.get(p + 1).is_some_and(|x| x.kind == Tok::Ident) {
        modifiers.push(t.text(p + 1));
        p += 2;
    }
    if !t.is_punct(p, '(') || modifiers.contains(&"each") {
        return None;
    }
    let close = t.close[p]?;
    let Some(Tok::Str(Some(name))) = t.code.get(p + 1).map(|x| &x.kind) else {
        return None;
    };
    if !(t.is_punct(p + 2, ',') || p + 2 == close) {
        return None;
    }
    // The callback: the first brace group among the arguments that follows `=>` or a parameter
    // list (`function () {`), not an options object.
    let mut callback = None;
    let mut j = p + 2;
    while j < close {
        if t.is_punct(j, '{') && (t.is_punct(j - 1, '>') || t.is_punct(j - 1, ')')) {
            callback = t.close[j].map(|e| (j, e));
            break;
        }
        j = t.after_group(j);
    }
    Some(Call {
        group,
        name: name.clone(),
        name_at: p + 1,
        skipped: callee.starts_with('x') || modifiers.contains(&"skip"),
        todo: modifiers.contains(&"todo"),
        callback,
        args: t.code[p].range.start..t.code[close].range.end,
        next: close + 1,
    })
}
