//! `matrix --format json` and `site/matrix.json`: the stable `kcontract-matrix/1` shape.

use serde::Serialize;

use super::{Matrix, PlatformCell, PlatformColumn, Status, Summary, TestView};
use kcontract_spec::list::ContractInfo;
use kcontract_spec::{Actor, Level, Verify};

/// Identifies the JSON shape; bumped only on an incompatible change.
const MATRIX_FORMAT: &str = "kcontract-matrix/1";

#[derive(Serialize)]
struct RowView<'a> {
    id: &'a str,
    level: Level,
    actor: Actor,
    verify: Verify,
    chapter: &'a str,
    status: Status,
    reason: Option<&'a str>,
    /// Added to `kcontract-matrix/1`: the crate's reason for `exempt`, only when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    exempt: Option<&'a str>,
    upstream_tests: &'a [String],
    /// Added to `kcontract-matrix/1`: how the clause can be executed ([`kcontract_platform::routes`]);
    /// empty for an untestable clause or one a person judges.
    routes: Vec<kcontract_platform::routes::Route>,
    /// Added to `kcontract-matrix/1`: why a testable clause has no route (`documentation`,
    /// `manual`), only then.
    #[serde(skip_serializing_if = "Option::is_none")]
    route_reason: Option<kcontract_platform::routes::Reason>,
    tests: &'a [TestView],
    /// Added to `kcontract-matrix/1`: the clause in each run report, only with `--platform`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    platforms: &'a [PlatformCell],
}

#[derive(Serialize)]
struct MatrixJson<'a> {
    format: &'static str,
    contract: ContractInfo<'a>,
    results: &'a [String],
    /// Added to `kcontract-matrix/1`: the run reports' platforms, only with `--platform`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    platforms: &'a [PlatformColumn],
    /// Added to `kcontract-matrix/1`: the crate's selection, only when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    selection: Option<&'a str>,
    summary: Summary,
    clauses: Vec<RowView<'a>>,
    /// Added to `kcontract-matrix/1`: claims of ids the contract lacks, only when there are some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stale_claims: Vec<StaleView<'a>>,
}

#[derive(Serialize)]
struct StaleView<'a> {
    id: &'a str,
    renamed_to: Option<&'a str>,
    binary: Option<String>,
    name: &'a str,
    file: &'a str,
    line: usize,
}

/// `matrix --format json` and `site/matrix.json`, pretty-printed, with a final newline.
pub fn json(m: &Matrix) -> Result<String, serde_json::Error> {
    let v = MatrixJson {
        format: MATRIX_FORMAT,
        contract: ContractInfo {
            title: &m.spec.contract.title,
            version: &m.spec.contract.version,
            languages: &m.spec.contract.languages,
        },
        results: &m.results,
        platforms: &m.platforms,
        selection: m.selection.as_deref(),
        summary: m.summary(),
        clauses: m
            .rows
            .iter()
            .map(|r| {
                let routes = kcontract_platform::routes::of(r.clause);
                RowView {
                    id: &r.clause.id,
                    level: r.clause.level,
                    actor: r.clause.actor,
                    verify: r.clause.verify,
                    chapter: &r.clause.chapter,
                    status: r.status,
                    reason: r.clause.reason.as_deref(),
                    exempt: r.exempt.as_deref(),
                    upstream_tests: &r.clause.upstream_tests,
                    routes: routes.routes,
                    route_reason: routes.reason,
                    tests: &r.tests,
                    platforms: &r.platforms,
                }
            })
            .collect(),
        stale_claims: m
            .stale
            .iter()
            .map(|st| StaleView {
                id: &st.id,
                renamed_to: st.renamed_to.as_deref(),
                binary: st.test.binary_id(),
                name: &st.test.path,
                file: &st.test.file,
                line: st.test.line,
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&v)?;
    s.push('\n');
    Ok(s)
}
