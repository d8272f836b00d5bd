fn main() -> std::process::ExitCode {
    // Small runs keep 4 KiB pages; the CLI allows huge pages for a large spec.
    kcontract::memory::allow_huge_pages(false);
    kcontract::cli::run()
}

/// A large build allocates and frees ~100 MB of strings from two threads; with mimalloc it spends
/// markedly less time in the allocator than with glibc's (bench/alloc.sh, BENCHMARKS.md). Huge pages:
/// see `kcontract::memory`.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
