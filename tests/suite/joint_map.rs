//! Joint-name maps on the five CMU files of `data/mocap` (issue 22, item
//! 3): their three naming conventions recognized, a map moving nothing in
//! the world, the ready CMU maps bringing each convention's rest pose onto
//! the other's, every shipped clip joining one library whichever comes
//! first and playing in one crowd, joints matched by name in any order, and
//! refusals that name the joint and add nothing.

use crate::crowds;
use crowds::*;

use kineform::Error;
use kineform::bvh::Bvh;
use kineform::crowd::{ClipLibrary, Source};
use kineform::joint_map::{CmuNaming, JointMap};
use kineform::reference::{self as r, Quat, Vec3};

const FILES: [(&str, CmuNaming); 5] = [
    ("cmu_01_01_mb.bvh", CmuNaming::MotionBuilder),
    ("cmu_01_03_mb.bvh", CmuNaming::MotionBuilder),
    ("cmu_12_01_walk_mb.bvh", CmuNaming::MotionBuilderIndex),
    ("cmu_102_01_max.bvh", CmuNaming::Max),
    ("cmu_131_01_max.bvh", CmuNaming::Max),
];

/// World positions of frame `f`: FK over `offsets`-free local positions
/// (the clip's, which for a BVH are the offsets plus the root's channels).
fn world(skeleton: &kineform::Skeleton, pos: &[Vec3], rot: &[Quat]) -> Vec<Vec3> {
    let mut wp: Vec<Vec3> = Vec::with_capacity(pos.len());
    let mut wr: Vec<Quat> = Vec::with_capacity(pos.len());
    for (j, &p) in skeleton.parents().iter().enumerate() {
        if p < 0 {
            wp.push(pos[j]);
            wr.push(rot[j]);
        } else {
            let (pp, pr) = (wp[p as usize], wr[p as usize]);
            wp.push(pp + r::quat_mul_vec3(pr, pos[j]));
            wr.push(r::quat_mul(pr, rot[j]));
        }
    }
    wp
}

fn frame<T: Copy>(v: &[T], f: usize, joints: usize) -> &[T] {
    &v[f * joints..(f + 1) * joints]
}

/// Angle between two directions, degrees.
fn angle(a: Vec3, b: Vec3) -> f32 {
    let c = r::dot(a, b) / (r::length(a) * r::length(b));
    c.clamp(-1.0, 1.0).acos().to_degrees()
}

/// The five files are of the three conventions `data/mocap/README.md`
/// lists, the same 31-joint hierarchy; the embedded clip is 3dsMax's.
#[test]
fn the_five_files_and_their_conventions() {
    for (file, naming) in FILES {
        let b = load(file);
        assert_eq!(CmuNaming::of(&b.skeleton).unwrap(), naming, "{file}");
        assert_eq!(b.skeleton.names(), naming.names(), "{file}");
    }
    let embedded = kineform::data::default_clip();
    assert_eq!(CmuNaming::of(&embedded.skeleton).unwrap(), CmuNaming::Max);
    // Same hierarchy in every convention.
    let parents = load(FILES[0].0).skeleton.parents().to_vec();
    for (file, _) in FILES {
        assert_eq!(load(file).skeleton.parents(), &parents[..], "{file}");
    }
}

/// A map renames and turns frames without moving anything: every world
/// position of every 20th frame of each file, mapped to each other
/// convention, is where it was (to 1e-4 units on positions of up to a few
/// hundred), and the mapped world rotations are the old ones times each
/// joint's rest rotation.
#[test]
fn a_map_moves_nothing_in_the_world() {
    for (file, from) in FILES {
        let b = load(file);
        let j = b.skeleton.len();
        for (_, to) in FILES {
            let map = JointMap::cmu(from, to);
            let m = map.apply_bvh(&b).unwrap();
            assert_eq!(CmuNaming::of(&m.skeleton).unwrap(), to);
            for f in (0..b.clip.frames()).step_by(20) {
                let before = world(
                    &b.skeleton,
                    frame(b.clip.positions(), f, j),
                    frame(b.clip.rotations(), f, j),
                );
                let after = world(
                    &m.skeleton,
                    frame(m.clip.positions(), f, j),
                    frame(m.clip.rotations(), f, j),
                );
                for k in 0..j {
                    let gap = r::length(after[k] - before[k]);
                    assert!(
                        gap <= 1e-4 * (1.0 + r::length(before[k])),
                        "{file} {from:?} -> {to:?}, frame {f}, joint {}: moved {gap}",
                        b.skeleton.names()[k]
                    );
                }
            }
        }
    }
}

/// The largest angle between a convention's rest bones (every offset and
/// End Site of nonzero length) and another file's, mapped through `map`.
fn worst_rest_angle(src: &Bvh, dst: &Bvh, map: &JointMap) -> (f32, String) {
    let m = map.apply_bvh(src).unwrap();
    let mut worst = (0.0f32, String::new());
    for (k, name) in dst.skeleton.names().iter().enumerate() {
        let i = m
            .skeleton
            .find(name)
            .expect("mapped names are the target's");
        let pairs = [
            (m.offsets[i], dst.offsets[k]),
            (
                m.end_sites[i].unwrap_or(Vec3::ZERO),
                dst.end_sites[k].unwrap_or(Vec3::ZERO),
            ),
        ];
        for (what, (a, b)) in ["offset", "end site"].iter().zip(pairs) {
            if r::length(a) > 1e-3 && r::length(b) > 1e-3 {
                let d = angle(a, b);
                if d > worst.0 {
                    worst = (d, format!("{what} of `{name}`"));
                }
            }
        }
    }
    worst
}

/// The ready maps bring each convention's rest pose onto every other's:
/// every bone and End Site of each file, mapped, points within 20° of the
/// same bone of each other file (what remains is the subjects' own
/// build: 12_01 and 131_01 differ by 17.5° at the right upper arm, 12_01
/// and 102_01 by 16.5° at the head); renamed alone, without the arms'
/// quarter turns, the 3dsMax files' arms point 90° away from the
/// MotionBuilder files'. Mutation caught: the right arm turned about -z
/// like the left puts the right elbow 180° off.
#[test]
fn the_cmu_maps_agree_with_the_other_files_at_rest() {
    let files: Vec<(Bvh, CmuNaming)> = FILES.iter().map(|(f, n)| (load(f), *n)).collect();
    for (i, (src, from)) in files.iter().enumerate() {
        for (k, (dst, to)) in files.iter().enumerate() {
            let (worst, at) = worst_rest_angle(src, dst, &JointMap::cmu(*from, *to));
            println!("{} -> {}: {worst:.1}° at the {at}", FILES[i].0, FILES[k].0);
            assert!(
                worst < 20.0,
                "{} -> {}: {worst}° at the {at}",
                FILES[i].0,
                FILES[k].0
            );
            if (*from == CmuNaming::Max) != (*to == CmuNaming::Max) {
                let names = from.names();
                let renamed = names
                    .iter()
                    .zip(to.names())
                    .fold(JointMap::new(), |m, (a, b)| m.rename(a, b));
                let (off, at) = worst_rest_angle(src, dst, &renamed);
                assert!(off > 75.0, "renamed alone: {off}° at the {at}");
            }
        }
    }
}

/// Every shipped clip joins one library, whichever comes first (each of
/// the five in turn), through its CMU map; a crowd plays all five clips
/// (every character on a clip of its own, transitions between them), both
/// crowds agree within `tests/suite/crowd/`'s tolerances, and the velocity
/// check passes.
#[test]
fn every_shipped_clip_in_one_crowd() {
    let files: Vec<Bvh> = FILES.iter().map(|(f, _)| load(f)).collect();
    for first in 0..files.len() {
        let mut library = ClipLibrary::from_bvh(&files[first]).unwrap();
        for (k, b) in files.iter().enumerate() {
            if k != first {
                library.add_cmu(b).unwrap();
            }
        }
        assert_eq!(library.len(), 5);
        assert_eq!(library.skeleton().names(), files[first].skeleton.names());
    }
    // The library of the embedded clip's convention (3dsMax's), all five.
    let mut library = ClipLibrary::from_bvh(&files[3]).unwrap();
    for b in files.iter().take(3).chain(files.iter().skip(4)) {
        library.add_cmu(b).unwrap();
    }
    let n = 10;
    let (mut lanes, mut reference) = checked_crowds(&library, n);
    let mut run = Run::default();
    let mut check = kineform::crowd::VelocityCheck::default();
    for c in 0..n {
        // 1 s in: past the MotionBuilder files' T-pose at frame 0.
        let s = Source::looping(c % 5, 1.0 + 0.1 * c as f32);
        lanes.play(c, s, s).unwrap();
        reference.play(c, s, s).unwrap();
    }
    for f in 0..120 {
        if f % 30 == 29 {
            for c in 0..n {
                let s = Source::looping((c + f / 30) % 5, 1.5);
                lanes.transition(c, s, s, 0.3, 0.1).unwrap();
                reference.transition(c, s, s, 0.3, 0.1).unwrap();
            }
        }
        let stats = lanes.step(1.0 / 60.0).unwrap();
        reference.step(1.0 / 60.0).unwrap();
        check.merge(&stats.velocity);
        for c in 0..n {
            run.compare_character(&lanes, &reference, c);
        }
    }
    assert!(run.diffs.within(), "{:?}", run.diffs);
    assert!(check.passed() && check.samples > 0, "{check:?}");
}

/// A clip whose joints come in another order (the right leg before the
/// left, the spine before both) joins by name: the library holds the same
/// clip, bit for bit, as when it is added in the file's order.
#[test]
fn joints_match_by_name_in_any_order() {
    let b = load("cmu_131_01_max.bvh");
    let names = b.skeleton.names();
    let parents = b.skeleton.parents();
    // Spine (11..31), right leg (6..11), left leg (1..6) after the root.
    let order: Vec<usize> = [0]
        .into_iter()
        .chain(11..31)
        .chain(6..11)
        .chain(1..6)
        .collect();
    let new_index = |k: usize| order.iter().position(|&o| o == k).unwrap() as i32;
    let skeleton = kineform::Skeleton::with_names(
        order
            .iter()
            .map(|&k| match parents[k] {
                p if p < 0 => -1,
                p => new_index(p as usize),
            })
            .collect(),
        order.iter().map(|&k| names[k].clone()).collect(),
    )
    .unwrap();
    let (frames, j) = (b.clip.frames(), b.clip.joints());
    let pick = |v: &[Vec3]| -> Vec<Vec3> {
        (0..frames)
            .flat_map(|f| order.iter().map(move |&k| v[f * j + k]))
            .collect()
    };
    let rots = b.clip.rotations();
    let rot: Vec<Quat> = (0..frames)
        .flat_map(|f| order.iter().map(move |&k| rots[f * j + k]))
        .collect();
    let shuffled = Bvh {
        skeleton,
        offsets: order.iter().map(|&k| b.offsets[k]).collect(),
        channels: order.iter().map(|&k| b.channels[k].clone()).collect(),
        end_sites: order.iter().map(|&k| b.end_sites[k]).collect(),
        clip: kineform::Clip::new(
            frames,
            j,
            b.clip.frame_time(),
            pick(b.clip.positions()),
            rot,
            pick(b.clip.scales()),
        )
        .unwrap(),
    };
    let mut library = embedded();
    assert!(library.add_bvh(&shuffled).is_err(), "index by index");
    let a = library.add_mapped(&shuffled, &JointMap::new()).unwrap();
    let b_ = library.add_bvh(&b).unwrap();
    assert_eq!(library.clips()[a], library.clips()[b_]);
    // And through the CMU map (Max to Max: names only).
    let c = library.add_cmu(&shuffled).unwrap();
    assert_eq!(library.clips()[c], library.clips()[b_]);
}

fn skeleton_error(e: Error) -> (usize, String) {
    match e {
        Error::Skeleton { joint, reason } => (joint, reason),
        e => panic!("{e:?}"),
    }
}

/// Refusals name the joint, and add nothing: a map that misses a joint
/// (the walk's `LeftHip`), one that gives two joints one name, one that
/// swaps two joints so the hierarchy differs after mapping, a rest
/// rotation that is not unit, a clip with a joint the crowd lacks, and
/// `add_cmu` on a skeleton of no CMU convention (the file's or the
/// library's).
#[test]
fn refusals_name_the_joint_and_add_nothing() {
    let walk = load("cmu_12_01_walk_mb.bvh");
    let mut library = embedded(); // 3dsMax names
    let max = CmuNaming::Max;
    let full = JointMap::cmu(CmuNaming::MotionBuilderIndex, max);

    // Plain add: refused at joint 2, naming both names (as before).
    let (j, why) = skeleton_error(library.add_bvh(&walk).unwrap_err());
    assert_eq!(j, 2);
    assert!(
        why.contains("LeftUpLeg") && why.contains("LeftHip"),
        "{why}"
    );

    // A map without the left hip.
    let names = CmuNaming::MotionBuilderIndex.names();
    let partial = names
        .iter()
        .zip(max.names())
        .filter(|(a, _)| **a != "LeftUpLeg")
        .fold(JointMap::new(), |m, (a, b)| {
            m.rename_turned(a, b, full.rest(a))
        });
    let (j, why) = skeleton_error(library.add_mapped(&walk, &partial).unwrap_err());
    assert_eq!(j, 2, "{why}");
    assert!(why.contains("`LeftHip`"), "{why}");

    // Two joints, one name.
    let twice = full.clone().rename("RightUpLeg", "LeftHip");
    let (j, why) = skeleton_error(library.add_mapped(&walk, &twice).unwrap_err());
    assert_eq!(j, 7, "{why}");
    assert!(
        why.contains("LeftUpLeg") && why.contains("RightUpLeg"),
        "{why}"
    );

    // Knee and ankle swapped: each hangs from the wrong joint.
    let swapped = full
        .clone()
        .rename("LeftLeg", "LeftAnkle")
        .rename("LeftFoot", "LeftKnee");
    let (j, why) = skeleton_error(library.add_mapped(&walk, &swapped).unwrap_err());
    assert!(why.contains("hangs from"), "{why}");
    assert_eq!(library.skeleton().names()[j], "LeftKnee", "{why}");

    // A rest rotation of length 2.
    let long = full
        .clone()
        .rename_turned("LeftArm", "LeftShoulder", Quat::new(2.0, 0.0, 0.0, 0.0));
    let (j, why) = skeleton_error(library.add_mapped(&walk, &long).unwrap_err());
    assert_eq!(j, 18);
    assert!(
        why.contains("unit length") && why.contains("LeftArm"),
        "{why}"
    );

    // A clip with a joint the crowd lacks: a 32nd joint under the head.
    let mut parents = walk.skeleton.parents().to_vec();
    let mut more = walk.skeleton.names().to_vec();
    parents.push(16);
    more.push("Hat".into());
    let (f, jn) = (walk.clip.frames(), walk.clip.joints());
    let widen = |v: &[Vec3], x: Vec3| -> Vec<Vec3> {
        (0..f)
            .flat_map(|fr| v[fr * jn..(fr + 1) * jn].iter().copied().chain([x]))
            .collect()
    };
    let rot: Vec<Quat> = (0..f)
        .flat_map(|fr| {
            walk.clip.rotations()[fr * jn..(fr + 1) * jn]
                .iter()
                .copied()
                .chain([Quat::IDENTITY])
        })
        .collect();
    let hat = Bvh {
        skeleton: kineform::Skeleton::with_names(parents, more).unwrap(),
        offsets: walk.offsets.iter().copied().chain([Vec3::ZERO]).collect(),
        channels: walk.channels.iter().cloned().chain([vec![]]).collect(),
        end_sites: walk.end_sites.iter().copied().chain([None]).collect(),
        clip: kineform::Clip::new(
            f,
            jn + 1,
            walk.clip.frame_time(),
            widen(walk.clip.positions(), Vec3::ZERO),
            rot,
            widen(walk.clip.scales(), Vec3::ONE),
        )
        .unwrap(),
    };
    let (j, why) = skeleton_error(library.add_mapped(&hat, &full).unwrap_err());
    assert_eq!(j, 31);
    assert!(why.contains("`Hat`"), "{why}");
    // Not a CMU skeleton: the file's, then the library's.
    let (j, why) = skeleton_error(library.add_cmu(&hat).unwrap_err());
    assert_eq!(j, 31, "{why}");
    assert!(why.contains("Hat"), "{why}");
    let mut odd = ClipLibrary::from_bvh(&hat).unwrap();
    let (_, why) = skeleton_error(odd.add_cmu(&walk).unwrap_err());
    assert!(why.starts_with("the crowd's skeleton"), "{why}");
    assert_eq!(odd.len(), 1);

    assert_eq!(library.len(), 1, "nothing was added");
    assert_eq!(library.add_cmu(&walk).unwrap(), 1);
}
