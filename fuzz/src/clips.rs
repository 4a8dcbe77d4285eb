//! Clips, libraries and crowds from typed values (issue 21): the
//! structure-aware target behind defect 4. Where `crowd/` plays the
//! embedded clip only, this one builds the skeleton, the bone offsets and
//! every value of a clip from the fuzzer's choices with `arbitrary`
//! (finite values of every size, the domain's edges, special values, raw
//! bits), then a library, both crowds, commands and steps.
//!
//! The promise checked:
//! - nothing panics or aborts: every refusal is a typed error with a
//!   message;
//! - a clip [`Clip::new`] accepts is within the domain of
//!   [`kineform::limits`] (positions, scales, frame time, length), and
//!   written as BVH (where it has unit scales) it reads back with the same
//!   shape: what kineform writes it reads;
//! - a clip a library accepts, played by both crowds under any accepted
//!   commands and steps, gives world output that is finite in every field
//!   a game reads, and the crowds count nothing as not finite, with the
//!   velocity check on or off (the domain's promise: steps, velocities and
//!   forward kinematics finite);
//! - a step is refused by both crowds alike, and a refused step changes
//!   nothing (the root domain, defect 8).

use arbitrary::{Arbitrary, Result, Unstructured};
use kineform::crowd::{
    ClipEnd, ClipLibrary, Command, Crowd, CrowdConfig, ReferenceCrowd, Root, RootMotion, Sampling,
    Source, Transition, Which,
};
use kineform::reference::{self as r, Quat, Vec3};
use kineform::{Clip, Skeleton, limits};

/// An f32 the fuzzer picks: mostly ordinary, often at the domain's edges
/// or finite but huge, sometimes special or any bit pattern.
#[derive(Clone, Copy, Debug)]
pub struct F(pub f32);

impl<'a> Arbitrary<'a> for F {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<F> {
        const EDGES: [f32; 14] = [
            0.0,
            -0.0,
            1e6,
            -1e6,
            1.000_000_1e6,
            3e38,
            -3e38,
            1e33,
            1e-30,
            1e-6,
            1e9,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
        ];
        Ok(F(match u8::arbitrary(u)? {
            0..=159 => i16::arbitrary(u)? as f32 / 256.0,
            160..=199 => {
                let e = EDGES[usize::from(u8::arbitrary(u)?) % EDGES.len()];
                if bool::arbitrary(u)? { -e } else { e }
            }
            200..=239 => {
                // A power of ten between 1e-8 and 1e8, either sign.
                let p = f32::from(u8::arbitrary(u)? % 17) - 8.0;
                let m = f32::from(u8::arbitrary(u)?) / 255.0 + 0.5;
                let v = m * 10f32.powf(p);
                if bool::arbitrary(u)? { -v } else { v }
            }
            240..=249 => {
                [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][usize::from(u8::arbitrary(u)? % 3)]
            }
            _ => f32::from_bits(u32::arbitrary(u)?),
        }))
    }
}

fn v3(v: [F; 3]) -> Vec3 {
    Vec3::new(v[0].0, v[1].0, v[2].0)
}

/// A value of a clip or a skeleton: an ordinary one (`tame / 64`), or,
/// as often as the case's `wild` says, any [`F`]. Cases with a low `wild`
/// mostly build clips that are accepted (and played); cases with a high
/// one mostly probe refusals.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct N {
    pick: u8,
    tame: i16,
    wild: F,
}

impl N {
    fn get(self, wild: u8) -> f32 {
        match self.pick < wild / 4 {
            true => self.wild.0,
            false => f32::from(self.tame) / 64.0,
        }
    }
}

fn n3(v: [N; 3], wild: u8) -> Vec3 {
    Vec3::new(v[0].get(wild), v[1].get(wild), v[2].get(wild))
}

/// One joint: its parent (counted back from it) and its bone offset.
#[derive(Arbitrary, Debug)]
pub struct JointSpec {
    back: u8,
    root: bool,
    offset: [N; 3],
}

/// One sample of a clip: position, a rotation (a scaled angle axis, or
/// raw components as often as `wild` says) and a scale (one, uniform, or
/// any per axis as often as `wild` says).
#[derive(Arbitrary, Debug)]
pub struct SampleSpec {
    pos: [N; 3],
    rot_pick: u8,
    axis: [N; 3],
    raw: [F; 4],
    scale_pick: u8,
    uniform: i8,
    axes: [F; 3],
}

#[derive(Arbitrary, Debug)]
enum CommandSpec {
    Play(u8, F, F, u8, F, F),
    Transition(u8, F, F, F, F),
    Weight(F),
    Toward(F, F),
    Rate(bool, F),
    End(bool, u8),
    SetRoot([F; 3], F, [F; 3], F),
    Recenter([F; 3]),
}

/// A whole case: skeleton, one or two clips, a crowd, its commands and
/// steps.
#[derive(Arbitrary, Debug)]
pub struct Case {
    wild: u8,
    joints: Vec<JointSpec>,
    frames: u8,
    frame_time: (u8, F),
    samples: Vec<SampleSpec>,
    second_clip: bool,
    characters: u8,
    flags: u8,
    frames_of_commands: Vec<FrameSpec>,
}

/// One frame: commands to characters, then a step of a `dt` (an ordinary
/// one, or as often as the case's `wild` says any [`F`]).
type FrameSpec = (Vec<(u8, CommandSpec)>, (u8, F));

fn source(clip: u8, time: F, rate: F, end: u8) -> Source {
    Source {
        clip: usize::from(clip % 3),
        time: time.0,
        rate: rate.0,
        end: [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][usize::from(end % 3)],
    }
}

fn to_command(c: &CommandSpec) -> Option<Command> {
    Some(match *c {
        CommandSpec::Play(clip, t, rate, end, t2, rate2) => Command::Play {
            a: source(clip, t, rate, end),
            b: source(clip.wrapping_add(1), t2, rate2, end),
        },
        CommandSpec::Transition(clip, t, rate, d, h) => Command::Transition {
            a: source(clip, t, rate, 0),
            b: source(clip, t, rate, 0),
            duration: d.0,
            halflife: h.0,
        },
        CommandSpec::Weight(w) => Command::SetWeight { weight: w.0 },
        CommandSpec::Toward(w, h) => Command::WeightToward {
            target: w.0,
            halflife: h.0,
        },
        CommandSpec::Rate(b, rate) => Command::SetRate {
            source: if b { Which::B } else { Which::A },
            rate: rate.0,
        },
        CommandSpec::End(b, e) => Command::SetEnd {
            source: if b { Which::B } else { Which::A },
            end: [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][usize::from(e % 3)],
        },
        CommandSpec::SetRoot(pos, yaw, vel, turn) => Command::SetRoot(Root {
            pos: v3(pos),
            rot: r::quat_from_angle_axis(yaw.0 % 7.0, Vec3::new(0.0, 1.0, 0.0)),
            vel: v3(vel),
            ang: Vec3::new(0.0, turn.0, 0.0),
        }),
        CommandSpec::Recenter(_) => return None,
    })
}

/// The skeleton of `specs`: at most 12 joints, each parent before its
/// child.
fn skeleton(specs: &[JointSpec], wild: u8) -> Option<(Skeleton, Vec<Vec3>)> {
    let n = specs.len().clamp(1, 12);
    let parents: Vec<i32> = specs
        .iter()
        .take(n)
        .enumerate()
        .map(|(j, s)| match j {
            0 => -1,
            _ if s.root => -1,
            _ => j as i32 - 1 - i32::from(s.back) % j as i32,
        })
        .collect();
    let offsets = specs.iter().take(n).map(|s| n3(s.offset, wild)).collect();
    Some((Skeleton::new(parents).ok()?, offsets))
}

/// The clip of `c` on `joints` joints: each sample's values as given.
fn clip(c: &Case, joints: usize) -> kineform::Result<Clip> {
    let frames = usize::from(c.frames % 6) + 1;
    let n = frames * joints;
    let at = |i: usize| c.samples.get(i % c.samples.len().max(1));
    let (mut pos, mut rot, mut scl) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let w = c.wild;
        let (p, q, s) = match at(i) {
            None => (Vec3::ZERO, Quat::IDENTITY, Vec3::ONE),
            Some(s) => (
                n3(s.pos, w),
                match s.rot_pick < w / 8 {
                    false => r::quat_from_scaled_angle_axis(wrap(n3(s.axis, w))),
                    true => Quat::new(s.raw[0].0, s.raw[1].0, s.raw[2].0, s.raw[3].0),
                },
                match s.scale_pick {
                    p if p < w / 8 => v3(s.axes),
                    0..=159 => Vec3::ONE,
                    _ => Vec3::splat(1.25f32.powi(i32::from(s.uniform) / 4)),
                },
            ),
        };
        pos.push(p);
        rot.push(q);
        scl.push(s);
    }
    let (pick, any) = c.frame_time;
    let ft = match pick < c.wild / 4 {
        true => any.0,
        false => [1.0 / 30.0, 1.0 / 60.0, 1.0 / 120.0, 0.1, 1e-6, 0.5, 1e3][usize::from(pick % 7)],
    };
    Clip::new(frames, joints, ft, pos, rot, scl)
}

/// Each finite coordinate of `v` modulo 1000 (angles kept where the
/// exponential is finite; NaN and infinities as they are, to be refused).
fn wrap(v: Vec3) -> Vec3 {
    let f = |x: f32| if x.is_finite() { x % 1e3 } else { x };
    Vec3::new(f(v.x), f(v.y), f(v.z))
}

fn in_domain(c: &Clip) {
    let ok = |x: f32, lo: f32, hi: f32| x.is_finite() && x >= lo && x <= hi;
    let p = limits::MAX_POSITION;
    assert!(ok(c.frame_time(), limits::MIN_FRAME_TIME, limits::MAX_TIME));
    assert!(c.last_time() <= limits::MAX_TIME);
    for v in c.positions() {
        assert!(ok(v.x, -p, p) && ok(v.y, -p, p) && ok(v.z, -p, p), "{v:?}");
    }
    for s in c.scales() {
        let (lo, hi) = (limits::MIN_SCALE, limits::MAX_SCALE);
        assert!(
            ok(s.x, lo, hi) && ok(s.y, lo, hi) && ok(s.z, lo, hi),
            "{s:?}"
        );
    }
}

/// Every field of every world joint of both crowds, finite.
fn finite_world(lanes: Option<&Crowd>, reference: &ReferenceCrowd, what: &str) {
    let joints = reference.skeleton().len();
    for ch in 0..reference.characters() {
        for j in 0..joints {
            let mut ks = vec![reference.world_kform(ch, j).unwrap()];
            if let Some(l) = lanes {
                ks.push(l.world_kform(ch, j).unwrap());
            }
            for k in ks {
                let v = [
                    k.pos.x, k.pos.y, k.pos.z, k.rot.w, k.rot.x, k.rot.y, k.rot.z, k.vel.x,
                    k.vel.y, k.vel.z, k.ang.x, k.ang.y, k.ang.z,
                ];
                assert!(
                    v.iter().all(|x| x.is_finite()),
                    "{what}: character {ch} joint {j}: {k:?}"
                );
            }
        }
    }
}

/// Runs one case; returns how many steps both crowds took.
pub fn check_case(c: &Case) -> usize {
    let Some((skeleton, offsets)) = skeleton(&c.joints, c.wild) else {
        return 0;
    };
    let joints = skeleton.len();
    let first = match clip(c, joints) {
        Ok(clip) => clip,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return 0;
        }
    };
    in_domain(&first);
    // Written as BVH, a clip reads back (unit scales: BVH has none).
    if first.scales().iter().all(|s| *s == Vec3::ONE) {
        let b = kineform::convert::bvh_for_clip(&skeleton, &first).expect("unit scales");
        let text = kineform::bvh::write(&b, &first).expect("a clip kineform accepts writes");
        let back = kineform::bvh::parse(&text).expect("what kineform writes it reads");
        assert_eq!(
            (back.clip.frames(), back.clip.joints()),
            (first.frames(), first.joints())
        );
    }
    let mut library = match ClipLibrary::new(&skeleton, &offsets) {
        Ok(l) => l,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return 0;
        }
    };
    if let Err(e) = library.add(&skeleton, &first) {
        assert!(!e.to_string().is_empty());
        return 0;
    }
    if c.second_clip
        && let Ok(x) = first.excerpt(0..first.frames().div_ceil(2))
    {
        library
            .add(&skeleton, &x)
            .expect("an excerpt of an accepted clip");
    }
    let cfg = CrowdConfig {
        characters: usize::from(c.characters % 17) + 1,
        sampling: if c.flags & 1 == 0 {
            Sampling::Linear
        } else {
            Sampling::Cubic
        },
        transition: if c.flags & 2 == 0 {
            Transition::Inertialize
        } else {
            Transition::DeadBlend
        },
        root_motion: if c.flags & 4 == 0 {
            RootMotion::Apply
        } else {
            RootMotion::Extract
        },
        velocity_check: c.flags & 8 == 0,
        ..CrowdConfig::default()
    };
    let mut reference = ReferenceCrowd::new(&library, cfg.clone()).expect("a small crowd");
    // The lanes crowd plays unit scales only.
    let mut lanes = match Crowd::new(&library, cfg.clone()) {
        Ok(l) => Some(l),
        Err(e) => {
            assert!(
                library
                    .clips()
                    .iter()
                    .any(|c| c.scales().iter().any(|s| *s != Vec3::ONE)),
                "{e}"
            );
            None
        }
    };
    let n = cfg.characters;
    let mut steps = 0;
    for (commands, dt) in c.frames_of_commands.iter().take(8) {
        for (ch, spec) in commands.iter().take(16) {
            let ch = usize::from(*ch) % (n + 1);
            if let CommandSpec::Recenter(o) = spec {
                let a = reference.recenter(v3(*o));
                if let Some(l) = lanes.as_mut() {
                    assert_eq!(l.recenter(v3(*o)).is_ok(), a.is_ok());
                }
                continue;
            }
            let Some(cmd) = to_command(spec) else {
                continue;
            };
            let a = reference.command(ch, cmd);
            if let Some(l) = lanes.as_mut() {
                assert_eq!(l.command(ch, cmd).is_ok(), a.is_ok(), "{cmd:?}");
            }
        }
        let dt = match dt.0 < c.wild / 4 {
            true => dt.1.0,
            false => [1.0 / 60.0, 1.0 / 30.0, 1e-3, 0.25, 1e3][usize::from(dt.0 % 5)],
        };
        let frames = reference.world_kform(0, 0);
        let b = reference.step(dt);
        if let Some(l) = lanes.as_mut() {
            let a = l.step(dt);
            assert_eq!(a.is_ok(), b.is_ok(), "dt {dt}: {a:?} / {b:?}");
            if let Ok(a) = a {
                assert_eq!(a.velocity.non_finite, 0, "lanes: {a:?}");
            }
        }
        match b {
            Ok(s) => {
                finite_world(lanes.as_ref(), &reference, "after a step");
                assert_eq!(s.velocity.non_finite, 0, "reference: {s:?}");
                steps += 1;
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert_eq!(
                    reference.world_kform(0, 0),
                    frames,
                    "a refused step changes nothing"
                );
            }
        }
    }
    steps
}

/// [`check_case`] of the case the bytes build (nothing when they build
/// none).
pub fn check_clips(data: &[u8]) -> usize {
    let mut u = Unstructured::new(data);
    match Case::arbitrary(&mut u) {
        Ok(c) => check_case(&c),
        Err(_) => 0,
    }
}
