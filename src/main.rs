fn main() -> std::process::ExitCode {
    kcontract::cli::run()
}

/// A large build allocates and frees ~100 MB of strings from two threads; with mimalloc it spends
/// markedly less time in the allocator than with glibc's (bench/alloc.sh, BENCHMARKS.md). Built with
/// `no_thp`: with transparent huge pages, small runs held twice the memory, and on the VMs here a large
/// build run after other programs was markedly slower (BENCHMARKS.md, "Huge pages").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
