//! A dense search's checkpoint: its levels saved as run files, and a
//! resumed search's bits rebuilt from the last two it saved.

use super::*;

impl<'a, M: Model<Key = u64>> Dense<'a, M> {
    /// Keeps a checkpoint in `saves` (a model with reversible moves: see
    /// [`dense_saves`](crate::engine::stores::dense::saves)), starting with level 0. On a
    /// failure the checkpoint's files and the directory it made go.
    pub(crate) fn checkpoint(&mut self, saves: Saves) -> Result<(), Fault> {
        debug_assert!(self.model.reversible());
        self.saves = Some(saves);
        let width = self.newest.as_ref().map_or(0, |k| k.len() as u64);
        self.save(&[width], 0.0).inspect_err(|_| {
            if let Some(saves) = self.saves.take() {
                saves.abandon();
            }
        })
    }

    /// A search that goes on from the checkpoint `saves` opened: its level
    /// before the newest marked expanded, its newest level the newest.
    pub(crate) fn resume(
        model: &'a M,
        threads: usize,
        saves: Saves,
        stop: Option<&'a AtomicBool>,
    ) -> Result<(Dense<'a, M>, Start), crate::engine::SearchError> {
        let mut dense =
            Dense::build(model, threads, stop, Share::ALONE, None).map_err(|source| {
                crate::engine::SearchError::DenseMap {
                    mib: bytes_for(model.key_space()) >> 20,
                    source,
                }
            })?;
        let (levels, seconds) = saves.start();
        // The newest level first: whether its keys share a colour decides
        // how the array tells levels apart, and so the older level's code.
        let mut written: Vec<(u32, &[RunFile])> = saves.levels().collect();
        written.sort_by_key(|&(depth, _)| depth);
        let (_, newest) = written.pop().expect("a saved level");
        dense.colour = match dense.load(newest, dense.label, true)? {
            0b01 => Some(0),
            0b10 => Some(1),
            // Both colours, none, or no keys (a search that has ended).
            _ => None,
        };
        for (_, files) in written {
            dense.load(files, dense.done_code(), false)?;
        }
        dense.take_marks();
        let width = *levels.last().expect("a saved level");
        if width as usize <= REMEMBERED {
            dense.newest = Some(dense.scan(&dense.blocks, threads, |key, out| out.push(key)));
        }
        // The levels before the saved two are unseen in the bits: a pull
        // finds none of them (a successor of level d is in d - 1, d or
        // d + 1), but they are no candidates either.
        dense.seen = levels.iter().sum();
        dense.saves = Some(saves);
        Ok((
            dense,
            Start {
                levels,
                positions: None,
                seconds,
            },
        ))
    }

    /// Sets `slot_bits` in the slot of every key in `files` (every block's
    /// checksum checked), marking their stretches when `newest`. Returns
    /// the colours of the newest level's keys (bit `c` for colour `c`; bit
    /// 2 for a key of none: the model colours no keys).
    pub(super) fn load(
        &self,
        files: &[RunFile],
        slot_bits: u64,
        newest: bool,
    ) -> Result<u8, Fault> {
        let words = self.bits.words();
        let key_space = self.model.key_space();
        let colours = std::sync::atomic::AtomicU8::new(0);
        self.each_block(files, |file, keys| {
            let colour = |key| match self.adjacent.as_ref().and_then(|a| a.colour_of(key)) {
                Some(c) => 1 << c,
                None => 4,
            };
            let seen = match newest {
                true => keys.iter().fold(0u8, |seen, &key| seen | colour(key)),
                false => 0,
            };
            // Relaxed: read after the parallel pass's join.
            colours.fetch_or(seen, Ordering::Relaxed);
            let mut worker = lock(my_slot(&self.workers));
            for &key in keys {
                if key >= key_space {
                    return Err(SpillError::Damaged {
                        path: file.path().to_path_buf(),
                        what: format!("key {key} is past the key space ({key_space})"),
                    });
                }
                let (w, shift) = slot(key);
                // Relaxed: read-modify-writes of a word commute, and the end
                // of this parallel pass (a rayon join) orders them before
                // the search reads the bits.
                words[w].fetch_or(slot_bits << shift, Ordering::Relaxed);
                if newest {
                    worker.tally.marks[w / BLOCK_WORDS] |= stretch_bit(w);
                }
            }
            Ok(())
        })?;
        Ok(colours.into_inner())
    }

    /// Calls `f` with each block's keys of `files` (its checksum checked),
    /// the blocks shared among the workers.
    pub(super) fn each_block(
        &self,
        files: &[RunFile],
        f: impl Fn(&RunFile, &[u64]) -> Result<(), SpillError> + Sync,
    ) -> Result<(), SpillError> {
        let blocks: Vec<(&RunFile, usize)> = files
            .iter()
            .flat_map(|f| (0..f.block_count()).map(move |b| (f, b)))
            .collect();
        // A task's buffers serve all the blocks it reads.
        let one = |(scratch, keys): &mut (Vec<u8>, Vec<u64>),
                   &(file, b): &(&RunFile, usize)|
         -> Result<(), SpillError> {
            keys.clear();
            file.read_block(b, scratch, keys)?;
            f(file, keys)
        };
        let buffers = || (Vec::new(), Vec::new());
        if self.workers.len() <= 1 {
            let mut mine = buffers();
            blocks.iter().try_for_each(|b| one(&mut mine, b))
        } else {
            blocks.par_iter().try_for_each_init(buffers, one)
        }
    }

    /// Writes the newest level (the last of `levels`, `seconds` into the
    /// search) to the checkpoint, when it is due.
    pub(super) fn save(&mut self, levels: &[u64], seconds: f64) -> Result<(), Fault> {
        let Some(saves) = &mut self.saves else {
            return Ok(());
        };
        // A pair synced since the last level is named now.
        saves.settle(false)?;
        let depth = (levels.len() - 1) as u32;
        if !saves.wanted(depth, seconds) {
            return Ok(());
        }
        let began = std::time::Instant::now();
        let width = *levels.last().expect("a level");
        let files = self.write_level(self.saves.as_ref().expect("a checkpoint"), depth, width)?;
        let saves = self.saves.as_mut().expect("a checkpoint");
        saves.saved(depth, files, levels, seconds, began)
    }

    /// Writes the newest level (`width` keys at `depth`) as files of
    /// `saves`, each a run of the level's marked blocks, in key order.
    pub(super) fn write_level(
        &self,
        saves: &Saves,
        depth: u32,
        width: u64,
    ) -> Result<Vec<RunFile>, SpillError> {
        let words = self.bits.words();
        let wanted = (width / FILE_KEYS).clamp(1, MAX_FILES as u64) as usize;
        let per = self.blocks.len().div_ceil(wanted).max(1);
        let pieces: Vec<&[(u32, u64)]> = if self.blocks.is_empty() {
            vec![&[]]
        } else {
            self.blocks.chunks(per).collect()
        };
        let n = pieces.len();
        let write = |(i, piece): (usize, &&[(u32, u64)])| -> Result<RunFile, SpillError> {
            let mut out = saves.writer(depth, i, n)?;
            for &(b, stretches) in piece.iter() {
                for range in marked_words(b, stretches, words.len()) {
                    for (w, phase) in self.phased(range) {
                        let mut here = self.newest_in(words[w].load(Ordering::Relaxed), phase);
                        while here != 0 {
                            out.push(
                                w as u64 * KEYS_PER_WORD + u64::from(here.trailing_zeros() / 2),
                            )?;
                            here &= here - 1;
                        }
                    }
                }
            }
            out.finish()
        };
        if self.workers.len() <= 1 {
            pieces.iter().enumerate().map(write).collect()
        } else {
            pieces.par_iter().enumerate().map(write).collect()
        }
    }
}
