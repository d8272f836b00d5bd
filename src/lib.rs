//! kcontract: the Knative Runtime Contract as an executable specification.
//!
//! One data path, read top to bottom: [`spec_source::load`] reads `spec/` (load → parse → validate)
//! into a [`spec::Spec`]; independent consumers ([`list`], the site renderer, the traceability matrix,
//! the scaffold writer) read `&Spec`.

pub mod cli;
pub mod diagnostic;
pub mod keywords;
pub mod list;
pub mod spec;
pub mod spec_source;
