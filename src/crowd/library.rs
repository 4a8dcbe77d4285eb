//! The clips a crowd plays, checked against its skeleton.

use crate::bvh::Bvh;
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::Vec3;
use crate::skeleton::Skeleton;

/// Clips that play on one skeleton: each added clip must come with a
/// hierarchy whose joint names and parents are the skeleton's (the first
/// differing joint is named otherwise). A clip of another subject (other
/// bone lengths, like the two 3dsMax-friendly CMU clips of subjects 102
/// and 131) plays on the library's bones: its local rotations and its root
/// joint's translation are kept, every other joint's position is the
/// library's bone offset.
///
/// Rotations are stored as paths without sign jumps
/// ([`Clip::with_continuous_rotations`]).
#[derive(Clone, Debug)]
pub struct ClipLibrary {
    skeleton: Skeleton,
    offsets: Vec<Vec3>,
    clips: Vec<Clip>,
}

impl ClipLibrary {
    /// An empty library for `skeleton`, whose joints sit at `offsets` from
    /// their parents (the root's offset is unused: clips carry the root's
    /// position). Refuses offsets that are not one per joint, or with a
    /// coordinate that is not finite or not within
    /// ±[`crate::limits::MAX_POSITION`], naming the joint.
    pub fn new(skeleton: &Skeleton, offsets: &[Vec3]) -> Result<ClipLibrary> {
        if offsets.len() != skeleton.len() {
            return Err(Error::Length {
                what: "bone offsets (one per skeleton joint)",
                expected: skeleton.len(),
                got: offsets.len(),
            });
        }
        let most = crate::limits::MAX_POSITION;
        if let Some(j) = offsets
            .iter()
            .position(|o| !o.to_array().iter().all(|x| x.abs() <= most))
        {
            return Err(Error::Skeleton {
                joint: j,
                reason: format!(
                    "bone offset {:?} must be finite, each coordinate within ±{most:e} (kineform::limits::MAX_POSITION)",
                    offsets[j]
                ),
            });
        }
        Ok(ClipLibrary {
            skeleton: skeleton.clone(),
            offsets: offsets.to_vec(),
            clips: Vec::new(),
        })
    }

    /// A library on a BVH file's skeleton and offsets, holding its clip.
    pub fn from_bvh(b: &Bvh) -> Result<ClipLibrary> {
        let mut lib = ClipLibrary::new(&b.skeleton, &b.offsets)?;
        lib.add(&b.skeleton, &b.clip)?;
        Ok(lib)
    }

    /// Adds a BVH file's clip ([`ClipLibrary::add`]).
    pub fn add_bvh(&mut self, b: &Bvh) -> Result<usize> {
        self.add(&b.skeleton, &b.clip)
    }

    /// Adds `clip`, whose hierarchy is `skeleton`; returns its index. Refuses
    /// a hierarchy that is not the library's (naming the first differing
    /// joint), a clip whose joint count is not its skeleton's, a frame time
    /// other than the first clip's, and a clip whose joints reach, on the
    /// library's bones, farther than [`crate::limits::MAX_REACH`] from the
    /// character's root or scale past [`crate::limits::MAX_SCALE`]
    /// ([`crate::limits::reach`]; [`Error::Clip`] naming the joint and the
    /// frame of its largest position): so forward kinematics of every frame,
    /// and the velocities it carries, are finite.
    pub fn add(&mut self, skeleton: &Skeleton, clip: &Clip) -> Result<usize> {
        let mine = &self.skeleton;
        let n = mine.len().max(skeleton.len());
        for j in 0..n {
            let (a, b) = (mine.names().get(j), skeleton.names().get(j));
            let (pa, pb) = (mine.parents().get(j), skeleton.parents().get(j));
            if a != b || pa != pb {
                let show = |name: Option<&String>, parent: Option<&i32>| match (name, parent) {
                    (Some(n), Some(p)) => format!("`{n}` (parent {p})"),
                    _ => "no joint".to_string(),
                };
                return Err(Error::Skeleton {
                    joint: j,
                    reason: format!(
                        "the clip's hierarchy differs from the crowd's: {} where the crowd has {}",
                        show(b, pb),
                        show(a, pa)
                    ),
                });
            }
        }
        if clip.joints() != mine.len() {
            return Err(Error::Length {
                what: "clip joints (must match its skeleton)",
                expected: mine.len(),
                got: clip.joints(),
            });
        }
        if let Some(first) = self.clips.first()
            && clip.frame_time() != first.frame_time()
        {
            return Err(Error::Parameter {
                name: "frame_time",
                value: clip.frame_time(),
                reason: "every clip of a library must have the first clip's frame time",
            });
        }
        // The library's bones: every joint but the root at its offset.
        let (frames, joints) = (clip.frames(), clip.joints());
        let mut pos = crate::error::try_vec("clip positions", frames * joints, Vec3::ZERO)?;
        pos.copy_from_slice(clip.positions());
        for f in 0..frames {
            for (j, &p) in mine.parents().iter().enumerate() {
                if p >= 0 {
                    pos[f * joints + j] = self.offsets[j];
                }
            }
        }
        check_reach(mine.parents(), &pos, clip)?;
        let c = Clip::new(
            frames,
            joints,
            clip.frame_time(),
            pos,
            clip.rotations().to_vec(),
            clip.scales().to_vec(),
        )?
        .with_continuous_rotations();
        self.clips.push(c);
        Ok(self.clips.len() - 1)
    }

    /// The skeleton the clips play on.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// The bone offsets.
    pub fn offsets(&self) -> &[Vec3] {
        &self.offsets
    }

    /// The clips, as the crowd plays them (bones retargeted, rotations
    /// without sign jumps).
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// Number of clips.
    pub fn len(&self) -> usize {
        self.clips.len()
    }

    /// True when no clip has been added.
    pub fn is_empty(&self) -> bool {
        self.clips.is_empty()
    }
}

/// Refuses a clip whose joints, placed at `pos` (the library's bones),
/// reach past [`crate::limits::MAX_REACH`] or scale past
/// [`crate::limits::MAX_SCALE`] ([`crate::limits::reach`]).
fn check_reach(parents: &[i32], pos: &[Vec3], clip: &Clip) -> Result<()> {
    let joints = parents.len();
    let mut length = vec![0.0f64; joints];
    let mut frame_of = vec![0usize; joints];
    let mut scale = vec![0.0f64; joints];
    for (i, (p, s)) in pos.iter().zip(clip.scales()).enumerate() {
        let j = i % joints;
        let l = f64::from(p.x).hypot(f64::from(p.y)).hypot(f64::from(p.z));
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
