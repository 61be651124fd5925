//! Every position of a sliding-block puzzle's pieces, for a census
//! ([`EveryPosition`]): each class's pieces placed at every set of its
//! admissible anchors (where its pieces could go on the board without the
//! others: a car keeps to its rail) that overlaps no other piece.

use crate::engine::EveryPosition;

use super::SlidingPuzzle;

impl SlidingPuzzle {
    /// The model a census of this puzzle's pieces walks: the puzzle with
    /// [generic keys](SlidingPuzzle::with_generic_keys); refused, saying
    /// why and what to do, where those keys take more than one word (a
    /// census lists its positions as one-word keys).
    pub fn census_model(&self) -> Result<SlidingPuzzle, String> {
        if self.words() > 1 {
            return Err(format!(
                "{}'s key space passes 2^64 ({} words a key), and a census lists its positions by keys of one word\n  help: a smaller board, or fewer distinct pieces (`distinct`), brings the key space under 2^64",
                self.name(),
                self.words()
            ));
        }
        Ok(self.with_generic_keys())
    }

    /// The same puzzle with the generic keys (each class's combinadic rank
    /// in mixed radix) where it has the tile model's: a tile model's keys
    /// are the positions of the start's parity only, and a census wants
    /// both.
    pub fn with_generic_keys(&self) -> SlidingPuzzle {
        let mut g = self.clone();
        if let Some(t) = g.tiled.take() {
            g.start = t.generic_key(self, self.start);
        }
        g
    }

    /// The generic key of anchor indices `pos`, with `cells` (a word per
    /// class) as scratch: [`SlidingPuzzle::encode_generic`] without its
    /// allocation.
    pub(super) fn encode_with(&self, pos: &[u16], cells: &mut [u64]) -> u64 {
        let mut key = 0u64;
        let mut free = self.floor;
        for (ci, class) in self.classes.iter().enumerate() {
            let set = &pos[class.offset..class.offset + class.count()];
            cells[ci] = set.iter().fold(0, |m, &a| m | class.masks[a as usize]);
            if !class.free_ranked {
                key += crate::puzzles::combinadic::rank(set) * class.weight;
                free &= !cells[ci];
            }
        }
        key + self.free_part(free, cells)
    }

    /// Places the pieces from slot `slot` on, over the cells `occupied`
    /// already hold, and pushes each position's key; `false` once `out`
    /// holds more than `cap`.
    fn place(
        &self,
        slot: usize,
        occupied: u64,
        scratch: &mut Scratch,
        out: &mut Vec<u64>,
        cap: usize,
    ) -> bool {
        if slot == self.pieces {
            let key = self.encode_with(&scratch.pos, &mut scratch.cells);
            match self.tiled() {
                None => out.push(key),
                // The tile model's keys: the positions of the start's
                // parity.
                Some(t) => out.extend(t.key_of(self, &scratch.pos)),
            }
            return out.len() <= cap;
        }
        let (ci, i) = self.slots[slot];
        let class = &self.classes[usize::from(ci)];
        // Within a class, anchors rise (a set, not a sequence).
        let first = if i == 0 {
            0
        } else {
            usize::from(scratch.pos[slot - 1]) + 1
        };
        for a in first..class.anchors.len() {
            let mask = class.masks[a];
            if mask & occupied == 0 {
                scratch.pos[slot] = a as u16;
                if !self.place(slot + 1, occupied | mask, scratch, out, cap) {
                    return false;
                }
            }
        }
        true
    }
}

/// A listing's positions and each class's cells.
struct Scratch {
    pos: Vec<u16>,
    cells: Vec<u64>,
}

impl EveryPosition for SlidingPuzzle {
    fn position_parts(&self) -> usize {
        // One part for each anchor of the first piece.
        self.classes.first().map_or(1, |c| c.anchors.len().max(1))
    }

    fn part_positions(&self, part: usize, out: &mut Vec<u64>, cap: usize) -> bool {
        let mut scratch = Scratch {
            pos: vec![0; self.pieces],
            cells: vec![0; self.classes.len()],
        };
        let Some(class) = self.classes.first() else {
            return part != 0 || self.place(0, 0, &mut scratch, out, cap);
        };
        let Some(&mask) = class.masks.get(part) else {
            return true;
        };
        scratch.pos[0] = part as u16;
        self.place(1, mask, &mut scratch, out, cap)
    }
}
