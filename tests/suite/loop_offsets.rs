//! The looping article's repository-only offsets (`compute_linear_offsets`,
//! `compute_inertialize_start_offsets`, `compute_inertialize_end_offsets`;
//! reference-math.md, "Repository-only functions") and one-frame loops.
//!
//! - lanes against the reference, 16 joints (two packs of eight, every lane
//!   a different joint), 1 to 40 frames. Tolerance TRANSC (abs and rel 4e-6
//!   of the inputs' magnitude, as in catalogue_equivalence.rs): the spring
//!   offsets go through `fast_negexp` (bit-identical on both paths) and a
//!   few fused multiply-adds; the linear fade is one lerp and one product.
//! - the property each offset promises: the start offsets carry the whole
//!   correction at frame 0 (value and velocity) and decay, the end offsets
//!   at the last frame, the linear offsets interpolate the start's share
//!   to the end's.
//! - one-frame loops: every offset function gives the reference-math.md
//!   value, finite, in both paths; the differences of a one-frame clip are
//!   zero; `make_loop` still refuses a one-frame clip with a typed error.
//! - `make_loop` with the three as `LoopMethod`s equals the reference
//!   composition, closes the seam, and loops the root in character space
//!   on the method's own side (or leaves it, for the linear fade).

#![allow(clippy::needless_range_loop)] // lanes and reference side by side

use crate::common;
use common::*;

use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::lanes::{self, Quatx8, Vec3x8};
use kineform::reference::{self as r, Quat, Slice2d, Vec3};
use proptest::prelude::*;

const TRANSC: Tol = Tol::new(4e-6, 4e-6);
const COLS: usize = 16;

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(128),
        ..ProptestConfig::default()
    }
}

/// Joints `8k + i` into lane `i` of pack `k`.
fn to8(a: &[Vec3]) -> Vec<Vec3x8> {
    a.chunks(8)
        .map(|c| Vec3x8::from_array(core::array::from_fn(|i| c[i])))
        .collect()
}

fn un8(a: &[Vec3x8]) -> Vec<Vec3> {
    a.iter().flat_map(|v| v.to_array()).collect()
}

/// The three repository-only offset functions, reference and lanes, for
/// `rows` frames: (linear, start, end), each frames × joints.
type Offsets = [Vec<Vec3>; 3];

fn reference_offsets(
    rows: usize,
    dp: &[Vec3],
    dv: &[Vec3],
    h: f32,
    ratio: f32,
    dt: f32,
) -> Offsets {
    let n = rows * dp.len();
    let (mut lin, mut st, mut en) = (
        vec![Vec3::ZERO; n],
        vec![Vec3::ZERO; n],
        vec![Vec3::ZERO; n],
    );
    r::compute_linear_offsets(&mut lin, dp, ratio).unwrap();
    r::compute_inertialize_start_offsets(&mut st, dp, dv, h, dt).unwrap();
    r::compute_inertialize_end_offsets(&mut en, dp, dv, h, dt).unwrap();
    [lin, st, en]
}

fn lane_offsets(rows: usize, dp: &[Vec3], dv: &[Vec3], h: f32, ratio: f32, dt: f32) -> Offsets {
    let (dp8, dv8) = (to8(dp), to8(dv));
    let n = rows * dp8.len();
    let (mut lin, mut st, mut en) = (
        vec![Vec3x8::ZERO; n],
        vec![Vec3x8::ZERO; n],
        vec![Vec3x8::ZERO; n],
    );
    lanes::compute_linear_offsets(&mut lin, &dp8, ratio).unwrap();
    lanes::compute_inertialize_start_offsets(&mut st, &dp8, &dv8, h, dt).unwrap();
    lanes::compute_inertialize_end_offsets(&mut en, &dp8, &dv8, h, dt).unwrap();
    [un8(&lin), un8(&st), un8(&en)]
}

fn finite(v: Vec3) -> bool {
    v.to_array().iter().all(|x| x.is_finite())
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn lanes_match_the_reference(rows in 1usize..40, dp in proptest::collection::vec(vec3_edgy(5.0), COLS), dv in proptest::collection::vec(vec3_edgy(20.0), COLS),
                                 h in 0.02f32..1.0, ratio in 0.0f32..1.0, dt in prop_oneof![Just(0.0f32), 0.001f32..0.05]) {
        let want = reference_offsets(rows, &dp, &dv, h, ratio, dt);
        let got = lane_offsets(rows, &dp, &dv, h, ratio, dt);
        for (name, (g, w)) in ["compute_linear_offsets", "compute_inertialize_start_offsets", "compute_inertialize_end_offsets"].iter().zip(got.iter().zip(&want)) {
            for k in 0..rows * COLS {
                let j = k % COLS;
                check(g[k], w[k], mag(dp[j]) + mag(dv[j]) * h, TRANSC, &format!("{name} frame {} joint {j}", k / COLS))?;
            }
        }
    }

    /// Start offsets: frame 0 carries the whole positional difference
    /// exactly, the offset's velocity there is the whole velocity difference
    /// (forward differences at two step sizes, the gap shrinking), and after
    /// ten half-lives less than 5% is left.
    #[test]
    fn start_offsets_take_the_whole_correction_at_frame_0_and_decay(dp in proptest::collection::vec(vec3_in(2.0), COLS), dv in proptest::collection::vec(vec3_in(5.0), COLS), h in 0.05f32..0.5) {
        let [_, st, _] = reference_offsets(2, &dp, &dv, h, 0.5, 0.0);
        for j in 0..COLS {
            prop_assert_eq!(st[j], dp[j], "frame 0 of joint {}", j);
        }
        velocity_at_an_end(&dp, &dv, h, 1)?;
        // Long clip: ten half-lives and more after the start.
        let dt = h / 4.0;
        let rows = 48;
        let [_, st, _] = reference_offsets(rows, &dp, &dv, h, 0.5, dt);
        for i in 40..rows {
            for j in 0..COLS {
                let left = r::length(st[i * COLS + j]);
                prop_assert!(left <= 0.05 * (r::length(dp[j]) + r::length(dv[j]) * h) + 1e-6, "frame {} joint {}: {} left", i, j, left);
            }
        }
    }

    /// End offsets: the last frame carries minus the positional difference
    /// exactly (it moves onto the first frame), the offset changes by minus
    /// the velocity difference there (the last frame takes the first's
    /// velocity), and ten half-lives before the end less than 5% is left.
    #[test]
    fn end_offsets_take_the_whole_correction_at_the_last_frame_and_decay(dp in proptest::collection::vec(vec3_in(2.0), COLS), dv in proptest::collection::vec(vec3_in(5.0), COLS), h in 0.05f32..0.5) {
        let rows = 48;
        let dt = h / 4.0;
        let [_, _, en] = reference_offsets(rows, &dp, &dv, h, 0.5, dt);
        for j in 0..COLS {
            prop_assert_eq!(en[(rows - 1) * COLS + j], -dp[j], "last frame of joint {}", j);
        }
        for i in 0..rows - 40 {
            for j in 0..COLS {
                let left = r::length(en[i * COLS + j]);
                prop_assert!(left <= 0.05 * (r::length(dp[j]) + r::length(dv[j]) * h) + 1e-6, "frame {} joint {}: {} left", i, j, left);
            }
        }
        velocity_at_an_end(&dp, &dv, h, 2)?;
    }

    /// Linear offsets: frame 0 carries `ratio` of the difference, the last
    /// frame `ratio - 1` (so the first and last frames meet), and every
    /// frame in between lies on the straight line between them.
    #[test]
    fn linear_offsets_interpolate_the_share(rows in 2usize..40, dp in proptest::collection::vec(vec3_in(5.0), COLS), ratio in 0.0f32..1.0) {
        let [lin, _, _] = reference_offsets(rows, &dp, &dp, 0.1, ratio, 0.0);
        for j in 0..COLS {
            let s = mag(dp[j]);
            check(lin[j], dp[j] * ratio, s, TRANSC, "share at the start")?;
            check(lin[(rows - 1) * COLS + j], dp[j] * (ratio - 1.0), s, TRANSC, "share at the end")?;
            check(lin[j] - lin[(rows - 1) * COLS + j], dp[j], s, TRANSC, "the seam closes")?;
            for i in 0..rows {
                let a = i as f32 / (rows - 1) as f32;
                let on_line = lin[j] * (1.0 - a) + lin[(rows - 1) * COLS + j] * a;
                check(lin[i * COLS + j], on_line, s, TRANSC, &format!("frame {i} on the line"))?;
            }
        }
    }
}

/// The offsets' velocity at the seam against `dv`: for `which = 1` the
/// start offsets' forward difference at frame 0 must be `+dv`, for
/// `which = 2` the end offsets' backward difference at the last frame must
/// be `-dv`. Two frames at steps `h/20` and `h/200`: the gap must be small
/// (relative 2% of `|dv| + |dp| / h` at the larger step) and shrink by at
/// least 4x at the smaller one (the error is first order in the step).
fn velocity_at_an_end(dp: &[Vec3], dv: &[Vec3], h: f32, which: usize) -> Result<(), TestCaseError> {
    let gap = |step: f32| -> Vec<f32> {
        let o = &reference_offsets(2, dp, dv, h, 0.5, step)[which];
        (0..COLS)
            .map(|j| {
                let v = (o[COLS + j] - o[j]) / step;
                let want = if which == 1 { dv[j] } else { -dv[j] };
                r::length(v - want) / (r::length(dv[j]) + r::length(dp[j]) / h + 1e-3)
            })
            .collect()
    };
    let (coarse, fine) = (gap(h / 20.0), gap(h / 200.0));
    for j in 0..COLS {
        prop_assert!(
            coarse[j] < 0.2 && fine[j] < 0.02 && fine[j] <= coarse[j] / 4.0 + 1e-4,
            "joint {}: velocity gap {} at h/20, {} at h/200",
            j,
            coarse[j],
            fine[j]
        );
    }
    Ok(())
}

#[test]
fn one_frame_loops_give_finite_offsets_in_both_paths() {
    // reference-math.md: one row is both the start and the end; the linear
    // fade's i / (rows - 1) is taken as 0.
    let dp: Vec<Vec3> = (0..COLS)
        .map(|j| Vec3::new(j as f32 - 7.0, 0.5, -2.0))
        .collect();
    let dv: Vec<Vec3> = (0..COLS)
        .map(|j| Vec3::new(1.0, -(j as f32), 3.0))
        .collect();
    let (h, ratio, dt) = (0.2, 0.3, 1.0 / 30.0);
    let (dp8, dv8) = (to8(&dp), to8(&dv));
    type RefOffsets = fn(&mut [Vec3], &[Vec3], &[Vec3], f32, f32, f32, f32) -> kineform::Result<()>;
    type LaneOffsets =
        fn(&mut [Vec3x8], &[Vec3x8], &[Vec3x8], f32, f32, f32, f32) -> kineform::Result<()>;
    // (name, reference, lanes, expected offset of joint j)
    let two_sided: [(&str, RefOffsets, LaneOffsets, f32); 3] = [
        (
            "compute_inertialize_both_offsets",
            r::compute_inertialize_both_offsets,
            lanes::compute_inertialize_both_offsets,
            2.0 * ratio - 1.0,
        ),
        (
            "compute_inertialize_both_offsets_cubic",
            r::compute_inertialize_both_offsets_cubic,
            lanes::compute_inertialize_both_offsets_cubic,
            2.0 * ratio - 1.0,
        ),
        (
            "compute_linear_inertialize_offsets",
            r::compute_linear_inertialize_offsets,
            lanes::compute_linear_inertialize_offsets,
            ratio,
        ),
    ];
    let mut results: Vec<(&str, Vec<Vec3>, Vec<Vec3>, f32)> = Vec::new();
    for (name, rf, lf, share) in two_sided {
        let mut o = vec![Vec3::ZERO; COLS];
        rf(&mut o, &dp, &dv, h, h, ratio, dt).unwrap();
        let mut o8 = vec![Vec3x8::ZERO; 2];
        lf(&mut o8, &dp8, &dv8, h, h, ratio, dt).unwrap();
        results.push((name, o, un8(&o8), share));
    }
    let mut o = vec![Vec3::ZERO; COLS];
    r::compute_softfade_inertialize_offsets(&mut o, &dp, &dv, h, h, h, h, 4.0, 4.0, ratio, dt)
        .unwrap();
    let mut o8 = vec![Vec3x8::ZERO; 2];
    lanes::compute_softfade_inertialize_offsets(
        &mut o8, &dp8, &dv8, h, h, h, h, 4.0, 4.0, ratio, dt,
    )
    .unwrap();
    // softfade(0, 4) = ln(1 + e^4) / 4 at both ends.
    let sf0 = r::softfade(0.0, 4.0);
    results.push((
        "compute_softfade_inertialize_offsets",
        o,
        un8(&o8),
        sf0 * (2.0 * ratio - 1.0),
    ));
    let [lin, st, en] = reference_offsets(1, &dp, &dv, h, ratio, dt);
    let [lin8, st8, en8] = lane_offsets(1, &dp, &dv, h, ratio, dt);
    results.push(("compute_linear_offsets", lin, lin8, ratio));
    results.push(("compute_inertialize_start_offsets", st, st8, 1.0));
    results.push(("compute_inertialize_end_offsets", en, en8, -1.0));
    for (name, want_ref, want_lanes, share) in &results {
        for j in 0..COLS {
            for (path, got) in [("reference", want_ref[j]), ("lanes", want_lanes[j])] {
                assert!(finite(got), "{name} {path} joint {j}: {got:?}");
                let want = dp[j] * *share;
                assert!(
                    r::length(got - want) <= 1e-5 * (1.0 + r::length(want)),
                    "{name} {path} joint {j}: {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn one_frame_differences_are_zero_in_both_paths() {
    // The one frame is both ends: no positional or velocity difference.
    let pos: Vec<Vec3> = (0..COLS).map(|j| Vec3::new(j as f32, 1.0, -3.0)).collect();
    let rot: Vec<Quat> = (0..COLS)
        .map(|j| r::quat_from_scaled_angle_axis(Vec3::new(0.1 * j as f32, -0.7, 2.0)))
        .collect();
    let (p, q) = (
        Slice2d::new(&pos, COLS).unwrap(),
        Slice2d::new(&rot, COLS).unwrap(),
    );
    let p8 = to8(&pos);
    let q8: Vec<Quatx8> = rot
        .chunks(8)
        .map(|c| Quatx8::from_array(core::array::from_fn(|i| c[i])))
        .collect();
    let (p8s, q8s) = (Slice2d::new(&p8, 2).unwrap(), Slice2d::new(&q8, 2).unwrap());
    let dt = 1.0 / 30.0;
    let z = || vec![Vec3::ZERO; COLS];
    let z8 = || vec![Vec3x8::ZERO; 2];
    let mut outs: Vec<(&str, Vec<Vec3>)> = Vec::new();
    let (mut a, mut b) = (z(), z());
    r::compute_start_end_positional_difference(&mut a, &mut b, p, dt).unwrap();
    outs.extend([("positional diff_pos", a), ("positional diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_start_end_rotational_difference(&mut a, &mut b, q, dt).unwrap();
    outs.extend([("rotational diff_rot", a), ("rotational diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_softfade_start_end_difference(&mut a, &mut b, p, 0.2, 0.3, 4.0, 5.0, 0.3, dt)
        .unwrap();
    outs.extend([("softfade diff_pos", a), ("softfade diff_vel", b)]);
    let (mut a, mut b) = (z(), z());
    r::compute_softfade_start_end_difference_quat(&mut a, &mut b, q, 0.2, 0.3, 4.0, 5.0, 0.3, dt)
        .unwrap();
    outs.extend([("softfade diff_rot", a), ("softfade diff_rot_vel", b)]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_start_end_positional_difference(&mut a, &mut b, p8s, dt).unwrap();
    outs.extend([
        ("lanes positional diff_pos", un8(&a)),
        ("lanes positional diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_start_end_rotational_difference(&mut a, &mut b, q8s, dt).unwrap();
    outs.extend([
        ("lanes rotational diff_rot", un8(&a)),
        ("lanes rotational diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_softfade_start_end_difference(&mut a, &mut b, p8s, 0.2, 0.3, 4.0, 5.0, 0.3, dt)
        .unwrap();
    outs.extend([
        ("lanes softfade diff_pos", un8(&a)),
        ("lanes softfade diff_vel", un8(&b)),
    ]);
    let (mut a, mut b) = (z8(), z8());
    lanes::compute_softfade_start_end_difference_quat(
        &mut a, &mut b, q8s, 0.2, 0.3, 4.0, 5.0, 0.3, dt,
    )
    .unwrap();
    outs.extend([
        ("lanes softfade diff_rot", un8(&a)),
        ("lanes softfade diff_rot_vel", un8(&b)),
    ]);
    // The root of a one-frame clip gets zero offsets.
    let (mut rp, mut rr) = (z(), z());
    r::compute_root_inertialize_offsets(&mut rp, &mut rr, p, q, 0.2, 0.2, 0.5, dt).unwrap();
    outs.extend([("root pos offsets", rp), ("root rot offsets", rr)]);
    let roots_p = vec![Vec3x8::splat(pos[0])];
    let roots_q = vec![Quatx8::splat(rot[0])];
    let (mut rp8, mut rr8) = (vec![Vec3x8::ZERO], vec![Vec3x8::ZERO]);
    lanes::compute_root_inertialize_offsets(
        &mut rp8,
        &mut rr8,
        Slice2d::new(&roots_p, 1).unwrap(),
        Slice2d::new(&roots_q, 1).unwrap(),
        0.2,
        0.2,
        0.5,
        dt,
    )
    .unwrap();
    outs.extend([
        ("lanes root pos offsets", un8(&rp8)),
        ("lanes root rot offsets", un8(&rr8)),
    ]);
    for (name, v) in outs {
        for (j, d) in v.iter().enumerate() {
            // A rotation's difference with itself: |log(q q⁻¹)| is rounding.
            assert!(r::length(*d) <= 1e-6, "{name} joint {j}: {d:?}");
        }
    }
}

/// Three joints moving smoothly (120 fps): a drift, a slow wave, a turn.
fn clip(frames: usize) -> kineform::Clip {
    let at = |k: usize| (k / 3, (k % 3) as f32);
    let pos: Vec<Vec3> = (0..frames * 3)
        .map(|k| {
            let (f, j) = at(k);
            let t = f as f32 / 120.0;
            Vec3::new(0.2 * t * (1.0 + j), (2.0 * t + j).sin(), 1.0)
        })
        .collect();
    let rot: Vec<Quat> = (0..frames * 3)
        .map(|k| {
            let (f, j) = at(k);
            let t = f as f32 / 120.0;
            r::quat_from_scaled_angle_axis(Vec3::new(0.5 * t, 0.2 * j, (t + j).cos()))
        })
        .collect();
    kineform::Clip::new(
        frames,
        3,
        1.0 / 120.0,
        pos,
        rot,
        vec![Vec3::ONE; frames * 3],
    )
    .unwrap()
}

#[test]
fn make_loop_refuses_a_one_frame_clip_with_a_typed_error() {
    for method in [
        LoopMethod::SpringStart { halflife: 0.2 },
        LoopMethod::SpringEnd { halflife: 0.2 },
        LoopMethod::LinearFade,
        LoopMethod::Cubic {
            blendtime_start: 0.2,
            blendtime_end: 0.2,
        },
    ] {
        let opts = LoopOptions {
            method,
            ratio: 0.5,
            root_in_character_space: false,
        };
        assert_eq!(
            make_loop(&clip(1), &opts).unwrap_err(),
            kineform::Error::Length {
                what: "clip frames (a loop needs at least 3)",
                expected: 3,
                got: 1
            }
        );
        assert!(make_loop(&clip(3), &opts).is_ok());
    }
    let bad = LoopOptions {
        method: LoopMethod::SpringEnd { halflife: -1.0 },
        ratio: 0.5,
        root_in_character_space: false,
    };
    assert!(matches!(
        make_loop(&clip(5), &bad),
        Err(kineform::Error::Parameter {
            name: "halflife",
            ..
        })
    ));
}

/// `make_loop` with the three repository-only methods equals the reference
/// composition (differences, offsets, application), and each closes the
/// seam the way it promises: positions meet for all three; for the spring
/// methods the seam velocity mismatch shrinks too.
#[test]
fn make_loop_with_the_repository_only_methods() {
    let c = clip(480);
    let (n, j, dt) = (c.frames(), c.joints(), c.frame_time());
    let (mut d, mut dv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    r::compute_start_end_positional_difference(&mut d, &mut dv, c.pos_slice(), dt).unwrap();
    let (mut dr, mut drv) = (vec![Vec3::ZERO; j], vec![Vec3::ZERO; j]);
    r::compute_start_end_rotational_difference(&mut dr, &mut drv, c.rot_slice(), dt).unwrap();
    let seam_vel = |p: &dyn Fn(usize, usize) -> Vec3, k: usize| {
        r::length((p(n - 1, k) - p(n - 2, k)) - (p(1, k) - p(0, k))) / dt
    };
    // (method, ratio given, the root's start share): the one-sided spring
    // methods ignore `ratio` and put the root's whole velocity correction
    // on their own side; the linear fade corrects no velocity, so the root
    // in character space is left as it is.
    for (method, ratio, root_share) in [
        (LoopMethod::SpringStart { halflife: 0.4 }, 0.5, Some(1.0)),
        (LoopMethod::SpringEnd { halflife: 0.4 }, 0.5, Some(0.0)),
        (LoopMethod::LinearFade, 0.3, None),
    ] {
        let opts = LoopOptions {
            method,
            ratio,
            root_in_character_space: false,
        };
        let looped = make_loop(&c, &opts).unwrap();
        let (mut op, mut or) = (vec![Vec3::ZERO; n * j], vec![Vec3::ZERO; n * j]);
        match method {
            LoopMethod::SpringStart { halflife } => {
                r::compute_inertialize_start_offsets(&mut op, &d, &dv, halflife, dt).unwrap();
                r::compute_inertialize_start_offsets(&mut or, &dr, &drv, halflife, dt).unwrap();
            }
            LoopMethod::SpringEnd { halflife } => {
                r::compute_inertialize_end_offsets(&mut op, &d, &dv, halflife, dt).unwrap();
                r::compute_inertialize_end_offsets(&mut or, &dr, &drv, halflife, dt).unwrap();
            }
            _ => {
                r::compute_linear_offsets(&mut op, &d, ratio).unwrap();
                r::compute_linear_offsets(&mut or, &dr, ratio).unwrap();
            }
        }
        let mut want_p = vec![Vec3::ZERO; n * j];
        r::apply_positional_offsets(&mut want_p, c.pos_slice(), &op).unwrap();
        let mut want_r = vec![Quat::IDENTITY; n * j];
        r::apply_rotational_offsets(&mut want_r, c.rot_slice(), &or).unwrap();
        for k in 0..n * j {
            check(
                looped.positions()[k],
                want_p[k],
                10.0,
                TRANSC,
                &format!("{method:?} position {k}"),
            )
            .unwrap();
            check(
                looped.rotations()[k],
                want_r[k],
                1.0,
                TRANSC,
                &format!("{method:?} rotation {k}"),
            )
            .unwrap();
        }
        for k in 0..j {
            // The spring leaves a residual at the far end (the article's
            // reason for the cubic method): here 4 s, 10 half-lives.
            let gap_before = r::length(c.pos(0, k).unwrap() - c.pos(n - 1, k).unwrap());
            let gap_after = r::length(looped.pos(0, k).unwrap() - looped.pos(n - 1, k).unwrap());
            let allowed = if matches!(method, LoopMethod::LinearFade) {
                1e-5
            } else {
                0.05
            };
            assert!(
                gap_after <= allowed * gap_before + 1e-5,
                "{method:?} joint {k}: seam gap {gap_before} -> {gap_after}"
            );
            if !matches!(method, LoopMethod::LinearFade) {
                let before = seam_vel(&|f, k| c.pos(f, k).unwrap(), k);
                let after = seam_vel(&|f, k| looped.pos(f, k).unwrap(), k);
                assert!(
                    after < 0.2 * before.max(1e-3),
                    "{method:?} joint {k}: seam velocity {before} -> {after}"
                );
            }
        }
        let rooted = make_loop(
            &c,
            &LoopOptions {
                root_in_character_space: true,
                ..opts
            },
        )
        .unwrap();
        let (rp0, rr0): (Vec<Vec3>, Vec<Quat>) = (0..n)
            .map(|f| (c.pos(f, 0).unwrap(), c.rot(f, 0).unwrap()))
            .unzip();
        let (mut rp, mut rr) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
        if let (
            Some(share),
            LoopMethod::SpringStart { halflife } | LoopMethod::SpringEnd { halflife },
        ) = (root_share, method)
        {
            let (ps, qs) = (
                Slice2d::new(&rp0, 1).unwrap(),
                Slice2d::new(&rr0, 1).unwrap(),
            );
            r::compute_root_inertialize_offsets(
                &mut rp, &mut rr, ps, qs, halflife, halflife, share, dt,
            )
            .unwrap();
        }
        for f in 0..n {
            let want_p = rp0[f] + rp[f];
            let want_r = r::quat_mul(r::quat_from_scaled_angle_axis(rr[f]), rr0[f]);
            check(
                rooted.pos(f, 0).unwrap(),
                want_p,
                10.0,
                TRANSC,
                &format!("{method:?} root position {f}"),
            )
            .unwrap();
            check(
                rooted.rot(f, 0).unwrap(),
                want_r,
                1.0,
                TRANSC,
                &format!("{method:?} root rotation {f}"),
            )
            .unwrap();
        }
    }
}
