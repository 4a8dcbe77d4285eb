//! The 8-lane kernels of the searches, generic over the padded feature
//! count `N` (so the distance loops unroll; [`with_width`] picks `N` from
//! the database): the distance of eight frames, the bounds of eight boxes
//! (both in the reference's order, [`super::reference`]), brute force over
//! every slot for a block of queries, and the branch and bound.

use super::index::{Index, Level};
use super::reference::{NONE, better};
use super::search::{BRUTE_BLOCK, Match, QueryBatch, SearchStats};
use crate::lanes::{F32x8, I32x8};

/// Calls `$f::<N>(args)` with `N` the padded feature count `$n`: a
/// multiple of 4 up to [`super::search::MAX_PADDED`] (a layout has 21 or
/// 27 features, so 24 or 28; the database builds nothing else).
macro_rules! with_width {
    ($n:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $n {
            4 => $f::<4>($($arg),*),
            8 => $f::<8>($($arg),*),
            12 => $f::<12>($($arg),*),
            16 => $f::<16>($($arg),*),
            20 => $f::<20>($($arg),*),
            24 => $f::<24>($($arg),*),
            28 => $f::<28>($($arg),*),
            n => unreachable!("padded feature count {n}: layouts have 21 or 27 features"),
        }
    };
}
pub(crate) use with_width;

/// Query `q` splatted across lanes.
#[inline(always)]
fn splat_query<const N: usize>(q: &[f32]) -> [F32x8; N] {
    core::array::from_fn(|d| F32x8::splat(q[d]))
}

/// Slot pack `p`'s features.
#[inline(always)]
fn pack<const N: usize>(ix: &Index, p: usize) -> &[F32x8; N] {
    ix.packs[p * N..(p + 1) * N]
        .try_into()
        .expect("a pack holds N features")
}

/// [`super::reference::add_square`] per lane: `a + t t`, fused where the
/// build targets FMA (wide's `mul_add` is one `vfmadd` there), two
/// roundings otherwise (wide's `*` and `+`; not its `mul_add`, which fuses
/// on aarch64 whatever the flag says).
#[inline(always)]
fn add_square(a: F32x8, t: F32x8) -> F32x8 {
    #[cfg(target_feature = "fma")]
    {
        t.mul_add(t, a)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        a + t * t
    }
}

/// Four running sums over features `d % 4` from `from` to `to`, added to
/// `a` (the reference's order).
#[inline(always)]
fn sums<const N: usize>(
    a: &mut [F32x8; 4],
    q: &[F32x8; N],
    f: &[F32x8; N],
    from: usize,
    to: usize,
) {
    let mut d = from;
    while d < to {
        let (t0, t1, t2, t3) = (
            q[d] - f[d],
            q[d + 1] - f[d + 1],
            q[d + 2] - f[d + 2],
            q[d + 3] - f[d + 3],
        );
        a[0] = add_square(a[0], t0);
        a[1] = add_square(a[1], t1);
        a[2] = add_square(a[2], t2);
        a[3] = add_square(a[3], t3);
        d += 4;
    }
}

#[inline(always)]
fn total(a: &[F32x8; 4]) -> F32x8 {
    (a[0] + a[1]) + (a[2] + a[3])
}

/// The distance between a splatted query and eight frames.
#[inline(always)]
fn dist8<const N: usize>(q: &[F32x8; N], f: &[F32x8; N]) -> F32x8 {
    let mut a = [F32x8::ZERO; 4];
    sums(&mut a, q, f, 0, N);
    total(&a)
}

/// [`dist8`], abandoned (`None`) when after the first half of the
/// features every lane's partial distance exceeds `limit`: partial sums
/// only grow, so those frames cannot win.
#[inline(always)]
fn dist8_limited<const N: usize>(q: &[F32x8; N], f: &[F32x8; N], limit: F32x8) -> Option<F32x8> {
    let mut a = [F32x8::ZERO; 4];
    let half = (N / 8) * 4;
    sums(&mut a, q, f, 0, half);
    if total(&a).simd_gt(limit).all() {
        return None;
    }
    sums(&mut a, q, f, half, N);
    Some(total(&a))
}

/// Four running sums of the box bound's terms over features `from` to
/// `to` (the reference's order).
#[inline(always)]
fn bound_sums<const N: usize>(
    a: &mut [F32x8; 4],
    q: &[F32x8; N],
    (lo, hi): (&[F32x8; N], &[F32x8; N]),
    from: usize,
    to: usize,
) {
    let mut d = from;
    while d < to {
        let t = |k: usize| q[k] - q[k].fast_max(lo[k]).fast_min(hi[k]);
        let (t0, t1, t2, t3) = (t(d), t(d + 1), t(d + 2), t(d + 3));
        a[0] = add_square(a[0], t0);
        a[1] = add_square(a[1], t1);
        a[2] = add_square(a[2], t2);
        a[3] = add_square(a[3], t3);
        d += 4;
    }
}

/// Box pack `bp`'s minima and maxima.
#[inline(always)]
fn box_pack<const N: usize>(level: &Level, bp: usize) -> (&[F32x8; N], &[F32x8; N]) {
    // Unreachable: a slice of `N` converts to `[_; N]` whatever `N` is
    // (and `bp` is a box pack of the level, whose rows are `N` wide).
    let lo = level.lo[bp * N..(bp + 1) * N]
        .try_into()
        .expect("N features");
    let hi = level.hi[bp * N..(bp + 1) * N]
        .try_into()
        .expect("N features");
    (lo, hi)
}

/// The bounds of a splatted query to the eight boxes of box pack `bp`.
#[inline(always)]
fn bound8<const N: usize>(q: &[F32x8; N], level: &Level, bp: usize) -> F32x8 {
    let mut a = [F32x8::ZERO; 4];
    bound_sums(&mut a, q, box_pack(level, bp), 0, N);
    total(&a)
}

/// One pass over the packs for queries `first .. first + out.len()`.
pub(crate) fn brute_block<const N: usize>(
    ix: &Index,
    queries: &QueryBatch,
    first: usize,
    out: &mut [Match],
) {
    // Unreachable: the callers' `check` made `out` one match per query.
    let qs: Vec<[F32x8; N]> = (0..out.len())
        .map(|i| splat_query(queries.get(first + i).expect("query in batch")))
        .collect();
    let mut best_d = [F32x8::splat(f32::INFINITY); BRUTE_BLOCK];
    let mut best_f = [I32x8::splat(i32::MAX); BRUTE_BLOCK];
    for (p, &ids) in ix.ids.iter().enumerate() {
        let f = pack::<N>(ix, p);
        for ((q, bd), bf) in qs.iter().zip(&mut best_d).zip(&mut best_f) {
            let d = dist8(q, f);
            // Each lane keeps the better of its best and this frame
            // (reference::better): slots are not in frame order, so an
            // equal distance wins with a lower frame. Equal distances are
            // rare; their test is skipped when no lane has one. Lanes
            // past the last slot are NaN, never better.
            let eq = d.simd_eq(*bd);
            let m = if eq.any() {
                let earlier: F32x8 = bytemuck::cast(ids.simd_lt(*bf));
                d.simd_lt(*bd) | (eq & earlier)
            } else {
                d.simd_lt(*bd)
            };
            *bd = m.select(d, *bd);
            *bf =
                bytemuck::cast(m.select(bytemuck::cast(ids), bytemuck::cast::<I32x8, F32x8>(*bf)));
        }
    }
    for ((o, bd), bf) in out.iter_mut().zip(&best_d).zip(&best_f) {
        let mut best = NONE;
        for (&d, &f) in bd.to_array().iter().zip(&bf.to_array()) {
            if f != i32::MAX && better(d, f as usize, best) {
                best = Match {
                    frame: f as usize,
                    distance: d,
                };
            }
        }
        *o = best;
    }
}

struct Searcher<'a, const N: usize> {
    ix: &'a Index,
    q: [F32x8; N],
    best: Match,
    stats: SearchStats,
}

impl<const N: usize> Searcher<'_, N> {
    /// Whether a box at `bound` whose first frame is `first` may hold a
    /// better frame.
    #[inline(always)]
    fn passes(&self, bound: f32, first: u32) -> bool {
        better(bound, first as usize, self.best)
    }

    /// Starts from seed frame `f` at its distance less `margin` (the
    /// hysteresis bar, [`super::reference::settle`]); returns the seed at
    /// its own distance, `None` when `f` is not searched.
    fn seed(&mut self, f: usize, margin: f32) -> Option<Match> {
        let s = self.ix.slot(f)?;
        let d = dist8(&self.q, pack::<N>(self.ix, s / 8)).to_array()[s % 8];
        self.best = Match {
            frame: f,
            distance: d - margin,
        };
        Some(Match {
            frame: f,
            distance: d,
        })
    }

    fn leaf(&mut self, b: usize) {
        let packs = self.ix.ids.len();
        let per = super::index::LEAF / 8;
        for p in per * b..(per * b + per).min(packs) {
            let limit = F32x8::splat(self.best.distance);
            self.stats.frame_packs += 1;
            let Some(d) = dist8_limited(&self.q, pack::<N>(self.ix, p), limit) else {
                self.stats.abandoned += 1;
                continue;
            };
            let mut m = d.simd_le(limit).to_bitmask();
            if m == 0 {
                continue;
            }
            let (d, ids) = (d.to_array(), self.ix.ids[p].to_array());
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let frame = ids[l] as usize;
                if better(d[l], frame, self.best) {
                    self.best = Match {
                        frame,
                        distance: d[l],
                    };
                }
            }
        }
    }

    /// Visits the boxes of box pack `bp` of `level` (those `boxes` has)
    /// that may hold a better frame, lowest bound first.
    fn visit_pack(&mut self, level: usize, bp: usize) {
        let lv = &self.ix.levels[level];
        self.stats.box_packs += 1;
        let bounds = bound8(&self.q, lv, bp);
        let kids = (lv.boxes - 8 * bp).min(8);
        let mut m = bounds
            .simd_le(F32x8::splat(self.best.distance))
            .to_bitmask()
            & ((1 << kids) - 1);
        let bounds = bounds.to_array();
        let mut order = [0u64; 8];
        let mut k = 0;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            order[k] = key(bounds[l], 8 * bp + l);
            k += 1;
        }
        self.visit(level, &mut order[..k]);
    }

    /// Visits boxes `order` of `level`, lowest bound first, each only while
    /// it may still hold a better frame.
    fn visit(&mut self, level: usize, order: &mut [u64]) {
        sort_keys(order);
        for &k in order.iter() {
            let (bound, b) = unkey(k);
            if bound > self.best.distance {
                break;
            }
            if self.passes(bound, self.ix.levels[level].first[b]) {
                if level == 0 {
                    self.leaf(b);
                } else {
                    self.visit_pack(level - 1, b);
                }
            }
        }
    }

    fn run(&mut self) {
        let top = self.ix.levels.len() - 1;
        let lv = &self.ix.levels[top];
        let mut order = [0u64; super::index::TOP_BOXES];
        let mut k = 0;
        for bp in 0..lv.boxes.div_ceil(8) {
            self.stats.box_packs += 1;
            let bounds = bound8(&self.q, lv, bp).to_array();
            for (l, &b) in bounds.iter().enumerate().take(lv.boxes - 8 * bp) {
                if b <= self.best.distance {
                    order[k] = key(b, 8 * bp + l);
                    k += 1;
                }
            }
        }
        self.visit(top, &mut order[..k]);
    }
}

/// Box `b` at `bound` as one integer that orders as `(bound, b)` does,
/// so that sorting the visit compares one integer, not a float and then
/// a box: a bound is a sum of squares (0 or more, up to `+inf`; never NaN
/// where a visit keys it: queries and features are finite, and only
/// bounds that pass `<= best` are keyed), and the bits of floats from
/// `+0` up order as the floats do. `+ 0.0` makes a
/// `-0` (which the sums do not make) `+0`, whose bits are the least. A
/// box number fits in 32 bits (frames are `i32`, [`Index::new`]).
#[inline(always)]
fn key(bound: f32, b: usize) -> u64 {
    (u64::from((bound + 0.0).to_bits()) << 32) | b as u64
}

/// [`key`]'s bound and box.
#[inline(always)]
fn unkey(k: u64) -> (f32, usize) {
    (f32::from_bits((k >> 32) as u32), (k & 0xFFFF_FFFF) as usize)
}

/// Sorts keys (insertion sort: at most [`super::index::TOP_BOXES`]).
fn sort_keys(v: &mut [u64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// The accelerated search for one query (module docs of
/// [`super::search`]).
///
/// A seeded search keeps its seed unless a frame beats it by `margin`:
/// the search starts from the seed's distance less `margin`, and when no
/// frame is better than that bar (the best is still the seed's frame) the
/// seed is returned at its own distance.
pub(crate) fn search_one<const N: usize>(
    ix: &Index,
    q: &[f32],
    seed: Option<usize>,
    margin: f32,
) -> (Match, SearchStats) {
    let mut s = Searcher::<N> {
        ix,
        q: splat_query(q),
        best: NONE,
        stats: SearchStats::default(),
    };
    let kept = seed.and_then(|f| s.seed(f, margin));
    // Distances are sums of squares: below a negative bar nothing wins.
    let hopeless = s.best.distance < 0.0;
    if !hopeless {
        s.run();
    }
    match kept {
        Some(k) if s.best.frame == k.frame => (k, s.stats),
        _ => (s.best, s.stats),
    }
}
