//! Which Rust tests claim which clauses.
//!
//! A test claims a clause with a doc line `/// Clause: <id>` on the test function: it survives
//! rustfmt, reads well in rustdoc, and needs no macro or dependency in the test crate. One test may
//! claim several clauses (one line each); one clause may be claimed by many tests.
//!
//! ## What is matched, and how
//!
//! Files are read as token trees by proc-macro2's lexer (the one syn uses), never as lines, so a
//! `Clause:` inside a string literal or an ordinary `//` comment is not an annotation, and a doc
//! comment is recognised exactly as rustc would (it becomes a `#[doc = "…"]` attribute).
//!
//! - A **test** is a `fn` item carrying an attribute whose path ends in `test` (`#[test]`,
//!   `#[tokio::test]`, …), at module level of a file, inside an inline `mod m { … }`, or inside an
//!   item-level macro invocation such as `proptest! { … }` (syn cannot parse those bodies as
//!   items, because of `x in strategy` arguments; the token scanner reads them the same way as
//!   plain items, which is also how the test harness will see the generated `fn`). Function
//!   bodies, `impl` and `trait` blocks and `macro_rules!` definitions are not entered.
//! - An **annotation** is a doc line whose trimmed text starts with `Clause:`; the rest of the line
//!   is one clause id. A `Clause:` line anywhere else (on a helper, a module, a struct, in an
//!   `impl`) is reported, because it claims nothing.
//! - The test's **name** is what cargo-nextest and libtest print: the module path inside its test
//!   binary plus the function name (`runtime_and_lifecycle::lifecycle_sigterm_on_kill`), and the
//!   binary is found from Cargo's target conventions (`tests/x.rs` and `tests/x/**` → integration
//!   test `x`; `src/**` → the library, or the binary when there is no `src/lib.rs`; `src/bin/x…`;
//!   `benches/`, `examples/`), with the package named by the nearest `Cargo.toml`. `#[path]`
//!   attributes and `[[test]] path = …` targets are not followed.
//! - A **stub** (for the matrix) is a test whose body is exactly the token sequence `todo!()`,
//!   whatever its `#[ignore]` says (a changed reason must not count as coverage). Any other body
//!   is a real test. The scaffold's stricter
//!   notion of an *untouched* stub (which it may rewrite) is in `crate::scaffold`.
//!
//! ## The files, one job each
//!
//! `tokens` (matching token trees, classifying attributes) → `items` (the `fn` items that can be
//! tests) and `sites` (the `Clause:` lines) → `syntax` (one file: [`parse_source`]); `targets`
//! (package, Cargo target and module path of a file); `claims` (is the id a clause?); `scan` (the
//! project: files read and tokenised in parallel, then tests and diagnostics in path order). The glob patterns of
//! `tests:` are `kcontract_spec::globs`, shared with the spec loader. `cache` keeps `syntax`'s result per
//! file between runs, keyed by the file's bytes (where, and why it is never in the way: its docs).

mod cache;
mod claims;
pub use claims::closest;
pub use claims::renamed_to;
mod items;
mod lang;
pub use lang::parse as parse_in;
pub use lang::{Lang, go_words as go_tokens};
mod review;
mod scan;
mod sites;
mod syntax;
mod targets;
mod tokens;

pub use cache::{CacheChoice, CacheOutcome, CacheStatus};
pub use items::{FnItem, STUB_IGNORE_PREFIX};
pub use review::{
    DocEdit, Restamped, ReviewTarget, Reviewed, repoint, restamp, review, review_diagnostics,
    review_diagnostics_for,
};
pub use scan::{Found, Scan, cargo_layout, find, rooted, scan, scan_with};
pub use sites::{Site, may_hold_annotation};
pub use syntax::{FileSyntax, LexFailure, ModDecl, mod_decls, parse_source};
pub use targets::{Target, package_name, target_of};
pub use tokens::{Attr, AttrKind};

use kcontract_spec::diagnostic::Span;

/// Is the test a generated stub or a real test?
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TestKind {
    /// A `todo!()` body (as `scaffold` writes it), whatever its `#[ignore]` says: verifies nothing.
    Stub,
    /// Anything else: a test a person wrote (or a stub a person edited).
    Real,
}

/// One `Clause:` line: the id as written and where it is.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The clause id as written after `Clause:` (checked against the spec separately).
    pub id: String,
    /// Where the id is, for diagnostics.
    pub span: Span,
    /// The clause's stamp recorded on the line (`Clause: <id> @ <stamp>`), when there is one.
    pub stamp: Option<String>,
    /// Where the stamp is, or the empty span after the id where one is inserted.
    pub stamp_span: Span,
}

impl Claim {
    /// A claim whose recorded stamp is not the clause's current one: the clause's text (or
    /// level, which is in the text) changed since a person last reviewed the test against it.
    /// A claim without a stamp is not suspect (it was never reviewed; see [`Claim::unreviewed`]).
    pub(crate) fn suspect(&self, spec: &kcontract_spec::Spec) -> bool {
        match (&self.stamp, spec.clause(&self.id)) {
            (Some(s), Some(c)) => *s != c.stamp,
            _ => false,
        }
    }

    /// A claim without a stamp: valid (older test suites), reported only with `--strict`.
    pub(crate) fn unreviewed(&self) -> bool {
        self.stamp.is_none()
    }
}

/// A test function found in a scanned file.
#[derive(Clone, Debug)]
pub struct TestFn {
    /// As walked from the project root, `/`-separated (`tests/model_props.rs`).
    pub file: String,
    /// 1-based line of the function's name.
    pub line: usize,
    /// The function's name in its file, for diagnostics about the test.
    pub name_span: Span,
    /// The package of the nearest `Cargo.toml`, if any.
    pub package: Option<String>,
    /// The test binary, when the path follows Cargo's conventions.
    pub target: Option<Target>,
    /// Module path inside the binary and the function name, `::`-joined.
    pub path: String,
    /// Its `Clause:` lines naming clauses of the contract, in order.
    pub claims: Vec<Claim>,
    /// Its `Clause:` lines naming well-formed ids the contract does not have (K0501): stale
    /// claims of removed or renamed clauses, kept so that the matrix can show them and `review
    /// --rename` re-point them.
    pub unknown: Vec<Claim>,
    /// A generated stub or a real test.
    pub kind: TestKind,
    /// It carries `#[ignore]` (with or without a reason).
    pub ignored: bool,
}

impl TestFn {
    /// nextest's binary id, when both the package and the target are known.
    pub fn binary_id(&self) -> Option<String> {
        Some(self.target.as_ref()?.binary_id(self.package.as_deref()?))
    }
}
