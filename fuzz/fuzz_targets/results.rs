//! Fuzz the test results reader (`--results FILE`): any bytes → the JUnit XML parser and the
//! libtest output parser (both, whatever the first character), and each diagnostic rendered
//! against the text (a span outside it would panic there). A malformed file must be a
//! diagnostic, never a panic; a slow input is caught by libFuzzer's -timeout (an element with
//! 100,000 attributes once took 39 s).
#![no_main]

use annotate_snippets::Renderer;
use kcontract_spec::diagnostic::{FileId, SourceMap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::default();
    let fid: FileId = sources.add("results.xml".into(), text.to_string());
    for parsed in [
        kcontract_trace::results::parse_junit(text, fid),
        kcontract_trace::results::parse_libtest(text, fid),
    ] {
        match parsed {
            Ok(results) => {
                for r in results {
                    assert!(r.message.as_ref().is_none_or(|m| m.len() <= 4100));
                }
            }
            Err(d) => {
                let _ = d.render_with(&sources, &Renderer::plain());
            }
        }
    }
});
