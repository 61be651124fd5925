//! `count --cluster HOSTFILE --process I` and `count --local-processes N`:
//! one count across processes, on timely-dataflow.

use std::path::Path;
use std::process::{Child, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use reach::engine::Report;
use reach::engine::cluster::{self, Cluster, ClusterSearch};
use reach::puzzles::sliding::Metric;

use super::args::CountArgs;
use super::output::{ProgressLine, say};
use super::{
    EXIT_CLUSTER, Loaded, Settings, Signals, clocks_board, load_for, plot, print_count,
    stopped_code,
};

/// The most bytes of a hostfile read.
const MAX_HOSTFILE_BYTES: u64 = 1 << 20;

/// The processes' addresses from a hostfile: `host:port` a line.
fn read_hostfile(path: &Path) -> Result<Vec<String>> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_HOSTFILE_BYTES).read_to_string(&mut text))
        .with_context(|| format!("reading the hostfile {}", path.display()))?;
    let mut addresses = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let port = line
            .rsplit_once(':')
            .and_then(|(h, p)| (!h.is_empty()).then_some(p));
        if port.and_then(|p| p.parse::<u16>().ok()).is_none() {
            bail!(
                "{}:{}: {line:?} is not host:port\n  help: one process a line, e.g. 10.0.0.7:2101",
                path.display(),
                i + 1
            );
        }
        addresses.push(line.to_string());
    }
    if addresses.is_empty() {
        bail!("{} lists no process (host:port a line)", path.display());
    }
    Ok(addresses)
}

/// `n` loopback addresses whose ports were free a moment ago.
fn free_ports(n: usize) -> Result<Vec<String>> {
    let listeners: Vec<std::net::TcpListener> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<_>>()
        .context("finding free loopback ports")?;
    listeners
        .iter()
        .map(|l| Ok(format!("127.0.0.1:{}", l.local_addr()?.port())))
        .collect()
}

/// Starts processes 1..N of a local cluster: this program with the same
/// arguments, `--local-processes` replaced by the addresses and the index.
fn spawn_local(addresses: &[String]) -> Result<Vec<Child>> {
    let exe = std::env::current_exe().context("finding this program to start its peers")?;
    let mut args: Vec<String> = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--local-processes" {
            it.next();
        } else if !a.starts_with("--local-processes=") {
            args.push(a);
        }
    }
    (1..addresses.len())
        .map(|i| {
            std::process::Command::new(&exe)
                .args(&args)
                .arg("--cluster-addresses")
                .arg(addresses.join(","))
                .arg("--process")
                .arg(i.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .with_context(|| format!("starting process {i} of the local cluster"))
        })
        .collect()
}

/// Turns timely's panics into a clear error: a communication thread that
/// fails has lost its peer (thread `timely:recv-K` or `timely:send-K`
/// talks to process K), and the process exits with `EXIT_CLUSTER` at once
/// instead of a panic's 101.
fn install_panic_hook(addresses: Arc<Vec<String>>) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("");
        let peer = name
            .strip_prefix("timely:recv-")
            .or_else(|| name.strip_prefix("timely:send-"))
            .and_then(|k| k.parse::<usize>().ok());
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(k) = peer {
            let at = addresses.get(k).map_or("?", String::as_str);
            say!(
                "error: lost process {k} of the cluster ({at}): {message}\n  the count is abandoned; start it again once every process runs"
            );
            std::process::exit(i32::from(EXIT_CLUSTER));
        }
        if message.contains("timely") || name.starts_with("timely") {
            say!("error: the cluster failed: {message}");
            std::process::exit(i32::from(EXIT_CLUSTER));
        }
        default(info);
    }));
}

/// Keeps timely's connection messages (printed to stdout while the
/// processes connect, some of them whatever its settings) off stdout:
/// file descriptor 1 points at stderr (with `--verbose`) or /dev/null
/// until [`StdoutGuard::restore`], called once every process is connected.
struct StdoutGuard {
    saved: std::sync::Mutex<Option<i32>>,
}

impl StdoutGuard {
    fn divert(verbose: bool) -> StdoutGuard {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // SAFETY: dup, open and dup2 are called with valid descriptors and a
        // NUL-terminated path; they touch no memory of ours. A failure
        // leaves stdout as it was (timely's messages then reach it).
        let saved = unsafe {
            let saved = libc::dup(1);
            let target = if verbose {
                2
            } else {
                libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY)
            };
            if saved >= 0 && target >= 0 {
                libc::dup2(target, 1);
                if target != 2 {
                    libc::close(target);
                }
                Some(saved)
            } else {
                None
            }
        };
        StdoutGuard {
            saved: std::sync::Mutex::new(saved),
        }
    }

    fn restore(&self) {
        use std::io::Write;
        let mut saved = self.saved.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fd) = saved.take() {
            let _ = std::io::stdout().flush();
            // SAFETY: `fd` is the descriptor dup'd in `divert`, still open
            // (only this method closes it, once).
            unsafe {
                libc::dup2(fd, 1);
                libc::close(fd);
            }
        }
    }
}

/// A cluster that failed: the error on stderr, exit code 5.
fn failed(e: &cluster::ClusterError) -> ExitCode {
    say!("error: {e}");
    ExitCode::from(EXIT_CLUSTER)
}

/// `reach count … --cluster` or `--local-processes`.
pub fn count(a: &CountArgs, s: &Settings) -> Result<ExitCode> {
    let c = &a.options.cluster;
    if s.storage.spill.is_some() || s.storage.checkpoint.is_some() {
        bail!(
            "--spill and --checkpoint do not work with a cluster yet; each process keeps its share of the levels in memory"
        );
    }
    if s.limits.partitions.is_some() {
        bail!(
            "--partitions does not apply to a cluster: each worker owns the keys timely sends it"
        );
    }
    // A puzzle that does not load is this process's error, before any peer
    // is started.
    let loaded = load_for(&a.puzzle, s)?;
    let (addresses, process, mut children) =
        match (&c.cluster, &c.cluster_addresses, c.local_processes) {
            (Some(file), _, _) => {
                let addresses = read_hostfile(file)?;
                let process = c.process.unwrap_or(0);
                if process >= addresses.len() {
                    bail!(
                        "--process {process} is not a line of {} (it lists {} processes, 0 to {})",
                        file.display(),
                        addresses.len(),
                        addresses.len() - 1
                    );
                }
                (addresses, process, Vec::new())
            }
            (None, Some(addresses), _) => (addresses.clone(), c.process.unwrap_or(0), Vec::new()),
            (None, None, Some(n)) => {
                let addresses = free_ports(n as usize)?;
                let children = spawn_local(&addresses)?;
                (addresses, 0, children)
            }
            (None, None, None) => bail!("--process needs --cluster HOSTFILE"),
        };
    let processes = addresses.len();
    let workers = if s.threads > 0 {
        s.threads
    } else {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if c.local_processes.is_some() || c.cluster_addresses.is_some() {
            (cores / processes).max(1)
        } else {
            cores
        }
    };
    let addresses = Arc::new(addresses);
    install_panic_hook(Arc::clone(&addresses));

    // Give up when the cluster does not come up in time. The flag is the
    // only thing the watchdog reads (Release/Acquire make the stdout
    // restore happen before it, not that anything depends on it).
    let connected = Arc::new(AtomicBool::new(false));
    {
        let connected = Arc::clone(&connected);
        let timeout = c.connect_timeout;
        let list = addresses.join(", ");
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(timeout));
            if !connected.load(Ordering::Acquire) {
                say!(
                    "error: not every process of the cluster connected within {timeout} s ({list})\n  help: start every process (same puzzle, options and hostfile, each with its --process), check the addresses and firewalls, or raise --connect-timeout"
                );
                std::process::exit(i32::from(EXIT_CLUSTER));
            }
        });
    }
    // A local peer that exits early (bad input, killed) ends the count;
    // the swap makes sure only the first watcher reports (one atomic
    // read-modify-write; nothing else is published through the flag).
    let failed_child = Arc::new(AtomicBool::new(false));
    let watch: Vec<_> = children
        .drain(..)
        .enumerate()
        .map(|(i, mut child)| {
            let failed = Arc::clone(&failed_child);
            std::thread::spawn(move || {
                let status = child.wait();
                // A peer ends as process 0 does: done, stopped by a limit
                // or by a signal.
                let ok = status
                    .as_ref()
                    .is_ok_and(|s| matches!(s.code(), Some(0 | 3 | 130 | 143)));
                if !ok && !failed.swap(true, Ordering::AcqRel) {
                    say!(
                        "error: process {} of the local cluster ended: {}",
                        i + 1,
                        status.map_or_else(|e| e.to_string(), |s| s.to_string())
                    );
                    std::process::exit(i32::from(EXIT_CLUSTER));
                }
            })
        })
        .collect();

    let signals = Signals::install();
    let line = Arc::new(ProgressLine::new(s.verbose && process == 0));
    let stdout_guard = Arc::new(StdoutGuard::divert(s.verbose));
    let on_connect = {
        let connected = Arc::clone(&connected);
        let guard = Arc::clone(&stdout_guard);
        Arc::new(move || {
            guard.restore();
            connected.store(true, Ordering::Release);
        }) as Arc<dyn Fn() + Send + Sync>
    };
    let search = ClusterSearch {
        visited: s.visited,
        max_states: s.limits.max_states,
        max_depth: s.limits.max_depth,
        memory_limit: s.limits.memory_limit,
        stop: Some(Arc::clone(&signals.stop)),
        progress: Some({
            let line = Arc::clone(&line);
            Arc::new(move |p: &reach::engine::Progress| line.update(p))
        }),
        connected: Some(on_connect),
    };
    let cluster = Cluster {
        addresses: addresses.to_vec(),
        process,
        workers,
    };
    type Render = Box<dyn Fn(u64) -> String>;
    let (name, metric, report, render): (String, Option<Metric>, Option<Report>, Render) =
        match loaded {
            Loaded::Sliding(p) => {
                let p = p.with_metric(a.options.metric.map_or(Metric::Step, |m| m.metric()));
                let model = Arc::new(p);
                let report = match cluster::count(Arc::clone(&model), &cluster, search.clone()) {
                    Ok(r) => r,
                    Err(e) => return Ok(failed(&e)),
                };
                let name = model.name().to_string();
                let metric = model.metric();
                (
                    name,
                    Some(metric),
                    report,
                    Box::new(move |k| model.render(k)),
                )
            }
            Loaded::Clocks(c) => {
                if a.options.metric.is_some() {
                    bail!(
                        "--metric applies to sliding-block puzzles; the clocks have one kind of move"
                    );
                }
                let model = Arc::new(c);
                let report = match cluster::count(Arc::clone(&model), &cluster, search.clone()) {
                    Ok(r) => r,
                    Err(e) => return Ok(failed(&e)),
                };
                ("clocks".to_string(), None, report, Box::new(clocks_board))
            }
        };
    stdout_guard.restore();
    line.finish();
    let Some(report) = report else {
        return Ok(ExitCode::SUCCESS);
    };
    for w in watch {
        let _ = w.join();
    }
    if process != 0 {
        return Ok(ExitCode::from(stopped_code(&report, &signals).unwrap_or(0)));
    }
    if let Some(file) = &a.options.plot {
        plot::profile(file, &name, metric.map(Metric::name), &report)?;
    }
    let s2 = Settings {
        cluster: Some((processes, workers)),
        ..s.clone()
    };
    print_count(
        &name,
        metric,
        &report,
        a.options.antipodes,
        &*render,
        &s2,
        &signals,
    )?;
    Ok(ExitCode::from(stopped_code(&report, &signals).unwrap_or(0)))
}
