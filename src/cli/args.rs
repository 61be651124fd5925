//! The command line's grammar (clap), parsed into typed options.

use clap::{Args, Parser, Subcommand, ValueEnum};

use reach::engine::VisitedKind;
use reach::puzzles::sliding::Metric;
use reach::puzzles::twisty::TwistyMetric;

pub const EXIT_CODES: &str = "\
Exit codes:
  0    done (count: also a table to the --max-depth asked for; --json says complete: false)
  1    solve: no solution; hardest: no goal in the start's component
  2    bad input or usage (also an output path that is a directory, a socket or a block device)
  3    stopped by a limit (--max-states, --memory-limit, available memory; --max-depth in solve and
       hardest, which have then found no answer) or a storage fault (--spill, --checkpoint: full
       disk, I/O error); the report is partial. Also ranks whose room would give them different
       stores, refused before the first level
  4    the output could not be written (stdout, or a --plot, --html, --svg or --toml file:
       checked before the search, written whole after the report; a FIFO, a character
       device or /dev/stdout is written straight through, never replaced)
  5    cluster (MPI ranks, --local-processes): a rank was lost, stopped answering, or runs another search
  101  internal error (a bug: please report it)
  130  interrupted by Ctrl-C (SIGINT); 143 terminated by SIGTERM; the report is partial";

/// The most worker threads accepted: 4 per core, or 64 if that is more.
/// More threads than cores only take turns on them; past this bound
/// rayon's wake-ups cost more than the search (pe766 on 2 cores: 0.7 s at
/// 2 or 16 threads, 1.0 s at 64, 6 s at 256).
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(64)
}

/// Counts, solves and measures puzzle state spaces exactly.
///
/// With no command, counts Project Euler 766's puzzle (2613742) and takes
/// the options of `reach count`.
#[derive(Parser, Debug)]
#[command(name = "reach", version, after_help = EXIT_CODES, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The options of `count`, for the bare run.
    #[command(flatten)]
    pub bare: CountOptions,

    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

/// How a search runs: shared by the commands that search.
#[derive(Args, Debug, Clone, Default)]
pub struct RunArgs {
    /// Worker threads (default: one per core; at most 4 per core, or 64).
    #[arg(long, short = 'j', short_alias = 't', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// Log one line per BFS level on stderr.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// No progress on stderr: neither the live line on a terminal nor the
    /// line every 10 s when stderr is a pipe or a file (the summary, the
    /// warnings and the errors are still printed).
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the states reachable from the start, level by level.
    Count(CountArgs),
    /// A shortest solution from the start to the goal.
    Solve(SolveArgs),
    /// The positions farthest from the goal, within the start's component.
    Hardest(HardestArgs),
    /// Every position of a puzzle's pieces (not only those its start
    /// reaches: a sliding-block board's every placement, a twisty
    /// puzzle's every pattern of its key space): the components, and the
    /// hardest starts of all.
    Census(CensusArgs),
    /// A local web page to design sliding-block puzzles in: draw the board
    /// or edit the file, and see the count, the solution, the hardest
    /// position and the census as you go.
    #[cfg(feature = "studio")]
    Studio(StudioArgs),
    /// The puzzle as the engine sees it: board, classes, key space.
    Show {
        /// A built-in name (see `reach list`) or a puzzle file.
        puzzle: String,

        /// Twisty puzzles: the metric whose moves to list [default: htm].
        #[arg(long, value_enum)]
        metric: Option<MetricArg>,

        /// Twisty puzzles: only these of the file's moves generate (the key
        /// space shown is theirs).
        #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
        moves: Option<Vec<String>>,
    },
    /// The built-in puzzles.
    List,
    /// Prints a shell completion script (e.g. `reach completions bash >
    /// ~/.local/share/bash-completion/completions/reach`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Continues a checkpointed count, solve or census (`--checkpoint DIR`)
    /// from its last saved level, and prints the report the run would have
    /// printed had it not been stopped.
    Resume(ResumeArgs),
    /// The Clocks (IOI'94): reads nine clocks on stdin, prints the fewest moves.
    Clocks {
        /// Read IOI'94 codes (0 = 12, 1 = 3, 2 = 6, 3 = 9 o'clock) instead of hours.
        #[arg(long)]
        codes: bool,
    },
    /// The Sawtooth Puzzle (ZOJ 3814): reads the judge's input on stdin,
    /// prints the fewest steps for each case (-1 if unreachable).
    Sawtooth {
        /// Count each case's reachable orientation states instead.
        #[arg(long)]
        count: bool,

        /// Worker threads for --count (default: one per core).
        #[arg(long, short = 'j', short_alias = 't', value_name = "N", value_parser = parse_threads)]
        threads: Option<usize>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct CountArgs {
    /// A built-in name (see `reach list`) or a puzzle file.
    pub puzzle: String,

    #[command(flatten)]
    pub options: CountOptions,
}

#[derive(Args, Debug, Clone, Default)]
pub struct CountOptions {
    /// What counts as one move [default: step for sliding blocks, htm for
    /// twisty puzzles].
    #[arg(long, value_enum)]
    pub metric: Option<MetricArg>,

    /// Twisty puzzles: only these of the file's moves generate (e.g.
    /// U,F,R: the 2x2x2 with a fixed corner).
    #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
    pub moves: Option<Vec<String>>,

    /// Print the boards at the largest depth.
    #[arg(long)]
    pub antipodes: bool,

    /// Keep one position of each class of symmetric positions: a twisty
    /// puzzle's under the file's rotations and the mirror images found
    /// from its moves, a sliding-block puzzle's under the mirrors and
    /// turns of its board (on: wherever one maps the moves, the walls,
    /// the pieces, the start and the goal onto themselves; auto: so,
    /// unless the dense store of every position fits; rotations: so, but
    /// no mirror image), or every position (none). The levels printed
    /// are positions either way.
    #[arg(long, value_enum, default_value_t = SymmetryArg::Auto)]
    pub symmetry: SymmetryArg,

    /// The visited set.
    #[arg(long, value_enum, default_value_t = VisitedArg::Auto)]
    pub visited: VisitedArg,

    /// Draw the level profile (linear and log scale) into an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub storage: StorageArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Running one search across several processes.
#[derive(Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// Run the search as N ranks of an MPI job on this machine: the same
    /// command line, handed to `mpiexec -n N` (or the launcher that
    /// REACH_MPIEXEC names). Needs a build with `--features mpi`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=64))]
    pub local_processes: Option<u64>,

    /// End the job (exit 5) when a rank has not been heard from for SECS
    /// seconds, not even its watchdog's heartbeat (one a second): it was
    /// stopped or hangs. Independent of how long a level takes
    /// [default: 60].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub peer_timeout: Option<u64>,
}

/// Where levels go when they do not fit in memory, or must survive a crash.
#[derive(Args, Debug, Clone, Default)]
pub struct StorageArgs {
    /// Keep the levels on disk in DIR, as sorted, compressed runs (1.2-1.6
    /// bytes a state for big levels, up to 4 for thin ones): memory holds a budget of candidates (half of
    /// --memory-limit, or of what is available), the disk the rest.
    #[arg(long, value_name = "DIR")]
    pub spill: Option<std::path::PathBuf>,

    /// Make every level durable in DIR as it completes (the levels are kept
    /// on disk there, as with --spill; a count with the dense store, such as
    /// a tile puzzle's, keeps its bits in memory and saves a pair of levels
    /// whenever that costs under 4 % of its time); an interrupted, killed or
    /// stopped run goes on with `reach resume DIR`. Removed when the run
    /// finishes.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<std::path::PathBuf>,

    /// Leave the run's files when it ends: the levels it still holds (the
    /// last two with frontier search, the last with a bitmap, all for
    /// solve), every one written as a file. Earlier levels are removed as
    /// the search goes: --keep is not a copy of every level.
    #[arg(long)]
    pub keep: bool,

    /// Keys over 64 bits (the 3x3x3's, the 5x5 tiles'), levels in memory:
    /// keep them as sorted keys of whole words (16 bytes a key of two
    /// words) instead of coded runs (each key by its gap to the one
    /// before: the 3x3x3's about 5 bytes). Coded runs are the default.
    #[arg(long)]
    pub plain_levels: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ResumeArgs {
    /// The directory given to --checkpoint.
    pub dir: std::path::PathBuf,

    #[command(flatten)]
    pub run: RunArgs,

    /// Stop before the count would pass N states (default: as the run was started).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,

    /// Stop before a level deeper than D (default: as the run was started).
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u32>,

    /// The memory budget (default: as the run was started).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,

    /// Replace output files (the run's --plot, --html, --svg) that the run
    /// did not write itself. They go where the run asked: relative paths
    /// from the directory it was started in.
    #[arg(long)]
    pub force: bool,

    /// A checkpointed cluster's run goes on with the same processes: each
    /// process I resumes DIR/process-I.
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Args, Debug, Clone)]
pub struct SolveArgs {
    /// A built-in name (see `reach list`) or a puzzle file with a goal.
    pub puzzle: String,

    /// What counts as one move [default: step for sliding blocks, htm for
    /// twisty puzzles].
    #[arg(long, value_enum)]
    pub metric: Option<MetricArg>,

    /// Twisty puzzles: only these of the file's moves generate.
    #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
    pub moves: Option<Vec<String>>,

    /// Twisty puzzles: start from the solved state after these moves
    /// (e.g. "R U2 F'"), instead of the file's ScrambleState.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub scramble: Option<String>,

    /// Keep one position of each class of symmetric positions: a twisty
    /// puzzle's under the file's rotations and the mirror images found
    /// from its moves, a sliding-block puzzle's under the mirrors and
    /// turns of its board (on: wherever one maps the moves, the walls,
    /// the pieces, the start and the goal onto themselves; auto: so,
    /// unless the dense store of every position fits; rotations: so, but
    /// no mirror image), or every position (none). The levels printed
    /// are positions either way.
    #[arg(long, value_enum, default_value_t = SymmetryArg::Auto)]
    pub symmetry: SymmetryArg,

    /// Print the board after each move.
    #[arg(long)]
    pub boards: bool,

    /// Write a page that plays the solution (self-contained HTML: open it
    /// in any browser, no network needed).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,

    /// Write the start and goal boards side by side as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub storage: StorageArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Args, Debug, Clone)]
pub struct HardestArgs {
    /// A built-in name (see `reach list`) or a puzzle file with a goal.
    pub puzzle: String,

    /// What counts as one move [default: step for sliding blocks, htm for
    /// twisty puzzles].
    #[arg(long, value_enum)]
    pub metric: Option<MetricArg>,

    /// Twisty puzzles: only these of the file's moves generate.
    #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
    pub moves: Option<Vec<String>>,

    /// How many of the hardest positions to print (those with the
    /// smallest keys, so the choice is the same on every run; by classes
    /// of symmetric positions, unless over 4 million share the distance:
    /// then the positions of the classes with the smallest keys).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub top: usize,

    /// The visited set of both searches.
    #[arg(long, value_enum, default_value_t = VisitedArg::Auto)]
    pub visited: VisitedArg,

    /// Keep one position of each class of symmetric positions in both
    /// searches, as `count --symmetry` does (a symmetry kept maps the
    /// goal onto itself, so a class's positions lie at one distance from
    /// it). The figures and the positions printed are positions either
    /// way.
    #[arg(long, value_enum, default_value_t = SymmetryArg::Auto)]
    pub symmetry: SymmetryArg,

    /// Write the hardest position as a puzzle file, ready to count or
    /// solve: the same rails, colours, walls and goal, named "… (hardest)".
    #[arg(long, value_name = "FILE")]
    pub toml: Option<std::path::PathBuf>,

    /// Write the page that plays the hardest position's own solution.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,

    /// Keep the levels of both searches on disk in DIR, as `count --spill`
    /// does: memory holds a budget of candidates (and the goal positions,
    /// the second search's sources), the disk the rest.
    #[arg(long, value_name = "DIR")]
    pub spill: Option<std::path::PathBuf>,

    /// Leave the files of --spill when the run ends (the levels it still
    /// holds, not every level).
    #[arg(long)]
    pub keep: bool,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Args, Debug, Clone)]
pub struct CensusArgs {
    /// A built-in sliding-block puzzle, `tiles-RxC` (see `reach list`), or
    /// a puzzle file (a sliding-block puzzle, or a twisty puzzle whose
    /// keys fit one word).
    pub puzzle: String,

    /// What counts as one move [default: step for sliding blocks, htm for
    /// twisty puzzles].
    #[arg(long, value_enum)]
    pub metric: Option<MetricArg>,

    /// Twisty puzzles: only these of the file's moves generate (the
    /// pieces they leave alone stay put, and the census places the
    /// others).
    #[arg(long, value_name = "M,M,...", value_delimiter = ',')]
    pub moves: Option<Vec<String>>,

    /// How many of the hardest starts to print (farthest from the goal
    /// first, then by key, so the choice is the same on every run).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub top: usize,

    /// Write each hardest start into DIR as a puzzle file, ready to solve:
    /// hardest-1.toml, hardest-2.toml, … (the same rails, colours, walls
    /// and goal).
    #[arg(long, value_name = "DIR")]
    pub toml: Option<std::path::PathBuf>,

    /// Measure the distances to the goal up to D only.
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u32>,

    /// Stop before memory use would pass SIZE (e.g. 512M, 4G): the census
    /// holds about 10 bytes a position, 14 while it sorts and indexes them;
    /// where every key is a position (tile boards, twisty puzzles), under
    /// half a byte (two bits and its thin levels' lists), and four bytes
    /// more if it joins its components.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,

    /// Save the census in DIR as it goes (its arrays once the components
    /// are joined, then levels of the distances): a census that is killed
    /// or stops at a limit goes on with `reach resume DIR`. The
    /// checkpoint goes once the census completes and its report is out.
    /// Across processes each saves its own keys' in DIR/process-I, and the
    /// job resumes on as many.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[cfg(feature = "studio")]
#[derive(Args, Debug, Clone)]
pub struct StudioArgs {
    /// The puzzle file to edit (Save writes it; it need not exist yet).
    pub file: Option<std::path::PathBuf>,

    /// The port to listen on, on 127.0.0.1 only (0: any free port).
    #[arg(long, default_value_t = 8766)]
    pub port: u16,

    /// The most states one count, solve or hardest search of the page may
    /// reach.
    #[arg(long, value_name = "N", default_value_t = 20_000_000)]
    pub work_states: u64,

    /// The most seconds one request of the page may run.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub work_seconds: u64,

    /// The most memory one request of the page may take (e.g. 512M, 4G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "2G")]
    pub memory_limit: Option<u64>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// Stop before the count would pass N states (at least 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,

    /// Stop before a level deeper than D.
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u32>,

    /// Stop before memory use would pass SIZE (e.g. 512M, 4G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,

    /// Partitions of the key space, a power of two (default: 4 per thread,
    /// at least 4). Results never depend on it.
    #[arg(long, value_name = "P", value_parser = parse_partitions)]
    pub partitions: Option<usize>,
}

/// Parses a thread count: from 1 to [`max_threads`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let max = max_threads();
    match text.trim().parse::<usize>() {
        Ok(t) if (1..=max).contains(&t) => Ok(t),
        _ => Err(format!(
            "{text:?} is not a thread count from 1 to {max} (4 per core, or 64); e.g. {}",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )),
    }
}

/// Parses a partition count: a power of two up to the engine's maximum.
pub fn parse_partitions(text: &str) -> Result<usize, String> {
    let max = reach::engine::MAX_PARTITIONS;
    match text.trim().parse::<usize>() {
        Ok(p) if p.is_power_of_two() && p <= max => Ok(p),
        _ => Err(format!(
            "{text:?} is not a power of two from 1 to {max}; e.g. 16 or 64"
        )),
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricArg {
    /// One piece moves one cell.
    Step,
    /// One piece moves any distance in a straight line.
    Slide,
    /// One piece moves any distance along any path.
    Piece,
    /// Twisty puzzles: each move and each of its powers (U, U2, U').
    Htm,
    /// Twisty puzzles: each move and its inverse (U, U').
    Qtm,
    /// Twisty puzzles: only the moves as written (a directed graph).
    Moves,
}

impl MetricArg {
    /// The sliding-block metric, or `None` for a twisty puzzle's.
    pub fn metric(self) -> Option<Metric> {
        match self {
            MetricArg::Step => Some(Metric::Step),
            MetricArg::Slide => Some(Metric::Slide),
            MetricArg::Piece => Some(Metric::Piece),
            _ => None,
        }
    }

    /// The twisty puzzles' metric, or `None` for a sliding-block one.
    pub fn twisty(self) -> Option<TwistyMetric> {
        match self {
            MetricArg::Htm => Some(TwistyMetric::Htm),
            MetricArg::Qtm => Some(TwistyMetric::Qtm),
            MetricArg::Moves => Some(TwistyMetric::Moves),
            _ => None,
        }
    }
}

/// Whether a search keeps one position a class of symmetric positions
/// (a twisty puzzle's rotations, a sliding-block board's motions).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymmetryArg {
    /// Wherever the puzzle has a symmetry, unless it takes the dense
    /// store position by position (two bits a key, which is faster and
    /// smaller than classes where it fits).
    #[default]
    Auto,
    /// Wherever the puzzle has a symmetry.
    On,
    /// Wherever the puzzle has a symmetry, but no mirror image: a twisty
    /// file's rotations alone (twsearch's reduction), a board's turns.
    Rotations,
    /// Never: every position is searched.
    None,
}

impl SymmetryArg {
    /// The library's word for it.
    pub fn choice(self) -> reach::puzzles::any::SymmetryChoice {
        use reach::puzzles::any::SymmetryChoice;
        match self {
            SymmetryArg::Auto => SymmetryChoice::Auto,
            SymmetryArg::On => SymmetryChoice::On,
            SymmetryArg::Rotations => SymmetryChoice::Rotations,
            SymmetryArg::None => SymmetryChoice::None,
        }
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VisitedArg {
    /// A bitmap for small key spaces, frontier search for reversible
    /// puzzles, dashmap otherwise.
    #[default]
    Auto,
    /// Frontier search: only the last two levels, sorted (reversible puzzles).
    Frontier,
    /// One bit per possible key.
    Bitmap,
    /// dashmap's sharded concurrent hash set.
    Dashmap,
    /// Two bits for every possible key, no level kept as keys: for puzzles
    /// with dense keys (tile puzzles, most twisty ones); counts, hardest and
    /// solves, in memory or (counts) with --spill on disk, checkpointed, or
    /// on MPI ranks.
    Dense,
}

impl VisitedArg {
    pub fn kind(self) -> VisitedKind {
        match self {
            VisitedArg::Auto => VisitedKind::Auto,
            VisitedArg::Frontier => VisitedKind::Frontier,
            VisitedArg::Bitmap => VisitedKind::Bitmap,
            VisitedArg::Dashmap => VisitedKind::DashMap,
            VisitedArg::Dense => VisitedKind::Dense,
        }
    }
}

/// Parses sizes like `4G`, `512M`, `1.5GiB` or a number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size; write e.g. 512M or 4G"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(format!("unknown unit in {text:?}; use K, M, G or T")),
    };
    let bytes = number * scale as f64;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("{text:?} is out of range"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn partition_counts() {
        assert_eq!(parse_partitions("1"), Ok(1));
        assert_eq!(parse_partitions("64"), Ok(64));
        assert!(parse_partitions("0").is_err());
        assert!(parse_partitions("12").is_err());
        assert!(parse_partitions("131072").is_err());
    }
}
