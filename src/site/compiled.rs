//! The built-in page templates compiled to Rust by `build.rs` (see `build/templates.rs`), and the
//! little the compiled code calls: tera's escaping, truthiness, map lookups and loops, on the
//! typed values of [`Env`].
//!
//! Why: interpreting `clause.html`, `clause-row.html` and `matrix-row.html` once per clause and
//! language was the largest part of a large build's time (BENCHMARKS.md, "Session 13"). The
//! templates stay the one definition: tera renders any page whose templates `--templates`
//! replaces, from the same [`Env`] serialised, and `tests/compiled_templates.rs` holds the two
//! renderings of the built-in templates byte-equal.

use std::collections::BTreeMap;

use super::context::{ClauseCtx, Env, Html, PageLink, Section};
use crate::matrix::Status;
use crate::results::Outcome;
use crate::spec::Upstream;

/// A compiled template looked up a key its map does not have (tera's "not found" error).
#[derive(Debug)]
pub(crate) struct Missing(pub(crate) String);

#[allow(
    unused_parens,
    unused_variables,
    clippy::all,
    clippy::pedantic,
    reason = "generated code, one statement per template piece"
)]
mod generated {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/compiled_templates.rs"));
}

/// The template compiler itself, for its tests: it runs in `build.rs`, where `cargo test` does not
/// reach it.
#[cfg(test)]
#[allow(dead_code, unreachable_pub)]
#[path = "../../build/templates.rs"]
mod compiler;

pub(super) use generated::{COMPILED, clause_html, render_page, toc_sections_html};

/// Write a value as `{{ v }}` does: text HTML-escaped, [`Html`] as it is, none as nothing.
pub(crate) trait Emit {
    fn emit_to(&self, out: &mut String);
    /// As `{{ v | safe }}`.
    fn raw_to(&self, out: &mut String) {
        self.emit_to(out);
    }
}

fn emit<T: Emit + ?Sized>(v: &T, out: &mut String) {
    v.emit_to(out);
}

fn emit_raw<T: Emit + ?Sized>(v: &T, out: &mut String) {
    v.raw_to(out);
}

impl Emit for str {
    fn emit_to(&self, out: &mut String) {
        escape_runs(self, |s| out.push_str(s));
    }
    fn raw_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Emit for String {
    fn emit_to(&self, out: &mut String) {
        self.as_str().emit_to(out);
    }
    fn raw_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Emit for Html<'_> {
    fn emit_to(&self, out: &mut String) {
        out.push_str(self.0);
    }
}

impl<T: Emit + ?Sized> Emit for &T {
    fn emit_to(&self, out: &mut String) {
        (**self).emit_to(out);
    }
    fn raw_to(&self, out: &mut String) {
        (**self).raw_to(out);
    }
}

impl<T: Emit> Emit for Option<T> {
    fn emit_to(&self, out: &mut String) {
        if let Some(v) = self {
            v.emit_to(out);
        }
    }
    fn raw_to(&self, out: &mut String) {
        if let Some(v) = self {
            v.raw_to(out);
        }
    }
}

macro_rules! emit_display {
    ($($t:ty),*) => {$(
        impl Emit for $t {
            fn emit_to(&self, out: &mut String) {
                use std::fmt::Write as _;
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
emit_display!(usize, u8, u32, u64, bool);

impl Emit for Status {
    fn emit_to(&self, out: &mut String) {
        self.as_str().emit_to(out);
    }
}

impl Emit for Outcome {
    fn emit_to(&self, out: &mut String) {
        self.as_str().emit_to(out);
    }
}

/// A field of an `Option`'s value (`{% if prev %}{{ prev.name }}{% endif %}`): the compiled code
/// reads a field of `x` as `(&&x).opt()?.field`. Method lookup takes [`FromOption`] when `x` is an
/// `Option` and [`FromValue`] otherwise (it needs one more reference), so one spelling serves
/// both without knowing the type.
pub(crate) trait FromOption {
    type T;
    fn opt(&self) -> Result<&Self::T, Missing>;
}

impl<T> FromOption for &Option<T> {
    type T = T;
    fn opt(&self) -> Result<&T, Missing> {
        self.as_ref()
            .ok_or_else(|| Missing("a field of a value that is none".into()))
    }
}

/// See [`FromOption`].
pub(crate) trait FromValue {
    fn opt(&self) -> Result<&Self, Missing>;
}

impl<T: ?Sized> FromValue for &&T {
    fn opt(&self) -> Result<&Self, Missing> {
        Ok(self)
    }
}

/// tera's truthiness: false for none, `false`, 0 and empty text, lists and maps.
pub(crate) trait Truthy {
    fn truthy(&self) -> bool;
}

fn truthy<T: Truthy + ?Sized>(v: &T) -> bool {
    v.truthy()
}

impl Truthy for bool {
    fn truthy(&self) -> bool {
        *self
    }
}

impl Truthy for str {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl Truthy for String {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl Truthy for Html<'_> {
    fn truthy(&self) -> bool {
        !self.0.is_empty()
    }
}

impl Truthy for usize {
    fn truthy(&self) -> bool {
        *self != 0
    }
}

impl<T> Truthy for [T] {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl<T> Truthy for Vec<T> {
    fn truthy(&self) -> bool {
        !self.is_empty()
    }
}

impl<T: Truthy> Truthy for Option<T> {
    fn truthy(&self) -> bool {
        self.as_ref().is_some_and(Truthy::truthy)
    }
}

impl<T: Truthy + ?Sized> Truthy for &T {
    fn truthy(&self) -> bool {
        (**self).truthy()
    }
}

/// Values tera always sees as true: maps with entries (a page link, the upstream) and names that are
/// never empty (a status, an outcome).
macro_rules! always_true {
    ($($t:ty),*) => {$(
        impl Truthy for $t {
            fn truthy(&self) -> bool {
                true
            }
        }
    )*};
}
always_true!(PageLink<'_>, Upstream, Status, Outcome);

/// The text of a value, for `==`.
pub(crate) trait Text {
    fn text(&self) -> &str;
}

fn text<T: Text + ?Sized>(v: &T) -> &str {
    v.text()
}

impl Text for str {
    fn text(&self) -> &str {
        self
    }
}

impl Text for String {
    fn text(&self) -> &str {
        self
    }
}

impl<T: Text + ?Sized> Text for &T {
    fn text(&self) -> &str {
        (**self).text()
    }
}

/// What `{% for x in v %}` walks.
pub(crate) trait Seq {
    type Item;
    fn seq(&self) -> &[Self::Item];
}

fn seq<S: Seq + ?Sized>(s: &S) -> &[S::Item] {
    s.seq()
}

impl<T> Seq for [T] {
    type Item = T;
    fn seq(&self) -> &[T] {
        self
    }
}

impl<T> Seq for Vec<T> {
    type Item = T;
    fn seq(&self) -> &[T] {
        self
    }
}

impl<T, const N: usize> Seq for [T; N] {
    type Item = T;
    fn seq(&self) -> &[T] {
        self
    }
}

impl<S: Seq + ?Sized> Seq for &S {
    type Item = S::Item;
    fn seq(&self) -> &[S::Item] {
        (**self).seq()
    }
}

/// A map key: the text of a value (`t[c.status]`).
pub(crate) trait Key {
    fn key(&self) -> Option<&str>;
}

impl Key for str {
    fn key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for String {
    fn key(&self) -> Option<&str> {
        Some(self)
    }
}

impl Key for Status {
    fn key(&self) -> Option<&str> {
        Some(self.as_str())
    }
}

impl Key for Outcome {
    fn key(&self) -> Option<&str> {
        Some(self.as_str())
    }
}

impl<T: Key> Key for Option<T> {
    fn key(&self) -> Option<&str> {
        self.as_ref().and_then(Key::key)
    }
}

impl<T: Key + ?Sized> Key for &T {
    fn key(&self) -> Option<&str> {
        (**self).key()
    }
}

/// `v[k]` and `map.key`.
pub(crate) trait At<K: ?Sized> {
    type Out: ?Sized;
    fn at(&self, k: &K) -> Result<&Self::Out, Missing>;
}

fn at<'x, C: At<K> + ?Sized, K: ?Sized>(c: &'x C, k: &K) -> Result<&'x C::Out, Missing> {
    c.at(k)
}

impl<V, K: Key + ?Sized> At<K> for BTreeMap<String, V> {
    type Out = V;
    fn at(&self, k: &K) -> Result<&V, Missing> {
        let key = k.key().unwrap_or("");
        self.get(key)
            .ok_or_else(|| Missing(format!("the map has no key `{key}`")))
    }
}

impl<T> At<usize> for [T] {
    type Out = T;
    fn at(&self, k: &usize) -> Result<&T, Missing> {
        self.get(*k)
            .ok_or_else(|| Missing(format!("no item {k} in a list of {}", self.len())))
    }
}

impl<T> At<usize> for Vec<T> {
    type Out = T;
    fn at(&self, k: &usize) -> Result<&T, Missing> {
        self.as_slice().at(k)
    }
}

impl<C: At<K> + ?Sized, K: ?Sized> At<K> for &C {
    type Out = C::Out;
    fn at(&self, k: &K) -> Result<&C::Out, Missing> {
        (**self).at(k)
    }
}

/// HTML escaping as tera's default escaper does it (`&`, `<`, `>`, `"`, `'`), as runs of text
/// handed to `put`: the compiled templates write them into a `String`, and tera's escape function
/// (`templates.rs`) into its writer.
pub(super) fn escape_runs(s: &str, mut put: impl FnMut(&str)) {
    let mut rest = s;
    while let Some(i) = rest
        .bytes()
        .position(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\''))
    {
        put(&rest[..i]);
        put(match rest.as_bytes()[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        });
        rest = &rest[i + 1..];
    }
    put(rest);
}
