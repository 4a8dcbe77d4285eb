//! Affine matrices into a caller's memory: a joint's eight 3x4 affines
//! (one lane vector per entry, rows `(m[r][0], m[r][1], m[r][2], t[r])`,
//! what [`crate::skinning::skin_lanes`] makes) transposed in registers
//! straight into the destination's matrices, for the layouts of
//! [`AffineLayout`] (`[f32; 16]` and glam's `Mat4` column-major, `[f32;
//! 12]` rows). The skinning matrices and the world transforms a renderer
//! uploads every frame go through here.
//!
//! Before, each lane's matrix was gathered entry by entry from the twelve
//! vectors stored to the stack ([`crate::skinning::SkinMatrix::from_lanes`]):
//! 12 or 16 scalar loads and stores a matrix. Here:
//!
//! - column-major 4x4: the 16 vectors of the eight matrices' columns
//!   (`m[c], m[4 + c], m[8 + c]` and a zero or a one) are two 8x8 blocks;
//!   row `k` of each block is half of lane `k`'s matrix, one 32-byte store
//!   each ([`super::direct::pack_halves`], as the transforms of
//!   [`super::direct::pack_matrix`]);
//! - 3x4 rows, two joints at a time: the 24 vectors of the two joints'
//!   entries in order are three 8x8 blocks (as [`super::direct`]'s
//!   positions are), row `k` of the three lane `k`'s two matrices, which
//!   are contiguous in the destination: three 32-byte stores.
//!
//! A shuffle moves floats without touching them, so both write exactly the
//! floats `from_lanes` writes (the test below holds them bit for bit). A
//! pack entered part-way, and a last single joint of the rows, go through
//! rows on the stack.

use core::ops::Range;

use super::direct::{AffineLayout, at_rows, blocks3, copy_rows, eight_rows, pack_halves};
use super::shuffle::{Native, transpose8};
use crate::lanes::{F32x8, splat};

/// The two halves of eight column-major 4x4 matrices from their affines'
/// entries: row `k` of the first is the first eight floats of lane `k`'s
/// matrix (columns 0 and 1), of the second the last eight.
#[inline(always)]
fn cols16_halves(m: &[F32x8; 12]) -> [[F32x8; 8]; 2] {
    let (zero, one) = (splat(0.0), splat(1.0));
    let t = transpose8::<Native>;
    [
        t([&m[0], &m[4], &m[8], &zero, &m[1], &m[5], &m[9], &zero]),
        t([&m[2], &m[6], &m[10], &zero, &m[3], &m[7], &m[11], &one]),
    ]
}

/// Two joints' affines as eight rows of 24 floats, row `k` lane `k`'s
/// matrix of `a` then of `b`: the 24 entry vectors in order are three 8x8
/// blocks, each transposed and stored before the next.
#[inline(always)]
fn rows12_pair(a: &[F32x8; 12], b: &[F32x8; 12], dst: [&mut [f32; 24]; 8]) {
    blocks3(
        [
            [&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7]],
            [&a[8], &a[9], &a[10], &a[11], &b[0], &b[1], &b[2], &b[3]],
            [&b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11]],
        ],
        dst,
    );
}

/// The matrices of lanes `lanes` of every joint of one pack into `out`
/// (`out[((k - lanes.start) joints + j) E ..][..E]`, `E` = 16 or 12 floats
/// by `layout`, for joint `j` and lane `k`; `out` holds `E lanes.len()
/// pack.len()` floats), lane `k` of joint `j` being lane `k` of
/// `affine(j, &pack[j])`.
#[inline(always)]
pub(crate) fn pack_affine<'a, T>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    layout: AffineLayout,
    affine: impl Fn(usize, &'a T) -> [F32x8; 12],
) {
    match layout {
        AffineLayout::Cols16 => {
            pack_halves(pack, lanes, out, |j, t| cols16_halves(&affine(j, t)));
        }
        AffineLayout::Rows12 => pack_rows12(pack, lanes, out, affine),
    }
}

/// [`pack_affine`] into 3x4 rows: two joints at a time ([`rows12_pair`])
/// straight into the eight rows when the pack's eight lanes are wanted; a
/// pack entered part-way, and a last single joint (paired with itself),
/// through rows on the stack.
#[inline(always)]
fn pack_rows12<'a, T>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    affine: impl Fn(usize, &'a T) -> [F32x8; 12],
) {
    let stride = 12 * pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == lanes.len() * stride);
    let lanes = lanes.start..lanes.end.min(8);
    let mut pairs = pack.chunks_exact(2);
    if let (true, Some(mut rows)) = (lanes == (0..8), eight_rows(out, stride)) {
        for (p, two) in pairs.by_ref().enumerate() {
            // Unreachable `else`: pair `p < pack.len() / 2` ends at `24 (p +
            // 1) <= stride` floats, within each of the eight rows. (These
            // loops and `direct::pack_quat`'s are one shape; one generic
            // over the pair's width made the 3x4 readout 1.38x slower, its
            // closure no longer inlined.)
            let Some(dst) = at_rows::<24>(&mut rows, 24 * p) else {
                break;
            };
            let (a, b) = (affine(2 * p, &two[0]), affine(2 * p + 1, &two[1]));
            rows12_pair(&a, &b, dst);
        }
    }
    let first = 2 * (pack.len() / 2 - pairs.len());
    for (p, two) in pack[first..].chunks(2).enumerate() {
        let j = first + 2 * p;
        let a = affine(j, &two[0]);
        let b = match two.get(1) {
            Some(t) => affine(j + 1, t),
            None => a,
        };
        let mut rows = [[0.0f32; 24]; 8];
        rows12_pair(&a, &b, rows.each_mut());
        copy_rows(out, (stride, 12 * j, 12 * two.len()), &lanes, &rows);
    }
}

#[cfg(test)]
mod tests {
    use super::super::direct::affine_floats;
    use super::*;
    use crate::skinning::SkinMatrix;

    /// Distinct bit patterns per entry and lane (NaN payloads, signed
    /// zeros, subnormals), so a float moved to the wrong place or through
    /// an arithmetic instruction shows.
    fn affine(seed: usize) -> [F32x8; 12] {
        core::array::from_fn(|e| {
            F32x8::new(core::array::from_fn(|k| {
                let i = (seed * 131 + e * 8 + k) as u32;
                match i % 13 {
                    0 => f32::from_bits(0x7fc0_0000 | i),
                    1 => -0.0,
                    2 => f32::from_bits(1 + i),
                    _ => i as f32 * 0.25 - 30.0,
                }
            }))
        })
    }

    /// What `from_lanes` writes for lane `k` of `m`.
    fn want<M: SkinMatrix>(m: &[F32x8; 12], k: usize) -> M {
        M::from_lanes(&m.map(|v| v.to_array()), k)
    }

    fn bits<M: SkinMatrix>(m: &M) -> Vec<u32> {
        bytemuck::cast_slice::<M, f32>(core::slice::from_ref(m))
            .iter()
            .map(|f| f.to_bits())
            .collect()
    }

    /// Both layouts write, bit for bit, what `from_lanes` writes, for
    /// joint counts 1 to 9 and 31 to 33 (a last single joint of the rows
    /// among them) and every lane range (empty, single, entered and left
    /// part-way). Fails with the second row block's joints swapped
    /// (`b[0..4]` before `a[8..12]`), a column's zero and one exchanged,
    /// or the rows stored from lane 0 instead of the range's first lane.
    #[test]
    fn affines_are_what_from_lanes_writes_for_every_shape() {
        fn check<M: SkinMatrix + Default>(layout: AffineLayout) {
            for joints in (1..=9).chain(31..=33) {
                let pack: Vec<[F32x8; 12]> = (0..joints).map(affine).collect();
                for lo in 0..8 {
                    for hi in lo..=8 {
                        let n = (hi - lo) * joints;
                        let mut out = vec![M::default(); n];
                        let (floats, got) = affine_floats(&mut out).expect("a listed type");
                        assert_eq!(got, layout);
                        pack_affine(&pack, lo..hi, floats, layout, |_, m| *m);
                        for r in 0..hi - lo {
                            for (j, m) in pack.iter().enumerate() {
                                let i = r * joints + j;
                                let at = format!("{joints} joints, lanes {lo}..{hi}, {i}");
                                assert_eq!(bits(&out[i]), bits(&want::<M>(m, lo + r)), "{at}");
                            }
                        }
                    }
                }
            }
        }
        check::<[f32; 16]>(AffineLayout::Cols16);
        check::<[f32; 12]>(AffineLayout::Rows12);
    }

    /// The joint index passed to `affine` is the joint's place in the
    /// pack, in both layouts and on both paths (whole pack, part-way).
    #[test]
    fn each_joint_gets_its_own_index() {
        for (layout, width) in [(AffineLayout::Cols16, 16), (AffineLayout::Rows12, 12)] {
            for lanes in [0..8, 3..5] {
                let joints = 7;
                let pack = vec![(); joints];
                let mut out = vec![0.0f32; width * lanes.len() * joints];
                pack_affine(&pack, lanes.clone(), &mut out, layout, |j, _| {
                    [splat(j as f32); 12]
                });
                for (e, m) in out.chunks(width).enumerate() {
                    assert_eq!(m[0], (e % joints) as f32, "{layout:?} {lanes:?}");
                }
            }
        }
    }

    /// Only the listed types take this path; any other matrix type keeps
    /// its own `from_lanes`.
    #[test]
    fn the_listed_types_only() {
        #[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(C)]
        struct Mine([f32; 12]);
        assert!(affine_floats(&mut [[0.0f32; 16]; 2]).is_some());
        assert!(affine_floats(&mut [[0.0f32; 12]; 2]).is_some());
        assert!(affine_floats(&mut [Mine::default(); 2]).is_none());
        assert!(affine_floats(&mut [[0.0f32; 4]; 2]).is_none());
    }
}
