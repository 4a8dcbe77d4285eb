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
//!   (`tests/suite/crowds/matrices.rs`, `tests/suite/lod.rs`): transforms
//!   `kform_matrix` of `world_kform(c, j)` at unit scale (the doc example
//!   of `transforms_into`), skinning matrices `skin_lanes` of it on the
//!   lanes crowd and `skin_matrix` on the reference, with the inverse
//!   bind rows this check built the bind from (never read back from it);
//!   with level of detail that is the pose each character shows (carried
//!   along its velocities), so the readers show the carried pose;
//! - an accepted read is finite where the crowd's world output is (for
//!   skinning matrices, with inverse bind entries and positions within
//!   1e30, so that no product can overflow);
//! - in the domain where the harness holds the crowds equal (`tame`), the
//!   lanes crowd's matrices equal the reference's within the tolerances
//!   `tests/suite/lod.rs` derives from the crowds' stated ones: a rotation
//!   entry `ROT = 4 sqrt(2e-5)` (`1 - |q·q'| <= 1e-5` gives `|q - q'| <=
//!   sqrt(2e-5)` for the nearer sign, and an entry of the rotation matrix
//!   moves at most `4 |dq|`), a translation `2e-4 + 2e-6 |p|`; a skinning
//!   entry `(r, c)` `ROT Σ_k |B[k][c]|` (plus the translation's in column
//!   3) and 1e-5 plus `4 ε (Σ_k |B[k][c]| + |p|)` for the rounding of the
//!   lanes' fused multiply-adds against the scalar products (lod.rs's
//!   1e-5, scaled for the fuzzed binds' magnitudes).
//! - a fuzzed inverse bind: `from_matrices` accepts exactly what its
//!   documentation says (the joint count, finite entries, a bottom row `0
//!   0 0 1` within 1e-5); `from_bind_pose` refuses a pose of the wrong
//!   length with `Error::Length`, and what it accepts is finite and affine
//!   and goes back through `from_matrices` to the same bind.

use core::ops::Range;
use std::cell::Cell;

use kineform::crowd::{Crowd, ReferenceCrowd};
use kineform::lanes::{Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Quat, Vec3};
use kineform::skinning::{self, InverseBind, SkinMatrix};
use kineform::{Error, Result, Skeleton};

use super::Bytes;

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

/// An inverse bind and each joint's 3x4 rows as this check built them.
pub struct Bind {
    bind: InverseBind,
    rows: Vec<[f32; 12]>,
}

/// The rows `(m[r][0], m[r][1], m[r][2], t[r])` of a column-major 4x4.
fn rows_of(m: &[f32; 16]) -> [f32; 12] {
    core::array::from_fn(|i| m[(i % 4) * 4 + i / 4])
}

/// Joint `j`'s matrix of the fixed bind: turned, scaled and moved, so that
/// every entry takes part (as `tests/suite/crowds/matrices.rs`'s
/// `some_bind`).
fn fixed_matrix(j: usize) -> [f32; 16] {
    let a = 0.3 + j as f32 * 0.17;
    skinning::kform_matrix(&Kform {
        pos: Vec3::new(a, 1.0 - a, 0.5 * a),
        rot: r::quat_normalize(Quat::new(1.0, a, -0.5 * a, 0.25)),
        scl: Vec3::new(1.0 + 0.1 * a, 1.0, 0.9),
        ..Kform::IDENTITY
    })
}

impl Bind {
    /// The fixed bind of a skeleton's joints.
    pub fn fixed(skeleton: &Skeleton) -> Bind {
        let m: Vec<[f32; 16]> = (0..skeleton.len()).map(fixed_matrix).collect();
        let bind = InverseBind::from_matrices(skeleton, &m).expect("affine, finite matrices");
        Bind {
            bind,
            rows: m.iter().map(rows_of).collect(),
        }
    }

    /// The largest entry's magnitude (0 for no joints).
    fn largest(&self) -> f32 {
        let m = self.rows.iter().flatten().map(|v| v.abs());
        m.fold(0.0, f32::max)
    }
}

/// A matrix layout the readers write, as its floats in memory order.
trait Floats: Copy {
    const SENTINEL: Self;
    fn push_bits(&self, out: &mut Vec<u32>);
}

/// A float no reader writes by chance (a NaN with a payload).
const S: f32 = f32::from_bits(0x7fa5_a5a5);

impl Floats for [f32; 16] {
    const SENTINEL: Self = [S; 16];
    fn push_bits(&self, out: &mut Vec<u32>) {
        out.extend(self.map(f32::to_bits));
    }
}

impl Floats for [f32; 12] {
    const SENTINEL: Self = [S; 12];
    fn push_bits(&self, out: &mut Vec<u32>) {
        out.extend(self.map(f32::to_bits));
    }
}

/// A 4x4 matrix type of the check's own, which no fast path knows (its
/// transforms take the readers' portable path).
#[derive(Clone, Copy, Debug)]
struct Mine([f32; 16]);

impl From<Kform> for Mine {
    fn from(k: Kform) -> Mine {
        Mine(skinning::kform_matrix(&k))
    }
}

impl Floats for Mine {
    const SENTINEL: Self = Mine([S; 16]);
    fn push_bits(&self, out: &mut Vec<u32>) {
        self.0.push_bits(out);
    }
}

#[cfg(feature = "glam033")]
impl Floats for kineform::glam033::Mat4 {
    const SENTINEL: Self = kineform::glam033::Mat4::from_cols_array(&[S; 16]);
    fn push_bits(&self, out: &mut Vec<u32>) {
        self.to_cols_array().push_bits(out);
    }
}

#[cfg(feature = "mint")]
impl Floats for mint::ColumnMatrix4<f32> {
    const SENTINEL: Self = {
        let v = mint::Vector4 {
            x: S,
            y: S,
            z: S,
            w: S,
        };
        mint::ColumnMatrix4 {
            x: v,
            y: v,
            z: v,
            w: v,
        }
    };
    fn push_bits(&self, out: &mut Vec<u32>) {
        <[f32; 16]>::from(*self).push_bits(out);
    }
}

fn bits_of<M: Floats>(s: &[M]) -> Vec<u32> {
    let mut out = Vec::new();
    s.iter().for_each(|m| m.push_bits(&mut out));
    out
}

/// The refusal a read must give, in the documented order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Ok,
    /// The inverse bind's joint count is not the crowd's.
    Joints(usize),
    Range,
    /// The slice's length is not this.
    Length(usize),
}

fn want(chars: &Range<usize>, (n, nj): (usize, usize), bind: Option<usize>, got: usize) -> Want {
    if let Some(b) = bind.filter(|b| *b != nj) {
        return Want::Joints(b);
    }
    if chars.start > chars.end || chars.end > n {
        return Want::Range;
    }
    let w = chars.len() * nj;
    if got == w { Want::Ok } else { Want::Length(w) }
}

/// Whether `res` is the result `want` names.
fn is(
    res: &Result<()>,
    want: Want,
    chars: &Range<usize>,
    (n, nj): (usize, usize),
    got: usize,
) -> bool {
    match (res, want) {
        (Ok(()), Want::Ok) => true,
        (
            Err(Error::Length {
                expected, got: g, ..
            }),
            Want::Joints(b),
        ) => *expected == b && *g == nj,
        (
            Err(Error::Range {
                start, end, len, ..
            }),
            Want::Range,
        ) => *start == chars.start && *end == chars.end && *len == n,
        (
            Err(Error::Length {
                expected, got: g, ..
            }),
            Want::Length(w),
        ) => *expected == w && *g == got,
        _ => false,
    }
}

/// What a reader wrote on each crowd (lanes, reference) as bits, when
/// accepted.
type Read = Option<(Vec<u32>, Vec<u32>)>;

/// One reader on both crowds into slices of `len` filled with the
/// sentinel: the same result on both (as text), the one `want` names with
/// a message; a refusal leaves both slices as they were. The slices' bits
/// when accepted.
fn both<M: Floats>(
    what: &str,
    len: usize,
    (lanes, reference): (
        impl FnOnce(&mut [M]) -> Result<()>,
        impl FnOnce(&mut [M]) -> Result<()>,
    ),
    expect: &dyn Fn(&Result<()>) -> bool,
    ctx: &dyn Fn() -> String,
) -> Read {
    let (mut l, mut r) = (vec![M::SENTINEL; len], vec![M::SENTINEL; len]);
    let (rl, rr) = (lanes(&mut l), reference(&mut r));
    assert_eq!(
        format!("{rl:?}"),
        format!("{rr:?}"),
        "{what}: the crowds disagree\n{}",
        ctx()
    );
    assert!(
        expect(&rl),
        "{what}: {rl:?} is not the result wanted\n{}",
        ctx()
    );
    let (bl, br) = (bits_of(&l), bits_of(&r));
    match rl {
        Ok(()) => Some((bl, br)),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            let untouched = bits_of(&vec![M::SENTINEL; len]);
            assert!(
                bl == untouched && br == untouched,
                "{what}: a refused read ({e}) wrote into the slice\n{}",
                ctx()
            );
            None
        }
    }
}

/// The lanes' skinning matrix of one joint: `skin_lanes` of the pose
/// splat over the eight lanes, lane 0 (every lane's arithmetic).
fn skin_of(k: &Kform, bind: &[f32; 12]) -> [[f32; 8]; 12] {
    let (pos, rot) = (Vec3x8::splat(k.pos), Quatx8::splat(k.rot));
    skinning::skin_lanes(pos, rot, Vec3x8::ONE, bind).map(|v| v.to_array())
}

fn unit(k: Kform) -> Kform {
    Kform {
        pos: k.pos,
        rot: k.rot,
        ..Kform::IDENTITY
    }
}

/// The first entry where `got` and `want` differ in bits, as (character,
/// joint, entry) of a layout of `per` floats.
fn first_diff(got: &[u32], want: &[u32], per: usize, nj: usize, start: usize) -> Option<String> {
    let i = got.iter().zip(want).position(|(a, b)| a != b)?;
    let (m, e) = (i / per, i % per);
    Some(format!(
        "character {}, joint {}, entry {e}: {:e} where {:e}",
        start + m / nj,
        m % nj,
        f32::from_bits(got[i]),
        f32::from_bits(want[i])
    ))
}

/// Expected bits, per crowd: transforms, skinning 4x4, skinning 3x4.
struct Expected {
    t16: Vec<u32>,
    s16: Vec<u32>,
    s12: Vec<u32>,
    /// Every world value of the range finite.
    finite: bool,
    /// The largest position magnitude component.
    reach: f32,
}

fn expected(
    world: &dyn Fn(usize, usize) -> Kform,
    chars: Range<usize>,
    nj: usize,
    bind: &Bind,
    lanes: bool,
) -> Expected {
    let mut e = Expected {
        t16: Vec::new(),
        s16: Vec::new(),
        s12: Vec::new(),
        finite: true,
        reach: 0.0,
    };
    for c in chars {
        for j in 0..nj {
            let w = unit(world(c, j));
            e.finite &= w
                .pos
                .to_array()
                .iter()
                .chain(&w.rot.to_array())
                .all(|v| v.is_finite());
            e.reach = w.pos.to_array().iter().fold(e.reach, |m, v| m.max(v.abs()));
            skinning::kform_matrix(&w).push_bits(&mut e.t16);
            // Only where the bind has the crowd's joints (else refused).
            let Some(rows) = bind.rows.get(j).filter(|_| bind.rows.len() == nj) else {
                continue;
            };
            let lanes_of = match lanes {
                true => skin_of(&w, rows),
                false => skinning::skin_matrix(&w, rows).map(|v| [v; 8]),
            };
            <[f32; 16]>::from_lanes(&lanes_of, 0).push_bits(&mut e.s16);
            <[f32; 12]>::from_lanes(&lanes_of, 0).push_bits(&mut e.s12);
        }
    }
    e
}

/// Characters `chars` of both crowds through every reader into slices of
/// `len`, against the results wanted and each other (the module's
/// promise). `tame`: the harness holds the crowds equal.
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
    let (ib, c) = (&bind.bind, chars.clone());
    let t16 = both::<[f32; 16]>(
        "transforms_into [f32; 16]",
        len,
        (
            |o| lanes.transforms_into(c.clone(), o),
            |o| reference.transforms_into(c.clone(), o),
        ),
        &ok_t,
        ctx,
    );
    let tm = both::<Mine>(
        "transforms_into, a type of the caller's",
        len,
        (
            |o| lanes.transforms_into(c.clone(), o),
            |o| reference.transforms_into(c.clone(), o),
        ),
        &ok_t,
        ctx,
    );
    let s16 = both::<[f32; 16]>(
        "skinning_matrices_into [f32; 16]",
        len,
        (
            |o| lanes.skinning_matrices_into(c.clone(), ib, o),
            |o| reference.skinning_matrices_into(c.clone(), ib, o),
        ),
        &ok_s,
        ctx,
    );
    let s12 = both::<[f32; 12]>(
        "skinning_matrices_into [f32; 12]",
        len,
        (
            |o| lanes.skinning_matrices_into(c.clone(), ib, o),
            |o| reference.skinning_matrices_into(c.clone(), ib, o),
        ),
        &ok_s,
        ctx,
    );
    // The same floats through glam and mint, where those features are on.
    // (Mutable only for them.)
    #[allow(unused_mut)]
    let mut same_as_t16: Vec<(&str, Read)> = vec![("own type", tm)];
    #[allow(unused_mut)]
    let mut same_as_s16: Vec<(&str, Read)> = Vec::new();
    #[cfg(feature = "glam033")]
    {
        use kineform::glam033::Mat4;
        same_as_t16.push((
            "glam",
            both::<Mat4>(
                "transforms_into glam::Mat4",
                len,
                (
                    |o| lanes.transforms_into(c.clone(), o),
                    |o| reference.transforms_into(c.clone(), o),
                ),
                &ok_t,
                ctx,
            ),
        ));
        same_as_s16.push((
            "glam",
            both::<Mat4>(
                "skinning_matrices_into glam::Mat4",
                len,
                (
                    |o| lanes.skinning_matrices_into(c.clone(), ib, o),
                    |o| reference.skinning_matrices_into(c.clone(), ib, o),
                ),
                &ok_s,
                ctx,
            ),
        ));
    }
    #[cfg(feature = "mint")]
    same_as_t16.push((
        "mint",
        both::<mint::ColumnMatrix4<f32>>(
            "transforms_into mint::ColumnMatrix4",
            len,
            (
                |o| lanes.transforms_into(c.clone(), o),
                |o| reference.transforms_into(c.clone(), o),
            ),
            &ok_t,
            ctx,
        ),
    ));
    let refused = want_t != Want::Ok || want_s != Want::Ok;
    if refused {
        count(|k| k.refused += 1);
    }
    if want_t != Want::Ok {
        return false;
    }
    let t16 = t16.expect("accepted");
    let lw = |c, j| lanes.world_kform(c, j).unwrap();
    let rw = |c, j| reference.world_kform(c, j).unwrap();
    let el = expected(&lw, chars.clone(), nj, bind, true);
    let er = expected(&rw, chars.clone(), nj, bind, false);
    let at = |what: &str, got: &[u32], want: &[u32], per: usize| {
        if let Some(d) = first_diff(got, want, per, nj, chars.start) {
            panic!("{what} over {chars:?}: {d}\n{}", ctx());
        }
    };
    // Bit for bit what the one-joint accessor gives (the pose shown).
    at(
        "lanes transforms vs kform_matrix(world_kform)",
        &t16.0,
        &el.t16,
        16,
    );
    at(
        "reference transforms vs kform_matrix(world_kform)",
        &t16.1,
        &er.t16,
        16,
    );
    for (name, other) in &same_as_t16 {
        let (l, r) = other.as_ref().expect("accepted as [f32; 16] was");
        at(&format!("lanes transforms into {name}"), l, &el.t16, 16);
        at(&format!("reference transforms into {name}"), r, &er.t16, 16);
    }
    let finite = |b: &[u32]| b.iter().all(|v| f32::from_bits(*v).is_finite());
    assert!(
        !el.finite || finite(&t16.0),
        "lanes transforms over {chars:?} not finite\n{}",
        ctx()
    );
    assert!(
        !er.finite || finite(&t16.1),
        "reference transforms over {chars:?} not finite\n{}",
        ctx()
    );
    if lanes.config().level_of_detail
        && chars
            .clone()
            .any(|c| lanes.period(c).is_some_and(|p| p.0 > 1))
    {
        count(|k| k.carried += 1);
    }
    if tame {
        for (k, w) in t16.0.chunks(16).zip(t16.1.chunks(16)).enumerate() {
            let c = chars.start + k / nj;
            let p = r::length(rw(c, k % nj).pos);
            crowds_agree_transform(w, p, &|| {
                format!("character {c}, joint {}\n{}", k % nj, ctx())
            });
        }
    }
    if want_s != Want::Ok {
        return false;
    }
    let (s16, s12) = (s16.unwrap(), s12.unwrap());
    at(
        "lanes skinning 4x4 vs skin_lanes(world_kform)",
        &s16.0,
        &el.s16,
        16,
    );
    at(
        "reference skinning 4x4 vs skin_matrix(world_kform)",
        &s16.1,
        &er.s16,
        16,
    );
    at(
        "lanes skinning 3x4 vs skin_lanes(world_kform)",
        &s12.0,
        &el.s12,
        12,
    );
    at(
        "reference skinning 3x4 vs skin_matrix(world_kform)",
        &s12.1,
        &er.s12,
        12,
    );
    for (name, other) in &same_as_s16 {
        let (l, r) = other.as_ref().expect("accepted as [f32; 16] was");
        at(&format!("lanes skinning into {name}"), l, &el.s16, 16);
        at(&format!("reference skinning into {name}"), r, &er.s16, 16);
    }
    // No product can overflow with entries and positions within 1e30.
    let bounded = bind.largest() <= 1e30;
    assert!(
        !(el.finite && bounded && el.reach <= 1e30) || finite(&s12.0) && finite(&s16.0),
        "lanes skinning matrices over {chars:?} not finite\n{}",
        ctx()
    );
    assert!(
        !(er.finite && bounded && er.reach <= 1e30) || finite(&s12.1) && finite(&s16.1),
        "reference skinning matrices over {chars:?} not finite\n{}",
        ctx()
    );
    count(|k| k.accepted += 1);
    if tame && bounded {
        for (k, s) in s12.0.chunks(12).zip(s12.1.chunks(12)).enumerate() {
            let (c, j) = (chars.start + k / nj, k % nj);
            let p = r::length(rw(c, j).pos);
            crowds_agree_skin(s, &bind.rows[j], p, &|| {
                format!("character {c}, joint {j}\n{}", ctx())
            });
        }
        count(|k| k.compared += 1);
    }
    true
}

/// `4 sqrt(2e-5)`: a rotation matrix entry's tolerance (the module's
/// derivation).
fn rot_tolerance() -> f32 {
    4.0 * 2e-5f32.sqrt()
}

fn pos_tolerance(p: f32) -> f32 {
    2e-4 + 2e-6 * p
}

/// One joint's transforms (lanes, reference bits), the reference's
/// position of length `p`.
fn crowds_agree_transform((l, r): (&[u32], &[u32]), p: f32, at: &dyn Fn() -> String) {
    for e in 0..16 {
        let tol = match (e / 4, e % 4) {
            (3, 3) => 0.0,
            (3, _) => pos_tolerance(p),
            (_, 3) => 0.0,
            _ => rot_tolerance(),
        };
        let d = (f32::from_bits(l[e]) - f32::from_bits(r[e])).abs();
        assert!(
            d <= tol,
            "transform entry {e}: lanes and reference {d:e} apart, past {tol:e}: {}",
            at()
        );
    }
}

/// One joint's 3x4 skinning rows (lanes, reference bits) through the
/// inverse bind rows `b`.
fn crowds_agree_skin((l, r): (&[u32], &[u32]), b: &[f32; 12], p: f32, at: &dyn Fn() -> String) {
    for e in 0..12 {
        let col = e % 4;
        let spread: f32 = (0..3).map(|k| b[4 * k + col].abs()).sum();
        let t = if col == 3 { pos_tolerance(p) } else { 0.0 };
        let round = 1e-5 + 4.0 * f32::EPSILON * (spread + if col == 3 { p } else { 0.0 });
        let tol = rot_tolerance() * spread + t + round;
        let d = (f32::from_bits(l[e]) - f32::from_bits(r[e])).abs();
        assert!(
            d <= tol,
            "skinning row {}, column {col}: lanes and reference {d:e} apart, past {tol:e}: {}",
            e / 4,
            at()
        );
    }
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

/// A value in `[lo, hi]` from 16 bits, or where `wild`, any of
/// [`Bytes::f32`]'s (special values and raw bits among them).
fn value(b: &mut Bytes, wild: bool, lo: f32, hi: f32) -> f32 {
    match wild {
        true => b.f32(lo, hi),
        false => lo + (hi - lo) * (b.u16() as f32 / 65535.0),
    }
}

/// Offsets from a bottom-row entry's value around `from_matrices`'s 1e-5.
const NEAR: [f32; 6] = [0.0, 1e-6, 9.5e-6, 1e-5, 1.1e-5, 0.5];

/// A joint count for a fuzzed bind: mostly the crowd's, else one off.
fn joint_count(b: &mut Bytes, nj: usize) -> usize {
    match b.u8() % 8 {
        0 => nj + 1,
        1 => nj.saturating_sub(1),
        _ => nj,
    }
}

/// A per-joint pose: a base from the bytes turned about a chosen axis and
/// moved a step more each joint.
#[derive(Debug)]
struct Shape {
    pos: Vec3,
    step: Vec3,
    axis: Vec3,
    scl: Vec3,
    /// Rotation components as given (perhaps not a unit quaternion).
    raw: Option<Quat>,
}

impl Shape {
    fn new(b: &mut Bytes, wild: bool) -> Shape {
        let v = |b: &mut Bytes, lo, hi| value(b, wild, lo, hi);
        let pos = Vec3::new(
            v(b, -100.0, 100.0),
            v(b, -100.0, 100.0),
            v(b, -100.0, 100.0),
        );
        let step = Vec3::new(v(b, -2.0, 2.0), v(b, -2.0, 2.0), v(b, -2.0, 2.0));
        let axis = Vec3::new(v(b, -1.0, 1.0), v(b, -1.0, 1.0), v(b, -1.0, 1.0));
        let scl = match b.u8() % 4 {
            0 => Vec3::new(1.0, 1.0, 1.0),
            1 => Vec3::splat(v(b, 0.01, 10.0)),
            _ => Vec3::new(v(b, 0.01, 10.0), v(b, 0.01, 10.0), v(b, 0.01, 10.0)),
        };
        let raw = b.u8().is_multiple_of(8).then(|| {
            Quat::new(
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
                v(b, -1.0, 1.0),
            )
        });
        Shape {
            pos,
            step,
            axis,
            scl,
            raw,
        }
    }

    fn joint(&self, j: usize) -> Kform {
        let k = j as f32 + 1.0;
        Kform {
            pos: self.pos + self.step * k,
            rot: self
                .raw
                .unwrap_or_else(|| r::quat_from_scaled_angle_axis(self.axis * k)),
            scl: self.scl,
            ..Kform::IDENTITY
        }
    }
}

/// An inverse bind from the bytes (see the module), checked against its
/// constructors' documentation; `None` where they refused it.
fn fuzzed_bind(b: &mut Bytes, skeleton: &Skeleton, log: &mut Vec<String>) -> Option<Bind> {
    let nj = skeleton.len();
    let kind = b.u8() % 8;
    let wild = b.u8() < 64;
    match kind {
        0 | 1 => Some(Bind::fixed(skeleton)),
        2..=4 => {
            let count = joint_count(b, nj);
            let shape = Shape::new(b, wild);
            let mut m: Vec<[f32; 16]> = (0..count)
                .map(|j| skinning::kform_matrix(&shape.joint(j)))
                .collect();
            // A few entries damaged: any value, or a bottom-row entry moved
            // about the 1e-5 the constructor allows.
            for _ in 0..b.u8() % 4 {
                let (j, e) = (b.u8() as usize % count.max(1), b.u8() as usize % 16);
                let v = if e % 4 == 3 {
                    let d = NEAR[b.u8() as usize % NEAR.len()];
                    let base = if e == 15 { 1.0 } else { 0.0 };
                    if b.u8() & 1 == 1 { base - d } else { base + d }
                } else {
                    b.f32(-2.0, 2.0)
                };
                if let Some(mat) = m.get_mut(j) {
                    mat[e] = v;
                }
            }
            let res = InverseBind::from_matrices(skeleton, &m);
            log.push(format!(
                "InverseBind::from_matrices({count} matrices, {shape:?}) -> {:?}",
                res.as_ref().err()
            ));
            let valid = count == nj
                && m.iter().all(|m| {
                    m.iter().all(|v| v.is_finite())
                        && [m[3], m[7], m[11], m[15] - 1.0]
                            .iter()
                            .all(|v| v.abs() <= 1e-5)
                });
            match res {
                Ok(bind) => {
                    assert!(valid, "from_matrices accepted\n{}", log.join("\n"));
                    count_bind(true);
                    Some(Bind {
                        bind,
                        rows: m.iter().map(rows_of).collect(),
                    })
                }
                Err(e) => {
                    assert!(
                        !valid && !e.to_string().is_empty(),
                        "from_matrices refused: {e}\n{}",
                        log.join("\n")
                    );
                    if count != nj {
                        assert!(matches!(e, Error::Length { .. }), "{e}");
                    }
                    count_bind(false);
                    None
                }
            }
        }
        5 | 6 => {
            let count = joint_count(b, nj);
            let shape = Shape::new(b, wild);
            let mut local: Vec<Kform> = (0..count).map(|j| shape.joint(j)).collect();
            for _ in 0..b.u8() % 3 {
                let j = b.u8() as usize % count.max(1);
                let v = b.f32(-2.0, 2.0);
                if let Some(k) = local.get_mut(j) {
                    match b.u8() % 3 {
                        0 => k.scl.x = v,
                        1 => k.pos.y = v,
                        _ => k.rot.z = v,
                    }
                }
            }
            let res = InverseBind::from_bind_pose(skeleton, &local);
            log.push(format!(
                "InverseBind::from_bind_pose({count} joints, {shape:?}) -> {:?}",
                res.as_ref().err()
            ));
            match res {
                Ok(bind) => {
                    assert_eq!(count, nj, "{}", log.join("\n"));
                    let m = bind.to_matrices();
                    assert!(
                        m.iter().all(|m| m.iter().all(|v| v.is_finite())
                            && [m[3], m[7], m[11], m[15]] == [0.0, 0.0, 0.0, 1.0]),
                        "from_bind_pose gave matrices not finite or not affine\n{}",
                        log.join("\n")
                    );
                    assert!(
                        InverseBind::from_matrices(skeleton, &m).as_ref() == Ok(&bind),
                        "from_bind_pose's matrices do not make the same bind again\n{}",
                        log.join("\n")
                    );
                    count_bind(true);
                    Some(Bind {
                        bind,
                        rows: m.iter().map(rows_of).collect(),
                    })
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    if count != nj {
                        assert!(matches!(e, Error::Length { .. }), "{e}");
                    }
                    count_bind(false);
                    None
                }
            }
        }
        _ => {
            // Another joint count: a chain of one joint, or one more or one
            // less than the crowd's.
            let count = [1, nj + 1, nj.saturating_sub(1).max(1)][b.u8() as usize % 3];
            let chain = Skeleton::new((0..count as i32).map(|j| j - 1).collect()).expect("a chain");
            let m: Vec<[f32; 16]> = (0..count).map(fixed_matrix).collect();
            let bind = InverseBind::from_matrices(&chain, &m).expect("affine, finite matrices");
            log.push(format!("an inverse bind of {count} joints"));
            Some(Bind {
                bind,
                rows: m.iter().map(rows_of).collect(),
            })
        }
    }
}

fn count_bind(accepted: bool) {
    count(|k| match accepted {
        true => k.binds.0 += 1,
        false => k.binds.1 += 1,
    });
}

/// A range of characters of a crowd of `n`: valid, empty, reversed, past
/// the crowd, or at `usize::MAX`.
fn range(b: &mut Bytes, n: usize) -> Range<usize> {
    let at = |b: &mut Bytes, k: usize| b.u8() as usize % k;
    match b.u8() % 8 {
        0..=3 => {
            let s = at(b, n + 1);
            s..s + at(b, n + 1 - s)
        }
        4 => {
            let s = at(b, n + 2);
            s..s
        }
        5 => {
            let e = at(b, n + 1);
            Range {
                start: e + 1 + at(b, 3),
                end: e,
            }
        }
        6 => at(b, n + 1)..n + 1 + at(b, 9),
        _ => {
            let (start, end) = [
                (usize::MAX - 1, usize::MAX),
                (0, usize::MAX),
                (n, usize::MAX),
                (usize::MAX, 0),
            ][at(b, 4)];
            Range { start, end }
        }
    }
}

/// An `out` length for `chars`: mostly one per character and joint, else
/// one more, one less, a character more or none.
fn length(b: &mut Bytes, chars: &Range<usize>, nj: usize) -> usize {
    let right = chars.end.saturating_sub(chars.start).saturating_mul(nj);
    // Past the crowd, a range may ask for more than any crowd has.
    let right = if right <= 64 * nj { right } else { nj };
    match b.u8() % 10 {
        0..=5 => right,
        6 => right + 1,
        7 => right.saturating_sub(1),
        8 => right + nj,
        _ => 0,
    }
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
