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

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use crate::spec::{Spec, TestGlobs, check_id};

/// The prefix of an `#[ignore]` reason that marks a generated stub.
pub const STUB_IGNORE_PREFIX: &str = "not yet written: ";

/// A Cargo target, as cargo-nextest names test binaries (without the package).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Lib,
    Bin(String),
    Test(String),
    Bench(String),
    Example(String),
}

impl Target {
    /// nextest's binary id: `pkg` (library), `pkg::name` (integration test), `pkg::bin/name`, ….
    pub fn binary_id(&self, package: &str) -> String {
        match self {
            Target::Lib => package.to_string(),
            Target::Test(n) => format!("{package}::{n}"),
            Target::Bin(n) => format!("{package}::bin/{n}"),
            Target::Bench(n) => format!("{package}::bench/{n}"),
            Target::Example(n) => format!("{package}::example/{n}"),
        }
    }

    /// Parse a nextest binary id into (package, target).
    pub fn parse_binary_id(id: &str) -> (String, Target) {
        match id.split_once("::") {
            None => (id.to_string(), Target::Lib),
            Some((pkg, rest)) => {
                let t = if let Some(n) = rest.strip_prefix("bin/") {
                    Target::Bin(n.to_string())
                } else if let Some(n) = rest.strip_prefix("bench/") {
                    Target::Bench(n.to_string())
                } else if let Some(n) = rest.strip_prefix("example/") {
                    Target::Example(n.to_string())
                } else {
                    Target::Test(rest.to_string())
                };
                (pkg.to_string(), t)
            }
        }
    }
}

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

// -------------------------------------------------------------------------------------------------
// One file

/// An attribute as the scanner needs it.
#[derive(Clone, Debug)]
pub struct Attr {
    /// Byte range in the file (for a doc comment: the comment).
    pub range: Range<usize>,
    pub kind: AttrKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// `///`, `/** */` or `#[doc = "…"]`, with its text.
    Doc(String),
    /// A path ending in `test`.
    Test,
    /// `#[ignore]` or `#[ignore = "reason"]`.
    Ignore(Option<String>),
    Other,
}

/// A `fn` item with a body, found at module level (or inside an item-level macro).
#[derive(Clone, Debug)]
pub struct FnItem {
    pub attrs: Vec<Attr>,
    pub name: String,
    pub name_range: Range<usize>,
    /// From the first attribute (or qualifier, or `fn`) to the closing brace.
    pub range: Range<usize>,
    pub body: Range<usize>,
    /// The body is exactly `todo!()` (tokens; comments and layout do not count).
    pub todo_body: bool,
    /// Inline module path inside the file.
    pub module: Vec<String>,
    pub in_macro: bool,
}

impl FnItem {
    pub fn is_test(&self) -> bool {
        self.attrs.iter().any(|a| a.kind == AttrKind::Test)
    }
    pub fn ignore_reason(&self) -> Option<Option<&str>> {
        self.attrs.iter().find_map(|a| match &a.kind {
            AttrKind::Ignore(r) => Some(r.as_deref()),
            _ => None,
        })
    }
    /// A stub, for the matrix: the generated `#[ignore]` reason and a `todo!()` body.
    pub fn is_stub(&self) -> bool {
        self.todo_body
            && matches!(self.ignore_reason(), Some(Some(r)) if r.starts_with(STUB_IGNORE_PREFIX))
    }
}

/// One `Clause:` line in a doc attribute anywhere in a file.
#[derive(Clone, Debug)]
pub struct Site {
    /// Start of the doc attribute holding it (identifies the attribute).
    pub attr_start: usize,
    /// The text after `Clause:` (trimmed) and its byte range.
    pub id: String,
    pub id_range: Range<usize>,
    /// The whole `Clause:` marker, for diagnostics when the id is empty.
    pub marker_range: Range<usize>,
    /// The marker was not spelled exactly `Clause:` (e.g. `clause:`).
    pub miscased: bool,
}

/// Everything the scanner knows about one file.
#[derive(Clone, Debug, Default)]
pub struct FileSyntax {
    pub fns: Vec<FnItem>,
    pub sites: Vec<Site>,
}

impl FileSyntax {
    /// The annotation sites inside the doc attributes of `f`.
    pub fn claims_of<'a>(&'a self, f: &'a FnItem) -> impl Iterator<Item = &'a Site> + 'a {
        let starts: BTreeSet<usize> = f
            .attrs
            .iter()
            .filter(|a| matches!(a.kind, AttrKind::Doc(_)))
            .map(|a| a.range.start)
            .collect();
        self.sites
            .iter()
            .filter(move |s| starts.contains(&s.attr_start) && !s.miscased)
    }
}

/// Why a file could not be read as Rust tokens.
#[derive(Clone, Debug)]
pub struct LexFailure {
    pub range: Range<usize>,
    pub message: String,
}

/// Read one Rust source text. Pure apart from proc-macro2's thread-local span table, which is reset
/// afterwards (so scanning many files does not grow it).
pub fn parse_source(text: &str) -> Result<FileSyntax, LexFailure> {
    // A byte-order mark or a shebang line would shift proc-macro2's offsets; blank them out with
    // the same number of bytes instead of cutting them off.
    let mut owned = text.to_string();
    if owned.starts_with('\u{feff}') {
        owned.replace_range(0..3, "   ");
    }
    if owned.starts_with("#!") && !owned[2..].trim_start().starts_with('[') {
        let end = owned.find('\n').unwrap_or(owned.len());
        owned.replace_range(0..end, &" ".repeat(end));
    }
    let result = match owned.parse::<TokenStream>() {
        Ok(ts) => {
            let mut out = FileSyntax::default();
            let trees: Vec<TokenTree> = ts.into_iter().collect();
            collect_sites(&trees, &owned, &mut out.sites);
            scan_items(&trees, &[], false, &mut out.fns);
            Ok(out)
        }
        Err(e) => {
            let r = e.span().byte_range();
            let start = r.start.min(owned.len());
            Err(LexFailure {
                range: start..r.end.max(start).min(owned.len()),
                message: e.to_string(),
            })
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

fn range_of(t: &TokenTree) -> Range<usize> {
    t.span().byte_range()
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn ident(t: Option<&TokenTree>) -> Option<String> {
    match t {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    }
}

fn group(t: Option<&TokenTree>, d: Delimiter) -> Option<&proc_macro2::Group> {
    match t {
        Some(TokenTree::Group(g)) if g.delimiter() == d => Some(g),
        _ => None,
    }
}

/// Decode a string literal token (normal or raw) to its value.
fn lit_str(t: &TokenTree) -> Option<String> {
    let TokenTree::Literal(l) = t else {
        return None;
    };
    syn::parse2::<syn::LitStr>(TokenStream::from(TokenTree::Literal(l.clone())))
        .ok()
        .map(|s| s.value())
}

/// Classify the contents of `#[ … ]`.
fn attr_kind(inner: &TokenStream) -> AttrKind {
    let toks: Vec<TokenTree> = inner.clone().into_iter().collect();
    // The path: idents separated by `::`.
    let mut path = Vec::new();
    let mut i = 0;
    if is_punct(toks.first(), ':') {
        i = 2;
    }
    while let Some(id) = ident(toks.get(i)) {
        path.push(id);
        i += 1;
        if is_punct(toks.get(i), ':') && is_punct(toks.get(i + 1), ':') {
            i += 2;
        } else {
            break;
        }
    }
    let rest = &toks[i.min(toks.len())..];
    let name_value = || -> Option<Option<String>> {
        match rest {
            [] => Some(None),
            [TokenTree::Punct(p), lit] if p.as_char() == '=' => lit_str(lit).map(Some),
            _ => None,
        }
    };
    match path.as_slice() {
        [one] if one == "doc" => match name_value() {
            Some(Some(text)) => AttrKind::Doc(text),
            _ => AttrKind::Other,
        },
        [one] if one == "ignore" => match name_value() {
            Some(reason) => AttrKind::Ignore(reason),
            None => AttrKind::Other,
        },
        [.., last] if last == "test" => AttrKind::Test,
        _ => AttrKind::Other,
    }
}

/// Every `Clause:` line in every doc attribute, at any depth (function bodies, impls, macros):
/// the ones not on a test are reported as stray.
fn collect_sites(trees: &[TokenTree], src: &str, out: &mut Vec<Site>) {
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Punct(p) = &trees[i]
            && p.as_char() == '#'
        {
            let bang = is_punct(trees.get(i + 1), '!');
            let gi = if bang { i + 2 } else { i + 1 };
            if let Some(g) = group(trees.get(gi), Delimiter::Bracket) {
                if let AttrKind::Doc(text) = attr_kind(&g.stream()) {
                    let start = range_of(&trees[i]).start;
                    let end = g.span().byte_range().end;
                    sites_in_doc(&text, src, start..end, out);
                }
                i = gi + 1;
                continue;
            }
        }
        if let TokenTree::Group(g) = &trees[i] {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            collect_sites(&inner, src, out);
        }
        i += 1;
    }
}

/// Find the `Clause:` lines of one doc attribute and locate each in the source (the attribute's
/// text is searched in order, so two lines with the same id get their own spans).
fn sites_in_doc(text: &str, src: &str, attr: Range<usize>, out: &mut Vec<Site>) {
    let slice = src.get(attr.clone()).unwrap_or("");
    let mut from = 0;
    for line in text.lines() {
        let t = line.trim_start();
        // Skip a leading `*` of a block doc comment's continuation lines.
        let t = t.strip_prefix('*').map_or(t, str::trim_start);
        if t.len() < 7 || !t.is_char_boundary(7) || !t[..7].eq_ignore_ascii_case("clause:") {
            continue;
        }
        let marker = &t[..7];
        let id = t[7..].trim();
        // Locate in the source: the marker, then the id after it.
        let Some(m) = slice[from..].find(marker) else {
            continue;
        };
        let mstart = from + m;
        let after = mstart + marker.len();
        let id_off = slice[after..]
            .find(|c: char| !c.is_whitespace() || c == '\n')
            .map_or(after, |k| after + k);
        let (id_start, id_end) = if id.is_empty() || !slice[id_off..].starts_with(id) {
            (id_off, id_off)
        } else {
            (id_off, id_off + id.len())
        };
        from = id_end.max(after);
        out.push(Site {
            attr_start: attr.start,
            id: id.to_string(),
            id_range: attr.start + id_start..attr.start + id_end,
            marker_range: attr.start + mstart..attr.start + after,
            miscased: marker != "Clause:",
        });
    }
}

const QUALIFIERS: [&str; 5] = ["async", "const", "unsafe", "default", "safe"];

/// Module-level items of one token stream: `fn` items with their attributes, inline modules and
/// item-level macro invocations (entered), everything else skipped.
fn scan_items(trees: &[TokenTree], module: &[String], in_macro: bool, out: &mut Vec<FnItem>) {
    let mut attrs: Vec<Attr> = Vec::new();
    let mut item_start: Option<usize> = None;
    let mut i = 0;
    while i < trees.len() {
        let t = &trees[i];
        let start = range_of(t).start;
        match t {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if is_punct(trees.get(i + 1), '!')
                    && group(trees.get(i + 2), Delimiter::Bracket).is_some()
                {
                    // An inner attribute belongs to the enclosing module, not to the next item.
                    attrs.clear();
                    item_start = None;
                    i += 3;
                    continue;
                }
                if let Some(g) = group(trees.get(i + 1), Delimiter::Bracket) {
                    attrs.push(Attr {
                        range: start..g.span().byte_range().end,
                        kind: attr_kind(&g.stream()),
                    });
                    item_start.get_or_insert(start);
                    i += 2;
                    continue;
                }
                attrs.clear();
                item_start = None;
                i += 1;
            }
            TokenTree::Ident(id) => {
                let word = id.to_string();
                match word.as_str() {
                    "pub" => {
                        item_start.get_or_insert(start);
                        i += if group(trees.get(i + 1), Delimiter::Parenthesis).is_some() {
                            2
                        } else {
                            1
                        };
                    }
                    "extern" if !matches!(ident(trees.get(i + 1)).as_deref(), Some("crate")) => {
                        item_start.get_or_insert(start);
                        i += if matches!(trees.get(i + 1), Some(TokenTree::Literal(_))) {
                            2
                        } else {
                            1
                        };
                    }
                    w if QUALIFIERS.contains(&w) => {
                        item_start.get_or_insert(start);
                        i += 1;
                    }
                    "fn" => {
                        let begin = *item_start.get_or_insert(start);
                        let next = fn_item(trees, i, begin, &mut attrs, module, in_macro, out);
                        attrs.clear();
                        item_start = None;
                        i = next;
                    }
                    "mod" => {
                        if let (Some(name), Some(g)) = (
                            ident(trees.get(i + 1)),
                            group(trees.get(i + 2), Delimiter::Brace),
                        ) {
                            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                            let mut path = module.to_vec();
                            path.push(name.trim_start_matches("r#").to_string());
                            scan_items(&inner, &path, in_macro, out);
                            i += 3;
                        } else {
                            i += 1;
                        }
                        attrs.clear();
                        item_start = None;
                    }
                    "macro_rules" if is_punct(trees.get(i + 1), '!') => {
                        // A macro definition: its body is a template, not items.
                        i += 4;
                        attrs.clear();
                        item_start = None;
                    }
                    _ => {
                        attrs.clear();
                        item_start = None;
                        i += 1;
                    }
                }
            }
            TokenTree::Punct(p) if p.as_char() == '!' => {
                // `name! { … }` at item level: read the body as items of this module.
                if let Some(TokenTree::Group(g)) = trees.get(i + 1)
                    && matches!(trees.get(i.wrapping_sub(1)), Some(TokenTree::Ident(_)))
                {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    scan_items(&inner, module, true, out);
                    i += 2;
                } else {
                    i += 1;
                }
                attrs.clear();
                item_start = None;
            }
            _ => {
                attrs.clear();
                item_start = None;
                i += 1;
            }
        }
    }
}

/// `fn name … { body }` starting at `trees[i]` (the `fn`). Returns the index after the item.
#[allow(clippy::too_many_arguments)]
fn fn_item(
    trees: &[TokenTree],
    i: usize,
    begin: usize,
    attrs: &mut Vec<Attr>,
    module: &[String],
    in_macro: bool,
    out: &mut Vec<FnItem>,
) -> usize {
    let Some(TokenTree::Ident(name)) = trees.get(i + 1) else {
        return i + 1;
    };
    // The body is the first brace group at this level; a `;` first means there is none.
    let mut j = i + 2;
    while j < trees.len() {
        match &trees[j] {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            TokenTree::Punct(p) if p.as_char() == ';' => return j + 1,
            _ => j += 1,
        }
    }
    let Some(TokenTree::Group(body)) = trees.get(j) else {
        return j;
    };
    let body_range = body.span().byte_range();
    let inner: Vec<TokenTree> = body.stream().into_iter().collect();
    let todo_body = match inner.as_slice() {
        [
            TokenTree::Ident(t),
            TokenTree::Punct(b),
            TokenTree::Group(g),
            rest @ ..,
        ] => {
            *t == "todo"
                && b.as_char() == '!'
                && g.delimiter() == Delimiter::Parenthesis
                && g.stream().is_empty()
                && (rest.is_empty() || (rest.len() == 1 && is_punct(rest.first(), ';')))
        }
        _ => false,
    };
    out.push(FnItem {
        attrs: std::mem::take(attrs),
        name: name.to_string().trim_start_matches("r#").to_string(),
        name_range: name.span().byte_range(),
        range: begin..body_range.end,
        body: body_range,
        todo_body,
        module: module.to_vec(),
        in_macro,
    });
    j + 1
}

// -------------------------------------------------------------------------------------------------
// The project

/// Where a file sits in Cargo's scheme: its package, target and module path.
fn place(rel: &Path, root: &Path, packages: &mut BTreeMap<PathBuf, Option<String>>) -> Place {
    // The nearest Cargo.toml with a [package] name, walking up to the root.
    let mut dir = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    let (pkg_dir, package) = loop {
        let name = packages
            .entry(dir.clone())
            .or_insert_with(|| package_name(&root.join(&dir).join("Cargo.toml")))
            .clone();
        if name.is_some() {
            break (dir, name);
        }
        if !dir.pop() {
            break (PathBuf::new(), None);
        }
    };
    let inner = rel.strip_prefix(&pkg_dir).unwrap_or(rel);
    let parts: Vec<String> = inner
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let (target, module) = target_of(
        &parts,
        root.join(&pkg_dir).join("src/lib.rs").exists(),
        package.as_deref(),
    );
    Place {
        package,
        target,
        module,
    }
}

struct Place {
    package: Option<String>,
    target: Option<Target>,
    module: Vec<String>,
}

/// Cargo's target auto-discovery, from a path relative to the package root (components).
pub fn target_of(
    parts: &[String],
    has_lib: bool,
    package: Option<&str>,
) -> (Option<Target>, Vec<String>) {
    let stem = |s: &str| s.strip_suffix(".rs").unwrap_or(s).to_string();
    // Module path of the files under a target root: `a/mod.rs` → a, `a/b.rs` → a::b,
    // `main.rs`/`lib.rs` at the root → nothing.
    let modules = |rest: &[String], root_files: &[&str]| -> Vec<String> {
        let mut m: Vec<String> = rest.iter().map(|s| stem(s)).collect();
        if let Some(last) = m.last()
            && (last == "mod" || (rest.len() == 1 && root_files.contains(&last.as_str())))
        {
            m.pop();
        }
        m
    };
    match parts {
        [dir, file] if (dir == "tests" || dir == "benches" || dir == "examples") => {
            let name = stem(file);
            (Some(kind_for(dir, name)), Vec::new())
        }
        [dir, name, rest @ ..] if dir == "tests" || dir == "benches" || dir == "examples" => {
            (Some(kind_for(dir, name.clone())), modules(rest, &["main"]))
        }
        [src, bin, file] if src == "src" && bin == "bin" => {
            (Some(Target::Bin(stem(file))), Vec::new())
        }
        [src, bin, name, rest @ ..] if src == "src" && bin == "bin" => {
            (Some(Target::Bin(name.clone())), modules(rest, &["main"]))
        }
        [src, main] if src == "src" && main == "main.rs" => (
            Some(Target::Bin(package.unwrap_or("main").to_string())),
            Vec::new(),
        ),
        [src, rest @ ..] if src == "src" && !rest.is_empty() => {
            let target = if has_lib {
                Target::Lib
            } else {
                Target::Bin(package.unwrap_or("main").to_string())
            };
            (Some(target), modules(rest, &["lib", "main"]))
        }
        _ => (None, Vec::new()),
    }
}

fn kind_for(dir: &str, name: String) -> Target {
    match dir {
        "tests" => Target::Test(name),
        "benches" => Target::Bench(name),
        _ => Target::Example(name),
    }
}

/// `name = "…"` of the `[package]` table of a Cargo.toml (a line-level read: the name is always a
/// plain string on its own line in practice, and pulling in a TOML parser for it is not worth it).
pub fn package_name(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let mut in_package = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_package = l == "[package]";
            continue;
        }
        if in_package
            && let Some(rest) = l.strip_prefix("name")
            && let Some(v) = rest.trim_start().strip_prefix('=')
        {
            let v = v.trim();
            let v = v.split('#').next().unwrap_or("").trim();
            return v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .map(str::to_string);
        }
    }
    None
}

/// The compiled globs of `tests:`. Invalid globs are reported by the spec loader (K0509), so here
/// they cannot fail.
pub struct GlobMatcher {
    include: globset::GlobSet,
    exclude: globset::GlobSet,
    /// Literal leading directories of the include globs: the only folders walked.
    bases: Vec<PathBuf>,
}

pub fn glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

impl GlobMatcher {
    pub fn new(globs: &TestGlobs) -> Self {
        let set = |pats: &[String]| {
            let mut b = globset::GlobSetBuilder::new();
            for p in pats {
                if let Ok(g) = glob(p) {
                    b.add(g);
                }
            }
            b.build().unwrap_or_else(|_| globset::GlobSet::empty())
        };
        let mut bases: Vec<PathBuf> = globs
            .include
            .iter()
            .map(|p| {
                let mut base = PathBuf::new();
                for c in p.split('/') {
                    if c.contains(['*', '?', '[', '{', '\\']) {
                        break;
                    }
                    base.push(c);
                }
                base
            })
            .collect();
        bases.sort();
        bases.dedup();
        Self {
            include: set(&globs.include),
            exclude: set(&globs.exclude),
            bases,
        }
    }

    pub fn matches(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }

    /// Every matching file under `root`, as sorted `/`-separated relative paths. Hidden folders and
    /// `target/` are not entered; symbolic links are not followed.
    pub fn files(&self, root: &Path) -> Vec<String> {
        let mut out = BTreeSet::new();
        for base in &self.bases {
            let mut stack = vec![base.clone()];
            while let Some(rel) = stack.pop() {
                let abs = root.join(&rel);
                let Ok(meta) = fs::symlink_metadata(&abs) else {
                    continue;
                };
                if meta.is_file() {
                    let s = rel.to_string_lossy().replace('\\', "/");
                    if self.matches(&s) {
                        out.insert(s);
                    }
                    continue;
                }
                if !meta.is_dir() {
                    continue;
                }
                let Ok(entries) = fs::read_dir(&abs) else {
                    continue;
                };
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') || (name == "target" && rel.as_os_str().is_empty()) {
                        continue;
                    }
                    stack.push(rel.join(name));
                }
            }
        }
        out.into_iter().collect()
    }
}

/// The tests of a project: every file the globs select, relative to `root`.
pub struct Scan {
    pub tests: Vec<TestFn>,
    pub files: usize,
}

/// Scan the project at `root` for annotated tests; report unknown and malformed ids (errors), stray
/// annotations and unreadable files (warnings). Only tests that claim at least one clause are
/// returned.
pub fn scan(
    spec: &Spec,
    root: &Path,
    globs: &TestGlobs,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Scan {
    let files = GlobMatcher::new(globs).files(root);
    let mut packages = BTreeMap::new();
    let mut tests = Vec::new();
    for rel in &files {
        let Some((fid, syntax)) = read_rust(root, rel, sources, diags) else {
            continue;
        };
        let place = place(Path::new(rel), root, &mut packages);
        let mut on_tests = BTreeSet::new();
        for f in &syntax.fns {
            let sites: Vec<&Site> = syntax.claims_of(f).collect();
            if sites.is_empty() {
                continue;
            }
            if !f.is_test() {
                continue;
            }
            let mut claims: Vec<Claim> = Vec::new();
            for s in sites {
                on_tests.insert(s.id_range.start);
                if !validate_claim(spec, s, fid, diags) {
                    continue;
                }
                if claims.iter().any(|c| c.id == s.id) {
                    diags.push(
                        Diagnostic::warning(
                            "K0505",
                            format!("`{}` is claimed twice by this test", s.id),
                        )
                        .at(Span::new(fid, s.id_range.clone()), "claimed again here")
                        .help("one `Clause:` line per clause is enough; remove the repeated line"),
                    );
                    continue;
                }
                claims.push(Claim {
                    id: s.id.clone(),
                    span: Span::new(fid, s.id_range.clone()),
                });
            }
            if !f.is_stub()
                && let Some(Some(reason)) = f.ignore_reason()
                && reason.starts_with(STUB_IGNORE_PREFIX)
                && let Some(a) = f
                    .attrs
                    .iter()
                    .find(|a| matches!(a.kind, AttrKind::Ignore(_)))
            {
                diags.push(
                    Diagnostic::warning("K0508", format!("`{}` has been written but is still ignored as \"{reason}\"", f.name))
                        .at(Span::new(fid, a.range.clone()), "the test never runs while this is here")
                        .help("remove this `#[ignore]` line so the test runs (until then its clause cannot show as passing)"),
                );
            }
            let mut path = place.module.clone();
            path.extend(f.module.iter().cloned());
            path.push(f.name.clone());
            let (line, _) = sources.get(fid).line_col(f.name_range.start);
            tests.push(TestFn {
                file: rel.clone(),
                line,
                name_span: Span::new(fid, f.name_range.clone()),
                package: place.package.clone(),
                target: place.target.clone(),
                path: path.join("::"),
                claims,
                kind: if f.is_stub() {
                    TestKind::Stub
                } else {
                    TestKind::Real
                },
                ignored: f.ignore_reason().is_some(),
            });
        }
        for s in &syntax.sites {
            if on_tests.contains(&s.id_range.start) {
                continue;
            }
            let span = Span::new(
                fid,
                s.marker_range.start..s.id_range.end.max(s.marker_range.end),
            );
            if s.miscased {
                diags.push(
                    Diagnostic::warning("K0504", format!("`{}` is not an annotation: the marker is spelled `Clause:`", &sources.get(fid).text[s.marker_range.clone()]))
                        .at(span, "not recognised")
                        .help("write `/// Clause: <id>` (capital C) to claim a clause, or reword the line"),
                );
            } else {
                diags.push(
                    Diagnostic::warning("K0503", "this `Clause:` annotation is not on a test function")
                        .at(span, "claims nothing here")
                        .help("put the line in the doc comment of a `#[test]` function (directly above it); annotations on helpers, modules or other items are not read"),
                );
            }
        }
    }
    Scan {
        tests: tests.into_iter().filter(|t| !t.claims.is_empty()).collect(),
        files: files.len(),
    }
}

/// Read and tokenise one file; problems are warnings (the compiler will report them properly).
pub fn read_rust(
    root: &Path,
    rel: &str,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<(FileId, FileSyntax)> {
    let bytes = match fs::read(root.join(rel)) {
        Ok(b) => b,
        Err(e) => {
            diags.push(
                Diagnostic::warning("K0506", format!("`{rel}` cannot be read ({e}); its annotations were not scanned"))
                    .in_file(rel)
                    .help("check the file's permissions, or exclude it with `tests: exclude:` in contract.yaml"),
            );
            return None;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let fid = sources.add(PathBuf::from(rel), text);
            diags.push(
                Diagnostic::warning(
                    "K0506",
                    format!("`{rel}` is not UTF-8; its annotations were not scanned"),
                )
                .at(
                    Span::new(fid, at..at + '\u{fffd}'.len_utf8()),
                    "invalid UTF-8 here",
                )
                .help("Rust sources are UTF-8; re-save the file as UTF-8"),
            );
            return None;
        }
    };
    let fid = sources.add(PathBuf::from(rel), text);
    match parse_source(&sources.get(fid).text) {
        Ok(s) => Some((fid, s)),
        Err(f) => {
            diags.push(
                Diagnostic::warning("K0506", format!("`{rel}` cannot be read as Rust tokens; its annotations were not scanned"))
                    .at(Span::new(fid, f.range), f.message)
                    .help("fix the file (cargo build shows the error), or exclude it with `tests: exclude:` in contract.yaml"),
            );
            None
        }
    }
}

/// Check one annotation's id: well-formed (K0502 otherwise) and existing (K0501). Returns whether
/// it names a clause.
fn validate_claim(spec: &Spec, s: &Site, fid: FileId, diags: &mut Vec<Diagnostic>) -> bool {
    let span = if s.id.is_empty() {
        Span::new(fid, s.marker_range.clone())
    } else {
        Span::new(fid, s.id_range.clone())
    };
    if s.id.is_empty() {
        diags.push(
            Diagnostic::error("K0502", "`Clause:` without a clause id")
                .at(span, "expected a clause id after this")
                .help("write one id per line, e.g. `/// Clause: lifecycle.sigterm-on-kill` (`kcontract list` shows them all)"),
        );
        return false;
    }
    if s.id.split_whitespace().count() > 1 || s.id.contains(',') {
        diags.push(
            Diagnostic::error(
                "K0502",
                format!("`Clause: {}` names more than one id", s.id),
            )
            .at(span, "one id per `Clause:` line")
            .help("put each clause on its own `/// Clause: <id>` line"),
        );
        return false;
    }
    if let Err(e) = check_id(&s.id) {
        diags.push(
            Diagnostic::error(
                "K0502",
                format!(
                    "malformed clause id `{}` in an annotation",
                    s.id.escape_debug()
                ),
            )
            .at(span, "not a clause id")
            .help(format!("{e}")),
        );
        return false;
    }
    if spec.clause(&s.id).is_none() {
        let help = match closest(spec, &s.id) {
            Some(near) => format!("did you mean `{near}`? If the clause was removed from the contract, remove or re-point this annotation"),
            None => "`kcontract list` shows every clause id; if the clause was removed from the contract, remove or re-point this annotation".to_string(),
        };
        diags.push(
            Diagnostic::error("K0501", format!("no clause `{}` in the contract", s.id))
                .at(span, "unknown clause id")
                .help(help),
        );
        return false;
    }
    true
}

/// The clause id nearest to `id` by edit distance, if it is close enough to be a typo.
fn closest<'a>(spec: &'a Spec, id: &str) -> Option<&'a str> {
    crate::suggest::closest(id, spec.by_id.keys().map(String::as_str), |k| {
        3.max(k.len() / 6)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fns(src: &str) -> Vec<FnItem> {
        parse_source(src).unwrap().fns
    }

    #[test]
    fn doc_lines_on_tests_in_modules_and_macros() {
        let src = r#"
//! Clause: not.on-a-test
use x::y;

/// Text.
///
/// Clause: a.one
/// Clause: a.two
#[test]
fn plain() { assert!(true); }

#[cfg(test)]
mod inner {
    /// Clause: a.three
    #[tokio::test]
    pub(crate) async fn in_mod() {}
}

proptest! {
    #![proptest_config(cfg())]
    /// Clause: a.four
    #[test]
    fn prop(x in 0..3u8, y in any::<u8>()) { prop_assert!(x < 3); }
}

macro_rules! m { () => { /// Clause: a.five
 #[test] fn gen() {} } }

fn helper() { let s = "/// Clause: a.six"; } // Clause: a.seven
"#;
        let syn = parse_source(src).unwrap();
        let tests: Vec<(String, Vec<String>, bool)> = syn
            .fns
            .iter()
            .filter(|f| f.is_test())
            .map(|f| {
                let mut p = f.module.clone();
                p.push(f.name.clone());
                (
                    p.join("::"),
                    syn.claims_of(f).map(|s| s.id.clone()).collect(),
                    f.in_macro,
                )
            })
            .collect();
        assert_eq!(
            tests,
            [
                ("plain".into(), vec!["a.one".into(), "a.two".into()], false),
                ("inner::in_mod".into(), vec!["a.three".into()], false),
                ("prop".into(), vec!["a.four".into()], true),
            ]
        );
        // Sites: the inner doc, the four on tests, the one in macro_rules; not strings or `//`.
        let ids: Vec<&str> = syn.sites.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "not.on-a-test",
                "a.one",
                "a.two",
                "a.three",
                "a.four",
                "a.five"
            ]
        );
        // Spans point at the ids.
        for s in &syn.sites {
            assert_eq!(&src[s.id_range.clone()], s.id);
            assert_eq!(&src[s.marker_range.clone()], "Clause:");
        }
    }

    #[test]
    fn stub_bodies_are_exactly_todo() {
        let f = fns("#[test]\n#[ignore = \"not yet written: a.b\"]\nfn s() {\n    todo!()\n}\n");
        assert!(f[0].is_stub());
        let f =
            fns("#[test]\n#[ignore = \"not yet written: a.b\"]\nfn s() { /* note */ todo!(); }\n");
        assert!(f[0].is_stub(), "comments and a semicolon are not a test");
        for body in [
            "{ todo!(\"x\") }",
            "{ unimplemented!() }",
            "{ todo!(); assert!(false) }",
            "{ let _ = 1; todo!() }",
            "{}",
        ] {
            let f = fns(&format!(
                "#[test]\n#[ignore = \"not yet written: a.b\"]\nfn s() {body}\n"
            ));
            assert!(!f[0].is_stub(), "{body}");
        }
        let f = fns("#[test]\n#[ignore = \"slow\"]\nfn s() { todo!() }\n");
        assert!(!f[0].is_stub(), "another ignore reason is not a stub");
        assert_eq!(f[0].ignore_reason(), Some(Some("slow")));
    }

    #[test]
    fn cargo_targets_and_module_paths() {
        let p = |s: &str, lib: bool| {
            let parts: Vec<String> = s.split('/').map(String::from).collect();
            let (t, m) = target_of(&parts, lib, Some("pkg"));
            (t.map(|t| t.binary_id("pkg")), m.join("::"))
        };
        assert_eq!(
            p("tests/model_props.rs", true),
            (Some("pkg::model_props".into()), "".into())
        );
        assert_eq!(
            p("tests/contract/main.rs", true),
            (Some("pkg::contract".into()), "".into())
        );
        assert_eq!(
            p("tests/contract/runtime_and_lifecycle.rs", true),
            (Some("pkg::contract".into()), "runtime_and_lifecycle".into())
        );
        assert_eq!(
            p("tests/c/a/mod.rs", true),
            (Some("pkg::c".into()), "a".into())
        );
        assert_eq!(
            p("tests/c/a/b.rs", true),
            (Some("pkg::c".into()), "a::b".into())
        );
        assert_eq!(p("src/lib.rs", true), (Some("pkg".into()), "".into()));
        assert_eq!(p("src/spec.rs", true), (Some("pkg".into()), "spec".into()));
        assert_eq!(
            p("src/site/mod.rs", true),
            (Some("pkg".into()), "site".into())
        );
        assert_eq!(
            p("src/model/runtime.rs", true),
            (Some("pkg".into()), "model::runtime".into())
        );
        assert_eq!(
            p("src/main.rs", false),
            (Some("pkg::bin/pkg".into()), "".into())
        );
        assert_eq!(
            p("src/bin/tool.rs", true),
            (Some("pkg::bin/tool".into()), "".into())
        );
        assert_eq!(
            p("src/bin/tool/x.rs", true),
            (Some("pkg::bin/tool".into()), "x".into())
        );
        assert_eq!(
            p("benches/b.rs", true),
            (Some("pkg::bench/b".into()), "".into())
        );
        assert_eq!(p("build.rs", true), (None, "".into()));
        for id in [
            "pkg",
            "pkg::x",
            "pkg::bin/x",
            "pkg::bench/x",
            "pkg::example/x",
        ] {
            let (pkg, t) = Target::parse_binary_id(id);
            assert_eq!(t.binary_id(&pkg), id);
        }
    }

    #[test]
    fn lex_errors_are_located() {
        let e = parse_source("fn a() {\n    let s = \"unterminated;\n}\n").unwrap_err();
        assert!(e.range.start <= 40, "{e:?}");
        let e = parse_source("fn a() { ( }").unwrap_err();
        assert!(!e.message.is_empty());
    }

    #[test]
    fn bom_and_shebang_keep_offsets() {
        let src = "\u{feff}/// Clause: a.b\n#[test]\nfn t() {}\n";
        let s = parse_source(src).unwrap();
        assert_eq!(&src[s.sites[0].id_range.clone()], "a.b");
        let src = "#!/usr/bin/env run-cargo-script\n/// Clause: a.b\n#[test]\nfn t() {}\n";
        let s = parse_source(src).unwrap();
        assert_eq!(&src[s.sites[0].id_range.clone()], "a.b");
        assert_eq!(s.fns.len(), 1);
    }
}
