//! The `lanes_vs_reference` target's shape check: pose operators, the
//! sampler, the loop offsets and the half-life fit given lengths,
//! hierarchies, joint indices and views read from the fuzzer's bytes. The
//! two paths either both accept, or both refuse with the same error and
//! leave their outputs as they were; neither panics
//! (`tests/suite/shape_refusals.rs` holds the same on generated shapes).

use kineform::Result;
use kineform::lanes::{self, F32x8, Kformx8, Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Pose, Quat, Slice2d, Vec3};

use super::bytes::Bytes;

/// The shapes of one call: five pose lengths, a hierarchy, three joint
/// indices, and joint values.
struct Shapes {
    l: [usize; 5],
    parents: Vec<i32>,
    idx: [usize; 3],
    k: Vec<Kform>,
}

fn read(b: &mut Bytes) -> Shapes {
    let base = 1 + b.u8() as usize % 5;
    // Each length the base (so the operators run) or, one time in four,
    // any of 0..=5 (so they refuse).
    let l = core::array::from_fn(|_| match b.u8() {
        x if x.is_multiple_of(4) => (x as usize / 4) % 6,
        _ => base,
    });
    let n = b.u8() as usize % 7;
    let valid = b.u8().is_multiple_of(2);
    let parents = (0..n)
        .map(|i| {
            let x = b.u8() as i32;
            if valid {
                if i == 0 || x % 4 == 0 {
                    -1
                } else {
                    x % i as i32
                }
            } else {
                x % 9 - 2
            }
        })
        .collect();
    let idx = core::array::from_fn(|_| b.u8() as usize % 7);
    let k = (0..8).map(|_| b.kform(4.0)).collect();
    Shapes { l, parents, idx, k }
}

impl Shapes {
    /// Joint `i` of pose `seed`: values read from the bytes, the outputs'
    /// (seed 0) with [`SENTINEL`] positions and velocities.
    fn joint(&self, i: usize, seed: usize) -> Kform {
        let k = self.k[(i * 5 + seed) % self.k.len()];
        match seed {
            0 => Kform {
                pos: SENTINEL,
                vel: SENTINEL,
                ..k
            },
            _ => k,
        }
    }
    fn rp(&self, n: usize, seed: usize) -> Pose {
        Pose::from_kforms(&(0..n).map(|i| self.joint(i, seed)).collect::<Vec<_>>())
    }
    fn lp(&self, n: usize, seed: usize) -> Vec<Kformx8> {
        (0..n)
            .map(|i| Kformx8::splat(self.joint(i, seed)))
            .collect()
    }
}

fn s8(x: f32) -> F32x8 {
    lanes::splat(x)
}

/// Both accept, or both refuse alike and each left its outputs as they were.
fn agree(name: &str, (rr, r_same): (Result<()>, bool), (lr, l_same): (Result<()>, bool)) {
    assert_eq!(rr, lr, "{name}: the two paths differ");
    if rr.is_err() {
        assert!(r_same && l_same, "{name}: refused but wrote");
    }
}

pub(super) fn shapes(b: &mut Bytes) {
    // Every shape first (the bytes past the end read as zero, and empty
    // poses or views would show no write), the values last.
    let sampled = SampleShapes::read(b);
    let looped = LoopShapes::read(b);
    let s = read(b);
    poses(&s);
    procedural(&s);
    sampling(b, &sampled);
    looping(b, &looped);
}

/// The sampler's output joints and its views' rows and columns.
struct SampleShapes {
    out: usize,
    rows: [usize; 3],
    cols: [usize; 3],
}

impl SampleShapes {
    fn read(b: &mut Bytes) -> SampleShapes {
        SampleShapes {
            out: 1 + b.u8() as usize % 4,
            rows: core::array::from_fn(|_| b.u8() as usize % 4),
            cols: core::array::from_fn(|_| 1 + b.u8() as usize % 4),
        }
    }
}

/// The loop's frames, joints, difference and offset lengths.
struct LoopShapes {
    rows: usize,
    cols: usize,
    d: [usize; 2],
    o: usize,
}

impl LoopShapes {
    fn read(b: &mut Bytes) -> LoopShapes {
        LoopShapes {
            rows: b.u8() as usize % 4,
            cols: 1 + b.u8() as usize % 3,
            d: [1 + b.u8() as usize % 4, 1 + b.u8() as usize % 4],
            o: 1 + b.u8() as usize % 10,
        }
    }
}

/// An output's fresh value: far outside what the operators write from the
/// inputs (positions within 4 of the origin), so a refusal that wrote
/// cannot pass for one that did not.
const SENTINEL: Vec3 = Vec3::new(99.0, -99.0, 99.0);

fn poses(s: &Shapes) {
    let (l, p) = (s.l, &s.parents[..]);
    let (mut o, a) = (s.rp(l[0], 0), s.rp(l[1], 1));
    let rr = r::op_fk(&mut o, &a, p);
    let r_same = o == s.rp(l[0], 0);
    let (mut o8, a8) = (s.lp(l[0], 0), s.lp(l[1], 1));
    let lr = lanes::op_fk(&mut o8, &a8, p);
    agree("op_fk", (rr, r_same), (lr, o8 == s.lp(l[0], 0)));

    let (mut o, a, c) = (s.rp(l[0], 0), s.rp(l[1], 1), s.rp(l[2], 2));
    let rr = r::op_blend(&mut o, &a, &c, 0.3, 0.5, 0.1);
    let r_same = o == s.rp(l[0], 0);
    let (mut o8, a8, c8) = (s.lp(l[0], 0), s.lp(l[1], 1), s.lp(l[2], 2));
    let lr = lanes::op_blend(&mut o8, &a8, &c8, s8(0.3), s8(0.5), s8(0.1));
    agree("op_blend", (rr, r_same), (lr, o8 == s.lp(l[0], 0)));

    let (mut o, a, c) = (s.rp(l[0], 0), s.rp(l[1], 1), s.rp(l[2], 2));
    let rr = r::op_inertialize(&mut o, &a, &c, 0.1, 0.3);
    let r_same = o == s.rp(l[0], 0);
    let (mut o8, a8, c8) = (s.lp(l[0], 0), s.lp(l[1], 1), s.lp(l[2], 2));
    let lr = lanes::op_inertialize(&mut o8, &a8, &c8, s8(0.1), s8(0.3));
    agree("op_inertialize", (rr, r_same), (lr, o8 == s.lp(l[0], 0)));

    let (mut o, mut e) = (s.rp(l[0], 0), s.rp(l[1], 1));
    let mut path = vec![Quat::IDENTITY; l[4]];
    let (tp, input) = (s.rp(l[2], 2), s.rp(l[3], 3));
    let rr = r::op_dead_blending(&mut o, &mut e, &mut path, &tp, &input, 0.2, 0.1, 0.3, 0.1);
    let r_same = o == s.rp(l[0], 0) && e == s.rp(l[1], 1) && path == vec![Quat::IDENTITY; l[4]];
    let (mut o8, mut e8) = (s.lp(l[0], 0), s.lp(l[1], 1));
    let mut path8 = vec![Quatx8::IDENTITY; l[4]];
    let (tp8, input8) = (s.lp(l[2], 2), s.lp(l[3], 3));
    let lr = lanes::op_dead_blending(
        &mut o8,
        &mut e8,
        &mut path8,
        &tp8,
        &input8,
        s8(0.2),
        s8(0.1),
        s8(0.3),
        s8(0.1),
    );
    let l_same =
        o8 == s.lp(l[0], 0) && e8 == s.lp(l[1], 1) && path8 == vec![Quatx8::IDENTITY; l[4]];
    agree("op_dead_blending", (rr, r_same), (lr, l_same));

    let (hp, hr) = (vec![Vec3::splat(0.2); l[2]], vec![Vec3::splat(0.3); l[3]]);
    let (hp8, hr8) = (
        vec![Vec3x8::splat(Vec3::splat(0.2)); l[2]],
        vec![Vec3x8::splat(Vec3::splat(0.3)); l[3]],
    );
    let (mut o, a) = (s.rp(l[0], 0), s.rp(l[1], 1));
    let rr = r::op_extrapolate_decayed_axes(&mut o, &a, &hp, &hr, 0.1);
    let r_same = o == s.rp(l[0], 0);
    let (mut o8, a8) = (s.lp(l[0], 0), s.lp(l[1], 1));
    let lr = lanes::op_extrapolate_decayed_axes(&mut o8, &a8, &hp8, &hr8, s8(0.1));
    agree(
        "op_extrapolate_decayed_axes",
        (rr, r_same),
        (lr, o8 == s.lp(l[0], 0)),
    );
}

fn procedural(s: &Shapes) {
    let (l, p, chain) = (s.l, &s.parents[..], s.idx);
    let (t, v) = (Vec3::new(0.3, -1.0, 0.2), Vec3::new(0.1, 0.0, 0.0));
    let (t8, v8) = (Vec3x8::splat(t), Vec3x8::splat(v));
    let fwd8 = Vec3x8::splat(r::DEFAULT_FWD);

    let (mut o, g) = (s.rp(l[0], 0), s.rp(l[1], 1));
    let rr = r::op_lookat(&mut o, &g, chain[0], t, v, r::DEFAULT_FWD);
    let r_same = o == s.rp(l[0], 0);
    let (mut o8, g8) = (s.lp(l[0], 0), s.lp(l[1], 1));
    let lr = lanes::op_lookat(&mut o8, &g8, chain[0], t8, v8, fwd8);
    agree("op_lookat", (rr, r_same), (lr, o8 == s.lp(l[0], 0)));

    let mut rs: Vec<Pose> = (0..4).map(|k| s.rp(l[k], k)).collect();
    let [a, b, c, d] = rs.get_disjoint_mut([0, 1, 2, 3]).expect("four poses");
    let rr = r::op_two_bone_ik(a, b, c, d, p, chain, t, v, 0.01);
    let r_same = (0..4).all(|k| rs[k] == s.rp(l[k], k));
    let mut ls: Vec<Vec<Kformx8>> = (0..4).map(|k| s.lp(l[k], k)).collect();
    let [a, b, c, d] = ls.get_disjoint_mut([0, 1, 2, 3]).expect("four poses");
    let lr = lanes::op_two_bone_ik(a, b, c, d, p, chain, t8, v8, s8(0.01));
    let l_same = (0..4).all(|k| ls[k] == s.lp(l[k], k));
    agree("op_two_bone_ik", (rr, r_same), (lr, l_same));
}

fn sampling(b: &mut Bytes, sh: &SampleShapes) {
    let (out, rows, cols) = (sh.out, sh.rows, sh.cols);
    let (time, dt) = (b.range(-10.0, 10.0), b.range(1e-3, 0.1));
    let pos: Vec<Vec3> = (0..rows[0] * cols[0]).map(|_| b.vec3(4.0)).collect();
    let rot: Vec<Quat> = (0..rows[1] * cols[1]).map(|_| b.quat()).collect();
    let scl = vec![Vec3::ONE; rows[2] * cols[2]];
    let (Some(vp), Some(vr), Some(vs)) = (
        Slice2d::new(&pos, cols[0]),
        Slice2d::new(&rot, cols[1]),
        Slice2d::new(&scl, cols[2]),
    ) else {
        unreachable!("whole rows of at least one column")
    };
    let sentinel = Kform {
        pos: SENTINEL,
        scl: SENTINEL,
        ..Kform::IDENTITY
    };
    let fresh = Pose::from_kforms(&vec![sentinel; out]);
    let mut o = fresh.clone();
    let rr = r::op_sample_cubic(&mut o, vp, vr, vs, time, dt);
    let r_same = o == fresh;
    let fresh8 = vec![Kformx8::splat(sentinel); out];
    let mut o8 = fresh8.clone();
    let lr = lanes::op_sample_cubic(&mut o8, vp, vr, vs, s8(time), dt);
    agree("op_sample_cubic", (rr, r_same), (lr, o8 == fresh8));
}

fn looping(b: &mut Bytes, sh: &LoopShapes) {
    let (rows, cols, d, o) = (sh.rows, sh.cols, sh.d, sh.o);
    let pos: Vec<Vec3> = (0..rows * cols).map(|_| b.vec3(4.0)).collect();
    let pos8: Vec<Vec3x8> = pos.iter().map(|&p| Vec3x8::splat(p)).collect();
    let (Some(vp), Some(vp8)) = (Slice2d::new(&pos, cols), Slice2d::new(&pos8, cols)) else {
        unreachable!("whole rows of at least one column")
    };
    let filled = |n: usize| vec![SENTINEL; n];
    let filled8 = |n: usize| vec![Vec3x8::splat(SENTINEL); n];
    let (mut a, mut c) = (filled(d[0]), filled(d[1]));
    let rr = r::compute_start_end_positional_difference(&mut a, &mut c, vp, 0.1);
    let r_same = a == filled(d[0]) && c == filled(d[1]);
    let (mut a8, mut c8) = (filled8(d[0]), filled8(d[1]));
    let lr = lanes::compute_start_end_positional_difference(&mut a8, &mut c8, vp8, 0.1);
    let l_same = a8 == filled8(d[0]) && c8 == filled8(d[1]);
    agree(
        "compute_start_end_positional_difference",
        (rr, r_same),
        (lr, l_same),
    );

    let mut off = filled(o);
    let rr = r::compute_inertialize_both_offsets(&mut off, &a, &c, 0.2, 0.2, 0.5, 0.1);
    let r_same = off == filled(o);
    let mut off8 = filled8(o);
    let lr = lanes::compute_inertialize_both_offsets(&mut off8, &a8, &c8, 0.2, 0.2, 0.5, 0.1);
    agree(
        "compute_inertialize_both_offsets",
        (rr, r_same),
        (lr, off8 == filled8(o)),
    );

    let mut out = filled(d[0]);
    let rr = r::apply_positional_offsets(&mut out, vp, &off);
    let r_same = out == filled(d[0]);
    let mut out8 = filled8(d[0]);
    let lr = lanes::apply_positional_offsets(&mut out8, vp8, &off8);
    agree(
        "apply_positional_offsets",
        (rr, r_same),
        (lr, out8 == filled8(d[0])),
    );
}
