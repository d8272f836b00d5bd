//! Transparent huge pages: off for small runs, on for large specs.
//!
//! Why: on the VMs here a page fault is expensive, and a ×100 build touches ~110 MB in 4 KiB pages
//! (~25,000 faults). With huge pages allowed (mimalloc asks for them on its arenas) the same build
//! ran ~20% faster (BENCHMARKS.md, "Allocator and huge pages"), but small runs then hold memory in
//! 2 MiB steps: building the shipped contract peaked at 30 MB instead of 11. So the binary starts
//! with huge pages disabled for the process and allows them when the spec folder is large — before
//! loading it, because memory touched while huge pages are off keeps its small pages.

use std::path::Path;

/// Size of the spec folder's files from which huge pages are allowed. The shipped contract is
/// ~0.1 MB; ×10 of it ~1 MB (no measurable gain, 3× the memory); ×100 ~10 MB.
pub const HUGE_PAGES_FROM_BYTES: u64 = 4 << 20;

/// The bytes of the files in `dir` and in its direct subfolders (a spec's `contract.yaml`, its
/// language folders, `runtimes/`): a stat per file, a millisecond at ×100.
pub fn folder_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in entries.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_file() {
            total += meta.len();
        } else if meta.is_dir()
            && let Ok(inner) = std::fs::read_dir(e.path())
        {
            total += inner
                .flatten()
                .filter_map(|f| f.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum::<u64>();
        }
    }
    total
}

/// Allow or forbid transparent huge pages for the rest of this process's allocations (Linux
/// `prctl(PR_SET_THP_DISABLE)`; elsewhere nothing). Pages already in use stay as they are. A kernel
/// without the call leaves the setting unchanged, which is harmless.
#[cfg(target_os = "linux")]
pub fn allow_huge_pages(allow: bool) {
    use std::ffi::{c_int, c_ulong};
    const PR_SET_THP_DISABLE: c_int = 41;
    unsafe extern "C" {
        fn prctl(option: c_int, ...) -> c_int;
    }
    let disable = c_ulong::from(!allow);
    // SAFETY: PR_SET_THP_DISABLE takes one integer flag (the other arguments must be zero) and
    // only changes a flag of the calling process; it reads and writes no memory of ours.
    unsafe {
        prctl(
            PR_SET_THP_DISABLE,
            disable,
            0 as c_ulong,
            0 as c_ulong,
            0 as c_ulong,
        );
    }
}

#[cfg(not(target_os = "linux"))]
pub fn allow_huge_pages(_allow: bool) {}

/// The setting as the kernel reports it (`THP_disabled` in `/proc/self/status`), for tests.
#[cfg(target_os = "linux")]
pub fn huge_pages_disabled() -> Option<bool> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
    Some(line.split_whitespace().nth(1)? == "0")
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_process_flag_follows_the_setting() {
        // Runs in its own process only under nextest; under `cargo test` other tests share the
        // process, and none of them depends on this flag.
        let Some(before) = huge_pages_disabled() else {
            return; // a kernel without the status line
        };
        allow_huge_pages(false);
        assert_eq!(huge_pages_disabled(), Some(true));
        allow_huge_pages(true);
        assert_eq!(huge_pages_disabled(), Some(false));
        allow_huge_pages(!before);
    }
}
