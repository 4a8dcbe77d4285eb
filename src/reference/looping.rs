//! Looping animations from motion capture: offsets that make the first and
//! last frames and their velocities meet, spread over the clip by
//! inertializers, a linear fade or a "softfade" (looping article).
//!
//! Arrays are frames × joints, frame-major ([`Slice2d`] in, `&mut [T]` of the
//! same shape out); per-joint differences have one entry per joint. Where
//! the article `assert`s, these refuse with [`Error::Length`], writing
//! nothing: a clip without a frame, per-joint slices (differences, root
//! offsets) short of the view's joints or frames, offsets that are not
//! whole frames, and outputs or offsets of `apply_*` of another length
//! than the view.
//!
//! A clip of one frame gives finite results (reference-math.md, "Repository-only
//! functions"): its one frame is both the start and the end, so the start and
//! end velocities are the same and their difference is zero, offsets are the
//! same formulas with `i = 0` at both ends, and the linear fade's
//! `i / (rows - 1)` is taken as 0. (The published code asserts two frames in
//! the differences and divides 0/0 in the linear fade.)

use super::inertialize::decayed_offset_cubic;
use super::math::{Quat, Vec3, div_dt, lerp, quat_abs, quat_differentiate_angular_velocity};
use super::math::{
    quat_from_scaled_angle_axis, quat_inv_mul_vec3, quat_mul, quat_mul_inv, quat_mul_vec3,
    quat_to_scaled_angle_axis,
};
use super::pose::Slice2d;
use super::spring::{fast_negexp, halflife_to_damping};
use crate::error::{Error, Result, at_least, exactly};

/// [`Error::Length`] unless the clip has a frame.
fn some_frames(rows: usize) -> Result<()> {
    at_least("clip frames (a loop needs at least 1)", 1, rows)
}

/// The root offsets' shapes: positions of the rotations' `rows` frames, and
/// offsets of at least `rows × cols` values each ([`Error::Length`]).
pub(crate) fn root_shapes(
    rows: usize,
    cols: usize,
    pos_rows: usize,
    (offsets_pos, offsets_rot): (usize, usize),
) -> Result<()> {
    exactly("pos frames (rot's)", rows, pos_rows)?;
    let values = rows.saturating_mul(cols);
    at_least("offsets_pos (frames × joints)", values, offsets_pos)?;
    at_least("offsets_rot (frames × joints)", values, offsets_rot)
}

/// [`Error::Length`] unless `out` and `offsets` have a value for each of
/// the view's `values`.
pub(crate) fn same_values(values: usize, out: usize, offsets: usize) -> Result<()> {
    exactly("out (the view's values)", values, out)?;
    exactly("offsets (the view's values)", values, offsets)
}

/// The frames of the end and start finite differences, `(n-1, n-2, 1, 0)`;
/// a one-frame clip uses frame 0 for all four (its one frame is both ends,
/// so the two velocities are equal and cancel in their difference).
pub(crate) fn seam_frames(n: usize) -> Result<(usize, usize, usize, usize)> {
    some_frames(n)?;
    Ok(if n >= 2 {
        (n - 1, n - 2, 1, 0)
    } else {
        (0, 0, 0, 0)
    })
}

/// `i / (rows - 1)`, the linear fade's position of frame `i`; 0 for a
/// one-frame clip (reference-math.md), where the published `0 / 0` is NaN.
#[inline]
pub fn linear_fade_alpha(i: usize, rows: usize) -> f32 {
    if rows > 1 {
        i as f32 / (rows - 1) as f32
    } else {
        0.0
    }
}

/// Per joint, the positional difference between the last and first frames
/// and the difference of their finite-difference velocities
/// (`(p[n-1] - p[n-2]) / dt - (p[1] - p[0]) / dt`).
pub fn compute_start_end_positional_difference(
    diff_pos: &mut [Vec3],
    diff_vel: &mut [Vec3],
    pos: Slice2d<Vec3>,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(pos.rows())?;
    at_least("diff_pos (one per joint)", pos.cols(), diff_pos.len())?;
    at_least("diff_vel (one per joint)", pos.cols(), diff_vel.len())?;
    for j in 0..pos.cols() {
        diff_pos[j] = pos.at(e1, j) - pos.at(0, j);
        diff_vel[j] =
            div_dt(pos.at(e1, j) - pos.at(e0, j), dt) - div_dt(pos.at(s1, j) - pos.at(s0, j), dt);
    }
    Ok(())
}

/// Per joint, the rotation from the first to the last frame in scaled angle
/// axis (`quat_abs(r[n-1] r[0]⁻¹)`) and the difference of their angular
/// velocities.
pub fn compute_start_end_rotational_difference(
    diff_rot: &mut [Vec3],
    diff_vel: &mut [Vec3],
    rot: Slice2d<Quat>,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(rot.rows())?;
    at_least("diff_rot (one per joint)", rot.cols(), diff_rot.len())?;
    at_least("diff_vel (one per joint)", rot.cols(), diff_vel.len())?;
    for j in 0..rot.cols() {
        diff_rot[j] =
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(rot.at(e1, j), rot.at(0, j))));
        diff_vel[j] = quat_differentiate_angular_velocity(rot.at(e1, j), rot.at(e0, j), dt)
            - quat_differentiate_angular_velocity(rot.at(s1, j), rot.at(s0, j), dt);
    }
    Ok(())
}

/// A spring-decayed offset `dt` after its start: `y = halflife_to_damping(h) / 2`,
/// `e^{-y dt} (x + (v + x y) dt)` (with `fast_negexp`).
#[inline]
pub fn decayed_offset(x: Vec3, v: Vec3, halflife: f32, dt: f32) -> Vec3 {
    let y = halflife_to_damping(halflife) / 2.0;
    let j1 = v + x * y;
    fast_negexp(y * dt) * (x + j1 * dt)
}

/// A cubic offset that starts at zero with velocity `v` and returns to zero
/// with zero velocity at `blendtime`: `c = v blendtime`, `b = -2c`, `a = c`,
/// `a t³ + b t² + c t` with `t = clamp(dt / (blendtime + 1e-8), 0, 1)`.
#[inline]
pub fn decayed_velocity_offset_cubic(v: Vec3, blendtime: f32, dt: f32) -> Vec3 {
    let t = (dt / (blendtime + super::inertialize::EPS_BLEND)).clamp(0.0, 1.0);
    let c = v * blendtime;
    let (b, a) = (-2.0 * c, c);
    a * (t * t * t) + b * (t * t) + c * t
}

/// The frame count of `offsets` for `cols` joints.
pub(crate) fn rows_of(offsets_len: usize, cols: usize) -> Result<usize> {
    if cols == 0 {
        return Err(Error::Length {
            what: "diff_pos (one per joint, at least one)",
            expected: 1,
            got: 0,
        });
    }
    if !offsets_len.is_multiple_of(cols) {
        return Err(Error::Length {
            what: "offsets (frames × joints: a multiple of diff_pos's)",
            expected: offsets_len.next_multiple_of(cols),
            got: offsets_len,
        });
    }
    Ok(offsets_len / cols)
}

/// Spring-inertializer offsets for every frame: `ratio` of the difference is
/// added at the start and decays with `halflife_start`, the rest subtracted
/// at the end and decays backward in time with `halflife_end`.
#[allow(clippy::too_many_arguments)]
pub fn compute_inertialize_both_offsets(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    halflife_start: f32,
    halflife_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset(
                ratio * diff_pos[j],
                ratio * diff_vel[j],
                halflife_start,
                i as f32 * dt,
            ) + decayed_offset(
                (1.0 - ratio) * -diff_pos[j],
                (1.0 - ratio) * diff_vel[j],
                halflife_end,
                (rows - 1 - i) as f32 * dt,
            );
        }
    }
    Ok(())
}

/// [`compute_inertialize_both_offsets`] with the cubic inertializer
/// ([`decayed_offset_cubic`]), which reaches zero exactly at `blendtime`, so
/// no residual offset is left at the far end of the clip.
#[allow(clippy::too_many_arguments)]
pub fn compute_inertialize_both_offsets_cubic(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset_cubic(
                ratio * diff_pos[j],
                ratio * diff_vel[j],
                blendtime_start,
                i as f32 * dt,
            )
            .0 + decayed_offset_cubic(
                (1.0 - ratio) * -diff_pos[j],
                (1.0 - ratio) * diff_vel[j],
                blendtime_end,
                (rows - 1 - i) as f32 * dt,
            )
            .0;
        }
    }
    Ok(())
}

/// Offsets spreading the positional difference linearly over the whole clip
/// (`lerp(ratio, ratio - 1, i / (rows - 1)) diff_pos`), with cubic velocity
/// offsets at either end removing the velocity difference.
#[allow(clippy::too_many_arguments)]
pub fn compute_linear_inertialize_offsets(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        let w = lerp(ratio, ratio - 1.0, linear_fade_alpha(i, rows));
        for j in 0..cols {
            offsets[i * cols + j] = w * diff_pos[j]
                + decayed_velocity_offset_cubic(
                    ratio * diff_vel[j],
                    blendtime_start,
                    i as f32 * dt,
                )
                + decayed_velocity_offset_cubic(
                    (1.0 - ratio) * diff_vel[j],
                    blendtime_end,
                    (rows - 1 - i) as f32 * dt,
                );
        }
    }
    Ok(())
}

/// Offsets fading the positional difference linearly over the whole clip,
/// with no velocity correction (a repository-only function of the looping
/// article's code; reference-math.md, "Repository-only functions"): frame
/// `i` gets `lerp(ratio, ratio - 1, i / (rows - 1)) diff_pos`, so the first
/// frame takes `ratio` of the difference and the last gives back the rest.
/// This is the article's "naive" linear fade, whose velocity seam
/// [`compute_linear_inertialize_offsets`] removes. One row gets
/// `ratio diff_pos` ([`linear_fade_alpha`]).
pub fn compute_linear_offsets(offsets: &mut [Vec3], diff_pos: &[Vec3], ratio: f32) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    for i in 0..rows {
        let w = lerp(ratio, ratio - 1.0, linear_fade_alpha(i, rows));
        for j in 0..cols {
            offsets[i * cols + j] = w * diff_pos[j];
        }
    }
    Ok(())
}

/// Spring-inertializer offsets carrying the whole correction at the start
/// (a repository-only function; reference-math.md): frame `i` gets
/// [`decayed_offset`]`(diff_pos, diff_vel, halflife, i dt)`, so the first
/// frame moves onto the last and takes its velocity, and the offset decays
/// from there. [`compute_inertialize_both_offsets`] with `ratio = 1`.
pub fn compute_inertialize_start_offsets(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    halflife: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        for j in 0..cols {
            offsets[i * cols + j] =
                decayed_offset(diff_pos[j], diff_vel[j], halflife, i as f32 * dt);
        }
    }
    Ok(())
}

/// Spring-inertializer offsets carrying the whole correction at the end
/// (a repository-only function; reference-math.md): frame `i` gets
/// [`decayed_offset`]`(-diff_pos, diff_vel, halflife, (rows - 1 - i) dt)`,
/// decaying backward in time from the last frame, which moves onto the
/// first and takes its velocity. [`compute_inertialize_both_offsets`] with
/// `ratio = 0`.
pub fn compute_inertialize_end_offsets(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    halflife: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        for j in 0..cols {
            offsets[i * cols + j] = decayed_offset(
                -diff_pos[j],
                diff_vel[j],
                halflife,
                (rows - 1 - i) as f32 * dt,
            );
        }
    }
    Ok(())
}

/// `ln(1 + e^{α - 2αx}) / α`: a ramp from about 1 at `x = 0` to about 0 at
/// `x = 1`, `alpha` its hardness.
///
/// Deviation (edge-case table): evaluated as a stable softplus,
/// `max(z, 0) + ln(1 + e^{-|z|})` with `z = α(1 - 2x)`, so large hardness or
/// arguments do not overflow (the published `logf(1 + expf(...))` is
/// infinite for `z > 88`), and `alpha` is taken as at least 1e-6; never NaN
/// for finite inputs.
#[inline]
pub fn softfade(x: f32, alpha: f32) -> f32 {
    let alpha = alpha.max(1e-6);
    let z = alpha - 2.0 * alpha * x;
    (z.max(0.0) + (-z.abs()).exp().ln_1p()) / alpha
}

/// The gradient of [`softfade`] at `x = 0`, `-2 e^α / (1 + e^α)`, evaluated
/// as `-2 / (1 + e^{-α})` (no overflow).
#[inline]
pub fn softfade_grad_zero(alpha: f32) -> f32 {
    -2.0 / (1.0 + (-alpha).exp())
}

/// `x softfade(dt / duration, hardness)`.
#[inline]
pub fn decayed_offset_softfade(x: Vec3, duration: f32, hardness: f32, dt: f32) -> Vec3 {
    x * softfade(dt / duration, hardness)
}

/// The rate of change of [`decayed_offset_softfade`] at `dt = 0`:
/// `x softfade_grad_zero(hardness) / duration`.
#[inline]
pub fn decayed_offset_softfade_grad_zero(x: Vec3, duration: f32, hardness: f32) -> Vec3 {
    x * (softfade_grad_zero(hardness) / duration)
}

/// Differences for the softfade method: the positional difference, and the
/// velocity difference including the velocity the softfade offsets add at
/// each end.
///
/// Deviation from the published code, which adds the start fade's gradient
/// to the end velocity and the end fade's to the start velocity, each times
/// `dt` (a velocity plus a distance): the offsets of
/// [`compute_softfade_inertialize_offsets`] change the first frame's
/// velocity by `ratio diff_pos softfade'(0) / duration_start` and the last
/// frame's by `(1 - ratio) diff_pos softfade'(0) / duration_end`, and those
/// are added here, so that the velocity offsets close the seam (tested on
/// the CMU clips in `tests/suite/looping.rs` for rotations, and on positions in
/// `tests/suite/corrections.rs`).
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_start_end_difference(
    diff_pos: &mut [Vec3],
    diff_vel: &mut [Vec3],
    pos: Slice2d<Vec3>,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(pos.rows())?;
    at_least("diff_pos (one per joint)", pos.cols(), diff_pos.len())?;
    at_least("diff_vel (one per joint)", pos.cols(), diff_vel.len())?;
    for j in 0..pos.cols() {
        diff_pos[j] = pos.at(e1, j) - pos.at(0, j);
        let velocity_end = div_dt(pos.at(e1, j) - pos.at(e0, j), dt)
            + decayed_offset_softfade_grad_zero(
                (1.0 - ratio) * diff_pos[j],
                duration_end,
                hardness_end,
            );
        let velocity_start = div_dt(pos.at(s1, j) - pos.at(s0, j), dt)
            + decayed_offset_softfade_grad_zero(
                ratio * diff_pos[j],
                duration_start,
                hardness_start,
            );
        diff_vel[j] = velocity_end - velocity_start;
    }
    Ok(())
}

/// [`compute_softfade_start_end_difference`] for rotations (scaled angle
/// axis and angular velocities), with the same correction.
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_start_end_difference_quat(
    diff_rot: &mut [Vec3],
    diff_vel: &mut [Vec3],
    rot: Slice2d<Quat>,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let (e1, e0, s1, s0) = seam_frames(rot.rows())?;
    at_least("diff_rot (one per joint)", rot.cols(), diff_rot.len())?;
    at_least("diff_vel (one per joint)", rot.cols(), diff_vel.len())?;
    for j in 0..rot.cols() {
        diff_rot[j] =
            quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(rot.at(e1, j), rot.at(0, j))));
        let velocity_end = quat_differentiate_angular_velocity(rot.at(e1, j), rot.at(e0, j), dt)
            + decayed_offset_softfade_grad_zero(
                (1.0 - ratio) * diff_rot[j],
                duration_end,
                hardness_end,
            );
        let velocity_start = quat_differentiate_angular_velocity(rot.at(s1, j), rot.at(s0, j), dt)
            + decayed_offset_softfade_grad_zero(
                ratio * diff_rot[j],
                duration_start,
                hardness_start,
            );
        diff_vel[j] = velocity_end - velocity_start;
    }
    Ok(())
}

/// Softfade offsets at each end (positional difference faded over
/// `duration_*` with `hardness_*`) plus cubic velocity offsets.
#[allow(clippy::too_many_arguments)]
pub fn compute_softfade_inertialize_offsets(
    offsets: &mut [Vec3],
    diff_pos: &[Vec3],
    diff_vel: &[Vec3],
    blendtime_start: f32,
    blendtime_end: f32,
    duration_start: f32,
    duration_end: f32,
    hardness_start: f32,
    hardness_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let cols = diff_pos.len();
    let rows = rows_of(offsets.len(), cols)?;
    at_least("diff_vel (one per joint)", cols, diff_vel.len())?;
    for i in 0..rows {
        let (ts, te) = (i as f32 * dt, (rows - 1 - i) as f32 * dt);
        for j in 0..cols {
            offsets[i * cols + j] =
                decayed_offset_softfade(ratio * diff_pos[j], duration_start, hardness_start, ts)
                    + decayed_offset_softfade(
                        (1.0 - ratio) * -diff_pos[j],
                        duration_end,
                        hardness_end,
                        te,
                    )
                    + decayed_velocity_offset_cubic(ratio * diff_vel[j], blendtime_start, ts)
                    + decayed_velocity_offset_cubic((1.0 - ratio) * diff_vel[j], blendtime_end, te);
        }
    }
    Ok(())
}

/// Root offsets that loop the root in character space: the difference of
/// the root's linear and angular velocities between the clip's end and
/// start, measured in the root's own frame, is inertialized out with cubic
/// velocity offsets applied in the world frame of the first and last frames.
/// Writes joint 0 of each frame of `offsets_pos` and `offsets_rot`
/// (frames × joints) and leaves the other joints as they are.
#[allow(clippy::too_many_arguments)]
pub fn compute_root_inertialize_offsets(
    offsets_pos: &mut [Vec3],
    offsets_rot: &mut [Vec3],
    pos: Slice2d<Vec3>,
    rot: Slice2d<Quat>,
    blendtime_start: f32,
    blendtime_end: f32,
    ratio: f32,
    dt: f32,
) -> Result<()> {
    let n = rot.rows();
    let (e1, e0, s1, s0) = seam_frames(n)?;
    let cols = rot.cols();
    root_shapes(n, cols, pos.rows(), (offsets_pos.len(), offsets_rot.len()))?;
    let root_start = rot.at(0, 0);
    let root_end = rot.at(e1, 0);
    let pos_vel_end = quat_inv_mul_vec3(root_end, div_dt(pos.at(e1, 0) - pos.at(e0, 0), dt));
    let pos_vel_start = quat_inv_mul_vec3(root_start, div_dt(pos.at(s1, 0) - pos.at(s0, 0), dt));
    let diff_pos_vel = pos_vel_end - pos_vel_start;
    let rot_vel_end = quat_inv_mul_vec3(
        root_end,
        quat_differentiate_angular_velocity(rot.at(e1, 0), rot.at(e0, 0), dt),
    );
    let rot_vel_start = quat_inv_mul_vec3(
        root_start,
        quat_differentiate_angular_velocity(rot.at(s1, 0), rot.at(s0, 0), dt),
    );
    let diff_rot_vel = rot_vel_end - rot_vel_start;
    for i in 0..n {
        let (ts, te) = (i as f32 * dt, (n - 1 - i) as f32 * dt);
        offsets_pos[i * cols] = decayed_velocity_offset_cubic(
            ratio * quat_mul_vec3(root_start, diff_pos_vel),
            blendtime_start,
            ts,
        ) + decayed_velocity_offset_cubic(
            (1.0 - ratio) * quat_mul_vec3(root_end, diff_pos_vel),
            blendtime_end,
            te,
        );
        offsets_rot[i * cols] = decayed_velocity_offset_cubic(
            ratio * quat_mul_vec3(root_start, diff_rot_vel),
            blendtime_start,
            ts,
        ) + decayed_velocity_offset_cubic(
            (1.0 - ratio) * quat_mul_vec3(root_end, diff_rot_vel),
            blendtime_end,
            te,
        );
    }
    Ok(())
}

/// `out = pos + offsets`, element by element.
pub fn apply_positional_offsets(
    out: &mut [Vec3],
    pos: Slice2d<Vec3>,
    offsets: &[Vec3],
) -> Result<()> {
    same_values(pos.data().len(), out.len(), offsets.len())?;
    for ((o, p), d) in out.iter_mut().zip(pos.data()).zip(offsets) {
        *o = *p + *d;
    }
    Ok(())
}

/// `out = quat_from_scaled_angle_axis(offsets) rot`, element by element: the
/// offset is applied on the left, rotating the first frame toward the last.
pub fn apply_rotational_offsets(
    out: &mut [Quat],
    rot: Slice2d<Quat>,
    offsets: &[Vec3],
) -> Result<()> {
    same_values(rot.data().len(), out.len(), offsets.len())?;
    for ((o, r), d) in out.iter_mut().zip(rot.data()).zip(offsets) {
        *o = quat_mul(quat_from_scaled_angle_axis(*d), *r);
    }
    Ok(())
}
