//! The clips a crowd plays, checked against its skeleton.

use std::sync::Arc;

use crate::bvh::Bvh;
use crate::clip::Clip;
use crate::error::{Error, Result, refused_size, try_copy};
use crate::joint_map::{CmuNaming, JointMap};
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
/// Clips of another naming join through a [`JointMap`]
/// ([`ClipLibrary::add_mapped`]; [`ClipLibrary::add_cmu`] for the CMU
/// conventions, so that every clip of `data/mocap` plays in one crowd):
///
/// ```
/// use kineform::crowd::ClipLibrary;
/// let mocap = |f: &str| kineform::bvh::load(format!("{}/data/mocap/{f}", env!("CARGO_MANIFEST_DIR")));
/// // The steady walk (`LeftUpLeg`, `LeftHandIndex1`) on the embedded
/// // clip's skeleton (`LeftHip`, arms hanging at rest): plain `add_bvh`
/// // refuses it, naming joint 2.
/// let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
/// assert!(library.add_bvh(&mocap("cmu_12_01_walk_mb.bvh")?).is_err());
/// let walk = library.add_cmu(&mocap("cmu_12_01_walk_mb.bvh")?)?;
/// let jumps = library.add_cmu(&mocap("cmu_01_01_mb.bvh")?)?;
/// assert_eq!((walk, jumps, library.len()), (1, 2, 3));
/// # Ok::<(), kineform::Error>(())
/// ```
///
/// Rotations are stored as paths without sign jumps
/// ([`Clip::with_continuous_rotations`]).
///
/// The clips are shared, not copied, by `clone` (a crowd keeps its
/// library: [`crate::crowd::Crowd::library`]), so a crowd made from a
/// library of long clips holds one copy of them, not two. Adding to a
/// library whose clips are shared copies them first, reserved with
/// `try_reserve` ([`Error::Size`] where they do not fit, nothing added).
#[derive(Clone, Debug)]
pub struct ClipLibrary {
    skeleton: Skeleton,
    offsets: Vec<Vec3>,
    clips: Arc<Vec<Clip>>,
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
            clips: Arc::new(Vec::new()),
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

    /// A library on a BVH file's skeleton and offsets mapped through `map`
    /// ([`JointMap::apply`]), holding its mapped clip: the library's names
    /// and rest frames are the map's targets.
    pub fn from_bvh_mapped(b: &Bvh, map: &JointMap) -> Result<ClipLibrary> {
        let m = map.apply(&b.skeleton, &b.offsets, &b.clip)?;
        let mut lib = ClipLibrary::new(&m.skeleton, &m.offsets)?;
        lib.add(&m.skeleton, &m.clip)?;
        Ok(lib)
    }

    /// Adds a BVH file's clip through `map`: its joints renamed and its
    /// rotations carried into the map's rest frames ([`JointMap::apply`]),
    /// then matched to the library's joints by name, in whatever order the
    /// file has them, and added as [`ClipLibrary::add`] adds. Refuses,
    /// naming the joint and writing nothing: a library joint the mapped
    /// clip lacks, a clip joint the library lacks, and a joint whose parent
    /// is not the library's (the hierarchy is checked after mapping); and
    /// whatever [`JointMap::apply`] and [`ClipLibrary::add`] refuse.
    pub fn add_mapped(&mut self, b: &Bvh, map: &JointMap) -> Result<usize> {
        let m = map.apply(&b.skeleton, &b.offsets, &b.clip)?;
        let original = |k: usize| b.skeleton.names()[k].as_str();
        let mine = &self.skeleton;
        let theirs = m.skeleton.names();
        // order[j]: the clip joint that is library joint j.
        let mut order = Vec::with_capacity(mine.len());
        for (j, name) in mine.names().iter().enumerate() {
            let Some(k) = theirs.iter().position(|t| t == name) else {
                return Err(Error::Skeleton {
                    joint: j,
                    reason: format!(
                        "the clip has no joint `{name}` after the joint map (is it named otherwise? add it to the map)"
                    ),
                });
            };
            order.push(k);
        }
        if let Some(k) = (0..theirs.len()).find(|k| !order.contains(k)) {
            return Err(Error::Skeleton {
                joint: k,
                reason: format!(
                    "the clip's joint `{}` (mapped to `{}`) is not in the crowd's skeleton",
                    original(k),
                    theirs[k]
                ),
            });
        }
        fn parent_name(s: &Skeleton, j: usize) -> &str {
            match s.parents()[j] {
                p if p >= 0 => s.names()[p as usize].as_str(),
                _ => "no parent",
            }
        }
        for (j, &k) in order.iter().enumerate() {
            let (want, got) = (parent_name(mine, j), parent_name(&m.skeleton, k));
            if want != got {
                return Err(Error::Skeleton {
                    joint: j,
                    reason: format!(
                        "the clip's joint `{}` (mapped to `{}`) hangs from `{got}` where the crowd's hangs from `{want}`",
                        original(k),
                        theirs[k]
                    ),
                });
            }
        }
        // The clip's columns in the library's joint order (`order` is a
        // permutation of the clip's joints: each found once, none left).
        fn pick<T: Copy>(
            what: &'static str,
            v: &[T],
            order: &[usize],
            frames: usize,
        ) -> Result<Vec<T>> {
            let joints = order.len();
            let n = crate::error::checked_mul(what, frames, joints)?;
            let picked = (0..frames).flat_map(|f| order.iter().map(move |&k| v[f * joints + k]));
            crate::error::try_collect(what, n, picked)
        }
        let (frames, c) = (m.clip.frames(), &m.clip);
        let clip = Clip::new(
            frames,
            order.len(),
            c.frame_time(),
            pick("clip positions", c.positions(), &order, frames)?,
            pick("clip rotations", c.rotations(), &order, frames)?,
            pick("clip scales", c.scales(), &order, frames)?,
        )?;
        // Now in the library's order and hierarchy (checked above).
        let skeleton = self.skeleton.clone();
        self.add(&skeleton, &clip)
    }

    /// Adds a CMU clip of any of the naming conventions of `data/mocap`
    /// ([`CmuNaming`]) to a library on a CMU skeleton of any of them:
    /// [`ClipLibrary::add_mapped`] with [`JointMap::cmu`] from the file's
    /// convention to the library's. Refuses, naming the joint, a file or a
    /// library that is not of a CMU convention ([`CmuNaming::of`]).
    pub fn add_cmu(&mut self, b: &Bvh) -> Result<usize> {
        let from = CmuNaming::of(&b.skeleton)?;
        let to = CmuNaming::of(&self.skeleton).map_err(|e| match e {
            Error::Skeleton { joint, reason } => Error::Skeleton {
                joint,
                reason: format!("the crowd's skeleton: {reason}"),
            },
            e => e,
        })?;
        self.add_mapped(b, &JointMap::cmu(from, to))
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
        clip.check_reach(mine.parents(), &pos)?;
        let mut c = Clip::new(
            frames,
            joints,
            clip.frame_time(),
            pos,
            try_copy("clip rotations", clip.rotations())?,
            try_copy("clip scales", clip.scales())?,
        )?;
        c.make_rotations_continuous();
        c.markers = clip.markers.clone();
        let clips = self.clips_mut()?;
        clips
            .try_reserve(1)
            .map_err(|_| refused_size::<Clip>("library clips", clips.len() + 1))?;
        clips.push(c);
        Ok(clips.len() - 1)
    }

    /// Drops the clips from index `len` on (none where it holds `len` or
    /// fewer): a caller that added several and met a refusal takes them
    /// back, so that it adds all or nothing.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.clips.len() {
            // Taking back clips this library just added, so its clips are
            // its own (clips_mut made them so): make_mut copies nothing.
            Arc::make_mut(&mut self.clips).truncate(len);
        }
    }

    /// The clips, to change: this library's own, or, where a clone shares
    /// them, a copy of them made its own first (each reserved with
    /// `try_reserve`: [`Error::Size`] where they do not fit, and the
    /// library unchanged).
    fn clips_mut(&mut self) -> Result<&mut Vec<Clip>> {
        if Arc::get_mut(&mut self.clips).is_none() {
            let copies = self.clips.iter().map(Clip::try_clone);
            let mut own = crate::error::try_empty("library clips", self.clips.len())?;
            for c in copies {
                own.push(c?);
            }
            self.clips = Arc::new(own);
        }
        // Its own now: make_mut copies nothing.
        Ok(Arc::make_mut(&mut self.clips))
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

    /// Adds a marker named `name` at `time` seconds to clip `clip` (the
    /// clip's own, [`Clip::add_marker`], refused as it refuses, or an
    /// [`Error::Index`] for a clip past the library); returns its index
    /// among the clip's markers. A crowd takes the library's markers when
    /// it is built.
    pub fn add_marker(&mut self, clip: usize, name: &str, time: f32) -> Result<usize> {
        self.clip_mut(clip)?.add_marker(name, time)
    }

    /// Adds a marker named `name` where joint `foot` (named) of clip `clip`
    /// comes down ([`Clip::add_foot_contacts`] on the library's skeleton);
    /// returns how many. Refused, with nothing added, for a joint the
    /// skeleton lacks, a clip past the library, and what
    /// [`Clip::add_foot_contacts`] refuses.
    pub fn add_foot_contacts(
        &mut self,
        clip: usize,
        foot: &str,
        name: &str,
        c: &crate::markers::FootContact,
    ) -> Result<usize> {
        let joint = self.skeleton.find(foot).ok_or_else(|| Error::Skeleton {
            joint: self.skeleton.len(),
            reason: format!("no joint named `{foot}` for foot contacts"),
        })?;
        let parents = self.skeleton.parents().to_vec();
        self.clip_mut(clip)?
            .add_foot_contacts(&parents, joint, name, c)
    }

    fn clip_mut(&mut self, clip: usize) -> Result<&mut Clip> {
        let len = self.clips.len();
        if clip >= len {
            return Err(Error::Index {
                what: "clip",
                index: clip,
                len,
            });
        }
        self.clips_mut()?.get_mut(clip).ok_or(Error::Index {
            what: "clip",
            index: clip,
            len,
        })
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
