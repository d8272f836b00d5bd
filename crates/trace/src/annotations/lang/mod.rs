//! Tests in other languages than Rust: Go, Python and JavaScript/TypeScript test files read for the
//! same `Clause: <id> @ <stamp>` annotations, in each language's line-comment syntax.
//!
//! Each language has a lexer that knows its strings and comments exactly (Go's raw `` `…` ``
//! strings, Python's prefixed and triple-quoted strings, JavaScript's template literals and regular
//! expressions, block comments everywhere), so a `Clause:` inside a string or a block comment is
//! never read: only line comments (`//`, `#`) are annotations. The grammar then finds the test items
//! over those tokens (not over lines) and the block of line comments directly above each one (no
//! blank line between them), and yields the same [`FileSyntax`] the Rust scan does, so everything
//! after the scan (claims, stamps, `review`, the matrix, the gates) is shared.
//!
//! - **Go** (`lang::go`): `func TestX(t *testing.T)` at the top level, and `t.Run("name", func…)`
//!   subtests (at any depth in a test's body, when the name is a string literal); named as `go test`
//!   names them, `TestX/name` (spaces in a subtest's name become `_`, as `go test` rewrites them).
//! - **Python** (`lang::python`): `def test_…` (or `async def`) at the top level or in a class whose
//!   name starts with `Test` (pytest's collection rules); named by pytest's node id,
//!   `path/test_x.py::TestClass::test_y`.
//! - **JavaScript/TypeScript** (`lang::js`): `test(…)`/`it(…)` calls whose first argument is a
//!   string, at the top level or inside `describe(…)` callbacks; named `describe > test` (Vitest's
//!   JUnit name; Jest's and Mocha's `describe test` is matched too, see `crate::results`).
//!
//! - **C and C++** (`lang::c`): GoogleTest's `TEST(Suite, Name)`, `TEST_F`, `TYPED_TEST` and
//!   Criterion's `Test(suite, name)` at the top level or in namespaces; named `Suite.Name`.
//!
//! - **Java** (`lang::java`): JUnit `@Test` methods in classes at any depth; named by the class's
//!   qualified name and the method, `com.example.PortsTest.env` (`$` between nested classes).
//!
//! The language of a file is told from its extension, or from the `tests: languages:` setting of
//! `contract.yaml` ([`kcontract_spec::TestGlobs::language_of`]); any other extension is read as
//! Rust, as before.

use std::ops::Range;

use super::items::FnItem;
use super::sites::{Site, sites_in_doc};
use super::syntax::{FileSyntax, LexFailure};
use super::tokens::{Attr, AttrKind};

mod c;
mod go;
mod java;
mod js;
mod python;

/// The language a test file is written in: defined beside `tests:` in the spec crate, whose
/// `languages:` setting names its words ([`kcontract_spec::TestGlobs::language_of`]).
pub use kcontract_spec::TestLanguage as Lang;

/// What the scan needs to know of a language beyond its word.
pub(crate) trait LangExt {
    /// What joins the parts of a test's name as its runner reports it.
    fn separator(self) -> &'static str;
}

impl LangExt for Lang {
    fn separator(self) -> &'static str {
        match self {
            Lang::Rust | Lang::Python => "::",
            Lang::Go => "/",
            Lang::JavaScript => " > ",
            Lang::C | Lang::Java => ".",
        }
    }
}

/// One token of a non-Rust source, as the grammars need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier or keyword.
    Ident,
    /// A string literal: its value when it is a plain literal (no interpolation).
    Str(Option<String>),
    /// One punctuation character (brackets included).
    Punct(char),
    /// A line comment (`//`, `#`): the range of its text after the marker.
    Comment(Range<usize>),
    /// A number, a rune, a regular expression: nothing the grammars look into.
    Other,
}

/// A token with where it is.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    /// Byte range in the file.
    pub range: Range<usize>,
    /// 1-based line of its first byte.
    pub line: usize,
    /// Byte column of its first byte (for Python's indentation).
    pub col: usize,
    /// The first token of its line.
    pub bol: bool,
}

impl Token {
    pub(crate) fn is_punct(&self, c: char) -> bool {
        self.kind == Tok::Punct(c)
    }
}

/// The source and its tokens, with each bracket's partner, for the grammars.
pub(crate) struct Tokens<'a> {
    pub src: &'a str,
    /// Every token but comments, in order.
    pub code: Vec<Token>,
    /// The comments, in order.
    pub comments: Vec<Token>,
    /// For an opening bracket of `code`, the index of its closing one.
    pub close: Vec<Option<usize>>,
}

impl<'a> Tokens<'a> {
    /// Split `all` into code and comments and pair the brackets of the code; an unmatched bracket
    /// is a failure (the file is not what its compiler would accept).
    pub(crate) fn new(src: &'a str, all: Vec<Token>) -> Result<Self, LexFailure> {
        let (comments, code): (Vec<Token>, Vec<Token>) = all
            .into_iter()
            .partition(|t| matches!(t.kind, Tok::Comment(_)));
        let mut close = vec![None; code.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, t) in code.iter().enumerate() {
            let Tok::Punct(c) = t.kind else { continue };
            match c {
                '(' | '[' | '{' => open.push(i),
                ')' | ']' | '}' => {
                    let want = match c {
                        ')' => '(',
                        ']' => '[',
                        _ => '{',
                    };
                    match open.pop() {
                        Some(o) if code[o].is_punct(want) => close[o] = Some(i),
                        _ => return Err(failure(t.range.clone(), format!("unmatched `{c}`"))),
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = open.pop() {
            return Err(failure(
                code[o].range.clone(),
                "this bracket is never closed",
            ));
        }
        Ok(Tokens {
            src,
            code,
            comments,
            close,
        })
    }

    /// The text of token `i` of the code.
    pub(crate) fn text(&self, i: usize) -> &str {
        self.code.get(i).map_or("", |t| &self.src[t.range.clone()])
    }

    /// Token `i` is the identifier `word`.
    pub(crate) fn is_word(&self, i: usize, word: &str) -> bool {
        self.code.get(i).is_some_and(|t| t.kind == Tok::Ident) && self.text(i) == word
    }

    /// Token `i` is the punctuation `c`.
    pub(crate) fn is_punct(&self, i: usize, c: char) -> bool {
        self.code.get(i).is_some_and(|t| t.is_punct(c))
    }

    /// The index just past the group opened at `i` (or `i + 1` when `i` opens none).
    pub(crate) fn after_group(&self, i: usize) -> usize {
        self.close
            .get(i)
            .copied()
            .flatten()
            .map_or(i + 1, |c| c + 1)
    }

    /// The blocks of line comments that each start their line, on consecutive lines: (first
    /// comment, last comment) indices into `comments`.
    fn comment_blocks(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (i, c) in self.comments.iter().enumerate() {
            if !c.bol {
                out.push((i, i));
                continue;
            }
            match out.last_mut() {
                Some((first, last))
                    if self.comments[*last].bol
                        && self.comments[*first].bol
                        && self.comments[*last].line + 1 == c.line =>
                {
                    *last = i;
                }
                _ => out.push((i, i)),
            }
        }
        out
    }
}

/// A [`LexFailure`] at `range`.
pub(crate) fn failure(range: Range<usize>, message: impl Into<String>) -> LexFailure {
    LexFailure {
        range,
        message: message.into(),
    }
}

/// A test item a grammar found, before it becomes a [`FnItem`].
pub(crate) struct Item {
    /// The enclosing names (a Go test for a subtest, Python classes, `describe` blocks).
    pub module: Vec<String>,
    /// Its own name.
    pub name: String,
    /// Where the name is (the string literal for a subtest or a JavaScript test).
    pub name_range: Range<usize>,
    /// The 1-based lines the item starts on (its decorators, then its keyword): a comment block
    /// ending on the line before any of them is its annotation.
    pub lines: Vec<usize>,
    /// From its first byte to its end.
    pub range: Range<usize>,
    /// Its body (the call's arguments when it has none, as `test.todo("…")`).
    pub body: Range<usize>,
    /// The body verifies nothing: empty, or only skips.
    pub stub: bool,
    /// Declared skipped (`@pytest.mark.skip`, `test.skip`, `describe.skip`, `xit`).
    pub ignored: bool,
}

/// Read a file in `lang`: its test items and its `Clause:` lines (for Rust, [`parse_source`]).
///
/// [`parse_source`]: super::parse_source
pub fn parse(lang: Lang, text: &str) -> Result<FileSyntax, LexFailure> {
    let (toks, items) = match lang {
        Lang::Rust => return super::syntax::parse_source(text),
        Lang::Go => {
            let t = Tokens::new(text, go::lex(text)?)?;
            let items = go::items(&t);
            (t, items)
        }
        Lang::Python => {
            let t = Tokens::new(text, python::lex(text)?)?;
            let items = python::items(&t);
            (t, items)
        }
        Lang::JavaScript => {
            let t = Tokens::new(text, js::lex(text)?)?;
            let items = js::items(&t);
            (t, items)
        }
        Lang::C => {
            let t = Tokens::new(text, c::lex(text)?)?;
            let items = c::items(&t);
            (t, items)
        }
        Lang::Java => {
            let t = Tokens::new(text, java::lex(text)?)?;
            let items = java::items(&t);
            (t, items)
        }
    };
    Ok(assemble(lang, &toks, items))
}

/// The words (identifiers and keywords) of a Go source, in order: what `scaffold --lang go` reads a
/// file's `package` clause from.
pub fn go_words(text: &str) -> Result<Vec<String>, LexFailure> {
    Ok(go::lex(text)?
        .into_iter()
        .filter(|t| t.kind == Tok::Ident)
        .map(|t| text[t.range].to_string())
        .collect())
}

/// The [`FileSyntax`] of a file: each comment block that holds a marker gives its sites; each item
/// gets the blocks ending directly above one of its lines as its doc attributes.
fn assemble(lang: Lang, toks: &Tokens, items: Vec<Item>) -> FileSyntax {
    let blocks = toks.comment_blocks();
    let mut docs: Vec<(Range<usize>, usize, String)> = Vec::new();
    let mut sites: Vec<Site> = Vec::new();
    for (first, last) in blocks {
        let range = toks.comments[first].range.start..toks.comments[last].range.end;
        let text: Vec<&str> = toks.comments[first..=last]
            .iter()
            .map(|c| match &c.kind {
                Tok::Comment(r) => &toks.src[r.clone()],
                _ => "",
            })
            .collect();
        let text = text.join("\n");
        sites_in_doc(&text, toks.src, range.clone(), &mut sites);
        let bol = toks.comments[first].bol;
        if bol {
            docs.push((range, toks.comments[last].line, text));
        }
    }
    let fns = items
        .into_iter()
        .map(|it| {
            let mut attrs: Vec<Attr> = docs
                .iter()
                .filter(|(_, end, _)| it.lines.iter().any(|l| *end + 1 == *l))
                .map(|(r, _, text)| Attr {
                    range: r.clone(),
                    kind: AttrKind::Doc(text.clone()),
                })
                .collect();
            attrs.push(Attr {
                range: it.range.start..it.range.start,
                kind: AttrKind::Test,
            });
            if it.ignored {
                attrs.push(Attr {
                    range: it.range.start..it.range.start,
                    kind: AttrKind::Ignore(None),
                });
            }
            // The item starts at its first comment line, as a Rust item starts at its first
            // attribute: what `scaffold` replaces or removes is the whole test.
            let start = attrs
                .iter()
                .map(|a| a.range.start)
                .min()
                .unwrap_or(it.range.start)
                .min(it.range.start);
            FnItem {
                attrs,
                name: it.name,
                name_range: it.name_range,
                range: start..it.range.end,
                body: it.body,
                todo_body: it.stub,
                module: it.module,
                in_macro: false,
            }
        })
        .collect();
    FileSyntax { fns, sites, lang }
}

/// Lexing state shared by the three lexers: the position, the line, and the tokens so far.
pub(crate) struct Cursor<'a> {
    pub src: &'a str,
    pub b: &'a [u8],
    pub i: usize,
    pub line: usize,
    line_start: usize,
    /// The line of the last token pushed (a token is `bol` when it is the first of its line).
    last_line: usize,
    pub out: Vec<Token>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        // A byte order mark is not text.
        let i = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Cursor {
            src,
            b: src.as_bytes(),
            i,
            line: 1,
            line_start: 0,
            last_line: 0,
            out: Vec::new(),
        }
    }

    pub(crate) fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    pub(crate) fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    /// Move past one byte, counting lines.
    pub(crate) fn bump(&mut self) {
        if self.peek(0) == b'\n' {
            self.line += 1;
            self.line_start = self.i + 1;
        }
        self.i += 1;
    }

    /// Push a token from `start` (on line `line`, column `col`) to the current position.
    pub(crate) fn push(&mut self, kind: Tok, start: usize, line: usize, col: usize) {
        let bol = self.last_line != line;
        self.last_line = line;
        self.out.push(Token {
            kind,
            range: start..self.i,
            line,
            col,
            bol,
        });
    }

    /// The next token continues the current logical line (after a backslash continuation): it is
    /// not the first of its line.
    pub(crate) fn continue_line(&mut self) {
        if self.last_line == self.line - 1 {
            self.last_line = self.line;
        }
    }

    /// The last token pushed, if any.
    pub(crate) fn last(&self) -> Option<&Token> {
        self.out.last()
    }

    /// Where the token about to be read starts: (offset, line, column).
    pub(crate) fn here(&self) -> (usize, usize, usize) {
        (self.i, self.line, self.i - self.line_start)
    }

    /// A line comment from here (the marker is `marker` bytes long) to the end of the line.
    pub(crate) fn line_comment(&mut self, marker: usize) {
        let (start, line, col) = self.here();
        let end = self.src[start..]
            .find('\n')
            .map_or(self.b.len(), |k| start + k);
        let text_end = if end > start && self.b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        self.i = end;
        self.push(
            Tok::Comment(start + marker..text_end.max(start + marker)),
            start,
            line,
            col,
        );
    }

    /// Skip a `/* … */` comment (no nesting, as in Go, JavaScript and C).
    pub(crate) fn block_comment(&mut self) -> Result<(), LexFailure> {
        let start = self.i;
        self.i += 2;
        while !self.at_end() {
            if self.peek(0) == b'*' && self.peek(1) == b'/' {
                self.i += 2;
                return Ok(());
            }
            self.bump();
        }
        Err(failure(
            start..start + 2,
            "this block comment is never closed",
        ))
    }

    /// An identifier (ASCII letters, digits, `_`, `$` when `dollar`, and any non-ASCII character).
    pub(crate) fn ident(&mut self, dollar: bool) {
        let (start, line, col) = self.here();
        while !self.at_end() {
            let c = self.peek(0);
            if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || (dollar && c == b'$') {
                self.i += 1;
            } else {
                break;
            }
        }
        self.push(Tok::Ident, start, line, col);
    }

    /// A number: digits, letters, `_` and `.` (and a sign after an exponent); nothing looks into it.
    pub(crate) fn number(&mut self) {
        let (start, line, col) = self.here();
        while !self.at_end() {
            let c = self.peek(0);
            let prev = self.b[self.i - usize::from(self.i > start)];
            if c.is_ascii_alphanumeric()
                || c == b'_'
                || c == b'.'
                || ((c == b'+' || c == b'-') && matches!(prev, b'e' | b'E' | b'p' | b'P'))
            {
                self.i += 1;
            } else {
                break;
            }
        }
        self.push(Tok::Other, start, line, col);
    }

    /// A quoted string closed by `quote` on the same line, with backslash escapes; its value with
    /// the common escapes decoded. An unclosed one is a failure.
    pub(crate) fn quoted(&mut self, quote: u8) -> Result<String, LexFailure> {
        let start = self.i;
        self.i += 1;
        let mut value = String::new();
        loop {
            match self.peek(0) {
                0 if self.at_end() => break,
                b'\n' => break,
                c if c == quote => {
                    self.i += 1;
                    return Ok(value);
                }
                b'\\' => {
                    let next = self.peek(1);
                    match next {
                        b'n' => value.push('\n'),
                        b't' => value.push('\t'),
                        b'\\' | b'"' | b'\'' | b'`' => value.push(next as char),
                        _ => {
                            value.push('\\');
                        }
                    }
                    if next == b'\n' {
                        self.bump();
                        self.bump();
                    } else if next != 0 && next < 0x80 {
                        self.i += 2;
                    } else {
                        self.i += 1;
                    }
                }
                _ => {
                    let ch = self.src[self.i..].chars().next().unwrap_or('\0');
                    value.push(ch);
                    self.i += ch.len_utf8().max(1);
                }
            }
        }
        Err(failure(
            start..self.i.max(start + 1),
            "this string is never closed on its line",
        ))
    }
}

#[cfg(test)]
mod tests;
