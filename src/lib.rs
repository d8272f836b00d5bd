//! kcontract: the Knative Runtime Contract as an executable specification.
//!
//! The `kcontract` command line ([`run`]) checks the clause-structured contract in `spec/`, renders the
//! bilingual site, traces clauses to the tests that claim them, writes test stubs, and replays traces on the
//! reference model of the OCI container lifecycle and on real runtimes. Every command runs a prefix of one
//! data path: load → `Spec` → test scan and results → `Matrix` → outputs (site, list, matrix, scaffold).
//!
//! The library API, for tests and for tools around a contract:
//! - [`load`] reads a spec folder into a [`spec::Spec`], with its [`diagnostic`]s (never stopping at the
//!   first problem);
//! - [`annotations::scan`] finds the Rust tests that claim clauses (`/// Clause: <id>`), [`results`] reads
//!   test results (nextest JUnit, libtest output), and [`matrix::compute`] joins them per clause;
//! - [`site`] renders the static site, [`scaffold`] merges generated test stubs with a person's edits,
//!   [`runtimes`] is the catalogue of measured runtime deviations, [`keywords`] the RFC 2119 detector;
//! - [`model`] is the reference OCI lifecycle model ([`model`] does not read the spec: its tests claim the
//!   spec's `verify: model` clauses), and [`conformance`] the harness that runs traces on runc, crun, youki.
//!
//! Everything else is private to the command line.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a build that cannot be written, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod annotations;
mod cli;
mod commands;
pub mod conformance;
pub mod crate_config;
pub mod diagnostic;
mod diff;
pub mod explain;
pub mod fmt;
mod fsutil;
mod globs;
mod i18n;
pub mod import;
mod init;
pub mod keywords;
mod list;
pub mod matrix;
pub mod model;
mod pipeline;
pub mod platform;
pub mod ratchet;
pub mod results;
pub mod runtimes;
pub mod scaffold;
pub mod selector;
mod serve;
pub mod site;
pub mod spec;
mod spec_source;
mod suggest;
mod terminal;
mod timings;

pub use cli::run;
pub use list::json as clause_list_json;
pub use spec_source::{LoadOptions, Loaded, Tree, load, load_from, load_with};
