//! Readout (issue 27): every copy of lane output into a caller's memory
//! gives, bit for bit, what the one-element accessors give, for every
//! range shape: starts and ends inside a pack or on its edge, partial last
//! packs, empty ranges, one character, ranges long enough for the rayon
//! pool, and joint counts on both sides of the transposes' block of 32.
//! The expected values come from `Crowd::world_kform` and
//! `CrowdPose::get`/`Stream::get` (lane reads, no transpose).
//!
//! Mutations caught: a block's position rows filled last pair first (the
//! overlapping stores then clobber each next pair's `x`); the crowd's
//! first partial pack written from lane 0 instead of its start; the block
//! blocks one joint short of 32 (the last joint of each block unwritten).
//! `[f32; 3]`, `Vec3`, `[f32; 4]` and `Quat` take the rows transposed
//! straight into the destination, any other type (`Mine` here) the
//! portable path through stack rows: both are checked against the lanes.
//! `copies_of_any_shape_are_the_lanes` (proptest) catches a block of
//! eight positions with its first joint's `y` and `z` swapped.

use crate::crowds;
use crowds::matrices::{check_matrices, some_bind};
use crowds::*;

use kineform::crowd::{Crowd, CrowdConfig, Wander};
use kineform::output;
use kineform::reference::{Kform, Quat, Vec3};
use kineform::stream::{CrowdPose, QuatStream, Vec3Stream};
use proptest::prelude::*;

/// An output type of the caller's own, which no fast path knows: its
/// copies take the portable path.
#[derive(Clone, Copy, Debug)]
struct Mine([u32; 4]);
impl From<Vec3> for Mine {
    fn from(v: Vec3) -> Mine {
        Mine([v.x.to_bits(), v.y.to_bits(), v.z.to_bits(), 0])
    }
}
impl From<Quat> for Mine {
    fn from(q: Quat) -> Mine {
        Mine(bits4(q))
    }
}

fn bits3(v: Vec3) -> [u32; 3] {
    [v.x, v.y, v.z].map(f32::to_bits)
}

fn bits4(q: Quat) -> [u32; 4] {
    [q.w, q.x, q.y, q.z].map(f32::to_bits)
}

/// A crowd of `n` characters after a few driven frames (every character
/// somewhere else, transitions under way).
fn driven(n: usize) -> Crowd {
    let mut crowd = Crowd::new(
        &embedded(),
        CrowdConfig {
            characters: n,
            ..Default::default()
        },
    )
    .unwrap();
    let mut wander = Wander::new(n, Default::default());
    for _ in 0..12 {
        wander.update(&mut crowd, 1.0 / 60.0).unwrap();
        crowd.step(1.0 / 60.0).unwrap();
    }
    crowd
}

/// Every `*_into` of `range` against `world_kform`, bit for bit; the
/// slices start filled with a sentinel, so an element left unwritten
/// shows too.
fn check_range(crowd: &Crowd, range: core::ops::Range<usize>) {
    let j = crowd.skeleton().len();
    let m = range.len() * j;
    let sentinel = Vec3::new(f32::NAN, -7.0, 7.0);
    let (mut pos, mut vel, mut ang) = (vec![sentinel; m], vec![sentinel; m], vec![sentinel; m]);
    let mut rot = vec![Quat::new(9.0, 9.0, 9.0, 9.0); m];
    let mut xyzw = vec![[9.0f32; 4]; m];
    let mut arrays = vec![[9.0f32; 3]; m];
    crowd.positions_into(range.clone(), &mut pos).unwrap();
    crowd.velocities_into(range.clone(), &mut vel).unwrap();
    crowd
        .angular_velocities_into(range.clone(), &mut ang)
        .unwrap();
    crowd.rotations_into(range.clone(), &mut rot).unwrap();
    crowd.rotations_into(range.clone(), &mut xyzw).unwrap();
    crowd.positions_into(range.clone(), &mut arrays).unwrap();
    let (mut mine3, mut mine4) = (vec![Mine([7; 4]); m], vec![Mine([7; 4]); m]);
    crowd.positions_into(range.clone(), &mut mine3).unwrap();
    crowd.rotations_into(range.clone(), &mut mine4).unwrap();
    for (k, c) in range.clone().enumerate() {
        for jj in 0..j {
            let w = crowd.world_kform(c, jj).unwrap();
            let i = k * j + jj;
            assert_eq!(
                bits3(pos[i]),
                bits3(w.pos),
                "positions, range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                bits3(vel[i]),
                bits3(w.vel),
                "velocities, range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                bits3(ang[i]),
                bits3(w.ang),
                "angular velocities, range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                bits4(rot[i]),
                bits4(w.rot),
                "rotations, range {range:?}, character {c}, joint {jj}"
            );
            let q = Quat::new(xyzw[i][3], xyzw[i][0], xyzw[i][1], xyzw[i][2]);
            assert_eq!(
                bits4(q),
                bits4(w.rot),
                "rotations as [x, y, z, w], range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                bits3(Vec3::new(arrays[i][0], arrays[i][1], arrays[i][2])),
                bits3(w.pos),
                "positions as [f32; 3], range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                mine3[i].0[..3],
                bits3(w.pos),
                "positions, portable path, range {range:?}, character {c}, joint {jj}"
            );
            assert_eq!(
                mine4[i].0,
                bits4(w.rot),
                "rotations, portable path, range {range:?}, character {c}, joint {jj}"
            );
        }
    }
}

/// Every range of a crowd of 43 characters (six packs, the last of three):
/// all 990 (start, end) pairs, empty and single-character ranges among
/// them. All of them are under the 32 packs the parallel copy needs.
#[test]
fn every_range_of_a_small_crowd_reads_the_lanes() {
    let n = 43;
    let crowd = driven(n);
    let bind = some_bind(crowd.skeleton());
    for start in 0..=n {
        for end in start..=n {
            check_range(&crowd, start..end);
            check_matrices(&crowd, start..end, &bind);
        }
    }
}

/// Ranges of 32 packs and more go through the rayon pool, on one thread
/// and on two: aligned, entered part-way, ending part-way, the whole
/// crowd with its partial last pack.
#[test]
fn long_ranges_read_the_lanes_on_one_and_two_threads() {
    let n = 301;
    let crowd = driven(n);
    for threads in [1, 2] {
        pool(threads).install(|| {
            let bind = some_bind(crowd.skeleton());
            for range in [0..n, 3..299, 8..n, 7..265, 1..n, 256..n, 0..257] {
                check_range(&crowd, range.clone());
                check_matrices(&crowd, range, &bind);
            }
        });
    }
}

/// A crowd whose world rows outgrow a core's L2 (1,000 characters: 1.7 MB
/// of rows, above `PREFETCH_ABOVE_BYTES`), so that the matrix readers and
/// `output::transforms` fetch each next pack ahead while they write: the
/// same floats as the one-joint accessor, and as `output::transforms` and
/// `skinning::skinning_matrices` over the packed rows, on one and two
/// threads.
#[test]
fn matrices_of_a_crowd_past_l2_read_the_lanes() {
    let n = 1000;
    let crowd = driven(n);
    let bind = some_bind(crowd.skeleton());
    let m = n * crowd.skeleton().len();
    for threads in [1, 2] {
        pool(threads).install(|| {
            check_matrices(&crowd, 0..n, &bind);
            check_matrices(&crowd, 5..n, &bind);
            let (mut a, mut b) = (vec![[0.0f32; 16]; m], vec![[9.0f32; 16]; m]);
            crowd.transforms_into(0..n, &mut a).unwrap();
            output::transforms(crowd.world_packed(), &mut b).unwrap();
            assert!(a == b, "transforms, {threads} threads");
            let (mut a, mut b) = (vec![[0.0f32; 12]; m], vec![[9.0f32; 12]; m]);
            crowd.skinning_matrices_into(0..n, &bind, &mut a).unwrap();
            kineform::skinning::skinning_matrices(crowd.world_packed(), &bind, &mut b).unwrap();
            assert!(a == b, "skinning matrices, {threads} threads");
        });
    }
}

/// `output::{positions, rotations, transforms}` over a `Packed` view and
/// `Stream::write_into`, for joint counts below, at and above the block
/// of 32 and character counts with and without a partial last pack.
#[test]
fn packed_and_stream_copies_read_the_lanes() {
    let mut seed = 1u32;
    let mut f = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1 << 24) as f32 * 4.0 - 2.0
    };
    for (characters, joints) in [
        (1, 1),
        (9, 5),
        (43, 31),
        (17, 32),
        (23, 33),
        (8, 37),
        (300, 2),
    ] {
        let mut pose = CrowdPose::new(characters, joints).unwrap();
        for c in 0..characters {
            for j in 0..joints {
                let rot = kineform::reference::quat_normalize(Quat::new(f(), f(), f(), f()));
                let k = Kform {
                    pos: Vec3::new(f(), f(), f()),
                    rot,
                    scl: Vec3::new(f() + 3.0, f() + 3.0, f() + 3.0),
                    ..Kform::IDENTITY
                };
                pose.set(c, j, k);
            }
        }
        let n = characters * joints;
        let mut pos = vec![Vec3::new(f32::NAN, 0.0, 0.0); n];
        let mut rot = vec![Quat::new(9.0, 9.0, 9.0, 9.0); n];
        let mut mats = vec![[9.0f32; 16]; n];
        output::positions(pose.packed(), &mut pos).unwrap();
        output::rotations(pose.packed(), &mut rot).unwrap();
        output::transforms(pose.packed(), &mut mats).unwrap();
        for c in 0..characters {
            for j in 0..joints {
                let k = pose.get(c, j).unwrap();
                let i = c * joints + j;
                assert_eq!(
                    bits3(pos[i]),
                    bits3(k.pos),
                    "{characters} x {joints}: character {c}, joint {j}"
                );
                assert_eq!(
                    bits4(rot[i]),
                    bits4(k.rot),
                    "{characters} x {joints}: character {c}, joint {j}"
                );
                let m = kineform::skinning::kform_matrix(&Kform {
                    pos: k.pos,
                    rot: k.rot,
                    scl: k.scl,
                    ..Kform::IDENTITY
                });
                assert_eq!(
                    mats[i].map(f32::to_bits),
                    m.map(f32::to_bits),
                    "{characters} x {joints}: character {c}, joint {j}"
                );
            }
        }
        // Streams of the same elements.
        let elems: Vec<Vec3> = pos.clone();
        let quats: Vec<Quat> = rot.clone();
        let (vs, qs) = (
            Vec3Stream::from_elems(&elems).unwrap(),
            QuatStream::from_elems(&quats).unwrap(),
        );
        let mut vo = vec![[9.0f32; 3]; n];
        let mut qo = vec![Quat::new(9.0, 9.0, 9.0, 9.0); n];
        vs.write_into(&mut vo).unwrap();
        qs.write_into(&mut qo).unwrap();
        for i in 0..n {
            assert_eq!(
                bits3(Vec3::new(vo[i][0], vo[i][1], vo[i][2])),
                bits3(vs.get(i).unwrap())
            );
            assert_eq!(bits4(qo[i]), bits4(qs.get(i).unwrap()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `output::positions` and `output::rotations` of a pose of any shape
    /// (joint counts with every remainder by the transposes' groups of
    /// eight and pairs, partial last packs) and any bits (NaN payloads,
    /// subnormals, signed zeros: a copy moves them unchanged) give each
    /// element's lanes bit for bit, into the fast paths' types and into a
    /// type of the caller's own.
    #[test]
    fn copies_of_any_shape_are_the_lanes(
        characters in 1usize..30,
        joints in 1usize..42,
        bits in proptest::collection::vec(any::<u32>(), 7),
    ) {
        let mut pose = CrowdPose::new(characters, joints).unwrap();
        let f = |c: usize, j: usize, e: usize| {
            f32::from_bits(bits[e].rotate_left((c * 7 + j * 3 + e) as u32) ^ (c * 131 + j) as u32)
        };
        for c in 0..characters {
            for j in 0..joints {
                pose.set(c, j, Kform {
                    pos: Vec3::new(f(c, j, 0), f(c, j, 1), f(c, j, 2)),
                    rot: Quat::new(f(c, j, 3), f(c, j, 4), f(c, j, 5), f(c, j, 6)),
                    ..Kform::IDENTITY
                });
            }
        }
        let n = characters * joints;
        let (mut a3, mut v3, mut m3) = (vec![[9.0f32; 3]; n], vec![Vec3::ZERO; n], vec![Mine([7; 4]); n]);
        let (mut a4, mut q4, mut m4) = (vec![[9.0f32; 4]; n], vec![Quat::IDENTITY; n], vec![Mine([7; 4]); n]);
        output::positions(pose.packed(), &mut a3).unwrap();
        output::positions(pose.packed(), &mut v3).unwrap();
        output::positions(pose.packed(), &mut m3).unwrap();
        output::rotations(pose.packed(), &mut a4).unwrap();
        output::rotations(pose.packed(), &mut q4).unwrap();
        output::rotations(pose.packed(), &mut m4).unwrap();
        for c in 0..characters {
            for j in 0..joints {
                let (k, i) = (pose.get(c, j).unwrap(), c * joints + j);
                prop_assert_eq!(a3[i].map(f32::to_bits), bits3(k.pos), "{} {}", c, j);
                prop_assert_eq!(bits3(v3[i]), bits3(k.pos), "{} {}", c, j);
                prop_assert_eq!(&m3[i].0[..3], &bits3(k.pos)[..], "{} {}", c, j);
                let xyzw = Quat::new(a4[i][3], a4[i][0], a4[i][1], a4[i][2]);
                prop_assert_eq!(bits4(xyzw), bits4(k.rot), "{} {}", c, j);
                prop_assert_eq!(bits4(q4[i]), bits4(k.rot), "{} {}", c, j);
                prop_assert_eq!(m4[i].0, bits4(k.rot), "{} {}", c, j);
            }
        }
    }
}
