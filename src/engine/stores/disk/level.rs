//! What the disk store is made of: a level's files, a worker's buffers, the
//! first failure of a parallel step.

use super::*;

/// One worker's reusable buffers.
pub(super) struct Worker<S, K> {
    pub(super) state: S,
    pub(super) successors: Vec<K>,
    /// Candidates for the next level, one buffer per partition.
    pub(super) out: Vec<Vec<K>>,
    /// Keys in `out`.
    pub(super) buffered: usize,
    /// A decoded block of the level being expanded.
    pub(super) keys: Vec<K>,
    pub(super) scratch: Vec<u8>,
}

/// A worker of a search of `M`.
pub(super) type WorkerOf<M> = Worker<<M as Model>::State, <M as Model>::Key>;

/// Run files of a search of `M`.
pub(super) type Files<M> = Vec<RunFile<<M as Model>::Key>>;

/// One level on disk: its run files in partition order.
pub(super) struct Level<K> {
    pub(super) files: Vec<RunFile<K>>,
}

impl<K: Key> Level<K> {
    pub(super) fn file_of(&self, p: usize) -> &RunFile<K> {
        let i = self.files.partition_point(|f| f.covers().end as usize <= p);
        &self.files[i]
    }

    /// Every block, as (file, block) pairs: the units of a parallel pass.
    pub(super) fn blocks(&self) -> Vec<(usize, usize)> {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(f, file)| (0..file.block_count()).map(move |b| (f, b)))
            .collect()
    }

    pub(super) fn names(&self) -> Vec<String> {
        self.files.iter().map(RunFile::name).collect()
    }

    /// Hands `f` the keys of every block in order, one block in memory at
    /// a time.
    pub(super) fn each_block(&self, mut f: impl FnMut(&[K])) -> Result<(), SpillError> {
        let (mut scratch, mut keys) = (Vec::new(), Vec::new());
        for file in &self.files {
            for b in 0..file.block_count() {
                keys.clear();
                file.read_block(b, &mut scratch, &mut keys)?;
                f(&keys);
            }
        }
        Ok(())
    }
}

/// The first storage failure of a parallel step; once one is recorded the
/// other tasks skip their work. The flag is a hint read with `Relaxed`
/// (a task that misses it only does work that is thrown away); the error
/// itself is handed over under the mutex.
#[derive(Default)]
pub(super) struct Failure {
    pub(super) failed: AtomicBool,
    pub(super) error: Mutex<Option<SpillError>>,
}

impl Failure {
    pub(super) fn set(&self, e: SpillError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(e);
    }

    pub(super) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    pub(super) fn take(self) -> Result<(), SpillError> {
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
