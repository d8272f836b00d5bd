fn main() -> std::process::ExitCode {
    kcontract::cli::run()
}

/// A large build allocates and frees ~100 MB of strings from two threads; with mimalloc it spends
/// markedly less time in the allocator than with glibc's (bench/alloc.sh, BENCHMARKS.md). Built with
/// `no_thp`: with transparent huge pages even `check` of the small contract held 22 MB instead of 9.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
