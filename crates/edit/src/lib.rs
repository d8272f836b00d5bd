//! kcontract-edit: the spec editor's tools, each a library function a command of the binary
//! calls (`fmt`, `diff`, `import`, `init`, `i18n`).
//!
//! What the crate offers:
//! - [`fmt`]: the canonical form of a chapter file's clause blocks, and the check that formatting
//!   changes nothing the spec says.
//! - [`diff`]: what changed between two versions of the contract, clause by clause ([`diff::compare`]
//!   → [`diff::Diff`] of [`diff::Change`]s), rendered for a terminal, Markdown or JSON
//!   ([`diff::render`]); a revision read from git's objects ([`diff::git`], failures a typed
//!   [`diff::git::GitError`]); the contract's history, every version step compared
//!   ([`diff::history`]: the site's Changes page).
//! - [`import`]: a plain Markdown spec turned into clause-structured chapters.
//! - [`init`]: a new spec folder's files; [`i18n`]: translation status, stubs and re-stamping.
//!
//! Nothing here prints or exits: each function returns values, or a
//! [`Diagnostic`](kcontract_spec::diagnostic::Diagnostic) or typed error the binary renders.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a file that cannot be read, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod diff;
pub mod fmt;
pub mod i18n;
pub mod import;
pub mod init;
mod words;
