//! The build script: the commit the binary is built from, for `--json`'s
//! `run` object (`REACH_COMMIT`, absent outside a git checkout, as in a
//! crate downloaded from a registry).

use std::path::PathBuf;
use std::process::Command;

/// `git ARGS` in the package's directory, its trimmed output if it ran.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-changed=src/build.rs");
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=REACH_COMMIT={commit}");
    // Run again when HEAD moves: its file, the branch it names, and the
    // packed refs (each only if it exists: a missing one would run this
    // script on every build).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = PathBuf::from(dir);
        let mut watched = vec![dir.join("HEAD"), dir.join("packed-refs")];
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(dir.join(branch));
        }
        for path in watched.into_iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
