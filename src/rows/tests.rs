//! The transposes' tests: every shape, lane range and output type
//! against the lanes, bit for bit.

use super::*;

/// Lanes of distinct bit patterns, NaN payloads, subnormals and signed
/// zeros included, so a float moved to the wrong place or through an
/// arithmetic instruction shows.
fn pattern(seed: u32) -> [F32x8; 4] {
    core::array::from_fn(|c| {
        F32x8::new(core::array::from_fn(|k| {
            let i = seed.wrapping_mul(97) + (c * 8 + k) as u32;
            match i % 11 {
                0 => f32::from_bits(0x7fc0_0000 | i),
                1 => -0.0,
                2 => f32::from_bits(0x0000_0001 + i),
                _ => i as f32 * 0.5 - 40.0,
            }
        }))
    })
}

fn b3(v: Vec3) -> [u32; 3] {
    [v.x, v.y, v.z].map(f32::to_bits)
}

fn b4(q: Quat) -> [u32; 4] {
    [q.w, q.x, q.y, q.z].map(f32::to_bits)
}

fn quats(n: u32, seed: u32) -> Vec<Quatx8> {
    (0..n)
        .map(|j| {
            let [w, x, y, z] = pattern(j + seed);
            Quatx8 { w, x, y, z }
        })
        .collect()
}

/// The pair transposes put lane `k` of each input in row `k`.
#[test]
fn pairs_are_the_lanes() {
    for seed in 0..64 {
        let [a, b, c, d] = pattern(seed);
        let [e, f, g, h] = pattern(seed + 100);
        let (p, q) = (Vec3x8 { x: a, y: b, z: c }, Vec3x8 { x: d, y: e, z: f });
        let (r, s) = (
            Quatx8 {
                w: a,
                x: b,
                y: c,
                z: d,
            },
            Quatx8 {
                w: e,
                x: f,
                y: g,
                z: h,
            },
        );
        let (rows3, rows4) = (pair3(&p, &q), pair4(&r, &s));
        for k in 0..8 {
            let (r3, r4) = (rows3[k].to_array(), rows4[k].to_array());
            assert_eq!(b3(Vec3::new(r3[0], r3[1], r3[2])), b3(p.lane(k)));
            assert_eq!(b3(Vec3::new(r3[3], r3[4], r3[5])), b3(q.lane(k)));
            assert_eq!(b4(Quat::new(r4[0], r4[1], r4[2], r4[3])), b4(r.lane(k)));
            assert_eq!(b4(Quat::new(r4[4], r4[5], r4[6], r4[7])), b4(s.lane(k)));
        }
    }
}

/// Every joint count around the block size (odd ones end on a single
/// joint) and every lane range: the rows are the lanes, element by
/// element. Catches pairs filled last first (the overlapping stores
/// then clobber each next pair's `x`) and a single last joint left
/// out.
#[test]
fn pack_rows_are_the_lanes_for_every_shape() {
    let mut r3 = Rows3::new();
    let mut r4 = Rows4::new();
    for joints in [1, 2, 3, 7, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 5] {
        let pack = quats(joints as u32, 0);
        let v3 = |q: &Quatx8| Vec3x8 {
            x: q.x,
            y: q.w,
            z: q.z,
        };
        let pos: Vec<Vec3x8> = pack.iter().map(v3).collect();
        for lo in 0..8 {
            for hi in lo..=8 {
                let n = (hi - lo) * joints;
                let mut p3 = vec![Vec3::ZERO; n];
                let mut p4 = vec![Quat::IDENTITY; n];
                prefetch_next(&pack, |q| q);
                pack_rows3(&mut r3, &pos, lo..hi, &mut p3, |v| v);
                pack_rows4(&mut r4, &pack, lo..hi, &mut p4, |q| *q);
                for r in 0..hi - lo {
                    for j in 0..joints {
                        let i = r * joints + j;
                        assert_eq!(b3(p3[i]), b3(pos[j].lane(lo + r)), "{joints} {lo}..{hi}");
                        assert_eq!(b4(p4[i]), b4(pack[j].lane(lo + r)), "{joints} {lo}..{hi}");
                    }
                }
            }
        }
    }
}

/// A type whose `From` no list of [`direct`] names: the portable path.
#[derive(Clone, Copy)]
struct Other([f32; 4]);
impl From<Vec3> for Other {
    fn from(v: Vec3) -> Other {
        Other([v.x, v.y, v.z, 5.0])
    }
}
impl From<Quat> for Other {
    fn from(q: Quat) -> Other {
        Other([q.w, q.x, q.y, q.z])
    }
}

/// The direct path is taken for exactly the listed types.
#[test]
fn the_direct_path_is_taken_for_the_listed_types() {
    assert!(direct::xyz_floats(&mut [[0.0f32; 3]; 2]).is_some());
    assert!(direct::xyz_floats(&mut [Vec3::ZERO; 2]).is_some());
    assert!(direct::xyz_floats(&mut [Other([0.0; 4]); 2]).is_none());
    assert!(direct::xyz_floats(&mut [[0.0f32; 4]; 2]).is_none());
    let q = |o: Option<(&mut [f32], direct::QuatOrder)>| o.map(|(f, order)| (f.len(), order));
    use direct::QuatOrder::{Wxyz, Xyzw};
    assert_eq!(
        q(direct::quat_floats(&mut [[0.0f32; 4]; 2])),
        Some((8, Xyzw))
    );
    assert_eq!(
        q(direct::quat_floats(&mut [Quat::IDENTITY; 2])),
        Some((8, Wxyz))
    );
    assert_eq!(q(direct::quat_floats(&mut [Other([0.0; 4]); 2])), None);
    assert_eq!(q(direct::quat_floats(&mut [[0.0f32; 3]; 2])), None);
}

/// The direct path (`[f32; 3]`, `Vec3`, `[f32; 4]` as `x, y, z, w`,
/// `Quat`) writes, bit for bit, what the portable path writes through
/// the stack rows, for every joint count from 1 to 19 and around the
/// block (whole groups of eight, a last group of 1 to 7, a single last
/// rotation) and every lane range (empty, single, entered and left
/// part-way). Catches a block of eight joints taken in the wrong
/// component order (`x, z, y` for the first joint) and rows stored
/// from lane 0 instead of the range's first lane.
#[test]
fn direct_rows_are_the_portable_rows_for_every_shape() {
    let (mut r3, mut r4) = (Rows3::new(), Rows4::new());
    for joints in (1..=19).chain([BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 5]) {
        for seed in [0, 31] {
            let pack = quats(joints as u32, seed);
            let pos: Vec<Vec3x8> = pack
                .iter()
                .map(|q| Vec3x8 {
                    x: q.x,
                    y: q.w,
                    z: q.z,
                })
                .collect();
            for lo in 0..8 {
                for hi in lo..=8 {
                    let n = (hi - lo) * joints;
                    let mut want3 = vec![Other([7.0; 4]); n];
                    let mut want4 = vec![Other([7.0; 4]); n];
                    portable_rows3(&mut r3, &pos, lo..hi, &mut want3, |v| v);
                    portable_rows4(&mut r4, &pack, lo..hi, &mut want4, |q| *q);
                    let mut a3 = vec![[9.0f32; 3]; n];
                    let mut v3 = vec![Vec3::splat(9.0); n];
                    let mut a4 = vec![[9.0f32; 4]; n];
                    let mut q4 = vec![Quat::new(9.0, 9.0, 9.0, 9.0); n];
                    pack_rows3(&mut r3, &pos, lo..hi, &mut a3, |v| v);
                    pack_rows3(&mut r3, &pos, lo..hi, &mut v3, |v| v);
                    pack_rows4(&mut r4, &pack, lo..hi, &mut a4, |q| *q);
                    pack_rows4(&mut r4, &pack, lo..hi, &mut q4, |q| *q);
                    for i in 0..n {
                        let (w3, w4) = (want3[i].0, want4[i].0);
                        let at = format!("{joints} joints, lanes {lo}..{hi}, element {i}");
                        let xyz = Vec3::new(w3[0], w3[1], w3[2]);
                        let wxyz = Quat::new(w4[0], w4[1], w4[2], w4[3]);
                        assert_eq!(a3[i].map(f32::to_bits), b3(xyz), "{at}");
                        assert_eq!(b3(v3[i]), b3(xyz), "{at}");
                        let xyzw = Quat::new(a4[i][3], a4[i][0], a4[i][1], a4[i][2]);
                        assert_eq!(b4(xyzw), b4(wxyz), "{at}");
                        assert_eq!(b4(q4[i]), b4(wxyz), "{at}");
                    }
                }
            }
        }
    }
}

#[test]
fn runs_are_the_lanes() {
    let packs4 = quats(5, 9);
    let packs3: Vec<Vec3x8> = packs4
        .iter()
        .map(|q| Vec3x8 {
            x: q.x,
            y: q.y,
            z: q.z,
        })
        .collect();
    for len in [0, 1, 7, 8, 9, 15, 16, 17, 24, 33, 39, 40] {
        let mut o3 = vec![Vec3::ZERO; len];
        let mut o4 = vec![Quat::IDENTITY; len];
        let mut a3 = vec![[9.0f32; 3]; len];
        let mut a4 = vec![[9.0f32; 4]; len];
        let (mut m3, mut m4) = (vec![Other([7.0; 4]); len], vec![Other([7.0; 4]); len]);
        runs3(&packs3, &mut o3);
        runs4(&packs4, &mut o4);
        runs3(&packs3, &mut a3);
        runs4(&packs4, &mut a4);
        runs3(&packs3, &mut m3);
        runs4(&packs4, &mut m4);
        for i in 0..len {
            let (v, q) = (packs3[i / 8].lane(i % 8), packs4[i / 8].lane(i % 8));
            assert_eq!(b3(o3[i]), b3(v), "{len}: {i}");
            assert_eq!(b4(o4[i]), b4(q), "{len}: {i}");
            assert_eq!(a3[i].map(f32::to_bits), b3(v), "{len}: {i}");
            assert_eq!(
                b4(Quat::new(a4[i][3], a4[i][0], a4[i][1], a4[i][2])),
                b4(q),
                "{len}: {i}"
            );
            assert_eq!(
                b3(Vec3::new(m3[i].0[0], m3[i].0[1], m3[i].0[2])),
                b3(v),
                "{len}: {i}"
            );
            assert_eq!(
                b4(Quat::new(m4[i].0[0], m4[i].0[1], m4[i].0[2], m4[i].0[3])),
                b4(q),
                "{len}: {i}"
            );
        }
    }
}
