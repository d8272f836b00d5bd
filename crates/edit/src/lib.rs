//! kcontract-edit: the spec editor's tools.

pub mod diff;
pub mod fmt;
pub mod i18n;
pub mod import;
pub mod init;
