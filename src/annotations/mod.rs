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
//! - A **stub** (for the matrix) is a test with `#[ignore = "not yet written: …"]` whose body is
//!   exactly the token sequence `todo!()`. Any other body is a real test. The scaffold's stricter
//!   notion of an *untouched* stub (which it may rewrite) is in `crate::scaffold`.
//!
//! ## The files, one job each
//!
//! `tokens` (matching token trees, classifying attributes) → `items` (the `fn` items that can be
//! tests) and `sites` (the `Clause:` lines) → `syntax` (one file: [`parse_source`]); `targets`
//! (package, Cargo target and module path of a file); `claims` (is the id a clause?); `scan` (the
//! project: files read and tokenised in parallel, then tests and diagnostics in path order). The glob patterns of
//! `tests:` are `crate::globs`, shared with the spec loader. `cache` keeps `syntax`'s result per
//! file between runs, keyed by the file's bytes (where, and why it is never in the way: its docs).

mod cache;
mod claims;
mod items;
mod scan;
mod sites;
mod syntax;
mod targets;
mod tokens;

pub use cache::{CacheChoice, CacheOutcome, CacheStatus};
pub use items::{FnItem, STUB_IGNORE_PREFIX};
pub use scan::{Scan, scan, scan_with};
pub use sites::{Site, may_hold_annotation};
pub use syntax::{FileSyntax, LexFailure, parse_source};
pub use targets::{Target, package_name, target_of};
pub use tokens::{Attr, AttrKind};

use crate::diagnostic::Span;

/// Is the test a generated stub or a real test?
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TestKind {
    Stub,
    Real,
}

/// One `Clause:` line: the id as written and where it is.
#[derive(Clone, Debug)]
pub struct Claim {
    pub id: String,
    pub span: Span,
}

/// A test function found in a scanned file.
#[derive(Clone, Debug)]
pub struct TestFn {
    /// As walked from the project root, `/`-separated (`tests/model_props.rs`).
    pub file: String,
    pub line: usize,
    pub name_span: Span,
    /// The package of the nearest `Cargo.toml`, if any.
    pub package: Option<String>,
    /// The test binary, when the path follows Cargo's conventions.
    pub target: Option<Target>,
    /// Module path inside the binary and the function name, `::`-joined.
    pub path: String,
    pub claims: Vec<Claim>,
    pub kind: TestKind,
    pub ignored: bool,
}

impl TestFn {
    /// nextest's binary id, when both the package and the target are known.
    pub fn binary_id(&self) -> Option<String> {
        Some(self.target.as_ref()?.binary_id(self.package.as_deref()?))
    }
}
