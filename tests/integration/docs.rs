//! Every command that README.md and docs/*.md show is run here, so that
//! none goes stale:
//!
//! - A ` ```console ` block is a transcript. Each `$ ` line is run with
//!   `sh -c` (`reach` on the PATH), and the lines below it, up to the next
//!   `$ ` line, must be its stdout: a line `…` stands for any number of
//!   lines, and `…` within a line for any text. A command ends with exit 0
//!   unless its line ends with `# exit N`.
//! - A ` ```sh ` block's commands run in their cheap form: `reach ...`
//!   (also as `cargo run --release -- ...`, `target/release/reach`,
//!   `mpiexec -n N reach ...` or `srun reach ...`) on one process, with
//!   `--max-states` added to each command that searches; it must end with
//!   0 or 3 (a limit), never a usage error. A `scripts/NAME` line names a
//!   script that exists and documents every flag the line gives it; the
//!   scripts run in CI (`.ci/run`) or by hand, each with its own checks.
//!
//! Other blocks (`text`, `toml`, `bash` for batch scripts, `json`) are not
//! run. Each block runs in a directory of its own, where `tests/`, `src/`
//! and `scripts/` lead to the repository's and `~` is that directory.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The states a cheap form may search: enough to start every kind of
/// search, few enough for a test.
const CHEAP_STATES: &str = "200000";

struct Block {
    file: String,
    line: usize,
    lang: String,
    body: Vec<String>,
}

fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        file: path.display().to_string(),
                        line: i + 1,
                        lang: rest.trim().to_string(),
                        body: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = &mut open {
            b.body.push(line.to_string());
        }
    }
    out
}

fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// A directory for one block's commands, with the repository's data;
/// removed when dropped.
struct Workdir(PathBuf);

impl Workdir {
    fn new() -> Workdir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("reach-docs-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for name in ["tests", "src", "scripts"] {
            std::os::unix::fs::symlink(root.join(name), dir.join(name)).unwrap();
        }
        Workdir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `line` with `sh -c` in `dir`: exit code, stdout, stderr.
fn sh(line: &str, dir: &Path) -> (i32, String, String) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_reach"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir)
        .env_remove("REACH_MPIEXEC")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether `got` matches the expected line `want`, where `…` is any text.
fn line_matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split('…').collect();
    if parts.len() == 1 {
        return want == got;
    }
    let mut rest = got;
    for (i, part) in parts.iter().enumerate() {
        match rest.find(part) {
            Some(at) if i > 0 || at == 0 => rest = &rest[at + part.len()..],
            _ => return false,
        }
    }
    parts
        .last()
        .is_some_and(|p| p.is_empty() || got.ends_with(p))
}

/// Whether the lines `got` match `want`, where a line `…` is any lines.
fn lines_match(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((&"…", rest)) => (0..=got.len()).any(|k| lines_match(rest, &got[k..])),
        Some((w, rest)) => {
            !got.is_empty() && line_matches(w, got[0]) && lines_match(rest, &got[1..])
        }
    }
}

fn transcript(b: &Block, failures: &mut Vec<String>) {
    let dir = Workdir::new();
    let mut i = 0;
    while i < b.body.len() {
        let Some(command) = b.body[i].strip_prefix("$ ") else {
            i += 1;
            continue;
        };
        let at = b.line + 1 + i;
        i += 1;
        let mut want = Vec::new();
        while i < b.body.len() && !b.body[i].starts_with("$ ") {
            want.push(b.body[i].as_str());
            i += 1;
        }
        while want.last().is_some_and(|l| l.is_empty()) {
            want.pop();
        }
        let (command, code) = match command.rsplit_once("# exit ") {
            Some((c, n)) => (c.trim_end(), n.trim().parse().unwrap()),
            None => (command, 0),
        };
        let (got_code, out, err) = sh(command, dir.path());
        let got: Vec<&str> = out.lines().collect();
        if got_code != code || !lines_match(&want, &got) {
            failures.push(format!(
                "{}:{at}: `{command}` exited {got_code} (want {code}); stdout:\n{out}\nwanted:\n{}\nstderr:\n{err}",
                b.file,
                want.join("\n")
            ));
        }
    }
}

/// The cheap form of a shown command: `reach ARGS` on one process with a
/// limit, or `None` when the line is not reach's (or is this test's own
/// `cargo test`).
fn cheap(line: &str) -> Option<String> {
    let line = line.split(" # ").next().unwrap_or(line).trim();
    let mut words: Vec<&str> = line.split_whitespace().collect();
    // The launcher and the binary's path, as the docs give them.
    if words.first() == Some(&"mpiexec") && words.get(1) == Some(&"-n") {
        words.drain(..3);
    } else if words.first() == Some(&"srun") {
        words.remove(0);
    }
    if words.starts_with(&["cargo", "run", "--release", "--"]) {
        words.splice(..4, ["reach"]);
    }
    match words.first() {
        Some(&"target/release/reach") | Some(&"target/mpi/release/reach") => words[0] = "reach",
        Some(&"reach") => {}
        _ => return None,
    }
    // One process here: no launcher to hand the ranks to.
    if let Some(at) = words.iter().position(|w| *w == "--local-processes") {
        words.drain(at..at + 2);
    }
    // A limit before any redirection or pipe, for the commands that search.
    let end = words
        .iter()
        .position(|w| ["|", "<", ">", "2>&1"].contains(w))
        .unwrap_or(words.len());
    let searches = match words.get(1) {
        Some(c) => ["count", "solve", "hardest", "resume"].contains(c) || c.starts_with('-'),
        None => true,
    };
    if searches && !words[..end].contains(&"--max-states") {
        words.insert(end, CHEAP_STATES);
        words.insert(end, "--max-states");
    }
    Some(words.join(" "))
}

fn commands(b: &Block, failures: &mut Vec<String>) {
    let dir = Workdir::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (i, line) in b.body.iter().enumerate() {
        let at = b.line + 1 + i;
        let shown = line.trim();
        if let Some(script) = shown.strip_prefix("scripts/") {
            let mut words = script.split_whitespace();
            let name = words.next().unwrap();
            let text = std::fs::read_to_string(root.join("scripts").join(name))
                .unwrap_or_else(|_| panic!("{}:{at}: no script scripts/{name}", b.file));
            for flag in words.take_while(|w| *w != "#" && *w != "--") {
                if flag.starts_with("--") && !text.contains(flag) {
                    failures.push(format!(
                        "{}:{at}: scripts/{name} does not document {flag}",
                        b.file
                    ));
                }
            }
            continue;
        }
        let Some(command) = cheap(shown) else {
            continue;
        };
        let (code, out, err) = sh(&command, dir.path());
        if code != 0 && code != 3 {
            failures.push(format!(
                "{}:{at}: `{command}` (for `{shown}`) exited {code}\nstdout:\n{out}\nstderr:\n{err}",
                b.file
            ));
        }
    }
}

#[test]
fn every_command_in_the_readme_and_docs_runs_as_shown() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        for b in blocks(&doc) {
            match b.lang.as_str() {
                "console" => transcript(&b, &mut failures),
                "sh" => commands(&b, &mut failures),
                _ => continue,
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} blocks of commands found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_matcher_of_transcripts_is_strict() {
    assert!(lines_match(&["a", "…", "d"], &["a", "b", "c", "d"]));
    assert!(lines_match(&["a", "…"], &["a"]));
    assert!(!lines_match(&["a", "d"], &["a", "b", "d"]));
    assert!(!lines_match(&["a"], &["a", "b"]));
    assert!(line_matches("time … s, … threads", "time 0.7 s, 2 threads"));
    assert!(!line_matches("time … s", "time 0.7 ms!"));
    assert!(!line_matches("x…", "yx"));
    assert_eq!(
        cheap("mpiexec -n 2 target/release/reach count eleven -j 8   # rank 0").as_deref(),
        Some("reach count eleven -j 8 --max-states 200000")
    );
    assert_eq!(
        cheap("cargo run --release -- --threads 16").as_deref(),
        Some("reach --threads 16 --max-states 200000")
    );
    assert_eq!(cheap("cargo test --release"), None);
    assert_eq!(
        cheap("reach sawtooth < tests/data/sawtooth.sample.in").as_deref(),
        Some("reach sawtooth < tests/data/sawtooth.sample.in")
    );
}
