//! The Clocks and the Sawtooth Puzzle: official samples, hand-argued cases
//! and independent checks.

use std::collections::HashMap;

use reach::engine::{Model, Search, reference};
use reach::puzzles::clocks::{self, Clocks, MOVES};
use reach::puzzles::sawtooth::{self, Case, Sawtooth, rotate};

fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Plays `moves` (1-9) on a dial by hand, from the move table alone.
fn play(mut dial: clocks::Dial, moves: &[u8]) -> clocks::Dial {
    for &m in moves {
        for &c in MOVES[m as usize - 1] {
            dial[c] = (dial[c] + 1) % 4;
        }
    }
    dial
}

/// For every dial, the fewest moves that set it to 12, by brute force over
/// how often each move is made (0-3 times: four times is no change).
fn fewest_moves() -> HashMap<clocks::Dial, u32> {
    let mut best = HashMap::new();
    for code in 0..1u32 << 18 {
        let counts: Vec<u8> = (0..9).map(|i| ((code >> (2 * i)) & 3) as u8).collect();
        let moves: Vec<u8> = (0..9u8)
            .flat_map(|m| std::iter::repeat_n(m + 1, counts[m as usize] as usize))
            .collect();
        // Making these moves from dial d reaches 12, so d = -(their effect).
        let effect = play([0; 9], &moves);
        let dial = effect.map(|t| (4 - t) % 4);
        let n = moves.len() as u32;
        let e = best.entry(dial).or_insert(n);
        *e = (*e).min(n);
    }
    best
}

fn solve(text: &str, codes: bool) -> Vec<u8> {
    let dial = clocks::parse_input(text, codes).unwrap();
    let moves = Clocks::new(dial).solve();
    assert_eq!(
        play(dial, &moves),
        [0; 9],
        "the solution sets every clock to 12"
    );
    assert!(moves.windows(2).all(|w| w[0] <= w[1]), "ascending");
    moves
}

#[test]
fn clocks_official_samples() {
    let usaco = solve(&data("clocks.usaco-sample.in"), false);
    let words: Vec<String> = usaco.iter().map(u8::to_string).collect();
    assert_eq!(
        format!("{}\n", words.join(" ")),
        data("clocks.usaco-sample.out")
    );
    let ioi = solve(&data("clocks.ioi94-sample.in"), true);
    let mut expected: Vec<u8> = data("clocks.ioi94-sample.out")
        .trim()
        .bytes()
        .map(|b| b - b'0')
        .collect();
    expected.sort_unstable();
    assert_eq!(ioi, expected, "the IOI judge takes the moves in any order");
}

#[test]
fn clocks_known_distances() {
    assert_eq!(solve("12 12 12 12 12 12 12 12 9", false).len(), 22);
    assert_eq!(solve("9 12 9\n12 3 12\n9 12 9", false).len(), 27);
    assert!(solve("12 12 12 12 12 12 12 12 12", false).is_empty());
    for m in 1..=9u8 {
        let dial = play([0; 9], &[m]);
        assert_eq!(Clocks::new(dial).solve(), [m, m, m], "move {m}");
    }
}

#[test]
fn clocks_solutions_are_shortest() {
    let best = fewest_moves();
    assert_eq!(best.len(), 1 << 18, "every dial is reachable");
    assert_eq!(*best.values().max().unwrap(), 27);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let dial = clocks::decode(seed & ((1 << 18) - 1));
        let moves = Clocks::new(dial).solve();
        assert_eq!(play(dial, &moves), [0; 9]);
        assert_eq!(moves.len() as u32, best[&dial], "{dial:?}");
    }
}

#[test]
fn clocks_count_is_the_coefficients_of_a_polynomial() {
    // (1 + x + x^2 + x^3)^9
    let mut poly = vec![1u64];
    for _ in 0..9 {
        let mut next = vec![0u64; poly.len() + 3];
        for (i, &c) in poly.iter().enumerate() {
            for j in 0..4 {
                next[i + j] += c;
            }
        }
        poly = next;
    }
    assert_eq!(poly[..5], [1, 9, 45, 165, 486]);
    for threads in [1, 2, 4] {
        let r = Search::new(&Clocks::new([0; 9]))
            .threads(threads)
            .count()
            .unwrap();
        assert_eq!(r.levels, poly);
        assert_eq!(r.states(), 262_144);
        assert_eq!(r.depth(), 27);
        assert_eq!(r.last_level.len(), 1);
    }
}

#[test]
fn clocks_input_errors() {
    for (text, codes, needle) in [
        ("12 3 6", false, "found 3"),
        ("12 12 12 12 12 12 12 12 12 12", false, "tenth"),
        ("12 12 12 12 7 12 12 12 12", false, "\"7\" (clock E)"),
        ("0 0 0 0 0 0 0 0 4", true, "\"4\""),
        ("12 12 12\n12 twelve", false, "line 2"),
        ("", false, "found 0"),
    ] {
        let e = clocks::parse_input(text, codes).unwrap_err();
        assert!(e.to_string().contains(needle), "{text:?}: {e}");
    }
}

/// The judge's text for `cases`.
fn zoj(cases: &[Case]) -> String {
    let image = |cells: &[u64; 9]| {
        let mut out = String::new();
        for r in 0..26 {
            if r % 9 == 8 {
                out.push_str(&" ".repeat(26));
                out.push('\n');
                continue;
            }
            for c in 0..26 {
                if c % 9 == 8 {
                    out.push(' ');
                    continue;
                }
                let cell = (r / 9) * 3 + c / 9;
                let bit = 8 * (r % 9) + c % 9;
                out.push(if cells[cell] >> bit & 1 != 0 {
                    '#'
                } else {
                    '.'
                });
            }
            out.push('\n');
        }
        out
    };
    let mut out = format!("{}\n", cases.len());
    for case in cases {
        out.push_str(&image(&case.start));
        out.push('\n');
        out.push_str(&image(&case.target));
        out.push('\n');
        for e in &case.edges {
            let v: Vec<&str> = e.iter().map(|&s| if s { "1" } else { "0" }).collect();
            out.push_str(&format!("{}\n", v.join(" ")));
        }
    }
    out
}

fn asymmetric_images(seed: u64) -> [u64; 9] {
    let mut x = seed | 1;
    std::array::from_fn(|_| {
        loop {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = rotate(x);
            if r != x && rotate(r) != x {
                break x;
            }
        }
    })
}

fn rotated(images: &[u64; 9], turns: &[u8; 9]) -> [u64; 9] {
    std::array::from_fn(|i| (0..turns[i]).fold(images[i], |img, _| rotate(img)))
}

#[test]
fn sawtooth_sample() {
    let cases = sawtooth::parse_input(&data("sawtooth.sample.in")).unwrap();
    assert_eq!(cases.len(), 1);
    let model = Sawtooth::new(&cases[0]);
    assert_eq!(
        format!("{}\n", model.min_steps().unwrap()),
        data("sawtooth.sample.out")
    );
    // The statement's hint: cell (1,2) four times, then (1,3), then (3,1).
    let mut key = model.start();
    for cell in [1, 1, 1, 1, 2, 6] {
        key = model.turn(key, cell);
    }
    let mut state = model.new_state();
    model.decode(key, &mut state);
    assert!(model.is_goal(&state));
}

#[test]
fn sawtooth_sample_read_leniently() {
    let text = data("sawtooth.sample.in");
    let crlf = text.replace('\n', "\r\n");
    let trailing = text.replace('\n', "  \n");
    let no_separators: String = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let expected = sawtooth::parse_input(&text).unwrap();
    for variant in [crlf, trailing, no_separators] {
        assert_eq!(sawtooth::parse_input(&variant).unwrap(), expected);
    }
}

#[test]
fn sawtooth_hand_argued_cases() {
    let images = asymmetric_images(42);
    let smooth = [[false; 4]; 9];
    // Target equal to start: 0 steps.
    let same = Case {
        start: images,
        target: images,
        edges: smooth,
    };
    assert_eq!(Sawtooth::new(&same).min_steps(), Some(0));
    // No saw-toothed edges: every cell turns alone, so the answer is the sum
    // of each cell's clockwise turns to its target.
    let turns = [1, 0, 3, 2, 2, 1, 0, 3, 1];
    let free = Case {
        start: images,
        target: rotated(&images, &turns),
        edges: smooth,
    };
    assert_eq!(Sawtooth::new(&free).min_steps(), Some(13));
    // A target pixel no rotation can produce: -1.
    let mut target = images;
    target[4] ^= 1;
    let impossible = Case {
        start: images,
        target,
        edges: smooth,
    };
    assert_eq!(Sawtooth::new(&impossible).min_steps(), None);
    // Every edge saw-toothed: every step turns all nine cells, the driver's
    // colour of the checkerboard clockwise and the other anticlockwise.
    // Turning an odd cell once reaches (even cells 3 turns, odd cells 1).
    let saw = [[true; 4]; 9];
    let odd = [3, 1, 3, 1, 3, 1, 3, 1, 3];
    let meshed = Case {
        start: images,
        target: rotated(&images, &odd),
        edges: saw,
    };
    let model = Sawtooth::new(&meshed);
    assert_eq!(model.min_steps(), Some(1));
    let twice = Case {
        start: images,
        target: rotated(&images, &[2; 9]),
        edges: saw,
    };
    assert_eq!(Sawtooth::new(&twice).min_steps(), Some(2));
    // ...and only the four states of the even cells' turn are reachable.
    assert_eq!(Search::new(&model).threads(2).count().unwrap().states(), 4);
    // Unreachable although every cell can show its target: -1.
    let single = [1, 0, 0, 0, 0, 0, 0, 0, 0];
    let stuck = Case {
        start: images,
        target: rotated(&images, &single),
        edges: saw,
    };
    assert_eq!(Sawtooth::new(&stuck).min_steps(), None);
    // The judge's format carries all of it.
    let cases = vec![same, free, impossible, meshed, stuck];
    assert_eq!(sawtooth::parse_input(&zoj(&cases)).unwrap(), cases);
}

#[test]
fn sawtooth_agrees_with_the_oracle() {
    let images = asymmetric_images(7);
    for seed in 0..20u64 {
        let edges = std::array::from_fn(|i| {
            std::array::from_fn(|s| (seed * 31 + i as u64 * 7 + s as u64 * 3) % 5 < 2)
        });
        let case = Case {
            start: images,
            target: images,
            edges,
        };
        let model = Sawtooth::new(&case);
        let oracle = reference::level_sizes(&model);
        for threads in [1, 2] {
            assert_eq!(
                Search::new(&model).threads(threads).count().unwrap().levels,
                oracle
            );
        }
    }
}

#[test]
fn sawtooth_input_errors() {
    let sample = data("sawtooth.sample.in");
    let bad_pixel = sample.replacen("......#.", "......x.", 1);
    let e = sawtooth::parse_input(&bad_pixel).unwrap_err();
    assert_eq!((e.line, e.case), (2, 1));
    assert!(e.message.contains("'x'"), "{e}");

    let short: String = sample.lines().take(20).map(|l| format!("{l}\n")).collect();
    let e = sawtooth::parse_input(&short).unwrap_err();
    assert!(e.message.contains("short"), "{e}");

    let bad_edge = sample.replacen("0 1 0 1", "0 2 0 1", 1);
    let e = sawtooth::parse_input(&bad_edge).unwrap_err();
    assert!(e.message.contains("edge type 2"), "{e}");
    assert_eq!(e.line, 56);

    let huge_t = sample.replacen('1', "1000000000", 1);
    let e = sawtooth::parse_input(&huge_t).unwrap_err();
    assert!(e.message.contains("after 1 case(s)"), "{e}");
    assert_eq!(e.case, 2);

    let e = sawtooth::parse_input("").unwrap_err();
    assert!(e.message.contains("number of cases"), "{e}");
    let e = sawtooth::parse_input("x").unwrap_err();
    assert!(e.message.contains("not a number"), "{e}");

    // T = -1 is negative, not "not a number"; errors in T name no case.
    let e = sawtooth::parse_input("-1\n").unwrap_err();
    assert!(e.message.contains("-1 is negative"), "{e}");
    assert!(!e.to_string().contains("case 0"), "{e}");
    assert!(e.to_string().starts_with("line 1: "), "{e}");
    let e = sawtooth::parse_input("0\n").unwrap_err();
    assert!(e.message.contains("no cases"), "{e}");
    // More cases than T: refused, at the line where the extra input starts.
    let two = sample.clone() + &sample[sample.find('\n').unwrap() + 1..];
    let e = sawtooth::parse_input(&two).unwrap_err();
    assert!(e.message.contains("more input follows"), "{e}");
    assert!(e.line > 60, "{e}");
    let trailing = sample.clone() + "\n\n  \n";
    assert_eq!(sawtooth::parse_input(&trailing).unwrap().len(), 1);
}

mod fuzz {
    use proptest::prelude::*;
    use reach::puzzles::{clocks, sawtooth};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn the_clocks_reader_never_panics(text in "[0-9 \\n\\t369x-]{0,60}") {
            for codes in [false, true] {
                if let Err(e) = clocks::parse_input(&text, codes) {
                    prop_assert!(!e.message.is_empty());
                }
            }
        }

        #[test]
        fn the_sawtooth_reader_never_panics(
            edits in proptest::collection::vec((0usize..1500, proptest::char::any()), 1..8)
        ) {
            let mut text: Vec<char> = super::data("sawtooth.sample.in").chars().collect();
            for (at, ch) in edits {
                let at = at % text.len();
                text[at] = ch;
            }
            let text: String = text.into_iter().collect();
            match sawtooth::parse_input(&text) {
                Ok(cases) => {
                    for case in &cases {
                        let _ = sawtooth::Sawtooth::new(case).min_steps();
                    }
                }
                Err(e) => prop_assert!(e.line >= 1 && !e.message.is_empty()),
            }
        }
    }
}
