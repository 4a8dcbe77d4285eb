//! Structure-of-arrays storage owned as lane vectors.
//!
//! A [`Stream`] holds N elements (f32, vectors, quaternions or kineforms)
//! as `ceil(N / 8)` lane values, element `8k + i` in lane `i` of pack `k`. A
//! [`CrowdPose`] holds C characters × J joints: pack `p` is characters
//! `8p .. 8p + 8`, one [`Kformx8`] per joint, lane `i` being character
//! `8p + i`, so forward kinematics walks joints parent-first doing full
//! 8-wide work at each step.
//!
//! Storage is a `Vec` of lane types (32-byte aligned), never a cast of a
//! caller's `&[f32]`, whose alignment is not guaranteed. [`Stream::as_f32s`]
//! and [`CrowdPose::as_f32s`] view it as plain floats through bytemuck: per
//! pack, each field's eight lanes are contiguous (`x0..x7, y0..y7, ...`).
//! Padding lanes of a partial last pack hold identity values so kernels stay
//! finite there; they never reach [`Stream::to_vec`] or [`CrowdPose::get`].
//! [`CrowdHalflives`] holds a crowd's per-joint, per-axis dead-blending
//! half-lives in the same pack layout.

use bytemuck::Pod;

use crate::error::{Error, Result, try_vec};
use crate::lanes::{F32x8, Kformx8, Quatx8, Vec3x8};
use crate::reference::{Kform, Pose, Quat, Vec3};

/// A lane type: eight `Elem`s side by side.
pub trait Lanes: Pod + Send + Sync {
    /// The scalar element.
    type Elem: Copy + Default + Send + Sync;
    /// Lane `i` holds `e[i]`.
    fn from_array(e: [Self::Elem; 8]) -> Self;
    /// The eight lanes.
    fn to_array(self) -> [Self::Elem; 8];

    /// Copies the elements of `packs` into `out`, element `8p + k` being
    /// lane `k` of pack `p`, converted with `From`, for as many elements
    /// as `out` has (at most `8 * packs.len()`):
    /// [`Stream::write_into`]'s copy. By default lane arrays, element by
    /// element; [`Vec3x8`] and [`Quatx8`] transpose in registers
    /// (8x3 and 8x4 blocks) and write `out` front to back.
    fn write_elems<O: From<Self::Elem>>(packs: &[Self], out: &mut [O]) {
        for (o, p) in out.chunks_mut(8).zip(packs) {
            for (o, e) in o.iter_mut().zip(p.to_array()) {
                *o = O::from(e);
            }
        }
    }
}

impl Lanes for F32x8 {
    type Elem = f32;
    fn from_array(e: [f32; 8]) -> Self {
        F32x8::new(e)
    }
    fn to_array(self) -> [f32; 8] {
        F32x8::to_array(self)
    }
}

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
impl_lanes!(Kformx8, Kform);

impl Lanes for Vec3x8 {
    type Elem = Vec3;
    fn from_array(e: [Vec3; 8]) -> Self {
        Vec3x8::from_array(e)
    }
    fn to_array(self) -> [Vec3; 8] {
        Vec3x8::to_array(self)
    }
    fn write_elems<O: From<Vec3>>(packs: &[Self], out: &mut [O]) {
        crate::rows::runs3(packs, out);
    }
}

impl Lanes for Quatx8 {
    type Elem = Quat;
    fn from_array(e: [Quat; 8]) -> Self {
        Quatx8::from_array(e)
    }
    fn to_array(self) -> [Quat; 8] {
        Quatx8::to_array(self)
    }
    fn write_elems<O: From<Quat>>(packs: &[Self], out: &mut [O]) {
        crate::rows::runs4(packs, out);
    }
}

/// Number of 8-lane packs that hold `n` elements.
pub const fn packs_for(n: usize) -> usize {
    n.div_ceil(8)
}

/// N elements stored as lane values, padded to a whole pack with
/// `Elem::default()` (zero, the identity rotation, the identity kineform).
#[derive(Clone, Debug, PartialEq)]
pub struct Stream<L: Lanes> {
    data: Vec<L>,
    len: usize,
}

/// A stream of f32.
pub type F32Stream = Stream<F32x8>;
/// A stream of 3-vectors.
pub type Vec3Stream = Stream<Vec3x8>;
/// A stream of quaternions.
pub type QuatStream = Stream<Quatx8>;
/// A stream of kineforms (for example the joints of one pose).
pub type KformStream = Stream<Kformx8>;

impl<L: Lanes> Stream<L> {
    /// `len` default elements. [`Error::Size`] (nothing allocated) when the
    /// memory cannot be reserved.
    pub fn new(len: usize) -> Result<Self> {
        Ok(Stream {
            data: try_vec(
                "stream elements",
                packs_for(len),
                L::from_array([L::Elem::default(); 8]),
            )?,
            len,
        })
    }

    /// A stream holding `elems`. [`Error::Size`] when the memory cannot be
    /// reserved.
    pub fn from_elems(elems: &[L::Elem]) -> Result<Self> {
        let mut data = Vec::new();
        data.try_reserve_exact(packs_for(elems.len()))
            .map_err(|_| Error::Size {
                what: "stream elements",
                reason: format!("{} elements could not be reserved", elems.len()),
            })?;
        data.extend(elems.chunks(8).map(|c| {
            let mut a = [L::Elem::default(); 8];
            a[..c.len()].copy_from_slice(c);
            L::from_array(a)
        }));
        Ok(Stream {
            data,
            len: elems.len(),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lane values, `ceil(len / 8)` of them.
    pub fn packs(&self) -> &[L] {
        &self.data
    }

    /// The lane values, mutable.
    pub fn packs_mut(&mut self) -> &mut [L] {
        &mut self.data
    }

    /// Element `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<L::Elem> {
        (i < self.len).then(|| self.data[i / 8].to_array()[i % 8])
    }

    /// Sets element `i`; returns false (and writes nothing) past the end.
    pub fn set(&mut self, i: usize, e: L::Elem) -> bool {
        if i >= self.len {
            return false;
        }
        let mut a = self.data[i / 8].to_array();
        a[i % 8] = e;
        self.data[i / 8] = L::from_array(a);
        true
    }

    /// The elements, without padding.
    pub fn to_vec(&self) -> Vec<L::Elem> {
        let mut v: Vec<L::Elem> = self.data.iter().flat_map(|p| p.to_array()).collect();
        v.truncate(self.len);
        v
    }

    /// The storage viewed as floats (padding included), pack by pack.
    pub fn as_f32s(&self) -> &[f32] {
        bytemuck::cast_slice(&self.data)
    }

    /// The storage viewed as mutable floats.
    pub fn as_f32s_mut(&mut self) -> &mut [f32] {
        bytemuck::cast_slice_mut(&mut self.data)
    }
}

/// The kineforms of C characters × J joints that share one skeleton, in
/// packs of eight characters (see the module docs): a
/// [`PoseStream`](crate::pose_stream::PoseStream) of full kineforms, 608
/// bytes per pack of eight characters and joint ([`CrowdPose::new`] makes
/// identities, refused with [`Error::Size`] when the size overflows or the
/// memory cannot be reserved).
pub type CrowdPose = crate::pose_stream::PoseStream<Kformx8>;

impl CrowdPose {
    /// A crowd from one pose per character. Refused with [`Error::Length`]
    /// naming the first character whose pose does not have `joints` joints
    /// in every field.
    pub fn from_poses(poses: &[Pose], joints: usize) -> Result<CrowdPose> {
        if let Some(p) = poses
            .iter()
            .find(|p| p.len() != joints || !p.is_consistent())
        {
            let fields = [
                &p.pos.len(),
                &p.rot.len(),
                &p.scl.len(),
                &p.vel.len(),
                &p.ang.len(),
                &p.svl.len(),
            ];
            let got = fields
                .into_iter()
                .copied()
                .find(|&n| n != joints)
                .unwrap_or(joints);
            return Err(Error::Length {
                what: "pose joints (every field of every character's pose)",
                expected: joints,
                got,
            });
        }
        let mut crowd = CrowdPose::new(poses.len(), joints)?;
        for (c, p) in poses.iter().enumerate() {
            for j in 0..joints {
                crowd.set(c, j, p.get(j));
            }
        }
        Ok(crowd)
    }

    /// Character `c` as a pose, or `None` out of range.
    pub fn pose(&self, c: usize) -> Option<Pose> {
        (c < self.characters()).then(|| {
            let k: Vec<Kform> = (0..self.joints()).filter_map(|j| self.get(c, j)).collect();
            Pose::from_kforms(&k)
        })
    }
}

/// Per character, joint and axis half-lives of a crowd's dead blends, one
/// for positions and one for rotations
/// ([`crate::batch::deadblend::fit_halflives`] fills them): one [`Vec3x8`]
/// of each per pack and joint, in the layout of [`CrowdPose`] (pack `p` is
/// characters `8p .. 8p + 8`, lane `i` character `8p + i`), so pack `p`'s
/// half-lives sit beside [`CrowdPose::pack`]`(p)`.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdHalflives {
    pos: Vec<Vec3x8>,
    rot: Vec<Vec3x8>,
    characters: usize,
    joints: usize,
}

impl CrowdHalflives {
    /// Zero half-lives for `characters × joints`, or [`Error::Size`] when
    /// `ceil(characters / 8) × joints` overflows or its memory cannot be
    /// reserved (nothing allocated).
    pub fn new(characters: usize, joints: usize) -> Result<CrowdHalflives> {
        let n = packs_for(characters)
            .checked_mul(joints)
            .ok_or_else(|| crate::error::refused_size::<Vec3x8>("crowd half-lives", usize::MAX))?;
        Ok(CrowdHalflives {
            pos: try_vec("crowd position half-lives", n, Vec3x8::ZERO)?,
            rot: try_vec("crowd rotation half-lives", n, Vec3x8::ZERO)?,
            characters,
            joints,
        })
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

    /// Pack `p`'s position half-lives, one [`Vec3x8`] per joint (panics
    /// for `p >= packs()`, as a slice index does).
    pub fn pos_pack(&self, p: usize) -> &[Vec3x8] {
        &self.pos[p * self.joints..(p + 1) * self.joints]
    }

    /// Pack `p`'s rotation half-lives, one [`Vec3x8`] per joint (panics
    /// for `p >= packs()`).
    pub fn rot_pack(&self, p: usize) -> &[Vec3x8] {
        &self.rot[p * self.joints..(p + 1) * self.joints]
    }

    /// All packs' (position, rotation) half-lives, mutable, joint-major
    /// within each pack.
    pub fn lanes_mut(&mut self) -> (&mut [Vec3x8], &mut [Vec3x8]) {
        (&mut self.pos, &mut self.rot)
    }

    /// `(position half-lives, rotation half-lives)` of joint `j` of
    /// character `c`, or `None` out of range.
    pub fn get(&self, c: usize, j: usize) -> Option<(Vec3, Vec3)> {
        (c < self.characters && j < self.joints).then(|| {
            let k = (c / 8) * self.joints + j;
            (self.pos[k].lane(c % 8), self.rot[k].lane(c % 8))
        })
    }
}
