//! The lane kernels on bounded inputs, each lane its own, against the
//! scalar reference within their family's tolerance: one function per
//! family, [`super::lanes::check`] choosing which from the first byte.

use kineform::lanes::{self, F32x8, Kformx8, Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Quat, Vec3};

use super::bytes::Bytes;
use super::compare::{ARITH, SPRING, TRANSC, close, parts};

/// `quat_exp` and `quat_log`, their short variants on their domain
/// (`|v| <= π/2`, `w >= 0`) and the small-angle series on its own.
pub(super) fn exp_log(b: &mut Bytes) {
    let v: [Vec3; 8] = core::array::from_fn(|_| b.vec3(6.0));
    let q: [Quat; 8] = core::array::from_fn(|_| b.quat());
    let e = lanes::quat_exp(Vec3x8::from_array(v)).to_array();
    let l = lanes::quat_log(Quatx8::from_array(q)).to_array();
    // The short variants on their domain: |v| <= π/2, w >= 0.
    let vs: [Vec3; 8] = core::array::from_fn(|_| b.vec3(0.9));
    let qa = q.map(r::quat_abs);
    let es = lanes::quat_exp_short(Vec3x8::from_array(vs)).to_array();
    // The small-angle series on its domain, |v| <= 0.2.
    let vm: [Vec3; 8] = core::array::from_fn(|_| b.vec3(0.115));
    let sm = F32x8::new(vm.map(|v| r::dot(v, v)));
    let one = F32x8::splat(1.0);
    let em = lanes::quat_exp_small_scaled(Vec3x8::from_array(vm), one, sm).to_array();
    for i in 0..8 {
        let want = r::quat_exp(vm[i]).to_array();
        close(
            "quat_exp_small_scaled",
            &em[i].to_array(),
            &want,
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
    }
    let ls = lanes::quat_log_short(Quatx8::from_array(qa)).to_array();
    for i in 0..8 {
        let exp_ref = r::quat_exp(vs[i]).to_array();
        close(
            "quat_exp_short",
            &es[i].to_array(),
            &exp_ref,
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
        let log_ref = r::quat_log(qa[i]).to_array();
        close(
            "quat_log_short",
            &ls[i].to_array(),
            &log_ref,
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
    }
    for i in 0..8 {
        close(
            "quat_exp",
            &e[i].to_array(),
            &r::quat_exp(v[i]).to_array(),
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
        close(
            "quat_log",
            &l[i].to_array(),
            &r::quat_log(q[i]).to_array(),
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
    }
}

/// `quat_slerp_shortest`, `t` a little past both ends.
pub(super) fn slerp(b: &mut Bytes) {
    let q: [Quat; 8] = core::array::from_fn(|_| b.quat());
    let p: [Quat; 8] = core::array::from_fn(|i| {
        if b.u8().is_multiple_of(4) {
            q[i]
        } else {
            b.quat()
        }
    });
    let t: [f32; 8] = core::array::from_fn(|_| b.range(-0.25, 1.25));
    let s = lanes::quat_slerp_shortest(Quatx8::from_array(q), Quatx8::from_array(p), F32x8::new(t))
        .to_array();
    for i in 0..8 {
        close(
            "slerp",
            &s[i].to_array(),
            &r::quat_slerp_shortest(q[i], p[i], t[i]).to_array(),
            1.0,
            TRANSC.0,
            TRANSC.1,
        );
    }
}

/// `damper_exact` and `decay_spring_damper_exact`, negative `dt` too.
pub(super) fn dampers(b: &mut Bytes) {
    let x: [f32; 8] = core::array::from_fn(|_| b.range(-100.0, 100.0));
    let g: [f32; 8] = core::array::from_fn(|_| b.range(-100.0, 100.0));
    let h: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 2.0));
    let dt: [f32; 8] = core::array::from_fn(|_| b.range(-0.1, 0.5));
    let d =
        lanes::damper_exact(F32x8::new(x), F32x8::new(g), F32x8::new(h), F32x8::new(dt)).to_array();
    let (sx, sv) = lanes::decay_spring_damper_exact(
        F32x8::new(x),
        F32x8::new(g),
        F32x8::new(h),
        F32x8::new(dt),
    );
    let (sx, sv) = (sx.to_array(), sv.to_array());
    for i in 0..8 {
        close(
            "damper_exact",
            &[d[i]],
            &[r::damper_exact(x[i], g[i], h[i], dt[i])],
            100.0,
            SPRING.0,
            SPRING.1,
        );
        let (rx, rv) = r::decay_spring_damper_exact(x[i], g[i], h[i], dt[i]);
        let scale = 100.0 * (1.0 + halflife_rate(h[i]) * dt[i].max(0.0));
        close(
            "decay_spring_damper_exact",
            &[sx[i], sv[i]],
            &[rx, rv],
            scale,
            SPRING.0,
            SPRING.1,
        );
    }
}

/// `spring_damper_exact_stiffness_damping`.
pub(super) fn spring(b: &mut Bytes) {
    // Exact spring with stiffness and damping, away from the band
    // near critical damping where the over-damped solution divides
    // by y1 - y0 and differences are amplified (tests/suite/equivalence.rs).
    let x: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
    let v: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
    let g: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
    let gv: [f32; 8] = core::array::from_fn(|_| b.range(-2.0, 2.0));
    let d: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 30.0));
    let s: [f32; 8] = core::array::from_fn(|i| {
        let s = b.range(0.0, 200.0);
        let disc = s - d[i] * d[i] / 4.0;
        if disc < 0.0 && disc > -1.0 {
            s - 1.0
        } else {
            s
        }
    });
    let dt: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 0.1));
    let (lx, lv) = lanes::spring_damper_exact_stiffness_damping(
        F32x8::new(x),
        F32x8::new(v),
        F32x8::new(g),
        F32x8::new(gv),
        F32x8::new(s),
        F32x8::new(d),
        F32x8::new(dt),
    );
    let (lx, lv) = (lx.to_array(), lv.to_array());
    for i in 0..8 {
        if s[i] < 0.0 {
            continue;
        }
        let (rx, rv) =
            r::spring_damper_exact_stiffness_damping(x[i], v[i], g[i], gv[i], s[i], d[i], dt[i]);
        let c = g[i] + d[i] * gv[i] / (s[i] + 1e-5);
        let scale = x[i].abs().max(v[i].abs()).max(c.abs()) * (1.0 + d[i]);
        close(
            "spring_damper_exact_stiffness_damping",
            &[lx[i], lv[i]],
            &[rx, rv],
            scale,
            1e-5,
            1e-4,
        );
    }
}

/// `decayed_offset_cubic`.
pub(super) fn decayed_offset(b: &mut Bytes) {
    let ox: [Vec3; 8] = core::array::from_fn(|_| b.vec3(5.0));
    let ov: [Vec3; 8] = core::array::from_fn(|_| b.vec3(20.0));
    let bt: [f32; 8] = core::array::from_fn(|_| b.range(0.05, 1.0));
    let t: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 1.5));
    let (x, v) = lanes::decayed_offset_cubic(
        Vec3x8::from_array(ox),
        Vec3x8::from_array(ov),
        F32x8::new(bt),
        F32x8::new(t),
    );
    let (x, v) = (x.to_array(), v.to_array());
    for i in 0..8 {
        let (rx, rv) = r::decayed_offset_cubic(ox[i], ov[i], bt[i], t[i]);
        let s = 20.0 / bt[i];
        close(
            "decayed_offset_cubic",
            &[x[i].x, x[i].y, x[i].z, v[i].x, v[i].y, v[i].z],
            &[rx.x, rx.y, rx.z, rv.x, rv.y, rv.z],
            s,
            SPRING.0,
            SPRING.1,
        );
    }
}

/// `kform_mul` and `kform_div`.
pub(super) fn kforms(b: &mut Bytes) {
    let a: [Kform; 8] = core::array::from_fn(|_| b.kform(10.0));
    let c: [Kform; 8] = core::array::from_fn(|_| b.kform(10.0));
    let m = lanes::kform_mul(Kformx8::from_array(a), Kformx8::from_array(c)).to_array();
    let dv = lanes::kform_div(Kformx8::from_array(a), Kformx8::from_array(c)).to_array();
    for i in 0..8 {
        let s = 400.0;
        close(
            "kform_mul",
            &parts(m[i]),
            &parts(r::kform_mul(a[i], c[i])),
            s,
            ARITH.0,
            ARITH.1,
        );
        close(
            "kform_div",
            &parts(dv[i]),
            &parts(r::kform_div(a[i], c[i])),
            8.0 * s,
            ARITH.0,
            ARITH.1,
        );
    }
}

/// FK (`op_fk`) on a decoded hierarchy of up to 16 joints.
pub(super) fn fk(b: &mut Bytes) {
    // FK on a decoded hierarchy of up to 16 joints.
    let n = 1 + (b.u8() % 16) as usize;
    let parents: Vec<i32> = (0..n)
        .map(|i| {
            if i == 0 {
                -1
            } else {
                let p = b.u8() as usize % (i + 1);
                if p == i { -1 } else { p as i32 }
            }
        })
        .collect();
    let local: Vec<[Kform; 8]> = (0..n)
        .map(|_| core::array::from_fn(|_| b.kform(5.0)))
        .collect();
    let l8: Vec<Kformx8> = local.iter().map(|k| Kformx8::from_array(*k)).collect();
    let mut g8 = vec![Kformx8::IDENTITY; n];
    lanes::op_fk(&mut g8, &l8, &parents).unwrap();
    for c in 0..8 {
        let pose = r::Pose::from_kforms(&local.iter().map(|k| k[c]).collect::<Vec<_>>());
        let mut g = r::Pose::new(n);
        r::op_fk(&mut g, &pose, &parents).unwrap();
        let scale = (0..n)
            .flat_map(|j| parts(g.get(j)))
            .fold(0.0f32, |m, x| m.max(x.abs()));
        for j in 0..n {
            close(
                "op_fk",
                &parts(g8[j].lane(c)),
                &parts(g.get(j)),
                scale,
                1e-5,
                2e-5,
            );
        }
    }
}

/// `op_inertialize_offset` and `op_inertialize`.
pub(super) fn inertialize(b: &mut Bytes) {
    let a: [Kform; 8] = core::array::from_fn(|_| b.kform(5.0));
    let c: [Kform; 8] = core::array::from_fn(|_| b.kform(5.0));
    let t = b.range(0.0, 1.0);
    let dur = b.range(0.05, 1.0);
    let mut off = [Kformx8::IDENTITY];
    lanes::op_inertialize_offset(
        &mut off,
        &[Kformx8::from_array(a)],
        &[Kformx8::from_array(c)],
    )
    .unwrap();
    let mut out = [Kformx8::IDENTITY];
    lanes::op_inertialize(
        &mut out,
        &off,
        &[Kformx8::from_array(c)],
        F32x8::splat(t),
        F32x8::splat(dur),
    )
    .unwrap();
    for i in 0..8 {
        let (pa, pc) = (r::Pose::from_kforms(&[a[i]]), r::Pose::from_kforms(&[c[i]]));
        let (mut roff, mut rout) = (r::Pose::new(1), r::Pose::new(1));
        r::op_inertialize_offset(&mut roff, &pa, &pc).unwrap();
        r::op_inertialize(&mut rout, &roff, &pc, t, dur).unwrap();
        close(
            "op_inertialize_offset",
            &parts(off[0].lane(i)),
            &parts(roff.get(0)),
            40.0,
            TRANSC.0,
            TRANSC.1,
        );
        close(
            "op_inertialize",
            &parts(out[0].lane(i)),
            &parts(rout.get(0)),
            200.0 / dur,
            TRANSC.0,
            TRANSC.1,
        );
    }
}

/// Damping rate `y = 2 ln2 / h`, bounded, for the spring check's scale.
fn halflife_rate(h: f32) -> f32 {
    (2.0 * r::LN2 / (h + 1e-5)).min(1e5)
}
