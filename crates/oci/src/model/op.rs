//! What a trace asks of the model: the operations (and events) on a container, their arguments and
//! the container configuration `create` takes. Plain data read by the trace parser, the runtime,
//! the explorer and the harness; the rules about what each one does live in [`super::runtime`].

use std::fmt;

use super::hooks::Hooks;

/// How the developer's process reacts to SIGTERM (a property of the program, not of the runtime).
/// Its words in traces (`exit`, `ignore`) come from this declaration.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "lowercase")]
pub enum OnSigterm {
    /// It shuts down gracefully and exits with status 0.
    #[default]
    Exit,
    /// It ignores (or handles without exiting) SIGTERM.
    Ignore,
}

/// The parts of a bundle's `config.json` the model needs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Config {
    /// Whether `process` is set. config.md §Process: "`process` (object, OPTIONAL) specifies the
    /// container process. This property is REQUIRED when `start` is called."
    pub process: bool,
    /// How the program reacts to SIGTERM.
    pub on_sigterm: OnSigterm,
    /// Configured hooks with their scripted outcomes.
    pub hooks: Hooks,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            process: true,
            on_sigterm: OnSigterm::Exit,
            hooks: Hooks::none(),
        }
    }
}

/// A signal, by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// SIGTERM: ends a `running` process whose `on_sigterm` is `exit`.
    Term,
    /// SIGKILL: always ends the container process.
    Kill,
    /// Any other signal (`SIGUSR1`, `SIGHUP`, …): delivered, changes nothing by itself.
    Other(String),
}

impl Signal {
    /// Parses a signal as `kill` takes it: a name, `SIG` followed by upper-case letters or digits
    /// (`SIGTERM`, `SIGUSR1`), `SIGRTMIN+n` / `SIGRTMAX-n`, or a number from 1 to 64 (9 is SIGKILL,
    /// 15 SIGTERM; any other number is kept as written).
    pub(crate) fn parse(name: &str) -> Option<Signal> {
        if !name.is_empty() && name.len() <= 2 && name.bytes().all(|b| b.is_ascii_digit()) {
            return match name.parse::<u8>().ok()? {
                9 => Some(Signal::Kill),
                15 => Some(Signal::Term),
                1..=64 => Some(Signal::Other(name.to_owned())),
                _ => None,
            };
        }
        let rest = name.strip_prefix("SIG")?;
        let rt = |prefix: &str, sep: char| {
            rest.strip_prefix(prefix)
                .and_then(|r| r.strip_prefix(sep))
                .is_some_and(|n| {
                    !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())
                })
        };
        let plain = !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        if !(plain || rt("RTMIN", '+') || rt("RTMAX", '-')) {
            return None;
        }
        Some(match name {
            "SIGTERM" => Signal::Term,
            "SIGKILL" => Signal::Kill,
            other => Signal::Other(other.to_owned()),
        })
    }

    /// Whether the signal is one Linux has: a POSIX or Linux name, a real-time signal, or a
    /// number. The OCI runtime spec leaves what `kill` does with any other name to the runtime.
    pub(crate) fn is_known(&self) -> bool {
        const NAMES: [&str; 33] = [
            "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1",
            "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
            "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR",
            "SYS",
        ];
        let name = self.as_str();
        match name.strip_prefix("SIG") {
            None => true,
            Some(rest) => {
                NAMES.contains(&rest)
                    || rest == "RTMIN"
                    || rest == "RTMAX"
                    || rest.starts_with("RTMIN+")
                    || rest.starts_with("RTMAX-")
            }
        }
    }

    /// The name.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Signal::Term => "SIGTERM",
            Signal::Kill => "SIGKILL",
            Signal::Other(name) => name,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a step does to the container it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// OCI `state <container-id>`.
    State,
    /// OCI `create <container-id> <path-to-bundle>`, with the bundle's config.
    Create(Config),
    /// OCI `start <container-id>`.
    Start,
    /// OCI `kill <container-id> <signal>`.
    Kill(Signal),
    /// OCI `delete <container-id>`.
    Delete,
    /// Not an operation: the container process exits on its own with this status code.
    Exit {
        /// Exit status; non-zero is a failure of the developer's process.
        code: i32,
    },
    /// Knative's orderly shutdown: SIGTERM, then SIGKILL if the process is alive after the grace
    /// period.
    Shutdown {
        /// The grace period. The model has no clock: a process that exits on SIGTERM does so within
        /// any grace period, one that ignores it is still alive after any grace period.
        grace_seconds: u64,
    },
    /// Knative: the platform reclaims a `stopped` container.
    Reclaim,
}

/// The operation (or event) names used in traces and output; the names and the list come from this
/// declaration (strum).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "lowercase")]
pub enum OpKind {
    /// `state`
    State,
    /// `create`
    Create,
    /// `start`
    Start,
    /// `kill`
    Kill,
    /// `delete`
    Delete,
    /// `exit`
    Exit,
    /// `shutdown`
    Shutdown,
    /// `reclaim`
    Reclaim,
}

impl OpKind {
    /// The trace name.
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }

    /// Where the rule for this operation is written, for error messages.
    pub(super) fn source(self) -> &'static str {
        match self {
            OpKind::State => "runtime.md#query-state",
            OpKind::Create => "runtime.md#create",
            OpKind::Start => "runtime.md#start",
            OpKind::Kill => "runtime.md#kill",
            OpKind::Delete => "runtime.md#delete",
            OpKind::Exit => "model: process exit event",
            OpKind::Shutdown => "Knative orderly shutdown via runtime.md#kill",
            OpKind::Reclaim => "Knative reclaim via runtime.md#delete",
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Action {
    /// The kind of this action.
    pub fn kind(&self) -> OpKind {
        match self {
            Action::State => OpKind::State,
            Action::Create(_) => OpKind::Create,
            Action::Start => OpKind::Start,
            Action::Kill(_) => OpKind::Kill,
            Action::Delete => OpKind::Delete,
            Action::Exit { .. } => OpKind::Exit,
            Action::Shutdown { .. } => OpKind::Shutdown,
            Action::Reclaim => OpKind::Reclaim,
        }
    }
}

/// One step: an action on the container with this ID. `id: None` models an operation invoked
/// without a container ID, which every OCI operation answers with an error ("This operation MUST
/// generate an error if it is not provided the container ID."). The empty string is treated the same
/// way (the model's choice: an empty ID is not an ID).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Op {
    /// The container ID, if provided.
    pub id: Option<String>,
    /// What to do.
    pub action: Action,
}

impl Op {
    /// A step on the container `id`.
    pub fn new(id: &str, action: Action) -> Op {
        Op {
            id: Some(id.to_owned()),
            action,
        }
    }

    /// A step invoked without a container ID.
    pub(crate) fn without_id(action: Action) -> Op {
        Op { id: None, action }
    }

    /// The ID if it is one (present and non-empty).
    pub fn valid_id(&self) -> Option<&str> {
        self.id.as_deref().filter(|id| !id.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names() {
        assert_eq!(Signal::parse("SIGTERM"), Some(Signal::Term));
        assert_eq!(Signal::parse("SIGKILL"), Some(Signal::Kill));
        assert_eq!(
            Signal::parse("SIGUSR1"),
            Some(Signal::Other("SIGUSR1".into()))
        );
        assert_eq!(Signal::parse("9"), Some(Signal::Kill));
        assert_eq!(Signal::parse("15"), Some(Signal::Term));
        assert_eq!(Signal::parse("10"), Some(Signal::Other("10".into())));
        assert_eq!(
            Signal::parse("SIGRTMIN+3"),
            Some(Signal::Other("SIGRTMIN+3".into()))
        );
        assert!(Signal::parse("SIGRTMAX-1").is_some_and(|s| s.is_known()));
        assert!(Signal::parse("SIGFOO").is_some_and(|s| !s.is_known()));
        assert!(Signal::parse("SIGUSR1").is_some_and(|s| s.is_known()));
        for bad in [
            "",
            "SIG",
            "TERM",
            "sigterm",
            "SIGterm",
            "SIG TERM",
            "0",
            "65",
            "-9",
            "SIGRTMIN+",
            "SIGRTMIN-1",
            "SIGRTMIN+123",
        ] {
            assert_eq!(Signal::parse(bad), None, "{bad:?}");
        }
    }
}
