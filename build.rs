//! Compiles the built-in page templates into Rust (see `build/templates.rs` for why and how).

#[path = "build/templates.rs"]
mod templates;

use templates::Entry;

/// The templates compiled, with what each is given besides the page's fields (`Env` in
/// `src/site/compiled.rs`). `runtimes.html` and `redirect.html` are rendered once per language or
/// once per site, so tera renders them.
const ENTRIES: &[Entry] = &[
    Entry {
        name: "chapter.html",
        params: &[],
    },
    Entry {
        name: "print.html",
        params: &[],
    },
    Entry {
        name: "index.html",
        params: &[],
    },
    Entry {
        name: "clauses.html",
        params: &[],
    },
    Entry {
        name: "matrix.html",
        params: &[],
    },
    Entry {
        name: "toc.html",
        params: &[],
    },
    Entry {
        name: "clause.html",
        params: &[("c", "&ClauseCtx<'_>")],
    },
    Entry {
        name: "toc-sections.html",
        params: &[("sections", "&[Section<'_>]")],
    },
];

/// The names whose values are maps, read by key: the interface text and the vocabulary's labels.
const MAPS: &[&str] = &["t", "actor_label", "verify_label"];

fn main() {
    println!("cargo::rerun-if-changed=templates");
    println!("cargo::rerun-if-changed=build/templates.rs");
    let read = |name: &str| {
        let path = format!("templates/{name}");
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let code = templates::compile(ENTRIES, MAPS, &read).unwrap_or_else(|e| panic!("{e}"));
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("compiled_templates.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
