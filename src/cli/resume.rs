//! `reach resume DIR`: a checkpointed count or solve again, from its last
//! complete level, with the outputs it was asked for; across ranks, each
//! rank from its own directory once all agree on the checkpoint.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use clap::Parser;

use reach::engine::Checkpoint;

use super::args::{Cli, Command, CountArgs, ResumeArgs};
use super::output::{self, say};
use super::settings::Settings;
use super::{census, cluster, count, exit, solve};

/// `reach resume DIR`: the checkpointed command again, from its checkpoint.
pub(super) fn resume(a: ResumeArgs, json: bool) -> Result<ExitCode> {
    // Each rank of an MPI job goes on from its own directory.
    let ranks = cluster::join(&a.cluster)?;
    let dir = match &ranks {
        Some(r) => a.dir.join(format!("process-{}", r.rank())),
        None => a.dir.clone(),
    };
    // A cluster's directory resumed as one process's: say how instead.
    let first = a.dir.join("process-0");
    if ranks.is_none() && !Checkpoint::exists(&dir) && Checkpoint::exists(&first) {
        let n = Checkpoint::open(&first)?.process().1;
        bail!(
            "{} holds the checkpoint of a run on {n} processes (one directory each): resume it on as many ranks, with `mpiexec -n {n} reach resume {}` (or `reach resume {} --local-processes {n}`)",
            a.dir.display(),
            a.dir.display(),
            a.dir.display()
        );
    }
    if let Some(r) = &ranks {
        check_rank_checkpoints(r, &a.dir, &dir)?;
    }
    let cp = Checkpoint::open(&dir)?;
    if ranks.is_none() && cp.process().1 > 1 {
        let (i, n) = cp.process();
        bail!(
            "{} is process {i} of a run on {n} processes: resume the whole run on {n} ranks, from the directory above it",
            a.dir.display()
        );
    }
    if let Some(max) = a.max_depth
        && max < cp.depth()
    {
        bail!(
            "{} is already at depth {} (levels 0 to {} are saved): --max-depth {max} is below it\n  help: give --max-depth {} or more (without it, the run's own limits hold)",
            a.dir.display(),
            cp.depth(),
            cp.depth(),
            cp.depth()
        );
    }
    let argv: Vec<String> = cp
        .record()
        .get("argv")
        .ok_or_else(|| {
            anyhow!(
                "{} was not written by the reach command line (no command recorded)\n  help: resume it through the library, with Search::resume",
                a.dir.display()
            )
        })?
        .split('\u{1f}')
        .map(String::from)
        .collect();
    let cli = Cli::try_parse_from(std::iter::once("reach".to_string()).chain(argv.clone()))
        .map_err(|e| anyhow!("the checkpoint's command line does not parse: {e}"))?;
    if cli.json {
        output::json_errors(exit::INTERNAL);
    }
    let json = json || cli.json;
    let mut command = cli.command.unwrap_or(Command::Count(CountArgs {
        puzzle: "pe766".into(),
        options: cli.bare,
    }));
    if ranks.as_ref().is_none_or(|r| r.rank() == 0) {
        resumed_outputs(&mut command, cp.record(), a.force)?;
    }
    if let Some(mark) = cp.record().get("outputs_mark") {
        output::mark_outputs(mark);
    }
    let text = cp.record().get("puzzle_text").cloned();
    // The limits given to this resume replace the run's in its record, so
    // that a resume of this resume keeps them.
    let mut recorded = argv.clone();
    for (flag, value) in [
        ("--max-depth", a.max_depth.map(|d| d.to_string())),
        ("--max-states", a.max_states.map(|n| n.to_string())),
        ("--memory-limit", a.memory_limit.map(|b| b.to_string())),
    ] {
        if let Some(value) = value {
            recorded = without_flag(&recorded, flag);
            recorded.extend([flag.to_string(), value]);
        }
    }
    // The command's own settings, with what the resume changes of them.
    let resumed = |mut s: Settings, cp: Checkpoint| {
        s.threads = a.run.threads.unwrap_or(s.threads);
        s.verbose |= a.run.verbose;
        s.quiet = a.run.quiet;
        s.limits.max_states = a.max_states.or(s.limits.max_states);
        s.limits.max_depth = a.max_depth.or(s.limits.max_depth);
        s.limits.memory_limit = a.memory_limit.or(s.limits.memory_limit);
        s.puzzle_text = text.clone();
        s.resume = Some(cp);
        s.resume_dir = Some(a.dir.clone());
        s.resume_argv = Some(recorded.clone());
        s
    };
    match command {
        Command::Count(mut c) => {
            let mut s = resumed(Settings::of_count(&c.options, json), cp);
            c.options.cluster = a.cluster.clone();
            s.join_ranks(ranks, &c.options.cluster);
            count::count(&c, &s)
        }
        Command::Solve(mut c) => {
            let mut s = resumed(Settings::of_solve(&c, json), cp);
            c.cluster = a.cluster.clone();
            s.join_ranks(ranks, &c.cluster);
            solve::solve(&c, &s)
        }
        Command::Census(mut c) => {
            // `--toml DIR` leads where it led for the run.
            if let (Some(dir), Some(cwd)) = (&mut c.toml, cp.record().get("cwd"))
                && dir.is_relative()
            {
                *dir = Path::new(cwd).join(&*dir);
            }
            let mut s = resumed(Settings::of_census(&c, json), cp);
            c.cluster = a.cluster.clone();
            s.join_ranks(ranks, &c.cluster);
            census::census(&c, &s)
        }
        _ => bail!(
            "{} holds no count, solve or census to resume",
            a.dir.display()
        ),
    }
}

/// `argv` without `flag` and its value (`--flag V` or `--flag=V`).
fn without_flag(argv: &[String], flag: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut skip = false;
    for arg in argv {
        if std::mem::take(&mut skip) {
            continue;
        }
        if arg == flag {
            skip = true;
        } else if !arg
            .strip_prefix(flag)
            .is_some_and(|rest| rest.starts_with('='))
        {
            out.push(arg.clone());
        }
    }
    out
}

/// The output files of a resumed command: a relative path leads where it
/// led for the run that made the checkpoint (from the directory it ran
/// in), and is said; a file there that this run did not write (it carries
/// the run's mark) is refused unless `force`.
fn resumed_outputs(
    command: &mut Command,
    record: &BTreeMap<String, String>,
    force: bool,
) -> Result<()> {
    let outputs: Vec<(&str, &mut Option<PathBuf>)> = match command {
        Command::Count(c) => vec![("--plot", &mut c.options.plot)],
        Command::Solve(c) => vec![("--html", &mut c.html), ("--svg", &mut c.svg)],
        _ => Vec::new(),
    };
    let cwd = record.get("cwd").map(PathBuf::from);
    let mark = record.get("outputs_mark").map(String::as_str);
    for (flag, path) in outputs {
        let Some(path) = path else { continue };
        if path.is_relative()
            && let Some(cwd) = &cwd
        {
            *path = cwd.join(&*path);
        }
        let there = std::fs::symlink_metadata(&*path).is_ok();
        let own = output::carries_mark(path, mark);
        if there && !force && !own {
            bail!(
                "{} is there already, and the run that made this checkpoint did not write it: resuming would replace it with the run's {flag}\n  help: move it away, or give --force to replace it",
                path.display()
            );
        }
        say!(
            "resume: {flag} goes to {}{}",
            path.display(),
            match (there, own) {
                (false, _) => "",
                (true, true) => ", replacing the run's own",
                (true, false) => ", replacing what is there (--force)",
            }
        );
    }
    Ok(())
}

/// Every rank's checkpoint, each checked by its own rank and the verdicts
/// gathered, so that all refuse alike (a rank that stopped alone would
/// leave the others waiting for it): each directory must be there and be
/// its rank's, of a run on as many ranks.
fn check_rank_checkpoints(r: &cluster::Ranks, whole: &Path, own: &Path) -> Result<()> {
    let verdict = if !Checkpoint::exists(own) {
        [1, 0]
    } else {
        match Checkpoint::open(own) {
            Ok(cp) if cp.process() == (r.rank(), r.size()) => [0, 0],
            Ok(cp) => [2, cp.process().1 as u64],
            Err(_) => [3, 0],
        }
    };
    let all = r.gather(&verdict)?;
    let Some(bad) = all.iter().position(|v| v.first() != Some(&0)) else {
        return Ok(());
    };
    let theirs = whole.join(format!("process-{bad}"));
    match all[bad][..] {
        [1, _] => bail!(
            "{} holds no checkpoint of rank {bad} (no {}): every rank of the run resumes from its own directory\n  help: give the directory of a whole run, on as many ranks as it had",
            whole.display(),
            theirs.join("checkpoint.toml").display()
        ),
        [2, n] => bail!(
            "{} is the checkpoint of a run on {n} processes, and this job has {} ranks\n  help: resume it on {n} ranks: `mpiexec -n {n} reach resume {}`",
            theirs.display(),
            r.size(),
            whole.display()
        ),
        _ => bail!(
            "{}: the checkpoint of rank {bad} does not read (`reach resume {}` alone says why)",
            theirs.display(),
            theirs.display()
        ),
    }
}
