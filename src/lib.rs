//! kcontract: the Knative Runtime Contract as an executable specification.
//!
//! One data path, read top to bottom: [`spec_source::load`] reads `spec/` (load → parse → validate)
//! into a [`spec::Spec`]; independent consumers ([`list`], the site renderer, the traceability matrix,
//! the scaffold writer) read `&Spec`. [`model`] is the reference OCI lifecycle model; it does not
//! read the spec (its tests claim the spec's `verify: model` clauses).

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a build that cannot be written, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod cli;
pub mod conformance;
pub mod diagnostic;
pub mod fsutil;
pub mod i18n;
pub mod keywords;
pub mod list;
pub mod model;
pub mod site;
pub mod spec;
pub mod spec_source;
