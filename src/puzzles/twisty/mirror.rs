//! Finding a mirror image of a twisty puzzle from its moves alone.
//!
//! A file declares its rotations, never its mirrors: a mirror cannot be
//! written as a move (it turns every clockwise twist anticlockwise). So
//! a mirror is searched for. What is sought is a map `Φ` of positions
//! that takes each place's piece from place `π(g)`, keeps which piece it
//! is (up to a relabelling), and negates its orientation up to a
//! constant a place:
//!
//! ```text
//! Φ(x)[g] = (μ(l), c[g] + β(l) - o)   where (l, o) = x[π(g)]
//! ```
//!
//! `Φ` maps the state graph onto itself when every move `m` has a move
//! `φ(m)` with `Φ(x·m) = Φ(x)·φ(m)` for every `x`. Written out (a move
//! takes place `g`'s piece from `src[g]` and adds `twist[g]`), that is,
//! for every place `g`, with `m' = φ(m)`:
//!
//! ```text
//! π(src_m'[g]) = src_m[π(g)]                          (the places)
//! c[src_m'[g]] = c[g] - twist_m[π(g)] - twist_m'[g]   (the twists)
//! ```
//!
//! The relabelling cancels out of both, so the search finds `π` and `φ`
//! by backtracking over these equations (each choice of a move's image
//! or a place's image propagates along every move whose image is
//! known), then solves the twists for `c` place by place along the
//! moves. What it finds is only a candidate: [`super::Symmetry`] derives
//! the relabelling from the solved position and checks the start, the
//! `Illegal` lines and every move again before it uses it.

/// A move (or a candidate) as it acts on places numbered set after set:
/// where each place's piece comes from, and the twist it gains there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Flat {
    pub src: Vec<u16>,
    pub twist: Vec<u8>,
}

/// How a search for a mirror ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A candidate was accepted.
    Accepted,
    /// Every candidate was tried; none was accepted.
    Exhausted,
    /// The search took its budget of steps first.
    OutOfBudget,
}

const NONE: u32 = u32::MAX;

/// A partial map: places (`pi`, and back), moves (`phi`, and back).
#[derive(Clone)]
struct Partial {
    pi: Vec<u32>,
    pinv: Vec<u32>,
    phi: Vec<u32>,
    phinv: Vec<u32>,
}

struct Search<'a> {
    /// The move whose image is chosen first ([`first_move`]).
    first: usize,
    moves: &'a [Flat],
    /// Each move's powers from its square on, as moves (`None` where a
    /// power is not one): a move's image fixes its powers' images.
    powers: Vec<Vec<Option<usize>>>,
    set_of: &'a [usize],
    modulus: &'a [u8],
    /// Each move's shape: its places' cycle lengths, set by set, sorted.
    /// A move's image has the same.
    shape: Vec<Vec<(usize, u32)>>,
    steps: u64,
    budget: u64,
}

/// Where a search for a mirror may start: the images of the first move
/// it tries (`first`), and with image `m2`, the images of the first place
/// that `m2` moves (`seed(m2, h)`). The symmetries already known make
/// most of them redundant: a mirror times a rotation, on either side, is
/// a mirror, so one image in each orbit of the rotations suffices.
pub(super) struct Starts<'a> {
    pub first: &'a dyn Fn(usize) -> bool,
    pub seed: &'a dyn Fn(usize, usize) -> bool,
}

/// Searches for maps of the form above that map `moves` onto themselves,
/// from `starts`, and hands each (`π` as `src`, `c` as `twist`) to
/// `accept` until it accepts one or `budget` steps are spent. `set_of`
/// and `modulus` give each place's set and its number of orientations.
pub(super) fn find(
    moves: &[Flat],
    set_of: &[usize],
    modulus: &[u8],
    budget: u64,
    starts: &Starts,
    accept: &mut dyn FnMut(&Flat) -> bool,
) -> Outcome {
    let Some(first) = first_move(moves) else {
        return Outcome::Exhausted;
    };
    let shape = moves.iter().map(|m| shape(m, set_of)).collect();
    let mut search = Search {
        first,
        moves,
        powers: powers(moves, modulus),
        set_of,
        modulus,
        shape,
        steps: 0,
        budget,
    };
    let places = set_of.len();
    let start = Partial {
        pi: vec![NONE; places],
        pinv: vec![NONE; places],
        phi: vec![NONE; moves.len()],
        phinv: vec![NONE; moves.len()],
    };
    match search.go(start, starts, accept) {
        Ok(true) => Outcome::Accepted,
        Ok(false) => Outcome::Exhausted,
        Err(()) => Outcome::OutOfBudget,
    }
}

/// The move a search chooses an image for first: the first that moves a
/// place (a move that only twists pieces in place gives no place to
/// start from); `None` where no move moves one.
pub(super) fn first_move(moves: &[Flat]) -> Option<usize> {
    moves
        .iter()
        .position(|m| m.src.iter().enumerate().any(|(g, &h)| usize::from(h) != g))
}

/// The cycle lengths of `m`'s places, with each cycle's set, sorted.
fn shape(m: &Flat, set_of: &[usize]) -> Vec<(usize, u32)> {
    let mut seen = vec![false; m.src.len()];
    let mut out = Vec::new();
    for g in 0..m.src.len() {
        if seen[g] {
            continue;
        }
        let mut len = 0;
        let mut at = g;
        while !seen[at] {
            seen[at] = true;
            at = usize::from(m.src[at]);
            len += 1;
        }
        out.push((set_of[g], len));
    }
    out.sort_unstable();
    out
}

/// `b`, then `a`, as one move: `(x·b)·a`.
fn then(b: &Flat, a: &Flat, modulus: &[u8]) -> Flat {
    let src = a.src.iter().map(|&h| b.src[usize::from(h)]).collect();
    let twist = (0..a.src.len())
        .map(|g| {
            let n = u16::from(modulus[g].max(1));
            ((u16::from(b.twist[usize::from(a.src[g])]) + u16::from(a.twist[g])) % n) as u8
        })
        .collect();
    Flat { src, twist }
}

/// Each move's powers from its square until the identity, as moves.
fn powers(moves: &[Flat], modulus: &[u8]) -> Vec<Vec<Option<usize>>> {
    let index: std::collections::HashMap<&Flat, usize> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| (m, i))
        .rev()
        .collect();
    let is_identity = |f: &Flat| {
        f.src.iter().enumerate().all(|(g, &h)| usize::from(h) == g)
            && f.twist
                .iter()
                .zip(modulus)
                .all(|(&t, &n)| t % n.max(1) == 0)
    };
    moves
        .iter()
        .map(|m| {
            let mut out = Vec::new();
            let mut p = then(m, m, modulus);
            // A move's order is at most a few hundred; past it, stop.
            while !is_identity(&p) && out.len() < 1 << 10 {
                out.push(index.get(&p).copied());
                p = then(&p, m, modulus);
            }
            out
        })
        .collect()
}

/// The length of the cycle of `m`'s places through `g`.
fn cycle_len(m: &Flat, g: usize) -> u32 {
    let mut len = 1;
    let mut at = usize::from(m.src[g]);
    while at != g {
        at = usize::from(m.src[at]);
        len += 1;
    }
    len
}

impl Search<'_> {
    fn step(&mut self, n: u64) -> Result<(), ()> {
        self.steps += n;
        if self.steps > self.budget {
            Err(())
        } else {
            Ok(())
        }
    }

    /// Extends `p` along every move whose image is known; `false` where
    /// two equations disagree or `π` would not be one to one.
    fn propagate(&mut self, p: &mut Partial) -> Result<bool, ()> {
        loop {
            let mut changed = false;
            for m in 0..self.moves.len() {
                let m2 = p.phi[m];
                if m2 == NONE {
                    continue;
                }
                self.step(self.set_of.len() as u64)?;
                let (input, output) = (&self.moves[m], &self.moves[m2 as usize]);
                for g in 0..self.set_of.len() {
                    let h = p.pi[g];
                    if h == NONE {
                        continue;
                    }
                    let g2 = usize::from(output.src[g]);
                    let h2 = u32::from(input.src[h as usize]);
                    match p.pi[g2] {
                        NONE => {
                            if p.pinv[h2 as usize] != NONE
                                || self.set_of[g2] != self.set_of[h2 as usize]
                            {
                                return Ok(false);
                            }
                            p.pi[g2] = h2;
                            p.pinv[h2 as usize] = g2 as u32;
                            changed = true;
                        }
                        x if x != h2 => return Ok(false),
                        _ => {}
                    }
                }
            }
            if !changed {
                return Ok(true);
            }
        }
    }

    /// `p` with `m2` the image of input move `m`, and each power of `m`
    /// the same power of `m2`; `false` where that contradicts `p`.
    fn assign(&self, p: &mut Partial, m: usize, m2: usize) -> bool {
        let (a, b) = (&self.powers[m], &self.powers[m2]);
        if a.len() != b.len() {
            return false;
        }
        let pairs =
            std::iter::once((Some(m), Some(m2))).chain(a.iter().copied().zip(b.iter().copied()));
        for pair in pairs {
            match pair {
                (None, None) => {}
                (Some(x), Some(y)) => {
                    if p.phi[x] == NONE && p.phinv[y] == NONE {
                        p.phi[x] = y as u32;
                        p.phinv[y] = x as u32;
                    } else if p.phi[x] != y as u32 {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// Whether `m2` may be the image of input move `m` under `p`.
    fn may_map(&self, p: &Partial, m: usize, m2: usize) -> bool {
        if p.phinv[m2] != NONE || self.shape[m] != self.shape[m2] {
            return false;
        }
        let (input, output) = (&self.moves[m], &self.moves[m2]);
        (0..self.set_of.len()).all(|g| {
            let h = p.pi[g];
            if h == NONE {
                return true;
            }
            let g2 = usize::from(output.src[g]);
            let h2 = usize::from(input.src[h as usize]);
            (p.pi[g2] == NONE || p.pi[g2] as usize == h2)
                && (p.pinv[h2] == NONE || p.pinv[h2] as usize == g2)
        })
    }

    fn go(
        &mut self,
        mut p: Partial,
        starts: &Starts,
        accept: &mut dyn FnMut(&Flat) -> bool,
    ) -> Result<bool, ()> {
        if !self.propagate(&mut p)? {
            return Ok(false);
        }
        let any_place = p.pi.iter().any(|&h| h != NONE);
        let unmapped: Vec<usize> = (0..self.moves.len())
            .filter(|&m| p.phi[m] == NONE)
            .collect();
        if !any_place {
            return match p.phi[self.first] {
                // The first move's image first.
                NONE => self.branch_first(&p, starts, accept),
                // Then a place it moves.
                _ => self.branch_seed(&p, self.first, starts, accept),
            };
        }
        if !unmapped.is_empty() {
            // The move with the fewest images left.
            let mut best: Option<(usize, Vec<usize>)> = None;
            for &m in &unmapped {
                self.step(self.moves.len() as u64 * self.set_of.len() as u64)?;
                let options: Vec<usize> = (0..self.moves.len())
                    .filter(|&m2| self.may_map(&p, m, m2))
                    .collect();
                if best.as_ref().is_none_or(|(_, b)| options.len() < b.len()) {
                    let done = options.len() <= 1;
                    best = Some((m, options));
                    if done {
                        break;
                    }
                }
            }
            let (m, options) = best.expect("a move is unmapped");
            for m2 in options {
                let mut q = p.clone();
                if self.assign(&mut q, m, m2) && self.go(q, starts, accept)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        // Every move mapped: a place left is in an orbit of its own.
        if let Some(g) = (0..p.pi.len()).find(|&g| p.pi[g] == NONE) {
            for h in 0..p.pi.len() {
                if p.pinv[h] != NONE || self.set_of[h] != self.set_of[g] {
                    continue;
                }
                self.step(1)?;
                let mut q = p.clone();
                q.pi[g] = h as u32;
                q.pinv[h] = g as u32;
                if self.go(q, starts, accept)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        self.step(self.moves.len() as u64 * self.set_of.len() as u64)?;
        match self.twists(&p) {
            Some(candidate) => Ok(accept(&candidate)),
            None => Ok(false),
        }
    }

    /// Tries every image of the first move that `starts` allows.
    fn branch_first(
        &mut self,
        p: &Partial,
        starts: &Starts,
        accept: &mut dyn FnMut(&Flat) -> bool,
    ) -> Result<bool, ()> {
        let m = self.first;
        for m2 in 0..self.moves.len() {
            if !self.may_map(p, m, m2) || !(starts.first)(m2) {
                continue;
            }
            let mut q = p.clone();
            if self.assign(&mut q, m, m2) && self.go(q, starts, accept)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// With move `m`'s image known and no place mapped: tries every image
    /// of the first place that `m`'s image moves.
    fn branch_seed(
        &mut self,
        p: &Partial,
        m: usize,
        starts: &Starts,
        accept: &mut dyn FnMut(&Flat) -> bool,
    ) -> Result<bool, ()> {
        let (input, output) = (&self.moves[m], &self.moves[p.phi[m] as usize]);
        let moved = |f: &Flat, g: usize| usize::from(f.src[g]) != g;
        let Some(g) = (0..self.set_of.len()).find(|&g| moved(output, g)) else {
            // A move that moves nothing: no place to start from.
            return Ok(false);
        };
        let len = cycle_len(output, g);
        for h in 0..self.set_of.len() {
            if self.set_of[h] != self.set_of[g]
                || !moved(input, h)
                || cycle_len(input, h) != len
                || !(starts.seed)(p.phi[m] as usize, h)
            {
                continue;
            }
            let mut q = p.clone();
            q.pi[g] = h as u32;
            q.pinv[h] = g as u32;
            if self.go(q, starts, accept)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// With `π` and `φ` whole: the twists `c` that negate every
    /// orientation, solved orbit by orbit from 0 at its first place, or
    /// `None` where the equations disagree.
    fn twists(&self, p: &Partial) -> Option<Flat> {
        let places = self.set_of.len();
        let mut c: Vec<Option<u8>> = vec![None; places];
        let mut stack = Vec::new();
        for seed in 0..places {
            if c[seed].is_some() {
                continue;
            }
            c[seed] = Some(0);
            stack.push(seed);
            while let Some(g) = stack.pop() {
                let cg = u16::from(c[g].expect("set before it is pushed"));
                for (m, &m2) in p.phi.iter().enumerate() {
                    let (input, output) = (&self.moves[m], &self.moves[m2 as usize]);
                    let h = usize::from(output.src[g]);
                    let n = u16::from(self.modulus[g].max(1));
                    let lose =
                        u16::from(input.twist[p.pi[g] as usize]) + u16::from(output.twist[g]);
                    let ch = ((cg + 2 * n - lose % n) % n) as u8;
                    match c[h] {
                        None => {
                            c[h] = Some(ch);
                            stack.push(h);
                        }
                        Some(x) if x != ch => return None,
                        Some(_) => {}
                    }
                }
            }
        }
        Some(Flat {
            src: p.pi.iter().map(|&h| h as u16).collect(),
            twist: c
                .into_iter()
                .map(|x| x.expect("every place solved"))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_first(_: usize) -> bool {
        true
    }

    fn every_seed(_: usize, _: usize) -> bool {
        true
    }

    /// Every start: no symmetry known to narrow them.
    const EVERY: Starts<'static> = Starts {
        first: &every_first,
        seed: &every_seed,
    };

    /// A square's four corners, each with three orientations, turned by a
    /// quarter turn `Q` (each corner twisted by 1) and its inverse: the
    /// mirror in the square's diagonal maps `Q` to `Q'`.
    #[test]
    fn a_square_of_twisting_corners_has_a_mirror() {
        let q = Flat {
            src: vec![3, 0, 1, 2],
            twist: vec![1; 4],
        };
        let q_inv = Flat {
            src: vec![1, 2, 3, 0],
            twist: vec![2; 4],
        };
        let moves = [q, q_inv];
        let mut found = Vec::new();
        let out = find(&moves, &[0; 4], &[3; 4], 1 << 20, &EVERY, &mut |c| {
            found.push(c.clone());
            false
        });
        assert_eq!(out, Outcome::Exhausted);
        // Every reflection of the square: four choices of where place 0
        // goes, each mapping Q to Q'; rotations (Q to Q) do not negate.
        assert_eq!(found.len(), 4, "{found:?}");
        for f in &found {
            // A reflection reverses the cycle: π(src_Q'[g]) = src_Q[π(g)].
            for g in 0..4 {
                let lhs = f.src[usize::from(moves[1].src[g])];
                let rhs = moves[0].src[usize::from(f.src[g])];
                assert_eq!(lhs, rhs);
            }
        }
    }

    #[test]
    fn the_budget_ends_a_search() {
        let q = Flat {
            src: vec![1, 2, 3, 0],
            twist: vec![0; 4],
        };
        let out = find(&[q], &[0; 4], &[1; 4], 3, &EVERY, &mut |_| false);
        assert_eq!(out, Outcome::OutOfBudget);
    }
}
