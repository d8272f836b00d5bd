//! The traceability matrix: for each clause, the tests that claim it and a status.
//!
//! Statuses, decided in this order:
//!
//! | status | when |
//! | --- | --- |
//! | `waived` | the clause is `verify: untestable` (its `reason` says why), whatever claims it |
//! | `failing` | a real test claiming it failed in the given results, or a check failed on it in a platform's run report (`--platform`, [`Matrix::fold_platform_failures`]) |
//! | `suspect` | a real test claims it, reviewed against an older text of the clause (its stamp differs) |
//! | `passing` | results were given, a real test claiming it passed and none failed |
//! | `implemented` | a real test claims it (no results given, or none of its tests ran) |
//! | `external` | no real test here, but the clause lists upstream Knative conformance tests |
//! | `stub` | only generated stubs claim it |
//! | `untested` | nothing claims it |
//!
//! A *real* test is any claiming test that is not a stub (see `crate::annotations`); stubs never
//! make a clause pass or fail, even when run with `--run-ignored`.
//!
//! The JSON (`kcontract-matrix/1`, README "Matrix JSON") is a stable interface like the clause list:
//! fields are only added; an incompatible change changes `format`.
//!
//! ## The files, one job each
//!
//! `status` (the statuses and their order) → `compute` (the rows: each clause's tests and
//! status) → `platforms` (a column per platform run report) → `summary` (coverage per level and
//! actor); the outputs `json`, `csv` and `table` (the terminal's); `require` (the `--require` gate).

mod compute;
mod csv;
mod json;
mod platforms;
mod require;
mod status;
mod summary;
mod table;

pub use compute::{Matrix, Row, Scope, Stale, TestView, compute, compute_in};
pub use csv::csv;
pub use json::json;
pub use platforms::{
    CheckView, PlatformCell, PlatformColumn, PlatformRun, PlatformStatus, ReportStatus,
};
pub use require::{Column, Offence, PlatformWant, Requirement, RequirementError, Want, offenders};
pub use status::Status;
pub use summary::{Coverage, StatusCounts, Summary};
pub use table::table;
