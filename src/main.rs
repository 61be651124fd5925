//! The `reach` command line: parses arguments and hands them to the library.

// mimalloc: the engine's per-level buffers are large and short-lived, and
// rayon's workers allocate and free them from many threads; mimalloc's
// per-thread heaps serve that pattern without the glibc arena contention we
// would otherwise measure. The library itself never picks an allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

/// mimalloc's `purge_delay` option (v3's numbering, from its `mimalloc.h`).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Memory a level frees goes back to the kernel at once (mimalloc's
    // default waits a second), and arenas are committed as they are used
    // (.cargo/config.toml): peak RSS is then what the search holds, which
    // `--memory-limit` bounds. `count eleven --max-depth 40` at two
    // threads, two runs each (environment variables, the same settings):
    // 942-982 MiB peak with the defaults, 712-716 MiB with these, in the
    // same time (11.7-13.2 s against 12.3-13.2 s).
    // SAFETY: mi_option_set only stores an option's value, which mimalloc
    // reads when it next purges; the option exists in the mimalloc this
    // crate builds (v3).
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
    cli::main()
}
