//! kcontract-oci: the reference model of the OCI container lifecycle and the harness that runs
//! traces on real runtimes.
//!
//! - [`model`]: the model, its trace format and output line.
//! - [`conformance`]: the harness on runc, crun and youki; what it cannot do is a
//!   [`conformance::HarnessError`], whose `diagnostic()` the binary renders (K0703).
//! - [`runtimes`]: the measured deviations catalogue (`spec/runtimes/deviations.yaml`).
//!
//! Nothing here prints or exits.

pub mod conformance;
pub mod model;
pub mod runtimes;
