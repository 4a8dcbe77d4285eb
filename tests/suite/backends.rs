//! Two documented properties of the lane kernels (issue 13, "Document"):
//!
//! - NaN and infinity propagate only within the lane they poison: every
//!   other lane's result is bit for bit what it is with clean inputs.
//! - Results differ in the last bits between SIMD backends (an x86-64
//!   baseline build, SSE2, against x86-64-v3, AVX2 + FMA), within a bound
//!   measured here: each build writes its kernels' outputs on a fixed grid
//!   of inputs to `target/backends/<backend>.bin`, and when the other
//!   build's file is there, the two are compared and the bound printed and
//!   checked. Both builds must also pass `tests/suite/equivalence.rs` and
//!   `tests/suite/catalogue_equivalence.rs` (the lanes-vs-reference tolerances):
//!   see README, "Tests".

use kineform::lanes::{self, F32x8, Kformx8, Quatx8, Vec3x8};

/// A kernel over lane vectors: `n` inputs, outputs flattened.
type Kernel = (&'static str, usize, fn(&[F32x8]) -> Vec<F32x8>);

fn v3(p: &[F32x8], i: usize) -> Vec3x8 {
    Vec3x8::new(p[i], p[i + 1], p[i + 2])
}

/// A unit quaternion from three inputs (the scaled angle axis).
fn q(p: &[F32x8], i: usize) -> Quatx8 {
    lanes::quat_from_scaled_angle_axis(v3(p, i))
}

fn flat_v(v: Vec3x8) -> Vec<F32x8> {
    vec![v.x, v.y, v.z]
}

fn flat_q(q: Quatx8) -> Vec<F32x8> {
    vec![q.w, q.x, q.y, q.z]
}

fn flat_k(k: Kformx8) -> Vec<F32x8> {
    [k.pos, k.scl, k.vel, k.ang, k.svl]
        .into_iter()
        .flat_map(flat_v)
        .chain(flat_q(k.rot))
        .collect()
}

fn kform(p: &[F32x8], i: usize) -> Kformx8 {
    let abs = |x: F32x8| x.abs() + lanes::splat(0.5);
    Kformx8 {
        pos: v3(p, i),
        rot: q(p, i + 3),
        scl: Vec3x8::new(abs(p[i + 6]), abs(p[i + 7]), abs(p[i + 8])),
        vel: v3(p, i + 9),
        ang: v3(p, i + 12),
        svl: v3(p, i + 15),
    }
}

/// The kernels checked: a spread of every family (math, springs,
/// inertializers, kineforms, sampling, tracking, costs, looping).
fn kernels() -> Vec<Kernel> {
    vec![
        ("quat_exp", 3, |p| flat_q(lanes::quat_exp(v3(p, 0)))),
        ("quat_log", 3, |p| flat_v(lanes::quat_log(q(p, 0)))),
        ("quat_slerp_shortest", 7, |p| {
            flat_q(lanes::quat_slerp_shortest(q(p, 0), q(p, 3), p[6]))
        }),
        ("quat_between", 6, |p| {
            flat_q(lanes::quat_between(v3(p, 0), v3(p, 3)))
        }),
        ("quat_mul_vec3", 6, |p| {
            flat_v(lanes::quat_mul_vec3(q(p, 0), v3(p, 3)))
        }),
        ("sin_cos", 1, |p| {
            let (a, b) = lanes::sin_cos(p[0]);
            vec![a, b]
        }),
        ("damper_exact", 4, |p| {
            vec![lanes::damper_exact(p[0], p[1], p[2].abs(), p[3].abs())]
        }),
        ("decay_spring_damper_exact", 4, |p| {
            let (x, v) = lanes::decay_spring_damper_exact(p[0], p[1], p[2].abs(), p[3].abs());
            vec![x, v]
        }),
        ("spring_damper_exact_stiffness_damping", 7, |p| {
            let (x, v) = lanes::spring_damper_exact_stiffness_damping(
                p[0],
                p[1],
                p[2],
                p[3],
                p[4].abs() * lanes::splat(20.0),
                p[5].abs() * lanes::splat(5.0),
                p[6].abs() * lanes::splat(0.05),
            );
            vec![x, v]
        }),
        ("decayed_offset_cubic", 8, |p| {
            let (x, v) = lanes::decayed_offset_cubic(
                v3(p, 0),
                v3(p, 3),
                p[6].abs() + lanes::splat(0.05),
                p[7].abs(),
            );
            let mut o = flat_v(x);
            o.extend(flat_v(v));
            o
        }),
        ("kform_mul", 36, |p| {
            flat_k(lanes::kform_mul(kform(p, 0), kform(p, 18)))
        }),
        ("kform_div", 36, |p| {
            flat_k(lanes::kform_div(kform(p, 0), kform(p, 18)))
        }),
        ("kform_inertialize_offset", 36, |p| {
            flat_k(lanes::kform_inertialize_offset(kform(p, 0), kform(p, 18)))
        }),
        ("tracking_spring_update_exact", 6, |p| {
            let (x, v) = lanes::tracking_spring_update_exact(
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                lanes::splat(0.01),
                lanes::splat(0.2),
                lanes::splat(1.0),
                p[5].abs() * lanes::splat(0.05),
                lanes::splat(1.0 / 60.0),
            );
            vec![x, v]
        }),
        ("tracking_spring_update_improved", 6, |p| {
            let (x, v) = lanes::tracking_spring_update_improved(
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                lanes::splat(1.0),
                lanes::splat(0.05),
                lanes::splat(0.0),
                p[5].abs() * lanes::splat(0.05),
            );
            vec![x, v]
        }),
        ("transition_feature_spring", 7, |p| {
            flat_v(lanes::transition_feature_spring(
                v3(p, 0),
                v3(p, 3),
                p[6].abs(),
            ))
        }),
        ("softfade", 2, |p| vec![lanes::softfade(p[0], p[1].abs())]),
        ("smoothstep_blend_alpha", 2, |p| {
            vec![lanes::smoothstep_blend_alpha(p[0].abs(), p[1].abs())]
        }),
    ]
}

/// Deterministic ordinary inputs in `[-r, r]`.
fn inputs(n: usize, seed: u64, r: f32) -> Vec<[f32; 8]> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            core::array::from_fn(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                r * (2.0 * (s >> 40) as f32 / (1u64 << 24) as f32 - 1.0)
            })
        })
        .collect()
}

fn run(k: &Kernel, p: &[[f32; 8]]) -> Vec<[f32; 8]> {
    let lanes: Vec<F32x8> = p.iter().map(|a| F32x8::new(*a)).collect();
    (k.2)(&lanes).into_iter().map(F32x8::to_array).collect()
}

#[test]
fn nan_and_infinity_stay_in_their_lane() {
    for k in kernels() {
        for seed in 0..20 {
            let clean = inputs(k.1, seed, 2.0);
            let want = run(&k, &clean);
            // Finite, bounded inputs give finite outputs.
            assert!(
                want.iter().flatten().all(|x| x.is_finite()),
                "{}: non-finite output on finite inputs {clean:?}",
                k.0
            );
            for poison in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX] {
                let lane = (seed % 8) as usize;
                // Every input of one lane poisoned, and each input alone.
                let mut all = clean.clone();
                all.iter_mut().for_each(|a| a[lane] = poison);
                let mut cases = vec![all];
                for i in 0..k.1 {
                    let mut one = clean.clone();
                    one[i][lane] = poison;
                    cases.push(one);
                }
                for p in cases {
                    let got = run(&k, &p);
                    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
                        for l in (0..8).filter(|&l| l != lane) {
                            assert!(
                                g[l].to_bits() == w[l].to_bits(),
                                "{}: {poison} in lane {lane} changed output {o} of lane {l}: {} vs {}",
                                k.0,
                                g[l],
                                w[l]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Writes this build's outputs and, when the other backend's are there,
/// measures and checks the difference: at most 2e-5 of the output's scale
/// (max of its magnitude and 1) for every kernel, which is within twice the
/// lanes-vs-reference tolerances of `tests/suite/equivalence.rs` (each build is
/// within them of the reference).
#[test]
fn lane_kernels_across_backends() {
    let mut dump: Vec<f32> = Vec::new();
    for k in kernels() {
        for seed in 0..64 {
            for r in run(&k, &inputs(k.1, seed, 2.0)) {
                dump.extend(r);
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/backends");
    std::fs::create_dir_all(&dir).unwrap();
    let me = kineform::simd_backend();
    let bytes: Vec<u8> = dump.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.join(format!("{me}.bin")), bytes).unwrap();
    for other in ["sse2", "sse4.1", "avx2+fma"] {
        if other == me {
            continue;
        }
        let Ok(theirs) = std::fs::read(dir.join(format!("{other}.bin"))) else {
            continue;
        };
        let theirs: Vec<f32> = theirs
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if theirs.len() != dump.len() {
            continue; // written by another version of this test
        }
        let (mut differ, mut max_abs, mut max_rel) = (0usize, 0.0f32, 0.0f32);
        for (a, b) in dump.iter().zip(&theirs) {
            if a.to_bits() != b.to_bits() {
                differ += 1;
                let d = (a - b).abs();
                max_abs = max_abs.max(d);
                max_rel = max_rel.max(d / a.abs().max(b.abs()).max(1e-30));
                assert!(
                    d <= 2e-5 * a.abs().max(1.0),
                    "{me} vs {other}: {a:e} vs {b:e}"
                );
            }
        }
        println!(
            "{me} vs {other}: {differ} of {} floats differ ({:.1}%), by at most {max_abs:e} (relative {max_rel:e})",
            dump.len(),
            100.0 * differ as f64 / dump.len() as f64
        );
    }
}
