//! The 8-lane searches: brute force over every frame, and the accelerated
//! search through the bounding boxes; both batched over many queries on
//! rayon, both returning what [`super::reference::search`] returns, bit
//! for bit (its module docs define the distance, the bound and the tie
//! rule every path computes).
//!
//! **Brute force** passes over the frame packs once per block of
//! [`BRUTE_BLOCK`] queries: each pack's features are loaded once and
//! compared with every query of the block, each lane keeping its best by
//! [`super::reference::better`] (distance, then frame number), the lanes
//! merged the same way at the end.
//!
//! **Accelerated** is a branch and bound per query: the bounds of the top
//! level's boxes, visited lowest bound first; in a box, its eight
//! children's bounds in one pass, visited lowest first, a child entered
//! only when its bound could still win (`bound < best`, or equal with a
//! lower first frame; the children ordered without branches); in a
//! level-0 box, its two frame packs' distances. A
//! `seed` frame (the one a character plays) is evaluated first to start
//! with a good best; it changes the speed, never the result. With a
//! switch margin ([`QueryBatch::set_margin`]) the seeded search starts
//! from the seed's distance less the margin (hysteresis,
//! [`super::reference`]'s module docs): frames that cannot beat the seed by
//! the margin are never looked at, and the seed is the result when none
//! does.

use rayon::prelude::*;

use super::database::{MatchDatabase, QUERY_NOT_FINITE, check_finite};
use super::features::{TrajectoryPoint, WorldPose};
use super::frame::CharacterFrame;
use super::kernels::{brute_block, search_one, with_width};
use crate::error::{Error, Result};

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
    margin: f32,
    q: Vec<f32>,
    seeds: Vec<u32>,
}

const NO_SEED: u32 = u32::MAX;

impl QueryBatch {
    /// An empty batch for `db`'s queries.
    pub fn new(db: &MatchDatabase) -> QueryBatch {
        QueryBatch {
            padded: db.layout().padded(),
            margin: 0.0,
            q: Vec::new(),
            seeds: Vec::new(),
        }
    }

    /// Sets the switch margin of every seeded query of the batch
    /// (hysteresis: a seeded query's result is its seed unless a frame
    /// beats the seed's distance by `margin`; [`super::reference::search_seeded`]).
    /// 0, the default, gives the best frame. Refuses, changing nothing, a
    /// margin that is negative or not finite.
    pub fn set_margin(&mut self, margin: f32) -> Result<()> {
        check_margin(margin)?;
        self.margin = margin;
        Ok(())
    }

    /// The switch margin ([`QueryBatch::set_margin`]).
    pub fn margin(&self) -> f32 {
        self.margin
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

    /// Removes every query (keeping the memory) and makes the batch one
    /// for `db`'s layout, its margin kept.
    pub(crate) fn clear_for(&mut self, db: &MatchDatabase) {
        self.clear();
        self.padded = db.layout().padded();
    }

    /// Adds every query of `other` with its seed; they take this batch's
    /// margin (`other`'s is not read). Refuses, adding nothing, a batch
    /// made for another layout.
    pub(crate) fn extend_from(&mut self, other: &QueryBatch) -> Result<()> {
        if other.padded != self.padded {
            return Err(Error::Length {
                what: "query features (the batch was made for another layout)",
                expected: self.padded,
                got: other.padded,
            });
        }
        self.q.extend_from_slice(&other.q);
        self.seeds.extend_from_slice(&other.seeds);
        Ok(())
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

/// Brute force over every frame for each query of `queries`, into `out`
/// (module docs). Refuses a batch made for another layout and an `out` of
/// another length.
pub fn brute_force(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    let ix = &db.index;
    let work = queries.len().saturating_mul(ix.frames);
    let run = |(k, out): (usize, &mut [Match])| {
        with_width!(ix.padded, brute_block(ix, queries, k * BRUTE_BLOCK, out));
    };
    if work < 1 << 20 {
        out.chunks_mut(BRUTE_BLOCK).enumerate().for_each(run);
    } else {
        out.par_chunks_mut(BRUTE_BLOCK).enumerate().for_each(run);
    }
    // Hysteresis, after the fact: the seed's own distance, then the rule.
    for (i, o) in out.iter_mut().enumerate() {
        // Unreachable: `check` made `out` one match per query.
        let q = queries.get(i).expect("query in batch");
        if let Some(s) = queries.seed(i).filter(|&s| db.searchable(s)) {
            *o = super::reference::settle(
                *o,
                super::reference::seed_match(db, q, s),
                queries.margin,
            );
        }
    }
    Ok(())
}

/// What one accelerated search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchStats {
    /// Box packs whose eight bounds were computed.
    pub box_packs: usize,
    /// Frame packs whose distances were computed.
    pub frame_packs: usize,
}

/// Refuses a switch margin that is negative or not finite
/// ([`QueryBatch::set_margin`], [`super::reference::search_seeded`]).
pub(crate) fn check_margin(margin: f32) -> Result<()> {
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(Error::Parameter {
            name: "margin",
            value: margin,
            reason: "must be finite and at least 0",
        });
    }
    Ok(())
}

/// Refuses a query for `db` of the wrong length or with a feature that is
/// not finite ([`accelerated_one`], [`super::reference::search`]).
pub(crate) fn check_query(db: &MatchDatabase, q: &[f32]) -> Result<()> {
    if q.len() != db.layout().padded() {
        return Err(Error::Length {
            what: "query features (FeatureLayout::padded)",
            expected: db.layout().padded(),
            got: q.len(),
        });
    }
    check_finite(QUERY_NOT_FINITE, q)
}

/// The accelerated search for one normalized, padded query `q` (module
/// docs), with what it did. Refuses a query of the wrong length or with a
/// non-finite feature.
pub fn accelerated_one(
    db: &MatchDatabase,
    q: &[f32],
    seed: Option<usize>,
) -> Result<(Match, SearchStats)> {
    check_query(db, q)?;
    let ix = &db.index;
    Ok(with_width!(ix.padded, search_one(ix, q, seed, 0.0)))
}

/// The accelerated search for each query of `queries`, into `out`, on
/// rayon ([`ACCEL_BLOCK`] queries a task). Refuses a batch made for
/// another layout and an `out` of another length.
pub fn accelerated(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    if out.len() <= ACCEL_BLOCK {
        accelerated_from(db, queries, 0, out);
    } else {
        out.par_chunks_mut(ACCEL_BLOCK)
            .enumerate()
            .for_each(|(k, out)| accelerated_from(db, queries, k * ACCEL_BLOCK, out));
    }
    Ok(())
}

/// The accelerated search of queries `first ..` of `queries` into `out`:
/// its two callers pass the whole output or one of its chunks (starting
/// at `first`) of an output [`QueryBatch::check`] accepted, one match a
/// query, so `first + out.len()` never passes the batch's length.
fn accelerated_from(db: &MatchDatabase, queries: &QueryBatch, first: usize, out: &mut [Match]) {
    let ix = &db.index;
    for (qi, o) in (first..).zip(out.iter_mut()) {
        // Unreachable: `qi < first + out.len() <= queries.len()` (above),
        // whatever the input; a panic here would be a caller's bug.
        let q = queries.get(qi).expect("query in batch");
        let (seed, margin) = (queries.seed(qi), queries.margin);
        *o = with_width!(ix.padded, search_one(ix, q, seed, margin)).0;
    }
}

/// The scalar reference for each query of `queries`, into `out`, on
/// rayon (one query a task): [`super::reference::search_seeded`] with the
/// batch's seeds and margin.
pub fn reference(db: &MatchDatabase, queries: &QueryBatch, out: &mut [Match]) -> Result<()> {
    queries.check(db, out)?;
    out.par_iter_mut().enumerate().for_each(|(i, o)| {
        // Unreachable: `check` made `out` one match per query.
        let q = queries.get(i).expect("query in batch");
        // Unreachable: the batch took only queries of its layout's length
        // (`check`: the database's) with finite features, and a margin of
        // 0 or more, so nothing is refused after some of `out` is written.
        *o = super::reference::search_seeded(db, q, queries.seed(i), queries.margin)
            .expect("a query and margin the batch checked");
    });
    Ok(())
}
