//! How each testable clause can be executed: its routes, derived from the tables that execute
//! clauses (never a hand-kept list per clause, which would drift from them), or, when none
//! applies, the stated reason it is judged by a person.
//!
//! | route | what decides it | derived from |
//! | --- | --- | --- |
//! | `simulated` | `kcontract platform run`: kcontract plays the platform a profile describes, running the probe under runc or crun (not a real platform) | a row of [`checks::CHECKS`] whose facts a local run provides |
//! | `vendor-log` | `kcontract platform import-log` of a vendor's `go test -v` log | the clause's `upstream-tests` |
//! | `deployed` | `kcontract platform verify`: the probe deployed on a real platform, read through its ingress, and the platform's log of it | a row of [`checks::CHECKS`] whose facts a deployed probe provides |
//! | `lint` | `kcontract platform lint` of a Service manifest | a row of [`lint::LINT_CHECKS`] |
//! | `model` | `kcontract conformance`: the model replayed against a runtime | `verify: model` |
//!
//! A testable clause without any of these has a [`Reason`]: `documentation` when its id says it
//! asks for documentation (`…-documented`, `document-…`: the platform's documentation answers it,
//! reviewed by a person), `manual` when it is `verify: manual`, `platform-only` otherwise (only a
//! real platform shows it, through its API or log store, and no command of kcontract reads those
//! yet).

use serde::{Deserialize, Serialize};

use super::{checks, lint};
use kcontract_spec::Clause;

/// A way a clause can be executed: where a result was decided. Its name (in the JSON, a report's
/// entries and on the site, `vendor-log`) and its list, in the order they are listed, come from
/// this declaration.
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
    Deserialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Route {
    /// A check of `kcontract platform run` decides it: kcontract plays the platform a profile
    /// describes and runs the probe under runc or crun. It shows what a platform doing what the
    /// profile says would give, not what a real platform does.
    Simulated,
    /// Knative's conformance tests name it (`upstream-tests`): a vendor's log decides it.
    VendorLog,
    /// `kcontract platform verify` judges it from the probe deployed on a real platform (its
    /// `/report` through the ingress, and the platform's log of it).
    Deployed,
    /// `kcontract platform lint` finds what breaks it in a manifest.
    Lint,
    /// The lifecycle model replayed against a runtime (`kcontract conformance`).
    Model,
}

impl Route {
    /// Every route, in the order they are listed: the declaration's ([`strum::VariantArray`]),
    /// under the name the site's platforms page counts by.
    pub const ALL: &'static [Route] = <Route as strum::VariantArray>::VARIANTS;

    /// The name in the JSON and on the site (`vendor-log`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The route of a report's entries by the report's `platform.kind` (`local`, `conformance-log`,
    /// `verify`): for a report written before entries carried their route.
    pub fn of_kind(kind: &str) -> Option<Route> {
        match kind {
            "local" => Some(Route::Simulated),
            super::report::LOG_KIND => Some(Route::VendorLog),
            "verify" => Some(Route::Deployed),
            _ => None,
        }
    }

    /// The command that executes it, as the platforms page and docs/platforms.md show it.
    pub fn command(self) -> &'static str {
        match self {
            Route::Simulated => {
                "kcontract platform run --runtime runc --profile FILE --report runc.json"
            }
            Route::VendorLog => {
                "kcontract platform import-log --platform NAME LOG --report NAME.json"
            }
            Route::Deployed => {
                "kcontract platform verify --url URL [--events LOG] --profile FILE --report FILE"
            }
            Route::Lint => "kcontract platform lint FILE…",
            Route::Model => "kcontract conformance",
        }
    }

    /// Does its command write a run report, a column of the matrix and the platforms page?
    pub fn makes_column(self) -> bool {
        matches!(self, Route::Simulated | Route::VendorLog | Route::Deployed)
    }

    /// Does this route execute `clause`?
    fn executes(self, clause: &Clause) -> bool {
        match self {
            Route::Simulated | Route::Deployed => {
                checks::for_clause_on(&clause.id, self).next().is_some()
            }
            Route::VendorLog => !clause.upstream_tests.is_empty(),
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
        [Route::Simulated, Route::Deployed, Route::Lint]
            .into_iter()
            .any(|r| r.executes(c))
    })
}
