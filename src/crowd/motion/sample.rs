//! Sampling one joint of eight characters from the clip database: the
//! rows a source reads ([`SampleRows`]), linear and Catmull-Rom sampling
//! with velocities, one joint or two at a time.

use super::*;
use crate::database::{Frames8, Gather, Rowx8};
use crate::lanes::{self, F32x8, I32x8, Vec3x8, splat};

/// Per-lane sampling rows of one source for a pack: the first database
/// row of the frames before, at and after each lane's time.
#[derive(Clone, Copy)]
pub(crate) struct SampleRows {
    pub(crate) prev: Frames8,
    pub(crate) at: Frames8,
    pub(crate) next: Frames8,
    pub(crate) prev_valid: F32x8,
    pub(crate) alpha: F32x8,
    pub(crate) alpha2: F32x8,
    /// The source's playback rate (velocities scale by it,
    /// [`crate::reference::op_timescale`]).
    pub(crate) speed: F32x8,
}

impl SampleRows {
    /// The rows of source `s` at its time (its clip's first database row
    /// and last frame in lanes); for linear sampling only `at` is read
    /// (the others repeat it).
    #[inline(always)]
    pub(crate) fn new<const CUBIC: bool, G: Gather>(
        db: &G,
        frame_time: f32,
        s: &crate::crowd::state::SampleAt,
    ) -> SampleRows {
        let (start, last) = (s.start, s.last);
        let (st, alpha) = lanes::sample_frame(s.time, frame_time);
        let row = |k: I32x8| db.frames(k.max(I32x8::ZERO).min(last), start, last);
        let one = I32x8::splat(1);
        let at = row(st);
        SampleRows {
            prev: if CUBIC { row(st - one) } else { at },
            at,
            next: if CUBIC { row(st + one) } else { at },
            prev_valid: bytemuck::cast(st.simd_gt(I32x8::ZERO)),
            alpha,
            alpha2: alpha * alpha,
            speed: s.rate,
        }
    }

    /// Starts loading the rows these frames read ([`Gather::prefetch`]).
    #[inline(always)]
    pub(crate) fn prefetch<const CUBIC: bool, G: Gather>(&self, db: &G) {
        db.prefetch(&self.at);
        if CUBIC {
            db.prefetch(&self.prev);
            db.prefetch(&self.next);
        }
    }
}

/// Linear sampling of one joint from a gathered row, velocities scaled by
/// the playback rate `speed`: `pos = p + a d`, `vel = d / dt`,
/// `rot = exp(a w) r` (the slerp), `ang = 2 w / dt`. `|a w|² = a² (w·w)`
/// from the row; when every lane's is within [`lanes::EXP_SMALL_S`] (a
/// 120 Hz clip's steps nearly always are) the exponential takes the short
/// series.
#[inline(always)]
pub(crate) fn sample_linear_row(
    row: &Rowx8,
    (alpha, alpha2): (F32x8, F32x8),
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> Motionx8 {
    let s = alpha2 * row.step_h2;
    if s.simd_le(splat(lanes::EXP_SMALL_S)).all() {
        sample_linear_row_in::<true>(row, alpha, s, vel_scale, ang_scale)
    } else {
        sample_linear_row_in::<false>(row, alpha, s, vel_scale, ang_scale)
    }
}

/// [`sample_linear_row`] of two joints' rows, their exponentials' domain
/// chosen for both at once, so that the two joints' arithmetic is one
/// stretch of straight-line code the processor can overlap.
#[inline(always)]
pub(crate) fn sample_linear_rows2(
    rows: [&Rowx8; 2],
    (alpha, alpha2): (F32x8, F32x8),
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> [Motionx8; 2] {
    let s = [alpha2 * rows[0].step_h2, alpha2 * rows[1].step_h2];
    let small = splat(lanes::EXP_SMALL_S);
    if (s[0].simd_le(small) & s[1].simd_le(small)).all() {
        [
            sample_linear_row_in::<true>(rows[0], alpha, s[0], vel_scale, ang_scale),
            sample_linear_row_in::<true>(rows[1], alpha, s[1], vel_scale, ang_scale),
        ]
    } else {
        [
            sample_linear_row_in::<false>(rows[0], alpha, s[0], vel_scale, ang_scale),
            sample_linear_row_in::<false>(rows[1], alpha, s[1], vel_scale, ang_scale),
        ]
    }
}

/// [`sample_linear_row`] with the exponential's domain decided: `SMALL`
/// where every lane's `s = |a w|²` is within [`lanes::EXP_SMALL_S`].
#[inline(always)]
fn sample_linear_row_in<const SMALL: bool>(
    row: &Rowx8,
    alpha: F32x8,
    s: F32x8,
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> Motionx8 {
    let step = if SMALL {
        lanes::quat_exp_small_scaled(row.step_rot, alpha, s)
    } else {
        lanes::quat_exp_short_scaled(row.step_rot, alpha, s)
    };
    Motionx8 {
        pos: row.pos + alpha * row.step_pos,
        rot: lanes::quat_mul(step, row.rot),
        vel: row.step_pos * vel_scale,
        ang: row.step_rot * ang_scale,
    }
}

/// Catmull-Rom sampling of one joint from the rows before, at and after the
/// frame, in the reference's formulation with differences taken from the
/// stored steps.
#[inline(always)]
pub(crate) fn sample_cubic_rows(
    prev: &Rowx8,
    at: &Rowx8,
    next: &Rowx8,
    valid: F32x8,
    alpha: F32x8,
    vel_scale: F32x8,
    ang_scale: F32x8,
) -> Motionx8 {
    let half = splat(0.5);
    let x = alpha;
    let (x2, x3) = (x * x, x * x * x);
    let (two, three) = (splat(2.0), splat(3.0));
    let (w1, w2, w3) = (three * x2 - two * x3, x3 - two * x2 + x, x3 - x2);
    let w0 = splat(1.0) - w1;
    let (q1, q2, q3) = (
        splat(6.0) * (x - x2),
        three * x2 - splat(4.0) * x + splat(1.0),
        three * x2 - two * x,
    );
    // Steps into the frame before, zero where there is none.
    let masked = |v: Vec3x8| Vec3x8::new(valid & v.x, valid & v.y, valid & v.z);
    let d10 = masked(prev.step_pos);
    let (d21, d32) = (at.step_pos, next.step_pos);
    let (v1, v2) = ((d10 + d21) * half, (d21 + d32) * half);
    let r10 = masked(prev.step_rot);
    let (r21, r32) = (at.step_rot, next.step_rot);
    let (u1, u2) = ((r10 + r21) * half, (r21 + r32) * half);
    // The rotation is exp(h) at.rot with h the cubic in half-angle space;
    // its angular velocity is J(2h) (2h)' (lanes::exp_map_dx).
    let h = w1 * r21 + w2 * u1 + w3 * u2;
    let (step, sigma) = quat_exp_any_sinc(h);
    Motionx8 {
        pos: w0 * at.pos + w1 * (at.pos + d21) + w2 * v1 + w3 * v2,
        rot: lanes::quat_mul(step, at.rot),
        vel: (q1 * d21 + q2 * v1 + q3 * v2) * vel_scale,
        ang: lanes::exp_map_dx(
            h + h,
            (q1 * r21 + q2 * u1 + q3 * u2) * ang_scale,
            step.w,
            sigma,
        ),
    }
}
