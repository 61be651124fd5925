//! Every pattern of a twisty puzzle's pieces, for a census
//! ([`EveryPosition`]): each key below the key space is one, less those
//! the file's `Illegal` lines forbid.

use crate::engine::EveryPosition;

use super::{MAX_ORBIT, Twisty, WIDE_SCRATCH, illegal};

/// Keys a part of the listing holds.
const PART: u64 = 1 << 16;

/// Where every key is a pattern ([`Model::keys_are_states`](crate::engine::Model::keys_are_states):
/// reversible moves and no `Illegal` line), the census numbers the
/// patterns by their keys and lists none; otherwise it lists the legal
/// ones, a range of keys a part.
impl EveryPosition for Twisty {
    fn position_parts(&self) -> usize {
        self.key_space.div_ceil(PART).max(1) as usize
    }

    fn part_positions(&self, part: usize, out: &mut Vec<u64>, cap: usize) -> bool {
        let from = part as u64 * PART;
        let mut scratch = vec![0u8; 2 * MAX_ORBIT];
        let mut wide = vec![0u64; WIDE_SCRATCH];
        for key in from..(from + PART).min(self.key_space) {
            if self.illegal.is_empty() || illegal::legal(self, |_| key, &mut scratch, &mut wide) {
                out.push(key);
                if out.len() > cap {
                    return false;
                }
            }
        }
        true
    }
}
