//! The language stubs are written in, and what differs by it: file names, comment markers, test
//! names, and which renderer and untouched-stub check applies. The one place that dispatches to
//! the Rust (`stub`), Go (`go`) and Python (`python`) writers, which depend on `stub`'s shared
//! pieces and never on each other or on this choice.

use kcontract_spec::{Clause, Spec};

use crate::annotations::{FileSyntax, FnItem};

/// The language the stubs are written in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Stubs {
    /// `#[test]` functions in `tests/contract/<chapter>.rs` with a `main.rs`.
    #[default]
    Rust,
    /// `func TestX(t *testing.T)` in `<chapter>_test.go` files of this package.
    Go {
        /// The package clause of new files.
        package: String,
    },
    /// pytest's `def test_…()` in `test_<chapter>.py` files (`super::python`).
    Python,
}

impl Stubs {
    /// The file of a chapter's stubs, from its module name.
    pub(super) fn file_name(&self, module: &str) -> String {
        match self {
            Stubs::Rust => format!("{module}.rs"),
            Stubs::Go { .. } => format!("{module}_test.go"),
            Stubs::Python => format!("test_{module}.py"),
        }
    }

    /// Is `name` one of the folder's files this scaffold merges?
    pub(super) fn owns(&self, name: &str) -> bool {
        match self {
            Stubs::Rust => name.ends_with(".rs"),
            Stubs::Go { .. } => name.ends_with("_test.go"),
            Stubs::Python => name.starts_with("test_") && name.ends_with(".py"),
        }
    }

    /// The language the folder's files are read as.
    pub(super) fn lang(&self) -> crate::annotations::Lang {
        match self {
            Stubs::Rust => crate::annotations::Lang::Rust,
            Stubs::Go { .. } => crate::annotations::Lang::Go,
            Stubs::Python => crate::annotations::Lang::Python,
        }
    }

    /// A line comment's marker: generated section headings are `MARKER 5.1 Title` lines.
    pub(super) fn comment(&self) -> &'static str {
        match self {
            Stubs::Rust | Stubs::Go { .. } => "//",
            Stubs::Python => "#",
        }
    }

    /// The name of a new stub of clause `id`.
    pub(super) fn test_name(&self, id: &str) -> String {
        match self {
            Stubs::Rust => super::fn_name(id),
            Stubs::Go { .. } => super::go::test_name(id),
            Stubs::Python => super::python::test_name(id),
        }
    }
}

/// [`super::stub::render_stub`] in the language of `stubs`.
pub(super) fn render_stub_for(stubs: &Stubs, c: &Clause, name: &str) -> String {
    match stubs {
        Stubs::Rust => super::stub::render_stub(c, name),
        Stubs::Go { .. } => super::go::render(c, name),
        Stubs::Python => super::python::render(c, name),
    }
}

/// [`super::stub::untouched_stub`] in the language of `stubs`.
pub(super) fn untouched_stub_for(
    stubs: &Stubs,
    src: &str,
    syntax: &FileSyntax,
    f: &FnItem,
    spec: &Spec,
) -> Option<String> {
    match stubs {
        Stubs::Rust => super::stub::untouched_stub(src, syntax, f, spec),
        Stubs::Go { .. } => super::go::untouched(src, syntax, f, spec),
        Stubs::Python => super::python::untouched(src, syntax, f, spec),
    }
}
