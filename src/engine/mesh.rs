//! The processes of a cluster, connected over TCP: every pair by one
//! connection, each read by a thread of its own, with heartbeats.
//!
//! Process i listens on its address and connects to every process before
//! it; each connection begins with a hello both ways (a magic number, the
//! format version, the process index and count, the puzzle's digest and
//! the search's settings), read with a timeout, so that a stranger, a
//! duplicate or a process of another run is told apart from a peer before
//! a byte of the search is read from it. A stranger's connection is closed
//! and logged, and the real process is still awaited.
//!
//! After the hellos, a connection carries frames: a word count, then that
//! many little-endian `u64`s; a count of `u64::MAX` is a heartbeat, one of
//! `u64::MAX - 1` a goodbye. Each connection's reader thread hands the
//! frames to the search in order, notes when it last heard from the peer,
//! and reports a closed or failed connection as the peer lost; a process
//! that sends nothing, not even heartbeats, for the peer timeout is taken
//! for stopped (SIGSTOP) or hung. Heartbeats come from a thread of their
//! own every second (at most a third of the timeout), however long a
//! level takes.
//!
//! Every process calls the same collectives in the same order (see
//! [`Peers`]), so frames pair up without tags: a collective writes its
//! frame to every peer, then takes the next frame from each. Writes never
//! wait on the peer's search: its reader thread drains the socket.

use std::io::{self, BufWriter, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::peers::{PeerError, Peers};

/// "reach-m1": the first word of every hello.
const MAGIC: u64 = u64::from_le_bytes(*b"reach-m1");
/// The format of hellos and frames.
const VERSION: u64 = 2;
/// Bytes of a proof of the cluster's secret (an HMAC-SHA256).
const PROOF: usize = 32;
/// A frame header that says "still here".
const HEARTBEAT: u64 = u64::MAX;
/// A frame header that says "done: nothing more will come".
const GOODBYE: u64 = u64::MAX - 1;
/// The largest frame accepted, in words (32 GiB): past it a header is
/// taken for garbage.
const MAX_FRAME_WORDS: u64 = 1 << 32;
/// The longest settings text in a hello.
const MAX_SETTINGS: u64 = 4096;
/// How long a connection accepted may take to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a process that dialled waits for the answering hello (longer
/// than the other side's wait, so that the one who gives up first is the
/// listener).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the processes of a cluster are, and which one this is.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// This process's index in `addresses`.
    pub process: usize,
    /// How long to wait for every process to connect.
    pub connect_timeout: Duration,
    /// How long a process may send nothing (not even a heartbeat) before
    /// it is taken for stopped or hung.
    pub peer_timeout: Duration,
    /// The secret every process holds, which each proves to the other on
    /// every connection before a byte of the search is read from it (an
    /// HMAC of the other side's random challenge, never the secret
    /// itself); `None`: connections are not authenticated.
    pub secret: Option<Vec<u8>>,
}

/// Why a cluster could not be formed.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// This process's address could not be listened on.
    #[error("could not listen on {address} (process {process}): {source}")]
    Listen {
        /// This process.
        process: usize,
        /// Its address.
        address: String,
        /// Why.
        source: io::Error,
    },
    /// Not every process connected in time.
    #[error(
        "not every process of the cluster connected within {seconds} s (missing: {missing})\n  help: start every process (same puzzle, options and hostfile, each with its --process), check the addresses and firewalls, or raise --connect-timeout"
    )]
    Timeout {
        /// The timeout.
        seconds: u64,
        /// The processes not heard from, with their addresses.
        missing: String,
    },
    /// A process runs another search.
    #[error(
        "process {process} runs another puzzle, metric or options than process {other}: {what}\n  help: give every process the same puzzle (file contents included), options and hostfile"
    )]
    Mismatch {
        /// The process that differs (the higher index of the two).
        process: usize,
        /// The process it was compared with.
        other: usize,
        /// What differs.
        what: String,
    },
}

/// What a process says first on a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hello {
    process: u64,
    processes: u64,
    digest: u64,
    /// Whether this process holds a secret and proves it.
    keyed: bool,
    /// A random challenge: the other side proves the secret over it.
    nonce: [u64; 2],
    settings: String,
}

impl Hello {
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for word in [
            MAGIC,
            VERSION,
            self.process,
            self.processes,
            self.digest,
            u64::from(self.keyed),
            self.nonce[0],
            self.nonce[1],
            self.settings.len() as u64,
        ] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.extend_from_slice(self.settings.as_bytes());
        bytes
    }

    fn write(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.bytes())?;
        w.flush()
    }

    /// The HMAC, under `secret`, by which the process that says `self`
    /// proves it holds the secret: of `role`, the other side's challenge
    /// and this hello.
    fn mac(&self, secret: &[u8], role: &[u8], challenge: [u64; 2]) -> Hmac<Sha256> {
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(role);
        mac.update(&challenge[0].to_le_bytes());
        mac.update(&challenge[1].to_le_bytes());
        mac.update(&self.bytes());
        mac
    }

    /// Writes this hello's proof over `challenge`, if it has a secret.
    fn prove(
        &self,
        w: &mut impl Write,
        secret: Option<&[u8]>,
        role: &[u8],
        challenge: [u64; 2],
    ) -> io::Result<()> {
        if let Some(secret) = secret {
            let proof = self.mac(secret, role, challenge).finalize().into_bytes();
            w.write_all(&proof)?;
            w.flush()?;
        }
        Ok(())
    }

    /// Reads the proof of the process that said `self` over `challenge`
    /// and checks it (in constant time), if this process has a secret.
    fn check_proof(
        &self,
        r: &mut impl Read,
        secret: Option<&[u8]>,
        role: &[u8],
        challenge: [u64; 2],
    ) -> Result<(), String> {
        let Some(secret) = secret else {
            return Ok(());
        };
        let mut proof = [0u8; PROOF];
        r.read_exact(&mut proof).map_err(|e| {
            format!("it did not prove the cluster secret ({e}; another --cluster-secret-file?)")
        })?;
        self.mac(secret, role, challenge)
            .verify_slice(&proof)
            .map_err(|_| {
                "its proof of the cluster secret is wrong (another --cluster-secret-file?)"
                    .to_string()
            })
    }

    /// Whether the two sides can authenticate each other.
    fn keys_agree(&self, theirs: &Hello) -> Result<(), String> {
        match (self.keyed, theirs.keyed) {
            (true, false) => Err(
                "it has no cluster secret and this process has one (give every process the same --cluster-secret-file)".into(),
            ),
            (false, true) => Err(
                "it has a cluster secret and this process has none (give every process the same --cluster-secret-file)".into(),
            ),
            _ => Ok(()),
        }
    }

    /// Reads a hello; `Err` with what was wrong (the connection is then not
    /// a peer's, or speaks another format).
    fn read(r: &mut impl Read) -> Result<Hello, String> {
        let word = |r: &mut dyn Read| -> Result<u64, String> {
            let mut b = [0u8; 8];
            r.read_exact(&mut b).map_err(|e| e.to_string())?;
            Ok(u64::from_le_bytes(b))
        };
        if word(r)? != MAGIC {
            return Err("it is not a reach process (wrong first bytes)".into());
        }
        let version = word(r)?;
        if version != VERSION {
            return Err(format!(
                "it speaks cluster format {version}, this build {VERSION} (run the same reach everywhere)"
            ));
        }
        let process = word(r)?;
        let processes = word(r)?;
        let digest = word(r)?;
        let keyed = match word(r)? {
            0 => false,
            1 => true,
            _ => return Err("its hello is garbled".into()),
        };
        let nonce = [word(r)?, word(r)?];
        let len = word(r)?;
        if len > MAX_SETTINGS {
            return Err("its hello is too long".into());
        }
        let mut text = vec![0u8; len as usize];
        r.read_exact(&mut text).map_err(|e| e.to_string())?;
        let settings = String::from_utf8(text).map_err(|_| "its hello is not text".to_string())?;
        Ok(Hello {
            process,
            processes,
            digest,
            keyed,
            nonce,
            settings,
        })
    }

    /// What differs between `self` (this process's) and `theirs`, if
    /// anything.
    fn difference(&self, theirs: &Hello) -> Option<String> {
        if self.processes != theirs.processes {
            return Some(format!(
                "its hostfile lists {} processes, this one's {}",
                theirs.processes, self.processes
            ));
        }
        if self.digest != theirs.digest {
            return Some(
                "another puzzle or metric (the puzzle, its file or --metric differs)".into(),
            );
        }
        if self.settings != theirs.settings {
            let mine: Vec<&str> = self.settings.split("; ").collect();
            let other: Vec<&str> = theirs.settings.split("; ").collect();
            let first = mine.iter().zip(&other).find(|(a, b)| a != b).map_or_else(
                || format!("{:?} against {:?}", theirs.settings, self.settings),
                |(a, b)| format!("it has {b}, this one {a}"),
            );
            return Some(first);
        }
        None
    }
}

/// What a connection's reader thread hands on.
enum Frame {
    Data(Vec<u64>),
    Goodbye,
    Lost(String),
}

/// One peer.
struct Link {
    address: String,
    /// The write half, shared by the search and the heartbeat thread.
    writer: Arc<Mutex<BufWriter<TcpStream>>>,
    frames: Receiver<Frame>,
    /// Milliseconds since `Mesh::epoch` when the peer was last heard from
    /// (a relaxed store by the reader, a relaxed load by the search: a
    /// clock reading, nothing published through it).
    heard: Arc<AtomicU64>,
    /// The peer said goodbye (relaxed: written and read by the thread
    /// that runs the search, which also drops the mesh; an atomic only so
    /// that a `Link` can be shared with `&`).
    gone: AtomicBool,
    /// The socket, to shut down without the writer's lock (which a write
    /// to a stopped peer may hold until the peer timeout).
    raw: TcpStream,
}

/// The processes of a cluster, connected: the [`Peers`] of a search that
/// runs on several.
pub struct Mesh {
    me: usize,
    links: Vec<Option<Link>>,
    peer_timeout: Duration,
    epoch: Instant,
    /// Set when a peer is lost: later collectives fail at once.
    broken: Mutex<Option<PeerError>>,
    done: Arc<AtomicBool>,
    heartbeat: Option<std::thread::JoinHandle<()>>,
}

impl Mesh {
    /// Connects this process to every other one of `cluster`: listens on
    /// its own address, connects to every earlier process and accepts
    /// every later one, each with a hello that must agree on `digest` (the
    /// puzzle) and `settings` (the search's options, `key value; …`).
    pub fn connect(cluster: &Cluster, digest: u64, settings: &str) -> Result<Mesh, MeshError> {
        let n = cluster.addresses.len();
        let me = cluster.process;
        let deadline = Instant::now() + cluster.connect_timeout;
        let secret = cluster.secret.as_deref();
        let hello = Hello {
            process: me as u64,
            processes: n as u64,
            digest,
            keyed: secret.is_some(),
            nonce: challenge().map_err(|source| MeshError::Listen {
                process: me,
                address: cluster.addresses[me].clone(),
                source,
            })?,
            settings: settings.to_string(),
        };
        let listen_error = |source| MeshError::Listen {
            process: me,
            address: cluster.addresses[me].clone(),
            source,
        };
        let listener = TcpListener::bind(&cluster.addresses[me]).map_err(listen_error)?;
        listener.set_nonblocking(true).map_err(listen_error)?;
        let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
        let (greeted_tx, greeted_rx) = crossbeam_channel::unbounded();
        let mut dial_after = Instant::now();
        // Earlier processes listen for this one; later ones connect to it.
        // Both go on at once, so that no order of starting deadlocks.
        let mut next_out = 0;
        while streams
            .iter()
            .enumerate()
            .any(|(i, s)| i != me && s.is_none())
        {
            if Instant::now() >= deadline {
                let missing: Vec<String> = streams
                    .iter()
                    .enumerate()
                    .filter(|&(i, s)| i != me && s.is_none())
                    .map(|(i, _)| format!("process {i} at {}", cluster.addresses[i]))
                    .collect();
                return Err(MeshError::Timeout {
                    seconds: cluster.connect_timeout.as_secs(),
                    missing: missing.join(", "),
                });
            }
            let mut progressed = false;
            if next_out < me && Instant::now() >= dial_after {
                match dial(&cluster.addresses[next_out], &hello, secret, deadline) {
                    Ok(Some((stream, theirs))) => {
                        if theirs.process != next_out as u64 {
                            warn(&format!(
                                "{} answered as process {}, not {next_out}: ignored",
                                cluster.addresses[next_out], theirs.process
                            ));
                        } else if let Some(what) = hello.difference(&theirs) {
                            return Err(MeshError::Mismatch {
                                process: me,
                                other: next_out,
                                what,
                            });
                        } else {
                            streams[next_out] = Some(stream);
                            next_out += 1;
                            progressed = true;
                        }
                    }
                    Ok(None) => {}
                    Err(what) => {
                        warn(&format!(
                            "{} (process {next_out}): {what}",
                            cluster.addresses[next_out]
                        ));
                        // Not again at once: a refusal would repeat.
                        dial_after = Instant::now() + Duration::from_secs(1);
                    }
                }
            }
            // Each connection says hello on a thread of its own, so that a
            // silent one holds up nobody.
            match listener.accept() {
                Ok((stream, from)) => {
                    progressed = true;
                    let (tx, hello) = (greeted_tx.clone(), hello.clone());
                    let secret = cluster.secret.clone();
                    std::thread::spawn(move || {
                        let _ = tx.send((from, greet(stream, &hello, secret.as_deref())));
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => warn(&format!("accepting a connection: {e}")),
            }
            while let Ok((from, greeted)) = greeted_rx.try_recv() {
                progressed = true;
                match greeted {
                    Ok((stream, theirs)) => {
                        if let Some(what) = hello.difference(&theirs) {
                            return Err(MeshError::Mismatch {
                                process: theirs.process as usize,
                                other: me,
                                what,
                            });
                        }
                        // A process dials again only when its last try
                        // failed on its side: the newest connection is the
                        // one it uses.
                        let slot = &mut streams[theirs.process as usize];
                        if slot.is_some() {
                            warn(&format!(
                                "process {} connected again from {from}: the new connection replaces the old",
                                theirs.process
                            ));
                        }
                        *slot = Some(stream);
                    }
                    Err(what) => warn(&format!("closed a connection from {from}: {what}")),
                }
            }
            if !progressed {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        drop(listener);
        let epoch = Instant::now();
        let links = streams
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                s.map(|s| Link::start(s, cluster.addresses[i].clone(), epoch, cluster.peer_timeout))
                    .transpose()
            })
            .collect::<io::Result<Vec<_>>>()
            .map_err(listen_error)?;
        let mut mesh = Mesh {
            me,
            links,
            peer_timeout: cluster.peer_timeout,
            epoch,
            broken: Mutex::new(None),
            done: Arc::new(AtomicBool::new(false)),
            heartbeat: None,
        };
        mesh.heartbeat = Some(mesh.start_heartbeats());
        Ok(mesh)
    }

    /// A thread that writes a heartbeat to every peer every second (at
    /// most a third of the peer timeout), until the mesh is dropped. It
    /// takes each link's writer lock, so that a heartbeat never lands in
    /// the middle of a frame.
    fn start_heartbeats(&self) -> std::thread::JoinHandle<()> {
        let writers: Vec<Arc<Mutex<BufWriter<TcpStream>>>> = self
            .links
            .iter()
            .flatten()
            .map(|l| Arc::clone(&l.writer))
            .collect();
        let every =
            (self.peer_timeout / 3).clamp(Duration::from_millis(50), Duration::from_secs(1));
        let done = Arc::clone(&self.done);
        std::thread::spawn(move || {
            let tick = Duration::from_millis(50).min(every);
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(tick);
                if last.elapsed() < every {
                    continue;
                }
                last = Instant::now();
                for w in &writers {
                    // A connection busy with a frame shows the peer this
                    // process is alive already. A failed write is the
                    // reader's to report.
                    if let Ok(mut w) = w.try_lock() {
                        let _ = w
                            .write_all(&HEARTBEAT.to_le_bytes())
                            .and_then(|()| w.flush());
                    }
                }
            }
        })
    }

    fn link(&self, q: usize) -> &Link {
        self.links[q]
            .as_ref()
            .expect("a link to every other process")
    }

    fn fail(&self, e: PeerError) -> PeerError {
        let mut broken = self.broken.lock().unwrap_or_else(|e| e.into_inner());
        broken.get_or_insert(e).clone()
    }

    fn check(&self) -> Result<(), PeerError> {
        match &*self.broken.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Writes `words` as one frame to process `q`.
    fn send(&self, q: usize, words: &[u64]) -> Result<(), PeerError> {
        let link = self.link(q);
        // A write that the peer did not drain for the peer timeout (its
        // socket's buffers full) is a stalled peer, not a lost one.
        let lost = |e: io::Error| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => PeerError::Stalled {
                process: q,
                address: link.address.clone(),
                seconds: self.peer_timeout.as_secs(),
            },
            _ => PeerError::Lost {
                process: q,
                address: link.address.clone(),
                what: e.to_string(),
            },
        };
        let mut w = link.writer.lock().unwrap_or_else(|e| e.into_inner());
        // A peer silent for the whole timeout is not written to (its
        // buffers may be full, and the write would wait as long again).
        if self.silent(link) {
            return Err(lost(io::ErrorKind::TimedOut.into()));
        }
        w.write_all(&(words.len() as u64).to_le_bytes())
            .map_err(lost)?;
        let mut bytes = Vec::with_capacity(words.len().min(1 << 13) * 8);
        for chunk in words.chunks(1 << 13) {
            bytes.clear();
            for word in chunk {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
            w.write_all(&bytes).map_err(lost)?;
        }
        w.flush().map_err(lost)
    }

    /// Whether `link`'s peer has sent nothing for the peer timeout.
    fn silent(&self, link: &Link) -> bool {
        let heard = link.heard.load(Ordering::Relaxed);
        let now = self.epoch.elapsed().as_millis() as u64;
        now.saturating_sub(heard) > self.peer_timeout.as_millis() as u64
    }

    /// The next frame from process `q`.
    fn receive(&self, q: usize) -> Result<Vec<u64>, PeerError> {
        let link = self.link(q);
        let tick = (self.peer_timeout / 4).clamp(Duration::from_millis(20), Duration::from_secs(1));
        loop {
            match link.frames.recv_timeout(tick) {
                Ok(Frame::Data(words)) => return Ok(words),
                Ok(Frame::Goodbye) => {
                    link.gone.store(true, Ordering::Relaxed);
                    return Err(PeerError::Lost {
                        process: q,
                        address: link.address.clone(),
                        what: "it ended its search early".into(),
                    });
                }
                Ok(Frame::Lost(what)) => {
                    return Err(PeerError::Lost {
                        process: q,
                        address: link.address.clone(),
                        what,
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.silent(link) {
                        return Err(PeerError::Stalled {
                            process: q,
                            address: link.address.clone(),
                            seconds: self.peer_timeout.as_secs(),
                        });
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PeerError::Lost {
                        process: q,
                        address: link.address.clone(),
                        what: "its connection closed".into(),
                    });
                }
            }
        }
    }

    /// One round: `out(q)` to every other process, then a frame from each.
    fn round<'w>(&self, out: impl Fn(usize) -> &'w [u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        self.check()?;
        let n = self.links.len();
        for q in (0..n).filter(|&q| q != self.me) {
            self.send(q, out(q)).map_err(|e| self.fail(e))?;
        }
        let mut all = vec![Vec::new(); n];
        for (q, slot) in all.iter_mut().enumerate() {
            if q != self.me {
                *slot = self.receive(q).map_err(|e| self.fail(e))?;
            }
        }
        Ok(all)
    }
}

impl Peers for Mesh {
    fn processes(&self) -> usize {
        self.links.len()
    }

    fn me(&self) -> usize {
        self.me
    }

    fn all_gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        let mut all = self.round(|_| words)?;
        all[self.me] = words.to_vec();
        Ok(all)
    }

    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError> {
        self.round(|q| &outgoing[q])
    }
}

impl Drop for Mesh {
    /// Says goodbye to every peer and waits (briefly) for theirs, so that
    /// no connection closes with a peer's frame still unread (which would
    /// reset it under the peer's last read).
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        // A lost or stopped peer's socket is shut first: a write to it
        // (a heartbeat, a goodbye) then fails at once instead of waiting
        // for the peer timeout.
        let broken = self.check().err();
        if let Some(link) = broken
            .as_ref()
            .and_then(|e| self.links[e.process()].as_ref())
        {
            let _ = link.raw.shutdown(Shutdown::Both);
        }
        if let Some(h) = self.heartbeat.take() {
            let _ = h.join();
        }
        for link in self.links.iter().flatten() {
            let mut w = link.writer.lock().unwrap_or_else(|e| e.into_inner());
            let _ = w.write_all(&GOODBYE.to_le_bytes()).and_then(|()| w.flush());
        }
        if broken.is_none() {
            let until = Instant::now() + Duration::from_secs(2);
            for link in self.links.iter().flatten() {
                while !link.gone.load(Ordering::Relaxed) {
                    let left = until.saturating_duration_since(Instant::now());
                    match link.frames.recv_timeout(left) {
                        Ok(Frame::Goodbye) | Ok(Frame::Lost(_)) | Err(_) => break,
                        Ok(Frame::Data(_)) => {}
                    }
                }
            }
        }
        for link in self.links.iter().flatten() {
            let _ = link.raw.shutdown(Shutdown::Both);
        }
    }
}

impl Link {
    /// Starts the reader thread of a connection whose hellos are done.
    fn start(
        stream: TcpStream,
        address: String,
        epoch: Instant,
        peer_timeout: Duration,
    ) -> io::Result<Link> {
        stream.set_nodelay(true)?;
        stream.set_read_timeout(None)?;
        // A write that a stopped peer never drains fails after the peer
        // timeout instead of waiting forever.
        stream.set_write_timeout(Some(peer_timeout.max(Duration::from_millis(100))))?;
        let reader = stream.try_clone()?;
        let raw = stream.try_clone()?;
        let (tx, rx) = crossbeam_channel::unbounded();
        let heard = Arc::new(AtomicU64::new(epoch.elapsed().as_millis() as u64));
        let seen = Arc::clone(&heard);
        std::thread::Builder::new()
            .name(format!("reach-peer-{address}"))
            .spawn(move || read_frames(reader, &tx, &seen, epoch))?;
        Ok(Link {
            address,
            writer: Arc::new(Mutex::new(BufWriter::with_capacity(1 << 16, stream))),
            frames: rx,
            heard,
            gone: AtomicBool::new(false),
            raw,
        })
    }
}

/// A connection's reader: frames to `tx` until the connection ends.
fn read_frames(mut stream: TcpStream, tx: &Sender<Frame>, heard: &AtomicU64, epoch: Instant) {
    let mut reader = io::BufReader::with_capacity(1 << 16, &mut stream);
    let mut bytes = vec![0u8; 8 << 13];
    loop {
        let mut header = [0u8; 8];
        if let Err(e) = reader.read_exact(&mut header) {
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                "its connection closed".to_string()
            } else {
                e.to_string()
            };
            let _ = tx.send(Frame::Lost(what));
            return;
        }
        heard.store(epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        let count = u64::from_le_bytes(header);
        match count {
            HEARTBEAT => continue,
            GOODBYE => {
                let _ = tx.send(Frame::Goodbye);
                return;
            }
            n if n > MAX_FRAME_WORDS => {
                let _ = tx.send(Frame::Lost(format!("it sent a frame of {n} words")));
                return;
            }
            _ => {}
        }
        let mut words = Vec::with_capacity(count as usize);
        let mut left = count as usize;
        while left > 0 {
            let take = left.min(1 << 13);
            if let Err(e) = reader.read_exact(&mut bytes[..take * 8]) {
                let _ = tx.send(Frame::Lost(e.to_string()));
                return;
            }
            words.extend(
                bytes[..take * 8]
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
            left -= take;
            heard.store(epoch.elapsed().as_millis() as u64, Ordering::Relaxed);
        }
        if tx.send(Frame::Data(words)).is_err() {
            return;
        }
    }
}

/// Connects to an earlier process and trades hellos: `Ok(None)` while it
/// is not listening yet. With a secret, the other side proves it first
/// (over this side's challenge), then this side (over the other's).
fn dial(
    address: &str,
    hello: &Hello,
    secret: Option<&[u8]>,
    deadline: Instant,
) -> Result<Option<(TcpStream, Hello)>, String> {
    let Some(addr) = address.to_socket_addrs().map_err(|e| e.to_string())?.next() else {
        return Err("the address resolves to nothing".into());
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(1)))
    else {
        return Ok(None);
    };
    stream
        .set_read_timeout(Some(ANSWER_TIMEOUT))
        .map_err(|e| e.to_string())?;
    hello.write(&mut stream).map_err(|e| e.to_string())?;
    let theirs = Hello::read(&mut stream)?;
    hello.keys_agree(&theirs)?;
    theirs.check_proof(&mut stream, secret, b"accepted", hello.nonce)?;
    hello
        .prove(&mut stream, secret, b"dialled", theirs.nonce)
        .map_err(|e| e.to_string())?;
    Ok(Some((stream, theirs)))
}

/// Trades hellos with a connection accepted from a later process: refuses
/// strangers, indices out of range or not after this one, and (with a
/// secret) a process that cannot prove it.
fn greet(
    mut stream: TcpStream,
    hello: &Hello,
    secret: Option<&[u8]>,
) -> Result<(TcpStream, Hello), String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(HELLO_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let theirs = Hello::read(&mut stream)?;
    let i = theirs.process;
    if i <= hello.process || i >= hello.processes {
        return Err(format!(
            "it says it is process {i}, which does not connect to process {}",
            hello.process
        ));
    }
    hello.keys_agree(&theirs)?;
    hello.write(&mut stream).map_err(|e| e.to_string())?;
    hello
        .prove(&mut stream, secret, b"accepted", theirs.nonce)
        .map_err(|e| e.to_string())?;
    theirs.check_proof(&mut stream, secret, b"dialled", hello.nonce)?;
    Ok((stream, theirs))
}

/// A random challenge, from the kernel.
fn challenge() -> io::Result<[u64; 2]> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    Ok([word(&bytes[..8]), word(&bytes[8..])])
}

/// A note on stderr about a connection set aside.
fn warn(what: &str) {
    eprintln!("reach: cluster: {what}");
}
