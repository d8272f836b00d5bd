//! The contract executed: the probe (`kcontract-probe`, the `probe/` crate) runs as the container's
//! process under a real OCI runtime, with the config a platform profile and a Knative Service give;
//! kcontract plays the platform around it, then judges the probe's facts clause by clause.
//!
//! One job per file, in data order:
//!
//! - [`profile`]: the platform profile (`kcontract-profile/1`), validated with diagnostics;
//!   [`service`]: the Knative Service, only what a developer may set ([`quantity`]: its resource
//!   quantities); `yaml`: reading both with spans; `manifest`: the one shape of a Knative
//!   manifest that the Service and the lint both read.
//! - [`expect`]: what a profile promises a Service (port, user, names, limits, grace period);
//!   [`oci_config`]: the `config.json` built from it.
//! - [`harness`]: one run on a runtime (two containers, HTTP in the container's network namespace,
//!   `netns`, SIGTERM, grace, SIGKILL, clean-up), giving [`observed`] facts; [`controls`]: the
//!   negative controls' changes to a run.
//! - [`checks`]: the one table of clauses and checks, each saying what facts it needs and so on
//!   which routes it is decided (simulated: `platform run`; deployed: `platform verify`); `judge`:
//!   the judges both routes share and the simulated ones, `judge_deployed`: those of the request
//!   through an ingress and of a platform's log ([`platform_log`]), each giving a `verdict`;
//!   [`local`]: runs, judged; [`doctored`]: the deployed route's negative controls.
//! - [`report`]: the `kcontract-run/1` report and its reader; [`export`]: JUnit and TAP.
//! - The commands (`kcontract platform run`, `lint`, `import-log`, `verify`, `image`,
//!   `review-docs`) are the binary's: this crate returns values and typed errors, each error with
//!   its `diagnostic()` (the binary renders it): [`image::UserError`] and [`verify::UrlError`]
//!   (usage errors), [`image::ImageError`] (K0006, K1110), [`tls::CaCertError`] (K1135),
//!   [`verify::FetchError`] (K1130–K1134), [`docs::RewriteError`] (K1136); a run's harness
//!   fails with `kcontract_oci`'s `HarnessError` (K0703).
//! - [`input`]: the boundary of every platform input (a regular file inside the folder it was
//!   given in, else K0004).
//! - [`lint`]: Knative manifests checked without a platform, each finding at its line with its
//!   clause; [`import_log`]: a vendor's `go test -v` log of Knative's conformance suite as a report.
//! - [`image`]: the probe as an OCI image (`kcontract platform image`); [`verify`]: that probe,
//!   deployed, read over http or https ([`tls`]: roots, handshake, TLS errors), with the
//!   platform's log of it, every check of the deployed route judged (`kcontract platform
//!   verify`).
//! - [`docs`]: the documentation clauses, answered by a profile's `docs:` links once a person
//!   has reviewed them (`kcontract platform review-docs`).
//! - [`routes`]: how each testable clause can be executed (simulated, vendor-log, deployed, lint,
//!   model), derived from the tables above, or why a person judges it.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a file that cannot be read, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

pub mod checks;
pub mod contract;
pub mod controls;
pub mod docs;
pub mod doctored;
pub mod expect;
pub mod export;
mod fetch_error;
pub mod harness;
pub mod image;
pub mod import_log;
pub mod input;
mod judge;
mod judge_deployed;
pub mod lint;
pub mod local;
mod manifest;
mod netns;
pub mod observed;
pub mod oci_config;
pub mod platform_log;
pub mod profile;
mod quantity;
pub mod report;
pub mod routes;
pub mod service;
pub mod tls;
mod verdict;
pub mod verify;
pub mod yaml;
