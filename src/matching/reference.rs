//! The scalar reference search: plain f32 code that defines what every
//! search returns, frame by frame in order.
//!
//! **The distance.** Between a query `q` and a frame's features `f`, both
//! padded with zeros to `n` features (a multiple of 4), in exactly this
//! order, each operation rounded to f32:
//!
//! ```text
//! a[k] = 0                                 k = 0..4
//! for d in 0..n:  t = q[d] - f[d];  a[d % 4] = add_square(a[d % 4], t)
//! distance = (a[0] + a[1]) + (a[2] + a[3])
//! ```
//!
//! where [`add_square`] is `a + t t` rounded once (a fused multiply-add)
//! in a build for a CPU with FMA (`target_feature = "fma"`, as the repo's
//! x86-64-v3 builds), and rounded twice (`t t`, then the sum) otherwise,
//! in this reference and in the 8-lane kernels alike. Four running sums
//! let the 8-lane searches keep four independent dependency chains; the
//! padding adds `+0.0`, which changes nothing. Every search path of a
//! build computes this same sequence of roundings, so a frame's distance
//! is the same bits in all of them and ties are exact (builds for
//! different CPUs may differ in the last bits, as the crate's other
//! kernels do).
//!
//! **The box bound.** The same sequence with `t = q[d] - clamp(q[d], lo[d],
//! hi[d])`. For a frame inside the box, each `|t|` is at most the frame's,
//! and rounding is monotonic (a larger exact value never rounds to a
//! smaller float; `a + t t` grows with `|t|` and `a`, fused or not), so
//! each running sum and the total are at most the frame's: the bound never
//! exceeds a frame's distance in floating point, not only in exact
//! arithmetic. Partial sums grow the
//! same way, so a search could stop a frame's sum early once it passes
//! the best (the lanes' search computes each sum whole: PERF.md, "The
//! search without its unpredictable branches").
//!
//! **The best frame.** The lowest distance, ties broken by the lowest
//! frame: frame `i` at distance `d` is better than the best `(b, j)` when
//! `d < b`, or `d == b` and `i < j` ([`better`]). Excluded frames never
//! win; an infinite distance (an overflowing query) still ranks, by frame.
//!
//! **Hysteresis.** A query seeded with the searched frame `s` a character
//! plays, at distance `d_s`, and a switch margin `m >= 0`
//! ([`search_seeded`]): the best frame `b` when it is better than `s` at
//! `d_s - m` (`better(b.distance, b.frame, (s, d_s - m))`), else `s`
//! itself at `d_s`. With `m = 0` that is the best frame (the seed is a
//! candidate, so `b` is never worse). The searches may start from the
//! bound `d_s - m`: every frame that could change the result is at most
//! that far, which prunes more boxes the larger `m` is.

use super::database::MatchDatabase;
use super::search::{Match, check_margin, check_query};
use crate::error::Result;

/// `a + t t`: one rounding (fused multiply-add) where the build targets
/// FMA, two otherwise (module docs).
#[inline(always)]
pub fn add_square(a: f32, t: f32) -> f32 {
    #[cfg(target_feature = "fma")]
    {
        t.mul_add(t, a)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        a + t * t
    }
}

/// The distance between `q` and `f` (module docs), over the shorter
/// length.
pub fn distance(q: &[f32], f: &[f32]) -> f32 {
    let mut a = [0.0f32; 4];
    for (d, (&x, &y)) in q.iter().zip(f).enumerate() {
        let t = x - y;
        a[d % 4] = add_square(a[d % 4], t);
    }
    (a[0] + a[1]) + (a[2] + a[3])
}

/// `q` clamped to `[lo, hi]`: `max(q, lo)` then `min(·, hi)` (an empty
/// box, `lo = +inf`, `hi = -inf`, gives `-inf`).
pub fn clamp(q: f32, lo: f32, hi: f32) -> f32 {
    q.max(lo).min(hi)
}

/// The lower bound of the distance between `q` and any frame in the box
/// `[lo, hi]` (module docs).
pub fn bound(q: &[f32], lo: &[f32], hi: &[f32]) -> f32 {
    let mut a = [0.0f32; 4];
    for (d, ((&x, &l), &h)) in q.iter().zip(lo).zip(hi).enumerate() {
        let t = x - clamp(x, l, h);
        a[d % 4] = add_square(a[d % 4], t);
    }
    (a[0] + a[1]) + (a[2] + a[3])
}

/// Whether frame `frame` at `distance` is better than `best` (module
/// docs).
pub fn better(distance: f32, frame: usize, best: Match) -> bool {
    distance < best.distance || (distance == best.distance && frame < best.frame)
}

/// No frame yet: infinitely far, past every frame.
pub const NONE: Match = Match {
    frame: usize::MAX,
    distance: f32::INFINITY,
};

/// [`search`] with hysteresis (module docs): the best frame for `q` when
/// it beats the searched `seed` by `margin`, else the seed at its own
/// distance. An unseeded query, or one seeded with a frame not searched,
/// gets [`search`]'s frame. Refuses what [`search`] refuses, then a
/// margin that [`QueryBatch::set_margin`](super::QueryBatch::set_margin)
/// refuses (negative or not finite).
pub fn search_seeded(
    db: &MatchDatabase,
    q: &[f32],
    seed: Option<usize>,
    margin: f32,
) -> Result<Match> {
    check_query(db, q)?;
    check_margin(margin)?;
    let best = scan(db, q);
    Ok(match seed.filter(|&s| db.searchable(s)) {
        Some(s) => settle(best, seed_match(db, q, s), margin),
        None => best,
    })
}

/// Seed frame `s`'s distance to `q` (`s` searched).
pub(crate) fn seed_match(db: &MatchDatabase, q: &[f32], s: usize) -> Match {
    let mut f = db.index.features(s);
    f.resize(q.len(), 0.0);
    Match {
        frame: s,
        distance: distance(q, &f),
    }
}

/// The hysteresis rule (module docs): `best` when it is better than the
/// `seed` at its distance less `margin`, else the seed.
pub(crate) fn settle(best: Match, seed: Match, margin: f32) -> Match {
    let bar = Match {
        frame: seed.frame,
        distance: seed.distance - margin,
    };
    match better(best.distance, best.frame, bar) {
        true => best,
        false => seed,
    }
}

/// The best searched frame of `db` for the normalized, padded query `q`
/// ([`MatchDatabase::query`]): every searched frame in order, [`distance`]
/// and [`better`]. Refuses, as the 8-lane searches do, a query whose
/// length is not the database's padded feature count
/// ([`crate::Error::Length`]) or with a feature that is not finite
/// ([`crate::Error::Index`], naming it): with a NaN feature every
/// distance is NaN, no frame is [`better`] than [`NONE`], and `NONE`
/// (frame `usize::MAX`) would have been returned as the best frame.
pub fn search(db: &MatchDatabase, q: &[f32]) -> Result<Match> {
    check_query(db, q)?;
    Ok(scan(db, q))
}

/// [`search`] of a query already checked: every searched frame in order.
fn scan(db: &MatchDatabase, q: &[f32]) -> Match {
    let mut best = NONE;
    let mut f = vec![0.0f32; q.len()];
    for i in 0..db.frames() {
        if !db.searchable(i) {
            continue;
        }
        let own = db.index.features(i);
        f[..own.len()].copy_from_slice(&own);
        let d = distance(q, &f);
        if better(d, i, best) {
            best = Match {
                frame: i,
                distance: d,
            };
        }
    }
    best
}
