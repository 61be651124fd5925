//! Levels on disk: spilling, checkpoints, resuming.
//!
//! With a [`Spill`], every partition's share of a level is written as
//! Rice-coded blocks of sorted keys into run files (one file per group of
//! partitions settled by one task, so that a thin level costs one file,
//! not one per partition), and read back as streams: expanding a level
//! reads its blocks, settling a partition merges its candidates with its
//! shares of the two previous levels as streams. Workers whose candidate
//! buffers pass their share of the memory budget sort them and write them
//! as candidate runs. Memory is then the budget, not the level.
//!
//! With a checkpoint, each level's files are synced and renamed into place,
//! then a manifest naming them is written the same way, after every level:
//! a crash at any moment leaves the last manifest and every file it names
//! whole. See `README.md` in the engine's directory for the design.

pub(crate) mod codec;
pub(crate) mod manifest;
pub(crate) mod names;
pub(crate) mod run;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use manifest::Checkpoint;

/// Where and how a search keeps its levels on disk.
///
/// ```
/// use reach::engine::{Search, Spill};
/// use reach::puzzles::builtin;
///
/// let dir = std::env::temp_dir().join(format!("reach-doc-{}", std::process::id()));
/// let puzzle = builtin::sliding("pe766-example").unwrap();
/// let report = Search::new(&puzzle).spill(Spill::new(&dir)).count().unwrap();
/// assert_eq!(report.states(), 208);
/// # std::fs::remove_dir_all(&dir).ok();
/// ```
#[derive(Clone, Debug)]
pub struct Spill {
    pub(crate) dir: PathBuf,
    pub(crate) checkpoint: bool,
    pub(crate) keep: bool,
    pub(crate) leave: bool,
    pub(crate) fail_after: Option<u64>,
    pub(crate) memory_threshold: usize,
    pub(crate) candidate_budget: Option<u64>,
    pub(crate) record: std::collections::BTreeMap<String, String>,
    /// The name of a new checkpointed run, which every process of it
    /// records (set by the search: process 0's, agreed at its start).
    pub(crate) run: Option<u64>,
    /// Every run stays in memory, however large (see [`Spill::in_memory`]):
    /// no directory, no file.
    pub(crate) in_memory: bool,
}

/// Runs smaller than this stay in memory unless the run is checkpointed.
const MEMORY_THRESHOLD: usize = 1 << 20;

impl Spill {
    /// Levels in run files under `dir` (created if missing).
    pub fn new(dir: impl Into<PathBuf>) -> Spill {
        Spill {
            dir: dir.into(),
            checkpoint: false,
            keep: false,
            leave: false,
            fail_after: None,
            memory_threshold: MEMORY_THRESHOLD,
            candidate_budget: None,
            record: std::collections::BTreeMap::new(),
            run: None,
            in_memory: false,
        }
    }

    /// Levels as coded runs held in memory: the run files' blocks (a key
    /// coded by its gap to the one before) in buffers instead of files,
    /// the candidates too. A search of wide keys takes it when no
    /// directory is given: a key then costs what its information costs
    /// (the 3x3x3's 128-bit keys about 5.6 bytes) instead of its words.
    pub(crate) fn in_memory() -> Spill {
        Spill {
            in_memory: true,
            memory_threshold: usize::MAX,
            ..Spill::new(PathBuf::new())
        }
    }

    /// Settings the caller wants back when the search is resumed (the
    /// command line's options): kept in the checkpoint's manifest, and read
    /// with [`Checkpoint::record`].
    pub fn record(mut self, record: std::collections::BTreeMap<String, String>) -> Spill {
        self.record = record;
        self
    }

    /// Makes every level durable as it completes, with a manifest that
    /// [`Search::resume`](crate::engine::Search::resume) continues from (a
    /// census: its arrays and levels of its distances, which
    /// [`Search::resume_census`](crate::engine::Search::resume_census)
    /// continues from).
    /// The files stay when the search stops early (a limit, a signal, a
    /// storage fault), so that it can be resumed.
    pub fn checkpoint(mut self, on: bool) -> Spill {
        self.checkpoint = on;
        self
    }

    /// Keeps the files when the search ends (every level then goes to
    /// disk, however thin).
    pub fn keep(mut self, on: bool) -> Spill {
        self.keep = on;
        self
    }

    /// Leaves a checkpointed search's checkpoint in place when it completes,
    /// as when it stops early, for the caller to remove with
    /// [`Checkpoint::remove`] once it has written what it wanted from the
    /// result: a failure in between (a full disk under a picture) then
    /// loses nothing, and a resume finishes at once.
    pub fn leave_checkpoint(mut self, on: bool) -> Spill {
        self.leave = on;
        self
    }

    /// Fault injection, for tests: every write after the first `bytes`
    /// bytes fails as a full disk would.
    pub fn fail_after_bytes(mut self, bytes: Option<u64>) -> Spill {
        self.fail_after = bytes;
        self
    }

    /// The memory the workers' candidates may take before each worker
    /// sorts its share and writes it to disk as a candidate run (at least
    /// 64 Ki keys a worker); by default half of the memory limit, or of
    /// the memory available.
    pub fn candidate_budget(mut self, bytes: Option<u64>) -> Spill {
        self.candidate_budget = bytes;
        self
    }

    /// Runs under `bytes` stay in memory when the search is not
    /// checkpointed (default 1 MiB): a thin level costs no file. 0 sends
    /// everything to disk.
    pub fn in_memory_below(mut self, bytes: usize) -> Spill {
        self.memory_threshold = bytes;
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// This process's spill (process `me` of `processes`): the same, or
    /// (several processes) in a directory of its own, `DIR/process-I`.
    pub(crate) fn of_process(&self, me: usize, processes: usize) -> Spill {
        let mut spill = self.clone();
        if processes > 1 {
            spill.dir = self.dir.join(format!("process-{me}"));
        }
        spill
    }
}

/// The bytes free for an unprivileged user on the file system that `dir`
/// is on, or would be made on (its nearest existing ancestor); `None`
/// when that cannot be told.
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir.ancestors().find(|d| d.exists())?;
    let existing = if existing.as_os_str().is_empty() {
        Path::new(".")
    } else {
        existing
    };
    let path = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `st` has room for a
    // `statvfs`, which the call fills when it returns 0.
    let st = unsafe {
        if libc::statvfs(path.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// A storage failure, or a file that cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file is damaged: truncated, or its checksum does not match.
    #[error("{} is damaged: {what}\n  help: it changed after reach wrote it, so nothing of it is used: start the run again (in a new directory)", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A state of the path being walked back has no predecessor in the
    /// level before it.
    #[error(
        "level {depth} holds no state that has the path's next one as a successor: a level file is damaged, or the puzzle's moves differ from call to call\n  help: run the search again; if it fails alike, report the puzzle"
    )]
    NoPredecessor {
        /// The level that holds none.
        depth: u32,
    },
    /// The file belongs to another search (another puzzle or metric, other
    /// partitions).
    #[error("{} does not belong to this search: {what}\n  help: resume a checkpoint with the puzzle and options it was made with, or give this run another directory", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What differs.
        what: String,
    },
    /// The file was written by a newer version of reach.
    #[error("{} was written by a newer reach (format {found}; this one reads format {supported} and older)\n  help: resume it with the reach that wrote it", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its format.
        found: u32,
        /// The newest format this build reads.
        supported: u32,
    },
    /// The directory holds no checkpoint.
    #[error(
        "{} holds no checkpoint (no {}): a checkpointed run that finished removes it\n  help: give the directory that the run checkpointed to; a run that finished printed its answer and left nothing to resume",
        path.display(),
        manifest::NAME
    )]
    NoCheckpoint {
        /// The directory.
        path: PathBuf,
    },
    /// A new run (checkpointed or spilled) was started in a directory that
    /// holds a checkpoint.
    #[error(
        "{} holds a checkpoint already\n  help: continue it with `reach resume {}`, give another directory, or remove this one to start over",
        path.display(),
        path.display()
    )]
    CheckpointExists {
        /// The directory.
        path: PathBuf,
    },
    /// Another run (or resume) holds the directory's lock.
    #[error(
        "{} is in use by {}\n  help: wait for that run to end (or stop it), or give another directory",
        path.display(),
        match pid { Some(pid) => format!("process {pid}"), None => "another process".to_string() }
    )]
    InUse {
        /// The directory.
        path: PathBuf,
        /// The process that holds it, as its lock file says.
        pid: Option<u32>,
    },
    /// A file that the checkpoint names (or that the run wrote) is gone.
    #[error("{} is missing: the run wrote it, and it was removed since\n  help: the checkpoint cannot go on without it: restore the file, or start the run again", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A path given as a directory is a symbolic link that leads nowhere
    /// (a loop, or a missing target).
    #[error("{} is a symbolic link that leads nowhere (to itself, or to nothing)\n  help: give a directory, or a path where one can be made", path.display())]
    DanglingLink {
        /// The path.
        path: PathBuf,
    },
    /// A path given as a directory is something else.
    #[error("{} is not a directory\n  help: give a directory (it is created if it does not exist)", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// A file of the search is not a regular file (a device, a pipe, a
    /// directory): it is not read.
    #[error("{} is not a regular file (a device, a pipe or a directory): it cannot be part of a search's files", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
    },
    /// A link, a directory or another file that is not a regular one
    /// stands where the search writes a file of its own.
    #[error(
        "{} is a symbolic link or not a regular file, where the search writes a file of its own: nothing is written through it\n  help: remove it, or give the run a directory of its own",
        path.display()
    )]
    Planted {
        /// The path.
        path: PathBuf,
    },
}

/// The lock file in a spill or checkpoint directory: held (`flock`) for as
/// long as a run uses the directory, and holding the run's process id.
pub const LOCK: &str = "reach.lock";

/// Opens `path` for reading if it is a regular file: a FIFO is opened
/// without blocking and refused, as are devices and directories, so that
/// no read of a search's files can hang or run on without end.
pub(crate) fn open_regular(path: &Path) -> Result<std::fs::File, SpillError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => SpillError::Missing {
                path: path.to_path_buf(),
            },
            _ => SpillError::io(path, e),
        })?;
    let meta = file.metadata().map_err(|e| SpillError::io(path, e))?;
    if !meta.is_file() {
        return Err(SpillError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    Ok(file)
}

/// Writes `name` in `disk`'s directory whole: `fill` writes a temporary
/// (made as [`create_own`] makes files), which is synced and renamed over
/// `name`, and the directory synced, so a crash leaves the old file or
/// the new one, never part of one. An error of `fill` is the
/// temporary's.
pub(crate) fn write_whole(
    disk: &Disk,
    name: &str,
    fill: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> Result<(), SpillError> {
    let path = disk.dir().join(name);
    let tmp = disk.dir().join(format!("{name}.tmp"));
    let mut file = create_own(&tmp)?;
    fill(&mut file)
        .and_then(|()| file.sync_all())
        .map_err(|e| SpillError::io(&tmp, e))?;
    drop(file);
    std::fs::rename(&tmp, &path).map_err(|e| SpillError::io(&path, e))?;
    disk.sync_dir()
}

/// Creates `path`, a file of the search's own (a temporary, or the dense
/// array), anew for writing and reading. A regular file of the name (a
/// temporary that a killed run left) is unlinked first; a link or anything
/// else is refused, and the file is made with `O_EXCL | O_NOFOLLOW`, so
/// nothing outside the run's directory is written through a link planted
/// in it, even one planted in between.
pub(crate) fn create_own(path: &Path) -> Result<std::fs::File, SpillError> {
    use std::os::unix::fs::OpenOptionsExt;
    let planted = || SpillError::Planted {
        path: path.to_path_buf(),
    };
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => return Err(planted()),
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => planted(),
            _ if e.raw_os_error() == Some(libc::ELOOP) => planted(),
            _ => SpillError::io(path, e),
        })
}

/// Takes the lock of `dir`, or says who holds it.
fn lock(dir: &Path) -> Result<std::fs::File, SpillError> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(LOCK);
    let io = |e| SpillError::io(&path, e);
    // Another run may hold the lock, so it is opened, not made anew: a
    // link there is refused (`O_NOFOLLOW`), as is a FIFO or a directory
    // (`O_NONBLOCK`, then checked).
    let planted = || SpillError::Planted { path: path.clone() };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP | libc::EISDIR | libc::ENXIO) => planted(),
            _ => io(e),
        })?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(planted());
    }
    // SAFETY: flock takes a descriptor this function owns (it stays open
    // for the call) and flags; it touches no memory of ours.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::WouldBlock {
            let mut text = String::new();
            let _ = (&file).take(64).read_to_string(&mut text);
            return Err(SpillError::InUse {
                path: dir.to_path_buf(),
                pid: text.trim().parse().ok(),
            });
        }
        return Err(io(e));
    }
    // The id is for the message of whoever finds the directory locked; a
    // full disk that cannot take it leaves the lock as good.
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", std::process::id()));
    Ok(file)
}

impl SpillError {
    pub(crate) fn io(path: &Path, source: io::Error) -> SpillError {
        SpillError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// What to do about a failure of the system's ([`SpillError::Io`]):
    /// the other kinds say it in their message.
    pub fn help(&self) -> Option<&'static str> {
        let SpillError::Io { source, .. } = self else {
            return None;
        };
        Some(match source.raw_os_error() {
            Some(libc::EROFS) => {
                "the file system is read-only: give a directory on one that can be written"
            }
            Some(libc::EACCES | libc::EPERM) => {
                "this user may not write there: give a directory of your own"
            }
            Some(libc::ENOSPC | libc::EDQUOT) => {
                "the disk is full: free space there, or give a directory on a larger disk (the memory limit does not bound disk use)"
            }
            Some(libc::ENOENT | libc::ENOTDIR) => {
                "a directory above it does not exist: make it, or give a directory that does"
            }
            Some(libc::EMFILE | libc::ENFILE) => {
                "too many open files: raise `ulimit -n`, or use fewer partitions"
            }
            _ => "the disk or file system failed: check it (dmesg), then resume or start again",
        })
    }
}

/// How much disk a spilled search used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiskUse {
    /// The most bytes the search's files held at once.
    pub peak_bytes: u64,
    /// Bytes written, in all.
    pub written_bytes: u64,
    /// Bytes a key took in the level files written (headers, indexes and
    /// checksums included).
    pub bytes_per_key: f64,
    /// Seconds a dense search spent writing its checkpoint's levels (its
    /// only disk work; a search with its levels on disk writes them as it
    /// settles them, and says none).
    pub checkpoint_seconds: Option<f64>,
}

/// The spill directory, and what its files cost.
///
/// The counters are statistics and a fault-injection budget: each is
/// updated with one relaxed read-modify-write, which is atomic whatever
/// the ordering, and nothing else is published through them.
pub(crate) struct Disk {
    /// Whether this made the directory (it then removes it when it is
    /// left empty, or when the start fails).
    created: bool,
    /// The directory's lock, held while this is alive.
    lock: Option<std::fs::File>,
    dir: PathBuf,
    durable: bool,
    threshold: usize,
    /// Every run stays in memory ([`Spill::in_memory`]).
    in_memory: bool,
    fail_after: Option<u64>,
    written: AtomicU64,
    in_use: AtomicU64,
    peak: AtomicU64,
    level_bytes: AtomicU64,
    level_keys: AtomicU64,
}

impl Disk {
    pub(crate) fn new(spill: &Spill) -> Result<Disk, SpillError> {
        if spill.in_memory {
            return Ok(Disk {
                created: false,
                lock: None,
                dir: PathBuf::new(),
                durable: false,
                threshold: usize::MAX,
                in_memory: true,
                fail_after: None,
                written: AtomicU64::new(0),
                in_use: AtomicU64::new(0),
                peak: AtomicU64::new(0),
                level_bytes: AtomicU64::new(0),
                level_keys: AtomicU64::new(0),
            });
        }
        let link = std::fs::symlink_metadata(&spill.dir).is_ok_and(|m| m.is_symlink());
        if link && std::fs::metadata(&spill.dir).is_err() {
            return Err(SpillError::DanglingLink {
                path: spill.dir.clone(),
            });
        }
        if spill.dir.exists() && !spill.dir.is_dir() {
            return Err(SpillError::NotADirectory {
                path: spill.dir.clone(),
            });
        }
        let created = !spill.dir.exists();
        // Across processes, one that ends a search removes the shared
        // parent directory when it is left empty, which may fall between
        // the two steps of another's create_dir_all: then it tries again.
        let mut tries = 0;
        while let Err(e) = std::fs::create_dir_all(&spill.dir) {
            tries += 1;
            if e.kind() != io::ErrorKind::NotFound || tries == 8 {
                return Err(SpillError::io(&spill.dir, e));
            }
        }
        let lock = lock(&spill.dir).inspect_err(|_| {
            if created {
                let _ = std::fs::remove_file(spill.dir.join(LOCK));
                let _ = std::fs::remove_dir(&spill.dir);
            }
        })?;
        Ok(Disk {
            created,
            lock: Some(lock),
            dir: spill.dir.clone(),
            durable: spill.checkpoint,
            // Files to keep or to resume from must all be files.
            threshold: if spill.checkpoint || spill.keep {
                0
            } else {
                spill.memory_threshold
            },
            in_memory: false,
            fail_after: spill.fail_after,
            written: AtomicU64::new(0),
            in_use: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            level_bytes: AtomicU64::new(0),
            level_keys: AtomicU64::new(0),
        })
    }

    /// Removes the lock file (the lock itself goes with the descriptor):
    /// for a directory about to be removed, or left to its owner.
    pub(crate) fn unlock(&mut self) {
        if self.lock.take().is_some() {
            let _ = std::fs::remove_file(self.dir.join(LOCK));
        }
    }

    /// Unlocks the directory and, if this made it, removes it when it is
    /// empty; in a `cluster` (the directory one process's, DIR/process-I)
    /// DIR too, which the last process to leave it empty removes.
    pub(crate) fn leave(&mut self, cluster: bool) {
        self.unlock();
        if self.created {
            let _ = std::fs::remove_dir(&self.dir);
            if cluster && let Some(parent) = self.dir.parent() {
                let _ = std::fs::remove_dir(parent);
            }
        }
    }

    /// Whether this made the directory.
    pub(crate) fn created(&self) -> bool {
        self.created
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn durable(&self) -> bool {
        self.durable
    }

    pub(crate) fn memory_threshold(&self) -> usize {
        self.threshold
    }

    /// Whether every run stays in memory ([`Spill::in_memory`]): there is
    /// no directory.
    pub(crate) fn in_memory(&self) -> bool {
        self.in_memory
    }

    /// Keeps runs in memory only under `bytes` (at most): the caller's
    /// share of a memory budget for the runs it may hold at once (unless
    /// every run stays in memory).
    pub(crate) fn cap_memory_runs(&mut self, bytes: usize) {
        if !self.in_memory {
            self.threshold = self.threshold.min(bytes);
        }
    }

    /// Accounts for `n` bytes about to be written; fails as a full disk
    /// would once an injected fault's budget is spent.
    pub(crate) fn charge(&self, n: u64) -> io::Result<()> {
        let before = self.written.fetch_add(n, Ordering::Relaxed);
        if let Some(limit) = self.fail_after
            && before + n > limit
        {
            self.written.fetch_sub(n, Ordering::Relaxed);
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device (injected fault)",
            ));
        }
        let now = self.in_use.fetch_add(n, Ordering::Relaxed) + n;
        self.peak.fetch_max(now, Ordering::Relaxed);
        Ok(())
    }

    /// Accounts for a file of an earlier run (a resumed checkpoint's),
    /// which this one will delete.
    pub(crate) fn adopt<K: codec::Coded>(&self, file: &run::RunFile<K>) {
        let now = self.in_use.fetch_add(file.bytes(), Ordering::Relaxed) + file.bytes();
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    /// Accounts for `n` bytes no longer on disk.
    pub(crate) fn refund(&self, n: u64) {
        self.in_use.fetch_sub(n, Ordering::Relaxed);
    }

    /// Counts a level file toward the bytes a key costs.
    pub(crate) fn count_level<K: codec::Coded>(&self, file: &run::RunFile<K>) {
        self.level_bytes.fetch_add(file.bytes(), Ordering::Relaxed);
        self.level_keys.fetch_add(file.keys(), Ordering::Relaxed);
    }

    /// Deletes a run file (a no-op for a run kept in memory).
    pub(crate) fn remove<K: codec::Coded>(&self, file: run::RunFile<K>) {
        if file.on_disk() && std::fs::remove_file(file.path()).is_ok() {
            self.refund(file.bytes());
        }
    }

    /// Makes the directory's entries (renames, removals) durable.
    pub(crate) fn sync_dir(&self) -> Result<(), SpillError> {
        if !self.durable {
            return Ok(());
        }
        std::fs::File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| SpillError::io(&self.dir, e))
    }

    pub(crate) fn usage(&self) -> DiskUse {
        let keys = self.level_keys.load(Ordering::Relaxed);
        DiskUse {
            peak_bytes: self.peak.load(Ordering::Relaxed),
            written_bytes: self.written.load(Ordering::Relaxed),
            bytes_per_key: if keys == 0 {
                0.0
            } else {
                self.level_bytes.load(Ordering::Relaxed) as f64 / keys as f64
            },
            checkpoint_seconds: None,
        }
    }
}

/// A 64-bit digest of a puzzle's identity (FNV-1a): what every file of a
/// search carries, so that files of another puzzle are refused.
pub(crate) fn digest(identity: &str) -> u64 {
    identity.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
