//! The search's storage: normalized features as lane vectors (eight frames
//! a pack, one `F32x8` per feature, padded with zero features to a
//! multiple of four), a per-frame exclusion (`0` searched, NaN not: the
//! distance plus NaN is NaN, which no comparison prefers), and the
//! bounding boxes of blocks of frames, level by level.
//!
//! Level 0 boxes bound [`LEAF`] frames (two packs); a box of level `k > 0`
//! bounds eight boxes of level `k - 1`, which are exactly one box pack
//! there (eight boxes side by side, one `F32x8` of minima and one of maxima
//! per feature), so a search computes a box's eight children's bounds in
//! one pass. Levels are added until the top has at most [`TOP_BOXES`]. A
//! box bounds only its searched frames; one with none is empty (minimum
//! `+inf`, maximum `-inf`, first frame `u32::MAX`), and a search never
//! enters it.

use rayon::prelude::*;

use crate::error::{Result, try_vec};
use crate::lanes::F32x8;

/// Frames per level-0 box (the demo's small box, 16).
pub const LEAF: usize = 16;
/// Children per box above level 0.
pub const BRANCH: usize = 8;
/// The most boxes the top level may have.
pub const TOP_BOXES: usize = 64;

/// One level of boxes.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    /// Number of boxes.
    pub boxes: usize,
    /// Box packs × padded features: minima.
    pub lo: Vec<F32x8>,
    /// Maxima.
    pub hi: Vec<F32x8>,
    /// Each box's first searched frame (`u32::MAX` when empty).
    pub first: Vec<u32>,
}

/// The search's storage (module docs).
#[derive(Clone, Debug)]
pub(crate) struct Index {
    pub frames: usize,
    pub padded: usize,
    /// Packs × padded features.
    pub packs: Vec<F32x8>,
    /// Per pack: 0 for a searched frame, NaN otherwise (and for padding).
    pub exclude: Vec<F32x8>,
    /// Level 0 first.
    pub levels: Vec<Level>,
}

impl Index {
    /// The storage of `frames` rows of `dims` normalized features
    /// (`rows`), `searchable[i]` saying whether frame `i` is searched.
    pub fn new(rows: &[f32], dims: usize, searchable: &[bool]) -> Result<Index> {
        let frames = searchable.len();
        let padded = dims.div_ceil(4) * 4;
        let npacks = frames.div_ceil(8);
        let mut packs = try_vec("matching feature packs", npacks * padded, F32x8::ZERO)?;
        packs
            .par_chunks_mut(padded.max(1))
            .enumerate()
            .for_each(|(p, pack)| {
                for (d, v) in pack.iter_mut().enumerate().take(dims) {
                    let mut a = [0.0f32; 8];
                    for (l, x) in a.iter_mut().enumerate() {
                        let f = 8 * p + l;
                        if f < frames {
                            *x = rows[f * dims + d];
                        }
                    }
                    *v = F32x8::new(a);
                }
            });
        let exclude = (0..npacks)
            .map(|p| {
                F32x8::new(core::array::from_fn(|l| {
                    let f = 8 * p + l;
                    if f < frames && searchable[f] {
                        0.0
                    } else {
                        f32::NAN
                    }
                }))
            })
            .collect();
        let mut levels = vec![leaf_level(rows, dims, padded, searchable)?];
        while levels.last().is_some_and(|l| l.boxes > TOP_BOXES) {
            let next = parent_level(levels.last().expect("a level"), padded)?;
            levels.push(next);
        }
        Ok(Index {
            frames,
            padded,
            packs,
            exclude,
            levels,
        })
    }

    /// Frame `f`'s normalized features, padded.
    pub fn features(&self, f: usize) -> impl Iterator<Item = f32> + '_ {
        let (p, l) = (f / 8, f % 8);
        self.packs[p * self.padded..(p + 1) * self.padded]
            .iter()
            .map(move |v| v.to_array()[l])
    }

    /// Whether frame `f` is searched.
    pub fn searchable(&self, f: usize) -> bool {
        f < self.frames && self.exclude[f / 8].to_array()[f % 8] == 0.0
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        let v = core::mem::size_of::<F32x8>();
        let levels: usize = self
            .levels
            .iter()
            .map(|l| (l.lo.len() + l.hi.len()) * v + l.first.len() * 4)
            .sum();
        (self.packs.len() + self.exclude.len()) * v + levels
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

/// Sets lane `l` of feature `d` of box pack `bp` in `v`.
fn set_lane(v: &mut [F32x8], padded: usize, b: usize, d: usize, x: f32) {
    let i = (b / 8) * padded + d;
    let mut a = v[i].to_array();
    a[b % 8] = x;
    v[i] = F32x8::new(a);
}

fn lane(v: &[F32x8], padded: usize, b: usize, d: usize) -> f32 {
    v[(b / 8) * padded + d].to_array()[b % 8]
}

fn leaf_level(rows: &[f32], dims: usize, padded: usize, searchable: &[bool]) -> Result<Level> {
    let frames = searchable.len();
    let boxes = frames.div_ceil(LEAF);
    let mut level = empty_level(boxes, padded)?;
    for b in 0..boxes {
        let range = b * LEAF..((b + 1) * LEAF).min(frames);
        let Some(first) = range.clone().find(|&f| searchable[f]) else {
            continue;
        };
        level.first[b] = first as u32;
        for d in 0..padded {
            let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
            for f in range.clone().filter(|&f| searchable[f]) {
                let x = if d < dims { rows[f * dims + d] } else { 0.0 };
                (lo, hi) = (lo.min(x), hi.max(x));
            }
            set_lane(&mut level.lo, padded, b, d, lo);
            set_lane(&mut level.hi, padded, b, d, hi);
        }
    }
    Ok(level)
}

fn parent_level(child: &Level, padded: usize) -> Result<Level> {
    let boxes = child.boxes.div_ceil(BRANCH);
    let mut level = empty_level(boxes, padded)?;
    for b in 0..boxes {
        let kids = b * BRANCH..((b + 1) * BRANCH).min(child.boxes);
        level.first[b] = kids
            .clone()
            .map(|k| child.first[k])
            .min()
            .unwrap_or(u32::MAX);
        for d in 0..padded {
            let lo = kids
                .clone()
                .map(|k| lane(&child.lo, padded, k, d))
                .fold(f32::INFINITY, f32::min);
            let hi = kids
                .clone()
                .map(|k| lane(&child.hi, padded, k, d))
                .fold(f32::NEG_INFINITY, f32::max);
            set_lane(&mut level.lo, padded, b, d, lo);
            set_lane(&mut level.hi, padded, b, d, hi);
        }
    }
    Ok(level)
}
