//! What the process uses and what the machine has left, read from `/proc`.
//! On systems without `/proc` every reading is `None` and the engine plans
//! without it.

use std::fs;

fn status_kib(field: &str) -> Option<u64> {
    let text = fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&text, field)
}

fn kib_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let value = line[field.len()..].trim().trim_end_matches("kB").trim();
    value.parse::<u64>().ok().map(|kib| kib * 1024)
}

/// The peak resident set size of this process so far, in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    status_kib("VmHWM:")
}

/// The resident set size of this process now, in bytes.
pub fn current_rss_bytes() -> Option<u64> {
    status_kib("VmRSS:")
}

/// Memory the kernel says can still be given out without swapping, in bytes.
pub fn available_bytes() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:")
}

/// The process's virtual size (what `ulimit -v` limits), in bytes.
pub fn virtual_bytes() -> Option<u64> {
    status_kib("VmSize:")
}

/// A soft limit from `/proc/self/limits` ("Max address space", "Max data
/// size"), in bytes; `None` when unlimited or unreadable.
fn rlimit(name: &str) -> Option<u64> {
    let text = fs::read_to_string("/proc/self/limits").ok()?;
    limit_field(&text, name)
}

fn limit_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// A cgroup's limit and usage: v2 (`memory.max`, `memory.current`), else
/// v1 (`memory.limit_in_bytes`, `memory.usage_in_bytes`), at the process's
/// own cgroup path or, in a container that mounts its cgroup as the root,
/// at the root. Limits near 2^63 mean none.
fn cgroup_room() -> Option<u64> {
    let groups = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let read = |path: String| -> Option<u64> { fs::read_to_string(path).ok()?.trim().parse().ok() };
    let mut candidates = Vec::new();
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_end_matches('/');
        if controllers.is_empty() {
            for dir in [format!("/sys/fs/cgroup{path}"), "/sys/fs/cgroup".into()] {
                candidates.push((format!("{dir}/memory.max"), format!("{dir}/memory.current")));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            for dir in [
                format!("/sys/fs/cgroup/memory{path}"),
                "/sys/fs/cgroup/memory".into(),
            ] {
                candidates.push((
                    format!("{dir}/memory.limit_in_bytes"),
                    format!("{dir}/memory.usage_in_bytes"),
                ));
            }
        }
    }
    candidates.into_iter().find_map(|(limit, usage)| {
        let limit = read(limit)?;
        if limit >= 1 << 62 {
            return None;
        }
        Some(limit.saturating_sub(read(usage).unwrap_or(0)))
    })
}

/// What bounds this process's memory now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The machine's available memory (MemAvailable).
    Machine,
    /// The container's cgroup memory limit.
    Cgroup,
    /// `ulimit -v` (RLIMIT_AS): the virtual address space.
    AddressSpace,
    /// `ulimit -d` (RLIMIT_DATA): the data segment.
    Data,
}

impl Bound {
    /// The bound as a number, for processes to exchange.
    pub(crate) fn code(self) -> u64 {
        match self {
            Bound::Machine => 0,
            Bound::Cgroup => 1,
            Bound::AddressSpace => 2,
            Bound::Data => 3,
        }
    }

    /// The bound a [`Bound::code`] stands for.
    pub(crate) fn from_code(code: u64) -> Bound {
        match code {
            1 => Bound::Cgroup,
            2 => Bound::AddressSpace,
            3 => Bound::Data,
            _ => Bound::Machine,
        }
    }

    /// How the bound is named in messages.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Machine => "this machine has available",
            Bound::Cgroup => "the cgroup (container) memory limit leaves",
            Bound::AddressSpace => "`ulimit -v` (address space) leaves",
            Bound::Data => "`ulimit -d` (data size) leaves",
        }
    }
}

/// The memory this process may still take before something refuses it:
/// the smallest of the machine's available memory, the cgroup's limit less
/// its usage, and the address-space and data limits less the process's
/// virtual size; with the bound that gave it.
pub fn headroom() -> Option<(u64, Bound)> {
    let vm = virtual_bytes().unwrap_or(0);
    [
        available_bytes().map(|b| (b, Bound::Machine)),
        cgroup_room().map(|b| (b, Bound::Cgroup)),
        rlimit("Max address space").map(|l| (l.saturating_sub(vm), Bound::AddressSpace)),
        rlimit("Max data size").map(|l| (l.saturating_sub(vm), Bound::Data)),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|&(b, _)| b)
}

/// Memory a search with its levels (or its dense array) on disk takes
/// besides its budget, at `threads` workers: the process's own (the level
/// files' index, the writers' buffers, the thread pool) and each worker's
/// (a decoded block of the level it expands, its successors, a writer's
/// block when it flushes). Measured, not derived: eleven on disk at one and
/// two threads under `--memory-limit` 10M to 32M peaked within these
/// (2.5 MiB and 1.25 MiB a worker) of what the budget accounts for.
pub(crate) fn disk_overhead(threads: usize) -> u64 {
    (5 << 19) + threads as u64 * (5 << 18)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kib_fields() {
        let text = "Name:\treach\nVmHWM:\t  123 kB\nVmRSS:\t 45 kB\n";
        assert_eq!(kib_field(text, "VmHWM:"), Some(123 * 1024));
        assert_eq!(kib_field(text, "VmRSS:"), Some(45 * 1024));
        assert_eq!(kib_field(text, "VmSwap:"), None);
    }

    #[test]
    fn parses_limits() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max data size             unlimited            unlimited            bytes\n\
                    Max address space         819200000            unlimited            bytes\n";
        assert_eq!(limit_field(text, "Max address space"), Some(819_200_000));
        assert_eq!(limit_field(text, "Max data size"), None);
    }

    #[test]
    fn headroom_is_read_here() {
        // Linux always has MemAvailable, so there is a headroom, and no
        // bound is above the memory the machine has. (Not compared with a
        // second read of MemAvailable: the tests beside this one allocate
        // and free, and it moves between two reads.)
        let (room, _) = headroom().expect("MemAvailable is read");
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| kib_field(&text, "MemTotal:"))
            .expect("MemTotal is read");
        assert!(room > 0 && room <= total, "{room} of {total}");
    }
}
