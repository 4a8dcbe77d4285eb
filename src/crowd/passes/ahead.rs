//! Prefetching ahead: the regions of memory the next pack will read (its
//! world output and kept state; with level of detail, its offsets),
//! fetched into L2 a part at a time while this pack's sampling passes
//! run (or, for a next pack that resumes, while this one's
//! `passes::lod::lod_world` runs), so the next pack finds them there.

use crate::prefetch;

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

/// Prefetches part `i` of each region: `step / 64` lines from
/// `addr + i step` (`step` a whole number of lines, [`Ahead::new`]).
#[inline(always)]
pub(super) fn prefetch_part(ahead: &[Ahead], i: usize) {
    for a in ahead {
        let (mut at, end) = (a.addr + i * a.step, a.addr + (i + 1) * a.step);
        while at < end {
            prefetch::to_l2_line(at);
            at += 64;
        }
    }
}
