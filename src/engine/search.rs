//! The search as a library user sets it up: a builder over the options,
//! the commands (count, find a goal, solve, hardest, resume), and the
//! choice of where the levels live. Every command runs the one level loop
//! ([`levels`](crate::engine::levels)).

use std::sync::atomic::AtomicBool;

use crate::engine::error::SearchError;
use crate::engine::files::codec::Coded;
use crate::engine::files::{Checkpoint, Spill, digest};
use crate::engine::levels::agree::{self, Share};
use crate::engine::levels::workers::cores;
use crate::engine::levels::{self, Limits, Mode, Newest, Observer};
use crate::engine::peers::{Alone, Peers};
use crate::engine::stores::dense::saves::Saves;
use crate::engine::stores::dense::{self, Dense};
use crate::engine::stores::disk::{Begin, OnDisk};
use crate::engine::stores::memory::{InMemory, bitmap_partitions_for_cache};
use crate::engine::stores::sets::partition::MAX_PARTITIONS;
use crate::engine::stores::sets::visited::{
    BITMAP_HARD_MAX_KEYS, VisitedKind, bitmap_bytes, resolve,
};
use crate::engine::{Model, Progress, Report, Wide};

/// A breadth-first search over a [`Model`], configured by a builder:
///
/// ```
/// use reach::engine::Search;
/// use reach::puzzles::builtin;
///
/// let puzzle = builtin::sliding("pe766-example").unwrap();
/// let report = Search::new(&puzzle).threads(2).count().unwrap();
/// assert_eq!(report.states(), 208);
/// assert_eq!(report.depth(), 22);
/// ```
#[must_use]
pub struct Search<'a, M: Model> {
    pub(crate) model: &'a M,
    threads: usize,
    pub(crate) partitions: usize,
    pub(crate) visited: VisitedKind,
    /// Whether `visited` is a checkpoint's, not the caller's choice.
    resumed: bool,
    pub(crate) max_states: Option<u64>,
    pub(crate) max_depth: Option<u32>,
    pub(crate) memory_limit: Option<u64>,
    memory_guard: bool,
    pub(crate) stop: Option<&'a AtomicBool>,
    pub(crate) terminated: Option<&'a AtomicBool>,
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    pub(crate) spill: Option<Spill>,
    /// The processes of the search, when it runs on several.
    pub(crate) peers: Option<&'a dyn Peers>,
    /// Tests only: the dense store's segment size on disk, whatever fits.
    dense_segment: Option<u64>,
    /// Tests and benchmarks only: the dense store's pull ratio.
    dense_pull: Option<u64>,
    /// Whether levels of wide keys in memory are coded runs.
    coded_levels: bool,
}

/// What [`Search::hardest`] found (`K`: the model's key).
#[derive(Clone, Debug)]
pub struct Hardest<K = u64> {
    /// States in the start's component.
    pub component: u64,
    /// Goal states in the component (0: no goal can be reached): positions,
    /// each class weighed by [`Model::positions`] where keys stand for
    /// classes.
    pub goal_states: u64,
    /// The largest distance from a position of the component to its
    /// nearest goal position.
    pub distance: u32,
    /// The keys at that distance, sorted: the positions, or where keys
    /// stand for classes ([`Model::classes`]) one representative a class,
    /// whose positions [`Model::orbit`] lists (as many in all as the
    /// report's `last_level_states`).
    pub positions: Vec<K>,
    /// The start's distance to its nearest goal position.
    pub start_distance: Option<u32>,
    /// The report of the search from the goals (its levels: how many
    /// positions lie at each distance from the goal; its last level moved
    /// into `positions`), or of the count of the component when that was
    /// cut short or found no goal.
    pub report: Report<K>,
}

/// A shortest path found by [`Search::solve`] (`K`: the model's key).
#[derive(Clone, Debug)]
pub struct Solution<K = u64> {
    /// The search's report (its outcome is [`Outcome::Goal`](crate::engine::Outcome::Goal) when a path was found).
    pub report: Report<K>,
    /// The keys from the start to a goal, both included; `None` when no goal
    /// was reached.
    pub path: Option<Vec<K>>,
}

impl<'a, M: Model> Search<'a, M> {
    /// A search of `model` with default settings: all cores, automatic
    /// visited set, no limits but the machine's available memory.
    pub fn new(model: &'a M) -> Self {
        Search {
            model,
            threads: 0,
            partitions: 0,
            visited: VisitedKind::Auto,
            resumed: false,
            max_states: None,
            max_depth: None,
            memory_limit: None,
            memory_guard: true,
            stop: None,
            terminated: None,
            progress: None,
            spill: None,
            peers: None,
            dense_segment: None,
            dense_pull: None,
            coded_levels: true,
        }
    }

    /// Whether a search of keys wider than a word (a model whose key
    /// space passes 2^64) with no [`Search::spill`] directory holds its
    /// levels in memory as coded runs (the default): each key coded by its
    /// gap to the one before, as in the run files, so that a key costs
    /// what its information costs (the 3x3x3's 16-byte keys about 5.6
    /// bytes). `false` keeps them as sorted keys of whole words. Only
    /// frontier search codes its levels.
    pub fn coded_levels(mut self, on: bool) -> Self {
        self.coded_levels = on;
        self
    }

    /// Tests and benchmarks only: the dense store settles a level by
    /// pulling (each unseen key looking for a successor in the newest
    /// level) once the unseen keys are at most `ratio` times the newest
    /// level's width; 0 never pulls, a large ratio pulls every level.
    #[doc(hidden)]
    pub fn dense_pull_ratio(mut self, ratio: Option<u64>) -> Self {
        self.dense_pull = ratio;
        self
    }

    /// Tests and benchmarks only: with [`Search::spill`], a dense search
    /// keeps its two-bit array on disk in segments of at most `bytes`
    /// (whole blocks of 32 KiB), even where it would fit in memory.
    #[doc(hidden)]
    pub fn dense_segment_bytes(mut self, bytes: Option<u64>) -> Self {
        self.dense_segment = bytes;
        self
    }

    /// Keeps the levels on disk (see [`Spill`]): memory holds a budget of
    /// candidates, not the levels. Every command supports it; `hardest`
    /// spills without a checkpoint.
    pub fn spill(mut self, spill: Spill) -> Self {
        self.spill = Some(spill);
        self
    }

    /// Runs the search across the ranks of an MPI job (every rank calls
    /// the same command with the same model and options): each owns a
    /// share of the partitions, candidates travel to their owners through
    /// MPI, and every rank takes the same decisions at every level
    /// boundary, so that all return the same report.
    #[cfg(feature = "mpi")]
    pub fn mpi(mut self, mpi: &'a crate::engine::Mpi) -> Self {
        self.peers = Some(mpi);
        self
    }

    /// Runs the search as one of `peers` (the engine's tests: processes
    /// as threads).
    #[cfg(test)]
    pub(crate) fn peers(mut self, peers: &'a dyn Peers) -> Self {
        self.peers = Some(peers);
        self
    }

    /// Worker threads; 0 (the default) means one per available core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Partitions (a power of two, at most [`MAX_PARTITIONS`]); 0 (the
    /// default) means a few per worker. Every key belongs to one partition,
    /// which settles its share of each level; the results do not depend on
    /// the count.
    pub fn partitions(mut self, partitions: usize) -> Self {
        self.partitions = partitions;
        self
    }

    /// The visited set to use.
    pub fn visited(mut self, kind: VisitedKind) -> Self {
        self.visited = kind;
        self
    }

    /// Stop before a level would take the number of states past `n`.
    pub fn max_states(mut self, n: Option<u64>) -> Self {
        self.max_states = n;
        self
    }

    /// Stop before a level deeper than `d`.
    pub fn max_depth(mut self, d: Option<u32>) -> Self {
        self.max_depth = d;
        self
    }

    /// Stop before a level estimated to take the process's resident memory
    /// past `bytes`.
    pub fn memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Without an explicit memory limit, stop before a level estimated to
    /// need more than the machine has available (on by default).
    pub fn memory_guard(mut self, on: bool) -> Self {
        self.memory_guard = on;
        self
    }

    /// A flag that, once raised, stops the search at the next level boundary.
    pub fn stop_flag(mut self, flag: &'a AtomicBool) -> Self {
        self.stop = Some(flag);
        self
    }

    /// A flag raised before the stop flag (the stop flag's store must be a
    /// release, or stronger, so that it carries this one) when the stop is a termination
    /// rather than an interruption (SIGTERM rather than Ctrl-C): the report
    /// then says [`StopReason::Terminated`](crate::engine::StopReason::Terminated),
    /// in every process of a cluster.
    pub fn terminated_flag(mut self, flag: &'a AtomicBool) -> Self {
        self.terminated = Some(flag);
        self
    }

    /// A callback run after every level.
    pub fn progress(mut self, f: &'a (dyn Fn(&Progress) + Sync)) -> Self {
        self.progress = Some(f);
        self
    }

    /// Counts every state reachable from the start, level by level.
    pub fn count(self) -> Result<Report<M::Key>, SearchError> {
        let peers = self.connect("count")?;
        Ok(self.run(Mode::Count, peers)?.0)
    }

    /// Searches until the first level holding a goal; the outcome says at
    /// which depth (no path is kept).
    pub fn find_goal(self) -> Result<Report<M::Key>, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        let peers = self.connect("find")?;
        Ok(self.run(Mode::FindGoal, peers)?.0)
    }

    /// A shortest path from the start to a goal. Keeps every level's keys
    /// (8 bytes a state, no parent pointers) and rebuilds the path backwards
    /// from the goal, level by level.
    pub fn solve(self) -> Result<Solution<M::Key>, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        let peers = self.connect("solve")?;
        let (report, path) = self.run(Mode::Solve, peers)?;
        Ok(Solution { report, path })
    }

    /// Within the start's component, the positions farthest from every
    /// goal position: every goal state of the component is found (a count
    /// that checks each level), then a breadth-first search from all of
    /// them at once gives each position its distance to the nearest goal.
    /// Needs reversible moves (so that the distance from the goals is the
    /// distance to them); costs about two counts.
    pub fn hardest(self) -> Result<Hardest<M::Key>, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        if !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if self.spill.as_ref().is_some_and(|s| s.checkpoint) {
            return Err(SearchError::CheckpointUnsupported("hardest"));
        }
        let model = self.model;
        let peers = self.connect("hardest")?;
        let mut goals: Vec<M::Key> = Vec::new();
        let (component, _) = self.run_with(
            Mode::Count,
            peers,
            Begin::Sources(vec![model.start()]),
            &mut |_, level: &mut dyn Newest<M::Key>| {
                goals.extend(level.goals()?);
                Ok(None)
            },
        )?;
        let mut hardest = Hardest {
            component: component.states(),
            goal_states: goals.iter().map(|&k| model.positions(k)).sum(),
            distance: 0,
            positions: Vec::new(),
            start_distance: None,
            report: component,
        };
        if !hardest.report.is_complete() || goals.is_empty() {
            return Ok(hardest);
        }
        let start = model.start();
        let mut start_distance = None;
        let (mut report, _) = self.run_with(
            Mode::Count,
            peers,
            Begin::Sources(goals),
            &mut |depth, level: &mut dyn Newest<M::Key>| {
                if start_distance.is_none() && level.contains(start)? {
                    start_distance = Some(depth);
                }
                Ok(None)
            },
        )?;
        hardest.distance = report.depth();
        hardest.positions = std::mem::take(&mut report.last_level);
        hardest.start_distance = start_distance;
        hardest.report = report;
        Ok(hardest)
    }

    /// The store a search would take on one process, and why (what `show`
    /// says): a solve's when `solve`, otherwise a count's.
    pub fn store(&self, solve: bool) -> Result<(VisitedKind, String), SearchError> {
        M::Key::store(self, solve)
    }

    pub(crate) fn thread_count(&self) -> usize {
        if self.threads == 0 {
            cores()
        } else {
            self.threads
        }
    }

    pub(crate) fn limits(&self) -> Limits<'a> {
        Limits {
            stop: self.stop,
            terminated: self.terminated,
            max_states: self.max_states,
            max_depth: self.max_depth,
            memory_limit: self.memory_limit,
            memory_guard: self.memory_guard,
            progress: self.progress,
            expected_states: self.model.dense().then(|| self.model.key_space()),
        }
    }

    fn run(&self, mode: Mode, peers: &dyn Peers) -> SearchRun<M::Key> {
        let observe = &mut levels::observer(mode);
        let start = Begin::Sources(vec![self.model.start()]);
        self.run_with(mode, peers, start, observe)
    }

    /// A search that begins at `begin` on the stores its key serves.
    fn run_with(
        &self,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_, M::Key>,
        observe: &mut Observer<'_, M::Key>,
    ) -> SearchRun<M::Key> {
        M::Key::run_with(self, mode, peers, begin, observe)
    }

    /// A search of wide keys: sorted levels, in memory or on disk
    /// (frontier search, or a hash set of the keys seen where moves are
    /// not all reversible); the stores that index arrays by key serve
    /// 64-bit keys only.
    pub(crate) fn run_wide(
        &self,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_, M::Key>,
        observe: &mut Observer<'_, M::Key>,
    ) -> SearchRun<M::Key> {
        // What wide keys cannot take first: the general checks would
        // measure a bitmap against the saturated key space.
        if matches!(self.visited, VisitedKind::Bitmap | VisitedKind::Dense) {
            return Err(SearchError::WideUnsupported(
                "take a bitmap or the dense store (arrays indexed by key)",
            ));
        }
        self.check()?;
        let (kind, why) = self.wide_store();
        self.run_sorted(mode, peers, begin, observe, kind, why)
    }

    /// A search whose levels are sorted keys with a visited set of `kind`
    /// (or none): on disk under `--spill`, else in memory; `why` is the
    /// store's reason, for the report.
    fn run_sorted(
        &self,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_, M::Key>,
        observe: &mut Observer<'_, M::Key>,
        kind: VisitedKind,
        why: String,
    ) -> SearchRun<M::Key> {
        let threads = self.thread_count();
        let limits = self.limits();
        let partitions = self.partitions_for(peers.processes());
        // A new checkpointed run's name, which every process records.
        let spill = match (&self.spill, &begin) {
            (Some(spill), Begin::Sources(_)) if spill.checkpoint => Some(Spill {
                run: Some(agree::run_name(peers)?),
                ..spill.clone()
            }),
            (spill, _) => spill.clone(),
        };
        let share = Share::of(peers);
        let spill = match spill {
            None if self.codes_levels(kind) => Some(Spill::in_memory()),
            spill => spill,
        };
        let (mut report, path) = in_pool(threads, || -> Result<_, SearchError> {
            match (&spill, begin) {
                (Some(spill), begin) => {
                    let (store, start) = OnDisk::open(
                        self.model,
                        share,
                        spill,
                        mode,
                        kind,
                        threads,
                        partitions,
                        self.memory_limit,
                        self.stop,
                        begin,
                    )?;
                    Ok(levels::run(
                        store, peers, &limits, threads, mode, start, observe,
                    ))
                }
                (None, Begin::Sources(sources)) => {
                    let (store, start) = InMemory::new(
                        self.model, share, kind, mode, threads, partitions, sources, self.stop,
                    );
                    Ok(levels::run(
                        store, peers, &limits, threads, mode, start, observe,
                    ))
                }
                (None, Begin::Resume(..)) => {
                    unreachable!("a resumed search has its levels on disk")
                }
            }
        })??;
        report.store = why;
        Ok((report, path))
    }

    /// The visited set a search of 64-bit keys takes when it does not take
    /// the dense store: as [`resolve`] says, except that an automatic
    /// bitmap over half of `--memory-limit` gives way to frontier search
    /// where the moves are reversible (a checkpointed eleven under 20M held
    /// its 29 MiB bitmap and peaked at 35 MiB before its first level). The
    /// limit alone decides, not the memory held, so that every process and
    /// every call decide alike.
    fn resolved(&self) -> VisitedKind {
        let key_space = self.model.key_space();
        let kind = resolve(self.visited, key_space, self.model.reversible());
        if self.visited == VisitedKind::Auto
            && kind == VisitedKind::Bitmap
            && self.bitmap_too_large()
        {
            return resolve(VisitedKind::Frontier, key_space, self.model.reversible());
        }
        kind
    }

    /// Whether a bitmap of the key space takes over half the memory limit
    /// (false without one).
    fn bitmap_too_large(&self) -> bool {
        self.model.reversible()
            && self
                .memory_limit
                .is_some_and(|limit| bitmap_bytes(self.model.key_space()) > limit / 2)
    }

    /// The partition count: as asked; across processes, by default a few
    /// per process (and, with a bitmap, enough that a share stays in
    /// cache), the same in every process whatever its threads.
    fn partitions_for(&self, processes: usize) -> usize {
        if self.partitions > 0 || processes == 1 {
            return self.partitions;
        }
        let few = (processes * PARTITIONS_PER_PROCESS)
            .next_power_of_two()
            .min(MAX_PARTITIONS);
        let key_space = self.model.key_space();
        if self.resolved() == VisitedKind::Bitmap {
            few.max(bitmap_partitions_for_cache(key_space))
        } else {
            few
        }
    }

    /// The processes of the search (this one alone, or the ranks of an MPI
    /// job), once every one is found to run `command` with the same
    /// puzzle and options.
    pub(crate) fn connect(&self, command: &str) -> Result<&'a dyn Peers, SearchError> {
        let peers = match self.peers {
            Some(peers) if peers.processes() > 1 => peers,
            _ => return Ok(&Alone),
        };
        self.check()?;
        let none = |v: Option<String>| v.unwrap_or_else(|| "none".into());
        let settings = format!(
            "command {command}; visited {}; partitions {}; max-depth {}; max-states {}; levels {}",
            self.visited.name(),
            // As asked (0: automatic): the count they come to follows the
            // store, which `same_store` compares once each process has
            // measured its room.
            self.partitions,
            none(self.max_depth.map(|d| d.to_string())),
            none(self.max_states.map(|n| n.to_string())),
            match &self.spill {
                Some(spill) if spill.checkpoint => "on disk, checkpointed",
                Some(_) => "on disk",
                None => "in memory",
            },
        );
        agree::same_search(peers, digest(&self.model.identity()), &settings)?;
        Ok(peers)
    }

    /// Checks the options against the model before a search starts.
    fn check(&self) -> Result<(), SearchError> {
        if let Some(why) = self.model.unsearchable() {
            return Err(SearchError::Unsearchable(why));
        }
        let key_space = self.model.key_space();
        if self.visited == VisitedKind::Bitmap && key_space > BITMAP_HARD_MAX_KEYS {
            return Err(SearchError::BitmapTooLarge {
                key_space,
                max: BITMAP_HARD_MAX_KEYS,
            });
        }
        if self.visited == VisitedKind::Frontier && !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if self.partitions > 0
            && (!self.partitions.is_power_of_two() || self.partitions > MAX_PARTITIONS)
        {
            return Err(SearchError::Partitions {
                partitions: self.partitions,
                max: MAX_PARTITIONS,
            });
        }
        if let Some(spill) = &self.spill {
            if spill.checkpoint && self.model.identity().is_empty() {
                return Err(SearchError::NoIdentity);
            }
            let resolved = self.resolved();
            if resolved == VisitedKind::DashMap {
                return Err(SearchError::SpillNeedsFrontier);
            }
        }
        Ok(())
    }

    /// Whether a search of sorted levels with `kind` of visited set and no
    /// spill directory holds them as coded runs in memory (see
    /// [`Search::coded_levels`]).
    fn codes_levels(&self, kind: VisitedKind) -> bool {
        self.coded_levels && M::Key::WORDS > 1 && kind == VisitedKind::Frontier
    }

    /// The store a search of wide keys takes (the one asked for, where it
    /// serves), and why.
    pub(crate) fn wide_store(&self) -> (VisitedKind, String) {
        let words = M::Key::WORDS;
        let kind = resolve(self.visited, u64::MAX, self.model.reversible());
        let mut why = match kind {
            VisitedKind::Frontier => format!(
                "keys of {words} words ({} bits): the moves are reversible, so the last levels as sorted keys, no visited set",
                words * 64
            ),
            _ => format!(
                "keys of {words} words ({} bits): a hash set of the keys seen (the moves are not all reversible)",
                words * 64
            ),
        };
        why.push_str(match &self.spill {
            Some(s) if s.checkpoint => "; levels on disk, checkpointed",
            Some(_) => "; levels on disk",
            None if self.codes_levels(kind) => {
                "; levels in memory as coded runs (each key by its gap to the one before)"
            }
            None => "",
        });
        (kind, why)
    }
}

/// What a search returns: its report and, for a solve, its path.
pub(crate) type SearchRun<K> = Result<(Report<K>, Option<Vec<K>>), SearchError>;

impl<'a, M: Model> Search<'a, M> {
    /// Continues the search saved in `checkpoint` (its puzzle must be this
    /// search's model, checked by identity), from its last complete level,
    /// to the report an uninterrupted run would have given; the path too
    /// when the checkpoint is a solve's. Threads and limits are this
    /// search's; the partitions and visited set are the checkpoint's.
    pub fn resume(mut self, checkpoint: &Checkpoint) -> Result<Solution<M::Key>, SearchError> {
        let mode = Mode::from_name(&checkpoint.manifest.mode).ok_or_else(|| {
            SearchError::Checkpoint(format!(
                "unknown kind of search {:?}",
                checkpoint.manifest.mode
            ))
        })?;
        if self.model.identity().is_empty() {
            return Err(SearchError::NoIdentity);
        }
        // In a cluster each process's checkpoint is its own directory.
        self.spill = Some(Spill {
            dir: checkpoint.dir.clone(),
            checkpoint: true,
            ..self
                .spill
                .take()
                .unwrap_or_else(|| Spill::new(checkpoint.dir.clone()))
        });
        // The checkpoint's visited set, not the one this search would pick.
        self.visited = match checkpoint.manifest.visited.as_str() {
            "bitmap" => VisitedKind::Bitmap,
            "dense" => VisitedKind::Dense,
            _ => VisitedKind::Frontier,
        };
        self.resumed = true;
        let peers = self.connect(&format!("resume {}", mode.name()))?;
        let levels = agree::resume_levels(peers, checkpoint)?;
        self.resume_fits(peers)?;
        let observe = &mut levels::observer(mode);
        let begin = Begin::Resume(checkpoint, levels);
        let (report, path) = self.run_with(mode, peers, begin, observe)?;
        Ok(Solution { report, path })
    }

    /// Refuses a resume whose visited set, rebuilt before the first level,
    /// would take the process over its memory limit (a bitmap of the key
    /// space, or the dense array, which a new search takes within three
    /// quarters of the memory left): the limit is checked before anything
    /// is loaded, and every process refuses if one must.
    fn resume_fits(&self, peers: &dyn Peers) -> Result<(), SearchError> {
        let Some(limit) = self.memory_limit else {
            return Ok(());
        };
        let key_space = self.model.key_space();
        let (holds, what) = match self.visited {
            VisitedKind::Bitmap => (
                bitmap_bytes(key_space),
                format!("a bitmap of {key_space} keys"),
            ),
            VisitedKind::Dense => (
                dense::room_for(dense::bytes_for(key_space).div_ceil(peers.processes() as u64)),
                format!("two bits for each of {key_space} keys, with a quarter to spare"),
            ),
            _ => return Ok(()),
        };
        let rss = crate::engine::levels::memory::current_rss_bytes().unwrap_or(0);
        let need = rss.saturating_add(holds);
        let over = u64::from(need > limit);
        if agree::sum(peers, over)? > 0 {
            return Err(SearchError::ResumeTooLarge { need, limit, what });
        }
        Ok(())
    }
}

impl<'a, M: Model<Key = u64>> Search<'a, M> {
    /// The store a search of 64-bit keys would take on one process, and
    /// why.
    pub(crate) fn narrow_store(&self, solve: bool) -> Result<(VisitedKind, String), SearchError> {
        let mode = if solve { Mode::Solve } else { Mode::Count };
        let (fit, why) = self.dense(mode, 1)?;
        if fit != DenseFit::No {
            return Ok((VisitedKind::Dense, why));
        }
        let resolved = self.resolved();
        Ok((resolved, self.sparse_why(resolved, &why)))
    }

    /// A search of 64-bit keys that begins at `begin` (sources as level
    /// 0, several for a multi-source search; or a checkpoint, whose levels
    /// are on disk), in memory or on disk, with `observe` looking at every
    /// complete level.
    pub(crate) fn run_narrow(
        &self,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_>,
        observe: &mut Observer<'_>,
    ) -> SearchRun<u64> {
        self.check()?;
        let threads = self.thread_count();
        let limits = self.limits();
        let (fit, why) = self.dense(mode, peers.processes())?;
        let resolved = self.resolved();
        let choice = match fit {
            DenseFit::InMemory => 0,
            DenseFit::OnDisk(_) => 1,
            DenseFit::No => 2 + resolved as u64,
        };
        let named = match fit {
            DenseFit::No => format!("{}: {}", resolved.name(), self.sparse_why(resolved, &why)),
            _ => format!("dense: {why}"),
        };
        agree::same_store(peers, choice, &named)?;
        if fit != DenseFit::No {
            let (mut report, path) = in_pool(threads, || {
                let (store, start) = self.dense_store(mode, threads, begin, fit, peers)?;
                Ok::<_, SearchError>(levels::run(
                    store, peers, &limits, threads, mode, start, observe,
                ))
            })??;
            report.store = why;
            return Ok((report, path));
        }
        let why = self.sparse_why(resolved, &why);
        self.run_sorted(mode, peers, begin, observe, resolved, why)
    }
}

impl<'a, M: Model<Key = u64>> Search<'a, M> {
    /// The dense store for a search that begins at `begin`, with its
    /// checkpoint if the search has one.
    fn dense_store<'p>(
        &'p self,
        mode: Mode,
        threads: usize,
        begin: Begin<'_>,
        fit: DenseFit,
        peers: &'p dyn Peers,
    ) -> Result<(Dense<'p, M>, levels::Start), SearchError> {
        let checkpoint = self.spill.as_ref().filter(|s| s.checkpoint);
        if let (DenseFit::OnDisk(segment), Some(spill), Begin::Sources(sources)) =
            (fit, &self.spill, &begin)
        {
            return Dense::on_disk(
                self.model,
                threads,
                sources,
                self.stop,
                spill,
                segment,
                Share::of(peers),
            );
        }
        match begin {
            Begin::Sources(sources) => {
                let depth_codes = mode == Mode::Solve;
                let (mut store, start) = Dense::new(
                    self.model,
                    threads,
                    &sources,
                    self.stop,
                    Share::of(peers),
                    depth_codes,
                )
                .map_err(|source| SearchError::DenseMap {
                    mib: dense::bytes_for(self.model.key_space()) >> 20,
                    source,
                })?;
                if let Some(ratio) = self.dense_pull {
                    store.pull_ratio(ratio);
                }
                if let Some(spill) = checkpoint {
                    store.checkpoint(Saves::create(spill, self.model.identity(), mode)?)?;
                }
                Ok((store, start))
            }
            Begin::Resume(cp, _) => {
                let spill = checkpoint.expect("a resumed search has its checkpoint");
                let saves = Saves::resume(cp, spill, self.model.identity())?;
                let (mut store, start) = Dense::resume(self.model, threads, saves, self.stop)?;
                if let Some(ratio) = self.dense_pull {
                    store.pull_ratio(ratio);
                }
                Ok((store, start))
            }
        }
    }

    /// Whether the search takes the dense store, where its array lives,
    /// and why (or why not): when asked for (and able to serve), or by
    /// default for a model with dense keys whose two bits a key fit in
    /// three quarters of the memory left (or of the memory limit). Dense
    /// keys leave the store nothing to waste, and it beats the partitioned
    /// bitmap even where that fits: `tiles-3x4` at 2 threads 5.9 s in 65
    /// MiB against 8.3 s in 507 MiB. With `--spill` (no checkpoint, no
    /// `--keep`, not a solve) an array that does not fit goes on disk
    /// when the disk has room for it, a segment of up to five eighths of
    /// the memory left in memory at a time; asked for with `--spill`, it
    /// goes on disk whatever fits.
    fn dense(&self, mode: Mode, processes: usize) -> Result<(DenseFit, String), SearchError> {
        let asked = self.visited == VisitedKind::Dense;
        let model = self.model;
        let key_space = model.key_space();
        if !asked && self.visited != VisitedKind::Auto {
            return Ok((DenseFit::No, self.as_asked("the visited set chosen")));
        }
        if model.classes() {
            let why = "weigh classes of symmetric positions: it keeps no level as keys";
            if asked {
                return Err(SearchError::DenseUnsupported(why));
            }
            return Ok((
                DenseFit::No,
                format!(
                    "the keys stand for classes of positions, and the dense store cannot {why}"
                ),
            ));
        }
        // A model that is not dense may still be cheapest in two bits a
        // key, when it knows how many states it reaches.
        let by_cost = match (asked, model.dense()) {
            (false, false) => match self.dense_by_cost() {
                Ok(why) => Some(why),
                Err(why) => return Ok((DenseFit::No, why)),
            },
            _ => None,
        };
        let checkpoint = self.spill.as_ref().is_some_and(|s| s.checkpoint);
        let keep = self.spill.as_ref().is_some_and(|s| s.keep);
        let on_disk = self.spill.is_some() && !checkpoint && !keep && mode != Mode::Solve;
        let usable = if mode == Mode::Solve && !model.reversible() {
            Err("rebuild a path for a model whose moves are not all reversible")
        } else if mode == Mode::Solve && checkpoint {
            Err("rebuild a path after a resume (a solve's checkpoint keeps every level)")
        } else if mode == Mode::Solve && self.spill.is_some() {
            Err("rebuild a path with its array on disk")
        } else if keep {
            Err("keep every level on disk (as the spill asks)")
        } else if checkpoint && !model.reversible() {
            Err("be checkpointed for a model whose moves are not all reversible")
        } else if processes > 1 && checkpoint {
            Err("be checkpointed when shared between processes")
        } else {
            Ok(())
        };
        if let Err(why) = usable {
            if asked {
                return Err(SearchError::DenseUnsupported(why));
            }
            return Ok((
                DenseFit::No,
                format!("the keys are dense, but the dense store cannot {why}"),
            ));
        }
        // Across processes each holds the two bits of its own range of keys.
        let need = dense::bytes_for(key_space).div_ceil(processes as u64);
        let rss = crate::engine::levels::memory::current_rss_bytes().unwrap_or(0);
        let room = match self.memory_limit {
            Some(limit) => limit.saturating_sub(rss),
            None => crate::engine::levels::memory::headroom().map_or(u64::MAX, |(room, _)| room),
        };
        // Sizes as they are, not as the allocation rounds them: a small
        // array in KiB.
        let mib = |b: u64| {
            if b < 1 << 20 {
                format!("{} KiB", b.div_ceil(1 << 10))
            } else {
                format!("{} MiB", b.div_ceil(1 << 20))
            }
        };
        let what = match by_cost {
            _ if asked => self.as_asked("the dense store chosen"),
            Some(why) => why,
            None => "the model's keys are dense".to_string(),
        };
        let fits = dense::room_for(need) <= room;
        if on_disk && (asked || self.dense_segment.is_some() || !fits) {
            // Five eighths of what the workers' own memory leaves (at
            // least 1 MiB: below, the search stops at its first level,
            // saying how much it needs).
            let overhead = crate::engine::levels::memory::disk_overhead(self.thread_count());
            let segment = self
                .dense_segment
                .unwrap_or((room.saturating_sub(overhead) / 8 * 5).max(1 << 20));
            let dir = &self.spill.as_ref().expect("on disk").dir;
            // Per block a word of marks in each worker, in memory.
            let marks = dense::bytes_for(key_space) / dense::BLOCK_BYTES * 8;
            let marks = marks.saturating_mul(self.thread_count() as u64 + 1);
            let disk = crate::engine::files::free_bytes(dir);
            let disk_room = disk.is_none_or(|free| need <= free / 4 * 3);
            if asked || (disk_room && marks <= room / 4) {
                let why = format!(
                    "{what}; two bits for each of {key_space} keys ({}) on disk in {}, a segment of at most {} in memory at a time",
                    mib(need),
                    dir.display(),
                    mib(segment.min(need))
                );
                return Ok((DenseFit::OnDisk(segment), why));
            }
            return Ok((
                DenseFit::No,
                format!(
                    "the keys are dense, but two bits for each of {key_space} keys ({}) fit neither in memory ({} left) nor on the disk of {}{}",
                    mib(need),
                    mib(room),
                    dir.display(),
                    disk.map_or(String::new(), |free| format!(" ({} free)", mib(free)))
                ),
            ));
        }
        if !fits {
            if asked {
                return Err(SearchError::DenseTooLarge {
                    need: need >> 20,
                    room: room >> 20,
                    key_space,
                });
            }
            return Ok((
                DenseFit::No,
                format!(
                    "the keys are dense, but two bits for each of {key_space} keys ({}) do not fit in the memory left ({}){}",
                    mib(need),
                    mib(room),
                    if self.spill.is_none() && mode != Mode::Solve {
                        "; with a spill directory the array goes on disk"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let why = format!(
            "{what}: two bits for each of {key_space} keys ({}{}) and no level kept as keys{}",
            mib(need),
            if processes > 1 { " a process" } else { "" },
            if mode == Mode::Solve {
                ", each key's depth mod 3 kept for the path back"
            } else {
                ""
            }
        );
        Ok((DenseFit::InMemory, why))
    }

    /// Whether two bits a key take less memory than the store the search
    /// would take otherwise, for a model that says how many states it
    /// reaches ([`Model::reachable_states`]): `Ok` with the estimates that
    /// say so, `Err` with those that do not (or that the model cannot
    /// tell). The estimates, from what the stores took on twsearch's
    /// samples: sorted levels with no visited set, the last two levels and
    /// the next one's candidates (one a successor) for a widest level of a
    /// quarter of the states, eight bytes each (pyraminx, 302,330,880
    /// states, 16 moves: 10.1 GiB said, 12.7 GiB taken); a bitmap, its bit
    /// a key and sixteen bytes a state in levels and candidates (skewb,
    /// 37,791,360 states: 620 MiB said, 598 MiB taken); a hash set, 32
    /// bytes a state.
    fn dense_by_cost(&self) -> Result<String, String> {
        let model = self.model;
        let Some(states) = model.reachable_states() else {
            return Err("the model does not say its keys are dense".into());
        };
        let key_space = model.key_space();
        let dense = dense::bytes_for(key_space) as f64;
        let kind = self.resolved();
        let other_bytes = match kind {
            VisitedKind::Bitmap => bitmap_bytes(key_space) as f64 + 16.0 * states,
            VisitedKind::Frontier => {
                let mut state = model.new_state();
                let mut successors = Vec::new();
                model.decode(model.start(), &mut state);
                model.successors(&mut state, &mut successors);
                8.0 * (successors.len() as f64 + 2.0) * states / 4.0
            }
            _ => 32.0 * states,
        };
        let mib = |b: f64| (b / f64::from(1 << 20)).ceil();
        let other = format!(
            "the {} store's levels of its {states:.0} states: about {} MiB",
            kind.name(),
            mib(other_bytes)
        );
        if dense < other_bytes {
            Ok(format!("the smallest store ({other})"))
        } else {
            Err(format!(
                "the keys are sparse: two bits for each of {key_space} keys ({} MiB) against {other}",
                mib(dense)
            ))
        }
    }

    /// Why the visited set is the one the caller set: `what` asked for it,
    /// or the checkpoint being resumed has it.
    fn as_asked(&self, what: &str) -> String {
        if self.resumed {
            "the checkpoint's".to_string()
        } else {
            format!("as asked ({what})")
        }
    }

    /// Why the search takes `kind` (not the dense store, for `dense_why`).
    fn sparse_why(&self, kind: VisitedKind, dense_why: &str) -> String {
        let key_space = self.model.key_space();
        let kind_why = match kind {
            _ if self.visited != VisitedKind::Auto => self.as_asked("the visited set chosen"),
            VisitedKind::Bitmap => {
                format!("a bit for each of {key_space} keys (at most 2^29), levels as sorted keys")
            }
            VisitedKind::Frontier if self.bitmap_too_large() => format!(
                "the moves are reversible: the last levels as sorted keys, no visited set (a bitmap of {key_space} keys, {} MiB, is over half of the memory limit)",
                bitmap_bytes(key_space).div_ceil(1 << 20)
            ),
            VisitedKind::Frontier => format!(
                "the moves are reversible: the last levels as sorted keys, no visited set (the key space, {key_space}, is over 2^29 for a bitmap)"
            ),
            _ => "a hash set of the keys seen (the moves are not all reversible)".to_string(),
        };
        let spilled = match &self.spill {
            Some(s) if s.checkpoint => "; levels on disk, checkpointed",
            Some(_) => "; levels on disk",
            None => "",
        };
        if self.visited == VisitedKind::Auto {
            format!("{kind_why}{spilled} (not dense: {dense_why})")
        } else {
            format!("{kind_why}{spilled}")
        }
    }
}

/// Whether a search uses the dense store, and where its array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DenseFit {
    No,
    InMemory,
    /// On disk, a segment of at most this many bytes in memory at a time.
    OnDisk(u64),
}

/// Partitions per process of a cluster by default.
const PARTITIONS_PER_PROCESS: usize = 16;

/// Runs `f` in a pool of `threads` workers, of one too: every parallel
/// loop of a level then runs in the pool, on the calling worker alone when
/// it does not split (see [`min_len`](crate::engine::levels::workers::min_len)),
/// never in rayon's global pool.
pub(crate) fn in_pool<R: Send>(
    threads: usize,
    f: impl FnOnce() -> R + Send,
) -> Result<R, SearchError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("reach-worker-{i}"))
        .build()
        .map_err(|source| SearchError::ThreadPool { threads, source })?;
    Ok(pool.install(f))
}

/// The stores a key's width is served by: every store for 64-bit keys;
/// sorted levels in memory, on one process or several, for wide ones.
/// Sealed (its module is private): the engine's key widths are its own.
#[allow(private_interfaces)]
pub trait Stores: Sized {
    /// Runs the search on a store that serves this key.
    #[doc(hidden)]
    fn run_with<M: Model<Key = Self>>(
        search: &Search<'_, M>,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_, Self>,
        observe: &mut Observer<'_, Self>,
    ) -> SearchRun<Self>;

    /// The store a search would take on one process, and why.
    #[doc(hidden)]
    fn store<M: Model<Key = Self>>(
        search: &Search<'_, M>,
        solve: bool,
    ) -> Result<(VisitedKind, String), SearchError>;
}

#[allow(private_interfaces)]
impl Stores for u64 {
    fn run_with<M: Model<Key = u64>>(
        search: &Search<'_, M>,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_>,
        observe: &mut Observer<'_>,
    ) -> SearchRun<u64> {
        search.run_narrow(mode, peers, begin, observe)
    }

    fn store<M: Model<Key = u64>>(
        search: &Search<'_, M>,
        solve: bool,
    ) -> Result<(VisitedKind, String), SearchError> {
        search.narrow_store(solve)
    }
}

#[allow(private_interfaces)]
impl<const N: usize> Stores for Wide<N> {
    fn run_with<M: Model<Key = Wide<N>>>(
        search: &Search<'_, M>,
        mode: Mode,
        peers: &dyn Peers,
        begin: Begin<'_, Wide<N>>,
        observe: &mut Observer<'_, Wide<N>>,
    ) -> SearchRun<Wide<N>> {
        search.run_wide(mode, peers, begin, observe)
    }

    fn store<M: Model<Key = Wide<N>>>(
        search: &Search<'_, M>,
        _solve: bool,
    ) -> Result<(VisitedKind, String), SearchError> {
        Ok(search.wide_store())
    }
}
