//! How each testable clause can be executed: its routes, derived from the tables that execute
//! clauses (never a hand-kept list per clause, which would drift from them), or, when none
//! applies, the stated reason it is judged by a person.
//!
//! | route | what decides it | derived from |
//! | --- | --- | --- |
//! | `local` | `kcontract platform run` under runc or crun | a row of [`checks::CHECKS`] |
//! | `conformance-log` | `kcontract platform import-log` of a vendor's `go test -v` log | the clause's `upstream-tests` |
//! | `verify` | `kcontract platform verify` against a deployed probe | a row of [`verify::VERIFY_CHECKS`] |
//! | `lint` | `kcontract platform lint` of a Service manifest | a row of [`lint::LINT_CHECKS`] |
//! | `model` | `kcontract conformance`: the model replayed against a runtime | `verify: model` |
//!
//! A testable clause without any of these has a [`Reason`]: `documentation` when its id says it
//! asks for documentation (`…-documented`, `document-…`: the platform's documentation answers it,
//! reviewed by a person), `manual` when it is `verify: manual`, `platform-only` otherwise (only a
//! real platform shows it, through its API or log store, and no command of kcontract reads those
//! yet).

use serde::Serialize;

use super::{checks, lint, verify};
use kcontract_spec::Clause;

/// A way a clause can be executed. Its name (in the JSON and on the site, `conformance-log`) and
/// its list, in the order they are listed, come from this declaration.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Route {
    /// A check of `kcontract platform run` decides it.
    Local,
    /// Knative's conformance tests name it (`upstream-tests`): a vendor log decides it.
    ConformanceLog,
    /// `kcontract platform verify` judges it from a deployed probe.
    Verify,
    /// `kcontract platform lint` finds what breaks it in a manifest.
    Lint,
    /// The lifecycle model replayed against a runtime (`kcontract conformance`).
    Model,
}

impl Route {
    /// Every route, in the order they are listed: the declaration's ([`strum::VariantArray`]),
    /// under the name the site's platforms page counts by.
    pub const ALL: &'static [Route] = <Route as strum::VariantArray>::VARIANTS;

    /// The name in the JSON and on the site (`conformance-log`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The command that executes it, as the platforms page and docs/platforms.md show it.
    pub fn command(self) -> &'static str {
        match self {
            Route::Local => {
                "kcontract platform run --runtime runc --profile FILE --report runc.json"
            }
            Route::ConformanceLog => {
                "kcontract platform import-log --platform NAME LOG --report NAME.json"
            }
            Route::Verify => "kcontract platform verify --url URL --profile FILE --report FILE",
            Route::Lint => "kcontract platform lint FILE…",
            Route::Model => "kcontract conformance",
        }
    }

    /// Does its command write a run report, a column of the matrix and the platforms page?
    pub fn makes_column(self) -> bool {
        matches!(self, Route::Local | Route::ConformanceLog | Route::Verify)
    }

    /// Does this route execute `clause`?
    fn executes(self, clause: &Clause) -> bool {
        match self {
            Route::Local => checks::for_clause(&clause.id).next().is_some(),
            Route::ConformanceLog => !clause.upstream_tests.is_empty(),
            Route::Verify => verify::VERIFY_CHECKS.iter().any(|c| c.clause == clause.id),
            Route::Lint => lint::LINT_CHECKS.iter().any(|c| c.clause == clause.id),
            Route::Model => clause.verify.as_str() == "model",
        }
    }
}

/// Why a testable clause has no executable route; its name (in the JSON and on the site) comes from
/// this declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Reason {
    /// The clause asks the platform to document something: its documentation answers it, once a
    /// person has reviewed the link.
    Documentation,
    /// A person judges it (`verify: manual`).
    Manual,
    /// Only a real platform shows it (its API or log store), and no command reads those yet.
    PlatformOnly,
}

impl Reason {
    /// The name in the JSON and on the site.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The routes of one clause, or why it has none (`None` and no reason: not testable).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Routes {
    /// The routes that execute it, in [`Route::ALL`]'s order.
    pub routes: Vec<Route>,
    /// Why it has no route: only for a testable clause without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

/// The routes of `clause`: empty for an untestable clause (its `reason` says why already).
pub fn of(clause: &Clause) -> Routes {
    if clause.verify.is_untestable() {
        return Routes::default();
    }
    let routes: Vec<Route> = Route::ALL
        .iter()
        .copied()
        .filter(|r| r.executes(clause))
        .collect();
    let reason = routes.is_empty().then(|| {
        // The ids name what the clause asks for; the texts word it too many ways ("MUST provide
        // documentation", "SHOULD be documented") and mention documents that are not asked for.
        if clause.id.contains("document") {
            Reason::Documentation
        } else if clause.verify.as_str() == "manual" {
            Reason::Manual
        } else {
            Reason::PlatformOnly
        }
    });
    Routes { routes, reason }
}

/// Does the contract have clauses the platform tables execute (the Knative contract does; a
/// contract of another project, whose ids none of the tables name, does not)?
pub fn knows(clauses: &[Clause]) -> bool {
    clauses.iter().any(|c| {
        [Route::Local, Route::Verify, Route::Lint]
            .into_iter()
            .any(|r| r.executes(c))
    })
}
