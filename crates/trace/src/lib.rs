//! kcontract-trace: clauses traced to tests.

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
