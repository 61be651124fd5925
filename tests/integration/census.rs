//! `reach census` against an independent enumeration: every placement of
//! the pieces on a grid of cells, a union-find over the moves, and a
//! breadth-first search from the goal positions, written here from the
//! puzzle file's text alone (no key, no rank, nothing of the engine's).

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::{json_out, reach};

/// A puzzle as the oracle reads it.
struct Oracle {
    rows: i32,
    cols: i32,
    open: Vec<bool>,
    classes: Vec<Kind>,
    /// The class of each label.
    class_of: HashMap<char, usize>,
    start: Pos,
    /// Each goal piece: its class and where its first cell must be.
    goal: Vec<(usize, (i32, i32))>,
}

/// A class of interchangeable pieces.
struct Kind {
    /// Cells relative to the first in reading order.
    shape: Vec<(i32, i32)>,
    /// Row moves (up, down) and column moves (left, right) allowed.
    rows: bool,
    cols: bool,
    count: usize,
    /// Where its pieces may be placed: anywhere open for a single cell;
    /// for a larger piece, where its pieces get to alone on the board.
    places: Vec<(i32, i32)>,
}

/// For each class, its pieces' first cells, sorted.
type Pos = Vec<Vec<(i32, i32)>>;

/// A piece's label and its cells, in reading order.
type Piece = (char, Vec<(i32, i32)>);

/// What makes pieces interchangeable: shape, moves along rows, moves
/// along columns, and the label of a distinct piece.
type ClassKey = (Vec<(i32, i32)>, bool, bool, Option<char>);

/// The board's rows, and each label's cells in reading order.
fn pieces_of(board: &str) -> (Vec<Vec<char>>, Vec<Piece>) {
    let grid: Vec<Vec<char>> = board
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().collect())
        .collect();
    let mut pieces: Vec<Piece> = Vec::new();
    for (r, row) in grid.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            if ch == '.' || ch == '#' {
                continue;
            }
            match pieces.iter_mut().find(|(l, _)| *l == ch) {
                Some((_, cells)) => cells.push((r as i32, c as i32)),
                None => pieces.push((ch, vec![(r as i32, c as i32)])),
            }
        }
    }
    (grid, pieces)
}

fn listed(table: &toml::Table, key: &str) -> String {
    table
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

impl Oracle {
    fn new(text: &str) -> Oracle {
        let table: toml::Table = text.parse().unwrap();
        let (grid, pieces) = pieces_of(table["board"].as_str().unwrap());
        let (rows, cols) = (grid.len() as i32, grid[0].len() as i32);
        let open: Vec<bool> = grid.iter().flatten().map(|&ch| ch != '#').collect();
        let (horizontal, vertical) = (listed(&table, "horizontal"), listed(&table, "vertical"));
        let distinct = listed(&table, "distinct");
        let mut classes: Vec<Kind> = Vec::new();
        let mut keys: Vec<ClassKey> = Vec::new();
        let mut class_of = HashMap::new();
        let mut starts: Vec<Vec<(i32, i32)>> = Vec::new();
        for (label, cells) in &pieces {
            let (r0, c0) = cells[0];
            let shape: Vec<(i32, i32)> = cells.iter().map(|&(r, c)| (r - r0, c - c0)).collect();
            let rows_ok = !horizontal.contains(*label);
            let cols_ok = !vertical.contains(*label);
            let own = (distinct == "*" || distinct.contains(*label)).then_some(*label);
            let key = (shape.clone(), rows_ok, cols_ok, own);
            let ci = match keys.iter().position(|k| *k == key) {
                Some(ci) => ci,
                None => {
                    keys.push(key);
                    classes.push(Kind {
                        shape,
                        rows: rows_ok,
                        cols: cols_ok,
                        count: 0,
                        places: Vec::new(),
                    });
                    starts.push(Vec::new());
                    classes.len() - 1
                }
            };
            classes[ci].count += 1;
            starts[ci].push((r0, c0));
            class_of.insert(*label, ci);
        }
        let mut oracle = Oracle {
            rows,
            cols,
            open,
            classes,
            class_of,
            start: Vec::new(),
            goal: Vec::new(),
        };
        for (ci, s) in starts.iter_mut().enumerate() {
            s.sort();
            oracle.classes[ci].places = oracle.places(ci, s);
        }
        oracle.start = starts;
        if let Some(goal) = table.get("goal").and_then(|g| g.as_str()) {
            let (_, goal_pieces) = pieces_of(goal);
            for (label, cells) in goal_pieces {
                oracle.goal.push((oracle.class_of[&label], cells[0]));
            }
        }
        oracle
    }

    fn is_open(&self, r: i32, c: i32) -> bool {
        r >= 0
            && c >= 0
            && r < self.rows
            && c < self.cols
            && self.open[(r * self.cols + c) as usize]
    }

    fn fits(&self, ci: usize, (r, c): (i32, i32)) -> bool {
        self.classes[ci]
            .shape
            .iter()
            .all(|&(dr, dc)| self.is_open(r + dr, c + dc))
    }

    fn dirs(&self, ci: usize) -> Vec<(i32, i32)> {
        let k = &self.classes[ci];
        let mut d = Vec::new();
        if k.rows {
            d.extend([(-1, 0), (1, 0)]);
        }
        if k.cols {
            d.extend([(0, -1), (0, 1)]);
        }
        d
    }

    /// Where class `ci`'s pieces may be placed.
    fn places(&self, ci: usize, starts: &[(i32, i32)]) -> Vec<(i32, i32)> {
        let mut seen: Vec<(i32, i32)> = Vec::new();
        if self.classes[ci].shape.len() == 1 {
            for r in 0..self.rows {
                for c in 0..self.cols {
                    if self.is_open(r, c) {
                        seen.push((r, c));
                    }
                }
            }
            return seen;
        }
        let mut stack = starts.to_vec();
        seen.extend_from_slice(starts);
        while let Some((r, c)) = stack.pop() {
            for (dr, dc) in self.dirs(ci) {
                let at = (r + dr, c + dc);
                if self.fits(ci, at) && !seen.contains(&at) {
                    seen.push(at);
                    stack.push(at);
                }
            }
        }
        seen.sort();
        seen
    }

    fn cells(&self, ci: usize, (r, c): (i32, i32)) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.classes[ci]
            .shape
            .iter()
            .map(move |&(dr, dc)| (r + dr, c + dc))
    }

    /// Every placement of the pieces.
    fn every_position(&self) -> Vec<Pos> {
        let mut out = Vec::new();
        let mut taken = vec![false; (self.rows * self.cols) as usize];
        let mut pos: Pos = vec![Vec::new(); self.classes.len()];
        self.place(0, 0, &mut taken, &mut pos, &mut out);
        out
    }

    fn place(&self, ci: usize, from: usize, taken: &mut [bool], pos: &mut Pos, out: &mut Vec<Pos>) {
        if ci == self.classes.len() {
            out.push(pos.clone());
            return;
        }
        if pos[ci].len() == self.classes[ci].count {
            return self.place(ci + 1, 0, taken, pos, out);
        }
        for i in from..self.classes[ci].places.len() {
            let at = self.classes[ci].places[i];
            let cells: Vec<usize> = self
                .cells(ci, at)
                .map(|(r, c)| (r * self.cols + c) as usize)
                .collect();
            if cells.iter().any(|&x| taken[x]) {
                continue;
            }
            cells.iter().for_each(|&x| taken[x] = true);
            pos[ci].push(at);
            self.place(ci, i + 1, taken, pos, out);
            pos[ci].pop();
            cells.iter().for_each(|&x| taken[x] = false);
        }
    }

    fn taken(&self, pos: &Pos) -> Vec<bool> {
        let mut taken = vec![false; (self.rows * self.cols) as usize];
        for (ci, places) in pos.iter().enumerate() {
            for &at in places {
                for (r, c) in self.cells(ci, at) {
                    taken[(r * self.cols + c) as usize] = true;
                }
            }
        }
        taken
    }

    /// Whether piece `ci` fits at `at` on `taken` without its own cells
    /// at `from`.
    fn free_for(&self, taken: &[bool], ci: usize, from: (i32, i32), at: (i32, i32)) -> bool {
        let own: Vec<(i32, i32)> = self.cells(ci, from).collect();
        self.cells(ci, at).all(|(r, c)| {
            self.is_open(r, c) && (!taken[(r * self.cols + c) as usize] || own.contains(&(r, c)))
        })
    }

    /// The positions one move away under `metric`.
    fn successors(&self, pos: &Pos, metric: &str) -> Vec<Pos> {
        let taken = self.taken(pos);
        let mut out = Vec::new();
        for ci in 0..self.classes.len() {
            for k in 0..pos[ci].len() {
                let from = pos[ci][k];
                let mut ends: Vec<(i32, i32)> = Vec::new();
                match metric {
                    "step" | "slide" => {
                        for (dr, dc) in self.dirs(ci) {
                            let mut at = from;
                            loop {
                                let next = (at.0 + dr, at.1 + dc);
                                if !self.free_for(&taken, ci, from, next) {
                                    break;
                                }
                                ends.push(next);
                                at = next;
                                if metric == "step" {
                                    break;
                                }
                            }
                        }
                    }
                    _ => {
                        let mut seen = vec![from];
                        let mut queue = VecDeque::from([from]);
                        while let Some(at) = queue.pop_front() {
                            for (dr, dc) in self.dirs(ci) {
                                let next = (at.0 + dr, at.1 + dc);
                                if !seen.contains(&next) && self.free_for(&taken, ci, from, next) {
                                    seen.push(next);
                                    queue.push_back(next);
                                    ends.push(next);
                                }
                            }
                        }
                    }
                }
                for at in ends {
                    let mut next = pos.clone();
                    next[ci][k] = at;
                    next[ci].sort();
                    out.push(next);
                }
            }
        }
        out
    }

    fn is_goal(&self, pos: &Pos) -> bool {
        !self.goal.is_empty() && self.goal.iter().all(|(ci, at)| pos[*ci].contains(at))
    }

    /// A board as `reach` draws it, read back.
    fn read(&self, board: &str) -> Pos {
        let (_, pieces) = pieces_of(board);
        let mut pos: Pos = vec![Vec::new(); self.classes.len()];
        for (label, cells) in pieces {
            pos[self.class_of[&label]].push(cells[0]);
        }
        for p in &mut pos {
            p.sort();
        }
        pos
    }
}

/// What the oracle finds, as `reach census --json` gives it.
struct Found {
    positions: u64,
    components: u64,
    histogram: Vec<(u64, u64)>,
    start_component: u64,
    goal_positions: u64,
    goal_components: u64,
    solvable: u64,
    levels: Vec<u64>,
    /// Each position's index, component size and distance.
    index: HashMap<Pos, usize>,
    size: Vec<u64>,
    distance: Vec<Option<u32>>,
}

fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn oracle(o: &Oracle, metric: &str) -> Found {
    let all = o.every_position();
    let index: HashMap<Pos, usize> = all
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect();
    assert_eq!(index.len(), all.len(), "a position listed twice");
    let edges: Vec<Vec<usize>> = all
        .iter()
        .map(|p| o.successors(p, metric).iter().map(|s| index[s]).collect())
        .collect();
    let mut parent: Vec<usize> = (0..all.len()).collect();
    for (i, next) in edges.iter().enumerate() {
        for &j in next {
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a] = b;
        }
    }
    let roots: Vec<usize> = (0..all.len()).map(|i| root(&mut parent, i)).collect();
    let mut sizes: HashMap<usize, u64> = HashMap::new();
    for &r in &roots {
        *sizes.entry(r).or_default() += 1;
    }
    let mut by_size: HashMap<u64, u64> = HashMap::new();
    for &s in sizes.values() {
        *by_size.entry(s).or_default() += 1;
    }
    let mut histogram: Vec<(u64, u64)> = by_size.into_iter().collect();
    histogram.sort();
    let size: Vec<u64> = roots.iter().map(|r| sizes[r]).collect();
    let goals: Vec<usize> = (0..all.len()).filter(|&i| o.is_goal(&all[i])).collect();
    let mut goal_roots: Vec<usize> = goals.iter().map(|&g| roots[g]).collect();
    goal_roots.sort();
    goal_roots.dedup();
    let mut distance: Vec<Option<u32>> = vec![None; all.len()];
    let mut queue = VecDeque::new();
    for &g in &goals {
        distance[g] = Some(0);
        queue.push_back(g);
    }
    while let Some(i) = queue.pop_front() {
        for &j in &edges[i] {
            if distance[j].is_none() {
                distance[j] = Some(distance[i].unwrap() + 1);
                queue.push_back(j);
            }
        }
    }
    let mut levels: Vec<u64> = Vec::new();
    for d in distance.iter().flatten() {
        let d = *d as usize;
        if levels.len() <= d {
            levels.resize(d + 1, 0);
        }
        levels[d] += 1;
    }
    Found {
        positions: all.len() as u64,
        components: sizes.len() as u64,
        histogram,
        start_component: size[index[&o.start]],
        goal_positions: goals.len() as u64,
        goal_components: goal_roots.len() as u64,
        solvable: goal_roots.iter().map(|r| sizes[r]).sum(),
        levels,
        index,
        size,
        distance,
    }
}

fn census_json(file: &std::path::Path, metric: &str, threads: &str) -> Value {
    json_out(reach().args([
        "census",
        file.to_str().unwrap(),
        "--metric",
        metric,
        "--top",
        "5",
        "--threads",
        threads,
        "--json",
    ]))
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The census of `text` in `metric` equals the oracle's, at one and two
/// threads, and its hardest starts lie where it says.
fn agrees(name: &str, text: &str, metric: &str) {
    let dir = std::env::temp_dir().join(format!(
        "reach-census-{}-{name}-{metric}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let o = Oracle::new(text);
    let want = oracle(&o, metric);
    let got = census_json(&file, metric, "2");
    let what = format!("{name} under {metric}");
    assert_eq!(got["positions"], want.positions, "{what}");
    assert_eq!(got["components"], want.components, "{what}");
    let histogram: Vec<(u64, u64)> = got["size_histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    assert_eq!(histogram, want.histogram, "{what}");
    assert_eq!(
        histogram.iter().map(|(s, n)| s * n).sum::<u64>(),
        want.positions
    );
    assert_eq!(got["start_component"], want.start_component, "{what}");
    if o.goal.is_empty() {
        assert_eq!(got["hardest"], serde_json::json!([]), "{what}");
    } else {
        assert_eq!(got["goal_positions"], want.goal_positions, "{what}");
        assert_eq!(got["goal_components"], want.goal_components, "{what}");
        assert_eq!(got["solvable"], want.solvable, "{what}");
        assert_eq!(got["unsolvable"], want.positions - want.solvable, "{what}");
        assert_eq!(numbers(&got["levels"]), want.levels, "{what}");
        let hardest = got["hardest"].as_array().unwrap();
        assert_eq!(hardest.len() as u64, want.solvable.min(5), "{what}");
        let mut last = u64::MAX;
        for h in hardest {
            let i = want.index[&o.read(h["board"].as_str().unwrap())];
            let d = h["distance"].as_u64().unwrap();
            assert_eq!(want.distance[i], Some(d as u32), "{what}: {h}");
            assert_eq!(h["component_size"], want.size[i], "{what}: {h}");
            assert!(d <= last, "{what}: farthest first");
            last = d;
        }
        assert_eq!(
            hardest[0]["distance"].as_u64().unwrap() as usize,
            want.levels.len() - 1,
            "{what}"
        );
    }
    // One worker finds the same.
    let mut one = census_json(&file, metric, "1");
    let mut two = got;
    for v in [&mut one, &mut two] {
        for volatile in ["run", "seconds", "peak_rss_bytes"] {
            v.as_object_mut().unwrap().remove(volatile);
        }
    }
    assert_eq!(one, two, "{what}: one thread and two");
    let _ = std::fs::remove_dir_all(&dir);
}

const TILES_2X3: &str =
    "board = \"\"\"\nABC\nDE.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\nABC\nDE.\n\"\"\"\n";

const PE766_EXAMPLE: &str = "board = \"\"\"\n.AAb\n.Acd\nefgh\n\"\"\"\n";

const RUSH_4X4: &str = "board = \"\"\"\nBAA.\nB.CC\nD..E\nD..E\n\"\"\"\ndistinct = \"*\"\nhorizontal = \"AC\"\nvertical = \"BDE\"\ngoal = \"\"\"\n..AA\n....\n....\n....\n\"\"\"\n";

const RUSH_5X5: &str = "board = \"\"\"\nB.CC.\nBAA.D\nEF..D\nEFGG.\n.HH..\n\"\"\"\ndistinct = \"*\"\nhorizontal = \"ACGH\"\nvertical = \"BDEF\"\ngoal = \"\"\"\n.....\n...AA\n.....\n.....\n.....\n\"\"\"\n";

const WALLED: &str = "board = \"\"\"\nAA.#\n.b.C\n#.bC\nDD..\n\"\"\"\ngoal = \"\"\"\n....\n....\n....\n..DD\n\"\"\"\n";

const DISTINCT_SET: &str = "board = \"\"\"\nABBC\nABBC\n.ab.\nDDEE\n\"\"\"\ndistinct = \"AC\"\ngoal = \"\"\"\n....\n....\n.BB.\n.BB.\n\"\"\"\n";

#[test]
fn tiles_2x3_both_parities_in_every_metric() {
    for metric in ["step", "slide", "piece"] {
        agrees("tiles-2x3", TILES_2X3, metric);
    }
}

#[test]
fn pe766_example_without_a_goal_in_every_metric() {
    for metric in ["step", "slide", "piece"] {
        agrees("pe766-example", PE766_EXAMPLE, metric);
    }
}

#[test]
fn small_rush_hour_boards_in_every_metric() {
    for metric in ["step", "slide", "piece"] {
        agrees("rush-4x4", RUSH_4X4, metric);
        agrees("rush-5x5", RUSH_5X5, metric);
    }
}

#[test]
fn a_walled_board_and_a_distinct_piece_set_in_every_metric() {
    for metric in ["step", "slide", "piece"] {
        agrees("walled", WALLED, metric);
        agrees("distinct-set", DISTINCT_SET, metric);
    }
}

#[test]
fn tiles_3x3_both_parities() {
    let text = "board = \"\"\"\nABC\nDEF\nGH.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\nABC\nDEF\nGH.\n\"\"\"\n";
    agrees("tiles-3x3", text, "step");
}

/// `count`'s number, `hardest`'s distance and `solve`'s length, against a
/// census of the same puzzle.
#[test]
fn the_start_component_is_counts_and_each_hardest_start_solves_in_its_distance() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/rush-hour-17.toml");
    for (puzzle, metric) in [("klotski", "step"), (data, "slide"), ("klotski", "piece")] {
        let dir = std::env::temp_dir().join(format!(
            "reach-census-solve-{}-{metric}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let census = json_out(
            reach()
                .args([
                    "census", puzzle, "--metric", metric, "--top", "3", "--json", "--toml",
                ])
                .arg(&dir),
        );
        let count = json_out(reach().args(["count", puzzle, "--metric", metric, "--json"]));
        assert_eq!(
            census["start_component"], count["states"],
            "{puzzle} {metric}"
        );
        let hardest = json_out(reach().args(["hardest", puzzle, "--metric", metric, "--json"]));
        assert!(
            census["distance"].as_u64().unwrap() >= hardest["distance"].as_u64().unwrap(),
            "{puzzle} {metric}: the census's farthest start is no nearer than the start's component's"
        );
        let starts = census["hardest"].as_array().unwrap();
        assert_eq!(starts.len(), 3);
        for (i, start) in starts.iter().enumerate() {
            let file = dir.join(format!("hardest-{}.toml", i + 1));
            let solved = json_out(
                reach()
                    .args(["solve", "--metric", metric, "--json"])
                    .arg(&file),
            );
            assert_eq!(solved["length"], start["distance"], "{}", file.display());
            let shown = json_out(reach().args(["show", "--json"]).arg(&file));
            assert_eq!(shown["board"], start["board"], "{}", file.display());
        }
        assert!(!dir.join("hardest-4.toml").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_census_cut_short_says_so_and_keeps_what_it_found() {
    let out = json_out(reach().args(["census", "klotski", "--max-depth", "5", "--json"]));
    assert_eq!(out["complete"], false);
    assert_eq!(out["positions"], 65880);
    assert_eq!(out["components"], 898);
    assert_eq!(out["levels"].as_array().unwrap().len(), 6);
    assert_eq!(out["distance"], Value::Null);
    assert_eq!(out["hardest"], serde_json::json!([]));
    assert!(out["stop_reason"].as_str().unwrap().contains("depth"));
}

#[test]
fn a_census_past_its_memory_stops_cleanly_with_what_it_listed() {
    // A domino and eleven tiles on a 2x7 board: billions of positions,
    // far past 64 MiB (one part of the listing alone would hold hundreds
    // of millions). Its keys are not all positions (the domino's places
    // are ranked apart from the tiles'), so the census lists them.
    let text = "board = \"\"\"\nAABCDEF\nGHIJKL.\n\"\"\"\ndistinct = \"*\"\n";
    let file = std::env::temp_dir().join(format!("reach-census-2x7-{}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let out = reach()
        .args(["census", "--memory-limit", "64M", "--json"])
        .arg(&file)
        .assert()
        .code(3)
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["complete"], false);
    assert_eq!(v["positions_exact"], false);
    assert_eq!(v["components"], Value::Null);
    assert!(v["positions"].as_u64().unwrap() > 0);
    assert!(
        v["stop_reason"]
            .as_str()
            .unwrap()
            .contains("--memory-limit"),
        "{v}"
    );
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_census_refuses_what_it_cannot_take_before_the_work() {
    let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
    reach()
        .args(["census", "clocks"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("counted from all at twelve"));
    reach()
        .args(["census", cube, "--toml", "/tmp"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("prints as patterns"));
    // 16! positions: two bits each is more than the machine has, and
    // past 2^31 - 1 the components cannot be joined after a --max-depth.
    reach()
        .args(["census", "tiles-4x4"])
        .assert()
        .code(3)
        .stdout(predicates::str::contains("20922789888000"))
        .stderr(predicates::str::contains(
            "it would need about 8.3 TiB more",
        ));
    reach()
        .args(["census", "tiles-4x4", "--max-depth", "3"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "past 2147483647 a census finds its components only by measuring every distance from one goal position, but --max-depth stops the distances",
        ));
    reach()
        .args(["census", "klotski", "--moves", "U"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a twisty puzzle"));
    reach()
        .args(["census", "pe766-example", "--toml", "/tmp"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no goal"));
    let file = std::env::temp_dir().join(format!("reach-census-file-{}", std::process::id()));
    std::fs::write(&file, "x").unwrap();
    reach()
        .args(["census", "klotski", "--toml"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("takes a directory"));
    let _ = std::fs::remove_file(&file);
}

/// Censuses whose every key is a position (tile boards, twisty
/// puzzles): numbered by their keys, nothing listed.
mod every_key {
    use std::collections::VecDeque;

    use reach::engine::{Census, EveryPosition, Model, Search};
    use reach::puzzles::twisty::{Twisty, TwistyMetric};
    use serde_json::Value;

    use super::{TILES_2X3, agrees, root};
    use crate::spill::TempDir;
    use crate::twisty::{build, data, load};
    use crate::{json_out, reach};

    /// `model`, except that it says its keys are not all positions: its
    /// census lists them (every key below the key space) and indexes
    /// them, the way a sliding-block puzzle's are.
    struct Listed<'a>(&'a Twisty);

    impl Model for Listed<'_> {
        type State = <Twisty as Model>::State;
        type Key = u64;

        fn start(&self) -> u64 {
            self.0.start()
        }

        fn key_space(&self) -> u64 {
            self.0.key_space()
        }

        fn new_state(&self) -> Self::State {
            self.0.new_state()
        }

        fn decode(&self, key: u64, state: &mut Self::State) {
            self.0.decode(key, state)
        }

        fn successors(&self, state: &mut Self::State, out: &mut Vec<u64>) {
            self.0.successors(state, out)
        }

        fn is_goal(&self, state: &Self::State) -> bool {
            self.0.is_goal(state)
        }

        fn has_goal(&self) -> bool {
            true
        }

        fn reversible(&self) -> bool {
            self.0.reversible()
        }

        fn identity(&self) -> String {
            self.0.identity()
        }
    }

    impl EveryPosition for Listed<'_> {
        fn position_parts(&self) -> usize {
            7
        }

        fn part_positions(&self, part: usize, out: &mut Vec<u64>, _: usize) -> bool {
            out.extend((0..self.key_space()).filter(|k| k % 7 == part as u64));
            true
        }
    }

    /// What a census found, as a sequential union-find and breadth-first
    /// search over every key find it, from the model's moves alone.
    fn oracle(t: &Twisty) -> (Vec<(u64, u64)>, u64, Vec<u64>) {
        let n = t.key_space() as usize;
        let mut state = t.new_state();
        let mut out = Vec::new();
        let mut edges = vec![Vec::new(); n];
        let mut parent: Vec<usize> = (0..n).collect();
        let mut goals = Vec::new();
        for (k, next) in edges.iter_mut().enumerate() {
            t.decode(k as u64, &mut state);
            if t.is_goal(&state) {
                goals.push(k);
            }
            out.clear();
            t.successors(&mut state, &mut out);
            for &j in &out {
                let (a, b) = (root(&mut parent, k), root(&mut parent, j as usize));
                parent[a] = b;
                next.push(j as usize);
            }
        }
        let mut size = vec![0u64; n];
        for k in 0..n {
            size[root(&mut parent, k)] += 1;
        }
        let mut histogram: Vec<(u64, u64)> = Vec::new();
        let mut sizes: Vec<u64> = size.iter().copied().filter(|&s| s > 0).collect();
        sizes.sort();
        for s in sizes {
            match histogram.last_mut() {
                Some((z, c)) if *z == s => *c += 1,
                _ => histogram.push((s, 1)),
            }
        }
        let start = size[root(&mut parent, t.start() as usize)];
        let mut distance = vec![u32::MAX; n];
        let mut queue: VecDeque<usize> = goals.iter().copied().collect();
        for &g in &goals {
            distance[g] = 0;
        }
        let mut levels = vec![0u64];
        while let Some(k) = queue.pop_front() {
            let d = distance[k] as usize;
            levels.resize(levels.len().max(d + 1), 0);
            levels[d] += 1;
            for &j in &edges[k] {
                if distance[j] == u32::MAX {
                    distance[j] = distance[k] + 1;
                    queue.push_back(j);
                }
            }
        }
        (histogram, start, levels)
    }

    fn census<M: EveryPosition>(model: &M, threads: usize) -> Census {
        let c = Search::new(model).threads(threads).census(5).unwrap();
        assert!(c.stopped.is_none());
        c
    }

    #[test]
    fn a_twisty_census_numbered_by_its_keys_equals_its_listing_and_the_oracle() {
        let twists = load("twists.tws");
        let cube = load("cube2.tws");
        for (t, what) in [
            (build(&twists, TwistyMetric::Htm, None), "twists htm"),
            (build(&twists, TwistyMetric::Qtm, None), "twists qtm"),
            (build(&cube, TwistyMetric::Htm, Some("U,F")), "2x2x2 <U,F>"),
        ] {
            assert!(t.keys_are_states(), "{what}");
            let (histogram, start, levels) = oracle(&t);
            let keyed = census(&t, 2);
            let listed = census(&Listed(&t), 2);
            let one = census(&t, 1);
            let components = keyed.components.clone().unwrap();
            assert_eq!(components.size_histogram, histogram, "{what}");
            assert_eq!(components.start, start, "{what}");
            let goal = keyed.goal.clone().unwrap();
            assert_eq!(goal.levels, levels, "{what}");
            assert_eq!(goal.solvable, levels.iter().sum::<u64>(), "{what}");
            assert_eq!(keyed.positions, t.key_space(), "{what}");
            for other in [listed, one] {
                assert_eq!(other.positions, keyed.positions, "{what}");
                assert_eq!(other.components, keyed.components, "{what}");
                assert_eq!(other.goal, keyed.goal, "{what}");
            }
        }
        // The 2x2x2 in <U,F>: 174,960 patterns of its six moving corners,
        // six cosets of the 29,160 positions the moves reach.
        let t = build(&cube, TwistyMetric::Htm, Some("U,F"));
        let c = census(&t, 2).components.unwrap();
        assert_eq!(c.size_histogram, [(29_160, 6)]);
    }

    #[test]
    fn past_the_floods_an_every_key_census_joins_its_components() {
        // The 3x3x3 in <U,D>: 331,776 patterns of the two layers' pieces,
        // 20,736 cosets of the 16 positions the moves reach. From its one
        // goal position, more components than the census searches one by
        // one: it joins them all instead, and says so in its progress.
        let t = build(&load("cube3.tws"), TwistyMetric::Htm, Some("U,D"));
        let (histogram, start, levels) = oracle(&t);
        assert_eq!(histogram, [(16, 20_736)]);
        assert_eq!(levels, [1, 6, 9]);
        let stages = std::sync::Mutex::new(Vec::new());
        let tell = |p: &reach::engine::Progress| {
            let mut stages = stages.lock().unwrap();
            if stages.last() != Some(&p.stage) {
                stages.push(p.stage);
            }
        };
        for threads in [1, 2] {
            stages.lock().unwrap().clear();
            let c = Search::new(&t)
                .threads(threads)
                .progress(&tell)
                .census(5)
                .unwrap();
            assert!(c.stopped.is_none());
            let components = c.components.unwrap();
            assert_eq!(components.size_histogram, histogram);
            assert_eq!(components.start, start);
            let goal = c.goal.unwrap();
            assert_eq!(goal.levels, levels);
            assert_eq!((goal.goal_components, goal.solvable), (1, 16));
            assert!(
                goal.hardest
                    .iter()
                    .all(|h| h.distance == 2 && h.component == 16)
            );
            let stages = stages.lock().unwrap();
            assert_eq!(
                stages[stages.len() - 2..],
                ["other components", "joining components"],
                "{stages:?}"
            );
        }
    }

    #[test]
    fn the_census_of_a_twisty_file_has_counts_levels_and_its_hardest_patterns() {
        let cube = data("cube2.tws");
        let census = json_out(reach().args([
            "census", &cube, "--moves", "U,F,R", "--top", "3", "--json", "-q",
        ]));
        let count = json_out(reach().args(["count", &cube, "--moves", "U,F,R", "--json", "-q"]));
        assert_eq!(census["positions"], 3_674_160);
        assert_eq!(census["components"], 1);
        assert_eq!(census["start_component"], count["states"], "{count}");
        assert_eq!(census["levels"], count["levels"]);
        assert_eq!(census["distance"], 11);
        assert_eq!(census["metric"], "htm");
        // Each hardest pattern, as the file's ScrambleState, solves in 11.
        for h in census["hardest"].as_array().unwrap() {
            assert_eq!(h["distance"], 11);
            let dir = TempDir::new("census-twisty-hardest");
            std::fs::create_dir_all(dir.path()).unwrap();
            let file = dir.path().join("hard.tws");
            let text = std::fs::read_to_string(&cube).unwrap();
            let board = h["board"].as_str().unwrap();
            std::fs::write(&file, format!("{text}\nScrambleState hard\n{board}End\n")).unwrap();
            let solved = json_out(reach().args([
                "solve",
                file.to_str().unwrap(),
                "--moves",
                "U,F,R",
                "--json",
                "-q",
            ]));
            assert_eq!(solved["length"], 11, "{solved}");
        }
    }

    #[test]
    fn the_census_of_tiles_rxc_is_that_of_the_board_of_its_tiles() {
        // The built-in, as the board of its tiles with the solved board
        // its goal: the oracle's census of that board, both parities.
        let strip = |mut v: Value| {
            for k in ["seconds", "peak_rss_bytes", "run", "puzzle"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        };
        agrees("tiles-2x3-file", TILES_2X3, "step");
        let dir = TempDir::new("census-tiles");
        std::fs::create_dir_all(dir.path()).unwrap();
        let file = dir.path().join("tiles-2x3.toml");
        std::fs::write(&file, TILES_2X3.replace("ABC\nDE.", "123\n45.")).unwrap();
        let args = ["--top", "3", "--json", "-q"];
        let builtin = json_out(reach().args(["census", "tiles-2x3"]).args(args));
        let from_file = json_out(reach().arg("census").arg(&file).args(args));
        assert_eq!(strip(builtin.clone()), strip(from_file));
        assert_eq!(builtin["puzzle"], "tiles-2x3");
        let nine = json_out(reach().args(["census", "tiles-3x3"]).args(args));
        assert_eq!(nine["size_histogram"], serde_json::json!([[181_440, 2]]));
        assert_eq!(nine["distance"], 31);
        let count = json_out(reach().args(["count", "tiles-3x3", "--json", "-q"]));
        assert_eq!(nine["start_component"], count["states"]);
        assert_eq!(nine["levels"], count["levels"]);
    }

    #[test]
    fn a_twisty_census_stopped_at_a_depth_resumes_from_its_checkpoint() {
        let cube = data("cube2.tws");
        let dir = TempDir::new("census-twisty-checkpoint");
        let cp = dir.path().join("cp");
        let base = [
            "census", &cube, "--moves", "U,F,R", "--top", "4", "--json", "-q",
        ];
        let whole = json_out(reach().args(base));
        let mut cut = reach();
        cut.args(base)
            .args(["--max-depth", "6", "--checkpoint"])
            .arg(&cp);
        let cut = json_out(&mut cut);
        assert_eq!(cut["complete"], false, "{cut}");
        assert!(cp.join("checkpoint.toml").exists());
        let names: Vec<String> = std::fs::read_dir(&cp)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with("census-keys")),
            "{names:?}"
        );
        let resumed = json_out(
            reach()
                .args(["resume", "--json", "-q", "--max-depth", "100"])
                .arg(&cp),
        );
        for k in [
            "levels",
            "hardest",
            "components",
            "size_histogram",
            "distance",
        ] {
            assert_eq!(resumed[k], whole[k], "{k}");
        }
        assert!(!cp.exists());
    }

    #[test]
    fn a_twisty_file_with_illegal_lines_lists_its_legal_patterns() {
        // One set of four, R a 4-cycle, U a swap, piece 2 never at position
        // 1: 18 of the 24 arrangements, all one component; the census
        // lists them (its keys are not all positions) and agrees with
        // `count`.
        let file = &data("illegal.tws");
        let census = json_out(reach().args(["census", file, "--top", "30", "--json", "-q"]));
        let count = json_out(reach().args(["count", file, "--json", "-q"]));
        assert_eq!(census["positions"], 18, "{census}");
        assert_eq!(census["components"], 1);
        assert_eq!(census["levels"], count["levels"]);
        let hardest = census["hardest"].as_array().unwrap();
        assert_eq!(hardest.len(), 18);
        for h in hardest {
            // Piece 2 is never at position 1.
            let board = h["board"].as_str().unwrap();
            assert!(!board.lines().nth(1).unwrap().starts_with("2 "), "{board}");
        }
    }
}

/// A census's checkpoint through the binary: stopped at a depth, killed at
/// random moments, damaged.
mod checkpoint {
    use std::path::Path;
    use std::process::{Command as StdCommand, Stdio};
    use std::time::{Duration, Instant};

    use assert_cmd::cargo::CommandCargoExt;
    use serde_json::Value;

    use crate::spill::TempDir;
    use crate::{json_out, reach};

    /// 4,640,328 positions, 308 levels of distances: about a second.
    const PUZZLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/census-5x5-goal.toml"
    );

    /// The document without what depends on the run (its time, memory,
    /// threads).
    fn found(mut v: Value) -> Value {
        for k in ["seconds", "peak_rss_bytes", "run"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    }

    fn census(puzzle: &str, extra: &[&str]) -> Value {
        found(json_out(
            reach()
                .args(["census", puzzle, "--top", "4", "--json", "-q"])
                .args(extra),
        ))
    }

    fn manifest(dir: &Path) -> bool {
        dir.join("checkpoint.toml").exists()
    }

    #[test]
    fn a_census_stopped_at_a_depth_goes_on_from_its_checkpoint_to_the_whole_census() {
        let whole = census("klotski", &[]);
        let tmp = TempDir::new("depth");
        let cp = tmp.0.to_str().unwrap();
        let part = census("klotski", &["--checkpoint", cp, "--max-depth", "40"]);
        assert_eq!(part["complete"], false);
        assert_eq!(part["levels"].as_array().unwrap().len(), 41);
        assert!(manifest(&tmp.0));
        // Its own limit holds again; a higher one goes on from depth 40.
        let again = found(json_out(reach().args(["resume", cp, "--json", "-q"])));
        assert_eq!(again["levels"], part["levels"]);
        let mid = found(json_out(reach().args([
            "resume",
            cp,
            "--max-depth",
            "90",
            "--json",
            "-q",
        ])));
        assert_eq!(mid["levels"].as_array().unwrap().len(), 91);
        assert_eq!(
            mid["levels"].as_array().unwrap()[..91],
            whole["levels"].as_array().unwrap()[..91]
        );
        let rest = found(json_out(reach().args([
            "resume",
            cp,
            "--max-depth",
            "1000",
            "--json",
            "-q",
        ])));
        assert_eq!(rest, whole);
        // A complete census's checkpoint goes once its report is out.
        assert!(!tmp.0.exists(), "{:?}", std::fs::read_dir(&tmp.0).ok());
    }

    #[test]
    fn a_census_killed_at_random_moments_resumes_to_the_uninterrupted_one() {
        let whole = census(PUZZLE, &["-j", "2"]);
        let tmp = TempDir::new("kill");
        let cp = tmp.0.to_str().unwrap();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let mut x = seed | 1;
        let mut next_ms = |span: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % span
        };
        // The first run is killed at a moment after its checkpoint appears
        // (the components joined, the distances under way), each resumed
        // run at a moment of its own, four at most; then one finishes.
        let mut kills = 0;
        let (last, last_resumed) = loop {
            let resumed = manifest(&tmp.0);
            let args: Vec<&str> = if resumed {
                vec!["resume", cp, "--json", "-q"]
            } else {
                vec![
                    "census",
                    PUZZLE,
                    "--top",
                    "4",
                    "--checkpoint",
                    cp,
                    "--json",
                    "-q",
                    "-j",
                    "2",
                ]
            };
            let mut child = StdCommand::cargo_bin("reach")
                .unwrap()
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let after = Duration::from_millis(next_ms(if resumed { 500 } else { 250 }));
            let mut since = resumed.then(Instant::now);
            let finished = loop {
                if child.try_wait().unwrap().is_some() {
                    break true;
                }
                if since.is_none() && manifest(&tmp.0) {
                    since = Some(Instant::now());
                }
                if kills < 4 && since.is_some_and(|t| t.elapsed() >= after) {
                    break false;
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            if finished {
                let out = child.wait_with_output().unwrap();
                assert_eq!(out.status.code(), Some(0), "seed {seed}: {args:?}");
                break (
                    serde_json::from_slice::<Value>(&out.stdout).unwrap(),
                    resumed,
                );
            }
            child.kill().unwrap();
            child.wait().unwrap();
            kills += 1;
        };
        assert_eq!(found(last), whole, "seed {seed}, {kills} kills");
        assert!(
            kills > 0 && last_resumed,
            "seed {seed}: the census finished before its checkpoint was used"
        );
        assert!(!tmp.0.exists());
    }

    #[test]
    fn a_damaged_census_checkpoint_is_refused_saying_which_file() {
        let tmp = TempDir::new("damaged");
        let cp = tmp.0.to_str().unwrap();
        census("klotski", &["--checkpoint", cp, "--max-depth", "10"]);
        let roots = tmp.0.join("census-roots.u32");
        let mut bytes = std::fs::read(&roots).unwrap();
        bytes[1000] ^= 0x10;
        std::fs::write(&roots, &bytes).unwrap();
        reach()
            .args(["resume", cp, "--max-depth", "1000"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("census-roots.u32"))
            .stderr(predicates::str::contains("checksum"));
        bytes.truncate(400);
        std::fs::write(&roots, &bytes).unwrap();
        reach()
            .args(["resume", cp])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("400 bytes"));
        // A census's checkpoint is not a count's.
        reach()
            .args(["count", "klotski", "--checkpoint", cp])
            .assert()
            .code(2);
    }
}

/// `reach studio` without a browser: its host check, a job told as
/// server-sent events, and its answers equal to the CLI's.
#[cfg(feature = "studio")]
mod studio {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;
    use std::process::{Child, Command, Stdio};

    use crate::json_out;

    struct Studio(Child, u16);

    impl Drop for Studio {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    fn studio() -> Studio {
        studio_with(&[])
    }

    /// A studio started with `args` after its port and threads.
    fn studio_with(args: &[&str]) -> Studio {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("reach"))
            .args(["studio", "--port", "0", "-j", "2"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut url)
            .unwrap();
        let port = url
            .trim()
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        Studio(child, port)
    }

    /// The response to one request: status line and headers, and body.
    fn ask(port: u16, method: &str, path: &str, headers: &str, body: &str) -> (String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        (head.to_string(), body.to_string())
    }

    /// The data of the first event `name` in a job's `events`.
    fn event(events: &str, name: &str) -> serde_json::Value {
        let at = events
            .find(&format!("event: {name}\ndata: "))
            .unwrap_or_else(|| panic!("no {name} in {events}"));
        let line = events[at..].lines().nth(1).unwrap();
        serde_json::from_str(line.strip_prefix("data: ").unwrap()).unwrap()
    }

    /// Posts job `request` to the studio on `port` and returns its answer
    /// and, if it started one, the job's events to its end.
    fn job(port: u16, request: serde_json::Value) -> (serde_json::Value, String) {
        let own = format!("Host: 127.0.0.1:{port}\r\n");
        let (_, body) = ask(port, "POST", "/api/jobs", &own, &request.to_string());
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        let events = match answer["job"].as_str() {
            Some(id) => ask(port, "GET", &format!("/api/jobs/{id}/events"), &own, "").1,
            None => String::new(),
        };
        (answer, events)
    }

    #[test]
    fn the_studio_counts_and_solves_a_twisty_puzzle_as_the_cli() {
        let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
        let text = std::fs::read_to_string(cube).unwrap();
        let st = studio();
        // The page's metric may still be a sliding-block one: the twisty
        // puzzle takes its own default (htm), and says so.
        let scramble = "R U F R' U2 F' R2";
        let (answer, events) = job(
            st.1,
            serde_json::json!({"kind": "analyze", "text": text, "metric": "step",
                "moves": "U,F,R", "scramble": scramble}),
        );
        assert_eq!(answer["puzzle"]["kind"], "twisty", "{answer}");
        assert_eq!(answer["puzzle"]["metric"], "htm", "{answer}");
        assert_eq!(answer["puzzle"]["generators"], 9, "{answer}");
        let count = json_out(crate::reach().args(["count", cube, "--moves", "U,F,R", "--json"]));
        let table = event(&events, "count");
        assert_eq!(table["levels"], count["levels"], "{table}");
        assert_eq!(table["gods_number"], 11, "{table}");
        let solve = json_out(crate::reach().args([
            "solve",
            cube,
            "--moves",
            "U,F,R",
            "--scramble",
            scramble,
            "--json",
        ]));
        let solution = event(&events, "solution");
        assert_eq!(solution["length"], solve["length"], "{solution}");
        assert_eq!(
            solution["moves"].as_array().unwrap().len() as u64,
            solve["length"].as_u64().unwrap()
        );
        let own = format!("Host: 127.0.0.1:{}\r\n", st.1);
        let (head, page) = ask(st.1, "GET", solution["page"].as_str().unwrap(), &own, "");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(page.contains("God's-number table") && page.contains("Scramble:"));
        // In the quarter-turn metric the table is another one, and its own.
        let (_, events) = job(
            st.1,
            serde_json::json!({"kind": "analyze", "text": text, "metric": "qtm", "moves": "U F R"}),
        );
        let qtm = json_out(crate::reach().args([
            "count", cube, "--moves", "U,F,R", "--metric", "qtm", "--json",
        ]));
        assert_eq!(event(&events, "count")["levels"], qtm["levels"]);
        assert!(
            !events.contains("event: solution"),
            "no scramble, no solution: {events}"
        );
        // Mistakes: the scramble's and the moves' without a line, the file's
        // at its line.
        for (request, says) in [
            (
                serde_json::json!({"text": text, "scramble": "R Q"}),
                "\"Q\" is not a move",
            ),
            (serde_json::json!({"text": text, "moves": "U,X"}), "X"),
            (
                serde_json::json!({"text": text.replacen("Move F", "Mvoe F", 1)}),
                "unknown keyword",
            ),
        ] {
            let (answer, events) = job(st.1, request);
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(says), "{answer}");
            assert!(events.is_empty());
        }
        let (answer, _) = job(
            st.1,
            serde_json::json!({"text": text.replacen("Move F", "Mvoe F", 1)}),
        );
        assert!(answer["error"]["line"].as_u64().is_some(), "{answer}");
        // A KPuzzle file's text is told apart by its content, as the
        // command line tells it.
        let kpuzzle = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.kpuzzle.json");
        let json_text = std::fs::read_to_string(kpuzzle).unwrap();
        let (answer, events) = job(
            st.1,
            serde_json::json!({"text": json_text, "moves": "U,F,R"}),
        );
        assert_eq!(answer["puzzle"]["kind"], "twisty", "{answer}");
        let count = json_out(crate::reach().args(["count", kpuzzle, "--moves", "U,F,R", "--json"]));
        assert_eq!(event(&events, "count")["levels"], count["levels"]);
    }

    #[test]
    fn the_studio_takes_a_twisty_census_as_the_cli() {
        // The 2x2x2 in <U,F> (the page's scramble plays no part, even a
        // wrong one): the CLI's document, whose hardest patterns open as
        // the file's start and solve in their distance.
        let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
        let text = std::fs::read_to_string(cube).unwrap();
        let st = studio();
        let (answer, events) = job(
            st.1,
            serde_json::json!({"kind": "census", "text": text, "metric": "step",
                "moves": "U,F", "scramble": "R Q"}),
        );
        assert_eq!(answer["puzzle"]["kind"], "twisty", "{answer}");
        let census = event(&events, "census");
        let cli = json_out(crate::reach().args([
            "census", cube, "--moves", "U,F", "--top", "5", "--json", "-q",
        ]));
        for field in [
            "positions",
            "components",
            "size_histogram",
            "start_component",
            "levels",
            "metric",
            "complete",
        ] {
            assert_eq!(census[field], cli[field], "{field}: {census}");
        }
        assert_eq!(census["components"], 6);
        assert_eq!(census["hardest"], cli["hardest"]);
        let hardest = &census["hardest"][0];
        assert_eq!(hardest["distance"], 14);
        let opened = format!(
            "{text}\nScrambleState hardest\n{}End\n",
            hardest["board"].as_str().unwrap()
        );
        let (_, events) = job(
            st.1,
            serde_json::json!({"kind": "analyze", "text": opened, "moves": "U,F"}),
        );
        assert_eq!(event(&events, "solution")["length"], 14, "{events}");
        // Keys of two words: the job fails and says why.
        let cube3 =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube3.tws"))
                .unwrap();
        let (_, events) = job(st.1, serde_json::json!({"kind": "census", "text": cube3}));
        assert!(
            event(&events, "failed")["message"]
                .as_str()
                .unwrap()
                .contains("words a key")
        );
    }

    #[test]
    fn a_twisty_puzzle_with_rotations_is_searched_by_classes_and_solved_in_its_own_moves() {
        // The 3x3x3 with its rotations: the count from solved goes by
        // classes of symmetric positions (as `reach count` does) and stops
        // at the work limit, counted in positions, where the command line
        // stops; the solution is a path of the puzzle's own positions.
        let cube = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/cube3-rotations.tws"
        );
        let text = std::fs::read_to_string(cube).unwrap();
        let st = studio_with(&["--work-states", "1000000"]);
        let scramble = "R U F' L2 D";
        let (answer, events) = job(
            st.1,
            serde_json::json!({"text": text, "scramble": scramble}),
        );
        assert_eq!(answer["puzzle"]["generators"], 18, "{answer}");
        let out = crate::reach()
            .args(["count", cube, "--max-states", "1000000", "--json"])
            .output()
            .unwrap();
        let count: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(count["symmetry"]["used"], true, "{count}");
        let table = event(&events, "count");
        assert_eq!(table["levels"], count["levels"], "{table}");
        assert!(table["class_levels"].is_array(), "{table}");
        assert_eq!(table["class_levels"], count["class_levels"], "{table}");
        assert_eq!(table["complete"], false, "{table}");
        let solution = event(&events, "solution");
        assert_eq!(solution["length"], 5, "{solution}");
        // Its moves undo the scramble: the scramble then them is solved.
        let moves: Vec<&str> = solution["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let both = format!("{scramble} {}", moves.join(" "));
        let undone = json_out(crate::reach().args(["solve", cube, "--scramble", &both, "--json"]));
        assert_eq!(undone["length"], 0, "{both}: {undone}");
    }

    #[test]
    fn a_twisty_count_past_the_studio_limit_stops_short_and_says_so() {
        let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
        let text = std::fs::read_to_string(cube).unwrap();
        let st = studio_with(&["--work-states", "100000"]);
        let (_, events) = job(
            st.1,
            serde_json::json!({"text": text, "moves": "U,F,R", "scramble": "R U2 F' R U' F2 R' U F' R2 U F2"}),
        );
        let table = event(&events, "count");
        assert_eq!(table["complete"], false, "{table}");
        assert!(table["gods_number"].is_null(), "{table}");
        assert!(
            table["stop_reason"].as_str().unwrap().contains("100000"),
            "{table}"
        );
        // The command line stops at the same level (exit 3: partial).
        let out = crate::reach()
            .args([
                "count",
                cube,
                "--moves",
                "U,F,R",
                "--max-states",
                "100000",
                "--json",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3));
        let count: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(table["levels"], count["levels"]);
        // The solution (9 moves) needs more states than the limit lets it
        // reach.
        let solution = event(&events, "solution");
        assert!(solution["length"].is_null(), "{solution}");
        assert!(solution["stop_reason"].is_string(), "{solution}");
    }

    #[test]
    fn the_studio_answers_its_own_page_only_and_counts_as_the_cli() {
        let st = studio();
        let own = format!("Host: 127.0.0.1:{}\r\n", st.1);
        let (head, _) = ask(st.1, "GET", "/", &own, "");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(head.contains("Content-Security-Policy"), "{head}");
        for foreign in [
            "Host: evil.example\r\n".to_string(),
            format!(
                "Host: 127.0.0.1:{}\r\nOrigin: http://evil.example\r\n",
                st.1
            ),
            format!("Host: 127.0.0.1:{}\r\nOrigin: http://127.0.0.1:1\r\n", st.1),
        ] {
            let (head, _) = ask(st.1, "POST", "/api/jobs", &foreign, "{}");
            assert!(head.starts_with("HTTP/1.1 403"), "{foreign}: {head}");
        }
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/rush-hour-17.toml"
        ))
        .unwrap();
        let request =
            serde_json::json!({"kind": "analyze", "text": text, "metric": "slide"}).to_string();
        let (_, body) = ask(st.1, "POST", "/api/jobs", &own, &request);
        let started: serde_json::Value = serde_json::from_str(&body).unwrap();
        let job = started["job"].as_str().unwrap();
        let (head, events) = ask(st.1, "GET", &format!("/api/jobs/{job}/events"), &own, "");
        assert!(head.contains("text/event-stream"), "{head}");
        let event = |name: &str| event(&events, name);
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/rush-hour-17.toml");
        let count = json_out(crate::reach().args(["count", file, "--metric", "slide", "--json"]));
        assert_eq!(event("count")["states"], count["states"]);
        let solve = json_out(crate::reach().args(["solve", file, "--metric", "slide", "--json"]));
        assert_eq!(event("solution")["length"], solve["length"]);
        let hardest =
            json_out(crate::reach().args(["hardest", file, "--metric", "slide", "--json"]));
        assert_eq!(event("hardest")["distance"], hardest["distance"]);
        assert!(events.contains("event: done"));
        // A mistake comes back at its line, and starts nothing.
        let bad = serde_json::json!({"kind": "analyze", "text": "board = \"\"\"\nAB\n\"\"\"\nnope = 1\n"}).to_string();
        let (_, body) = ask(st.1, "POST", "/api/jobs", &own, &bad);
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["error"]["line"], 4, "{answer}");
    }
}
