//! Sliding-block puzzles on the command line: the model their keys need.

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p` as
/// the model its keys need: the puzzle itself where a key is one word,
/// else a [`WideSliding`](reach::puzzles::sliding::WideSliding) of 2, 3,
/// 4, 6, 8 or 16 words (the most a board of 64 cells needs). `$body` is
/// compiled once for each width class; the class is chosen once per
/// search, never per key.
macro_rules! by_width {
    ($p:expr, |$m:ident| $body:expr) => {{
        let p: &reach::puzzles::sliding::SlidingPuzzle = $p;
        macro_rules! wider {
            ($n:literal) => {{
                let w = reach::puzzles::sliding::WideSliding::<$n>::new(p)
                    .expect("the width class holds the key");
                let $m = &w;
                $body
            }};
        }
        match p.words() {
            1 => {
                let $m = p;
                $body
            }
            2 => wider!(2),
            3 => wider!(3),
            4 => wider!(4),
            5..=6 => wider!(6),
            7..=8 => wider!(8),
            _ => wider!(16),
        }
    }};
}
pub(super) use by_width;
