//! `kcontract-probe`: the process kcontract's platform runs put in a container. It reports facts
//! about the environment it finds — never verdicts — as one JSON document (`kcontract-probe/1`,
//! [`facts`]), printed on standard output (`report`) or served over HTTP on `$PORT` (`serve`), so
//! that the same binary runs under a local OCI runtime and on a real platform.
//!
//! Without the default feature `collect` the crate is only [`facts`]: the types kcontract reads
//! the documents with.

#![deny(unsafe_code)]

pub mod facts;

#[cfg(feature = "collect")]
pub mod collect;
#[cfg(feature = "collect")]
pub mod http;
#[cfg(feature = "collect")]
pub mod run;
#[cfg(feature = "collect")]
mod sys;
