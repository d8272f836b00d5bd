//! kcontract-oci: the reference model of the OCI container lifecycle and the harness that runs
//! traces on real runtimes.

pub mod conformance;
pub mod model;
pub mod runtimes;
