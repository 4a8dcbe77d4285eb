//! Refusals, the order rule, rates and clip ends, and clips of another
//! hierarchy.

use super::*;

/// Every bad argument is refused at the call with a typed error that names
/// it, and nothing is queued: the crowd steps exactly as a twin that never
/// got the command.
#[test]
fn bad_commands_are_refused_and_change_nothing() {
    let ok = Source::looping(0, 0.5);
    let bad_sources = [
        (Source { clip: 1, ..ok }, "source A clip"),
        (
            Source {
                time: f32::NAN,
                ..ok
            },
            "source A time",
        ),
        (
            Source {
                time: f32::INFINITY,
                ..ok
            },
            "source A time",
        ),
        (
            Source {
                rate: f32::NAN,
                ..ok
            },
            "source A rate",
        ),
        (Source { rate: 1e30, ..ok }, "source A rate"),
    ];
    let mut bad: Vec<(usize, Command, &str)> = Vec::new();
    for (s, name) in bad_sources {
        bad.push((0, Command::Play { a: s, b: ok }, name));
        bad.push((
            0,
            Command::Transition {
                a: ok,
                b: s,
                duration: 0.3,
                halflife: 0.2,
            },
            &name[..0],
        ));
    }
    let tr = |duration: f32, halflife: f32| Command::Transition {
        a: ok,
        b: ok,
        duration,
        halflife,
    };
    bad.extend([
        (0, tr(0.0, 0.2), "transition duration"),
        (0, tr(-0.3, 0.2), "transition duration"),
        (0, tr(f32::NAN, 0.2), "transition duration"),
        (0, tr(0.3, 0.0), "transition halflife"),
        (0, tr(0.3, f32::INFINITY), "transition halflife"),
        (0, Command::SetWeight { weight: 1.5 }, "weight"),
        (0, Command::SetWeight { weight: -0.1 }, "weight"),
        (0, Command::SetWeight { weight: f32::NAN }, "weight"),
        (
            0,
            Command::WeightToward {
                target: 0.5,
                halflife: 0.0,
            },
            "weight halflife",
        ),
        (
            0,
            Command::WeightToward {
                target: 2.0,
                halflife: 0.5,
            },
            "weight target",
        ),
        (
            0,
            Command::SetRate {
                source: Which::B,
                rate: f32::NEG_INFINITY,
            },
            "rate",
        ),
        (
            0,
            Command::SetRoot(Root {
                pos: Vec3::new(f32::NAN, 0.0, 0.0),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root position",
        ),
        (
            0,
            Command::SetRoot(Root {
                rot: Quat::new(2.0, 0.0, 0.0, 0.0),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root rotation",
        ),
        (
            0,
            Command::SetRoot(Root {
                vel: Vec3::new(0.0, f32::INFINITY, 0.0),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root velocity",
        ),
        (
            0,
            Command::SetRoot(Root {
                ang: Vec3::new(0.0, 0.0, 2e6),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root angular velocity",
        ),
        (
            0,
            Command::SetRoot(Root {
                pos: Vec3::new(0.0, f32::NAN, 0.0),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root position",
        ),
        (
            0,
            Command::SetRoot(Root {
                rot: Quat::new(f32::NAN, 0.0, 0.0, 0.0),
                ..Root::standing(Vec3::ZERO, 0.0)
            }),
            "root rotation",
        ),
        (9, Command::SetWeight { weight: 0.5 }, "character"),
    ]);
    for (c, cmd, name) in bad {
        let (mut a, mut b) = (crowd(9), crowd(9));
        let e = a.command(c, cmd).unwrap_err();
        assert!(
            matches!(e, Error::Parameter { .. } | Error::Index { .. }),
            "{cmd:?}: {e:?}"
        );
        assert!(
            e.to_string().contains(name),
            "{cmd:?}: {e} should name {name}"
        );
        assert_eq!(a.queued(), 0, "{cmd:?} was queued");
        for _ in 0..3 {
            a.step(1.0 / 60.0).unwrap();
            b.step(1.0 / 60.0).unwrap();
        }
        let (wa, wb): (&[u8], &[u8]) = (
            bytemuck::cast_slice(a.world()),
            bytemuck::cast_slice(b.world()),
        );
        assert!(wa == wb, "{cmd:?} changed the crowd");
    }
    // A bad frame time: refused, nothing changes.
    for dt in [0.0, -0.01, f32::NAN, f32::INFINITY, 1e4] {
        let mut a = crowd(9);
        a.set_weight(3, 0.5).unwrap();
        assert!(matches!(
            a.step(dt),
            Err(Error::Parameter { name: "dt", .. })
        ));
        assert_eq!(a.frames(), 0);
        assert_eq!(a.queued(), 1, "the queue waits for a good step");
    }
}

/// Commands for different characters may come in any order; each
/// character's own apply in the order given (a weight set after a target
/// wins; a target set after a weight moves it).
#[test]
fn commands_resolve_by_the_order_rule() {
    let (mut a, mut b) = (crowd(20), crowd(20));
    let cmds = [
        (3, Command::SetWeight { weight: 0.8 }),
        (
            17,
            Command::SetRate {
                source: Which::A,
                rate: -0.5,
            },
        ),
        (
            3,
            Command::WeightToward {
                target: 0.1,
                halflife: 0.3,
            },
        ),
        (
            9,
            Command::Play {
                a: Source::looping(0, 1.0),
                b: Source::looping(0, 1.1),
            },
        ),
    ];
    for (c, cmd) in cmds {
        a.command(c, cmd).unwrap();
    }
    for (c, cmd) in cmds.iter().rev() {
        // Reversed across characters, but character 3's two keep their order.
        if *c != 3 {
            b.command(*c, *cmd).unwrap();
        }
    }
    b.command(3, cmds[0].1).unwrap();
    b.command(3, cmds[2].1).unwrap();
    for _ in 0..10 {
        a.step(1.0 / 60.0).unwrap();
        b.step(1.0 / 60.0).unwrap();
    }
    let (wa, wb): (&[u8], &[u8]) = (
        bytemuck::cast_slice(a.world()),
        bytemuck::cast_slice(b.world()),
    );
    assert!(wa == wb);
    let s = a.state(3).unwrap();
    assert!(
        s.weight < 0.8 && s.weight > 0.1,
        "moving toward 0.1: {}",
        s.weight
    );
    // The other order: the weight set last holds.
    let mut c = crowd(20);
    c.command(3, cmds[2].1).unwrap();
    c.command(3, cmds[0].1).unwrap();
    c.step(1.0 / 60.0).unwrap();
    c.step(1.0 / 60.0).unwrap();
    assert_eq!(c.state(3).unwrap().weight, 0.8);
}

/// Rate 0 holds, a negative rate plays backwards, and at a clip's end a
/// source loops, holds, or holds and reports once.
#[test]
fn rates_and_clip_ends() {
    let mut crowd = crowd(8);
    let len = crowd.library().clips()[0].last_time();
    let near_end = |end| Source {
        clip: 0,
        time: len - 0.05,
        rate: 1.0,
        end,
    };
    crowd
        .play(0, near_end(ClipEnd::Loop), near_end(ClipEnd::Hold))
        .unwrap();
    crowd
        .play(
            1,
            near_end(ClipEnd::Event),
            Source {
                rate: 0.0,
                ..near_end(ClipEnd::Hold)
            },
        )
        .unwrap();
    crowd
        .play(
            2,
            Source {
                time: 0.05,
                rate: -1.0,
                ..near_end(ClipEnd::Event)
            },
            Source {
                time: 1.0,
                rate: -1.0,
                ..near_end(ClipEnd::Loop)
            },
        )
        .unwrap();
    let mut ended = Vec::new();
    for _ in 0..12 {
        crowd.step(1.0 / 60.0).unwrap();
        ended.extend(crowd.events().iter().copied());
    }
    let s = |c| crowd.state(c).unwrap();
    // Looped past the end: back near the start.
    assert!(s(0).a.source.time < 0.2, "{:?}", s(0).a);
    // Held at the end.
    assert_eq!(s(0).b.source.time, len);
    assert!(s(0).b.held);
    // Reported once, and held.
    let reports: Vec<_> = ended.iter().filter(|e| e.character == 1).collect();
    assert_eq!(reports.len(), 1, "{ended:?}");
    assert_eq!(reports[0].kind, EventKind::ClipEnded(Which::A));
    assert_eq!(s(1).a.source.time, len);
    // Rate 0: still.
    assert_eq!(s(1).b.source.time, len - 0.05);
    // Backwards: the reporting source stopped at 0, the looping one moved
    // back by 11 frames (a command applies after its step's advance: the
    // first of the 12 steps shows the time given).
    assert_eq!(s(2).a.source.time, 0.0);
    assert!(
        ended
            .iter()
            .any(|e| e.character == 2 && e.kind == EventKind::ClipEnded(Which::A))
    );
    assert!(
        (s(2).b.source.time - (1.0 - 11.0 / 60.0)).abs() < 1e-5,
        "{:?}",
        s(2).b
    );
    // A transition reports when it finishes.
    crowd
        .transition(
            4,
            Source::looping(0, 1.0),
            Source::looping(0, 1.1),
            0.1,
            0.2,
        )
        .unwrap();
    let mut finished = 0;
    for _ in 0..10 {
        crowd.step(1.0 / 60.0).unwrap();
        finished += crowd
            .events()
            .iter()
            .filter(|e| e.character == 4 && e.kind == EventKind::TransitionFinished)
            .count();
    }
    assert_eq!(finished, 1);
}

/// A clip of another hierarchy is refused, naming the first joint that
/// differs; one of the same hierarchy and other bones is accepted.
#[test]
fn clips_of_another_hierarchy_are_refused_by_name() {
    let mut library = embedded();
    let walk = load("cmu_12_01_walk_mb.bvh");
    let e = library.add_bvh(&walk).unwrap_err();
    match &e {
        Error::Skeleton { joint, reason } => {
            assert_eq!(*joint, 2, "{e}");
            assert!(
                reason.contains("LeftUpLeg") && reason.contains("LeftHip"),
                "{e}"
            );
        }
        _ => panic!("{e:?}"),
    }
    assert_eq!(library.len(), 1, "nothing added");
    assert_eq!(library.add_bvh(&load("cmu_131_01_max.bvh")).unwrap(), 1);
    // A clip whose joint count is not its skeleton's, and other frame times.
    let b = kineform::data::default_clip();
    let short = kineform::Clip::new(
        2,
        3,
        b.clip.frame_time(),
        vec![Vec3::ZERO; 6],
        vec![Quat::IDENTITY; 6],
        vec![Vec3::ONE; 6],
    )
    .unwrap();
    assert!(matches!(
        library.add(&b.skeleton, &short),
        Err(Error::Length { .. })
    ));
    let _ = ClipLibrary::new(&b.skeleton, &b.offsets[..3]).unwrap_err();
}
