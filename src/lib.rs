//! kcontract: the Knative Runtime Contract as an executable specification.
//!
//! One data path, read top to bottom: [`spec_source::load`] reads `spec/` (load → parse → validate)
//! into a [`spec::Spec`]; independent consumers ([`list`], the site renderer, the traceability
//! [`matrix`], the [`scaffold`] writer) read `&Spec`. The matrix also reads which tests claim which
//! clauses ([`annotations`], `/// Clause: <id>` doc lines) and, optionally, test [`results`];
//! [`workflow`] wires these into the CLI. [`model`] is the reference OCI lifecycle model; it does not
//! read the spec (its tests claim the spec's `verify: model` clauses).

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a build that cannot be written, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod annotations;
pub mod cli;
pub mod conformance;
pub mod diagnostic;
pub mod explain;
pub mod fsutil;
pub mod i18n;
pub mod keywords;
pub mod list;
pub mod matrix;
pub mod model;
pub mod results;
pub mod runtimes;
pub mod scaffold;
pub mod site;
pub mod spec;
pub mod spec_source;
pub mod suggest;
pub mod timings;
pub mod workflow;
