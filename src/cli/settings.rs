//! What the commands that search share: their settings (threads, limits,
//! storage, the checkpoint a resume continues, the cluster's ranks), the
//! signals that stop them, and the engine's `Search` built from them.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, bail};

use reach::engine::{
    Checkpoint, Model, Outcome, Progress, Report, Search, Solution, Spill, StopReason, VisitedKind,
    memory,
};

use super::args::{
    CensusArgs, ClusterArgs, CountOptions, HardestArgs, LimitArgs, RunArgs, SolveArgs, StorageArgs,
};
use super::output::{self, bytes, say};
use super::{cluster, exit};

/// Flags raised by SIGINT and SIGTERM. The first signal raises `stop` (the
/// search ends at the next level boundary and reports what it has); a second
/// one exits at once.
pub(super) struct Signals {
    pub(super) stop: Arc<AtomicBool>,
    pub(super) sigterm: Arc<AtomicBool>,
}

impl Signals {
    pub(super) fn install() -> Signals {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        let stop = Arc::new(AtomicBool::new(false));
        let sigterm = Arc::new(AtomicBool::new(false));
        // The conditional shutdowns come first: handlers run in the order
        // they were registered, so on the first signal `stop` is still clear
        // when they look at it. Registration only fails for forbidden
        // signals, which these are not; without handlers the default (exit
        // at once) still applies, so failures are ignored.
        let _ =
            flag::register_conditional_shutdown(SIGINT, i32::from(exit::SIGINT), Arc::clone(&stop));
        let _ = flag::register_conditional_shutdown(
            SIGTERM,
            i32::from(exit::SIGTERM),
            Arc::clone(&stop),
        );
        // `sigterm` before `stop`, each stored SeqCst by signal-hook: the
        // search that sees `stop` sees `sigterm` too (see
        // Search::terminated_flag) and names the stop `terminated`.
        let _ = flag::register(SIGTERM, Arc::clone(&sigterm));
        let _ = flag::register(SIGINT, Arc::clone(&stop));
        let _ = flag::register(SIGTERM, Arc::clone(&stop));
        Signals { stop, sigterm }
    }
}

/// Settings shared by the commands that search.
#[derive(Clone)]
pub(super) struct Settings {
    pub(super) threads: usize,
    pub(super) json: bool,
    pub(super) verbose: bool,
    /// No progress lines (`--quiet`).
    pub(super) quiet: bool,
    pub(super) limits: LimitArgs,
    pub(super) visited: VisitedKind,
    pub(super) storage: StorageArgs,
    /// The checkpoint `reach resume` continues.
    pub(super) resume: Option<Checkpoint>,
    /// A resumed run's puzzle file, as it was when the run began.
    pub(super) puzzle_text: Option<String>,
    /// The ranks of the MPI job, when the search runs on several.
    pub(super) peers: Option<cluster::Ranks>,
    /// The directory `reach resume` was given (a cluster's, above each
    /// process's own).
    pub(super) resume_dir: Option<PathBuf>,
    /// A resume's command line to record: the run's, with the limits the
    /// resume was given instead of the run's own.
    pub(super) resume_argv: Option<Vec<String>>,
    /// Whether `--local-processes` started this job's ranks.
    pub(super) local: bool,
}

impl Settings {
    /// What decides the store of a search position by position, for
    /// `--symmetry auto`'s test.
    pub(super) fn store_settings(&self) -> reach::puzzles::any::StoreSettings {
        reach::puzzles::any::StoreSettings {
            threads: self.threads,
            visited: self.visited,
            memory_limit: self.limits.memory_limit,
        }
    }

    /// This process's rank in the cluster (0 alone): only rank 0 prints a
    /// report, a plot or a page.
    pub(super) fn process(&self) -> usize {
        self.peers.map_or(0, |r| r.rank())
    }

    /// Ranks and workers a rank, when the search runs on a cluster.
    pub(super) fn cluster(&self) -> Option<(usize, usize)> {
        self.peers.map(|r| (r.size(), self.threads))
    }

    /// The settings of a command that does not search with limits.
    pub(super) fn new(run: &RunArgs, json: bool) -> Settings {
        Settings {
            threads: run.threads.unwrap_or(0),
            json,
            verbose: run.verbose,
            quiet: run.quiet,
            limits: LimitArgs::default(),
            visited: VisitedKind::Auto,
            storage: StorageArgs::default(),
            resume: None,
            puzzle_text: None,
            peers: None,
            resume_dir: None,
            resume_argv: None,
            local: false,
        }
    }

    /// `count`'s settings (and the bare run's).
    pub(super) fn of_count(o: &CountOptions, json: bool) -> Settings {
        Settings {
            limits: o.limits.clone(),
            visited: o.visited.kind(),
            storage: o.storage.clone(),
            ..Settings::new(&o.run, json)
        }
    }

    /// `solve`'s settings.
    pub(super) fn of_solve(a: &SolveArgs, json: bool) -> Settings {
        Settings {
            limits: a.limits.clone(),
            storage: a.storage.clone(),
            ..Settings::new(&a.run, json)
        }
    }

    /// `hardest`'s settings: it spills, but keeps no checkpoint.
    pub(super) fn of_census(a: &CensusArgs, json: bool) -> Settings {
        Settings {
            limits: LimitArgs {
                max_depth: a.max_depth,
                memory_limit: a.memory_limit,
                ..LimitArgs::default()
            },
            storage: StorageArgs {
                spill: None,
                checkpoint: a.checkpoint.clone(),
                keep: false,
                plain_levels: false,
            },
            ..Settings::new(&a.run, json)
        }
    }

    pub(super) fn of_hardest(a: &HardestArgs, json: bool) -> Settings {
        Settings {
            limits: a.limits.clone(),
            visited: a.visited.kind(),
            storage: StorageArgs {
                spill: a.spill.clone(),
                checkpoint: None,
                keep: a.keep,
                plain_levels: false,
            },
            ..Settings::new(&a.run, json)
        }
    }

    /// Where the levels go on disk, if anywhere. A checkpoint records the
    /// command line, and `file_text`, the text of the puzzle file (none for
    /// a built-in), so that `reach resume` can start the same run again.
    pub(super) fn spill(&self, file_text: Option<&str>) -> Result<Option<Spill>> {
        let st = &self.storage;
        if let Some(cp) = &self.resume {
            // The command line a later resume starts from: the run's, with
            // the limits this resume was given.
            let record = self
                .resume_argv
                .iter()
                .map(|argv| ("argv".to_string(), argv.join("\u{1f}")))
                .collect();
            return Ok(Some(Spill::new(cp.dir()).keep(st.keep).record(record)));
        }
        let (dir, checkpoint) = match (&st.spill, &st.checkpoint) {
            (None, None) => {
                if st.keep {
                    bail!("--keep keeps the files of --spill or --checkpoint; give one of them");
                }
                return Ok(None);
            }
            (Some(s), Some(c)) if s != c => bail!(
                "--spill {} and --checkpoint {} name two directories; a checkpointed run keeps its levels in its checkpoint\n  help: give --checkpoint alone",
                s.display(),
                c.display()
            ),
            (_, Some(c)) => (c, true),
            (Some(s), None) => (s, false),
        };
        let mut record = std::collections::BTreeMap::new();
        if checkpoint {
            let argv: Vec<String> = std::env::args().skip(1).collect();
            record.insert("argv".to_string(), argv.join("\u{1f}"));
            // Where relative output paths lead, for a resume from elsewhere.
            if let Ok(cwd) = std::env::current_dir()
                && let Some(cwd) = cwd.to_str()
            {
                record.insert("cwd".to_string(), cwd.to_string());
            }
            // The mark its output files end with, that a resume knows them by.
            let mark = output::new_mark();
            output::mark_outputs(&mark);
            record.insert("outputs_mark".to_string(), mark);
            if let Some(text) = file_text {
                record.insert("puzzle_text".to_string(), text.to_string());
            }
        }
        Ok(Some(
            Spill::new(dir)
                .checkpoint(checkpoint)
                .keep(st.keep)
                .record(record),
        ))
    }

    /// As [`Settings::spill`], but a checkpoint that completes stays until
    /// the report is printed and the outputs written
    /// ([`Settings::outputs_written`] removes it): a crash or a failed
    /// output before then loses nothing, and `reach resume` prints the
    /// answer again. (Across ranks each rank's store removes its own.)
    pub(super) fn spill_until_printed(&self, file_text: Option<&str>) -> Result<Option<Spill>> {
        let spill = self.spill(file_text)?;
        let leave = self.peers.is_none();
        Ok(spill.map(|sp| sp.leave_checkpoint(leave)))
    }

    /// Whether the run has a checkpoint: `--checkpoint`, or a resume.
    pub(super) fn checkpointed(&self) -> bool {
        self.resume.is_some() || self.storage.checkpoint.is_some()
    }

    /// An output failed: says that the checkpoint left for it is there.
    pub(super) fn outputs_failed(&self, spill: &Option<Spill>) {
        if let Some(sp) = spill
            && self.checkpointed()
            && Checkpoint::exists(sp.dir())
        {
            say!(
                "checkpoint: kept in {} (the search is complete): `reach resume {}` prints the report and writes the outputs again",
                sp.dir().display(),
                sp.dir().display()
            );
        }
    }

    /// The report is printed and every output written: removes the
    /// checkpoint that [`Settings::spill_until_printed`] left of a
    /// `complete` search (its manifest first, so that a crash from here on
    /// leaves no checkpoint rather than a broken one).
    pub(super) fn outputs_written(&self, spill: &Option<Spill>, complete: bool) -> Result<()> {
        let Some(sp) = spill else { return Ok(()) };
        // What was printed is out of the process before the checkpoint goes.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        if self.checkpointed() && complete && Checkpoint::exists(sp.dir()) {
            Checkpoint::open(sp.dir())?.remove()?;
        }
        Ok(())
    }

    /// Says how to go on from a checkpoint that a limit, a signal or a
    /// storage fault left behind.
    pub(super) fn checkpoint_hint<K>(&self, report: &Report<K>) {
        if let Outcome::Stopped(reason) = &report.outcome {
            self.stop_hint(reason);
        }
    }

    /// Says how to go on from the checkpoint of a run that stopped for
    /// `reason`, if it has one.
    pub(super) fn stop_hint(&self, reason: &StopReason) {
        if let Some((dir, how, saved)) = self.resume_hint() {
            // A limit holds in the resumed run too: the hint raises it.
            let (raise, note) = match reason {
                StopReason::MaxDepth(d) => (
                    format!(" --max-depth {}", d.saturating_mul(2).max(d + 1)),
                    format!("a depth above {d}"),
                ),
                StopReason::MaxStates(n) => (
                    format!(" --max-states {}", n.saturating_mul(2)),
                    format!("a count above {n}"),
                ),
                StopReason::MemoryLimit { limit, .. } => (
                    format!(
                        " --memory-limit {}M",
                        (limit >> 20).saturating_mul(2).max(1)
                    ),
                    format!("a budget above {}", bytes(*limit)),
                ),
                _ => (String::new(), "the run as it was started".to_string()),
            };
            say!(
                "checkpoint: levels 0 to {saved} are saved in {}; continue with `{how}{raise}` ({note})",
                dir.display(),
            );
        }
    }

    /// Where this run's checkpoint is and the command that continues it,
    /// if it has one.
    pub(super) fn resume_line(&self) -> Option<(PathBuf, String)> {
        let dir = match (&self.resume_dir, &self.resume, &self.storage.checkpoint) {
            (Some(dir), _, _) => dir.clone(),
            (None, Some(cp), _) => cp.dir().to_path_buf(),
            (None, None, Some(dir)) => dir.clone(),
            (None, None, None) => return None,
        };
        let (before, after) = match &self.peers {
            Some(ranks) => cluster::relaunch(self.local, ranks.size()),
            None => (String::new(), String::new()),
        };
        let how = format!("{before}reach resume {}{after}", dir.display());
        Some((dir, how))
    }

    /// As [`Settings::resume_line`], with the last level the checkpoint
    /// saved, if it is on disk.
    pub(super) fn resume_hint(&self) -> Option<(PathBuf, String, u32)> {
        let (dir, how) = self.resume_line()?;
        let own = match &self.peers {
            Some(ranks) => dir.join(format!("process-{}", ranks.rank())),
            None => dir.clone(),
        };
        // The depth the checkpoint saved: a dense search saves a pair of
        // levels now and then, not every level.
        let saved = Checkpoint::open(&own).ok()?.depth();
        Some((dir, how, saved))
    }
}

/// Refuses a `--memory-limit` below what the process holds before the
/// search starts: no level could ever be searched under it.
pub(super) fn check_memory_limit(s: &Settings) -> Result<()> {
    let (Some(limit), Some(rss)) = (s.limits.memory_limit, memory::current_rss_bytes()) else {
        return Ok(());
    };
    let least = (rss >> 20) + 2;
    if limit < least << 20 {
        bail!(
            "--memory-limit {} is below what this run needs to start: the process holds {} already\n  help: give at least {least}M",
            bytes(limit),
            bytes(rss)
        );
    }
    Ok(())
}

pub(super) fn search<'a, M: Model>(
    model: &'a M,
    s: &Settings,
    signals: &'a Signals,
    progress: &'a (dyn Fn(&Progress) + Sync),
) -> Search<'a, M> {
    let search = match &s.peers {
        Some(ranks) => ranks.attach(Search::new(model)),
        None => Search::new(model),
    };
    search
        .threads(s.threads)
        .visited(s.visited)
        .coded_levels(!s.storage.plain_levels)
        .max_states(s.limits.max_states)
        .max_depth(s.limits.max_depth)
        .memory_limit(s.limits.memory_limit)
        .partitions(s.limits.partitions.unwrap_or(0))
        // Tests and benchmarks only (inherited by --local-processes): the
        // dense store's segment on disk, in bytes, with --spill.
        .dense_segment_bytes(
            std::env::var("REACH_DENSE_SEGMENT_BYTES")
                .ok()
                .and_then(|v| v.parse().ok()),
        )
        // Tests and benchmarks only: when the dense store pulls (0: never;
        // see `Search::dense_pull_ratio`).
        .dense_pull_ratio(
            std::env::var("REACH_DENSE_PULL_RATIO")
                .ok()
                .and_then(|v| v.parse().ok()),
        )
        .stop_flag(&signals.stop)
        .terminated_flag(&signals.sigterm)
        .progress(progress)
}

/// `search` with its levels on disk, if `spill` says so.
pub(super) fn spilled<'a, M: Model>(search: Search<'a, M>, spill: &Option<Spill>) -> Search<'a, M> {
    match spill {
        Some(spill) => search.spill(spill.clone()),
        None => search,
    }
}

/// Counts, or resumes the checkpointed count.
pub(super) fn run_count<M: Model>(search: Search<'_, M>, s: &Settings) -> Result<Report<M::Key>> {
    Ok(match &s.resume {
        Some(cp) => search.resume(cp)?.report,
        None => search.count()?,
    })
}

/// Solves, or resumes the checkpointed solve.
pub(super) fn run_solve<M: Model>(search: Search<'_, M>, s: &Settings) -> Result<Solution<M::Key>> {
    Ok(match &s.resume {
        Some(cp) => search.resume(cp)?,
        None => search.solve()?,
    })
}

impl Settings {
    /// Sets up a search across `ranks`: this rank's index and workers,
    /// the watchdog, and the resume line printed before the search (a
    /// killed job cannot print it after).
    pub(super) fn join_ranks(&mut self, ranks: Option<cluster::Ranks>, c: &ClusterArgs) {
        let Some(ranks) = ranks else { return };
        if self.threads == 0 {
            self.threads = cluster::workers_per_rank();
        }
        self.local = cluster::started_locally();
        self.peers = Some(ranks);
        let hint = match self.resume_line() {
            Some((dir, how)) => {
                if ranks.rank() == 0 {
                    say!(
                        "checkpoint: each rank saves its levels in {}/process-RANK; if the job ends early, continue with `{how}`",
                        dir.display()
                    );
                }
                format!(
                    "\n  levels saved so far are in {}: continue with `{how}`",
                    dir.display()
                )
            }
            None => "\n  the search is abandoned: start it again once every rank runs".into(),
        };
        cluster::watch(&ranks, c.peer_timeout, hint);
    }

    /// A search that lost a process ends as an error (exit 5), not a
    /// partial report: with a checkpoint, saying how to go on from it.
    pub(super) fn check_cluster<K>(&self, report: &Report<K>) -> Result<()> {
        if let Outcome::Stopped(StopReason::Cluster(what)) = &report.outcome {
            let next = match self.resume_hint() {
                Some((dir, how, saved)) => format!(
                    "levels 0 to {saved} are saved in {}; once every rank runs, continue with `{how}`",
                    dir.display()
                ),
                None => "the search is abandoned; start it again once every rank runs".into(),
            };
            return Err(exit::ClusterFailed(format!("{what}\n  {next}")).into());
        }
        Ok(())
    }
}
