//! kcontract: the Knative Runtime Contract as an executable specification.
