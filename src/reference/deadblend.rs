//! Dead blending: extrapolate the pose at the transition with decaying
//! velocities and cross-fade it into the new animation (dead blending
//! article; velocities article, "Dead Blending").

use super::blend::{
    kform_blend_along, smoothstep_blend_alpha, smoothstep_blend_alpha_dx, weight_rate,
};
use super::kform::Kform;
use super::math::{LN2, Quat, Vec3, clampf, exp_vec3};
use super::math::{dot, quat_abs, quat_to_scaled_angle_axis};
use super::math::{quat_dot, quat_from_scaled_angle_axis, quat_mul, quat_mul_inv};
use super::pose::{Pose, lengths};
use super::spring::{fast_negexp, fast_negexp_dx};
use crate::error::{Error, Result, at_least, exactly};

/// Epsilon of the dead-blending helpers (`1e-8f`).
pub const EPS_DEADBLEND: f32 = 1e-8;
/// Default `halflife_scale` of [`estimate_halflife`] (the article's 0.3).
pub const HALFLIFE_SCALE: f32 = 0.3;
/// Default `halflife_min` of [`estimate_halflife`] (0.1 s).
pub const HALFLIFE_MIN: f32 = 0.1;
/// Default `halflife_max` of [`estimate_halflife`] (1.0 s).
pub const HALFLIFE_MAX: f32 = 1.0;

/// The most a rotation is extrapolated by [`op_extrapolate_decayed`],
/// radians (a quarter turn): see [`extrapolation_turn_scale`].
pub const EXTRAPOLATION_MAX_ANGLE: f32 = core::f32::consts::FRAC_PI_2;

/// How [`op_extrapolate_decayed`] shortens a rotation's extrapolation `m`
/// (a scaled angle axis of length `z = |m|`, the published
/// `ang (1 - fast_negexp(y t)) / y`): `s = 1 / sqrt(1 + (z / θ)²)` with
/// `θ =` [`EXTRAPOLATION_MAX_ANGLE`], applied as `m s`, whose length
/// `z / sqrt(1 + (z/θ)²)` grows like `z` at first (slope 1 at 0, so the
/// extrapolation leaves at the transition pose's angular velocity) and
/// never reaches `θ`. Its rate is the published one times `s³`. Takes
/// `z²`; returns `s`.
#[inline]
pub fn extrapolation_turn_scale(z2: f32) -> f32 {
    1.0 / (1.0 + z2 / (EXTRAPOLATION_MAX_ANGLE * EXTRAPOLATION_MAX_ANGLE)).sqrt()
}

/// The most a transition moves a scale along its scale velocity alone, in
/// log space per axis (ln 2: at most twice or half the scale it starts
/// from): see [`extrapolation_scale_cap`].
pub const EXTRAPOLATION_MAX_LOG_SCALE: f32 = LN2;

/// How a transition shortens the move `m` its scale velocity gives a
/// scale in log space (per component): dead blending's extrapolation
/// `svl alpha` ([`op_extrapolate_decayed`],
/// [`kform_extrapolate_decayed_axes`]) and inertialization's velocity
/// offset `w1 svl` ([`super::op_inertialize`]). Returns
/// `s = 1 / sqrt(1 + (m / λ)²)` per component, `λ =`
/// [`EXTRAPOLATION_MAX_LOG_SCALE`], applied as `m s`, which grows like `m`
/// at first (slope 1 at 0) and never reaches `λ`; its rate is the
/// published one times `s³` (exact: `d(m s)/dt = ṁ s³`).
///
/// Deviation: the published code moves the scale by `exp(m)` unbounded. A
/// clip's scale velocity is a log step over its frame time (2.8e7 per
/// second for 1e-6 s frames within [`crate::limits::MIN_SCALE`] to
/// [`crate::limits::MAX_SCALE`]), times the playback rate (up to
/// [`crate::limits::COMMAND_MAX`]), carried for up to a half-life or a
/// blend duration: `exp(m)` overflows to infinity and the world scale and
/// velocity become NaN (the `clips_from_values` campaign's finding,
/// `tests/suite/fuzz_smoke.rs`). With the cap every joint's transition scale
/// stays within a factor of 2 per axis of where the scale velocity starts
/// from, and a scale moving by 0.1 in log space moves 0.7% less than
/// published.
#[inline]
pub fn extrapolation_scale_cap(m: Vec3) -> Vec3 {
    const INV_MAX2: f32 = 1.0 / (EXTRAPOLATION_MAX_LOG_SCALE * EXTRAPOLATION_MAX_LOG_SCALE);
    m.map(|m| 1.0 / (1.0 + m * m * INV_MAX2).sqrt())
}

/// `x` pushed away from zero to at least `eps` in magnitude, keeping its
/// sign: `x >= 0 && x < eps ? eps : x < 0 && x > -eps ? -eps : x`.
///
/// Deviation (edge-case table): `-0.0` gives `-eps` (the published test
/// `x >= 0` is true for `-0.0` and gives `+eps`).
#[inline]
pub fn max_mag(x: f32, eps: f32) -> f32 {
    if x.is_sign_negative() {
        if x > -eps { -eps } else { x }
    } else if x < eps {
        eps
    } else {
        x
    }
}

/// [`max_mag`] per component.
#[inline]
pub fn max_mag_vec3(x: Vec3, eps: f32) -> Vec3 {
    Vec3::new(max_mag(x.x, eps), max_mag(x.y, eps), max_mag(x.z, eps))
}

/// A half-life per axis from how the source is moving relative to the
/// destination: `clamp(scale (src_dst_diff / max_mag(src_vel, 1e-8)), min, max)`
/// per component, where `src_dst_diff` is destination minus source (rotations
/// as scaled angle axis) and `src_vel` the source's velocity. Axes moving
/// slowly toward the destination get long half-lives; fast ones, or ones
/// moving away (a negative ratio), get `halflife_min`. The article's
/// defaults are [`HALFLIFE_SCALE`], [`HALFLIFE_MIN`], [`HALFLIFE_MAX`].
#[inline]
pub fn estimate_halflife(
    src_dst_diff: Vec3,
    src_vel: Vec3,
    halflife_scale: f32,
    halflife_min: f32,
    halflife_max: f32,
) -> Vec3 {
    let r = halflife_scale * (src_dst_diff / max_mag_vec3(src_vel, EPS_DEADBLEND));
    r.map(|h| clampf(h, halflife_min, halflife_max))
}

/// One joint's per-axis half-lives for dead blending, fitted at a
/// transition (Dead Blending Node article, the `estimate_halflife`
/// heuristic; reference-math.md, "Repository-only functions"):
/// positions `estimate_halflife(dst_pos - src_pos, src_vel, halflife,
/// min_halflife, max_halflife)`, rotations `estimate_halflife(d, src_ang,
/// ...)` with `d = quat_to_scaled_angle_axis(quat_abs(dst_rot src_rot⁻¹))`
/// the short rotation from source to destination. `halflife` is the
/// heuristic's `halflife_scale`. Returns `(position half-lives, rotation
/// half-lives)`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn fit_joint_halflives(
    src_pos: Vec3,
    src_vel: Vec3,
    src_rot: Quat,
    src_ang: Vec3,
    dst_pos: Vec3,
    dst_rot: Quat,
    halflife: f32,
    min_halflife: f32,
    max_halflife: f32,
) -> (Vec3, Vec3) {
    let rot_diff = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(dst_rot, src_rot)));
    (
        estimate_halflife(
            dst_pos - src_pos,
            src_vel,
            halflife,
            min_halflife,
            max_halflife,
        ),
        estimate_halflife(rot_diff, src_ang, halflife, min_halflife, max_halflife),
    )
}

/// [`Error::Length`] unless each of `fit_halflives`' other slices has the
/// `n` entries of `halflives_pos` (shared with [`crate::lanes::deadblend`]).
pub(crate) fn one_entry_per_joint(n: usize, lens: [usize; 7]) -> Result<()> {
    const WHAT: [&str; 7] = [
        "halflives_rot (halflives_pos's length)",
        "src_pos (halflives_pos's length)",
        "src_vel (halflives_pos's length)",
        "src_rot (halflives_pos's length)",
        "src_ang (halflives_pos's length)",
        "dst_pos (halflives_pos's length)",
        "dst_rot (halflives_pos's length)",
    ];
    match lens.iter().position(|&l| l != n) {
        Some(k) => Err(Error::Length {
            what: WHAT[k],
            expected: n,
            got: lens[k],
        }),
        None => Ok(()),
    }
}

/// Per-joint, per-axis half-lives for a dead blend from the source pose
/// (positions, velocities, rotations, angular velocities) to the destination
/// pose (positions, rotations), a repository-only function of the dead
/// blending demo (reference-math.md, "Repository-only functions"): joint 0
/// (the root, which dead blending holds) gets `root_halflife` on every axis,
/// every other joint [`fit_joint_halflives`]. Writes `halflives_pos[j]` and
/// `halflives_rot[j]` for every joint; refuses ([`Error::Length`], writing
/// nothing) slices whose lengths differ. The half-lives feed [`extrapolate_decay_position`]
/// and [`extrapolate_decay_rotation`].
#[allow(clippy::too_many_arguments)]
pub fn fit_halflives(
    halflives_pos: &mut [Vec3],
    halflives_rot: &mut [Vec3],
    src_pos: &[Vec3],
    src_vel: &[Vec3],
    src_rot: &[Quat],
    src_ang: &[Vec3],
    dst_pos: &[Vec3],
    dst_rot: &[Quat],
    halflife: f32,
    min_halflife: f32,
    max_halflife: f32,
    root_halflife: f32,
) -> Result<()> {
    let n = halflives_pos.len();
    let lens = [
        halflives_rot.len(),
        src_pos.len(),
        src_vel.len(),
        src_rot.len(),
        src_ang.len(),
        dst_pos.len(),
        dst_rot.len(),
    ];
    one_entry_per_joint(n, lens)?;
    for j in 0..n {
        (halflives_pos[j], halflives_rot[j]) = if j == 0 {
            (Vec3::splat(root_halflife), Vec3::splat(root_halflife))
        } else {
            fit_joint_halflives(
                src_pos[j],
                src_vel[j],
                src_rot[j],
                src_ang[j],
                dst_pos[j],
                dst_rot[j],
                halflife,
                min_halflife,
                max_halflife,
            )
        };
    }
    Ok(())
}

/// Per-axis decay factors for a half-life per axis: `y = ln2 / (h + 1e-8)`,
/// returning `(y, fast_negexp(y dt))`.
#[inline]
fn decay(halflife: Vec3, dt: f32) -> (Vec3, Vec3) {
    let y = halflife.map(|h| LN2 / (h + EPS_DEADBLEND));
    (y, y.map(|y| fast_negexp(y * dt)))
}

/// A rotation extrapolated for `dt` along an angular velocity that decays
/// with one half-life per axis: `y = ln2 / (halflife + 1e-8)`,
/// `x' = exp((v / (y + 1e-8)) (1 - fast_negexp(y dt)) / 2) x`,
/// `v' = v fast_negexp(y dt)`.
#[inline]
pub fn extrapolate_decay_rotation(x: Quat, v: Vec3, halflife: Vec3, dt: f32) -> (Quat, Vec3) {
    let (y, e) = decay(halflife, dt);
    let moved = (v / (y + Vec3::splat(EPS_DEADBLEND))) * (Vec3::ONE - e);
    (quat_mul(quat_from_scaled_angle_axis(moved), x), v * e)
}

/// The position twin of [`extrapolate_decay_rotation`] (reference-math.md):
/// `x' = x + (v / (y + 1e-8)) (1 - fast_negexp(y dt))`, `v' = v fast_negexp(y dt)`.
///
/// Moving at 1 unit/s with velocities decaying at a half-life of 0.1 s, the
/// extrapolated position travels `1 / y = 0.1 / ln 2 = 0.1443` in all,
/// however long it runs:
///
/// ```
/// use kineform::reference::{Vec3, extrapolate_decay_position};
/// let v = Vec3::new(1.0, 0.0, 0.0);
/// let (x, v_end) = extrapolate_decay_position(Vec3::ZERO, v, Vec3::splat(0.1), 100.0);
/// assert!((x.x - 0.1443).abs() < 1e-4 && v_end.x < 1e-6);
/// ```
#[inline]
pub fn extrapolate_decay_position(x: Vec3, v: Vec3, halflife: Vec3, dt: f32) -> (Vec3, Vec3) {
    let (y, e) = decay(halflife, dt);
    (
        x + (v / (y + Vec3::splat(EPS_DEADBLEND))) * (Vec3::ONE - e),
        v * e,
    )
}

/// The pose at a transition extrapolated `dt` seconds forward with
/// velocities decaying at `halflife`: `y = ln2 / (halflife + 1e-8)`,
/// `alpha = (1 - fast_negexp(y dt)) / (y + 1e-8)`; positions move by
/// `vel alpha`, rotations by `exp(ang alpha / 2)`, scales by `exp(svl alpha)`
/// (capped, [`extrapolation_scale_cap`]), and velocities are scaled by
/// `dalpha`, the rate of `alpha`. Joint 0 (the
/// root) is held where it is, not extrapolated, as in the article.
///
/// Deviation: `dalpha = -fast_negexp_dx(y dt) y / (y + 1e-8)`, the
/// derivative of `alpha`; the published `fast_negexp(y dt)` is the rate of
/// the exponential `fast_negexp` approximates, not of `fast_negexp`
/// itself, and the stated velocities then disagree with the extrapolated
/// motion by up to 8% of `|vel|` (tested against finite differences in
/// `tests/suite/catalogue_velocities.rs`).
///
/// Deviation: rotations turn at most [`EXTRAPOLATION_MAX_ANGLE`] (a
/// quarter turn): the extrapolated rotation is `exp(m s / 2) rot` with
/// `m = ang alpha` and `s =` [`extrapolation_turn_scale`]`(|m|²)`, turning
/// at `ang dalpha s³`. The published extrapolation turns `|ang| / y`
/// radians in all: a mocap toe at 40 rad/s with a 0.2 s half-life turns
/// almost two whole turns, and the cross-fade of [`op_dead_blending`] from
/// a pose a whole turn away from the input has no continuous way back.
/// With the cap, every extrapolated rotation stays within a quarter turn
/// of the transition pose; `s = 1 - z²/(2θ²) + ...`, so slow joints move
/// as published (0.4 rad: 3% shorter).
///
/// Deviation: the held root's velocities are zero. The published code copies
/// them, so the root claims to move while its position stays put, and a
/// dead blend's root velocity disagrees with its motion (tested against
/// finite differences in `tests/suite/catalogue_velocities.rs`).
pub fn op_extrapolate_decayed(
    output: &mut Pose,
    input: &Pose,
    dt: f32,
    halflife: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, input])?;
    let (alpha, dalpha) = extrapolate_decayed_weights(dt, halflife);
    for i in 0..n {
        if i == 0 {
            output.set(
                0,
                Kform {
                    vel: Vec3::ZERO,
                    ang: Vec3::ZERO,
                    svl: Vec3::ZERO,
                    ..input.get(0)
                },
            );
            continue;
        }
        output.set(i, kform_extrapolate_decayed(&input.get(i), alpha, dalpha));
    }
    Ok(())
}

/// `(alpha, dalpha)` of [`op_extrapolate_decayed`] after `dt` seconds at
/// `halflife`: `y = ln2 / (h + 1e-8)`, `alpha = (1 - fast_negexp(y dt)) /
/// (y + 1e-8)`, `dalpha = -fast_negexp_dx(y dt) y / (y + 1e-8)`.
#[inline]
pub fn extrapolate_decayed_weights(dt: f32, halflife: f32) -> (f32, f32) {
    let y = LN2 / (halflife + EPS_DEADBLEND);
    let alpha = (1.0 - fast_negexp(y * dt)) / (y + EPS_DEADBLEND);
    let dalpha = -fast_negexp_dx(y * dt) * (y / (y + EPS_DEADBLEND));
    (alpha, dalpha)
}

/// One joint (not the root) of [`op_extrapolate_decayed`] with its
/// weights [`extrapolate_decayed_weights`] (a crowd's blend profile gives
/// each joint its own half-life).
#[inline]
pub fn kform_extrapolate_decayed(k: &Kform, alpha: f32, dalpha: f32) -> Kform {
    let moved = k.ang * alpha;
    let s = extrapolation_turn_scale(dot(moved, moved));
    let grown = k.svl * alpha;
    let c = extrapolation_scale_cap(grown);
    Kform {
        pos: k.pos + k.vel * alpha,
        rot: quat_mul(quat_from_scaled_angle_axis(moved * s), k.rot),
        scl: k.scl * exp_vec3(grown * c),
        vel: k.vel * dalpha,
        ang: k.ang * (dalpha * (s * s * s)),
        svl: k.svl * dalpha * (c * c * c),
    }
}

/// Per-axis `(alpha, dalpha)` of the decayed extrapolation, one half-life
/// per axis (the weights of [`op_extrapolate_decayed`] taken component by
/// component): `y = ln2 / (h + 1e-8)`,
/// `alpha = (1 - fast_negexp(y t)) / (y + 1e-8)`, the distance travelled
/// per unit of velocity after `t` seconds, and
/// `dalpha = -fast_negexp_dx(y t) y / (y + 1e-8)`, its rate (exact, as
/// [`op_extrapolate_decayed`]'s).
#[inline]
pub fn extrapolate_decayed_axis_weights(t: f32, halflife: Vec3) -> (Vec3, Vec3) {
    let w = |h: f32| {
        let y = LN2 / (h + EPS_DEADBLEND);
        (
            (1.0 - fast_negexp(y * t)) / (y + EPS_DEADBLEND),
            -fast_negexp_dx(y * t) * (y / (y + EPS_DEADBLEND)),
        )
    };
    let (x, y, z) = (w(halflife.x), w(halflife.y), w(halflife.z));
    (Vec3::new(x.0, y.0, z.0), Vec3::new(x.1, y.1, z.1))
}

/// A rotation extrapolated along its angular velocity `ang` decayed per
/// axis, with the weights of [`extrapolate_decayed_axis_weights`]: the
/// scaled angle axis `m = ang alpha` (per component) capped as in
/// [`op_extrapolate_decayed`] (`m s`, `s =`
/// [`extrapolation_turn_scale`]`(|m|²)`), returning
/// `(exp(m s / 2) rot, J(m s) d(m s)/dt)`.
///
/// The angular velocity is exact ([`super::quat_from_scaled_angle_axis_dx`]
/// of the capped vector's rate `s ṁ - m s³ (m·ṁ) / θ²`, `ṁ = ang dalpha`):
/// with weights that differ per axis `m` turns as it grows, and the
/// published `ang dalpha` (what [`extrapolate_decay_rotation`] returns,
/// `v fast_negexp(y t)`) is first order only. With equal weights it is
/// [`op_extrapolate_decayed`]'s `ang dalpha s³`.
#[inline]
pub fn extrapolate_decayed_rotation_axes(
    rot: Quat,
    ang: Vec3,
    (alpha, dalpha): (Vec3, Vec3),
) -> (Quat, Vec3) {
    let (moved, rate) = (ang * alpha, ang * dalpha);
    let s = extrapolation_turn_scale(dot(moved, moved));
    let ds = -(s * s * s) * dot(moved, rate) / (EXTRAPOLATION_MAX_ANGLE * EXTRAPOLATION_MAX_ANGLE);
    let (m, dm) = (moved * s, rate * s + moved * ds);
    (
        quat_mul(quat_from_scaled_angle_axis(m), rot),
        super::angular::quat_from_scaled_angle_axis_dx(m, dm),
    )
}

/// One joint of [`op_extrapolate_decayed_axes`], given the position and
/// rotation weights ([`extrapolate_decayed_axis_weights`]): positions move
/// by `vel alpha_pos` at `vel dalpha_pos`, scales by `exp(m c)` at
/// `svl dalpha_pos c³` (per component, `m = svl alpha_pos` capped by
/// `c =` [`extrapolation_scale_cap`]`(m)`), rotations as
/// [`extrapolate_decayed_rotation_axes`].
#[inline]
pub fn kform_extrapolate_decayed_axes(
    k: &Kform,
    (pa, pd): (Vec3, Vec3),
    rot_weights: (Vec3, Vec3),
) -> Kform {
    let (rot, ang) = extrapolate_decayed_rotation_axes(k.rot, k.ang, rot_weights);
    let grown = k.svl * pa;
    let c = extrapolation_scale_cap(grown);
    Kform {
        pos: k.pos + k.vel * pa,
        rot,
        scl: k.scl * exp_vec3(grown * c),
        vel: k.vel * pd,
        ang,
        svl: k.svl * pd * (c * c * c),
    }
}

/// [`Error::Length`] unless there are `n` position and `n` rotation
/// half-lives (one per joint; shared with [`crate::lanes::deadblend`]).
pub(crate) fn one_per_joint(n: usize, pos: usize, rot: usize) -> Result<()> {
    exactly("halflives_pos (one per joint)", n, pos)?;
    exactly("halflives_rot (one per joint)", n, rot)
}

/// [`Error::Length`] unless a dead blend's path has a rotation for each of
/// the `n` joints (shared with [`crate::lanes::deadblend`]).
pub(crate) fn path_per_joint(n: usize, got: usize) -> Result<()> {
    at_least("blend_path (one per joint)", n, got)
}

/// [`op_extrapolate_decayed`] with a half-life per joint and axis, as
/// [`fit_halflives`] gives them (the Dead Blending Node article's
/// extrapolation, [`extrapolate_decay_position`] and
/// [`extrapolate_decay_rotation`], with [`op_extrapolate_decayed`]'s
/// corrections): joint `i` moves with the weights of
/// [`extrapolate_decayed_axis_weights`]`(t, halflives_pos[i])` (positions
/// and scales) and `(t, halflives_rot[i])` (rotations, its turn capped at
/// [`EXTRAPOLATION_MAX_ANGLE`]); joint 0 is held with zero velocities.
///
/// Deviations from the published per-axis extrapolation: the velocities
/// are the exact rates of the extrapolated positions and rotations (the
/// rate of `alpha`, not `fast_negexp(y t)`; the angular velocity
/// `J(m) ṁ` of the capped scaled angle axis, not the decayed `v`), and
/// rotations turn at most a quarter turn ([`op_extrapolate_decayed`]).
/// Tested against finite differences in `tests/suite/exact_velocities.rs`.
///
/// Refuses, writing nothing, poses of different lengths or half-life
/// slices with other than one entry per joint. Finite for half-lives
/// `>= 0`.
pub fn op_extrapolate_decayed_axes(
    output: &mut Pose,
    input: &Pose,
    halflives_pos: &[Vec3],
    halflives_rot: &[Vec3],
    t: f32,
) -> Result<()> {
    let n = output.len();
    lengths(n, &[&*output, input])?;
    one_per_joint(n, halflives_pos.len(), halflives_rot.len())?;
    for i in 0..n {
        let k = input.get(i);
        output.set(
            i,
            if i == 0 {
                Kform {
                    vel: Vec3::ZERO,
                    ang: Vec3::ZERO,
                    svl: Vec3::ZERO,
                    ..k
                }
            } else {
                kform_extrapolate_decayed_axes(
                    &k,
                    extrapolate_decayed_axis_weights(t, halflives_pos[i]),
                    extrapolate_decayed_axis_weights(t, halflives_rot[i]),
                )
            },
        );
    }
    Ok(())
}

/// The relative rotation from `from` to `to`, `to from⁻¹`, in the
/// hemisphere of `path` (the previous one): negated when their dot product
/// is negative. Following a rotation that moves continuously, this stays
/// continuous through half a turn, where [`super::math::quat_abs`] would
/// flip it.
#[inline]
pub fn quat_relative_along(path: Quat, from: Quat, to: Quat) -> Quat {
    let d = quat_mul_inv(to, from);
    if quat_dot(d, path) < 0.0 { -d } else { d }
}

/// Dead blending at `blend_time` into a transition of `blend_duration`: the
/// transition pose extrapolated `blend_time` forward ([`op_extrapolate_decayed`],
/// written to `extrapolated_pose`) blended into `input` with a smoothstep
/// weight `alpha` and its rate of change over `dt`: positions, scales and
/// velocities as [`super::blend::op_blend`]; rotations
/// `exp(alpha log(d)) e` with `d` the relative rotation from the
/// extrapolated rotation `e` to the input's, and angular velocities the
/// exact ones of that rotation ([`quat_slerp_dx`](crate::reference::quat_slerp_dx)).
///
/// `blend_path[i]` keeps joint `i`'s relative rotation from one call to
/// the next ([`quat_relative_along`]): set it to the identity at the
/// transition (the first call then takes the short way round) and pass it
/// back unchanged every step of the blend.
///
/// Correction of the published code, which takes the short way round
/// (`quat_slerp_shortest`) at every step. The extrapolated pose keeps
/// turning at its decaying angular velocity (a knee at 13 rad/s with a
/// 0.2 s half-life turns 3.9 rad), so the rotation from it to the input
/// passes half a turn mid-blend in about one transition in eight of the
/// crowd's; there the short way flips sides and the joint snaps by up to
/// `2π alpha` in one step (57° at 240 Hz, up to 169° at 60 Hz). Following
/// the relative rotation from step to step keeps the blend continuous
/// (tested in `tests/suite/continuity/` and `tests/suite/catalogue_velocities.rs`).
#[allow(clippy::too_many_arguments)]
pub fn op_dead_blending(
    output: &mut Pose,
    extrapolated_pose: &mut Pose,
    blend_path: &mut [Quat],
    transition_pose: &Pose,
    input: &Pose,
    extrapolation_halflife: f32,
    blend_time: f32,
    blend_duration: f32,
    dt: f32,
) -> Result<()> {
    // Every size checked before anything is written.
    lengths(output.len(), &[&*output, &*extrapolated_pose, input])?;
    lengths(extrapolated_pose.len(), &[transition_pose])?;
    path_per_joint(output.len(), blend_path.len())?;
    let n = output.len();
    op_extrapolate_decayed(
        extrapolated_pose,
        transition_pose,
        blend_time,
        extrapolation_halflife,
    )?;
    let alpha = smoothstep_blend_alpha(blend_time, blend_duration);
    let rate = weight_rate(
        smoothstep_blend_alpha_dx(blend_time, blend_duration, dt),
        dt,
    );
    for (i, path) in blend_path.iter_mut().enumerate().take(n) {
        let (e, x) = (extrapolated_pose.get(i), input.get(i));
        *path = quat_relative_along(*path, e.rot, x.rot);
        output.set(i, kform_blend_along(&e, &x, *path, alpha, rate));
    }
    Ok(())
}
