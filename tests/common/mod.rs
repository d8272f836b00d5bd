//! Setup shared by the integration tests. Each test binary declares `mod common;` and uses what it
//! needs: [`cli`] runs the real binary, [`model`] holds the model's proptest strategies, and
//! [`runtimes`] the access to real OCI runtimes.

#![allow(dead_code)] // each test crate uses a subset

pub(crate) mod cli;
pub(crate) mod model;
pub(crate) mod runtimes;
pub(crate) mod webdriver;
