//! The crowd's matrix readers in the `crowd_api` check:
//! [`Crowd::transforms_into`] and [`Crowd::skinning_matrices_into`] and
//! their twins on [`ReferenceCrowd`].
//!
//! After every step both crowds' readers run over the whole crowd with a
//! fixed inverse bind (no bytes read, so the inputs found before the
//! readers joined the check mean what they meant); after the last step,
//! from the bytes left, an inverse bind (from fuzz-chosen matrices, any
//! of them perhaps not finite or not affine, or from a bind pose, or of
//! another joint count) and up to three reads over a chosen range (valid,
//! empty, reversed, past the crowd, `usize::MAX`) into a slice of the
//! right length or not. Each read goes into `[f32; 16]` transforms, a
//! matrix type of the check's own (the portable path), `[f32; 16]` and
//! `[f32; 12]` skinning matrices, and with features `glam033` / `mint`
//! `glam::Mat4` (both readers) and `mint::ColumnMatrix4` (transforms).
//!
//! The promise checked:
//! - both crowds accept or both refuse, with the same typed error, the one
//!   the documented order gives (an inverse bind of another joint count,
//!   then the range, then the slice's length); a refusal leaves the slice
//!   bit for bit as it was (filled with a sentinel first);
//! - an accepted read is, bit for bit, what the one-joint accessor gives
//!   (`tests/suite/crowds/matrices.rs`, `tests/suite/lod/readers.rs`):
//!   transforms `kform_matrix` of `world_kform(c, j)` at unit scale (the
//!   doc example of `transforms_into`), skinning matrices `skin_lanes` of
//!   it on the lanes crowd and `skin_matrix` on the reference, with the
//!   inverse bind rows this check built the bind from (never read back
//!   from it); with level of detail that is the pose each character shows
//!   (carried along its velocities), so the readers show the carried pose;
//! - an accepted read is finite where the crowd's world output is (for
//!   skinning matrices, with inverse bind entries and positions within
//!   1e30, so that no product can overflow);
//! - in the domain where the harness holds the crowds equal (`tame`), the
//!   lanes crowd's matrices equal the reference's within the tolerances
//!   `tests/suite/lod/readers.rs` derives from the crowds' stated ones: a
//!   rotation entry `ROT = 4 sqrt(2e-5)` (`1 - |q·q'| <= 1e-5` gives `|q -
//!   q'| <= sqrt(2e-5)` for the nearer sign, and an entry of the rotation
//!   matrix moves at most `4 |dq|`), a translation `2e-4 + 2e-6 |p|`; a
//!   skinning entry `(r, c)` `ROT Σ_k |B[k][c]|` (plus the translation's
//!   in column 3) and 1e-5 plus `4 ε (Σ_k |B[k][c]| + |p|)` for the
//!   rounding of the lanes' fused multiply-adds against the scalar
//!   products (lod/readers.rs's 1e-5, scaled for the fuzzed binds'
//!   magnitudes).
//! - a fuzzed inverse bind: `from_matrices` accepts exactly what its
//!   documentation says (the joint count, finite entries, a bottom row `0
//!   0 0 1` within 1e-5); `from_bind_pose` refuses a pose of the wrong
//!   length with `Error::Length`, and what it accepts is finite and affine
//!   and goes back through `from_matrices` to the same bind;
//! - level of detail's `since_evaluated` and
//!   `skinning_matrices_evaluated_into`, with every read's arguments (no
//!   bytes read for them): [`evaluated`] says what is promised.
//!
//! The parts: [`bind`] the inverse binds (the fixed one, and the one the
//! bytes choose, checked against its constructors), [`ranges`] the ranges
//! and slice lengths the bytes choose and the result a read of them must
//! give, [`layouts`] the layouts read into and each reader run on both
//! crowds, [`expected`] the matrices an accepted read must give,
//! [`compare`] the comparisons with them and between the crowds, with the
//! tolerances, and [`evaluated`] the readers of what the last step
//! evaluated.

mod bind;
mod carry;
mod compare;
mod evaluated;
mod expected;
mod layouts;
mod ranges;

use core::ops::Range;
use std::cell::Cell;

use kineform::Result;
use kineform::crowd::{Crowd, ReferenceCrowd};

use super::Bytes;
pub use bind::Bind;
use bind::fuzzed_bind;
pub use carry::Carry;
pub use evaluated::{since_bits, since_stepped};
use expected::expected;
use layouts::Wanted;
use ranges::{Want, is, length, range, want};

/// What the readers' checks did on this thread, for the smoke test's
/// counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Reads (one range, every layout) both crowds accepted in every
    /// layout.
    pub accepted: usize,
    /// Reads both crowds refused in some layouts (the skinning matrices
    /// alone where the inverse bind is of another joint count).
    pub refused: usize,
    /// Accepted reads compared lanes against reference (`tame`).
    pub compared: usize,
    /// Accepted reads of a range with a character whose period is above
    /// 1 (level of detail: shown carried on some steps).
    pub carried: usize,
    /// Fuzzed inverse binds accepted and refused by their constructor.
    pub binds: (usize, usize),
    /// Reads over a fuzzed range (after the last step) both crowds
    /// accepted in every layout.
    pub fuzzed_accepted: usize,
    /// Reads of `skinning_matrices_evaluated_into` (one range, every
    /// skinning layout, the arguments of a `skinning_matrices_into` read)
    /// both crowds accepted, and refused.
    pub evaluated: (usize, usize),
    /// Characters of the accepted evaluated reads that the last step
    /// evaluated (their matrices written) and carried (left).
    pub written: usize,
    pub left: usize,
    /// Characters an accepted step evaluated after the step before had
    /// carried them (level of detail: resumed; [`carry`]) ...
    pub resumed: usize,
    /// ... of them, those whose previous resumption's offset still ran
    /// ...
    pub resumed_running: usize,
    /// ... and at each period (1, 2, 4, 8, 16) as the step left it.
    pub resumed_at: [usize; 5],
    /// Characters whose period an accepted step changed while they were
    /// carried.
    pub changed: usize,
    /// Packs an accepted step left with both evaluated and carried
    /// characters.
    pub mixed: usize,
}

thread_local! {
    static COUNTS: Cell<Counts> = Cell::new(Counts::default());
}

/// This thread's counts so far.
pub fn counts() -> Counts {
    COUNTS.with(Cell::get)
}

fn count(f: impl FnOnce(&mut Counts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

/// After an accepted step: both crowds' readers over the whole crowd with
/// the fixed bind (no bytes read).
pub fn after_step(
    lanes: &Crowd,
    reference: &ReferenceCrowd,
    bind: &Bind,
    tame: bool,
    ctx: &dyn Fn() -> String,
) {
    let (n, nj) = (lanes.characters(), lanes.skeleton().len());
    read((lanes, reference), 0..n, bind, n * nj, tame, ctx);
}

/// After the last step, from the bytes left: a fuzzed inverse bind (the
/// fixed one where its constructor refused) and up to three reads of
/// chosen ranges and lengths. `tame`: the harness holds the crowds equal.
pub(super) fn fuzzed_reads(
    b: &mut Bytes,
    (lanes, reference): (&Crowd, &ReferenceCrowd),
    fixed: &Bind,
    tame: bool,
    log: &mut Vec<String>,
) {
    let (n, nj) = (lanes.characters(), lanes.skeleton().len());
    let made = fuzzed_bind(b, lanes.skeleton(), log);
    let bind = made.as_ref().unwrap_or(fixed);
    for _ in 0..1 + b.u8() % 3 {
        let chars = range(b, n);
        let len = length(b, &chars, nj);
        log.push(format!("read {chars:?} into {len} matrices"));
        let ctx = || log.join("\n");
        if read((lanes, reference), chars, bind, len, tame, &ctx) {
            count(|k| k.fuzzed_accepted += 1);
        }
    }
}

/// One read's characters on both crowds, for the readers run and their
/// messages (`ctx` ends them).
struct Span<'a> {
    crowds: (&'a Crowd, &'a ReferenceCrowd),
    chars: &'a Range<usize>,
    /// The crowd's joints.
    nj: usize,
    ctx: &'a dyn Fn() -> String,
}

/// Characters `chars` of both crowds through every reader into slices of
/// `len`, against the results wanted and each other (the module's
/// promise). `tame`: the harness holds the crowds equal. Whether both
/// crowds accepted the read in every layout.
fn read(
    (lanes, reference): (&Crowd, &ReferenceCrowd),
    chars: Range<usize>,
    bind: &Bind,
    len: usize,
    tame: bool,
    ctx: &dyn Fn() -> String,
) -> bool {
    let (n, nj) = (lanes.characters(), lanes.skeleton().len());
    let want_t = want(&chars, (n, nj), None, len);
    let want_s = want(&chars, (n, nj), Some(bind.bind.joints()), len);
    let ok_t = |res: &Result<()>| is(res, want_t, &chars, (n, nj), len);
    let ok_s = |res: &Result<()>| is(res, want_s, &chars, (n, nj), len);
    let span = Span {
        crowds: (lanes, reference),
        chars: &chars,
        nj,
        ctx,
    };
    let reads = span.read_every_layout(len, &bind.bind, (&ok_t, &ok_s));
    // Level of detail's readers, with the same arguments.
    let fresh = evaluated::evaluated(lanes, reference, ctx);
    let ok: (Wanted, bool) = (&ok_s, want_s == Want::Ok);
    span.evaluated_reads((len, &bind.bind), ok, &reads, &fresh);
    let refused = want_t != Want::Ok || want_s != Want::Ok;
    if refused {
        count(|k| k.refused += 1);
    }
    if want_t != Want::Ok {
        return false;
    }
    let t16 = reads.t16.as_ref().expect("accepted");
    let lw = |c, j| lanes.world_kform(c, j).unwrap();
    let rw = |c, j| reference.world_kform(c, j).unwrap();
    let el = expected(&lw, chars.clone(), nj, bind, true);
    let er = expected(&rw, chars.clone(), nj, bind, false);
    span.transforms_as_expected(t16, &reads.same_as_t16, (&el, &er));
    if lanes.config().level_of_detail
        && chars
            .clone()
            .any(|c| lanes.period(c).is_some_and(|p| p.0 > 1))
    {
        count(|k| k.carried += 1);
    }
    if tame {
        span.transforms_agree(t16);
    }
    if want_s != Want::Ok {
        return false;
    }
    let (s16, s12) = (reads.s16.as_ref().unwrap(), reads.s12.as_ref().unwrap());
    // No product can overflow with entries and positions within 1e30.
    let bounded = bind.largest() <= 1e30;
    let same = &reads.same_as_s16;
    span.skinning_as_expected((s16, s12), same, (&el, &er), bounded);
    count(|k| k.accepted += 1);
    if tame && bounded {
        span.skinning_agree(s12, bind);
        count(|k| k.compared += 1);
    }
    true
}
