//! An animation clip: local joint positions, rotations and scales sampled at
//! a fixed frame time (the articles' `slice2d<vec3> anim_pos`, `anim_rot`,
//! `anim_scl`, rows = frames, cols = joints).

use crate::error::{Error, Result};
use crate::reference::{Quat, Slice2d, Vec3};

/// Frames × joints of local transforms, frame-major (`[frame * joints + joint]`).
///
/// With the `serde` feature it serializes as its fields (`frames`,
/// `joints`, `frame_time`, `pos`, `rot`, `scl`; quaternions as `{w, x, y,
/// z}`) and deserializing validates as [`Clip::new`] does.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "ClipData")
)]
pub struct Clip {
    frames: usize,
    joints: usize,
    frame_time: f32,
    pos: Vec<Vec3>,
    rot: Vec<Quat>,
    scl: Vec<Vec3>,
}

impl Clip {
    /// A clip from frame-major arrays of `frames × joints` entries. Refuses a
    /// clip with no frame or joint, arrays of the wrong length, or a frame
    /// time that is not finite and positive.
    pub fn new(
        frames: usize,
        joints: usize,
        frame_time: f32,
        pos: Vec<Vec3>,
        rot: Vec<Quat>,
        scl: Vec<Vec3>,
    ) -> Result<Clip> {
        if frames == 0 || joints == 0 {
            return Err(Error::Length {
                what: "clip frames and joints (must be at least 1)",
                expected: 1,
                got: frames.min(joints),
            });
        }
        if !(frame_time.is_finite() && frame_time > 0.0) {
            return Err(Error::Parameter {
                name: "frame_time",
                value: frame_time,
                reason: "must be finite and > 0",
            });
        }
        let n = frames * joints;
        for (what, len) in [
            ("clip positions", pos.len()),
            ("clip rotations", rot.len()),
            ("clip scales", scl.len()),
        ] {
            if len != n {
                return Err(Error::Length {
                    what,
                    expected: n,
                    got: len,
                });
            }
        }
        Ok(Clip {
            frames,
            joints,
            frame_time,
            pos,
            rot,
            scl,
        })
    }

    /// Number of frames (rows).
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Number of joints (columns).
    pub fn joints(&self) -> usize {
        self.joints
    }

    /// Seconds between frames.
    pub fn frame_time(&self) -> f32 {
        self.frame_time
    }

    /// Time of the last frame, `(frames - 1) × frame_time`: the clip can be
    /// sampled on `[0, last_time]`.
    pub fn last_time(&self) -> f32 {
        (self.frames - 1) as f32 * self.frame_time
    }

    /// The same clip with each joint's rotations as a path without sign
    /// jumps: frame `f`'s quaternion negated where its dot product with
    /// frame `f - 1`'s (already flipped) is negative. `q` and `-q` are the
    /// same rotation, so every pose is unchanged; what changes is that
    /// sampling between frames, and any product of sampled rotations,
    /// moves continuously as a quaternion, not only as a rotation. The
    /// crowd keeps the hemisphere of a blend's relative rotation fixed
    /// between a transition and the next on that ground.
    pub fn with_continuous_rotations(&self) -> Clip {
        let mut c = self.clone();
        for f in 1..c.frames {
            for j in 0..c.joints {
                let (prev, cur) = (c.rot[(f - 1) * c.joints + j], c.rot[f * c.joints + j]);
                if crate::reference::quat_dot(prev, cur) < 0.0 {
                    c.rot[f * c.joints + j] = -cur;
                }
            }
        }
        c
    }

    /// Local position of joint `j` at frame `f` (panics out of range).
    pub fn pos(&self, f: usize, j: usize) -> Vec3 {
        self.pos[f * self.joints + j]
    }

    /// Local rotation of joint `j` at frame `f` (panics out of range).
    pub fn rot(&self, f: usize, j: usize) -> Quat {
        self.rot[f * self.joints + j]
    }

    /// Local scale of joint `j` at frame `f` (panics out of range).
    pub fn scl(&self, f: usize, j: usize) -> Vec3 {
        self.scl[f * self.joints + j]
    }

    /// Positions as a frames × joints view.
    pub fn pos_slice(&self) -> Slice2d<'_, Vec3> {
        Slice2d::new(&self.pos, self.joints).expect("frames × joints by construction")
    }

    /// Rotations as a frames × joints view.
    pub fn rot_slice(&self) -> Slice2d<'_, Quat> {
        Slice2d::new(&self.rot, self.joints).expect("frames × joints by construction")
    }

    /// Scales as a frames × joints view.
    pub fn scl_slice(&self) -> Slice2d<'_, Vec3> {
        Slice2d::new(&self.scl, self.joints).expect("frames × joints by construction")
    }

    /// All positions, frame-major.
    pub fn positions(&self) -> &[Vec3] {
        &self.pos
    }

    /// All rotations, frame-major.
    pub fn rotations(&self) -> &[Quat] {
        &self.rot
    }

    /// All scales, frame-major.
    pub fn scales(&self) -> &[Vec3] {
        &self.scl
    }
}

/// The serialized form of a [`Clip`], validated on the way in.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct ClipData {
    frames: usize,
    joints: usize,
    frame_time: f32,
    pos: Vec<Vec3>,
    rot: Vec<Quat>,
    scl: Vec<Vec3>,
}

#[cfg(feature = "serde")]
impl TryFrom<ClipData> for Clip {
    type Error = Error;
    fn try_from(d: ClipData) -> Result<Clip> {
        Clip::new(d.frames, d.joints, d.frame_time, d.pos, d.rot, d.scl)
    }
}
