//! Reading the platform run's YAML inputs (profiles, Service manifests) with serde-saphyr: the
//! value with the positions of its spanned fields, or a diagnostic at the offending line.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_saphyr::{Location, Spanned};

use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceFile, SourceMap, Span};

/// A file read into a source map, and where its spanned values are.
pub(crate) struct YamlFile<'a> {
    pub(crate) id: FileId,
    pub(crate) file: &'a SourceFile,
}

impl YamlFile<'_> {
    /// The byte range a serde-saphyr location points at (to the end of its line when it has no
    /// length).
    pub(crate) fn span_at(&self, loc: &Location) -> Span {
        let o = self
            .file
            .offset_of(loc.line() as usize, loc.column() as usize);
        let end = match loc.span().byte_len() {
            Some(n) if n > 0 => (o + n as usize).min(self.file.line_end(o)),
            _ => self.file.line_end(o),
        };
        Span::new(self.id, o..end.max(o))
    }

    /// Where a spanned value is.
    pub(crate) fn span<T>(&self, s: &Spanned<T>) -> Span {
        self.span_at(&s.referenced)
    }

    /// The value of the whole file as `T`, or diagnostic `code` saying it is not a valid `what`;
    /// a file with no document (empty, or comments only) says so, as `platform lint` does, rather
    /// than the parser's "unexpected end of input" or a field missing past the file's end.
    pub(crate) fn parse<T: DeserializeOwned>(
        &self,
        code: &'static str,
        what: &str,
        help: &str,
    ) -> Result<T, Diagnostic> {
        // Asked first: an empty document reads as a mapping with no keys, which a type whose
        // fields are all optional (a manifest's) would take.
        if kcontract_spec::diagnostic::yaml_has_no_document(&self.file.text) {
            return Err(Diagnostic::error(
                code,
                format!("{} holds no YAML document", self.display()),
            )
            .in_file(&self.file.path)
            .help(help));
        }
        serde_saphyr::from_str::<T>(&self.file.text).map_err(|e| self.invalid(&e, code, what, help))
    }

    /// Every document of the file (separated by `---`) as `T`, or diagnostic `code` at the first
    /// that is not a valid `what`.
    pub(crate) fn parse_all<T: DeserializeOwned>(
        &self,
        code: &'static str,
        what: &str,
        help: &str,
    ) -> Result<Vec<T>, Diagnostic> {
        serde_saphyr::from_multiple::<T>(&self.file.text)
            .map_err(|e| self.invalid(&e, code, what, help))
    }

    fn invalid(
        &self,
        e: &serde_saphyr::Error,
        code: &'static str,
        what: &str,
        help: &str,
    ) -> Diagnostic {
        let msg = kcontract_spec::diagnostic::yaml_message(e);
        self.not_valid(
            code,
            what,
            e.location().map(|l| self.span_at(&l)),
            msg,
            help,
        )
    }

    /// Diagnostic `code` saying the file is not a valid `what`, with `why` at `at` (or, without a
    /// place, as a help): the parser's errors, and a required field a reader checks itself.
    pub(crate) fn not_valid(
        &self,
        code: &'static str,
        what: &str,
        at: Option<Span>,
        why: String,
        help: &str,
    ) -> Diagnostic {
        let d = Diagnostic::error(code, format!("{} is not a valid {what}", self.display()));
        let d = match at {
            Some(at) => d.at(at, why),
            None => d.in_file(&self.file.path).help(why),
        };
        d.help(help)
    }

    /// Where the key `key` of the spanned value `at` is written: serde-saphyr gives the value's
    /// place, which for a block (a mapping or a list) is its first entry, lines below the key
    /// the developer wrote. The key is the last `key:` before the value; the value's own place when
    /// it cannot be found.
    pub(crate) fn key<T>(&self, key: &str, at: &Spanned<T>) -> Span {
        let value = self.span(at);
        let before = &self.file.text[..value.range.start];
        let pattern = format!("{key}:");
        let mut end = before.len();
        while let Some(i) = before[..end].rfind(&pattern) {
            let word_start = before[..i]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || "-{,".contains(c));
            if word_start {
                return Span::new(value.file, i..i + key.len());
            }
            end = i;
        }
        value
    }

    fn display(&self) -> String {
        format!("`{}`", self.file.path.display())
    }
}

/// Reads `path` into `sources`; a file that cannot be read (missing, a folder) or is not UTF-8 is
/// diagnostic `code`, one refused by the boundary of platform inputs (a FIFO, a device, too large,
/// a symbolic link out of its folder: [`crate::input`]) K0004.
pub fn read(
    path: &Path,
    sources: &mut SourceMap,
    code: &'static str,
) -> Result<FileId, Diagnostic> {
    let bytes = crate::input::read(path, kcontract_spec::fsutil::MAX_INPUT, |e| {
        Diagnostic::error(code, format!("cannot read `{}`: {e}", path.display()))
            .in_file(path)
            .help("check the path")
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Diagnostic::error(
            code,
            format!(
                "`{}` is not UTF-8 (invalid byte at offset {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ),
        )
        .in_file(path)
        .help("save the file as UTF-8")
    })?;
    let text = kcontract_spec::fsutil::plain_text(text);
    Ok(sources.add(path.to_path_buf(), text))
}
