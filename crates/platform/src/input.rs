//! The boundary of every platform input — a profile, a Service, a manifest to lint, a run report,
//! a vendor's log and its list of required tests, an `--events` log, a `--token-file`, a
//! `--ca-cert`: a regular file inside the folder it was given in
//! ([`kcontract_spec::fsutil::read_given`]), refused (a symbolic link leading out of that folder,
//! a FIFO, a device, a file over the limit) with the chapter's diagnostic (K0004), so one rule and
//! one message hold for every folder kcontract reads. Each reader keeps its own diagnostic for
//! what is not a refusal (missing, unreadable, not text).

use std::io;
use std::path::Path;

use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::fsutil;

/// The bytes of the platform input `path` (at most `limit`), or its diagnostic: K0004 for the
/// careful reader's refusals, `other(error)` for the rest.
pub fn read(
    path: &Path,
    limit: u64,
    other: impl FnOnce(io::Error) -> Diagnostic,
) -> Result<Vec<u8>, Diagnostic> {
    fsutil::read_given(path, limit).map_err(|e| {
        if fsutil::is_refusal(&e) {
            kcontract_spec::io_error(path, &e)
        } else {
            other(e)
        }
    })
}

/// [`read`] of UTF-8 text of at most [`fsutil::MAX_INPUT`] bytes; text that is not UTF-8 is
/// `other` of an `InvalidData` error.
pub fn read_text(
    path: &Path,
    other: impl FnOnce(io::Error) -> Diagnostic,
) -> Result<String, Diagnostic> {
    let bytes = match fsutil::read_given(path, fsutil::MAX_INPUT) {
        Ok(bytes) => bytes,
        Err(e) if fsutil::is_refusal(&e) => return Err(kcontract_spec::io_error(path, &e)),
        Err(e) => return Err(other(e)),
    };
    String::from_utf8(bytes).map_err(|_| {
        other(io::Error::new(
            io::ErrorKind::InvalidData,
            "it is not UTF-8 text",
        ))
    })
}
