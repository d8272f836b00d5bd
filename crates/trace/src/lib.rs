//! kcontract-trace: clauses traced to the tests that verify them, and the gates CI runs on that.
//!
//! What the crate offers:
//! - [`annotations`]: the test scan. Rust tests claim clauses with `/// Clause: <id> @ <stamp>`;
//!   [`annotations::scan`] (and [`annotations::find`], the half that needs only the globs, run
//!   alongside the spec's load) finds them with their test binary and name, reports unknown ids and
//!   suspect tests (their clause changed since the stamp), and keeps each file's syntax between runs
//!   ([`annotations::CacheChoice`]); `review` re-stamps and renames claims.
//! - [`results`]: test results read from nextest's JUnit XML or libtest's output.
//! - [`matrix`]: the traceability matrix, clause by clause ([`matrix::compute`] → [`matrix::Matrix`]),
//!   with platform run reports as columns, and its outputs: the terminal table, JSON, CSV, the
//!   summary, and the `--require` gates ([`matrix::Requirement`]).
//! - [`selector`]: the `--select`/`--require` selector language over clauses; [`ratchet`]: the
//!   committed coverage snapshot a change may not lower; [`crate_config`]: a test crate's
//!   `kcontract.toml`.
//! - [`scaffold`]: test stubs per chapter, planned from the spec and the scan, merged with a
//!   person's edits so regeneration never loses a line ([`scaffold::Job`] → [`scaffold::Prepared`]).
//!
//! The matrix's platform columns are `kcontract-platform`'s run reports, so this crate builds on it.
//! Nothing here prints or exits: values, diagnostics and typed errors are returned to the binary.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a file that cannot be read, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod annotations;
pub mod crate_config;
pub mod matrix;
pub mod ratchet;
pub mod results;
pub mod scaffold;
pub mod selector;
