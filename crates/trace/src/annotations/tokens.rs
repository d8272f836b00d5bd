//! Reading proc-macro2 token trees: the small matchers the item and annotation walks share, and what
//! an attribute is (`#[doc]`, `#[…test]`, `#[ignore]`, anything else).

use std::ops::Range;

use serde::{Deserialize, Serialize};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// An attribute as the scanner needs it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Attr {
    /// Byte range in the file (for a doc comment: the comment).
    pub range: Range<usize>,
    /// What it is, as far as the scanner cares.
    pub kind: AttrKind,
}

/// The attributes the scanner tells apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttrKind {
    /// `///`, `/** */` or `#[doc = "…"]`, with its text.
    Doc(String),
    /// A path ending in `test`.
    Test,
    /// `#[ignore]` or `#[ignore = "reason"]`.
    Ignore(Option<String>),
    /// Any other attribute.
    Other,
}

pub(super) fn range_of(t: &TokenTree) -> Range<usize> {
    t.span().byte_range()
}

pub(super) fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

pub(super) fn ident(t: Option<&TokenTree>) -> Option<String> {
    match t {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    }
}

pub(super) fn group(t: Option<&TokenTree>, d: Delimiter) -> Option<&proc_macro2::Group> {
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
pub(super) fn attr_kind(inner: &TokenStream) -> AttrKind {
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
