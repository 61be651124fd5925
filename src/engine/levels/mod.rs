//! The level loop: the one place that says what happens to a level, over a
//! [`Store`] that says where the levels live (memory or disk).
//!
//! Every search is this loop: a count, a goal search, a solve, the two
//! searches of `hardest` (from the start, then from every goal at once) and
//! a resumed checkpoint. What a command wants from a level it says through
//! an observer that looks at each complete level and may end the search
//! there; the limits (signals, `--max-depth`, `--max-states`, memory) are
//! decided here and nowhere else, with one memory estimate.

pub(crate) mod agree;
pub mod memory;
pub(crate) mod workers;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::engine::files::DiskUse;
use crate::engine::files::SpillError;
use crate::engine::peers::{PeerError, Peers};
use crate::engine::{Key, Outcome, Progress, Report, StopReason, VisitedKind};
use agree::Exchange;
use workers::{SEQUENTIAL_BELOW, cores, sort_keys};

/// What a search keeps and looks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Every level, for its size (the newest two or one kept).
    Count,
    /// Until the first level with a goal.
    FindGoal,
    /// Until the first level with a goal, keeping every level (sorted) to
    /// walk a path back from it.
    Solve,
}

impl Mode {
    /// The name a checkpoint records.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Count => "count",
            Mode::FindGoal => "find",
            Mode::Solve => "solve",
        }
    }

    /// The mode a checkpoint's name stands for.
    pub(crate) fn from_name(name: &str) -> Option<Mode> {
        match name {
            "count" => Some(Mode::Count),
            "find" => Some(Mode::FindGoal),
            "solve" => Some(Mode::Solve),
            _ => None,
        }
    }
}

/// Where a search's levels live, partition by partition: the seam between
/// the level loop and its storage.
///
/// A store holds this process's partitions' shares of the newest complete
/// level (the frontier) and what it needs to tell new keys from old ones;
/// `settle_next` expands the frontier and settles the next level, which
/// then waits for `commit` (it becomes the frontier) or `discard`. A store
/// answers for this process's share only; the loop gathers the answers
/// from every process ([`agree`]), and the store's one dealing with other
/// processes is the [`Exchange`] that settling hands it. Errors are
/// storage faults (a full disk, a damaged file) and lost peers.
pub(crate) trait Store<K: Key = u64> {
    /// The goal keys of this process's share of the newest level, in no
    /// particular order.
    fn goals(&mut self, threads: usize) -> Result<Vec<K>, Fault>;

    /// Whether this process's share of the newest level holds `key`.
    fn contains(&mut self, key: K) -> Result<bool, Fault>;

    /// Expands the newest level (at `depth`, `width` states in all
    /// processes) on `threads` workers and settles this process's share of
    /// the next one, sending other processes' candidates through
    /// `exchange`; the share's size. A raised stop flag may cut the level
    /// short (the loop then discards it).
    fn settle_next(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault>;

    /// How many successors of the newest level that the search has not
    /// seen this process found (at least one if there is any; a depth
    /// limit at the true depth cuts nothing short); keeps nothing of the
    /// next level.
    fn new_successors(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault>;

    /// Makes the settled level the newest; `levels` are the sizes of every
    /// level so far (the new one last), `seconds` the search's time so far.
    fn commit(&mut self, levels: &Sizes, seconds: f64) -> Result<(), Fault>;

    /// Whether the model's keys stand for classes of positions
    /// ([`Model::classes`](crate::engine::Model::classes)): then the loop
    /// weighs every level with [`Store::positions`].
    fn classes(&self) -> bool {
        false
    }

    /// The positions that the keys of this process's share of the settled
    /// next level (`next`) or of the newest level stand for, on `threads`
    /// workers. Asked only when [`Store::classes`] says yes.
    fn positions(&mut self, next: bool, threads: usize) -> Result<u64, Fault>;

    /// Drops the settled level.
    fn discard(&mut self);

    /// Bytes of memory that a state of the next level is expected to cost
    /// (levels on disk cost none: their memory is a fixed budget).
    fn bytes_per_new_key(&self) -> u64;

    /// Bytes of memory a next level of `next` states is expected to add,
    /// the process holding `rss` bytes now: by default `next` times
    /// [`Store::bytes_per_new_key`]. A store on disk plans its memory from
    /// the limit when it starts; it answers what is left of that plan (at
    /// once, for an array on disk; as its buffers fill, for levels on
    /// disk), so that a limit below what the search needs stops it before
    /// it passes the limit, saying how much it would need.
    fn next_level_bytes(&self, next: u64, _rss: u64) -> u64 {
        next.saturating_mul(self.bytes_per_new_key())
    }

    /// This process's share of the newest level (`width` states in all
    /// processes), in any order; `None` when the store does not hold it
    /// whole, which depends on `width` alone (every process answers alike).
    fn last_level(&mut self, width: u64, threads: usize) -> Result<Option<Vec<K>>, Fault>;

    /// When every level was kept (sorted): the smallest key of this
    /// process's share of level `depth` that has `key` (of the level after
    /// it) as a successor.
    fn predecessor(&mut self, depth: u32, key: K, threads: usize) -> Result<Option<K>, Fault>;

    /// Why the search stopped, given the fault `e` (a store with a
    /// checkpoint adds how to go on).
    fn fault(&self, e: Fault) -> StopReason {
        match e {
            Fault::Storage(e) => StopReason::Storage(e.to_string()),
            Fault::Peer(e) => StopReason::Cluster(e.to_string()),
        }
    }

    /// Ends the search (`stopped`: by a limit, a signal or a fault): what
    /// the report says of the storage.
    fn finish(self, stopped: bool) -> Finished;
}

/// What a store says of itself at the end.
pub(crate) struct Finished {
    pub(crate) visited: VisitedKind,
    pub(crate) partitions: usize,
    pub(crate) disk: Option<DiskUse>,
    /// Bytes a key took in levels held in memory as coded runs.
    pub(crate) coded: Option<f64>,
}

/// The newest complete level, as an observer sees it.
pub(crate) trait Newest<K = u64> {
    /// Its goal keys, in no particular order.
    fn goals(&mut self) -> Result<Vec<K>, Fault>;
    /// Whether it holds `key`.
    fn contains(&mut self, key: K) -> Result<bool, Fault>;
}

/// A store's newest level, looked at with a level's worth of workers, for
/// the whole search: every process's answers gathered.
struct At<'s, S> {
    store: &'s mut S,
    peers: &'s dyn Peers,
    threads: usize,
}

impl<K: Key, S: Store<K>> Newest<K> for At<'_, S> {
    fn goals(&mut self) -> Result<Vec<K>, Fault> {
        agree::gather(self.peers, self.store.goals(self.threads)?)
    }

    fn contains(&mut self, key: K) -> Result<bool, Fault> {
        let mine = self.store.contains(key)?;
        Ok(agree::sum(self.peers, u64::from(mine))? > 0)
    }
}

/// What a command does with each complete level (at the given depth):
/// `Some(outcome)` ends the search there.
pub(crate) type Observer<'o, K = u64> =
    dyn FnMut(u32, &mut dyn Newest<K>) -> Result<Option<Outcome<K>>, Fault> + Send + 'o;

/// What a plain `mode` observes: nothing for a count; for a goal search
/// and a solve, the first level with a goal.
pub(crate) type ObserverFn<K> = fn(u32, &mut dyn Newest<K>) -> Result<Option<Outcome<K>>, Fault>;

/// What a plain `mode` observes (see [`observer`]).
pub(crate) fn observer<K: Key>(mode: Mode) -> ObserverFn<K> {
    match mode {
        Mode::Count => |_, _| Ok(None),
        Mode::FindGoal | Mode::Solve => find_goal,
    }
}

/// An observer that looks for a goal: the smallest goal key of the first
/// level that has one.
fn find_goal<K: Key>(depth: u32, level: &mut dyn Newest<K>) -> Result<Option<Outcome<K>>, Fault> {
    Ok(level
        .goals()?
        .into_iter()
        .min()
        .map(|key| Outcome::Goal { depth, key }))
}

/// The limits a search runs under, and whom it tells of its progress.
#[derive(Clone, Copy)]
pub(crate) struct Limits<'a> {
    pub(crate) stop: Option<&'a AtomicBool>,
    /// Raised with `stop` when the stop is a termination (SIGTERM).
    pub(crate) terminated: Option<&'a AtomicBool>,
    pub(crate) max_states: Option<u64>,
    pub(crate) max_depth: Option<u32>,
    pub(crate) memory_limit: Option<u64>,
    pub(crate) memory_guard: bool,
    pub(crate) progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// The states the search will find in all, where known in advance.
    pub(crate) expected_states: Option<u64>,
}

impl Limits<'_> {
    /// Whether the stop flag is raised. Acquire: a caller that raises the
    /// termination flag before the stop flag (with release or stronger
    /// stores, as signal handlers registered in that order do) has its
    /// termination flag seen by whoever sees the stop, so
    /// [`Limits::interruption`] names the stop exactly.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Acquire))
    }

    /// Why the stop flag was raised: a termination or an interruption.
    /// Read only after [`Limits::stopped`] said yes, whose acquire makes
    /// the termination flag raised before the stop visible: a relaxed load
    /// is then enough.
    pub(crate) fn interruption(&self) -> StopReason {
        if self.terminated.is_some_and(|t| t.load(Ordering::Relaxed)) {
            StopReason::Terminated
        } else {
            StopReason::Interrupted
        }
    }

    /// Tells of the levels so far (their sizes in states).
    fn report_progress(&self, levels: &[u64], seconds: f64) {
        if let Some(progress) = self.progress {
            progress(&Progress {
                depth: levels.len() as u32 - 1,
                level_states: *levels.last().unwrap_or(&0),
                total_states: levels.iter().sum(),
                seconds,
                expected_states: self.expected_states,
                stage: "",
            });
        }
    }

    /// Whether to stop before expanding the level at `depth` (the last of
    /// `levels`); `store` says what the next level may add to the memory
    /// ([`Store::next_level_bytes`]).
    /// `close`: whether the last check found the process near its memory
    /// limit (then every level is checked).
    fn stop_before_level<K: Key, S: Store<K>>(
        &self,
        depth: u32,
        levels: &[u64],
        store: &S,
        close: &Cell<bool>,
    ) -> Option<StopReason> {
        if self.stopped() {
            return Some(self.interruption());
        }
        if let Some(max) = self.max_depth
            && depth >= max
        {
            return Some(StopReason::MaxDepth(max));
        }
        if self.memory_limit.is_none() && !self.memory_guard {
            return None;
        }
        // The next level is estimated from the last level's growth (at least
        // as large as this one).
        let last = *levels.last().unwrap_or(&0) as f64;
        let before = levels
            .len()
            .checked_sub(2)
            .map_or(1.0, |i| levels[i] as f64);
        let growth = (last / before.max(1.0)).clamp(1.0, 64.0);
        let next = (last * growth) as u64;
        let per_key = store.bytes_per_new_key();
        let extra = next.saturating_mul(per_key);
        // Reading /proc costs tens of microseconds, a real share of a thin
        // level: levels that add under 1 MiB in memory, or under 64 Ki
        // states on disk (no memory a key; its buffers grow with the
        // level), are checked one in 64. pe766 on disk at 2 threads, with
        // every level checked: 0.43-0.51 s against 0.29-0.46 s before.
        let thin = if per_key > 0 {
            extra < 1 << 20
        } else {
            last < 65536.0
        };
        if thin && !close.get() && !depth.is_multiple_of(64) {
            return None;
        }
        let rss = memory::current_rss_bytes()?;
        let extra = store.next_level_bytes(next, rss);
        let needed = rss.saturating_add(extra);
        if let Some(limit) = self.memory_limit {
            // Within a quarter of the limit every level is checked: thin
            // levels on disk fill their buffers, and between two checks 64
            // levels apart they passed it (eleven on disk at two threads
            // under 14M: 15.3 MiB when the check saw it).
            close.set(needed > limit / 4 * 3);
            return (needed > limit).then_some(StopReason::MemoryLimit { limit, needed });
        }
        // Whatever bounds the process first: the machine, a cgroup, or
        // `ulimit -v` (which counts address space that the allocator has
        // reserved, not only what is resident). Levels on disk need no
        // memory a key, but their buffers and merges need some: a machine
        // with less than that left ends the search before it runs out.
        let (room, bound) = memory::headroom()?;
        let needed = if per_key == 0 {
            extra.max(DISK_FLOOR)
        } else {
            extra
        };
        (needed > room / 10 * 9).then_some(StopReason::MemoryAvailable {
            available: room,
            needed,
            bound,
        })
    }
}

/// The memory a search with its levels on disk needs left to go on: its
/// candidate buffers and a merge's blocks at their smallest (64 Ki keys a
/// worker, a block of each source).
const DISK_FLOOR: u64 = 32 << 20;

/// Where a search starts: the sizes of its complete levels (level 0 alone
/// for a new search; more for a resumed one) and the time they took.
pub(crate) struct Start {
    pub(crate) levels: Vec<u64>,
    /// The positions of those levels when keys stand for classes, if
    /// known (a resumed search's; a new one's level 0 is weighed by the
    /// loop).
    pub(crate) positions: Option<Vec<u64>>,
    pub(crate) seconds: f64,
}

impl Start {
    /// A new search's start: level 0 of `sources` keys.
    pub(crate) fn new(sources: u64) -> Start {
        Start {
            levels: vec![sources],
            positions: None,
            seconds: 0.0,
        }
    }
}

/// The sizes of a search's complete levels: keys, and the positions they
/// stand for when keys stand for classes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sizes {
    pub(crate) keys: Vec<u64>,
    pub(crate) positions: Option<Vec<u64>>,
}

impl Sizes {
    /// The states (positions) of every level, as a report gives them.
    fn states(&self) -> &[u64] {
        self.positions.as_deref().unwrap_or(&self.keys)
    }
}

/// The level loop: look at the newest level, check the limits, expand it
/// and settle the next, commit or discard it, until a level is empty, an
/// observer has what it wants, or a limit, a signal or a fault ends it.
///
/// A level cut short by a signal, or over `--max-states`, is discarded, so
/// that a report holds complete levels only.
pub(crate) fn run<K: Key, S: Store<K>>(
    mut store: S,
    peers: &dyn Peers,
    limits: &Limits<'_>,
    threads: usize,
    mode: Mode,
    start: Start,
    observe: &mut Observer<'_, K>,
) -> (Report<K>, Option<Vec<K>>) {
    let Start {
        levels,
        positions,
        seconds: before,
    } = start;
    let mut levels = Sizes {
        keys: levels,
        positions,
    };
    let turns = Turns {
        peers,
        limits,
        exchange: Exchange::new(peers),
        // Workers beyond the cores take turns.
        running: threads.min(cores()),
        started: Instant::now(),
        before,
        close: Cell::new(false),
    };
    let mut total: u64 = levels.keys.iter().sum();
    // (`broken`: a peer was lost.)
    let (mut outcome, broken) = loop {
        match turns.turn(&mut store, &mut levels, &mut total, observe) {
            Ok(None) => {}
            Ok(Some(outcome)) => break (outcome, false),
            Err(e) => {
                let broken = matches!(e, Fault::Peer(_));
                break (Outcome::Stopped(store.fault(e)), broken);
            }
        }
    };
    // A goal search has no use for its last level in order. After a lost
    // peer nothing more can be gathered.
    let width = *levels.keys.last().expect("level 0");
    let last_level = if broken {
        Vec::new()
    } else {
        let sorted = mode == Mode::Count;
        match last_level(&mut store, peers, limits, width, threads, sorted) {
            Ok(keys) => keys,
            Err(e) => {
                outcome = Outcome::Stopped(store.fault(e));
                Vec::new()
            }
        }
    };
    let path = match (&outcome, mode) {
        (Outcome::Goal { key, depth }, Mode::Solve) => {
            match path(&mut store, peers, *key, *depth, threads) {
                Ok(path) => Some(path),
                Err(e) => {
                    outcome = Outcome::Stopped(store.fault(e));
                    None
                }
            }
        }
        _ => None,
    };
    let finished = store.finish(matches!(outcome, Outcome::Stopped(_)));
    let states = levels.states().to_vec();
    let report = Report {
        last_level_states: *states.last().expect("level 0"),
        levels: states,
        class_levels: levels.positions.is_some().then_some(levels.keys),
        last_level,
        outcome,
        seconds: turns.seconds(),
        threads,
        visited: finished.visited,
        store: String::new(),
        partitions: finished.partitions,
        disk: finished.disk,
        key_bytes: std::mem::size_of::<K>(),
        coded_bytes_per_state: finished.coded,
    };
    (report, path)
}

/// What every turn of the level loop works with.
struct Turns<'t> {
    peers: &'t dyn Peers,
    limits: &'t Limits<'t>,
    exchange: Exchange<'t>,
    /// Workers that run at once.
    running: usize,
    started: Instant,
    /// Seconds searched before this run (by the run a resume goes on from).
    before: f64,
    /// Whether the last memory check found the process near its limit.
    close: Cell<bool>,
}

impl Turns<'_> {
    /// The search's seconds so far.
    fn seconds(&self) -> f64 {
        self.before + self.started.elapsed().as_secs_f64()
    }

    /// One turn of the loop: looks at the newest level (the last of
    /// `levels`; `total` states in all), checks the limits, expands it and
    /// settles the next, commits or discards it. `Some(outcome)` when the
    /// search ends here.
    fn turn<K: Key, S: Store<K>>(
        &self,
        store: &mut S,
        levels: &mut Sizes,
        total: &mut u64,
        observe: &mut Observer<'_, K>,
    ) -> Result<Option<Outcome<K>>, Fault> {
        let (peers, limits) = (self.peers, self.limits);
        let depth = levels.keys.len() as u32 - 1;
        let width = *levels.keys.last().expect("level 0");
        // Levels too thin to split run on the calling thread.
        let threads = if width < SEQUENTIAL_BELOW as u64 {
            1
        } else {
            self.running
        };
        if store.classes() && levels.positions.is_none() {
            // A new search's level 0, weighed once.
            let mine = store.positions(false, threads)?;
            levels.positions = Some(vec![agree::sum(peers, mine)?]);
        }
        let found = observe(
            depth,
            &mut At {
                store,
                peers,
                threads,
            },
        )?;
        limits.report_progress(levels.states(), self.seconds());
        if let Some(found) = found.filter(|o| *o != Outcome::Complete) {
            return Ok(Some(found));
        }
        let mine = limits.stop_before_level(depth, &levels.keys, &*store, &self.close);
        if let Some(reason) = agree::reason(peers, mine)? {
            return self.stop_before(store, reason, depth, width, threads);
        }
        let share = store.settle_next(depth, width, threads, &self.exchange)?;
        // Every process's share and whether a signal cut its level short
        // (0: no; 1: an interruption; 2: a termination, which names the
        // stop when any process had one).
        let signal = match (limits.stopped(), limits.interruption()) {
            (false, _) => 0,
            (true, StopReason::Terminated) => 2,
            (true, _) => 1,
        };
        let (width, stopped) = agree::width(peers, share, signal)?;
        // A level of classes is weighed in positions, which --max-states
        // counts (every process weighs it or none: `stopped` and `width`
        // are agreed).
        let weighed = match (&levels.positions, stopped, width) {
            (Some(_), 0, 1..) => Some(agree::sum(peers, store.positions(true, threads)?)?),
            _ => None,
        };
        let (states, before) = match weighed {
            Some(n) => (n, levels.states().iter().sum()),
            None => (width, *total),
        };
        let end = if stopped > 0 {
            // The level may be cut short by the signal's timing (even to
            // nothing, which must not pass for the end of the search).
            Some(Outcome::Stopped(if stopped == 2 {
                StopReason::Terminated
            } else {
                StopReason::Interrupted
            }))
        } else if width == 0 {
            Some(Outcome::Complete)
        } else {
            limits
                .max_states
                .filter(|&max| before + states > max)
                .map(|max| Outcome::Stopped(StopReason::MaxStates(max)))
        };
        if end.is_some() {
            store.discard();
            return Ok(end);
        }
        if let (Some(positions), Some(n)) = (levels.positions.as_mut(), weighed) {
            positions.push(n);
        }
        levels.keys.push(width);
        *total += width;
        store.commit(levels, self.seconds())?;
        Ok(None)
    }

    /// How the search ends when every process agreed to stop for `reason`
    /// before expanding the level at `depth`. A depth limit at the last
    /// level cuts nothing short: the search is complete if no state of the
    /// frontier has a new successor (unless a signal came meanwhile).
    fn stop_before<K: Key, S: Store<K>>(
        &self,
        store: &mut S,
        reason: StopReason,
        depth: u32,
        width: u64,
        threads: usize,
    ) -> Result<Option<Outcome<K>>, Fault> {
        if matches!(reason, StopReason::MaxDepth(_)) {
            let mine = store.new_successors(depth, width, threads, &self.exchange)?;
            if agree::sum(self.peers, mine)? == 0 {
                let signal = self.limits.stopped().then(|| self.limits.interruption());
                return Ok(Some(match agree::reason(self.peers, signal)? {
                    None => Outcome::Complete,
                    Some(interrupted) => Outcome::Stopped(interrupted),
                }));
            }
        }
        Ok(Some(Outcome::Stopped(reason)))
    }
}

/// Levels of at most this many states are gathered from every process
/// for the report (the hardest positions, the antipodes); wider ones are
/// too many to print or to hold twice.
const GATHER_MAX: u64 = 1 << 22;

/// The newest level's keys (`width` of them in all processes), sorted if
/// `sorted`; none when there are too many to gather from other processes,
/// or the store does not hold them.
fn last_level<K: Key, S: Store<K>>(
    store: &mut S,
    peers: &dyn Peers,
    limits: &Limits<'_>,
    width: u64,
    threads: usize,
    sorted: bool,
) -> Result<Vec<K>, Fault> {
    if peers.processes() > 1 && width > GATHER_MAX {
        return Ok(Vec::new());
    }
    // A memory limit holds for the report too: the keys (with room for
    // their vector to grow, and gathered whole on process 0) only if they
    // fit what it leaves. Before, eleven on disk at two threads stopped
    // under `--memory-limit 12M` at 12.5 MiB, then read its last level of
    // 515778 keys and peaked at 17.5 MiB.
    let over = limits.memory_limit.is_some_and(|limit| {
        let keys = width.saturating_mul(2 * std::mem::size_of::<K>() as u64);
        memory::current_rss_bytes().is_none_or(|rss| rss.saturating_add(keys) > limit)
    });
    // Every process reads its share, or none does (alone, the sum is
    // its own).
    if agree::sum(peers, u64::from(over))? > 0 {
        return Ok(Vec::new());
    }
    let Some(mine) = store.last_level(width, threads)? else {
        return Ok(Vec::new());
    };
    let mut keys = agree::gather(peers, mine)?;
    if sorted {
        sort_keys(&mut keys, threads);
    }
    Ok(keys)
}

/// The path from a source to `goal` (at `depth`), when every level was
/// kept: at each level back, the smallest key that has the current one as
/// a successor, over every process's share (so that the path depends on
/// neither thread timing, the partition count nor the process count).
fn path<K: Key, S: Store<K>>(
    store: &mut S,
    peers: &dyn Peers,
    goal: K,
    depth: u32,
    threads: usize,
) -> Result<Vec<K>, Fault> {
    let mut path = vec![goal];
    let mut current = goal;
    for d in (0..depth).rev() {
        let mine = store.predecessor(d, current, threads)?;
        // Every key of a level was found as the successor of one in the
        // level before: a missing one is a damaged level file, or a model
        // whose successors are not the same from call to call.
        current = agree::min(peers, mine)?.ok_or(SpillError::NoPredecessor { depth: d })?;
        path.push(current);
    }
    path.reverse();
    Ok(path)
}

/// What ends a search before its levels do: its storage or its peers.
#[derive(Debug)]
pub(crate) enum Fault {
    /// A file could not be written or read.
    Storage(SpillError),
    /// A process was lost or stalled.
    Peer(PeerError),
}

impl From<SpillError> for Fault {
    fn from(e: SpillError) -> Fault {
        Fault::Storage(e)
    }
}

impl From<PeerError> for Fault {
    fn from(e: PeerError) -> Fault {
        Fault::Peer(e)
    }
}
