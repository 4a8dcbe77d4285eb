//! Rows transposed in registers straight into the destination, for the
//! output types whose conversion is a copy of the floats in a known order.
//!
//! The portable path ([`super::pack_rows3`] and [`super::pack_rows4`] for
//! any `O: From<Vec3>` or `From<Quat>`) goes through a block of rows on the
//! stack and converts them element by element: about 5.8 instructions per
//! position and 7 per rotation (callgrind, PERF.md "Readout"), where a copy
//! of the same bytes takes under one. When `O` is one of the types listed
//! in [`xyz_floats`] and [`quat_floats`] (`[f32; 3]`, kineform's own
//! [`Vec3`], `[f32; 4]` as `x, y, z, w`, [`Quat`] as `w, x, y, z`, and
//! glam's `Vec3` and `Quat` with a `glam` feature), whose `From` writes
//! the components in that order and nothing else, the destination is
//! written here as floats instead, whole 32-byte rows at a time:
//!
//! - positions, eight joints at a time: the 24 lane vectors `x, y, z` of
//!   joints `j .. j + 8` in that order are three 8x8 blocks; transposed
//!   (`wide`'s `f32x8::transpose`, 24 shuffles each with AVX), row `k` of
//!   the three blocks is lane `k`'s 24 floats `x y z` of the eight joints,
//!   which are contiguous in the destination: three 32-byte stores. 72
//!   shuffles and 24 stores per 64 elements, where the stack rows took 96
//!   shuffles, 32 stores and a conversion per element.
//! - rotations, two joints at a time: the 8x8 block of two quaternions in
//!   the destination's component order gives eight rows of two whole
//!   elements, each one 32-byte store at its place.
//!
//! A last group of fewer than eight joints (or a last single rotation) is
//! transposed with its last joint repeated into a row on the stack, and
//! only its own floats are copied out.
//!
//! Which type `O` is, is read with `typeid::of` (a `TypeId` for a type
//! parameter that need not be `'static`), compared with each listed type's
//! `TypeId`; the types are plain float arrays and structs without lifetime
//! parameters, so an equal id means `O` is that type (`typeid`'s documented
//! guarantee), and the slice is reinterpreted as itself in [`same`], the
//! one `unsafe` block here. The float view is then `bytemuck`'s.

use core::any::TypeId;
use core::borrow::Borrow;
use core::ops::Range;

use bytemuck::Pod;

use crate::lanes::{F32x8, Quatx8, Vec3x8};
use crate::reference::{Quat, Vec3};

/// Whether `O` is `T` (`T` a type without lifetime parameters).
#[inline(always)]
fn is<O, T: Pod>() -> bool {
    typeid::of::<O>() == TypeId::of::<T>()
}

/// `out` as a slice of `T` when `O` is `T`.
#[inline(always)]
fn same<O, T: Pod>(out: &mut [O]) -> Option<&mut [T]> {
    if !is::<O, T>() {
        return None;
    }
    // SAFETY: every `T` this is called with (`[f32; N]`, kineform's and
    // glam's vector and quaternion types) has no lifetime parameter, so
    // the only type whose `typeid::of` (the id of the type with its
    // lifetimes made `'static`) equals `TypeId::of::<T>()` is `T` itself:
    // `O` is `T`. The pointer, length and borrow are `out`'s own, so this
    // is `out` under its own type's name: same size, alignment, validity
    // and lifetime, and `out` is not used again while it lives.
    Some(unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<T>(), out.len()) })
}

/// The floats of `out` when `O` is a type whose `From<Vec3>` writes `x, y,
/// z` as its three floats in that order (`[f32; 3]`, [`Vec3`], glam's
/// `Vec3`); `None` for any other type.
#[inline(always)]
pub(crate) fn xyz_floats<O>(out: &mut [O]) -> Option<&mut [f32]> {
    macro_rules! as_floats {
        ($($t:ty),*) => {$(
            if is::<O, $t>() {
                return same::<O, $t>(out).map(|s| bytemuck::cast_slice_mut(s));
            }
        )*};
    }
    as_floats!([f32; 3], Vec3);
    #[cfg(feature = "glam029")]
    as_floats!(glam029::Vec3);
    #[cfg(feature = "glam030")]
    as_floats!(glam030::Vec3);
    #[cfg(feature = "glam033")]
    as_floats!(glam033::Vec3);
    None
}

/// The component order of a quaternion type's four floats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum QuatOrder {
    /// `x, y, z, w`: `[f32; 4]` (`From<Quat> for [f32; 4]`), glam's `Quat`.
    Xyzw,
    /// `w, x, y, z`: kineform's [`Quat`].
    Wxyz,
}

/// The floats of `out` and their order when `O` is a type whose
/// `From<Quat>` writes the four components in one of the [`QuatOrder`]s;
/// `None` for any other type.
#[inline(always)]
pub(crate) fn quat_floats<O>(out: &mut [O]) -> Option<(&mut [f32], QuatOrder)> {
    macro_rules! as_floats {
        ($order:expr; $($t:ty),*) => {$(
            if is::<O, $t>() {
                return same::<O, $t>(out).map(|s| (bytemuck::cast_slice_mut(s), $order));
            }
        )*};
    }
    as_floats!(QuatOrder::Xyzw; [f32; 4]);
    as_floats!(QuatOrder::Wxyz; Quat);
    #[cfg(feature = "glam029")]
    as_floats!(QuatOrder::Xyzw; glam029::Quat);
    #[cfg(feature = "glam030")]
    as_floats!(QuatOrder::Xyzw; glam030::Quat);
    #[cfg(feature = "glam033")]
    as_floats!(QuatOrder::Xyzw; glam033::Quat);
    None
}

/// `out[(k - lanes.start) stride + at ..][..8]` = `rows[k]` for each lane
/// `k` of `lanes` (at most `0..8`): one 32-byte store per row.
#[inline(always)]
fn store_rows(out: &mut [f32], stride: usize, at: usize, lanes: &Range<usize>, rows: &[F32x8; 8]) {
    for (dst, row) in out.chunks_exact_mut(stride).zip(&rows[lanes.clone()]) {
        dst[at..at + 8].copy_from_slice(row.as_array());
    }
}

/// The three 8x8 blocks of eight joints' positions: the 24 lane vectors
/// `x, y, z` of `v[0]`, then of `v[1]`, ..., eight at a time, each block
/// transposed. Row `k` of block `b` is floats `8b .. 8b + 8` of lane `k`'s
/// 24 floats `x y z` of the eight joints in turn.
#[inline(always)]
pub(crate) fn blocks_of_eight(v: &[Vec3x8; 8]) -> [[F32x8; 8]; 3] {
    [
        F32x8::transpose([
            v[0].x, v[0].y, v[0].z, v[1].x, v[1].y, v[1].z, v[2].x, v[2].y,
        ]),
        F32x8::transpose([
            v[2].z, v[3].x, v[3].y, v[3].z, v[4].x, v[4].y, v[4].z, v[5].x,
        ]),
        F32x8::transpose([
            v[5].y, v[5].z, v[6].x, v[6].y, v[6].z, v[7].x, v[7].y, v[7].z,
        ]),
    ]
}

/// `out[3 ((k - lanes.start) joints + j) ..][..3]` = `x, y, z` of lane `k`
/// of `field(&pack[j])`, for every joint `j` of one pack and lane `k` of
/// `lanes` (`out` holds `3 lanes.len() pack.len()` floats): a pack's rows
/// written straight into the destination's floats.
#[inline(always)]
pub(crate) fn pack_xyz<'a, T, V: Borrow<Vec3x8>>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    field: impl Fn(&'a T) -> V,
) {
    let joints = pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == 3 * lanes.len() * joints);
    let lanes = lanes.start..lanes.end.min(8);
    let mut groups = pack.chunks_exact(8);
    for (g, eight) in groups.by_ref().enumerate() {
        let v: [Vec3x8; 8] = core::array::from_fn(|i| *field(&eight[i]).borrow());
        let [b0, b1, b2] = blocks_of_eight(&v);
        store_rows(out, 3 * joints, 24 * g, &lanes, &b0);
        store_rows(out, 3 * joints, 24 * g + 8, &lanes, &b1);
        store_rows(out, 3 * joints, 24 * g + 16, &lanes, &b2);
    }
    // A last group of fewer than eight joints, its last one repeated:
    // through rows on the stack, only its own floats copied out.
    let rest = groups.remainder();
    if let Some(last) = rest.last() {
        let n = rest.len();
        let v: [Vec3x8; 8] = core::array::from_fn(|i| *field(rest.get(i).unwrap_or(last)).borrow());
        let mut tail = [[0.0f32; 24]; 8];
        for (b, block) in blocks_of_eight(&v).iter().enumerate() {
            for (t, row) in tail.iter_mut().zip(block) {
                t[8 * b..8 * b + 8].copy_from_slice(row.as_array());
            }
        }
        let at = 3 * (joints - n);
        for (dst, k) in out.chunks_exact_mut(3 * joints).zip(lanes) {
            dst[at..at + 3 * n].copy_from_slice(&tail[k][..3 * n]);
        }
    }
}

/// As [`pack_xyz`] for rotations, four floats per element in `order`:
/// two joints per 8x8 transpose, each row two whole elements.
#[inline(always)]
pub(crate) fn pack_quat<'a, T, V: Borrow<Quatx8>>(
    pack: &'a [T],
    lanes: Range<usize>,
    out: &mut [f32],
    order: QuatOrder,
    field: impl Fn(&'a T) -> V,
) {
    let joints = pack.len();
    debug_assert!(lanes.end <= 8 && out.len() == 4 * lanes.len() * joints);
    let lanes = lanes.start..lanes.end.min(8);
    let comps = |q: &Quatx8| match order {
        QuatOrder::Xyzw => [q.x, q.y, q.z, q.w],
        QuatOrder::Wxyz => [q.w, q.x, q.y, q.z],
    };
    let mut pairs = pack.chunks_exact(2);
    for (p, two) in pairs.by_ref().enumerate() {
        let (a, b) = (
            comps(field(&two[0]).borrow()),
            comps(field(&two[1]).borrow()),
        );
        let rows = F32x8::transpose([a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]);
        store_rows(out, 4 * joints, 8 * p, &lanes, &rows);
    }
    if let [last] = pairs.remainder() {
        let a = comps(field(last).borrow());
        let rows = F32x8::transpose([a[0], a[1], a[2], a[3], a[0], a[1], a[2], a[3]]);
        let at = 4 * (joints - 1);
        for (dst, k) in out.chunks_exact_mut(4 * joints).zip(lanes) {
            dst[at..at + 4].copy_from_slice(&rows[k].as_array()[..4]);
        }
    }
}

/// A stream of [`Vec3x8`] into its elements' floats, `x, y, z` of
/// element `8p + k` (lane `k` of `packs[p]`) at `3 (8p + k)`, for as many
/// elements as `out` holds (`out.len() / 3` of them, at most `8
/// packs.len()`): one 8x8 transpose per pack ([`super::pair3`], rows
/// `[x y z x y z _ _]`), each row one 32-byte store at its element, in
/// ascending order so each store's five spare floats are overwritten by
/// the next row's or the next pack's; the last pack, whose spare floats
/// would fall past `out`, through a run on the stack.
pub(crate) fn runs_xyz(packs: &[Vec3x8], out: &mut [f32]) {
    for (p, pack) in packs.iter().enumerate() {
        let at = 24 * p;
        if at >= out.len() {
            break;
        }
        let rows = super::pair3(pack, pack);
        if out.len() >= at + 3 * 7 + 8 {
            for (k, row) in rows.iter().enumerate() {
                out[at + 3 * k..at + 3 * k + 8].copy_from_slice(row.as_array());
            }
        } else {
            let mut run = [0.0f32; 3 * 7 + 8];
            for (k, row) in rows.iter().enumerate() {
                run[3 * k..3 * k + 8].copy_from_slice(row.as_array());
            }
            let n = (out.len() - at).min(24);
            out[at..at + n].copy_from_slice(&run[..n]);
        }
    }
}

/// A stream of [`Quatx8`] into its elements' floats in `order`, element
/// `8p + k` at `4 (8p + k)`, for as many elements as `out` holds: two
/// packs per 8x8 transpose, row `k` being element `k` of both, each half
/// one 16-byte store.
pub(crate) fn runs_quat(packs: &[Quatx8], out: &mut [f32], order: QuatOrder) {
    let comps = |q: &Quatx8| match order {
        QuatOrder::Xyzw => [q.x, q.y, q.z, q.w],
        QuatOrder::Wxyz => [q.w, q.x, q.y, q.z],
    };
    for (o, two) in out.chunks_mut(64).zip(packs.chunks(2)) {
        let a = comps(&two[0]);
        let b = two.get(1).map_or(a, comps);
        let rows = F32x8::transpose([a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]);
        let (first, second) = o.split_at_mut(o.len().min(32));
        for (d, row) in first.chunks_mut(4).zip(&rows) {
            d.copy_from_slice(&row.as_array()[..d.len()]);
        }
        for (d, row) in second.chunks_mut(4).zip(&rows) {
            d.copy_from_slice(&row.as_array()[4..4 + d.len()]);
        }
    }
}
