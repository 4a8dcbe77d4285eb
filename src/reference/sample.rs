//! Sampling an animation at a continuous time, with velocities
//! (velocities article, "Animation Sampling"; Catmull-Rom from
//! reference-math.md, "Cubic sampling").

use super::angular::quat_from_scaled_angle_axis_dx;
use super::math::{Quat, Vec3, div_dt, eerp_vec3, exp_vec3, lerp_vec3, log_vec3};
use super::math::{
    quat_abs, quat_from_scaled_angle_axis, quat_mul, quat_mul_inv, quat_slerp_shortest,
    quat_to_scaled_angle_axis,
};
use super::pose::{Pose, Slice2d, lengths};
use crate::error::{Result, at_least, exactly};

/// The frame before `time` and the interpolation weight:
/// `st = floor(time / dt)`, `alpha = fract(time / dt)`.
///
/// Deviations from the published `(int)(time / dt)` and `fmod`: a negative
/// `time` is clamped to 0 (the published code extrapolates backwards past
/// the first frame with a negative `alpha`), `dt <= 0` or a non-finite
/// time samples frame 0, and a frame index of [`MAX_SAMPLE_FRAME`] or more
/// (including an infinite `time / dt`) is that frame with `alpha = 0`: no
/// clip is that long, so sampling clamps to its last frame, and the
/// neighbouring indices `st ± 2` cannot overflow. Tested in
/// `tests/suite/edge_cases.rs` (`sampling_clamps_time_and_frame_time`).
#[inline]
pub fn sample_frame(time: f32, dt: f32) -> (i64, f32) {
    if dt.is_nan() || dt <= 0.0 || !time.is_finite() {
        return (0, 0.0);
    }
    let f = (time / dt).max(0.0);
    // Not NaN: time is finite and dt > 0 (an infinite quotient is caught here).
    if f >= MAX_SAMPLE_FRAME as f32 {
        return (MAX_SAMPLE_FRAME, 0.0);
    }
    let st = f.floor();
    (st as i64, f - st)
}

/// The largest frame index [`sample_frame`] returns: 2²⁴, where f32 stops
/// resolving fractions of a frame.
pub const MAX_SAMPLE_FRAME: i64 = 1 << 24;

/// The views hold a clip for `joints` joints ([`Error::Length`](crate::Error::Length) naming the
/// first that does not): at least one frame, the same frames in each, and
/// a column for each joint (shared with [`crate::lanes::sample`]).
pub(crate) fn check_views(
    joints: usize,
    (pos_rows, pos_cols): (usize, usize),
    rot: (usize, usize),
    scl: (usize, usize),
) -> Result<()> {
    at_least("anim_pos frames (at least one)", 1, pos_rows)?;
    exactly("anim_rot frames (anim_pos's)", pos_rows, rot.0)?;
    exactly("anim_scl frames (anim_pos's)", pos_rows, scl.0)?;
    at_least("anim_pos columns (one per output joint)", joints, pos_cols)?;
    at_least("anim_rot columns (one per output joint)", joints, rot.1)?;
    at_least("anim_scl columns (one per output joint)", joints, scl.1)
}

/// A view's `(rows, columns)`.
pub(crate) fn shape<T: Copy>(v: Slice2d<T>) -> (usize, usize) {
    (v.rows(), v.cols())
}

fn clamp_row(i: i64, rows: usize) -> usize {
    i.clamp(0, rows as i64 - 1) as usize
}

/// Linear sampling at `time` (frame time `dt`): positions lerped, rotations
/// slerped, scales eerped; velocities are the finite difference of the two
/// frames around `time` (`(p1 - p0) / dt`, the scaled angle axis of
/// `quat_abs(r1 r0⁻¹)` over `dt`, `log(s1 / s0) / dt`).
///
/// Refuses, writing nothing, views without a frame, with other frames
/// than `anim_pos`'s or with fewer columns than `output` has joints
/// ([`Error::Length`](crate::Error::Length); the articles' shapes are clips of at least one
/// frame, a column a joint).
pub fn op_sample_linear(
    output: &mut Pose,
    anim_pos: Slice2d<Vec3>,
    anim_rot: Slice2d<Quat>,
    anim_scl: Slice2d<Vec3>,
    time: f32,
    dt: f32,
) -> Result<()> {
    lengths(output.len(), &[&*output])?;
    let (pos, rot, scl) = (shape(anim_pos), shape(anim_rot), shape(anim_scl));
    check_views(output.len(), pos, rot, scl)?;
    let rows = anim_pos.rows();
    let (st, alpha) = sample_frame(time, dt);
    let s0 = clamp_row(st, rows);
    let s1 = clamp_row(st + 1, rows);
    for j in 0..output.len() {
        let (p0, p1) = (anim_pos.at(s0, j), anim_pos.at(s1, j));
        let (r0, r1) = (anim_rot.at(s0, j), anim_rot.at(s1, j));
        let (c0, c1) = (anim_scl.at(s0, j), anim_scl.at(s1, j));
        output.pos[j] = lerp_vec3(p0, p1, alpha);
        output.vel[j] = div_dt(p1 - p0, dt);
        output.rot[j] = quat_slerp_shortest(r0, r1, alpha);
        output.ang[j] = div_dt(
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r1, r0))),
            dt,
        );
        output.scl[j] = eerp_vec3(c0, c1, alpha);
        output.svl[j] = div_dt(log_vec3(c1 / c0), dt);
    }
    Ok(())
}

/// Hermite weights at `x` for `(p1, p2, v1, v2)` and their derivatives.
#[inline]
fn hermite_weights(x: f32) -> ([f32; 4], [f32; 4]) {
    let (x2, x3) = (x * x, x * x * x);
    (
        [
            2.0 * x3 - 3.0 * x2 + 1.0,
            3.0 * x2 - 2.0 * x3,
            x3 - 2.0 * x2 + x,
            x3 - x2,
        ],
        [
            6.0 * x2 - 6.0 * x,
            6.0 * x - 6.0 * x2,
            3.0 * x2 - 4.0 * x + 1.0,
            3.0 * x2 - 2.0 * x,
        ],
    )
}

/// Catmull-Rom through `p0..p3` at `x` in `[0, 1]` between `p1` and `p2`:
/// tangents `v1 = ((p1 - p0) + (p2 - p1)) / 2`, `v2 = ((p2 - p1) + (p3 - p2)) / 2`;
/// returns the position and its velocity (the derivative over `dt`).
#[inline]
pub fn catmull_rom(x: f32, p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3, dt: f32) -> (Vec3, Vec3) {
    let v1 = ((p1 - p0) + (p2 - p1)) * 0.5;
    let v2 = ((p2 - p1) + (p3 - p2)) * 0.5;
    let (w, q) = hermite_weights(x);
    (
        w[0] * p1 + w[1] * p2 + w[2] * v1 + w[3] * v2,
        div_dt(q[0] * p1 + q[1] * p2 + q[2] * v1 + q[3] * v2, dt),
    )
}

/// [`catmull_rom`] for rotations, in scaled-angle-axis space relative to
/// `r1` (differences `quat_abs(r_{k+1} r_k⁻¹)`); returns the rotation and its
/// angular velocity.
///
/// Correction of the published code, which returns the cubic's rate in
/// scaled-angle-axis space as the angular velocity: the exact one is
/// `J(s) s'` ([`quat_from_scaled_angle_axis_dx`]), `s` the cubic's value.
/// They differ by about `|s| |s'| / 2`, small within a frame of 120 Hz
/// motion but not zero: a finite difference of the sampled rotations
/// shows it at every step size.
#[inline]
pub fn quat_catmull_rom(x: f32, r0: Quat, r1: Quat, r2: Quat, r3: Quat, dt: f32) -> (Quat, Vec3) {
    let d10 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r1, r0)));
    let d21 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r2, r1)));
    let d32 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r3, r2)));
    let v1 = (d10 + d21) * 0.5;
    let v2 = (d21 + d32) * 0.5;
    let (w, q) = hermite_weights(x);
    let s = w[1] * d21 + w[2] * v1 + w[3] * v2;
    (
        quat_mul(quat_from_scaled_angle_axis(s), r1),
        quat_from_scaled_angle_axis_dx(s, div_dt(q[1] * d21 + q[2] * v1 + q[3] * v2, dt)),
    )
}

/// [`catmull_rom`] for scales, in log space relative to `s1`; returns the
/// scale and its scalar velocity.
#[inline]
pub fn scale_catmull_rom(x: f32, s0: Vec3, s1: Vec3, s2: Vec3, s3: Vec3, dt: f32) -> (Vec3, Vec3) {
    let d10 = log_vec3(s1 / s0);
    let d21 = log_vec3(s2 / s1);
    let d32 = log_vec3(s3 / s2);
    let v1 = (d10 + d21) * 0.5;
    let v2 = (d21 + d32) * 0.5;
    let (w, q) = hermite_weights(x);
    (
        exp_vec3(w[1] * d21 + w[2] * v1 + w[3] * v2) * s1,
        div_dt(q[1] * d21 + q[2] * v1 + q[3] * v2, dt),
    )
}

/// Cubic (Catmull-Rom) sampling at `time` through the four frames around it
/// (`st - 1 .. st + 2`, clamped to the clip), with velocities that change
/// smoothly between frames.
///
/// Refuses, writing nothing, views without a frame, with other frames
/// than `anim_pos`'s or with fewer columns than `output` has joints
/// ([`Error::Length`](crate::Error::Length); the articles' shapes are clips of at least one
/// frame, a column a joint).
pub fn op_sample_cubic(
    output: &mut Pose,
    anim_pos: Slice2d<Vec3>,
    anim_rot: Slice2d<Quat>,
    anim_scl: Slice2d<Vec3>,
    time: f32,
    dt: f32,
) -> Result<()> {
    lengths(output.len(), &[&*output])?;
    let (pos, rot, scl) = (shape(anim_pos), shape(anim_rot), shape(anim_scl));
    check_views(output.len(), pos, rot, scl)?;
    let rows = anim_pos.rows();
    let (st, alpha) = sample_frame(time, dt);
    let s = [st - 1, st, st + 1, st + 2].map(|i| clamp_row(i, rows));
    for j in 0..output.len() {
        let p = s.map(|f| anim_pos.at(f, j));
        let r = s.map(|f| anim_rot.at(f, j));
        let c = s.map(|f| anim_scl.at(f, j));
        (output.pos[j], output.vel[j]) = catmull_rom(alpha, p[0], p[1], p[2], p[3], dt);
        (output.rot[j], output.ang[j]) = quat_catmull_rom(alpha, r[0], r[1], r[2], r[3], dt);
        (output.scl[j], output.svl[j]) = scale_catmull_rom(alpha, c[0], c[1], c[2], c[3], dt);
    }
    Ok(())
}
