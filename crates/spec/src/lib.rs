//! kcontract-spec: a clause-structured spec folder loaded into an immutable `Spec`.

pub mod diagnostic;
pub mod fsutil;
pub mod globs;
pub mod keywords;
pub mod list;
pub mod spec;
pub mod spec_source;
pub mod suggest;
pub mod timings;

pub use spec_source::{LoadOptions, Loaded, Tree, load, load_from, load_with};
