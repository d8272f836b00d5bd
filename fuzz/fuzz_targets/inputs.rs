//! Fuzz the readers of issue #50's boundaries, each with any bytes:
//! - the careful reader (`fsutil::read_given`, `read_text_given`): the bytes written to a file in
//!   a folder read back whole, a link beside it followed, a link out of the folder refused;
//! - the URL judge (`url::judge`, `url::inert`): a kept URL has no whitespace or control character
//!   and no scheme but http(s), `inert` of it is itself, of a refused one `#`;
//! - the run-report reader (`report::load`, `report::read`, `report::unknown_ids`): a diagnostic,
//!   never a panic; every id's span lies in the text and the unknown ids shown are at most
//!   `UNKNOWN_SHOWN`;
//! - the vendor-log reader (`import_log::read`).
//! Never a panic, a hang (libFuzzer's -timeout) or a read of anything but the file given.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use annotate_snippets::Renderer;
use kcontract_spec::diagnostic::SourceMap;
use kcontract_spec::fsutil;
use kcontract_spec::url::{self, UrlKind};
use libfuzzer_sys::fuzz_target;

struct Fixture {
    dir: PathBuf,
    file: PathBuf,
    beside: PathBuf,
    out: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("kcontract-fuzz-inputs-{}", std::process::id()));
        let dir = root.join("in");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(root.join("secret"), "token").unwrap();
        let (file, beside, out) = (dir.join("r.json"), dir.join("beside.json"), dir.join("out.json"));
        std::os::unix::fs::symlink("r.json", &beside).unwrap();
        std::os::unix::fs::symlink("../secret", &out).unwrap();
        Fixture { dir, file, beside, out }
    })
}

fn check_url(s: &str) {
    match url::judge(s) {
        Ok(kind) => {
            assert!(!s.chars().any(|c| c.is_whitespace() || c.is_control()), "{s:?}");
            if let Some(scheme) = url::scheme_of(s) {
                let scheme = scheme.to_ascii_lowercase();
                assert!(scheme == "http" || scheme == "https", "{s:?}");
                assert_eq!(kind, UrlKind::Web, "{s:?}");
            }
            assert_eq!(url::inert(s), s);
        }
        Err(_) => assert_eq!(url::inert(s), "#"),
    }
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    #[allow(clippy::disallowed_methods)] // the fuzzer's own fixture file
    std::fs::write(&f.file, data).unwrap();
    assert_eq!(fsutil::read_given(&f.file, fsutil::MAX_INPUT).unwrap(), data);
    assert_eq!(fsutil::read_given(&f.beside, fsutil::MAX_INPUT).unwrap(), data);
    let e = fsutil::read_given(&f.out, fsutil::MAX_INPUT).unwrap_err();
    assert!(fsutil::is_refusal(&e), "{e}");
    assert_eq!(fsutil::given_folder(&f.file), f.dir.as_path());
    let text = fsutil::read_text_given(&f.file);
    assert_eq!(text.is_ok(), std::str::from_utf8(data).is_ok());

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    check_url(text);
    for line in text.lines().take(64) {
        check_url(line);
        check_url(line.trim());
    }

    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    if let Some(located) = kcontract_platform::report::load(&f.file, &mut sources, &mut diags) {
        let file = sources.get(located.file);
        for span in &located.id_spans {
            assert!(span.end <= file.text.len() && span.start <= span.end);
        }
        let unknown =
            kcontract_platform::report::unknown_ids(&located.report, &located.id_spans, |_| false);
        assert!(unknown.shown.len() <= kcontract_platform::report::UNKNOWN_SHOWN);
        for d in &located.report.documentation {
            if let Some(u) = &d.url {
                assert_eq!(url::judge(u), Ok(UrlKind::Web), "a report kept {u:?}");
            }
        }
    }
    for d in diags {
        let _ = d.render_with(&sources, &Renderer::plain());
    }
    let _ = kcontract_platform::report::read(&f.file).map_err(|d| d.render(&sources));
    let _ = kcontract_platform::import_log::read(text);
});
