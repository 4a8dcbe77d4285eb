//! The matrices an accepted read must give, bit for bit: the one-joint
//! accessors' of `world_kform`.

use core::ops::Range;

use kineform::lanes::{Quatx8, Vec3x8};
use kineform::reference::Kform;
use kineform::skinning::{self, SkinMatrix};

use super::bind::Bind;
use super::layouts::Floats;

/// The lanes' skinning matrix of one joint: `skin_lanes` of the pose
/// splat over the eight lanes, lane 0 (every lane's arithmetic).
fn skin_of(k: &Kform, bind: &[f32; 12]) -> [[f32; 8]; 12] {
    let (pos, rot) = (Vec3x8::splat(k.pos), Quatx8::splat(k.rot));
    skinning::skin_lanes(pos, rot, Vec3x8::ONE, bind).map(|v| v.to_array())
}

/// `k` at unit scale, as the readers show it (the module's promise).
fn unit(k: Kform) -> Kform {
    Kform {
        pos: k.pos,
        rot: k.rot,
        ..Kform::IDENTITY
    }
}

/// Expected bits, per crowd: transforms, skinning 4x4, skinning 3x4.
pub(super) struct Expected {
    pub(super) t16: Vec<u32>,
    pub(super) s16: Vec<u32>,
    pub(super) s12: Vec<u32>,
    /// Every world value of the range finite.
    pub(super) finite: bool,
    /// The largest position magnitude component.
    pub(super) reach: f32,
}

/// What the readers must write over `chars` of the crowd whose one-joint
/// accessor `world` is, through `bind`: `lanes`, the lanes crowd's
/// skinning arithmetic (`skin_lanes`), else the reference's
/// (`skin_matrix`). No skinning matrices where `bind` is of another joint
/// count than `nj` (the read is refused).
pub(super) fn expected(
    world: &dyn Fn(usize, usize) -> Kform,
    chars: Range<usize>,
    nj: usize,
    bind: &Bind,
    lanes: bool,
) -> Expected {
    let mut e = Expected {
        t16: Vec::new(),
        s16: Vec::new(),
        s12: Vec::new(),
        finite: true,
        reach: 0.0,
    };
    for c in chars {
        for j in 0..nj {
            let w = unit(world(c, j));
            e.finite &= w
                .pos
                .to_array()
                .iter()
                .chain(&w.rot.to_array())
                .all(|v| v.is_finite());
            e.reach = w.pos.to_array().iter().fold(e.reach, |m, v| m.max(v.abs()));
            skinning::kform_matrix(&w).push_bits(&mut e.t16);
            // Only where the bind has the crowd's joints (else refused).
            let Some(rows) = bind.rows.get(j).filter(|_| bind.rows.len() == nj) else {
                continue;
            };
            let lanes_of = match lanes {
                true => skin_of(&w, rows),
                false => skinning::skin_matrix(&w, rows).map(|v| [v; 8]),
            };
            <[f32; 16]>::from_lanes(&lanes_of, 0).push_bits(&mut e.s16);
            <[f32; 12]>::from_lanes(&lanes_of, 0).push_bits(&mut e.s12);
        }
    }
    e
}
