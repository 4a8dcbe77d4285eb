//! An animation clip: local joint positions, rotations and scales sampled at
//! a fixed frame time (the articles' `slice2d<vec3> anim_pos`, `anim_rot`,
//! `anim_scl`, rows = frames, cols = joints).

use crate::error::{Error, Result, checked_mul};
use crate::reference::{Quat, Slice2d, Vec3};

/// How far from 1 the length of a clip's rotation may be: `|‖q‖ - 1| <=
/// 1e-4`. Rotations are taken as unit quaternions everywhere downstream
/// (the crowd's short exponential and logarithm, slerp without
/// renormalizing); a quaternion normalized in f32 is within about 1e-7.
pub const ROTATION_UNIT_TOLERANCE: f32 = 1e-4;

pub use crate::limits::{MAX_POSITION, MAX_SCALE, MAX_TIME, MIN_FRAME_TIME, MIN_SCALE};

/// Frames × joints of local transforms, frame-major (`[frame * joints + joint]`).
///
/// With the `serde` feature it serializes as its fields (`frames`,
/// `joints`, `frame_time`, `pos`, `rot`, `scl`; quaternions as `{w, x, y,
/// z}`) and its `markers` (names and times; absent reads as none), and
/// deserializing validates as [`Clip::new`] and [`Clip::add_marker`] do.
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
    /// Named points of the clip's time, in the order added
    /// ([`crate::markers`]).
    pub(crate) markers: Vec<crate::markers::Marker>,
}

/// The Euclidean length of `v` in f64: the squares of f32 values neither
/// overflow nor vanish there (f32's largest squared is about 1e77, its
/// smallest subnormal squared about 2e-90), so this is as safe as
/// `hypot` and several times faster. Loading clips checked every rotation
/// and offset with chained `hypot` calls, 27% of `kineform match`'s
/// start-up with four CMU clips.
pub(crate) fn length64(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

impl Clip {
    /// Refuses this clip when its joints, placed at `pos` (its own positions,
    /// or a library's bones: `frames × joints`, frame-major),
    /// reach past [`crate::limits::MAX_REACH`] or scale past
    /// [`crate::limits::MAX_SCALE`] ([`crate::limits::reach`]): a clip's
    /// world pose would not be finite. Every reader, writer and
    /// [`crate::crowd::ClipLibrary`] holds clips to it (issue 21, defect 9).
    pub(crate) fn check_reach(&self, parents: &[i32], pos: &[Vec3]) -> Result<()> {
        let clip = self;
        let joints = parents.len();
        let mut length = vec![0.0f64; joints];
        let mut frame_of = vec![0usize; joints];
        let mut scale = vec![0.0f64; joints];
        for (i, (p, s)) in pos.iter().zip(clip.scales()).enumerate() {
            let j = i % joints;
            let l = length64(&[p.x, p.y, p.z]);
            if l > length[j] {
                (length[j], frame_of[j]) = (l, i / joints);
            }
            scale[j] = scale[j].max(f64::from(s.x.max(s.y).max(s.z)));
        }
        match crate::limits::reach(parents, &length, &scale) {
            None => Ok(()),
            Some(o) => Err(Error::Clip {
                frame: frame_of[o.joint],
                joint: o.joint,
                reason: match o.scale {
                    true => format!(
                        "its scale, multiplied along its chain, reaches {:e}, past {:e} (kineform::limits::MAX_SCALE)",
                        o.value,
                        crate::limits::MAX_SCALE
                    ),
                    false => format!(
                        "it reaches {:e} units from the character's root along its chain (its largest position, at this frame, is {:e}), past {:e} (kineform::limits::MAX_REACH)",
                        o.value,
                        length[o.joint],
                        crate::limits::MAX_REACH
                    ),
                },
            }),
        }
    }

    /// A clip from frame-major arrays of `frames × joints` entries.
    ///
    /// Refuses, writing nothing and naming what is wrong: a clip with no frame
    /// or joint; `frames × joints` that overflows ([`Error::Size`]); arrays of
    /// the wrong length; a frame time outside [[`MIN_FRAME_TIME`],
    /// [`MAX_TIME`]]; a clip length `(frames - 1) × frame_time` past
    /// [`MAX_TIME`] (a command can set any time of a clip); and, naming the
    /// frame and joint ([`Error::Clip`]), a position with a coordinate that
    /// is not finite or not within ±[`MAX_POSITION`], a scale with a
    /// coordinate outside [[`MIN_SCALE`], [`MAX_SCALE`]] (sampling
    /// interpolates its logarithm), or a rotation that is not finite or not
    /// unit length within [`ROTATION_UNIT_TOLERANCE`] (rotations are not
    /// normalized for you). Within this domain ([`crate::limits`]) a clip's
    /// steps between frames and its velocities are finite.
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
        if !(frame_time.is_finite() && (MIN_FRAME_TIME..=MAX_TIME).contains(&frame_time)) {
            return Err(Error::Parameter {
                name: "frame_time",
                value: frame_time,
                reason: "must be within [1e-6, 1e6] s (kineform::limits)",
            });
        }
        let n = checked_mul("clip frames × joints", frames, joints)?;
        let length = (frames - 1) as f32 * frame_time;
        if length > MAX_TIME {
            return Err(Error::Parameter {
                name: "frame_time",
                value: frame_time,
                reason: "makes the clip length (frames - 1) × frame_time longer than 1e6 s, the longest time a command can set (kineform::limits::MAX_TIME)",
            });
        }
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
        check_values(joints, &pos, &rot, &scl)?;
        Ok(Clip {
            frames,
            joints,
            frame_time,
            pos,
            rot,
            scl,
            markers: Vec::new(),
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
        c.make_rotations_continuous();
        c
    }

    /// This clip's rotations made a path without sign jumps in place, as
    /// [`Clip::with_continuous_rotations`] makes them.
    pub(crate) fn make_rotations_continuous(&mut self) {
        let joints = self.joints;
        for f in 1..self.frames {
            for j in 0..joints {
                let (prev, cur) = (self.rot[(f - 1) * joints + j], self.rot[f * joints + j]);
                if crate::reference::quat_dot(prev, cur) < 0.0 {
                    self.rot[f * joints + j] = -cur;
                }
            }
        }
    }

    /// Whether this clip's rotations are already a path without sign
    /// jumps ([`Clip::with_continuous_rotations`] would change nothing).
    pub(crate) fn has_continuous_rotations(&self) -> bool {
        let joints = self.joints;
        (1..self.frames).all(|f| {
            (0..joints).all(|j| {
                let (prev, cur) = (self.rot[(f - 1) * joints + j], self.rot[f * joints + j]);
                crate::reference::quat_dot(prev, cur) >= 0.0
            })
        })
    }

    /// A copy of this clip whose storage is reserved with `try_reserve`:
    /// [`crate::Error::Size`] naming what could not be had, where
    /// `clone` would abort the process.
    pub(crate) fn try_clone(&self) -> Result<Clip> {
        use crate::error::try_copy;
        Ok(Clip {
            frames: self.frames,
            joints: self.joints,
            frame_time: self.frame_time,
            pos: try_copy("clip positions", &self.pos)?,
            rot: try_copy("clip rotations", &self.rot)?,
            scl: try_copy("clip scales", &self.scl)?,
            markers: self.markers.clone(),
        })
    }

    /// This clip with its positions and rotations replaced by `pos` and
    /// `rot` (each `frames × joints` long), unchecked: for motion derived
    /// from a valid clip (a compact database's decoded frames, within its
    /// stated error of this clip's). Its markers are this clip's.
    /// Its scales are copied with `try_reserve` ([`Error::Size`] where they
    /// cannot be had).
    pub(crate) fn with_motion(&self, pos: Vec<Vec3>, rot: Vec<Quat>) -> Result<Clip> {
        debug_assert!(pos.len() == self.pos.len() && rot.len() == self.rot.len());
        Ok(Clip {
            frames: self.frames,
            joints: self.joints,
            frame_time: self.frame_time,
            pos,
            rot,
            scl: crate::error::try_copy("clip scales", &self.scl)?,
            markers: self.markers.clone(),
        })
    }

    /// Frames `frames` of this clip as a clip of their own (a walk cut out
    /// of a longer take, say). Refuses an empty range or one past the last
    /// frame, naming it, with nothing built. The markers within the
    /// frames come along, their times from the excerpt's start.
    ///
    /// ```
    /// let clip = kineform::data::default_clip().clip;
    /// let part = clip.excerpt(100..160)?;
    /// assert_eq!((part.frames(), part.rot(0, 3)), (60, clip.rot(100, 3)));
    /// assert!(clip.excerpt(200..300).is_err() && clip.excerpt(5..5).is_err());
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn excerpt(&self, frames: core::ops::Range<usize>) -> Result<Clip> {
        if frames.start >= frames.end || frames.end > self.frames {
            return Err(Error::Range {
                what: "excerpt's frames",
                start: frames.start,
                end: frames.end,
                len: self.frames,
            });
        }
        let span = frames.start * self.joints..frames.end * self.joints;
        let (from, to) = (
            frames.start as f32 * self.frame_time,
            (frames.end - 1) as f32 * self.frame_time,
        );
        let markers = self
            .markers
            .iter()
            .filter(|m| (from..=to).contains(&m.time))
            .map(|m| crate::markers::Marker {
                name: m.name.clone(),
                time: ((m.time - from).max(0.0)).min(to - from),
            })
            .collect();
        Ok(Clip {
            frames: frames.len(),
            joints: self.joints,
            frame_time: self.frame_time,
            pos: self.pos[span.clone()].to_vec(),
            rot: self.rot[span.clone()].to_vec(),
            scl: self.scl[span].to_vec(),
            markers,
        })
    }

    /// The index of frame `f`, joint `j` in the frame-major fields, or
    /// `None` out of range.
    fn index(&self, f: usize, j: usize) -> Option<usize> {
        (f < self.frames && j < self.joints).then(|| f * self.joints + j)
    }

    /// Local position of joint `j` at frame `f`; `None` when `f >=
    /// frames()` or `j >= joints()`.
    pub fn pos(&self, f: usize, j: usize) -> Option<Vec3> {
        self.index(f, j).map(|i| self.pos[i])
    }

    /// Local rotation of joint `j` at frame `f`; `None` out of range.
    pub fn rot(&self, f: usize, j: usize) -> Option<Quat> {
        self.index(f, j).map(|i| self.rot[i])
    }

    /// Local scale of joint `j` at frame `f`; `None` out of range.
    pub fn scl(&self, f: usize, j: usize) -> Option<Vec3> {
        self.index(f, j).map(|i| self.scl[i])
    }

    /// The crate's reads of frames and joints it loops over (`f <
    /// frames()`, `j < joints()` by each caller's loop bounds): the
    /// fields' value at `f * joints + j`. Out of range, which no caller
    /// reaches, it would read another frame's joint or index past the
    /// field (a panic), never memory outside it.
    pub(crate) fn pos_at(&self, f: usize, j: usize) -> Vec3 {
        debug_assert!(f < self.frames && j < self.joints);
        self.pos[f * self.joints + j]
    }

    /// [`Clip::pos_at`] of the rotations.
    pub(crate) fn rot_at(&self, f: usize, j: usize) -> Quat {
        debug_assert!(f < self.frames && j < self.joints);
        self.rot[f * self.joints + j]
    }

    /// [`Clip::pos_at`] of the scales.
    pub(crate) fn scl_at(&self, f: usize, j: usize) -> Vec3 {
        debug_assert!(f < self.frames && j < self.joints);
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
    #[serde(default)]
    markers: Vec<crate::markers::Marker>,
}

#[cfg(feature = "serde")]
impl TryFrom<ClipData> for Clip {
    type Error = Error;
    fn try_from(d: ClipData) -> Result<Clip> {
        let mut clip = Clip::new(d.frames, d.joints, d.frame_time, d.pos, d.rot, d.scl)?;
        for m in &d.markers {
            clip.add_marker(&m.name, m.time)?;
        }
        Ok(clip)
    }
}

/// The first unusable value of a clip, by frame and joint (see [`Clip::new`]).
fn check_values(joints: usize, pos: &[Vec3], rot: &[Quat], scl: &[Vec3]) -> Result<()> {
    let bad = |i: usize, reason: String| {
        Err(Error::Clip {
            frame: i / joints,
            joint: i % joints,
            reason,
        })
    };
    for (i, ((p, q), s)) in pos.iter().zip(rot).zip(scl).enumerate() {
        // NaN fails every comparison: refused as out of the domain.
        if ![p.x, p.y, p.z].iter().all(|c| c.abs() <= MAX_POSITION) {
            return bad(
                i,
                format!(
                    "position {p:?} must be finite, each coordinate within ±{MAX_POSITION:e} (kineform::limits::MAX_POSITION)"
                ),
            );
        }
        if ![s.x, s.y, s.z]
            .iter()
            .all(|c| (MIN_SCALE..=MAX_SCALE).contains(c))
        {
            return bad(
                i,
                format!(
                    "scale {s:?} must be finite, each coordinate within [{MIN_SCALE:e}, {MAX_SCALE:e}] (kineform::limits)"
                ),
            );
        }
        let len = length64(&[q.w, q.x, q.y, q.z]);
        if !(len.is_finite() && (len - 1.0).abs() <= ROTATION_UNIT_TOLERANCE as f64) {
            return bad(
                i,
                format!(
                    "rotation {q:?} has length {len:e}; it must be unit within {ROTATION_UNIT_TOLERANCE:e}"
                ),
            );
        }
    }
    Ok(())
}
