//! Root motion extracted and reported, roots set for ranges, and the
//! demo's driver.

use super::*;

/// Root motion taken out: the clips' root joint stays above the
/// character's root (its height kept), and each step reports the travel
/// and turn the same crowd shows when it applies root motion: the
/// displacement as long as the applied hips' move on the ground (its
/// direction is the game's: measured in the clips' heading), the turn as
/// the applied hips' heading's change.
#[test]
fn root_motion_is_extracted_and_reported() {
    let library = embedded();
    let make = |root_motion| {
        Crowd::new(
            &library,
            CrowdConfig {
                characters: 8,
                root_motion,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let (mut apply, mut extract) = (make(RootMotion::Apply), make(RootMotion::Extract));
    for c in [&mut apply, &mut extract] {
        c.set_root(0, Root::standing(Vec3::new(10.0, 0.0, -5.0), 0.7))
            .unwrap();
        c.play(0, Source::looping(0, 0.2), Source::looping(0, 0.2))
            .unwrap();
    }
    let dt = 1.0 / 120.0;
    apply.step(dt).unwrap();
    extract.step(dt).unwrap();
    let up = Vec3::new(0.0, 1.0, 0.0);
    let mut before = apply.world_kform(0, 1).unwrap();
    let (mut travelled, mut shown) = (0.0, 0.0);
    for _ in 0..120 {
        apply.step(dt).unwrap();
        extract.step(dt).unwrap();
        let d = extract.root_motion(0).unwrap();
        let hips = extract.world_kform(0, 1).unwrap();
        assert!(
            (hips.pos.x - 10.0).abs() < 1e-3 && (hips.pos.z + 5.0).abs() < 1e-3,
            "{hips:?}"
        );
        assert!(d.velocity.y == 0.0 && d.displacement.y == 0.0);
        let now = apply.world_kform(0, 1).unwrap();
        assert_eq!(hips.pos.y, now.pos.y);
        let moved = now.pos - before.pos;
        let moved = r::length(Vec3::new(moved.x, 0.0, moved.z));
        assert!(
            (r::length(d.displacement) - moved).abs() < 1e-3,
            "{d:?} {moved}"
        );
        let turned = r::twist_angle(
            r::quat_mul_inv(r::quat_twist(now.rot, up), r::quat_twist(before.rot, up)),
            up,
        );
        assert!((d.turn - turned).abs() < 1e-4, "{d:?} {turned}");
        travelled += r::length(d.displacement);
        shown += moved;
        before = now;
    }
    assert!(shown > 5.0, "the clip travels: {shown}");
    assert!(
        (travelled - shown).abs() < 1e-3 * shown,
        "{travelled} {shown}"
    );
    // Applying root motion reports nothing.
    assert_eq!(apply.root_motion(0), Some(RootDelta::default()));
}

/// Extracted root motion is how the clips move, never where they stand:
/// transitions that jump across a travelling clip (forward and back) and
/// wraps around it report displacements no faster than the clip's root
/// ever moves (dead blending's fade allowed its share), in both crowds and
/// under both transitions. Mutations caught:
/// blending the root's place in a transition (the offset slides the root
/// at up to 160 units/s on top of the clip's 60), and reporting a wrap's
/// jump as travel (67 units in one step).
#[test]
fn extracted_root_motion_ignores_where_clips_stand() {
    let library = embedded();
    let clip = &library.clips()[0];
    let dt = 1.0 / 120.0;
    let top = (1..clip.frames())
        .map(|f| {
            let d = clip.pos(f, 0).unwrap() - clip.pos(f - 1, 0).unwrap();
            r::length(Vec3::new(d.x, 0.0, d.z)) / clip.frame_time()
        })
        .fold(0.0f32, f32::max);
    // Inertialization blends the two velocities (its cubic offset
    // overshoots a little); dead blending's fade adds its rate times the
    // gap between the extrapolated and the new path, up to about the
    // clip's top speed again over a 0.3 s blend.
    for (transition, bound) in [
        (Transition::Inertialize, 1.3 * top),
        (Transition::DeadBlend, 2.0 * top),
    ] {
        let cfg = CrowdConfig {
            characters: 3,
            transition,
            root_motion: RootMotion::Extract,
            ..Default::default()
        };
        let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
        for f in 0..720 {
            // Every 0.4 s character 0 jumps across the clip; character 1
            // plays on, wrapping around it every 2.3 s.
            if f % 48 == 47 {
                let a = Source::looping(0, if f % 96 == 47 { 1.8 } else { 0.3 });
                let cmd = Command::Transition {
                    a,
                    b: a,
                    duration: 0.3,
                    halflife: 0.1,
                };
                lanes.command(0, cmd).unwrap();
                reference.command(0, cmd).unwrap();
            }
            lanes.step(dt).unwrap();
            reference.step(dt).unwrap();
            for c in 0..2 {
                for (name, m) in [
                    ("lanes", lanes.root_motion(c).unwrap()),
                    ("reference", reference.root_motion(c).unwrap()),
                ] {
                    let (d, v) = (m.displacement, m.velocity);
                    let speed = r::length(d) / dt;
                    assert!(
                        speed <= bound && r::length(v) <= bound,
                        "{transition:?} {name} character {c} frame {f}: moved at {speed} \
                         units/s (velocity {v:?}), bound {bound}"
                    );
                }
            }
        }
    }
}

/// `set_roots` is that many `SetRoot` commands: the same world poses bit
/// for bit, the last root given for a character wins whichever way it was
/// given, and a bad root anywhere in the slice stages none of them.
/// Mutations caught: staging a root without its lane bit (the root is not
/// set), and staging the good roots before the bad one is found.
#[test]
fn set_roots_is_many_set_root_commands() {
    let library = embedded();
    let make = || {
        let cfg = CrowdConfig {
            characters: 21,
            ..Default::default()
        };
        let mut crowd = Crowd::new(&library, cfg).unwrap();
        for c in 0..21 {
            crowd
                .play(
                    c,
                    Source::looping(0, c as f32 * 0.05),
                    Source::looping(0, 0.3),
                )
                .unwrap();
        }
        crowd
    };
    let root = |c: usize, f: usize| Root {
        pos: Vec3::new(c as f32, 0.0, f as f32),
        vel: Vec3::new(0.0, 0.0, 60.0),
        ang: Vec3::new(0.0, 0.3, 0.0),
        ..Root::standing(Vec3::ZERO, c as f32 * 0.3)
    };
    let (mut one, mut many) = (make(), make());
    for f in 0..20 {
        let roots: Vec<Root> = (3..19).map(|c| root(c, f)).collect();
        many.set_roots(3, &roots).unwrap();
        for (k, r) in roots.iter().enumerate() {
            one.set_root(3 + k, *r).unwrap();
        }
        // Given twice: the last one wins, either way.
        one.set_root(5, root(50, f)).unwrap();
        many.command(5, Command::SetRoot(root(50, f))).unwrap();
        assert_eq!(one.queued(), many.queued());
        let (a, b) = (
            one.step(1.0 / 60.0).unwrap(),
            many.step(1.0 / 60.0).unwrap(),
        );
        assert_eq!(a.commands, if f == 0 { 38 } else { 17 });
        assert_eq!(a, b);
        assert!(
            bytemuck::cast_slice::<_, u32>(one.world())
                == bytemuck::cast_slice::<_, u32>(many.world())
        );
        let r = one.world_kform(5, 0).unwrap();
        assert!(
            (r.pos.x - 50.0).abs() < 1e-4 && (r.pos.z - f as f32).abs() < 1e-4,
            "{r:?}"
        );
    }
    // A bad root in the middle stages nothing.
    let mut roots: Vec<Root> = (0..10).map(|c| root(c, 99)).collect();
    roots[6].pos.y = f32::NAN;
    let before = many.world_kform(4, 0).unwrap();
    refused_at(many.set_roots(0, &roots), 6, "root position");
    assert!(matches!(
        many.set_roots(15, &roots),
        Err(Error::Index { .. })
    ));
    assert_eq!(many.queued(), 0);
    many.step(1.0 / 60.0).unwrap();
    let after = many.world_kform(4, 0).unwrap();
    assert!(
        (after.pos.z - before.pos.z - 1.0).abs() < 1e-3,
        "moved along its velocity only"
    );
}

/// The reference crowd takes roots for a range as the lanes crowd does:
/// the same world roots each step, and the same refusal (the first bad
/// character named, nothing queued) for a bad root in the middle.
/// Mutations caught: the reference queueing the roots one by one without
/// checking them all first (a bare `Parameter` after four were queued),
/// and `check_roots` naming the slice index rather than the character (4,
/// not 6).
#[test]
fn both_crowds_take_roots_for_a_range() {
    let library = embedded();
    let cfg = CrowdConfig {
        characters: 13,
        ..Default::default()
    };
    let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
    let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
    for f in 0..10 {
        let roots: Vec<Root> = (0..11)
            .map(|k| Root {
                pos: Vec3::new(k as f32, 0.0, f as f32),
                vel: Vec3::new(0.0, 0.0, 60.0),
                ..Root::standing(Vec3::ZERO, k as f32 * 0.5)
            })
            .collect();
        lanes.set_roots(2, &roots).unwrap();
        reference.set_roots(2, &roots).unwrap();
        assert_eq!(lanes.queued(), reference.queued());
        let (a, b) = (
            lanes.step(1.0 / 60.0).unwrap(),
            reference.step(1.0 / 60.0).unwrap(),
        );
        assert_eq!(a.commands, b.commands);
        for c in 0..13 {
            let (l, r) = (
                lanes.world_kform(c, 0).unwrap(),
                reference.world_kform(c, 0).unwrap(),
            );
            assert!(
                r::length(l.pos - r.pos) < 1e-4,
                "character {c}: {l:?} {r:?}"
            );
            assert!(
                r::quat_dot(l.rot, r.rot).abs() > 1.0 - 1e-6,
                "character {c}"
            );
        }
    }
    let mut roots = vec![Root::standing(Vec3::ZERO, 0.0); 7];
    roots[4].rot = Quat::new(0.5, 0.0, 0.0, 0.0);
    for e in [lanes.set_roots(2, &roots), reference.set_roots(2, &roots)] {
        refused_at(e, 6, "root rotation length");
    }
    assert_eq!((lanes.queued(), reference.queued()), (0, 0));
}

/// The demo's driver follows its sources' times itself instead of reading
/// them back: with transitions otherwise years apart, every one it gives is
/// the one that keeps a source from running off its clip, and no source is
/// ever held at an end (1,200 frames at two frame rates, 64 characters).
/// Fails if the driver stops advancing its times (a source then runs off
/// and holds) or advances them twice as fast (fewer, early transitions are
/// allowed, so that one shows as a source that transitions with more than
/// a step's play left: see the check on `left`).
#[test]
#[cfg(feature = "wander")]
fn wander_transitions_before_a_source_runs_off_its_clip() {
    use kineform::crowd::{Wander, WanderConfig};
    let library = embedded();
    let len = library.clips()[0].last_time();
    for fps in [30.0f32, 144.0] {
        let dt = 1.0 / fps;
        let mut crowd = crowd(64);
        let cfg = WanderConfig {
            transition_every: (1e6, 1e6),
            ..WanderConfig::default()
        };
        let mut wander = Wander::new(64, cfg);
        let (mut transitions, mut before) = (0, vec![len; 64]);
        for frame in 0..1200 {
            wander.update(&mut crowd, dt).unwrap();
            crowd.step(dt).unwrap();
            for (c, &left) in before.iter().enumerate() {
                let s = crowd.state(c).unwrap();
                assert!(
                    !s.a.held && !s.b.held,
                    "fps {fps} frame {frame} character {c}: {s:?}"
                );
                if frame > 0 && s.blend_time == 0.0 {
                    transitions += 1;
                    // The sources it left had at most three steps to go.
                    assert!(
                        left <= 3.0 * 1.2 * dt + 1e-4,
                        "fps {fps} character {c}: {left} s left"
                    );
                }
            }
            before = (0..64)
                .map(|c| {
                    let s = crowd.state(c).unwrap();
                    len - s.a.source.time.max(s.b.source.time)
                })
                .collect();
        }
        assert!(
            transitions > 64,
            "fps {fps}: only {transitions} transitions"
        );
    }
}

/// `r` is the refusal of character `character`'s root for its parameter
/// `name`.
fn refused_at(r: kineform::Result<()>, character: usize, name: &str) {
    match r {
        Err(Error::Character {
            character: c,
            error,
        }) if c == character => assert!(
            matches!(*error, Error::Parameter { name: n, .. } if n == name),
            "{error:?}"
        ),
        other => panic!("{other:?}"),
    }
}
