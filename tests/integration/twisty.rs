//! Twisty puzzles from `.tws` and KPuzzle files: the 2x2x2 cube's
//! God's-number tables against OEIS, the clocks file against the built-in
//! model and its generating polynomials, random small puzzles against a
//! breadth-first search over whole patterns (no ranks at all) and the
//! sequential oracle, files with mistakes, and the command line.

use std::collections::HashSet;

use predicates::prelude::*;

use reach::engine::{Model, Search, Spill, VisitedKind, reference};
use reach::puzzles::clocks::Clocks;
use reach::puzzles::twisty::{
    Definition, Format, MoveDef, Options, Pattern, Set, Transform, Twisty, TwistyMetric,
};

use crate::spill::TempDir;
use crate::{json_out, reach};

/// OEIS A079761: the 2x2x2 cube, positions at each distance in the
/// half-turn metric (one corner fixed).
const CUBE2_HTM: [u64; 12] = [
    1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
];
/// OEIS A079762: the same in the quarter-turn metric.
const CUBE2_QTM: [u64; 15] = [
    1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276,
];

pub(crate) fn data(file: &str) -> String {
    format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn load(file: &str) -> Definition {
    Twisty::from_path(std::path::Path::new(&data(file))).unwrap()
}

pub(crate) fn build(def: &Definition, metric: TwistyMetric, moves: Option<&str>) -> Twisty {
    Twisty::new(
        def.clone(),
        &Options {
            metric,
            moves: moves.map(|m| m.split(',').map(String::from).collect()),
            scramble: None,
        },
    )
    .unwrap()
}

fn count(t: &Twisty, threads: usize, kind: VisitedKind) -> Vec<u64> {
    let r = Search::new(t)
        .threads(threads)
        .visited(kind)
        .count()
        .unwrap();
    assert!(r.is_complete());
    r.levels
}

#[test]
fn the_2x2x2_tables_are_oeis_a079761_and_a079762_from_both_formats() {
    for file in ["cube2.tws", "cube2.kpuzzle.json"] {
        let def = load(file);
        for (metric, table) in [
            (TwistyMetric::Htm, &CUBE2_HTM[..]),
            (TwistyMetric::Qtm, &CUBE2_QTM[..]),
        ] {
            let t = build(&def, metric, Some("U,F,R"));
            // The fixed corner, its orientation and the twist sum leave
            // exactly the reachable positions: 7! x 3^6.
            assert_eq!(t.key_space(), 3_674_160, "{file}");
            assert!(t.reversible());
            for (threads, kind) in [
                (1, VisitedKind::Bitmap),
                (2, VisitedKind::Frontier),
                (3, VisitedKind::DashMap),
            ] {
                assert_eq!(
                    count(&t, threads, kind),
                    table,
                    "{file} {metric:?} {threads} threads {kind:?}"
                );
            }
        }
        // All six faces: every corner moves, 8! x 3^7 keys.
        let all = build(&def, TwistyMetric::Htm, None);
        assert_eq!(all.key_space(), 88_179_840);
        assert_eq!(all.moves().len(), 18);
    }
}

#[test]
fn levels_on_disk_are_the_levels_in_memory() {
    let def = load("cube2.tws");
    let t = build(&def, TwistyMetric::Qtm, Some("U,F,R"));
    let dir = TempDir::new("twisty-spill");
    let r = Search::new(&t)
        .threads(2)
        .visited(VisitedKind::Frontier)
        .spill(Spill::new(dir.0.join("levels")))
        .count()
        .unwrap();
    assert_eq!(r.levels, CUBE2_QTM);
    assert!(r.disk.is_some());
    // The dense store's array on disk, a few blocks a segment.
    let r = Search::new(&t)
        .threads(2)
        .visited(VisitedKind::Dense)
        .dense_segment_bytes(Some(4 * 32768))
        .spill(Spill::new(dir.0.join("dense")))
        .count()
        .unwrap();
    assert_eq!(
        (r.levels, r.visited),
        (CUBE2_QTM.to_vec(), VisitedKind::Dense)
    );
    assert!(r.disk.is_some());
}

/// The coefficients of `p^n`.
fn power(p: &[u64], n: usize) -> Vec<u64> {
    let mut r = vec![1u64];
    for _ in 0..n {
        let mut q = vec![0; r.len() + p.len() - 1];
        for (i, a) in r.iter().enumerate() {
            for (j, b) in p.iter().enumerate() {
                q[i + j] += a * b;
            }
        }
        r = q;
    }
    r
}

#[test]
fn the_clocks_file_gives_the_built_in_table_and_each_metric_s_polynomial() {
    let def = load("clocks.tws");
    let builtin = Search::new(&Clocks::new([0; 9])).count().unwrap().levels;
    for (metric, poly) in [
        (TwistyMetric::Moves, &[1, 1, 1, 1][..]),
        (TwistyMetric::Qtm, &[1, 2, 1][..]),
        (TwistyMetric::Htm, &[1, 3][..]),
    ] {
        let t = build(&def, metric, None);
        // No move rearranges the clocks and no move keeps their sum: only
        // orientations count, every key is a position.
        assert_eq!(t.key_space(), 262_144);
        let levels = count(&t, 2, VisitedKind::Auto);
        assert_eq!(levels, power(poly, 9), "{metric:?}");
        if metric == TwistyMetric::Moves {
            assert_eq!(levels, builtin);
            assert_eq!(levels.len(), 28);
            assert!(!t.reversible(), "a quarter turn is not its own inverse");
        }
    }
}

/// A small deterministic generator (xorshift).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random puzzle of at most six positions: identical pieces, twists
/// that sometimes sum to zero, permutations that are sometimes even.
pub(crate) fn random_definition(rng: &mut Rng) -> Definition {
    let nsets = 1 + rng.below(2) as usize;
    let mut sets = Vec::new();
    let mut left = 6;
    for s in 0..nsets {
        let size = (2 + rng.below(3) as usize).min(left);
        if size < 2 {
            break;
        }
        left -= size;
        sets.push(Set {
            name: format!("S{s}"),
            size,
            orientations: 1 + rng.below(3) as u8,
        });
    }
    let solved = Pattern {
        pieces: sets
            .iter()
            .map(|s| {
                (0..s.size)
                    .map(|i| if rng.below(3) == 0 { 0 } else { i as u16 })
                    .collect()
            })
            .collect(),
        ori: sets.iter().map(|s| vec![0; s.size]).collect(),
    };
    let mut moves = Vec::new();
    while moves.len() < 1 + rng.below(3) as usize {
        let mut t = Transform::identity(&sets);
        for (s, set) in sets.iter().enumerate() {
            if rng.below(2) == 0 {
                continue;
            }
            let perm = &mut t.perm[s];
            if rng.below(3) == 0 && set.size >= 3 {
                // A 3-cycle: even.
                perm.swap(0, 1);
                perm.swap(1, 2);
            } else {
                for i in (1..set.size).rev() {
                    perm.swap(i, rng.below(i as u64 + 1) as usize);
                }
            }
            let o = u64::from(set.orientations);
            for d in t.ori[s].iter_mut() {
                *d = rng.below(o) as u8;
            }
            if rng.below(2) == 0 {
                let sum: u64 = t.ori[s][1..].iter().map(|&d| u64::from(d)).sum();
                t.ori[s][0] = ((o - sum % o) % o) as u8;
            }
        }
        if !t.is_identity() {
            moves.push(MoveDef {
                name: ["U", "R", "F"][moves.len()].to_string(),
                transform: t,
            });
        }
    }
    Definition {
        name: "random".into(),
        format: Format::Tws,
        set_at: vec![(1, 1); sets.len()],
        move_at: vec![(1, 1); moves.len()],
        sets,
        solved,
        scramble: None,
        moves,
        origin: "random.tws".into(),
        rotations: Vec::new(),
        aliases: Vec::new(),
        illegal: Vec::new(),
    }
}

/// The definition as a `.tws` file.
fn to_tws(def: &Definition) -> String {
    let line = |v: &mut dyn Iterator<Item = u64>| {
        v.map(|x| x.to_string()).collect::<Vec<_>>().join(" ") + "\n"
    };
    let mut out = format!("Name {}\n", def.name);
    for s in &def.sets {
        out += &format!("Set {} {} {}\n", s.name, s.size, s.orientations);
    }
    out += "Solved\n";
    for (s, set) in def.sets.iter().enumerate() {
        out += &format!("{}\n", set.name);
        out += &line(&mut def.solved.pieces[s].iter().map(|&x| u64::from(x) + 1));
        out += &line(&mut def.solved.ori[s].iter().map(|&x| u64::from(x)));
    }
    out += "End\n";
    // Moves alternate between ksolve's `Move` (positions from 1, twists
    // written at the position a piece comes from) and twsearch's
    // `MoveTransformation` (from 0, twists at the position they arrive at).
    for (k, m) in def.moves.iter().enumerate() {
        let ksolve = k % 2 == 0;
        let keyword = if ksolve { "Move" } else { "MoveTransformation" };
        out += &format!("{keyword} {}  # a comment\n", m.name);
        for (s, set) in def.sets.iter().enumerate() {
            let perm = &m.transform.perm[s];
            let mut twists = m.transform.ori[s].clone();
            if ksolve {
                for (i, &from) in perm.iter().enumerate() {
                    twists[usize::from(from)] = m.transform.ori[s][i];
                }
            }
            out += &format!("{}\n", set.name);
            out += &line(&mut perm.iter().map(|&x| u64::from(x) + u64::from(ksolve)));
            out += &line(&mut twists.iter().map(|&x| u64::from(x)));
        }
        out += "End\n";
    }
    out
}

/// Breadth-first search over whole patterns, with no ranks: the truth the
/// ranks must reproduce.
pub(crate) fn pattern_levels(t: &Twisty, start: &Pattern) -> (Vec<u64>, Vec<Pattern>) {
    let def = t.definition();
    let sets = &def.sets;
    // twsearch's `Illegal SET POS PIECE`: a position is never entered.
    let legal = |p: &Pattern| {
        !def.illegal
            .iter()
            .any(|&(s, pos, piece)| p.pieces[s][pos] == piece)
    };
    let mut seen = HashSet::new();
    seen.insert(start.clone());
    let mut frontier = vec![start.clone()];
    let mut all = vec![start.clone()];
    let mut levels = Vec::new();
    while !frontier.is_empty() {
        levels.push(frontier.len() as u64);
        let mut next = Vec::new();
        for p in &frontier {
            for m in t.moves() {
                let q = p.apply(&m.transform, sets);
                if legal(&q) && seen.insert(q.clone()) {
                    next.push(q.clone());
                    all.push(q);
                }
            }
        }
        frontier = next;
    }
    (levels, all)
}

#[test]
fn random_puzzles_match_a_search_over_whole_patterns() {
    use reach::puzzles::twisty::coord::Kind;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // How often each reduction of the key space was exercised.
    let (mut parity, mut sum, mut multiset, mut distinct) = (0, 0, 0, 0);
    for case in 0..60 {
        let def = random_definition(&mut rng);
        // The file format reads back what it was written from.
        let text = to_tws(&def);
        let parsed = Twisty::parse(&text, "random.tws").unwrap();
        assert_eq!(parsed.sets, def.sets, "case {case}");
        assert_eq!(parsed.solved, def.solved, "case {case}");
        assert_eq!(parsed.moves, def.moves, "case {case}\n{text}");
        for metric in [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves] {
            let t = build(&def, metric, None);
            for c in t.coords() {
                match &c.kind {
                    Kind::Perm {
                        parity: Some(_), ..
                    } => parity += 1,
                    Kind::Perm {
                        distinct: false, ..
                    } => multiset += 1,
                    Kind::Ori { sum: Some(_), .. } => sum += 1,
                    _ => {}
                }
            }
            let (truth, patterns) = pattern_levels(&t, &def.solved);
            // Every reachable pattern has its own key within the key space.
            let mut keys = HashSet::new();
            for p in &patterns {
                let k = t.key_of::<u64>(p).unwrap();
                assert!(k < t.key_space(), "case {case}");
                assert_eq!(t.pattern(k), *p, "case {case}");
                assert!(keys.insert(k), "case {case}: two patterns, one key");
            }
            let oracle = reference::level_sizes(&t);
            assert_eq!(oracle, truth, "case {case} {metric:?}\n{text}");
            assert_eq!(count(&t, 2, VisitedKind::Auto), truth, "case {case}");
            assert_eq!(count(&t, 2, VisitedKind::Dense), truth, "case {case}");
            if t.reversible() {
                assert_eq!(count(&t, 3, VisitedKind::Frontier), truth, "case {case}");
            }
            // Without move tables: arrangements of distinct pieces in
            // lanes, the others ranked a move at a time.
            let bare = t.clone().without_tables();
            assert_eq!(
                count(&bare, 2, VisitedKind::Dense),
                truth,
                "case {case} bare"
            );
            assert_eq!(
                count(&bare, 1, VisitedKind::Bitmap),
                truth,
                "case {case} bare"
            );
            // With every piece told apart, the positions are the group's
            // elements.
            if t.pieces_distinct() {
                let order = t.group_order().unwrap();
                assert_eq!(
                    order,
                    u128::from(truth.iter().sum::<u64>()),
                    "case {case} {metric:?}\n{text}"
                );
                distinct += 1;
            }
        }
    }
    assert!(
        parity > 5 && sum > 5 && multiset > 5 && distinct > 5,
        "the random puzzles hardly exercise the reductions: {parity} fixed parities, {sum} fixed sums, {multiset} multisets, {distinct} groups"
    );
}

/// The error of a broken file: its location and message.
fn error(text: &str) -> (Option<(usize, usize)>, String) {
    let e = Twisty::parse(text, "bad.tws").unwrap_err();
    (e.location, e.to_string())
}

#[test]
fn files_with_mistakes_are_located() {
    let head = "Name bad\nSet A 4 2\nSolved\nA\n1 2 3 4\nEnd\n";
    let cases: &[(&str, (usize, usize), &str)] = &[
        (
            "Move X\nA\n2 2 3 4\nEnd\n",
            (9, 3),
            "2 appears twice in a move's permutation",
        ),
        ("Move X\nA\n2 1 3\nEnd\n", (9, 1), "has 4 positions"),
        (
            "Move X\nA\n2 1 3 4\n0 0 2 0\nEnd\n",
            (10, 5),
            "orientation 2 is out of range",
        ),
        ("Move X\nB\n2 1 3 4\nEnd\n", (8, 1), "unknown set \"B\""),
        (
            "Move X\nA\n1 2 3 4\nEnd\n",
            (7, 6),
            "move X changes nothing",
        ),
        ("Move X\nA\n2 1 3 5\nEnd\n", (9, 7), "5 is out of range"),
        ("Move X\nA\n2 1 3 4\n", (7, 1), "no End"),
        ("Block\n", (7, 1), "does not read"),
        ("Move X\nA\n2 1 x 4\nEnd\n", (9, 5), "\"x\" is not a number"),
    ];
    let cases: Vec<_> = cases
        .iter()
        .copied()
        .chain([
            // twsearch features reach does not read say so, where they are.
            // MoveTransformation and StartState count from 0.
            (
                "MoveTransformation X\nA\n1 0 2 4\nEnd\n",
                (9, 7),
                "4 is out of range: set A takes 0 to 3",
            ),
            (
                "Move X\nA\n2 1 3 4\n? 0 0 0\nEnd\n",
                (10, 1),
                "\"?\" in a move",
            ),
            (
                "Move X\nA\n2 1 ? 4\nEnd\n",
                (9, 5),
                "twsearch's wildcard stands for an orientation only",
            ),
            // Illegal: an unknown set, a position or piece out of range, a
            // piece the set does not have, before Solved (below).
            (
                "Move X\nA\n2 1 3 4\nEnd\nIllegal B 1 2\n",
                (11, 9),
                "unknown set \"B\"",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nIllegal A 5 2\n",
                (11, 11),
                "position \"5\" is not one of set A's",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nIllegal A 1 0\n",
                (11, 13),
                "piece \"0\" is not one of set A's",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nIllegal A 1\n",
                (11, 1),
                "at least one piece",
            ),
            // The solved state itself on an illegal position: at the
            // Illegal line, naming the Solved block's.
            (
                "Move X\nA\n2 1 3 4\nEnd\nIllegal A 1 1\n",
                (11, 1),
                "this Illegal line forbids the Solved block of line 3",
            ),
            // Sequences and aliases: a step that names nothing, a cycle,
            // a name given twice, one that changes nothing.
            (
                "Move X\nA\n2 1 3 4\nEnd\nMoveSequence Y X Q\n",
                (11, 18),
                "names no move, rotation, sequence or alias \"Q\"",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nMoveAlias Y Z\nMoveAlias Z Y\n",
                (11, 13),
                "refer to each other in a cycle: Y, Z",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nMoveSequence X X X\n",
                (11, 14),
                "defined twice",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nMoveSequence Y X X\n",
                (11, 14),
                "changes nothing",
            ),
            (
                "Move X\nA\n2 1 3 4\nEnd\nMoveSequence Y\n",
                (11, 1),
                "takes a name and the moves",
            ),
        ])
        .collect();
    for (tail, at, message) in &cases {
        let (location, text) = error(&format!("{head}{tail}"));
        let at = (*at != (0, 0)).then_some(*at);
        assert_eq!(location, at, "{text}");
        assert!(text.contains(message), "{text}");
        assert!(text.contains("help:"), "{text}");
    }
    // Illegal before Solved; wildcards that identical pieces do not share;
    // a scramble whose wildcards are not the solved state's.
    let (at, text) = error("Set A 4 1\nIllegal A 1 2\n");
    assert_eq!(at, Some((2, 1)), "{text}");
    assert!(text.contains("Illegal before the Solved block"), "{text}");
    let wild = "Set A 4 3\nSolved\nA\n1 1 2 3\n? 0 0 0\nEnd\n";
    let (at, text) = error(wild);
    assert_eq!(at, Some((5, 1)), "{text}");
    assert!(text.contains("are one a ? wildcard and one not"), "{text}");
    let wild = "Set A 4 3\nSolved\nA\n1 1 2 3\n? ? 0 0\nEnd\nMove X\nA\n2 1 3 4\nEnd\nScrambleState\nA\n1 2 1 3\n? ? ? 0\nEnd\n";
    let (at, text) = error(wild);
    assert_eq!(at, Some((11, 1)), "{text}");
    assert!(
        text.contains("a ? wildcard here but oriented in the solved state"),
        "{text}"
    );
    // Sizes that disagree in a pattern, and a set declared twice.
    let (at, text) = error("Set A 4 1\nSolved\nA\n1 2\nEnd\n");
    assert_eq!(at, Some((4, 1)), "{text}");
    let (at, text) = error("Set A 4 1\nSet A 2 1\n");
    assert_eq!(at, Some((2, 5)), "{text}");
    assert!(text.contains("declared twice"));
    // KPuzzle JSON: located too.
    let json = "{\n\"orbits\": [{\"orbitName\": \"A\", \"numPieces\": 3, \"numOrientations\": 2}],\n\"defaultPattern\": {\"A\": {\"pieces\": [0, 1, 2], \"orientation\": [0, 0, 0]}},\n\"moves\": {\"X\": {\"A\": {\"permutation\": [1, 0, 2], \"orientationDelta\": [0, 0, 3]}}}\n}\n";
    let e = Twisty::parse(json, "bad.json").unwrap_err();
    assert_eq!(e.location.map(|l| l.0), Some(4), "{e}");
    assert!(
        e.to_string().contains("orientation 3 is out of range"),
        "{e}"
    );
    let e = Twisty::parse(&json.replace("\"X\": {\"A\"", "\"X\": {\"B\""), "bad.json").unwrap_err();
    assert!(e.to_string().contains("unknown orbit \"B\""), "{e}");
    // A key given twice, at any depth, is refused where it is, never read
    // as one of the two (two moves named X would count 2 states, not 6).
    let moves = "\"moves\": {\"X\": {\"A\": {\"permutation\": [1, 0, 2]}},\n\"X\": {\"A\": {\"permutation\": [0, 2, 1]}}}\n}\n";
    let twice = json.split("\"moves\"").next().unwrap().to_string() + moves;
    let e = Twisty::parse(&twice, "bad.json").unwrap_err();
    assert_eq!(e.location, Some((5, 1)), "{e}");
    assert!(
        e.to_string().contains("the key \"X\" is given twice"),
        "{e}"
    );
    let twice = twice.replace("[1, 0, 2]}},\n\"X\": {\"A\"", "[1, 0, 2]},\n\"A\"");
    let e = Twisty::parse(&twice, "bad.json").unwrap_err();
    assert!(
        e.to_string().contains("the key \"A\" is given twice"),
        "{e}"
    );
    assert_eq!(e.location, Some((5, 1)), "{e}");
    let e = Twisty::parse(
        &json.replace(
            "{\n\"orbits\"",
            "{\"name\": \"a\", \"name\": \"b\",\n\"orbits\"",
        ),
        "bad.json",
    )
    .unwrap_err();
    assert_eq!(e.location, Some((1, 15)), "{e}");
    // Negative numbers are called negative in both formats.
    let e = Twisty::parse(&json.replace("[0, 0, 3]", "[0, -1, 0]"), "bad.json").unwrap_err();
    assert!(e.to_string().contains("orientation -1 is negative"), "{e}");
    assert_eq!(e.location.map(|l| l.0), Some(4), "{e}");
    let (at, text) = error(&format!("{head}Move X\nA\n2 1 3 4\n0 -1 0 0\nEnd\n"));
    assert_eq!(at, Some((10, 3)), "{text}");
    assert!(
        text.contains("orientation -1 of set A is negative"),
        "{text}"
    );
    // A move of too high an order for the half-turn metric: where it is.
    let order_67 = "Set A 1 67\nSolved\nA\n1\nEnd\nMove X\nA\n1\n1\nEnd\n";
    let def = Twisty::parse(order_67, "o67.tws").unwrap();
    let htm = Options {
        metric: TwistyMetric::Htm,
        moves: None,
        scramble: None,
    };
    let e = Twisty::new(def, &htm).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("o67.tws:6:1: move X has an order over 64"),
        "{e}"
    );
    assert!(e.to_string().contains("the qtm metric"), "{e}");
    let e = Twisty::parse("{\n\"orbits\": [\n", "bad.json").unwrap_err();
    assert!(
        e.location.is_some() && e.to_string().contains("not valid JSON"),
        "{e}"
    );
}

/// A puzzle whose key passes 2^64 many times over, with a coordinate of
/// each kind over 2^64 on its own (split into parts): 24 distinct pieces
/// whose moves are all even (24!/2), 40 pieces of 4 kinds (40!/10!^4), 48
/// pieces of 3 orientations whose twists keep their sum (48! 3^47), and 30
/// pieces of 2 orientations, half of them `?` (30! 2^15).
fn wide_tws() -> String {
    let line = |v: Vec<String>| v.join(" ") + "\n";
    let mut text = String::from("Name Wide\nSet A 24 1\nSet M 40 1\nSet O 48 3\nSet W 30 2\n");
    text += "Solved\nA\n";
    text += &line((1..=24).map(|p| p.to_string()).collect());
    text += "M\n";
    text += &line((0..40).map(|p| (p / 10 + 1).to_string()).collect());
    text += "O\n";
    text += &line((1..=48).map(|p| p.to_string()).collect());
    text += &line(vec!["0".to_string(); 48]);
    text += "W\n";
    text += &line((1..=30).map(|p| p.to_string()).collect());
    text += &line(
        (0..30)
            .map(|p| if p % 2 == 1 { "?" } else { "0" }.to_string())
            .collect(),
    );
    text += "End\n";
    // A move of one set: `perm` (1-based) and its twists, the other sets
    // left alone.
    type OneSet<'a> = (&'a str, &'a str, usize, Vec<usize>, Vec<u8>);
    let moves: [OneSet; 8] = [
        (
            "X",
            "A",
            24,
            [2, 3, 1].into_iter().chain(4..=24).collect(),
            vec![],
        ),
        (
            "Y",
            "A",
            24,
            [1].into_iter().chain(3..=24).chain([2]).collect(),
            vec![],
        ),
        ("MC", "M", 40, (2..=40).chain([1]).collect(), vec![]),
        (
            "MS",
            "M",
            40,
            [2, 1].into_iter().chain(3..=40).collect(),
            vec![],
        ),
        ("OC", "O", 48, (2..=48).chain([1]).collect(), {
            let mut t = vec![0; 48];
            (t[0], t[1]) = (1, 2);
            t
        }),
        (
            "OS",
            "O",
            48,
            [2, 1].into_iter().chain(3..=48).collect(),
            vec![0; 48],
        ),
        ("WC", "W", 30, (2..=30).chain([1]).collect(), {
            let mut t = vec![0; 30];
            t[0] = 1;
            t
        }),
        (
            "WS",
            "W",
            30,
            [2, 1].into_iter().chain(3..=30).collect(),
            vec![0; 30],
        ),
    ];
    for (name, set, _, perm, twist) in moves {
        text += &format!("Move {name}\n{set}\n");
        text += &line(perm.iter().map(|p| p.to_string()).collect());
        if !twist.is_empty() {
            text += &line(twist.iter().map(|t| t.to_string()).collect());
        }
        text += "End\n";
    }
    text
}

/// Breadth-first search over whole patterns to `depth`.
fn pattern_levels_to(t: &Twisty, start: &Pattern, depth: usize) -> (Vec<u64>, Vec<Pattern>) {
    let sets = &t.definition().sets;
    let mut seen = HashSet::new();
    seen.insert(start.clone());
    let mut frontier = vec![start.clone()];
    let mut all = vec![start.clone()];
    let mut levels = vec![1];
    while levels.len() <= depth {
        let mut next = Vec::new();
        for p in &frontier {
            for m in t.moves() {
                let q = p.apply(&m.transform, sets);
                if seen.insert(q.clone()) {
                    next.push(q.clone());
                    all.push(q);
                }
            }
        }
        levels.push(next.len() as u64);
        frontier = next;
    }
    (levels, all)
}

/// Levels to `depth` of `model`, on `threads`.
fn levels_to<M: Model>(model: &M, threads: usize, depth: u32) -> Vec<u64> {
    let r = Search::new(model)
        .threads(threads)
        .max_depth(Some(depth))
        .count()
        .unwrap();
    r.levels
}

#[test]
fn keys_over_2_to_the_64_count_solve_and_rank_every_pattern_exactly() {
    use reach::engine::Wide;
    use reach::puzzles::twisty::Wider;
    let def = Twisty::parse(&wide_tws(), "wide.tws").unwrap();
    for (metric, depth) in [
        (TwistyMetric::Htm, 2),
        (TwistyMetric::Qtm, 3),
        (TwistyMetric::Moves, 4),
    ] {
        let t = build(&def, metric, None);
        // Every coordinate is over 2^64 and split; the key takes words.
        assert!(t.coords().iter().all(|c| c.split.is_some()), "{metric:?}");
        assert!(t.key_bits() > 400.0, "{}", t.key_bits());
        let words = t.words();
        assert!(
            words <= (t.key_bits() / 60.0).ceil() as usize,
            "{words} words"
        );
        let (truth, patterns) = pattern_levels_to(&t, &def.solved, depth);
        let w16 = Wider::<16>::new(&t).unwrap();
        let w32 = Wider::<32>::new(&t).unwrap();
        assert!(Wider::<4>::new(&t).is_none(), "too narrow a key");
        for threads in [1, 3] {
            assert_eq!(levels_to(&w16, threads, depth as u32), truth, "{metric:?}");
        }
        assert_eq!(levels_to(&w32, 2, depth as u32), truth, "{metric:?}");
        // Each reached pattern has its own key, which gives it back.
        let mut keys = HashSet::new();
        for p in &patterns {
            let k: Wide<16> = t.key_of(p).unwrap();
            assert_eq!(t.pattern(k), *p, "{metric:?}");
            assert!(keys.insert(k), "two patterns, one key");
        }
    }
    // Far from solved: patterns after hundreds of random moves rank and
    // unrank to themselves, each to its own key.
    let t = build(&def, TwistyMetric::Htm, None);
    let sets = &def.sets;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut keys = HashSet::new();
    let mut p = def.solved.clone();
    for _ in 0..300 {
        for _ in 0..50 {
            let m = &t.moves()[rng.below(t.moves().len() as u64) as usize];
            p = p.apply(&m.transform, sets);
        }
        let k: Wide<16> = t.key_of(&p).unwrap();
        assert_eq!(t.pattern(k), p);
        keys.insert(k);
    }
    assert!(keys.len() > 290, "{} keys of 300 patterns", keys.len());
    // A short scramble is solved in as few moves, and the solution's
    // names undo it.
    let mut scrambled = t.clone();
    for scramble in ["X OC' WS", "MC Y' WC OS"] {
        scrambled = Twisty::new(
            def.clone(),
            &Options {
                metric: TwistyMetric::Qtm,
                scramble: Some(scramble.into()),
                ..Options::default()
            },
        )
        .unwrap();
        let model = Wider::<16>::new(&scrambled).unwrap();
        let solution = Search::new(&model).threads(2).solve().unwrap();
        let path = solution.path.unwrap();
        let names = scrambled.path_moves(&path);
        assert_eq!(names.len(), scramble.split(' ').count(), "{names:?}");
        let mut q = scrambled.pattern(path[0]);
        for name in &names {
            let m = scrambled.moves().iter().find(|m| m.name == *name).unwrap();
            q = q.apply(&m.transform, sets);
        }
        assert_eq!(q, def.solved, "{scramble}: {names:?}");
    }
    drop(scrambled);
}

#[test]
fn the_command_line_counts_solves_and_finds_the_hardest() {
    let cube = data("cube2.tws");
    let v = json_out(reach().args(["count", &cube, "--moves", "U,F,R", "--json", "-j", "2"]));
    assert_eq!(v["metric"], "htm");
    assert_eq!(v["states"], 3_674_160);
    assert_eq!(v["levels"], serde_json::json!(CUBE2_HTM));
    // A scramble and its solution: the solution undoes it.
    let v = json_out(reach().args(["solve", &cube, "--scramble", "R U2 F' R", "--json"]));
    assert_eq!(v["length"], 4);
    let moves: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let def = load("cube2.tws");
    let solved = Twisty::new(
        def.clone(),
        &Options {
            scramble: Some(format!("R U2 F' R {}", moves.join(" "))),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(solved.goal_impossible(), None);
    assert_eq!(
        solved.pattern(solved.start()),
        def.solved,
        "the moves {moves:?} do not undo the scramble"
    );
    reach()
        .args(["solve", &cube, "--scramble", "R U2 F' R"])
        .assert()
        .success()
        .stdout("4\nR' F U2 R'\n");
    // The hardest positions: the table's last level.
    reach()
        .args([
            "hardest", &cube, "--moves", "U,F,R", "--metric", "qtm", "--json",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("\"distance\":14")
                .and(predicate::str::contains("\"count\":276")),
        );
    // The clocks file's antipode, 27 moves away: the built-in's (3 12 3 /
    // 12 9 12 / 3 12 3 o'clock).
    reach()
        .args([
            "count",
            &data("clocks.tws"),
            "--metric",
            "moves",
            "--antipodes",
        ])
        .assert()
        .success()
        .stdout("CLOCKS\n1 2 3 4 5 6 7 8 9\n1 0 1 0 3 0 1 0 1\n\n262144\n");
    reach()
        .args(["show", &data("cube2.kpuzzle.json")])
        .assert()
        .success()
        .stdout(predicate::str::contains("key space: 88179840"));
    reach()
        .args(["show", &cube, "--moves", "U,F,R", "--metric", "qtm"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("key space: 3674160").and(predicate::str::contains(
                "6 moves a position: U U' F F' R R'",
            )),
        );
}

#[test]
fn options_that_do_not_fit_are_refused() {
    let cube = data("cube2.tws");
    for (args, message) in [
        (
            vec!["count", &cube, "--metric", "slide"],
            "sliding-block metric",
        ),
        (
            vec!["count", "klotski", "--metric", "htm"],
            "twisty puzzle's metric",
        ),
        (vec!["count", "klotski", "--moves", "U"], "--moves"),
        (vec!["count", &cube, "--moves", "U,Q"], "has no move \"Q\""),
        (vec!["solve", &cube], "starts solved"),
        (
            vec!["solve", &cube, "--scramble", "R Q"],
            "\"Q\" is not a move",
        ),
        (
            vec!["solve", "klotski", "--scramble", "R"],
            "--scramble applies to twisty",
        ),
        (
            vec!["hardest", &data("clocks.tws"), "--metric", "moves"],
            "inverse is not a move",
        ),
    ] {
        reach()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    // A start that a kept invariant separates from the goal: exit 1, and
    // which invariant, without a search.
    let dir = TempDir::new("twisty-invariants");
    std::fs::create_dir_all(&dir.0).unwrap();
    for (name, text, message) in [
        (
            "parity.tws",
            "Set A 4 1\nSolved\nA\n1 2 3 4\nEnd\nScrambleState\nA\n2 1 3 4\nEnd\nMove X\nA\n2 3 1 4\nEnd\nMove Y\nA\n1 3 4 2\nEnd\n",
            "an odd permutation away",
        ),
        (
            "sum.tws",
            "Set A 3 3\nSolved\nA\n1 2 3\n0 0 0\nEnd\nScrambleState\nA\n1 2 3\n1 0 0\nEnd\nMove X\nA\n2 3 1\n1 2 0\nEnd\n",
            "every move keeps that sum",
        ),
    ] {
        let file = dir.0.join(name);
        std::fs::write(&file, text).unwrap();
        reach()
            .arg("solve")
            .arg(&file)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
    }
    // A scramble outside the generated group cannot be solved: exit 1.
    reach()
        .args(["solve", &cube, "--moves", "U,F,R", "--scramble", "L"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no solution"));
}

#[test]
fn checkpointed_counts_resume_to_the_same_table() {
    let dir = TempDir::new("twisty-checkpoint");
    let cp = dir.0.join("cp");
    let cp = cp.to_str().unwrap();
    let cube = data("cube2.tws");
    reach()
        .args([
            "count",
            &cube,
            "--moves",
            "U,F,R",
            "--checkpoint",
            cp,
            "--max-depth",
            "6",
        ])
        .assert()
        .code(0);
    let v = json_out(reach().args(["resume", cp, "--max-depth", "1000", "--json"]));
    assert_eq!(v["levels"], serde_json::json!(CUBE2_HTM));
}

#[test]
fn slice_moves_may_start_with_a_digit() {
    // twsearch names slice moves 2R, 3Rw: the 2x2x2 with three moves so
    // named is the same puzzle, in every metric, from the same scramble.
    let text = std::fs::read_to_string(data("cube2.tws")).unwrap();
    let sliced = text
        .replace("Move U\n", "Move 2U\n")
        .replace("Move F\n", "Move 3Fw\n")
        .replace("Move R\n", "Move 2R\n");
    let plain = Twisty::parse(&text, "cube2.tws").unwrap();
    let named = Twisty::parse(&sliced, "sliced.tws").unwrap();
    for metric in [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves] {
        for (scramble, same) in [(None, None), (Some("2U2 3Fw' 2R"), Some("U2 F' R"))] {
            let options = |moves: &str, scramble: Option<&str>| Options {
                metric,
                moves: Some(moves.split(',').map(String::from).collect()),
                scramble: scramble.map(String::from),
            };
            let a = Twisty::new(plain.clone(), &options("U,F,R", same)).unwrap();
            let b = Twisty::new(named.clone(), &options("2U,3Fw,2R", scramble)).unwrap();
            assert_eq!(
                count(&a, 2, VisitedKind::Auto),
                count(&b, 2, VisitedKind::Auto),
                "{metric:?}"
            );
            if scramble.is_some() {
                // The moves of a solution carry the names, powers after them.
                let path = Search::new(&b).threads(2).solve().unwrap().path.unwrap();
                let names: Vec<String> = b.path_moves(&path);
                assert!(
                    !names.is_empty()
                        && names
                            .iter()
                            .all(|n| ["2U", "3Fw", "2R"].iter().any(|m| n.starts_with(m))),
                    "{names:?}"
                );
            }
        }
    }
    // KPuzzle files take the same names.
    let json = std::fs::read_to_string(data("cube2.kpuzzle.json")).unwrap();
    assert!(json.contains("\"U\":"));
    let def = Twisty::parse(&json.replacen("\"U\":", "\"2U\":", 1), "sliced.json").unwrap();
    assert!(def.moves.iter().any(|m| m.name == "2U"));
    // A name with ' is still refused, where it is.
    let e = Twisty::parse(&text.replace("Move U\n", "Move U'\n"), "bad.tws").unwrap_err();
    assert!(e.to_string().contains("' marks an inverse"), "{e}");
}

/// twsearch's tables of tests/data/twists.tws (twsearch v0, branch
/// forked-cpp-main, built with `make -f Makefiles/cpp.Makefile`): a move
/// that cycles twisted pieces, where reading ksolve's twists (written at
/// the position a piece comes from) as the state's (at the position it
/// goes to) gives another puzzle, of 1303 states.
#[test]
fn move_twists_are_read_as_ksolve_and_twsearch_read_them() {
    let def = load("twists.tws");
    // `twsearch -g` and `twsearch -q -g`.
    for (metric, levels) in [
        (TwistyMetric::Htm, vec![1, 13, 30, 4]),
        (TwistyMetric::Qtm, vec![1, 4, 10, 23, 10]),
    ] {
        let t = build(&def, metric, None);
        let report = Search::new(&t).threads(2).count().unwrap();
        assert_eq!(report.levels, levels, "{metric:?}");
    }
    // The same puzzle in twsearch's newer forms: StartState and
    // MoveTransformation count from 0, and a MoveTransformation's twists
    // are those each position receives.
    let newer = "Name twists\nSet A 4 3\nSet B 3 2\nStartState\nA\n0 1 2 3\n0 0 0 0\nB\n0 1 2\n0 0 0\nEnd\n\
                 MoveTransformation X\nA\n1 2 0 3\n2 0 1 0\nB\n1 0 2\n0 1 0\nEnd\n\
                 MoveTransformation Y\nA\n0 2 3 1\n0 0 2 1\nEnd\n";
    let newer = Twisty::parse(newer, "newer.tws").unwrap();
    assert_eq!(newer.solved, def.solved);
    assert_eq!(newer.moves, def.moves);
}

#[test]
fn twsearch_s_wildcards_illegal_positions_sequences_and_rotations_count_as_patterns_do() {
    let wild = "Name wild\nSet A 5 3\nSet B 3 2\nSolved\nA\n1 2 3 4 5\n0 ? 0 ? 0\nB\n1 1 2\n? ? 0\nEnd\n\
                Move U\nA\n2 3 4 5 1\n0 1 0 2 0\nB\n2 3 1\n1 0 1\nEnd\nMove R\nA\n1 3 2 4 5\n2 0 1 0 0\nEnd\n";
    let illegal = "Name bandaged\nSet A 6 1\nSet C 2 3\nSolved\nA\n1 2 3 4 5 6\nEnd\n\
                   Move U\nA\n2 3 4 5 6 1\nC\n2 1\n1 2\nEnd\nMove R\nA\n2 1 3 4 5 6\nEnd\n\
                   Illegal A 1 3 4\nIllegal A 2 6\n";
    let sequence = "Name seq\nSet A 4 2\nSolved\nA\n1 2 3 4\nEnd\nMove L\nA\n2 3 1 4\n1 0 0 0\nEnd\n\
                    Move U\nA\n1 3 4 2\nEnd\nMoveSequence R Fv L Fv\nMove Fv\nA\n4 3 2 1\nEnd\nMoveAlias LL L2\n";
    // Both at once: the check reads the arrangement part of a wildcard
    // orbit's combined coordinate.
    let wild_illegal = format!("{wild}Illegal A 2 4 5\nIllegal B 1 2\n");
    for (name, text) in [
        ("wild", wild),
        ("illegal", illegal),
        ("sequence", sequence),
        ("wild-illegal", wild_illegal.as_str()),
    ] {
        let def = Twisty::parse(text, &format!("{name}.tws")).unwrap();
        for metric in [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves] {
            let t = build(&def, metric, None);
            let truth = pattern_levels(&t, &def.solved).0;
            let what = format!("{name} {metric:?}");
            assert_eq!(reference::level_sizes(&t), truth, "{what}: the oracle");
            assert_eq!(count(&t, 2, VisitedKind::Auto), truth, "{what}");
            assert_eq!(count(&t, 2, VisitedKind::Dense), truth, "{what}: dense");
            if t.reversible() {
                assert_eq!(
                    count(&t, 3, VisitedKind::Frontier),
                    truth,
                    "{what}: frontier"
                );
            }
        }
    }
    // The Illegal lines do cut the wildcard puzzle's positions.
    let total = |text: &str| -> u64 {
        let def = Twisty::parse(text, "t.tws").unwrap();
        pattern_levels(&build(&def, TwistyMetric::Htm, None), &def.solved)
            .0
            .iter()
            .sum()
    };
    let (all, legal) = (total(wild), total(&wild_illegal));
    assert!(0 < legal && legal < all, "{legal} of {all}");
    // Wildcards leave orientations out of the key: the pieces of A that
    // count (1, 3, 5) and B's piece 2, each with its orientations.
    let def = Twisty::parse(wild, "wild.tws").unwrap();
    let t = build(&def, TwistyMetric::Htm, None);
    assert!(t.key_space() <= 120 * 27 * 3 * 2, "{}", t.key_space());
    assert!(
        t.render(t.start()).contains("0 ? 0 ? 0"),
        "{}",
        t.render(t.start())
    );
    // Rotations are no moves of the search; a sequence is one; an alias
    // names a move for --moves.
    let def = Twisty::parse(sequence, "seq.tws").unwrap();
    assert_eq!(def.rotations.len(), 1);
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["L", "U", "R"]);
    let (l, fv) = (&def.moves[0].transform, &def.rotations[0].transform);
    assert_eq!(
        def.moves[2].transform,
        fv.then(l, &def.sets).then(fv, &def.sets)
    );
    let alias = build(&def, TwistyMetric::Htm, Some("LL,U"));
    let power = build(&def, TwistyMetric::Htm, Some("L2,U"));
    assert_eq!(
        count(&alias, 1, VisitedKind::Auto),
        count(&power, 1, VisitedKind::Auto)
    );
    assert_eq!(alias.moves()[0].name, "LL");
    let rotation = Twisty::new(
        def,
        &Options {
            moves: Some(vec!["Fv".into()]),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(rotation.to_string().contains("is a rotation"), "{rotation}");
}

/// The distance from `from` to `to` over whole patterns, by the moves of
/// `t` that enter no position its file's Illegal lines forbid.
fn pattern_distance(t: &Twisty, from: &Pattern, to: &Pattern) -> Option<usize> {
    let (levels, all) = pattern_levels(t, from);
    let at = all.iter().position(|p| p == to)? as u64;
    let mut before = 0;
    levels.iter().position(|&n| {
        before += n;
        at < before
    })
}

/// Plays `names` from `from` by the moves of `t` (named as a solution
/// names them), refusing a step onto a forbidden position; the pattern
/// reached.
pub(crate) fn replay(t: &Twisty, from: &Pattern, names: &[String]) -> Result<Pattern, String> {
    let def = t.definition();
    let mut p = from.clone();
    for (i, name) in names.iter().enumerate() {
        let m = t
            .moves()
            .iter()
            .find(|m| &m.name == name)
            .ok_or_else(|| format!("step {i}: no move named {name:?}"))?;
        p = p.apply(&m.transform, &def.sets);
        if let Some(&(s, pos, piece)) = def
            .illegal
            .iter()
            .find(|&&(s, pos, piece)| p.pieces[s][pos] == piece)
        {
            return Err(format!(
                "step {i} ({name}) enters a forbidden position: set {s} position {pos} piece {piece}"
            ));
        }
    }
    Ok(p)
}

/// A random walk of `steps` of the file's own moves from solved that
/// never enters a forbidden position: the scramble, and where it ends.
pub(crate) fn legal_scramble(def: &Definition, rng: &mut Rng, steps: usize) -> (String, Pattern) {
    let mut p = def.solved.clone();
    let mut names = Vec::new();
    for _ in 0..steps {
        let m = &def.moves[rng.below(def.moves.len() as u64) as usize];
        let q = p.apply(&m.transform, &def.sets);
        if def
            .illegal
            .iter()
            .all(|&(s, pos, piece)| q.pieces[s][pos] != piece)
        {
            p = q;
            names.push(m.name.clone());
        }
    }
    (names.join(" "), p)
}

#[test]
fn every_printed_twisty_solution_replays_to_solved_in_the_fewest_moves() {
    // Random files with Illegal lines, a file with sequences and one with
    // wildcards, in three metrics and with move subsets: each solution,
    // named as `reach solve` prints it, is played on whole patterns.
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut defs = Vec::new();
    while defs.len() < 24 {
        let mut def = random_definition(&mut rng);
        // One or two forbidden (set, position, piece), never the solved one.
        for _ in 0..1 + rng.below(2) {
            let s = rng.below(def.sets.len() as u64) as usize;
            let pos = rng.below(def.sets[s].size as u64) as usize;
            let piece = def.solved.pieces[s][rng.below(def.sets[s].size as u64) as usize];
            if def.solved.pieces[s][pos] != piece {
                def.illegal.push((s, pos, piece));
            }
        }
        if !def.illegal.is_empty() {
            // A subset of the moves where there are three.
            let subset = (def.moves.len() == 3 && defs.len() % 2 == 0).then_some("U,F");
            defs.push((def, subset));
        }
    }
    let sequence = "Name seq\nSet A 4 2\nSolved\nA\n1 2 3 4\nEnd\nMove L\nA\n2 3 1 4\n1 0 0 0\nEnd\n\
                    Move U\nA\n1 3 4 2\nEnd\nMoveSequence R Fv L Fv\nMove Fv\nA\n4 3 2 1\nEnd\n\
                    Illegal A 1 4\n";
    let seq = Twisty::parse(sequence, "seq.tws").unwrap();
    defs.push((seq.clone(), None));
    defs.push((seq.clone(), Some("L,R")));
    let (mut solved, mut nonempty) = (0, 0);
    for (case, (def, moves)) in defs.iter().enumerate() {
        for metric in [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves] {
            for _ in 0..3 {
                let mut scrambled = def.clone();
                if let Some(only) = moves {
                    // A subset's scramble uses the subset's moves only.
                    scrambled
                        .moves
                        .retain(|m| only.split(',').any(|n| n == m.name));
                }
                let (scramble, start) = legal_scramble(&scrambled, &mut rng, 8);
                let t = Twisty::new(
                    def.clone(),
                    &Options {
                        metric,
                        moves: moves.map(|m| m.split(',').map(String::from).collect()),
                        scramble: Some(scramble.clone()),
                    },
                )
                .unwrap();
                let what = format!("case {case} {metric:?} scramble {scramble:?}");
                let solution = Search::new(&t).threads(2).solve().unwrap();
                let Some(path) = solution.path else {
                    // Illegal positions may wall the start off.
                    assert_eq!(
                        pattern_distance(&t, &start, &def.solved),
                        None,
                        "{what}: no path found"
                    );
                    continue;
                };
                let names = t.path_moves(&path);
                let end = replay(&t, &start, &names).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(end, def.solved, "{what}: {names:?} does not solve");
                assert_eq!(
                    Some(names.len()),
                    pattern_distance(&t, &start, &def.solved),
                    "{what}: {names:?} is not the fewest moves"
                );
                solved += 1;
                nonempty += usize::from(!names.is_empty());
            }
        }
    }
    assert!(
        nonempty > solved / 2,
        "{nonempty} of {solved} were solved already"
    );
}

#[test]
fn sequences_and_aliases_named_like_rotations_are_rotations_as_twsearch_reads_them() {
    let base = "Name seq\nSet A 4 2\nSolved\nA\n1 2 3 4\nEnd\nMove L\nA\n2 3 1 4\n1 0 0 0\nEnd\n\
                Move U\nA\n1 3 4 2\nEnd\n";
    // `Av` and `x` are sequences of real moves; read as moves they would
    // add generators (and positions are the same, but the tables differ).
    let named = format!("{base}MoveSequence Av L U\nMoveAlias x L\nMoveSequence y2 U U\n");
    let plain = Twisty::parse(base, "plain.tws").unwrap();
    let def = Twisty::parse(&named, "named.tws").unwrap();
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["L", "U"]);
    let rotations: Vec<&str> = def.rotations.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(rotations, ["Av", "x", "y2"]);
    for metric in [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves] {
        assert_eq!(
            count(&build(&def, metric, None), 1, VisitedKind::Auto),
            count(&build(&plain, metric, None), 1, VisitedKind::Auto),
            "{metric:?}"
        );
    }
    // A scramble may still name them.
    let scrambled = Twisty::new(
        def,
        &Options {
            scramble: Some("Av x".into()),
            ..Options::default()
        },
    )
    .unwrap();
    assert_ne!(
        scrambled.start(),
        build(&plain, TwistyMetric::Htm, None).start()
    );
}

#[test]
fn thousands_of_sequences_in_reverse_order_resolve_in_one_pass() {
    // S0 = L U, S1 = S0 U, ... each line naming the one after it in the
    // file: 2,000 lines took 27 s when each pass resolved one line.
    let n = 2000;
    let mut text =
        "Name chain\nSet A 4 2\nSolved\nA\n1 2 3 4\nEnd\nMove L\nA\n2 3 1 4\n1 0 0 0\nEnd\n\
                    Move U\nA\n1 3 4 2\nEnd\n"
            .to_string();
    for i in (1..n).rev() {
        text += &format!("MoveSequence S{i} S{} U\n", i - 1);
    }
    text += "MoveSequence S0 L U\n";
    let def = Twisty::parse(&text, "chain.tws").unwrap();
    assert_eq!(def.moves.len(), 2 + n);
    // S(k) is L U^(k+1): each checked against the moves it is made of.
    let (l, u) = (&def.moves[0].transform, &def.moves[1].transform);
    for m in &def.moves[2..] {
        let k: u32 = m.name[1..].parse().unwrap();
        assert_eq!(
            m.transform,
            l.then(&u.power(k + 1, &def.sets), &def.sets),
            "{}",
            m.name
        );
    }
    // A cycle is named, with its lines.
    let cycle = "Name c\nSet A 2 1\nSolved\nA\n1 2\nEnd\nMove U\nA\n2 1\nEnd\n\
                 MoveSequence A B U\nMoveSequence B C\nMoveSequence C A2\n";
    let e = Twisty::parse(cycle, "cycle.tws").unwrap_err().to_string();
    assert!(e.contains("refer to each other in a cycle: A, B, C"), "{e}");
}

/// OEIS A080601: the 3x3x3 cube's positions at each distance, half-turn
/// metric (to depth 5 here), and A080846: the quarter-turn metric.
const CUBE3_HTM: [u64; 6] = [1, 18, 243, 3240, 43239, 574908];
const CUBE3_QTM: [u64; 6] = [1, 12, 114, 1068, 10011, 93840];

#[test]
fn the_3x3x3_past_2_to_the_64_counts_its_published_table_to_a_depth() {
    use reach::puzzles::twisty::Wider;
    let def = load("cube3.tws");
    for (metric, truth) in [
        (TwistyMetric::Htm, &CUBE3_HTM[..]),
        (TwistyMetric::Qtm, &CUBE3_QTM[..]),
    ] {
        let t = build(&def, metric, None);
        assert_eq!(t.words(), 2);
        assert_eq!(t.group_order(), Some(43_252_003_274_489_856_000));
        let model = Wider::<2>::new(&t).unwrap();
        for threads in [1, 2] {
            assert_eq!(levels_to(&model, threads, 5), truth, "{metric:?}");
        }
        let wider = Wider::<4>::new(&t).unwrap();
        assert_eq!(levels_to(&wider, 2, 5), truth, "{metric:?}");
        // As the model of one-word keys it is refused, saying what to
        // search instead, before a key is made.
        let e = Search::new(&t).max_depth(Some(2)).count().unwrap_err();
        assert!(e.to_string().contains("Wider::<N>"), "{e}");
    }
}

#[test]
fn a_file_with_puzzlegeometry_s_generic_name_is_named_by_its_file() {
    let text = std::fs::read_to_string(data("cube3.tws"))
        .unwrap()
        .replace("Name 3x3x3", "Name PuzzleGeometryPuzzle");
    let def = Twisty::parse(&text, "samples/main/megaminx-like.tws").unwrap();
    assert_eq!(def.name, "megaminx-like");
    // A name of its own is kept.
    assert_eq!(load("cube3.tws").name, "3x3x3");
}

#[test]
fn a_wide_puzzle_refuses_the_stores_of_one_word_keys_by_their_width() {
    let cube = data("cube3.tws");
    for flags in [&["--visited", "bitmap"][..], &["--visited", "dense"][..]] {
        reach()
            .args(["count", &cube, "--max-depth", "3"])
            .args(flags)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("keys are over 64 bits"))
            .stderr(predicate::str::contains("18446744073709551615").not());
    }
}

#[test]
fn a_wide_puzzle_counts_on_disk_and_resumes_its_checkpoint() {
    // The 3x3x3 to depth 5 (OEIS A080601) with its levels on disk, then
    // checkpointed, stopped by --max-states and resumed.
    let cube = data("cube3.tws");
    let dir = TempDir::new("wide-disk");
    let levels = serde_json::json!([1, 18, 243, 3240, 43239, 574908]);
    let spill = dir.0.join("spill");
    let v = json_out(
        reach()
            .args(["count", &cube, "--max-depth", "5", "--json", "--spill"])
            .arg(&spill),
    );
    assert_eq!(v["levels"], levels, "{v}");
    // A key of two words takes 16 bytes as keys; coded word by word, the
    // high word's gap and the low word's 38 bits (under 8 bytes).
    assert_eq!(v["key_bytes"], 16, "{v}");
    assert!(v["disk_bytes_per_state"].as_f64().unwrap() < 8.0, "{v}");
    assert!(!spill.exists(), "the spill directory is removed");
    // In memory the levels are coded runs by default, or keys as asked:
    // the same levels either way.
    let v = json_out(reach().args(["count", &cube, "--max-depth", "5", "--json"]));
    assert_eq!(v["levels"], levels, "{v}");
    assert!(v["memory_bytes_per_state"].as_f64().unwrap() < 8.0, "{v}");
    assert!(v["disk_bytes_per_state"].is_null(), "{v}");
    assert!(v["store"].as_str().unwrap().contains("coded runs"), "{v}");
    let v = json_out(reach().args([
        "count",
        &cube,
        "--max-depth",
        "5",
        "--json",
        "--plain-levels",
    ]));
    assert_eq!(v["levels"], levels, "{v}");
    assert!(v["memory_bytes_per_state"].is_null(), "{v}");
    assert!(!v["store"].as_str().unwrap().contains("coded"), "{v}");
    // Coded levels under a memory limit they cannot keep stop before the
    // level that would pass it (exit 3), with the complete ones.
    let out = reach()
        .args(["count", &cube, "--memory-limit", "150M", "--json"])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["complete"], false, "{v}");
    assert!(
        v["stop_reason"]
            .as_str()
            .unwrap()
            .contains("--memory-limit"),
        "{v}"
    );
    let complete = v["levels"].as_array().unwrap().len();
    assert!((4..=6).contains(&complete), "{v}");
    assert_eq!(
        v["levels"].as_array().unwrap()[..],
        levels.as_array().unwrap()[..complete],
        "{v}"
    );
    assert!(v["peak_rss_bytes"].as_u64().unwrap() < 150 << 20, "{v}");
    let cp = dir.0.join("cp");
    reach()
        .args([
            "count",
            &cube,
            "--max-depth",
            "5",
            "--max-states",
            "50000",
            "--checkpoint",
        ])
        .arg(&cp)
        .assert()
        .code(3);
    let v = json_out(
        reach()
            .arg("resume")
            .arg(&cp)
            .args(["--max-states", "1000000", "--json"]),
    );
    assert_eq!(v["levels"], levels, "{v}");
    // Stopped at the depth asked, it stays to go deeper.
    assert!(cp.join("checkpoint.toml").exists());
}

#[test]
fn show_json_gives_a_split_coordinate_s_size_exactly() {
    let dir = TempDir::new("wide-show");
    std::fs::create_dir_all(&dir.0).unwrap();
    let path = dir.0.join("wide.tws");
    std::fs::write(&path, wide_tws()).unwrap();
    let v = json_out(reach().args(["show", path.to_str().unwrap(), "--json"]));
    let sizes: Vec<&serde_json::Value> = v["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["size"])
        .collect();
    // 24 pieces whose moves are all even: 24!/2, past a JSON number.
    assert!(
        sizes.contains(&&serde_json::json!("310224200866619719680000")),
        "{sizes:?}"
    );
    assert!(v["key_words"].as_u64().unwrap() > 2, "{v}");
}

#[test]
fn the_store_is_chosen_by_its_estimated_cost_where_the_group_s_order_is_known() {
    // The 3x3x3's half-turn group: 663,552 positions in 7,962,624 keys
    // (8.3 %, not dense), where two bits a key (2 MiB) beat a bitmap and
    // levels (about 12 MiB).
    let cube = data("cube3.tws");
    let moves = ["--moves", "U2,D2,R2,L2,F2,B2"];
    reach()
        .args(["show", &cube])
        .args(moves)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "store (count): dense: the smallest store (the bitmap store's levels of its 663552 states: about 12 MiB)",
        ));
    let v = json_out(reach().args(["count", &cube, "--json"]).args(moves));
    assert_eq!(v["visited"], "dense", "{v}");
    assert_eq!(v["states"], 663_552, "{v}");
    let bitmap = json_out(
        reach()
            .args(["count", &cube, "--json", "--visited", "bitmap"])
            .args(moves),
    );
    assert_eq!(v["levels"], bitmap["levels"]);
    // With U and R, 73,483,200 positions in 881,798,400 keys (8.3 %, past
    // a bitmap): two bits a key (211 MiB) beat sorted levels (about 1 GiB).
    reach()
        .args(["show", &cube, "--moves", "U,R"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "store (count): dense: the smallest store (the frontier store's levels of its 73483200 states: about 1122 MiB): two bits for each of 881798400 keys (211 MiB)",
        ));
    // With U and F only, 73,483,200 positions in 56,435,097,600 keys: two
    // bits a key (13 GiB) lose to sorted levels (about 1 GiB), and `show`
    // says so.
    reach()
        .args(["show", &cube, "--moves", "U,F"])
        .assert()
        .success()
        .stdout(predicate::str::contains("store (count): frontier:").and(
            predicate::str::contains(
                "the keys are sparse: two bits for each of 56435097600 keys (13456 MiB) against the frontier store's levels of its 73483200 states: about 1122 MiB",
            ),
        ));
}

#[test]
fn a_twisty_solution_page_has_its_moves_and_the_gods_number_table() {
    let dir = std::env::temp_dir().join(format!("reach-twisty-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("cube2.html");
    let solved = crate::json_out(
        crate::reach()
            .args([
                "solve",
                "tests/data/cube2.tws",
                "--scramble",
                "R U F",
                "--json",
                "--html",
            ])
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Content-Security-Policy"));
    assert!(html.contains(&format!("2x2x2: {} htm moves", solved["length"])));
    let moves = solved["moves"].as_array().unwrap();
    let data = format!(
        "\"moves\":[{}]",
        moves
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert!(html.contains(&data), "{data}");
    // The table is a count from solved: its first rows are `count`'s.
    let count = crate::json_out(crate::reach().args([
        "count",
        "tests/data/cube2.tws",
        "--max-depth",
        "4",
        "--json",
    ]));
    let mut total = 0;
    for (d, n) in count["levels"].as_array().unwrap().iter().enumerate() {
        total += n.as_u64().unwrap();
        assert!(
            html.contains(&format!(
                "<tr><td>{d}</td><td>{n}</td><td>{total}</td></tr>"
            )),
            "depth {d}"
        );
    }
    assert!(html.contains("<svg"));
    crate::reach()
        .args(["solve", "tests/data/cube2.tws", "--scramble", "R", "--svg"])
        .arg(dir.join("x.svg"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--html FILE writes a page"));
    let _ = std::fs::remove_dir_all(&dir);
}
