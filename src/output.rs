//! Lane output copied into the caller's memory, one element per character
//! and joint, in any type a kineform value converts into.
//!
//! Kernels keep joints in packs of eight characters (lane `i` of pack `p`
//! is character `8p + i`); a game wants one transform per character and
//! joint, character-major: `out[c * joints + j]`. [`Packed`] is a checked
//! view of such packs (a [`CrowdPose`], a [`KformStream`], or any runtime's
//! own pack type that implements [`JointLanes`]), and [`positions`],
//! [`rotations`] and [`transforms`] copy it out, converting each element
//! with `From`: into kineform's own [`Vec3`]/[`Quat`]/[`Kform`], and with
//! the `glam` or `mint` features into `glam::Vec3`, `glam::Quat`,
//! `glam::Mat4`, `glam::Affine3A` or the mint types (see
//! [`crate::interop`]).
//!
//! A copy checks the output's length first and writes nothing when it
//! refuses. Packs are copied in parallel on the current rayon pool.
//!
//! ```
//! use kineform::output::{self, Packed};
//! use kineform::reference::{Kform, Vec3};
//! use kineform::stream::CrowdPose;
//!
//! // 10 characters x 2 joints; character 9's joint 1 at (1, 2, 3).
//! let mut pose = CrowdPose::new(10, 2)?;
//! pose.set(9, 1, Kform { pos: Vec3::new(1.0, 2.0, 3.0), ..Kform::IDENTITY });
//! let mut out = vec![Vec3::ZERO; 20];
//! output::positions(pose.packed(), &mut out)?;
//! assert_eq!(out[9 * 2 + 1], Vec3::new(1.0, 2.0, 3.0));
//! // A buffer of the wrong length is refused, and left as it was.
//! assert!(output::positions(pose.packed(), &mut out[..19]).is_err());
//! # Ok::<(), kineform::Error>(())
//! ```

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::lanes::{Kformx8, Quatx8, Vec3x8};
use crate::reference::{Kform, Quat, Vec3};
use crate::rows::{self, KformRows, Rows3, Rows4};
use crate::stream::{CrowdPose, KformStream, Lanes, Stream, packs_for};

/// One joint of eight characters, as any pack type holds it: what a copy
/// or a skinning pass reads. Implement it for a runtime's own pack type
/// (positions and rotations at least; scales default to one) to use
/// [`Packed`] over its output.
pub trait JointLanes: Copy + Send + Sync {
    /// Positions of the eight lanes.
    fn positions(&self) -> Vec3x8;
    /// Rotations of the eight lanes (unit quaternions, `w` first).
    fn rotations(&self) -> Quatx8;
    /// Scales of the eight lanes; one by default.
    fn scales(&self) -> Vec3x8 {
        Vec3x8::ONE
    }
}

impl JointLanes for Kformx8 {
    #[inline(always)]
    fn positions(&self) -> Vec3x8 {
        self.pos
    }
    #[inline(always)]
    fn rotations(&self) -> Quatx8 {
        self.rot
    }
    #[inline(always)]
    fn scales(&self) -> Vec3x8 {
        self.scl
    }
}

/// A checked view of `characters × joints` joints held in packs of eight
/// characters: `packs[p * joints + j]` is joint `j` of characters
/// `8p .. 8p + 8`, lane `i` being character `8p + i`. Lanes past the last
/// character (a partial last pack) are never read.
#[derive(Debug)]
pub struct Packed<'a, T> {
    packs: &'a [T],
    characters: usize,
    joints: usize,
}

impl<T> Clone for Packed<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Packed<'_, T> {}

impl<'a, T: JointLanes> Packed<'a, T> {
    /// A view of `packs` as `characters × joints`; refuses zero joints and
    /// a `packs` whose length is not `ceil(characters / 8) × joints`.
    pub fn new(packs: &'a [T], characters: usize, joints: usize) -> Result<Packed<'a, T>> {
        if joints == 0 {
            return Err(Error::Length {
                what: "joints per character (at least 1)",
                expected: 1,
                got: 0,
            });
        }
        let expected = packs_for(characters)
            .checked_mul(joints)
            .ok_or(Error::Length {
                what: "packs (characters x joints overflows)",
                expected: usize::MAX,
                got: packs.len(),
            })?;
        if packs.len() != expected {
            return Err(Error::Length {
                what: "packs (ceil(characters / 8) x joints)",
                expected,
                got: packs.len(),
            });
        }
        Ok(Packed {
            packs,
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

    /// `characters × joints`: the length an output slice must have.
    pub fn len(&self) -> usize {
        self.characters * self.joints
    }

    /// True when there is no character.
    pub fn is_empty(&self) -> bool {
        self.characters == 0
    }

    /// All packs, joint-major within each pack.
    pub fn packs(&self) -> &'a [T] {
        self.packs
    }

    /// Checks that `out` has one element per character and joint.
    pub(crate) fn check_out(&self, what: &'static str, out: usize) -> Result<()> {
        if out == self.len() {
            Ok(())
        } else {
            Err(Error::Length {
                what,
                expected: self.len(),
                got: out,
            })
        }
    }

    /// Runs `f(pack, lanes, out)` for each pack with the slice of `out`
    /// that holds its characters (`lanes × joints` elements,
    /// character-major), packs in parallel. `out` must have [`Self::len`]
    /// elements.
    pub(crate) fn for_each_pack<O: Send>(
        &self,
        out: &mut [O],
        f: impl Fn(&[T], usize, &mut [O]) + Send + Sync,
    ) {
        let j = self.joints;
        let packs = self.packs.par_chunks(j);
        // At least 16 packs per task: a pack's copy is a few hundred
        // nanoseconds, rayon's task overhead a few microseconds.
        out.par_chunks_mut(8 * j)
            .zip(packs)
            .with_min_len(16)
            .for_each(|(o, pack)| f(pack, o.len() / j, o));
    }

    /// Starts loading every line of the pack after `pack` (one of this
    /// view's) when the view outgrows a core's L2 (above
    /// [`crate::database::compact::PREFETCH_ABOVE_BYTES`]): what the
    /// matrix readers do while they write a pack, each matrix reading a
    /// joint's position, rotation and scale (Zen 5, 10,000 characters
    /// from memory: `output::transforms` 0.75 to 0.81x the time on one thread, the
    /// same on two; in L2 the prefetches only cost), on a CPU where that
    /// was measured faster ([`crate::prefetch::rows_ahead_help`]: on an
    /// Intel Xeon `output::transforms` took 1.34x the time with it).
    #[inline(always)]
    pub(crate) fn fetch_next(&self, pack: &[T]) {
        if size_of_val(self.packs) > crate::database::compact::PREFETCH_ABOVE_BYTES
            && crate::prefetch::rows_ahead_help()
        {
            crate::prefetch::next_run_to_l2(pack);
        }
    }
}

/// Runs `write(scratch, pack, lanes, out)` for each pack of `src` with the
/// slice of `out` that holds its characters, packs in parallel as
/// [`Packed::for_each_pack`], one scratch made by `scratch` per task.
fn by_rows<T: JointLanes, O: Send, R>(
    src: Packed<'_, T>,
    out: &mut [O],
    what: &'static str,
    scratch: impl Fn() -> R + Send + Sync,
    write: impl Fn(&mut R, &[T], usize, &mut [O]) + Send + Sync,
) -> Result<()> {
    src.check_out(what, out.len())?;
    let j = src.joints;
    out.par_chunks_mut(8 * j)
        .zip(src.packs.par_chunks(j))
        .with_min_len(16)
        .for_each_init(scratch, |r, (o, pack)| write(r, pack, o.len() / j, o));
    Ok(())
}

/// Copies every joint's position to `out[c * joints + j]`, converted with
/// `From<Vec3>` (for example into `glam::Vec3` with the `glam` feature).
/// Refuses, writing nothing, an `out` whose length is not
/// `characters × joints`.
pub fn positions<T: JointLanes, O: From<Vec3> + Send>(
    src: Packed<'_, T>,
    out: &mut [O],
) -> Result<()> {
    by_rows(
        src,
        out,
        "output positions",
        Rows3::new,
        |r, pack, lanes, o| rows::pack_rows3(r, pack, 0..lanes, o, T::positions),
    )
}

/// Copies every joint's rotation to `out[c * joints + j]`, converted with
/// `From<Quat>` (`glam::Quat` is `(x, y, z, w)`: the conversion reorders).
/// Refuses, writing nothing, an `out` of the wrong length.
pub fn rotations<T: JointLanes, O: From<Quat> + Send>(
    src: Packed<'_, T>,
    out: &mut [O],
) -> Result<()> {
    by_rows(
        src,
        out,
        "output rotations",
        Rows4::new,
        |r, pack, lanes, o| rows::pack_rows4(r, pack, 0..lanes, o, T::rotations),
    )
}

/// Copies every joint's position, rotation and scale (velocities zero) to
/// `out[c * joints + j]`, converted with `From<Kform>`: into a column-major
/// `[f32; 16]` through [`crate::skinning::kform_matrix`], or a `glam::Mat4`
/// or `glam::Affine3A` with the `glam` feature. Refuses, writing nothing,
/// an `out` of the wrong length.
pub fn transforms<T: JointLanes, O: From<Kform> + Send>(
    src: Packed<'_, T>,
    out: &mut [O],
) -> Result<()> {
    by_rows(
        src,
        out,
        "output transforms",
        KformRows::new,
        |r, pack, lanes, o| {
            src.fetch_next(pack);
            rows::pack_rows_kform(r, pack, 0..lanes, o, T::positions, T::rotations, T::scales)
        },
    )
}

impl CrowdPose {
    /// The crowd as a [`Packed`] view, for [`positions`], [`rotations`],
    /// [`transforms`] and [`crate::skinning`].
    pub fn packed(&self) -> Packed<'_, Kformx8> {
        Packed::new(self.lanes(), self.characters(), self.joints())
            .expect("a CrowdPose holds ceil(characters / 8) x joints packs")
    }
}

impl KformStream {
    /// The stream as a [`Packed`] view of one joint per element.
    pub fn packed(&self) -> Packed<'_, Kformx8> {
        Packed::new(self.packs(), self.len(), 1).expect("a stream holds ceil(len / 8) packs")
    }
}

impl<L: Lanes> Stream<L> {
    /// Copies the elements into `out`, converting each with `From`: a
    /// [`crate::stream::Vec3Stream`] into `glam::Vec3`, a
    /// [`crate::stream::QuatStream`] into `glam::Quat` (with the `glam`
    /// feature), a [`KformStream`] into `glam::Mat4` or `[f32; 16]`.
    /// Refuses, writing nothing, an `out` whose length is not [`Self::len`].
    ///
    /// ```
    /// use kineform::reference::Vec3;
    /// use kineform::stream::Vec3Stream;
    ///
    /// let s = Vec3Stream::from_elems(&[Vec3::new(1.0, 2.0, 3.0); 9])?;
    /// let mut out = [[0.0f32; 3]; 9];
    /// s.write_into(&mut out)?;
    /// assert_eq!(out[8], [1.0, 2.0, 3.0]);
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn write_into<O: From<L::Elem> + Send>(&self, out: &mut [O]) -> Result<()> {
        if out.len() != self.len() {
            return Err(Error::Length {
                what: "output elements",
                expected: self.len(),
                got: out.len(),
            });
        }
        out.par_chunks_mut(8 * 64)
            .zip(self.packs().par_chunks(64))
            .for_each(|(o, p)| L::write_elems(p, o));
        Ok(())
    }
}

impl From<Vec3> for [f32; 3] {
    fn from(v: Vec3) -> [f32; 3] {
        v.to_array()
    }
}

/// `(x, y, z, w)`: the order of glTF, glam and most engines (kineform's
/// [`Quat`] is `w` first).
impl From<Quat> for [f32; 4] {
    fn from(q: Quat) -> [f32; 4] {
        [q.x, q.y, q.z, q.w]
    }
}

/// The column-major 4x4 matrix `T R S` of [`crate::skinning::kform_matrix`].
impl From<Kform> for [f32; 16] {
    fn from(k: Kform) -> [f32; 16] {
        crate::skinning::kform_matrix(&k)
    }
}
