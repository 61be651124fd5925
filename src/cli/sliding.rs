//! Sliding-block puzzles on the command line: the model their keys need.

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p` as
/// the model its keys need: the puzzle itself where a key is one word,
/// else a [`WideSliding`](reach::puzzles::sliding::WideSliding) of 2, 3,
/// 4, 6, 8 or 16 words (the most a board of 64 cells needs). `$body` is
/// compiled once for each width class; the class is chosen once per
/// search, never per key. The library's, which
/// [`Prepared::visit`](reach::puzzles::any::Prepared::visit) uses too.
pub(super) use reach::sliding_of_width as by_width;
