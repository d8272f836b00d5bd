//! The `fn` items of a file that can be tests: at module level, in inline `mod`s and in item-level
//! macro invocations (`proptest! { … }`), with their attributes and whether the body is a stub's.
//! Function bodies, `impl` and `trait` blocks and `macro_rules!` definitions are not entered.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use proc_macro2::{Delimiter, TokenTree};

use super::tokens::{Attr, AttrKind, attr_kind, group, ident, is_punct, range_of};

/// The prefix of an `#[ignore]` reason that marks a generated stub.
pub const STUB_IGNORE_PREFIX: &str = "not yet written: ";

/// A `fn` item with a body, found at module level (or inside an item-level macro).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FnItem {
    /// Its outer attributes and doc comments, in order.
    pub attrs: Vec<Attr>,
    /// The function's name.
    pub name: String,
    /// Byte range of the name in the file.
    pub name_range: Range<usize>,
    /// From the first attribute (or qualifier, or `fn`) to the closing brace.
    pub range: Range<usize>,
    /// Byte range of the body, braces included.
    pub body: Range<usize>,
    /// The body holds no statement, or only `todo!()` (tokens; comments, layout and `;` do not
    /// count): it verifies nothing.
    pub todo_body: bool,
    /// Inline module path inside the file.
    pub module: Vec<String>,
    /// Found inside an item-level macro call such as `proptest! { … }`.
    pub in_macro: bool,
}

impl FnItem {
    /// It has an attribute whose path ends in `test` (`#[test]`, `#[tokio::test]`).
    pub fn is_test(&self) -> bool {
        self.attrs.iter().any(|a| a.kind == AttrKind::Test)
    }
    /// `None` when it is not `#[ignore]`d; else the reason, if one is given.
    pub(crate) fn ignore_reason(&self) -> Option<Option<&str>> {
        self.attrs.iter().find_map(|a| match &a.kind {
            AttrKind::Ignore(r) => Some(r.as_deref()),
            _ => None,
        })
    }
    /// A stub, for the matrix: its body is only `todo!()`, or holds no statement at all (`{}`, a
    /// comment), whatever its attributes. A test that cannot pass, or that passes without doing
    /// anything, verifies nothing, so editing its `#[ignore]` reason (or removing the line, or the
    /// `todo!()` with it) must not turn it into coverage; the generated reason is only what
    /// `scaffold` looks for when it decides which stubs are untouched
    /// (`crate::scaffold::untouched_stub`).
    pub fn is_stub(&self) -> bool {
        self.todo_body
    }
}

const QUALIFIERS: [&str; 5] = ["async", "const", "unsafe", "default", "safe"];

/// Module-level items of one token stream: `fn` items with their attributes, inline modules and
/// item-level macro invocations (entered), everything else skipped.
pub(super) fn scan_items(
    trees: &[TokenTree],
    module: &[String],
    in_macro: bool,
    out: &mut Vec<FnItem>,
) {
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
                        let at = Enclosing { module, in_macro };
                        let next = fn_item(trees, i, begin, &mut attrs, at, out);
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

/// Where an item is: what an [`FnItem`] records of its surroundings.
#[derive(Clone, Copy)]
struct Enclosing<'a> {
    /// The inline module path inside the file.
    module: &'a [String],
    /// Inside an item-level macro call.
    in_macro: bool,
}

/// `fn name … { body }` starting at `trees[i]` (the `fn`; the item's first byte at `begin`).
/// Returns the index after the item.
fn fn_item(
    trees: &[TokenTree],
    i: usize,
    begin: usize,
    attrs: &mut Vec<Attr>,
    at: Enclosing,
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
        // No statement: nothing, or only `;`.
        only if only.iter().all(|t| is_punct(Some(t), ';')) => true,
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
        module: at.module.to_vec(),
        in_macro: at.in_macro,
    });
    j + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::parse_source;

    fn fns(src: &str) -> Vec<FnItem> {
        parse_source(src).unwrap().fns
    }

    #[test]
    fn stub_bodies_are_todo_or_empty() {
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
        ] {
            let f = fns(&format!(
                "#[test]\n#[ignore = \"not yet written: a.b\"]\nfn s() {body}\n"
            ));
            assert!(!f[0].is_stub(), "{body}");
        }
        // Another ignore reason, or none, does not make a `todo!()` body a test (issue #36: a
        // changed reason used to count as implemented).
        let f = fns("#[test]\n#[ignore = \"slow\"]\nfn s() { todo!() }\n");
        assert!(f[0].is_stub(), "another ignore reason is still a stub");
        assert_eq!(f[0].ignore_reason(), Some(Some("slow")));
        let f = fns("#[test]\nfn s() { todo!() }\n");
        assert!(f[0].is_stub(), "no ignore at all is still a stub");
        // A body with no statement passes without checking anything (issue #47).
        for body in [
            "{}",
            "{ /* later */ }",
            "{\n    // TODO: call the platform\n}",
            "{ ; }",
        ] {
            let f = fns(&format!("#[test]\nfn s() {body}\n"));
            assert!(f[0].is_stub(), "{body}");
        }
    }
}
