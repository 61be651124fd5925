//! The checkpoint's manifest: what a resumed search needs besides the
//! level files it names.
//!
//! A TOML document followed by a line `# crc32 XXXXXXXX` over every byte
//! before it. Written under a temporary name, synced, renamed over the old
//! one, and the directory synced: the manifest on disk is always a whole
//! one, and it names only files that were durable before it was written.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Disk, SpillError, digest};

/// The manifest's file name.
pub(crate) const NAME: &str = "checkpoint.toml";
/// The manifest format this build writes and reads.
const FORMAT: u32 = 1;

/// A level kept on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Kept {
    pub depth: u32,
    /// Its run files, in partition order.
    pub files: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub format: u32,
    /// What the search is: count, find or solve.
    pub mode: String,
    /// frontier or bitmap.
    pub visited: String,
    pub partitions: u32,
    /// The digest every file carries, in hex.
    pub digest: String,
    /// The model's identity, in full.
    pub identity: String,
    /// Every complete level's size (in keys).
    pub levels: Vec<u64>,
    /// The positions of every complete level, when keys stand for
    /// classes of positions (empty otherwise, and before level 1).
    #[serde(default)]
    pub positions: Vec<u64>,
    /// Seconds searched so far.
    pub seconds: f64,
    /// The levels on disk, oldest first.
    pub kept: Vec<Kept>,
    /// What the caller asked to remember (the command line's settings).
    pub record: BTreeMap<String, String>,
    /// The run this checkpoint is part of (the same in every process of a
    /// cluster's run), in hex.
    #[serde(default)]
    pub run: String,
    /// This process's index in its cluster (0 alone).
    #[serde(default)]
    pub process: u32,
    /// The processes of the run (1 alone).
    #[serde(default = "one")]
    pub processes: u32,
    /// Seconds a dense search spent writing its checkpoint so far.
    #[serde(default)]
    pub checkpoint_seconds: f64,
    /// A census's arrays and the state of its distances (a census only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub census: Option<crate::engine::census::saves::CensusState>,
}

fn one() -> u32 {
    1
}

/// The largest manifest read: a run of a million levels, each file named,
/// stays far below it.
const MAX_BYTES: u64 = 256 << 20;

impl Manifest {
    /// Writes the manifest durably into `disk`'s directory.
    pub(crate) fn write(&self, disk: &Disk) -> Result<(), SpillError> {
        let mut text = toml::to_string(self).expect("a manifest serialises");
        let crc = crc32fast::hash(text.as_bytes());
        text.push_str(&format!("# crc32 {crc:08x}\n"));
        let len = text.len() as u64;
        disk.charge(len)
            .map_err(|e| SpillError::io(&disk.dir().join(format!("{NAME}.tmp")), e))?;
        disk.refund(len);
        super::write_whole(disk, NAME, |file| file.write_all(text.as_bytes()))
    }

    fn read(dir: &Path) -> Result<Manifest, SpillError> {
        let path = dir.join(NAME);
        let damaged = |what: &str| SpillError::Damaged {
            path: path.clone(),
            what: what.to_string(),
        };
        if dir.exists() && !dir.is_dir() {
            return Err(SpillError::NotADirectory {
                path: dir.to_path_buf(),
            });
        }
        let file = match super::open_regular(&path) {
            Ok(f) => f,
            Err(SpillError::Missing { .. }) => {
                return Err(SpillError::NoCheckpoint {
                    path: dir.to_path_buf(),
                });
            }
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_BYTES + 1), &mut bytes)
            .map_err(|e| SpillError::io(&path, e))?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(damaged(&format!(
                "it is over {} MiB, far more than a manifest holds",
                MAX_BYTES >> 20
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| damaged("it is not text"))?;
        let body_end = text.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
        let (body, last) = text.split_at(body_end);
        let crc = last
            .trim()
            .strip_prefix("# crc32 ")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                damaged("its checksum line is missing: it was cut short, or bytes were added to it")
            })?;
        if crc32fast::hash(body.as_bytes()) != crc {
            return Err(damaged("its checksum does not match"));
        }
        #[derive(Deserialize)]
        struct Version {
            format: u32,
        }
        let version: Version = toml::from_str(body).map_err(|e| damaged(&e.to_string()))?;
        if version.format > FORMAT {
            return Err(SpillError::Version {
                path,
                found: version.format,
                supported: FORMAT,
            });
        }
        toml::from_str(body).map_err(|e| damaged(&e.to_string()))
    }

    /// The manifest of a new run: a `mode` search of the model with
    /// `identity`, with `visited` and `partitions`, remembering `record`,
    /// named by [`run_seed`] (a cluster's processes then agree on one).
    pub(crate) fn begin(
        mode: &str,
        visited: &str,
        partitions: usize,
        identity: &str,
        record: &BTreeMap<String, String>,
    ) -> Manifest {
        Manifest {
            mode: mode.into(),
            visited: visited.into(),
            partitions: partitions as u32,
            digest: format!("{:016x}", digest(identity)),
            identity: identity.into(),
            record: record.clone(),
            run: format!("{:016x}", run_seed()),
            ..Manifest::new()
        }
    }

    pub(crate) fn new() -> Manifest {
        Manifest {
            format: FORMAT,
            mode: String::new(),
            visited: String::new(),
            partitions: 0,
            digest: String::new(),
            identity: String::new(),
            levels: Vec::new(),
            positions: Vec::new(),
            seconds: 0.0,
            kept: Vec::new(),
            record: BTreeMap::new(),
            run: String::new(),
            process: 0,
            processes: 1,
            checkpoint_seconds: 0.0,
            census: None,
        }
    }
}

/// A run's name: this process's clock and id.
pub(crate) fn run_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id()) << 32
}

/// Ends the checkpoint in `dir` before any file it names goes: its
/// manifest is unlinked and the directory synced, so that a crash from
/// here on leaves no checkpoint, never one that names missing files. (A
/// failed sync leaves at worst the manifest, naming whole files.)
pub(crate) fn retire(dir: &Path) -> std::io::Result<()> {
    std::fs::remove_file(dir.join(NAME))?;
    let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

/// Why a run stopped at the storage fault `e`, on one line (a stop
/// reason), and, for a run with a checkpoint in `checkpoint`, what it can
/// say of that checkpoint.
pub(crate) fn fault_text(e: &SpillError, checkpoint: Option<&Path>) -> String {
    let e = e.to_string();
    let first = e.lines().next().unwrap_or_default();
    match checkpoint {
        Some(dir) => format!("{first}{}", resume_hint(dir)),
        None => first.to_string(),
    }
}

/// What a stopped run can say of its checkpoint in `dir`: that it is in
/// place (its manifest reads, checksum and all, and every file it names is
/// a regular file there; the files' own checksums are checked when it
/// resumes), or that it is not, and why.
pub(crate) fn resume_hint(dir: &Path) -> String {
    let checked = Checkpoint::open(dir).and_then(|cp| {
        for name in cp.manifest.kept.iter().flat_map(|k| &k.files) {
            let path = dir.join(name);
            if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                return Err(SpillError::Missing { path });
            }
        }
        Ok(cp)
    });
    match checked {
        Ok(cp) => format!(
            "; the checkpoint of levels 0 to {} is in place: continue with `reach resume {}` once the cause is fixed",
            cp.depth(),
            dir.display()
        ),
        Err(e) => format!(
            "; the checkpoint in {} is not whole ({}): it cannot be resumed",
            dir.display(),
            e.to_string().lines().next().unwrap_or_default()
        ),
    }
}

/// A checkpoint on disk, opened to be resumed with
/// [`Search::resume`](crate::engine::Search::resume).
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
}

impl Checkpoint {
    /// Reads the manifest in `dir` and checks its checksum and format (the
    /// level files are checked when the search resumes).
    pub fn open(dir: impl Into<PathBuf>) -> Result<Checkpoint, SpillError> {
        let dir = dir.into();
        let manifest = Manifest::read(&dir)?;
        Ok(Checkpoint { dir, manifest })
    }

    /// Removes the checkpoint: the manifest first ([`retire`]), then the
    /// files it named, and the directory if nothing else is left in it.
    pub fn remove(self) -> Result<(), SpillError> {
        retire(&self.dir).map_err(|e| SpillError::io(&self.dir.join(NAME), e))?;
        for name in self.manifest.kept.iter().flat_map(|k| &k.files) {
            if name.contains('/') || name.contains("..") {
                continue;
            }
            let path = self.dir.join(name);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(SpillError::io(&path, e));
                }
                _ => {}
            }
        }
        let _ = std::fs::remove_dir(&self.dir);
        Ok(())
    }

    /// Refuses a checkpoint written for another model than the one with
    /// `identity` (another puzzle or metric).
    pub(crate) fn check_identity(&self, identity: &str) -> Result<(), SpillError> {
        let m = &self.manifest;
        if m.identity != identity || m.digest != format!("{:016x}", digest(identity)) {
            return Err(SpillError::Foreign {
                path: self.dir.join(NAME),
                what: "it was written for another puzzle or metric".into(),
            });
        }
        Ok(())
    }

    /// Whether `dir` holds a checkpoint's manifest.
    pub fn exists(dir: &Path) -> bool {
        dir.join(NAME).exists()
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What the caller recorded when the search began
    /// ([`Spill::record`](super::Spill::record)).
    pub fn record(&self) -> &BTreeMap<String, String> {
        &self.manifest.record
    }

    /// The depth of the last level it saved.
    pub fn depth(&self) -> u32 {
        self.manifest.levels.len().saturating_sub(1) as u32
    }

    /// The puzzle's identity as the model gave it.
    pub fn identity(&self) -> &str {
        &self.manifest.identity
    }

    /// The complete levels' sizes.
    pub fn levels(&self) -> &[u64] {
        &self.manifest.levels
    }

    /// Which process of how many wrote it ((0, 1) alone).
    pub fn process(&self) -> (usize, usize) {
        (
            self.manifest.process as usize,
            self.manifest.processes as usize,
        )
    }
}
