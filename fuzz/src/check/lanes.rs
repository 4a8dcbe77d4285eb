//! The `lanes_vs_reference` target's check: no panic on any f32 bit
//! pattern through the lane kernels and the reference, `sample_frame` bit
//! for bit on any time, then one kernel family on bounded inputs
//! ([`super::kernels`]) or the operators on generated shapes
//! ([`super::shapes`]).

use kineform::lanes::{self, F32x8, Kformx8, Quatx8, Vec3x8};
use kineform::reference::{self as r, Quat, Vec3};

use super::bytes::Bytes;
use super::kernels;

/// Runs every lane kernel on raw bit patterns (must not panic) and on
/// bounded inputs (must agree with the reference).
pub fn check(data: &[u8]) {
    let mut b = Bytes(data);
    let kernel = b.u8() % 9;
    any_bits(&mut b);

    // Equivalence on bounded inputs, each lane its own.
    match kernel {
        0 => kernels::exp_log(&mut b),
        1 => kernels::slerp(&mut b),
        2 => kernels::dampers(&mut b),
        3 => kernels::spring(&mut b),
        4 => kernels::decayed_offset(&mut b),
        5 => kernels::kforms(&mut b),
        6 => kernels::fk(&mut b),
        7 => kernels::inertialize(&mut b),
        _ => super::shapes::shapes(&mut b),
    }
}

/// Panic-freedom on any bit pattern, through both paths, and the frame
/// and weight of any time bit for bit.
fn any_bits(b: &mut Bytes) {
    let raw: [f32; 8] = core::array::from_fn(|_| b.raw());
    let f = F32x8::new(raw);
    let v = Vec3x8::new(
        f,
        F32x8::new(raw.map(|x| x * 0.5)),
        F32x8::new(raw.map(|x| -x)),
    );
    let q = Quatx8::new(f, v.x, v.y, v.z);
    let _ = (
        lanes::quat_exp(v),
        lanes::quat_log(q),
        lanes::quat_exp_short(v),
        lanes::quat_log_short(q),
        lanes::quat_exp_small_scaled(v, f, f),
        lanes::quat_slerp_shortest(q, Quatx8::IDENTITY, f),
        lanes::quat_between(v, Vec3x8::ONE),
    );
    let _ = (
        lanes::spring_damper_exact_stiffness_damping(f, f, f, f, f.abs(), f.abs(), f),
        lanes::decayed_offset_cubic(v, v, f, f),
    );
    let _ = lanes::kform_mul(
        Kformx8 {
            pos: v,
            rot: q,
            scl: v,
            vel: v,
            ang: v,
            svl: v,
        },
        Kformx8::IDENTITY,
    );
    // The frame and weight of any time, bit for bit, for an arbitrary and
    // a typical frame time.
    for dt in [raw[0], 1.0 / 120.0] {
        let (st, alpha) = lanes::sample_frame(f, dt);
        let (st, alpha) = (st.to_array(), alpha.to_array());
        for (i, &t) in raw.iter().enumerate() {
            let (rst, ra) = r::sample_frame(t, dt);
            assert!(
                st[i] as i64 == rst && alpha[i].to_bits() == ra.to_bits(),
                "sample_frame({t:e}, {dt:e}): lanes ({}, {:e}) vs reference ({rst}, {ra:e})",
                st[i],
                alpha[i]
            );
        }
    }
    for x in raw {
        let (v, q) = (Vec3::new(x, x * 0.5, -x), Quat::new(x, x, x * 0.5, -x));
        let _ = (
            r::quat_exp(v),
            r::quat_log(q),
            r::quat_slerp_shortest(q, Quat::IDENTITY, x),
            r::quat_between(v, Vec3::ONE),
        );
        let _ = r::spring_damper_exact_stiffness_damping(x, x, x, x, x.abs(), x.abs(), x);
    }
}
