//! Lane shuffles behind the direct rows ([`super::direct`]): the 8x8
//! transpose, and eight `x, y, z` or `q0..q3` elements from their lane
//! vectors into consecutive floats, with as few shuffles as AVX needs and
//! no stage holding more than 16 vector registers.
//!
//! The kernels are written once over four AVX shuffles ([`Shuffles`]:
//! `unpack_lo`, `unpack_hi`, `shuffle_ps`, `permute2f128`), each one
//! instruction with AVX (`Avx`, `safe_arch`'s wrappers, under
//! `cfg(target_feature = "avx")`: a portable index shuffle is scalarised
//! by the compiler, about 28 moves for each) and otherwise the same pick
//! of lanes written out ([`Portable`]); [`Native`] is this build's. A shuffle only moves floats, so both write the exact
//! bits of their inputs; `tests::avx_shuffles_are_the_portable_ones`
//! compares them bit for bit, and `rows::tests` the kernels with the
//! lanes.

use crate::lanes::F32x8;

/// The four AVX shuffles the kernels are written over.
pub(crate) trait Shuffles {
    /// `[a0 b0 a1 b1 | a4 b4 a5 b5]` (`vunpcklps`).
    fn unpack_lo(a: &F32x8, b: &F32x8) -> F32x8;
    /// `[a2 b2 a3 b3 | a6 b6 a7 b7]` (`vunpckhps`).
    fn unpack_hi(a: &F32x8, b: &F32x8) -> F32x8;
    /// In each 128-bit half: `a[M & 3], a[M >> 2 & 3], b[M >> 4 & 3],
    /// b[M >> 6 & 3]` of that half (`vshufps`).
    fn shuffle_ps<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8;
    /// Each 128-bit half of the result picked by a nibble of `M` (low
    /// nibble the low half): 0 `a`'s low half, 1 `a`'s high, 2 `b`'s low,
    /// 3 `b`'s high (`vperm2f128` without its zeroing bits; `vinsertf128`
    /// or `vblendps` where the halves allow).
    fn permute2f128<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8;
}

/// The shuffles written as lane picks: the path without AVX, and what the
/// AVX one is tested against.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx", not(test)),
    allow(dead_code)
)]
pub(crate) struct Portable;

/// Lane `i` of the result is lane `idx[i]` of `a` when `idx[i] < 8`, else
/// lane `idx[i] - 8` of `b`.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx", not(test)),
    allow(dead_code)
)]
#[inline(always)]
fn pick(a: &F32x8, b: &F32x8, idx: [usize; 8]) -> F32x8 {
    let (a, b) = (a.as_array(), b.as_array());
    let mut r = [0.0; 8];
    for (r, &j) in r.iter_mut().zip(&idx) {
        *r = if j < 8 { a[j] } else { b[j - 8] };
    }
    F32x8::new(r)
}

impl Shuffles for Portable {
    #[inline(always)]
    fn unpack_lo(a: &F32x8, b: &F32x8) -> F32x8 {
        pick(a, b, [0, 8, 1, 9, 4, 12, 5, 13])
    }

    #[inline(always)]
    fn unpack_hi(a: &F32x8, b: &F32x8) -> F32x8 {
        pick(a, b, [2, 10, 3, 11, 6, 14, 7, 15])
    }

    #[inline(always)]
    fn shuffle_ps<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8 {
        let f = |k: i32| (M >> (2 * k) & 3) as usize;
        let (i0, i1, i2, i3) = (f(0), f(1), 8 + f(2), 8 + f(3));
        pick(a, b, [i0, i1, i2, i3, i0 + 4, i1 + 4, i2 + 4, i3 + 4])
    }

    #[inline(always)]
    fn permute2f128<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8 {
        let h = |n: i32| 4 * (n & 3) as usize;
        let (l, u) = (h(M), h(M >> 4));
        pick(a, b, [l, l + 1, l + 2, l + 3, u, u + 1, u + 2, u + 3])
    }
}

/// The same four shuffles, one AVX instruction each (`safe_arch`'s safe
/// wrappers of the `core::arch` intrinsics, which exist where the build
/// enables AVX).
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
pub(crate) struct Avx;

/// `F32x8` and `safe_arch::m256` are both 32 bytes of eight `f32`
/// (`bytemuck`'s `Pod`): the casts are moves of the same bits.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
#[inline(always)]
fn m(a: &F32x8) -> safe_arch::m256 {
    bytemuck::cast(*a)
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
impl Shuffles for Avx {
    #[inline(always)]
    fn unpack_lo(a: &F32x8, b: &F32x8) -> F32x8 {
        bytemuck::cast(safe_arch::unpack_lo_m256(m(a), m(b)))
    }

    #[inline(always)]
    fn unpack_hi(a: &F32x8, b: &F32x8) -> F32x8 {
        bytemuck::cast(safe_arch::unpack_hi_m256(m(a), m(b)))
    }

    #[inline(always)]
    fn shuffle_ps<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8 {
        bytemuck::cast(safe_arch::shuffle_m256::<M>(m(a), m(b)))
    }

    #[inline(always)]
    fn permute2f128<const M: i32>(a: &F32x8, b: &F32x8) -> F32x8 {
        bytemuck::cast(safe_arch::permute2z_m256::<M>(m(a), m(b)))
    }
}

/// The shuffles this build uses: AVX's where the build enables it.
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
pub(crate) type Native = Avx;
/// The shuffles this build uses: AVX's where the build enables it.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
pub(crate) type Native = Portable;

/// `vshufps` masks: the low (high) float pairs of `a` then `b` per half.
const MOVE_LH: i32 = 0x44;
const MOVE_HL: i32 = 0xee;
/// `vperm2f128` masks: `[a lo, b lo]`, `[a hi, b hi]`, `[b lo, a hi]`.
const LO_HALVES: i32 = 0x20;
const HI_HALVES: i32 = 0x31;
const LO_THEN_HI: i32 = 0x30;

/// The 4x4 transposes in each 128-bit half of four vectors: lane `4h + k`
/// of result `r` is lane `4h + r` of `t[k]` (8 in-half shuffles).
#[inline(always)]
fn transpose4_halves<S: Shuffles>(t: [F32x8; 4]) -> [F32x8; 4] {
    let u0 = S::unpack_lo(&t[0], &t[1]);
    let u1 = S::unpack_hi(&t[0], &t[1]);
    let u2 = S::unpack_lo(&t[2], &t[3]);
    let u3 = S::unpack_hi(&t[2], &t[3]);
    [
        S::shuffle_ps::<MOVE_LH>(&u0, &u2),
        S::shuffle_ps::<MOVE_HL>(&u0, &u2),
        S::shuffle_ps::<MOVE_LH>(&u1, &u3),
        S::shuffle_ps::<MOVE_HL>(&u1, &u3),
    ]
}

/// The 8x8 transpose: row `k` of the result is lane `k` of `r[0]`, ...,
/// `r[7]`. Halves first (`[r[i] lo, r[i + 4] lo]`: from memory, a 16-byte
/// load and an insert), then two in-half stages: 24 shuffles, with at
/// most 16 vectors live (8 inputs read as they are needed, 8 results).
#[inline(always)]
pub(crate) fn transpose8<S: Shuffles>(r: [&F32x8; 8]) -> [F32x8; 8] {
    let lo = transpose4_halves::<S>([
        S::permute2f128::<LO_HALVES>(r[0], r[4]),
        S::permute2f128::<LO_HALVES>(r[1], r[5]),
        S::permute2f128::<LO_HALVES>(r[2], r[6]),
        S::permute2f128::<LO_HALVES>(r[3], r[7]),
    ]);
    let hi = transpose4_halves::<S>([
        S::permute2f128::<HI_HALVES>(r[0], r[4]),
        S::permute2f128::<HI_HALVES>(r[1], r[5]),
        S::permute2f128::<HI_HALVES>(r[2], r[6]),
        S::permute2f128::<HI_HALVES>(r[3], r[7]),
    ]);
    [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
}

/// Eight `x, y, z` elements from their lane vectors into 24 consecutive
/// floats `x0 y0 z0 x1 ... z7`, as three vectors (the "SoA to AoS" of
/// stride 3: three `vshufps` pairing lanes, three more ordering each
/// half, three 128-bit recombinations; 9 shuffles).
#[inline(always)]
pub(crate) fn xyz_runs<S: Shuffles>(x: &F32x8, y: &F32x8, z: &F32x8) -> [F32x8; 3] {
    // `_MM_SHUFFLE(2, 0, 2, 0)`, `(3, 1, 3, 1)`, `(3, 1, 2, 0)`.
    const EVEN: i32 = 0x88;
    const ODD: i32 = 0xdd;
    const EVEN_ODD: i32 = 0xd8;
    // x0 x2 y0 y2 | x4 x6 y4 y6
    let rxy = S::shuffle_ps::<EVEN>(x, y);
    // y1 y3 z1 z3 | y5 y7 z5 z7
    let ryz = S::shuffle_ps::<ODD>(y, z);
    // z0 z2 x1 x3 | z4 z6 x5 x7
    let rzx = S::shuffle_ps::<EVEN_ODD>(z, x);
    // x0 y0 z0 x1 | x4 y4 z4 x5
    let r03 = S::shuffle_ps::<EVEN>(&rxy, &rzx);
    // y1 z1 x2 y2 | y5 z5 x6 y6
    let r14 = S::shuffle_ps::<EVEN_ODD>(&ryz, &rxy);
    // z2 x3 y3 z3 | z6 x7 y7 z7
    let r25 = S::shuffle_ps::<ODD>(&rzx, &ryz);
    [
        S::permute2f128::<LO_HALVES>(&r03, &r14),
        S::permute2f128::<LO_THEN_HI>(&r25, &r03),
        S::permute2f128::<HI_HALVES>(&r14, &r25),
    ]
}

/// Eight four-float elements from their lane vectors `c[0..4]` (in the
/// element's order) into 32 consecutive floats, element `k` at `4k`, as
/// four vectors (a 4x4 transpose in each half, 8 shuffles, then the
/// halves recombined, 4 more).
#[inline(always)]
pub(crate) fn quad_runs<S: Shuffles>(c: [&F32x8; 4]) -> [F32x8; 4] {
    // v[k] = [element k | element k + 4]
    let v = transpose4_halves::<S>([*c[0], *c[1], *c[2], *c[3]]);
    [
        S::permute2f128::<LO_HALVES>(&v[0], &v[1]),
        S::permute2f128::<LO_HALVES>(&v[2], &v[3]),
        S::permute2f128::<HI_HALVES>(&v[0], &v[1]),
        S::permute2f128::<HI_HALVES>(&v[2], &v[3]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lanes of distinct bit patterns (NaN payloads, signed zero,
    /// subnormals among them).
    fn lanes(seed: u32) -> F32x8 {
        F32x8::new(core::array::from_fn(|k| {
            let i = seed * 8 + k as u32;
            match i % 5 {
                0 => f32::from_bits(0x7fc0_0000 | i),
                1 => -0.0,
                2 => f32::from_bits(i),
                _ => i as f32 - 20.5,
            }
        }))
    }

    fn bits<const N: usize>(v: [F32x8; N]) -> [[u32; 8]; N] {
        v.map(|v| v.to_array().map(f32::to_bits))
    }

    /// The portable shuffles are the lane picks their documentation
    /// states (against indices written out by hand).
    #[test]
    fn portable_shuffles_pick_the_stated_lanes() {
        let (a, b) = (lanes(1), lanes(2));
        let want = |idx: [usize; 8]| {
            [idx.map(|j| {
                if j < 8 {
                    a.to_array()[j]
                } else {
                    b.to_array()[j - 8]
                }
                .to_bits()
            })]
        };
        type P = Portable;
        assert_eq!(
            bits([P::unpack_lo(&a, &b)]),
            want([0, 8, 1, 9, 4, 12, 5, 13])
        );
        assert_eq!(
            bits([P::unpack_hi(&a, &b)]),
            want([2, 10, 3, 11, 6, 14, 7, 15])
        );
        let shuffled = P::shuffle_ps::<0xd8>(&a, &b);
        assert_eq!(bits([shuffled]), want([0, 2, 9, 11, 4, 6, 13, 15]));
        let permuted = P::permute2f128::<0x30>(&a, &b);
        assert_eq!(bits([permuted]), want([0, 1, 2, 3, 12, 13, 14, 15]));
        let permuted = P::permute2f128::<0x21>(&a, &b);
        assert_eq!(bits([permuted]), want([4, 5, 6, 7, 8, 9, 10, 11]));
    }

    /// The kernels: row `k` of the transpose is lane `k` of the inputs,
    /// the runs are the elements in turn (portable shuffles).
    #[test]
    fn kernels_move_each_lane_to_its_place() {
        let r: [F32x8; 8] = core::array::from_fn(|i| lanes(i as u32));
        let t = bits(transpose8::<Portable>(core::array::from_fn(|i| &r[i])));
        let at = |v: &F32x8, k: usize| v.to_array()[k].to_bits();
        for (k, row) in t.iter().enumerate() {
            assert_eq!(*row, core::array::from_fn(|i| at(&r[i], k)), "row {k}");
        }
        let xyz = bits(xyz_runs::<Portable>(&r[0], &r[1], &r[2]));
        let quad = bits(quad_runs::<Portable>([&r[3], &r[4], &r[5], &r[6]]));
        for e in 0..8 {
            for (c, lanes) in r[..3].iter().enumerate() {
                let i = 3 * e + c;
                assert_eq!(xyz[i / 8][i % 8], at(lanes, e), "xyz element {e}");
            }
            for (c, lanes) in r[3..7].iter().enumerate() {
                let i = 4 * e + c;
                assert_eq!(quad[i / 8][i % 8], at(lanes, e), "quad element {e}");
            }
        }
    }

    /// The AVX shuffles and the kernels over them write, bit for bit,
    /// what the portable ones write, for every mask the kernels use and
    /// more.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    #[test]
    fn avx_shuffles_are_the_portable_ones() {
        macro_rules! masks {
            ($a:ident, $b:ident; shuffle $($s:literal)*; permute $($p:literal)*) => {
                $(assert_eq!(
                    bits([Avx::shuffle_ps::<$s>(&$a, &$b)]),
                    bits([Portable::shuffle_ps::<$s>(&$a, &$b)]),
                    "shuffle {:#x}", $s
                );)*
                $(assert_eq!(
                    bits([Avx::permute2f128::<$p>(&$a, &$b)]),
                    bits([Portable::permute2f128::<$p>(&$a, &$b)]),
                    "permute {:#x}", $p
                );)*
            };
        }
        for seed in 0..16 {
            let (a, b) = (lanes(seed), lanes(seed + 40));
            let (pl, al) = (Portable::unpack_lo(&a, &b), Avx::unpack_lo(&a, &b));
            let (ph, ah) = (Portable::unpack_hi(&a, &b), Avx::unpack_hi(&a, &b));
            assert_eq!(bits([al, ah]), bits([pl, ph]));
            masks!(a, b; shuffle 0x44 0xee 0x88 0xdd 0xd8 0x1b 0x00 0xff;
                permute 0x20 0x31 0x30 0x21 0x02 0x13 0x00 0x33);
            let r: [F32x8; 8] = core::array::from_fn(|i| lanes(seed * 8 + i as u32));
            let refs: [&F32x8; 8] = core::array::from_fn(|i| &r[i]);
            assert_eq!(
                bits(transpose8::<Avx>(refs)),
                bits(transpose8::<Portable>(refs))
            );
            let (x, y, z) = (&r[0], &r[1], &r[2]);
            assert_eq!(
                bits(xyz_runs::<Avx>(x, y, z)),
                bits(xyz_runs::<Portable>(x, y, z))
            );
            let c = [&r[4], &r[5], &r[6], &r[7]];
            assert_eq!(bits(quad_runs::<Avx>(c)), bits(quad_runs::<Portable>(c)));
        }
    }
}
