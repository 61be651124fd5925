//! Successors outside this process's bits or the resident segment: which
//! process owns a block, and the keys sent or written away settled by
//! their owner.

use super::*;

/// The blocks process `me` of `processes` owns of `blocks`: equal ranges
/// in process order.
pub(super) fn owned_blocks(blocks: usize, processes: usize, me: usize) -> std::ops::Range<usize> {
    me * blocks / processes..(me + 1) * blocks / processes
}

/// The process of `processes` that owns block `b` of `blocks`: the
/// largest q with q * blocks / processes <= b, that is with
/// q * blocks < (b + 1) * processes.
pub(super) fn owner_of(b: usize, blocks: usize, processes: usize) -> usize {
    (((b + 1) * processes - 1) / blocks.max(1)).min(processes - 1)
}

/// The blocks of `model`'s two-bit array.
pub(super) fn block_count<M: Model<Key = u64>>(model: &M) -> usize {
    (model.key_space().div_ceil(KEYS_PER_WORD) as usize).div_ceil(BLOCK_WORDS)
}

/// `keys`, all in `range`, sorted and each once. Where they outnumber the
/// range's 64ths, a bitmap of the range does it: smaller than the keys it
/// replaces, and a pass over them instead of a sort. That is the wide
/// level of a puzzle whose successors scatter over every process's keys
/// (a twisty puzzle's: the 2x2x2 on two processes sends each about 4.5
/// keys a state, a 400-million-key sort at its widest level).
fn sorted_once(keys: &mut Vec<u64>, range: std::ops::Range<u64>) {
    let span = range.end - range.start;
    if (keys.len() as u64).saturating_mul(64) < span {
        keys.par_sort_unstable();
        keys.dedup();
        return;
    }
    let words: Vec<AtomicU64> = (0..span.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    // Relaxed: each bit is only ever set, and the loads below run after
    // the parallel loop's end, which rayon joins (a happens-before edge
    // from every worker's stores).
    keys.par_chunks(1 << 16).for_each(|chunk| {
        for &key in chunk {
            let i = key - range.start;
            words[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    });
    keys.clear();
    for (w, word) in words.iter().enumerate() {
        let mut bits = word.load(Ordering::Relaxed);
        while bits != 0 {
            keys.push(range.start + w as u64 * 64 + u64::from(bits.trailing_zeros()));
            bits &= bits - 1;
        }
    }
}

/// A key that process `from` sent this one, which does not own it.
fn foreign(key: u64, from: usize) -> Fault {
    Fault::Peer(crate::engine::PeerError::Lost {
        process: from,
        what: format!("it sent key {key}, which is not this process's"),
    })
}

impl<M: Model<Key = u64>> Dense<'_, M> {
    /// Gives the slot of every key of `files` (all resident) the label
    /// `label` where it is still `00`; when `count`, tallies and marks
    /// those it gave it to as states of the level being settled.
    pub(super) fn apply(
        &self,
        files: &[RunFile],
        label: u64,
        count: bool,
    ) -> Result<(), SpillError> {
        self.each_block(files, |file, keys| {
            let tally = &mut lock(my_slot(&self.workers)).tally;
            self.settle_keys(keys, label, count, tally)
                .map_err(|key| SpillError::Damaged {
                    path: file.path().to_path_buf(),
                    what: format!("key {key} is outside its segment"),
                })
        })
    }

    /// As [`Dense::apply`], for keys in memory (another process's
    /// successors in this one's keys, all resident).
    pub(super) fn apply_keys(&self, keys: &[u64], label: u64, from: usize) -> Result<(), Fault> {
        let one = |chunk: &[u64]| {
            let tally = &mut lock(my_slot(&self.workers)).tally;
            self.settle_keys(chunk, label, true, tally)
        };
        let settled = if self.workers.len() <= 1 {
            one(keys)
        } else {
            keys.par_chunks(1 << 16).try_for_each(one)
        };
        settled.map_err(|key| foreign(key, from))
    }

    /// Gives each of `keys` the label `label` where its slot is `00`,
    /// tallying (when `count`) those it gave it to in `tally`; a key that
    /// is not resident is returned.
    pub(super) fn settle_keys(
        &self,
        keys: &[u64],
        label: u64,
        count: bool,
        tally: &mut Tally,
    ) -> Result<(), u64> {
        let words = self.words();
        let base = self.window.start;
        for &key in keys {
            let (w, shift) = slot(key);
            let Some(word) = words.get(w.wrapping_sub(base)) else {
                return Err(key);
            };
            if (word.load(Ordering::Relaxed) >> shift) & 3 != 0 {
                continue;
            }
            // As in `expand`: the fetch_or that finds the code's low bit
            // clear is the one that gave it, whoever else reaches the key
            // at once.
            let bit = self.code(label) << shift;
            if word.fetch_or(bit, Ordering::Relaxed) & bit == 0 && count {
                tally.settled(w, key);
            }
        }
        Ok(())
    }

    /// Sends every worker's successors in other processes' keys to their
    /// owners (each process's keys once), and settles what the others sent
    /// this one: in memory at once, or (on disk) as candidate files for
    /// the backward pass. Every process calls it once a level, even when
    /// a signal cut its level short.
    pub(super) fn send_away(&mut self, depth: u32, exchange: &Exchange<'_>) -> Result<(), Fault> {
        let mut outgoing: Vec<Vec<u64>> = vec![Vec::new(); self.share.processes];
        for w in &self.workers {
            for (to, keys) in outgoing.iter_mut().zip(&mut lock(w).tally.outbound) {
                to.append(keys);
            }
        }
        for (q, keys) in outgoing.iter_mut().enumerate() {
            let blocks = owned_blocks(self.block_count, self.share.processes, q);
            let keys_of = |b: usize| (b * BLOCK_WORDS) as u64 * KEYS_PER_WORD;
            sorted_once(keys, keys_of(blocks.start)..keys_of(blocks.end));
        }
        let received = exchange.once(outgoing)?;
        let next = self.next_label();
        match &mut self.segments {
            Some(segments) => {
                for (from, mut keys) in received.into_iter().enumerate() {
                    if let Some(&key) = keys.iter().find(|&&k| !self.owned.contains(&block_of(k))) {
                        return Err(foreign(key, from));
                    }
                    segments.flush(&mut keys, depth, block_of)?;
                }
                for (s, file) in segments.take_made() {
                    segments.behind[s].push(file);
                }
            }
            None => {
                for (from, keys) in received.iter().enumerate() {
                    self.apply_keys(keys, next, from)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sent_away_are_sorted_once_by_a_sort_or_a_bitmap() {
        let range = 1000..1000 + 64 * 50 + 7;
        let span = range.end - range.start;
        // Few keys take the sort, many the bitmap; the range's first and
        // last keys are among them.
        for n in [10, 100_000] {
            let mut x = 12345u64;
            let mut keys = vec![range.end - 1, range.start, range.end - 1];
            for _ in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                keys.push(range.start + (x >> 33) % span);
            }
            let mut want = keys.clone();
            want.sort_unstable();
            want.dedup();
            sorted_once(&mut keys, range.clone());
            assert_eq!(keys, want, "{n} keys");
        }
    }
}
