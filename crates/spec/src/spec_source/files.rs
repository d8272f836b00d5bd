//! Reading spec files as UTF-8 source text, each problem a diagnostic: a file that is missing,
//! unreadable, not a regular file, outside the spec folder, not UTF-8 or holding a NUL byte, and a
//! chapter file the contract does not list. Where the bytes come from is a [`Tree`]: the working
//! tree, or files held in memory (a git revision read by `diff`, a formatted spec that `fmt`
//! checks before writing it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, FileId, SourceFile, SourceMap, Span};
use crate::fsutil::{Refused, plain_text};

/// Where a spec's files are read from. The loader asks only these four questions, so a spec can be
/// loaded from anything that can answer them.
#[derive(Clone, Debug, Default)]
pub enum Tree {
    /// The file system (paths relative to the working directory).
    #[default]
    Disk,
    /// Files held in memory, keyed by the path diagnostics show for them (e.g. `HEAD:spec/en/a.md`
    /// for a file of a git revision). A folder exists when a file lies below it.
    Memory(BTreeMap<PathBuf, Vec<u8>>),
}

impl Tree {
    /// The bytes of the file at `path`: on disk a regular file of at most
    /// [`MAX_INPUT`](crate::fsutil::MAX_INPUT) bytes (a FIFO, a device, a socket is refused
    /// without waiting on it).
    pub(crate) fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self {
            Tree::Disk => crate::fsutil::read_regular(path, crate::fsutil::MAX_INPUT),
            Tree::Memory(files) => files.get(path).cloned().ok_or_else(|| {
                if self.is_dir(path) {
                    io::Error::from(io::ErrorKind::IsADirectory)
                } else {
                    io::Error::from(io::ErrorKind::NotFound)
                }
            }),
        }
    }

    /// [`Tree::read`] of a file of the spec folder `root`: on disk, `path` must not lead out of
    /// it through a symbolic link (see [`crate::fsutil::read_inside`]).
    pub(crate) fn read_inside(&self, root: &Path, path: &Path) -> io::Result<Vec<u8>> {
        match self {
            Tree::Disk => crate::fsutil::read_inside(root, path, crate::fsutil::MAX_INPUT),
            Tree::Memory(_) => self.read(path),
        }
    }

    /// Is there a folder at `path`?
    pub(crate) fn is_dir(&self, path: &Path) -> bool {
        match self {
            Tree::Disk => path.is_dir(),
            Tree::Memory(files) => files
                .range(path.to_path_buf()..)
                .take_while(|(k, _)| k.starts_with(path))
                .any(|(k, _)| k.as_path() != path),
        }
    }

    /// Is there anything (file or folder) at `path`?
    pub(crate) fn exists(&self, path: &Path) -> bool {
        match self {
            Tree::Disk => path.exists(),
            Tree::Memory(files) => files.contains_key(path) || self.is_dir(path),
        }
    }

    /// The files directly in folder `dir` (unsorted for `Disk`).
    pub(crate) fn files_in(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        match self {
            Tree::Disk => Ok(fs::read_dir(dir)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect()),
            Tree::Memory(files) => Ok(files
                .keys()
                .filter(|k| k.parent() == Some(dir))
                .cloned()
                .collect()),
        }
    }
}

/// Read a file as UTF-8 text into the source map, or explain why not. Invalid UTF-8 is reported
/// at the first bad byte (line, column and byte offset); the file is still added (lossily) so the
/// diagnostic can quote the line, but `None` is returned: nothing should be parsed from it.
pub fn read_source(
    path: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    read_source_in(&Tree::Disk, path, sources, diags)
}

/// [`read_source`] from `tree`.
pub(crate) fn read_source_in(
    tree: &Tree,
    path: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    add_prepared(path, prepare(path, tree.read(path)), sources, diags)
}

/// [`read_source_in`] for a file of the spec folder `root` (contract.yaml, a chapter, the runtimes
/// catalogue): it must lie inside the folder ([`Tree::read_inside`]), and a NUL byte is an error
/// (K0005) as well as bad UTF-8.
pub fn read_spec_source(
    tree: &Tree,
    root: &Path,
    path: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    let content = tree.read_inside(root, path);
    add_prepared(path, prepare_spec(path, content), sources, diags)
}

/// A file read and checked, before it is registered: reading, the UTF-8 check and the line index
/// are independent per file, so a language's chapters are prepared in parallel and registered in
/// order afterwards.
enum Prepared {
    Text(SourceFile),
    /// Not UTF-8: the text with the bad bytes replaced, the offset of the first one in that text,
    /// and in the file's bytes (they differ by a BOM and the `\r`s before it).
    BadUtf8(SourceFile, usize, usize),
    /// UTF-8 with a NUL byte at this offset: no text editor writes one, an HTML page must not hold
    /// one, and a file holding one was most likely not meant to be a chapter.
    Nul(SourceFile, usize),
    Unreadable(io::Error),
}

/// [`prepare`] for a spec file: a NUL byte is a problem too.
fn prepare_spec(path: &Path, content: io::Result<Vec<u8>>) -> Prepared {
    match prepare(path, content) {
        Prepared::Text(file) => match file.text.find('\0') {
            Some(at) => Prepared::Nul(file, at),
            None => Prepared::Text(file),
        },
        other => other,
    }
}

fn prepare(path: &Path, content: io::Result<Vec<u8>>) -> Prepared {
    match content.map(String::from_utf8) {
        Ok(Ok(text)) => Prepared::Text(SourceFile::from_raw(path.to_path_buf(), text)),
        Ok(Err(e)) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The offset is the bad byte's in the text as shown (BOM and `\r` removed).
            let at = plain_text(text[..valid].to_string()).len();
            Prepared::BadUtf8(
                SourceFile::new(path.to_path_buf(), plain_text(text)),
                at,
                valid,
            )
        }
        Err(e) => Prepared::Unreadable(e),
    }
}

fn add_prepared(
    path: &Path,
    prepared: Prepared,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    match prepared {
        Prepared::Text(file) => Some(sources.add_file(file)),
        Prepared::Unreadable(e) => {
            diags.push(io_error(path, &e));
            None
        }
        Prepared::BadUtf8(file, at, byte) => {
            let id = sources.add_file(file);
            let end = at + '\u{fffd}'.len_utf8();
            diags.push(
                Diagnostic::error("K0002", format!("invalid UTF-8 at byte offset {byte}"))
                    .at(Span::new(id, at..end), "this byte is not valid UTF-8")
                    .help("spec files must be UTF-8; re-save the file as UTF-8 (the bad byte is shown as �)"),
            );
            None
        }
        Prepared::Nul(file, at) => {
            let id = sources.add_file(file);
            diags.push(
                Diagnostic::error("K0005", format!("a NUL byte at byte offset {at}"))
                    .at(Span::new(id, at..at + 1), "a NUL byte (0x00)")
                    .help("spec files are text: remove the byte (it is invisible in most editors; `grep -nP '\\x00' FILE` finds it)"),
            );
            None
        }
    }
}

/// The diagnostic of a file that could not be read, with a hint fitting why (the careful
/// reader's refusals: not a regular file, outside the folder, too large).
pub fn io_error(path: &Path, e: &io::Error) -> Diagnostic {
    if let Some(why) = crate::fsutil::refusal(e) {
        let help = match why {
            Refused::Outside { .. } => {
                "a file is read only from inside the folder it was given in (the spec folder, the templates folder, the folder of a file named on the command line): copy the file in, or point the link at a file inside it"
            }
            Refused::TooLarge(_) => "a spec or results file this large is not one; check the path",
            Refused::NotRegular(_) | Refused::HardLinked(_) => {
                "name a regular file: kcontract does not read FIFOs, devices or sockets"
            }
        };
        return Diagnostic::error("K0004", format!("`{}` is not read: {why}", path.display()))
            .in_file(path)
            .help(help);
    }
    let (what, help) = match e.kind() {
        io::ErrorKind::NotFound => ("does not exist", "check the path, or create the file"),
        io::ErrorKind::PermissionDenied => (
            "cannot be read: permission denied",
            "check the file's permissions",
        ),
        io::ErrorKind::IsADirectory => (
            "is a directory, not a file",
            "a file was expected at this path",
        ),
        _ => ("cannot be read", "check that the path is a readable file"),
    };
    let detail = if matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::IsADirectory
    ) {
        String::new()
    } else {
        format!(" ({e})")
    };
    Diagnostic::error("K0001", format!("`{}` {what}{detail}", path.display()))
        .in_file(path)
        .help(help)
}

/// The file of chapter `chapter` in language `lang` of the spec folder `dir`:
/// `<dir>/<lang>/<chapter>.md`, the one place that says where a chapter is.
pub fn chapter_file(dir: &Path, lang: &str, chapter: &str) -> PathBuf {
    dir.join(lang).join(format!("{chapter}.md"))
}

/// Which chapter files of a language [`read_language`] reads.
pub(super) struct LanguageFiles<'a> {
    /// Where the spec folder is (on disk, or in memory).
    pub tree: &'a Tree,
    /// The spec folder (of `contract.yaml`).
    pub dir: &'a Path,
    /// The language, a folder of `dir`.
    pub lang: &'a str,
    /// The source language (its missing chapter file is an error), or a translation.
    pub source: bool,
    /// The chapters `contract.yaml` lists, in order.
    pub chapters: &'a [String],
    /// Where `contract.yaml` lists each chapter.
    pub chapter_spans: &'a [Span],
}

/// One language's chapter files, in contract order: each listed chapter with its path and, when it
/// was read as UTF-8, its id in `sources`. Problems are reported in that order: a listed chapter
/// whose file is missing (pointing at the contract line that lists it), unreadable or not UTF-8,
/// then the Markdown files of the folder that the contract does not list. A translation's missing
/// chapter file (`source` false) is no error here: it is a chapter not yet translated, shown from
/// the source language and reported with the other missing translations (K0310).
pub(super) fn read_language(
    files: &LanguageFiles<'_>,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, PathBuf, Option<FileId>)> {
    let LanguageFiles {
        tree,
        dir,
        lang,
        source,
        chapters,
        chapter_spans,
    } = *files;
    let lang_dir = dir.join(lang);
    let read: Vec<(PathBuf, io::Result<Vec<u8>>)> = chapters
        .par_iter()
        .map(|c| {
            let path = chapter_file(dir, lang, c);
            let content = tree.read_inside(dir, &path);
            (path, content)
        })
        .collect();
    let prepared: Vec<(PathBuf, Result<Prepared, io::Error>)> = read
        .into_par_iter()
        .map(|(path, content)| match content {
            Err(e) if e.kind() == io::ErrorKind::NotFound => (path, Err(e)),
            other => {
                let p = prepare_spec(&path, other);
                (path, Ok(p))
            }
        })
        .collect();
    let mut files = Vec::with_capacity(chapters.len());
    for ((chapter, (path, prepared)), span) in chapters.iter().zip(prepared).zip(chapter_spans) {
        let id = match prepared {
            Err(_) if !source => None,
            Err(_) => {
                diags.push(
                    Diagnostic::error(
                        "K0011",
                        format!(
                            "chapter `{chapter}` is listed but `{}` does not exist",
                            path.display()
                        ),
                    )
                    .at(span.clone(), "listed here")
                    .help(format!(
                        "create {}, or remove the chapter from contract.yaml",
                        path.display()
                    )),
                );
                None
            }
            Ok(p) => add_prepared(&path, p, sources, diags),
        };
        files.push((chapter.clone(), path, id));
    }
    check_unlisted(tree, &lang_dir, chapters, diags);
    files
}

/// A Markdown file in the language folder that the contract does not list is a chapter nobody will
/// see: report it (sorted, so the output is stable).
fn check_unlisted(tree: &Tree, lang_dir: &Path, chapters: &[String], diags: &mut Vec<Diagnostic>) {
    let Ok(entries) = tree.files_in(lang_dir) else {
        return;
    };
    let listed: BTreeSet<&str> = chapters.iter().map(String::as_str).collect();
    let mut unlisted: Vec<PathBuf> = entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_none_or(|s| !listed.contains(s))
        })
        .collect();
    unlisted.sort();
    for p in unlisted {
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        diags.push(
            Diagnostic::error(
                "K0012",
                format!("`{}` is not listed in contract.yaml", p.display()),
            )
            .in_file(&p)
            .help(format!(
                "add `- {stem}` to `chapters` in contract.yaml, or delete the file"
            )),
        );
    }
}
