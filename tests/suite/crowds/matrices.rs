//! The crowd's matrix readers against its one-joint accessor: world
//! transforms and skinning matrices of a range, bit for bit, in every
//! layout the crowd writes (shared by `readout.rs` and `lod/readers.rs`),
//! and the crowds with periods mixed that `lod/readers.rs` and
//! `evaluated.rs` read.

use kineform::crowd::{Crowd, CrowdConfig, ReferenceCrowd, Source};
use kineform::lanes::{Quatx8, Vec3x8};
use kineform::reference::{Kform, Quat, Vec3};
use kineform::skinning::{InverseBind, SkinMatrix};

/// A 4x4 matrix type of the caller's own, which no fast path knows (its
/// transforms take the portable path, its skinning matrices `from_lanes`).
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct MineMatrix([f32; 16]);
impl From<Kform> for MineMatrix {
    fn from(k: Kform) -> MineMatrix {
        MineMatrix(kineform::skinning::kform_matrix(&k))
    }
}
impl SkinMatrix for MineMatrix {
    fn from_lanes(m: &[[f32; 8]; 12], lane: usize) -> MineMatrix {
        MineMatrix(<[f32; 16]>::from_lanes(m, lane))
    }
}

/// A bind pose of `joints` joints, each somewhere else, turned and scaled,
/// so that every entry of an inverse bind matrix takes part.
pub fn some_bind(skeleton: &kineform::Skeleton) -> InverseBind {
    let joints = skeleton.len();
    let local: Vec<Kform> = (0..joints)
        .map(|j| {
            let a = 0.3 + j as f32 * 0.17;
            Kform {
                pos: Vec3::new(a, 1.0 - a, 0.5 * a),
                rot: kineform::reference::quat_normalize(Quat::new(1.0, a, -0.5 * a, 0.25)),
                scl: Vec3::new(1.0 + 0.1 * a, 1.0, 0.9),
                ..Kform::IDENTITY
            }
        })
        .collect();
    InverseBind::from_bind_pose(skeleton, &local).unwrap()
}

/// The lanes' skinning matrix of one joint: [`kineform::skinning::skin_lanes`]
/// of the pose splat over the eight lanes, lane 0 (lanes are computed
/// independently, so this is every lane's arithmetic).
fn skin_of(k: &Kform, bind: &[f32; 12]) -> [[f32; 8]; 12] {
    let (pos, rot) = (Vec3x8::splat(k.pos), Quatx8::splat(k.rot));
    kineform::skinning::skin_lanes(pos, rot, Vec3x8::ONE, bind).map(|v| v.to_array())
}

/// `transforms_into` and `skinning_matrices_into` of `range` against
/// `world_kform`, bit for bit: transforms as `kform_matrix` of the unit-
/// scale pose, skinning matrices as `skin_lanes` of it, into `[f32; 16]`,
/// `[f32; 12]` (transposed in registers) and a type of the caller's own
/// (the portable path and `from_lanes`); slices start filled with a
/// sentinel, so an element left unwritten shows too.
pub fn check_matrices(crowd: &Crowd, range: core::ops::Range<usize>, bind: &InverseBind) {
    let j = crowd.skeleton().len();
    let m = range.len() * j;
    let (mut t16, mut tm) = (vec![[7.0f32; 16]; m], vec![MineMatrix([7.0; 16]); m]);
    let (mut s16, mut s12, mut sm) = (
        vec![[7.0f32; 16]; m],
        vec![[7.0f32; 12]; m],
        vec![MineMatrix([7.0; 16]); m],
    );
    crowd.transforms_into(range.clone(), &mut t16).unwrap();
    crowd.transforms_into(range.clone(), &mut tm).unwrap();
    crowd
        .skinning_matrices_into(range.clone(), bind, &mut s16)
        .unwrap();
    crowd
        .skinning_matrices_into(range.clone(), bind, &mut s12)
        .unwrap();
    crowd
        .skinning_matrices_into(range.clone(), bind, &mut sm)
        .unwrap();
    let b = |m: &[f32]| m.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    // glam's `Mat4` takes the transposes too: the same floats as `[f32; 16]`.
    #[cfg(feature = "glam033")]
    {
        let (mut tg, mut sg) = (vec![glam033::Mat4::NAN; m], vec![glam033::Mat4::NAN; m]);
        crowd.transforms_into(range.clone(), &mut tg).unwrap();
        crowd
            .skinning_matrices_into(range.clone(), bind, &mut sg)
            .unwrap();
        for i in 0..m {
            assert_eq!(
                b(&tg[i].to_cols_array()),
                b(&t16[i]),
                "glam transforms, {range:?} {i}"
            );
            assert_eq!(
                b(&sg[i].to_cols_array()),
                b(&s16[i]),
                "glam skinning, {range:?} {i}"
            );
        }
    }
    for (k, c) in range.clone().enumerate() {
        for jj in 0..j {
            let w = crowd.world_kform(c, jj).unwrap();
            let i = k * j + jj;
            let at = format!("range {range:?}, character {c}, joint {jj}");
            let unit = Kform {
                pos: w.pos,
                rot: w.rot,
                ..Kform::IDENTITY
            };
            let t = kineform::skinning::kform_matrix(&unit);
            assert_eq!(b(&t16[i]), b(&t), "transforms, {at}");
            assert_eq!(b(&tm[i].0), b(&t), "transforms, portable path, {at}");
            let lanes = skin_of(&w, &bind.as_rows()[jj]);
            let (w16, w12) = (
                <[f32; 16]>::from_lanes(&lanes, 0),
                <[f32; 12]>::from_lanes(&lanes, 0),
            );
            assert_eq!(b(&s16[i]), b(&w16), "skinning 4x4, {at}");
            assert_eq!(b(&s12[i]), b(&w12), "skinning 3x4, {at}");
            assert_eq!(b(&sm[i].0), b(&w16), "skinning, from_lanes, {at}");
        }
    }
}

/// Both crowds of `cfg` (level of detail on) with the embedded clip,
/// character `c` playing it from `0.07 c` s at period 1, 2, 4 or 8 (`c %
/// 4`), phase `c % period`: periods mixed within packs.
pub fn periods_mixed(cfg: CrowdConfig) -> (Crowd, ReferenceCrowd) {
    let library = super::embedded();
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    for c in 0..lanes.characters() {
        let period = [1, 2, 4, 8][c % 4];
        let a = Source::looping(0, 0.07 * c as f32);
        lanes.play(c, a, a).unwrap();
        reference.play(c, a, a).unwrap();
        lanes.set_period(c, period, c as u32 % period).unwrap();
        reference.set_period(c, period, c as u32 % period).unwrap();
    }
    (lanes, reference)
}

/// Step `f` of [`periods_mixed`]'s crowds: on every 7th step from the
/// 3rd, character `5 f` (mod the crowd) transitions (evaluated whatever
/// its period), then both step at 60 Hz.
pub fn step_mixed(lanes: &mut Crowd, reference: &mut ReferenceCrowd, f: usize) {
    if f % 7 == 3 {
        let c = (f * 5) % lanes.characters();
        let b = Source::looping(0, 0.4 + 0.01 * f as f32);
        lanes.transition(c, b, b, 0.2, 0.1).unwrap();
        reference.transition(c, b, b, 0.2, 0.1).unwrap();
    }
    lanes.step(1.0 / 60.0).unwrap();
    reference.step(1.0 / 60.0).unwrap();
}
