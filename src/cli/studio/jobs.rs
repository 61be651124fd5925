//! The studio's jobs: a count, a solve and a hardest search (or a census)
//! of the page's puzzle, each in a thread of its own, told to the page as
//! server-sent events.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};

use reach::engine::{Model, Outcome, Progress, Search};
use reach::puzzles::any::AnyMetric;
use reach::puzzles::sliding::{Metric, PuzzleError, SlidingPuzzle};
use reach::puzzles::twisty::{Twisty, TwistyMetric};

use super::twisty;

use crate::cli::census::Censused;
use crate::cli::sliding;

/// The studio's work limits: no request may take more.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// States a search may reach.
    pub(super) states: u64,
    /// Seconds a job may run.
    pub(super) seconds: u64,
    /// Memory a search may take, in bytes (else what the machine has).
    pub(super) memory: Option<u64>,
    /// Worker threads (0: one per core).
    pub(super) threads: usize,
}

/// Jobs kept for the page to read (the newest; older ones are dropped).
const KEPT: usize = 16;

/// How many hardest starts a census names.
const CENSUS_TOP: usize = 5;

/// The jobs started, by number.
pub(super) struct Jobs {
    limits: Limits,
    /// What a twisty puzzle's text is called in its messages, and where
    /// a generic name (PuzzleGeometry's) takes the puzzle's: the studio's
    /// file.
    origin: String,
    next: AtomicU64,
    map: Mutex<BTreeMap<u64, Arc<Job>>>,
}

/// One job: its events so far, and its stop flag.
pub(super) struct Job {
    stop: AtomicBool,
    log: Mutex<Log>,
    changed: Condvar,
    /// The page that plays its solution, once found.
    page: Mutex<Option<String>>,
}

#[derive(Default)]
struct Log {
    /// Each event as it goes on the wire.
    events: Vec<String>,
    done: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Job {
    pub(super) fn push(&self, name: &str, data: &Value) {
        let mut log = lock(&self.log);
        log.events.push(format!("event: {name}\ndata: {data}\n\n"));
        if name == "done" {
            log.done = true;
        }
        self.changed.notify_all();
    }
}

/// What a job searches.
enum Work {
    /// A sliding-block puzzle's count, solution and hardest position.
    Analyze(Box<SlidingPuzzle>),
    /// A census of a sliding-block puzzle's pieces.
    Census(Box<SlidingPuzzle>),
    /// A twisty puzzle's table and solution.
    Twisty(Box<twisty::Work>),
    /// A census of a twisty puzzle's patterns under its moves.
    TwistyCensus(Box<twisty::Work>),
}

/// The sliding-block puzzle in `text`, or the error as the page shows it.
pub(super) fn parse(text: &str, origin: &str) -> Result<SlidingPuzzle, Value> {
    SlidingPuzzle::from_toml(text, origin).map_err(|e| error_json(&e))
}

/// A mistake in a puzzle file as the page shows it: its line and column,
/// what is wrong, how to fix it.
pub(super) fn error_json(e: &PuzzleError) -> Value {
    json!({"error": {
        "message": e.message,
        "help": e.help,
        "line": e.location.map(|(l, _)| l),
        "column": e.location.map(|(_, c)| c),
        "text": e.to_string(),
    }})
}

/// Whether `text` parses as a puzzle file of either kind (what Save
/// checks), or the error as the page shows it.
pub(super) fn check(text: &str, origin: &str) -> Result<(), Value> {
    match reach::puzzles::twisty::sniff(text, origin) {
        Some(_) => Twisty::parse(text, origin)
            .map(drop)
            .map_err(|e| error_json(&e)),
        None => parse(text, origin).map(drop),
    }
}

/// What the page draws of a puzzle file: its fields as text.
fn fields(text: &str) -> Value {
    let table: toml::Table = text.parse().unwrap_or_default();
    let s = |k: &str| table.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let colours: BTreeMap<String, String> = table
        .get("colors")
        .and_then(|v| v.as_table())
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "name": s("name"), "board": s("board"), "goal": s("goal"),
        "distinct": s("distinct"), "horizontal": s("horizontal"),
        "vertical": s("vertical"), "colors": colours,
    })
}

impl Jobs {
    pub(super) fn new(limits: Limits, origin: String) -> Jobs {
        Jobs {
            limits,
            origin,
            next: AtomicU64::new(1),
            map: Mutex::new(BTreeMap::new()),
        }
    }

    /// Starts the job `v` asks for (`kind`: `analyze` or `census`; `text`;
    /// `metric`; a twisty puzzle's `moves` and `scramble`), after stopping every job
    /// before it: the page wants the newest edit's answers. The text is a
    /// sliding-block puzzle's TOML or a twisty puzzle's `.tws` or KPuzzle
    /// file, told apart as `reach` tells files apart.
    pub(super) fn start(&self, v: &Value) -> Result<Value, Value> {
        let text = v["text"].as_str().unwrap_or_default().to_string();
        let kind = v["kind"].as_str().unwrap_or("analyze");
        if kind != "analyze" && kind != "census" {
            return Err(
                json!({"error": {"message": format!("no job {kind:?}: analyze or census")}}),
            );
        }
        let metric = match v["metric"].as_str() {
            None => None,
            Some(m) => Some(AnyMetric::from_name(m).ok_or_else(
                || json!({"error": {"message": format!("no metric {m:?}: step, slide or piece; htm, qtm or moves for a twisty puzzle")}}),
            )?),
        };
        let (work, fields) = if reach::puzzles::twisty::sniff(&text, "puzzle").is_some() {
            // The page's metric may still be the other kind's, from the
            // text before: each kind of puzzle takes its own default then.
            let metric = match metric {
                Some(AnyMetric::Twisty(m)) => m,
                _ => TwistyMetric::Htm,
            };
            // A census starts from every pattern: the scramble plays no
            // part (nor can its mistakes).
            let scramble = v["scramble"].as_str().filter(|_| kind != "census");
            let work = twisty::prepare(&text, &self.origin, metric, v["moves"].as_str(), scramble)?;
            let fields = twisty::fields(&work);
            match kind {
                "census" => (Work::TwistyCensus(Box::new(work)), fields),
                _ => (Work::Twisty(Box::new(work)), fields),
            }
        } else {
            let metric = match metric {
                Some(AnyMetric::Sliding(m)) => m,
                _ => Metric::Step,
            };
            let puzzle = Box::new(parse(&text, "puzzle.toml")?.with_metric(metric));
            let mut fields = fields(&text);
            fields["kind"] = json!("sliding");
            fields["metric"] = json!(metric.name());
            match kind {
                "census" => (Work::Census(puzzle), fields),
                _ => (Work::Analyze(puzzle), fields),
            }
        };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            stop: AtomicBool::new(false),
            log: Mutex::new(Log::default()),
            changed: Condvar::new(),
            page: Mutex::new(None),
        });
        {
            let mut map = lock(&self.map);
            for old in map.values() {
                old.stop.store(true, Ordering::Relaxed);
            }
            map.insert(id, Arc::clone(&job));
            while map.len() > KEPT {
                map.pop_first();
            }
        }
        let limits = self.limits;
        std::thread::spawn(move || {
            let watch = Arc::clone(&job);
            std::thread::spawn(move || watchdog(&watch, limits.seconds));
            let outcome = match &work {
                Work::Census(puzzle) => puzzle
                    .census_model()
                    .and_then(|model| census(&model, &job, limits)),
                Work::Analyze(puzzle) => analyze(puzzle, &job, limits, id),
                Work::Twisty(work) => twisty::run(work, &job, limits, id),
                Work::TwistyCensus(work) => twisty::census(work, &job, limits),
            };
            if let Err(message) = outcome {
                job.push("failed", &json!({"message": message}));
            }
            job.push("done", &json!({}));
        });
        Ok(json!({"job": id.to_string(), "puzzle": fields}))
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<Job>> {
        let id: u64 = id.parse().ok()?;
        lock(&self.map).get(&id).cloned()
    }

    pub(super) fn cancel(&self, id: &str) {
        if let Some(job) = self.get(id) {
            job.stop.store(true, Ordering::Relaxed);
        }
    }

    pub(super) fn page(&self, id: &str) -> Option<String> {
        lock(&self.get(id)?.page).clone()
    }

    /// Writes job `id`'s events to `out` as they come (headers first), until
    /// the job is done or the page goes away. `false`: no such job.
    pub(super) fn stream(&self, id: &str, out: &mut dyn Write) -> bool {
        let Some(job) = self.get(id) else {
            return false;
        };
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
        if out
            .write_all(head.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return true;
        }
        let mut next = 0;
        loop {
            let (batch, done) = {
                let mut log = lock(&job.log);
                while log.events.len() == next && !log.done {
                    let (l, timeout) = job
                        .changed
                        .wait_timeout(log, Duration::from_secs(15))
                        .unwrap_or_else(|e| e.into_inner());
                    log = l;
                    if timeout.timed_out() {
                        break;
                    }
                }
                let batch: String = log.events[next..].concat();
                next = log.events.len();
                (batch, log.done)
            };
            // A comment keeps an idle stream open.
            let text = if batch.is_empty() {
                ": idle\n\n".to_string()
            } else {
                batch
            };
            if out
                .write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return true;
            }
            if done {
                return true;
            }
        }
    }
}

/// Stops `job` after `seconds`, unless it is done first.
fn watchdog(job: &Job, seconds: u64) {
    let log = lock(&job.log);
    let (log, _) = job
        .changed
        .wait_timeout_while(log, Duration::from_secs(seconds), |l| !l.done)
        .unwrap_or_else(|e| e.into_inner());
    if !log.done {
        job.stop.store(true, Ordering::Relaxed);
    }
}

/// A search of `m` under the studio's limits, telling `job` of each level
/// as `stage`.
pub(super) fn limited<'a, M: Model>(
    m: &'a M,
    job: &'a Job,
    limits: Limits,
    progress: &'a (dyn Fn(&Progress) + Sync),
) -> Search<'a, M> {
    Search::new(m)
        .threads(limits.threads)
        .max_states(Some(limits.states))
        .memory_limit(limits.memory)
        .stop_flag(&job.stop)
        .progress(progress)
}

/// What tells `job` of each level of a search, as `stage`.
pub(super) fn tell<'a>(job: &'a Job, stage: &'static str) -> impl Fn(&Progress) + Sync + 'a {
    move |p: &Progress| {
        job.push(
            "progress",
            &json!({"stage": stage, "depth": p.depth, "states": p.total_states}),
        )
    }
}

/// Why a search stopped short, in the command line's words.
pub(super) fn stopped<K>(outcome: &Outcome<K>) -> Option<String> {
    match outcome {
        Outcome::Stopped(why) => Some(crate::cli::words::stop_words(why)),
        _ => None,
    }
}

/// Keeps `html`, the page that plays a job's solution, for the page to
/// load at `/api/jobs/ID/page`.
pub(super) fn keep_page(job: &Job, html: String) {
    *lock(&job.page) = Some(html);
}

/// The count, then (with a goal) the shortest solution and the hardest
/// position of the start's component, each told as it is found.
fn analyze(puzzle: &SlidingPuzzle, job: &Job, limits: Limits, id: u64) -> Result<(), String> {
    let counting = tell(job, "count");
    let report = sliding::by_width!(puzzle, |m| limited(m, job, limits, &counting)
        .count()
        .map(|r| (r.levels.clone(), r.is_complete(), stopped(&r.outcome)))
        .map_err(|e| e.to_string())?);
    let (levels, complete, stopped) = report;
    job.push(
        "count",
        &json!({
            "states": levels.iter().sum::<u64>(), "depth": levels.len().saturating_sub(1),
            "levels": levels, "complete": complete, "stop_reason": stopped,
            "limit": limits.states,
        }),
    );
    if !complete || !puzzle.goal_given() {
        return Ok(());
    }
    let solving = tell(job, "solve");
    let path = sliding::by_width!(puzzle, |m| {
        let solution = limited(m, job, limits, &solving)
            .solve()
            .map_err(|e| e.to_string())?;
        solution
            .path
            .map(|p| (puzzle.steps(&p), puzzle.render(p[0])))
    });
    match path {
        Some((steps, start)) => {
            let metric = puzzle.metric().name();
            let page = crate::cli::watch::solution_page(puzzle, metric, &start, &steps);
            keep_page(job, page);
            let moves: Vec<String> = steps.iter().map(|s| s.mv.to_string()).collect();
            job.push(
                "solution",
                &json!({"length": steps.len(), "moves": moves, "page": format!("/api/jobs/{id}/page")}),
            );
        }
        None => job.push("solution", &json!({"length": null})),
    }
    let measuring = tell(job, "hardest");
    let hardest = sliding::by_width!(puzzle, |m| {
        let found = limited(m, job, limits, &measuring)
            .hardest()
            .map_err(|e| e.to_string())?;
        (
            found.report.is_complete() && found.goal_states > 0,
            found.distance,
            found.report.last_level_states,
            found.start_distance,
            found.positions.first().map(|&k| puzzle.render(k)),
        )
    });
    if let (true, distance, count, start, Some(board)) = hardest {
        job.push(
            "hardest",
            &json!({"distance": distance, "count": count, "start_distance": start, "board": board}),
        );
    }
    Ok(())
}

/// A census of `model`'s pieces, within the studio's seconds and memory.
pub(super) fn census<M: Censused>(model: &M, job: &Job, limits: Limits) -> Result<(), String> {
    let progress = |p: &Progress| {
        job.push(
            "progress",
            &json!({"stage": p.stage, "depth": p.depth, "states": p.total_states, "of": p.expected_states}),
        )
    };
    let found = Search::new(model)
        .threads(limits.threads)
        .memory_limit(limits.memory)
        .stop_flag(&job.stop)
        .progress(&progress)
        .census(CENSUS_TOP)
        .map_err(|e| e.to_string())?;
    job.push("census", &crate::cli::census::document(model, &found));
    Ok(())
}
