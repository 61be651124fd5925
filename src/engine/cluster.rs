//! The same exact breadth-first search across processes and hosts, on
//! timely-dataflow.
//!
//! Every timely worker (W threads in each of N processes) owns the keys
//! that timely's exchange sends it (`mix64(key) % workers`), and keeps its
//! share of the levels in a [`Partition`], whose settle step is the
//! in-memory engine's. A round of the worker-driven loop:
//!
//! 1. each worker expands its share of level d and sends every successor
//!    into the candidates input at time d+1, which exchanges it to its owner;
//! 2. once the candidates' probe has passed d+1 (every candidate of the
//!    round is delivered), each worker settles its share of level d+1;
//! 3. each worker broadcasts a control record (its share's size, its
//!    process's stop and memory flags, the digest of its puzzle and
//!    settings); once that probe has passed, every worker holds the same
//!    records and takes the same decision: commit or drop the level, go on
//!    or stop. Limits and signals therefore end every process at the same
//!    level boundary.
//!
//! Process 0's worker 0 gathers the report (and the last level's keys,
//! through a third stream exchanged to it).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

use super::partition::{Partition, Settle};
use super::visited::{Visited, mix64};
use super::{Model, Outcome, Progress, Report, StopReason, VisitedKind, memory};

/// Where the processes of a cluster are, and which one this is.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// This process's index in `addresses`.
    pub process: usize,
    /// Timely workers (threads) in every process.
    pub workers: usize,
}

/// A progress callback shared by the workers.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What a cluster count is asked to do.
#[derive(Clone, Default)]
pub struct ClusterSearch {
    /// The visited set (frontier search unless the moves cannot be undone).
    pub visited: VisitedKind,
    /// Stop before the count would pass this.
    pub max_states: Option<u64>,
    /// Stop before a level deeper than this.
    pub max_depth: Option<u32>,
    /// Stop before a level estimated to take this process past this many
    /// bytes (each process checks its own).
    pub memory_limit: Option<u64>,
    /// Raised by a signal: every process stops at the next level boundary.
    pub stop: Option<Arc<AtomicBool>>,
    /// Called on process 0 after every level.
    pub progress: Option<ProgressFn>,
    /// Called once every process is connected (the dataflow is running).
    pub connected: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// Why a cluster count failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Timely could not set the cluster up (an address that does not
    /// resolve or cannot be bound).
    #[error("could not start the cluster: {0}")]
    Start(String),
    /// The processes do not run the same search.
    #[error(
        "process {process} runs another puzzle, metric or limits than process 0\n  help: give every process the same puzzle (file contents included) and options"
    )]
    Mismatch {
        /// The process that differs.
        process: usize,
    },
    /// A worker failed.
    #[error("a worker failed: {0}")]
    Worker(String),
}

/// A round's control record: the worker's share of the new level, flags,
/// the digest of its search, the worker's process, and the bytes its
/// process would reach with the next level when that passes its limit.
type Control = (u64, u64, u64, u64, u64);

/// The last level's keys are gathered when there are at most this many.
const LAST_LEVEL_MAX: u64 = 1 << 22;

const STOP: u64 = 1;
const MEMORY: u64 = 2;

/// The decision every worker takes alike after a round.
struct Totals {
    width: u64,
    flags: u64,
    mismatch: Option<usize>,
    /// The largest memory estimate over a limit.
    needed: u64,
}

fn totals(records: &[Control]) -> Totals {
    let mut t = Totals {
        width: 0,
        flags: 0,
        mismatch: None,
        needed: 0,
    };
    // Every worker compares against process 0's digest, so that all name
    // the same process.
    let reference = records.iter().find(|r| r.3 == 0).map(|r| r.2);
    for &(width, flags, d, process, needed) in records {
        t.width += width;
        t.flags |= flags;
        t.needed = t.needed.max(needed);
        if Some(d) != reference {
            let p = process as usize;
            t.mismatch = Some(t.mismatch.map_or(p, |m| m.min(p)));
        }
    }
    t
}

/// Counts the states reachable from `model`'s start across the cluster.
/// Every process calls this with the same model and settings and gets the
/// same report, except that only process 0's holds the last level's keys.
pub fn count<M>(
    model: Arc<M>,
    cluster: &Cluster,
    search: ClusterSearch,
) -> Result<Option<Report>, ClusterError>
where
    M: Model + Send + Sync + 'static,
{
    let config = timely::Config {
        communication: if cluster.addresses.len() <= 1 {
            timely::CommunicationConfig::Process(cluster.workers)
        } else {
            timely::CommunicationConfig::Cluster {
                threads: cluster.workers,
                process: cluster.process,
                addresses: cluster.addresses.clone(),
                // Timely's connection reports go to stdout: never.
                report: false,
                zerocopy: false,
            }
        },
        worker: timely::WorkerConfig::default(),
    };
    let digest = super::spill::digest(&format!(
        "{}\n{:?} {:?} {:?}",
        model.identity(),
        search.visited,
        search.max_states,
        search.max_depth
    ));
    let process = cluster.process as u64;
    let workers = cluster.workers as u64;
    let result: Arc<Mutex<Option<Result<Report, ClusterError>>>> = Arc::new(Mutex::new(None));
    let out = Arc::clone(&result);
    let guards = timely::execute(config, move |worker| {
        let outcome = run_worker(worker, &*model, &search, digest, process, workers);
        if let Some(r) = outcome {
            *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        }
    })
    .map_err(ClusterError::Start)?;
    for r in guards.join() {
        r.map_err(ClusterError::Worker)?;
    }
    let r = result.lock().unwrap_or_else(|e| e.into_inner()).take();
    r.transpose()
}

/// One timely worker's loop; process 0's worker 0 returns the report.
fn run_worker<M: Model>(
    worker: &mut timely::worker::Worker,
    model: &M,
    search: &ClusterSearch,
    digest: u64,
    process: u64,
    workers: u64,
) -> Option<Result<Report, ClusterError>> {
    let started = Instant::now();
    let index = worker.index();
    // The first worker of each process reports for it; process 0's gathers
    // the last level.
    let reporter = index.is_multiple_of(workers as usize);
    let mut candidates: InputHandle<u64, _> = InputHandle::new();
    let mut control: InputHandle<u64, _> = InputHandle::new();
    let mut gather: InputHandle<u64, _> = InputHandle::new();
    let cand_probe = ProbeHandle::new();
    let ctl_probe = ProbeHandle::new();
    let gather_probe = ProbeHandle::new();
    let received: Rc<RefCell<Vec<u64>>> = Rc::new(RefCell::new(Vec::new()));
    let records: Rc<RefCell<Vec<Control>>> = Rc::new(RefCell::new(Vec::new()));
    let gathered: Rc<RefCell<Vec<u64>>> = Rc::new(RefCell::new(Vec::new()));
    {
        let (received, records, gathered) = (received.clone(), records.clone(), gathered.clone());
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut candidates)
                .container::<Vec<u64>>()
                .exchange(|k: &u64| mix64(*k))
                .inspect_core(move |event| {
                    if let Ok((_, data)) = event {
                        received.borrow_mut().extend_from_slice(data);
                    }
                })
                .probe_with(&cand_probe);
            scope
                .input_from(&mut control)
                .container::<Vec<Control>>()
                .broadcast()
                .inspect_core(move |event| {
                    if let Ok((_, data)) = event {
                        records.borrow_mut().extend_from_slice(data);
                    }
                })
                .probe_with(&ctl_probe);
            scope
                .input_from(&mut gather)
                .container::<Vec<u64>>()
                .exchange(|_: &u64| 0)
                .inspect_core(move |event| {
                    if let Ok((_, data)) = event {
                        gathered.borrow_mut().extend_from_slice(data);
                    }
                })
                .probe_with(&gather_probe);
        });
    }
    if let Some(connected) = &search.connected {
        connected();
    }
    let visited = Visited::new(search.visited, model.key_space(), model.reversible(), 1);
    let frontier_search = matches!(visited, Visited::Frontier);
    let (how, keep) = if frontier_search {
        (Settle::Frontier, 2)
    } else {
        (Settle::Visited { sorted: true }, 1)
    };
    let mut part = Partition::default();
    let mut state = model.new_state();
    let mut successors = Vec::new();
    let mut batch: Vec<u64> = Vec::with_capacity(1 << 13);
    let mut levels: Vec<u64> = Vec::new();
    let mut total = 0u64;
    let mut outcome = Outcome::Complete;
    let mut time = 0u64;
    // Round 0's candidates: the start, from worker 0.
    if index == 0 {
        candidates.send(model.start());
    }
    let mut probing: Option<StopReason> = None;
    let mut error = None;
    loop {
        // 1. every candidate of this round delivered.
        time += 1;
        candidates.advance_to(time);
        while cand_probe.less_than(candidates.time()) {
            worker.step_or_park(None);
        }
        // 2. settle this worker's share of the new level.
        let mut incoming = std::mem::take(&mut *received.borrow_mut());
        if !frontier_search {
            incoming.sort_unstable();
            incoming.dedup();
            incoming.retain(|&k| visited.insert(k));
        }
        let mut runs = [incoming];
        let width = part.settle(&mut runs, how) as u64;
        *received.borrow_mut() = std::mem::take(&mut runs[0]);
        // 3. what every worker found, and whether to stop.
        let mut flags = 0;
        if search
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            flags |= STOP;
        }
        let needed = over_memory(search, workers, part.frontier().len() as u64, width);
        if needed.is_some() {
            flags |= MEMORY;
        }
        control.send((width, flags, digest, process, needed.unwrap_or(0)));
        control.advance_to(time);
        while ctl_probe.less_than(control.time()) {
            worker.step_or_park(None);
        }
        let t = totals(&std::mem::take(&mut *records.borrow_mut()));
        if let Some(p) = t.mismatch {
            error = Some(ClusterError::Mismatch { process: p });
            break;
        }
        // Level 0 (the start) is complete whatever the timing; a stop
        // raised before it takes effect after it.
        if t.flags & STOP != 0 && !levels.is_empty() {
            part.discard();
            outcome = Outcome::Stopped(StopReason::Interrupted);
            break;
        }
        if t.width == 0 {
            part.discard();
            break;
        }
        if let Some(reason) = probing.take() {
            part.discard();
            outcome = Outcome::Stopped(reason);
            break;
        }
        if let Some(max) = search.max_states
            && total + t.width > max
        {
            part.discard();
            outcome = Outcome::Stopped(StopReason::MaxStates(max));
            break;
        }
        part.commit(keep);
        levels.push(t.width);
        total += t.width;
        let depth = levels.len() as u32 - 1;
        if reporter && let Some(progress) = &search.progress {
            progress(&Progress {
                depth,
                level_states: t.width,
                total_states: total,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        if t.flags & MEMORY != 0 {
            let limit = search.memory_limit.unwrap_or(0);
            outcome = Outcome::Stopped(StopReason::MemoryLimit {
                limit,
                needed: t.needed,
            });
            break;
        }
        if let Some(max) = search.max_depth
            && depth >= max
        {
            // Settle the next level and drop it: at the true depth it is
            // empty and the count is complete.
            probing = Some(StopReason::MaxDepth(max));
        }
        // 1'. expand this worker's share of the level just committed.
        let mut sent = 0usize;
        for &key in part.frontier() {
            model.decode(key, &mut state);
            successors.clear();
            model.successors(&mut state, &mut successors);
            batch.extend_from_slice(&successors);
            if batch.len() >= 1 << 13 {
                sent += batch.len();
                candidates.send_batch(&mut batch);
                batch.clear();
                // Let the exchange drain as we go, so that a round's
                // candidates are not all buffered at once.
                if sent >= 1 << 16 {
                    sent = 0;
                    worker.step();
                }
            }
        }
        candidates.send_batch(&mut batch);
        batch.clear();
    }
    // The last level's keys, to worker 0 (a bounded number of them).
    let last_states = levels.last().copied().unwrap_or(0);
    if error.is_none() && last_states <= LAST_LEVEL_MAX {
        let mut keys = part.frontier().to_vec();
        gather.send_batch(&mut keys);
    }
    time += 1;
    gather.advance_to(time);
    while gather_probe.less_than(gather.time()) {
        worker.step_or_park(None);
    }
    if !reporter {
        return None;
    }
    if let Some(e) = error {
        return Some(Err(e));
    }
    let mut last_level = std::mem::take(&mut *gathered.borrow_mut());
    last_level.sort_unstable();
    Some(Ok(Report {
        levels,
        last_level,
        last_level_states: last_states,
        outcome,
        seconds: started.elapsed().as_secs_f64(),
        threads: worker.peers(),
        visited: visited.kind(),
        partitions: worker.peers(),
        disk: None,
    }))
}

/// The bytes this process would reach with the next level, if that
/// passes its memory limit: estimated from this level's growth (each
/// worker's share is about the same, so one worker's stands for its
/// process's).
fn over_memory(search: &ClusterSearch, workers: u64, before: u64, width: u64) -> Option<u64> {
    let limit = search.memory_limit?;
    let growth = (width as f64 / before.max(1) as f64).clamp(1.0, 64.0);
    let next = (width as f64 * growth) as u64;
    // Candidates (8 bytes) and the level (8), a few per state, times the
    // workers of this process, which run alike.
    let extra = next.saturating_mul(24);
    let needed = memory::current_rss_bytes()?.saturating_add(extra.saturating_mul(workers));
    (needed > limit).then_some(needed)
}
