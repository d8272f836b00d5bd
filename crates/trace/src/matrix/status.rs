//! A clause's status, and the order in which statuses meet a requirement.

use std::fmt;

use serde::Serialize;

/// A clause's status. The derived order is the order of `--require`: each status satisfies a
/// requirement for itself and every status before it (`failing` satisfies none; `waived` and
/// `exempt` are handled apart: they always satisfy).
///
/// The order is what the clause's tests are worth here: a local stub or a list of upstream tests
/// (`external`) is worth less than a real test of this project, even one reviewed against an older
/// text of the clause (`suspect`), which is worth less than one that is current.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A real (non-stub) claiming test failed in the given results.
    Failing,
    /// No test claims the clause and no upstream test is listed.
    Untested,
    /// Only stubs (tests whose body is `todo!()`) claim the clause.
    Stub,
    /// No real test here, but upstream Knative conformance tests are listed (`upstream-tests`).
    External,
    /// A real test claims the clause, but its `Clause: <id> @ <stamp>` line records an older text
    /// of the clause: the clause changed since the test was reviewed (`kcontract review`). Meets
    /// `suspect` and nothing above it, whatever the results say.
    Suspect,
    /// A real test claims the clause; the given results say nothing about it.
    Implemented,
    /// A real test passed in the given results and none failed.
    Passing,
    /// The clause is `verify: untestable` (its `reason` is shown); meets every requirement.
    Waived,
    /// The tested crate says the clause does not apply to it, with a reason (`[exempt]` in its
    /// `kcontract.toml`): meets every requirement, and is never counted as covered.
    Exempt,
}

impl Status {
    /// Every status, in display order (the list), `exempt` last: the columns of the
    /// terminal's coverage table, and the names `--require` and the ratchet accept.
    pub const REPORTED: [Status; 9] = [
        Status::Untested,
        Status::Stub,
        Status::Implemented,
        Status::Passing,
        Status::Failing,
        Status::Suspect,
        Status::External,
        Status::Waived,
        Status::Exempt,
    ];

    /// [`Self::REPORTED`] without `exempt`, which only a crate's own `kcontract.toml` gives: the
    /// statuses of the site's summaries and columns (the site, built from the spec's repository,
    /// has none).
    pub const ALL: [Status; 8] = *Self::REPORTED.first_chunk().unwrap();

    /// The status of lowercase name `s` (`--require`'s, a ratchet file's), if any.
    pub fn named(s: &str) -> Option<Status> {
        Self::REPORTED.into_iter().find(|st| st.as_str() == s)
    }

    /// The lowercase name used in the CLI, JSON and the site (`implemented`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Untested => "untested",
            Status::Stub => "stub",
            Status::Implemented => "implemented",
            Status::Passing => "passing",
            Status::Failing => "failing",
            Status::Suspect => "suspect",
            Status::External => "external",
            Status::Waived => "waived",
            Status::Exempt => "exempt",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
