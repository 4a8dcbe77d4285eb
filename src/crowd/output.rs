//! What a step leaves for the caller: world poses copied into the caller's
//! memory (any character, a range of characters, or all; no allocation),
//! the characters' bounding boxes and the root motion a crowd extracts
//! (the step's events are in `events`).

use core::ops::Range;

use rayon::prelude::*;

use super::Crowd;
use super::Motionx8;
use super::bounds::{Aabb, check_readout};
use super::passes::Carried;
use crate::error::{Error, Result};
use crate::lanes::Vec3x8;
use crate::output::Packed;
use crate::reference::{Kform, Quat, Vec3};
use crate::rows::{self, AffineLayout, KformRows, Rows3, Rows4};
use crate::skinning::{self, InverseBind, SkinMatrix};

/// Characters per part of [`Crowd::bounds_into`] run on a core (whole
/// packs).
const BOX_PART: usize = 512;

impl Crowd {
    /// World-space output, pack-major: `world()[p * joints + j]` is joint `j`
    /// of characters `8p .. 8p + 8` (lane `i` character `8p + i`).
    ///
    /// With level of detail ([`super::CrowdConfig::level_of_detail`]), the
    /// rows hold each character's anchor, the world pose it was last
    /// evaluated at, which it shows carried along its velocities (and with
    /// the offset that hides a resumption, while that runs): the other
    /// readers ([`Crowd::world_kform`], [`Crowd::world_pose`], the `*_into`
    /// readers, [`Crowd::bounds`]) give that shown pose, made when they
    /// read it, so that a step costs a carried pack nothing per joint;
    /// this slice and [`Crowd::world_packed`] give the anchors.
    pub fn world(&self) -> &[super::Motionx8] {
        &self.packs.world
    }

    /// Pack `p` as it shows its pose where that is not its world rows
    /// (level of detail: [`Carried`]).
    fn carried(&self, p: usize) -> Option<Carried<'_>> {
        let s = &self.packs;
        Carried::of(&s.schedule[p], s.world.pack(p), s.lod_offset.pack(p))
    }

    /// Whether the matrix readers start loading each next pack's world
    /// rows, every line of them, while they write a pack: when the rows
    /// outgrow a core's L2 (above [`crate::database::compact::PREFETCH_ABOVE_BYTES`]
    /// of them), on a CPU where that was measured faster
    /// ([`crate::prefetch::rows_ahead_help`]: AMD's, not Intel's). A matrix reads each joint's position and rotation, 224 of
    /// its 416 bytes. Measured on the Zen 5 (`readout` bench, 10,000
    /// characters): the whole rows in turn, 0.85x the time of no
    /// prefetch; the two fields' lines joint by joint, as the vector
    /// readers fetch theirs, 1.35x. In L2 the 200 prefetches a pack only
    /// cost.
    fn fetch_ahead(&self) -> bool {
        crate::prefetch::rows_ahead_help()
            && size_of_val(&self.packs.world[..]) > crate::database::compact::PREFETCH_ABOVE_BYTES
    }

    /// The joint radii the boxes are padded by, where given.
    fn radii(&self) -> Option<&[f32]> {
        (!self.cfg.joint_radii.is_empty()).then_some(&self.radii[..])
    }

    /// Pack `p`'s boxes as shown.
    fn pack_box(&self, p: usize) -> super::bounds::Aabbx8 {
        match (self.packs.schedule[p].stale, self.carried(p)) {
            (1.., Some(k)) => k.bounds(self.radii()),
            _ => self.packs.bounds[p],
        }
    }

    /// Joint `j` of character `c` in world space (rotation, position and
    /// velocities; unit scale).
    pub fn world_kform(&self, c: usize, j: usize) -> Option<Kform> {
        let nj = self.skeleton.len();
        (c < self.cfg.characters && j < nj).then(|| {
            let w = &match self.carried(c / 8) {
                Some(k) => k.joint(j),
                None => self.packs.world[(c / 8) * nj + j],
            };
            let l = c % 8;
            Kform {
                pos: w.pos.lane(l),
                rot: w.rot.lane(l),
                vel: w.vel.lane(l),
                ang: w.ang.lane(l),
                ..Kform::IDENTITY
            }
        })
    }

    /// Character `c`'s world pose, joint by joint (crowd joints: 0 the
    /// root), read from its pack without touching any other.
    pub fn world_pose(&self, c: usize) -> Option<impl ExactSizeIterator<Item = Kform> + '_> {
        (c < self.cfg.characters).then(|| {
            (0..self.skeleton.len()).map(move |j| self.world_kform(c, j).unwrap_or_default())
        })
    }

    fn check_out(&self, chars: &Range<usize>, got: usize) -> Result<()> {
        check_joint_readout(chars, self.cfg.characters, self.skeleton.len(), got)
    }

    /// Copies characters `chars` into `out`, character-major (`out[(c -
    /// start) * joints + j]`): `write(scratch, p, pack, lanes, rows)` writes
    /// lanes `lanes` of pack `p` (its world rows `pack`) into their rows (`crate::rows`: each
    /// joint's lanes transposed in registers, the rows written front to
    /// back). A first pack entered part-way is copied alone; the rest go on
    /// the current rayon pool when there are enough of them to pay for it
    /// (32 packs; one scratch, made by `scratch`, per task), else on this
    /// thread. Where [`crate::prefetch::dest_ahead_for`] says so, each
    /// whole pack first takes the next pack's destination lines for
    /// writing (those of `out`: none past its end).
    fn copy_out<O: Send, R>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
        scratch: impl Fn() -> R + Send + Sync,
        write: impl Fn(&mut R, usize, &[Motionx8], Range<usize>, &mut [O]) + Send + Sync,
    ) -> Result<()> {
        self.check_out(&chars, out.len())?;
        let nj = self.skeleton.len();
        if nj == 0 || chars.is_empty() {
            return Ok(());
        }
        let (mut first, mut out) = (chars.start, out);
        let mut rows = scratch();
        let skip = first % 8;
        if skip != 0 {
            let hi = (chars.end - (first - skip)).min(8);
            let (head, rest) = out.split_at_mut((hi - skip) * nj);
            write(
                &mut rows,
                first / 8,
                &self.packs.world[(first / 8) * nj..][..nj],
                skip..hi,
                head,
            );
            first += hi - skip;
            out = rest;
        }
        let p0 = first / 8;
        let packs = &self.packs.world[p0 * nj..];
        let ahead = crate::prefetch::dest_ahead_for::<O>();
        // Nothing past `out` is taken: those lines are the caller's other
        // data, which another thread may be writing.
        let total = out.len();
        let write = |r: &mut R, p: usize, pack: &[Motionx8], o: &mut [O]| {
            let rest = total.saturating_sub((p + 1) * 8 * nj);
            if ahead && rest > 0 {
                crate::prefetch::next_run_for_write(&o[..o.len().min(rest)]);
            }
            write(r, p0 + p, pack, 0..o.len() / nj, o)
        };
        if out.len() < 32 * 8 * nj {
            let chunks = out.chunks_mut(8 * nj).zip(packs.chunks_exact(nj));
            for (p, (o, pack)) in chunks.enumerate() {
                write(&mut rows, p, pack, o);
            }
        } else {
            out.par_chunks_mut(8 * nj)
                .zip(packs.par_chunks_exact(nj))
                .enumerate()
                .with_min_len(16)
                .for_each_init(scratch, |r, (p, (o, pack))| write(r, p, pack, o));
        }
        Ok(())
    }

    /// One `Vec3x8` field of characters `chars` into `out`. The next
    /// pack's field is left to the hardware prefetcher: fetching it ahead
    /// (`rows::prefetch_next`) made these readers no faster, and up to 25%
    /// slower, on a Zen 3, a Zen 4 and a Zen 5 (PERF.md, "On the Zen 3 (2026-12-07)").
    fn copy3<O: From<Vec3> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
        field: impl Fn(&Motionx8) -> &Vec3x8 + Send + Sync,
    ) -> Result<()> {
        self.copy_out(chars, out, Rows3::new, |r, p, pack, lanes, o| {
            match self.carried(p) {
                Some(k) => rows::pack_rows3(r, pack, lanes, o, |m| *field(&k.joint(k.index(m)))),
                None => rows::pack_rows3(r, pack, lanes, o, &field),
            }
        })
    }

    /// World positions of characters `chars` into `out` (character-major:
    /// `out[(c - chars.start) * joints + j]`, crowd joints), converted with
    /// `From<Vec3>`: `[f32; 3]`, or `glam::Vec3` / `mint::Vector3` with
    /// those features. Refused, with nothing written, when the range or the
    /// slice's length is wrong. The whole packs of a range (after a first
    /// pack it enters part-way) are copied on the current rayon pool when
    /// there are 32 or more of them; one character reads only its own
    /// pack.
    pub fn positions_into<O: From<Vec3> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        self.copy3(chars, out, |m| &m.pos)
    }

    /// World velocities (units per second), laid out and converted as
    /// [`Crowd::positions_into`].
    pub fn velocities_into<O: From<Vec3> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        self.copy3(chars, out, |m| &m.vel)
    }

    /// World angular velocities (scaled angle axis per second), laid out
    /// and converted as [`Crowd::positions_into`].
    pub fn angular_velocities_into<O: From<Vec3> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        self.copy3(chars, out, |m| &m.ang)
    }

    /// World rotations, laid out as [`Crowd::positions_into`], converted
    /// with `From<Quat>`: `[f32; 4]` is `[x, y, z, w]` (glTF's, glam's and
    /// most engines' order; kineform's [`Quat`] is `w` first), and
    /// `glam::Quat` / `mint::Quaternion` convert with those features.
    pub fn rotations_into<O: From<Quat> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        let ahead = crate::prefetch::rows_ahead_help();
        self.copy_out(chars, out, Rows4::new, |r, p, pack, lanes, o| {
            if ahead {
                rows::prefetch_next(pack, |m: &Motionx8| &m.rot);
            }
            match self.carried(p) {
                Some(k) => rows::pack_rows4(r, pack, lanes, o, |m| k.joint(k.index(m)).rot),
                None => rows::pack_rows4(r, pack, lanes, o, |m: &Motionx8| &m.rot),
            }
        })
    }

    /// World transforms `T R` (unit scale) of characters `chars`, laid
    /// out as [`Crowd::positions_into`], converted with `From<Kform>`:
    /// `[f32; 16]` column-major ([`crate::skinning::kform_matrix`]'s), or
    /// `glam::Mat4` / `mint::ColumnMatrix4` with those features. With level
    /// of detail, the pose each character shows (as [`Crowd::world_kform`],
    /// not the anchors of [`Crowd::world_packed`]). Into `[f32; 16]` and
    /// `glam::Mat4` each joint's eight matrices are made in lanes and
    /// transposed in registers straight into `out`. Refused, with nothing
    /// written, as the other readers.
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let mut crowd = Crowd::new(&library, CrowdConfig { characters: 10, ..Default::default() })?;
    /// crowd.step(1.0 / 60.0)?;
    /// let joints = crowd.skeleton().len();
    /// let mut m = vec![[0.0f32; 16]; 10 * joints]; // the game's, kept across frames
    /// crowd.transforms_into(0..10, &mut m)?;
    /// let hips = crowd.world_kform(9, 1).unwrap();
    /// assert_eq!(m[9 * joints + 1], kineform::skinning::kform_matrix(&hips));
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn transforms_into<O: From<Kform> + Send>(
        &self,
        chars: Range<usize>,
        out: &mut [O],
    ) -> Result<()> {
        let fetch = self.fetch_ahead();
        self.copy_out(chars, out, KformRows::new, |r, p, pack, lanes, o| {
            if fetch {
                crate::prefetch::next_run_to_l2(pack);
            }
            let one = |_: &Motionx8| Vec3x8::ONE;
            match (self.carried(p), rows::affine_floats(o)) {
                (None, Some((floats, AffineLayout::Cols16))) => {
                    rows::pack_affine(pack, lanes, floats, AffineLayout::Cols16, |_, m| {
                        skinning::kform_lanes(m.pos, m.rot, Vec3x8::ONE)
                    });
                }
                (Some(k), Some((floats, AffineLayout::Cols16))) => {
                    rows::pack_affine(pack, lanes, floats, AffineLayout::Cols16, |j, _| {
                        let s = k.joint(j);
                        skinning::kform_lanes(s.pos, s.rot, Vec3x8::ONE)
                    });
                }
                (None, _) => rows::pack_rows_kform(r, pack, lanes, o, |m| m.pos, |m| m.rot, one),
                (Some(k), _) => {
                    let at = |m: &Motionx8| k.joint(k.index(m));
                    rows::pack_rows_kform(r, pack, lanes, o, |m| at(m).pos, |m| at(m).rot, one);
                }
            }
        })
    }

    /// The skinning matrices of characters `chars` (`out[(c - chars.start)
    /// * joints + j] = world(c, j) × inverse_bind(j)`, [`crate::skinning`];
    /// crowd joints), from the pose each character shows (with level of
    /// detail too, as [`Crowd::transforms_into`]): `[f32; 16]`
    /// column-major, `[f32; 12]` rows or `glam::Mat4`, each joint's eight
    /// matrices made in lanes ([`skinning::skin_lanes`]) and transposed in
    /// registers straight into `out`; packs in parallel on the current
    /// rayon pool. Refused, with nothing written, as the other readers,
    /// and for an `inverse_bind` of another joint count than the crowd's.
    ///
    /// ```
    /// # use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig};
    /// use kineform::reference::Kform;
    /// use kineform::skinning::{self, InverseBind};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let mut crowd = Crowd::new(&library, CrowdConfig { characters: 10, ..Default::default() })?;
    /// let joints = crowd.skeleton().len();
    /// // The bind pose: every joint at the origin (a real mesh's comes from its file).
    /// let bind = InverseBind::from_bind_pose(crowd.skeleton(), &vec![Kform::IDENTITY; joints])?;
    /// crowd.step(1.0 / 60.0)?;
    /// let mut skin = vec![[0.0f32; 12]; 10 * joints]; // three rows a joint, for the GPU
    /// crowd.skinning_matrices_into(0..10, &bind, &mut skin)?;
    /// let want = skinning::skin_matrix(&crowd.world_kform(3, 2).unwrap(), bind.get(2).unwrap());
    /// assert!(skin[3 * joints + 2].iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-4));
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn skinning_matrices_into<M: SkinMatrix>(
        &self,
        chars: Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
    ) -> Result<()> {
        self.skin_out(chars, inverse_bind, out, self.fetch_ahead(), |_| 0xff)
    }

    /// The skinning matrices of the characters of `chars` in the lanes
    /// `written(p)` has (bits) in each pack `p`, the others' left as they
    /// are in `out`: [`Crowd::skinning_matrices_into`]'s checks, then each
    /// pack's run of written lanes ([`Crowd::skin_pack`]), the next pack's
    /// world rows fetched ahead where `fetch`.
    pub(super) fn skin_out<M: SkinMatrix>(
        &self,
        chars: Range<usize>,
        inverse_bind: &InverseBind,
        out: &mut [M],
        fetch: bool,
        written: impl Fn(usize) -> u8 + Send + Sync,
    ) -> Result<()> {
        skinning::check_joints(self.skeleton.len(), inverse_bind)?;
        let (nj, ib) = (self.skeleton.len(), inverse_bind.as_rows());
        self.copy_out(
            chars,
            out,
            || (),
            |_, p, pack, lanes, o| {
                if fetch {
                    crate::prefetch::next_run_to_l2(pack);
                }
                let bits = written(p);
                let mut l = lanes.start;
                while l < lanes.end {
                    if bits & (1 << l) == 0 {
                        l += 1;
                        continue;
                    }
                    let first = l;
                    while l < lanes.end && bits & (1 << l) != 0 {
                        l += 1;
                    }
                    let o = &mut o[(first - lanes.start) * nj..(l - lanes.start) * nj];
                    self.skin_pack(p, pack, first..l, o, ib);
                }
            },
        )
    }

    /// Lanes `lanes` of pack `p` (its world rows `pack`) as skinning
    /// matrices into `o` (a character's joints after another), from the
    /// pose each shows, through the inverse bind rows `ib` (one a crowd
    /// joint: checked by the callers, so `ib[j]` is in range).
    fn skin_pack<M: SkinMatrix>(
        &self,
        p: usize,
        pack: &[Motionx8],
        lanes: Range<usize>,
        o: &mut [M],
        ib: &[[f32; 12]],
    ) {
        match self.carried(p) {
            None => skinning::skin_rows(pack, lanes, o, |j, m| {
                skinning::skin_lanes(m.pos, m.rot, Vec3x8::ONE, &ib[j])
            }),
            Some(k) => skinning::skin_rows(pack, lanes, o, |j, _| {
                let s = k.joint(j);
                skinning::skin_lanes(s.pos, s.rot, Vec3x8::ONE, &ib[j])
            }),
        }
    }

    /// Character `c`'s world bounding box after the last step ([`Aabb`]:
    /// its clip joints' world positions, each padded by its joint's
    /// radius, [`super::CrowdConfig::joint_radii`]); `None` past the
    /// crowd.
    pub fn bounds(&self, c: usize) -> Option<Aabb> {
        (c < self.cfg.characters).then(|| self.pack_box(c / 8).lane(c % 8))
    }

    /// The world bounding boxes of characters `chars` after the last step
    /// into `out`, one per character (`out[c - chars.start]`), for culling
    /// and a renderer's skinned-mesh bounds: computed in the step's
    /// forward kinematics, so this is a copy (no allocation). Refused, with
    /// nothing written, when the range is reversed or runs past the crowd
    /// ([`Error::Range`]) or `out` is not one box per character of it
    /// ([`Error::Length`]).
    ///
    /// ```
    /// # use kineform::crowd::{Aabb, ClipLibrary, Crowd, CrowdConfig};
    /// # let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let joints = library.skeleton().len();
    /// // Every joint padded by 3 units (a limb's thickness, in the clip's units).
    /// let cfg = CrowdConfig { characters: 16, joint_radii: vec![3.0; joints], ..Default::default() };
    /// let mut crowd = Crowd::new(&library, cfg)?;
    /// let mut boxes = vec![Aabb::ZERO; 16]; // the game's, kept across frames
    /// crowd.step(1.0 / 60.0)?;
    /// crowd.bounds_into(0..16, &mut boxes)?;
    /// let hips = crowd.world_kform(5, 1).unwrap().pos;
    /// assert!(boxes[5].contains(hips));
    /// assert!(crowd.bounds_into(0..16, &mut boxes[..15]).is_err());
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn bounds_into(&self, chars: Range<usize>, out: &mut [Aabb]) -> Result<()> {
        check_readout(&chars, self.cfg.characters, out.len())?;
        // Parts of whole packs (the first one from `chars.start`'s pack
        // on) on all cores: with level of detail a carried pack's boxes are
        // made from its anchors when read, a read of every joint.
        let first = chars.start;
        let head = (first.next_multiple_of(8) - first).min(out.len());
        let (head_out, rest) = out.split_at_mut(head);
        self.boxes_of(first, head_out);
        rest.par_chunks_mut(BOX_PART)
            .enumerate()
            .for_each(|(i, part)| self.boxes_of(first + head + i * BOX_PART, part));
        Ok(())
    }

    /// The boxes of characters `first..first + out.len()` into `out`, each
    /// pack's made once.
    fn boxes_of(&self, first: usize, out: &mut [Aabb]) {
        let mut at = (usize::MAX, super::bounds::Aabbx8::EMPTY);
        for (o, c) in out.iter_mut().zip(first..) {
            if at.0 != c / 8 {
                at = (c / 8, self.pack_box(c / 8));
            }
            *o = at.1.lane(c % 8);
        }
    }

    /// The whole crowd's world output as a [`Packed`] view (crowd joints:
    /// joint 0 the character's root), for [`crate::output::positions`],
    /// [`crate::output::rotations`], [`crate::output::transforms`] (all
    /// characters, on all cores) and [`crate::skinning`]; with level of
    /// detail, the anchors (see [`Crowd::world`]): for the pose shown, the
    /// `*_into` readers ([`Crowd::transforms_into`],
    /// [`Crowd::skinning_matrices_into`], ...).
    pub fn world_packed(&self) -> Packed<'_, super::Motionx8> {
        Packed::new(&self.packs.world, self.cfg.characters, self.skeleton.len())
            .expect("a crowd holds ceil(characters / 8) x joints packs")
    }

    /// The clips' root motion this crowd took out of character `c`'s pose
    /// in the last step ([`super::RootMotion::Extract`]): its world
    /// displacement and turn about the up axis over the step, and their
    /// rates ([`super::RootDelta`]). Zero when the crowd applies root
    /// motion.
    pub fn root_motion(&self, c: usize) -> Option<super::RootDelta> {
        if c >= self.cfg.characters {
            return None;
        }
        if self.cfg.root_motion != super::RootMotion::Extract {
            return Some(super::RootDelta::default());
        }
        Some(self.packs.root_motion[c / 8].deltas()[c % 8])
    }

    /// The root motion of characters `chars` ([`Crowd::root_motion`] of
    /// each) into `out`, one per character (`out[c - chars.start]`): what
    /// a game's character controllers read after each step, each pack's
    /// lanes taken apart once instead of once a character. Zero where the
    /// crowd applies root motion. Refused, with `out` untouched: a range
    /// reversed or past the crowd ([`Error::Range`]), an `out` of another
    /// length than the range ([`Error::Length`]).
    ///
    /// ```
    /// use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, RootDelta, RootMotion};
    /// let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
    /// let cfg = CrowdConfig { characters: 12, root_motion: RootMotion::Extract, ..Default::default() };
    /// let mut crowd = Crowd::new(&library, cfg)?;
    /// crowd.step(1.0 / 60.0)?;
    /// let mut moved = vec![RootDelta::default(); 5]; // the game's, kept across frames
    /// crowd.root_motions_into(6..11, &mut moved)?;
    /// assert_eq!(moved[2], crowd.root_motion(8).unwrap());
    /// assert!(crowd.root_motions_into(6..13, &mut moved).is_err());
    /// # Ok::<(), kineform::Error>(())
    /// ```
    pub fn root_motions_into(
        &self,
        chars: Range<usize>,
        out: &mut [super::RootDelta],
    ) -> Result<()> {
        check_root_motions(&chars, self.cfg.characters, out.len())?;
        if self.cfg.root_motion != super::RootMotion::Extract {
            out.fill(super::RootDelta::default());
            return Ok(());
        }
        let mut at = (usize::MAX, [super::RootDelta::default(); 8]);
        for (o, c) in out.iter_mut().zip(chars) {
            if at.0 != c / 8 {
                at = (c / 8, self.packs.root_motion[c / 8].deltas());
            }
            *o = at.1[c % 8];
        }
        Ok(())
    }
}

/// Refuses a root-motion readout of characters `chars` of a crowd of
/// `characters` into a slice of `got` ([`check_readout_of`], one a
/// character): [`Crowd::root_motions_into`],
/// [`super::ReferenceCrowd::root_motions_into`] and
/// [`super::Driven::root_motions_into`]'s default.
pub(crate) fn check_root_motions(
    chars: &Range<usize>,
    characters: usize,
    got: usize,
) -> Result<()> {
    let what = "output slice (one root motion per character)";
    check_readout_of(chars, characters, (1, what), got)
}

/// Refuses a readout of characters `chars` of a crowd of `characters`
/// whose range is reversed or runs past the crowd ([`Error::Range`]), or
/// whose slice of `got` elements is not one per character and joint
/// ([`Error::Length`]).
pub(crate) fn check_joint_readout(
    chars: &Range<usize>,
    characters: usize,
    joints: usize,
    got: usize,
) -> Result<()> {
    let what = "output slice (characters x crowd joints)";
    check_readout_of(chars, characters, (joints, what), got)
}

/// [`Error::Range`] for a range `chars` reversed or past a crowd of
/// `characters`, else [`Error::Length`] (naming the slice `what`) for
/// `got` elements other than `per` a character of the range.
pub(crate) fn check_readout_of(
    chars: &Range<usize>,
    characters: usize,
    (per, what): (usize, &'static str),
    got: usize,
) -> Result<()> {
    if chars.start > chars.end || chars.end > characters {
        return Err(Error::Range {
            what: "characters",
            start: chars.start,
            end: chars.end,
            len: characters,
        });
    }
    let want = chars.len() * per;
    if got != want {
        return Err(Error::Length {
            what,
            expected: want,
            got,
        });
    }
    Ok(())
}
