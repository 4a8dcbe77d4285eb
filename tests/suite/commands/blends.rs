//! One source played as both and blends past half a turn, on a spinning
//! root.

use super::*;

/// A clip whose root spins a whole turn about +y over 2 s (121 frames at
/// 60 Hz), with a second joint a bone away.
fn spinning_root() -> (ClipLibrary, kineform::Clip) {
    let skeleton =
        kineform::Skeleton::with_names(vec![-1, 0], vec!["root".into(), "tip".into()]).unwrap();
    let frames = 121;
    let ft = 1.0 / 60.0;
    let mut pos = Vec::new();
    let mut rot = Vec::new();
    for f in 0..frames {
        let angle = std::f32::consts::TAU * f as f32 / (frames - 1) as f32;
        pos.extend([Vec3::ZERO, Vec3::new(0.0, 0.0, 10.0)]);
        rot.extend([
            r::quat_from_angle_axis(angle, Vec3::new(0.0, 1.0, 0.0)),
            Quat::IDENTITY,
        ]);
    }
    let clip = kineform::Clip::new(frames, 2, ft, pos, rot, vec![Vec3::ONE; 2 * frames]).unwrap();
    let mut library =
        ClipLibrary::new(&skeleton, &[Vec3::ZERO, Vec3::new(0.0, 0.0, 10.0)]).unwrap();
    library.add(&skeleton, &clip).unwrap();
    (library, clip)
}

/// A pack whose eight characters play one source as both A and B skips
/// sampling B (the blend of a pose with itself is the pose), and leaves
/// each hemisphere bit as the blend would have chosen it: the short way
/// (bit clear) where a command made it fresh. Eight characters (one pack)
/// blend sources 0.55 turn apart (their relative rotation's `w < 0`, so
/// the root's bit is set); then all play one source as both (the skip,
/// with fresh lanes); then character 7 alone plays two sources again, so
/// the pack blends in full while characters 0 to 6 still play one source
/// as both, at weight 0.5, with bits kept from the skip. Every character
/// matches the reference crowd, and character 0 shows its one source's
/// pose, compared after every frame. Mutations caught: the skip not
/// clearing the fresh lanes' bits (characters 0 to 6 then blend toward the
/// negated identity, a half turn about a rounding-noise axis: the root off
/// by up to 180°), and the skip not sampling source A (the pose of the
/// frame before shown on the skip's frame).
#[test]
fn one_source_played_as_both_skips_the_blend_and_keeps_short_hemispheres() {
    let (library, clip) = spinning_root();
    let cfg = CrowdConfig {
        characters: 8,
        ..Default::default()
    };
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    let at = |time: f32| Source {
        clip: 0,
        time,
        rate: 0.0,
        end: ClipEnd::Hold,
    };
    let t = clip.last_time();
    let (a, far) = (at(0.2 * t), at(0.75 * t));
    let dt = 1.0 / 60.0;
    let mut steps = vec![];
    for c in 0..8 {
        steps.push((c, Command::Play { a, b: far }));
        steps.push((c, Command::SetWeight { weight: 0.5 }));
    }
    let frames: [Vec<(usize, Command)>; 3] = [
        steps,
        (0..8).map(|c| (c, Command::Play { a, b: a })).collect(),
        vec![(7, Command::Play { a, b: far })],
    ];
    let frames = frames.into_iter().chain([vec![], vec![]]);
    for (f, cmds) in frames.enumerate() {
        for (c, cmd) in cmds {
            lanes.command(c, cmd).unwrap();
            reference.command(c, cmd).unwrap();
        }
        lanes.step(dt).unwrap();
        reference.step(dt).unwrap();
        // Every frame, the skip's own (frame 1) included.
        let mut run = Run::default();
        for c in 0..8 {
            run.compare_character(&lanes, &reference, c);
        }
        assert!(run.diffs.within(), "frame {f}: {:?}", run.diffs);
    }
    let root = lanes.world_kform(0, 1).unwrap().rot;
    let want = r::quat_from_angle_axis(0.2 * std::f32::consts::TAU, Vec3::new(0.0, 1.0, 0.0));
    assert!(
        1.0 - r::quat_dot(root, want).abs() < 1e-5,
        "{root:?} against {want:?}"
    );
}

/// A two-source blend whose sources turn past half a turn apart stays
/// continuous: a clip whose root spins a whole turn about +y (a second joint
/// a bone away), played forward on source A and backward on source B from
/// the same point at weight 0.5, so that the sources' relative rotation
/// sweeps through 180°. No joint turns in a step more than its angular
/// velocity allows plus 2° (at 240 Hz). Taking the short way round every
/// step (the published blend) flips the blend there: a 180° snap.
#[test]
fn two_source_blends_follow_their_sources_past_half_a_turn() {
    let (library, clip) = spinning_root();
    let mut crowd = Crowd::new(
        &library,
        CrowdConfig {
            characters: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let mid = clip.last_time() * 0.5;
    let a = Source {
        clip: 0,
        time: mid,
        rate: 1.0,
        end: ClipEnd::Hold,
    };
    let b = Source { rate: -1.0, ..a };
    crowd.play(0, a, b).unwrap();
    crowd.set_weight(0, 0.5).unwrap();
    let dt = 1.0 / 240.0;
    let mut prev: Option<Vec<kineform::reference::Kform>> = None;
    let mut worst = 0.0f32;
    // A and B drift apart at 2 * 2π / 2 s: half a turn after 0.5 s.
    for _ in 0..(0.8 / dt) as usize {
        crowd.step(dt).unwrap();
        let cur: Vec<_> = crowd.world_pose(0).unwrap().collect();
        if let Some(p) = &prev {
            for k in 0..cur.len() {
                let turned = 2.0
                    * r::length(r::quat_log(r::quat_abs(r::quat_mul_inv(
                        cur[k].rot, p[k].rot,
                    ))));
                let allowed = r::length(cur[k].ang).max(r::length(p[k].ang)) * dt;
                worst = worst.max(turned - allowed);
            }
        }
        prev = Some(cur);
    }
    assert!(
        worst < 2f32.to_radians(),
        "a joint turned {:.1}° beyond its angular velocity",
        worst.to_degrees()
    );
}
