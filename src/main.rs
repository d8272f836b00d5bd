//! The `kcontract` binary: the command line of the library (`kcontract::run`).

fn main() -> std::process::ExitCode {
    kcontract::run()
}

/// A large build allocates and frees ~100 MB of strings from two threads; with mimalloc it spends
/// markedly less time in the allocator than with glibc's (bench/alloc.sh, BENCHMARKS.md). Built with
/// `no_thp` (feature `no-thp`): transparent huge pages removed almost all page faults of a large build
/// but did not make it reliably faster on the VMs here, and cost memory (BENCHMARKS.md, "The allocator").
/// mimalloc's v2 line (Cargo.toml): it hands freed memory back after 10 ms, v3 after a second, which
/// for a build of under a second meant ~25 MB more peak memory at ×100 (BENCHMARKS.md, "Session 9").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
