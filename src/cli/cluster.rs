//! `--cluster HOSTFILE --process I` and `--local-processes N`: one count,
//! solve or `hardest` across processes. This module finds the processes
//! (a hostfile, or peers it starts on loopback) and watches the ones it
//! started; the engine connects them and runs the search.

use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use reach::engine::{Cluster, Outcome, Report, StopReason};

use super::args::ClusterArgs;
use super::output::say;
use super::{EXIT_CLUSTER, Settings};

/// A cluster that failed (a lost or stalled process, one that never came
/// up, or processes that disagree): exit code 5.
#[derive(Debug)]
pub(super) struct ClusterFailed(pub String);

impl std::fmt::Display for ClusterFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterFailed {}

/// A search that lost a process ends as an error (exit 5), not a partial
/// report: with a checkpoint, saying how to go on from it.
pub(super) fn check(report: &Report, s: &Settings) -> Result<()> {
    if let Outcome::Stopped(StopReason::Cluster(what)) = &report.outcome {
        let next = match s.resume_hint() {
            Some((dir, how, saved)) => format!(
                "levels 0 to {saved} are saved in {}; once every process runs, continue with `{how}`",
                dir.display()
            ),
            None => "the search is abandoned; start it again once every process runs".into(),
        };
        return Err(ClusterFailed(format!("{what}\n  {next}")).into());
    }
    Ok(())
}

/// This process's index, when `c` makes it one of a cluster's.
pub(super) fn process_of(c: &ClusterArgs) -> Option<usize> {
    if c.local_processes.is_some() {
        Some(0)
    } else if c.cluster.is_some() || c.local_addresses().is_some() {
        Some(c.process.unwrap_or(0))
    } else {
        None
    }
}

/// The options of `reach resume` that run the same cluster again.
pub(super) fn resume_args(c: &Cluster, local: bool) -> String {
    if local {
        format!(" --local-processes {}", c.addresses.len())
    } else {
        " --cluster HOSTFILE --process I (on each host, as before)".into()
    }
}

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
            // A line is quoted whole only when short: a stray binary file
            // must not flood the terminal.
            let shown: String = line.chars().take(60).collect();
            let more = if shown.len() < line.len() { "…" } else { "" };
            bail!(
                "{}:{}: {shown:?}{more} is not host:port\n  help: one process a line, e.g. 10.0.0.7:2101",
                path.display(),
                i + 1
            );
        }
        if let Some(first) = addresses.iter().position(|(_, a)| a == line) {
            bail!(
                "{}:{}: {line} is listed already, on line {}\n  help: one line for each process, each with its own port",
                path.display(),
                i + 1,
                addresses[first].0
            );
        }
        addresses.push((i + 1, line.to_string()));
    }
    if addresses.is_empty() {
        bail!("{} lists no process (host:port a line)", path.display());
    }
    Ok(addresses.into_iter().map(|(_, a)| a).collect())
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

/// The environment variable through which a `--local-processes` cluster's
/// process 0 hands its peers the secret it made (in hex).
const SECRET_VAR: &str = "REACH_CLUSTER_SECRET";

/// The most bytes of a secret file read.
const MAX_SECRET_BYTES: u64 = 4096;

/// The fewest bytes a secret may have.
const MIN_SECRET_BYTES: usize = 16;

/// The cluster's secret from `path`: a regular file of 16 to 4096 bytes.
fn read_secret(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path)
        .with_context(|| format!("reading the cluster secret {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "the cluster secret {} is not a regular file",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SECRET_BYTES + 1).read_to_end(&mut bytes))
        .with_context(|| format!("reading the cluster secret {}", path.display()))?;
    if bytes.len() < MIN_SECRET_BYTES || bytes.len() as u64 > MAX_SECRET_BYTES {
        bail!(
            "the cluster secret {} has {} bytes; it takes {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES}\n  help: make one with `head -c 32 /dev/urandom > {}` and copy it to every host",
            path.display(),
            bytes.len(),
            path.display()
        );
    }
    Ok(bytes)
}

/// 32 random bytes, from the kernel.
fn new_secret() -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("making a secret for the local cluster")?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Starts processes 1..N of a local cluster: this program with the same
/// arguments, `--local-processes` replaced by the addresses and the index,
/// and the cluster's secret in its environment.
fn spawn_local(addresses: &[String], secret: &[u8]) -> Result<Vec<Child>> {
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
                .arg("--process")
                .arg(i.to_string())
                .env(SECRET_VAR, hex(secret))
                .env(super::args::ADDRESSES_VAR, addresses.join(","))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .with_context(|| format!("starting process {i} of the local cluster"))
        })
        .collect()
}

/// Sets `s` up for a search across processes, if `c` asks for one: finds
/// the processes (starting this machine's peers for `--local-processes`,
/// and watching them), and the workers each runs.
pub(super) fn prepare(c: &ClusterArgs, s: &mut Settings) -> Result<()> {
    let local_addresses = c.local_addresses();
    if c.cluster.is_none() && c.local_processes.is_none() && local_addresses.is_none() {
        let given = [
            ("--process", c.process.is_some()),
            ("--connect-timeout", c.connect_timeout.is_some()),
            ("--peer-timeout", c.peer_timeout.is_some()),
            ("--cluster-secret-file", c.cluster_secret_file.is_some()),
        ];
        if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
            bail!(
                "{option} applies to a search on several processes\n  help: add --cluster HOSTFILE --process I, or --local-processes N"
            );
        }
        return Ok(());
    }
    let mut secret = match &c.cluster_secret_file {
        Some(path) => Some(read_secret(path)?),
        None => None,
    };
    let (addresses, process, children) = match (&c.cluster, &local_addresses, c.local_processes) {
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
        (None, Some(addresses), _) => {
            let process = c.process.unwrap_or(0);
            if process == 0 || process >= addresses.len() {
                bail!(
                    "--process {process} is not one of the {} peers that {} lists",
                    addresses.len(),
                    super::args::ADDRESSES_VAR
                );
            }
            // A local cluster's peer: the secret its process 0 made.
            if secret.is_none() {
                secret = std::env::var(SECRET_VAR).ok().and_then(|h| unhex(&h));
            }
            (addresses.clone(), c.process.unwrap_or(0), Vec::new())
        }
        (None, None, Some(n)) => {
            let addresses = free_ports(n as usize)?;
            let made = match secret.take() {
                Some(given) => given,
                None => new_secret()?,
            };
            let children = spawn_local(&addresses, &made)?;
            secret = Some(made);
            (addresses, 0, children)
        }
        (None, None, None) => bail!("--process needs --cluster HOSTFILE"),
    };
    let processes = addresses.len();
    let workers = if s.threads > 0 {
        s.threads
    } else {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if c.local_processes.is_some() || local_addresses.is_some() {
            (cores / processes).max(1)
        } else {
            cores
        }
    };
    let local = !children.is_empty();
    let hint = match (&s.storage.checkpoint, &s.resume_dir) {
        (_, Some(dir)) | (Some(dir), None) => format!(
            "\n  once every process runs, continue with `reach resume {} --local-processes {processes}`",
            dir.display()
        ),
        (None, None) => String::new(),
    };
    watch(children, hint);
    s.local = local;
    s.threads = workers;
    s.cluster = Some((processes, workers));
    s.process = process;
    if secret.is_none() {
        say!(
            "reach: cluster: no --cluster-secret-file: any program that reaches these ports may join as a process"
        );
    }
    s.peers = Some(Cluster {
        addresses,
        process,
        connect_timeout: Duration::from_secs(c.connect_timeout.unwrap_or(60)),
        peer_timeout: Duration::from_secs(c.peer_timeout.unwrap_or(60)),
        secret,
    });
    Ok(())
}

/// Watches the peers this process started: one that exits early (bad
/// input, killed) before it could connect ends the search at once rather
/// than at the connect timeout; the swap makes sure only the first watcher
/// reports (one atomic read-modify-write; nothing else is published
/// through the flag).
fn watch(children: Vec<Child>, hint: String) {
    let failed = Arc::new(AtomicBool::new(false));
    let hint = Arc::new(hint);
    for (i, mut child) in children.into_iter().enumerate() {
        let failed = Arc::clone(&failed);
        let hint = Arc::clone(&hint);
        std::thread::spawn(move || {
            let status = child.wait();
            // A peer ends as process 0 does: done, no solution, stopped by
            // a limit or by a signal.
            let code = status.as_ref().ok().and_then(|s| s.code());
            let ok = matches!(code, Some(0 | 1 | 3 | 130 | 143));
            if code == Some(2) && !failed.swap(true, Ordering::AcqRel) {
                // It refused its input (its message is on stderr): so
                // does the cluster.
                say!(
                    "error: process {} of the local cluster refused its input",
                    i + 1
                );
                std::process::exit(i32::from(super::EXIT_BAD_INPUT));
            }
            if !ok && !failed.swap(true, Ordering::AcqRel) {
                say!(
                    "error: process {} of the local cluster ended: {}{hint}",
                    i + 1,
                    status.map_or_else(|e| e.to_string(), |s| s.to_string())
                );
                std::process::exit(i32::from(EXIT_CLUSTER));
            }
        });
    }
}
