//! `puzzle_reach._native`: the reach engine for Python. The package
//! `puzzle_reach` (python/puzzle_reach/__init__.py) wraps these entry
//! points in functions with keyword arguments and docstrings.
//!
//! A search runs on a thread of its own while the calling thread waits
//! without the GIL, waking every 20 ms to let Python handle its signals:
//! Ctrl-C raises the search's stop flag, the search ends at its next check
//! (within a level for the stores in memory), and the call raises
//! KeyboardInterrupt. A progress callback is called with the GIL, from the
//! search's thread, once a level; if it raises, the search stops and the
//! call raises what it raised.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyImportError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use reach::engine::{
    Checkpoint, EveryPosition, Key, Model, Outcome, Progress, Report as EngineReport, Search,
    Spill, memory, positions_of,
};
use reach::puzzles::any::{
    AnyMetric, Prepared, Puzzle, Shape, StoreSettings, Symmetries, SymmetryChoice, View, Visit,
    Walk, tile_board_toml,
};
use reach::puzzles::sliding::SlidingPuzzle;

create_exception!(
    _native,
    ReachError,
    PyException,
    "A puzzle, an option or a search that reach refuses. `message` says what is wrong, `help` how to fix it (or None)."
);

/// The most boards a result lists: a level's or a hardest search's
/// positions past this are counted, not drawn.
const BOARDS_MAX: usize = 1000;

/// The most hardest positions listed in full where a search kept classes
/// of symmetric positions (every position of each class, so that the
/// boards drawn are those a search of every position draws, as the
/// command line lists them); past it, the positions of the classes with
/// the least keys.
const LISTED_MAX: u64 = 1 << 22;

/// A refusal as a Python exception: the message and, apart, the help.
fn refused(text: String) -> PyErr {
    let (message, help) = match text.split_once("\n  help: ") {
        Some((m, h)) => (m.to_string(), Some(h.to_string())),
        None => (text.clone(), None),
    };
    Python::attach(|py| {
        let err = ReachError::new_err(text);
        let value = err.value(py);
        // A fresh exception object takes attributes.
        let _ = value.setattr("message", message);
        let _ = value.setattr("help", help);
        err
    })
}

/// What a call asks, as the package's functions pass it (every key given).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Options {
    text: Option<String>,
    threads: usize,
    metric: Option<String>,
    moves: Option<Vec<String>>,
    scramble: Option<String>,
    max_depth: Option<u32>,
    max_states: Option<u64>,
    memory_limit: Option<u64>,
    spill: Option<PathBuf>,
    checkpoint: bool,
    top: usize,
    symmetry: Option<String>,
    progress: Option<Py<PyAny>>,
}

impl Options {
    /// The puzzle `name` (or the text given as it) under the options'
    /// shape.
    fn prepare(&self, name: &str) -> Result<Prepared, String> {
        let puzzle = match &self.text {
            Some(text) => Puzzle::from_text(text, name),
            None => Puzzle::load(name),
        }
        .map_err(|e| e.to_string())?;
        let metric = match &self.metric {
            None => None,
            Some(m) => Some(AnyMetric::from_name(m).ok_or_else(|| {
                format!("unknown metric {m:?}\n  help: sliding blocks take step, slide or piece; twisty puzzles htm, qtm or moves")
            })?),
        };
        let shape = Shape {
            metric,
            moves: self.moves.clone(),
            scramble: self.scramble.clone(),
        };
        puzzle.loaded.prepare(&shape).map_err(|e| e.to_string())
    }

    /// The symmetries `command` of `prepared` keeps one position a class
    /// of under the options (`symmetry`: auto, on, rotations or none; a census
    /// searches every position).
    fn symmetries(&self, prepared: &Prepared, command: &str) -> Result<Option<Symmetries>, String> {
        let name = self.symmetry.as_deref().unwrap_or("auto");
        let choice = SymmetryChoice::from_name(name).ok_or_else(|| {
            format!("unknown symmetry {name:?}\n  help: give \"auto\", \"on\", \"rotations\" or \"none\"")
        })?;
        if command == "census" {
            return Ok(None);
        }
        let store = StoreSettings {
            threads: self.threads,
            memory_limit: self.memory_limit,
            ..StoreSettings::default()
        };
        Ok(prepared.symmetries(choice, Some(&store), command == "solve"))
    }

    /// The levels on disk the options ask for, recording what resumes
    /// them (`classes`: whether the search keeps classes of symmetric
    /// positions, which a resume must do again).
    fn spill(&self, command: &str, name: &str, classes: bool) -> Result<Option<Spill>, String> {
        match &self.spill {
            None if self.checkpoint => Err(
                "a checkpoint keeps the levels on disk, and no directory was given\n  help: give spill=\"DIR\" with checkpoint=True".into(),
            ),
            None => Ok(None),
            Some(dir) => {
                let mut record = std::collections::BTreeMap::new();
                record.insert("python.command".to_string(), command.to_string());
                record.insert("python.puzzle".to_string(), name.to_string());
                let classes = if classes { "on" } else { "none" };
                record.insert("python.symmetry".to_string(), classes.to_string());
                let put = |record: &mut std::collections::BTreeMap<_, _>, k: &str, v: &Option<String>| {
                    if let Some(v) = v {
                        record.insert(format!("python.{k}"), v.clone());
                    }
                };
                put(&mut record, "text", &self.text);
                put(&mut record, "metric", &self.metric);
                put(&mut record, "scramble", &self.scramble);
                put(&mut record, "moves", &self.moves.as_ref().map(|m| m.join("\n")));
                Ok(Some(
                    Spill::new(dir.clone())
                        .checkpoint(self.checkpoint)
                        .record(record),
                ))
            }
        }
    }
}

/// A count's result, as `reach count --json` gives it.
#[pyclass(frozen, get_all, module = "puzzle_reach")]
#[derive(Clone)]
struct Report {
    /// The puzzle's name.
    puzzle: String,
    /// The metric searched (None for puzzles with one kind of move).
    metric: Option<String>,
    /// States at each distance from the start.
    levels: Vec<u64>,
    /// States found.
    states: u64,
    /// The deepest level's distance.
    depth: u32,
    /// Whether every reachable state (or, for a solve, the goal) was found.
    complete: bool,
    /// Why the search stopped early (None when it did not).
    stop_reason: Option<String>,
    /// Wall-clock seconds of the search.
    seconds: f64,
    /// Worker threads.
    threads: usize,
    /// The visited set used.
    visited: String,
    /// Why the search took that store.
    store: String,
    /// Bytes a key takes in memory.
    key_bytes: usize,
    /// Bytes a state took in levels held in memory as coded runs (keys
    /// over 64 bits; None otherwise).
    memory_bytes_per_state: Option<f64>,
    /// The process's peak resident memory, in bytes (None where unknown).
    peak_rss_bytes: Option<u64>,
    /// The deepest level's positions, drawn (at most 1000; None when the
    /// search does not hold them).
    farthest: Option<Vec<String>>,
    /// Classes of symmetric positions at each distance, where the search
    /// kept one position a class (None: every position searched).
    class_levels: Option<Vec<u64>>,
}

impl Report {
    /// The report of `r`, its last level's positions `last` (keys of
    /// positions, not classes).
    fn of<K: Key>(
        r: &EngineReport<K>,
        last: &[K],
        view: &dyn View<K>,
        metric: Option<&str>,
    ) -> Report {
        let farthest = (!last.is_empty() && last.len() <= BOARDS_MAX)
            .then(|| last.iter().map(|&k| view.board(k)).collect());
        Report {
            puzzle: view.name(),
            metric: metric.map(str::to_string),
            levels: r.levels.clone(),
            states: r.states(),
            depth: r.depth(),
            complete: r.is_complete(),
            stop_reason: match &r.outcome {
                Outcome::Stopped(reason) => Some(reason.to_string()),
                _ => None,
            },
            seconds: r.seconds,
            threads: r.threads,
            visited: r.visited.name().to_string(),
            store: r.store.clone(),
            key_bytes: r.key_bytes,
            memory_bytes_per_state: r.coded_bytes_per_state,
            peak_rss_bytes: memory::peak_rss_bytes(),
            farthest,
            class_levels: r.class_levels.clone(),
        }
    }
}

#[pymethods]
impl Report {
    /// The levels as a pandas DataFrame: columns `depth` and `states`.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        levels_frame(py, &self.levels)
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(puzzle={:?}, states={}, depth={}, complete={})",
            self.puzzle,
            self.states,
            self.depth,
            if self.complete { "True" } else { "False" }
        )
    }
}

/// An optional number as Python writes it (`None`, or the number).
fn py_option<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

/// `levels` as a DataFrame, or ImportError saying how to install pandas.
fn levels_frame<'py>(py: Python<'py>, levels: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    let pandas = py.import("pandas").map_err(|_| {
        PyImportError::new_err(
            "to_pandas() needs pandas: pip install pandas (or puzzle-reach[pandas])",
        )
    })?;
    let columns = PyDict::new(py);
    columns.set_item("depth", (0..levels.len()).collect::<Vec<_>>())?;
    columns.set_item("states", levels.to_vec())?;
    pandas.call_method1("DataFrame", (columns,))
}

/// A solve's result: a shortest solution, or why there is none.
#[pyclass(frozen, get_all, module = "puzzle_reach")]
struct Solution {
    /// The number of moves (None when no solution was found).
    length: Option<usize>,
    /// The moves, as `reach solve` prints them.
    moves: Vec<String>,
    /// The positions from the start to the goal, both included.
    boards: Vec<String>,
    /// The search's report.
    report: Report,
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        format!(
            "Solution(length={}, moves={:?})",
            py_option(self.length),
            self.moves
        )
    }
}

/// A hardest search's result: the positions of the start's component
/// farthest from every goal position.
#[pyclass(frozen, get_all, module = "puzzle_reach")]
struct Hardest {
    /// Their distance to the nearest goal position.
    distance: u32,
    /// How many positions lie at that distance.
    count: usize,
    /// Those positions, drawn (at most 1000).
    boards: Vec<String>,
    /// The positions of the start's component.
    component: u64,
    /// The goal positions in it.
    goal_states: u64,
    /// The start's distance to the nearest goal (None where not reached).
    start_distance: Option<u32>,
    /// The search from the goals: its levels are the positions at each
    /// distance from the nearest goal.
    report: Report,
}

#[pymethods]
impl Hardest {
    fn __repr__(&self) -> String {
        format!(
            "Hardest(distance={}, count={}, component={})",
            self.distance, self.count, self.component
        )
    }
}

/// A census's result, as `reach census --json` gives it.
#[pyclass(frozen, get_all, module = "puzzle_reach")]
struct Census {
    /// Positions listed.
    positions: u64,
    /// Whether every position was listed (else `positions` is a lower
    /// bound).
    positions_exact: bool,
    /// Components under the metric's moves (None where the census stopped
    /// before).
    components: Option<u64>,
    /// Pairs (size, how many components of that size).
    size_histogram: Vec<(u64, u64)>,
    /// The size of the start's component.
    start_component: Option<u64>,
    /// Positions that are goals.
    goal_positions: Option<u64>,
    /// Components holding a goal.
    goal_components: Option<u64>,
    /// Positions from which a goal can be reached.
    solvable: Option<u64>,
    /// Positions from which no goal can be reached.
    unsolvable: Option<u64>,
    /// Positions at each distance from the nearest goal.
    levels: Vec<u64>,
    /// The farthest distance from a goal.
    distance: Option<u32>,
    /// The hardest starts, farthest first.
    hardest: Vec<HardStart>,
    /// Whether the census ran to its end.
    complete: bool,
    /// Why it stopped early (None when it did not).
    stop_reason: Option<String>,
    /// Wall-clock seconds.
    seconds: f64,
    /// Worker threads.
    threads: usize,
    /// The process's peak resident memory, in bytes.
    peak_rss_bytes: Option<u64>,
}

/// One of a census's hardest starts.
#[pyclass(frozen, get_all, module = "puzzle_reach")]
#[derive(Clone)]
struct HardStart {
    /// Its distance to the nearest goal position.
    distance: u32,
    /// The position, drawn as the puzzle file writes a board.
    board: String,
    /// The size of its component.
    component_size: u64,
}

#[pymethods]
impl HardStart {
    fn __repr__(&self) -> String {
        format!(
            "HardStart(distance={}, component_size={})",
            self.distance, self.component_size
        )
    }
}

#[pymethods]
impl Census {
    /// The distances from the goal as a pandas DataFrame.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        levels_frame(py, &self.levels)
    }

    fn __repr__(&self) -> String {
        format!(
            "Census(positions={}, components={}, distance={})",
            self.positions,
            py_option(self.components),
            py_option(self.distance)
        )
    }
}

/// What a search gives back to the calling thread, turned into a Python
/// object there.
enum Found {
    Count(Report),
    Solve(Solution),
    Hardest(Hardest),
    Census(Census),
}

impl Found {
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Found::Count(r) => Py::new(py, r)?.into_any(),
            Found::Solve(s) => Py::new(py, s)?.into_any(),
            Found::Hardest(h) => Py::new(py, h)?.into_any(),
            Found::Census(c) => Py::new(py, c)?.into_any(),
        })
    }
}

/// How a search begins: afresh, its levels on disk where a spill is
/// given, or from a checkpoint.
enum Begin<'a> {
    Fresh(Option<Spill>),
    Resume(&'a Checkpoint),
}

/// The search a call asks for, run on one model.
struct Job<'a> {
    command: &'a str,
    options: &'a Options,
    metric: Option<&'static str>,
    begin: Begin<'a>,
    stop: &'a AtomicBool,
    progress: &'a (dyn Fn(&Progress) + Sync),
}

impl Visit for Job<'_> {
    type Output = Result<Found, String>;

    fn visit<M: Model>(self, model: &M, view: &dyn View<M::Key>) -> Self::Output {
        let o = self.options;
        let search = Search::new(model)
            .threads(o.threads)
            .max_depth(o.max_depth)
            .max_states(o.max_states)
            .memory_limit(o.memory_limit)
            .stop_flag(self.stop)
            .progress(self.progress);
        // A level's positions, where few enough to list (every position
        // of each class where keys stand for classes).
        let listed = |keys: &[M::Key], states: u64| match states <= BOARDS_MAX as u64 {
            true => positions_of(model, keys.to_vec(), states, BOARDS_MAX, BOARDS_MAX as u64),
            false => Vec::new(),
        };
        let report = |r: &EngineReport<M::Key>| {
            Report::of(
                r,
                &listed(&r.last_level, r.last_level_states),
                view,
                self.metric,
            )
        };
        let solved = |s: reach::engine::Solution<M::Key>| {
            let (length, walk) = match s.path.as_deref().map(|p| view.walk(p)) {
                Some(walk) => (Some(walk.moves.len()), walk),
                None => (None, Walk::default()),
            };
            Found::Solve(Solution {
                length,
                moves: walk.moves,
                boards: walk.boards,
                report: report(&s.report),
            })
        };
        let e = |e: reach::engine::SearchError| e.to_string();
        let search = match self.begin {
            Begin::Resume(checkpoint) => {
                let s = search.resume(checkpoint).map_err(e)?;
                return Ok(if s.path.is_some() || self.command == "solve" {
                    solved(s)
                } else {
                    Found::Count(report(&s.report))
                });
            }
            Begin::Fresh(Some(spill)) => search.spill(spill),
            Begin::Fresh(None) => search,
        };
        Ok(match self.command {
            "count" => Found::Count(report(&search.count().map_err(e)?)),
            "solve" => solved(search.solve().map_err(e)?),
            "hardest" => {
                let h = search.hardest().map_err(e)?;
                let states = h.report.last_level_states;
                let positions = positions_of(model, h.positions, states, BOARDS_MAX, LISTED_MAX);
                Found::Hardest(Hardest {
                    distance: h.distance,
                    count: states as usize,
                    boards: positions
                        .iter()
                        .take(BOARDS_MAX)
                        .map(|&k| view.board(k))
                        .collect(),
                    component: h.component,
                    goal_states: h.goal_states,
                    start_distance: h.start_distance,
                    report: report(&h.report),
                })
            }
            other => unreachable!("no command {other}"),
        })
    }
}

/// A census of a puzzle's pieces: a sliding-block board's every
/// placement (`tiles-RxC` as the board of its tiles, the solved board its
/// goal), a twisty puzzle's every pattern (one-word keys).
fn census(
    prepared: &Prepared,
    o: &Options,
    stop: &AtomicBool,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Found, String> {
    let tiles = |rows, cols| {
        SlidingPuzzle::from_toml(&tile_board_toml(rows, cols, true), "tiles")
            .map_err(|e| e.to_string())
    };
    let board = match prepared {
        Prepared::Sliding(p) => p.census_model()?,
        Prepared::Tiles(t) => tiles(t.rows(), t.cols())?.census_model()?,
        Prepared::LargeTiles(t) => tiles(t.rows(), t.cols())?.census_model()?,
        Prepared::Twisty(t) if t.words() == 1 => {
            return census_of(t.as_ref(), |k| t.render(k), o, stop, progress);
        }
        Prepared::Twisty(t) => {
            return Err(format!(
                "{}'s keys take {} words, and a census numbers its positions by one-word keys\n  help: fewer moves (moves=...) leave fewer pieces moving and a smaller key space",
                t.name(),
                t.words()
            ));
        }
        Prepared::Clocks(_) => {
            return Err(
                "a census places a puzzle's pieces every way they fit; the clocks are counted from all at twelve\n  help: count() counts the positions reachable from it".to_string(),
            );
        }
    };
    census_of(&board, |k| board.render(k), o, stop, progress)
}

/// The census of `model`, its positions drawn by `render`.
fn census_of<M: EveryPosition>(
    model: &M,
    render: impl Fn(u64) -> String,
    o: &Options,
    stop: &AtomicBool,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Found, String> {
    let found = Search::new(model)
        .threads(o.threads)
        .max_depth(o.max_depth)
        .memory_limit(o.memory_limit)
        .stop_flag(stop)
        .progress(progress)
        .census(o.top)
        .map_err(|e| e.to_string())?;
    let components = found.components.as_ref();
    let goal = found.goal.as_ref();
    Ok(Found::Census(Census {
        positions: found.positions,
        positions_exact: found.all_listed,
        components: components.map(|c| c.count),
        size_histogram: components.map_or_else(Vec::new, |c| c.size_histogram.clone()),
        start_component: components.map(|c| c.start),
        goal_positions: goal.map(|g| g.goal_positions),
        goal_components: goal.map(|g| g.goal_components),
        solvable: goal.map(|g| g.solvable),
        unsolvable: goal.map(|g| found.positions - g.solvable),
        levels: goal.map_or_else(Vec::new, |g| g.levels.clone()),
        distance: goal.map(|g| g.levels.len().saturating_sub(1) as u32),
        hardest: goal.map_or_else(Vec::new, |g| {
            g.hardest
                .iter()
                .map(|h| HardStart {
                    distance: h.distance,
                    board: render(h.key),
                    component_size: h.component,
                })
                .collect()
        }),
        complete: found.stopped.is_none(),
        stop_reason: found.stopped.as_ref().map(|r| r.to_string()),
        seconds: found.seconds,
        threads: found.threads,
        peak_rss_bytes: memory::peak_rss_bytes(),
    }))
}

/// Runs `job` on a thread of its own while this one waits without the
/// GIL, handling Python's signals every 20 ms (see the module's notes).
fn detached<T: Send>(
    py: Python<'_>,
    progress: Option<&Py<PyAny>>,
    job: impl FnOnce(&AtomicBool, &(dyn Fn(&Progress) + Sync)) -> T + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let failed: Mutex<Option<PyErr>> = Mutex::new(None);
    let tell = |p: &Progress| {
        let Some(callback) = progress else { return };
        Python::attach(|py| {
            let event = PyDict::new(py);
            let called = (|| {
                event.set_item("depth", p.depth)?;
                event.set_item("level_states", p.level_states)?;
                event.set_item("total_states", p.total_states)?;
                event.set_item("seconds", p.seconds)?;
                event.set_item("expected_states", p.expected_states)?;
                event.set_item("stage", p.stage)?;
                callback.call1(py, (event,))
            })();
            if let Err(e) = called {
                failed.lock().expect("no panic holds it").get_or_insert(e);
                // Release: pairs with the search's acquire of its stop
                // flag; nothing else is published through it.
                stop.store(true, Ordering::Release);
            }
        });
    };
    let mut interrupted = None;
    let out = std::thread::scope(|scope| {
        let handle = scope.spawn(|| job(&stop, &tell));
        while !handle.is_finished() {
            py.detach(|| {
                let until = std::time::Instant::now() + Duration::from_millis(20);
                while !handle.is_finished() && std::time::Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
            if interrupted.is_none()
                && let Err(e) = py.check_signals()
            {
                interrupted = Some(e);
                stop.store(true, Ordering::Release);
            }
        }
        py.detach(|| handle.join())
    });
    let out = match out {
        Ok(out) => out,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    if let Some(e) = interrupted {
        return Err(e);
    }
    if let Some(e) = failed.into_inner().expect("no panic holds it") {
        return Err(e);
    }
    Ok(out)
}

/// `command` of the puzzle `prepared` under `o`, begun as `begin` says,
/// one position a class of `symmetry`'s where it gives some.
fn search(
    py: Python<'_>,
    command: &str,
    prepared: &Prepared,
    o: &Options,
    symmetry: Option<&Symmetries>,
    begin: Begin<'_>,
) -> PyResult<Py<PyAny>> {
    let metric = prepared.metric();
    let found = detached(py, o.progress.as_ref(), |stop, progress| {
        if command == "census" {
            return census(prepared, o, stop, progress);
        }
        prepared.visit_classes(
            symmetry,
            Job {
                command,
                options: o,
                metric,
                begin,
                stop,
                progress,
            },
        )
    })?
    .map_err(refused)?;
    found.into_python(py)
}

/// `command` ("count", "solve", "hardest" or "census") of the puzzle
/// `name` under `options`.
#[pyfunction]
fn run(py: Python<'_>, command: &str, name: &str, options: Options) -> PyResult<Py<PyAny>> {
    if !["count", "solve", "hardest", "census"].contains(&command) {
        return Err(refused(format!("no command {command:?}")));
    }
    let prepared = options.prepare(name).map_err(refused)?;
    let classes = options.symmetries(&prepared, command).map_err(refused)?;
    let spill = options
        .spill(command, name, classes.is_some())
        .map_err(refused)?;
    let symmetry = classes.as_ref();
    search(
        py,
        command,
        &prepared,
        &options,
        symmetry,
        Begin::Fresh(spill),
    )
}

/// Continues the checkpointed search in `dir` (written by this package
/// with `checkpoint=True`) under `options`' threads and limits. The
/// engine removes the checkpoint once the search is complete.
#[pyfunction]
fn resume(py: Python<'_>, dir: PathBuf, mut options: Options) -> PyResult<Py<PyAny>> {
    let checkpoint = Checkpoint::open(&dir).map_err(|e| refused(e.to_string()))?;
    let record = checkpoint.record();
    let Some(name) = record.get("python.puzzle") else {
        return Err(refused(format!(
            "the checkpoint in {} was not written from Python\n  help: resume it with `reach resume {}`",
            dir.display(),
            dir.display()
        )));
    };
    let get = |k: &str| record.get(&format!("python.{k}")).cloned();
    options.text = get("text");
    options.metric = get("metric");
    options.scramble = get("scramble");
    options.moves = get("moves").map(|m| m.lines().map(str::to_string).collect());
    // Classes again where the run kept them (a checkpoint from before the
    // record said so kept none).
    options.symmetry = Some(get("symmetry").unwrap_or_else(|| "none".into()));
    let command = get("command").unwrap_or_else(|| "count".into());
    let prepared = options.prepare(name).map_err(refused)?;
    let symmetry = options.symmetries(&prepared, &command).map_err(refused)?;
    search(
        py,
        &command,
        &prepared,
        &options,
        symmetry.as_ref(),
        Begin::Resume(&checkpoint),
    )
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_class::<Report>()?;
    m.add_class::<Solution>()?;
    m.add_class::<Hardest>()?;
    m.add_class::<Census>()?;
    m.add_class::<HardStart>()?;
    m.add("ReachError", m.py().get_type::<ReachError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
