//! The dense store's checkpoint: pairs of consecutive levels as run files.
//!
//! The dense store keeps no level as keys, only its two bits a key, and
//! the bits of a level it has expanded say "expanded" like every older
//! level's. It can still be resumed, for a model whose moves are
//! reversible: a successor of level d is in level d-1, d or d+1, so levels
//! d-1 and d are all a search needs to go on from level d (frontier
//! search's argument). A resumed search marks level d-1 expanded and level
//! d the newest; the older levels stay unseen in the bits and are never
//! reached again.
//!
//! So the store writes the newest level as it commits it (the keys holding
//! its label, in key order, Rice-coded into checked run files), and once
//! two consecutive levels are written, a thread syncs their files while the
//! search goes on; at the first level boundary after they are durable, a
//! manifest naming them replaces the last one, and the older pair's files
//! go. A crash at any moment leaves the last manifest and the two levels
//! it names whole.
//!
//! Writing a level costs a scan of its bits and its keys' encoding (the
//! 2x7 tile puzzle's widest levels: 1.9e9 keys), so not every level is
//! written: a level is written when it completes a pair, or when the saves
//! so far took at most [`SHARE`] of the search's time (and a second). Thin
//! levels cost next to nothing and are all saved; at the 2x7 puzzle's
//! widest a pair (some 15 s of writing at two threads) is saved about
//! every six minutes. A kill loses the levels since the last named pair.

use std::collections::VecDeque;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::engine::files::manifest::{self, Kept, Manifest};
use crate::engine::files::run::{Header, Kind, RunFile, RunWriter, level_name};
use crate::engine::files::{Checkpoint, Disk, DiskUse, Spill, SpillError, digest};
use crate::engine::levels::Fault;
use crate::engine::levels::Mode;

/// The share of the search's time that saving levels may take.
const SHARE: f64 = 0.04;

/// Seconds of saving allowed besides the share: a short search saves every
/// level (each costs a few milliseconds of syncs however thin).
const GRACE: f64 = 1.0;

/// A level written to the checkpoint.
struct Written {
    depth: u32,
    /// Its files, in key order.
    files: Vec<RunFile>,
    /// Whether it is one of a pair (named by the manifest, or to be once
    /// its files are durable).
    paired: bool,
}

/// A pair of levels whose files a thread is syncing, and the manifest that
/// names them once it is done.
struct Syncing {
    thread: JoinHandle<Result<(), SpillError>>,
    manifest: Manifest,
}

/// A dense search's checkpoint directory and what it holds.
pub(crate) struct Saves {
    spill: Spill,
    disk: Disk,
    digest: u64,
    /// The manifest on disk.
    manifest: Manifest,
    /// Levels written and not yet removed, oldest first: the pair the
    /// manifest names, a pair being synced, and a newer level waiting for
    /// its pair.
    written: VecDeque<Written>,
    syncing: Option<Syncing>,
    /// Seconds spent writing levels (by the run before a resume too).
    spent: f64,
}

impl Saves {
    /// A new checkpoint in `spill`'s directory for a search of the model
    /// with `identity` in `mode`.
    pub(crate) fn create(spill: &Spill, identity: String, mode: Mode) -> Result<Saves, Fault> {
        // A checkpoint is never written over.
        if Checkpoint::exists(&spill.dir) {
            return Err(SpillError::CheckpointExists {
                path: spill.dir.clone(),
            }
            .into());
        }
        let disk = Disk::new(spill)?;
        Ok(Saves {
            spill: spill.clone(),
            disk,
            digest: digest(&identity),
            manifest: Manifest::begin(mode.name(), "dense", 1, &identity, &spill.record),
            written: VecDeque::new(),
            syncing: None,
            spent: 0.0,
        })
    }

    /// Opens the checkpoint `cp` to go on with it in `spill`'s directory:
    /// its manifest checked against the model's `identity`, its levels'
    /// files opened with their headers and trailers checked (their blocks
    /// are checked as they are read), whatever else of ours lies in the
    /// directory removed. The levels it names are [`Saves::levels`].
    pub(crate) fn resume(cp: &Checkpoint, spill: &Spill, identity: String) -> Result<Saves, Fault> {
        cp.check_identity(&identity)?;
        let m = &cp.manifest;
        let manifest_path = cp.dir.join(manifest::NAME);
        let digest = digest(&identity);
        let damaged = |what: String| -> Fault {
            SpillError::Damaged {
                path: manifest_path.clone(),
                what,
            }
            .into()
        };
        let last = m
            .levels
            .len()
            .checked_sub(1)
            .ok_or_else(|| damaged("it names no level".into()))?;
        let depths: Vec<usize> = m.kept.iter().map(|k| k.depth as usize).collect();
        let needed: Vec<usize> = (last.saturating_sub(1)..=last).collect();
        if depths != needed {
            return Err(damaged(
                "it does not name the levels a resumed search needs".into(),
            ));
        }
        let disk = Disk::new(spill)?;
        // The run's record, with what the resume changes of it.
        let mut manifest = m.clone();
        manifest.record.extend(spill.record.clone());
        let mut saves = Saves {
            spill: spill.clone(),
            disk,
            digest,
            manifest,
            written: VecDeque::new(),
            syncing: None,
            spent: m.checkpoint_seconds,
        };
        for k in &m.kept {
            let n = k.files.len();
            let mut files = Vec::with_capacity(n);
            for (i, name) in k.files.iter().enumerate() {
                if name.contains('/') || name.contains("..") {
                    return Err(damaged(format!("it names a file outside it: {name:?}")));
                }
                let file = RunFile::open(&cp.dir.join(name), &saves.header(k.depth, i, n))?;
                saves.disk.adopt(&file);
                files.push(file);
            }
            let keys: u64 = files.iter().map(RunFile::keys).sum();
            if m.levels[k.depth as usize] != keys {
                return Err(damaged(format!(
                    "its level {} does not match its files",
                    k.depth
                )));
            }
            saves.written.push_back(Written {
                depth: k.depth,
                files,
                paired: true,
            });
        }
        crate::engine::files::names::remove_orphans(&cp.dir, &m.kept);
        Ok(saves)
    }

    /// The levels the checkpoint names, oldest first, each with its files
    /// (in key order).
    pub(crate) fn levels(&self) -> impl Iterator<Item = (u32, &[RunFile])> {
        self.written.iter().map(|w| (w.depth, &w.files[..]))
    }

    /// The complete levels' sizes and the seconds searched, as saved.
    pub(crate) fn start(&self) -> (Vec<u64>, f64) {
        (self.manifest.levels.clone(), self.manifest.seconds)
    }

    /// A writer of level `depth`'s file `i` of `n`.
    pub(crate) fn writer(
        &self,
        depth: u32,
        i: usize,
        n: usize,
    ) -> Result<RunWriter<'_>, SpillError> {
        Ok(
            RunWriter::new(&self.disk, &level_name(depth, i), self.header(depth, i, n))?
                .synced_later(),
        )
    }

    fn header(&self, depth: u32, i: usize, n: usize) -> Header {
        Header {
            kind: Kind::Level,
            digest: self.digest,
            depth,
            partitions: n as u32,
            first: i as u32,
            count: 1,
        }
    }

    /// Whether level `depth` is to be written, `seconds` into the search:
    /// the first level, one that completes a pair, or any while the saves
    /// took at most their share of the time (and a grace).
    pub(crate) fn wanted(&self, depth: u32, seconds: f64) -> bool {
        depth == 0
            || self
                .written
                .back()
                .is_some_and(|w| w.depth + 1 == depth && !w.paired)
            || self.spent <= SHARE * seconds + GRACE
    }

    /// Takes level `depth`'s `files`, written since `began`: when they
    /// complete a pair (or are level 0), their files are synced (by a
    /// thread, past level 0) for a manifest of the search so far
    /// (`levels`, `seconds`) to name them.
    pub(crate) fn saved(
        &mut self,
        depth: u32,
        files: Vec<RunFile>,
        levels: &[u64],
        seconds: f64,
        began: Instant,
    ) -> Result<(), Fault> {
        files.iter().for_each(|f| self.disk.count_level(f));
        let paired = depth == 0 || self.written.back().is_some_and(|w| w.depth + 1 == depth);
        // A level that pairs with none is of no use alone: a half-pair
        // before it goes.
        while !paired && self.written.back().is_some_and(|w| !w.paired) {
            let old = self.written.pop_back().expect("a written level");
            old.files.into_iter().for_each(|f| self.disk.remove(f));
        }
        self.written.push_back(Written {
            depth,
            files,
            paired,
        });
        if paired {
            // An earlier pair still syncing is named first.
            self.settle(true)?;
            let first = depth.saturating_sub(1);
            let mut manifest = self.manifest.clone();
            manifest.levels = levels.to_vec();
            manifest.seconds = seconds;
            manifest.checkpoint_seconds = self.spent + began.elapsed().as_secs_f64();
            manifest.kept = Vec::new();
            let mut handles = Vec::new();
            for w in self.written.iter_mut().filter(|w| w.depth >= first) {
                w.paired = true;
                for f in &w.files {
                    handles.extend(f.sync_handle()?.map(|h| (h, f.path().to_path_buf())));
                }
                manifest.kept.push(Kept {
                    depth: w.depth,
                    files: w.files.iter().map(RunFile::name).collect(),
                });
            }
            let sync = move || {
                handles
                    .into_iter()
                    .try_for_each(|(h, path)| h.sync_all().map_err(|e| SpillError::io(&path, e)))
            };
            if depth == 0 {
                // The first level is named before the search goes on: a
                // start with no checkpoint is undone, not resumed.
                sync()?;
                self.name(manifest)?;
            } else {
                self.syncing = Some(Syncing {
                    thread: std::thread::spawn(sync),
                    manifest,
                });
            }
        }
        self.spent += began.elapsed().as_secs_f64();
        Ok(())
    }

    /// Names the pair being synced in the manifest once its files are
    /// durable: waiting for them if `wait`, else only if they are.
    pub(crate) fn settle(&mut self, wait: bool) -> Result<(), Fault> {
        if !self
            .syncing
            .as_ref()
            .is_some_and(|s| wait || s.thread.is_finished())
        {
            return Ok(());
        }
        let Syncing { thread, manifest } = self.syncing.take().expect("a pair syncing");
        thread.join().expect("the sync thread does not panic")?;
        self.name(manifest)
    }

    /// Writes `manifest` (naming durable files) over the last one, then
    /// removes the files of levels older than those it names.
    fn name(&mut self, manifest: Manifest) -> Result<(), Fault> {
        self.disk.sync_dir()?;
        // On failure the old manifest still names the older files: they
        // stay. So do the new ones: the rename may have gone through before
        // the failure (a failed sync of the directory after it), and then
        // the manifest there names them (scripts/faults.sh, EIO at the 7th
        // fsync of a tiles-2x5 count, found the new pair removed under it).
        if let Err(e) = manifest.write(&self.disk) {
            for k in manifest.kept {
                if !self.manifest.kept.iter().any(|old| old.depth == k.depth) {
                    self.manifest.kept.push(k);
                }
            }
            return Err(e.into());
        }
        let first = manifest.kept.first().map_or(0, |k| k.depth);
        self.manifest = manifest;
        while self.written.front().is_some_and(|w| w.depth < first) {
            let old = self.written.pop_front().expect("a written level");
            old.files.into_iter().for_each(|f| self.disk.remove(f));
        }
        Ok(())
    }

    /// Why the search stopped at the storage fault `e`, and how to go on.
    pub(crate) fn fault(&self, e: &SpillError) -> String {
        let saved = !self.manifest.kept.is_empty();
        manifest::fault_text(e, saved.then_some(self.spill.dir.as_path()))
    }

    /// Undoes a start that failed before level 0 was saved: its files go,
    /// and the directory if the run made it.
    pub(crate) fn abandon(mut self) {
        // The manifest first, if it went in before the failure (a failed
        // sync of the directory after its rename left it naming level 0,
        // whose file went next: found by scripts/faults.sh, EIO at the 4th
        // fsync). It is this run's own: a new run refuses a directory that
        // holds a checkpoint.
        let _ = manifest::retire(&self.spill.dir);
        for w in std::mem::take(&mut self.written) {
            w.files.into_iter().for_each(|f| self.disk.remove(f));
        }
        let _ = std::fs::remove_file(self.spill.dir.join(format!("{}.tmp", manifest::NAME)));
        self.disk.unlock();
        if self.disk.created() {
            let _ = std::fs::remove_dir(&self.spill.dir);
        }
    }

    /// Ends the search (`stopped`: early): a stopped search (or one whose
    /// caller wants the checkpoint left) names the pair it was syncing and
    /// keeps what the manifest names; a complete one removes its checkpoint
    /// and its directory. What the disk held.
    pub(crate) fn finish(mut self, stopped: bool) -> DiskUse {
        let keep = self.spill.keep || stopped || self.spill.leave;
        if keep {
            // A failure leaves the last manifest, which is whole.
            let _ = self.settle(true);
        } else if let Some(s) = self.syncing.take() {
            let _ = s.thread.join();
        }
        if !keep {
            let _ = manifest::retire(&self.spill.dir);
        }
        let named: Vec<u32> = self.manifest.kept.iter().map(|k| k.depth).collect();
        for w in std::mem::take(&mut self.written) {
            if !keep || !named.contains(&w.depth) {
                w.files.into_iter().for_each(|f| self.disk.remove(f));
            }
        }
        let usage = DiskUse {
            checkpoint_seconds: Some(self.spent),
            ..self.disk.usage()
        };
        self.disk.unlock();
        if !keep {
            let _ = std::fs::remove_dir(&self.spill.dir);
        }
        usage
    }
}
