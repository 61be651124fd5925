//! An independent checker for printed solutions: it knows nothing of keys
//! or classes, only a grid of labels, the moving rules and the goal.

use std::collections::BTreeSet;

pub struct Rules<'a> {
    pub board: &'a str,
    pub horizontal: &'a str,
    pub vertical: &'a str,
    /// The goal grid, and for each goal label the labels of the pieces that
    /// may stand in for it.
    pub goal: &'a str,
    pub stand_ins: &'a [(char, &'a str)],
}

#[derive(Clone, Copy)]
pub enum Metric {
    Step,
    Slide,
    Piece,
}

fn grid(text: &str) -> Vec<Vec<char>> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().collect())
        .collect()
}

fn cells_of(g: &[Vec<char>], label: char) -> BTreeSet<(i32, i32)> {
    let mut out = BTreeSet::new();
    for (r, row) in g.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            if ch == label {
                out.insert((r as i32, c as i32));
            }
        }
    }
    out
}

/// Plays `moves` from the start board; Ok(final grid) if every step is
/// legal, the metric is respected and the goal holds at the end.
pub fn check(rules: &Rules, metric: Metric, moves: &[(char, Vec<String>)]) -> Result<(), String> {
    let mut g = grid(rules.board);
    let (h, w) = (g.len() as i32, g[0].len() as i32);
    for (n, (piece, path)) in moves.iter().enumerate() {
        if path.is_empty() {
            return Err(format!("move {n}: empty path"));
        }
        match metric {
            Metric::Step if path.len() != 1 => {
                return Err(format!("move {n}: a step moves one cell"));
            }
            Metric::Slide if path.iter().any(|d| d != &path[0]) => {
                return Err(format!("move {n}: a slide goes in one direction"));
            }
            _ => {}
        }
        for dir in path {
            let (dr, dc) = match dir.as_str() {
                "up" => (-1, 0),
                "down" => (1, 0),
                "left" => (0, -1),
                "right" => (0, 1),
                other => return Err(format!("move {n}: unknown direction {other}")),
            };
            if rules.horizontal.contains(*piece) && dr != 0 {
                return Err(format!("move {n}: {piece} moves only horizontally"));
            }
            if rules.vertical.contains(*piece) && dc != 0 {
                return Err(format!("move {n}: {piece} moves only vertically"));
            }
            let cells = cells_of(&g, *piece);
            if cells.is_empty() {
                return Err(format!("move {n}: no piece {piece}"));
            }
            for &(r, c) in &cells {
                let (r2, c2) = (r + dr, c + dc);
                if r2 < 0 || c2 < 0 || r2 >= h || c2 >= w {
                    return Err(format!("move {n}: {piece} leaves the board"));
                }
                let target = g[r2 as usize][c2 as usize];
                if target != '.' && target != *piece {
                    return Err(format!("move {n}: {piece} runs into {target:?}"));
                }
            }
            for &(r, c) in &cells {
                g[r as usize][c as usize] = '.';
            }
            for &(r, c) in &cells {
                g[(r + dr) as usize][(c + dc) as usize] = *piece;
            }
        }
    }
    let goal = grid(rules.goal);
    let labels: BTreeSet<char> = goal
        .iter()
        .flatten()
        .copied()
        .filter(|&c| c != '.')
        .collect();
    for label in labels {
        let want = cells_of(&goal, label);
        let stand_ins = rules
            .stand_ins
            .iter()
            .find(|(l, _)| *l == label)
            .map_or(label.to_string(), |(_, s)| s.to_string());
        if !stand_ins.chars().any(|p| cells_of(&g, p) == want) {
            return Err(format!("the goal's {label} is not covered at the end"));
        }
    }
    Ok(())
}

/// The moves of `solve --json`'s document, as [`check`] takes them: each
/// piece's label and its path.
pub fn json_moves(v: &serde_json::Value) -> Vec<(char, Vec<String>)> {
    v["moves"]
        .as_array()
        .expect("a solution's moves")
        .iter()
        .map(|m| {
            let piece = m["piece"].as_str().unwrap().chars().next().unwrap();
            let path = m["path"].as_array().unwrap().iter();
            (
                piece,
                path.map(|d| d.as_str().unwrap().to_string()).collect(),
            )
        })
        .collect()
}
