//! Level of detail in a pack's frame ([`crate::crowd::schedule`]). With
//! level of detail a pack's world rows hold its characters' anchors (the
//! world pose each was last evaluated at), and what it shows is made from
//! them ([`Carried`]: carried along their velocities, with the offset
//! that hides a resumption while it runs) when a reader asks, so that a
//! step that evaluates none of the pack's characters writes nothing. An
//! evaluated pack that is not plain (someone carried, resumed, or with an
//! offset running) runs [`lod_world`] in place of forward kinematics'
//! output (which then writes the evaluated pose into the worker's
//! scratch): the resumed characters' new offsets, the velocity check and
//! the boxes of what it shows, and the evaluated characters' new anchors.

use super::ahead::{Ahead, prefetch_part};
use crate::crowd::bounds::Aabbx8;
use crate::crowd::check::{PackCheck, write_world};
use crate::crowd::motion::ShiftOffsetx8;
use crate::crowd::motion::{
    LodOffsetx8, Motionx8, inertialize_joint, offset_between, put_motion, quat_exp_any_sinc,
    select_motion, update_motion, update_shift, update_turn,
};
use crate::crowd::schedule::{LodClocks, LodStep, Schedulex8, bits_mask};
use crate::lanes::{self, CubicWeights, F32x8, Vec3x8, splat};

/// The clock of a carried pose: seconds since each anchor (`tau`) and
/// into each running offset (`t`; its blend and more: none).
#[derive(Clone, Copy)]
struct Clock {
    tau: F32x8,
    half_tau: F32x8,
    running: F32x8,
    w: CubicWeights,
}

impl Clock {
    #[inline(always)]
    fn at(c: LodClocks) -> Clock {
        Clock {
            tau: c.tau,
            half_tau: c.tau * splat(0.5),
            running: c.running(),
            w: CubicWeights::new(c.t, c.blend),
        }
    }

    /// The position and velocity of [`Clock::shown`] (world-space offsets
    /// move positions apart from rotations).
    #[inline(always)]
    fn moving(&self, a: &Motionx8, shift: &ShiftOffsetx8) -> (Vec3x8, Vec3x8) {
        let (pos, vel) = (a.pos + a.vel * self.tau, a.vel);
        if !self.running.any() {
            return (pos, vel);
        }
        let (z, r) = (Vec3x8::ZERO, self.running);
        let off = self.w.offset(shift.pos, shift.vel);
        let dv = self.w.velocity(shift.pos, shift.vel);
        let on =
            |v: Vec3x8| Vec3x8::new(r.select(v.x, z.x), r.select(v.y, z.y), r.select(v.z, z.z));
        (pos + on(off), vel + on(dv))
    }

    /// The pose shown carried from anchor `a` with `offset` at this clock:
    /// [`carry`], then the offset where it runs ([`offset_on`]).
    #[inline(always)]
    fn shown(&self, a: &Motionx8, offset: &LodOffsetx8) -> Motionx8 {
        let x = carry(a, (self.tau, self.half_tau));
        offset_on(&x, offset, (self.running, &self.w))
    }
}

/// What a pack with level of detail shows, made when it is read: its
/// world rows hold each character's anchor (the world pose it was last
/// evaluated at), and it shows that anchor carried over the seconds since
/// (its schedule's `since_eval`) with its offset where it runs (at
/// `since_offset`), joint by joint: the pose its step showed (and
/// checked). A step that evaluates nobody in the pack writes nothing, so a
/// carried pack costs its step O(1), not O(joints).
pub(crate) struct Carried<'a> {
    world: &'a [Motionx8],
    offset: &'a [LodOffsetx8],
    clock: Clock,
}

impl<'a> Carried<'a> {
    /// Pack rows `world` and `offset` under `sched`, when what the pack
    /// shows is not its rows (a character carried, or an offset running;
    /// else `None`: its rows are what it shows).
    #[inline]
    pub(crate) fn of(
        sched: &Schedulex8,
        world: &'a [Motionx8],
        offset: &'a [LodOffsetx8],
    ) -> Option<Carried<'a>> {
        let clocks = sched.clocks();
        (!shows_rows(&clocks)).then(|| Carried {
            world,
            offset,
            clock: Clock::at(clocks),
        })
    }

    /// Joint `j` as the pack shows it.
    #[inline(always)]
    pub(crate) fn joint(&self, j: usize) -> Motionx8 {
        self.clock.shown(&self.world[j], &self.offset[j])
    }

    /// The joint whose world row is `row` (one of this pack's world rows):
    /// its place in the rows, from the addresses (no `unsafe`: integers).
    #[inline(always)]
    pub(crate) fn index(&self, row: &Motionx8) -> usize {
        let at = row as *const Motionx8 as usize - self.world.as_ptr() as usize;
        at / size_of::<Motionx8>()
    }

    /// The characters' boxes as shown: [`Carried::joint`]'s positions,
    /// padded by `radii` where given, as forward kinematics' boxes. A
    /// position needs only the anchor's position and velocity and the
    /// offset's shift ([`Clock::moving`]), not the rotations' exponentials,
    /// so a renderer reading a carried pack's boxes each frame pays a few
    /// multiply-adds a joint. A lane's box is NaN where the shown pose
    /// would hold a value that is not finite, as [`write_world`]'s probe
    /// finds it: its positions and velocities, its anchor's rotation and
    /// angular velocity, the carry's rotation argument (`|ω τ / 2|²`,
    /// which overflows before its exponential would), and where an offset
    /// runs, the offset's turn.
    pub(crate) fn bounds(&self, radii: Option<&[f32]>) -> Aabbx8 {
        let z = F32x8::ZERO;
        // x × 0 summed: 0 for finite values, NaN for any other.
        let zero = |v: Vec3x8, acc: F32x8| v.x.mul_add(z, v.y.mul_add(z, v.z.mul_add(z, acc)));
        let (running, half_tau) = (self.clock.running, self.clock.half_tau);
        let offsets = running.any();
        let mut probe = z;
        let mut b = Aabbx8::EMPTY;
        for (j, (a, o)) in self.world.iter().zip(self.offset).enumerate() {
            let (pos, vel) = self.clock.moving(a, &o.shift);
            let turn = a.ang * half_tau;
            let rot = a
                .rot
                .w
                .mul_add(z, a.rot.x.mul_add(z, lanes::dot(turn, turn) * z));
            let mut p = zero(
                pos,
                zero(
                    vel,
                    zero(a.ang, a.rot.y.mul_add(z, a.rot.z.mul_add(z, rot))),
                ),
            );
            if offsets {
                p += running.select(zero(o.turn.rot, zero(o.turn.ang, z)), z);
            }
            probe += p;
            grow(&mut b, j, &pos, radii);
        }
        b.finished(probe.simd_eq(z))
    }
}

/// Whether a pack whose clocks are `c` shows its world rows as they are:
/// nobody carried, no offset running.
#[inline(always)]
pub(super) fn shows_rows(c: &LodClocks) -> bool {
    !(c.tau.simd_gt(F32x8::ZERO).any() || c.running().any())
}

/// `b` grown by joint `j`'s position `p` (not joint 0, the world root),
/// padded by its radius where given.
#[inline(always)]
fn grow(b: &mut Aabbx8, j: usize, p: &Vec3x8, radii: Option<&[f32]>) {
    match (j, radii) {
        (0, _) => {}
        (_, Some(r)) => b.grow(p, splat(r[j])),
        (_, None) => b.grow_point(p),
    }
}

/// Writes an evaluated pack's step with level of detail `lod` (module
/// docs) that is not plain (someone carried, resumed or with an offset
/// running): per joint, from its anchor (the world row), the pose each
/// character shows carried (the anchor over `lod.tau` along its
/// velocities, with its running offset at `lod.t_old`); the resumed lanes'
/// new offsets from that carried pose to the evaluated one (`evaluated`,
/// from forward kinematics), and what the evaluated lanes show (the
/// evaluated pose with its offset at `lod.t_new`: for a resumed lane, the
/// carried pose). What the pack shows is checked against what it showed
/// last step (made again from the anchor at `was`, its clocks then) when
/// `CHECK` and not `first` ([`write_world`]), and boxed; the evaluated
/// lanes' rows become their evaluated pose, their new anchor. `next`:
/// regions of the next pack to fetch, a part per joint
/// ([`prefetch_part`]; empty where the next pack does not resume).
///
/// A pack whose eight characters all resume (the common case: a game's
/// packs share a period and phase) takes [`lod_joints`]'s `WHOLE` form,
/// which stores its new offsets and anchors as they are, where a pack
/// with some lanes kept selects each of the 25 vectors of a joint's
/// offset and anchor bit by bit: the same values in 13.5% fewer
/// instructions (`lod_cost mix 2000`, callgrind: 1.224 M to 1.058 M a
/// frame).
#[inline(never)]
pub(super) fn lod_world<const CHECK: bool>(
    (world, bounds): (&mut [Motionx8], &mut Aabbx8),
    offsets: &mut [LodOffsetx8],
    evaluated: &[Motionx8],
    (lod, was): (&LodStep, LodClocks),
    (radii, first, half_dt): (Option<&[f32]>, bool, F32x8),
    (next, stream): (&[Ahead], bool),
) -> PackCheck {
    let rows = (world, offsets, evaluated);
    let at = (radii, first || !CHECK, half_dt);
    let (check, b) = match (lod.whole(), stream) {
        (true, true) => {
            let done = lod_joints::<true, true>(rows, (lod, was), at, next);
            store_fence();
            done
        }
        (true, false) => lod_joints::<true, false>(rows, (lod, was), at, next),
        (false, _) => lod_joints::<false, false>(rows, (lod, was), at, next),
    };
    *bounds = b.finished(check.finite());
    check
}

/// [`lod_world`]'s joints (`skip`: no comparison with the last step),
/// with the evaluated and resumed lanes all eight where `WHOLE`, the new
/// offsets written past the caches where `STREAM` ([`stream_offset`]).
#[inline(always)]
fn lod_joints<const WHOLE: bool, const STREAM: bool>(
    (world, offsets, evaluated): (&mut [Motionx8], &mut [LodOffsetx8], &[Motionx8]),
    (lod, was): (&LodStep, LodClocks),
    (radii, skip, half_dt): (Option<&[f32]>, bool, F32x8),
    next: &[Ahead],
) -> (PackCheck, Aabbx8) {
    let mut check = PackCheck::EMPTY;
    let (m_due, m_resumed) = (bits_mask(lod.due), bits_mask(lod.resumed));
    let old = Clock::at(lod.carried_clocks());
    let new = Clock::at(lod.resumed_clocks());
    let was = Clock::at(was);
    // Whether every due lane resumes: its offset at 0 is the whole gap, so
    // it shows the carried pose (`e` plus the offset at `t_new` = 0 is
    // `carried`, to rounding).
    let fresh_only = WHOLE || lod.due == lod.resumed;
    let mut b = Aabbx8::EMPTY;
    for (j, (row, offset)) in world.iter_mut().zip(offsets.iter_mut()).enumerate() {
        prefetch_part(next, j);
        let a = *row;
        // The check reads the previous output's positions and velocities.
        let mut prev = a;
        if !skip {
            (prev.pos, prev.vel) = was.moving(&a, &offset.shift);
        }
        let carried = old.shown(&a, offset);
        let e = &evaluated[j];
        if WHOLE {
            let (turn, shift) = offset_between(&carried, e);
            match STREAM {
                true => stream_offset(offset, &LodOffsetx8 { turn, shift }),
                false => *offset = LodOffsetx8 { turn, shift },
            }
        } else if lod.resumed != 0 {
            let (turn, shift) = offset_between(&carried, e);
            update_turn(m_resumed, &turn, &mut offset.turn);
            update_shift(m_resumed, &shift, &mut offset.shift);
        }
        let g = match fresh_only {
            true => carried,
            false => {
                let shown = offset_on(e, offset, (new.running, &new.w));
                select_motion(m_due, &shown, &carried)
            }
        };
        write_world(&mut prev, &g, (splat(j as f32), skip), half_dt, &mut check);
        grow(&mut b, j, &g.pos, radii);
        match WHOLE {
            true => put_motion(row, e),
            false => update_motion(m_due, e, row),
        }
    }
    (check, b)
}

/// `*dst = *o` with non-temporal stores (x86-64 with AVX; a plain store
/// elsewhere): a whole resumption of a crowd past half the L3
/// ([`super::Shared::fetch`]) writes its pack's new offsets (11.9 KB for
/// the CMU skeleton) without reading them, and nothing reads them before
/// they leave the caches (the pack's readers and its next resumption
/// come frames later), so they go to memory without the read each line's
/// first store would make and without evicting the rows the next packs
/// read. [`lod_world`] fences the stores before it returns. Measured
/// (PERF.md, "Level of detail's offsets past the caches"): with the
/// offsets no longer fetched first, `lod_cost mix 100000` 7% faster on
/// one thread and 5% on two (medians of alternated pairs).
#[inline(always)]
fn stream_offset(dst: &mut LodOffsetx8, o: &LodOffsetx8) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        let from: &[F32x8; 12] = bytemuck::cast_ref(o);
        let to: &mut [F32x8; 12] = bytemuck::cast_mut(dst);
        for (to, v) in to.iter_mut().zip(from) {
            let p: *mut f32 = bytemuck::cast_mut::<F32x8, [f32; 8]>(to).as_mut_ptr();
            // SAFETY: `p` points to the eight floats of `to`, a lane vector
            // of `dst` borrowed mutably: valid for writes of 32 bytes and
            // 32-byte aligned (`F32x8` is `align(32)`), which
            // `_mm256_stream_ps` requires; AVX is enabled in this build
            // (the `cfg` above). The store is weakly ordered: `lod_world`
            // fences it (`store_fence`) before the pack's work ends.
            unsafe { core::arch::x86_64::_mm256_stream_ps(p, bytemuck::cast(*v)) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    {
        *dst = *o;
    }
}

/// Orders [`stream_offset`]'s non-temporal stores before every later
/// store of this thread (`sfence`), so that whoever synchronizes with the
/// end of the pack's work (the frame's join, a caller's thread) reads the
/// new offsets; nothing elsewhere.
#[inline(always)]
fn store_fence() {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    // SAFETY: `sfence` has no operands and touches no memory; SSE is part
    // of x86-64.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// `a` carried `tau` seconds along its velocities, which it keeps:
/// `p + v τ`, `exp(ω τ / 2) q` (`half_tau` is `τ / 2`; the reference's
/// `ref_carry`).
#[inline(always)]
fn carry(a: &Motionx8, (tau, half_tau): (F32x8, F32x8)) -> Motionx8 {
    let (turn, _) = quat_exp_any_sinc(a.ang * half_tau);
    Motionx8 {
        pos: a.pos + a.vel * tau,
        rot: lanes::quat_mul(turn, a.rot),
        vel: a.vel,
        ang: a.ang,
    }
}

/// `pose` with `offset` decayed by `w` applied in the `running` lanes
/// ([`inertialize_joint`]), as it is in the others.
#[inline(always)]
fn offset_on(
    pose: &Motionx8,
    offset: &LodOffsetx8,
    (running, w): (F32x8, &CubicWeights),
) -> Motionx8 {
    if !running.any() {
        return *pose;
    }
    let o = inertialize_joint(&offset.turn, &offset.shift, pose, w);
    select_motion(running, &o, pose)
}

#[cfg(test)]
mod tests {
    //! A whole resumption's new offsets are the same values whether they
    //! are stored past the caches or not ([`stream_offset`]); the crowds'
    //! tests run crowds too small to stream.
    use super::*;
    use crate::crowd::passes::testing::{lanes, motion, motions};
    use crate::crowd::schedule::LodStep;
    use rand::SeedableRng;

    fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u32> {
        bytemuck::cast_slice(v).to_vec()
    }

    #[test]
    fn streamed_offsets_are_the_stored_ones() {
        let mut r = rand_pcg::Pcg32::seed_from_u64(5);
        for round in 0..20 {
            let world = motions(&mut r, 31);
            let evaluated = motions(&mut r, 31);
            // Odd rounds: offsets still running at the resumption (read
            // before they are replaced).
            let running = round % 2 == 1;
            let (t_old, blend) = match running {
                true => (lanes(&mut r, 0.0, 0.05), splat(0.1)),
                false => (splat(0.1), splat(0.05)),
            };
            let offsets: Vec<LodOffsetx8> = (0..31)
                .map(|_| {
                    let m = motion(&mut r);
                    LodOffsetx8 {
                        turn: crate::crowd::motion::TurnOffsetx8 {
                            rot: m.pos * splat(0.1),
                            ang: m.ang,
                        },
                        shift: ShiftOffsetx8 {
                            pos: m.vel * splat(0.1),
                            vel: m.ang,
                        },
                    }
                })
                .collect();
            let lod = LodStep {
                due: u8::MAX,
                resumed: u8::MAX,
                tau: lanes(&mut r, 0.01, 0.07),
                t_old,
                t_new: F32x8::ZERO,
                blend_old: blend,
                blend_new: splat(0.057),
            };
            let was = LodClocks {
                tau: lod.tau - splat(1.0 / 60.0),
                t: t_old - splat(1.0 / 60.0),
                blend,
            };
            let run = |stream: bool| {
                let (mut w, mut o, mut b) = (world.clone(), offsets.clone(), Aabbx8::EMPTY);
                let at = (None, false, splat(0.5 / 60.0));
                let check = lod_world::<true>(
                    (&mut w, &mut b),
                    &mut o,
                    &evaluated,
                    (&lod, was),
                    at,
                    (&[], stream),
                );
                (bits(&w), bits(&o), b, check.finite().to_bitmask())
            };
            let (plain, streamed) = (run(false), run(true));
            assert_eq!(plain.1, streamed.1, "round {round}: offsets");
            assert_eq!(plain.0, streamed.0, "round {round}: anchors");
            assert_eq!(plain.2, streamed.2, "round {round}: boxes");
            assert_eq!(plain.3, streamed.3, "round {round}: check");
            assert_ne!(plain.1, bits(&offsets), "round {round}: new offsets");
        }
    }
}
