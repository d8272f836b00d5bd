//! The legend of a page (`legend` of `legend.html`): which of the badges it shows it explains, in
//! the page's language. Why on every such page and not once: a reader arrives on a chapter from a
//! search or a link, and "Status: waived" beside a MAY read as "this requirement is waived" (issue
//! #48); the words are explained where they are seen.

use serde::Serialize;

use kcontract_platform::routes::Route;

/// What a page's legend explains; `None` of it on a page without badges.
#[derive(Clone, Debug, Default, Serialize)]
pub(super) struct Legend {
    /// The levels (MUST … MAY).
    pub(super) levels: bool,
    /// The actor and verification labels of the clause cards.
    pub(super) actors: bool,
    /// The test statuses ([`kcontract_trace::matrix::Status::ALL`]).
    pub(super) statuses: bool,
    /// The marks of a stale or missing translation (a translated language's pages).
    pub(super) translation: bool,
    /// The platform cells' keys the page can show (`pass`, `fail`, …), in the filter's order.
    pub(super) cells: Vec<&'static str>,
    /// The routes of the page's platform columns.
    pub(super) routes: Vec<&'static str>,
    /// Shown open (the print page: paper has no button).
    pub(super) open: bool,
}

/// What the language's pages can show: the statuses when the contract is tested at all, the
/// translation marks on a translated language's pages.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shows {
    /// The clause cards carry a test status ([`super::render`]'s `tested`).
    pub(super) statuses: bool,
    /// The pages are a translation's.
    pub(super) translated: bool,
}

impl Shows {
    /// A chapter page (and the print page, open): the cards' levels, labels, statuses and
    /// translation marks.
    pub(super) fn chapter(self, open: bool) -> Legend {
        Legend {
            levels: true,
            actors: true,
            statuses: self.statuses,
            translation: self.translated,
            open,
            ..Legend::default()
        }
    }

    /// The clause index: levels, the labels of its columns, the translation marks.
    pub(super) fn clauses(self) -> Legend {
        Legend {
            levels: true,
            actors: true,
            translation: self.translated,
            ..Legend::default()
        }
    }

    /// The matrix page: levels, the statuses (its status column is always there), and with
    /// platform columns their cells and routes.
    pub(super) fn matrix(self, columns: &[&[Route]]) -> Legend {
        Legend {
            levels: true,
            actors: true,
            statuses: true,
            ..platforms(columns)
        }
    }

    /// The platforms page: levels, and with columns their cells and routes.
    pub(super) fn platforms(self, columns: &[&[Route]]) -> Legend {
        Legend {
            levels: true,
            ..platforms(columns)
        }
    }
}

/// The cells and routes of platform columns, each given by the routes its reports decided
/// clauses on (none: nothing; a column of no decided clause still shows the cells).
fn platforms(columns: &[&[Route]]) -> Legend {
    if columns.is_empty() {
        return Legend::default();
    }
    let mut routes: Vec<&'static str> = Vec::new();
    for r in columns.iter().flat_map(|c| c.iter()) {
        if !routes.contains(&r.as_str()) {
            routes.push(r.as_str());
        }
    }
    Legend {
        cells: <super::context::CellKey as strum::VariantArray>::VARIANTS
            .iter()
            .map(|k| k.as_str())
            .collect(),
        routes,
        ..Legend::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::Interfaces;
    use kcontract_spec::keywords::Level;
    use kcontract_trace::matrix::Status;

    /// Every word a legend can show has its text in every embedded language: a level, a status,
    /// a cell or a route added later does not reach a page without its explanation.
    #[test]
    fn every_legend_entry_has_interface_text() {
        let all = Interfaces::load(None).unwrap();
        for lang in ["en", "zh"] {
            let t = all.get(lang).unwrap();
            let mut keys: Vec<String> = Level::ALL
                .iter()
                .map(|l| format!("legend_level_{}", crate::markdown::level_class(*l)))
                .collect();
            keys.extend(Status::ALL.iter().map(|s| format!("legend_{}", s.as_str())));
            let legend = platforms(&[Route::ALL]);
            keys.extend(
                legend
                    .cells
                    .iter()
                    .filter(|k| !matches!(**k, "documented" | "undocumented"))
                    .map(|k| format!("legend_platform_{k}")),
            );
            keys.extend(legend.routes.iter().map(|r| format!("route_{r}_desc")));
            for key in keys {
                assert!(t.text.contains_key(&key), "{lang}: {key}");
            }
        }
    }

    /// Without columns a page explains no cell and no route; with two columns of two routes,
    /// both routes once each; a column that decided nothing still explains the cells.
    #[test]
    fn the_routes_are_those_of_the_columns() {
        assert!(platforms(&[]).cells.is_empty());
        let (a, b) = (Route::ALL[0], Route::ALL[1]);
        assert_eq!(platforms(&[&[a, b], &[a]]).routes, [a.as_str(), b.as_str()]);
        let none = platforms(&[&[]]);
        assert!(none.routes.is_empty());
        assert!(!none.cells.is_empty());
    }
}
