//! kcontract-edit: the spec editor's tools.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a file that cannot be read, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod diff;
pub mod fmt;
pub mod i18n;
pub mod import;
pub mod init;
