//! The two-bit array and its arithmetic: a key's word and slot, a word's
//! slots of a label, its blocks and stretches.

use super::*;

/// The two-bit array: anonymous memory, zero until touched, asked for in
/// huge pages (a big key space is looked up at random, and with 4 KiB pages
/// every lookup would also miss the TLB).
pub(super) struct Bits {
    pub(super) ptr: *mut AtomicU64,
    pub(super) words: usize,
}

impl Bits {
    pub(super) fn new(words: usize) -> std::io::Result<Bits> {
        let bytes = words.max(1) * 8;
        // SAFETY: an anonymous private mapping at an address the kernel
        // chooses aliases nothing; the result is checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // A hint only: without transparent huge pages the array works the
        // same, more slowly.
        // SAFETY: the range is the mapping just made.
        unsafe {
            libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE);
        }
        Ok(Bits {
            ptr: ptr.cast(),
            words,
        })
    }

    /// The words as bytes, to read a segment into.
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the mapping holds `words * 8` bytes valid for the life
        // of `self`, and the exclusive borrow means no atomic access to
        // them overlaps this one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast::<u8>(), self.words * 8) }
    }

    /// The words as bytes, to write a segment from.
    pub(super) fn bytes(&mut self) -> &[u8] {
        // SAFETY: as in `bytes_mut`: the borrow is exclusive, so nothing
        // writes the words while the bytes are read.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.words * 8) }
    }

    #[inline]
    pub(super) fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `words` zero-initialised u64s, suitably
        // aligned (page-aligned), valid for the life of `self`; `AtomicU64`
        // has u64's layout, and the slice is only accessed atomically.
        unsafe { std::slice::from_raw_parts(self.ptr, self.words) }
    }
}

impl Drop for Bits {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, of this length, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast(), self.words.max(1) * 8);
        }
    }
}

/// Zeroes `bytes`, a stretch of private anonymous memory (the resident
/// segment of a [`Bits`] mapping; any heap memory is too): its whole pages
/// are given back to the kernel, to read as zeros again and cost nothing
/// until touched, and only its ends are written. A segment of the array
/// on disk is loaded into memory that held another segment, and most of
/// it was never written in the first levels (the 2x7's 2.5 GiB segments
/// to depth 12 hold 2,290 states): writing zeros over all of it at every
/// load was most of those levels' time.
pub(super) fn zero(bytes: &mut [u8]) {
    /// The page size madvise works in (x86-64's); where pages are larger
    /// the call fails and the bytes are written instead.
    const PAGE: usize = 4096;
    /// Below this the bytes are written: a system call costs more.
    const LEAST: usize = 64 << 10;
    // The whole pages: from the first page boundary in `bytes` to the
    // last (none where `bytes` crosses no two boundaries).
    let at = bytes.as_ptr() as usize;
    let first = (at.next_multiple_of(PAGE) - at).min(bytes.len());
    let last = ((at + bytes.len()) / PAGE * PAGE)
        .saturating_sub(at)
        .max(first);
    if last - first < LEAST {
        bytes.fill(0);
        return;
    }
    bytes[..first].fill(0);
    bytes[last..].fill(0);
    let pages = &mut bytes[first..last];
    // SAFETY: `pages` is a page-aligned stretch of whole pages inside
    // `bytes`, borrowed exclusively, of private anonymous memory (as the
    // caller says): MADV_DONTNEED gives those pages back and the next
    // access reads zeros, as if zeros had been written through the borrow.
    // No other object shares a page wholly inside the borrow.
    let given =
        unsafe { libc::madvise(pages.as_mut_ptr().cast(), pages.len(), libc::MADV_DONTNEED) };
    if given != 0 {
        pages.fill(0);
    }
}

/// Fetches `word` (if resident) towards this core.
#[inline(always)]
pub(super) fn prefetch(word: Option<&AtomicU64>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = word {
        // SAFETY: a prefetch has no effect on memory; the pointer is a
        // word of the array.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                word.as_ptr().cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// One low bit per slot of `word` holding `label`.
#[inline(always)]
pub(super) fn holding(word: u64, label: u64) -> u64 {
    let lo = word & LOW;
    let hi = (word >> 1) & LOW;
    match label {
        1 => lo & !hi,
        2 => hi & !lo,
        _ => lo & hi,
    }
}

/// One low bit per slot of `word` that is not `00`.
#[inline(always)]
pub(super) fn occupied(word: u64) -> u64 {
    (word | word >> 1) & LOW
}

/// The block holding `key`'s slot.
pub(super) fn block_of(key: u64) -> usize {
    slot(key).0 / BLOCK_WORDS
}

/// The bit of word `w`'s stretch in its block's mark.
#[inline(always)]
pub(super) fn stretch_bit(w: usize) -> u64 {
    1 << ((w % BLOCK_WORDS) / STRETCH_WORDS)
}

/// The ranges of words of block `b`'s marked `stretches` (of `words` in
/// all).
pub(super) fn marked_words(
    b: u32,
    stretches: u64,
    words: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> {
    let start = b as usize * BLOCK_WORDS;
    BitIndices(stretches).map(move |s| {
        let from = start + s * STRETCH_WORDS;
        from..(from + STRETCH_WORDS).min(words)
    })
}

/// The indices of a word's set bits, lowest first.
struct BitIndices(u64);

impl Iterator for BitIndices {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// The word and bit offset of `key`'s slot.
#[inline(always)]
pub(super) fn slot(key: u64) -> (usize, u32) {
    (
        (key / KEYS_PER_WORD) as usize,
        (key % KEYS_PER_WORD) as u32 * 2,
    )
}
