//! The search's storage: the searched frames' normalized features as lane
//! vectors (eight frames a pack, one `F32x8` per feature, padded with zero
//! features to a multiple of four), in an order that keeps similar frames
//! together, with each slot's frame number; the frames not searched kept
//! apart (their features are still asked for); and the bounding boxes of
//! blocks of slots, level by level.
//!
//! **Order.** The published demo bounds blocks of frames in time order.
//! Here the searched frames are first ordered as the leaves of a k-d
//! tree: the set is split at its median on the feature of widest range,
//! each half likewise, down to [`LEAF`] frames, each split placed on a
//! box boundary of the level it spans. Every box at every level then
//! bounds one compact cell of feature space instead of a stretch of time
//! (a walk's 128 frames cover its whole stride cycle), and exact copies of
//! a frame fall into one box. The order changes which boxes a search
//! visits, never its result: ties are broken by frame number, not slot.
//!
//! **Boxes.** Level 0 boxes bound [`LEAF`] slots (two packs); a box of
//! level `k > 0` bounds eight boxes of level `k - 1`, which are exactly one
//! box pack there (eight boxes side by side, one `F32x8` of minima and one
//! of maxima per feature), so a search computes a box's eight children's
//! bounds in one pass. Levels are added until the top has at most
//! [`TOP_BOXES`]. Each box keeps its lowest frame number (`first`). Lanes
//! past the last slot hold NaN features (their distance is NaN, which no
//! comparison prefers) and lanes past the last box empty bounds (minimum
//! `+inf`, maximum `-inf`, `first` `u32::MAX`): a search never enters them.

use rayon::prelude::*;

use crate::error::{Result, try_vec};
use crate::lanes::{F32x8, I32x8};

/// Slots per level-0 box (the demo's small box, 16).
pub const LEAF: usize = 16;
/// Children per box above level 0.
pub const BRANCH: usize = 8;
/// The most boxes the top level may have.
pub const TOP_BOXES: usize = 64;

/// Marks a frame stored apart (not searched) in [`Index::loc`].
const APART: u32 = 1 << 31;

/// One level of boxes.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    /// Number of boxes.
    pub boxes: usize,
    /// Box packs × padded features: minima.
    pub lo: Vec<F32x8>,
    /// Maxima.
    pub hi: Vec<F32x8>,
    /// Each box's lowest frame number (`u32::MAX` when empty).
    pub first: Vec<u32>,
}

/// The search's storage (module docs).
#[derive(Clone, Debug)]
pub(crate) struct Index {
    pub frames: usize,
    pub dims: usize,
    pub padded: usize,
    /// Searched frames.
    pub slots: usize,
    /// Slot packs × padded features.
    pub packs: Vec<F32x8>,
    /// Per slot pack, each lane's frame number (`i32::MAX` past the last
    /// slot).
    pub ids: Vec<I32x8>,
    /// Per frame, its slot, or `APART | row` of `apart`.
    loc: Vec<u32>,
    /// The features of frames not searched, `dims` each.
    apart: Vec<f32>,
    /// Level 0 first.
    pub levels: Vec<Level>,
}

impl Index {
    /// The storage of `frames` rows of `dims` normalized features
    /// (`rows`), `searchable[i]` saying whether frame `i` is searched.
    /// Frame numbers must fit in `i32` (checked by the database).
    pub fn new(rows: &[f32], dims: usize, searchable: &[bool]) -> Result<Index> {
        let frames = searchable.len();
        let padded = dims.div_ceil(4) * 4;
        let searched: Vec<u32> = (0..frames as u32)
            .filter(|&f| searchable[f as usize])
            .collect();
        let order = leaf_order(rows, dims, &searched);
        let slots = order.len();
        let npacks = slots.div_ceil(8);
        let mut packs = try_vec("matching feature packs", npacks * padded, F32x8::ZERO)?;
        packs
            .par_chunks_mut(padded.max(1))
            .enumerate()
            .for_each(|(p, pack)| {
                for (d, v) in pack.iter_mut().enumerate() {
                    *v = F32x8::new(core::array::from_fn(|l| match order.get(8 * p + l) {
                        Some(&f) if d < dims => rows[f as usize * dims + d],
                        Some(_) => 0.0,
                        None => f32::NAN,
                    }));
                }
            });
        let ids = (0..npacks)
            .map(|p| {
                I32x8::new(core::array::from_fn(|l| {
                    order.get(8 * p + l).map_or(i32::MAX, |&f| f as i32)
                }))
            })
            .collect();
        let mut loc = try_vec("matching frame locations", frames, 0u32)?;
        for (s, &f) in order.iter().enumerate() {
            loc[f as usize] = s as u32;
        }
        let mut apart = Vec::new();
        for f in (0..frames).filter(|&f| !searchable[f]) {
            loc[f] = APART | (apart.len() / dims.max(1)) as u32;
            apart.extend_from_slice(&rows[f * dims..(f + 1) * dims]);
        }
        let mut levels = vec![leaf_level(rows, dims, padded, &order)?];
        while levels.last().is_some_and(|l| l.boxes > TOP_BOXES) {
            let next = parent_level(levels.last().expect("a level"), padded)?;
            levels.push(next);
        }
        Ok(Index {
            frames,
            dims,
            padded,
            slots,
            packs,
            ids,
            loc,
            apart,
            levels,
        })
    }

    /// Frame `f`'s slot, when it is searched.
    pub fn slot(&self, f: usize) -> Option<usize> {
        self.loc
            .get(f)
            .and_then(|&l| (l & APART == 0).then_some(l as usize))
    }

    /// Frame `f`'s normalized features (`dims` of them).
    pub fn features(&self, f: usize) -> Vec<f32> {
        match self.slot(f) {
            Some(s) => {
                let (p, l) = (s / 8, s % 8);
                self.packs[p * self.padded..p * self.padded + self.dims]
                    .iter()
                    .map(|v| v.to_array()[l])
                    .collect()
            }
            None => {
                let r = (self.loc[f] & !APART) as usize;
                self.apart[r * self.dims..(r + 1) * self.dims].to_vec()
            }
        }
    }

    /// Whether frame `f` is searched.
    pub fn searchable(&self, f: usize) -> bool {
        self.slot(f).is_some()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let v = core::mem::size_of::<F32x8>();
        let levels: usize = self
            .levels
            .iter()
            .map(|l| (l.lo.len() + l.hi.len()) * v + l.first.len() * 4)
            .sum();
        (self.packs.len() + self.ids.len()) * v + (self.loc.len() + self.apart.len()) * 4 + levels
    }
}

/// The slots' order: the searched frames in runs of [`LEAF`] in frame
/// order (the last run may be short and stays last), the whole runs
/// ordered as the leaves of a k-d tree over their mean features (module
/// docs).
fn leaf_order(rows: &[f32], dims: usize, searched: &[u32]) -> Vec<u32> {
    let runs: Vec<&[u32]> = searched.chunks(LEAF).collect();
    let whole = if searched.len().is_multiple_of(LEAF) {
        runs.len()
    } else {
        runs.len() - 1
    };
    let centers: Vec<f32> = runs[..whole]
        .iter()
        .flat_map(|run| {
            (0..dims).map(move |d| {
                run.iter()
                    .map(|&f| rows[f as usize * dims + d])
                    .sum::<f32>()
                    / run.len() as f32
            })
        })
        .collect();
    let mut leaves: Vec<u32> = (0..whole as u32).collect();
    kd_order(&centers, dims, &mut leaves);
    leaves
        .iter()
        .chain(core::iter::once(&(whole as u32)).filter(|_| whole < runs.len()))
        .flat_map(|&r| runs[r as usize].iter().copied())
        .collect()
}

/// Orders `items` (rows of `rows`) as the leaves of a k-d tree: split at
/// the median of the feature of widest range, ties by item number, at a
/// multiple of the largest box size (in items: 1, 8, 64, ...) that leaves
/// both halves non-empty, so each box of each level is one cell.
fn kd_order(rows: &[f32], dims: usize, items: &mut [u32]) {
    let n = items.len();
    if n <= 1 || dims == 0 {
        return;
    }
    let mut unit = 1;
    while unit * BRANCH * 2 <= n {
        unit *= BRANCH;
    }
    let mid = ((n / 2 + unit / 2) / unit).clamp(1, (n - 1) / unit) * unit;
    let widest = (0..dims)
        .map(|d| {
            let (lo, hi) = items
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &f| {
                    let x = rows[f as usize * dims + d];
                    (lo.min(x), hi.max(x))
                });
            (hi - lo, d)
        })
        .fold((-1.0f32, 0), |a, b| if b.0 > a.0 { b } else { a })
        .1;
    let key = |f: u32| rows[f as usize * dims + widest];
    items.select_nth_unstable_by(mid, |&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let (left, right) = items.split_at_mut(mid);
    if n > 512 {
        rayon::join(
            || kd_order(rows, dims, left),
            || kd_order(rows, dims, right),
        );
    } else {
        kd_order(rows, dims, left);
        kd_order(rows, dims, right);
    }
}

/// Empty box bounds for `boxes` boxes.
fn empty_level(boxes: usize, padded: usize) -> Result<Level> {
    let bp = boxes.div_ceil(8);
    Ok(Level {
        boxes,
        lo: try_vec(
            "matching box minima",
            bp * padded,
            F32x8::splat(f32::INFINITY),
        )?,
        hi: try_vec(
            "matching box maxima",
            bp * padded,
            F32x8::splat(f32::NEG_INFINITY),
        )?,
        first: try_vec("matching box first frames", boxes, u32::MAX)?,
    })
}

/// Box pack `bp`'s minima and maxima from each box's `(lo, hi)` per
/// feature.
fn fill_pack(lo: &mut [F32x8], hi: &mut [F32x8], bounds: &[(Vec<f32>, Vec<f32>)]) {
    for (d, (lo, hi)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        let mut l = lo.to_array();
        let mut h = hi.to_array();
        for (k, (bl, bh)) in bounds.iter().enumerate() {
            l[k] = bl[d];
            h[k] = bh[d];
        }
        *lo = F32x8::new(l);
        *hi = F32x8::new(h);
    }
}

fn leaf_level(rows: &[f32], dims: usize, padded: usize, order: &[u32]) -> Result<Level> {
    let boxes = order.len().div_ceil(LEAF);
    let mut level = empty_level(boxes, padded)?;
    for (b, slots) in order.chunks(LEAF).enumerate() {
        level.first[b] = slots.iter().copied().min().unwrap_or(u32::MAX);
    }
    let n = padded.max(1);
    level
        .lo
        .par_chunks_mut(n)
        .zip(level.hi.par_chunks_mut(n))
        .zip(order.par_chunks(8 * LEAF))
        .for_each(|((lo, hi), slots)| {
            let bounds: Vec<(Vec<f32>, Vec<f32>)> = slots
                .chunks(LEAF)
                .map(|slots| {
                    (0..padded)
                        .map(|d| {
                            slots
                                .iter()
                                .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &f| {
                                    let x = if d < dims {
                                        rows[f as usize * dims + d]
                                    } else {
                                        0.0
                                    };
                                    (l.min(x), h.max(x))
                                })
                        })
                        .unzip()
                })
                .collect();
            fill_pack(lo, hi, &bounds);
        });
    Ok(level)
}

fn parent_level(child: &Level, padded: usize) -> Result<Level> {
    let boxes = child.boxes.div_ceil(BRANCH);
    let mut level = empty_level(boxes, padded)?;
    for b in 0..boxes {
        let kids = b * BRANCH..((b + 1) * BRANCH).min(child.boxes);
        level.first[b] = kids.map(|k| child.first[k]).min().unwrap_or(u32::MAX);
    }
    let n = padded.max(1);
    // Box b's children are child box pack b: reduce its eight lanes.
    let reduced: Vec<(Vec<f32>, Vec<f32>)> = (0..boxes)
        .map(|b| {
            let (lo, hi) = (&child.lo[b * n..(b + 1) * n], &child.hi[b * n..(b + 1) * n]);
            (
                lo.iter()
                    .map(|v| v.to_array().into_iter().fold(f32::INFINITY, f32::min))
                    .collect(),
                hi.iter()
                    .map(|v| v.to_array().into_iter().fold(f32::NEG_INFINITY, f32::max))
                    .collect(),
            )
        })
        .collect();
    for ((lo, hi), bounds) in level
        .lo
        .chunks_mut(n)
        .zip(level.hi.chunks_mut(n))
        .zip(reduced.chunks(8))
    {
        fill_pack(lo, hi, bounds);
    }
    Ok(level)
}
