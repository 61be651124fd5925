//! Processes as threads of one test: the engine's tests of the cluster's
//! protocol (every store's share, the exchange in rounds, the loop's
//! gathering) without MPI installed.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use super::{PeerError, Peers};

/// How long a process waits for the others before it calls them lost (a
/// test whose process panicked then fails instead of hanging).
const PATIENCE: Duration = Duration::from_secs(120);

/// What the threads of one search share: a barrier and a mailbox per
/// pair of processes.
pub(crate) struct Hub {
    /// Processes arrived at the barrier, and its generation.
    arrived: Mutex<(usize, u64)>,
    all_in: Condvar,
    /// mail[from][to]: what `from` posted for `to` in the current call.
    mail: Mutex<Vec<Vec<Vec<u64>>>>,
    processes: usize,
}

impl Hub {
    pub(crate) fn new(processes: usize) -> Hub {
        Hub {
            arrived: Mutex::new((0, 0)),
            all_in: Condvar::new(),
            mail: Mutex::new(vec![vec![Vec::new(); processes]; processes]),
            processes,
        }
    }

    /// Process `me`'s view of the hub.
    pub(crate) fn process(&self, me: usize) -> Threads<'_> {
        Threads { hub: self, me }
    }

    /// Waits until every process has arrived.
    fn wait(&self, me: usize) -> Result<(), PeerError> {
        let mut arrived = self.arrived.lock().unwrap();
        let generation = arrived.1;
        arrived.0 += 1;
        if arrived.0 == self.processes {
            *arrived = (0, generation + 1);
            self.all_in.notify_all();
            return Ok(());
        }
        let (arrived, timeout) = self
            .all_in
            .wait_timeout_while(arrived, PATIENCE, |a| a.1 == generation)
            .unwrap();
        if timeout.timed_out() && arrived.1 == generation {
            return Err(PeerError::Lost {
                process: me,
                what: format!("the others did not arrive within {PATIENCE:?}"),
            });
        }
        Ok(())
    }

    /// Posts `outgoing` (by process), waits for every process's, and
    /// takes what was posted for this one, by sender. A second wait keeps
    /// a fast process's next call from posting over mail not yet read.
    fn post(&self, me: usize, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError> {
        self.mail.lock().unwrap()[me] = outgoing;
        self.wait(me)?;
        let received = {
            let mut mail = self.mail.lock().unwrap();
            (0..self.processes)
                .map(|from| std::mem::take(&mut mail[from][me]))
                .collect()
        };
        self.wait(me)?;
        Ok(received)
    }
}

/// `run` as each of `n` processes (threads of one test), their answers
/// in process order.
pub(crate) fn on<R: Send>(n: usize, run: impl Fn(&dyn Peers) -> R + Sync) -> Vec<R> {
    let hub = Hub::new(n);
    std::thread::scope(|s| {
        let (hub, run) = (&hub, &run);
        let handles: Vec<_> = (0..n)
            .map(|me| s.spawn(move || run(&hub.process(me))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// One process of a [`Hub`].
pub(crate) struct Threads<'h> {
    hub: &'h Hub,
    me: usize,
}

impl Peers for Threads<'_> {
    fn processes(&self) -> usize {
        self.hub.processes
    }

    fn me(&self) -> usize {
        self.me
    }

    fn all_gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        self.hub
            .post(self.me, vec![words.to_vec(); self.hub.processes])
    }

    fn exchange(&self, mut outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError> {
        outgoing[self.me].clear();
        self.hub.post(self.me, outgoing)
    }
}
