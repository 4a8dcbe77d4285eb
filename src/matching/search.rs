//! The 8-lane searches: brute force over every frame, and the accelerated
//! search through the bounding boxes; both batched over many queries on
//! rayon, both returning what [`super::reference::search`] returns, bit
//! for bit (its module docs define the distance, the bound and the tie
//! rule every path computes).
//!
//! **Brute force** passes over the frame packs once per block of
//! [`BRUTE_BLOCK`] queries: each pack's features are loaded once and
//! compared with every query of the block, each lane keeping its best
//! (`d < best`, frames arriving in order), the lanes merged by
//! [`super::reference::better`] at the end.
//!
//! **Accelerated** is a branch and bound per query: the bounds of the top
//! level's boxes, visited lowest bound first; in a box, its eight
//! children's bounds in one pass, visited lowest first, a child entered
//! only when its bound could still win (`bound < best`, or equal with a
//! lower first frame); in a level-0 box, its two frame packs, each
//! abandoned once every lane's partial distance exceeds the best. A
//! `seed` frame (the one a character plays) is evaluated first to start
//! with a good best; it changes the speed, never the result.

use rayon::prelude::*;

use super::database::{MatchDatabase, QUERY_NOT_FINITE, check_finite};
use super::features::{TrajectoryPoint, WorldPose};
use super::frame::CharacterFrame;
use super::index::{Index, Level};
use super::reference::{NONE, better};
use crate::error::{Error, Result};
use crate::lanes::F32x8;

/// The best frame for a query and its distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Match {
    /// The database frame.
    pub frame: usize,
    /// Its distance to the query ([`super::reference::distance`]).
    pub distance: f32,
}

/// The most padded features a layout has (27 rounded up to 28).
pub const MAX_PADDED: usize = 28;

/// Queries per pass of the brute-force search.
pub const BRUTE_BLOCK: usize = 8;

/// Queries per rayon task of the accelerated search.
pub const ACCEL_BLOCK: usize = 16;

/// Normalized queries for one database, each with an optional seed frame
/// ([`MatchDatabase::query`] fills one).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryBatch {
    padded: usize,
    q: Vec<f32>,
    seeds: Vec<u32>,
}

const NO_SEED: u32 = u32::MAX;

impl QueryBatch {
    /// An empty batch for `db`'s queries.
    pub fn new(db: &MatchDatabase) -> QueryBatch {
        QueryBatch {
            padded: db.layout().padded(),
            q: Vec::new(),
            seeds: Vec::new(),
        }
    }

    /// Adds a normalized, padded query (its `seed`: a frame to evaluate
    /// first, the one the character plays). Refuses, adding nothing, a
    /// query of the wrong length or with a non-finite feature.
    pub fn push(&mut self, q: &[f32], seed: Option<usize>) -> Result<()> {
        if q.len() != self.padded {
            return Err(Error::Length {
                what: "query features (FeatureLayout::padded)",
                expected: self.padded,
                got: q.len(),
            });
        }
        check_finite(QUERY_NOT_FINITE, q)?;
        self.q.extend_from_slice(q);
        self.seeds
            .push(seed.map_or(NO_SEED, |s| s.min(NO_SEED as usize - 1) as u32));
        Ok(())
    }

    /// Adds [`MatchDatabase::query`]'s query for a character's world pose
    /// and desired trajectory.
    pub fn push_pose(
        &mut self,
        db: &MatchDatabase,
        pose: &WorldPose,
        trajectory: &[TrajectoryPoint; 3],
        seed: Option<usize>,
    ) -> Result<()> {
        let mut q = [0.0f32; MAX_PADDED];
        let q = &mut q[..db.layout().padded()];
        db.query(pose, trajectory, q)?;
        self.push(q, seed)
    }

    /// Adds [`MatchDatabase::query_from_frame`]'s query (the demo's: the
    /// playing frame's pose features, the desired trajectory), seeded with
    /// that frame.
    pub fn push_frame(
        &mut self,
        db: &MatchDatabase,
        playing: usize,
        frame: &CharacterFrame,
        trajectory: &[TrajectoryPoint; 3],
    ) -> Result<()> {
        let mut q = [0.0f32; MAX_PADDED];
        let q = &mut q[..db.layout().padded()];
        db.query_from_frame(playing, frame, trajectory, q)?;
        self.push(q, Some(playing))
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.seeds.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.seeds.is_empty()
    }

    /// Removes every query (keeping the memory).
    pub fn clear(&mut self) {
        self.q.clear();
        self.seeds.clear();
    }

    /// Query `i`'s features.
    pub fn get(&self, i: usize) -> Option<&[f32]> {
        self.q.get(i * self.padded..(i + 1) * self.padded)
    }

    /// Query `i`'s seed.
    pub fn seed(&self, i: usize) -> Option<usize> {
        self.seeds
            .get(i)
            .and_then(|&s| (s != NO_SEED).then_some(s as usize))
    }

    fn check(&self, db: &MatchDatabase, out: &[Match]) -> Result<()> {
        if self.padded != db.layout().padded() {
            return Err(Error::Length {
                what: "query features (the batch was made for another layout)",
                expected: db.layout().padded(),
                got: self.padded,
            });
        }
        if out.len() != self.len() {
            return Err(Error::Length {
                what: "matches (one per query)",
                expected: self.len(),
                got: out.len(),
            });
        }
        Ok(())
    }
}

/// Query `q` splatted across lanes.
fn splat_query(q: &[f32]) -> [F32x8; MAX_PADDED] {
    let mut s = [F32x8::ZERO; MAX_PADDED];
    for (s, &x) in s.iter_mut().zip(q) {
        *s = F32x8::splat(x);
    }
    s
}

/// The distance between a splatted query and eight frames (reference
/// order: four running sums over features `d % 4`).
#[inline(always)]
fn dist8(q: &[F32x8], f: &[F32x8]) -> F32x8 {
    let z = F32x8::ZERO;
    let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
    for (q, f) in q.chunks_exact(4).zip(f.chunks_exact(4)) {
        let (t0, t1, t2, t3) = (q[0] - f[0], q[1] - f[1], q[2] - f[2], q[3] - f[3]);
        a0 += t0 * t0;
        a1 += t1 * t1;
        a2 += t2 * t2;
        a3 += t3 * t3;
    }
    (a0 + a1) + (a2 + a3)
}

/// [`dist8`], abandoned (`None`) when after the first half of the
/// features every lane's partial distance exceeds `limit`: partial sums
/// only grow, so those frames cannot win.
#[inline(always)]
fn dist8_limited(q: &[F32x8], f: &[F32x8], limit: F32x8) -> Option<F32x8> {
    let z = F32x8::ZERO;
    let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
    let half = (q.len() / 8) * 4;
    for (k, (q, f)) in q.chunks_exact(4).zip(f.chunks_exact(4)).enumerate() {
        if 4 * k == half && ((a0 + a1) + (a2 + a3)).simd_gt(limit).all() {
            return None;
        }
        let (t0, t1, t2, t3) = (q[0] - f[0], q[1] - f[1], q[2] - f[2], q[3] - f[3]);
        a0 += t0 * t0;
        a1 += t1 * t1;
        a2 += t2 * t2;
        a3 += t3 * t3;
    }
    Some((a0 + a1) + (a2 + a3))
}

/// The bounds of a splatted query to the eight boxes of box pack `bp`.
#[inline(always)]
fn bound8(q: &[F32x8], level: &Level, bp: usize) -> F32x8 {
    let n = q.len();
    let (lo, hi) = (&level.lo[bp * n..][..n], &level.hi[bp * n..][..n]);
    let z = F32x8::ZERO;
    let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
    for ((q, lo), hi) in q
        .chunks_exact(4)
        .zip(lo.chunks_exact(4))
        .zip(hi.chunks_exact(4))
    {
        let t = |k: usize| q[k] - q[k].fast_max(lo[k]).fast_min(hi[k]);
        let (t0, t1, t2, t3) = (t(0), t(1), t(2), t(3));
        a0 += t0 * t0;
        a1 += t1 * t1;
        a2 += t2 * t2;
        a3 += t3 * t3;
    }
    (a0 + a1) + (a2 + a3)
}

/// Brute force over every frame for each query of `queries`, into `out`
/// (module docs). Refuses a batch made for another layout and an `out` of
/// another length.
pub fn brute_force(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    let ix = &db.index;
    let work = queries.len().saturating_mul(ix.frames);
    let run = |(k, out): (usize, &mut [Match])| {
        brute_block(ix, queries, k * BRUTE_BLOCK, out);
    };
    if work < 1 << 20 {
        out.chunks_mut(BRUTE_BLOCK).enumerate().for_each(run);
    } else {
        out.par_chunks_mut(BRUTE_BLOCK).enumerate().for_each(run);
    }
    Ok(())
}

/// One pass over the packs for queries `first .. first + out.len()`.
fn brute_block(ix: &Index, queries: &QueryBatch, first: usize, out: &mut [Match]) {
    let n = ix.padded;
    let qs: Vec<[F32x8; MAX_PADDED]> = (0..out.len())
        .map(|i| splat_query(queries.get(first + i).expect("query in batch")))
        .collect();
    let nan = F32x8::splat(f32::NAN);
    let mut best_d = [nan; BRUTE_BLOCK];
    let mut best_p = [F32x8::ZERO; BRUTE_BLOCK];
    for (p, (f, &ex)) in ix.packs.chunks_exact(n).zip(&ix.exclude).enumerate() {
        // The pack number rides in the lanes as the bits of an f32 (a
        // select moves bits unchanged).
        let pv = F32x8::splat(f32::from_bits(p as u32));
        for ((q, bd), bp) in qs.iter().zip(&mut best_d).zip(&mut best_p) {
            let d = dist8(&q[..n], f) + ex;
            // Frames reach each lane in order, so a later one wins only
            // below the best; a lane with no best yet (NaN) takes any.
            let m = d.simd_lt(*bd) | bd.is_nan();
            *bd = m.select(d, *bd);
            *bp = m.select(pv, *bp);
        }
    }
    for ((o, bd), bp) in out.iter_mut().zip(&best_d).zip(&best_p) {
        let mut best = NONE;
        for (l, (&d, &p)) in bd.to_array().iter().zip(&bp.to_array()).enumerate() {
            let frame = 8 * p.to_bits() as usize + l;
            if !d.is_nan() && better(d, frame, best) {
                best = Match { frame, distance: d };
            }
        }
        *o = best;
    }
}

/// What one accelerated search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Box packs whose eight bounds were computed.
    pub box_packs: usize,
    /// Frame packs whose distances were begun.
    pub frame_packs: usize,
    /// Frame packs abandoned half way.
    pub abandoned: usize,
}

struct Searcher<'a> {
    ix: &'a Index,
    q: [F32x8; MAX_PADDED],
    best: Match,
    stats: SearchStats,
}

impl Searcher<'_> {
    fn n(&self) -> usize {
        self.ix.padded
    }

    /// Whether a box at `bound` whose first frame is `first` may hold a
    /// better frame.
    #[inline(always)]
    fn passes(&self, bound: f32, first: u32) -> bool {
        better(bound, first as usize, self.best)
    }

    fn seed(&mut self, f: usize) {
        if !self.ix.searchable(f) {
            return;
        }
        let (p, n) = (f / 8, self.n());
        let d = dist8(&self.q[..n], &self.ix.packs[p * n..(p + 1) * n]).to_array()[f % 8];
        self.best = Match {
            frame: f,
            distance: d,
        };
    }

    fn leaf(&mut self, b: usize) {
        let n = self.n();
        let packs = self.ix.exclude.len();
        for p in 2 * b..(2 * b + 2).min(packs) {
            let limit = F32x8::splat(self.best.distance);
            self.stats.frame_packs += 1;
            let f = &self.ix.packs[p * n..(p + 1) * n];
            let Some(d) = dist8_limited(&self.q[..n], f, limit) else {
                self.stats.abandoned += 1;
                continue;
            };
            let d = d + self.ix.exclude[p];
            let mut m = d.simd_le(limit).to_bitmask();
            if m == 0 {
                continue;
            }
            let d = d.to_array();
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                if better(d[l], 8 * p + l, self.best) {
                    self.best = Match {
                        frame: 8 * p + l,
                        distance: d[l],
                    };
                }
            }
        }
    }

    /// Visits the boxes of box pack `bp` of `level` (those `boxes` has),
    /// lowest bound first.
    fn visit_pack(&mut self, level: usize, bp: usize) {
        let lv = &self.ix.levels[level];
        let n = self.n();
        self.stats.box_packs += 1;
        let bounds = bound8(&self.q[..n], lv, bp).to_array();
        let kids = (lv.boxes - 8 * bp).min(8);
        let mut order: [(f32, usize); 8] = [(0.0, 0); 8];
        for (l, o) in order.iter_mut().enumerate().take(kids) {
            *o = (bounds[l], 8 * bp + l);
        }
        sort_by_bound(&mut order[..kids]);
        for &(bound, b) in &order[..kids] {
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
        let n = self.n();
        let packs = lv.boxes.div_ceil(8);
        let mut order = [(0.0f32, 0usize); super::index::TOP_BOXES];
        for bp in 0..packs {
            self.stats.box_packs += 1;
            let bounds = bound8(&self.q[..n], lv, bp).to_array();
            for l in 0..(lv.boxes - 8 * bp).min(8) {
                order[8 * bp + l] = (bounds[l], 8 * bp + l);
            }
        }
        let order = &mut order[..lv.boxes];
        sort_by_bound(order);
        for &(bound, b) in order.iter() {
            if bound > self.best.distance {
                break;
            }
            if self.passes(bound, self.ix.levels[top].first[b]) {
                if top == 0 {
                    self.leaf(b);
                } else {
                    self.visit_pack(top - 1, b);
                }
            }
        }
    }
}

/// Sorts `(bound, box)` by bound, then box (insertion sort: at most
/// [`super::index::TOP_BOXES`] entries).
fn sort_by_bound(v: &mut [(f32, usize)]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && (v[j - 1].0 > x.0 || (v[j - 1].0 == x.0 && v[j - 1].1 > x.1)) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// The accelerated search for one normalized, padded query `q` (module
/// docs), with what it did. Refuses a query of the wrong length or with a
/// non-finite feature.
pub fn accelerated_one(
    db: &MatchDatabase,
    q: &[f32],
    seed: Option<usize>,
) -> Result<(Match, SearchStats)> {
    if q.len() != db.layout().padded() {
        return Err(Error::Length {
            what: "query features (FeatureLayout::padded)",
            expected: db.layout().padded(),
            got: q.len(),
        });
    }
    check_finite(QUERY_NOT_FINITE, q)?;
    Ok(search_one(&db.index, q, seed))
}

fn search_one(ix: &Index, q: &[f32], seed: Option<usize>) -> (Match, SearchStats) {
    let mut s = Searcher {
        ix,
        q: splat_query(q),
        best: NONE,
        stats: SearchStats::default(),
    };
    if let Some(f) = seed {
        s.seed(f);
    }
    s.run();
    (s.best, s.stats)
}

/// The accelerated search for each query of `queries`, into `out`, on
/// rayon ([`ACCEL_BLOCK`] queries a task). Refuses a batch made for
/// another layout and an `out` of another length.
pub fn accelerated(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    let ix = &db.index;
    let run = |(k, out): (usize, &mut [Match])| {
        for (i, o) in out.iter_mut().enumerate() {
            let qi = k * ACCEL_BLOCK + i;
            let q = queries.get(qi).expect("query in batch");
            *o = search_one(ix, q, queries.seed(qi)).0;
        }
    };
    if out.len() <= ACCEL_BLOCK {
        out.chunks_mut(ACCEL_BLOCK).enumerate().for_each(run);
    } else {
        out.par_chunks_mut(ACCEL_BLOCK).enumerate().for_each(run);
    }
    Ok(())
}

/// The scalar reference for each query of `queries`, into `out`, on
/// rayon (one query a task): [`super::reference::search`].
pub fn reference(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    out.par_iter_mut().enumerate().for_each(|(i, o)| {
        *o = super::reference::search(db, queries.get(i).expect("query in batch"));
    });
    Ok(())
}
