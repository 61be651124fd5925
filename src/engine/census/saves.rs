//! A census's checkpoint: its arrays on disk, so that a killed census goes
//! on from its last saved level of the distances instead of starting
//! again.
//!
//! The listing and the join are the census's dearest passes, and what they
//! leave does not change afterwards: the index (its bucket starts and its
//! keys) and the components (a word a position). Once they are done they
//! are written, each as a file of little-endian words whose length and
//! CRC-32 the manifest records. Then the distances' two bits a position
//! are written at the end of a level, as a new file whose manifest
//! replaces the last one (written under a temporary name, synced, renamed,
//! the directory synced), before the older codes go: a crash at any moment
//! leaves the last manifest and the files it names whole. Every file's
//! length and checksum are checked when it is read back.
//!
//! A level is saved when the saves so far took at most [`SHARE`] of the
//! census's time (and a second), and always when the census stops early,
//! so a kill loses at most the levels since the last save, a limit or a
//! signal none.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::files::manifest::{Kept, Manifest};
use crate::engine::files::{Checkpoint, Disk, Spill, SpillError, names, open_regular, write_whole};

/// The share of the census's time that saving levels may take.
const SHARE: f64 = 0.04;

/// Seconds of saving allowed besides the share.
const GRACE: f64 = 1.0;

/// Bytes written or read at a time.
const BUFFER: usize = 1 << 20;

/// What a census's manifest holds besides the levels.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct CensusState {
    /// Every position listed.
    pub positions: u64,
    /// The index's bucket shift.
    pub shift: u32,
    /// Whether the index keeps whole keys (else four bytes a key).
    pub whole_keys: bool,
    /// Whether every key below the model's key space is a position,
    /// numbered by itself: no index is kept.
    #[serde(default)]
    pub every_key: bool,
    /// Components that hold a goal position.
    pub goal_components: u64,
    /// Positions of those components.
    pub solvable: u64,
    /// The last levels' smallest indices (the hardest starts' candidates).
    pub tail: Vec<TailLevel>,
    /// This process's keys across processes (`lo`, `hi`): its codes are
    /// theirs only, numbered from `lo`. None alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[u64; 2]>,
    /// The bucket starts, the keys and the components (unless every key
    /// is a position), and the codes.
    pub files: Vec<Saved>,
    /// Across processes, the save before the last, kept until this
    /// process saves again: a process killed while the others saved a
    /// level may be one save behind them, and all go on from the save
    /// that every one has (see [`Saves::level`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Generation>,
}

/// A save of the distances' codes that the manifest keeps besides its
/// last: its depth, its hardest starts' candidates and its codes' file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Generation {
    pub depth: u32,
    pub tail: Vec<TailLevel>,
    pub codes: Saved,
}

impl CensusState {
    /// How many files of arrays that do not change come before the codes:
    /// the index's two and the components; none where every key is a
    /// position (its census measures the distances before it joins).
    fn arrays(&self) -> usize {
        if self.every_key { 0 } else { 3 }
    }
}

/// A level's smallest indices.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct TailLevel {
    pub depth: u32,
    pub smallest: Vec<u64>,
}

/// A file of words, as the manifest names it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Saved {
    pub name: String,
    pub bytes: u64,
    pub crc32: u32,
}

/// A word of the arrays, as it is written (little-endian).
pub(crate) trait Word: Copy {
    const BYTES: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BYTES: usize = size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> $t {
                <$t>::from_le_bytes(bytes.try_into().expect("a word's bytes"))
            }
        }
    };
}

word!(u32);
word!(u64);

/// A census's checkpoint directory, while the census runs.
pub(crate) struct Saves {
    disk: Disk,
    /// The manifest on disk (or to be written).
    manifest: Manifest,
    /// Leave the checkpoint when the census completes (the caller removes
    /// it once the report is out).
    leave: bool,
    /// Seconds spent saving, and when the census (this run of it) began.
    spent: f64,
    began: Instant,
    /// Seconds the runs before a resume took.
    before: f64,
    /// The depth whose codes the manifest names, once one is saved.
    saved: Option<u32>,
}

/// What a resumed census reads back.
pub(crate) struct Loaded {
    pub state: CensusState,
    pub levels: Vec<u64>,
    pub buckets: Vec<u32>,
    /// The keys: four bytes each, or whole.
    pub keys: Keys,
    pub roots: Vec<AtomicU32>,
    pub codes: Vec<AtomicU64>,
}

impl Loaded {
    /// Whether the hardest starts' candidates lie within the levels and
    /// below `n` (indices alone; keys across processes).
    pub(crate) fn tail_within(&self, n: u64) -> bool {
        self.state
            .tail
            .iter()
            .all(|t| (t.depth as usize) < self.levels.len() && t.smallest.iter().all(|&i| i < n))
    }
}

/// The index's keys as read back.
pub(crate) enum Keys {
    Cut(Vec<u32>),
    Whole(Vec<u64>),
    /// None kept: every key is a position.
    Every,
}

const BUCKETS: &str = "census-buckets.u32";
const ROOTS: &str = "census-roots.u32";

/// Whether `name` is one of a census's files (or its temporary): what a
/// killed census may leave, for [`names`] to clean up.
pub(crate) fn is_census_file(name: &str) -> bool {
    let name = name.strip_suffix(".tmp").unwrap_or(name);
    [BUCKETS, keys_name(false), keys_name(true), ROOTS].contains(&name)
        || name
            .strip_prefix("census-codes-")
            .and_then(|rest| rest.strip_suffix(".u64"))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

fn keys_name(whole: bool) -> &'static str {
    if whole {
        "census-keys.u64"
    } else {
        "census-keys.u32"
    }
}

fn codes_name(depth: u32) -> String {
    format!("census-codes-{depth}.u64")
}

impl Saves {
    /// A new checkpoint in `spill`'s directory for a census of the model
    /// with `identity`; refused where a checkpoint is already there.
    pub(crate) fn create(spill: &Spill, identity: &str) -> Result<Saves, SpillError> {
        if Checkpoint::exists(&spill.dir) {
            return Err(SpillError::CheckpointExists {
                path: spill.dir.clone(),
            });
        }
        let disk = Disk::new(spill)?;
        // What a census killed before its first save left.
        names::remove_orphans(disk.dir(), &[]);
        Ok(Saves {
            disk,
            manifest: Manifest::begin("census", "census", 1, identity, &spill.record),
            leave: spill.leave,
            spent: 0.0,
            began: Instant::now(),
            before: 0.0,
            saved: None,
        })
    }

    /// As [`Saves::create`], for process `me` of `processes` of the run
    /// named `run` (every process's name): in `spill`'s `DIR/process-I`,
    /// keeping the save before the last (see [`Saves::level`]).
    pub(crate) fn create_across(
        spill: &Spill,
        identity: &str,
        (me, processes): (usize, usize),
        run: u64,
    ) -> Result<Saves, SpillError> {
        let mut saves = Saves::create(&spill.of_process(me, processes), identity)?;
        saves.manifest.process = me as u32;
        saves.manifest.processes = processes as u32;
        saves.manifest.run = format!("{run:016x}");
        Ok(saves)
    }

    /// Opens checkpoint `cp` to go on with it (in `spill`'s settings): its
    /// manifest checked against `identity`, every file it names read back
    /// with its length and checksum checked. Alone, from its last save.
    pub(crate) fn resume(
        cp: &Checkpoint,
        spill: &Spill,
        identity: &str,
    ) -> Result<(Saves, Loaded), SpillError> {
        let opened = Saves::open(cp, spill, identity)?;
        let last = opened.last();
        opened.load(last)
    }

    /// Opens checkpoint `cp` (see [`Saves::resume`]) without reading its
    /// arrays yet: which saves it holds, to choose from.
    pub(crate) fn open(
        cp: &Checkpoint,
        spill: &Spill,
        identity: &str,
    ) -> Result<Opened, SpillError> {
        cp.check_identity(identity)?;
        let m = &cp.manifest;
        let damaged = |what: &str| SpillError::Damaged {
            path: cp.dir.join(crate::engine::files::manifest::NAME),
            what: what.to_string(),
        };
        if m.mode != "census" {
            return Err(damaged(&format!(
                "it holds a {} search, not a census",
                m.mode
            )));
        }
        let state = m
            .census
            .clone()
            .ok_or_else(|| damaged("it holds no census's arrays"))?;
        let depth = m
            .levels
            .len()
            .checked_sub(1)
            .ok_or_else(|| damaged("it names no level"))? as u32;
        let damaged_files = || damaged("it does not name a census's files");
        if state.files.len() != state.arrays() + 1 {
            return Err(damaged_files());
        }
        let mut names = vec![codes_name(depth)];
        if !state.every_key {
            let index = [BUCKETS, keys_name(state.whole_keys), ROOTS];
            names.splice(0..0, index.map(String::from));
        }
        if state.files.iter().zip(&names).any(|(f, n)| &f.name != n)
            || state.previous.as_ref().is_some_and(|p| {
                p.depth >= depth || p.codes.name != codes_name(p.depth) || !state.every_key
            })
        {
            return Err(damaged_files());
        }
        let positions = state.positions;
        let key_bytes = if state.whole_keys { 8 } else { 4 };
        let index_fits = match &state.files[..state.arrays()] {
            [_, keys, roots] => keys.bytes == positions * key_bytes && roots.bytes == positions * 4,
            _ => true,
        };
        // The codes: of every position, or of this process's range.
        let coded = match state.range {
            Some([lo, hi]) if lo <= hi && hi <= positions => hi - lo,
            Some(_) => return Err(damaged("its range of keys lies outside its positions")),
            None => positions,
        };
        let codes_fit = |c: &Saved| c.bytes == coded.div_ceil(32) * 8;
        if !index_fits
            || !codes_fit(&state.files[state.arrays()])
            || state
                .previous
                .as_ref()
                .is_some_and(|p| !codes_fit(&p.codes))
        {
            return Err(damaged(
                "its files' lengths do not fit its number of positions",
            ));
        }
        let disk = Disk::new(spill)?;
        // Codes written after the manifest, and temporaries.
        names::remove_orphans(disk.dir(), &m.kept);
        let mut manifest = m.clone();
        manifest.record.extend(spill.record.clone());
        Ok(Opened {
            saves: Saves {
                disk,
                before: manifest.seconds,
                manifest,
                leave: spill.leave,
                spent: 0.0,
                began: Instant::now(),
                saved: Some(depth),
            },
            dir: cp.dir.clone(),
            state,
        })
    }

    /// Seconds the census has taken, the runs before a resume included.
    pub(crate) fn seconds(&self) -> f64 {
        self.before + self.began.elapsed().as_secs_f64()
    }

    /// Writes the arrays that do not change: the index's bucket starts
    /// and keys, and the components (`roots`); none where every key is a
    /// position (`None`). Named by the manifest only with the first
    /// level's codes ([`Saves::level`]).
    pub(crate) fn arrays<W: Word>(
        &mut self,
        state: CensusState,
        index: Option<(&[u32], &[W], &[AtomicU32])>,
    ) -> Result<(), SpillError> {
        let began = Instant::now();
        let mut files = Vec::new();
        if let Some((buckets, keys, roots)) = index {
            files.push(write_words(&self.disk, BUCKETS, buckets.len(), |i| {
                buckets[i]
            })?);
            files.push(write_words(
                &self.disk,
                keys_name(W::BYTES == 8),
                keys.len(),
                |i| keys[i],
            )?);
            files.push(write_words(&self.disk, ROOTS, roots.len(), |i| {
                roots[i].load(Ordering::Relaxed)
            })?);
        }
        self.manifest.census = Some(CensusState { files, ..state });
        self.spent += began.elapsed().as_secs_f64();
        Ok(())
    }

    /// Whether a level is due to be saved (see the module's notes).
    pub(crate) fn due(&self) -> bool {
        self.spent <= SHARE * self.began.elapsed().as_secs_f64() + GRACE
    }

    /// Whether the checkpoint stays when the census completes.
    pub(crate) fn leaves(&self) -> bool {
        self.leave
    }

    /// The depth last saved.
    pub(crate) fn saved(&self) -> Option<u32> {
        self.saved
    }

    /// Saves the end of level `levels.len() - 1`: its codes, then the
    /// manifest naming them with `tail`; then the older codes go. Across
    /// processes the save before goes instead, and the last stays beside
    /// the new one: every process saves at the same levels, and none
    /// begins a level before all ended the one before, so a process is at
    /// most one save behind another when the run is killed, and the
    /// older of any process's two saves is one that every process has.
    pub(crate) fn level(
        &mut self,
        codes: &[AtomicU64],
        levels: &[u64],
        tail: Vec<TailLevel>,
    ) -> Result<(), SpillError> {
        let began = Instant::now();
        let depth = levels.len() as u32 - 1;
        let name = codes_name(depth);
        let file = write_words(&self.disk, &name, codes.len(), |i| {
            codes[i].load(Ordering::Relaxed)
        })?;
        let across = self.across();
        let state = self
            .manifest
            .census
            .as_mut()
            .expect("the arrays are saved before a level");
        let old_tail = std::mem::replace(&mut state.tail, tail);
        let old = if state.files.len() > state.arrays() {
            state.files.pop()
        } else {
            None
        };
        state.files.push(file);
        // The file that goes once the new manifest is written.
        let gone = match (old.filter(|o| o.name != name), self.saved) {
            (Some(old), Some(saved)) if across => state
                .previous
                .replace(Generation {
                    depth: saved,
                    tail: old_tail,
                    codes: old,
                })
                .map(|p| p.codes),
            (old, _) => old,
        };
        let named = state
            .files
            .iter()
            .chain(state.previous.as_ref().map(|p| &p.codes));
        self.manifest.kept = vec![Kept {
            depth,
            files: named.map(|f| f.name.clone()).collect(),
        }];
        self.manifest.levels = levels.to_vec();
        self.manifest.seconds = self.seconds();
        self.manifest.write(&self.disk)?;
        if let Some(gone) = gone {
            let _ = std::fs::remove_file(self.disk.dir().join(&gone.name));
            self.disk.refund(gone.bytes);
        }
        self.saved = Some(depth);
        self.spent += began.elapsed().as_secs_f64();
        Ok(())
    }

    /// The census ended (`complete`: it finished): the checkpoint goes,
    /// unless the caller asked to have it left, or the census stopped
    /// early and it can go on from it. A checkpoint never saved leaves
    /// nothing.
    pub(crate) fn finish(mut self, complete: bool) -> Result<(), SpillError> {
        // Across processes the directory is DIR/process-I, and the last
        // process to leave DIR empty removes it.
        let cluster = self.across();
        if self.saved.is_none() {
            names::remove_orphans(self.disk.dir(), &[]);
        } else if complete && !self.leave {
            self.disk.unlock();
            Checkpoint::open(self.disk.dir())?.remove()?;
            if cluster && let Some(parent) = self.disk.dir().parent() {
                let _ = std::fs::remove_dir(parent);
            }
            return Ok(());
        } else if !complete {
            self.disk.unlock();
            return Ok(());
        }
        self.disk.leave(cluster);
        Ok(())
    }

    /// Whether the census runs across processes: its directory is one
    /// process's, and it keeps the save before the last.
    fn across(&self) -> bool {
        self.manifest.processes > 1
    }

    /// The directory.
    pub(crate) fn dir(&self) -> &Path {
        self.disk.dir()
    }
}

/// A census's checkpoint opened to go on with, its arrays not read yet.
pub(crate) struct Opened {
    saves: Saves,
    dir: std::path::PathBuf,
    state: CensusState,
}

impl Opened {
    /// The depth of its last save.
    fn last(&self) -> u32 {
        self.saves.manifest.levels.len() as u32 - 1
    }

    /// Reads back the arrays and the codes of the save at `depth` (its
    /// last, or the one before it), their lengths and checksums checked. Going on
    /// from the save before the last drops the last (another process
    /// lacked it): the manifest is written again without it, and its file
    /// goes.
    pub(crate) fn load(self, depth: u32) -> Result<(Saves, Loaded), SpillError> {
        let last = self.last();
        let Opened {
            mut saves,
            dir,
            mut state,
        } = self;
        let mut dropped = None;
        if depth != last {
            let Some(previous) = state.previous.take().filter(|p| p.depth == depth) else {
                return Err(SpillError::Damaged {
                    path: dir.join(crate::engine::files::manifest::NAME),
                    what: format!(
                        "it holds no save of level {depth}, which another process's checkpoint ends at (the processes' checkpoints are of the same run, but more than one save apart)"
                    ),
                });
            };
            let at = state.arrays();
            dropped = Some(std::mem::replace(&mut state.files[at], previous.codes));
            state.tail = previous.tail;
            saves.manifest.levels.truncate(depth as usize + 1);
            saves.saved = Some(depth);
        }
        let (arrays, codes) = state.files.split_at(state.arrays());
        let loaded = Loaded {
            buckets: match arrays.first() {
                Some(buckets) => read_words(&dir, buckets)?,
                None => Vec::new(),
            },
            keys: match arrays.get(1) {
                None => Keys::Every,
                Some(keys) if state.whole_keys => Keys::Whole(read_words(&dir, keys)?),
                Some(keys) => Keys::Cut(read_words(&dir, keys)?),
            },
            roots: match arrays.get(2) {
                Some(roots) => read_words::<u32>(&dir, roots)?
                    .into_iter()
                    .map(AtomicU32::new)
                    .collect(),
                None => Vec::new(),
            },
            codes: read_words::<u64>(&dir, &codes[0])?
                .into_iter()
                .map(AtomicU64::new)
                .collect(),
            levels: saves.manifest.levels.clone(),
            state: state.clone(),
        };
        if let Some(dropped) = dropped {
            saves.manifest.kept = vec![Kept {
                depth,
                files: state.files.iter().map(|f| f.name.clone()).collect(),
            }];
            saves.manifest.census = Some(state);
            saves.manifest.write(&saves.disk)?;
            let _ = std::fs::remove_file(dir.join(dropped.name));
        } else {
            saves.manifest.census = Some(state);
        }
        Ok((saves, loaded))
    }
}

/// Writes `len` words (`word(i)`) into `name` in `disk`'s directory,
/// durably (synced, renamed from a temporary, the directory synced): what
/// the manifest will record of it.
fn write_words<W: Word>(
    disk: &Disk,
    name: &str,
    len: usize,
    word: impl Fn(usize) -> W,
) -> Result<Saved, SpillError> {
    let mut crc = crc32fast::Hasher::new();
    write_whole(disk, name, |file| {
        let mut buf = Vec::with_capacity(BUFFER);
        let per = BUFFER / W::BYTES;
        for at in (0..len).step_by(per) {
            buf.clear();
            for i in at..(at + per).min(len) {
                word(i).put(&mut buf);
            }
            disk.charge(buf.len() as u64)?;
            crc.update(&buf);
            file.write_all(&buf)?;
        }
        Ok(())
    })?;
    Ok(Saved {
        name: name.to_string(),
        bytes: (len * W::BYTES) as u64,
        crc32: crc.finalize(),
    })
}

/// Reads back the words of `saved` in `dir`, its length and checksum
/// checked.
fn read_words<W: Word>(dir: &Path, saved: &Saved) -> Result<Vec<W>, SpillError> {
    let path = dir.join(&saved.name);
    let damaged = |what: &str| SpillError::Damaged {
        path: path.clone(),
        what: what.to_string(),
    };
    let mut file: File = open_regular(&path)?;
    let len = file.metadata().map_err(|e| SpillError::io(&path, e))?.len();
    if len != saved.bytes || !len.is_multiple_of(W::BYTES as u64) {
        return Err(damaged(&format!(
            "it holds {len} bytes, and the manifest says {}",
            saved.bytes
        )));
    }
    let mut words = Vec::with_capacity(len as usize / W::BYTES);
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; BUFFER];
    let mut left = len as usize;
    while left > 0 {
        let take = left.min(BUFFER);
        file.read_exact(&mut buf[..take])
            .map_err(|e| SpillError::io(&path, e))?;
        crc.update(&buf[..take]);
        words.extend(buf[..take].chunks_exact(W::BYTES).map(W::get));
        left -= take;
    }
    if crc.finalize() != saved.crc32 {
        return Err(damaged("its checksum does not match"));
    }
    Ok(words)
}
