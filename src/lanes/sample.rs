//! Sampling with velocities for eight characters, each lane at its own
//! time ([`crate::reference::sample`] per lane). The clip's frames are
//! gathered per lane, then the math runs 8-wide.

use super::angular::quat_from_scaled_angle_axis_dx;
use super::kform::Kformx8;
use super::math::{F32x8, I32x8, Quatx8, Vec3x8, div_dt, exp_vec3, lerp_vec3, log_vec3, splat};
use super::math::{
    quat_abs, quat_exp_short, quat_from_scaled_angle_axis, quat_log, quat_mul, quat_mul_inv,
    quat_to_scaled_angle_axis,
};
use crate::error::Result;
use crate::reference::sample::{check_views, shape};
use crate::reference::{MAX_SAMPLE_FRAME, Quat, Slice2d, Vec3};

/// Rows `s` of column `j`, one per lane ([`Slice2d::get8`]: the
/// samplers below check their views and clamp `s` first).
#[inline(always)]
pub(crate) fn gather_vec3(a: Slice2d<Vec3>, s: &[usize; 8], j: usize) -> Vec3x8 {
    Vec3x8::from_array(a.get8(s, j))
}

/// Rows `s` of column `j`, one per lane ([`Slice2d::get8`]: the
/// samplers below check their views and clamp `s` first).
#[inline(always)]
pub(crate) fn gather_quat(a: Slice2d<Quat>, s: &[usize; 8], j: usize) -> Quatx8 {
    Quatx8::from_array(a.get8(s, j))
}

/// [`crate::reference::sample_frame`] per lane, bit for bit: the frame
/// before `time` and the weight, `st = floor(time / dt)` and
/// `alpha = fract(time / dt)`, with the reference's edges (a negative time
/// is frame 0; a non-finite time or a `dt` that is not positive gives frame
/// 0 with weight 0; from [`MAX_SAMPLE_FRAME`] on, that frame with weight 0).
#[inline(always)]
pub fn sample_frame(time: F32x8, dt: f32) -> (I32x8, F32x8) {
    if dt.is_nan() || dt <= 0.0 {
        return (I32x8::ZERO, F32x8::ZERO);
    }
    let max = splat(MAX_SAMPLE_FRAME as f32);
    let f = (time / splat(dt)).fast_max(F32x8::ZERO);
    let (finite, big) = (time.is_finite(), f.simd_ge(max));
    let st = f.floor();
    let alpha = (finite & !big) & (f - st);
    let st = finite & big.select(max, st);
    // Integral and at most 2^24: converted exactly.
    (st.round_int(), alpha)
}

/// Per lane, the frame before `time` and the weight ([`sample_frame`]),
/// clamped to `rows` frames as `[st + k for k in offsets]`.
#[inline]
pub fn sample_rows<const K: usize>(
    time: F32x8,
    dt: f32,
    rows: usize,
    offsets: [i64; K],
) -> ([[usize; 8]; K], F32x8) {
    let (st, alpha) = sample_frame(time, dt);
    let st = st.to_array();
    // A view without rows gives row 0 (which its gathers then refuse), not
    // a `clamp` whose bounds cross.
    let last = (rows as i64 - 1).max(0);
    let s = offsets.map(|o| st.map(|st| (st as i64 + o).clamp(0, last) as usize));
    (s, alpha)
}

/// Linear sampling of one joint between rows `s0` and `s1` with weight
/// `alpha` (per lane): the kernel of [`op_sample_linear`].
///
/// The reference's terms with their shared work done once: the slerp is
/// `exp(alpha w) r0` with `w = log(quat_abs(r1 r0⁻¹))`, whose double over
/// `dt` is the angular velocity; `w` is a shortest-arc half-angle vector
/// (`|w| <= π/2`, whatever the quaternions' norms, as [`quat_log`] measures
/// the angle with `atan2`) and `alpha` is in `[0, 1)`, so the short-domain
/// [`quat_exp_short`] applies. The scale's `eerp` and velocity share `ln c0`
/// and `ln c1`.
#[inline(always)]
pub fn sample_linear_joint(
    p: [Vec3x8; 2],
    r: [Quatx8; 2],
    c: [Vec3x8; 2],
    alpha: F32x8,
    dt: F32x8,
) -> Kformx8 {
    let w = quat_log(quat_abs(quat_mul_inv(r[1], r[0])));
    let (l0, l1) = (log_vec3(c[0]), log_vec3(c[1]));
    let keep = splat(1.0) - alpha;
    let eerp = |x: F32x8, y: F32x8| keep.mul_add(x, alpha * y).exp();
    Kformx8 {
        pos: lerp_vec3(p[0], p[1], alpha),
        vel: div_dt(p[1] - p[0], dt),
        rot: quat_mul(quat_exp_short(w * alpha), r[0]),
        ang: div_dt(w + w, dt),
        scl: Vec3x8::new(eerp(l0.x, l1.x), eerp(l0.y, l1.y), eerp(l0.z, l1.z)),
        svl: div_dt(l1 - l0, dt),
    }
}

/// Linear sampling for eight characters, lane `i` at `time[i]`.
///
/// Refuses, as the reference does and writing nothing, views without a
/// frame, with other frames than `anim_pos`'s or with fewer columns than
/// `output` has joints.
pub fn op_sample_linear(
    output: &mut [Kformx8],
    anim_pos: Slice2d<Vec3>,
    anim_rot: Slice2d<Quat>,
    anim_scl: Slice2d<Vec3>,
    time: F32x8,
    dt: f32,
) -> Result<()> {
    let (pos, rot, scl) = (shape(anim_pos), shape(anim_rot), shape(anim_scl));
    check_views(output.len(), pos, rot, scl)?;
    let ([s0, s1], alpha) = sample_rows(time, dt, anim_pos.rows(), [0, 1]);
    let d = splat(dt);
    for (j, o) in output.iter_mut().enumerate() {
        *o = sample_linear_joint(
            [gather_vec3(anim_pos, &s0, j), gather_vec3(anim_pos, &s1, j)],
            [gather_quat(anim_rot, &s0, j), gather_quat(anim_rot, &s1, j)],
            [gather_vec3(anim_scl, &s0, j), gather_vec3(anim_scl, &s1, j)],
            alpha,
            d,
        );
    }
    Ok(())
}

/// Hermite weights and their derivatives per lane.
#[inline(always)]
fn hermite_weights(x: F32x8) -> ([F32x8; 4], [F32x8; 4]) {
    let (x2, x3) = (x * x, x * x * x);
    let (two, three, four, six) = (splat(2.0), splat(3.0), splat(4.0), splat(6.0));
    (
        [
            two * x3 - three * x2 + splat(1.0),
            three * x2 - two * x3,
            x3 - two * x2 + x,
            x3 - x2,
        ],
        [
            six * x2 - six * x,
            six * x - six * x2,
            three * x2 - four * x + splat(1.0),
            three * x2 - two * x,
        ],
    )
}

/// Catmull-Rom through four positions per lane; `(position, velocity)`.
#[inline(always)]
pub fn catmull_rom(
    x: F32x8,
    p0: Vec3x8,
    p1: Vec3x8,
    p2: Vec3x8,
    p3: Vec3x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8) {
    let half = splat(0.5);
    let v1 = ((p1 - p0) + (p2 - p1)) * half;
    let v2 = ((p2 - p1) + (p3 - p2)) * half;
    let (w, q) = hermite_weights(x);
    (
        w[0] * p1 + w[1] * p2 + w[2] * v1 + w[3] * v2,
        div_dt(q[0] * p1 + q[1] * p2 + q[2] * v1 + q[3] * v2, dt),
    )
}

/// Catmull-Rom of rotations per lane (scaled angle axis relative to `r1`).
#[inline(always)]
pub fn quat_catmull_rom(
    x: F32x8,
    r0: Quatx8,
    r1: Quatx8,
    r2: Quatx8,
    r3: Quatx8,
    dt: F32x8,
) -> (Quatx8, Vec3x8) {
    let d10 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r1, r0)));
    let d21 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r2, r1)));
    let d32 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r3, r2)));
    let half = splat(0.5);
    let v1 = (d10 + d21) * half;
    let v2 = (d21 + d32) * half;
    let (w, q) = hermite_weights(x);
    let s = w[1] * d21 + w[2] * v1 + w[3] * v2;
    (
        quat_mul(quat_from_scaled_angle_axis(s), r1),
        quat_from_scaled_angle_axis_dx(s, div_dt(q[1] * d21 + q[2] * v1 + q[3] * v2, dt)),
    )
}

/// Catmull-Rom of scales per lane (log space relative to `s1`).
#[inline(always)]
pub fn scale_catmull_rom(
    x: F32x8,
    s0: Vec3x8,
    s1: Vec3x8,
    s2: Vec3x8,
    s3: Vec3x8,
    dt: F32x8,
) -> (Vec3x8, Vec3x8) {
    let d10 = log_vec3(s1 / s0);
    let d21 = log_vec3(s2 / s1);
    let d32 = log_vec3(s3 / s2);
    let half = splat(0.5);
    let v1 = (d10 + d21) * half;
    let v2 = (d21 + d32) * half;
    let (w, q) = hermite_weights(x);
    (
        exp_vec3(w[1] * d21 + w[2] * v1 + w[3] * v2) * s1,
        div_dt(q[1] * d21 + q[2] * v1 + q[3] * v2, dt),
    )
}

/// Cubic sampling of one joint from four rows per lane: the kernel of
/// [`op_sample_cubic`].
#[inline(always)]
pub fn sample_cubic_joint(
    p: [Vec3x8; 4],
    r: [Quatx8; 4],
    c: [Vec3x8; 4],
    alpha: F32x8,
    dt: F32x8,
) -> Kformx8 {
    let (pos, vel) = catmull_rom(alpha, p[0], p[1], p[2], p[3], dt);
    let (rot, ang) = quat_catmull_rom(alpha, r[0], r[1], r[2], r[3], dt);
    let (scl, svl) = scale_catmull_rom(alpha, c[0], c[1], c[2], c[3], dt);
    Kformx8 {
        pos,
        rot,
        scl,
        vel,
        ang,
        svl,
    }
}

/// Cubic (Catmull-Rom) sampling for eight characters, lane `i` at `time[i]`.
///
/// Refuses, as the reference does and writing nothing, views without a
/// frame, with other frames than `anim_pos`'s or with fewer columns than
/// `output` has joints.
pub fn op_sample_cubic(
    output: &mut [Kformx8],
    anim_pos: Slice2d<Vec3>,
    anim_rot: Slice2d<Quat>,
    anim_scl: Slice2d<Vec3>,
    time: F32x8,
    dt: f32,
) -> Result<()> {
    let (pos, rot, scl) = (shape(anim_pos), shape(anim_rot), shape(anim_scl));
    check_views(output.len(), pos, rot, scl)?;
    let (s, alpha) = sample_rows(time, dt, anim_pos.rows(), [-1, 0, 1, 2]);
    let d = splat(dt);
    for (j, o) in output.iter_mut().enumerate() {
        *o = sample_cubic_joint(
            s.map(|s| gather_vec3(anim_pos, &s, j)),
            s.map(|s| gather_quat(anim_rot, &s, j)),
            s.map(|s| gather_vec3(anim_scl, &s, j)),
            alpha,
            d,
        );
    }
    Ok(())
}
