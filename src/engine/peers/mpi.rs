//! The ranks of an MPI job as the processes of one search (feature `mpi`):
//! started by `mpiexec -n N` or Slurm's `srun`, each rank runs the same
//! level loop over its share of the partitions, and the collectives of
//! [`Peers`] are MPI's.
//!
//! - **Transfers.** `exchange` is two steps: the counts go in a
//!   non-blocking all-to-all, then each pair's keys go as point-to-point
//!   messages (`isend`/`irecv`) straight into one `Vec` per source, no
//!   packing copy. MPI counts are `i32`: a transfer is split into messages
//!   of at most [`CHUNK`] keys, all on one tag (MPI matches a pair's
//!   messages in the order they are posted, so chunks and levels cannot be
//!   confused). `all_gather` is one `MPI_Iallgather` of blocks of fixed
//!   size where every rank's words fit one ([`SMALL`]: whether to stop,
//!   the next level's width, a sum; a level makes two such gathers), and
//!   that followed by a transfer of the whole where one does not: each
//!   round trip is paid by every one of pe766's 1,369 thin levels.
//! - **Waiting.** Every request is polled with `MPI_Test`, yielding the
//!   core between tests and, after a while, sleeping a little: a blocking
//!   MPICH call spins, and with more ranks than free cores a thin level
//!   then takes milliseconds instead of microseconds.
//! - **Threads.** The level loop runs on a rayon worker and the watchdog
//!   on a thread of its own, so MPI is asked for `MPI_THREAD_MULTIPLE`;
//!   every call is made under one lock ([`Shared::lock`]), so that
//!   `MPI_THREAD_SERIALIZED` is enough and less is refused.
//! - **Faults.** MPI's errors are fatal, and a rank that dies ends the job
//!   (the launcher kills the others). A rank that stops (SIGSTOP, a hung
//!   node) is found by the watchdog: every rank sends every other a
//!   heartbeat each second on a communicator of its own, and a rank not
//!   heard from for the peer timeout ends the job with `MPI_Abort(5)`
//!   after one message that names it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mpi::Threading;
use mpi::environment::Universe;
use mpi::request::{Request, StaticScope, scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{PeerError, Peers};

/// The most keys in one message (1 GiB): MPI counts are `i32`.
pub const CHUNK: usize = 1 << 27;

/// The most words a rank's part of a gather may have for the gather to
/// be one collective (a level's gathers have at most four).
const SMALL: usize = 7;

/// The tag of every message of the search's communicator.
const TAG: i32 = 7;

/// A watchdog's word: still here.
static HEARTBEAT: u64 = 1;
/// A watchdog's word: done, nothing more comes from me.
static GOODBYE: u64 = 2;

/// Why the MPI job cannot run a search.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// MPI was initialised already, or could not be.
    #[error("MPI could not be initialised (MPI_Init_thread failed, or ran twice)")]
    Init,
    /// The MPI library cannot take calls from more than one thread.
    #[error(
        "this MPI offers {0} threads, and reach needs MPI_THREAD_SERIALIZED at least (its level loop and its watchdog are two threads)\n  help: use an MPI built with thread support (Debian's MPICH and Open MPI have it)"
    )]
    Threading(&'static str),
    /// A launcher started several processes, but each is alone in its MPI
    /// job: it would do the whole search once per process.
    #[error(
        "the launcher started {launched} processes ({var}={launched}), but MPI says this one is alone: this reach was built against another MPI than the launcher's\n  help: start it with the mpiexec of the MPI it was built with (`ldd $(which reach) | grep mpi` names it), or rebuild it against this one with `cargo build --release --features mpi` after `cargo clean -p mpi-sys`"
    )]
    Singleton {
        /// What the launcher's environment says.
        launched: usize,
        /// The variable that says it.
        var: &'static str,
    },
}

/// A communicator that may be used from any thread.
struct Comm(SimpleCommunicator);

// SAFETY: MPI communicators are handles that MPI lets any thread use once
// MPI runs at MPI_THREAD_SERIALIZED or above (checked in `Mpi::init`);
// Open MPI's handle is a raw pointer, which is why the compiler cannot
// see it. Every call through one is made under `Shared::lock`, so no two
// threads ever call MPI at once.
unsafe impl Send for Comm {}
// SAFETY: as for Send: every use goes through `Shared::lock`.
unsafe impl Sync for Comm {}

/// What the search and the watchdog share.
struct Shared {
    /// The search's communicator (a duplicate of the world's).
    search: Comm,
    /// The watchdog's (another duplicate: its messages never meet the
    /// search's).
    watch: Comm,
    /// Held across every MPI call, so that MPI never sees two threads at
    /// once (what MPI_THREAD_SERIALIZED asks).
    calls: Mutex<()>,
    rank: usize,
    size: usize,
}

impl Shared {
    /// The right to call MPI. A poisoned lock is taken all the same: it
    /// guards no data, only the exclusion.
    fn lock(&self) -> MutexGuard<'_, ()> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The watchdog thread and the flag that tells it to say goodbye.
struct Watchdog {
    done: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// This process as one rank of an MPI job.
pub struct Mpi {
    shared: Arc<Shared>,
    watchdog: Mutex<Option<Watchdog>>,
    /// Finalises MPI when dropped ([`Mpi::finish`]).
    universe: Mutex<Option<Universe>>,
}

impl Mpi {
    /// Initialises MPI (asking for `MPI_THREAD_MULTIPLE`) and joins the
    /// job. Refuses a rank that is alone in its MPI job although its
    /// launcher started several (see [`launcher_size`](super::launcher_size)).
    pub fn init() -> Result<Mpi, MpiError> {
        let (universe, threading) =
            mpi::initialize_with_threading(Threading::Multiple).ok_or(MpiError::Init)?;
        match threading {
            Threading::Single => return Err(MpiError::Threading("MPI_THREAD_SINGLE")),
            Threading::Funneled => return Err(MpiError::Threading("MPI_THREAD_FUNNELED")),
            Threading::Serialized | Threading::Multiple => {}
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        if let Some((launched, var)) = super::launcher_size()
            && launched > 1
            && size == 1
        {
            return Err(MpiError::Singleton { launched, var });
        }
        let shared = Shared {
            search: Comm(world.duplicate()),
            watch: Comm(world.duplicate()),
            calls: Mutex::new(()),
            rank,
            size,
        };
        Ok(Mpi {
            shared: Arc::new(shared),
            watchdog: Mutex::new(None),
            universe: Mutex::new(Some(universe)),
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.shared.rank
    }

    /// How many ranks the job has.
    pub fn size(&self) -> usize {
        self.shared.size
    }

    /// Starts the watchdog: a rank not heard from for `timeout` ends the
    /// job (exit 5) with a message that names it, followed by `hint`.
    /// Heartbeats go every second (every third of the timeout, if less).
    pub fn watch(&self, timeout: Duration, hint: String) {
        let mut slot = self.watchdog.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() || self.size() == 1 {
            return;
        }
        let done = Arc::new(AtomicBool::new(false));
        let shared = Arc::clone(&self.shared);
        let flag = Arc::clone(&done);
        let thread = std::thread::Builder::new()
            .name("reach-mpi-watchdog".into())
            .spawn(move || watchdog(&shared, &flag, timeout, &hint))
            .expect("starting the MPI watchdog thread");
        *slot = Some(Watchdog { done, thread });
    }

    /// The largest of every rank's `code`: the exit code all ranks end
    /// with (MPICH's launcher ORs the ranks' codes, so they must agree).
    pub fn agree(&self, code: u8) -> u8 {
        self.all_gather(&[u64::from(code)])
            .map(|all| all.iter().flatten().copied().max().unwrap_or(0) as u8)
            .unwrap_or(code)
    }

    /// Every rank's `words`, in rank order (this one's included): for
    /// decisions the ranks must take alike outside the search.
    pub fn gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        self.all_gather(words)
    }

    /// Ends the whole job now with `code` (`MPI_Abort`).
    pub fn abort(&self, code: i32) -> ! {
        let _calls = self.shared.lock();
        self.shared.search.0.abort(code)
    }

    /// Stops the watchdog (once every rank has said goodbye, so that no
    /// heartbeat is left in flight) and finalises MPI. Every rank calls it
    /// once, at the end.
    pub fn finish(&self) {
        let watchdog = self
            .watchdog
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(w) = watchdog {
            // Release: nothing is published through the flag but itself;
            // the join below is the synchronisation that matters. The
            // unpark wakes the watchdog from its wait between rounds, so
            // that the goodbyes go now, not a round later.
            w.done.store(true, Ordering::Release);
            w.thread.thread().unpark();
            let _ = w.thread.join();
        }
        drop(
            self.universe
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
    }

    /// Sends `outgoing[q]` to every rank q but this one; what each rank
    /// sent this one, by rank (empty at this one's).
    fn transfer(&self, outgoing: &[&[u64]]) -> Result<Vec<Vec<u64>>, PeerError> {
        let mut incoming = Vec::new();
        self.transfer_into(outgoing, &mut incoming)?;
        Ok(incoming)
    }

    /// [`Mpi::transfer`] into `incoming`'s buffers, each resized to what
    /// arrives (its memory kept from call to call).
    fn transfer_into(
        &self,
        outgoing: &[&[u64]],
        incoming: &mut Vec<Vec<u64>>,
    ) -> Result<(), PeerError> {
        let s = &*self.shared;
        let me = s.rank;
        let counts: Vec<u64> = outgoing.iter().map(|o| o.len() as u64).collect();
        let mut arriving = vec![0u64; s.size];
        blocks(s, Blocks::AllToAll, &counts, &mut arriving);
        incoming.resize_with(s.size, Vec::new);
        for (q, buf) in incoming.iter_mut().enumerate() {
            // (Zeroed where the last call left it: no page is faulted in.)
            buf.clear();
            if q != me {
                buf.resize(arriving[q] as usize, 0);
            }
        }
        let mut lengths = Vec::new();
        scope(|sc| {
            let mut requests = Vec::new();
            {
                let _calls = s.lock();
                for (q, buf) in incoming.iter_mut().enumerate() {
                    for chunk in buf.chunks_mut(CHUNK) {
                        lengths.push((q, chunk.len()));
                        let from = s.search.0.process_at_rank(q as i32);
                        requests.push(from.immediate_receive_into_with_tag(sc, chunk, TAG));
                    }
                }
                for (q, buf) in outgoing.iter().enumerate() {
                    if q == me {
                        continue;
                    }
                    for chunk in buf.chunks(CHUNK) {
                        let to = s.search.0.process_at_rank(q as i32);
                        requests.push(to.immediate_send_with_tag(sc, chunk, TAG));
                    }
                }
            }
            let statuses = wait_all(s, requests);
            // The receives come first: each must have filled its chunk.
            for (&(q, want), status) in lengths.iter().zip(&statuses) {
                let got = status.count(u64::equivalent_datatype());
                if got as usize != want {
                    return Err(PeerError::Lost {
                        process: q,
                        what: format!("it sent {got} keys where it had announced {want}"),
                    });
                }
            }
            Ok(())
        })
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Peers for Mpi {
    fn processes(&self) -> usize {
        self.shared.size
    }

    fn me(&self) -> usize {
        self.shared.rank
    }

    fn all_gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        let s = &*self.shared;
        // The small gathers that every level makes (whether to stop, the
        // next level's width, a sum) are one collective: each rank's
        // length and first SMALL words in a block of fixed size. Every
        // rank then sees every length, so where one is longer they all
        // go on to the same transfer of the whole.
        let mut block = [0u64; SMALL + 1];
        block[0] = words.len() as u64;
        let head = words.len().min(SMALL);
        block[1..=head].copy_from_slice(&words[..head]);
        let mut all = vec![0u64; (SMALL + 1) * s.size];
        blocks(s, Blocks::AllGather, &block, &mut all);
        let all: Vec<&[u64]> = all.chunks(SMALL + 1).collect();
        if all.iter().all(|b| b[0] as usize <= SMALL) {
            return Ok(all.iter().map(|b| b[1..=b[0] as usize].to_vec()).collect());
        }
        let outgoing = vec![words; s.size];
        let mut all = self.transfer(&outgoing)?;
        all[s.rank] = words.to_vec();
        Ok(all)
    }

    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError> {
        let refs: Vec<&[u64]> = outgoing.iter().map(Vec::as_slice).collect();
        self.transfer(&refs)
    }

    fn exchange_into(
        &self,
        outgoing: &[&[u64]],
        incoming: &mut Vec<Vec<u64>>,
    ) -> Result<(), PeerError> {
        self.transfer_into(outgoing, incoming)
    }
}

/// Which collective of blocks of one size [`blocks`] makes.
enum Blocks {
    /// Block q of what is sent goes to rank q.
    AllToAll,
    /// What is sent goes to every rank.
    AllGather,
}

/// One collective of blocks of one size on the search's communicator,
/// started under the lock and waited for as [`wait_all`] waits: `recv`
/// gets a block from each rank, in rank order.
fn blocks(s: &Shared, kind: Blocks, send: &[u64], recv: &mut [u64]) {
    scope(|sc| {
        let request = {
            let _calls = s.lock();
            let comm = &s.search.0;
            match kind {
                Blocks::AllToAll => comm.immediate_all_to_all_into(sc, send, recv),
                Blocks::AllGather => comm.immediate_all_gather_into(sc, send, recv),
            }
        };
        wait_all(s, vec![request]);
    });
}

/// Waits for every request, testing each under the lock and backing off
/// between rounds; their statuses, in order.
fn wait_all<'a, S: mpi::request::Scope<'a>>(
    s: &Shared,
    requests: Vec<Request<'a, [u64], S>>,
) -> Vec<mpi::point_to_point::Status> {
    let mut pending: Vec<(usize, Request<'a, [u64], S>)> =
        requests.into_iter().enumerate().collect();
    let mut statuses: Vec<Option<mpi::point_to_point::Status>> = vec![None; pending.len()];
    let mut rounds = 0u32;
    while !pending.is_empty() {
        {
            let _calls = s.lock();
            let mut left = Vec::with_capacity(pending.len());
            for (i, request) in pending {
                match request.test() {
                    Ok(status) => statuses[i] = Some(status),
                    Err(request) => left.push((i, request)),
                }
            }
            pending = left;
        }
        if !pending.is_empty() {
            back_off(&mut rounds);
        }
    }
    statuses.into_iter().flatten().collect()
}

/// Between two rounds of tests: yield the core (another rank may need it
/// to make the progress this one waits for), then, once the wait is long
/// enough that a sleep costs nothing, sleep a little.
fn back_off(rounds: &mut u32) {
    *rounds += 1;
    if *rounds < SPIN_ROUNDS {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Rounds of yielding before a wait sleeps between tests.
const SPIN_ROUNDS: u32 = 20_000;

/// The watchdog's loop: heartbeats out, heartbeats in, and the job ended
/// when a rank goes quiet for `timeout`; once `done` is raised, a goodbye
/// to every rank, then on until every rank's goodbye has come (after
/// which nothing more arrives from it: a pair's messages keep their
/// order) and every send is complete.
fn watchdog(s: &Shared, done: &AtomicBool, timeout: Duration, hint: &str) {
    let beat = (timeout / 3).min(Duration::from_secs(1));
    let mut heard = vec![Instant::now(); s.size];
    let mut gone = vec![false; s.size];
    gone[s.rank] = true;
    let mut sending: Vec<Request<'static, u64, StaticScope>> = Vec::new();
    let mut said_goodbye = false;
    let mut next_beat = Instant::now();
    loop {
        // Acquire pairs with `finish`'s release; the flag carries nothing else.
        let finishing = done.load(Ordering::Acquire);
        let word = if finishing && !said_goodbye {
            said_goodbye = true;
            Some(&GOODBYE)
        } else if !said_goodbye && Instant::now() >= next_beat {
            next_beat += beat;
            Some(&HEARTBEAT)
        } else {
            None
        };
        {
            let _calls = s.lock();
            if let Some(word) = word {
                for q in (0..s.size).filter(|&q| q != s.rank) {
                    let to = s.watch.0.process_at_rank(q as i32);
                    sending.push(to.immediate_send_with_tag(StaticScope, word, TAG));
                }
            }
            while let Some((message, status)) = s
                .watch
                .0
                .any_process()
                .immediate_matched_probe_with_tag(TAG)
            {
                let mut w = 0u64;
                message.matched_receive_into(&mut w);
                let from = status.source_rank() as usize;
                heard[from] = Instant::now();
                gone[from] |= w == GOODBYE;
            }
            let mut left = Vec::with_capacity(sending.len());
            for request in sending {
                if let Err(request) = request.test() {
                    left.push(request);
                }
            }
            sending = left;
        }
        if said_goodbye && sending.is_empty() && gone.iter().all(|&g| g) {
            return;
        }
        if let Some(quiet) = (0..s.size).find(|&q| !gone[q] && heard[q].elapsed() > timeout) {
            stalled(s, quiet, timeout, hint);
        }
        // Between rounds: `finish` unparks the wait, and once this rank
        // has said goodbye the others' goodbyes are looked for often, so
        // that the end of a short search is not held back by whole rounds
        // (at 20 ms a round, the goodbyes took about 45 ms of pe766's
        // 0.28 s on two ranks).
        std::thread::park_timeout(if said_goodbye {
            Duration::from_micros(200)
        } else {
            Duration::from_millis(20)
        });
    }
}

/// Rank `quiet` has not been heard from for `timeout`: one message, then
/// the job ends with exit 5. Every other rank finds it at about the same
/// time; each waits a moment by its place among them, so that the first
/// one's abort usually ends the rest before they speak too.
fn stalled(s: &Shared, quiet: usize, timeout: Duration, hint: &str) -> ! {
    let place = (0..s.size).filter(|&q| q != quiet && q < s.rank).count();
    std::thread::sleep(Duration::from_millis(300) * place as u32);
    eprintln!(
        "error: rank {quiet} of the cluster has not answered for {} s (stopped or hung?); ending the job{hint}",
        timeout.as_secs()
    );
    let _calls = s.lock();
    s.search.0.abort(5)
}
