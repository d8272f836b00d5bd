//! A clause's status, and the order in which statuses meet a requirement.

use std::fmt;

use serde::Serialize;

/// A clause's status. Declared in display order (the list, `exempt` last): the columns of
/// the terminal's coverage table and the site, the names `--require` and the ratchet accept.
///
/// The order of `--require` is [`Ord`] (from `Status::worth`): each status satisfies a
/// requirement for itself and every status above it (`failing` satisfies none; `waived` and
/// `exempt` are handled apart: they always satisfy). It is what the clause's tests are worth here:
/// a local stub or a list of upstream tests (`external`) is worth less than a real test of this
/// project, even one reviewed against an older text of the clause (`suspect`), which is worth
/// less than one that is current.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Status {
    /// No test claims the clause and no upstream test is listed.
    Untested,
    /// Only stubs (tests whose body is `todo!()`) claim the clause.
    Stub,
    /// A real test claims the clause; the given results say nothing about it.
    Implemented,
    /// A real test passed in the given results and none failed.
    Passing,
    /// A real (non-stub) claiming test failed in the given results.
    Failing,
    /// A real test claims the clause, but its `Clause: <id> @ <stamp>` line records an older text
    /// of the clause: the clause changed since the test was reviewed (`kcontract review`). Meets
    /// `suspect` and nothing above it, whatever the results say.
    Suspect,
    /// No real test here, but upstream Knative conformance tests are listed (`upstream-tests`).
    External,
    /// The clause is `verify: untestable` (its `reason` is shown); meets every requirement.
    Waived,
    /// The tested crate says the clause does not apply to it, with a reason (`[exempt]` in its
    /// `kcontract.toml`): meets every requirement, and is never counted as covered.
    Exempt,
}

impl Status {
    /// Every status, in display order (the declaration's), `exempt` last: the columns of the
    /// terminal's coverage table, and the names `--require` and the ratchet accept.
    pub const REPORTED: &'static [Status] = <Status as strum::VariantArray>::VARIANTS;

    /// [`Self::REPORTED`] without `exempt`, which only a crate's own `kcontract.toml` gives: the
    /// statuses of the site's summaries and columns (the site, built from the spec's repository,
    /// has none).
    pub const ALL: [Status; 8] = *Self::REPORTED.first_chunk().unwrap();

    /// The status of lowercase name `s` (`--require`'s, a ratchet file's), if any.
    pub fn named(s: &str) -> Option<Status> {
        s.parse().ok()
    }

    /// The lowercase name used in the CLI, JSON and the site (`implemented`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The rank of `--require`'s order (see the type's documentation): a match, so that a new
    /// status cannot be left out of it.
    const fn worth(self) -> u8 {
        match self {
            Status::Failing => 0,
            Status::Untested => 1,
            Status::Stub => 2,
            Status::External => 3,
            Status::Suspect => 4,
            Status::Implemented => 5,
            Status::Passing => 6,
            Status::Waived => 7,
            Status::Exempt => 8,
        }
    }
}

// `ALL` is `REPORTED` without its last status, which must be `exempt`.
const _: () = assert!(
    Status::REPORTED.len() == Status::ALL.len() + 1
        && matches!(Status::REPORTED[Status::ALL.len()], Status::Exempt)
);

impl Ord for Status {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.worth().cmp(&other.worth())
    }
}

impl PartialOrd for Status {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
