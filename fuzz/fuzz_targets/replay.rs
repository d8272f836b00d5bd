//! Fuzz the trace reader and the model: any bytes → `model::replay` at both versions. A malformed
//! trace must be an error value, never a panic.
#![no_main]

use kcontract_oci::model::{OciVersion, replay, to_json_lines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        for v in [None, Some(OciVersion::V1_0_1), Some(OciVersion::V1_3_0)] {
            if let Ok(steps) = replay(s, v) {
                let _ = to_json_lines(&steps);
            }
        }
    }
});
