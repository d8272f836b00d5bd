//! Fuzz the platform profile and Knative Service readers (`platform run --profile/--service`):
//! any bytes → `platform::profile::parse` and `platform::service::parse`, each diagnostic rendered
//! against the text (a span outside it would panic there). Bad YAML must be a diagnostic, never a
//! panic or a hang.
#![no_main]

use annotate_snippets::Renderer;
use kcontract_spec::diagnostic::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::default();
    let fid = sources.add("platform.yaml".into(), text.to_string());
    if let Err(diags) = kcontract_platform::profile::parse(fid, &sources) {
        for d in diags {
            let _ = d.render_with(&sources, &Renderer::plain());
        }
    }
    if let Err(diags) = kcontract_platform::service::parse(fid, &sources) {
        for d in diags {
            let _ = d.render_with(&sources, &Renderer::plain());
        }
    }
});
