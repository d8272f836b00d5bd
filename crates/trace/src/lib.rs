//! kcontract-trace: clauses traced to tests.

pub mod annotations;
pub mod crate_config;
pub mod matrix;
pub mod ratchet;
pub mod results;
pub mod scaffold;
pub mod selector;
