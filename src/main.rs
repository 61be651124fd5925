//! The `reach` command line: parses arguments and hands them to the library.

// mimalloc: the engine's per-level buffers are large and short-lived, and
// rayon's workers allocate and free them from many threads; mimalloc's
// per-thread heaps serve that pattern without the glibc arena contention we
// would otherwise measure. The library itself never picks an allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
