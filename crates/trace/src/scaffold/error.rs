//! What can go wrong on disk when scaffolding: a file of the folder that cannot be read or merged
//! into, a file that cannot be written. Each is a coded diagnostic for the binary to render.

use std::io;
use std::path::PathBuf;

use kcontract_spec::diagnostic::{Diagnostic, Span};

/// A file `scaffold` cannot read, merge into or write.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// A `.rs` file of the folder cannot be read (K0512).
    #[error("cannot read `{}`: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A `.rs` file of the folder is not UTF-8 (K0513).
    #[error("`{}` is not UTF-8; nothing can be merged into it", .path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
    /// A `.rs` file of the folder is not Rust tokens (K0513).
    #[error("`{}` cannot be read as Rust tokens; nothing can be merged into it", .path.display())]
    NotTokens {
        /// The file.
        path: PathBuf,
        /// Where the tokenizer gave up, in the folder's sources ([`super::Folder::sources`]).
        span: Span,
        /// Why it gave up.
        reason: String,
    },
    /// A file cannot be written, or its folder made (K0512).
    #[error("cannot write `{}`: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl ScaffoldError {
    /// The error as a coded diagnostic, with what it means for the folder.
    pub fn diagnostic(&self) -> Diagnostic {
        let d = |code| Diagnostic::error(code, self.to_string());
        match self {
            ScaffoldError::Read { path, .. } => d("K0512")
                .in_file(path)
                .help("check the file's permissions; nothing was written"),
            ScaffoldError::NotUtf8 { path } => d("K0513")
                .in_file(path)
                .help("re-save it as UTF-8, then run scaffold again; nothing was written"),
            ScaffoldError::NotTokens { span, reason, .. } => d("K0513")
                .at(span.clone(), reason.clone())
                .help("fix the file (cargo build shows the error), then run scaffold again; nothing was written"),
            ScaffoldError::Write { path, .. } => d("K0512")
                .in_file(path)
                .help("check that the folder is writable; files listed above as written were written"),
        }
    }
}
