//! A level's blocks expanded into the workers' buffers (and candidate files),
//! a depth limit's probe for a new successor, a key's predecessor.

use super::*;

/// Successors looked up (a block read each) for a new one before a
/// depth limit settles the next level to know whether it cut the search
/// short.
const PROBES: usize = 64;

impl<M: Model> OnDisk<'_, M> {
    /// Whether one of the first [`PROBES`] successors of the newest
    /// level is new: in no level that a frontier search checks, or not
    /// in the visited set. False says nothing.
    pub(super) fn probe_new_successor(&self) -> Result<bool, SpillError> {
        let model = self.model;
        let mut state = model.new_state();
        let (mut successors, mut scratch, mut keys, mut block) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let checked = self.checked_levels();
        let mut probes = 0;
        for file in &self.newest().files {
            for b in 0..file.block_count() {
                block.clear();
                file.read_block(b, &mut scratch, &mut block)?;
                for &key in &block {
                    for &next in successors_of(model, &mut state, &mut successors, key) {
                        let seen = if self.frontier {
                            let p = self.router.route(next);
                            let mut seen = false;
                            for level in &checked {
                                let file = level.file_of(p);
                                if file.contains(p, next, &mut scratch, &mut keys)? {
                                    seen = true;
                                    break;
                                }
                            }
                            seen
                        } else {
                            self.visited.contains(next)
                        };
                        if !seen {
                            return Ok(true);
                        }
                        probes += 1;
                        if probes == PROBES {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Runs `f` on every block of `level` (in parallel unless `threads` is
    /// 1) with the running worker's buffers and the block's keys.
    pub(super) fn for_each_block(
        &self,
        level: &Level<M::Key>,
        threads: usize,
        failure: &Failure,
        f: impl Fn(&mut Worker<M::State, M::Key>, &[M::Key]) -> Result<(), SpillError> + Sync,
    ) {
        let tasks = level.blocks();
        let body = |&(file, block): &(usize, usize)| {
            if failure.failed() || self.stopped() {
                return;
            }
            let mut w = lock(my_slot(&self.workers));
            let mut keys = std::mem::take(&mut w.keys);
            keys.clear();
            let read = level.files[file].read_block(block, &mut w.scratch, &mut keys);
            let result = read.and_then(|()| f(&mut w, &keys));
            w.keys = keys;
            if let Err(e) = result {
                failure.set(e);
            }
        };
        tasks
            .par_iter()
            .with_min_len(min_len(threads))
            .for_each(body);
    }

    /// Expands `level` (at `depth`) into the workers' buffers, and into the
    /// candidate files returned where the buffers overflowed.
    pub(super) fn expand(
        &self,
        level: &Level<M::Key>,
        depth: u32,
        threads: usize,
    ) -> Result<Vec<RunFile<M::Key>>, SpillError> {
        let failure = Failure::default();
        let flushed = Mutex::new(Vec::new());
        let model = self.model;
        let route = Route {
            router: self.router,
            visited: &self.visited,
            remote: &self.remote,
        };
        self.for_each_block(level, threads, &failure, |w, keys| {
            let Worker {
                state,
                successors,
                out,
                buffered,
                ..
            } = w;
            *buffered += route.successors(model, state, successors, keys, out);
            if w.buffered >= self.plan.flush_at {
                let file = self.flush(w, depth + 1)?;
                flushed.lock().unwrap_or_else(|e| e.into_inner()).push(file);
            }
            Ok(())
        });
        let flushed = flushed.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = failure.take() {
            flushed.into_iter().for_each(|f| self.disk.remove(f));
            return Err(e);
        }
        Ok(flushed)
    }

    /// Writes a worker's buffers as one candidate file, each partition's
    /// keys sorted and distinct, and empties them.
    pub(super) fn flush(
        &self,
        w: &mut Worker<M::State, M::Key>,
        depth: u32,
    ) -> Result<RunFile<M::Key>, SpillError> {
        let file = self.write_candidates(w.out.iter_mut().enumerate(), depth)?;
        w.buffered = 0;
        Ok(file)
    }

    /// The smallest key of this process's share of `level` that has
    /// `key` as a successor.
    pub(super) fn predecessor_in(
        &self,
        level: &Level<M::Key>,
        key: M::Key,
    ) -> Result<Option<M::Key>, SpillError> {
        let model = self.model;
        let mut state = model.new_state();
        let (mut successors, mut scratch, mut keys) = (Vec::new(), Vec::new(), Vec::new());
        let mut found = None;
        if model.reversible() {
            let candidates = successors_of(model, &mut state, &mut successors, key).to_vec();
            for k in candidates {
                let p = self.router.route(k);
                if found.is_none_or(|f| k < f)
                    && !self.remote[p]
                    && level.file_of(p).contains(p, k, &mut scratch, &mut keys)?
                {
                    found = Some(k);
                }
            }
            return Ok(found);
        }
        let mut block = Vec::new();
        for file in &level.files {
            for b in 0..file.block_count() {
                block.clear();
                file.read_block(b, &mut scratch, &mut block)?;
                for &k in &block {
                    if found.is_none_or(|f| k < f)
                        && successors_of(model, &mut state, &mut successors, k).contains(&key)
                    {
                        found = Some(k);
                    }
                }
            }
        }
        Ok(found)
    }
}
