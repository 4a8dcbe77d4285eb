//! The matrix layouts the readers write, and each reader run on both
//! crowds into every layout, the results and the slices checked as the
//! module says.

use kineform::Result;
use kineform::reference::Kform;
use kineform::skinning::{self, InverseBind, SkinMatrix};

use super::Span;

/// A matrix layout the readers write, as its floats in memory order.
pub(super) trait Floats: Copy {
    const SENTINEL: Self;
    fn push_bits(&self, out: &mut Vec<u32>);
}

/// A float no reader writes by chance (a NaN with a payload).
const S: f32 = f32::from_bits(SENTINEL_BITS);

/// The bits of every float of every layout's sentinel.
pub(super) const SENTINEL_BITS: u32 = 0x7fa5_a5a5;

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

/// What a reader wrote on each crowd (lanes, reference) as bits, when
/// accepted.
pub(super) type Read = Option<(Vec<u32>, Vec<u32>)>;

/// One reader on both crowds into slices of `len` filled with the
/// sentinel: the same result on both (as text), the one `want` names with
/// a message; a refusal leaves both slices as they were. The slices' bits
/// when accepted.
pub(super) fn both<M: Floats>(
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

/// What every reader wrote over one range ([`Read`] each), the layouts in
/// the order read.
pub(super) struct Reads {
    pub(super) t16: Read,
    pub(super) s16: Read,
    pub(super) s12: Read,
    /// The same floats as `t16`: the check's own type, and glam and mint
    /// where those features are on.
    pub(super) same_as_t16: Vec<(&'static str, Read)>,
    /// The same floats as `s16`: glam where that feature is on.
    pub(super) same_as_s16: Vec<(&'static str, Read)>,
}

/// Whether a reader's result is the one wanted (that a
/// [`super::ranges::Want`] names).
pub(super) type Wanted<'a> = &'a dyn Fn(&Result<()>) -> bool;

impl Span<'_> {
    /// `transforms_into` of both crowds into `[M]` (see [`both`]).
    fn transforms<M: Floats + From<Kform> + Send>(
        &self,
        what: &str,
        len: usize,
        ok: Wanted,
    ) -> Read {
        let ((lanes, reference), c) = (self.crowds, self.chars);
        both::<M>(
            what,
            len,
            (
                |o| lanes.transforms_into(c.clone(), o),
                |o| reference.transforms_into(c.clone(), o),
            ),
            ok,
            self.ctx,
        )
    }

    /// `skinning_matrices_into` of both crowds into `[M]` (see [`both`]).
    fn skinning<M: Floats + SkinMatrix>(
        &self,
        what: &str,
        len: usize,
        ib: &InverseBind,
        ok: Wanted,
    ) -> Read {
        let ((lanes, reference), c) = (self.crowds, self.chars);
        both::<M>(
            what,
            len,
            (
                |o| lanes.skinning_matrices_into(c.clone(), ib, o),
                |o| reference.skinning_matrices_into(c.clone(), ib, o),
            ),
            ok,
            self.ctx,
        )
    }

    /// Every reader into every layout, slices of `len`: transforms
    /// `[f32; 16]` and the check's own type wanting `ok_t`, then skinning
    /// matrices through `ib` `[f32; 16]` and `[f32; 12]` wanting `ok_s`,
    /// then glam's (both) and mint's (transforms).
    pub(super) fn read_every_layout(
        &self,
        len: usize,
        ib: &InverseBind,
        (ok_t, ok_s): (Wanted, Wanted),
    ) -> Reads {
        let t16 = self.transforms::<[f32; 16]>("transforms_into [f32; 16]", len, ok_t);
        let own = "transforms_into, a type of the caller's";
        let tm = self.transforms::<Mine>(own, len, ok_t);
        let s16 = self.skinning::<[f32; 16]>("skinning_matrices_into [f32; 16]", len, ib, ok_s);
        let s12 = self.skinning::<[f32; 12]>("skinning_matrices_into [f32; 12]", len, ib, ok_s);
        // The same floats through glam and mint, where those features are on.
        // (Mutable only for them.)
        #[allow(unused_mut)]
        let mut same_as_t16: Vec<(&str, Read)> = vec![("own type", tm)];
        #[allow(unused_mut)]
        let mut same_as_s16: Vec<(&str, Read)> = Vec::new();
        #[cfg(feature = "glam033")]
        {
            use kineform::glam033::Mat4;
            let t = self.transforms::<Mat4>("transforms_into glam::Mat4", len, ok_t);
            same_as_t16.push(("glam", t));
            let s = self.skinning::<Mat4>("skinning_matrices_into glam::Mat4", len, ib, ok_s);
            same_as_s16.push(("glam", s));
        }
        #[cfg(feature = "mint")]
        {
            let what = "transforms_into mint::ColumnMatrix4";
            let t = self.transforms::<mint::ColumnMatrix4<f32>>(what, len, ok_t);
            same_as_t16.push(("mint", t));
        }
        Reads {
            t16,
            s16,
            s12,
            same_as_t16,
            same_as_s16,
        }
    }
}
