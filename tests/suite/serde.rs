//! serde (feature `serde`): skeletons and clips round-trip bit for bit,
//! deserializing validates as the constructors do, a crowd's saved
//! commands replay bit for bit, and a motion-matching database reads back
//! as the same database (same parts, same search results).
#![cfg(feature = "serde")]

use crate::shipped;

use kineform::{Clip, Skeleton, data};

#[test]
fn skeleton_and_clip_round_trip_bit_for_bit() {
    let b = data::default_clip();
    let s = serde_json::to_string(&b.skeleton).unwrap();
    assert!(s.starts_with(r#"{"parents":[-1,0,1,"#), "{}", &s[..40]);
    let sk: Skeleton = serde_json::from_str(&s).unwrap();
    assert_eq!(sk, b.skeleton);
    let c = serde_json::to_string(&b.clip).unwrap();
    let clip: Clip = serde_json::from_str(&c).unwrap();
    // f32 through JSON: serde_json prints the shortest text that reads back
    // as the same f32, so the clip is equal bit for bit.
    assert_eq!(clip, b.clip);
    let bits = |c: &Clip| -> Vec<u32> {
        c.rotations()
            .iter()
            .flat_map(|q| q.to_array().map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(&clip), bits(&b.clip));
    // Quaternions are named fields, w included: no order to guess.
    assert!(
        c.contains(r#""rot":[{"w":"#),
        "{}",
        &c[c.find("\"rot\"").unwrap()..][..40]
    );
}

#[test]
fn deserializing_validates() {
    // A parent that is not smaller than its child.
    let e = serde_json::from_str::<Skeleton>(r#"{"parents":[-1,2,1],"names":["a","b","c"]}"#)
        .unwrap_err();
    assert!(e.to_string().contains("skeleton joint 1"), "{e}");
    let e = serde_json::from_str::<Skeleton>(r#"{"parents":[-1],"names":[]}"#).unwrap_err();
    assert!(e.to_string().contains("names"), "{e}");
    // Arrays shorter than frames x joints; a frame time of zero.
    let zero = r#"{"x":0,"y":0,"z":0}"#;
    let one = r#"{"x":1,"y":1,"z":1}"#;
    let q = r#"{"w":1,"x":0,"y":0,"z":0}"#;
    let clip = |frames: usize, ft: f32, n: usize| {
        format!(
            r#"{{"frames":{frames},"joints":1,"frame_time":{ft},"pos":[{p}],"rot":[{r}],"scl":[{s}]}}"#,
            p = vec![zero; n].join(","),
            r = vec![q; n].join(","),
            s = vec![one; n].join(",")
        )
    };
    assert!(serde_json::from_str::<Clip>(&clip(2, 0.1, 2)).is_ok());
    let e = serde_json::from_str::<Clip>(&clip(3, 0.1, 2)).unwrap_err();
    assert!(
        e.to_string().contains("clip positions: expected length 3"),
        "{e}"
    );
    let e = serde_json::from_str::<Clip>(&clip(2, 0.0, 2)).unwrap_err();
    assert!(e.to_string().contains("frame_time"), "{e}");
}

/// Issue 21, defect 4: a clip with finite but huge values (positions of
/// 3e38, a scale of 3e38, 1e33 over a 1e-6 s frame time) deserializes to
/// an error naming the frame, the joint and the domain (it was accepted,
/// and a crowd stepped it into NaN).
#[test]
fn defect_4_deserializing_refuses_finite_but_huge_values() {
    let json = |pos: &str, scl: &str, ft: &str| {
        format!(
            r#"{{"frames":2,"joints":1,"frame_time":{ft},"pos":[{{"x":0,"y":0,"z":0}},{pos}],"rot":[{q},{q}],"scl":[{scl},{scl}]}}"#,
            q = r#"{"w":1,"x":0,"y":0,"z":0}"#
        )
    };
    let one = r#"{"x":1,"y":1,"z":1}"#;
    for (pos, scl, ft) in [
        (r#"{"x":3e38,"y":0,"z":0}"#, one, "0.01"),
        (
            r#"{"x":0,"y":0,"z":0}"#,
            r#"{"x":1,"y":3e38,"z":1}"#,
            "0.01",
        ),
        (r#"{"x":0,"y":1e33,"z":0}"#, one, "1e-6"),
    ] {
        let e = serde_json::from_str::<Clip>(&json(pos, scl, ft)).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("clip frame") && e.contains("kineform::limits"),
            "{e}"
        );
    }
    serde_json::from_str::<Clip>(&json(r#"{"x":1e6,"y":-1e6,"z":0}"#, one, "1e-6")).unwrap();
}

/// A game saves a crowd's session (its configuration, and each frame's
/// time and commands) as JSON and replays it: the replay's world poses are
/// the recording's bit for bit, every frame, on another thread count.
/// Mutation caught: one transition dropped from the replay (frame 51's)
/// shows in the next frame's poses (a transition's first frame shows the
/// pose the character would have shown anyway).
#[test]
#[cfg(feature = "wander")]
fn a_saved_session_replays_bit_for_bit() {
    use kineform::crowd::command::Command;
    use kineform::crowd::{
        ClipLibrary, Crowd, CrowdConfig, Driven, Sampling, Transition, Wander, WanderConfig,
    };

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Frame {
        dt: f32,
        commands: Vec<(usize, Command)>,
    }
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Session {
        config: CrowdConfig,
        frames: Vec<Frame>,
    }
    /// The random driver's commands, recorded on their way to the crowd.
    struct Recorder<'a> {
        crowd: &'a mut Crowd,
        log: Vec<(usize, Command)>,
    }
    impl Driven for Recorder<'_> {
        fn characters(&self) -> usize {
            self.crowd.characters()
        }
        fn library(&self) -> &ClipLibrary {
            self.crowd.library()
        }
        fn command(&mut self, c: usize, cmd: Command) -> kineform::Result<()> {
            self.log.push((c, cmd));
            self.crowd.command(c, cmd)
        }
    }
    let bits =
        |crowd: &Crowd| -> Vec<u32> { bytemuck::cast_slice::<_, u32>(crowd.world()).to_vec() };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };

    let library = ClipLibrary::from_bvh(&data::default_clip()).unwrap();
    let config = CrowdConfig {
        characters: 37,
        transition: Transition::DeadBlend,
        sampling: Sampling::Cubic,
        ..CrowdConfig::default()
    };
    let mut crowd = Crowd::new(&library, config.clone()).unwrap();
    let mut wander = Wander::new(
        37,
        WanderConfig {
            transition_every: (0.2, 0.6),
            ..WanderConfig::default()
        },
    );
    let mut session = Session {
        config,
        frames: Vec::new(),
    };
    let mut recorded = Vec::new();
    pool(2).install(|| {
        for f in 0..150 {
            let dt = [1.0 / 60.0, 1.0 / 47.0, 1.0 / 73.0][f % 3];
            let mut rec = Recorder {
                crowd: &mut crowd,
                log: Vec::new(),
            };
            wander.update(&mut rec, dt).unwrap();
            let commands = rec.log;
            crowd.step(dt).unwrap();
            recorded.push(bits(&crowd));
            session.frames.push(Frame { dt, commands });
        }
    });
    let json = serde_json::to_string(&session).unwrap();
    let transitions = json.matches("Transition").count();
    assert!(transitions > 20, "the session transitions: {transitions}");

    let saved: Session = serde_json::from_str(&json).unwrap();
    let mut replay = Crowd::new(&library, saved.config).unwrap();
    pool(1).install(|| {
        for (f, frame) in saved.frames.iter().enumerate() {
            for &(c, cmd) in &frame.commands {
                replay.command(c, cmd).unwrap();
            }
            replay.step(frame.dt).unwrap();
            assert!(bits(&replay) == recorded[f], "frame {f} differs");
        }
    });
}

#[test]
fn a_matching_database_round_trips_and_searches_the_same() {
    use kineform::matching::{FootFeatures, Match, MatchDatabase, QueryBatch, search};
    for feet in shipped::FEATURE_SETS {
        let db = shipped::shipped(feet);
        let text = serde_json::to_string(&db).unwrap();
        // Written from the database in place, the same text as its parts'.
        assert_eq!(
            text,
            serde_json::to_string(&db.to_parts().unwrap()).unwrap()
        );
        let back: MatchDatabase = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_parts().unwrap(), db.to_parts().unwrap());
        assert_eq!(back.memory(), db.memory());
        // Queries from every 97th frame, searched in both.
        let mut batch = QueryBatch::new(&db);
        for f in (0..db.frames()).step_by(97) {
            let mut q = db.features(f).unwrap();
            q.resize(db.layout().padded(), 0.0);
            batch.push(&q, None).unwrap();
        }
        let none = Match {
            frame: 0,
            distance: 0.0,
        };
        let (mut a, mut b) = (vec![none; batch.len()], vec![none; batch.len()]);
        search::accelerated(&db, &batch, &mut a).unwrap();
        search::accelerated(&back, &batch, &mut b).unwrap();
        assert_eq!(a, b);
        if feet == FootFeatures::DEMO {
            // Deserializing checks as from_parts does: a database whose
            // feature rows do not match its frames is refused by name.
            let mut parts = db.to_parts().unwrap();
            parts.searchable.push(true);
            let bad = serde_json::to_string(&parts).unwrap();
            let e = serde_json::from_str::<MatchDatabase>(&bad).unwrap_err();
            assert!(e.to_string().contains("features"), "{e}");
        }
    }
}
