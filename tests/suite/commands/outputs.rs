//! Events into the game's buffer, world poses into the caller's memory,
//! and long ranges read out on the pool.

use super::*;

/// Events taken into the game's buffer and acted on in the same loop
/// (issue 22: `for e in crowd.events() { crowd.transition(..) }` does not
/// borrow): 20 characters, each replaying a reporting clip end from near
/// its end whenever it reports, and the finished transitions counted, in
/// both crowds, which report the same events every frame. The buffer's
/// memory changes only in a frame with more events than it has held. Mutation caught: the reference crowd's transition-finished
/// bit left unmasked by the frame's new transitions (`step.finished`
/// alone) reports a finish in the frame a transition restarts.
#[test]
fn events_taken_into_the_games_buffer_and_acted_on() {
    let library = embedded();
    let len = library.clips()[0].last_time();
    let n = 20;
    let cfg = CrowdConfig {
        characters: n,
        ..Default::default()
    };
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    let near_end = |c: usize| Source {
        end: ClipEnd::Event,
        ..Source::looping(0, len - 0.02 * (c + 1) as f32)
    };
    for c in 0..n {
        lanes.play(c, near_end(c), Source::looping(0, 0.0)).unwrap();
        reference
            .play(c, near_end(c), Source::looping(0, 0.0))
            .unwrap();
    }
    let (mut events, mut seen) = (Vec::new(), Vec::new());
    let (mut ends, mut finished) = (0, 0);
    let mut grown = 0;
    for frame in 0..240 {
        let dt = 1.0 / 60.0;
        lanes.step(dt).unwrap();
        reference.step(dt).unwrap();
        let before = (events.as_ptr(), events.capacity());
        lanes.events_into(&mut events);
        if (events.as_ptr(), events.capacity()) != before {
            // Only a frame with more events than the buffer has held.
            assert!(
                events.len() > before.1,
                "frame {frame}: {} events",
                events.len()
            );
            grown += 1;
        }
        reference.events_into(&mut seen);
        assert_eq!(events, seen, "frame {frame}");
        assert_eq!(&events[..], lanes.events());
        for e in &events {
            match e.kind {
                EventKind::ClipEnded(Which::A) => {
                    // Back to near the end, through a transition.
                    let again = near_end(e.character);
                    lanes
                        .transition(e.character, again, Source::looping(0, 0.0), 0.2, 0.1)
                        .unwrap();
                    reference
                        .transition(e.character, again, Source::looping(0, 0.0), 0.2, 0.1)
                        .unwrap();
                    ends += 1;
                }
                EventKind::TransitionFinished => finished += 1,
                other => panic!("source B loops, no layers, no clip has markers: {other:?}"),
            }
        }
    }
    // Character c reports every (0.02 (c + 1) + a frame) s, each end
    // followed by a 0.2 s transition that finishes unless the next end
    // comes first.
    assert!(ends > 300, "{ends} clip ends");
    assert!(
        finished > 100 && finished < ends,
        "{finished} finished of {ends}"
    );
    assert!(grown <= 5, "the buffer grew {grown} times");
}

/// World poses copied into the caller's memory equal the crowd's own, for
/// a range across packs; a wrong range or length writes nothing; the two
/// quaternion orders rotate vectors the same way.
#[test]
#[cfg(feature = "wander")]
fn outputs_into_caller_memory() {
    let mut crowd = crowd(19);
    let mut wander = kineform::crowd::Wander::new(19, Default::default());
    for _ in 0..30 {
        wander.update(&mut crowd, 1.0 / 60.0).unwrap();
        crowd.step(1.0 / 60.0).unwrap();
    }
    let j = crowd.skeleton().len();
    let range = 5..17;
    let n = range.len() * j;
    let (mut pos, mut vel, mut ang) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let (mut quats, mut xyzw) = (vec![Quat::default(); n], vec![[0.0; 4]; n]);
    crowd.positions_into(range.clone(), &mut pos).unwrap();
    crowd.velocities_into(range.clone(), &mut vel).unwrap();
    crowd
        .angular_velocities_into(range.clone(), &mut ang)
        .unwrap();
    crowd.rotations_into(range.clone(), &mut quats).unwrap();
    crowd.rotations_into(range.clone(), &mut xyzw).unwrap();
    for (k, c) in range.clone().enumerate() {
        let pose: Vec<_> = crowd.world_pose(c).unwrap().collect();
        assert_eq!(pose.len(), j);
        for (jj, p) in pose.iter().enumerate() {
            let w = crowd.world_kform(c, jj).unwrap();
            assert_eq!(*p, w);
            let i = k * j + jj;
            assert_eq!(pos[i], w.pos.to_array());
            assert_eq!(vel[i], w.vel.to_array());
            assert_eq!(ang[i], w.ang.to_array());
            let q = quats[i];
            assert_eq!(q, w.rot);
            let p = Quat::new(xyzw[i][3], xyzw[i][0], xyzw[i][1], xyzw[i][2]);
            let v = Vec3::new(0.3, -1.0, 2.0);
            let (a, b) = (r::quat_mul_vec3(q, v), r::quat_mul_vec3(p, v));
            assert!(r::length(a - b) < 1e-6 && r::length(a - r::quat_mul_vec3(w.rot, v)) < 1e-6);
        }
    }
    // The whole crowd through `output`'s parallel copies equals the
    // per-range copy.
    let all = 19 * j;
    let (mut a, mut b) = (vec![[0.0f32; 3]; all], vec![Vec3::ZERO; all]);
    crowd.positions_into(0..19, &mut a).unwrap();
    kineform::output::positions(crowd.world_packed(), &mut b).unwrap();
    assert!(a.iter().zip(&b).all(|(a, b)| *a == b.to_array()));
    // Refusals write nothing.
    let mut out = vec![[7.0f32; 3]; n];
    assert!(matches!(
        crowd.positions_into(5..20, &mut out),
        Err(Error::Range { .. })
    ));
    assert!(matches!(
        crowd.positions_into(5..16, &mut out),
        Err(Error::Length { .. })
    ));
    assert!(out.iter().all(|p| *p == [7.0; 3]));
    assert!(crowd.world_pose(19).is_none() && crowd.world_kform(0, j).is_none());
}

/// Ranges long enough to be copied on the rayon pool (32 packs and more),
/// entered part-way through a pack or not, read the same values as the
/// crowd's own per-joint accessor; so do one character and none.
/// Mutations caught: the first partial pack's lanes shifted by one (reading
/// `skip + 1 ..`), the parallel packs zipped from the range's first pack
/// rather than the one after a partial head.
#[test]
#[cfg(feature = "wander")]
fn long_ranges_read_out_the_same_as_one_joint_at_a_time() {
    let n = 300;
    let mut crowd = crowd(n);
    let mut wander = kineform::crowd::Wander::new(n, Default::default());
    for _ in 0..5 {
        wander.update(&mut crowd, 1.0 / 60.0).unwrap();
        crowd.step(1.0 / 60.0).unwrap();
    }
    let j = crowd.skeleton().len();
    for range in [0..n, 3..299, 8..n, 250..251, 16..24, 9..9] {
        let m = range.len() * j;
        let (mut pos, mut rot) = (vec![[0.0f32; 3]; m], vec![[0.0f32; 4]; m]);
        crowd.positions_into(range.clone(), &mut pos).unwrap();
        crowd.rotations_into(range.clone(), &mut rot).unwrap();
        for (k, c) in range.clone().enumerate() {
            for jj in 0..j {
                let w = crowd.world_kform(c, jj).unwrap();
                assert_eq!(pos[k * j + jj], w.pos.to_array(), "{range:?} c {c} j {jj}");
                let q = [w.rot.x, w.rot.y, w.rot.z, w.rot.w];
                assert_eq!(rot[k * j + jj], q, "{range:?} c {c} j {jj}");
            }
        }
    }
}
