//! How a search on disk spends its memory: the plan made from `--memory-limit`
//! (or the memory available) when it starts.

use super::*;

/// What a merge holds for each candidate file it reads, a key's word at
/// a time: a decoded block (`BLOCK_KEYS / 4` keys) and at most as many
/// coded bytes.
const SOURCE_BYTES: u64 = (codec::BLOCK_KEYS / 4 * 8 * 2) as u64;

/// Memory a new state of the next level costs while the workers' buffers
/// fill, a key's word at a time: its candidates (about two), eight bytes
/// each, doubled by the buffers' growth, rounded up.
pub(super) const CANDIDATE_BYTES: u64 = 64;

/// The candidates' budget of levels held in memory as coded runs (or half
/// of what a memory limit leaves, if less): their coded runs take a third
/// of their keys' words, so a small budget saves the most memory. The 3x3x3 to depth 7 at two
/// threads (two runs each): 1.6 GiB and 11.6-12.0 s with this; 1.7 GiB
/// and 11.5 s with 512 MiB; 2.8-2.9 GiB and 9.9 s with a quarter of the
/// memory available (about 5 GiB there); 1.5 GiB and 12.1-12.5 s with 64
/// or 128 MiB.
const IN_MEMORY_BUDGET: u64 = 256 << 20;

/// The fewest candidate files merged at once, however small the budget:
/// below it the passes over the candidates multiply for little memory.
const MIN_FAN_IN: usize = 8;

/// How a search on disk spends its memory, decided when it starts.
pub(super) struct Plan {
    /// A worker writes its candidates to disk when it holds this many.
    pub(super) flush_at: usize,
    /// The most candidate files a merge reads at once.
    pub(super) fan_in: usize,
    /// Runs under this many bytes stay in memory.
    pub(super) memory_runs: usize,
    /// The process's memory at its most: what it held when the search
    /// started (with its bitmap), and all the plan may add.
    pub(super) ceiling: u64,
}

impl Plan {
    /// The plan for keys of `words` words.
    pub(super) fn new(
        spill: &Spill,
        memory_limit: Option<u64>,
        held: u64,
        (threads, partitions, words): (usize, usize, usize),
        cluster: bool,
    ) -> Plan {
        // Of a memory limit, what the process does not hold already, less
        // the fixed part; half of that is the budget.
        let overhead = crate::engine::levels::memory::disk_overhead(threads);
        let by_limit = memory_limit.map(|limit| limit.saturating_sub(held + overhead) / 2);
        let budget = spill
            .candidate_budget
            .or_else(|| match spill.in_memory {
                true => Some(by_limit.map_or(IN_MEMORY_BUDGET, |b| b.min(IN_MEMORY_BUDGET))),
                false => by_limit,
            })
            .or_else(|| crate::engine::memory::headroom().map(|(room, _)| room / 4))
            .unwrap_or(1 << 29);
        // Across processes a fifth of it is the exchange's (a round's keys
        // out and in, the transport's copies, the column received).
        let budget = if cluster { budget / 5 * 4 } else { budget };
        // The budget is the workers' buffers: their keys, and room for
        // the buffers' growth by doubling.
        let key_bytes = 8 * words as u64;
        let flush_at = ((budget / key_bytes / 2) as usize / threads).max(1 << 16);
        // The merges of a settle take half as much again: one a group of
        // partitions at once, holding a decoded block and its coded bytes
        // for each source.
        let groups = threads.next_power_of_two().min(partitions) as u64;
        let fan_in = ((budget / 2 / groups / SOURCE_BYTES / words as u64) as usize).max(MIN_FAN_IN);
        // Runs kept in memory (levels under the disk's threshold) take at
        // most an eighth of it: those a search holds at once are each
        // group's file of the kept levels and of the one being settled
        // (all levels to rebuild a path, whose thin ones, growing, sum to
        // a few of the widest).
        let memory_runs = (budget / 8 / groups / 4) as usize;
        // What all that comes to at its most, with the buffers as large as
        // a worker's smallest flush makes them.
        let buffers = (flush_at * threads * 2) as u64 * key_bytes;
        Plan {
            flush_at,
            fan_in,
            memory_runs,
            ceiling: held + overhead + buffers + budget / 2 + budget / 8,
        }
    }
}
