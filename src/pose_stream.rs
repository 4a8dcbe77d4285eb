//! Crowds that hold only what the caller uses: [`PoseStream<T>`] is C
//! characters × J joints of one joint type `T` ([`PosRotx8`],
//! [`PosRotSclx8`], [`Motionx8`] or [`crate::lanes::Kformx8`]), in packs of eight
//! characters like [`crate::stream::CrowdPose`]: pack `p` is characters
//! `8p .. 8p + 8`, one `T` per joint, lane `i` being character `8p + i`.
//!
//! A renderer that needs world positions and rotations keeps
//! `PoseStream<PosRotx8>`, 28 bytes per character-joint, where a
//! [`crate::stream::CrowdPose`] moves 76; forward kinematics over it
//! ([`crate::batch::fk`]) reads and writes those 28 bytes and nothing else.
//!
//! Constructors check their sizes (checked arithmetic, `try_reserve`) and
//! return [`Error::Size`] before allocating anything they cannot hold.
//! Padding lanes of a partial last pack hold the identity, so kernels stay
//! finite there; they never reach [`PoseStream::get`].
//!
//! The new lane types also implement [`Lanes`], so a
//! [`crate::stream::Stream`] of them holds N joints of one character.
//!
//! ```
//! use kineform::lanes::PosRotx8;
//! use kineform::pose_stream::PoseStream;
//! use kineform::reference::{PosRot, Quat, Vec3};
//! use kineform::{Skeleton, batch};
//!
//! // A chain of three joints, each one unit along x from its parent.
//! let skeleton = Skeleton::new(vec![-1, 0, 1])?;
//! let step = PosRot { pos: Vec3::new(1.0, 0.0, 0.0), rot: Quat::IDENTITY };
//! let local = PoseStream::<PosRotx8>::from_fn(1000, 3, |_, _| step)?;
//! let mut world = PoseStream::<PosRotx8>::new(1000, 3)?;
//! batch::fk::op_fk(&mut world, &local, &skeleton)?;
//! assert_eq!(world.get(999, 2).map(|j| j.pos), Some(Vec3::new(3.0, 0.0, 0.0)));
//! # Ok::<(), kineform::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::lanes::{Jointx8, Motionx8, PosRotSclx8, PosRotx8};
use crate::reference::{Joint, Motion, PosRot, PosRotScl};
use crate::stream::{CrowdPose, Lanes, packs_for};

macro_rules! impl_lanes {
    ($lanes:ty, $elem:ty) => {
        impl Lanes for $lanes {
            type Elem = $elem;
            fn from_array(e: [$elem; 8]) -> Self {
                <$lanes>::from_array(e)
            }
            fn to_array(self) -> [$elem; 8] {
                <$lanes>::to_array(self)
            }
        }
    };
}
impl_lanes!(PosRotx8, PosRot);
impl_lanes!(PosRotSclx8, PosRotScl);
impl_lanes!(Motionx8, Motion);

/// C characters × J joints of `T` that share one skeleton, in packs of
/// eight characters (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PoseStream<T: Jointx8> {
    data: Vec<T>,
    characters: usize,
    joints: usize,
}

/// `packs × joints` copies of `value`; [`Error::Length`] for zero joints
/// (a character is at least its root: every view of a stream,
/// [`crate::output::Packed`], needs one), or [`Error::Size`] when the
/// count or its bytes overflow or the memory cannot be reserved (nothing
/// allocated).
fn lane_vec<T: Jointx8>(characters: usize, joints: usize, value: T) -> Result<Vec<T>> {
    if joints == 0 {
        return Err(Error::Length {
            what: "joints per character (at least 1)",
            expected: 1,
            got: 0,
        });
    }
    let size = |reason: String| Error::Size {
        what: "pose stream",
        reason,
    };
    let n = packs_for(characters).checked_mul(joints).ok_or_else(|| {
        size(format!(
            "{characters} characters × {joints} joints overflow"
        ))
    })?;
    let bytes = n
        .checked_mul(size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| size(format!("{n} packed joints overflow the address space")))?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| size(format!("{bytes} bytes could not be reserved")))?;
    v.resize(n, value);
    Ok(v)
}

impl<T: Jointx8> PoseStream<T> {
    /// Bytes per character-joint: what forward kinematics reads from the
    /// local stream and writes to the global one for each.
    pub const BYTES_PER_JOINT: usize = size_of::<T>() / 8;

    /// `characters × joints` identities; refused with [`Error::Length`]
    /// for zero joints, [`Error::Size`] past what memory holds.
    pub fn new(characters: usize, joints: usize) -> Result<PoseStream<T>> {
        Ok(PoseStream {
            data: lane_vec(characters, joints, T::IDENTITY)?,
            characters,
            joints,
        })
    }

    /// Joint `j` of character `c` is `f(c, j)`; or [`Error::Size`].
    pub fn from_fn(
        characters: usize,
        joints: usize,
        mut f: impl FnMut(usize, usize) -> T::Elem,
    ) -> Result<PoseStream<T>> {
        let mut s = PoseStream::new(characters, joints)?;
        for (p, pack) in s.data.chunks_mut(joints.max(1)).enumerate() {
            for (j, slot) in pack.iter_mut().enumerate() {
                let mut a = [T::Elem::IDENTITY; 8];
                for (i, e) in a.iter_mut().enumerate() {
                    let c = p * 8 + i;
                    if c < characters {
                        *e = f(c, j);
                    }
                }
                *slot = T::from_array(a);
            }
        }
        Ok(s)
    }

    /// The fields of `crowd` that `T` holds (the others dropped); or
    /// [`Error::Size`].
    pub fn from_crowd_pose(crowd: &CrowdPose) -> Result<PoseStream<T>> {
        let mut s = PoseStream::new(crowd.characters(), crowd.joints())?;
        for (o, k) in s.data.iter_mut().zip(crowd.lanes()) {
            *o = T::from_kform(k);
        }
        Ok(s)
    }

    /// Number of characters.
    pub fn characters(&self) -> usize {
        self.characters
    }

    /// Joints per character.
    pub fn joints(&self) -> usize {
        self.joints
    }

    /// Number of packs of eight characters.
    pub fn packs(&self) -> usize {
        packs_for(self.characters)
    }

    /// Pack `p`: one `T` per joint (panics past the last pack).
    pub fn pack(&self, p: usize) -> &[T] {
        &self.data[p * self.joints..(p + 1) * self.joints]
    }

    /// Pack `p`, mutable.
    pub fn pack_mut(&mut self, p: usize) -> &mut [T] {
        &mut self.data[p * self.joints..(p + 1) * self.joints]
    }

    /// All packs, joint-major within each pack.
    pub fn lanes(&self) -> &[T] {
        &self.data
    }

    /// All packs, mutable.
    pub fn lanes_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// Joint `j` of character `c`, or `None` out of range.
    pub fn get(&self, c: usize, j: usize) -> Option<T::Elem> {
        (c < self.characters && j < self.joints)
            .then(|| self.data[(c / 8) * self.joints + j].to_array()[c % 8])
    }

    /// Sets joint `j` of character `c`; false (nothing written) out of range.
    pub fn set(&mut self, c: usize, j: usize, e: T::Elem) -> bool {
        if c >= self.characters || j >= self.joints {
            return false;
        }
        let slot = &mut self.data[(c / 8) * self.joints + j];
        let mut a = slot.to_array();
        a[c % 8] = e;
        *slot = T::from_array(a);
        true
    }

    /// The storage viewed as floats (padding included): pack, then joint,
    /// then each field's eight lanes.
    pub fn as_f32s(&self) -> &[f32] {
        bytemuck::cast_slice(&self.data)
    }
}
