//! `fit_halflives` (dead blending demo, repository-only; reference-math.md,
//! "Repository-only functions"): per-joint, per-axis half-lives fitted at a
//! transition from the source pose to the destination pose.
//!
//! - lanes against the reference, eight characters of 7 joints, every lane
//!   its own poses and parameters, with zero, tiny and negative-zero
//!   velocities and half-turn ties between source and destination
//!   rotations. Positions and the root are compared bit for bit (the same
//!   subtraction, division, product and clamp on both paths). Rotations go
//!   through a logarithm (TRANSC, 4e-6 of the difference's size) and then a
//!   division by the angular velocity, so component `k` may differ by
//!   TRANSC times `scale (1 + |d|) / max_mag(w_k)`, the ratio's own
//!   conditioning, except where the ratio is clamped with room to spare:
//!   there both paths give the bound exactly (`check_rot`).
//! - what the heuristic promises: an axis moving straight toward the
//!   destination, arriving in `T` seconds, gets `clamp(scale T)`; one moving
//!   away gets the minimum; the root gets `root_halflife`; every half-life
//!   is finite and in range.
//! - the batch entry point over a crowd: equal to the reference per
//!   character (a full pack and a partial one), 1 vs 2 threads bit for bit,
//!   typed refusals that write nothing.

#![allow(clippy::needless_range_loop)] // lanes and reference side by side

use crate::common;
use common::*;

use kineform::batch::deadblend;
use kineform::lanes::{self, Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Pose, Quat, Vec3};
use kineform::stream::{CrowdHalflives, CrowdPose};
use proptest::prelude::*;

const TRANSC: f32 = 4e-6;
const J: usize = 7;

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(128),
        ..ProptestConfig::default()
    }
}

/// Heuristic parameters: (scale, min, max, root).
fn params() -> impl Strategy<Value = (f32, f32, f32, f32)> {
    (0.05f32..1.0, 0.0f32..0.2, 0.0f32..1.5, 0.0f32..1.0)
        .prop_map(|(s, lo, span, root)| (s, lo, lo + span, root))
}

/// A velocity with its edge cases: zero, negative zero, below `max_mag`'s
/// 1e-8, one axis only, general.
fn velocity(r: f32) -> impl Strategy<Value = Vec3> {
    prop_oneof![
        5 => vec3_in(r),
        1 => Just(Vec3::ZERO),
        1 => Just(Vec3::splat(-0.0)),
        1 => vec3_in(1e-9),
        1 => (-r..r).prop_map(|y| Vec3::new(0.0, y, -0.0)),
    ]
}

/// Source and destination joints; a third of the destination rotations are
/// a half turn from the source's (a hemisphere tie).
fn joint_pair() -> impl Strategy<Value = (Kform, Kform)> {
    (
        kform(3.0),
        velocity(4.0),
        velocity(6.0),
        vec3_in(3.0),
        unit_quat(),
        0u8..12,
        vec3_in(1.0),
    )
        .prop_map(|(src, vel, ang, dpos, drot, kind, u)| {
            let src = Kform { vel, ang, ..src };
            let rot = if kind < 4 {
                orthogonal(src.rot, kind, u)
            } else {
                drot
            };
            (
                src,
                Kform {
                    pos: dpos,
                    rot,
                    ..src
                },
            )
        })
}

/// `characters` (source, destination) pose pairs of `J` joints.
fn pose_pairs(characters: usize) -> impl Strategy<Value = (Vec<Pose>, Vec<Pose>)> {
    proptest::collection::vec(proptest::collection::vec(joint_pair(), J), characters).prop_map(
        |cs| {
            let side = |pick: fn(&(Kform, Kform)) -> Kform| -> Vec<Pose> {
                cs.iter()
                    .map(|c| Pose::from_kforms(&c.iter().map(pick).collect::<Vec<_>>()))
                    .collect()
            };
            (side(|p| p.0), side(|p| p.1))
        },
    )
}

/// The reference's half-lives for one character.
fn reference_fit(src: &Pose, dst: &Pose, p: (f32, f32, f32, f32)) -> (Vec<Vec3>, Vec<Vec3>) {
    let n = src.len();
    let (mut hp, mut hr) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    r::fit_halflives(
        &mut hp, &mut hr, &src.pos, &src.vel, &src.rot, &src.ang, &dst.pos, &dst.rot, p.0, p.1,
        p.2, p.3,
    )
    .unwrap();
    (hp, hr)
}

fn rot_diff(src: Quat, dst: Quat) -> Vec3 {
    r::quat_to_scaled_angle_axis(r::quat_abs(r::quat_mul_inv(dst, src)))
}

/// Compares rotation half-lives component by component. The reference's
/// unclamped ratio is `u = scale d_k / m_k` (`m_k = max_mag(w_k, 1e-8)`);
/// the lanes' logarithm differs by up to TRANSC `(1 + |d|)` in `d_k`, so by
/// `delta = scale TRANSC (1 + |d|) / |m_k|` (plus rounding) in `u`. Where
/// `u` is clamped with room to spare both paths give the bound exactly;
/// elsewhere they may differ by `delta`.
fn check_rot(
    got: Vec3,
    want: Vec3,
    d: Vec3,
    w: Vec3,
    p: (f32, f32, f32, f32),
    what: &str,
) -> Result<(), TestCaseError> {
    let (g, e, dk, wk) = (got.to_array(), want.to_array(), d.to_array(), w.to_array());
    for k in 0..3 {
        prop_assert!(
            g[k].is_finite() && g[k] >= p.1 && g[k] <= p.2,
            "{what} axis {k}: {} outside [{}, {}]",
            g[k],
            p.1,
            p.2
        );
        let m = r::max_mag(wk[k], 1e-8);
        let u = p.0 * dk[k] / m;
        let delta = p.0 * TRANSC * (1.0 + r::length(d)) / m.abs() + TRANSC * (1.0 + u.abs());
        let allowed = if u - delta > p.2 || u + delta < p.1 {
            0.0
        } else {
            delta
        };
        prop_assert!(
            (g[k] - e[k]).abs() <= allowed,
            "{what} axis {k}: lanes {} vs reference {} (unclamped {u:e}, allowed {allowed:e})",
            g[k],
            e[k]
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn lanes_match_the_reference((src, dst) in pose_pairs(8), ps in arr8(params())) {
        let (s8, d8) = (poses8(&src), poses8(&dst));
        let f = |g: fn(&Kform) -> Vec3, from: &[lanes::Kformx8]| -> Vec<Vec3x8> { from.iter().map(|k| Vec3x8::from_array(k.to_array().map(|x| g(&x)))).collect() };
        let q = |from: &[lanes::Kformx8]| -> Vec<Quatx8> { from.iter().map(|k| k.rot).collect() };
        let (mut hp, mut hr) = (vec![Vec3x8::ZERO; J], vec![Vec3x8::ZERO; J]);
        lanes::fit_halflives(&mut hp, &mut hr, &f(|k| k.pos, &s8), &f(|k| k.vel, &s8), &q(&s8), &f(|k| k.ang, &s8), &f(|k| k.pos, &d8), &q(&d8),
            f8(ps.map(|p| p.0)), f8(ps.map(|p| p.1)), f8(ps.map(|p| p.2)), f8(ps.map(|p| p.3))).unwrap();
        for c in 0..8 {
            let (wp, wr) = reference_fit(&src[c], &dst[c], ps[c]);
            for j in 0..J {
                let what = format!("character {c} joint {j}");
                prop_assert_eq!(hp[j].lane(c).to_array().map(f32::to_bits), wp[j].to_array().map(f32::to_bits), "positions of {}", what);
                if j == 0 {
                    prop_assert_eq!(hr[0].lane(c), Vec3::splat(ps[c].3), "root rotation of {}", what);
                } else {
                    check_rot(hr[j].lane(c), wr[j], rot_diff(src[c].rot[j], dst[c].rot[j]), src[c].ang[j], ps[c], &format!("rotations of {what}"))?;
                }
            }
        }
    }

    /// Joints moving straight toward the destination and arriving in `T`
    /// seconds (positions with `vel = (dst - src) / T`, rotations with
    /// `ang = d / T` for `d` the short rotation from source to destination,
    /// `dst = exp(d / 2) src`) get `clamp(scale T)` on every axis that
    /// moves; moving away, the minimum. The root gets `root_halflife`.
    #[test]
    fn toward_the_destination_long_away_short(src in proptest::collection::vec(kform(2.0), J), dpos in proptest::collection::vec(vec3_in(1.0), J), drot in proptest::collection::vec(vec3_in(1.2), J),
                                              t in 0.1f32..4.0, away in any::<bool>(), p in params()) {
        let sign = if away { -1.0 } else { 1.0 };
        let dst_pos: Vec<Vec3> = (0..J).map(|j| src[j].pos + dpos[j]).collect();
        let dst_rot: Vec<Quat> = (0..J).map(|j| r::quat_mul(r::quat_from_scaled_angle_axis(drot[j]), src[j].rot)).collect();
        let src_pose = Pose::from_kforms(&(0..J).map(|j| Kform {
            vel: dpos[j] * (sign / t),
            ang: rot_diff(src[j].rot, dst_rot[j]) * (sign / t),
            ..src[j]
        }).collect::<Vec<_>>());
        let dst_pose = Pose::from_kforms(&(0..J).map(|j| Kform { pos: dst_pos[j], rot: dst_rot[j], ..src[j] }).collect::<Vec<_>>());
        let (hp, hr) = reference_fit(&src_pose, &dst_pose, p);
        let want = if away { p.1 } else { r::clampf(p.0 * t, p.1, p.2) };
        prop_assert_eq!(hp[0], Vec3::splat(p.3));
        prop_assert_eq!(hr[0], Vec3::splat(p.3));
        for j in 1..J {
            let d = rot_diff(src[j].rot, dst_rot[j]);
            for k in 0..3 {
                // Axes that barely move are ill-conditioned: the position
                // difference (dst - src, |src| up to 2) is rounded to 2.4e-7.
                if dpos[j].to_array()[k].abs() > 0.05 {
                    prop_assert!((hp[j].to_array()[k] - want).abs() <= 1e-5 * (1.0 + want), "joint {} position axis {}: {} vs {}", j, k, hp[j].to_array()[k], want);
                }
                if d.to_array()[k].abs() > 1e-3 {
                    prop_assert!((hr[j].to_array()[k] - want).abs() <= 1e-5 * (1.0 + want), "joint {} rotation axis {}: {} vs {}", j, k, hr[j].to_array()[k], want);
                }
            }
        }
    }
}

/// Nine characters (a full pack and one more) with the crowd's layout.
fn crowd_pair(seed: u64) -> (Vec<Pose>, Vec<Pose>) {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::new_with_rng(
        ProptestConfig::default(),
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &[seed as u8; 32],
        ),
    );
    pose_pairs(9).new_tree(&mut runner).unwrap().current()
}

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

#[test]
fn batch_over_a_crowd_equals_the_reference_per_character() {
    for seed in 0..8 {
        let (src, dst) = crowd_pair(seed);
        let (sc, dc) = (
            CrowdPose::from_poses(&src, J).unwrap(),
            CrowdPose::from_poses(&dst, J).unwrap(),
        );
        let p = (0.3, 0.1, 1.0, 0.05);
        let mut h = CrowdHalflives::new(9, J).unwrap();
        deadblend::fit_halflives(&mut h, &sc, &dc, p.0, p.1, p.2, p.3).unwrap();
        let mut h2 = CrowdHalflives::new(9, J).unwrap();
        pool(2)
            .install(|| deadblend::fit_halflives(&mut h2, &sc, &dc, p.0, p.1, p.2, p.3).unwrap());
        assert_eq!(h, h2, "1 vs 2 threads");
        for c in 0..9 {
            let (wp, wr) = reference_fit(&src[c], &dst[c], p);
            for j in 0..J {
                let (gp, gr) = h.get(c, j).unwrap();
                assert_eq!(gp, wp[j], "seed {seed} character {c} joint {j} positions");
                if j == 0 {
                    assert_eq!(gr, Vec3::splat(p.3), "seed {seed} character {c} root");
                    continue;
                }
                check_rot(
                    gr,
                    wr[j],
                    rot_diff(src[c].rot[j], dst[c].rot[j]),
                    src[c].ang[j],
                    p,
                    &format!("seed {seed} character {c} joint {j}"),
                )
                .unwrap();
            }
        }
        assert!(h.get(9, 0).is_none() && h.get(0, J).is_none());
    }
}

#[test]
fn batch_refusals_are_typed_and_write_nothing() {
    use kineform::Error;
    let (src, dst) = crowd_pair(1);
    let (sc, dc) = (
        CrowdPose::from_poses(&src, J).unwrap(),
        CrowdPose::from_poses(&dst, J).unwrap(),
    );
    let fresh = CrowdHalflives::new(9, J).unwrap();
    let mut h = fresh.clone();
    let param = |name: &'static str| move |e: Error| matches!(e, Error::Parameter { name: n, .. } if n == name);
    type Expect = Box<dyn Fn(Error) -> bool>;
    let cases: Vec<(Result<(), Error>, Expect)> = vec![
        (
            deadblend::fit_halflives(
                &mut h,
                &sc,
                &CrowdPose::new(8, J).unwrap(),
                0.3,
                0.1,
                1.0,
                0.0,
            ),
            Box::new(|e| {
                matches!(
                    e,
                    Error::Length {
                        what: "dst characters",
                        expected: 9,
                        got: 8
                    }
                )
            }),
        ),
        (
            deadblend::fit_halflives(
                &mut h,
                &sc,
                &CrowdPose::new(9, J + 1).unwrap(),
                0.3,
                0.1,
                1.0,
                0.0,
            ),
            Box::new(|e| {
                matches!(
                    e,
                    Error::Length {
                        what: "dst joints",
                        ..
                    }
                )
            }),
        ),
        (
            deadblend::fit_halflives(
                &mut CrowdHalflives::new(9, J - 1).unwrap(),
                &sc,
                &dc,
                0.3,
                0.1,
                1.0,
                0.0,
            ),
            Box::new(|e| {
                matches!(
                    e,
                    Error::Length {
                        what: "halflives joints",
                        ..
                    }
                )
            }),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, 0.0, 0.1, 1.0, 0.0),
            Box::new(param("halflife")),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, f32::NAN, 0.1, 1.0, 0.0),
            Box::new(param("halflife")),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, 0.3, -0.1, 1.0, 0.0),
            Box::new(param("min_halflife")),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, 0.3, 0.1, f32::INFINITY, 0.0),
            Box::new(param("max_halflife")),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, 0.3, 0.5, 0.4, 0.0),
            Box::new(param("max_halflife")),
        ),
        (
            deadblend::fit_halflives(&mut h, &sc, &dc, 0.3, 0.1, 1.0, -1.0),
            Box::new(param("root_halflife")),
        ),
    ];
    for (k, (got, is)) in cases.into_iter().enumerate() {
        let e = got.expect_err(&format!("case {k} accepted"));
        assert!(is(e.clone()), "case {k}: {e}");
    }
    assert_eq!(h, fresh, "a refused call wrote");
    // Empty crowds are accepted and write nothing.
    let mut empty = CrowdHalflives::new(0, J).unwrap();
    deadblend::fit_halflives(
        &mut empty,
        &CrowdPose::new(0, J).unwrap(),
        &CrowdPose::new(0, J).unwrap(),
        0.3,
        0.1,
        1.0,
        0.0,
    )
    .unwrap();
}
