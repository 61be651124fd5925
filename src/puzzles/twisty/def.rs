//! A permutation puzzle's definition, as the two file formats give it:
//! sets of pieces, a solved pattern, named moves. Everything here is
//! 0-based; the `.tws` reader turns its 1-based pieces into these.

/// One set of pieces (an "orbit" in KPuzzle's words): `size` positions,
/// each piece with `orientations` orientations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    /// Its name in the file.
    pub name: String,
    /// Positions (and pieces).
    pub size: usize,
    /// Orientations of each piece, 1 when orientation does not matter.
    pub orientations: u8,
}

/// The orientation of a piece whose orientation does not matter (twsearch's
/// `?` wildcard): a move's twist leaves it as it is, so positions that
/// differ only in such a piece's orientation are one position.
pub const WILD: u8 = u8::MAX;

/// A position of the whole puzzle: the piece at each position of each set,
/// and its orientation ([`WILD`] for a piece whose orientation does not
/// matter). Equal piece numbers are identical pieces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// `pieces[set][position]`, 0-based.
    pub pieces: Vec<Vec<u16>>,
    /// `ori[set][position]`, below the set's orientations.
    pub ori: Vec<Vec<u8>>,
}

/// What a move does to every set: the piece that lands at position `i`
/// comes from position `perm[i]`, and its orientation grows by `ori[i]`
/// (twsearch's and cubing.js's convention).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Transform {
    /// `perm[set][i]`: where the piece that ends at `i` was.
    pub perm: Vec<Vec<u16>>,
    /// `ori[set][i]`: the orientation it gains.
    pub ori: Vec<Vec<u8>>,
}

/// A named move of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveDef {
    /// Its name in the file (`U`, `R`, `ABDE`).
    pub name: String,
    /// What it does.
    pub transform: Transform,
}

/// The format a definition was read from: solutions and positions are
/// written back in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// KSolve's text format, read by twsearch (`.tws`): pieces 1-based.
    Tws,
    /// cubing.js's KPuzzle JSON, read by twips: pieces 0-based.
    KPuzzle,
}

/// A whole puzzle file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The puzzle's name (the file's `Name`, or the file name).
    pub name: String,
    /// Which format it came from.
    pub format: Format,
    /// Its sets, in file order.
    pub sets: Vec<Set>,
    /// The solved pattern: the goal, and the start of a count.
    pub solved: Pattern,
    /// A start other than the solved pattern (`.tws`'s `ScrambleState`).
    pub scramble: Option<Pattern>,
    /// Its moves, in file order.
    pub moves: Vec<MoveDef>,
    /// The file it came from, for errors.
    pub origin: String,
    /// Where each set is declared (1-based line and column).
    pub set_at: Vec<(usize, usize)>,
    /// Where each move is defined (1-based line and column).
    pub move_at: Vec<(usize, usize)>,
    /// Whole-puzzle rotations (twsearch's `Move Fv`, `Move x`): no moves of
    /// the search, but steps of a `MoveSequence` or a scramble.
    pub rotations: Vec<MoveDef>,
    /// Other names for a move or a sequence of moves (`MoveAlias`): taken
    /// by `--moves` and scrambles, no moves of their own.
    pub aliases: Vec<MoveDef>,
    /// Positions that a piece may never stand at (`Illegal SET POS
    /// PIECE`), as (set, position, piece), 0-based: the search never
    /// enters such a position.
    pub illegal: Vec<(usize, usize, u16)>,
}

impl Definition {
    /// `file:line:column` of set `s`'s declaration, for errors.
    pub fn place(&self, s: usize) -> String {
        let (line, col) = self.set_at[s];
        format!("{}:{line}:{col}", self.origin)
    }

    /// `file:line:column` of move `m`'s definition, for errors.
    pub fn move_place(&self, m: usize) -> String {
        let (line, col) = self.move_at.get(m).copied().unwrap_or((1, 1));
        format!("{}:{line}:{col}", self.origin)
    }
}

impl Transform {
    /// The transform that changes nothing.
    pub fn identity(sets: &[Set]) -> Transform {
        Transform {
            perm: sets.iter().map(|s| (0..s.size as u16).collect()).collect(),
            ori: sets.iter().map(|s| vec![0; s.size]).collect(),
        }
    }

    /// Whether it changes nothing.
    pub fn is_identity(&self) -> bool {
        self.perm
            .iter()
            .all(|p| p.iter().enumerate().all(|(i, &j)| i == usize::from(j)))
            && self.ori.iter().all(|o| o.iter().all(|&d| d == 0))
    }

    /// `self` then `next`: a transform moves pieces as it moves a
    /// pattern's, so this is `next` acting on `self` read as a pattern.
    pub fn then(&self, next: &Transform, sets: &[Set]) -> Transform {
        let (perm, ori) = act(&self.perm, &self.ori, next, sets);
        Transform { perm, ori }
    }

    /// The smallest `k >= 1` with `self^k` the identity, if it is at most
    /// `cap`.
    pub fn order(&self, sets: &[Set], cap: u32) -> Option<u32> {
        let mut power = self.clone();
        for k in 1..=cap {
            if power.is_identity() {
                return Some(k);
            }
            power = power.then(self, sets);
        }
        None
    }

    /// `self^k`.
    pub fn power(&self, k: u32, sets: &[Set]) -> Transform {
        let mut out = Transform::identity(sets);
        for _ in 0..k {
            out = out.then(self, sets);
        }
        out
    }
}

impl Pattern {
    /// The pattern after `t`.
    pub fn apply(&self, t: &Transform, sets: &[Set]) -> Pattern {
        let (pieces, ori) = act(&self.pieces, &self.ori, t, sets);
        Pattern { pieces, ori }
    }
}

/// What `t` makes of pieces and orientations set by set (twsearch's rule):
/// `new[i] = old[t.perm[i]]`, `new_ori[i] = old_ori[t.perm[i]] + t.ori[i]`.
fn act(
    pieces: &[Vec<u16>],
    ori: &[Vec<u8>],
    t: &Transform,
    sets: &[Set],
) -> (Vec<Vec<u16>>, Vec<Vec<u8>>) {
    let mut new_pieces = pieces.to_vec();
    let mut new_ori = ori.to_vec();
    for (s, set) in sets.iter().enumerate() {
        let o = u16::from(set.orientations);
        for i in 0..set.size {
            let j = usize::from(t.perm[s][i]);
            new_pieces[s][i] = pieces[s][j];
            new_ori[s][i] = match ori[s][j] {
                WILD => WILD,
                d => ((u16::from(d) + u16::from(t.ori[s][i])) % o) as u8,
            };
        }
    }
    (new_pieces, new_ori)
}
