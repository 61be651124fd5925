//! The array on disk: which segment is resident, brought in, and the
//! level's passes over the segments forward and back.

use super::*;

impl<M: Model<Key = u64>> Dense<'_, M> {
    /// Makes segment `i` resident as the newest level has it: read from
    /// the file, with the keys the last backward pass counted applied.
    pub(super) fn bring(&mut self, i: usize) -> Result<(), SpillError> {
        let segments = self.segments.as_mut().expect("on disk");
        if segments.resident == Some(i) {
            return Ok(());
        }
        segments.resident = None;
        self.load_raw(i)?;
        let segments = self.segments.as_ref().expect("on disk");
        self.apply(&segments.settled[i], self.label, false)
    }

    /// Reads segment `i` into the resident bits, as the file has it.
    pub(super) fn load_raw(&mut self, i: usize) -> Result<(), SpillError> {
        let segments = self.segments.as_mut().expect("on disk");
        let bytes = segments.bytes(i);
        segments.load(i, self.bits.bytes_mut())?;
        self.window = bytes.start / 8..bytes.end / 8;
        Ok(())
    }

    /// The newest level's blocks (with their marked stretches) in segment
    /// `i`.
    pub(super) fn blocks_in(&self, i: usize) -> &[(u32, u64)] {
        let range = self.segments.as_ref().expect("on disk").blocks(i);
        let from = self
            .blocks
            .partition_point(|&(b, _)| (b as usize) < range.start);
        let to = self
            .blocks
            .partition_point(|&(b, _)| (b as usize) < range.end);
        &self.blocks[from..to]
    }

    /// The forward pass of a level with the array on disk: expands every
    /// segment in key order (see [`dense_disk`](crate::engine::stores::dense::segments)). Stops
    /// between segments when the stop flag is raised.
    pub(super) fn forward(&mut self, depth: u32, threads: usize) -> Result<(), SpillError> {
        let next = self.next_label();
        let stop = self.stop;
        let cut = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let n = self.segments.as_ref().expect("on disk").count();
        for i in 0..n {
            let segments = self.segments.as_ref().expect("on disk");
            if self.blocks_in(i).is_empty()
                && segments.ahead[i].is_empty()
                && segments.settled[i].is_empty()
            {
                continue;
            }
            if cut() {
                return Ok(());
            }
            self.bring(i)?;
            let segments = self.segments.as_ref().expect("on disk");
            self.apply(&segments.ahead[i], next, true)?;
            self.expand(self.blocks_in(i), threads, true, depth)?;
            // Changed: the expanded level's blocks and the settled ones'.
            let range = self.segments.as_ref().expect("on disk").blocks(i);
            let mut dirty: Vec<usize> =
                self.blocks_in(i).iter().map(|&(b, _)| b as usize).collect();
            for w in &self.workers {
                let marks = &lock(w).tally.marks;
                dirty.extend(range.clone().filter(|&b| marks[b] != 0));
            }
            dirty.sort_unstable();
            dirty.dedup();
            let segments = self.segments.as_mut().expect("on disk");
            let bytes = segments.bytes(i).len();
            segments.store(i, &self.bits.bytes()[..bytes], &dirty)?;
            for (s, file) in segments.take_made() {
                if s > i {
                    segments.ahead[s].push(file);
                } else {
                    segments.behind[s].push(file);
                }
            }
            let used = std::mem::take(&mut segments.ahead[i]);
            segments.remove(used);
            let used = std::mem::take(&mut segments.settled[i]);
            segments.remove(used);
        }
        Ok(())
    }

    /// The backward pass of a level with the array on disk: counts what
    /// later segments (and other processes) sent earlier ones, writing
    /// nothing. Stops between segments when the stop flag is raised.
    pub(super) fn backward(&mut self) -> Result<(), SpillError> {
        let next = self.next_label();
        let stop = self.stop;
        let cut = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let n = self.segments.as_ref().expect("on disk").count();
        for i in (0..n).rev() {
            if self.segments.as_ref().expect("on disk").behind[i].is_empty() {
                continue;
            }
            if cut() {
                return Ok(());
            }
            self.segments.as_mut().expect("on disk").resident = None;
            self.load_raw(i)?;
            let segments = self.segments.as_ref().expect("on disk");
            self.apply(&segments.behind[i], next, true)?;
            // Resident as the next level will have it, once these files
            // are its settled ones.
            self.segments.as_mut().expect("on disk").resident = Some(i);
        }
        Ok(())
    }
}
