//! Sliding-block puzzles on the command line: the model their keys need.

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p` as
/// the model its keys need: the puzzle itself where a key is one word,
/// else a [`WideSliding`](reach::puzzles::sliding::WideSliding) of 2, 3,
/// 4, 6, 8 or 16 words (the most a board of 64 cells needs). `$body` is
/// compiled once for each width class; the class is chosen once per
/// search, never per key.
macro_rules! by_width {
    ($p:expr, |$m:ident| $body:expr) => {{
        use reach::puzzles::sliding::WideSliding;
        let p: &reach::puzzles::sliding::SlidingPuzzle = $p;
        $crate::cli::puzzle::of_width!(p, WideSliding, [2, 3, 4, 6, 8, 16], |$m| $body)
    }};
}
pub(super) use by_width;
