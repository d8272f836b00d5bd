//! Fuzz the whole spec path: bytes → chapter files → load → check → (if valid) render the site in
//! memory and the clause list; `fmt` of the chapter (idempotent on a valid spec). Any panic, or a
//! hang caught by libFuzzer's -timeout, is a bug.
//!
//! The input is split at the first `\0\0`: before it is `en/one.md`, after it `zh/one.md` (without
//! the separator, zh is a fixed valid translation), so translations are fuzzed too.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

struct Fixture {
    dir: PathBuf,
    templates: kcontract_site::Templates,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kcontract-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("en")).unwrap();
        std::fs::create_dir_all(dir.join("zh")).unwrap();
        std::fs::write(
            dir.join("contract.yaml"),
            "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one]\nupstream: {title: t, url: u, license: l, attribution: a}\n",
        )
        .unwrap();
        Fixture {
            dir,
            templates: kcontract_site::templates(None).unwrap(),
        }
    })
}

const ZH: &[u8] = b"# \xe4\xb8\x80\n\n```clause\nid: one.a\ntext: x MUST y\nsource: pending\n```\n";

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let (en, zh) = match data.windows(2).position(|w| w == b"\0\0") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, ZH),
    };
    std::fs::write(f.dir.join("en/one.md"), en).unwrap();
    std::fs::write(f.dir.join("zh/one.md"), zh).unwrap();
    let loaded = kcontract_spec::load(&f.dir);
    let _ = kcontract_spec::diagnostic::render_all(
        &loaded.diagnostics,
        &loaded.sources,
        &annotate_snippets::Renderer::plain(),
    );
    if !loaded.has_errors() {
        let _ = kcontract_spec::list::json(&loaded.spec);
        let m = kcontract_trace::matrix::compute(&loaded.spec, &[], None);
        // No earlier versions: an empty history (its type is not public; the default names it).
        let files = kcontract_site::render(&m, None, &Default::default(), &f.templates)
            .expect("valid spec renders");
        assert!(!files.is_empty());
    }
    // `fmt` on the same text: never a panic; and on text it formats, a second pass changes nothing.
    if let Ok(text) = std::str::from_utf8(en) {
        let once = kcontract_edit::fmt::format_chapter(text);
        if !loaded.has_errors() {
            assert_eq!(kcontract_edit::fmt::format_chapter(&once), once, "fmt is not idempotent");
        }
    }
});
