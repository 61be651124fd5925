//! Symmetry: a twisty puzzle searched one class of symmetric positions at
//! a time.
//!
//! A file's whole-puzzle rotations (twsearch's `Move Fv`, `Move x`)
//! generate a group. Each element `s` of it maps a position `P` to its
//! *conjugate*: turn the puzzle by `s⁻¹`, make the moves that made `P`,
//! turn it back. On the position itself that is `σ(P)·s`: every piece
//! relabelled by `σ` (the relabelling that `s⁻¹` makes of the solved
//! position, which must be one: a map from each piece to one piece, and
//! from its orientation to one shifted by a fixed twist) and the whole
//! pattern turned by `s`. A move `m` of a conjugate is the conjugate of
//! the move `s⁻¹ m s`, so conjugation maps the state graph onto itself,
//! level by level, exactly when
//!
//! - the solved position is relabelled by `s⁻¹` (its pieces map to
//!   pieces, each label to one label and one twist),
//! - every move's conjugate `s⁻¹ m s` is a move of the search (so a
//!   restricted move set, `--moves U,R`, keeps only the rotations that
//!   map it onto itself),
//! - the start is its own conjugate, and
//! - the file's `Illegal` lines map onto themselves.
//!
//! Each of these is checked for every element, never assumed, and the
//! elements that pass form a group (each check is "`s` fixes something",
//! which products and inverses keep): the symmetries used. A position's
//! class is its conjugates; its representative, the one whose pieces and
//! orientations, read position by position, come first; its size, the
//! group's order over the number of elements that fix it. The search
//! keeps one key a class ([`Symmetric`]): the representative's key, with
//! the class's size as a digit above it, so that the engine weighs a
//! level by its keys alone and every level it reports is a number of
//! positions.
//!
//! A file declares no mirror image (one is no move: it turns every
//! clockwise twist anticlockwise), so one is searched for from the moves
//! ([`super::mirror`]), checked as a rotation is, and kept where it turns
//! the rotations into rotations; the group it generates with them is
//! closed and checked element by element ([`Symmetry::of`];
//! [`Symmetry::of_rotations`] leaves mirror images out).
//!
//! While the search runs, a place's contents are a dense code (its
//! piece's label and orientation), and each symmetry and each move is a
//! table from a place's code to a code: a conjugate's place is two
//! lookups. The representative is found by comparing every conjugate's
//! first place at once and going on only with those that tie there.

use std::collections::HashSet;
use std::marker::PhantomData;

use super::coord::Kind;
use super::mirror::{self, Flat};
use super::{MAX_ORBIT, Transform, Twisty, WIDE_SCRATCH, WILD, inverse, key_from};
use crate::engine::{Key, Model};

/// The most elements a file's rotations may generate: the rotations and
/// mirrors of a polyhedron are at most 120; a file whose "rotations"
/// generate more is turning parts of the puzzle, not all of it.
const MAX_ELEMENTS: usize = 1 << 10;

/// A position as one code a place, while the symmetries are checked: its
/// piece's label times 256 plus its orientation ([`WILD`] where it does
/// not matter), places numbered set after set.
type Code = u32;

/// A place's code in a search: its piece's label times the place's radix
/// plus its orientation (the radix's last value standing for [`WILD`] in
/// a set that has wildcards). The codes of a place's set are dense, so
/// a symmetry or a move is a table from a code to a code for each place.
type Dense = u16;

/// The most table entries the symmetries and the moves may take: 128 MiB.
const MAX_TABLE: usize = 1 << 26;

/// Symmetries or moves as tables, side by side: the new code at place
/// `g` of what table `i` makes of `q` is
/// `to[i * span + base[g] + q[src[i * places + g]]]`. Side by side, a
/// place of a conjugate or of a move is one index, and no pointer.
#[derive(Clone, Debug, Default)]
struct Tables {
    src: Vec<u16>,
    to: Vec<Dense>,
    places: usize,
    span: usize,
}

impl Tables {
    /// Room for tables of `places` places and `span` entries each.
    fn new(places: usize, span: usize) -> Tables {
        Tables {
            places,
            span,
            ..Tables::default()
        }
    }

    fn push(&mut self, src: &[u16], to: &[Dense]) {
        debug_assert!(src.len() == self.places && to.len() == self.span);
        self.src.extend_from_slice(src);
        self.to.extend_from_slice(to);
    }

    fn len(&self) -> usize {
        self.src.len().checked_div(self.places).unwrap_or(0)
    }

    fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Place `g` of what table `i` makes of `q`; `base` is the place's
    /// first table entry.
    #[inline]
    fn at(&self, i: usize, q: &[Dense], g: usize, base: u32) -> Dense {
        let from = usize::from(self.src[i * self.places + g]);
        self.to[i * self.span + base as usize + usize::from(q[from])]
    }
}

/// The symmetries that bring place `place`'s piece to place 0, and by a
/// code at `place` the least code they make of it there: a conjugate's
/// place 0 is first compared a group at a time (a rotation group's
/// elements that fix a place: two a place on a cube's edges).
#[derive(Clone, Debug)]
struct FirstGroup {
    place: usize,
    elements: Vec<usize>,
    least: Vec<Dense>,
}

impl FirstGroup {
    /// The groups of `elements`, whose place 0 has `first_codes` codes.
    fn of(elements: &Tables, first_codes: usize) -> Vec<FirstGroup> {
        let mut groups: Vec<FirstGroup> = Vec::new();
        for i in 0..elements.len() {
            let place = usize::from(elements.src[i * elements.places]);
            let group = match groups.iter().position(|g| g.place == place) {
                Some(at) => &mut groups[at],
                None => {
                    groups.push(FirstGroup {
                        place,
                        elements: Vec::new(),
                        least: vec![Dense::MAX; first_codes],
                    });
                    groups.last_mut().expect("just pushed")
                }
            };
            group.elements.push(i);
            let to = &elements.to[i * elements.span..][..first_codes];
            for (least, &to) in group.least.iter_mut().zip(to) {
                *least = (*least).min(to);
            }
        }
        groups
    }
}

/// One symmetry, as it acts on codes: the conjugate's place `g` holds the
/// piece at place `src[g]`, relabelled, its orientation turned by the
/// relabelling's twist and by `twist[g]`.
#[derive(Clone, Debug)]
struct Element {
    src: Vec<u16>,
    twist: Vec<u8>,
    /// By the set's first label plus the label: the label a piece takes
    /// and the orientation it gains.
    relabel: Vec<(u16, u8)>,
    /// Whether it negates every orientation first (a mirror image: it
    /// turns a clockwise twist anticlockwise).
    negate: bool,
}

/// Whether a twisty puzzle's symmetries take mirror images too, and what
/// the search for one found ([`Symmetry::mirrors`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mirrors {
    /// Not looked for: the rotations alone were asked for
    /// ([`Symmetry::of_rotations`]), or there are none to pair with.
    NotSought,
    /// Found: the group that the rotations kept and a mirror image
    /// generate.
    Found {
        /// Its mirror images: half of it, where some set's orientations
        /// tell a mirror image from a rotation.
        mirrors: usize,
        /// Its elements that are neither those rotations nor mirror
        /// images: products that map the puzzle onto itself as a
        /// rotation does, but that the file's rotations do not generate.
        others: usize,
    },
    /// Looked for and not used, with why.
    NotFound(String),
}

/// The most steps a search for a mirror takes (see [`super::mirror`]):
/// twsearch's samples/symm that have one take at most a few million
/// (the 3x3x3 about 40 thousand, the megaminx a million); the 5x5x5 and
/// larger cubes find none within it.
const MIRROR_BUDGET: u64 = 10_000_000;

/// The symmetries of a twisty puzzle under its search's moves, from its
/// start (see the module's notes).
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// The rotations the file declares, by name.
    rotations: Vec<String>,
    /// The order of the group they generate.
    generated: usize,
    /// The elements kept, the identity first, as tables.
    elements: Tables,
    /// The elements by the place whose piece they bring to place 0.
    first_groups: Vec<FirstGroup>,
    /// The search's moves as tables, in the order of [`Twisty::moves`].
    moves: Tables,
    /// Each place's first entry in a table.
    base: Vec<u32>,
    /// Each place's radix: its set's orientations, plus one where the set
    /// has a wildcard.
    radix: Vec<u16>,
    /// Whether each place's last orientation value is the wildcard.
    wild: Vec<bool>,
    /// The start's codes.
    start: Vec<Dense>,
    /// By a place's first table entry plus a code: the kind of its piece
    /// in the place's arrangement coordinate, and its orientation (0 for
    /// a wildcard), as a key's coordinates read them.
    kind_at: Vec<u8>,
    ori_at: Vec<u8>,
    /// By a place's first table entry plus a code: its piece's label, and
    /// its orientation negated (what [`Symmetry::invert`] reads).
    invert_at: Vec<[Dense; 2]>,
    /// Why some (or all) were not kept, when some were not.
    dropped: Option<String>,
    /// Each place's number of orientations.
    modulus: Vec<u8>,
    /// Each place's set's first label in [`Element::relabel`].
    label_base: Vec<u32>,
    /// Each set's first place.
    offsets: Vec<usize>,
    /// Each set's number of labels.
    set_labels: Vec<usize>,
    /// The start's codes, as the checks read them.
    start_codes: Vec<Code>,
    /// (place, label) pairs that the file's `Illegal` lines forbid.
    illegal: Vec<(usize, u16)>,
    /// For each coordinate, the kind of each label (its index among the
    /// coordinate's pieces).
    kinds: Vec<Vec<u8>>,
    /// How a class's size is written into its key (see [`Sizes`]).
    sizes: Sizes,
    /// Whether a position's inverse is in its class too (see
    /// [`Symmetry::inverse`]), and each set's first place, size and radix
    /// for inverting.
    inverse: bool,
    sets: Vec<(usize, usize, u16)>,
    /// Whether mirror images were looked for, and what was found.
    mirrors: Mirrors,
    /// How many elements of the rotations' group are symmetries.
    kept_rotations: usize,
    /// The solved position's codes, as the checks read them.
    solved_codes: Vec<Code>,
}

/// Where a key says its class's size: which of the group order's divisors
/// fixes the representative (`fixing`), as a digit of `fixing.len()`
/// values above the position's key: times `weight` in word `word` (the
/// top word of the position's key where it has room, else a word of its
/// own, `weight` 1).
#[derive(Clone, Debug)]
struct Sizes {
    fixing: Vec<u64>,
    word: usize,
    weight: u64,
    /// The words of a key.
    words: usize,
}

impl Sizes {
    /// For a group of `order` elements and `twisty`'s keys.
    fn new(order: usize, twisty: &Twisty) -> Sizes {
        let order = order as u64;
        let fixing: Vec<u64> = (1..=order).filter(|d| order.is_multiple_of(*d)).collect();
        let top = twisty.words() - 1;
        let used: u64 = twisty
            .parts
            .iter()
            .filter(|p| p.word == top)
            .map(|p| p.size)
            .product();
        match used.checked_mul(fixing.len() as u64) {
            Some(_) => Sizes {
                fixing,
                word: top,
                weight: used,
                words: top + 1,
            },
            None => Sizes {
                fixing,
                word: top + 1,
                weight: 1,
                words: top + 2,
            },
        }
    }
}

impl Symmetry {
    /// The symmetries of `twisty` that its file's rotations generate, and
    /// their mirror images where a mirror maps the puzzle onto itself
    /// (see [`super::mirror`]; a file declares none, so one is searched
    /// for and checked as the rotations are).
    pub fn of(twisty: &Twisty) -> Symmetry {
        Symmetry::with(twisty, true)
    }

    /// The symmetries of `twisty` that its file's rotations generate,
    /// without mirror images (twsearch's reduction).
    pub fn of_rotations(twisty: &Twisty) -> Symmetry {
        Symmetry::with(twisty, false)
    }

    fn with(twisty: &Twisty, mirrors: bool) -> Symmetry {
        let def = &twisty.def;
        let sets = &def.sets;
        let mut offsets = Vec::with_capacity(sets.len());
        let (mut modulus, mut label_base) = (Vec::new(), Vec::new());
        // Labels: every piece number in the solved and the start pattern.
        let labels: Vec<usize> = sets
            .iter()
            .enumerate()
            .map(|(s, set)| {
                let most = def.solved.pieces[s]
                    .iter()
                    .chain(&twisty.start.pieces[s])
                    .map(|&p| usize::from(p) + 1)
                    .max()
                    .unwrap_or(0);
                most.max(set.size)
            })
            .collect();
        let places: usize = sets.iter().map(|set| set.size).sum();
        let mut first_label = 0u32;
        for (s, set) in sets.iter().enumerate() {
            offsets.push(modulus.len());
            for _ in 0..set.size {
                modulus.push(set.orientations.max(1));
                label_base.push(first_label);
            }
            first_label += labels[s] as u32;
        }
        let codes = |p: &super::Pattern| -> Vec<Code> {
            p.pieces
                .iter()
                .zip(&p.ori)
                .flat_map(|(pieces, ori)| {
                    pieces
                        .iter()
                        .zip(ori)
                        .map(|(&l, &o)| (Code::from(l) << 8) | Code::from(o))
                })
                .collect()
        };
        let kinds = kinds(twisty, &labels);
        let mut illegal: Vec<(usize, u16)> = def
            .illegal
            .iter()
            .map(|&(s, pos, piece)| (offsets[s] + pos, piece))
            .collect();
        illegal.sort_unstable();
        illegal.dedup();
        let mut sym = Symmetry {
            rotations: def.rotations.iter().map(|r| r.name.clone()).collect(),
            generated: 1,
            elements: Tables::default(),
            first_groups: Vec::new(),
            dropped: None,
            moves: Tables::default(),
            base: Vec::new(),
            radix: Vec::new(),
            wild: Vec::new(),
            start: Vec::new(),
            kind_at: Vec::new(),
            ori_at: Vec::new(),
            invert_at: Vec::new(),
            start_codes: codes(&twisty.start),
            illegal,
            kinds,
            modulus,
            label_base,
            offsets,
            set_labels: labels,
            sizes: Sizes {
                fixing: vec![1],
                word: 0,
                weight: 1,
                words: twisty.words(),
            },
            inverse: false,
            sets: Vec::new(),
            mirrors: Mirrors::NotSought,
            kept_rotations: 0,
            solved_codes: codes(&def.solved),
        };
        if places > usize::from(u16::MAX) {
            // Places are numbered in 16 bits.
            sym.dropped = Some(format!(
                "the puzzle has {places} places; symmetry is used for up to {}",
                u16::MAX
            ));
            return sym;
        }
        let identity = Transform::identity(sets);
        let group = match generate(
            &identity,
            &def.rotations
                .iter()
                .map(|r| &r.transform)
                .collect::<Vec<_>>(),
            sets,
        ) {
            Ok(group) => group,
            Err(n) => {
                sym.dropped = Some(format!(
                    "the rotations generate over {n} elements: they turn parts of the puzzle, not all of it"
                ));
                vec![identity]
            }
        };
        sym.generated = group.len();
        let moves: HashSet<&Transform> = twisty.moves.iter().map(|m| &m.transform).collect();
        let mut why = [0usize; 4];
        let mut kept = Vec::new();
        for s in &group {
            let (src, twist) = flat(s, &sym.offsets);
            let check = sym.element(twisty, s, src, twist, &moves, first_label as usize);
            match check {
                Ok(e) => kept.push(e),
                Err(reason) => why[reason] += 1,
            }
        }
        let moves: Vec<Element> = twisty
            .moves
            .iter()
            .map(|m| sym.move_element(&m.transform, first_label))
            .collect();
        sym.kept_rotations = kept.len();
        if let Err(why) = sym.tables(twisty, &kept, &moves, mirrors, first_label as usize) {
            sym.dropped = Some(why);
            return sym;
        }
        sym.inverse = sym.invertible(twisty);
        sym.sizes = Sizes::new(sym.order(), twisty);
        if sym.kept_rotations < group.len() {
            let text = not_kept(&why, group.len(), sym.kept_rotations);
            sym.dropped = Some(match sym.dropped.take() {
                Some(before) => format!("{before}; {text}"),
                None => text,
            });
        }
        sym
    }

    /// Whether a position and its inverse lie at the same distance from
    /// the start, so that a class may hold both: every piece told apart
    /// and at home in the solved position (a position is then the
    /// permutation and twists that made it), the start solved, every
    /// move's inverse a move, and no `Illegal` line (an inverse could
    /// break one that the position keeps).
    fn invertible(&mut self, twisty: &Twisty) -> bool {
        let def = &twisty.def;
        let at_home = def.sets.iter().enumerate().all(|(s, set)| {
            (0..set.size)
                .all(|i| usize::from(def.solved.pieces[s][i]) == i && def.solved.ori[s][i] == 0)
        });
        // A file without rotations searches every position: the inverse
        // alone is not offered (yet).
        if def.rotations.is_empty()
            || !(twisty.reversible
                && def.illegal.is_empty()
                && at_home
                && twisty.start == def.solved)
        {
            return false;
        }
        self.sets = def
            .sets
            .iter()
            .enumerate()
            .map(|(s, set)| (self.offsets[s], set.size, self.radix[self.offsets[s]]))
            .collect();
        true
    }

    /// These symmetries without the inverse position: a solve's, whose
    /// path is walked from the real start by moves, which the inverse
    /// does not commute with.
    pub fn without_inverse(mut self, twisty: &Twisty) -> Symmetry {
        self.inverse = false;
        self.sizes = Sizes::new(self.order(), twisty);
        self
    }

    /// Whether a class holds each position's inverse too (the twisty
    /// puzzles whose positions are permutations, counted from solved in a
    /// metric where every move's inverse is a move): a position and its
    /// inverse are the same distance from solved. This halves the classes
    /// again, as twsearch's `-F` does.
    pub fn inverse(&self) -> bool {
        self.inverse
    }

    /// `q`'s inverse into `out`: the piece at place j with label l and
    /// twist t puts, in the inverse, the piece labelled j at place l with
    /// twist -t.
    #[inline]
    fn invert(&self, q: &[Dense], out: &mut [Dense]) {
        for &(first, size, radix) in &self.sets {
            let base = self.base[first] as usize;
            for j in 0..size {
                let [label, negated] = self.invert_at[base + usize::from(q[first + j])];
                out[first + usize::from(label)] = j as Dense * radix + negated;
            }
        }
    }

    /// Move `m` as an element that relabels nothing (of `labels` labels
    /// in all), to be tabulated as the symmetries are.
    fn move_element(&self, m: &Transform, labels: u32) -> Element {
        let (src, twist) = flat(m, &self.offsets);
        let relabel = (0..labels)
            .map(|l| {
                // The label's set starts at the last first label below it.
                let at = self.label_base.partition_point(|&b| b <= l) - 1;
                ((l - self.label_base[at]) as u16, 0)
            })
            .collect();
        Element {
            src,
            twist,
            relabel,
            negate: false,
        }
    }

    /// Element `s` (acting on places as `src` and `twist`) as a symmetry,
    /// or which check it fails (an index into the reasons of
    /// [`not_kept`]).
    fn element(
        &self,
        twisty: &Twisty,
        s: &Transform,
        src: Vec<u16>,
        twist: Vec<u8>,
        moves: &HashSet<&Transform>,
        labels: usize,
    ) -> Result<Element, usize> {
        let def = &twisty.def;
        let sets = &def.sets;
        let s_inv = inverse(s, sets);
        // The relabelling: what s⁻¹ makes of the solved position's pieces.
        let turned = def.solved.apply(&s_inv, sets);
        let mut relabel: Vec<Option<(u16, u8)>> = vec![None; labels];
        for (set_i, set) in sets.iter().enumerate() {
            let o = set.orientations.max(1);
            let base = self.label_base[self.offsets[set_i]] as usize;
            let mut images = HashSet::new();
            for i in 0..set.size {
                let (from, to) = (def.solved.pieces[set_i][i], turned.pieces[set_i][i]);
                let (a, b) = (def.solved.ori[set_i][i], turned.ori[set_i][i]);
                let gain = match (a, b) {
                    (WILD, WILD) => 0,
                    (WILD, _) | (_, WILD) => return Err(0),
                    (a, b) => ((u16::from(b) + u16::from(o) - u16::from(a)) % u16::from(o)) as u8,
                };
                let slot = &mut relabel[base + usize::from(from)];
                match *slot {
                    None => {
                        if !images.insert(to) {
                            return Err(0);
                        }
                        *slot = Some((to, gain));
                    }
                    Some((t, g)) if t == to && (g == gain || a == WILD) => {}
                    Some(_) => return Err(0),
                }
            }
            // A label the solved position lacks keeps itself.
            for l in 0..self.set_labels[set_i] {
                relabel[base + l].get_or_insert((l as u16, 0));
            }
        }
        let relabel = relabel.into_iter().map(Option::unwrap_or_default).collect();
        for m in moves {
            if !moves.contains(&s_inv.then(m, sets).then(s, sets)) {
                return Err(1);
            }
        }
        let e = Element {
            src,
            twist,
            relabel,
            negate: false,
        };
        self.keeps(&e)?;
        Ok(e)
    }

    /// Whether `e` fixes the start (else `Err(2)`) and maps the file's
    /// `Illegal` lines onto themselves (else `Err(3)`).
    fn keeps(&self, e: &Element) -> Result<(), usize> {
        let start = &self.start_codes;
        if (0..start.len()).any(|g| self.conj_code(e, start[usize::from(e.src[g])], g) != start[g])
        {
            return Err(2);
        }
        // (place g, label l) is forbidden: its conjugate holds σ(l) where
        // the conjugate draws from g.
        for &(g, l) in &self.illegal {
            let to = e.src.iter().position(|&h| usize::from(h) == g);
            let image = to.map(|h| (h, e.relabel[self.label_base[g] as usize + usize::from(l)].0));
            if image.is_none_or(|x| self.illegal.binary_search(&x).is_err()) {
                return Err(3);
            }
        }
        Ok(())
    }

    /// The elements kept as tables ([`Symmetry::tabulate`]): the rotations
    /// `kept`, with their mirror images where `mirrors` asks for them, a
    /// file declares rotations to pair them with, one is found and the
    /// tables fit; why not, where even the rotations' do not.
    fn tables(
        &mut self,
        twisty: &Twisty,
        kept: &[Element],
        moves: &[Element],
        mirrors: bool,
        labels: usize,
    ) -> Result<(), String> {
        let with_mirrors = if mirrors && !kept.is_empty() && !twisty.def.rotations.is_empty() {
            self.add_mirrors(twisty, kept, labels)
        } else {
            None
        };
        if let Some(all) = with_mirrors {
            match self.tabulate(twisty, &all, moves) {
                Ok(()) => return Ok(()),
                Err(why) => {
                    self.mirrors = Mirrors::NotFound(format!("mirror images not used: {why}"));
                }
            }
        }
        self.tabulate(twisty, kept, moves)
    }

    /// The rotations kept (`kept`, the identity first) with their mirror
    /// images, where a mirror that maps the puzzle onto itself is found
    /// ([`super::mirror::find`], each candidate checked as a rotation is,
    /// and kept only where it turns the rotations into rotations); `None`
    /// where none is, with why in [`Symmetry::mirrors`]. The group they
    /// generate is closed table by table, each element checked again.
    fn add_mirrors(
        &mut self,
        twisty: &Twisty,
        kept: &[Element],
        labels: usize,
    ) -> Option<Vec<Element>> {
        let moves: Vec<Flat> = twisty
            .moves
            .iter()
            .map(|m| {
                let (src, twist) = flat(&m.transform, &self.offsets);
                Flat { src, twist }
            })
            .collect();
        let set_of: Vec<usize> = (0..self.modulus.len()).map(|g| self.set_of(g)).collect();
        // The rotations as distinct maps: a group of tables.
        let mut seen = HashSet::new();
        let group: Vec<Element> = kept
            .iter()
            .filter(|e| seen.insert(self.signature(e)))
            .cloned()
            .collect();
        let mut found = None;
        // How each rotation maps the moves and the places: a mirror times
        // a rotation is a mirror, so the search starts from one image of
        // the first move in each orbit of the rotations, and from one
        // image of its first place in each orbit of the rotations that
        // map the first move onto itself.
        // (Fewer rotations would only keep more starts: a rotation whose
        // tables map no move, if one could, is left out.)
        let acting: Vec<(&Element, Vec<usize>)> = group
            .iter()
            .filter_map(|k| Some((k, self.move_images(k, &moves)?)))
            .collect();
        let m0 = mirror::first_move(&moves).unwrap_or(0);
        let fixing_first: Vec<&Element> = acting
            .iter()
            .filter(|(_, im)| im[m0] == m0)
            .map(|&(k, _)| k)
            .collect();
        let first = |m2: usize| acting.iter().all(|(_, im)| im[m2] >= m2);
        let seed = |_: usize, h: usize| fixing_first.iter().all(|k| usize::from(k.src[h]) >= h);
        let starts = mirror::Starts {
            first: &first,
            seed: &seed,
        };
        let outcome = mirror::find(
            &moves,
            &set_of,
            &self.modulus,
            MIRROR_BUDGET,
            &starts,
            &mut |c| {
                let Some(e) = self.mirror_element(c, labels, &moves) else {
                    return false;
                };
                if seen.contains(&self.signature(&e)) || !self.normalizes(&e, &group) {
                    return false;
                }
                found = Some(e);
                true
            },
        );
        let Some(mirror) = found else {
            self.mirrors = Mirrors::NotFound(match outcome {
                mirror::Outcome::OutOfBudget => format!(
                    "no mirror image found within the search's {MIRROR_BUDGET} steps"
                ),
                _ => "no mirror image maps the moves, the solved position and the start onto themselves".into(),
            });
            return None;
        };
        match self.close(&group, mirror, &moves) {
            Ok(all) => {
                let mirrors = all.iter().filter(|e| e.negate).count();
                self.mirrors = Mirrors::Found {
                    mirrors,
                    others: all.len() - group.len() - mirrors,
                };
                Some(all)
            }
            Err(why) => {
                self.mirrors = Mirrors::NotFound(why);
                None
            }
        }
    }

    /// Candidate `c` (a place map and its twists, orientations negated)
    /// as an element, its relabelling read from the solved position, if
    /// it maps the solved position onto itself, fixes the start, keeps
    /// the `Illegal` lines and maps every move onto a move.
    fn mirror_element(&self, c: &Flat, labels: usize, moves: &[Flat]) -> Option<Element> {
        let solved = &self.solved_codes;
        let mut relabel: Vec<Option<(u16, u8)>> = vec![None; labels];
        let mut images = HashSet::new();
        for g in 0..solved.len() {
            let (from, to) = (solved[usize::from(c.src[g])], solved[g]);
            let (lf, of) = ((from >> 8) as u16, (from & 0xff) as u8);
            let (lt, ot) = ((to >> 8) as u16, (to & 0xff) as u8);
            let n = u16::from(self.modulus[g]);
            let gain = match (of, ot) {
                (WILD, WILD) => 0,
                (WILD, _) | (_, WILD) => return None,
                (of, ot) => ((u16::from(ot) + u16::from(of) + n - u16::from(c.twist[g])) % n) as u8,
            };
            let slot = &mut relabel[self.label_base[g] as usize + usize::from(lf)];
            match *slot {
                None => {
                    if !images.insert((self.set_of(g), lt)) {
                        return None;
                    }
                    *slot = Some((lt, gain));
                }
                Some((t, gn)) if t == lt && (gn == gain || of == WILD) => {}
                Some(_) => return None,
            }
        }
        for (s, &first) in self.offsets.iter().enumerate() {
            let base = self.label_base.get(first).map_or(0, |&b| b as usize);
            for l in 0..self.set_labels[s] {
                relabel[base + l].get_or_insert((l as u16, 0));
            }
        }
        let e = Element {
            src: c.src.clone(),
            twist: c.twist.clone(),
            relabel: relabel.into_iter().map(Option::unwrap_or_default).collect(),
            negate: true,
        };
        (self.keeps(&e).is_ok() && self.maps_moves(&e, moves)).then_some(e)
    }

    /// Whether element `e` maps every move onto a move.
    fn maps_moves(&self, e: &Element, moves: &[Flat]) -> bool {
        self.move_images(e, moves).is_some()
    }

    /// For each move `m`, the move `m2` with `e(x·m) = e(x)·m2` for every
    /// position `x` (the equations of [`super::mirror`], where the
    /// relabelling cancels), or `None` where a move has none.
    fn move_images(&self, e: &Element, moves: &[Flat]) -> Option<Vec<usize>> {
        moves
            .iter()
            .map(|input| {
                moves.iter().position(|output| {
                    (0..e.src.len()).all(|g| {
                        let h = usize::from(e.src[g]);
                        let g2 = usize::from(output.src[g]);
                        if usize::from(e.src[g2]) != usize::from(input.src[h]) {
                            return false;
                        }
                        let n = u16::from(self.modulus[g]);
                        let t = u16::from(input.twist[h]) % n;
                        let t = if e.negate { (n - t) % n } else { t };
                        let want =
                            (u16::from(e.twist[g]) + t + n - u16::from(output.twist[g]) % n) % n;
                        u16::from(e.twist[g2]) % n == want
                    })
                })
            })
            .collect()
    }

    /// What `e` does to every code at every place, with where it takes it
    /// from: equal for two elements exactly when they are one map.
    fn signature(&self, e: &Element) -> Vec<Code> {
        let mut out = Vec::new();
        for g in 0..e.src.len() {
            out.push(Code::from(e.src[g]));
            for l in 0..self.set_labels[self.set_of(g)] {
                for o in 0..self.modulus[g] {
                    out.push(self.conj_code(e, ((l as Code) << 8) | Code::from(o), g));
                }
            }
        }
        out
    }

    /// `b`, then `a`: what `a` makes of what `b` makes of a position.
    fn compose(&self, a: &Element, b: &Element) -> Element {
        let neg = |negate: bool, t: u8, n: u16| {
            let t = u16::from(t) % n;
            if negate { (n - t) % n } else { t }
        };
        let (mut src, mut twist) = (Vec::with_capacity(a.src.len()), Vec::new());
        for g in 0..a.src.len() {
            let h = usize::from(a.src[g]);
            let n = u16::from(self.modulus[g]);
            src.push(b.src[h]);
            twist.push(((neg(a.negate, b.twist[h], n) + u16::from(a.twist[g])) % n) as u8);
        }
        // Label by label, set by set (each set's labels follow its first).
        let mut relabel = Vec::with_capacity(b.relabel.len());
        for (s, &first) in self.offsets.iter().enumerate() {
            let (Some(&base), Some(&n)) = (self.label_base.get(first), self.modulus.get(first))
            else {
                continue;
            };
            let n = u16::from(n);
            for &(rho, gb) in &b.relabel[base as usize..][..self.set_labels[s]] {
                let (mu, ga) = a.relabel[base as usize + usize::from(rho)];
                relabel.push((mu, ((neg(a.negate, gb, n) + u16::from(ga)) % n) as u8));
            }
        }
        Element {
            src,
            twist,
            relabel,
            negate: a.negate != b.negate,
        }
    }

    /// Whether `e` turns the group `group` into itself: `e` times the
    /// group is the group times `e`.
    fn normalizes(&self, e: &Element, group: &[Element]) -> bool {
        let left: HashSet<Vec<Code>> = group
            .iter()
            .map(|k| self.signature(&self.compose(e, k)))
            .collect();
        group
            .iter()
            .all(|k| left.contains(&self.signature(&self.compose(k, e))))
    }

    /// The group that `group` (a group of tables, the identity first) and
    /// `mirror` generate, each new element checked as a symmetry; why not
    /// where one fails or there are over [`MAX_ELEMENTS`].
    fn close(
        &self,
        group: &[Element],
        mirror: Element,
        moves: &[Flat],
    ) -> Result<Vec<Element>, String> {
        let mut seen: HashSet<Vec<Code>> = group.iter().map(|e| self.signature(e)).collect();
        let mut elements = group.to_vec();
        let gens: Vec<Element> = std::iter::once(mirror)
            .chain(group.iter().cloned())
            .collect();
        let mut i = 0;
        while i < elements.len() {
            for by in &gens {
                let e = self.compose(&elements[i], by);
                if seen.insert(self.signature(&e)) {
                    if self.keeps(&e).is_err() || !self.maps_moves(&e, moves) {
                        return Err(
                            "a product of a mirror image and a rotation is not a symmetry".into(),
                        );
                    }
                    elements.push(e);
                    if elements.len() > MAX_ELEMENTS {
                        return Err(format!(
                            "the rotations and a mirror image generate over {MAX_ELEMENTS} elements"
                        ));
                    }
                }
            }
            i += 1;
        }
        Ok(elements)
    }

    /// The 64-bit words of a key of a class: the position's, and where
    /// there is no room left in its top word for the class's size, one
    /// more.
    pub fn key_words(&self) -> usize {
        self.sizes.words
    }

    /// The order of the group of symmetries used: the kept elements, twice
    /// over with the inverse position.
    pub fn order(&self) -> usize {
        self.elements.len() << u32::from(self.inverse)
    }

    /// Whether there is a symmetry besides the identity.
    pub fn is_trivial(&self) -> bool {
        self.order() < 2
    }

    /// What `show` says of the symmetries.
    pub fn describe(&self) -> String {
        if self.rotations.is_empty() {
            return "symmetry: none (the file declares no rotations)".into();
        }
        let mut out = format!(
            "symmetry: {} of the {} elements that the rotations {} generate",
            self.kept_rotations,
            self.generated,
            self.rotations.join(" ")
        );
        if let Mirrors::Found { mirrors, others } = self.mirrors {
            out.push_str(&format!(", and {mirrors} mirror images"));
            if others > 0 {
                out.push_str(&format!(
                    " and {others} more of their products that are no rotation of the file's"
                ));
            }
            out.push_str(&format!(": {}", self.elements.len()));
        }
        if self.inverse {
            out.push_str(&format!(
                ", each with the inverse position: {} in all",
                self.order()
            ));
        }
        if let Some(why) = &self.dropped {
            out.push_str(&format!("\n  ({why})"));
        }
        if let Mirrors::NotFound(why) = &self.mirrors {
            out.push_str(&format!("\n  (no mirror images: {why})"));
        }
        if self.is_trivial() {
            out.push_str("\n  no symmetry is used: every position is searched");
        }
        out
    }

    /// Whether mirror images were looked for, and what was found.
    pub fn mirrors(&self) -> &Mirrors {
        &self.mirrors
    }

    /// The rotations the file declares.
    pub fn rotations(&self) -> &[String] {
        &self.rotations
    }

    /// The order of the group the file's rotations generate, before the
    /// checks.
    pub fn generated(&self) -> usize {
        self.generated
    }

    /// Why elements of that group are not symmetries, when some are not.
    pub fn dropped(&self) -> Option<&str> {
        self.dropped.as_deref()
    }

    /// What element `e` makes of code `c` (the code at `e.src[g]`) at
    /// place `g`, as the checks read codes.
    fn conj_code(&self, e: &Element, c: Code, g: usize) -> Code {
        let (label, ori) = (c >> 8, (c & 0xff) as u8);
        let (to, gain) = e.relabel[(self.label_base[g] + label) as usize];
        let ori = if ori == WILD {
            WILD
        } else {
            let n = u16::from(self.modulus[g]);
            let ori = if e.negate {
                (n - u16::from(ori) % n) % n
            } else {
                u16::from(ori)
            };
            ((ori + u16::from(gain) + u16::from(e.twist[g])) % n) as u8
        };
        (Code::from(to) << 8) | Code::from(ori)
    }

    /// The kept elements and the moves as tables over dense codes, and
    /// the start's codes; why not, where a set's codes pass 16 bits or
    /// the tables their budget.
    fn tabulate(
        &mut self,
        twisty: &Twisty,
        kept: &[Element],
        moves: &[Element],
    ) -> Result<(), String> {
        let def = &twisty.def;
        let places = self.modulus.len();
        for v in [&mut self.kind_at, &mut self.ori_at] {
            v.clear();
        }
        self.radix.clear();
        self.wild.clear();
        self.base.clear();
        self.invert_at.clear();
        // Each set's radix: a wildcard anywhere in it takes a value of
        // its own.
        for (s, set) in def.sets.iter().enumerate() {
            let wild = def.solved.ori[s]
                .iter()
                .chain(&twisty.start.ori[s])
                .any(|&o| o == WILD);
            let radix = u16::from(set.orientations.max(1)) + u16::from(wild);
            if self.set_labels[s] * usize::from(radix) > usize::from(Dense::MAX) {
                return Err(format!(
                    "set {} has {} labels of {radix} orientations: over 16 bits a place",
                    set.name, self.set_labels[s]
                ));
            }
            for _ in 0..set.size {
                self.radix.push(radix);
                self.wild.push(wild);
            }
        }
        let mut base = 0usize;
        for g in 0..places {
            self.base.push(base as u32);
            base += self.set_labels[self.set_of(g)] * usize::from(self.radix[g]);
        }
        if base.saturating_mul(kept.len() + moves.len()) > MAX_TABLE {
            return Err(format!(
                "its symmetries and moves would take {} table entries (at most {MAX_TABLE})",
                base.saturating_mul(kept.len() + moves.len())
            ));
        }
        let tables = |of: &[Element]| {
            let mut tables = Tables::new(places, base);
            let mut to = Vec::with_capacity(base);
            for e in of {
                to.clear();
                for g in 0..places {
                    let values = self.set_labels[self.set_of(g)] * usize::from(self.radix[g]);
                    for d in 0..values {
                        let c = self.code_of(d as Dense, g);
                        to.push(self.dense_of(self.conj_code(e, c, g), g));
                    }
                }
                tables.push(&e.src, &to);
            }
            tables
        };
        let (elements, moves) = (tables(kept), tables(moves));
        let first_codes = self.base.get(1).map_or(base, |&b| b as usize);
        self.first_groups = FirstGroup::of(&elements, first_codes);
        let start = (0..places)
            .map(|g| self.dense_of(self.start_codes[g], g))
            .collect();
        (self.elements, self.moves, self.start) = (elements, moves, start);
        // Each place's arrangement coordinate, if it has one.
        let mut arrangement = vec![None; places];
        for (ci, c) in twisty.coords.iter().enumerate() {
            if c.pieces().is_some() {
                for &pos in &c.positions {
                    arrangement[self.offsets[c.set] + pos] = Some(ci);
                }
            }
        }
        for (g, coord) in arrangement.into_iter().enumerate() {
            let values = self.set_labels[self.set_of(g)] * usize::from(self.radix[g]);
            for d in 0..values {
                let (label, ori) = self.split(d as Dense, g);
                let kind = coord.map_or(0, |ci| self.kinds[ci][usize::from(label)]);
                self.kind_at.push(kind);
                self.ori_at.push(if ori == WILD { 0 } else { ori });
                let radix = self.radix[g];
                let negated = (radix - (d as Dense) % radix) % radix;
                self.invert_at.push([label, negated]);
            }
        }
        Ok(())
    }

    /// The set place `g` is in.
    fn set_of(&self, g: usize) -> usize {
        self.offsets.partition_point(|&o| o <= g) - 1
    }

    /// The dense code at place `g` of check code `c`.
    fn dense_of(&self, c: Code, g: usize) -> Dense {
        let radix = self.radix[g];
        let ori = match (c & 0xff) as u8 {
            WILD => radix - 1,
            o => u16::from(o),
        };
        (c >> 8) as Dense * radix + ori
    }

    /// The check code at place `g` of dense code `d`.
    fn code_of(&self, d: Dense, g: usize) -> Code {
        let radix = self.radix[g];
        let (label, ori) = (d / radix, d % radix);
        let ori = if self.wild[g] && ori == radix - 1 {
            WILD
        } else {
            ori as u8
        };
        (Code::from(label) << 8) | Code::from(ori)
    }

    /// The piece's label at place `g` of code `d`, and its orientation.
    #[inline]
    fn split(&self, d: Dense, g: usize) -> (u16, u8) {
        let c = self.code_of(d, g);
        ((c >> 8) as u16, (c & 0xff) as u8)
    }

    /// Place `g` of element `i`'s conjugate of `q`.
    #[inline]
    fn conjugate_at(&self, i: usize, q: &[Dense], g: usize) -> Dense {
        self.elements.at(i, q, g, self.base[g])
    }

    /// `p` after move `m`, into `q`.
    #[inline]
    fn apply(&self, m: usize, p: &[Dense], q: &mut [Dense]) {
        for (g, out) in q.iter_mut().enumerate() {
            *out = self.moves.at(m, p, g, self.base[g]);
        }
    }

    /// Whether `q` meets none of the file's `Illegal` lines.
    #[inline]
    fn legal(&self, q: &[Dense]) -> bool {
        self.illegal.iter().all(|&(g, l)| q[g] / self.radix[g] != l)
    }

    /// The representative of `q`'s class into `best` (the conjugate, of
    /// `q` or of its inverse, that comes first, place by place); how many
    /// elements give it (the elements that fix `q`, counted once per
    /// coset). `inv` is room for `q`'s inverse, `firsts` for a code a
    /// group of [`Symmetry::first_groups`] and a source. The conjugates'
    /// first places are read first, a group at a time: most conjugates
    /// lose there. Those that tie are compared with the best so far place
    /// by place, each read from its tables, until they differ; only the
    /// winner is written out.
    #[inline]
    fn canonical(
        &self,
        q: &[Dense],
        inv: &mut [Dense],
        firsts: &mut [Dense],
        best: &mut [Dense],
    ) -> u64 {
        if self.inverse {
            self.invert(q, inv);
        }
        let both = [q, &*inv];
        let sources = &both[..1 + usize::from(self.inverse)];
        let n = self.first_groups.len();
        let mut low = Dense::MAX;
        for (s, p) in sources.iter().enumerate() {
            for (g, first) in self
                .first_groups
                .iter()
                .zip(&mut firsts[s * n..(s + 1) * n])
            {
                *first = g.least[usize::from(p[g.place])];
                low = low.min(*first);
            }
        }
        let mut winner = None;
        let mut ties = 0;
        for (s, &p) in sources.iter().enumerate() {
            let groups = self.first_groups.iter().zip(&firsts[s * n..(s + 1) * n]);
            for (group, _) in groups.filter(|&(_, &f)| f == low) {
                for &i in group
                    .elements
                    .iter()
                    .filter(|&&i| self.conjugate_at(i, p, 0) == low)
                {
                    let Some((bp, bi)) = winner else {
                        (winner, ties) = (Some((p, i)), 1);
                        continue;
                    };
                    let mut order = std::cmp::Ordering::Equal;
                    for g in 1..q.len() {
                        let (x, y) = (self.conjugate_at(i, p, g), self.conjugate_at(bi, bp, g));
                        if x != y {
                            order = x.cmp(&y);
                            break;
                        }
                    }
                    match order {
                        std::cmp::Ordering::Less => (winner, ties) = (Some((p, i)), 1),
                        std::cmp::Ordering::Equal => ties += 1,
                        std::cmp::Ordering::Greater => {}
                    }
                }
            }
        }
        let (p, i) = winner.expect("the identity");
        for (g, b) in best.iter_mut().enumerate() {
            *b = self.conjugate_at(i, p, g);
        }
        ties
    }
}

/// For each of `twisty`'s coordinates, the kind of each label (its index
/// among the coordinate's pieces), with `labels` labels a set.
fn kinds(twisty: &Twisty, labels: &[usize]) -> Vec<Vec<u8>> {
    twisty
        .coords
        .iter()
        .map(|c| {
            let mut kind = vec![0u8; labels[c.set]];
            if let Some((values, _)) = c.pieces() {
                for (k, &v) in values.iter().enumerate() {
                    kind[usize::from(v)] = k as u8;
                }
            }
            kind
        })
        .collect()
}

/// Why `group - kept` of a group's `group` elements are not symmetries:
/// `why[i]` of them fail check `i` of [`Symmetry::element`].
fn not_kept(why: &[usize; 4], group: usize, kept: usize) -> String {
    let reasons = [
        "do not map the solved position's pieces onto pieces",
        "map a move onto no move of the search",
        "do not fix the start",
        "do not map the Illegal lines onto themselves",
    ];
    let said: Vec<String> = why
        .iter()
        .zip(reasons)
        .filter(|(n, _)| **n > 0)
        .map(|(n, r)| format!("{n} {r}"))
        .collect();
    format!(
        "{} of the {group} elements are not symmetries: {}",
        group - kept,
        said.join(", ")
    )
}

/// What `t` does to places numbered set after set (`offsets`: each set's
/// first place): where each place's piece comes from, and the twist it
/// gains.
fn flat(t: &Transform, offsets: &[usize]) -> (Vec<u16>, Vec<u8>) {
    let mut src = Vec::new();
    let mut twist = Vec::new();
    for (s, perm) in t.perm.iter().enumerate() {
        src.extend(perm.iter().map(|&j| (offsets[s] + usize::from(j)) as u16));
        twist.extend_from_slice(&t.ori[s]);
    }
    (src, twist)
}

/// Every element of the group `gens` generate, the identity first; `Err`
/// with the bound when there are more than [`MAX_ELEMENTS`].
fn generate(
    identity: &Transform,
    gens: &[&Transform],
    sets: &[super::Set],
) -> Result<Vec<Transform>, usize> {
    let mut elements = vec![identity.clone()];
    let mut seen: HashSet<Transform> = HashSet::from([identity.clone()]);
    let mut i = 0;
    while i < elements.len() {
        for g in gens {
            let t = elements[i].then(g, sets);
            if seen.insert(t.clone()) {
                elements.push(t);
                if elements.len() > MAX_ELEMENTS {
                    return Err(MAX_ELEMENTS);
                }
            }
        }
        i += 1;
    }
    Ok(elements)
}

/// A decoded class: its representative's codes, and room for a
/// successor's and its representative's.
pub struct SymmetricState<K> {
    key: K,
    codes: Vec<Dense>,
    next: Vec<Dense>,
    best: Vec<Dense>,
    /// The decoded position's inverse, and a successor's.
    inverse: Vec<Dense>,
    scratch: Vec<Dense>,
    /// A code a group of first places and a source, while a
    /// representative is found ([`Symmetry::canonical`]).
    firsts: Vec<Dense>,
    local: Vec<u8>,
    wide: Vec<u64>,
}

/// A twisty puzzle searched one class of symmetric positions at a time,
/// with keys `K` (`u64`, or `Wide<N>` with N at least
/// [`Twisty::words`]): each key is the key of its class's representative
/// (a position of the puzzle), and the engine weighs it by its class's
/// size ([`Model::classes`]).
pub struct Symmetric<'t, K> {
    twisty: &'t Twisty,
    sym: &'t Symmetry,
    /// The start's class key, and the solved position's (when the start
    /// reaches it).
    start: K,
    goal: Option<K>,
    key: PhantomData<fn() -> K>,
}

impl<'t, K: Key> Symmetric<'t, K> {
    /// `twisty` under `sym` (which must be [`Symmetry::of`] it), or `None`
    /// when its keys take more than `K`'s words or `sym` has no elements
    /// (a puzzle of more places than it numbers).
    pub fn new(twisty: &'t Twisty, sym: &'t Symmetry) -> Option<Self> {
        if sym.key_words() > K::WORDS || sym.elements.is_empty() {
            return None;
        }
        // The start and the solved position are fixed by every element: a
        // class of one position each.
        let alone = |words: &[u64]| {
            let mut key: K = key_from(words);
            let sizes = &sym.sizes;
            *key.word_mut(sizes.word) += (sizes.fixing.len() as u64 - 1) * sizes.weight;
            key
        };
        Some(Symmetric {
            twisty,
            sym,
            start: alone(&twisty.start_key),
            goal: twisty.goal.as_deref().ok().map(alone),
            key: PhantomData,
        })
    }

    /// The puzzle.
    pub fn twisty(&self) -> &'t Twisty {
        self.twisty
    }

    /// The symmetries.
    pub fn symmetry(&self) -> &'t Symmetry {
        self.sym
    }

    /// The codes of `key`'s position into `state.codes`.
    fn codes_of(&self, key: K, state: &mut SymmetricState<K>) {
        let t = self.twisty;
        state.codes.copy_from_slice(&self.sym.start);
        for (i, c) in t.coords.iter().enumerate() {
            let k = c.local_len();
            let local = &mut state.local[..k];
            t.coord_values(i, |w| key.word(w), local, &mut state.wide);
            let base = self.sym.offsets[c.set];
            let values = c.pieces().map(|(v, _)| v);
            let n = c.positions.len();
            for (a, &pos) in c.positions.iter().enumerate() {
                let g = base + pos;
                let (mut label, mut ori) = self.sym.split(state.codes[g], g);
                match &c.kind {
                    Kind::Perm { .. } => {
                        label = values.expect("an arrangement")[usize::from(local[a])];
                    }
                    Kind::Ori { .. } => ori = local[a],
                    Kind::Wild { wild, .. } => {
                        let kind = usize::from(local[a]);
                        label = values.expect("an arrangement")[kind];
                        ori = if wild[kind] { WILD } else { local[n + a] };
                    }
                }
                state.codes[g] = self
                    .sym
                    .dense_of((Code::from(label) << 8) | Code::from(ori), g);
            }
        }
    }

    /// The key of the position whose codes are `codes`.
    fn key_of(&self, codes: &[Dense], local: &mut [u8], wide: &mut [u64]) -> K {
        let t = self.twisty;
        let mut key = K::default();
        for (ci, c) in t.coords.iter().enumerate() {
            let base = self.sym.offsets[c.set];
            let sym = self.sym;
            let at = |pos: usize| {
                let g = base + pos;
                sym.base[g] as usize + usize::from(codes[g])
            };
            let positions = c.positions.iter().map(|&pos| at(pos));
            match &c.kind {
                Kind::Perm { .. } => {
                    for (l, at) in local.iter_mut().zip(positions) {
                        *l = sym.kind_at[at];
                    }
                }
                Kind::Ori { .. } => {
                    for (l, at) in local.iter_mut().zip(positions) {
                        *l = sym.ori_at[at];
                    }
                }
                Kind::Wild { wild, .. } => {
                    let (kinds, ori) = local.split_at_mut(c.positions.len());
                    for ((k, o), at) in kinds.iter_mut().zip(ori).zip(positions) {
                        *k = sym.kind_at[at];
                        *o = if wild[usize::from(*k)] {
                            0
                        } else {
                            sym.ori_at[at]
                        };
                    }
                }
            }
            let local = &local[..c.local_len()];
            if c.split.is_none() {
                *key.word_mut(c.word) += c.rank(local) * c.weight;
            } else {
                let (first, parts) = (t.first_part[ci], c.parts());
                let (values, digits) = wide.split_at_mut(parts);
                c.rank_parts(local, values, digits);
                for (v, part) in values.iter().zip(&t.parts[first..first + parts]) {
                    *key.word_mut(part.word) += v * part.weight;
                }
            }
        }
        key
    }

    fn state(&self) -> SymmetricState<K> {
        let n = self.sym.start.len();
        SymmetricState {
            key: K::default(),
            codes: vec![0; n],
            next: vec![0; n],
            best: vec![0; n],
            inverse: vec![0; n],
            scratch: vec![0; n],
            firsts: vec![0; 2 * self.sym.first_groups.len()],
            local: vec![0; 2 * MAX_ORBIT],
            wide: vec![0; WIDE_SCRATCH],
        }
    }

    /// The key of the class of the position whose codes are in
    /// `state.next`.
    fn class_key(&self, state: &mut SymmetricState<K>) -> K {
        let fixing = self.sym.canonical(
            &state.next,
            &mut state.scratch,
            &mut state.firsts,
            &mut state.best,
        );
        let mut key = self.key_of(&state.best, &mut state.local, &mut state.wide);
        let sizes = &self.sym.sizes;
        let digit = sizes.fixing.partition_point(|&d| d < fixing) as u64;
        *key.word_mut(sizes.word) += digit * sizes.weight;
        key
    }

    /// The key of the position that class key `key` stands for (its
    /// representative's): the class's size taken out.
    fn position_key(&self, mut key: K) -> K {
        let sizes = &self.sym.sizes;
        *key.word_mut(sizes.word) %= sizes.weight;
        key
    }

    /// The positions of a path of class keys from the start: the start,
    /// then at each step the successor, by the first move that reaches the
    /// next class, of the position reached so far. They are real
    /// positions, not representatives, one move apart: their moves
    /// ([`Twisty::path_moves`]) solve the real start.
    ///
    /// # Panics
    ///
    /// With the inverse position in the symmetries (a path of such classes
    /// need not be walkable by moves from the start): a solve takes
    /// [`Symmetry::without_inverse`].
    pub fn real_path(&self, path: &[K]) -> Vec<K> {
        assert!(
            !self.sym.inverse,
            "a path is walked under the conjugations alone: Symmetry::without_inverse"
        );
        let mut state = self.state();
        state.codes.copy_from_slice(&self.sym.start);
        let mut real = vec![self.twisty.start_key()];
        for &class in path.iter().skip(1) {
            let found = (0..self.sym.moves.len()).find(|&m| {
                let (codes, next) = (&state.codes, &mut state.next);
                self.sym.apply(m, codes, next);
                self.sym.legal(&state.next) && self.class_key(&mut state) == class
            });
            let m = found.expect("consecutive classes of a path are a move apart");
            let (codes, next) = (&state.codes, &mut state.next);
            self.sym.apply(m, codes, next);
            std::mem::swap(&mut state.codes, &mut state.next);
            real.push(self.key_of(&state.codes, &mut state.local, &mut state.wide));
        }
        real
    }

    /// The keys of every position of `key`'s class, sorted.
    pub fn orbit(&self, key: K) -> Vec<K> {
        let mut state = self.state();
        self.codes_of(self.position_key(key), &mut state);
        self.sym.invert(&state.codes, &mut state.inverse);
        let sources = [&state.codes, &state.inverse];
        let mut keys = Vec::new();
        for p in &sources[..1 + usize::from(self.sym.inverse)] {
            for i in 0..self.sym.elements.len() {
                for g in 0..p.len() {
                    state.next[g] = self.sym.conjugate_at(i, p, g);
                }
                keys.push(self.key_of(&state.next, &mut state.local, &mut state.wide));
            }
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

impl<K: Key> Model for Symmetric<'_, K> {
    type State = SymmetricState<K>;
    type Key = K;

    fn start(&self) -> K {
        self.start
    }

    fn key_space(&self) -> u64 {
        let sizes = &self.sym.sizes;
        match sizes.words {
            1 => sizes.weight * sizes.fixing.len() as u64,
            _ => u64::MAX,
        }
    }

    fn new_state(&self) -> Self::State {
        self.state()
    }

    fn unsearchable(&self) -> Option<String> {
        (self.sym.key_words() > K::WORDS).then(|| {
            format!(
                "{}'s classes take keys of {} 64-bit words; this model's keys have {}",
                self.twisty.name,
                self.sym.key_words(),
                K::WORDS
            )
        })
    }

    fn decode(&self, key: K, state: &mut Self::State) {
        state.key = key;
        self.codes_of(self.position_key(key), state);
    }

    fn successors(&self, state: &mut Self::State, out: &mut Vec<K>) {
        // With the inverse, the class's positions are the representative's
        // conjugates and their inverses; the inverses' successors are
        // those of the representative's inverse.
        if self.sym.inverse {
            self.sym.invert(&state.codes, &mut state.inverse);
        }
        for from in 0..1 + usize::from(self.sym.inverse) {
            for m in 0..self.sym.moves.len() {
                let p = if from == 0 {
                    &state.codes
                } else {
                    &state.inverse
                };
                self.sym.apply(m, p, &mut state.next);
                if self.sym.legal(&state.next) {
                    out.push(self.class_key(state));
                }
            }
        }
    }

    fn is_goal(&self, state: &Self::State) -> bool {
        self.goal == Some(state.key)
    }

    fn has_goal(&self) -> bool {
        true
    }

    fn reversible(&self) -> bool {
        // A class's successors are the classes of its representative's
        // successors; a move undone by a move from one position is undone
        // from every conjugate by the conjugate move.
        self.twisty.reversible
    }

    fn goal_keys(&self) -> Option<Vec<K>> {
        Some(self.goal.into_iter().collect())
    }

    fn classes(&self) -> bool {
        true
    }

    fn positions(&self, key: K) -> u64 {
        let sizes = &self.sym.sizes;
        let digit = key.word(sizes.word) / sizes.weight;
        self.sym.order() as u64 / sizes.fixing[digit as usize]
    }

    fn orbit(&self, key: K) -> Vec<K> {
        Symmetric::orbit(self, key)
    }

    fn identity(&self) -> String {
        format!(
            "{}; key words {}; symmetry {} of {} elements generated by {}; inverse {}; mirrors {:?}",
            self.twisty.identity(),
            K::WORDS,
            self.sym.elements.len(),
            self.sym.generated,
            self.sym.rotations.join(" "),
            self.sym.inverse,
            self.sym.mirrors
        )
    }
}
