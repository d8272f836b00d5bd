//! The integration tests, one test binary (as mdBook's `tests/testsuite`): every module below was a
//! binary of its own, each linked separately against the library and its dependencies; linked once,
//! the test command builds in a fraction of the time (docs/contributing.md). `common` is what
//! they share. The generated stubs of the contract's clauses are the other binary,
//! `tests/contract/` (`kcontract scaffold` keeps it).

#![allow(clippy::disallowed_methods)] // tests read the fixtures they wrote and the files kcontract wrote; the careful reader is the code under test (clippy.toml)

mod common;

mod any_contract;
mod authors;
mod boundaries;
mod browser;
mod ci_gates;
mod cli;
mod clippy_ban;
mod deviations;
mod diff;
mod differential;
mod doc_links;
mod docs;
mod editors;
mod error_catalog;
mod fmt;
mod following;
mod formats;
mod hostile;
mod image;
mod import;
mod languages;
mod languages_tests;
mod leaks;
mod matrix;
mod model_docs;
mod model_exhaustive;
mod model_fuzz;
mod model_mutants;
mod model_props;
mod model_replay;
mod ordinary_files;
mod parser_props;
mod platform;
mod platform_boundary;
mod platform_controls;
mod platform_deployed;
mod platform_docs;
mod platform_import_log;
mod platform_lint;
mod platform_results;
mod platform_verify;
mod probe;
mod profiles;
mod reference_links;
mod runtimes_cache;
mod scaffold;
mod scaffold_go;
mod scaffold_props;
mod scan_cache;
mod scan_fuzz;
mod schemas;
mod serve;
mod site;
mod site_check;
mod site_in_force;
mod site_links;
mod site_reader;
mod site_sentences;
mod trust;
mod upstream_coverage;
mod vocab;
