//! What a check says: the status of a clause in a run, with the facts it rests on and a sentence;
//! and what a judge is given.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::observed::Observed;
use super::profile::Profile;

/// A clause's result in a run. The words (serde's and strum's the same: kebab-case, `n/a` named)
/// come from this declaration.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Status {
    /// The facts meet the clause.
    Pass,
    /// They do not.
    Fail,
    /// The clause does not apply to this platform (the profile declares the feature absent).
    #[serde(rename = "n/a")]
    #[strum(serialize = "n/a")]
    NotApplicable,
    /// No check of this run decides it.
    NotRun,
    /// The check could not be made (the container did not start, the probe printed nothing).
    Error,
}

impl Status {
    /// `pass`, `fail`, `n/a`, `not-run`, `error`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A check's result: the status, the facts it rests on, and a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The status.
    pub status: Status,
    /// The facts compared, as JSON.
    pub evidence: Value,
    /// What was found, in a sentence.
    pub message: String,
}

/// What a judge sees.
pub struct Input<'a> {
    /// The profile judged against.
    pub profile: &'a Profile,
    /// What the run observed.
    pub observed: &'a Observed,
}
