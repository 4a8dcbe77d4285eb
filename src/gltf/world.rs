//! World-space frames of a crowd to `.glb`: each joint's local transform
//! recovered from its parent's world transform.

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Quat, Vec3, quat_inv_mul, quat_inv_mul_vec3};
use crate::skeleton::{MAX_JOINTS, Skeleton};

use super::write::{bad, write_glb};

/// World-space frames of several characters that share a skeleton, as a
/// runtime's output gives them: `positions[(f × characters + c) × joints +
/// j]` is joint `j` of character `c` at frame `f` (so each frame is what
/// [`crate::output::positions`] writes), rotations likewise. Unit scales.
#[derive(Clone, Copy, Debug)]
pub struct WorldFrames<'a> {
    /// The characters' skeleton.
    pub skeleton: &'a Skeleton,
    /// Characters per frame.
    pub characters: usize,
    /// Seconds between frames.
    pub frame_time: f32,
    /// World positions, frame-major, then character, then joint.
    pub positions: &'a [Vec3],
    /// World rotations, in the same order.
    pub rotations: &'a [Quat],
}

/// A `.glb` of world-space frames ([`WorldFrames`]): one copy of the
/// skeleton per character (nodes named `c{c}/{joint}`), each joint's local
/// transform recovered from its parent's world transform
/// (`local = parent⁻¹ × world`), written as one animation by
/// [`write_glb`]. Refuses, writing nothing: no character, a frame time that
/// is not finite and positive, position and rotation counts that differ or
/// are not whole frames, non-finite values, and more than
/// [`MAX_JOINTS`] joints in all.
pub fn write_world_glb(w: &WorldFrames<'_>) -> Result<Vec<u8>> {
    let joints = w.skeleton.len();
    if w.characters == 0 {
        return Err(Error::Length {
            what: "characters (at least 1)",
            expected: 1,
            got: 0,
        });
    }
    if !(w.frame_time.is_finite() && w.frame_time > 0.0) {
        return Err(bad("frame_time", w.frame_time, "must be finite and > 0"));
    }
    let all = match w.characters.checked_mul(joints) {
        Some(n) if n <= MAX_JOINTS => n,
        _ => {
            return Err(Error::Length {
                what: "characters x joints in one file",
                expected: MAX_JOINTS,
                got: w.characters.saturating_mul(joints),
            });
        }
    };
    if w.rotations.len() != w.positions.len() {
        return Err(Error::Length {
            what: "world rotations (one per position)",
            expected: w.positions.len(),
            got: w.rotations.len(),
        });
    }
    if w.positions.is_empty() || !w.positions.len().is_multiple_of(all) {
        return Err(Error::Length {
            what: "world positions (frames x characters x joints)",
            expected: all * (w.positions.len() / all).max(1),
            got: w.positions.len(),
        });
    }
    let frames = w.positions.len() / all;
    let parents = w.skeleton.parents();
    // Reserved with try_reserve: Error::Size where they cannot be had.
    let mut pos = crate::error::try_empty("world clip positions", w.positions.len())?;
    let mut rot = crate::error::try_empty("world clip rotations", w.positions.len())?;
    for f in 0..frames {
        for c in 0..w.characters {
            let base = (f * w.characters + c) * joints;
            for (j, &p) in parents.iter().enumerate() {
                let (wp, wr) = (w.positions[base + j], w.rotations[base + j]);
                if p < 0 {
                    pos.push(wp);
                    rot.push(wr);
                } else {
                    let (pp, pr) = (
                        w.positions[base + p as usize],
                        w.rotations[base + p as usize],
                    );
                    pos.push(quat_inv_mul_vec3(pr, wp - pp));
                    rot.push(quat_inv_mul(pr, wr));
                }
            }
        }
    }
    let mut all_parents = Vec::with_capacity(all);
    let mut names = Vec::with_capacity(all);
    for c in 0..w.characters {
        for (j, &p) in parents.iter().enumerate() {
            all_parents.push(if p < 0 { -1 } else { (c * joints) as i32 + p });
            names.push(format!("c{c}/{}", w.skeleton.names()[j]));
        }
    }
    let skeleton = Skeleton::with_names(all_parents, names)?;
    let clip = Clip::new(
        frames,
        all,
        w.frame_time,
        pos,
        rot,
        crate::error::try_vec("world clip scales", frames * all, Vec3::ONE)?,
    )?;
    write_glb(&skeleton, None, &[("world", &clip)])
}
