//! The `kcontract` binary: the command line on top of the library crates (docs/architecture.md).
//!
//! Every command is a file in `commands/` with its clap arguments and its `run`; `pipeline.rs` holds
//! the stages commands are made of, `terminal.rs` is the one place that prints diagnostics and maps
//! outcomes to exit codes, and `embedded.rs` and `explain.rs` hold what the binary carries (the
//! contract and the error catalogue). The library crates never print and never exit.

// A `Diagnostic` (~180 bytes) is the error type of a few cold paths (a build that cannot be written, a
// template that does not parse); boxing it would only add noise at every call site.
#![allow(clippy::result_large_err)]

mod cli;
mod commands;
mod embedded;
mod explain;
mod pipeline;
mod serve;
mod terminal;

fn main() -> std::process::ExitCode {
    cli::run()
}

/// A large build allocates and frees ~100 MB of strings from two threads; with mimalloc it spends
/// markedly less time in the allocator than with glibc's (bench/alloc.sh, BENCHMARKS.md). Built with
/// `no_thp` (feature `no-thp`): transparent huge pages removed almost all page faults of a large build
/// but did not make it reliably faster on the VMs here, and cost memory (docs/benchmarks-history.md, "The allocator").
/// mimalloc's v2 line (Cargo.toml): it hands freed memory back after 10 ms, v3 after a second, which
/// for a build of under a second meant ~25 MB more peak memory at ×100 (docs/benchmarks-history.md, "Session 9").
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
