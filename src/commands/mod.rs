//! One file per subcommand: its clap arguments and its `run`, which composes the stages of
//! [`crate::pipeline`] it needs and returns an [`Outcome`](crate::terminal::Outcome);
//! `crate::cli` turns that into the exit code.

pub(crate) mod build;
pub(crate) mod check;
pub(crate) mod conformance;
pub(crate) mod diff;
pub(crate) mod explain;
pub(crate) mod fmt;
pub(crate) mod i18n;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod list;
pub(crate) mod matrix;
pub(crate) mod model;
pub(crate) mod platform;
pub(crate) mod review;
pub(crate) mod scaffold;
pub(crate) mod serve;
pub(crate) mod tests_flags;
