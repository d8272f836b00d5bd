//! Setup shared by the integration tests (the modules of `tests/suite`), each using what it
//! needs: [`cli`] runs the real binary, [`model`] holds the model's proptest strategies,
//! [`runtimes`] the access to real OCI runtimes, [`probe`] the static probe for them, and
//! [`spec_files`] this repository's spec as files in memory for the tests that edit it.

#![allow(dead_code)] // a module is used by the tests whose features are on

pub(crate) mod cli;
pub(crate) mod model;
pub(crate) mod platform_reports;
pub(crate) mod probe;
pub(crate) mod runtimes;
pub(crate) mod spec_files;
pub(crate) mod webdriver;
