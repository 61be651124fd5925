//! One count, solve, `hardest` or resume across the ranks of an MPI job:
//! started by `mpiexec -n N reach ...` or Slurm's `srun reach ...`, or by
//! `--local-processes N`, which hands the same command line to this
//! machine's `mpiexec`. This module joins the job (feature `mpi`), gives
//! each rank its workers, starts the watchdog, and makes every rank end
//! with the same exit code; the engine runs the search.

use std::time::Duration;

use anyhow::{Result, bail};

use reach::engine::{Model, Search};

use super::args::ClusterArgs;
use super::output::say;

/// The environment variable that tells the ranks that `--local-processes`
/// started them (their resume line says so): nothing a user types.
const LOCAL_VAR: &str = "REACH_LOCAL_PROCESSES";

/// The launcher `--local-processes` runs, unless this variable names
/// another (`mpiexec.mpich`, say, where two MPIs are installed).
const MPIEXEC_VAR: &str = "REACH_MPIEXEC";

/// The ranks of the MPI job this process is one of (two or more).
#[cfg(feature = "mpi")]
#[derive(Clone, Copy)]
pub(super) struct Ranks {
    mpi: &'static reach::engine::Mpi,
}

/// The ranks of the MPI job this process is one of: none in a build
/// without MPI.
#[cfg(not(feature = "mpi"))]
#[derive(Clone, Copy)]
pub(super) enum Ranks {}

#[cfg(feature = "mpi")]
static MPI: std::sync::OnceLock<reach::engine::Mpi> = std::sync::OnceLock::new();

impl Ranks {
    /// This process's rank.
    pub(super) fn rank(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.mpi.rank();
        #[cfg(not(feature = "mpi"))]
        match *self {}
    }

    /// How many ranks the job has.
    pub(super) fn size(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.mpi.size();
        #[cfg(not(feature = "mpi"))]
        match *self {}
    }

    /// `search` across these ranks.
    pub(super) fn attach<'a, M: Model>(&self, search: Search<'a, M>) -> Search<'a, M> {
        #[cfg(feature = "mpi")]
        return search.mpi(self.mpi);
        #[cfg(not(feature = "mpi"))]
        {
            let _ = search;
            match *self {}
        }
    }

    /// Every rank's `words`, in rank order.
    pub(super) fn gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>> {
        #[cfg(feature = "mpi")]
        return Ok(self.mpi.gather(words)?);
        #[cfg(not(feature = "mpi"))]
        {
            let _ = words;
            match *self {}
        }
    }
}

/// How to get a build that runs across processes.
const HOW_TO_BUILD: &str = "help: install an MPI (Debian: `apt-get install mpich libmpich-dev libclang-dev`), build with `cargo build --release --features mpi`, and start it with `mpiexec -n N target/release/reach ...` (or `srun` in a Slurm job)";

/// Joins the MPI job this process was started in, if any (`mpiexec`,
/// `srun`); `--local-processes N` first hands the command line to
/// `mpiexec -n N` and does not return. `None`: this process searches
/// alone.
pub(super) fn join(c: &ClusterArgs) -> Result<Option<Ranks>> {
    let launched = reach::engine::launcher_size();
    if let Some(n) = c.local_processes {
        if let Some((_, var)) = launched {
            bail!(
                "--local-processes starts an MPI job of its own, and this process is a rank of one already ({var} is set)\n  help: leave --local-processes out under mpiexec or srun"
            );
        }
        return Err(local(n));
    }
    let Some((n, var)) = launched else {
        if c.peer_timeout.is_some() {
            bail!(
                "--peer-timeout applies to a search across the ranks of an MPI job\n  help: start it with `mpiexec -n N reach ...`, or add --local-processes N"
            );
        }
        return Ok(None);
    };
    #[cfg(not(feature = "mpi"))]
    {
        if n > 1 {
            bail!(
                "this reach was built without MPI, so the {n} processes its launcher started ({var}={n}) would each do the whole search\n  {HOW_TO_BUILD}"
            );
        }
        Ok(None)
    }
    #[cfg(feature = "mpi")]
    {
        let _ = (n, var);
        if MPI.get().is_none() {
            let _ = MPI.set(reach::engine::Mpi::init()?);
        }
        let Some(mpi) = MPI.get() else {
            bail!("MPI could not be initialised")
        };
        Ok((mpi.size() > 1).then_some(Ranks { mpi }))
    }
}

/// Runs this command line again as `mpiexec -n N` ranks (`--local-processes`
/// left out): replaces this process, so only an error comes back.
fn local(n: u64) -> anyhow::Error {
    if !cfg!(feature = "mpi") {
        return anyhow::anyhow!(
            "--local-processes runs the search as the ranks of an MPI job, and this reach was built without MPI\n  {HOW_TO_BUILD}"
        );
    }
    use std::os::unix::process::CommandExt;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return anyhow::anyhow!("finding this program to start its ranks: {e}"),
    };
    let mut args: Vec<String> = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--local-processes" {
            it.next();
        } else if !a.starts_with("--local-processes=") {
            args.push(a);
        }
    }
    let launcher = std::env::var(MPIEXEC_VAR).unwrap_or_else(|_| "mpiexec".into());
    let e = std::process::Command::new(&launcher)
        .arg("-n")
        .arg(n.to_string())
        .arg(exe)
        .args(args)
        .env(LOCAL_VAR, "1")
        .exec();
    anyhow::anyhow!(
        "could not start `{launcher} -n {n}`: {e}\n  help: install an MPI's launcher (Debian: `apt-get install mpich`), or name yours in {MPIEXEC_VAR}"
    )
}

/// Starts the watchdog of `ranks`: a rank that hears nothing of the
/// others for `timeout` seconds (60 by default) ends the job, saying
/// `hint`.
pub(super) fn watch(ranks: &Ranks, timeout: Option<u64>, hint: String) {
    #[cfg(feature = "mpi")]
    ranks
        .mpi
        .watch(Duration::from_secs(timeout.unwrap_or(60)), hint);
    #[cfg(not(feature = "mpi"))]
    let _ = (ranks, timeout, Duration::ZERO, hint);
}

/// Whether `--local-processes` started this rank.
pub(super) fn started_locally() -> bool {
    std::env::var_os(LOCAL_VAR).is_some()
}

/// Workers for each rank: every core this process may run on, divided
/// among the launcher's ranks on this node unless the launcher bound each
/// rank to cores of its own (then they are this rank's already).
pub(super) fn workers_per_rank() -> usize {
    let usable = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: sysconf has no preconditions; it reads a system value.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if online > 0 && (usable as i64) < online {
        return usable;
    }
    let here = [
        "MPI_LOCALNRANKS",
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "SLURM_NTASKS_PER_NODE",
    ]
    .into_iter()
    .find_map(|var| {
        let v = std::env::var(var).ok()?;
        v.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse::<usize>()
            .ok()
    })
    .unwrap_or(1)
    .max(1);
    (usable / here).max(1)
}

/// The words that launch `ranks` ranks again, before `reach resume DIR`:
/// `--local-processes` if that started them, else `mpiexec -n N`.
pub(super) fn relaunch(local: bool, ranks: usize) -> (String, String) {
    if local {
        (String::new(), format!(" --local-processes {ranks}"))
    } else {
        (format!("mpiexec -n {ranks} "), String::new())
    }
}

/// Says `message` and ends with `code`: in a job of several ranks, by
/// ending the whole job (`MPI_Abort`), since the others may wait in a
/// collective call for this one. A rank other than 0 first waits a moment:
/// an error that every rank meets (bad input) is then said once, by rank
/// 0, whose abort ends the others.
pub(super) fn fail(message: &str, code: u8) {
    #[cfg(feature = "mpi")]
    if let Some(mpi) = MPI.get().filter(|m| m.size() > 1) {
        if mpi.rank() > 0 {
            std::thread::sleep(Duration::from_millis(300));
        }
        say!("{message}");
        mpi.abort(i32::from(code));
    }
    say!("{message}");
    let _ = code;
}

/// This process's rank in an MPI job (0 alone, or before MPI starts).
pub(super) fn rank() -> usize {
    #[cfg(feature = "mpi")]
    if let Some(mpi) = MPI.get() {
        return mpi.rank();
    }
    0
}

/// The exit code every rank ends with (the largest of theirs: MPICH's
/// launcher ORs them), once MPI is finalised; `code` alone.
pub(super) fn finish(code: u8) -> u8 {
    #[cfg(feature = "mpi")]
    if let Some(mpi) = MPI.get() {
        let code = if mpi.size() > 1 {
            mpi.agree(code)
        } else {
            code
        };
        mpi.finish();
        return code;
    }
    code
}
