//! Level of detail's readers of what the last step evaluated:
//! [`Crowd::since_evaluated`] and [`Crowd::skinning_matrices_evaluated_into`]
//! and their twins on [`ReferenceCrowd`], with the arguments the other
//! readers' checks already chose (no bytes read, so every input means
//! what it meant before).
//!
//! The promise checked:
//! - `since_evaluated` is, bit for bit, the same on both crowds for every
//!   character (the schedule's code is shared), `None` past the crowd
//!   (the count, one more, `usize::MAX`), never negative nor infinite,
//!   and 0 for every character without level of detail; an accepted step
//!   of `dt` leaves each character's at 0 or at the one before it plus
//!   `dt` (f32, bit for bit), a refused step leaves it as it was. Every
//!   accepted `dt` is above 0 (the step's check) and the crowds start at
//!   0, so `since_evaluated == Some(0.0)` is exactly "the last step (or
//!   none yet) evaluated it", the schedule's `carried` bit clear;
//! - the evaluated reader, into `[f32; 16]`, `[f32; 12]` and, with
//!   feature `glam033`, `glam::Mat4`, over the range, slice length and
//!   inverse bind of each `skinning_matrices_into` check: both crowds
//!   give the result that check wants (the same `Want`), and a refusal is,
//!   as text, the one `skinning_matrices_into` of the same crowd gives
//!   for the same arguments and leaves the sentinel-filled slice bit for
//!   bit as it was; an accepted read holds, for each character the last
//!   step evaluated, bit for bit what that crowd's `skinning_matrices_into`
//!   wrote for it, and the sentinel, bit for bit, in every other
//!   character's entries. (Lanes against reference is the full reader's
//!   check: the two readers share the per-pack code.)

use kineform::Result;
use kineform::crowd::{Crowd, ReferenceCrowd};
use kineform::skinning::{InverseBind, SkinMatrix};

use super::layouts::{Floats, Read, Reads, SENTINEL_BITS, Wanted, both};
use super::{Span, count};

/// Each character's `since_evaluated` on `lanes`, as bits (before a
/// step, for [`since_stepped`]).
pub fn since_bits(lanes: &Crowd) -> Vec<u32> {
    (0..lanes.characters())
        .map(|c| lanes.since_evaluated(c).expect("a character").to_bits())
        .collect()
}

/// After an accepted step of `dt`: each character's `since_evaluated` is
/// 0, or `before` (its [`since_bits`] before the step) plus `dt`.
pub fn since_stepped(lanes: &Crowd, before: &[u32], dt: f32, ctx: &dyn Fn() -> String) {
    for (c, b) in before.iter().enumerate() {
        let s = lanes.since_evaluated(c).expect("a character");
        let carried = f32::from_bits(*b) + dt;
        assert!(
            s == 0.0 || s.to_bits() == carried.to_bits(),
            "since_evaluated({c}) {s:e} after a step of {dt:e} from {:e}: neither 0 nor {carried:e}\n{}",
            f32::from_bits(*b),
            ctx()
        );
    }
}

/// Both crowds' `since_evaluated` for every character and past the
/// crowd, against each other and the module's promise: whether the last
/// step evaluated each character (`Some(0.0)`).
pub(super) fn evaluated(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    ctx: &dyn Fn() -> String,
) -> Vec<bool> {
    let n = lanes.characters();
    for c in [n, n + 1, usize::MAX] {
        let (l, r) = (lanes.since_evaluated(c), reference.since_evaluated(c));
        assert!(
            l.is_none() && r.is_none(),
            "since_evaluated({c}) past {n} characters: lanes {l:?}, reference {r:?}\n{}",
            ctx()
        );
    }
    let lod = lanes.config().level_of_detail;
    (0..n)
        .map(|c| {
            let (l, r) = (lanes.since_evaluated(c), reference.since_evaluated(c));
            let (l, r) = (l.expect("a character"), r.expect("a character"));
            assert!(
                l.to_bits() == r.to_bits(),
                "since_evaluated({c}): lanes {l:e}, reference {r:e}\n{}",
                ctx()
            );
            assert!(
                l >= 0.0 && l.is_finite() && (lod || l == 0.0),
                "since_evaluated({c}) {l:e} (level of detail {lod})\n{}",
                ctx()
            );
            l == 0.0
        })
        .collect()
}

/// A refusal of the evaluated reader on one crowd is, as text, the one
/// `full` (`skinning_matrices_into` of the same crowd and arguments,
/// into a slice of `len`) gives.
fn as_full<M: Floats>(
    what: &str,
    res: Result<()>,
    (full, len): (impl FnOnce(&mut [M]) -> Result<()>, usize),
    ctx: &dyn Fn() -> String,
) -> Result<()> {
    if res.is_err() {
        let f = full(&mut vec![M::SENTINEL; len]);
        assert_eq!(
            format!("{res:?}"),
            format!("{f:?}"),
            "{what}: refused otherwise than skinning_matrices_into\n{}",
            ctx()
        );
    }
    res
}

/// The evaluated reads of one range, each layout's [`Read`].
struct EvaluatedReads {
    s16: Read,
    s12: Read,
    /// The same floats as `s16`: glam where that feature is on.
    same_as_s16: Vec<(&'static str, Read)>,
}

impl Span<'_> {
    /// `skinning_matrices_evaluated_into` of both crowds into `[M]` (see
    /// [`both`]; a refusal as [`as_full`] says).
    fn evaluated_skinning<M: Floats + SkinMatrix>(
        &self,
        what: &str,
        len: usize,
        ib: &InverseBind,
        ok: Wanted,
    ) -> Read {
        let ((lanes, reference), c, ctx) = (self.crowds, self.chars, self.ctx);
        let l = |o: &mut [M]| {
            let res = lanes.skinning_matrices_evaluated_into(c.clone(), ib, o);
            let full = |f: &mut [M]| lanes.skinning_matrices_into(c.clone(), ib, f);
            as_full(what, res, (full, len), ctx)
        };
        let r = |o: &mut [M]| {
            let res = reference.skinning_matrices_evaluated_into(c.clone(), ib, o);
            let full = |f: &mut [M]| reference.skinning_matrices_into(c.clone(), ib, f);
            as_full(what, res, (full, len), ctx)
        };
        both::<M>(what, len, (l, r), ok, ctx)
    }

    /// The evaluated reader into every skinning layout, slices of `len`,
    /// wanting `ok` (what `skinning_matrices_into` wanted).
    fn read_evaluated(&self, len: usize, ib: &InverseBind, ok: Wanted) -> EvaluatedReads {
        let what = "skinning_matrices_evaluated_into [f32; 16]";
        let s16 = self.evaluated_skinning::<[f32; 16]>(what, len, ib, ok);
        let what = "skinning_matrices_evaluated_into [f32; 12]";
        let s12 = self.evaluated_skinning::<[f32; 12]>(what, len, ib, ok);
        #[allow(unused_mut)] // Mutable only for glam.
        let mut same_as_s16: Vec<(&str, Read)> = Vec::new();
        #[cfg(feature = "glam033")]
        {
            let what = "skinning_matrices_evaluated_into glam::Mat4";
            let s = self.evaluated_skinning::<kineform::glam033::Mat4>(what, len, ib, ok);
            same_as_s16.push(("glam", s));
        }
        EvaluatedReads {
            s16,
            s12,
            same_as_s16,
        }
    }

    /// What an accepted evaluated read of `per` floats a matrix must hold:
    /// `full` (the crowd's `skinning_matrices_into`) for the characters
    /// `fresh` says the last step evaluated, the sentinel for the others.
    fn wanted_evaluated(&self, full: &[u32], per: usize, fresh: &[bool]) -> Vec<u32> {
        let m = per * self.nj;
        full.chunks(m)
            .zip(self.chars.clone())
            .flat_map(|(f, c)| match fresh[c] {
                true => f.to_vec(),
                false => vec![SENTINEL_BITS; m],
            })
            .collect()
    }

    /// The evaluated reader over this span, slices of `len`, through
    /// `ib`, wanting `ok` as `skinning_matrices_into` did (`accepted`);
    /// accepted, each crowd's against its own `full` reads and `fresh`
    /// (from [`evaluated`]) as the module says. Counted.
    pub(super) fn evaluated_reads(
        &self,
        (len, ib): (usize, &InverseBind),
        (ok, accepted): (Wanted, bool),
        full: &Reads,
        fresh: &[bool],
    ) {
        let ev = self.read_evaluated(len, ib, ok);
        if !accepted {
            count(|k| k.evaluated.1 += 1);
            return;
        }
        let (f16, f12) = (full.s16.as_ref().unwrap(), full.s12.as_ref().unwrap());
        let (w16, w12) = (
            (
                self.wanted_evaluated(&f16.0, 16, fresh),
                self.wanted_evaluated(&f16.1, 16, fresh),
            ),
            (
                self.wanted_evaluated(&f12.0, 12, fresh),
                self.wanted_evaluated(&f12.1, 12, fresh),
            ),
        );
        let layouts = [("4x4", &ev.s16, &w16, 16), ("3x4", &ev.s12, &w12, 12)];
        let same = ev.same_as_s16.iter().map(|(n, r)| (*n, r, &w16, 16));
        for (name, got, want, per) in layouts.into_iter().chain(same) {
            let (l, r) = got
                .as_ref()
                .expect("accepted as skinning_matrices_into was");
            let at = |crowd: &str| {
                format!(
                    "{crowd} evaluated skinning {name}: skinning_matrices_into's where evaluated, the sentinel (NaN 0x7fa5a5a5) where carried"
                )
            };
            self.same_bits(&at("lanes"), l, &want.0, per);
            self.same_bits(&at("reference"), r, &want.1, per);
        }
        let written = self.chars.clone().filter(|c| fresh[*c]).count();
        let left = self.chars.len() - written;
        count(|k| {
            k.evaluated.0 += 1;
            k.written += written;
            k.left += left;
        });
    }
}
