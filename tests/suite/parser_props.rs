//! Property tests: the loader never panics, whatever it is fed, and always explains a rejection.
//!
//! Inputs are (a) real clause files from `spec/en/` with structure-aware mutations (cut, duplicate,
//! and splice in YAML/Markdown punctuation, keywords and awkward Unicode), and (b) arbitrary bytes.

use std::path::Path;

use kcontract_spec::diagnostic::render_all;
use kcontract_spec::load;
use proptest::prelude::*;

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: l, attribution: a}\n";

fn seed_chapter() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/en/runtime-and-lifecycle.md");
    std::fs::read_to_string(p).expect("the shipped spec is readable")
}

/// Load `chapter` as the only chapter of a spec; render every diagnostic (rendering must not panic
/// either). Returns (clauses, errors).
fn load_bytes(chapter: &[u8]) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("en")).unwrap();
    std::fs::write(dir.path().join("contract.yaml"), CONTRACT).unwrap();
    std::fs::write(dir.path().join("en/one.md"), chapter).unwrap();
    let loaded = load(dir.path());
    let text = render_all(
        &loaded.diagnostics,
        &loaded.sources,
        &annotate_snippets::Renderer::plain(),
    );
    for d in &loaded.diagnostics {
        assert!(text.contains(d.code), "diagnostic {} not rendered", d.code);
        if let Some(span) = &d.span {
            let f = loaded.sources.get(span.file);
            assert!(span.range.start <= span.range.end && span.range.end <= f.text.len());
            assert!(
                f.text.is_char_boundary(span.range.start)
                    && f.text.is_char_boundary(span.range.end)
            );
        }
    }
    (loaded.spec.clauses.len(), loaded.error_count())
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, what: &'static str },
    Duplicate { at: usize, len: usize },
    Truncate { at: usize },
}

const TOKENS: &[&str] = &[
    "```",
    "```clause\n",
    "\n",
    ": ",
    ":",
    "- ",
    "  ",
    "\t",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "|",
    ">-",
    "#",
    "&a",
    "*a",
    "!!str ",
    "MUST",
    "MUST NOT",
    "may",
    "`",
    "<!--",
    "-->",
    "é",
    "容器",
    "\u{200b}",
    "\u{202e}",
    "\r\n",
    "id: x.y\n",
    "level: MAY\n",
    "verify: untestable\n",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "\u{feff}",
    "\0",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), proptest::sample::select(TOKENS))
            .prop_map(|(at, what)| Mutation::Insert { at, what }),
        (any::<usize>(), 1usize..200).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut s: String, muts: &[Mutation]) -> String {
    for m in muts {
        let n = s.len().max(1);
        match *m {
            Mutation::Delete { at, len } => {
                let a = floor_boundary(&s, at % n);
                let b = floor_boundary(&s, a + len);
                s.replace_range(a..b, "");
            }
            Mutation::Insert { at, what } => {
                let a = floor_boundary(&s, at % n);
                s.insert_str(a, what);
            }
            Mutation::Duplicate { at, len } => {
                let a = floor_boundary(&s, at % n);
                let b = floor_boundary(&s, a + len);
                let piece = s[a..b].to_string();
                s.insert_str(b, &piece);
            }
            Mutation::Truncate { at } => {
                let a = floor_boundary(&s, at % n);
                s.truncate(a);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_clause_files_never_panic(muts in proptest::collection::vec(mutation(), 1..8)) {
        let text = apply(seed_chapter(), &muts);
        let (_clauses, _errors) = load_bytes(text.as_bytes());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let (clauses, errors) = load_bytes(&bytes);
        // Random bytes rarely form a clause; when they are not UTF-8 they must be rejected.
        if std::str::from_utf8(&bytes).is_err() {
            prop_assert!(errors >= 1);
            prop_assert_eq!(clauses, 0);
        }
    }

    #[test]
    fn arbitrary_text_in_a_clause_block_never_panics(body in "\\PC{0,300}") {
        let chapter = format!("# One\n\n```clause\n{body}\n```\n");
        let (clauses, errors) = load_bytes(chapter.as_bytes());
        // Either the block became a clause or it was explained by at least one error (unless the
        // body closed the fence itself, which makes the rest ordinary prose).
        if !body.contains("```") {
            prop_assert!(clauses == 1 || errors >= 1);
        }
    }
}

#[test]
fn unmutated_seed_is_clean() {
    let (clauses, errors) = load_bytes(seed_chapter().as_bytes());
    assert_eq!(errors, 0);
    assert!(clauses >= 10, "{clauses}");
}

/// Regression (found by `mutated_clause_files_never_panic` in CI): a byte order mark inside a
/// clause block made a span end inside the mark's three bytes, and slicing there panicked. Every
/// position of the chapter is tried.
#[test]
fn a_byte_order_mark_anywhere_never_panics() {
    let seed = seed_chapter();
    let found = apply(
        seed.clone(),
        &[Mutation::Insert {
            at: 716624015382273830,
            what: "\u{feff}",
        }],
    );
    load_bytes(found.as_bytes());
    for at in (0..=seed.len())
        .filter(|&i| seed.is_char_boundary(i))
        .step_by(7)
    {
        let mut s = seed.clone();
        s.insert(at, '\u{feff}');
        load_bytes(s.as_bytes());
    }
}
