//! Layers and blend profiles (issue 23, item 1): masks built from joint
//! names, what an override and an additive layer mean (checked against
//! crowds without layers that play the same motion), and the typed
//! refusals of bad layers, masks, profiles and layer commands in both
//! crowds, each changing nothing.

use crate::crowds;
use crowds::*;

use kineform::Error;
use kineform::crowd::command::Which;
use kineform::crowd::{
    BlendProfile, ClipLibrary, Command, Crowd, CrowdConfig, Joints, Layer, Mask, ReferenceCrowd,
    Source,
};

/// The unwrapped cause of a refusal (a crowd names the character).
fn cause(e: &Error) -> &Error {
    match e {
        Error::Character { error, .. } => cause(error),
        e => e,
    }
}

/// Mask weights from joint names on the clips' skeleton: a subtree is the
/// joint and exactly the joints whose chain of parents reaches it; a
/// feather puts its root at the boundary weight; a list sets those joints
/// alone; a later part replaces an earlier one's weights where they meet.
/// Mutation caught: a subtree whose walk leaves its root unmarked
/// (`inside[top]` not set in `Joints::each`: the chest's children, from
/// Chest2, fall out of the subtree).
#[test]
fn masks_from_joint_names() {
    let library = embedded();
    let sk = library.skeleton();
    let parents = sk.parents();
    let chest = sk.find("Chest").unwrap();
    let below = |mut j: usize, top: usize| loop {
        if j == top {
            return true;
        }
        match parents[j] {
            p if p < 0 => return false,
            p => j = p as usize,
        }
    };
    let w = Mask::new()
        .feathered("Chest", 0.9, 0.25)
        .weights(sk)
        .unwrap();
    let mut inside = 0;
    for (j, &got) in w.iter().enumerate() {
        let want = match (j == chest, below(j, chest)) {
            (true, _) => 0.25,
            (false, true) => 0.9,
            _ => 0.0,
        };
        inside += (want > 0.0) as usize;
        assert_eq!(got, want, "joint {j} {}", sk.names()[j]);
    }
    assert!(
        inside > 10,
        "the chest's subtree has the arms and head: {inside}"
    );
    // A list, then a subtree over part of it, then a list over that.
    let w = Mask::new()
        .joints(&["lowerback", "Neck", "Head"], 0.5)
        .subtree("Neck", 1.0)
        .joints(&["Head"], 0.1)
        .weights(sk)
        .unwrap();
    for (j, name) in sk.names().iter().enumerate() {
        let want = match name.as_str() {
            "lowerback" => 0.5,
            "Head" => 0.1,
            _ if below(j, sk.find("Neck").unwrap()) => 1.0,
            _ => 0.0,
        };
        assert_eq!(w[j], want, "{name}");
    }
    // A profile: scales, snaps, the rest at 1.
    let s = BlendProfile::new()
        .scale(Joints::subtree("Neck"), 0.5)
        .snap(Joints::named(&["Head"]))
        .scales(sk)
        .unwrap();
    for (j, name) in sk.names().iter().enumerate() {
        let want = match name.as_str() {
            "Head" => 0.0,
            _ if below(j, sk.find("Neck").unwrap()) => 0.5,
            _ => 1.0,
        };
        assert_eq!(s[j], want, "{name}");
    }
}

/// Both crowds on `cfg`, or both refusals.
fn both(
    library: &ClipLibrary,
    cfg: CrowdConfig,
) -> Result<(Crowd, ReferenceCrowd), Box<[Error; 2]>> {
    match (
        Crowd::new(library, cfg.clone()),
        ReferenceCrowd::new(library, cfg),
    ) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(a), Err(b)) => Err(Box::new([a, b])),
        (a, b) => panic!(
            "the crowds disagree: {:?} {:?}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    }
}

/// Bad layers, masks and profiles are refused by both crowds when they
/// are built, with the part named ([`Error::Config`]: `layer k`, `blend
/// profile k`) and the cause typed: an unknown joint ([`Error::JointName`]),
/// a weight outside `[0, 1]` or a scale outside `(0, 1]`
/// ([`Error::Parameter`] naming it), too many ([`Error::Length`]).
/// Mutation caught: `Mask::weights` taking weights outside `[0, 1]`
/// (`unit` accepting any finite value: "mask weight 1.5" builds).
#[test]
fn bad_layers_masks_and_profiles_are_refused_naming_them() {
    let library = embedded();
    let upper = || Layer::overriding(Mask::new().subtree("Chest", 1.0));
    let base = CrowdConfig {
        characters: 9,
        ..Default::default()
    };
    type Want = fn(&Error) -> bool;
    let config = |part: &'static str, want: Want| {
        move |e: &Error| match e {
            Error::Config { part: p, error } => p == part && want(error),
            _ => false,
        }
    };
    let joint: Want = |e| matches!(e, Error::JointName { name } if name == "Tail");
    let param = |name: &'static str| move |e: &Error| matches!(e, Error::Parameter { name: n, .. } if *n == name);
    type Case = (&'static str, CrowdConfig, Box<dyn Fn(&Error) -> bool>);
    let cases: Vec<Case> = vec![
        (
            "unknown joint in a subtree",
            CrowdConfig {
                layers: vec![
                    upper(),
                    Layer::additive(Mask::new().subtree("Tail", 1.0), 0),
                ],
                ..base.clone()
            },
            Box::new(config("layer 1", joint)),
        ),
        (
            "unknown joint in a list",
            CrowdConfig {
                layers: vec![Layer::overriding(
                    Mask::new().joints(&["Head", "Tail"], 1.0),
                )],
                ..base.clone()
            },
            Box::new(config("layer 0", joint)),
        ),
        (
            "mask weight 1.5",
            CrowdConfig {
                layers: vec![Layer::overriding(Mask::new().subtree("Chest", 1.5))],
                ..base.clone()
            },
            Box::new(move |e| config("layer 0", |_| true)(e) && param("mask weight")(cause_of(e))),
        ),
        (
            "mask weight -0.1",
            CrowdConfig {
                layers: vec![Layer::overriding(Mask::new().joints(&["Head"], -0.1))],
                ..base.clone()
            },
            Box::new(move |e| param("mask weight")(cause_of(e))),
        ),
        (
            "feather NaN",
            CrowdConfig {
                layers: vec![Layer::overriding(Mask::new().feathered(
                    "Chest",
                    1.0,
                    f32::NAN,
                ))],
                ..base.clone()
            },
            Box::new(move |e| param("mask boundary weight")(cause_of(e))),
        ),
        (
            "five layers",
            CrowdConfig {
                layers: vec![upper(); 5],
                ..base.clone()
            },
            Box::new(|e| {
                matches!(
                    e,
                    Error::Length {
                        got: 5,
                        expected: 4,
                        ..
                    }
                )
            }),
        ),
        (
            "profile scale 0",
            CrowdConfig {
                blend_profiles: vec![
                    BlendProfile::new(),
                    BlendProfile::new().scale(Joints::subtree("Neck"), 0.0),
                ],
                ..base.clone()
            },
            Box::new(move |e| {
                config("blend profile 1", |_| true)(e) && param("blend profile scale")(cause_of(e))
            }),
        ),
        (
            "profile scale 1.5",
            CrowdConfig {
                blend_profiles: vec![BlendProfile::new().scale(Joints::named(&["Head"]), 1.5)],
                ..base.clone()
            },
            Box::new(move |e| param("blend profile scale")(cause_of(e))),
        ),
        (
            "unknown joint in a profile",
            CrowdConfig {
                blend_profiles: vec![BlendProfile::new().snap(Joints::subtree("Tail"))],
                ..base.clone()
            },
            Box::new(config("blend profile 0", joint)),
        ),
        (
            "seventeen profiles",
            CrowdConfig {
                blend_profiles: vec![BlendProfile::new(); 17],
                ..base.clone()
            },
            Box::new(|e| {
                matches!(
                    e,
                    Error::Length {
                        got: 17,
                        expected: 16,
                        ..
                    }
                )
            }),
        ),
    ];
    for (what, cfg, want) in cases {
        let errors = match both(&library, cfg) {
            Ok(_) => panic!("{what}: built"),
            Err(e) => e,
        };
        for e in errors.iter() {
            assert!(want(e), "{what}: {e:?}");
            assert!(!e.to_string().is_empty());
        }
    }
    // And what is in range builds: the edges of the ranges.
    let cfg = CrowdConfig {
        layers: vec![
            Layer::overriding(Mask::new().feathered("Chest", 1.0, 0.0)),
            Layer::additive(Mask::new().joints(&["Head"], 0.0), usize::MAX),
        ],
        blend_profiles: vec![BlendProfile::new().scale(Joints::subtree("Neck"), 1.0); 16],
        ..base
    };
    assert!(both(&library, cfg).is_ok());
}

/// [`cause`] of a [`Error::Config`]: the error inside.
fn cause_of(e: &Error) -> &Error {
    match e {
        Error::Config { error, .. } => error,
        e => e,
    }
}

/// Bad layer commands are refused by both crowds with typed errors and
/// nothing queued: a layer or profile past the crowd's ([`Error::Index`]),
/// weights outside `[0, 1]`, durations and half-lives that are not
/// positive, a source of a clip the library has not. Mutation caught:
/// `validate_in` not checking the layer of `SetRate` (`Which::Layer(2)`
/// accepted).
#[test]
fn bad_layer_commands_are_refused_changing_nothing() {
    let library = two_subjects();
    let cfg = layered(CrowdConfig {
        characters: 9,
        ..Default::default()
    });
    let (mut lanes, mut reference) = both(&library, cfg.clone()).unwrap();
    let (mut plain, mut plain_ref) = both(
        &library,
        CrowdConfig {
            layers: vec![],
            blend_profiles: vec![],
            ..cfg
        },
    )
    .unwrap();
    let ok = Source::looping(1, 0.5);
    let index = |what: &'static str, i: usize| move |e: &Error| matches!(e, Error::Index { what: w, index, .. } if *w == what && *index == i);
    let param = |name: &'static str| move |e: &Error| matches!(e, Error::Parameter { name: n, .. } if *n == name);
    type Check = Box<dyn Fn(&Error) -> bool>;
    let cases: Vec<(Command, Check, bool)> = vec![
        (
            Command::PlayLayer {
                layer: 2,
                source: ok,
            },
            Box::new(index("layer", 2)),
            true,
        ),
        (
            Command::SetRate {
                source: Which::Layer(2),
                rate: 1.0,
            },
            Box::new(index("layer", 2)),
            true,
        ),
        (
            Command::SetEnd {
                source: Which::Layer(7),
                end: kineform::crowd::ClipEnd::Hold,
            },
            Box::new(index("layer", 7)),
            true,
        ),
        (
            Command::SetBlendProfile { profile: Some(2) },
            Box::new(index("blend profile", 2)),
            true,
        ),
        (
            Command::PlayLayer {
                layer: 0,
                source: Source::looping(2, 0.0),
            },
            Box::new(|e| matches!(e, Error::Index { index: 2, .. })),
            false,
        ),
        (
            Command::SetLayerWeight {
                layer: 0,
                weight: 1.5,
            },
            Box::new(param("layer weight")),
            false,
        ),
        (
            Command::SetLayerWeight {
                layer: 1,
                weight: f32::NAN,
            },
            Box::new(param("layer weight")),
            false,
        ),
        (
            Command::LayerWeightToward {
                layer: 0,
                target: -0.1,
                halflife: 0.2,
            },
            Box::new(param("layer weight target")),
            false,
        ),
        (
            Command::LayerWeightToward {
                layer: 0,
                target: 0.5,
                halflife: 0.0,
            },
            Box::new(param("layer weight halflife")),
            false,
        ),
        (
            Command::TransitionLayer {
                layer: 1,
                source: ok,
                duration: 0.0,
                halflife: 0.1,
            },
            Box::new(param("transition duration")),
            false,
        ),
        (
            Command::TransitionLayer {
                layer: 1,
                source: ok,
                duration: 0.3,
                halflife: f32::INFINITY,
            },
            Box::new(param("transition halflife")),
            false,
        ),
    ];
    for (cmd, want, past_layers) in &cases {
        for (e, kind) in [
            (lanes.command(3, *cmd).unwrap_err(), "lanes"),
            (reference.command(3, *cmd).unwrap_err(), "reference"),
        ] {
            assert!(want(cause(&e)), "{kind}: {cmd:?}: {e:?}");
        }
        // A crowd without layers or profiles refuses every layer and
        // profile index.
        if *past_layers || matches!(cmd, Command::PlayLayer { .. }) {
            for e in [
                plain.command(3, *cmd).unwrap_err(),
                plain_ref.command(3, *cmd).unwrap_err(),
            ] {
                assert!(
                    matches!(cause(&e), Error::Index { .. }) || want(cause(&e)),
                    "no layers: {cmd:?}: {e:?}"
                );
            }
        }
    }
    for cmd in [
        Command::PlayLayer {
            layer: 0,
            source: ok,
        },
        Command::SetBlendProfile { profile: Some(0) },
    ] {
        let e = plain.command(0, cmd).unwrap_err();
        assert!(matches!(cause(&e), Error::Index { len: 0, .. }), "{e:?}");
    }
    assert_eq!(lanes.queued(), 0);
    assert_eq!(reference.queued(), 0);
    assert_eq!((plain.queued(), plain_ref.queued()), (0, 0));
    // Nothing changed: a step leaves the layers as a fresh crowd's.
    let (mut fresh, _) = both(&library, lanes.config().clone()).unwrap();
    lanes.step(1.0 / 60.0).unwrap();
    reference.step(1.0 / 60.0).unwrap();
    fresh.step(1.0 / 60.0).unwrap();
    for c in 0..9 {
        for k in 0..2 {
            assert_eq!(lanes.layer_state(c, k), fresh.layer_state(c, k));
            assert_eq!(reference.layer_state(c, k), fresh.layer_state(c, k));
        }
    }
}

/// What the layers mean, against crowds without layers, both crowds:
///
/// - an override at weight 1 whose mask is the whole body (the clips'
///   root joint's subtree) shows its source: the world poses of a crowd
///   playing that source as its base;
/// - an additive whose source is held at its reference frame (a delta of
///   identity), at any weight, moving or not, and an override whose mask
///   is empty, show the base alone.
///
/// Tolerances are `tests/suite/crowd/`'s (the slerp at 1 and the identity
/// delta round within them). Mutations caught: the override's weight
/// taken as `1 - m w` in the lanes' layers pass (the base shown: 182,256x
/// the position tolerance, the reference crowd within it); the
/// additive's delta taken against frame 0 instead of its reference frame
/// in the reference crowd (5,561x, the lanes within it).
#[test]
fn layers_mean_what_they_say() {
    let library = two_subjects();
    let root = library.skeleton().names()[0].clone();
    let ft = library.clips()[0].frame_time();
    let n = 9;
    let base = CrowdConfig {
        characters: n,
        ..Default::default()
    };
    let held = |clip: usize, time: f32| Source {
        rate: 0.0,
        ..Source::looping(clip, time)
    };
    // (the layers, the layered crowd's commands for character c, the
    // plain crowd's base that should be shown)
    type Commands = Box<dyn Fn(usize) -> Vec<Command>>;
    type Case = (
        &'static str,
        Vec<Layer>,
        Commands,
        Box<dyn Fn(usize) -> Source>,
    );
    let cases: Vec<Case> = vec![
        (
            "whole-body override at 1",
            vec![Layer::overriding(Mask::new().subtree(&root, 1.0))],
            Box::new(|c| {
                vec![
                    Command::PlayLayer {
                        layer: 0,
                        source: Source::looping(1, 0.3 * c as f32),
                    },
                    Command::SetLayerWeight {
                        layer: 0,
                        weight: 1.0,
                    },
                ]
            }),
            Box::new(|c| Source::looping(1, 0.3 * c as f32)),
        ),
        (
            "additive at its reference frame, weight moving",
            vec![Layer::additive(Mask::new().subtree(&root, 1.0), 10)],
            Box::new(move |c| {
                vec![
                    Command::PlayLayer {
                        layer: 0,
                        source: held(c % 2, 10.0 * ft),
                    },
                    Command::SetLayerWeight {
                        layer: 0,
                        weight: 0.3,
                    },
                    Command::LayerWeightToward {
                        layer: 0,
                        target: 1.0,
                        halflife: 0.1,
                    },
                ]
            }),
            Box::new(|c| Source::looping(0, 0.2 * c as f32)),
        ),
        (
            "override with an empty mask",
            vec![Layer::overriding(Mask::new())],
            Box::new(|c| {
                vec![
                    Command::PlayLayer {
                        layer: 0,
                        source: Source::looping(1, 0.1 * c as f32),
                    },
                    Command::SetLayerWeight {
                        layer: 0,
                        weight: 1.0,
                    },
                ]
            }),
            Box::new(|c| Source::looping(0, 0.2 * c as f32)),
        ),
    ];
    for (what, layers, commands, shown) in cases {
        let cfg = CrowdConfig {
            layers,
            ..base.clone()
        };
        let (mut lanes, mut reference) = both(&library, cfg).unwrap();
        let (mut plain, _) = both(&library, base.clone()).unwrap();
        for c in 0..n {
            let under = Source::looping(0, 0.2 * c as f32);
            for cmd in std::iter::once(Command::Play { a: under, b: under }).chain(commands(c)) {
                lanes.command(c, cmd).unwrap();
                reference.command(c, cmd).unwrap();
            }
            let s = shown(c);
            plain.command(c, Command::Play { a: s, b: s }).unwrap();
        }
        let mut diffs = [Diffs::default(), Diffs::default()];
        for _ in 0..20 {
            lanes.step(1.0 / 60.0).unwrap();
            reference.step(1.0 / 60.0).unwrap();
            plain.step(1.0 / 60.0).unwrap();
            for c in 0..n {
                for j in 0..plain.skeleton().len() {
                    let want = plain.world_kform(c, j).unwrap();
                    compare(&lanes.world_kform(c, j).unwrap(), &want, &mut diffs[0]);
                    compare(&reference.world_kform(c, j).unwrap(), &want, &mut diffs[1]);
                }
            }
        }
        assert!(diffs[0].within() && diffs[1].within(), "{what}: {diffs:?}");
    }
}
