//! Joints that hold only what a caller uses (`PosRot`, `PosRotScl`,
//! `Motion`, and `Kform` itself), in both paths:
//!
//! - the reference's `mul`, `div` and `inv` of each type are the article's
//!   `kform_mul`, `kform_div` and `kform_inv` on the fields it holds, to the
//!   bit (compared with `==`, so NaN fails and only the sign of a zero may
//!   differ), and so are `op_fk_joints` / `op_bk_joints` against `op_fk` /
//!   `op_bk` on whole poses;
//! - the lanes against the reference, each lane a different character;
//! - forward kinematics over packs (`lanes::fk_packs`) gives the same bits
//!   in every mode (parents in registers or read back, one pack or two
//!   interleaved) as the plain per-joint loop, and matches the reference;
//! - the batch entry points over `PoseStream`s: partial packs, 1, 2 and 3
//!   threads to the bit, refusals that write nothing, sizes refused before
//!   anything is allocated;
//! - the velocities `Motion` FK propagates against central differences of
//!   FK positions and rotations at three step sizes, the gap shrinking.
//!
//! Tolerances (|a - b| <= abs + rel * scale, as in `tests/suite/equivalence.rs`):
//! `ARITH` (rel 2e-6) for one `mul`, `div` or `inv`: the lanes fuse
//! multiply-adds and sum the parent's terms last, a few ULP of the largest
//! intermediate (floors from `kform_mul_floors`, or eight times the inputs'
//! magnitude for the division); `CHAIN` (1e-5 + 2e-5 of the pose's largest
//! magnitude) for FK and BK down hierarchies of up to 40 joints, where
//! those differences accumulate.

#![allow(clippy::needless_range_loop)] // tests index several parallel arrays

use crate::common;
use common::*;

use kineform::lanes::{self, FkMode, Jointx8, Kformx8, Motionx8, PosRotSclx8, PosRotx8, Walk};
use kineform::pose_stream::PoseStream;
use kineform::reference::{self as r, Joint, Kform, Motion, PosRot, PosRotScl, Pose};
use kineform::{Error, Skeleton, batch};
use proptest::prelude::*;

const ARITH: Tol = Tol::new(0.0, 2e-6);
const CHAIN: Tol = Tol::new(1e-5, 2e-5);

const MODES: [FkMode; 4] = [
    FkMode {
        walk: Walk::Registers,
        pairs: false,
    },
    FkMode {
        walk: Walk::Registers,
        pairs: true,
    },
    FkMode {
        walk: Walk::Memory,
        pairs: false,
    },
    FkMode {
        walk: Walk::Memory,
        pairs: true,
    },
];

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

/// `got == want` field by field with `==`: NaN fails, `-0 == 0` passes.
fn same<J: Joint>(got: J, want: J, what: &str) -> Result<(), TestCaseError> {
    let (g, w) = (got.to_kform().parts(), want.to_kform().parts());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        prop_assert!(
            a == b,
            "{what}: component {i}: {a:e} vs {b:e}\n {got:?}\n {want:?}"
        );
    }
    Ok(())
}

/// The float bits of every lane value, for bit-for-bit comparisons.
fn bits<T: Jointx8>(v: &[T]) -> Vec<u32> {
    v.iter()
        .flat_map(|t| t.to_array())
        .flat_map(|e| e.to_kform().parts())
        .map(f32::to_bits)
        .collect()
}

fn reference_is_restricted_kform<J: Joint>(v: Kform, w: Kform) -> Result<(), TestCaseError> {
    let (v, w) = (J::from_kform(v), J::from_kform(w));
    let (kv, kw) = (v.to_kform(), w.to_kform());
    same(J::mul(v, w), J::from_kform(r::kform_mul(kv, kw)), "mul")?;
    same(J::div(v, w), J::from_kform(r::kform_div(kv, kw)), "div")?;
    same(J::inv(v), J::from_kform(r::kform_inv(kv)), "inv")
}

fn lanes_match_reference<T: Jointx8>(a: [Kform; 8], b: [Kform; 8]) -> Result<(), TestCaseError> {
    let (ea, eb) = (a.map(T::Elem::from_kform), b.map(T::Elem::from_kform));
    let (x, y) = (T::from_array(ea), T::from_array(eb));
    let (mul, div, inv) = (
        T::mul(&x, &y).to_array(),
        T::div(&x, &y).to_array(),
        T::inv(&x).to_array(),
    );
    for i in 0..8 {
        let (ka, kb) = (ea[i].to_kform(), eb[i].to_kform());
        let s = 8.0 * mag(ka).max(mag(kb));
        let want = T::Elem::mul(ea[i], eb[i]).to_kform();
        let floors = kform_mul_floors(ka, kb);
        check_floors(
            mul[i].to_kform(),
            want,
            &floors,
            ARITH,
            &format!("mul lane {i}"),
        )?;
        let want = T::Elem::div(ea[i], eb[i]).to_kform();
        check(div[i].to_kform(), want, s, ARITH, &format!("div lane {i}"))?;
        let want = T::Elem::inv(ea[i]).to_kform();
        check(inv[i].to_kform(), want, s, ARITH, &format!("inv lane {i}"))?;
    }
    Ok(())
}

/// Packs of eight characters (joint-major within each pack) from one
/// kineform list per character; the last pack padded with identities.
fn packs<T: Jointx8>(chars: &[Vec<Kform>], joints: usize) -> Vec<T> {
    let n = chars.len().div_ceil(8);
    (0..n * joints)
        .map(|k| {
            let (p, j) = (k / joints, k % joints);
            T::from_array(core::array::from_fn(|i| {
                chars
                    .get(p * 8 + i)
                    .map_or(T::Elem::IDENTITY, |c| T::Elem::from_kform(c[j]))
            }))
        })
        .collect()
}

/// FK of three packs (the first two interleaved in the `pairs` modes, the
/// third alone) in every mode, to the bit of the plain per-joint loop and
/// within `CHAIN` of the reference per character; the reference per
/// character to the bit of the article's `op_fk`; BK of the lanes' global
/// pose against the reference's BK.
fn fk_bk<T: Jointx8>(parents: &[i32], chars: &[Vec<Kform>]) -> Result<(), TestCaseError> {
    let n = parents.len();
    let skel = Skeleton::new(parents.to_vec()).unwrap();
    let local: Vec<T> = packs(chars, n);
    let mut plain = vec![T::IDENTITY; local.len()];
    for (g, l) in plain.chunks_mut(n).zip(local.chunks(n)) {
        lanes::op_fk_joints(g, l, parents);
    }
    for mode in MODES {
        let mut g = vec![T::IDENTITY; local.len()];
        lanes::fk_packs(&mut g, &local, skel.chains(), mode);
        prop_assert!(
            bits(&g) == bits(&plain),
            "{mode:?} differs from op_fk_joints"
        );
    }
    let mut back = vec![T::IDENTITY; local.len()];
    for (b, g) in back.chunks_mut(n).zip(plain.chunks(n)) {
        lanes::op_bk_joints(b, g, parents);
    }
    for (c, kf) in chars.iter().enumerate() {
        let loc: Vec<T::Elem> = kf[..n].iter().map(|&k| T::Elem::from_kform(k)).collect();
        let mut want = vec![T::Elem::IDENTITY; n];
        r::op_fk_joints(&mut want, &loc, parents).unwrap();
        let mut article = Pose::new(n);
        let loc_k: Vec<Kform> = loc.iter().map(|e| e.to_kform()).collect();
        r::op_fk(&mut article, &Pose::from_kforms(&loc_k), parents).unwrap();
        let mut want_back = vec![T::Elem::IDENTITY; n];
        r::op_bk_joints(&mut want_back, &want, parents).unwrap();
        let scale = want.iter().fold(0.0f32, |m, e| m.max(mag(e.to_kform())));
        for j in 0..n {
            let what = |w: &str| format!("{w} char {c} joint {j}");
            same(
                want[j],
                T::Elem::from_kform(article.get(j)),
                &what("op_fk_joints vs op_fk"),
            )?;
            let got = plain[(c / 8) * n + j].to_array()[c % 8];
            check(
                got.to_kform(),
                want[j].to_kform(),
                scale,
                CHAIN,
                &what("lanes fk"),
            )?;
            let got = back[(c / 8) * n + j].to_array()[c % 8];
            check(
                got.to_kform(),
                want_back[j].to_kform(),
                scale,
                CHAIN,
                &what("lanes bk"),
            )?;
        }
    }
    Ok(())
}

/// The batch entry points over a crowd of `chars.len()` characters: 1 and
/// 2 threads to the bit, every mode to the bit, the reference per
/// character, BK back to the local pose.
fn batch_fk<T: Jointx8>(parents: &[i32], chars: &[Vec<Kform>]) -> Result<(), TestCaseError> {
    let n = parents.len();
    let skel = Skeleton::new(parents.to_vec()).unwrap();
    let local =
        PoseStream::<T>::from_fn(chars.len(), n, |c, j| T::Elem::from_kform(chars[c][j])).unwrap();
    let run = |threads: usize, mode: FkMode| {
        let mut g = PoseStream::<T>::new(chars.len(), n).unwrap();
        pool(threads)
            .install(|| batch::fk::op_fk_with(&mut g, &local, &skel, mode))
            .unwrap();
        g
    };
    let mut g = PoseStream::<T>::new(chars.len(), n).unwrap();
    pool(1)
        .install(|| batch::fk::op_fk(&mut g, &local, &skel))
        .unwrap();
    for mode in MODES {
        for threads in [1, 2] {
            let other = run(threads, mode);
            prop_assert!(
                bits(other.lanes()) == bits(g.lanes()),
                "{mode:?} on {threads} threads"
            );
        }
    }
    let mut back = PoseStream::<T>::new(chars.len(), n).unwrap();
    batch::fk::op_bk(&mut back, &g, &skel).unwrap();
    for (c, kf) in chars.iter().enumerate() {
        let loc: Vec<T::Elem> = kf[..n].iter().map(|&k| T::Elem::from_kform(k)).collect();
        let mut want = vec![T::Elem::IDENTITY; n];
        r::op_fk_joints(&mut want, &loc, parents).unwrap();
        let scale = want.iter().fold(0.0f32, |m, e| m.max(mag(e.to_kform())));
        for j in 0..n {
            let got = g.get(c, j).unwrap().to_kform();
            check(
                got,
                want[j].to_kform(),
                scale,
                CHAIN,
                &format!("batch fk char {c} joint {j}"),
            )?;
            let got = back.get(c, j).unwrap().to_kform();
            check(
                got,
                loc[j].to_kform(),
                scale,
                CHAIN,
                &format!("batch bk char {c} joint {j}"),
            )?;
        }
    }
    prop_assert!(g.get(chars.len(), 0).is_none() && g.get(0, n).is_none());
    Ok(())
}

fn chars_strategy(joints: usize, max_chars: usize) -> impl Strategy<Value = Vec<Vec<Kform>>> {
    proptest::collection::vec(proptest::collection::vec(kform(5.0), joints), 1..max_chars)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn reference_joints_are_restricted_kforms(v in kform(5.0), w in kform(5.0)) {
        reference_is_restricted_kform::<PosRot>(v, w)?;
        reference_is_restricted_kform::<PosRotScl>(v, w)?;
        reference_is_restricted_kform::<Motion>(v, w)?;
        reference_is_restricted_kform::<Kform>(v, w)?;
    }

    #[test]
    fn lane_joints_match_reference(a in arr8(kform(5.0)), b in arr8(kform(5.0))) {
        lanes_match_reference::<PosRotx8>(a, b)?;
        lanes_match_reference::<PosRotSclx8>(a, b)?;
        lanes_match_reference::<Motionx8>(a, b)?;
        lanes_match_reference::<Kformx8>(a, b)?;
    }

    #[test]
    fn fk_packs_every_mode(parents in parents(40), chars in proptest::collection::vec(proptest::collection::vec(kform(5.0), 40), 17..=24)) {
        fk_bk::<PosRotx8>(&parents, &chars)?;
        fk_bk::<PosRotSclx8>(&parents, &chars)?;
        fk_bk::<Motionx8>(&parents, &chars)?;
        fk_bk::<Kformx8>(&parents, &chars)?;
    }

    #[test]
    fn batch_fk_bk(parents in parents(20), chars in chars_strategy(20, 40)) {
        batch_fk::<PosRotx8>(&parents, &chars)?;
        batch_fk::<PosRotSclx8>(&parents, &chars)?;
        batch_fk::<Motionx8>(&parents, &chars)?;
        batch_fk::<Kformx8>(&parents, &chars)?;
    }
}

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
        lanes::fk_packs(&mut global, &pack, skel.chains(), Motionx8::FK);
        let [coarse, _, fine] = [0.02f32, 0.01, 0.005].map(|h| motion_fd_gap(&local, &global, &parents, h));
        prop_assert!(fine.0 <= 1.0, "gap {}x its allowance at the finest step (relative gaps {}, {})", fine.0, coarse.1, fine.1);
        prop_assert!(fine.1 <= coarse.1 / 4.0 || coarse.1 <= 2e-4, "gap does not shrink: {} at 0.02, {} at 0.005", coarse.1, fine.1);
    }
}

/// Enough packs that rayon splits the work: 1, 2 and 3 threads give the
/// same bits for FK and BK of every type (a partial last pack included).
#[test]
fn threads_do_not_change_bits() {
    let parents: Vec<i32> = (0..31)
        .map(|i| if i % 7 == 0 { i / 2 - 1 } else { i - 1 })
        .collect();
    let skel = Skeleton::new(parents).unwrap();
    let kf = |c: usize, j: usize| {
        let f = (c * 31 + j) as f32;
        Kform {
            pos: r::Vec3::new(f.sin(), f.cos(), 0.5),
            rot: r::quat_from_scaled_angle_axis(r::Vec3::new(0.01 * f.sin(), 0.3, f.cos())),
            scl: r::Vec3::new(1.0 + 0.1 * f.cos(), 1.0, 0.9),
            vel: r::Vec3::new(f.cos(), 0.0, 1.0),
            ang: r::Vec3::new(0.1, f.sin(), 0.0),
            svl: r::Vec3::new(0.0, 0.1 * f.sin(), 0.0),
        }
    };
    fn case<T: Jointx8>(skel: &Skeleton, kf: impl Fn(usize, usize) -> Kform) {
        let chars = 4001;
        let local =
            PoseStream::<T>::from_fn(chars, 31, |c, j| T::Elem::from_kform(kf(c, j))).unwrap();
        let run = |threads: usize| {
            let mut g = PoseStream::<T>::new(chars, 31).unwrap();
            let mut b = PoseStream::<T>::new(chars, 31).unwrap();
            pool(threads).install(|| {
                batch::fk::op_fk(&mut g, &local, skel).unwrap();
                batch::fk::op_bk(&mut b, &g, skel).unwrap();
            });
            (bits(g.lanes()), bits(b.lanes()))
        };
        let one = run(1);
        for t in [2, 3] {
            let other = run(t);
            assert!(
                one.0 == other.0,
                "{} fk differs at {t} threads",
                core::any::type_name::<T>()
            );
            assert!(
                one.1 == other.1,
                "{} bk differs at {t} threads",
                core::any::type_name::<T>()
            );
        }
    }
    case::<PosRotx8>(&skel, kf);
    case::<PosRotSclx8>(&skel, kf);
    case::<Motionx8>(&skel, kf);
    case::<Kformx8>(&skel, kf);
}

/// The walk by working set (`batch::fk::walk_for_above`): two packs side
/// by side up to `above` bytes of local and global pose, one pack beyond,
/// at the boundary of each type's own size, for the default threshold and
/// the AVX-512 Zen's (2 MiB); the threshold by caches and threads
/// (`stream_above_for`: twice a big L2 per thread, at most the L3; the L3
/// with a smaller L2); `walk_for` is it with this machine's
/// threshold on the current pool (`stream_above_bytes`, from its caches and
/// the pool's threads, checked on pools of 1 and 2); and `op_fk` over a
/// crowd just past the default boundary gives the bits of both walks, on
/// one and two threads (which walk `op_fk` took does not show in its
/// output: that is the point). Mutations caught: the working set counted
/// without the type's size (every type switching where `Kformx8` does),
/// and counted one way only (local, not local and global); the thread
/// count ignored (`stream_above_bytes` asking `stream_above_for` for one
/// thread: the 2-thread pool's check fails here).
#[test]
fn the_walk_follows_the_working_set() {
    use batch::caches::Caches;
    use batch::fk::{
        STREAM_ABOVE_BYTES, stream_above_bytes, stream_above_for, walk_for, walk_for_above,
    };
    // The threshold follows the pool it is asked on: twice a big L2 per
    // thread of the pool, at most the shared cache.
    let here = Caches::of_this_machine();
    for threads in [1, 2] {
        let above = pool(threads).install(stream_above_bytes);
        assert_eq!(above, stream_above_for(here, threads), "{threads} threads");
    }
    let big_l2 = Caches::new(Some(1 << 20), Some(32 << 20));
    assert_eq!(stream_above_for(big_l2, 1), 2 << 20);
    assert_eq!(stream_above_for(big_l2, 2), 4 << 20);
    assert_eq!(stream_above_for(big_l2, 3), 6 << 20);
    for threads in [16, 17, usize::MAX] {
        assert_eq!(stream_above_for(big_l2, threads), 32 << 20, "{threads}");
    }
    assert_eq!(
        stream_above_for(Caches::new(Some(1 << 20), None), 2),
        4 << 20
    );
    assert_eq!(
        stream_above_for(Caches::new(Some(1 << 20), None), 64),
        STREAM_ABOVE_BYTES
    );
    let zen3 = Caches::new(Some(512 << 10), Some(32 << 20));
    assert_eq!(stream_above_for(zen3, 1), 32 << 20);
    assert_eq!(stream_above_for(zen3, 2), 32 << 20);
    fn case<T: Jointx8>(skel: &Skeleton) {
        let name = core::any::type_name::<T>();
        assert_ne!(T::FK, T::FK_STREAM, "{name}: two walks to choose between");
        let joints = skel.len();
        for above in [STREAM_ABOVE_BYTES, 2 << 20] {
            // The largest crowd of whole packs whose two poses fit.
            let fits = above / (2 * size_of::<T>() * joints) * 8;
            let walk = |n| walk_for_above::<T>(n, joints, above);
            assert_eq!(walk(fits), T::FK, "{name} at {fits}, {above}");
            assert_eq!(
                walk(fits + 1),
                T::FK_STREAM,
                "{name} at {fits} + 1, {above}"
            );
            assert_eq!(walk(0), T::FK);
            assert_eq!(walk(usize::MAX), T::FK_STREAM);
        }
        for n in [0, 64, 1024, 8192, 40_000] {
            for threads in [1, 2] {
                pool(threads).install(|| {
                    let above = stream_above_for(Caches::of_this_machine(), threads);
                    let want = walk_for_above::<T>(n, joints, above);
                    assert_eq!(walk_for::<T>(n, joints), want, "{name} {n}, {threads}");
                });
            }
        }
        let fits = STREAM_ABOVE_BYTES / (2 * size_of::<T>() * joints) * 8;
        // Past the boundary: op_fk walks one pack, with the pairs' bits.
        let chars = fits + 3;
        let local = PoseStream::<T>::from_fn(chars, joints, |c, j| {
            let f = (c * joints + j) as f32 * 0.37;
            T::Elem::from_kform(Kform {
                pos: r::Vec3::new(f.sin(), 0.5, f.cos()),
                rot: r::quat_from_scaled_angle_axis(r::Vec3::new(0.3 * f.cos(), 0.2, f.sin())),
                scl: r::Vec3::new(1.0, 1.0 + 0.1 * f.sin(), 0.9),
                vel: r::Vec3::new(f.cos(), 0.0, 1.0),
                ang: r::Vec3::new(0.1, f.sin(), 0.0),
                svl: r::Vec3::new(0.0, 0.1, 0.0),
            })
        })
        .unwrap();
        let mut by_size = PoseStream::<T>::new(chars, joints).unwrap();
        batch::fk::op_fk(&mut by_size, &local, skel).unwrap();
        for (threads, mode) in [(1, T::FK), (2, T::FK), (1, T::FK_STREAM), (2, T::FK_STREAM)] {
            let mut g = PoseStream::<T>::new(chars, joints).unwrap();
            pool(threads)
                .install(|| batch::fk::op_fk_with(&mut g, &local, skel, mode))
                .unwrap();
            let raw = |s: &PoseStream<T>| bytemuck::cast_slice::<T, u32>(s.lanes()).to_vec();
            assert!(
                raw(&g) == raw(&by_size),
                "{name}: {mode:?}, {threads} threads"
            );
        }
    }
    let skel = kineform::data::default_clip().skeleton;
    case::<PosRotx8>(&skel);
    case::<PosRotSclx8>(&skel);
    case::<Motionx8>(&skel);
    case::<Kformx8>(&skel);
}

/// Refused calls return the error that names the mismatch and write
/// nothing; sizes that cannot exist are refused before allocating.
#[test]
fn refusals_write_nothing() {
    fn case<T: Jointx8>() {
        let skel = Skeleton::new(vec![-1, 0, 1]).unwrap();
        let local = PoseStream::<T>::from_fn(9, 3, |c, j| {
            T::Elem::from_kform(Kform {
                pos: r::Vec3::new(c as f32, j as f32, 1.0),
                ..Kform::IDENTITY
            })
        })
        .unwrap();
        let mut g = local.clone();
        let before = bits(g.lanes());
        let e = batch::fk::op_fk(&mut g, &PoseStream::new(9, 4).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "local: expected length 3, got 4");
        let e = batch::fk::op_fk(&mut g, &PoseStream::new(8, 3).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "local: expected length 9, got 8");
        let wrong = Skeleton::new(vec![-1, 0]).unwrap();
        let e = batch::fk::op_fk(&mut g, &local, &wrong).unwrap_err();
        assert_eq!(e.to_string(), "skeleton joints: expected length 2, got 3");
        let e = batch::fk::op_bk(&mut g, &PoseStream::new(9, 2).unwrap(), &skel).unwrap_err();
        assert_eq!(e.to_string(), "global: expected length 3, got 2");
        let e = batch::fk::op_bk(&mut g, &local, &wrong).unwrap_err();
        assert_eq!(e.to_string(), "skeleton joints: expected length 2, got 3");
        assert!(bits(g.lanes()) == before, "a refused call wrote");

        for (c, j) in [(usize::MAX, 2), (8, usize::MAX), (usize::MAX / 64, 1 << 20)] {
            let e = PoseStream::<T>::new(c, j).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::Size {
                        what: "pose stream",
                        ..
                    }
                ),
                "{e}"
            );
            let e = PoseStream::<T>::from_fn(c, j, |_, _| panic!("called")).unwrap_err();
            assert!(matches!(e, Error::Size { .. }), "{e}");
        }
        // More than the machine has: the reservation fails, nothing panics.
        let e = PoseStream::<T>::new(1 << 40, 64).unwrap_err();
        assert!(e.to_string().contains("could not be reserved"), "{e}");
        assert!(PoseStream::<T>::new(0, 5).unwrap().lanes().is_empty());
    }
    case::<PosRotx8>();
    case::<PosRotSclx8>();
    case::<Motionx8>();
    case::<Kformx8>();
}
