//! TODO(#38): the platform profile and Knative Service readers, fuzzed once `src/platform/` (branch
//! `probe`) is merged. To enable: move this file to `fuzz/fuzz_targets/`, uncomment its `[[bin]]` in
//! `fuzz/Cargo.toml`, add `platform_readers` to the targets of `fuzz/run.sh` with seeds from
//! `platforms/*.yaml`. Written against the probe branch's API at 0083961
//! (`platform::profile::parse(FileId, &SourceMap) -> Result<Profile, Vec<Diagnostic>>`, the same for
//! `platform::service::parse`); adjust the paths if the lead's merge names them otherwise.
#![no_main]

use annotate_snippets::Renderer;
use kcontract::diagnostic::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::default();
    let fid = sources.add("platform.yaml".into(), text.to_string());
    if let Err(diags) = kcontract::platform::profile::parse(fid, &sources) {
        for d in diags {
            let _ = d.render_with(&sources, &Renderer::plain());
        }
    }
    if let Err(diags) = kcontract::platform::service::parse(fid, &sources) {
        for d in diags {
            let _ = d.render_with(&sources, &Renderer::plain());
        }
    }
});
