//! Each character's world bounding box, for culling and for a renderer's
//! skinned-mesh bounds: the axis-aligned box of its clip joints' world
//! positions (crowd joints `1..`; joint 0, the character's root, is where
//! the game placed it, not a part of the body), each position padded by
//! its joint's radius ([`CrowdConfig::joint_radii`](super::CrowdConfig::joint_radii)):
//!
//! `min = minⱼ (pⱼ - rⱼ)`, `max = maxⱼ (pⱼ + rⱼ)` per axis, over clip
//! joints `j`.
//!
//! The 8-lane crowd grows eight characters' boxes ([`Aabbx8`]) in its
//! forward-kinematics pass, as each joint's world position is written
//! (`passes::fk`), and keeps them per pack in the store; the reference
//! crowd takes the same box of each character's world pose
//! (`reference::bounds`). Both hand them out with `bounds_into`.

use core::ops::Range;

use crate::error::{Error, Result};
use crate::lanes::{F32x8, Vec3x8};
use crate::reference::Vec3;

/// An axis-aligned box in the world: every point `p` with `min <= p <=
/// max` per axis. A character's box ([`super::Crowd::bounds_into`]) holds
/// each of its clip joints' world positions padded by the joint's radius,
/// and is tight: each face touches a padded joint. It is NaN where the
/// character's output held a value that is not finite (counted in
/// [`super::VelocityCheck::non_finite`]), and zero before the first step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb {
    /// The smallest coordinate on each axis.
    pub min: Vec3,
    /// The largest coordinate on each axis.
    pub max: Vec3,
}

impl Aabb {
    /// The box of the one point at the origin (what a character's box is
    /// before its crowd's first step).
    pub const ZERO: Aabb = Aabb {
        min: Vec3::ZERO,
        max: Vec3::ZERO,
    };

    /// The box's size on each axis, `max - min`.
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// The box's centre, `(min + max) / 2`.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Whether `p` is in the box (its faces included; false for NaN).
    pub fn contains(&self, p: Vec3) -> bool {
        let (lo, hi) = (self.min.to_array(), self.max.to_array());
        p.to_array()
            .iter()
            .zip(lo.iter().zip(&hi))
            .all(|(x, (lo, hi))| lo <= x && x <= hi)
    }
}

/// Eight characters' boxes, lane `i` character `8p + i` of pack `p` (kept
/// per pack in the store, grown by the forward-kinematics pass).
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Aabbx8 {
    pub(crate) min: Vec3x8,
    pub(crate) max: Vec3x8,
}

impl Aabbx8 {
    /// [`Aabb::ZERO`] in every lane.
    pub(crate) const ZERO: Aabbx8 = Aabbx8 {
        min: Vec3x8::ZERO,
        max: Vec3x8::ZERO,
    };

    /// The empty box (`min` +∞, `max` -∞), which the first point grown
    /// into it replaces.
    pub(crate) const EMPTY: Aabbx8 = Aabbx8 {
        min: Vec3x8::splat(Vec3::splat(f32::INFINITY)),
        max: Vec3x8::splat(Vec3::splat(f32::NEG_INFINITY)),
    };

    /// The box grown to hold `p` padded by `r`: `min(min, p - r)`,
    /// `max(max, p + r)` per axis.
    #[inline(always)]
    pub(crate) fn grow(&mut self, p: &Vec3x8, r: F32x8) {
        let (lo, hi) = (&mut self.min, &mut self.max);
        lo.x = lo.x.fast_min(p.x - r);
        lo.y = lo.y.fast_min(p.y - r);
        lo.z = lo.z.fast_min(p.z - r);
        hi.x = hi.x.fast_max(p.x + r);
        hi.y = hi.y.fast_max(p.y + r);
        hi.z = hi.z.fast_max(p.z + r);
    }

    /// The box grown to hold `p` (unpadded: [`Aabbx8::grow`] with `r` 0,
    /// whose `p + 0` the compiler may not drop, as it would turn -0 into
    /// +0).
    #[inline(always)]
    pub(crate) fn grow_point(&mut self, p: &Vec3x8) {
        let (lo, hi) = (&mut self.min, &mut self.max);
        lo.x = lo.x.fast_min(p.x);
        lo.y = lo.y.fast_min(p.y);
        lo.z = lo.z.fast_min(p.z);
        hi.x = hi.x.fast_max(p.x);
        hi.y = hi.y.fast_max(p.y);
        hi.z = hi.z.fast_max(p.z);
    }

    /// The box where `finite` (a lane mask: the lane's output all
    /// finite), NaN elsewhere (the lanes' `min`/`max` drop a NaN operand
    /// as they like, so such a box would not say it).
    #[inline(always)]
    pub(crate) fn finished(self, finite: F32x8) -> Aabbx8 {
        let nan = F32x8::splat(f32::NAN);
        let keep = |v: Vec3x8| {
            Vec3x8::new(
                finite.select(v.x, nan),
                finite.select(v.y, nan),
                finite.select(v.z, nan),
            )
        };
        Aabbx8 {
            min: keep(self.min),
            max: keep(self.max),
        }
    }

    /// Lane `i`'s box.
    pub(crate) fn lane(&self, i: usize) -> Aabb {
        Aabb {
            min: self.min.lane(i),
            max: self.max.lane(i),
        }
    }

    /// Moved by `-by` ([`super::Crowd::recenter`]).
    pub(crate) fn shift(&mut self, by: Vec3x8) {
        self.min -= by;
        self.max -= by;
    }
}

/// Checks a crowd's joint radii against its library's `clip_joints`: none
/// (no padding), or one per clip joint, each finite, >= 0 and <=
/// [`crate::limits::MAX_POSITION`] (so a padded position stays finite).
/// Refused with [`Error::Length`], or [`Error::Config`] naming the joint
/// around an [`Error::Parameter`].
pub(crate) fn check_radii(radii: &[f32], clip_joints: usize) -> Result<()> {
    if !radii.is_empty() && radii.len() != clip_joints {
        return Err(Error::Length {
            what: "joint_radii (none, or one per clip joint)",
            expected: clip_joints,
            got: radii.len(),
        });
    }
    let most = crate::limits::MAX_POSITION;
    match radii.iter().position(|r| !(0.0..=most).contains(r)) {
        None => Ok(()),
        Some(j) => Err(Error::Config {
            part: format!("joint_radii[{j}]"),
            error: Box::new(Error::Parameter {
                name: "joint radius",
                value: radii[j],
                reason: "must be finite, >= 0 and <= 1e6 (kineform::limits::MAX_POSITION)",
            }),
        }),
    }
}

/// The radius of each crowd joint: 0 for joint 0 (the character's root,
/// outside the box) and for every joint when `radii` is empty, else clip
/// joint `j`'s at crowd joint `j + 1` (reserved with `try_reserve`).
pub(crate) fn crowd_radii(radii: &[f32], crowd_joints: usize) -> Result<Vec<f32>> {
    let mut out = crate::error::try_vec("joint radii", crowd_joints, 0.0)?;
    for (o, r) in out.iter_mut().skip(1).zip(radii) {
        *o = *r;
    }
    Ok(out)
}

/// Checks a readout of `chars` of a crowd of `characters` into a slice
/// of `got` boxes: [`Error::Range`] for a range that is reversed or runs
/// past the crowd, [`Error::Length`] for a slice that is not one box per
/// character of the range.
pub(crate) fn check_readout(chars: &Range<usize>, characters: usize, got: usize) -> Result<()> {
    let what = "output slice (one box per character)";
    super::output::check_readout_of(chars, characters, (1, what), got)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes' box grows as the reference's does (each lane its own
    /// points), a lane with a NaN position comes out NaN when its mask
    /// says so, and radii past their range are refused naming the joint.
    #[test]
    fn grow_and_finish_per_lane() {
        let pts = [[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5], [0.0, 0.0, 9.0]];
        let point = |k: usize, l: usize| {
            let p = pts[k];
            Vec3::new(p[0] + l as f32, p[1], p[2] * l as f32)
        };
        let radius = |k: usize| 0.25 * k as f32;
        let mut b = Aabbx8::EMPTY;
        for k in 0..pts.len() {
            let v = Vec3x8::from_array(core::array::from_fn(|l| point(k, l)));
            b.grow(&v, F32x8::splat(radius(k)));
        }
        let mut finite = [f32::from_bits(u32::MAX); 8];
        finite[3] = 0.0;
        let done = b.finished(F32x8::new(finite));
        for l in 0..8 {
            let got = done.lane(l);
            if l == 3 {
                assert!(got.min.x.is_nan() && got.max.z.is_nan(), "{got:?}");
                continue;
            }
            let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for k in 0..pts.len() {
                let p = point(k, l).to_array();
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a] - radius(k));
                    hi[a] = hi[a].max(p[a] + radius(k));
                }
            }
            let want = Aabb {
                min: Vec3::new(lo[0], lo[1], lo[2]),
                max: Vec3::new(hi[0], hi[1], hi[2]),
            };
            assert_eq!(got, want, "lane {l}");
            assert!(want.contains(point(0, l)) && !want.contains(point(0, l) * 1e3));
        }
    }

    #[test]
    fn radii_are_checked() {
        assert!(check_radii(&[], 3).is_ok());
        assert!(check_radii(&[0.0, 1.0, 1e6], 3).is_ok());
        assert!(matches!(
            check_radii(&[0.0, 1.0], 3),
            Err(Error::Length {
                expected: 3,
                got: 2,
                ..
            })
        ));
        for bad in [-1e-9, f32::NAN, f32::INFINITY, 1.1e6] {
            match check_radii(&[0.0, bad, 1.0], 3) {
                Err(Error::Config { part, error }) => {
                    assert_eq!(part, "joint_radii[1]");
                    assert!(matches!(*error, Error::Parameter { .. }), "{error:?}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
