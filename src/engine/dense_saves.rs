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
//! two consecutive levels are written and durable, a manifest naming them
//! replaces the last one, after which the older pair's files go. A crash
//! at any moment leaves the last manifest and the two levels it names
//! whole.
//!
//! Writing a level costs a scan of its bits and its keys' encoding (the
//! 2x7 tile puzzle's widest levels: 1.9e9 keys), so not every level is
//! written: a level is written when it completes a pair, or when the saves
//! so far took at most [`SHARE`] of the search's time (and a second). Thin levels cost
//! next to nothing and are all saved; at the widest a pair is saved every
//! few levels. A kill loses at most the levels since the last pair.

use std::collections::VecDeque;
use std::time::Instant;

use super::levels::Mode;
use super::peers::Fault;
use super::spill::file::{Header, Kind, RunFile, RunWriter};
use super::spill::manifest::{self, Kept, Manifest};
use super::spill::{Checkpoint, Disk, DiskUse, Spill, SpillError, digest};

/// The share of the search's time that saving levels may take.
pub(crate) const SHARE: f64 = 0.04;

/// Seconds of saving allowed besides the share: a short search saves every
/// level (each costs a few milliseconds of syncs however thin).
const GRACE: f64 = 1.0;

/// The name of level `depth`'s file `i`.
fn level_name(depth: u32, i: usize) -> String {
    format!("L{depth:06}-p{i:05}.run")
}

/// A dense search's checkpoint directory and what it holds.
pub(crate) struct Saves {
    spill: Spill,
    disk: Disk,
    digest: u64,
    manifest: Manifest,
    /// Levels written and not yet removed, oldest first: the one or two
    /// the manifest names, and a newer one waiting for its pair.
    written: VecDeque<(u32, Vec<RunFile>)>,
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
        let digest = digest(&identity);
        let mut manifest = Manifest::new();
        manifest.mode = mode.name().into();
        manifest.visited = "dense".into();
        manifest.partitions = 1;
        manifest.digest = format!("{digest:016x}");
        manifest.identity = identity;
        manifest.record = spill.record.clone();
        // The run's name: the clock and the process id.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id()) << 32;
        manifest.run = format!("{seed:016x}");
        Ok(Saves {
            spill: spill.clone(),
            disk,
            digest,
            manifest,
            written: VecDeque::new(),
            spent: 0.0,
        })
    }

    /// Opens the checkpoint `cp` to go on with it in `spill`'s directory:
    /// its manifest checked against the model's `identity`, its levels'
    /// files opened with their headers and trailers checked (their blocks
    /// are checked as they are read), whatever else of ours lies in the
    /// directory removed. The levels it names are [`Saves::levels`].
    pub(crate) fn resume(cp: &Checkpoint, spill: &Spill, identity: String) -> Result<Saves, Fault> {
        let m = &cp.manifest;
        let manifest_path = cp.dir.join(manifest::NAME);
        let digest = digest(&identity);
        if m.identity != identity || m.digest != format!("{digest:016x}") {
            return Err(SpillError::Foreign {
                path: manifest_path,
                what: "it was written for another puzzle or metric".into(),
            }
            .into());
        }
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
        let mut saves = Saves {
            spill: spill.clone(),
            disk,
            digest,
            manifest: m.clone(),
            written: VecDeque::new(),
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
            saves.written.push_back((k.depth, files));
        }
        super::on_disk::remove_orphans(&cp.dir, &m.kept);
        Ok(saves)
    }

    /// The levels written and not yet removed, oldest first, each with its
    /// files (in key order).
    pub(crate) fn levels(&self) -> &VecDeque<(u32, Vec<RunFile>)> {
        &self.written
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
        RunWriter::new(&self.disk, &level_name(depth, i), self.header(depth, i, n))
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
                .is_some_and(|&(d, _)| d + 1 == depth && !self.named(d))
            || self.spent <= SHARE * seconds + GRACE
    }

    /// Takes level `depth`'s `files`, written since `began`: when they
    /// complete a pair (or are level 0), a manifest of the search so far
    /// (`levels`, `seconds`) names them, and older files go.
    pub(crate) fn saved(
        &mut self,
        depth: u32,
        files: Vec<RunFile>,
        levels: &[u64],
        seconds: f64,
        began: Instant,
    ) -> Result<(), Fault> {
        files.iter().for_each(|f| self.disk.count_level(f));
        let paired = depth == 0 || self.written.back().is_some_and(|&(d, _)| d + 1 == depth);
        // A level that pairs with none is of no use alone: older ones go
        // only once a new pair is named.
        while !paired && self.written.back().is_some_and(|&(d, _)| !self.named(d)) {
            let (_, old) = self.written.pop_back().expect("a written level");
            old.into_iter().for_each(|f| self.disk.remove(f));
        }
        self.written.push_back((depth, files));
        if paired {
            let first = depth.saturating_sub(1);
            self.manifest.levels = levels.to_vec();
            self.manifest.seconds = seconds;
            self.manifest.checkpoint_seconds = self.spent + began.elapsed().as_secs_f64();
            self.manifest.kept = self
                .written
                .iter()
                .filter(|&&(d, _)| d >= first)
                .map(|(d, files)| Kept {
                    depth: *d,
                    files: files.iter().map(file_name).collect(),
                })
                .collect();
            self.disk.sync_dir()?;
            // On failure the old manifest still names the older files:
            // they stay.
            self.manifest.write(&self.disk)?;
            while self.written.front().is_some_and(|&(d, _)| d < first) {
                let (_, old) = self.written.pop_front().expect("a written level");
                old.into_iter().for_each(|f| self.disk.remove(f));
            }
        }
        self.spent += began.elapsed().as_secs_f64();
        Ok(())
    }

    /// Whether the manifest names level `depth`.
    fn named(&self, depth: u32) -> bool {
        self.manifest.kept.iter().any(|k| k.depth == depth)
    }

    /// Why the search stopped at the storage fault `e`, and how to go on.
    pub(crate) fn fault(&self, e: &SpillError) -> String {
        if self.manifest.kept.is_empty() {
            return e.to_string();
        }
        format!(
            "{e}; the last checkpoint is whole: continue with `reach resume {}` once the cause is fixed",
            self.spill.dir.display()
        )
    }

    /// Undoes a start that failed before level 0 was saved: its files go,
    /// and the directory if the run made it.
    pub(crate) fn abandon(mut self) {
        for (_, files) in std::mem::take(&mut self.written) {
            files.into_iter().for_each(|f| self.disk.remove(f));
        }
        let _ = std::fs::remove_file(self.spill.dir.join(format!("{}.tmp", manifest::NAME)));
        self.disk.unlock();
        if self.disk.created() {
            let _ = std::fs::remove_dir(&self.spill.dir);
        }
    }

    /// Ends the search (`stopped`: early): a stopped search (or one whose
    /// caller wants the checkpoint left) keeps what the manifest names,
    /// and a complete one removes its checkpoint and its directory. What
    /// the disk held.
    pub(crate) fn finish(mut self, stopped: bool) -> DiskUse {
        let keep = self.spill.keep || stopped || self.spill.leave;
        let named: Vec<u32> = self.manifest.kept.iter().map(|k| k.depth).collect();
        for (depth, files) in std::mem::take(&mut self.written) {
            if !keep || !named.contains(&depth) {
                files.into_iter().for_each(|f| self.disk.remove(f));
            }
        }
        let usage = DiskUse {
            checkpoint_seconds: Some(self.spent),
            ..self.disk.usage()
        };
        self.disk.unlock();
        if !keep {
            let _ = std::fs::remove_file(self.spill.dir.join(manifest::NAME));
            let _ = std::fs::remove_dir(&self.spill.dir);
        }
        usage
    }
}

/// The file name of a run file in the checkpoint's directory.
fn file_name(f: &RunFile) -> String {
    f.path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
