//! Writing to stdout and stderr: a closed stdout (`reach … | head`) ends
//! the output quietly instead of as an error, and progress goes to stderr
//! only when a person is watching.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use reach::engine::{Progress, memory};

/// Stdout could not be written (a full disk, an I/O error): not the
/// input's fault, so it has an exit code of its own.
#[derive(Debug)]
pub struct OutputError(pub io::Error);

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write the output: {}\n  help: check the disk or pipe that stdout goes to",
            self.0
        )
    }
}

impl std::error::Error for OutputError {}

/// An output file (`--plot`, `--html`, `--svg`) that cannot be written:
/// exit code 4, like stdout, with the file named.
#[derive(Debug)]
pub struct FileError {
    pub path: std::path::PathBuf,
    pub what: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write {}: {}\n  help: give a path in a directory that exists and that you can write to",
            self.path.display(),
            self.what
        )
    }
}

impl std::error::Error for FileError {}

/// The directory `path` would be written in.
fn directory_of(path: &std::path::Path) -> &std::path::Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    }
}

/// Where an output file's bytes go.
enum Target {
    /// A regular file, or nothing yet (or a link, which is replaced, not
    /// followed): a temporary file beside it, renamed over it when whole.
    Replace,
    /// An open file descriptor of this process (`/dev/stdout`,
    /// `/dev/fd/N`, a shell's `>(cmd)`): written as it is, never renamed
    /// over and never reopened.
    Descriptor(i32),
    /// A character device or a FIFO: opened after the search (a FIFO's
    /// open waits for its reader) and written straight through.
    Through,
}

/// An output path that no output may go to (a block device, a socket, a
/// directory): the command line's mistake, exit 2, before the search.
#[derive(Debug)]
pub struct UnfitOutput {
    pub path: std::path::PathBuf,
    pub what: &'static str,
}

impl std::fmt::Display for UnfitOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write {}: it is {}\n  help: give the path of a regular file (it is replaced when whole), a FIFO, a character device such as /dev/null, or /dev/stdout",
            self.path.display(),
            self.what
        )
    }
}

impl std::error::Error for UnfitOutput {}

/// The descriptor a path names by itself: `/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N`, `/proc/self/fd/N`.
fn descriptor_of(path: &std::path::Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => Some(0),
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => text
            .strip_prefix("/dev/fd/")
            .or_else(|| text.strip_prefix("/proc/self/fd/"))?
            .parse()
            .ok(),
    }
}

/// How `path` is written, from what is there now (nothing is opened: a
/// FIFO's open would wait for a reader).
fn target_of(path: &std::path::Path) -> Result<Target, anyhow::Error> {
    use std::os::unix::fs::FileTypeExt;
    if let Some(fd) = descriptor_of(path) {
        // SAFETY: F_GETFD only reads the descriptor's flags; an fd that
        // is not open gives -1 (EBADF), and nothing is changed.
        let open = unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1;
        if !open {
            return Err(FileError {
                path: path.to_path_buf(),
                what: format!("descriptor {fd} is not open in this process"),
            }
            .into());
        }
        return Ok(Target::Descriptor(fd));
    }
    let unfit = |what| UnfitOutput {
        path: path.to_path_buf(),
        what,
    };
    // Followed through links: a link to a device is written through, a
    // link to a regular file (or to nothing) is replaced as ever.
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(Target::Replace);
    };
    let kind = meta.file_type();
    if kind.is_file() {
        Ok(Target::Replace)
    } else if kind.is_char_device() || kind.is_fifo() {
        Ok(Target::Through)
    } else if kind.is_dir() {
        Err(unfit("a directory").into())
    } else if kind.is_block_device() {
        Err(unfit("a block device (a disk: reach never writes one)").into())
    } else if kind.is_socket() {
        Err(unfit("a socket").into())
    } else {
        Err(unfit("neither a regular file, a FIFO nor a character device").into())
    }
}

/// Checks, before any work, that `path` can be written: a regular file
/// (or a new one) in a directory that exists and takes a new file, an
/// open descriptor, or a device or FIFO this process may write (asked
/// without opening it, so no check waits for a FIFO's reader).
pub fn check_output(path: &std::path::Path) -> Result<(), anyhow::Error> {
    let fail = |what: String| FileError {
        path: path.to_path_buf(),
        what,
    };
    match target_of(path)? {
        Target::Descriptor(_) => return Ok(()),
        Target::Through => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
                .map_err(|e| fail(e.to_string()))?;
            // SAFETY: `c` is a NUL-terminated path that lives across the
            // call; access(2) only reads it.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
                return Err(fail(io::Error::last_os_error().to_string()).into());
            }
            return Ok(());
        }
        Target::Replace => {}
    }
    let dir = directory_of(path);
    if !dir.is_dir() {
        return Err(fail(format!("{} is not a directory that exists", dir.display())).into());
    }
    // A file made and removed at once says whether the directory takes one.
    let probe = dir.join(format!(".reach-probe-{}", std::process::id()));
    create_new(&probe).map_err(|e| fail(e.to_string()))?;
    let _ = std::fs::remove_file(&probe);
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| fail(e.to_string()))?;
    }
    Ok(())
}

/// Writes `bytes` to `path`: a regular file through a temporary file in
/// the same directory and a rename (a full disk or a failure leaves no
/// half-written file and no empty one, and an older file of that name
/// stays until the new one is whole); a descriptor, a device or a FIFO
/// straight through, never replaced.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<(), FileError> {
    let fail = |e: io::Error| FileError {
        path: path.to_path_buf(),
        what: e.to_string(),
    };
    match target_of(path) {
        Ok(Target::Descriptor(fd)) => {
            use std::os::fd::FromRawFd;
            // SAFETY: dup(2) of a descriptor gives a new descriptor (or -1)
            // that this process owns alone, which the File then closes.
            let own = unsafe { libc::dup(fd) };
            if own < 0 {
                return Err(fail(io::Error::last_os_error()));
            }
            // SAFETY: `own` is open and owned by nothing else (above).
            let mut file = unsafe { std::fs::File::from_raw_fd(own) };
            return file
                .write_all(bytes)
                .and_then(|_| file.flush())
                .map_err(fail);
        }
        Ok(Target::Through) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(fail)?;
            return file.write_all(bytes).map_err(fail);
        }
        Ok(Target::Replace) => {}
        Err(e) => {
            return Err(FileError {
                path: path.to_path_buf(),
                what: e.to_string(),
            });
        }
    }
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let temp = directory_of(path).join(format!(".{name}.reach-{}.tmp", std::process::id()));
    let mark = MARK.get().map(|m| mark_line(m, bytes)).unwrap_or_default();
    let written = create_new(&temp)
        .and_then(|mut f| {
            f.write_all(bytes)
                .and_then(|_| f.write_all(mark.as_bytes()))
                .and_then(|_| f.sync_all())
        })
        .and_then(|_| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        fail(e)
    })
}

/// Whether anything was written to stdout: with `--json` it is the one
/// document of the run, and an error after it goes to stderr alone.
/// (One flag, read and set by swaps: no other memory hangs on it.)
static PRINTED: AtomicBool = AtomicBool::new(false);

/// Whether an error ends with a JSON document on stdout (`--json`, given
/// or recorded in the checkpoint a resume goes on from).
static JSON: AtomicBool = AtomicBool::new(false);

/// Makes `path` anew for writing: never through a link planted there
/// (`O_NOFOLLOW`), never into a file that is there (`O_EXCL`). A regular
/// file of the name (a temporary a killed run left) is removed first.
fn create_new(path: &std::path::Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let open = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(path)?;
                return open();
            }
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "a link or another file that is not a regular one is in the way of its temporary file",
            ))
        }
        other => other,
    }
}

/// The mark of the checkpointed run that this process is, once set: its
/// output files end with it ([`write_output`]), so that a resume knows
/// them for the run's own ([`carries_mark`]).
static MARK: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// A mark no other run has (64 random bits, from the standard library's
/// randomly keyed hasher).
pub fn new_mark() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:016x}", h.finish())
}

/// From here on output files end with `mark` (see [`MARK`]).
pub fn mark_outputs(mark: &str) {
    let _ = MARK.set(mark.to_string());
}

/// The last line of an output file of the run marked `mark`: a comment in
/// the file's own syntax (SVG and HTML, or TOML).
fn mark_line(mark: &str, bytes: &[u8]) -> String {
    let text = format!("written by reach, checkpointed run {mark}");
    if bytes.trim_ascii_start().starts_with(b"<") {
        format!("<!-- {text} -->\n")
    } else {
        format!("# {text}\n")
    }
}

/// Whether the regular file at `path` ends with the mark `mark`.
pub fn carries_mark(path: &std::path::Path, mark: Option<&str>) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Some(mark) = mark.filter(|m| !m.is_empty()) else {
        return false;
    };
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut tail = Vec::new();
    let read = std::fs::File::open(path).and_then(|mut f| {
        let len = f.metadata()?.len();
        f.seek(SeekFrom::Start(len.saturating_sub(128)))?;
        f.take(128).read_to_end(&mut tail)
    });
    let want = format!("checkpointed run {mark}");
    read.is_ok() && String::from_utf8_lossy(&tail).contains(&want)
}

/// Writes `text` to stdout. A broken pipe is not an error: the reader has
/// what it wanted.
pub fn stdout(text: &str) -> Result<(), OutputError> {
    PRINTED.store(true, Ordering::Relaxed);
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(OutputError),
    }
}

/// The JSON document of an error (`--json`), unless stdout already holds
/// the run's document: `{"error": {"message", "help", "exit"}}`, where
/// `text` is the error as stderr shows it (`error: ...`, then `help:` or
/// clap's `tip:` and usage lines).
pub fn json_error(text: &str, exit: u8) {
    if !JSON.load(Ordering::Relaxed) || PRINTED.swap(true, Ordering::Relaxed) {
        return;
    }
    let text = text.trim();
    let text = text.strip_prefix("error: ").unwrap_or(text);
    let (message, help) = match text.split_once("\n") {
        Some((first, rest)) => (first.trim(), rest.trim()),
        None => (text, ""),
    };
    let help: Vec<&str> = help
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("help: ")
                .trim_start_matches("tip: ")
        })
        .filter(|l| !l.is_empty())
        .collect();
    let doc = serde_json::json!({
        "error": { "message": message, "help": help.join("\n"), "exit": exit }
    });
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{doc}").and_then(|_| out.flush());
}

/// From here on every error ends with a JSON document on stdout
/// ([`json_error`]); a panic too (after the usual message on stderr),
/// named an internal error with exit code `exit`.
pub fn json_errors(exit: u8) {
    if JSON.swap(true, Ordering::Relaxed) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map_or(String::new(), |l| format!(" at {l}"));
        json_error(
            &format!(
                "internal error{at}: {what}\nhelp: this is a bug in reach: please report it with the command line"
            ),
            exit,
        );
    }));
}

/// Writes `text` to stderr, ignoring failures: a closed or full stderr
/// (`2>&1 | head`, `2>/dev/full`) leaves nowhere to report them, and the
/// results on stdout still count.
pub fn stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` that never panics (see [`stderr`]).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::output::stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

/// Human-readable byte counts.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Shows progress on stderr. With `verbose`, a line per level. Otherwise,
/// when stderr is a terminal and the run has lasted over a second, one line
/// rewritten in place; when it is not (a pipe, a log file, a batch job), a
/// plain line every [`PLAIN_EVERY`] seconds once the run has lasted that
/// long, from a thread of its own, so that a level that takes minutes is
/// not silent. `quiet` turns the last two off.
pub struct ProgressLine {
    verbose: bool,
    live: bool,
    state: Arc<Mutex<Shown>>,
    /// Whether plain lines are printed off a terminal.
    plain: bool,
    /// Their thread: dropping the sender stops it.
    ticker: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
}

/// What the progress line last showed, and when.
struct Shown {
    /// When the live line was last drawn; whether it is on screen.
    drawn_at: Instant,
    drawn: bool,
    /// The last level's progress (made a line only when printed).
    last: Option<Progress>,
    /// When the search began.
    started: Instant,
}

/// How often a plain progress line is printed, in seconds: 10, or
/// `REACH_PROGRESS_SECONDS` (documented in docs/guide.md; the tests set it
/// low).
fn plain_every() -> f64 {
    std::env::var("REACH_PROGRESS_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|&v| v > 0.0 && v.is_finite())
        .unwrap_or(PLAIN_EVERY)
}

/// Seconds between plain progress lines when stderr is not a terminal.
pub const PLAIN_EVERY: f64 = 10.0;

impl ProgressLine {
    /// Progress for a search: `verbose` for a line per level; `quiet` for
    /// none but those (also on a cluster's ranks other than the first,
    /// which leave stderr to rank 0).
    pub fn new(verbose: bool, quiet: bool) -> ProgressLine {
        let live = !quiet && io::stderr().is_terminal();
        let state = Arc::new(Mutex::new(Shown {
            drawn_at: Instant::now(),
            drawn: false,
            last: None,
            started: Instant::now(),
        }));
        let plain = !verbose && !quiet && !live;
        let ticker = plain.then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let state = Arc::clone(&state);
            let every = Duration::from_secs_f64(plain_every());
            let thread = std::thread::spawn(move || {
                let mut next = every;
                loop {
                    // (The lock is let go before the wait: `update` takes it.)
                    let wait = next.saturating_sub(lock(&state).started.elapsed());
                    // Ends when the sender is dropped (finish or drop).
                    if stopped.recv_timeout(wait) != Err(mpsc::RecvTimeoutError::Timeout) {
                        break;
                    }
                    let shown = lock(&state);
                    let elapsed = shown.started.elapsed();
                    if elapsed < next {
                        continue;
                    }
                    let line = match &shown.last {
                        Some(p) if !p.stage.is_empty() => line_of(p),
                        Some(p) => {
                            let line = line_of(p);
                            let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
                            format!("depth {} running; last level: {line}", p.depth + 1)
                        }
                        None => "depth 1 running".to_string(),
                    };
                    drop(shown);
                    let _ = writeln!(
                        io::stderr().lock(),
                        "progress: {} in, {line}",
                        duration(elapsed.as_secs_f64())
                    );
                    next = elapsed + every;
                }
            });
            (stop, thread)
        });
        ProgressLine {
            verbose,
            live,
            state,
            plain,
            ticker: Mutex::new(ticker),
        }
    }

    pub fn update(&self, p: &Progress) {
        if !self.verbose && !self.live && !self.plain {
            return;
        }
        let mut state = lock(&self.state);
        if self.plain {
            // The plain lines' thread makes it a line when its time comes
            // (a level costs a copy, not a read of /proc).
            state.last = Some(p.clone());
            return;
        }
        // Redraw at most ten times a second, and only after the first second.
        let redraw = self.live && p.seconds > 1.0 && state.drawn_at.elapsed().as_millis() >= 100;
        if !self.verbose && !redraw {
            return;
        }
        let line = line_of(p);
        let mut err = io::stderr().lock();
        if self.verbose {
            let _ = writeln!(err, "{line}");
        } else {
            let _ = write!(err, "\r{line}\x1b[K");
            state.drawn_at = Instant::now();
            state.drawn = true;
        }
    }

    /// Clears the live line, if one was drawn, and stops the plain lines.
    pub fn finish(&self) {
        self.stop_ticker();
        let state = lock(&self.state);
        if state.drawn {
            let _ = write!(io::stderr(), "\r\x1b[K");
        }
    }

    /// Stops the plain lines' thread, if there is one, and waits for it.
    fn stop_ticker(&self) {
        let ticker = self.ticker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((stop, thread)) = ticker {
            drop(stop);
            let _ = thread.join();
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

/// The progress line of a level.
fn line_of(p: &Progress) -> String {
    if !p.stage.is_empty() {
        // A census: a stage's positions done, of how many.
        let of = p.expected_states.filter(|&n| n > 0);
        return format!(
            "{}: {}{} positions{}, {} resident",
            p.stage,
            p.total_states,
            of.map_or(String::new(), |n| format!(" of {n}")),
            if p.depth > 0 {
                format!(" (distance {})", p.depth)
            } else {
                String::new()
            },
            memory::current_rss_bytes().map_or("?".into(), bytes),
        );
    }
    let rate = p.total_states as f64 / p.seconds.max(1e-9);
    let mut line = format!(
        "depth {:>4}: {:>12} states in level, {:>13} in all, {:>6.1} M states/s, {} resident",
        p.depth,
        p.level_states,
        p.total_states,
        rate / 1e6,
        memory::current_rss_bytes().map_or("?".into(), bytes),
    );
    // At the rate so far: the thin first levels run slower than the
    // wide middle ones, so the estimate falls faster than the clock.
    if let Some(expected) = p.expected_states
        && p.seconds > 1.0
    {
        let left = expected.saturating_sub(p.total_states) as f64 / rate.max(1.0);
        line.push_str(&format!(", about {} left", duration(left)));
    }
    line
}

/// The progress state, even if a thread panicked while holding it (a line
/// of progress is never worth a second panic).
fn lock(state: &Mutex<Shown>) -> std::sync::MutexGuard<'_, Shown> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seconds as a short duration: `45 s`, `12 min`, `3.2 h`.
fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `n` and its noun, singular or plural: "1 state", "2 states", "1 process".
pub fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_are_never_written_through_a_link() {
        let dir = std::env::temp_dir().join(format!("reach-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (victim, temp) = (dir.join("victim"), dir.join("temp"));
        std::fs::write(&victim, "safe").unwrap();
        std::os::unix::fs::symlink(&victim, &temp).unwrap();
        assert!(create_new(&temp).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "safe");
        // A stale regular file of the name is replaced.
        std::fs::remove_file(&temp).unwrap();
        std::fs::write(&temp, "stale").unwrap();
        create_new(&temp).unwrap().write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&temp).unwrap(), "new");
        // A link at the output itself is replaced by the file, not followed.
        let out = dir.join("out.svg");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        write_output(&out, b"<svg/>").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "safe");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "<svg/>");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
