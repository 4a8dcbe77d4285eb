//! The sampling passes, first in a pack's frame: source A sampled, then
//! source B sampled and blended in (unless it is source A in every lane),
//! into the pack's input pose (and, for the shown poses, the
//! transitioning characters' old sources).

use super::ahead::{Ahead, prefetch_part};
use super::shared::Shared;
use crate::crowd::motion::*;
use crate::crowd::place::Placex8;
use crate::crowd::state::{SampleAt, Stepx8};
use crate::database::{Gather, Rows};
use crate::lanes::{F32x8, I32x8, splat};

/// What a pack's sampling reads besides the rows: the database's full or
/// compact rows (`G`), chosen once per pass.
pub(super) struct Sampler<'a, G: Gather> {
    db: G,
    tracks: &'a [Track],
    inv_frame: F32x8,
}

impl<'a, G: Gather> Sampler<'a, G> {
    /// The frame's clips, from the rows `g` of its database.
    pub(super) fn new(g: G, sh: &Shared<'a>) -> Sampler<'a, G> {
        Sampler {
            db: g,
            tracks: sh.tracks,
            inv_frame: splat(1.0 / sh.db.frame_time()),
        }
    }
}

impl<G: Gather> Sampler<'_, G> {
    /// Samples every clip joint of one source into `out[1..]`, velocities
    /// scaled by its playback rate ([`crate::reference::op_timescale`]).
    /// Turning joints go two at a time (see [`Sampler::sample_blend`]).
    ///
    /// `ahead` lists per-joint arrays that the next pack will read: joint
    /// `j`'s element of each is prefetched as joint `j` is sampled (see
    /// [`prefetch`](crate::prefetch)).
    ///
    /// The clips' root joint, where its position moves, is moved by the
    /// source's `place` ([`crate::crowd::place`]).
    #[inline(never)]
    fn sample<const CUBIC: bool>(
        &self,
        rows: &SampleRows,
        out: &mut [Motionx8],
        place: &Placex8,
        ahead: &[Ahead],
    ) {
        let mut pending: Option<usize> = None;
        for cj in 0..out.len() - 1 {
            prefetch_part(ahead, cj);
            match self.tracks[cj + 1] {
                Track::Still => {}
                Track::Moves(..) if cj == 0 => out[1] = place.apply(&self.joint::<CUBIC>(rows, 0)),
                Track::Moves(..) => out[cj + 1] = self.joint::<CUBIC>(rows, cj),
                Track::Turns(_) => match pending.take() {
                    None => pending = Some(cj),
                    Some(p) => {
                        let [y0, y1] = self.joints2::<CUBIC>(rows, [p, cj]);
                        put_turn(&mut out[p + 1], y0);
                        put_turn(&mut out[cj + 1], y1);
                    }
                },
            }
        }
        if let Some(p) = pending {
            put_turn(&mut out[p + 1], self.joint::<CUBIC>(rows, p));
        }
    }

    /// `a = blend(a, sample(rows))` per joint: the second source sampled and
    /// blended in one pass ([`blend_kept`] at weight `alpha` changing at
    /// `rate` per second, each joint's relative rotation's hemisphere kept
    /// in `flips`, chosen anew in the `fresh` lanes). Turning joints go two
    /// at a time, so that two independent chains of arithmetic overlap.
    /// The second source's root joint is moved by its `place` first, as
    /// in [`Sampler::sample`].
    #[inline(never)]
    fn sample_blend<const CUBIC: bool>(
        &self,
        rows: &SampleRows,
        a: &mut [Motionx8],
        ((flips, fresh), place): ((&mut [u8], F32x8), &Placex8),
        (alpha, rate): (F32x8, F32x8),
        ahead: &[Ahead],
    ) {
        let mut pending: Option<usize> = None;
        for cj in 0..a.len() - 1 {
            prefetch_part(ahead, cj);
            let j = cj + 1;
            match self.tracks[j] {
                Track::Still => {}
                Track::Moves(..) => {
                    let y = self.joint::<CUBIC>(rows, cj);
                    let y = if cj == 0 { place.apply(&y) } else { y };
                    a[j] = blend_kept(&a[j], &y, (&mut flips[j], fresh), alpha, rate);
                }
                Track::Turns(_) => match pending.take() {
                    None => pending = Some(cj),
                    Some(p) => {
                        let [y0, y1] = self.joints2::<CUBIC>(rows, [p, cj]);
                        let (lo, hi) = a.split_at_mut(j);
                        let (flo, fhi) = flips.split_at_mut(j);
                        let [b0, b1] = blend_kept2(
                            [&lo[p + 1], &hi[0]],
                            [&y0, &y1],
                            [(&mut flo[p + 1], fresh), (&mut fhi[0], fresh)],
                            alpha,
                            rate,
                        );
                        put_turn(&mut lo[p + 1], b0);
                        put_turn(&mut hi[0], b1);
                    }
                },
            }
        }
        if let Some(p) = pending {
            let y = self.joint::<CUBIC>(rows, p);
            let x = &mut a[p + 1];
            put_turn(
                x,
                blend_kept(x, &y, (&mut flips[p + 1], fresh), alpha, rate),
            );
        }
    }

    /// Clip joints `cj` of one source, two at a time.
    #[inline(always)]
    fn joints2<const CUBIC: bool>(&self, rows: &SampleRows, cj: [usize; 2]) -> [Motionx8; 2] {
        if CUBIC {
            [
                self.joint::<CUBIC>(rows, cj[0]),
                self.joint::<CUBIC>(rows, cj[1]),
            ]
        } else {
            let vel_scale = self.inv_frame * rows.speed;
            let ang_scale = (self.inv_frame + self.inv_frame) * rows.speed;
            let g = [
                self.db.gather(&rows.at, cj[0]),
                self.db.gather(&rows.at, cj[1]),
            ];
            sample_linear_rows2(
                [&g[0], &g[1]],
                (rows.alpha, rows.alpha2),
                vel_scale,
                ang_scale,
            )
        }
    }

    /// Clip joint `cj` of one source.
    #[inline(always)]
    pub(super) fn joint<const CUBIC: bool>(&self, rows: &SampleRows, cj: usize) -> Motionx8 {
        let ang_scale = (self.inv_frame + self.inv_frame) * rows.speed;
        let vel_scale = self.inv_frame * rows.speed;
        if CUBIC {
            let (pr, at, nx) = (
                self.db.gather(&rows.prev, cj),
                self.db.gather(&rows.at, cj),
                self.db.gather(&rows.next, cj),
            );
            sample_cubic_rows(
                &pr,
                &at,
                &nx,
                rows.prev_valid,
                rows.alpha,
                vel_scale,
                ang_scale,
            )
        } else {
            sample_linear_row(
                &self.db.gather(&rows.at, cj),
                (rows.alpha, rows.alpha2),
                vel_scale,
                ang_scale,
            )
        }
    }
}

/// The blended input of a step's two sources into `a[1..]`: source A
/// sampled, then source B sampled and blended at source B's weight and its
/// rate, the blend's hemispheres in `flips` ([`Sampler::sample_blend`]),
/// each source's root joint at its place in `places`;
/// `ahead` as for [`Sampler::sample`], one list for each of the two
/// passes, so that the fetching is spread over both. Where source B is
/// source A in all eight lanes (`same_source`), A alone is sampled (the
/// blend of a pose with itself is the pose) and fetches both lists.
#[inline(always)]
pub(super) fn input<const CUBIC: bool>(
    sh: &Shared,
    st: &Stepx8,
    a: &mut [Motionx8],
    flips: ((&mut [u8], F32x8), &[Placex8; 2]),
    ahead: [&[Ahead]; 2],
) {
    match sh.db.rows() {
        Rows::Full(g) => input_from::<CUBIC, _>(g, sh, st, a, flips, ahead),
        Rows::Compact(g) => input_from::<CUBIC, _>(g, sh, st, a, flips, ahead),
        Rows::Stepped(g) => input_from::<CUBIC, _>(g, sh, st, a, flips, ahead),
    }
}

/// [`input`] from the rows `g`.
#[inline(always)]
fn input_from<const CUBIC: bool, G: Gather>(
    g: G,
    sh: &Shared,
    st: &Stepx8,
    a: &mut [Motionx8],
    (flips, places): ((&mut [u8], F32x8), &[Placex8; 2]),
    ahead: [&[Ahead]; 2],
) {
    let dt = sh.db.frame_time();
    let sampler = Sampler::new(g, sh);
    let ra = SampleRows::new::<CUBIC, _>(&g, dt, &st.a);
    if same_source(&st.a, &st.b, places) {
        // Source B is source A in every lane (a character playing one
        // clip as both, [`crate::crowd::Command::Play`] with `a == b`):
        // its sample is A's, bit for bit, and the blend of a pose with
        // itself is that pose (to rounding: the relative rotation is the
        // identity, the differences zero), so the second pass is skipped.
        // The hemisphere a fresh lane would choose is the short way (the
        // relative rotation's `w` is `|q|² > 0`): bit clear.
        // The one pass fetches what both would have (the next pack's
        // fields arrive while this one samples).
        let mut both = [Ahead::NONE; 4];
        let (n0, n1) = (ahead[0].len().min(2), ahead[1].len().min(2));
        both[..n0].copy_from_slice(&ahead[0][..n0]);
        both[n0..n0 + n1].copy_from_slice(&ahead[1][..n1]);
        ra.prefetch::<CUBIC, _>(&g);
        sampler.sample::<CUBIC>(&ra, a, &places[0], &both[..n0 + n1]);
        let (bits, fresh) = flips;
        let keep = !(fresh.to_bitmask() as u8);
        for b in bits.iter_mut() {
            *b &= keep;
        }
        return;
    }
    let rb = SampleRows::new::<CUBIC, _>(&g, dt, &st.b);
    // Both sources' rows at once, so that source B's arrive while
    // source A is sampled.
    ra.prefetch::<CUBIC, _>(&g);
    rb.prefetch::<CUBIC, _>(&g);
    sampler.sample::<CUBIC>(&ra, a, &places[0], ahead[0]);
    let b = (flips, &places[1]);
    sampler.sample_blend::<CUBIC>(&rb, a, b, (st.w, st.w_rate), ahead[1]);
}

/// Whether sources `a` and `b` sample the same rows at the same places in
/// every lane (bit for bit): the exclusive or of every field's bits, one
/// vector or across them all, is zero.
#[inline(always)]
fn same_source(a: &SampleAt, b: &SampleAt, places: &[Placex8; 2]) -> bool {
    let bits = |x: F32x8| bytemuck::cast::<F32x8, I32x8>(x);
    let [pa, pb]: [&[F32x8; 7]; 2] = places.each_ref().map(bytemuck::cast_ref);
    let mut diff = (bits(a.time) ^ bits(b.time))
        | (bits(a.rate) ^ bits(b.rate))
        | (a.start ^ b.start)
        | (a.last ^ b.last);
    for (x, y) in pa.iter().zip(pb) {
        diff |= bits(*x) ^ bits(*y);
    }
    diff.simd_eq(I32x8::ZERO).all()
}

#[cfg(test)]
mod tests {
    //! The passes walk turning joints two at a time; each joint must get
    //! what the single-joint functions give it.
    use super::*;
    use crate::crowd::passes::testing::{close, lanes};
    use crate::crowd::state::SampleAt;
    use crate::database::{ClipStorage, Database};
    use crate::lanes::I32x8;
    use rand::{Rng, SeedableRng};

    #[test]
    fn sampling_passes_give_each_joint_its_own_sample_and_blend() {
        let clip = crate::data::default_clip().clip.with_continuous_rotations();
        for storage in [
            ClipStorage::Full,
            ClipStorage::Compact,
            ClipStorage::Stepped,
        ] {
            let db = Database::with_storage(core::slice::from_ref(&clip), storage).unwrap();
            match db.rows() {
                Rows::Full(g) => each_joint_its_own(g, &db, &clip),
                Rows::Compact(g) => each_joint_its_own(g, &db, &clip),
                Rows::Stepped(g) => each_joint_its_own(g, &db, &clip),
            }
        }
    }

    fn each_joint_its_own<G: Gather>(g: G, db: &Database, clip: &crate::Clip) {
        let real = Track::of(db);
        // The clip's own layout (an even number of turning joints after the
        // one moving joint), and one with an odd number of turning joints
        // and a moving joint between two that would pair: each joint still
        // samples its own database rows (`Sampler::joint` reads by index).
        let turning: Vec<usize> = (0..real.len())
            .filter(|&j| matches!(real[j], Track::Turns(_)))
            .collect();
        let mut odd = real.clone();
        odd[turning[1]] = Track::Moves(0, 0);
        if turning.len() % 2 == 1 {
            odd[turning[turning.len() - 1]] = Track::Still;
        }
        let odd_turning = odd.iter().filter(|t| matches!(t, Track::Turns(_))).count();
        assert!(odd_turning % 2 == 1, "an odd number of turning joints");
        let mut r = rand_pcg::Pcg32::seed_from_u64(5);
        for (round, tracks) in (0..40).map(|k| (k, if k % 2 == 0 { &real } else { &odd })) {
            let sampler = Sampler {
                db: g,
                tracks,
                inv_frame: splat(1.0 / db.frame_time()),
            };
            let last = I32x8::splat(clip.frames() as i32 - 1);
            let end = clip.frames() as f32 * db.frame_time();
            let at = |r: &mut rand_pcg::Pcg32| SampleAt {
                time: lanes(r, 0.0, end),
                rate: lanes(r, 0.5, 1.5),
                start: I32x8::ZERO,
                last,
            };
            let (ra, rb) = (
                SampleRows::new::<false, _>(&g, db.frame_time(), &at(&mut r)),
                SampleRows::new::<false, _>(&g, db.frame_time(), &at(&mut r)),
            );
            let rest = Motionx8::REST;
            let mut a = vec![rest; tracks.len()];
            sampler.sample::<false>(&ra, &mut a, &Placex8::IDENTITY, &[]);
            let flips: Vec<u8> = (0..tracks.len()).map(|_| r.random()).collect();
            let fresh = crate::crowd::motion::lane_mask(r.random());
            let w = (lanes(&mut r, 0.0, 1.0), lanes(&mut r, -3.0, 3.0));
            let mut blended = a.clone();
            let mut got_flips = flips.clone();
            let kept = ((&mut got_flips[..], fresh), &Placex8::IDENTITY);
            sampler.sample_blend::<false>(&rb, &mut blended, kept, w, &[]);
            for (j, t) in tracks.iter().enumerate().skip(1) {
                if *t == Track::Still {
                    assert_eq!(a[j], rest, "round {round} joint {j}");
                    assert_eq!(blended[j], rest, "round {round} joint {j}");
                    continue;
                }
                let mut want = sampler.joint::<false>(&ra, j - 1);
                let y = sampler.joint::<false>(&rb, j - 1);
                if matches!(t, Track::Turns(_)) {
                    (want.pos, want.vel) = (rest.pos, rest.vel);
                }
                close(&a[j], &want, &format!("round {round} joint {j}: source A"));
                let mut flip = flips[j];
                let mut b = blend_kept(&want, &y, (&mut flip, fresh), w.0, w.1);
                if matches!(t, Track::Turns(_)) {
                    (b.pos, b.vel) = (rest.pos, rest.vel);
                }
                close(&blended[j], &b, &format!("round {round} joint {j}: blend"));
                assert_eq!(
                    got_flips[j], flip,
                    "round {round} joint {j}: hemisphere bits"
                );
            }
        }
    }
}
