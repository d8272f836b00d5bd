//! One diagnostic type for everything the tool reports about its input.
//!
//! Every problem a spec editor can cause is a [`Diagnostic`]: a stable code (documented in
//! `docs/errors.md`), a message, an optional primary span into a file held by the [`SourceMap`], and a
//! hint. Rendering is delegated to `annotate-snippets`, so the output looks like rustc's and we do not
//! hand-roll caret alignment (which goes wrong with tabs and wide characters).

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// `""` or `"s"`, for counts in messages ("1 error", "2 errors").
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// The text of one input file, kept so diagnostics can quote it.
#[derive(Debug)]
pub struct SourceFile {
    /// Path as the user should see it (relative to the working directory when given relative).
    pub path: PathBuf,
    /// The whole file, as read (a BOM and the `\r` of `\r\n` removed when read by
    /// [`SourceFile::from_raw`]).
    pub text: String,
    /// How the file on disk writes its text, so that a command rewriting it keeps that.
    pub(crate) encoding: crate::fsutil::Encoding,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// A file with its line starts indexed, for [`SourceFile::line_col`].
    pub fn new(path: PathBuf, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            path,
            text,
            encoding: crate::fsutil::Encoding::default(),
            line_starts,
        }
    }

    /// A file read from disk as `raw`: its text made plain ([`crate::fsutil::plain_text`]), its
    /// BOM and line ends remembered for [`SourceFile::written`].
    pub(crate) fn from_raw(path: PathBuf, raw: String) -> Self {
        let encoding = crate::fsutil::Encoding::of(&raw);
        Self::new(path, crate::fsutil::plain_text(raw)).written_as(encoding)
    }

    /// This file, written on disk in `encoding` (its text already plain).
    pub fn written_as(mut self, encoding: crate::fsutil::Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// `text` (this file's text, edited) as the file writes it: with its BOM and line ends.
    pub fn written(&self, text: &str) -> String {
        self.encoding.apply(text)
    }

    /// 1-based line and 1-based column (in characters, like rustc) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// Byte offset of the start of a 1-based line (clamped to the file).
    pub(crate) fn line_start(&self, line: usize) -> usize {
        let idx = line.saturating_sub(1).min(self.line_starts.len() - 1);
        self.line_starts[idx]
    }

    /// Byte offset of a 1-based (line, character column) pair, clamped to that line.
    pub fn offset_of(&self, line: usize, col: usize) -> usize {
        let start = self.line_start(line);
        let end = self.line_end(start);
        let line_text = &self.text[start..end];
        let within = line_text
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(line_text.len(), |(i, _)| i);
        start + within
    }

    /// Byte offset of the end of the line containing `offset` (before the newline). An offset
    /// inside a character counts from that character's start.
    pub fn line_end(&self, offset: usize) -> usize {
        let offset = self.text.floor_char_boundary(offset);
        self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i)
    }

    /// `range` widened to whole characters and clamped to the text: a span a reader computed
    /// inside a character (a YAML parser counting a lone carriage return as a line end, which
    /// this file's lines do not: found by fuzzing) still renders, never panics.
    fn whole_chars(&self, range: &Range<usize>) -> Range<usize> {
        let start = self.text.floor_char_boundary(range.start);
        let end = self.text.ceil_char_boundary(range.end.max(range.start));
        start..end
    }
}

/// All files read in one run. Diagnostics refer to them by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// Register the text read from `path`; the returned id is what spans point into.
    pub fn add(&mut self, path: PathBuf, text: String) -> FileId {
        self.add_file(SourceFile::new(path, text))
    }

    /// Register a file prepared elsewhere (e.g. on another thread).
    pub fn add_file(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId((self.files.len() - 1) as u32)
    }

    /// How many files are registered (the next file gets this id).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is registered.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file read from `path`, if it was.
    pub fn find(&self, path: &std::path::Path) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// The file with id `id` (which must come from this map).
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
}

/// Whether a diagnostic blocks: errors make commands that write output refuse to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A problem the input must not have; the command fails.
    Error,
    /// Reported, but does not fail the command.
    Warning,
}

/// Where a diagnostic points: a byte range in a file of the [`SourceMap`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// Byte offsets into the file's text.
    pub range: Range<usize>,
}

impl Span {
    /// The byte range `range` of file `file`.
    pub fn new(file: FileId, range: Range<usize>) -> Self {
        Self { file, range }
    }
}

/// A problem found in the input.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The stable code (`K0510`, …), documented in `docs/errors.md` and shown by `kcontract explain`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// The one-line headline.
    pub message: String,
    /// The primary location. `None` for problems that have no place in a file (a missing directory).
    pub span: Option<Span>,
    /// Label under the caret.
    pub label: String,
    /// Secondary locations with their labels ("first defined here").
    pub context: Vec<(Span, String)>,
    /// A path to show when there is no span (e.g. the file that cannot be read).
    pub path: Option<PathBuf>,
    /// A hint on how to fix it, rendered as a `help:` line.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error with code `code`, no location yet.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            severity: Severity::Error,
            message: message.into(),
            span: None,
            label: String::new(),
            context: Vec::new(),
            path: None,
            help: None,
        }
    }

    /// A warning with code `code`, no location yet.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(code, message)
        }
    }

    /// Point at `span` with `label` under the caret (the primary location).
    pub fn at(mut self, span: Span, label: impl Into<String>) -> Self {
        self.span = Some(span);
        self.label = label.into();
        self
    }

    /// Add a secondary location with its label ("first defined here").
    pub(crate) fn with_context(mut self, span: Span, label: impl Into<String>) -> Self {
        self.context.push((span, label.into()));
        self
    }

    /// The file to name when there is no span (e.g. a file that cannot be read).
    pub fn in_file(mut self, path: impl AsRef<Path>) -> Self {
        self.path = Some(path.as_ref().to_path_buf());
        self
    }

    /// Set the hint.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Is this an error (not a warning)?
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col` of the primary span, for sorting and for one-line summaries.
    pub fn position(&self, sources: &SourceMap) -> Option<(PathBuf, usize, usize)> {
        self.span.as_ref().map(|s| {
            let f = sources.get(s.file);
            let (l, c) = f.line_col(s.range.start);
            (f.path.clone(), l, c)
        })
    }

    /// Render rustc-style without colour (deterministic, what tests snapshot).
    pub fn render(&self, sources: &SourceMap) -> String {
        self.render_with(sources, &Renderer::plain())
    }

    /// Render rustc-style with `renderer` (plain, or coloured for a terminal).
    pub fn render_with(&self, sources: &SourceMap, renderer: &Renderer) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let mut group = Group::with_title(level.primary_title(&self.message).id(self.code));
        if let Some(span) = &self.span {
            // Quote only the lines around the spans: whole files would be slow to lay out, and a
            // secondary span in the same file is shown in the same snippet.
            let file = sources.get(span.file);
            let primary = file.whole_chars(&span.range);
            let context: Vec<(Range<usize>, &str)> = self
                .context
                .iter()
                .filter(|(c, _)| c.file == span.file)
                .map(|(c, label)| (file.whole_chars(&c.range), label.as_str()))
                .collect();
            let mut lo = primary.start;
            let mut hi = primary.end;
            for (ctx, _) in &context {
                lo = lo.min(ctx.start);
                hi = hi.max(ctx.end);
            }
            let (first_line, _) = file.line_col(lo);
            let start = file.line_start(first_line);
            let end = file.line_end(hi.max(start));
            let path = file.path.display().to_string();
            let mut snippet = Snippet::source(&file.text[start..end])
                .line_start(first_line)
                .path(path)
                .fold(true)
                .annotation(
                    AnnotationKind::Primary
                        .span(clamp(&primary, start, end))
                        .label(&self.label),
                );
            for (ctx, label) in &context {
                snippet = snippet.annotation(
                    AnnotationKind::Context
                        .span(clamp(ctx, start, end))
                        .label(*label),
                );
            }
            group = group.element(snippet);
        }
        if self.span.is_none()
            && let Some(p) = &self.path
        {
            group = group.element(Level::NOTE.message(format!("in {}", p.display())));
        }
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help));
        }
        let mut groups = vec![group];
        for (ctx, label) in self
            .context
            .iter()
            .filter(|(c, _)| self.span.as_ref().is_none_or(|s| s.file != c.file))
        {
            let file = sources.get(ctx.file);
            let (line, _) = file.line_col(ctx.range.start);
            let start = file.line_start(line);
            let end = file.line_end(ctx.range.end.max(start));
            groups.push(
                Group::with_title(Level::NOTE.secondary_title(label)).element(
                    Snippet::source(&file.text[start..end])
                        .line_start(line)
                        .path(file.path.display().to_string())
                        .annotation(AnnotationKind::Context.span(clamp(&ctx.range, start, end))),
                ),
            );
        }
        let mut out = String::new();
        let _ = write!(out, "{}", renderer.render(&groups));
        out
    }
}

/// Make a file-relative range relative to the quoted slice `[start, end)`, never out of it.
fn clamp(range: &Range<usize>, start: usize, end: usize) -> Range<usize> {
    let a = range.start.clamp(start, end) - start;
    let b = range.end.clamp(start, end) - start;
    a..b.max(a)
}

/// The most diagnostics of one code rendered in one run; the rest are counted (see [`render_all`]).
pub(crate) const MAX_PER_CODE: usize = 20;

/// Render the diagnostics, errors and warnings, in a stable order (file, line, column): of each
/// code the first [`MAX_PER_CODE`], then one line counting the ones left out. Why: a file with ten
/// thousand unknown fields printed eighty thousand lines, which hid every other problem and
/// buried the terminal; the first twenty say what is wrong, and the count says how much.
pub fn render_all(diags: &[Diagnostic], sources: &SourceMap, renderer: &Renderer) -> String {
    let mut out = String::new();
    let mut shown: std::collections::BTreeMap<&str, usize> = Default::default();
    for d in sorted(diags, sources) {
        let n = shown.entry(d.code).or_default();
        *n += 1;
        if *n <= MAX_PER_CODE {
            out.push_str(&d.render_with(sources, renderer));
            out.push_str("\n\n");
        }
    }
    for (code, n) in shown {
        if n > MAX_PER_CODE {
            let _ = writeln!(
                out,
                "note: {} more {code} not shown (the first {MAX_PER_CODE} are above; `kcontract explain {code}` says what it means)\n",
                n - MAX_PER_CODE
            );
        }
    }
    out
}

/// `s` as a message quotes it: a character that cannot be seen or would act on the terminal (a
/// newline, an escape sequence, a zero-width space) written as a Rust escape, so a value cannot
/// break or recolour the message; quotes and backslashes as they are (`MUSTN'T`, not `MUSTN\'T`).
pub fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\'' | '"' | '\\' => out.push(c),
            _ => out.extend(c.escape_debug()),
        }
    }
    out
}

/// serde-saphyr's message for a YAML error, worded for the person who wrote the file: without the
/// position (the snippet shows it) and without the library's advice to programmers (a duplicate
/// key's "set DuplicateKeyPolicy in Options").
pub fn yaml_message(e: &serde_saphyr::Error) -> String {
    let e = e.without_snippet();
    if let serde_saphyr::Error::DuplicateMappingKey { key, .. } = e {
        return match key {
            Some(k) => format!("the key `{k}` appears twice in one mapping"),
            None => "a key appears twice in one mapping".to_string(),
        };
    }
    if let serde_saphyr::Error::SerdeUnknownField {
        field, expected, ..
    } = e
    {
        let near = crate::suggest::closest(field, expected.iter().copied(), |c| c.len() / 3 + 1);
        return match near {
            Some(near) => format!("unknown field `{field}`: did you mean `{near}`?"),
            None => format!(
                "unknown field `{field}`, expected one of {}",
                expected.join(", ")
            ),
        };
    }
    if let serde_saphyr::Error::NullIntoString { .. } = e {
        // The reader's words ("use Option<String>") are advice to the programmer.
        return "this key has no value: write its value after the colon".to_string();
    }
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    // The YAML reader's words for two common slips, said in the editor's terms.
    if msg.contains("tabs disallowed") || msg.contains("found a tab") {
        return "a tab in the indentation: YAML indents with spaces only (replace the tab with spaces)"
            .to_string();
    }
    if unclosed_quote_message(&msg) {
        return "a quoted value is not closed: its closing quote is missing (YAML reads on until the next quote)"
            .to_string();
    }
    msg
}

/// `text` holds no YAML document: nothing, or only comments and blank lines. The reader says
/// "unexpected end of input" of such a file (or reads an empty mapping, for a type whose fields
/// are all optional), which tells the person nothing about their file: the readers say this instead.
pub fn yaml_has_no_document(text: &str) -> bool {
    serde_saphyr::from_multiple::<serde::de::IgnoredAny>(text).is_ok_and(|docs| docs.is_empty())
}

/// Does the YAML reader's message say a quoted value ran on (no closing quote)?
fn unclosed_quote_message(msg: &str) -> bool {
    msg.contains("quoted scalar") && !msg.contains("escape")
}

/// Where a YAML error is best shown in `text`, given the reader's offset `at`: for a quoted value
/// that is never closed, the reader stops lines later (where the quote finally fails), so the
/// opening quote is shown instead; for a tab in the indentation, the tab itself.
pub fn yaml_error_offset(text: &str, e: &serde_saphyr::Error, at: usize) -> usize {
    let msg = e.without_snippet().to_string();
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    if msg.contains("tabs disallowed") || msg.contains("found a tab") {
        let line = &text[line_start..];
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = line[..indent].find('\t') {
            return line_start + tab;
        }
        return at;
    }
    if unclosed_quote_message(&msg) {
        return opening_quote(&text[..at]).unwrap_or(at);
    }
    at
}

/// The offset of the last quote in `text` that opens a value (after `key: `, `- `, `[` or `,`) and
/// is not closed on its line: where a quoted value that runs on began.
fn opening_quote(text: &str) -> Option<usize> {
    let mut found = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(at) = unclosed_in_line(line) {
            found = Some(offset + at);
        }
        offset += line.len();
    }
    found
}

/// The offset in `line` of a quote opening a value that the line does not close.
fn unclosed_in_line(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut value_may_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' | b'\'' if value_may_start => {
                let mut j = i + 1;
                let mut closed = false;
                while j < bytes.len() {
                    match (c, bytes[j]) {
                        (b'"', b'\\') => j += 1,
                        (b'"', b'"') => {
                            closed = true;
                            break;
                        }
                        (b'\'', b'\'') if bytes.get(j + 1) == Some(&b'\'') => j += 1,
                        (b'\'', b'\'') => {
                            closed = true;
                            break;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if !closed {
                    return Some(i);
                }
                i = j + 1;
                value_may_start = false;
                continue;
            }
            b'#' if i == 0 || bytes[i - 1] == b' ' => return None,
            b' ' | b'\t' => {}
            b'[' | b',' | b'{' => value_may_start = true,
            b':' | b'-'
                if bytes
                    .get(i + 1)
                    .is_none_or(|n| matches!(n, b' ' | b'\n' | b'\r')) =>
            {
                value_may_start = true;
            }
            _ => value_may_start = false,
        }
        i += 1;
    }
    None
}

/// Diagnostics sorted by position; the ones without a position first, in the order found.
pub(crate) fn sorted<'a>(diags: &'a [Diagnostic], sources: &SourceMap) -> Vec<&'a Diagnostic> {
    let mut v: Vec<&Diagnostic> = diags.iter().collect();
    v.sort_by_cached_key(|d| {
        d.position(sources)
            .map(|(p, l, c)| (1, p, l, c))
            .unwrap_or((0, PathBuf::new(), 0, 0))
    });
    v
}
