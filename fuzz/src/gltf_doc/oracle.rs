//! The oracle: glTF's node matrices multiplied (`gltf_build::worlds`, in
//! f64) against kineform's forward kinematics, where the document stays
//! within `kineform::limits::reach`.

use kineform::gltf;
use kineform::reference::{Kform, Pose, op_fk};
use serde_json::Value;

use super::super::gltf_build::{Override, origin, worlds};

/// Whether the document's rest pose and every frame of its clips stay
/// within `kineform::limits::reach` (the domain in which forward
/// kinematics is finite: a `ClipLibrary` refuses clips past it; `parse`
/// hands them over, and 38 joints each scaled by 10 put a world position
/// at 1.7e39, past f32, so that kineform's FK gives NaN where glTF's f64
/// matrices give a number; found by the smoke test at 14,000 seeds).
pub(super) fn within_reach(d: &gltf::Document) -> bool {
    let n = d.skeleton.len();
    let mut length = vec![0.0f64; n];
    let mut scale = vec![1.0f64; n];
    let mut see = |j: usize, p: kineform::reference::Vec3, s: kineform::reference::Vec3| {
        let l = ((p.x as f64).powi(2) + (p.y as f64).powi(2) + (p.z as f64).powi(2)).sqrt();
        length[j] = length[j].max(l);
        scale[j] = scale[j].max(s.x.abs().max(s.y.abs()).max(s.z.abs()) as f64);
    };
    for (j, k) in d.rest.iter().enumerate() {
        see(j, k.pos, k.scl);
    }
    for c in &d.clips {
        for f in 0..c.clip.frames() {
            for j in 0..c.clip.joints() {
                see(j, c.clip.pos(f, j).unwrap(), c.clip.scl(f, j).unwrap());
            }
        }
    }
    kineform::limits::reach(d.skeleton.parents(), &length, &scale).is_none()
}

/// Every joint's world position by kineform's FK (rest, or frame `f` of
/// clip `c` for `at = (c, f, values)`) against glTF's matrices with the
/// same values (`values[node]`: the node's animated values at that frame).
pub(super) fn compare(doc: &Value, d: &gltf::Document, at: Option<(usize, usize, &[Override])>) {
    let local: Vec<Kform> = match at {
        None => d.rest.clone(),
        Some((c, f, _)) => {
            let k = &d.clips[c].clip;
            (0..k.joints())
                .map(|j| Kform {
                    pos: k.pos(f, j).unwrap(),
                    rot: k.rot(f, j).unwrap(),
                    scl: k.scl(f, j).unwrap(),
                    ..Kform::IDENTITY
                })
                .collect()
        }
    };
    let mut w = Pose::new(local.len());
    op_fk(&mut w, &Pose::from_kforms(&local), d.skeleton.parents()).expect("FK");
    let over = |n: usize| match at {
        None => Override::default(),
        Some((_, _, values)) => values[n],
    };
    let all = worlds(doc, &over);
    let want: Vec<[f64; 3]> = d.nodes.iter().map(|&n| origin(&all[n])).collect();
    let size = want.iter().flatten().fold(1.0f64, |m, x| m.max(x.abs()));
    for (j, q) in want.iter().enumerate() {
        let p = w.pos[j];
        let gap = (p.x as f64 - q[0])
            .abs()
            .max((p.y as f64 - q[1]).abs())
            .max((p.z as f64 - q[2]).abs());
        assert!(
            gap <= 1e-3 * size,
            "{:?} joint {j} (node {}): kineform {p:?}, glTF {q:?}",
            at.map(|(c, f, _)| (c, f)),
            d.nodes[j]
        );
    }
}
