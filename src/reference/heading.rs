//! Heading: a rotation's twist about an up axis (the swing-twist
//! decomposition `q = twist swing`, the twist about `up`, the swing about
//! an axis perpendicular to it), the rate at which the twist's angle
//! turns, and the angle of a twist. Root motion extraction takes the
//! clips' heading out of their root joint with these
//! ([`crate::crowd::RootMotion::Extract`]); [`crate::lanes::heading`] has
//! the 8-lane twins.

use super::{Quat, Vec3, cross, dot};

/// Below this `w² + (v·up)²` a rotation is a half-turn about an axis
/// perpendicular to `up`, whose twist is undefined: the twist is taken as
/// the identity there (and its rate as if `w² + u²` were this).
pub const TWIST_EPS: f32 = 1e-12;

/// The twist of `q` about the unit axis `up`: with `u = (qx, qy, qz)·up`,
/// `(w, u up) / sqrt(w² + u²)` (the identity where `w² + u² <`
/// [`TWIST_EPS`]). `twist⁻¹ q` is then a swing: its vector part has no
/// component along `up`. The twist keeps `q`'s sign (its `w` has `q`'s),
/// so a twist of a continuous rotation is continuous.
#[inline]
pub fn quat_twist(q: Quat, up: Vec3) -> Quat {
    let u = dot(q.xyz(), up);
    let n2 = q.w * q.w + u * u;
    if n2 < TWIST_EPS {
        return Quat::IDENTITY;
    }
    let s = 1.0 / n2.sqrt();
    let v = up * (u * s);
    Quat::new(q.w * s, v.x, v.y, v.z)
}

/// The rate of the twist angle `ψ = 2 atan2(u, w)` of `q` about `up`
/// (`u = v·up`, `v = (qx, qy, qz)`) for a rotation moving at angular
/// velocity `ang` (`q̇ = ½ ang q`, the crowd's convention):
/// `dψ/dt = (w (w ang·up + (ang × v)·up) + u ang·v) / (w² + u²)`, the
/// denominator at least [`TWIST_EPS`]. `ang·up` plus the share of the
/// swing's tilt; exactly `ang·up` for a pure twist.
#[inline]
pub fn twist_rate(q: Quat, ang: Vec3, up: Vec3) -> f32 {
    let v = q.xyz();
    let u = dot(v, up);
    let n2 = (q.w * q.w + u * u).max(TWIST_EPS);
    (q.w * (q.w * dot(ang, up) + dot(cross(ang, v), up)) + u * dot(ang, v)) / n2
}

/// The angle of a twist `t` about `up`, the short way round: `2 atan2(u,
/// w)` with `(w, u)` negated where `w < 0`, in `[-π, π]`.
#[inline]
pub fn twist_angle(t: Quat, up: Vec3) -> f32 {
    let u = dot(t.xyz(), up);
    let (w, u) = if t.w < 0.0 { (-t.w, -u) } else { (t.w, u) };
    2.0 * u.atan2(w)
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    /// The twist is about `up` and leaves a swing with nothing along
    /// `up`; its rate is the derivative of its angle (central differences
    /// at two steps, the error shrinking as `h²`), for y and z up.
    /// Mutation caught: the rate as `ang·up` alone (the swing share
    /// left out) misses by over 0.05 rad/s here and does not shrink.
    #[test]
    fn twist_and_its_rate() {
        for up in [Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0)] {
            let swing_axis = normalize(cross(up, Vec3::new(1.0, 0.3, 0.2)));
            let q = |t: f32| {
                let twist = quat_from_angle_axis(0.7 + 1.3 * t, up);
                let swing = quat_from_angle_axis(0.9 + 2.0 * t, swing_axis);
                let other = quat_from_angle_axis(1.5 * t, Vec3::new(0.6, 0.0, 0.8));
                quat_mul(quat_mul(twist, swing), other)
            };
            let t0 = 0.3f32;
            let tw = quat_twist(q(t0), up);
            let swing = quat_inv_mul(tw, q(t0));
            assert!(dot(swing.xyz(), up).abs() < 1e-6, "{swing:?}");
            assert!(length(cross(tw.xyz(), up)) < 1e-6, "{tw:?}");
            // The angular velocity of q at t0, by a central difference.
            let h = 1e-3f32;
            let d = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(q(t0 + h), q(t0 - h))));
            let ang = d / (2.0 * h);
            let rate = twist_rate(q(t0), ang, up);
            let errs: Vec<f32> = [0.05f32, 0.025]
                .iter()
                .map(|&h| {
                    let a = |t| twist_angle(quat_twist(q(t), up), up);
                    let fd = (a(t0 + h) - a(t0 - h)) / (2.0 * h);
                    (fd - rate).abs()
                })
                .collect();
            assert!(
                errs[0] < 2e-2 && errs[1] < 0.35 * errs[0] + 1e-4,
                "{errs:?}"
            );
            let naive = dot(ang, up);
            assert!(
                (naive - rate).abs() > 0.05,
                "the swing's share matters here"
            );
        }
    }
}
