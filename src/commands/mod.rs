//! One file per subcommand: its clap arguments and its `run`, which composes the stages of
//! [`crate::pipeline`] it needs and returns an [`Outcome`](crate::terminal::Outcome);
//! `crate::cli` turns that into the exit code.

pub(crate) mod build;
pub(crate) mod check;
pub(crate) mod completions;
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
pub(crate) mod reference;
pub(crate) mod review;
pub(crate) mod scaffold;
pub(crate) mod serve;
pub(crate) mod tests_flags;

/// A library enum as a clap value, its words and their help from the enum's one declaration
/// (strum's derives: `VariantArray`, `IntoStaticStr`, `EnumString`, and `EnumMessage` for the doc
/// comments), so the libraries need not depend on clap and `--help` lists every variant.
pub(crate) fn words<T>() -> impl clap::builder::TypedValueParser<Value = T>
where
    T: strum::VariantArray
        + strum::EnumMessage
        + std::str::FromStr<Err = strum::ParseError>
        + Copy
        + Send
        + Sync
        + 'static,
    &'static str: From<T>,
{
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = T::VARIANTS.iter().map(|&v| {
        let help = v
            .get_documentation()
            .map(|d| d.trim().trim_end_matches('.'))
            .unwrap_or_default();
        PossibleValue::new(<&'static str>::from(v)).help(help)
    });
    PossibleValuesParser::new(values).try_map(|word| word.parse::<T>())
}
