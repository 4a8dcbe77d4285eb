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

    /// Level-0 box `b`'s frame packs, each distance computed whole.
    /// Abandoning a pack once its first 12 features' partial distances
    /// all exceed the best saved the rest (16 of 28 features, 12 of 24)
    /// where it happened (a quarter of the packs begun) and cost a mispredicted branch
    /// wherever the data took it the other way: whole distances made the
    /// search faster (PERF.md, "The search without its unpredictable
    /// branches").
    fn leaf(&mut self, b: usize) {
        let packs = self.ix.ids.len();
        let per = super::index::LEAF / 8;
        for p in per * b..(per * b + per).min(packs) {
            let limit = F32x8::splat(self.best.distance);
            self.stats.frame_packs += 1;
            let d = dist8(&self.q, pack::<N>(self.ix, p));
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
    /// that may hold a better frame, lowest bound first (ties by box, as
    /// [`key`] orders them), in the order [`pass_order`] gives without
    /// branches.
    fn visit_pack(&mut self, level: usize, bp: usize) {
        let lv = &self.ix.levels[level];
        self.stats.box_packs += 1;
        let bounds = bound8(&self.q, lv, bp);
        let kids = (lv.boxes - 8 * bp).min(8);
        let m = bounds
            .simd_le(F32x8::splat(self.best.distance))
            .to_bitmask()
            & ((1 << kids) - 1);
        if m == 0 {
            return;
        }
        let order = pass_order(bounds, m);
        let bounds = bounds.to_array();
        for &l in &order[..m.count_ones() as usize] {
            let l = usize::from(l);
            if bounds[l] > self.best.distance {
                break;
            }
            let b = 8 * bp + l;
            if self.passes(bounds[l], lv.first[b]) {
                if level == 0 {
                    self.leaf(b);
                } else {
                    self.visit_pack(level - 1, b);
                }
            }
        }
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

/// The lanes of `pass` (a bit per lane) in order of their `bounds`,
/// lowest first, equal bounds by lane, then the other lanes: the first
/// `pass.count_ones()` entries are the passing lanes in [`key`]'s order
/// (the others follow by lane).
///
/// Without branches (a sort's comparisons, taken one way or the other
/// by the data, cost a misprediction each few boxes): each lane's rank
/// is how many lanes come before it, counted in eight vector compares
/// of one integer key per lane (the bound's bits, which order as the
/// bounds do from `+0` up, [`key`]; `i32::MAX` for the lanes not
/// passing, above every bound's bits, `+inf` included). Keys differ or
/// tie-break by lane, so the ranks are a permutation of `0..8`.
#[inline(always)]
fn pass_order(bounds: F32x8, pass: u32) -> [u8; 8] {
    let bit = I32x8::new([1, 2, 4, 8, 16, 32, 64, 128]);
    let passing = (I32x8::splat(pass as i32) & bit).simd_eq(bit);
    let bits: I32x8 = bytemuck::cast(bounds + F32x8::ZERO);
    let keys = (bits & passing) | (I32x8::splat(i32::MAX) & !passing);
    let lane = I32x8::new([0, 1, 2, 3, 4, 5, 6, 7]);
    let mut rank = I32x8::ZERO;
    for (j, &kj) in keys.to_array().iter().enumerate() {
        let kj = I32x8::splat(kj);
        // All ones (-1) where lane `j` comes before this lane.
        let before = keys.simd_gt(kj) | (keys.simd_eq(kj) & lane.simd_gt(I32x8::splat(j as i32)));
        rank -= before;
    }
    let mut order = [0u8; 8];
    for (l, &r) in rank.to_array().iter().enumerate() {
        order[r as usize & 7] = l as u8;
    }
    order
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// [`pass_order`] against a sort by [`key`]: the passing lanes
    /// first, by bound then box, then the others by lane, every lane
    /// once. Passing bounds drawn from a few values (ties), `+inf`, the
    /// largest float, a subnormal and `-0` (which a sum of squares does
    /// not make, but which must order as `+0`); the lanes not passing hold
    /// anything, NaN and negatives included, which must not matter. Fails
    /// with the tie broken the other way (`lane.simd_lt`), without the
    /// `+ 0` (a `-0` ranks below every bound), with a passing lane keyed
    /// `i32::MAX`, or with the lanes not passing keyed by their bounds.
    #[test]
    fn pass_order_is_a_sort_of_the_passing_lanes() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(58);
        let passing = [0.0, -0.0, 0.5, 1.0, 1.0e-40, 3.0, f32::MAX, f32::INFINITY];
        let others = [f32::NAN, -1.0, -0.0, 0.5, f32::INFINITY];
        for _ in 0..20_000 {
            let pass: u32 = r.random_range(0..256);
            let b: [f32; 8] = core::array::from_fn(|l| match (pass >> l) & 1 {
                1 => passing[r.random_range(0..passing.len())],
                _ => others[r.random_range(0..others.len())],
            });
            let rank = |l: u8| match (pass >> l) & 1 {
                1 => (0, key(b[usize::from(l)], usize::from(l))),
                _ => (1, u64::from(l)),
            };
            let mut want: Vec<u8> = (0..8).collect();
            want.sort_by_key(|&l| rank(l));
            assert_eq!(
                pass_order(F32x8::new(b), pass).to_vec(),
                want,
                "bounds {b:?} pass {pass:08b}"
            );
        }
    }
}
