//! The ranges of characters and the slice lengths the bytes choose, and
//! the result a read of them must give (the documented order of the
//! refusals).

use core::ops::Range;

use kineform::{Error, Result};

use super::Bytes;

/// A range of characters of a crowd of `n`: valid, empty, reversed, past
/// the crowd, or at `usize::MAX`.
pub(super) fn range(b: &mut Bytes, n: usize) -> Range<usize> {
    let at = |b: &mut Bytes, k: usize| b.u8() as usize % k;
    match b.u8() % 8 {
        0..=3 => {
            let s = at(b, n + 1);
            s..s + at(b, n + 1 - s)
        }
        4 => {
            let s = at(b, n + 2);
            s..s
        }
        5 => {
            let e = at(b, n + 1);
            Range {
                start: e + 1 + at(b, 3),
                end: e,
            }
        }
        6 => at(b, n + 1)..n + 1 + at(b, 9),
        _ => {
            let (start, end) = [
                (usize::MAX - 1, usize::MAX),
                (0, usize::MAX),
                (n, usize::MAX),
                (usize::MAX, 0),
            ][at(b, 4)];
            Range { start, end }
        }
    }
}

/// An `out` length for `chars`: mostly one per character and joint, else
/// one more, one less, a character more or none.
pub(super) fn length(b: &mut Bytes, chars: &Range<usize>, nj: usize) -> usize {
    let right = chars.end.saturating_sub(chars.start).saturating_mul(nj);
    // Past the crowd, a range may ask for more than any crowd has.
    let right = if right <= 64 * nj { right } else { nj };
    match b.u8() % 10 {
        0..=5 => right,
        6 => right + 1,
        7 => right.saturating_sub(1),
        8 => right + nj,
        _ => 0,
    }
}

/// The refusal a read must give, in the documented order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Want {
    Ok,
    /// The inverse bind's joint count (this) is not the crowd's: refused
    /// as `Error::Length` expecting the crowd's, got this.
    Joints(usize),
    Range,
    /// The slice's length is not this.
    Length(usize),
}

pub(super) fn want(
    chars: &Range<usize>,
    (n, nj): (usize, usize),
    bind: Option<usize>,
    got: usize,
) -> Want {
    if let Some(b) = bind.filter(|b| *b != nj) {
        return Want::Joints(b);
    }
    if chars.start > chars.end || chars.end > n {
        return Want::Range;
    }
    let w = chars.len() * nj;
    if got == w { Want::Ok } else { Want::Length(w) }
}

/// Whether `res` is the result `want` names.
pub(super) fn is(
    res: &Result<()>,
    want: Want,
    chars: &Range<usize>,
    (n, nj): (usize, usize),
    got: usize,
) -> bool {
    match (res, want) {
        (Ok(()), Want::Ok) => true,
        (
            Err(Error::Length {
                expected, got: g, ..
            }),
            Want::Joints(b),
        ) => *expected == nj && *g == b,
        (
            Err(Error::Range {
                start, end, len, ..
            }),
            Want::Range,
        ) => *start == chars.start && *end == chars.end && *len == n,
        (
            Err(Error::Length {
                expected, got: g, ..
            }),
            Want::Length(w),
        ) => *expected == w && *g == got,
        _ => false,
    }
}
