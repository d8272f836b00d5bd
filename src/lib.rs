//! kcontract: the Knative Runtime Contract as an executable specification.

pub mod model;
