//! One Rust source text read as tokens: its candidate test functions and its `Clause:` lines.

use std::collections::BTreeSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use proc_macro2::{TokenStream, TokenTree};

use super::items::{FnItem, scan_items};
use super::sites::{Site, collect_sites};
use super::tokens::AttrKind;

/// Everything the scanner knows about one file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FileSyntax {
    /// Every `fn` with a body at module level, in inline modules or in item-level macros.
    pub fns: Vec<FnItem>,
    /// Every `Clause:` line in a doc attribute, wherever it is.
    pub sites: Vec<Site>,
    /// The language the file was read as: how its tests' names are joined (`lang`).
    #[serde(default)]
    pub lang: kcontract_spec::TestLanguage,
}

impl FileSyntax {
    /// The annotation sites inside the doc attributes of `f`, in file order. Each attribute's
    /// sites are found by binary search (`sites` is in file order, so sorted by `attr_start`):
    /// looking through every site of the file for every function took 43 s for a file of
    /// 100,000 annotated tests.
    pub fn claims_of<'a>(&'a self, f: &'a FnItem) -> impl Iterator<Item = &'a Site> + 'a {
        let starts: BTreeSet<usize> = f
            .attrs
            .iter()
            .filter(|a| matches!(a.kind, AttrKind::Doc(_)))
            .map(|a| a.range.start)
            .collect();
        starts.into_iter().flat_map(move |start| {
            let from = self.sites.partition_point(|s| s.attr_start < start);
            self.sites[from..]
                .iter()
                .take_while(move |s| s.attr_start == start)
                .filter(|s| !s.miscased)
        })
    }
}

/// Why a file could not be read as Rust tokens.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LexFailure {
    /// Where the lexer stopped.
    pub range: Range<usize>,
    /// The lexer's message.
    pub message: String,
}

/// A module declared at the top level of a file (`mod x;`, `pub mod x;`, `mod x { … }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModDecl {
    /// The module's name (`r#` removed).
    pub name: String,
    /// From its first attribute (or `pub`, or `mod`) to its `;` or closing brace.
    pub item: Range<usize>,
}

/// The modules a file declares at its top level, read as Rust tokens (comments, strings and
/// layout do not matter: `mod x; // note` and `/* mod y; */` are what the compiler sees).
pub fn mod_decls(text: &str) -> Result<Vec<ModDecl>, LexFailure> {
    let result = match text.parse::<TokenStream>() {
        Ok(ts) => {
            let trees: Vec<TokenTree> = ts.into_iter().collect();
            let mut out = Vec::new();
            let mut start: Option<usize> = None;
            let mut i = 0;
            while i < trees.len() {
                let here = super::tokens::range_of(&trees[i]).start;
                match &trees[i] {
                    TokenTree::Punct(p)
                        if p.as_char() == '#'
                            && super::tokens::group(
                                trees.get(i + 1),
                                proc_macro2::Delimiter::Bracket,
                            )
                            .is_some() =>
                    {
                        start.get_or_insert(here);
                        i += 2;
                    }
                    TokenTree::Ident(id) if id == "pub" => {
                        start.get_or_insert(here);
                        i += if super::tokens::group(
                            trees.get(i + 1),
                            proc_macro2::Delimiter::Parenthesis,
                        )
                        .is_some()
                        {
                            2
                        } else {
                            1
                        };
                    }
                    TokenTree::Ident(id) if id == "mod" => {
                        let name = super::tokens::ident(trees.get(i + 1));
                        let end = trees.get(i + 2).and_then(|t| match t {
                            TokenTree::Punct(p) if p.as_char() == ';' => {
                                Some(super::tokens::range_of(t).end)
                            }
                            TokenTree::Group(g)
                                if g.delimiter() == proc_macro2::Delimiter::Brace =>
                            {
                                Some(g.span().byte_range().end)
                            }
                            _ => None,
                        });
                        if let (Some(name), Some(end)) = (name, end) {
                            out.push(ModDecl {
                                name: name.trim_start_matches("r#").to_string(),
                                item: start.unwrap_or(here)..end,
                            });
                            i += 3;
                        } else {
                            i += 1;
                        }
                        start = None;
                    }
                    _ => {
                        start = None;
                        i += 1;
                    }
                }
            }
            Ok(out)
        }
        Err(e) => {
            let r = e.span().byte_range();
            let start = r.start.min(text.len());
            Err(LexFailure {
                range: start..r.end.max(start).min(text.len()),
                message: e.to_string(),
            })
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// Read one Rust source text. Pure apart from proc-macro2's thread-local span table, which is reset
/// afterwards (so scanning many files does not grow it; each thread of a parallel scan has its own).
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
            // In file order already; made sure of, since `claims_of` searches it.
            out.sites.sort_by_key(|s| s.attr_start);
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// 100,000 annotated tests in one file: each test finds its claims at once (linear time).
    #[test]
    fn many_tests_in_one_file_take_linear_time() {
        let mut src = String::new();
        for i in 0..100_000 {
            src.push_str(&format!("/// Clause: a.b{i}\n#[test]\nfn t{i}() {{}}\n"));
        }
        let syn = parse_source(&src).unwrap();
        let start = std::time::Instant::now();
        let n: usize = syn.fns.iter().map(|f| syn.claims_of(f).count()).sum();
        assert_eq!(n, 100_000);
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
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
