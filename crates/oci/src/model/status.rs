//! The `status` of a container: the one vocabulary the hooks (what status a hook is shown), the
//! steps' results and the runtime share, so it sits below all of them (no module cycle).

use std::fmt;

use serde::Serialize;

/// `status` of a container (runtime.md §State; `state-schema-v1.3.0.json` enumerates exactly these).
/// The JSON spelling comes from this declaration (strum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Status {
    /// "the container is being created" — only during `create`.
    Creating,
    /// "the runtime has finished the create operation …, and the container process has neither exited
    /// nor executed the user-specified program".
    Created,
    /// "the container process has executed the user-specified program but has not exited".
    Running,
    /// "the container process has exited".
    Stopped,
}

impl Status {
    /// The JSON spelling.
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the container process exists: runtime.md §State, `pid` is "REQUIRED when `status` is
    /// `created` or `running` on Linux".
    pub fn has_process(self) -> bool {
        matches!(self, Status::Created | Status::Running)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
