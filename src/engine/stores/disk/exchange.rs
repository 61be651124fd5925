//! Candidates for other processes' partitions sent to their owners in rounds
//! ([`Exchange::rounds`]), and those they send taken in.

use super::*;

impl<M: Model> OnDisk<'_, M> {
    /// Sends the candidates for other processes' partitions (in the
    /// workers' buffers, transposed into `incoming`, and in the candidate
    /// files) to their owners, and takes those they sent (that the bitmap,
    /// if any, has not seen) into the last column of this process's
    /// partitions. The exchange runs in rounds of a bounded number of keys,
    /// and the column goes to a candidate file of its own (added to
    /// `candidates`) whenever it holds a worker's worth: a wide level's
    /// keys for others never sit in memory whole, here or at their owner.
    pub(super) fn send_away(
        &self,
        exchange: &Exchange<'_>,
        incoming: &mut [Vec<Vec<M::Key>>],
        candidates: &mut Vec<RunFile<M::Key>>,
        depth: u32,
    ) -> Result<(), Fault> {
        let n = self.share.processes;
        let mut queue = vec![VecDeque::new(); n];
        for (p, &remote) in self.remote.iter().enumerate() {
            if remote {
                for (c, file) in candidates.iter().enumerate() {
                    if file.keys_in(p) > 0 {
                        queue[self.share.owner(p)].push_back((c, p));
                    }
                }
            }
        }
        let mut post = Post {
            store: self,
            depth,
            incoming,
            files: candidates,
            next_part: vec![0; n],
            queue,
            reading: (0..n).map(|_| None).collect(),
            held: 0,
            hold: (self.plan.flush_at / 8).max(1 << 12),
            received: Vec::new(),
        };
        // A round's keys out and in, the transport's copies of them and
        // the column held come to about half a worker's buffer: the
        // workers' buffers keep their memory through the exchange, and
        // all of it fits the fifth of the budget kept for it. `count
        // eleven --spill D --memory-limit 200M` on 2 ranks x 1 worker,
        // peak RSS a rank: 421 MiB with one exchange a level, 231-235 MiB
        // in rounds of half a buffer, 197-203 MiB in rounds of an eighth,
        // 187-188 MiB with the fifth kept (alone: 118 MiB; an idle MPI
        // rank: 22 MiB).
        let round = (self.plan.flush_at / 8 / (n - 1).max(1)).max(1 << 12);
        let sent = exchange
            .rounds(round, &mut post)
            .and_then(|()| post.write_held().map_err(Fault::from));
        let received = std::mem::take(&mut post.received);
        candidates.extend(received);
        sent
    }
}

/// The disk store's side of an exchange (see [`OnDisk::send_away`]).
struct Post<'s, 'a, M: Model> {
    store: &'s OnDisk<'a, M>,
    depth: u32,
    /// incoming[p][w]: the workers' candidates by partition; the last
    /// column of this process's partitions takes what others send.
    incoming: &'s mut [Vec<Vec<M::Key>>],
    /// The candidate files of the level so far.
    files: &'s [RunFile<M::Key>],
    /// Per process: the next of its partitions whose buffered runs to send.
    next_part: Vec<usize>,
    /// Per process: the (candidate file, partition) shares still to read.
    queue: Vec<VecDeque<(usize, usize)>>,
    /// Per process: the share being read.
    reading: Vec<Option<PartReader<'s, M::Key>>>,
    /// Keys in the last column.
    held: usize,
    /// The most keys the last column holds before it is written.
    hold: usize,
    /// The files the last column was written to.
    received: Vec<RunFile<M::Key>>,
}

impl<M: Model> Post<'_, '_, M> {
    /// Writes the last column, if it holds any keys, as a candidate file.
    fn write_held(&mut self) -> Result<(), SpillError> {
        if self.held == 0 {
            return Ok(());
        }
        let store = self.store;
        let columns = self
            .incoming
            .iter_mut()
            .enumerate()
            .filter(|(p, _)| !store.remote[*p])
            .filter_map(|(p, runs)| runs.last_mut().map(|last| (p, last)));
        let file = store.write_candidates(columns, self.depth)?;
        self.received.push(file);
        self.held = 0;
        Ok(())
    }
}

impl<M: Model> Mail<M::Key> for Post<'_, '_, M> {
    fn next_for(&mut self, to: usize, out: &mut Vec<M::Key>, max: usize) -> Result<bool, Fault> {
        let store = self.store;
        let partitions = store.router.partitions();
        // The buffered runs first, taken from their ends.
        while self.next_part[to] < partitions && out.len() < max {
            let p = self.next_part[to];
            if !store.remote[p] || store.share.owner(p) != to {
                self.next_part[to] += 1;
                continue;
            }
            let Some(run) = self.incoming[p].iter_mut().find(|r| !r.is_empty()) else {
                self.next_part[to] += 1;
                continue;
            };
            let take = run.len().min(max - out.len());
            out.extend(run.drain(run.len() - take..));
        }
        // Then the candidate files' shares, a reader at a time.
        while out.len() < max {
            if self.reading[to].is_none() {
                let Some((c, p)) = self.queue[to].pop_front() else {
                    break;
                };
                self.reading[to] = Some(PartReader::new(&self.files[c], p));
            }
            let reader = self.reading[to].as_mut().expect("a reader");
            match reader.next_key()? {
                Some(key) => out.push(key),
                None => self.reading[to] = None,
            }
        }
        Ok(self.next_part[to] < partitions
            || self.reading[to].is_some()
            || !self.queue[to].is_empty())
    }

    fn arrived(&mut self, keys: Vec<M::Key>) -> Result<(), Fault> {
        let store = self.store;
        for key in keys {
            let p = store.router.route(key);
            if store.visited.insert(key)
                && let Some(last) = self.incoming[p].last_mut()
            {
                last.push(key);
                self.held += 1;
            }
        }
        if self.held >= self.hold {
            self.write_held()?;
        }
        Ok(())
    }
}
