//! The site's own pages, beside one page per chapter: one declaration, [`OwnPage`], from which
//! everything else that names them is derived — the template each is rendered with (and its
//! embedded source, listed among [the templates](super::templates::embedded)), the reading order of the
//! previous/next links ([`OwnPage::place`]), the interface key of each title
//! ([`OwnPage::title_key`]), which of them a contract has ([`Pages::has`]) and the names a chapter
//! may not take (a chapter's page `<lang>/<name>.html` would replace the site's own).
//!
//! Why one table: a page's name used to sit in five lists in five files, and the reserved name of
//! the Platforms page was once forgotten. Adding a variant here is enough: every `match` below is
//! exhaustive, so a page without a template, a title or a place does not compile, and the tests
//! at the end fail when a page is missing from the embedded templates, has no interface text, or is
//! not refused as a chapter name by the spec loader (which reads `contract.yaml` before any site
//! exists: its list, `RESERVED_PAGES` of the spec crate, is held equal to this one by
//! `reserved_chapter_names_are_the_pages`).

/// A page of the site's own, written as `<lang>/<name>.html` and rendered from the template
/// `<name>.html`. The declaration order is the reading order among the pages after the chapters
/// (the previous/next links and the sidebar).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum OwnPage {
    /// The landing page: the contract's title, its chapters and the other pages.
    Index,
    /// The clause index: every clause in one filterable table.
    Clauses,
    /// The traceability matrix: each clause's status and tests, the coverage summary.
    Matrix,
    /// The platforms page ([`Pages::platforms`]).
    Platforms,
    /// The Changes page ([`Pages::changes`]).
    Changes,
    /// The runtimes page ([`Pages::runtimes`]).
    Runtimes,
    /// The whole contract on one page, for printing (not in the reading order).
    Print,
}

/// Where a page is in the reading order of a language's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Before the chapters.
    First,
    /// After the chapters, in [`OwnPage`]'s order.
    AfterChapters,
    /// Outside it: the page has no previous/next links and is no other page's.
    Outside,
}

/// `(template name, embedded source)` of the page `<name>`: the file `templates/<name>.html`.
macro_rules! embedded {
    ($name:literal) => {
        (
            concat!($name, ".html"),
            include_str!(concat!("../../../templates/", $name, ".html")),
        )
    };
}

impl OwnPage {
    /// The file name without `.html`: the page is `<lang>/<name>.html`, and no chapter may have
    /// this name.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }

    /// The template the page is rendered with, and its embedded source (replaceable by a file of
    /// that name in `--templates DIR`).
    pub(crate) const fn template(self) -> (&'static str, &'static str) {
        match self {
            OwnPage::Index => embedded!("index"),
            OwnPage::Clauses => embedded!("clauses"),
            OwnPage::Matrix => embedded!("matrix"),
            OwnPage::Platforms => embedded!("platforms"),
            OwnPage::Changes => embedded!("changes"),
            OwnPage::Runtimes => embedded!("runtimes"),
            OwnPage::Print => embedded!("print"),
        }
    }

    /// The interface key of the page's title as the previous/next links and the search index
    /// show it. The index's own heading is the contract's title instead ([`OwnPage::Index`] is
    /// "home" only in links to it).
    pub(crate) fn title_key(self) -> &'static str {
        match self {
            OwnPage::Index => "home",
            OwnPage::Print => "print_short",
            OwnPage::Clauses
            | OwnPage::Matrix
            | OwnPage::Platforms
            | OwnPage::Changes
            | OwnPage::Runtimes => self.name(),
        }
    }

    /// Where the page is in the reading order.
    pub(crate) fn place(self) -> Place {
        match self {
            OwnPage::Index => Place::First,
            OwnPage::Clauses
            | OwnPage::Matrix
            | OwnPage::Platforms
            | OwnPage::Changes
            | OwnPage::Runtimes => Place::AfterChapters,
            OwnPage::Print => Place::Outside,
        }
    }
}

/// Which of the pages that not every contract has this site has.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pages {
    /// The runtimes page (a runtimes catalogue was read).
    pub(crate) runtimes: bool,
    /// The Changes page (the contract has earlier versions).
    pub(crate) changes: bool,
    /// The platforms page: run reports were given, or the platform tables execute clauses of the
    /// contract (the Knative contract; another project's has nothing to show there).
    pub(crate) platforms: bool,
}

impl Pages {
    /// Does the site have `page`?
    pub(crate) fn has(self, page: OwnPage) -> bool {
        match page {
            OwnPage::Platforms => self.platforms,
            OwnPage::Changes => self.changes,
            OwnPage::Runtimes => self.runtimes,
            OwnPage::Index | OwnPage::Clauses | OwnPage::Matrix | OwnPage::Print => true,
        }
    }

    /// The pages the site has.
    pub(crate) fn all(self) -> impl Iterator<Item = OwnPage> {
        use strum::VariantArray;
        OwnPage::VARIANTS
            .iter()
            .copied()
            .filter(move |p| self.has(*p))
    }

    /// The pages the site has at `place`, in reading order.
    pub(crate) fn at(self, place: Place) -> impl Iterator<Item = OwnPage> {
        self.all().filter(move |p| p.place() == place)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use strum::VariantArray;

    use super::OwnPage;
    use crate::interface::Interfaces;
    use kcontract_spec::{LoadOptions, Tree, load_from};

    /// Every page's template is `<name>.html`, listed once among the embedded templates.
    #[test]
    fn every_page_has_its_template() {
        for page in OwnPage::VARIANTS {
            let (template, source) = page.template();
            assert_eq!(template, format!("{}.html", page.name()));
            assert!(!source.is_empty(), "{template}");
            let listed = crate::templates::embedded()
                .filter(|(name, _)| *name == template)
                .count();
            assert_eq!(listed, 1, "{template} among the embedded templates");
        }
    }

    /// Every page's title has its words in every embedded language.
    #[test]
    fn every_title_has_interface_text() {
        let all = Interfaces::load(None).unwrap();
        for lang in ["en", "zh"] {
            let t = all.get(lang).unwrap();
            for page in OwnPage::VARIANTS {
                assert!(
                    t.text.contains_key(page.title_key()),
                    "{lang}: {}",
                    page.title_key()
                );
            }
        }
    }

    /// The spec loader refuses (K0013) a chapter named after each page, and reserves no other
    /// name: its list and this table cannot drift apart.
    #[test]
    fn reserved_chapter_names_are_the_pages() {
        let contract = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, CHAPTER]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";
        let mut reserved: Option<BTreeSet<String>> = None;
        for page in OwnPage::VARIANTS {
            let name = page.name();
            let mut files = std::collections::BTreeMap::new();
            files.insert(
                PathBuf::from("s/contract.yaml"),
                contract.replace("CHAPTER", name).into_bytes(),
            );
            for chapter in ["one", name] {
                files.insert(
                    PathBuf::from(format!("s/en/{chapter}.md")),
                    b"# A chapter\n".to_vec(),
                );
            }
            let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
            let refusal = loaded
                .diagnostics
                .iter()
                .find(|d| d.code == "K0013" && d.message.contains(&format!("`{name}`")))
                .unwrap_or_else(|| panic!("a chapter named `{name}` is not refused"));
            // The help names every reserved name: the same set for every page.
            let help = refusal.help.as_deref().unwrap_or_default();
            let listed: BTreeSet<String> = help
                .rsplit_once(": ")
                .map(|(_, names)| names.split(", ").map(str::to_string).collect())
                .unwrap_or_default();
            assert_eq!(*reserved.get_or_insert_with(|| listed.clone()), listed);
        }
        let pages: BTreeSet<String> = OwnPage::VARIANTS
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(reserved, Some(pages), "the names the loader reserves");
    }
}
