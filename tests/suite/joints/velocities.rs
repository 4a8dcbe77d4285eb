//! The velocities `Motion` FK propagates against central differences of
//! FK positions and rotations.

use super::*;

/// The worst gap, over every joint and lane, between the velocities of
/// `global` (Motion FK of `local`, lanes) and the central differences of
/// PosRot FK of `local` advanced along its own velocities by `±h`, as a
/// fraction of what the finite difference itself may be off by
/// (`fd_allowance`): above 1 is a wrong velocity. Also returns the worst
/// gap relative to `1 + |fd|`, for the convergence check.
fn motion_fd_gap(
    local: &[Vec<Motion>],
    global: &[Motionx8],
    parents: &[i32],
    h: f32,
) -> (f32, f32) {
    let fk_at = |l: &[Motion], t: f32| {
        let moved: Vec<PosRot> = l
            .iter()
            .map(|m| PosRot {
                pos: m.pos + m.vel * t,
                rot: r::quat_integrate_angular_velocity(m.ang, m.rot, t),
            })
            .collect();
        let mut g = vec![PosRot::IDENTITY; l.len()];
        r::op_fk_joints(&mut g, &moved, parents).unwrap();
        g
    };
    let (mut worst, mut worst_rel) = (0.0f32, 0.0f32);
    // NaN propagates as a failure: max ignores it, so check.
    let keep = |w: f32, g: f32| {
        if g.is_nan() || w.is_nan() {
            f32::NAN
        } else {
            w.max(g)
        }
    };
    for (c, l) in local.iter().enumerate() {
        let (next, prev) = (fk_at(l, h), fk_at(l, -h));
        let allowance = fd_allowance(l, parents, h);
        for j in 0..l.len() {
            let got = global[j].lane(c);
            let vel = (next[j].pos - prev[j].pos) / (2.0 * h);
            let d = r::quat_abs(r::quat_mul_inv(next[j].rot, prev[j].rot));
            let ang = r::quat_to_scaled_angle_axis(d) / (2.0 * h);
            for (a, b, allowed) in [
                (got.vel, vel, allowance[j].0),
                (got.ang, ang, allowance[j].1),
            ] {
                let gap = r::length(a - b);
                worst = keep(worst, gap / (allowed + 1e-4 * (1.0 + r::length(b))));
                worst_rel = keep(worst_rel, gap / (1.0 + r::length(b)));
            }
        }
    }
    (worst, worst_rel)
}

/// How far the central differences of `motion_fd_gap` may be from the
/// true velocities of joint `j` (position, rotation), step `h`, in
/// absolute units: the truncation error plus f32 rounding.
///
/// Each joint's local rotation turns at its constant angular velocity, so
/// the rotation `Q` of a joint's parent in world space has n-th
/// derivatives of norm at most `Ωⁿ`, `Ω` the sum of `|ang|` over the
/// parent's chain. A world position is `Σ_k Q_parent(k)(t) (pos_k + vel_k
/// t)` over its chain, whose third derivative is at most `T = Σ_k (Ω_k³
/// (|pos_k| + h |vel_k|) + 3 Ω_k² |vel_k|)` within `h` of 0; the central
/// difference is off by at most `h² T / 6` (Taylor's remainder). The
/// rotation's central difference `log(Q(h) Q(-h)⁻¹) / 2h` is off by a
/// third-order term of at most `h² Ω³` (`Ω` over the joint's own chain,
/// `h Ω <= 0.25` at the finest step). Rounding: the world values carry a
/// few ULP per joint of the chain (`d` deep), of magnitude `1 + R` (`R`
/// the chain's reach) for positions and 1 for quaternions, divided by
/// `2h`: `8 d ε (1 + R) / h`. A chain of 14 joints turning at 2 rad/s
/// each is allowed a gap of 100 units/s and more at h = 0.005 (the case
/// that failed the earlier absolute bound of 2e-3 had a gap of 0.034);
/// a still chain is held to rounding.
fn fd_allowance(l: &[Motion], parents: &[i32], h: f32) -> Vec<(f32, f32)> {
    let n = l.len();
    let (mut omega, mut third, mut reach, mut depth) =
        (vec![0f32; n], vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    let mut out = Vec::with_capacity(n);
    for j in 0..n {
        let (po, pt, pr, pd) = match usize::try_from(parents[j]) {
            Ok(p) => (omega[p], third[p], reach[p], depth[p]),
            Err(_) => (0.0, 0.0, 0.0, 0.0),
        };
        let (pos, vel) = (r::length(l[j].pos), r::length(l[j].vel));
        omega[j] = po + r::length(l[j].ang);
        third[j] = pt + po * po * (po * (pos + h * vel) + 3.0 * vel);
        reach[j] = pr + pos + h * vel;
        depth[j] = pd + 1.0;
        let round = 8.0 * depth[j] * f32::EPSILON / h;
        out.push((
            h * h * third[j] / 6.0 + round * (1.0 + reach[j]),
            h * h * omega[j].powi(3) + round,
        ));
    }
    out
}

fn moving_motion() -> impl Strategy<Value = Motion> {
    (vec3_in(3.0), unit_quat(), vec3_in(3.0), vec3_in(2.0))
        .prop_map(|(pos, rot, vel, ang)| Motion { pos, rot, vel, ang })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Motion FK's velocities are the time derivatives of its positions
    /// and rotations: at the finest step every central difference is
    /// within what its truncation and rounding allow (`fd_allowance`,
    /// scaled by the chain's motion), and it approaches them as O(h²), so
    /// quartering the step cuts the gap by about 16 (at least 4 asked),
    /// unless it is already at the floor of f32 rounding.
    #[test]
    fn motion_fk_velocities_match_finite_differences(parents in parents(16), local in arr8(proptest::collection::vec(moving_motion(), 16))) {
        let n = parents.len();
        let local: Vec<Vec<Motion>> = local.iter().map(|l| l[..n].to_vec()).collect();
        let pack: Vec<Motionx8> = (0..n).map(|j| Motionx8::from_array(core::array::from_fn(|c| local[c][j]))).collect();
        let skel = Skeleton::new(parents.clone()).unwrap();
        let mut global = vec![Motionx8::IDENTITY; n];
        lanes::fk_packs(&mut global, &pack, skel.chains(), Motionx8::FK).unwrap();
        let [coarse, _, fine] = [0.02f32, 0.01, 0.005].map(|h| motion_fd_gap(&local, &global, &parents, h));
        prop_assert!(fine.0 <= 1.0, "gap {}x its allowance at the finest step (relative gaps {}, {})", fine.0, coarse.1, fine.1);
        prop_assert!(fine.1 <= coarse.1 / 4.0 || coarse.1 <= 2e-4, "gap does not shrink: {} at 0.02, {} at 0.005", coarse.1, fine.1);
    }
}
