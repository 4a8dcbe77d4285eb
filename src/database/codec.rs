//! The database's 64-bit words, scalar and in lanes (twins: the same
//! integer and f32 operations in the same order, so a word decodes to the
//! same bits on both paths of any build: the scalar multiply-add is fused
//! exactly where the lanes' is: `mul_neg_add`).
//!
//! **Rotation word**: the three smallest components of the unit quaternion
//! in 20-bit signed fixed point over `[-1/√2, 1/√2]` (the range of every
//! component but the largest), the largest component's index (2 bits) and
//! its sign (1 bit); the largest is decoded as `±sqrt(1 - a² - b² - c²)`.
//! Storing the sign keeps the quaternion the stored path had, not only its
//! rotation, so a path without sign jumps
//! ([`crate::Clip::with_continuous_rotations`]) decodes without them.
//! Each small component is within `ROT_STEP / 2 = 6.74e-7` of the source's
//! (after the source is normalized in f64), the largest within about
//! `1.4e-6` (it is taken from the other three), so the decoded rotation is
//! within [`ROTATION_ERROR_BOUND`] of the source's (the angle of
//! `decoded · source⁻¹`).
//!
//! ```text
//! low 32 bits:  [ c low 12 | a 20 ]           (bit 0 first)
//! high 32 bits: [ sign | 0 | index 2 | c high 8 | b 20 ]
//! ```
//!
//! **Position word**: 21-bit signed fixed point per axis, `p = center + n ·
//! step` with a per-joint `center` and `step` over the database's box of
//! that joint (its extent over `2 (2^20 - 1)` steps). Error at most `step /
//! 2` per axis plus the f32 rounding of the product and the sum
//! ([`position_error_bound`]).
//!
//! ```text
//! low 32 bits:  [ z low 11 | x 21 ]
//! high 32 bits: [ 0 | z high 10 | y 21 ]
//! ```

use crate::lanes::{F32x8, I32x8, Quatx8, Vec3x8, splat};
use crate::reference::{Quat, Vec3};

/// Largest code of a rotation component, `2^19 - 1`.
const ROT_CODE: i32 = (1 << 19) - 1;

/// The rotation components' fixed-point step, `(1/√2) / (2^19 - 1)`.
pub const ROT_STEP: f32 = core::f32::consts::FRAC_1_SQRT_2 / ROT_CODE as f32;

/// Largest code of a position axis, `2^20 - 1`.
const POS_CODE: i32 = (1 << 20) - 1;

/// The most a decoded rotation turns away from its source, in radians (the
/// angle of `decoded · source⁻¹`, [`rotation_angle`]), the source taken
/// normalized: each small component within `e = ROT_STEP / 2` of the
/// nearest code, the largest (at least 1/2) then off by at most `3e` (its
/// change is `-(s · ds) / big` with `|s| <= √3/2`), so the decoded
/// quaternion is within `√12 e` of the source, and the angle twice that,
/// `4.67e-6`; with the f32 rounding of the decode, 5e-6 rad (0.0003°).
/// The encoder picks, of the 27 codes within a step of the nearest, the
/// one nearest the source, which does no worse. Measured over every
/// shipped clip in `tests/suite/compact_clips.rs`. A source that is unit only
/// within [`crate::clip::ROTATION_UNIT_TOLERANCE`] decodes as its
/// normalized self (length 1 within f32 rounding).
pub const ROTATION_ERROR_BOUND: f32 = 5e-6;

/// The most a decoded position is off its source per axis, for a joint
/// whose coordinates on that axis span `[lo, hi]` over the database: half
/// a step of `(hi - lo) / (2 (2^20 - 1))` (the axis's extent in 2^21 - 1
/// codes), and the f32 rounding of the center, of `n · step` and of their
/// sum (each at most half an ULP of the largest magnitude `m`, so `2^-22
/// m` for all three). For the CMU clips (root travel of a few thousand
/// centimetres) about 1e-3 units; for coordinates anywhere in
/// ±[`crate::limits::MAX_POSITION`], at most 0.72 units.
pub fn position_error_bound(lo: f32, hi: f32) -> f32 {
    let step = axis_step(lo as f64, hi as f64) as f64;
    let most = lo.abs().max(hi.abs()) as f64;
    (step / 2.0 + most * f64::powi(2.0, -22)) as f32
}

/// The per-axis step for coordinates over `[lo, hi]` (0 for a constant
/// axis: then every coordinate decodes to the center exactly).
pub(crate) fn axis_step(lo: f64, hi: f64) -> f32 {
    ((hi - lo) / (2.0 * POS_CODE as f64)) as f32
}

/// The center of `[lo, hi]` in f32.
pub(crate) fn axis_center(lo: f64, hi: f64) -> f32 {
    (lo + (hi - lo) / 2.0) as f32
}

/// A rotation component from its code: `n · ROT_STEP`.
#[inline(always)]
fn component(n: i32) -> f32 {
    n as f32 * ROT_STEP
}

/// Of `n - 1`, `n` and `n + 1` within `±most`, the code with the smallest
/// `err`.
fn best_code(n: i32, most: i32, err: impl Fn(i32) -> f64) -> i32 {
    [n - 1, n + 1]
        .into_iter()
        .filter(|k| k.abs() <= most)
        .fold(n, |best, k| if err(k) < err(best) { k } else { best })
}

/// The angle between the rotations of `q` and `p` (f64; `p` unit), `2
/// atan2(|v|, |w|)` of `q · p⁻¹`: what [`ROTATION_ERROR_BOUND`] bounds.
pub fn rotation_angle(q: Quat, p: [f64; 4]) -> f64 {
    let [aw, ax, ay, az] = [q.w, q.x, q.y, q.z].map(f64::from);
    let [bw, bx, by, bz] = p;
    let w = aw * bw + ax * bx + ay * by + az * bz;
    let x = -aw * bx + ax * bw - ay * bz + az * by;
    let y = -aw * by + ay * bw - az * bx + ax * bz;
    let z = -aw * bz + az * bw - ax * by + ay * bx;
    2.0 * (x * x + y * y + z * z).sqrt().atan2(w.abs())
}

/// The word of the largest component's index `big` and sign, and the
/// three others' codes.
fn rotation_word(big: usize, negative: bool, small: [i32; 3]) -> u64 {
    let [a, b, cc] = small.map(|n| n as u32 & 0xF_FFFF);
    let lo = (a << 12) | (cc & 0xFFF);
    let hi = (b << 12) | ((cc >> 12) << 4) | ((big as u32) << 2) | negative as u32;
    (hi as u64) << 32 | lo as u64
}

/// The rotation word of `q` (normalized first, in f64; a non-finite or
/// zero `q` encodes the identity): of the codes within one step of the
/// nearest for each small component, the word whose decoded rotation is
/// nearest `q` ([`rotation_angle`]).
pub fn encode_rotation(q: Quat) -> u64 {
    let c = [q.w, q.x, q.y, q.z].map(f64::from);
    let len = c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let c = match len.is_finite() && len > 0.0 {
        true => c.map(|x| x / len),
        false => [1.0, 0.0, 0.0, 0.0],
    };
    // The first largest component.
    let big = (0..4).fold(0, |b, i| if c[i].abs() > c[b].abs() { i } else { b });
    let negative = c[big] < 0.0;
    let mut near = [0i32; 3];
    for (s, i) in near.iter_mut().zip((0..4).filter(|&i| i != big)) {
        let n = (c[i] / ROT_STEP as f64).round() as i64;
        *s = n.clamp(-(ROT_CODE as i64), ROT_CODE as i64) as i32;
    }
    let mut best = (f64::INFINITY, 0);
    for k in 0..27 {
        let d = [k % 3, k / 3 % 3, k / 9].map(|d| d - 1);
        let small: [i32; 3] = core::array::from_fn(|i| near[i] + d[i]);
        if small.iter().any(|n| n.abs() > ROT_CODE) {
            continue;
        }
        let word = rotation_word(big, negative, small);
        let angle = rotation_angle(decode_rotation(word), c);
        if angle < best.0 {
            best = (angle, word);
        }
    }
    best.1
}

/// `z - x·y` as `wide`'s `F32x8::mul_neg_add` computes it in this build:
/// fused (one rounding) where the build has FMA on x86 or NEON on
/// aarch64, otherwise the product rounded and then subtracted, so that
/// [`decode_rotation`] gives the bits of [`decode_rotations`] in every
/// build (before, an x86-64-v2 build decoded a component 1 ulp apart).
#[inline(always)]
fn mul_neg_add(x: f32, y: f32, z: f32) -> f32 {
    #[cfg(any(
        all(
            any(target_arch = "x86", target_arch = "x86_64"),
            target_feature = "fma"
        ),
        all(target_arch = "aarch64", target_feature = "neon")
    ))]
    {
        (-x).mul_add(y, z)
    }
    #[cfg(not(any(
        all(
            any(target_arch = "x86", target_arch = "x86_64"),
            target_feature = "fma"
        ),
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    {
        z - x * y
    }
}

/// The rotation of a word (the scalar twin of [`decode_rotations`]).
#[inline]
pub fn decode_rotation(word: u64) -> Quat {
    let (lo, hi) = (word as u32, (word >> 32) as u32);
    let a = component((lo as i32) >> 12);
    let b = component((hi as i32) >> 12);
    // c's high 8 bits (bits 4 to 11 of `hi`) sign-extended to bits 12 to
    // 31, above its low 12 (the flags below them shifted out).
    let c = component(((((hi << 20) as i32) >> 24) << 12) | (lo & 0xFFF) as i32);
    let t = mul_neg_add(c, c, mul_neg_add(b, b, mul_neg_add(a, a, 1.0)));
    // As `vmaxps(t, 0)`: 0 unless t > 0.
    let t = if t > 0.0 { t } else { 0.0 };
    let big = f32::from_bits(t.sqrt().to_bits() | (hi << 31));
    match (hi >> 2) & 3 {
        0 => Quat::new(big, a, b, c),
        1 => Quat::new(a, big, b, c),
        2 => Quat::new(a, b, big, c),
        _ => Quat::new(a, b, c, big),
    }
}

/// A joint's position box: per axis the center and the step of
/// [`PositionBox::encode`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionBox {
    /// Per axis, the center of the joint's coordinates over the database.
    pub center: Vec3,
    /// Per axis, the fixed-point step.
    pub step: Vec3,
}

impl PositionBox {
    /// The box of coordinates within `lo..=hi` per axis.
    pub fn new(lo: Vec3, hi: Vec3) -> PositionBox {
        let (lo, hi) = (lo.to_array().map(f64::from), hi.to_array().map(f64::from));
        let [cx, cy, cz] = [0, 1, 2].map(|i| axis_center(lo[i], hi[i]));
        let [sx, sy, sz] = [0, 1, 2].map(|i| axis_step(lo[i], hi[i]));
        PositionBox {
            center: Vec3::new(cx, cy, cz),
            step: Vec3::new(sx, sy, sz),
        }
    }

    /// Coordinate `n` of an axis.
    #[inline(always)]
    fn axis(n: i32, center: f32, step: f32) -> f32 {
        n as f32 * step + center
    }

    /// The position word of `p` (a point within the box).
    pub fn encode(&self, p: Vec3) -> u64 {
        let code = |x: f32, center: f32, step: f32| -> u32 {
            let n = match step > 0.0 {
                true => ((x as f64 - center as f64) / step as f64).round(),
                false => 0.0,
            };
            let n = n.clamp(-(POS_CODE as f64), POS_CODE as f64) as i32;
            let err = |k: i32| (Self::axis(k, center, step) as f64 - x as f64).abs();
            best_code(n, POS_CODE, err) as u32 & 0x1F_FFFF
        };
        let (c, s) = (self.center, self.step);
        let [x, y, z] = [(p.x, c.x, s.x), (p.y, c.y, s.y), (p.z, c.z, s.z)]
            .map(|(x, center, step)| code(x, center, step));
        let lo = (x << 11) | (z & 0x7FF);
        let hi = (y << 11) | ((z >> 11) << 1);
        (hi as u64) << 32 | lo as u64
    }

    /// The position of a word (the scalar twin of [`decode_positions`]).
    #[inline]
    pub fn decode(&self, word: u64) -> Vec3 {
        let (lo, hi) = (word as u32, (word >> 32) as u32);
        let x = (lo as i32) >> 11;
        let y = (hi as i32) >> 11;
        let z = (((hi << 21) as i32) >> 11) | (lo & 0x7FF) as i32;
        let (c, s) = (self.center, self.step);
        Vec3::new(
            Self::axis(x, c.x, s.x),
            Self::axis(y, c.y, s.y),
            Self::axis(z, c.z, s.z),
        )
    }
}

/// Eight words in lanes, as their low and high 32 bits.
#[derive(Clone, Copy, Debug)]
pub struct Words8 {
    /// Bits 0 to 31 of each lane's word.
    pub lo: I32x8,
    /// Bits 32 to 63.
    pub hi: I32x8,
}

/// `(x << by) >> 31` (arithmetic): all ones where bit `31 - by` is set.
#[inline(always)]
fn bit_mask(x: I32x8, by: u32) -> F32x8 {
    bytemuck::cast((x << by) >> 31_u32)
}

/// The rotations of eight words ([`decode_rotation`] per lane).
#[inline(always)]
pub fn decode_rotations(w: Words8) -> Quatx8 {
    let step = splat(ROT_STEP);
    let a = (w.lo >> 12_u32).round_float() * step;
    let b = (w.hi >> 12_u32).round_float() * step;
    let c = ((((w.hi << 20_u32) >> 24_u32) << 12_u32) | (w.lo & I32x8::splat(0xFFF))).round_float()
        * step;
    let t = c.mul_neg_add(c, b.mul_neg_add(b, a.mul_neg_add(a, splat(1.0))));
    let sign: F32x8 = bytemuck::cast(w.hi << 31_u32);
    let big = t.fast_max(F32x8::ZERO).sqrt() | sign;
    // The index's bits: 1 (bit 34) and 2 (bit 35).
    let (b0, b1) = (bit_mask(w.hi, 29), bit_mask(w.hi, 28));
    Quatx8::new(
        (b0 | b1).select(a, big),
        b1.select(b, b0.select(big, a)),
        b1.select(b0.select(c, big), b),
        (b0 & b1).select(big, c),
    )
}

/// The positions of eight words in `bx` ([`PositionBox::decode`] per lane).
#[inline(always)]
pub fn decode_positions(w: Words8, bx: &PositionBox) -> Vec3x8 {
    let x = (w.lo >> 11_u32).round_float();
    let y = (w.hi >> 11_u32).round_float();
    let z = (((w.hi << 21_u32) >> 11_u32) | (w.lo & I32x8::splat(0x7FF))).round_float();
    let (c, s) = (bx.center, bx.step);
    Vec3x8::new(
        x * splat(s.x) + splat(c.x),
        y * splat(s.y) + splat(c.y),
        z * splat(s.z) + splat(c.z),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn words8(w: [u64; 8]) -> Words8 {
        Words8 {
            lo: I32x8::new(w.map(|x| x as i32)),
            hi: I32x8::new(w.map(|x| (x >> 32) as i32)),
        }
    }

    /// Random unit quaternions (each largest index, both signs, ties of
    /// magnitude, axes) round-trip within the bound, and the lanes decode
    /// gives the scalar decode's bits.
    #[test]
    fn rotations_round_trip_within_the_bound_in_both_paths() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(7);
        let s = core::f32::consts::FRAC_1_SQRT_2;
        let mut qs = vec![
            Quat::IDENTITY,
            -Quat::IDENTITY,
            Quat::new(0.0, 1.0, 0.0, 0.0),
            Quat::new(0.0, 0.0, 0.0, -1.0),
            Quat::new(s, -s, 0.0, 0.0),
            Quat::new(0.5, 0.5, -0.5, 0.5),
            Quat::new(-0.5, -0.5, -0.5, -0.5),
        ];
        for _ in 0..20_000 {
            let v: [f32; 4] = core::array::from_fn(|_| r.random_range(-1.0..1.0));
            qs.push(crate::reference::quat_normalize(Quat::new(
                v[0], v[1], v[2], v[3],
            )));
        }
        let mut worst = 0.0f64;
        for chunk in qs.chunks(8) {
            let mut w = [encode_rotation(Quat::IDENTITY); 8];
            for (x, q) in w.iter_mut().zip(chunk) {
                *x = encode_rotation(*q);
            }
            let lanes = decode_rotations(words8(w));
            for (i, q) in chunk.iter().enumerate() {
                let d = decode_rotation(w[i]);
                let l = lanes.lane(i);
                assert_eq!(
                    [d.w, d.x, d.y, d.z].map(f32::to_bits),
                    [l.w, l.x, l.y, l.z].map(f32::to_bits),
                    "{q:?}"
                );
                let dot = [d.w * q.w, d.x * q.x, d.y * q.y, d.z * q.z]
                    .map(f64::from)
                    .iter()
                    .sum::<f64>();
                assert!(dot > 0.0, "same sign: {q:?} {d:?}");
                let q64 = [q.w, q.x, q.y, q.z].map(f64::from);
                let angle = rotation_angle(d, q64);
                worst = worst.max(angle);
                assert!(angle <= ROTATION_ERROR_BOUND as f64, "{q:?} {d:?} {angle}");
            }
        }
        println!("largest rotation error {worst:e} rad");
    }

    /// Positions round-trip within the box's bound, lanes and scalar alike;
    /// a constant axis decodes exactly.
    #[test]
    fn positions_round_trip_within_the_bound_in_both_paths() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(8);
        let (lo, hi) = (Vec3::new(-512.3, 0.0, 7.0), Vec3::new(1900.1, 0.0, 7.5));
        let bx = PositionBox::new(lo, hi);
        let bound = [0, 1, 2].map(|i| position_error_bound(lo.to_array()[i], hi.to_array()[i]));
        let mut ps = vec![lo, hi, Vec3::new(0.0, 0.0, 7.25)];
        for _ in 0..8000 {
            ps.push(Vec3::new(
                r.random_range(lo.x..=hi.x),
                0.0,
                r.random_range(lo.z..=hi.z),
            ));
        }
        for chunk in ps.chunks(8) {
            let mut w = [0u64; 8];
            for (x, p) in w.iter_mut().zip(chunk) {
                *x = bx.encode(*p);
            }
            let lanes = decode_positions(words8(w), &bx);
            for (i, p) in chunk.iter().enumerate() {
                let d = bx.decode(w[i]);
                assert_eq!(lanes.lane(i), d);
                for (k, b) in bound.iter().enumerate() {
                    let e = (d.to_array()[k] - p.to_array()[k]).abs();
                    assert!(e <= *b, "{p:?} {d:?} axis {k}: {e} > {b}");
                }
                assert_eq!(d.y, 0.0);
            }
        }
    }
}
