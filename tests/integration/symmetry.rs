//! Symmetry: a twisty puzzle searched one class of symmetric positions at
//! a time gives every level, in positions, as the search of every
//! position does, in three metrics; its classes are the orbits of its
//! conjugations; a symmetry that does not map the moves, the start or the
//! Illegal lines onto themselves is never used; solutions walk the real
//! start; the command line, checkpoints and the disk store take it. The
//! same for Klotski under its board's mirror (the sliding-block model's
//! own tests check every motion and random mirrored boards).

use std::collections::{BTreeSet, HashSet};

use reach::engine::{Key, Model, Search, Spill, VisitedKind, Wide, positions_of, reference};
use reach::puzzles::builtin;
use reach::puzzles::sliding::{BoardSymmetry, SymmetricSliding};
use reach::puzzles::twisty::{
    Definition, Mirrors, MoveDef, Options, Pattern, Symmetric, Symmetry, Transform, Twisty,
    TwistyMetric, inverse,
};

use crate::spill::TempDir;
use crate::twisty::{
    Rng, build, data, legal_scramble, load, pattern_levels, random_definition, replay,
};
use crate::{checkpoint_at, json_out, reach, replay};

const METRICS: [TwistyMetric; 3] = [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves];

/// OEIS A080601: the 3x3x3 in the half-turn metric, to depth 7.
const CUBE3_HTM: [u64; 8] = [1, 18, 243, 3240, 43239, 574908, 7618438, 100803036];

/// The same positions up to the cube's 48 symmetries (rotations and
/// mirror images) and the inverse, as cube20.org tabulates them.
const CUBE3_M_INV: [u64; 8] = [1, 2, 8, 48, 509, 6198, 80178, 1053077];

/// The levels (positions) and classes of `t` under `sym` with keys `K`,
/// to `depth`.
fn symmetric_levels<K: Key>(
    t: &Twisty,
    sym: &Symmetry,
    threads: usize,
    kind: VisitedKind,
    depth: Option<u32>,
) -> (Vec<u64>, Vec<u64>) {
    let m = Symmetric::<K>::new(t, sym).expect("the keys fit");
    let r = Search::new(&m)
        .threads(threads)
        .visited(kind)
        .max_depth(depth)
        .count()
        .unwrap();
    (
        r.levels,
        r.class_levels.expect("a search of classes says so"),
    )
}

/// The levels of `t` searched position by position, to `depth`.
fn plain_levels(t: &Twisty, depth: Option<u32>) -> Vec<u64> {
    fn levels<M: Model>(m: &M, depth: Option<u32>) -> Vec<u64> {
        let kind = if m.reversible() {
            VisitedKind::Frontier
        } else {
            VisitedKind::DashMap
        };
        let r = Search::new(m)
            .threads(2)
            .visited(kind)
            .max_depth(depth)
            .count()
            .unwrap();
        assert_eq!(r.class_levels, None, "no classes without symmetry");
        r.levels
    }
    match t.words() {
        1 => levels(t, depth),
        _ => levels(&t_wide(t), depth),
    }
}

#[test]
fn cubes_and_the_skewb_count_as_many_positions_with_their_rotations_in_three_metrics() {
    for (file, order, depth) in [
        ("cube2-rotations.tws", 24, 6),
        ("cube3-rotations.tws", 24, 4),
        ("skewb-rotations.tws", 24, 5),
    ] {
        let def = load(file);
        for metric in METRICS {
            let t = build(&def, metric, None);
            let sym = Symmetry::of(&t);
            // Every piece is at home in the solved position: where every
            // move's inverse is a move, a class holds the inverses too.
            assert_eq!(
                sym.inverse(),
                metric != TwistyMetric::Moves,
                "{file} {metric:?}"
            );
            // Mirror images turn each move into an inverse one: where the
            // inverses are moves, a class holds them too.
            let mirrors = metric != TwistyMetric::Moves;
            let order = order << u32::from(sym.inverse()) << u32::from(mirrors);
            assert_eq!(sym.order(), order, "{file} {metric:?}: {}", sym.describe());
            assert_eq!(
                matches!(sym.mirrors(), Mirrors::Found { .. }),
                mirrors,
                "{file} {metric:?}: {}",
                sym.describe()
            );
            let plain = plain_levels(&t, Some(depth));
            for (threads, kind) in [(1, VisitedKind::Auto), (2, VisitedKind::Auto)]
                .into_iter()
                .chain(t.reversible().then_some((3, VisitedKind::Frontier)))
            {
                let (levels, classes) = match sym.key_words() {
                    1 => symmetric_levels::<u64>(&t, &sym, threads, kind, Some(depth)),
                    _ => symmetric_levels::<Wide<2>>(&t, &sym, threads, kind, Some(depth)),
                };
                let what = format!("{file} {metric:?} {threads} threads {kind:?}");
                assert_eq!(levels, plain, "{what}");
                for (d, (&c, &p)) in classes.iter().zip(&levels).enumerate() {
                    // Each class holds at most `order` positions.
                    assert!(c <= p && c * order as u64 >= p, "{what}: depth {d}");
                }
                if depth >= 5 {
                    // Far from the start most positions have no symmetry:
                    // the classes are few.
                    assert!(
                        classes[depth as usize] * 10 < plain[depth as usize],
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_3x3x3_counts_its_published_table_to_depth_6_with_its_rotations() {
    let t = build(&load("cube3-rotations.tws"), TwistyMetric::Htm, None);
    // The rotations, their mirror images and the inverse: cube20.org's
    // classes.
    let sym = Symmetry::of(&t);
    assert_eq!(sym.order(), 96, "{}", sym.describe());
    let (levels, classes) = symmetric_levels::<Wide<2>>(&t, &sym, 2, VisitedKind::Auto, Some(6));
    assert_eq!(levels, CUBE3_HTM[..7]);
    assert_eq!(classes, CUBE3_M_INV[..7]);
    // The classes of twsearch's -F (its 24 rotations and the inverse),
    // exactly: its `cnt` column on the same file.
    let sym = Symmetry::of_rotations(&t);
    let (levels, classes) = symmetric_levels::<Wide<2>>(&t, &sym, 2, VisitedKind::Auto, Some(6));
    assert_eq!(levels, CUBE3_HTM[..7]);
    assert_eq!(classes, [1, 2, 10, 75, 954, 12097, 159473]);
    // Under the rotations alone, about twice as many.
    let (levels, classes) = symmetric_levels::<Wide<2>>(
        &t,
        &Symmetry::of_rotations(&t).without_inverse(&t),
        2,
        VisitedKind::Auto,
        Some(6),
    );
    assert_eq!(levels, CUBE3_HTM[..7]);
    assert_eq!(classes, [1, 3, 15, 144, 1845, 24090, 318030]);
}

/// `def` with a random rotation of its places and every conjugate of its
/// moves by it, so that the rotation maps the moves onto themselves; the
/// solved pieces all told apart in half of the cases (the relabelling
/// then always exists).
fn with_rotation(rng: &mut Rng) -> Definition {
    let mut def = random_definition(rng);
    let sets = def.sets.clone();
    let mut r = Transform::identity(&sets);
    for (s, set) in sets.iter().enumerate() {
        let perm = &mut r.perm[s];
        for i in (1..set.size).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        if rng.below(2) == 0 {
            let o = u64::from(set.orientations);
            for d in r.ori[s].iter_mut() {
                *d = rng.below(o) as u8;
            }
        }
    }
    if rng.below(2) == 0 {
        for (s, set) in sets.iter().enumerate() {
            def.solved.pieces[s] = (0..set.size as u16).collect();
        }
    }
    let order = r.order(&sets, 10_000).expect("a permutation has an order");
    let r_inv = inverse(&r, &sets);
    let mut seen = HashSet::new();
    let mut moves = Vec::new();
    for m in &def.moves {
        let mut c = m.transform.clone();
        for _ in 0..order {
            if !c.is_identity() && seen.insert(c.clone()) {
                moves.push(MoveDef {
                    name: format!("M{}", moves.len()),
                    transform: c.clone(),
                });
            }
            c = r_inv.then(&c, &sets).then(&r, &sets);
        }
    }
    def.move_at = vec![(1, 1); moves.len()];
    def.moves = moves;
    def.rotations = vec![MoveDef {
        name: "Xv".into(),
        transform: r,
    }];
    def
}

/// Case `case` of a random test: `def` from a scramble of three moves in a
/// quarter of the cases (a symmetry that moves the start must then be
/// dropped), and in each metric the puzzle with its levels and positions
/// by the independent pattern search.
fn metric_cases(
    def: &mut Definition,
    rng: &mut Rng,
    case: usize,
) -> Vec<(TwistyMetric, Twisty, Vec<u64>, Vec<Pattern>)> {
    if case % 4 == 3 {
        let (_, start) = legal_scramble(def, rng, 3);
        def.scramble = Some(start);
    }
    let start = def.scramble.clone().unwrap_or_else(|| def.solved.clone());
    METRICS
        .into_iter()
        .map(|metric| {
            let t = build(def, metric, None);
            let (truth, patterns) = pattern_levels(&t, &start);
            (metric, t, truth, patterns)
        })
        .collect()
}

/// A search of `t` by classes of `sym` at each of `threads` counts the
/// positions of `truth` level by level, its classes are the sequential
/// oracle's keys, and they are the orbits of the symmetries.
fn assert_classes_count_truth(
    t: &Twisty,
    sym: &Symmetry,
    (truth, patterns): (&[u64], &[Pattern]),
    threads: &[usize],
    what: &str,
) {
    let m = Symmetric::<u64>::new(t, sym).unwrap();
    for &threads in threads {
        let r = Search::new(&m).threads(threads).count().unwrap();
        assert_eq!(r.levels, truth, "{what}");
        // The sequential oracle counts keys: the classes.
        let classes = r.class_levels.unwrap();
        assert_eq!(reference::level_sizes(&m), classes, "{what}");
        assert_classes_are_orbits(t, &m, patterns, &classes, what);
    }
}

/// The classes a search of `m` kept (`classes` a level) are the orbits of
/// its symmetries: every position of `patterns` (all of `t`'s) is in its
/// own orbit, and the orbits split the positions into as many classes.
fn assert_classes_are_orbits(
    t: &Twisty,
    m: &Symmetric<'_, u64>,
    patterns: &[Pattern],
    classes: &[u64],
    what: &str,
) {
    let mut orbits = BTreeSet::new();
    let mut covered = 0;
    for p in patterns {
        let k = t.key_of::<u64>(p).unwrap();
        let orbit = m.orbit(k);
        assert!(orbit.contains(&k), "{what}");
        if orbits.insert(orbit.clone()) {
            covered += orbit.len();
        }
    }
    assert_eq!(covered, patterns.len(), "{what}: the orbits overlap");
    assert_eq!(orbits.len() as u64, classes.iter().sum::<u64>(), "{what}");
}

#[test]
fn random_puzzles_with_a_rotation_count_their_positions_and_their_orbits() {
    let mut rng = Rng(0x5eed_0f5e_9d2c_5681);
    let (mut used, mut refused_start, mut inverted) = (0, 0, 0);
    for case in 0..80 {
        let mut def = with_rotation(&mut rng);
        for (metric, t, truth, patterns) in metric_cases(&mut def, &mut rng, case) {
            let sym = Symmetry::of(&t);
            if sym.is_trivial() {
                if sym
                    .dropped()
                    .is_some_and(|d| d.contains("do not fix the start"))
                {
                    refused_start += 1;
                }
                continue;
            }
            used += 1;
            inverted += usize::from(sym.inverse());
            let what = format!("case {case} {metric:?}: {}", sym.describe());
            assert_classes_count_truth(&t, &sym, (&truth, &patterns), &[1, 2], &what);
        }
    }
    assert!(
        used > 40 && refused_start > 5 && inverted > 10,
        "the random puzzles hardly exercise symmetry: {used} used, {refused_start} refused for the start, {inverted} with the inverse"
    );
}

/// `def` with a random mirror image (a map of places `pi` set by set, its
/// orientations negated and shifted by `c`) and a random rotation, and
/// its moves closed under conjugation by both, the solved pieces told
/// apart and at home (so the mirror maps the solved position onto
/// itself); `None` where the closed move set passes 24 moves.
fn with_mirror(rng: &mut Rng) -> Option<Definition> {
    let mut def = with_rotation(rng);
    let sets = def.sets.clone();
    for (s, set) in sets.iter().enumerate() {
        def.solved.pieces[s] = (0..set.size as u16).collect();
        def.solved.ori[s] = vec![0; set.size];
    }
    let mut pi: Vec<Vec<u16>> = Vec::new();
    let mut c: Vec<Vec<u8>> = Vec::new();
    for set in &sets {
        let mut perm: Vec<u16> = (0..set.size as u16).collect();
        for i in (1..set.size).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        pi.push(perm);
        let o = u64::from(set.orientations);
        c.push((0..set.size).map(|_| rng.below(o) as u8).collect());
    }
    let pi_inv: Vec<Vec<u16>> = pi
        .iter()
        .map(|perm| {
            let mut inv = vec![0u16; perm.len()];
            for (g, &h) in perm.iter().enumerate() {
                inv[usize::from(h)] = g as u16;
            }
            inv
        })
        .collect();
    // The move m' with Φ(x·m) = Φ(x)·m' (see src/puzzles/twisty/mirror.rs).
    let conjugate = |m: &Transform| {
        let mut out = Transform::identity(&sets);
        for (s, set) in sets.iter().enumerate() {
            let n = u16::from(set.orientations);
            for g in 0..set.size {
                let h = usize::from(pi[s][g]);
                let src = pi_inv[s][usize::from(m.perm[s][h])];
                out.perm[s][g] = src;
                let t = u16::from(c[s][g]) + 2 * n
                    - u16::from(m.ori[s][h]) % n
                    - u16::from(c[s][usize::from(src)]) % n;
                out.ori[s][g] = (t % n) as u8;
            }
        }
        out
    };
    let r = def.rotations[0].transform.clone();
    let r_inv = inverse(&r, &sets);
    let mut moves: Vec<Transform> = def.moves.iter().map(|m| m.transform.clone()).collect();
    let mut seen: HashSet<Transform> = moves.iter().cloned().collect();
    let mut i = 0;
    while i < moves.len() {
        for next in [
            conjugate(&moves[i]),
            r_inv.then(&moves[i], &sets).then(&r, &sets),
        ] {
            if !next.is_identity() && seen.insert(next.clone()) {
                moves.push(next);
            }
        }
        if moves.len() > 24 {
            return None;
        }
        i += 1;
    }
    def.move_at = vec![(1, 1); moves.len()];
    def.moves = moves
        .into_iter()
        .enumerate()
        .map(|(i, transform)| MoveDef {
            // Not M1 and M12: M1's square would be called M12.
            name: format!("M{i}x"),
            transform,
        })
        .collect();
    Some(def)
}

#[test]
fn random_puzzles_with_a_mirror_count_their_positions_and_their_orbits_by_mirror_images() {
    let mut rng = Rng(0x0d15_ea5e_5eed_a11c);
    let (mut mirrored, mut cases, mut refused_start) = (0, 0, 0);
    for case in 0..120 {
        let Some(mut def) = with_mirror(&mut rng) else {
            continue;
        };
        cases += 1;
        for (metric, t, truth, patterns) in metric_cases(&mut def, &mut rng, case) {
            let sym = Symmetry::of(&t);
            let rotations = Symmetry::of_rotations(&t);
            let what = format!("case {case} {metric:?}: {}", sym.describe());
            match sym.mirrors() {
                Mirrors::Found { mirrors, others } => {
                    mirrored += 1;
                    // The group holds the rotations' maps, the mirror
                    // images and their other products.
                    let elements = sym.order() >> u32::from(sym.inverse());
                    assert!(*mirrors > 0 && mirrors + others < elements, "{what}");
                    assert!(sym.order() > rotations.order() / 2, "{what}");
                }
                Mirrors::NotFound(why) if why.contains("start") => refused_start += 1,
                _ => {}
            }
            if sym.is_trivial() {
                continue;
            }
            assert_classes_count_truth(&t, &sym, (&truth, &patterns), &[2], &what);
        }
    }
    assert!(
        cases > 40 && mirrored > 40 && refused_start > 3,
        "the random puzzles hardly exercise mirrors: {cases} cases, {mirrored} mirrored, {refused_start} refused for the start"
    );
}

#[test]
fn a_restricted_move_set_keeps_the_rotations_that_map_it_onto_itself() {
    let def = load("cube3-rotations.tws");
    let t = build(&def, TwistyMetric::Htm, Some("U,R"));
    let sym = Symmetry::of_rotations(&t);
    // The half turn about the axis through the UR edge swaps U and R;
    // with the inverse position, 4.
    assert_eq!(sym.order(), 4, "{}", sym.describe());
    assert!(sym.inverse());
    assert!(sym.dropped().unwrap().contains("map a move onto no move"));
    let plain = plain_levels(&t, Some(7));
    let (levels, _) = symmetric_levels::<u64>(&t, &sym, 2, VisitedKind::Auto, Some(7));
    assert_eq!(levels, plain);
    // Two mirrors keep {U, R} too (the plane of both axes, which turns
    // each into its inverse, and the one between them, which swaps them).
    let sym = Symmetry::of(&t);
    assert_eq!(sym.order(), 8, "{}", sym.describe());
    assert_eq!(
        sym.mirrors(),
        &Mirrors::Found {
            mirrors: 2,
            others: 0
        }
    );
    let (levels, _) = symmetric_levels::<u64>(&t, &sym, 2, VisitedKind::Auto, Some(7));
    assert_eq!(levels, plain);
}

#[test]
fn a_solve_from_a_symmetric_start_walks_the_real_start_in_the_fewest_moves() {
    let def = load("cube3-rotations.tws");
    for scramble in ["U2 D2 F2 B2", "U2 D2", "R2 L2 U D'"] {
        let t = Twisty::new(
            def.clone(),
            &Options {
                metric: TwistyMetric::Htm,
                moves: None,
                scramble: Some(scramble.into()),
            },
        )
        .unwrap();
        let sym = Symmetry::of(&t);
        assert!(!sym.is_trivial(), "{scramble}: {}", sym.describe());
        assert!(
            sym.order() < 24,
            "{scramble}: the start is not fixed by every rotation"
        );
        let m = Symmetric::<Wide<2>>::new(&t, &sym).unwrap();
        let solved = Search::new(&m).threads(2).solve().unwrap();
        let path = solved.path.expect("solvable");
        let real = m.real_path(&path);
        let names = t.path_moves(&real);
        let start = t.pattern(t.start_key::<Wide<2>>());
        assert_eq!(
            replay(&t, &start, &names).unwrap(),
            def.solved,
            "{scramble}"
        );
        let plain = Search::new(&t_wide(&t)).threads(2).solve().unwrap();
        assert_eq!(names.len() + 1, plain.path.unwrap().len(), "{scramble}");
    }
}

fn t_wide(t: &Twisty) -> reach::puzzles::twisty::Wider<'_, 2> {
    reach::puzzles::twisty::Wider::new(t).unwrap()
}

#[test]
fn rotations_alone_leave_every_mirror_image_out() {
    // Klotski's one symmetry is its left-right mirror: under the
    // rotations alone, every position is searched.
    let v = json_out(reach().args(["count", "klotski", "--symmetry", "rotations", "--json"]));
    assert_eq!(v["states"], 25955);
    assert_eq!(v["symmetry"]["used"], false);
    assert!(v["class_levels"].is_null());
    // The 2x2x2 in qtm: its 24 rotations and their 24 mirror images, or
    // the rotations alone, each with the inverse; every level the same.
    let cube2 = data("cube2-rotations.tws");
    let count = |symmetry: &str| {
        json_out(reach().args([
            "count",
            &cube2,
            "--metric",
            "qtm",
            "--max-depth",
            "6",
            "--symmetry",
            symmetry,
            "--json",
        ]))
    };
    let none = count("none");
    let mut classes = Vec::new();
    for (symmetry, order, mirrors) in [("on", 96, 24), ("rotations", 48, 0)] {
        let v = count(symmetry);
        assert_eq!(v["symmetry"]["order"], order, "{symmetry}");
        assert_eq!(v["symmetry"]["mirrors"], mirrors, "{symmetry}");
        assert_eq!(v["levels"], none["levels"], "{symmetry}");
        classes.push(v["class_levels"][6].as_u64().unwrap());
    }
    // Far from solved, about half as many classes with the mirrors.
    assert!(
        classes[0] * 2 >= classes[1] && classes[0] * 3 < 2 * classes[1],
        "{classes:?}"
    );
}

#[test]
fn levels_on_disk_and_a_resumed_checkpoint_weigh_their_classes_alike() {
    let dir = TempDir::new("symmetry-disk");
    let t = build(&load("cube2-rotations.tws"), TwistyMetric::Qtm, None);
    let sym = Symmetry::of(&t);
    let m = Symmetric::<u64>::new(&t, &sym).unwrap();
    let memory = Search::new(&m)
        .threads(2)
        .max_depth(Some(7))
        .count()
        .unwrap();
    let disk = Search::new(&m)
        .threads(2)
        .max_depth(Some(7))
        .spill(Spill::new(dir.0.join("levels")).candidate_budget(Some(1 << 12)))
        .count()
        .unwrap();
    assert!(disk.disk.is_some());
    assert_eq!(disk.levels, memory.levels);
    assert_eq!(disk.class_levels, memory.class_levels);
    // The command line: stopped at depth 4, resumed to depth 7.
    let cp = dir.0.join("cp");
    let cube = data("cube2-rotations.tws");
    reach()
        .args([
            "count",
            &cube,
            "--metric",
            "qtm",
            "--max-depth",
            "4",
            "--symmetry",
            "on",
            "--checkpoint",
        ])
        .arg(&cp)
        .assert()
        .code(0);
    let v = json_out(
        reach()
            .arg("resume")
            .arg(&cp)
            .args(["--max-depth", "7", "--json"]),
    );
    assert_eq!(v["levels"], serde_json::json!(memory.levels));
    assert_eq!(v["class_levels"], serde_json::json!(memory.class_levels));
    assert_eq!(v["symmetry"]["order"], 96);
}

#[test]
fn the_command_line_counts_shows_and_solves_with_symmetry_and_without() {
    let cube = data("cube3-rotations.tws");
    let v = json_out(reach().args(["count", &cube, "--max-depth", "5", "--json"]));
    assert_eq!(v["levels"], serde_json::json!(CUBE3_HTM[..6]));
    assert_eq!(v["class_levels"], serde_json::json!(CUBE3_M_INV[..6]));
    assert_eq!(v["symmetry"]["order"], 96);
    assert_eq!(v["symmetry"]["mirrors"], 24);
    assert_eq!(v["symmetry"]["other_elements"], 0);
    assert_eq!(v["symmetry"]["inverse"], true);
    assert_eq!(v["symmetry"]["rotations"].as_array().unwrap().len(), 13);
    // The rotations alone: twsearch's -F classes.
    let v = json_out(reach().args([
        "count",
        &cube,
        "--max-depth",
        "5",
        "--symmetry",
        "rotations",
        "--json",
    ]));
    assert_eq!(v["levels"], serde_json::json!(CUBE3_HTM[..6]));
    assert_eq!(
        v["class_levels"],
        serde_json::json!([1, 2, 10, 75, 954, 12097])
    );
    assert_eq!(v["symmetry"]["order"], 48);
    assert_eq!(v["symmetry"]["mirrors"], 0);
    let v = json_out(reach().args([
        "count",
        &cube,
        "--max-depth",
        "5",
        "--symmetry",
        "none",
        "--json",
    ]));
    assert_eq!(v["levels"], serde_json::json!(CUBE3_HTM[..6]));
    assert!(v["class_levels"].is_null());
    assert_eq!(v["symmetry"]["order"], 1);
    // The summary says how many classes were kept.
    reach()
        .args(["count", &cube, "--max-depth", "3"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "classes     59 of symmetric positions under 96 symmetries",
        ));
    // The antipodes are positions, every one of each class.
    let v = json_out(reach().args(["count", &cube, "--max-depth", "2", "--antipodes", "--json"]));
    assert_eq!(v["antipode_boards"].as_array().unwrap().len(), 243);
    // show names the symmetries and the store a count of classes takes.
    reach()
        .args(["show", &cube])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "symmetry: 24 of the 24 elements that the rotations",
        ))
        .stdout(predicates::str::contains(
            ", and 24 mirror images: 48, each with the inverse position: 96 in all",
        ));
    let v = json_out(reach().args(["show", &cube, "--moves", "U,R", "--json"]));
    assert_eq!(v["symmetry"]["order"], 8);
    // The dense store keeps no level as keys to weigh; `auto` takes it
    // over classes where it fits (faster and smaller), `on` does not.
    let cube2 = data("cube2-rotations.tws");
    let v = json_out(reach().args(["count", &cube2, "--max-depth", "4", "--json"]));
    assert_eq!(v["visited"], "dense");
    assert_eq!(v["symmetry"]["used"], false);
    let v = json_out(reach().args([
        "count",
        &cube2,
        "--max-depth",
        "4",
        "--symmetry",
        "on",
        "--json",
    ]));
    assert_eq!(v["symmetry"]["order"], 96);
    assert_eq!(v["levels"], serde_json::json!([1, 18, 243, 2874, 28000]));
    reach()
        .args(["count", &cube2, "--visited", "dense", "--symmetry", "on"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "weigh classes of symmetric positions",
        ));
    // A solve from a symmetric start (the checkerboard): real moves,
    // replayed, as few as without symmetry.
    let scramble = "U2 D2 F2 B2 R2 L2";
    let solve = |symmetry: &str| {
        let v = json_out(reach().args([
            "solve",
            &cube,
            "--scramble",
            scramble,
            "--symmetry",
            symmetry,
            "--json",
        ]));
        let moves = v["moves"].as_array().unwrap().iter();
        moves
            .map(|m| m.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let names = solve("auto");
    assert_eq!(names.len(), solve("none").len());
    let def = load("cube3-rotations.tws");
    let t = Twisty::new(
        def.clone(),
        &Options {
            scramble: Some(scramble.into()),
            ..Options::default()
        },
    )
    .unwrap();
    let start = t.pattern(t.start_key::<Wide<2>>());
    assert_eq!(replay(&t, &start, &names).unwrap(), def.solved);
}

/// The classes a count's `--json` document says it kept.
fn classes(v: &serde_json::Value) -> u64 {
    let levels = v["class_levels"].as_array().expect("levels of classes");
    levels.iter().map(|c| c.as_u64().unwrap()).sum()
}

/// Klotski's levels in the step metric, by a search of every position.
fn klotski_levels() -> Vec<u64> {
    let k = builtin::sliding("klotski").unwrap();
    Search::new(&k).threads(2).count().unwrap().levels
}

#[test]
fn klotski_keeps_one_of_each_mirror_pair_on_disk_and_across_a_resume() {
    let k = builtin::sliding("klotski").unwrap();
    let sym = BoardSymmetry::of(&k);
    let m = SymmetricSliding::<u64>::new(&k, &sym).unwrap();
    let plain = klotski_levels();
    let memory = Search::new(&m).threads(2).count().unwrap();
    assert_eq!(memory.levels, plain);
    let dir = TempDir::new("klotski-symmetry");
    let disk = Search::new(&m)
        .threads(2)
        .spill(Spill::new(dir.0.join("levels")).candidate_budget(Some(1 << 8)))
        .count()
        .unwrap();
    assert!(disk.disk.is_some());
    assert_eq!(disk.levels, plain);
    assert_eq!(disk.class_levels, memory.class_levels);
    // The reference search of the classes, level by level.
    assert_eq!(
        reference::level_sizes(&m),
        memory.class_levels.clone().unwrap()
    );
    // The command line: stopped at depth 60, resumed to the end.
    let cp = dir.0.join("cp");
    checkpoint_at("klotski", 60, &cp);
    let v = json_out(
        reach()
            .arg("resume")
            .arg(&cp)
            .args(["--max-depth", "200", "--json"]),
    );
    assert_eq!(v["levels"], serde_json::json!(plain));
    assert_eq!(v["class_levels"], serde_json::json!(memory.class_levels));
    assert_eq!(v["symmetry"]["order"], 2);
}

#[test]
fn klotski_on_the_command_line_counts_shows_and_solves_with_its_mirror() {
    let plain = klotski_levels();
    let v = json_out(reach().args(["count", "klotski", "--json"]));
    assert_eq!(v["levels"], serde_json::json!(plain));
    assert_eq!(v["symmetry"]["order"], 2);
    assert_eq!(
        v["symmetry"]["motions"],
        serde_json::json!(["identity", "left-right mirror"])
    );
    assert_eq!(classes(&v), 13_011);
    let none = json_out(reach().args(["count", "klotski", "--symmetry", "none", "--json"]));
    assert_eq!(none["levels"], serde_json::json!(plain));
    assert!(none["class_levels"].is_null());
    assert_eq!(none["symmetry"]["used"], false);
    // The antipodes are positions: both of each mirror pair.
    let boards = |args: &[&str]| {
        let v = json_out(
            reach()
                .args(["count", "klotski", "--antipodes", "--json"])
                .args(args),
        );
        let mut b: Vec<String> = v["antipode_boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().to_string())
            .collect();
        b.sort();
        b
    };
    assert_eq!(boards(&[]), boards(&["--symmetry", "none"]));
    assert_eq!(boards(&[]).len(), 4);
    reach()
        .args(["show", "klotski"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "symmetry: a group of order 2 (identity, left-right mirror)",
        ))
        .stdout(predicates::str::contains("not the top-bottom mirror"));
    // Solutions from the real start, replayed by the independent checker,
    // as short as without the mirror, in three metrics.
    for (metric, rmetric, length) in [
        ("step", replay::Metric::Step, 116),
        ("slide", replay::Metric::Slide, 90),
        ("piece", replay::Metric::Piece, 81),
    ] {
        for symmetry in ["auto", "none"] {
            let v = json_out(reach().args([
                "solve",
                "klotski",
                "--metric",
                metric,
                "--symmetry",
                symmetry,
                "--json",
            ]));
            assert_eq!(v["symmetry"]["used"], symmetry == "auto");
            let moves = replay::json_moves(&v);
            assert_eq!(moves.len(), length, "{metric} {symmetry}");
            replay::check(&crate::sliding::KLOTSKI, rmetric, &moves).unwrap();
        }
    }
}

#[test]
fn a_mirrored_board_of_eight_million_positions_counts_alike_with_its_mirror_and_without() {
    let board = data("mirror-5x5.toml");
    let none = json_out(reach().args(["count", &board, "--symmetry", "none", "--json"]));
    assert_eq!(none["states"], 8_113_560);
    for visited in ["auto", "frontier"] {
        let on = json_out(reach().args(["count", &board, "--visited", visited, "--json"]));
        assert_eq!(on["levels"], none["levels"], "{visited}");
        assert_eq!(classes(&on), 4_058_232, "{visited}");
    }
}

#[test]
fn hardest_by_classes_names_the_positions_a_search_without_symmetry_names() {
    // The 2x2x2 in <U,F,R> (its three-fold turn about the UFR corner, and
    // the inverse) and Klotski (its mirror; 964 goal positions, 484
    // classes), with their symmetries and without: the same figures, the
    // same positions, every class listed as its positions.
    let cube2 = data("cube2-rotations.tws");
    let cube2: [&str; 6] = [&cube2, "--moves", "U,F,R", "--metric", "qtm", "--symmetry"];
    let klotski: [&str; 4] = ["klotski", "--metric", "piece", "--symmetry"];
    for (args, on, order) in [(&cube2[..], "on", 12), (&klotski[..], "auto", 2)] {
        let hardest = |symmetry: &str| {
            json_out(
                reach()
                    .arg("hardest")
                    .args(args)
                    .args([symmetry, "--top", "40", "--json"]),
            )
        };
        let (with, without) = (hardest(on), hardest("none"));
        assert_eq!(with["symmetry"]["order"], order, "{args:?}");
        assert_eq!(without["symmetry"]["used"], false, "{args:?}");
        assert!(without["class_levels"].is_null());
        let classes: u64 = serde_json::from_value::<Vec<u64>>(with["class_levels"].clone())
            .unwrap()
            .iter()
            .sum();
        let component = with["component"].as_u64().unwrap();
        assert!(
            classes < component && classes * order >= component,
            "{args:?}"
        );
        for field in [
            "component",
            "goal_states",
            "distance",
            "count",
            "start_distance",
            "levels",
            "examples",
        ] {
            assert_eq!(with[field], without[field], "{args:?} {field}");
        }
    }
}

#[test]
fn hardest_by_classes_weighs_its_goals_and_lists_its_classes_as_positions() {
    // Klotski in steps: its 4 hardest positions are 2 mirror pairs.
    let k = builtin::sliding("klotski").unwrap();
    let sym = BoardSymmetry::of(&k);
    let m = SymmetricSliding::<u64>::new(&k, &sym).unwrap();
    let h = Search::new(&m).threads(2).hardest().unwrap();
    let plain = Search::new(&k).threads(2).hardest().unwrap();
    // The figures are positions: the goal's 964 are 484 classes.
    let figures =
        |h: &reach::engine::Hardest| (h.component, h.goal_states, h.distance, h.start_distance);
    assert_eq!(figures(&h), figures(&plain));
    assert_eq!(h.goal_states, 964);
    assert_eq!(h.report.levels, plain.report.levels);
    let states = h.report.last_level_states;
    assert_eq!(states, plain.positions.len() as u64);
    assert!(h.positions.len() > 1 && (h.positions.len() as u64) < states);
    let boards = |keys: &[u64]| {
        let mut b: Vec<String> = keys.iter().map(|&key| k.render(key)).collect();
        b.sort();
        b
    };
    // Few enough: every position, as many as without the mirror.
    let all = positions_of(&m, h.positions.clone(), states, 1, states);
    assert_eq!(boards(&all), boards(&plain.positions));
    assert!(all.is_sorted());
    // Too many: the first class's, enough for `top`.
    let first = positions_of(&m, h.positions.clone(), states, 1, states - 1);
    assert_eq!(first, m.orbit(h.positions[0]));
    let more = positions_of(&m, h.positions.clone(), states, first.len() + 1, states - 1);
    assert!(more.len() > first.len() && more.len() <= all.len());
    // Positions, keys of their own, where keys are positions.
    assert_eq!(
        positions_of(&k, plain.positions.clone(), states, 1, 1),
        plain.positions
    );
}

/// The boards a count's `--json` document lists as its antipodes, sorted.
fn antipode_boards(v: &serde_json::Value) -> Vec<String> {
    let mut b: Vec<String> = v["antipode_boards"]
        .as_array()
        .expect("antipode boards")
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect();
    b.sort();
    b
}

#[test]
fn tile_puzzles_count_by_classes_of_their_diagonal_mirror_in_keys_of_every_width() {
    // The 15-puzzle (its dense keys need more memory than there is), the
    // 24- and 35-puzzles (keys of several words): the blank's start, a
    // corner on the diagonal, is fixed by the mirror in that diagonal,
    // which relabels the tiles.
    for (name, depth) in [
        ("tiles-4x4", "17"),
        ("tiles-5x5", "15"),
        ("tiles-6x6", "12"),
    ] {
        let args = ["count", name, "--max-depth", depth, "--antipodes", "--json"];
        let on = json_out(reach().args(args));
        let none = json_out(reach().args(args).args(["--symmetry", "none"]));
        assert_eq!(on["levels"], none["levels"], "{name}");
        assert_eq!(on["symmetry"]["order"], 2, "{name}");
        assert_eq!(
            on["symmetry"]["motions"],
            serde_json::json!(["identity", "diagonal mirror"])
        );
        assert!(none["class_levels"].is_null());
        let (c, n) = (classes(&on), on["states"].as_u64().unwrap());
        assert!(2 * c > n && c < n, "{name}: {c} classes of {n}");
        // The deepest level's positions, each drawn as the tile puzzle
        // draws it, both of each mirror pair.
        let boards = antipode_boards(&on);
        assert_eq!(boards, antipode_boards(&none), "{name}");
        assert!(boards.len() > 100, "{name}");
    }
    // Where the dense store fits, `auto` keeps it; `on` counts classes.
    let on = json_out(reach().args(["count", "tiles-3x3", "--symmetry", "on", "--json"]));
    assert_eq!(on["states"], 181_440);
    assert_eq!(classes(&on), (181_440 + 144) / 2);
    let auto = json_out(reach().args(["count", "tiles-3x3", "--json"]));
    assert_eq!(auto["levels"], on["levels"]);
    assert_eq!(auto["visited"], "dense");
    assert_eq!(auto["symmetry"]["used"], false);
    reach()
        .args(["show", "tiles-5x5"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "symmetry: a group of order 2 (identity, diagonal mirror)",
        ));
    // A board that is not square has no motion that fixes the corner.
    let v = json_out(reach().args(["show", "tiles-4x5", "--json"]));
    assert_eq!(v["symmetry"]["order"], 1);
    assert_eq!(v["symmetry"]["used"], false);
    // A checkpoint of the classes, resumed deeper.
    let dir = TempDir::new("tiles-5x5-symmetry");
    let cp = dir.0.join("cp");
    checkpoint_at("tiles-5x5", 10, &cp);
    let v = json_out(
        reach()
            .arg("resume")
            .arg(&cp)
            .args(["--max-depth", "15", "--json"]),
    );
    let plain = json_out(reach().args([
        "count",
        "tiles-5x5",
        "--max-depth",
        "15",
        "--symmetry",
        "none",
        "--json",
    ]));
    assert_eq!(v["levels"], plain["levels"]);
    assert_eq!(v["symmetry"]["order"], 2);
}

/// tests/data/mirror-6x6-distinct.toml, for the independent checker.
const MIRROR_6X6: replay::Rules = replay::Rules {
    board: "AB..CD\nABEFCD\nGHEFIJ\nK....L\nMNOPQR\nSTUVWX",
    horizontal: "",
    vertical: "",
    goal: "......\nA....D\nA.EF.D\n..EF..\n......\n......",
    stand_ins: &[],
};

#[test]
fn a_board_past_2_64_counts_and_solves_by_classes_of_its_mirror_images() {
    // Every piece distinct on 6x6 and on 5x5 with the blank in the middle
    // (all eight motions, each relabelling the tiles): keys of two words.
    let six = data("mirror-6x6-distinct.toml");
    let centre = data("24-centre.toml");
    for (board, depth, order) in [(&six, "9", 2), (&centre, "16", 8)] {
        let args = ["count", board, "--max-depth", depth, "--json"];
        let on = json_out(reach().args(args));
        let none = json_out(reach().args(args).args(["--symmetry", "none"]));
        assert_eq!(on["levels"], none["levels"], "{board}");
        assert_eq!(on["symmetry"]["order"], order, "{board}");
        let (c, n) = (classes(&on), on["states"].as_u64().unwrap());
        assert!(c * order > n && c < n, "{board}: {c} classes of {n}");
        let spill = TempDir::new("wide-symmetry");
        let disk = json_out(
            reach()
                .args(args)
                .arg("--spill")
                .arg(spill.0.join("levels")),
        );
        assert_eq!(disk["levels"], on["levels"], "{board} on disk");
        assert_eq!(disk["class_levels"], on["class_levels"], "{board} on disk");
    }
    // A solve from the real start, as short as without the mirror.
    for symmetry in ["auto", "none"] {
        let v = json_out(reach().args(["solve", &six, "--symmetry", symmetry, "--json"]));
        assert_eq!(v["symmetry"]["used"], symmetry == "auto");
        let moves = replay::json_moves(&v);
        assert_eq!(moves.len(), 8, "{symmetry}");
        replay::check(&MIRROR_6X6, replay::Metric::Step, &moves).unwrap();
    }
}
