//! Motion matching on the shipped CMU clips (`kineform::matching`): the
//! database (cuts, the T-pose frames, mirroring, the character frame,
//! queries that reproduce a frame's features bit for bit, the build's
//! independence of the thread count), every search path against the
//! scalar reference on real queries, and refusals.

use crate::shipped;

use kineform::Error;
use kineform::matching::{
    self, CharacterFrame, DatabaseParts, FootFeatures, Match, MatchConfig, MatchDatabase,
    MirrorMap, QueryBatch, TrajectoryPoint, WorldPose, search,
};
use kineform::reference::{Quat, Vec3, length, quat_mul, quat_mul_vec3};
use shipped::{FEATURE_SETS, library, shipped};

fn padded(db: &MatchDatabase, f: usize) -> Vec<f32> {
    let mut q = db.features(f).unwrap();
    q.resize(db.layout().padded(), 0.0);
    q
}

#[test]
fn synthetic_t_poses_are_cut_off_and_range_ends_are_not_searched() {
    let lib = library();
    let db = shipped(FootFeatures::DEMO);
    let cfg = MatchConfig::default();
    let margin = (cfg.end_margin / lib.clips()[0].frame_time()).round() as usize;
    // Library clips 0..5: 102_01 (3dsMax), 01_01, 01_03, 12_01 (the
    // MotionBuilder files, a T-pose at frame 0), 131_01 (3dsMax); 5..10
    // their mirror images.
    let t_pose = |c: usize| matches!(c % 5, 1..=3);
    for (c, span) in db.clip_spans().iter().enumerate() {
        let clip_frames = lib.clips()[c].frames();
        for f in span.first..span.first + span.frames {
            let src = db.source(f).unwrap();
            assert_eq!(src.clip, c);
            // The T-pose is a range of its own (one frame, never
            // searched); the next range starts at frame 1, so its
            // trajectories never see the T-pose. No other cut.
            let expected =
                !(t_pose(c) && src.clip_frame == 0) && src.clip_frame + margin < clip_frames;
            assert_eq!(
                db.searchable(f),
                expected,
                "clip {c} frame {}",
                src.clip_frame
            );
        }
    }
    assert_eq!(db.frames(), 9060);
    assert_eq!(db.searchable_frames(), 8854);
}

#[test]
fn queries_from_a_frames_world_inputs_are_its_features_bit_for_bit() {
    let lib = library();
    for feet in FEATURE_SETS {
        let db = shipped(feet);
        let inputs = MatchDatabase::frame_inputs(&lib, &MatchConfig::with_feet(feet)).unwrap();
        assert_eq!(inputs.len(), db.frames());
        let mut q = vec![0.0; db.layout().padded()];
        for f in (0..db.frames()).step_by(7) {
            let i = &inputs[f];
            assert_eq!(db.source(f), Some(i.source));
            db.query(&i.pose, &i.trajectory, &mut q).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // The feet's inertialization features of the database come
            // from batch::cost (8 lanes), the query's from the reference:
            // the same bits.
            assert_eq!(bits(&q), bits(&padded(&db, f)), "{feet:?} frame {f}");
            if db.searchable(f) {
                let m = matching::reference::search(&db, &q).unwrap();
                assert_eq!(m.distance, 0.0);
                // A frame at distance 0 may repeat an earlier one (the
                // mirror of a symmetric pose is not one): the lowest wins.
                assert!(m.frame <= f);
            }
        }
    }
}

#[test]
fn the_character_frame_faces_where_the_walk_goes() {
    let lib = library();
    let inputs = MatchDatabase::frame_inputs(&lib, &MatchConfig::default()).unwrap();
    // 12_01, a steady walk: library clip 3, and its mirror image, clip 8.
    for clip in [3, 8] {
        let walk: Vec<_> = inputs.iter().filter(|i| i.source.clip == clip).collect();
        let mut within = 0;
        let mut n = 0;
        for w in walk.windows(2).skip(10) {
            let d = w[1].frame.pos - w[0].frame.pos;
            let len = (d.x * d.x + d.z * d.z).sqrt();
            let cos = (d.x * w[0].frame.facing.x + d.z * w[0].frame.facing.z) / len;
            n += 1;
            within += (cos > 30f32.to_radians().cos()) as usize;
        }
        assert!(
            within * 10 >= n * 9,
            "clip {clip}: {within} of {n} steps within 30 degrees of the facing"
        );
        // The hips' sway turns the frame from one 60 Hz frame to the next
        // (docs/matching.md): measured, and held under 5 degrees a step.
        let yaw = |f: &CharacterFrame| f.facing.x.atan2(f.facing.z);
        let turns: Vec<f32> = walk
            .windows(2)
            .map(|w| {
                let d = yaw(&w[1].frame) - yaw(&w[0].frame);
                d.sin().atan2(d.cos()).abs().to_degrees()
            })
            .collect();
        let max = turns.iter().copied().fold(0.0f32, f32::max);
        let mean = turns.iter().sum::<f32>() / turns.len() as f32;
        println!("clip {clip}: facing turns {mean:.2} degrees a step on average, {max:.2} at most");
        assert!(max < 5.0, "clip {clip}: {max} degrees in one step");
    }
}

#[test]
fn the_cut_speed_separates_the_t_pose_steps_from_motion() {
    // Mean joint world speed between consecutive clip frames (the cut
    // test's measure) on the five shipped clips: the MotionBuilder files'
    // step out of the synthetic T-pose above the default cut speed, every
    // other step under half of it (docs/matching.md, "Cuts").
    let lib = library();
    let parents = lib.skeleton().parents().to_vec();
    let (mut motion_max, mut t_pose) = (0.0f32, Vec::new());
    for (c, clip) in lib.clips().iter().enumerate().take(5) {
        let dt = clip.frame_time();
        let mut prev = fk(clip, &parents, 0);
        for f in 1..clip.frames() {
            let next = fk(clip, &parents, f);
            let sum: f32 = prev.iter().zip(&next).map(|(a, b)| length(b.0 - a.0)).sum();
            let speed = sum / (parents.len() as f32 * dt);
            if matches!(c, 1..=3) && f == 1 {
                t_pose.push(speed);
            } else {
                motion_max = motion_max.max(speed);
            }
            prev = next;
        }
    }
    println!("steps out of the T-pose: {t_pose:?} units/s; every other step at most {motion_max}");
    assert_eq!(t_pose.len(), 3);
    let cut = kineform::matching::config::DEFAULT_CUT_SPEED;
    assert!(t_pose.iter().all(|&s| s > cut), "{t_pose:?}");
    assert!(motion_max < cut / 2.0, "{motion_max}");
}

/// World positions and rotations of clip frame `f`, each joint's own
/// offset from the clip (positions of every joint).
fn fk(clip: &kineform::Clip, parents: &[i32], f: usize) -> Vec<(Vec3, Quat)> {
    let mut w: Vec<(Vec3, Quat)> = Vec::with_capacity(parents.len());
    for (j, &p) in parents.iter().enumerate() {
        let (lp, lr) = (clip.pos(f, j).unwrap(), clip.rot(f, j).unwrap());
        w.push(if p < 0 {
            (lp, lr)
        } else {
            let (pp, pr) = w[p as usize];
            (quat_mul_vec3(pr, lp) + pp, quat_mul(pr, lr))
        });
    }
    w
}

#[test]
fn a_mirrored_clip_is_the_mirror_image_of_the_clip() {
    // On each file's own bones (its offsets in its clip) the mirrored
    // clip's world pose is exactly the mirrored world pose, joint for
    // partner: the local formulas hold for every CMU convention's rest
    // frames.
    for file in [
        "cmu_01_01_mb.bvh",
        "cmu_131_01_max.bvh",
        "cmu_12_01_walk_mb.bvh",
    ] {
        let b = kineform::bvh::load(format!("{}/data/mocap/{file}", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
        let map = MirrorMap::cmu(&b.skeleton).unwrap();
        // A clip's positions column holds the root channel only; give
        // every joint its bone offset, as the file does.
        let joints = b.skeleton.len();
        let mut pos = b.clip.positions().to_vec();
        for f in 0..b.clip.frames() {
            for j in 1..joints {
                pos[f * joints + j] = b.offsets[j];
            }
        }
        let clip = kineform::Clip::new(
            b.clip.frames(),
            joints,
            b.clip.frame_time(),
            pos,
            b.clip.rotations().to_vec(),
            b.clip.scales().to_vec(),
        )
        .unwrap();
        let mirrored = map.mirror_clip(&clip).unwrap();
        let parents = b.skeleton.parents();
        let mut worst = 0.0f32;
        for f in (0..clip.frames()).step_by(13) {
            let (a, m) = (fk(&clip, parents, f), fk(&mirrored, parents, f));
            for j in 0..joints {
                let want = map.mirror_vec3(a[j].0);
                let got = m[map.partner(j)].0;
                worst = worst.max(
                    (got - want)
                        .to_array()
                        .iter()
                        .fold(0.0, |w, d| w.max(d.abs())),
                );
                // World rotations: mirrored too, up to sign.
                let (wq, gq) = (map.mirror_quat(a[j].1), m[map.partner(j)].1);
                let dot = wq.w * gq.w + wq.x * gq.x + wq.y * gq.y + wq.z * gq.z;
                assert!(dot.abs() > 1.0 - 1e-4, "{file} frame {f} joint {j}: {dot}");
            }
        }
        assert!(worst < 1e-3, "{file}: {worst} units");
    }
}

#[test]
fn the_build_does_not_depend_on_the_thread_count() {
    let lib = library();
    let cfg = MatchConfig::with_feet(FootFeatures::SPRING);
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                MatchDatabase::build(&lib, &cfg)
                    .unwrap()
                    .to_parts()
                    .unwrap()
            })
    };
    assert_eq!(on(1), on(2));
}

/// Queries of three kinds: a frame's own features, a frame's pose with
/// another's trajectory (a character asked to turn), and a frame's
/// features pushed by up to one standard deviation.
fn real_queries(db: &MatchDatabase, n: usize) -> QueryBatch {
    let mut batch = QueryBatch::new(db);
    let traj = db
        .layout()
        .groups()
        .iter()
        .find(|g| g.kind == matching::GroupKind::TrajectoryPositions)
        .unwrap()
        .offset;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for k in 0..n {
        let f = next() as usize % db.frames();
        let mut q = padded(db, f);
        match k % 3 {
            0 => {}
            1 => {
                let g = padded(db, next() as usize % db.frames());
                q[traj..db.layout().dims()].copy_from_slice(&g[traj..db.layout().dims()]);
            }
            _ => {
                for x in &mut q[..db.layout().dims()] {
                    *x += ((next() % 2001) as f32 - 1000.0) / 1000.0;
                }
            }
        }
        let seed = (k % 2 == 0).then_some(f);
        batch.push(&q, seed).unwrap();
    }
    batch
}

#[test]
fn every_search_path_returns_the_references_frame_on_real_queries() {
    for feet in FEATURE_SETS {
        let db = shipped(feet);
        let batch = real_queries(&db, 600);
        let none = Match {
            frame: usize::MAX,
            distance: f32::NAN,
        };
        let (mut r, mut b, mut a) = (vec![none; 600], vec![none; 600], vec![none; 600]);
        search::reference(&db, &batch, &mut r).unwrap();
        search::brute_force(&db, &batch, &mut b).unwrap();
        search::accelerated(&db, &batch, &mut a).unwrap();
        for i in 0..600 {
            let key = |m: Match| (m.frame, m.distance.to_bits());
            assert_eq!(key(b[i]), key(r[i]), "{feet:?} query {i}: brute force");
            assert_eq!(key(a[i]), key(r[i]), "{feet:?} query {i}: accelerated");
            assert!(db.searchable(r[i].frame));
            // One at a time, seeded or not, the same.
            let (one, _) = search::accelerated_one(&db, batch.get(i).unwrap(), None).unwrap();
            assert_eq!(key(one), key(r[i]));
        }
    }
}

#[test]
fn the_demos_query_keeps_the_playing_frames_pose_and_takes_the_trajectory() {
    let lib = library();
    let db = shipped(FootFeatures::SPRING);
    let inputs = MatchDatabase::frame_inputs(&lib, db.config()).unwrap();
    let f = 1234;
    let i = &inputs[f];
    let mut q = vec![0.0; db.layout().padded()];
    // Frame f's own character frame and trajectory: its own features.
    db.query_from_frame(f, &i.frame, &i.trajectory, &mut q)
        .unwrap();
    assert_eq!(q, padded(&db, f));
    // Another trajectory, seen from a frame turned and moved anywhere in
    // the world: the pose features stay, the trajectory's follow the
    // world trajectory turned with it.
    let moved = CharacterFrame::new(Vec3::new(40.0, 0.0, -7.0), 2.0);
    let world = i.trajectory.map(|t| TrajectoryPoint {
        pos: moved.to_world(i.frame.to_local(t.pos)),
        facing: moved.dir_to_world(i.frame.dir_to_local(t.facing)),
    });
    let mut q2 = vec![0.0; db.layout().padded()];
    db.query_from_frame(f, &moved, &world, &mut q2).unwrap();
    for (a, b) in q.iter().zip(&q2) {
        assert!((a - b).abs() < 1e-3, "{a} {b}");
    }
}

#[test]
fn refusals_name_what_is_wrong_and_write_nothing() {
    let lib = library();
    let db = shipped(FootFeatures::DEMO);
    let n = db.layout().padded();
    // Non-finite queries.
    let mut q = vec![7.0; n];
    let bad = WorldPose {
        hips_pos: Vec3::new(f32::NAN, 0.0, 0.0),
        ..WorldPose::default()
    };
    let e = db
        .query(&bad, &[TrajectoryPoint::default(); 3], &mut q)
        .unwrap_err();
    assert!(e.to_string().contains("not finite"), "{e}");
    assert_eq!(q, vec![7.0; n], "nothing written");
    let mut batch = QueryBatch::new(&db);
    assert!(batch.push(&vec![f32::INFINITY; n], None).is_err());
    assert!(batch.push(&vec![0.0; n - 1], None).is_err());
    assert!(batch.is_empty());
    // Switch margins: negative or not finite refused, the margin kept.
    for m in [-1.0, -f32::MIN_POSITIVE, f32::NAN, f32::INFINITY] {
        let e = batch.set_margin(m).unwrap_err();
        assert!(e.to_string().contains("margin"), "{e}");
        assert_eq!(batch.margin(), 0.0);
    }
    batch.set_margin(2.5).unwrap();
    assert_eq!(batch.margin(), 2.5);
    // The scalar reference refuses what the 8-lane searches refuse: a
    // NaN feature (which no frame's distance beats: it returned frame
    // usize::MAX), an infinite one, a wrong length, and a margin
    // set_margin refuses.
    let mut nan = vec![0.0; n];
    nan[3] = f32::NAN;
    for q in [
        nan,
        vec![f32::INFINITY; n],
        vec![0.0; n - 1],
        vec![0.0; n + 1],
    ] {
        let e = matching::reference::search(&db, &q).unwrap_err();
        assert!(
            matches!(e, Error::Index { .. } | Error::Length { .. }),
            "{e}"
        );
        assert!(search::accelerated_one(&db, &q, None).is_err());
        assert!(matching::reference::search_seeded(&db, &q, Some(0), 0.0).is_err());
    }
    for m in [-1.0, f32::NAN, f32::INFINITY] {
        let e = matching::reference::search_seeded(&db, &vec![0.0; n], None, m).unwrap_err();
        assert!(e.to_string().contains("margin"), "{e}");
    }
    let found = matching::reference::search(&db, &vec![0.0; n]).unwrap();
    assert!(db.searchable(found.frame));
    // Wrong output length.
    batch.push(&vec![0.0; n], None).unwrap();
    assert!(search::accelerated(&db, &batch, &mut []).is_err());
    assert!(
        db.query_from_frame(
            db.frames(),
            &CharacterFrame::new(Vec3::ZERO, 0.0),
            &[TrajectoryPoint::default(); 3],
            &mut q
        )
        .is_err()
    );
    // Configurations.
    let bad = [
        MatchConfig {
            hip_velocity_weight: 0.0,
            ..MatchConfig::default()
        },
        // Weights past WEIGHT_RANGE: 3e38 built features that overflowed
        // to infinity, 1e-45 an infinite scale.
        MatchConfig {
            hip_velocity_weight: 3e38,
            ..MatchConfig::default()
        },
        MatchConfig {
            trajectory_position_weight: 1e-45,
            ..MatchConfig::default()
        },
        MatchConfig::with_feet(FootFeatures::Spring {
            halflife: 0.1,
            weight: 2e6,
        }),
        MatchConfig {
            trajectory_times: [0.5, 0.4, 1.0],
            ..MatchConfig::default()
        },
        MatchConfig {
            frame_step: 0,
            ..MatchConfig::default()
        },
        MatchConfig::with_feet(FootFeatures::Spring {
            halflife: f32::NAN,
            weight: 1.0,
        }),
        MatchConfig {
            end_margin: 100.0,
            ..MatchConfig::default()
        },
    ];
    for cfg in bad {
        assert!(MatchDatabase::build(&lib, &cfg).is_err(), "{cfg:?}");
    }
    // A margin longer than every clip leaves nothing to search.
    let cfg = MatchConfig {
        end_margin: 59.0,
        ..MatchConfig::default()
    };
    let e = MatchDatabase::build(&lib, &cfg).unwrap_err();
    assert!(e.to_string().contains("searchable"), "{e}");
    // Parts that do not fit.
    let mut parts = db.to_parts().unwrap();
    parts.features.pop();
    assert!(MatchDatabase::from_parts(parts).is_err());
    let mut parts = db.to_parts().unwrap();
    parts.scale[3] = 0.0;
    assert!(MatchDatabase::from_parts(parts).is_err());
    let mut parts = db.to_parts().unwrap();
    parts.clips[2].first += 1;
    assert!(MatchDatabase::from_parts(parts).is_err());
    // A frame step whose clip frames or times no usize or f32 holds
    // (found by the matching_api fuzz check: `source` overflowed).
    for (step, frame_time) in [(usize::MAX, 1.0 / 120.0), (1 << 40, 1e30)] {
        let mut parts = db.to_parts().unwrap();
        parts.config.frame_step = step;
        parts.frame_time = frame_time;
        let e = MatchDatabase::from_parts(parts).unwrap_err();
        assert!(
            matches!(e, kineform::Error::Size { .. }) && e.to_string().contains("frame_step"),
            "{e}"
        );
    }
    // The configuration's joints' forward axis, stored with the parts.
    let mut parts = db.to_parts().unwrap();
    parts.config.joints = Some(kineform::matching::FeatureJoints {
        forward: Vec3::new(f32::NAN, 0.0, 1.0),
        ..parts.joints
    });
    let e = MatchDatabase::from_parts(parts).unwrap_err();
    assert!(e.to_string().contains("forward"), "{e}");
    let mut parts = db.to_parts().unwrap();
    parts.config.frame_step = 1 << 20;
    let far = MatchDatabase::from_parts(parts).unwrap();
    let last = far.frames() - 1;
    let s = far.source(last).unwrap();
    assert!(s.time.is_finite() && far.frame_of(s.clip, s.clip_frame) == Some(last));
    let parts: DatabaseParts = db.to_parts().unwrap();
    assert_eq!(
        MatchDatabase::from_parts(parts.clone())
            .unwrap()
            .to_parts()
            .unwrap(),
        parts
    );
}

#[test]
fn memory_is_stated() {
    let db = shipped(FootFeatures::DEMO);
    let m = db.memory();
    assert_eq!(m.frames, 9060);
    // 28 padded features as f32, a frame number per slot and a slot per
    // frame, and the boxes (2 × 28 floats per 16 slots, an eighth of
    // that a level up): 137 bytes a frame.
    assert!(
        m.bytes_per_frame >= 28 * 4 + 4 + 4 && m.bytes_per_frame < 150,
        "{m:?}"
    );
}

/// Found by a review (2026-12-07): a skeleton whose joints all carry CMU
/// names, each under its parent's name, but whose right leg is named as
/// the left one has no `RightFoot`; `FeatureJoints::cmu` (and so
/// `MatchDatabase::build` with the default configuration) panicked on an
/// `expect` where it now names the joint it cannot find. Mutation caught:
/// the `expect` back in `find` (this test panics).
#[test]
fn a_skeleton_with_a_cmu_name_twice_is_refused_naming_the_missing_joint() {
    let lib = kineform::crowd::ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap();
    let sk = lib.skeleton();
    let mut names = sk.names().to_vec();
    let parents = sk.parents().to_vec();
    let (left, right) = (sk.find("LHipJoint").unwrap(), sk.find("RHipJoint").unwrap());
    // The right leg's chain takes the left leg's names, joint for joint.
    let leg = |mut j: usize| {
        let mut chain = vec![j];
        while let Some(c) = parents.iter().position(|&p| p == j as i32) {
            chain.push(c);
            j = c;
        }
        chain
    };
    for (r, l) in leg(right).into_iter().zip(leg(left)) {
        names[r] = names[l].clone();
    }
    let twice = kineform::Skeleton::with_names(parents, names).unwrap();
    let e = kineform::matching::FeatureJoints::cmu(&twice).unwrap_err();
    assert!(
        matches!(&e, kineform::Error::JointName { name } if name.starts_with("Right")),
        "{e}"
    );
}
