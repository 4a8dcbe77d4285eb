//! Prefetching ahead: the regions of memory the next pack will read (its
//! world output and kept state; with level of detail, its offsets),
//! fetched into L2 a part at a time while this pack's sampling passes
//! run (or, for a next pack that resumes, while this one's
//! `passes::lod::lod_world` runs), so the next pack finds them there.

use crate::batch::caches::Caches;
use crate::prefetch;

/// The size of a crowd's per-pack store (bytes, `PackStore::bytes`)
/// above which each pack fetches the next pack's world output and kept
/// state in parts while it samples: half the L3 the core shares (every
/// size where the L3 is unknown). Below it the store stays in the L3
/// from frame to frame, the hardware prefetcher brings the next pack's
/// rows to L2 in time, and the fetch's instructions (about 8% of the
/// frame's) are all it adds. Measured on a Zen 4 with a 32 MiB L3 (one
/// thread, 27 KB a pack, PERF.md "The next pack's rows fetched only past
/// half the L3"): without the fetch the frame is 5% faster at 400 and
/// 1,000 characters (1.4 and 3.5 MB) and 2 to 4% at 2,000 and 4,000 (7
/// and 14 MB), and 20% slower at 6,000 (21 MB) and 25% at 10,000 (35 MB).
/// The small per-pack fields (`Pack::prefetch_next`) are fetched at
/// every size: without them the in-cache frame is 10% slower.
pub(crate) fn fetch_ahead_above(caches: Caches) -> usize {
    caches.l3().map_or(0, |l3| l3 / 2)
}

/// A region of memory the next pack will read, fetched in equal parts of
/// `step` bytes over a pass (`step` 0 for none).
#[derive(Clone, Copy)]
pub(crate) struct Ahead {
    pub addr: usize,
    pub step: usize,
}

impl Ahead {
    pub(crate) const NONE: Ahead = Ahead { addr: 0, step: 0 };

    /// `len` bytes at `addr`, in `parts` parts of whole lines, from the
    /// line `addr` is in (so that a region not aligned to a line has its
    /// last line fetched too).
    pub(crate) fn new(addr: usize, len: usize, parts: usize) -> Ahead {
        let (start, len) = (addr & !63, len + (addr & 63));
        Ahead {
            addr: start,
            step: match len {
                0 => 0,
                _ => len.div_ceil(parts.max(1)).next_multiple_of(64),
            },
        }
    }
}

/// `regions` without the trailing ones that fetch nothing (`step` 0),
/// so that a pass with nothing to fetch loops over nothing.
#[inline(always)]
pub(super) fn live(regions: &[Ahead]) -> &[Ahead] {
    let n = regions
        .iter()
        .rposition(|a| a.step != 0)
        .map_or(0, |i| i + 1);
    &regions[..n]
}

/// Prefetches part `i` of each region: `step / 64` lines from
/// `addr + i step` (`step` a whole number of lines, [`Ahead::new`]).
#[inline(always)]
pub(super) fn prefetch_part(ahead: &[Ahead], i: usize) {
    for a in ahead {
        // Never fires: every region is made by `Ahead::new` (its step a
        // multiple of 64), is `Ahead::NONE` (0), or is one moved by whole
        // rows with its step kept (`pack_step::fetched`); debug builds only.
        debug_assert!(a.step % 64 == 0, "a part is whole lines (Ahead::new)");
        let at = a.addr.wrapping_add(i.wrapping_mul(a.step));
        lines_from(at, a.step >> 6, prefetch::to_l2_line);
    }
}

/// `each(line)` for the `n` lines from `at` (prefetches them, in
/// [`prefetch_part`]): eight a turn while eight or more are
/// left, then the rest by the bits of its count (four, two, one), each
/// group straight-line prefetches at fixed offsets. A loop of one line a
/// turn took four instructions a line (the prefetch, an add, a compare
/// and a branch): 17% of a resumption's `lod_world`, by callgrind
/// (PERF.md, "On an Intel Xeon, stop 57"); a part of a crowd's
/// regions is a few lines (a joint's world row 6.5, its offsets 6, its
/// turn offsets 3).
#[inline(always)]
fn lines_from(mut at: usize, mut n: usize, mut each: impl FnMut(usize)) {
    let mut line = |at: usize, k: usize| each(at.wrapping_add(64 * k));
    while n >= 8 {
        (0..8).for_each(|k| line(at, k));
        (at, n) = (at.wrapping_add(512), n - 8);
    }
    if n & 4 != 0 {
        (0..4).for_each(|k| line(at, k));
        at = at.wrapping_add(256);
    }
    if n & 2 != 0 {
        (0..2).for_each(|k| line(at, k));
        at = at.wrapping_add(128);
    }
    if n & 1 != 0 {
        line(at, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_packs_rows_are_fetched_past_half_the_l3() {
        let zen4 = Caches::new(Some(1 << 20), Some(32 << 20));
        assert_eq!(fetch_ahead_above(zen4), 16 << 20);
        // An unknown L3: fetched at every size, as before the threshold.
        assert_eq!(fetch_ahead_above(Caches::new(Some(1 << 20), None)), 0);
    }

    #[test]
    fn a_part_is_each_of_its_lines_once() {
        for n in 0..40 {
            let mut seen = Vec::new();
            lines_from(4096, n, |at| seen.push(at));
            seen.sort_unstable();
            let want: Vec<usize> = (0..n).map(|k| 4096 + 64 * k).collect();
            assert_eq!(seen, want, "{n} lines");
        }
    }

    #[test]
    fn live_regions_drop_the_trailing_empty_ones() {
        let some = Ahead::new(4096, 640, 4);
        assert_eq!(some.step, 192);
        assert!(live(&[Ahead::NONE, Ahead::NONE]).is_empty());
        assert_eq!(live(&[some, Ahead::NONE]).len(), 1);
        assert_eq!(live(&[Ahead::NONE, some]).len(), 2);
        assert_eq!(live(&[some, some]).len(), 2);
    }
}
