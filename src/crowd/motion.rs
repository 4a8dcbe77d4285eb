//! The per-joint math of a pack's passes: a joint's motion in lanes
//! ([`Motionx8`]), sampling a database row, blending, the inertialization
//! offset and its decay, dead blending, and the forward kinematics step.
//! Each is the reference's math ([`crate::reference`]) written for eight
//! characters with the work its callers share done once.

use crate::database::{Database, Frames8, Rowx8};
use crate::lanes::{self, CubicWeights, F32x8, I32x8, Quatx8, Rotor, Vec3x8, splat};

/// Position, rotation and their velocities of one joint of eight characters:
/// a kineform without scale (the 8-lane crowd plays unit-scale clips). Also
/// the crowd's world-space output.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Motionx8 {
    /// Positions.
    pub pos: Vec3x8,
    /// Rotations.
    pub rot: Quatx8,
    /// Linear velocities.
    pub vel: Vec3x8,
    /// Angular velocities.
    pub ang: Vec3x8,
}

impl Motionx8 {
    /// At rest: zero position and velocities, identity rotation.
    pub const REST: Motionx8 = Motionx8 {
        pos: Vec3x8::ZERO,
        rot: Quatx8::IDENTITY,
        vel: Vec3x8::ZERO,
        ang: Vec3x8::ZERO,
    };
}

/// A crowd's world output read by [`crate::output`]'s copies and
/// [`crate::skinning`] (unit scale).
impl crate::output::JointLanes for Motionx8 {
    #[inline(always)]
    fn positions(&self) -> Vec3x8 {
        self.pos
    }
    #[inline(always)]
    fn rotations(&self) -> Quatx8 {
        self.rot
    }
}

/// The rotational half of an inertialization offset of one joint of eight
/// characters: the rotation as a half-angle vector (logged once, at the
/// transition) and the angular velocity. Kept for every joint.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct TurnOffsetx8 {
    pub(crate) rot: Vec3x8,
    pub(crate) ang: Vec3x8,
}

/// The positional half of an inertialization offset: kept only for joints
/// whose position moves. Every other joint's offset is [`ShiftOffsetx8::ZERO`],
/// its local position being the same in every pose.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct ShiftOffsetx8 {
    pub(crate) pos: Vec3x8,
    pub(crate) vel: Vec3x8,
}

impl ShiftOffsetx8 {
    pub(crate) const ZERO: ShiftOffsetx8 = ShiftOffsetx8 {
        pos: Vec3x8::ZERO,
        vel: Vec3x8::ZERO,
    };
}

/// What a crowd joint's local pose does over the clips, which decides the
/// work its passes do and the state it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Track {
    /// Position and rotation the same in every frame of every clip
    /// ([`Database::still_rotation`]; 8 of the embedded clip's 31 joints):
    /// sampling, blending and transitions all give that pose with zero
    /// velocities, as the reference computes them exactly, so the scratch
    /// poses hold it from the start and only FK reads it. Also joint 0,
    /// the world root, which is set per pack.
    Still,
    /// A fixed position and an animated rotation: its row among a pack's
    /// turn offsets.
    Turns(usize),
    /// Animated position and rotation: its rows among the turn and the
    /// shift offsets.
    Moves(usize, usize),
}

impl TurnOffsetx8 {
    pub(crate) const ZERO: TurnOffsetx8 = TurnOffsetx8 {
        rot: Vec3x8::ZERO,
        ang: Vec3x8::ZERO,
    };
}

impl Track {
    /// Per crowd joint (joint 0 the world root), from the database.
    /// Turn offsets follow the database's rotation rows.
    pub(crate) fn of(db: &Database) -> Vec<Track> {
        core::iter::once(Track::Still)
            .chain(
                (0..db.joints()).map(|j| match (db.turning_row(j), db.moving_row(j)) {
                    (None, _) => Track::Still,
                    (Some(k), None) => Track::Turns(k),
                    (Some(k), Some(s)) => Track::Moves(k, s),
                }),
            )
            .collect()
    }
}

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
    pub(crate) fn new<const CUBIC: bool>(db: &Database, s: &super::state::SampleAt) -> SampleRows {
        let (start, last) = (s.start, s.last);
        let (st, alpha) = lanes::sample_frame(s.time, db.frame_time());
        let row = |k: I32x8| db.frames8_lanes(k.max(I32x8::ZERO).min(last) + start);
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

/// Blend of one joint, `exp(t log d) a` along `d = ±(b a⁻¹)`, velocities
/// lerped plus `(b - a) rate`, the angular velocity the slerp's exact one
/// ([`lanes::slerp_dx_parts`]). `d`'s sign: in the `fresh` lanes the short
/// way round (`w >= 0`, [`crate::reference::op_blend`]), in the others the
/// one kept in `flip` (bit per lane; updated), so the blend moves
/// continuously however far apart the two rotations turn (two-source
/// blends and dead blending, [`crate::reference::op_dead_blending`]).
#[inline(always)]
pub(crate) fn blend_kept(
    a: &Motionx8,
    b: &Motionx8,
    flip: (&mut u8, F32x8),
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    let d = kept_rel(a, b, flip);
    blend_rel(a, b, d, alpha, rate)
}

/// [`blend_kept`] of two joints, the logarithm's form chosen for both at
/// once (see [`sample_linear_rows2`]).
#[inline(always)]
pub(crate) fn blend_kept2(
    a: [&Motionx8; 2],
    b: [&Motionx8; 2],
    flips: [(&mut u8, F32x8); 2],
    alpha: F32x8,
    rate: F32x8,
) -> [Motionx8; 2] {
    let [f0, f1] = flips;
    let d = [kept_rel(a[0], b[0], f0), kept_rel(a[1], b[1], f1)];
    if (d[0].w.simd_ge(F32x8::ZERO) & d[1].w.simd_ge(F32x8::ZERO)).all() {
        [
            blend_rel_in::<true>(a[0], b[0], d[0], alpha, rate),
            blend_rel_in::<true>(a[1], b[1], d[1], alpha, rate),
        ]
    } else {
        [
            blend_rel_in::<false>(a[0], b[0], d[0], alpha, rate),
            blend_rel_in::<false>(a[1], b[1], d[1], alpha, rate),
        ]
    }
}

/// The relative rotation `d = ±(b a⁻¹)` of [`blend_kept`], its hemisphere
/// chosen anew in the `fresh` lanes, kept in `flip` elsewhere (updated).
#[inline(always)]
fn kept_rel(a: &Motionx8, b: &Motionx8, (flip, fresh): (&mut u8, F32x8)) -> Quatx8 {
    let raw = lanes::quat_mul_inv(b.rot, a.rot);
    let m = fresh.bitselect(raw.w.simd_lt(F32x8::ZERO), lane_mask(*flip));
    *flip = m.to_bitmask() as u8;
    let sign = m & splat(-0.0);
    Quatx8::new(raw.w ^ sign, raw.x ^ sign, raw.y ^ sign, raw.z ^ sign)
}

/// The blend `exp(t log d) a` toward `b = ±d a`. Where every lane's `d`
/// has `w >= 0` (nearly always) the logarithm and exponential take their short forms:
/// `log d = k v` with `v` the relative rotation's vector part
/// ([`lanes::quat_log_short_factor`]), so `t log d` scales `v` once, and
/// `|t log d|² = (k t)² (v·v)`; else the general ones
/// ([`lanes::quat_slerp_parts`]), a branch taken by the whole pack.
#[inline(always)]
pub(crate) fn blend_rel(
    a: &Motionx8,
    b: &Motionx8,
    d: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    if d.w.simd_ge(F32x8::ZERO).all() {
        blend_rel_in::<true>(a, b, d, alpha, rate)
    } else {
        blend_rel_in::<false>(a, b, d, alpha, rate)
    }
}

/// [`blend_rel`] with the form decided: `SHORT` where every lane's `d.w >= 0`.
#[inline(always)]
fn blend_rel_in<const SHORT: bool>(
    a: &Motionx8,
    b: &Motionx8,
    d: Quatx8,
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    let v = d.xyz();
    if SHORT {
        let l2 = lanes::dot(v, v);
        let k = lanes::quat_log_short_factor(d.w, l2);
        let kt = k * alpha;
        let (ca, kb) = lanes::quat_exp_short_scaled_parts(kt, l2 * (kt * kt));
        blend_along(a, b, (v, d.w, ca, kb, k), alpha, rate)
    } else {
        let (ca, kb, k) = lanes::quat_slerp_parts(d, alpha);
        blend_along(a, b, (v, d.w, ca, kb, k), alpha, rate)
    }
}

/// The lanes whose bit is set in `bits`, as a mask.
#[inline(always)]
pub(crate) fn lane_mask(bits: u8) -> F32x8 {
    let lane = I32x8::new([1, 2, 4, 8, 16, 32, 64, 128]);
    let set = (I32x8::splat(bits as i32) & lane).simd_eq(lane);
    bytemuck::cast(set)
}

/// `out[joint]`, for each of a batch's lanes `l`, the bit of character
/// `at[l]` in the crowd's per-pack, per-joint `bits` (`j` joints a pack).
pub(crate) fn gather_bits(out: &mut [u8], bits: &[u8], j: usize, at: &[usize; 8]) {
    for (joint, o) in out.iter_mut().enumerate() {
        *o = at.iter().enumerate().fold(0u8, |acc, (l, &c)| {
            let bit = (bits[(c / 8) * j + joint] >> (c % 8)) & 1;
            acc | (bit << l)
        });
    }
}

/// The blend of [`blend_kept`] from the slerp's pieces (`u`, `c` the
/// relative rotation's parts, `exp(α log d) = (ca, kb u)`, `log d = k u`;
/// [`lanes::slerp_dx_parts`]).
#[inline(always)]
pub(crate) fn blend_along(
    a: &Motionx8,
    b: &Motionx8,
    (u, c, ca, kb, k): (Vec3x8, F32x8, F32x8, F32x8, F32x8),
    alpha: F32x8,
    rate: F32x8,
) -> Motionx8 {
    Motionx8 {
        pos: lanes::lerp_vec3(a.pos, b.pos, alpha),
        rot: lanes::quat_mul(Quatx8::new(ca, u.x * kb, u.y * kb, u.z * kb), a.rot),
        vel: lanes::lerp_vec3(a.vel, b.vel, alpha) + (b.pos - a.pos) * rate,
        ang: lanes::slerp_dx_parts(u, c, ca, kb, k, alpha, rate, (a.ang, b.ang)),
    }
}

/// The offset from the displayed pose `l` to the new input `r`
/// ([`crate::reference::op_inertialize_offset`], rotation stored as a half-angle vector;
/// [`lanes::quat_log_short`] applies, `quat_abs` giving `w >= 0`). The
/// rotational offset's velocity is kept as the rate of its scaled angle
/// axis, `J(x)⁻¹ ang` ([`lanes::exp_map_dx_inv`]), which the cubic decays
/// ([`crate::reference::op_inertialize`] converts it every step; the crowd once).
#[inline(always)]
pub(crate) fn offset_between(l: &Motionx8, r: &Motionx8) -> (TurnOffsetx8, ShiftOffsetx8) {
    let rot = lanes::quat_abs(lanes::quat_mul_inv(l.rot, r.rot));
    let u = rot.xyz();
    let k = lanes::quat_log_short_factor(rot.w, lanes::dot(u, u));
    let half = u * k;
    let ang = l.ang - Rotor::new(rot).apply(r.ang);
    let turn = TurnOffsetx8 {
        rot: half,
        ang: lanes::exp_map_dx_inv(half + half, ang, rot.w * k),
    };
    let shift = ShiftOffsetx8 {
        pos: l.pos - r.pos,
        vel: l.vel - r.vel,
    };
    (turn, shift)
}

/// [`lanes::quat_exp`] and `σ = sin|v| / |v|` ([`lanes::quat_exp_sinc`]),
/// through [`lanes::quat_exp_short_scaled_parts`] when every lane is in
/// its domain (`|v| <= π/2`, nearly always for decaying offsets and
/// sampling steps): a branch taken by the whole pack, so no lane is ever
/// evaluated outside the domain.
#[inline(always)]
pub(crate) fn quat_exp_any_sinc(v: Vec3x8) -> (Quatx8, F32x8) {
    let v2 = lanes::dot(v, v);
    if v2.simd_le(splat(EXP_SHORT2)).all() {
        quat_exp_sinc_in::<true>(v, v2)
    } else {
        quat_exp_sinc_in::<false>(v, v2)
    }
}

/// The largest `|v|²` for the short form of [`quat_exp_any_sinc`]: `(π/2)²`.
const EXP_SHORT2: f32 = core::f32::consts::FRAC_PI_2 * core::f32::consts::FRAC_PI_2;

/// [`quat_exp_any_sinc`] with its form decided (`SHORT`: every lane's
/// `v2 = v·v` within [`EXP_SHORT2`]).
#[inline(always)]
fn quat_exp_sinc_in<const SHORT: bool>(v: Vec3x8, v2: F32x8) -> (Quatx8, F32x8) {
    if SHORT {
        let (c, sigma) = lanes::quat_exp_short_scaled_parts(splat(1.0), v2);
        (Quatx8::new(c, v.x * sigma, v.y * sigma, v.z * sigma), sigma)
    } else {
        lanes::quat_exp_sinc(v)
    }
}

/// The decayed offset applied to the input ([`crate::reference::op_inertialize`]), its
/// angular velocity `J(x) x'` of the decaying scaled angle axis `x`
/// ([`lanes::exp_map_dx`]). Lanes past their transition need no select:
/// their weights are exactly zero, so the offset is the identity and the
/// input passes through unchanged (bit for bit, offsets being finite).
#[inline(always)]
pub(crate) fn inertialize_joint(
    t: &TurnOffsetx8,
    s: &ShiftOffsetx8,
    i: &Motionx8,
    w: &CubicWeights,
) -> Motionx8 {
    let x = w.offset(t.rot + t.rot, t.ang);
    let h = x * splat(0.5);
    let h2 = lanes::dot(h, h);
    if h2.simd_le(splat(EXP_SHORT2)).all() {
        inertialize_joint_in::<true>(t, s, i, w, (x, h2))
    } else {
        inertialize_joint_in::<false>(t, s, i, w, (x, h2))
    }
}

/// [`inertialize_joint`] of two joints' rotations (their positions fixed),
/// the exponential's form chosen for both at once (see
/// [`sample_linear_rows2`]).
#[inline(always)]
pub(crate) fn inertialize_turns2(
    t: [&TurnOffsetx8; 2],
    i: [&Motionx8; 2],
    w: &CubicWeights,
) -> [Motionx8; 2] {
    let s = &ShiftOffsetx8::ZERO;
    let x = [
        w.offset(t[0].rot + t[0].rot, t[0].ang),
        w.offset(t[1].rot + t[1].rot, t[1].ang),
    ];
    let h = [x[0] * splat(0.5), x[1] * splat(0.5)];
    let h2 = [lanes::dot(h[0], h[0]), lanes::dot(h[1], h[1])];
    let short = splat(EXP_SHORT2);
    if (h2[0].simd_le(short) & h2[1].simd_le(short)).all() {
        [
            inertialize_joint_in::<true>(t[0], s, i[0], w, (x[0], h2[0])),
            inertialize_joint_in::<true>(t[1], s, i[1], w, (x[1], h2[1])),
        ]
    } else {
        [
            inertialize_joint_in::<false>(t[0], s, i[0], w, (x[0], h2[0])),
            inertialize_joint_in::<false>(t[1], s, i[1], w, (x[1], h2[1])),
        ]
    }
}

/// [`inertialize_joint`] given the decayed scaled angle axis `x` and
/// `h2 = |x/2|²`, the exponential's form decided (`SHORT`, see
/// [`quat_exp_any_sinc`]).
#[inline(always)]
fn inertialize_joint_in<const SHORT: bool>(
    t: &TurnOffsetx8,
    s: &ShiftOffsetx8,
    i: &Motionx8,
    w: &CubicWeights,
    (x, h2): (Vec3x8, F32x8),
) -> Motionx8 {
    let saa = t.rot + t.rot;
    let (off_rot, sigma) = quat_exp_sinc_in::<SHORT>(x * splat(0.5), h2);
    let off_ang = lanes::exp_map_dx(x, w.velocity(saa, t.ang), off_rot.w, sigma);
    Motionx8 {
        pos: i.pos + w.offset(s.pos, s.vel),
        rot: lanes::quat_mul(off_rot, i.rot),
        vel: i.vel + w.velocity(s.pos, s.vel),
        ang: Rotor::new(off_rot).apply_add(i.ang, off_ang),
    }
}

/// Dead blending of one joint: the transition pose extrapolated with
/// `(alpha, dalpha)` (its turn capped, [`lanes::extrapolation_turn_scale`]),
/// blended into `input` with weight `a` changing at `ar` per second along
/// the relative rotation in the hemisphere `flip` says ([`blend_kept`],
/// [`crate::reference::op_dead_blending`]).
#[inline(always)]
pub(crate) fn dead_blend_joint(
    tp: &Motionx8,
    input: &Motionx8,
    flip: (&mut u8, F32x8),
    ex: (F32x8, F32x8),
    a: F32x8,
    ar: F32x8,
) -> Motionx8 {
    blend_kept(&extrapolated(tp, ex), input, flip, a, ar)
}

/// [`dead_blend_joint`] of two joints, the blend's forms chosen for both
/// at once ([`blend_kept2`]).
#[inline(always)]
pub(crate) fn dead_blend_joints2(
    tp: [&Motionx8; 2],
    input: [&Motionx8; 2],
    flips: [(&mut u8, F32x8); 2],
    ex: (F32x8, F32x8),
    a: F32x8,
    ar: F32x8,
) -> [Motionx8; 2] {
    let e = [extrapolated(tp[0], ex), extrapolated(tp[1], ex)];
    blend_kept2([&e[0], &e[1]], input, flips, a, ar)
}

/// The transition pose `tp` extrapolated with `(alpha, dalpha)`, its turn
/// capped ([`lanes::extrapolation_turn_scale`]).
#[inline(always)]
fn extrapolated(tp: &Motionx8, ex: (F32x8, F32x8)) -> Motionx8 {
    let moved = tp.ang * ex.0;
    let s = lanes::extrapolation_turn_scale(lanes::dot(moved, moved));
    Motionx8 {
        pos: tp.pos + tp.vel * ex.0,
        rot: lanes::quat_mul(lanes::quat_from_scaled_angle_axis(moved * s), tp.rot),
        vel: tp.vel * ex.1,
        ang: tp.ang * (ex.1 * (s * s * s)),
    }
}

#[inline(always)]
pub(crate) fn select_motion(m: F32x8, a: &Motionx8, b: &Motionx8) -> Motionx8 {
    Motionx8 {
        pos: m.select(a.pos, b.pos),
        rot: m.select(a.rot, b.rot),
        vel: m.select(a.vel, b.vel),
        ang: m.select(a.ang, b.ang),
    }
}

/// `state = mask ? new : state`, for the state kept across frames. A
/// bitwise select (and, and-not, or) rather than a blend: LLVM turns a
/// blend stored back where it was loaded from into masked stores
/// (`vmaskmovps`), which are microcoded and many times slower than a store
/// on AMD Zen; with the mask opaque (see [`mask`]) it cannot here.
#[inline(always)]
pub(crate) fn update_turn(m: F32x8, new: &TurnOffsetx8, state: &mut TurnOffsetx8) {
    *state = TurnOffsetx8 {
        rot: bitselect_vec3(m, new.rot, state.rot),
        ang: bitselect_vec3(m, new.ang, state.ang),
    };
}

/// [`update_turn`] for a [`ShiftOffsetx8`].
#[inline(always)]
pub(crate) fn update_shift(m: F32x8, new: &ShiftOffsetx8, state: &mut ShiftOffsetx8) {
    *state = ShiftOffsetx8 {
        pos: bitselect_vec3(m, new.pos, state.pos),
        vel: bitselect_vec3(m, new.vel, state.vel),
    };
}

/// [`update_turn`] for a [`Motionx8`].
#[inline(always)]
pub(crate) fn update_motion(m: F32x8, new: &Motionx8, state: &mut Motionx8) {
    let v = |n, o| bitselect_vec3(m, n, o);
    let mut rot = state.rot;
    update_quat(m, &new.rot, &mut rot);
    *state = Motionx8 {
        pos: v(new.pos, state.pos),
        rot,
        vel: v(new.vel, state.vel),
        ang: v(new.ang, state.ang),
    };
}

/// [`update_turn`] for a [`Quatx8`].
#[inline(always)]
pub(crate) fn update_quat(m: F32x8, new: &Quatx8, state: &mut Quatx8) {
    let (n, o) = (new, *state);
    *state = Quatx8::new(
        m.bitselect(n.w, o.w),
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    );
}

/// `m ? n : o` per component, bitwise (see [`update_turn`]).
#[inline(always)]
pub(crate) fn bitselect_vec3(m: F32x8, n: Vec3x8, o: Vec3x8) -> Vec3x8 {
    Vec3x8::new(
        m.bitselect(n.x, o.x),
        m.bitselect(n.y, o.y),
        m.bitselect(n.z, o.z),
    )
}

/// Forward kinematics step at unit scale ([`lanes::kform_mul`] without
/// the scale terms): `pos = R l.pos + p.pos`, `rot = p.rot l.rot`,
/// `vel = R l.vel + ω_p × (R l.pos) + v_p`, `ang = R l.ang + ω_p`. `VEL` and
/// `ANG` say whether the local velocity and angular velocity can be
/// non-zero: a joint with a fixed position has no local velocity, a still
/// joint no angular velocity either, and their terms are left out (exactly:
/// rotating a zero vector gives zero).
#[inline(always)]
pub(crate) fn motion_mul<const VEL: bool, const ANG: bool>(p: &Motionx8, l: &Motionx8) -> Motionx8 {
    let r = Rotor::new(p.rot);
    let lever = r.apply(l.pos);
    let carried = lanes::cross_add(p.ang, lever, p.vel);
    Motionx8 {
        pos: lever + p.pos,
        rot: lanes::quat_mul(p.rot, l.rot),
        vel: if VEL {
            r.apply_add(l.vel, carried)
        } else {
            carried
        },
        ang: if ANG {
            r.apply_add(l.ang, p.ang)
        } else {
            p.ang
        },
    }
}

/// `*o = m` for a joint whose local position is fixed: only the rotation and
/// angular velocity are stored. Every local pose of such a joint holds the
/// fixed position and zero velocity from the start ([`PackScratch::new`](super::passes::PackScratch::new)),
/// which is what `m.pos` and `m.vel` would be, and the compiler drops the
/// arithmetic behind them.
#[inline(always)]
pub(crate) fn put_turn(o: &mut Motionx8, m: Motionx8) {
    o.rot = m.rot;
    o.ang = m.ang;
}

/// A lane mask from eight flags, opaque to the optimizer so that the
/// bitwise selects of [`update_turn`] stay bitwise.
pub(crate) fn mask(b: [bool; 8]) -> F32x8 {
    opaque(F32x8::new(
        b.map(|b| if b { f32::from_bits(u32::MAX) } else { 0.0 }),
    ))
}

/// `m`, opaque to the optimizer (see [`mask`]).
pub(crate) fn opaque(m: F32x8) -> F32x8 {
    std::hint::black_box(m)
}

/// Copies lane `from` of `src` into lane `to` of `dst`, two 8-lane
/// structures of `f32` lanes (component `c` of lane `l` at `8c + l`).
#[inline(always)]
pub(crate) fn copy_lane<T: bytemuck::Pod>(dst: &mut T, to: usize, src: &T, from: usize) {
    let d: &mut [f32] = bytemuck::cast_slice_mut(core::slice::from_mut(dst));
    let s: &[f32] = bytemuck::cast_slice(core::slice::from_ref(src));
    for (d, s) in d.chunks_exact_mut(8).zip(s.chunks_exact(8)) {
        d[to & 7] = s[from & 7];
    }
}
