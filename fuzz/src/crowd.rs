//! The crowd from fuzzer bytes (issue 13): a [`ClipLibrary`] (the embedded
//! CMU clip, perhaps with an excerpt of it as a second clip), a
//! [`CrowdConfig`] with every field chosen (sizes of 0 to 40 characters
//! and now and then an absurd one), [`Crowd::new`] and
//! [`ReferenceCrowd::new`], then up to 8 steps of a chosen `dt`, each after
//! a few commands through the public API with chosen values (special f32
//! values, raw bit patterns, characters and clips out of range).
//!
//! The promise checked:
//! - both constructors accept or both refuse, with a typed error; an
//!   absurd size is refused, never allocated;
//! - every command and `set_roots` range is accepted by both crowds or
//!   refused by both, as [`Command::validate`] says; a refused one leaves
//!   [`Crowd::queued`] as it was, an accepted one adds to it;
//! - a refused `dt` (0, negative, NaN, infinite, past 1000 s) is refused
//!   by both and changes nothing: frames, queue and world output
//!   bit-identical;
//! - after each step, every world value of both crowds (positions,
//!   rotations, velocities, angular velocities, root motion, also through
//!   `positions_into` and the other copies) is finite, and the states and
//!   frame statistics agree;
//! - while every accepted value lies in the domain the crowd tests
//!   generate (`tests/suite/commands.rs`: times within ±10 s, rates within ±2,
//!   durations and half-lives in [0.05, 1] s, roots within 50 units,
//!   30 units/s and 2 rad/s, steps in [0.002, 0.05] s, the article's
//!   fitted half-lives), the 8-lane crowd equals the reference within
//!   `tests/suite/crowd.rs`'s tolerances on every character and joint:
//!   positions 2e-4 + 2e-6 relative, rotations `1 - |dot| <= 1e-5`,
//!   velocities 2e-3 + 1e-5 relative, angular velocities 2e-4 + 1e-5
//!   relative, root motion 1e-3 + 1e-4 relative;
//! - layers (an upper-body override and an additive, now and then a
//!   mask naming a joint the skeleton has not, which both constructors
//!   refuse) and blend profiles (legs scaled, hands snapping) in some
//!   configurations, with layer commands and profile choices among the
//!   fuzzed commands (layers and profiles out of range too): the same
//!   promises hold for them;
//! - the 8-lane crowd's step is now and then run as tasks
//!   ([`Crowd::prepare`], the shown poses and the packs split at chosen
//!   points, some runs on scoped threads, some left for `finish`): every
//!   promise above holds for it as for [`Crowd::step`].

use std::sync::OnceLock;

use kineform::crowd::budget::MAX_BUDGET;
use kineform::crowd::{
    BlendProfile, Budget, CharacterCost, ClipEnd, ClipLibrary, ClipStorage, Command, Crowd,
    CrowdConfig, DeadBlendHalflives, Joints, Layer, Mask, ReferenceCrowd, Root, RootMotion,
    Sampling, Source, Transition, Which,
};
use kineform::reference::{self as r, Kform, Quat, Vec3};

use super::api::SPECIALS;

#[path = "readers/mod.rs"]
pub mod readers;

/// Reads choices from the fuzzer's bytes; past the end everything is zero.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    /// Mostly a value in `[lo, hi]`; else one of [`SPECIALS`] (negated
    /// half the time) or any bit pattern.
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let sel = self.u8();
        if sel < 150 {
            lo + (hi - lo) * (self.u16() as f32 / 65535.0)
        } else if sel < 235 {
            let s = SPECIALS[sel as usize % SPECIALS.len()];
            if sel & 1 == 1 { -s } else { s }
        } else {
            f32::from_bits(u32::from_le_bytes([
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
            ]))
        }
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.f32(-r, r), self.f32(-r, r), self.f32(-r, r))
    }
    /// A character: mostly in range or just past it, sometimes far past.
    fn character(&mut self, n: usize) -> usize {
        match self.u8() {
            0..=239 => self.u8() as usize % (n + 2),
            240..=247 => usize::MAX,
            248..=251 => n.wrapping_add(1 << 32),
            _ => u32::MAX as usize + 1,
        }
    }
    fn source(&mut self, clips: usize) -> Source {
        let clip = match self.u8() {
            0..=249 => self.u8() as usize % (clips + 1),
            _ => usize::MAX,
        };
        Source {
            clip,
            time: self.f32(-10.0, 10.0),
            rate: self.f32(-2.0, 2.0),
            end: self.end(),
        }
    }
    fn end(&mut self) -> ClipEnd {
        [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][self.u8() as usize % 3]
    }
    fn which(&mut self) -> Which {
        match self.u8() % 4 {
            0 | 1 => Which::A,
            2 => Which::B,
            _ => Which::Layer(self.u8() as usize % 4),
        }
    }
    /// A layer index: mostly one of a crowd's two, sometimes past them.
    fn layer(&mut self) -> usize {
        match self.u8() {
            0..=219 => self.u8() as usize % 3,
            _ => usize::MAX,
        }
    }
    /// A root: a yaw about +y (a unit rotation) or four chosen components.
    fn root(&mut self) -> Root {
        let pos = self.vec3(50.0);
        let rot = if self.u8() < 200 {
            r::quat_from_angle_axis(self.f32(-3.0, 3.0), Vec3::new(0.0, 1.0, 0.0))
        } else {
            Quat::new(
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
                self.f32(-1.0, 1.0),
            )
        };
        Root {
            pos,
            rot,
            vel: self.vec3(30.0),
            ang: self.vec3(2.0),
        }
    }
}

/// An upper-body override and an additive on the lower back (its
/// reference frame chosen), now and then a mask naming no joint.
fn layers(b: &mut Bytes) -> Vec<Layer> {
    let upper = match b.u8() % 16 {
        0 => Mask::new().subtree("Spine9", 1.0),
        _ => Mask::new().feathered("Chest", 1.0, 0.5),
    };
    let frame = b.u16() as usize;
    vec![
        Layer::overriding(upper),
        Layer::additive(Mask::new().subtree("lowerback", 1.0), frame),
    ]
}

/// Legs a third of the way, hands snapping.
fn profiles() -> Vec<BlendProfile> {
    vec![
        BlendProfile::new()
            .scale(Joints::subtree("LHipJoint"), 0.3)
            .scale(Joints::subtree("RHipJoint"), 0.3)
            .snap(Joints::named(&["lhand", "rhand"])),
    ]
}

/// The embedded CMU clip, parsed once.
fn embedded() -> &'static (kineform::bvh::Bvh, ClipLibrary) {
    static LIB: OnceLock<(kineform::bvh::Bvh, ClipLibrary)> = OnceLock::new();
    LIB.get_or_init(|| {
        let b = kineform::data::default_clip();
        let lib = ClipLibrary::from_bvh(&b).expect("the embedded clip makes a library");
        (b, lib)
    })
}

/// Absurd crowd sizes: each must be refused with a typed error.
const ABSURD: [usize; 6] = [
    usize::MAX,
    usize::MAX - 7,
    usize::MAX / 2,
    isize::MAX as usize,
    1 << 40,
    1 << 50,
];

fn within(x: f32, lo: f32, hi: f32) -> bool {
    x >= lo && x <= hi
}

fn vec_within(v: Vec3, r: f32) -> bool {
    v.to_array().iter().all(|x| within(*x, -r, r))
}

/// Whether an accepted command lies in the domain the crowd tests
/// generate, where lanes and reference are held to agree.
fn tame_command(cmd: &Command) -> bool {
    let source = |s: &Source| within(s.time, -10.0, 10.0) && within(s.rate, -2.0, 2.0);
    match cmd {
        Command::Play { a, b } => source(a) && source(b),
        Command::Transition {
            a,
            b,
            duration,
            halflife,
        } => source(a) && source(b) && within(*duration, 0.05, 1.0) && within(*halflife, 0.05, 1.0),
        Command::SetWeight { .. } | Command::SetEnd { .. } => true,
        Command::SetLayerWeight { .. } | Command::SetBlendProfile { .. } => true,
        Command::WeightToward { halflife, .. } => within(*halflife, 0.05, 1.0),
        Command::LayerWeightToward { halflife, .. } => within(*halflife, 0.05, 1.0),
        Command::PlayLayer { source: s, .. } => source(s),
        Command::TransitionLayer {
            source: s,
            duration,
            halflife,
            ..
        } => source(s) && within(*duration, 0.05, 1.0) && within(*halflife, 0.05, 1.0),
        Command::SetRate { rate, .. } => within(*rate, -2.0, 2.0),
        Command::SetRoot(root) => tame_root(root),
        Command::SetPeriod { .. } => true,
    }
}

fn tame_root(root: &Root) -> bool {
    let q = root.rot;
    let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    vec_within(root.pos, 50.0)
        && vec_within(root.vel, 30.0)
        && vec_within(root.ang, 2.0)
        && (n - 1.0).abs() <= 1e-6
}

fn finite3(v: Vec3) -> bool {
    v.to_array().iter().all(|x| x.is_finite())
}

fn finite_kform(k: &Kform) -> bool {
    finite3(k.pos)
        && finite3(k.vel)
        && finite3(k.ang)
        && k.rot.to_array().iter().all(|x| x.is_finite())
}

/// `|a - b| <= abs + rel |b|` (the scale from the reference `b` alone);
/// false on NaN.
fn near(a: Vec3, b: Vec3, abs: f32, rel: f32) -> bool {
    let d = r::length(a - b);
    d <= abs + rel * r::length(b)
}

/// Every world value of the 8-lane crowd, as bits (to see that a refused
/// step wrote nothing).
fn world_bits(lanes: &Crowd) -> Vec<u32> {
    let mut out = Vec::new();
    for c in 0..lanes.characters() {
        for j in 0..lanes.skeleton().len() {
            let k = lanes.world_kform(c, j).unwrap();
            for v in [k.pos, k.vel, k.ang] {
                out.extend(v.to_array().map(f32::to_bits));
            }
            out.extend(k.rot.to_array().map(f32::to_bits));
        }
        let m = lanes.root_motion(c).unwrap();
        out.extend(
            m.displacement
                .to_array()
                .into_iter()
                .chain(m.velocity.to_array())
                .chain([m.turn, m.turn_rate])
                .map(f32::to_bits),
        );
    }
    out
}

/// The checks after a step: finite output on both sides, the copies out
/// equal to `world_kform`, states equal, and in the tested domain the
/// tolerances of `tests/suite/crowd.rs`.
fn check_outputs(lanes: &Crowd, reference: &ReferenceCrowd, tame: bool, ctx: &dyn Fn() -> String) {
    let n = lanes.characters();
    let j = lanes.skeleton().len();
    let mut pos = vec![[0.0f32; 3]; n * j];
    let mut vel = vec![[0.0f32; 3]; n * j];
    let mut ang = vec![[0.0f32; 3]; n * j];
    let mut rot = vec![[0.0f32; 4]; n * j];
    lanes.positions_into(0..n, &mut pos).unwrap();
    lanes.velocities_into(0..n, &mut vel).unwrap();
    lanes.angular_velocities_into(0..n, &mut ang).unwrap();
    lanes.rotations_into(0..n, &mut rot).unwrap();
    let mut boxes = vec![kineform::crowd::Aabb::ZERO; n];
    lanes.bounds_into(0..n, &mut boxes).unwrap();
    assert_eq!(lanes.events(), reference.events(), "{}", ctx());
    for c in 0..n {
        assert_eq!(
            lanes.state(c),
            reference.state(c),
            "character {c}: states differ\n{}",
            ctx()
        );
        for k in 0..=lanes.config().layers.len() {
            assert_eq!(
                lanes.layer_state(c, k),
                reference.layer_state(c, k),
                "character {c}: layer {k}'s states differ\n{}",
                ctx()
            );
        }
        // Bounds (issue 24 item 4): finite where the output is (checked
        // below), each box the same as `bounds(c)`, and the crowds' boxes
        // within the positions' tolerance.
        let (lb, rb) = (lanes.bounds(c).unwrap(), reference.bounds(c).unwrap());
        assert!(
            boxes[c] == lb
                && finite3(lb.min)
                && finite3(lb.max)
                && finite3(rb.min)
                && finite3(rb.max),
            "character {c}: bounds {:?} / {lb:?}, reference {rb:?}\n{}",
            boxes[c],
            ctx()
        );
        if tame {
            assert!(
                near(lb.min, rb.min, 2e-4, 2e-6) && near(lb.max, rb.max, 2e-4, 2e-6),
                "character {c}: bounds lanes {lb:?} vs reference {rb:?}\n{}",
                ctx()
            );
        }
        let (lm, rm) = (
            lanes.root_motion(c).unwrap(),
            reference.root_motion(c).unwrap(),
        );
        let (ld, lv, rd, rv) = (lm.displacement, lm.velocity, rm.displacement, rm.velocity);
        let turns = [lm.turn, lm.turn_rate, rm.turn, rm.turn_rate];
        assert!(
            finite3(ld)
                && finite3(lv)
                && finite3(rd)
                && finite3(rv)
                && turns.iter().all(|t| t.is_finite()),
            "character {c}: root motion not finite: lanes {ld:?} {lv:?}, reference {rd:?} {rv:?}\n{}",
            ctx()
        );
        if tame {
            assert!(
                near(ld, rd, 1e-3, 1e-4) && near(lv, rv, 1e-3, 1e-4),
                "character {c}: root motion lanes {ld:?} {lv:?} vs reference {rd:?} {rv:?}\n{}",
                ctx()
            );
        }
        for jj in 0..j {
            let a = lanes.world_kform(c, jj).unwrap();
            let b = reference.world_kform(c, jj).unwrap();
            let at = c * j + jj;
            let q = a.rot;
            assert!(
                pos[at] == a.pos.to_array()
                    && vel[at] == a.vel.to_array()
                    && ang[at] == a.ang.to_array()
                    && rot[at] == [q.x, q.y, q.z, q.w],
                "character {c} joint {jj}: copies out differ from world_kform\n{}",
                ctx()
            );
            assert!(
                finite_kform(&a),
                "character {c} joint {jj}: lanes output not finite: {a:?}\n{}",
                ctx()
            );
            assert!(
                finite_kform(&b),
                "character {c} joint {jj}: reference output not finite: {b:?}\n{}",
                ctx()
            );
            if tame {
                let ok = near(a.pos, b.pos, 2e-4, 2e-6)
                    && 1.0 - r::quat_dot(a.rot, b.rot).abs() <= 1e-5
                    && near(a.vel, b.vel, 2e-3, 1e-5)
                    && near(a.ang, b.ang, 2e-4, 1e-5);
                assert!(
                    ok,
                    "character {c} joint {jj}: lanes {a:?}\n vs reference {b:?}\n{}",
                    ctx()
                );
            }
        }
    }
}

/// The fuzz target's check. Returns the number of steps both crowds ran
/// (0 where the constructors refused) and how many of them were compared
/// within tolerances (in the tested domain), for the smoke test's counts.
pub fn check_crowd(data: &[u8]) -> (usize, usize) {
    let mut b = Bytes(data);
    let (bvh, base) = embedded();

    // The library: the embedded clip, perhaps an excerpt of it as well.
    let mut library = base.clone();
    if b.u8() % 4 == 0 {
        let frames = bvh.clip.frames();
        let start = b.u16() as usize % (frames + 4);
        let end = start.saturating_add(b.u16() as usize % (frames + 4));
        match bvh.clip.excerpt(start..end) {
            Ok(clip) => {
                library
                    .add(&bvh.skeleton, &clip)
                    .expect("an excerpt of a library clip is accepted");
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(
                    start >= end || end > frames,
                    "excerpt {start}..{end} refused: {e}"
                );
            }
        }
    }
    let clips = library.len();
    // Markers: a few, at any time (refused ones add nothing).
    for _ in 0..b.u8() % 4 {
        let clip = b.u8() as usize % clips;
        let time = b.f32(0.0, library.clips()[clip].last_time());
        if let Err(e) = library.add_marker(clip, "m", time) {
            assert!(!e.to_string().is_empty());
        }
    }

    // The configuration.
    let sel = b.u8();
    let characters = if sel < 244 {
        b.u8() as usize % 41
    } else {
        ABSURD[sel as usize % ABSURD.len()]
    };
    let flags = b.u8();
    let clip_storage = match b.u8() % 3 {
        0 => ClipStorage::Full,
        1 => ClipStorage::Compact,
        _ => ClipStorage::Stepped,
    };
    let dead_blend_halflives = match b.u8() % 4 {
        0 | 1 => DeadBlendHalflives::Command,
        2 => DeadBlendHalflives::FITTED,
        _ => DeadBlendHalflives::Fitted {
            scale: b.f32(0.05, 1.0),
            min: b.f32(0.05, 0.5),
            max: b.f32(0.1, 2.0),
        },
    };
    // Bounds' joint radii: none, one per joint in range, or a drawn list
    // (any length; negative, past 1e6, or not finite: refused by both).
    let clip_joints = library.skeleton().len();
    let joint_radii: Vec<f32> = match b.u8() % 4 {
        0 | 1 => Vec::new(),
        2 => (0..clip_joints).map(|_| b.f32(0.0, 10.0)).collect(),
        _ => {
            let n = match b.u8() % 2 {
                0 => clip_joints,
                _ => b.u8() as usize % 40,
            };
            let bad = [-1.0, f32::NAN, f32::INFINITY, 2e6, 1e6, 0.0];
            (0..n)
                .map(|_| match b.u8() {
                    0..=199 => b.f32(0.0, 10.0),
                    s => bad[s as usize % bad.len()],
                })
                .collect()
        }
    };
    let cfg = CrowdConfig {
        characters,
        joint_radii,
        sampling: if flags & 1 == 0 {
            Sampling::Linear
        } else {
            Sampling::Cubic
        },
        transition: if flags & 2 == 0 {
            Transition::Inertialize
        } else {
            Transition::DeadBlend
        },
        root_motion: if flags & 4 == 0 {
            RootMotion::Apply
        } else {
            RootMotion::Extract
        },
        velocity_check: flags & 8 == 0,
        up: kineform::reference::Vec3::new(0.0, 1.0, 0.0),
        dead_blend_halflives,
        marker_weight: if flags & 64 == 0 { 0.0 } else { 0.5 },
        layers: match flags & 16 != 0 {
            true => layers(&mut b),
            false => Vec::new(),
        },
        blend_profiles: match flags & 32 != 0 {
            true => profiles(),
            false => Vec::new(),
        },
        clip_storage,
        level_of_detail: flags & 128 != 0,
    };
    let lanes = Crowd::new(&library, cfg.clone());
    let reference = ReferenceCrowd::new(&library, cfg.clone());
    let (mut lanes, mut reference) = match (lanes, reference) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(a), Err(b)) => {
            assert!(!a.to_string().is_empty() && !b.to_string().is_empty());
            return (0, 0);
        }
        (a, b) => panic!(
            "{cfg:?}: the constructors disagree: lanes {:?}, reference {:?}",
            a.err(),
            b.err()
        ),
    };
    assert!(
        (1..=40).contains(&characters),
        "{cfg:?}: an absurd size was accepted"
    );
    // Lanes and reference are held to agree while every accepted value is
    // in the tested domain.
    let mut tame = match cfg.dead_blend_halflives {
        DeadBlendHalflives::Command => true,
        f => f == DeadBlendHalflives::FITTED,
    };
    let mut log: Vec<String> = vec![format!("{cfg:?}, {clips} clips")];
    let fixed = readers::Bind::fixed(lanes.skeleton());

    let steps = 1 + b.u8() as usize % 8;
    let (mut ran, mut compared) = (0, 0);
    // Whether a SetPeriod is queued (a budget is refused then): until a
    // step runs (a refused step leaves the queue as it was).
    let mut period_queued = false;
    for _ in 0..steps {
        let commands = b.u8() % 6;
        for _ in 0..commands {
            command(
                &mut b,
                (&mut lanes, &mut reference),
                clips,
                (&mut tame, &mut period_queued),
                &mut log,
            );
        }
        let dt = match b.u8() {
            0..=99 => 1.0 / 60.0,
            _ => b.f32(0.002, 0.05),
        };
        let frames = lanes.frames();
        let queued = lanes.queued();
        let before = world_bits(&lanes);
        let as_tasks = b.u8() % 3 == 0;
        let sl = match as_tasks {
            true => step_as_tasks(&mut lanes, dt, &mut b),
            false => lanes.step(dt),
        };
        let sr = reference.step(dt);
        log.push(format!(
            "step({dt:e}{})",
            if as_tasks { ", as tasks" } else { "" }
        ));
        let ctx = || log.join("\n");
        match (sl, sr) {
            (Ok(sl), Ok(sr)) => {
                assert!(
                    dt.is_finite() && dt > 0.0 && dt <= 1000.0,
                    "dt {dt:e} accepted\n{}",
                    ctx()
                );
                assert_eq!(
                    (sl.transitions, sl.commands),
                    (sr.transitions, sr.commands),
                    "frame statistics differ\n{}",
                    ctx()
                );
                assert_eq!(lanes.queued(), 0, "{}", ctx());
                period_queued = false;
                tame &= within(dt, 0.002, 0.05);
                check_outputs(&lanes, &reference, tame, &ctx);
                readers::after_step(&lanes, &reference, &fixed, tame, &ctx);
                ran += 1;
                compared += tame as usize;
            }
            (Err(a), Err(b2)) => {
                assert!(!a.to_string().is_empty() && !b2.to_string().is_empty());
                assert!(
                    lanes.frames() == frames
                        && lanes.queued() == queued
                        && world_bits(&lanes) == before,
                    "a refused dt {dt:e} changed the crowd\n{}",
                    ctx()
                );
            }
            (a, b2) => panic!(
                "dt {dt:e}: the crowds disagree: lanes {:?}, reference {:?}\n{}",
                a.err(),
                b2.err(),
                ctx()
            ),
        }
    }
    // The matrix readers with the bytes left (`src/readers/`).
    readers::fuzzed_reads(
        &mut b,
        (&lanes, &reference),
        &fixed,
        tame && ran > 0,
        &mut log,
    );
    (ran, compared)
}

/// The lanes crowd's step as tasks: the shown poses in up to 3 runs on
/// scoped threads (or left to the packs), the packs cut at up to 4 chosen
/// points (past the end too), the runs on scoped threads but one chosen
/// run left for `finish`.
fn step_as_tasks(
    lanes: &mut Crowd,
    dt: f32,
    b: &mut Bytes,
) -> kineform::Result<kineform::crowd::FrameStats> {
    let mut frame = lanes.prepare(dt)?;
    let shown = b.u8() as usize % 4;
    if shown > 0 {
        std::thread::scope(|s| {
            for part in frame.shown().split(shown) {
                s.spawn(move || part.run());
            }
        });
    }
    let mut runs = vec![frame.packs()];
    for _ in 0..b.u8() % 5 {
        let run = runs.remove(b.u8() as usize % runs.len());
        let (x, y) = run.split_at(b.u8() as usize);
        runs.extend([x, y]);
    }
    let left = b.u8() as usize % (runs.len() + 1);
    std::thread::scope(|s| {
        for (k, run) in runs.into_iter().enumerate() {
            if k != left {
                s.spawn(move || run.run());
            }
        }
    });
    Ok(frame.finish())
}

/// A layer command, or a blend profile chosen (one past the crowd's now
/// and then).
fn layer_command(b: &mut Bytes, clips: usize) -> Command {
    match b.u8() % 5 {
        0 => Command::PlayLayer {
            layer: b.layer(),
            source: b.source(clips),
        },
        1 => Command::TransitionLayer {
            layer: b.layer(),
            source: b.source(clips),
            duration: b.f32(0.05, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        2 => Command::SetLayerWeight {
            layer: b.layer(),
            weight: b.f32(0.0, 1.0),
        },
        3 => Command::LayerWeightToward {
            layer: b.layer(),
            target: b.f32(0.0, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        _ => Command::SetBlendProfile {
            profile: (!b.u8().is_multiple_of(3)).then(|| b.u8() as usize % 2),
        },
    }
}

/// A budget (set, changed or cleared; seconds and a cost per character
/// in and out of range) or significances for characters `first..` (any
/// values, ranges past the end) to both crowds: the same acceptance, and
/// a refusal changes nothing (a budget is refused while a `SetPeriod` is
/// queued, `period_queued`). Only fixed costs are accepted here (a
/// measured cost differs between the crowds, and so would their choices):
/// a measured budget is drawn with seconds out of range, refused by both.
fn budget(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    (first, period_queued): (usize, bool),
    log: &mut Vec<String>,
) {
    let was = (lanes.budget(), reference.budget());
    assert_eq!(was.0, was.1, "{}", log.join("\n"));
    let lod = lanes.config().level_of_detail;
    if b.u8().is_multiple_of(2) {
        let budget = match b.u8() % 4 {
            0 => None,
            1 => Some(Budget::measured(-b.f32(0.0, 1.0).abs() - 1e-3)),
            _ => Some(Budget::fixed(b.f32(1e-6, 1e-2), b.f32(1e-7, 1e-4))),
        };
        let (res, res_ref) = (lanes.set_budget(budget), reference.set_budget(budget));
        log.push(format!("set_budget({budget:?}) -> {res:?}"));
        let valid = budget.is_none_or(|b| {
            let k = match b.cost {
                CharacterCost::Fixed(k) => k > 0.0 && k <= 1.0,
                CharacterCost::Measured => true,
            };
            lod && !period_queued && b.seconds > 0.0 && b.seconds <= MAX_BUDGET && k
        });
        assert_eq!(
            format!("{res:?}"),
            format!("{res_ref:?}"),
            "the crowds disagree on set_budget\n{}",
            log.join("\n")
        );
        assert_eq!(res.is_ok(), valid, "{}", log.join("\n"));
        let now = (lanes.budget(), reference.budget());
        match res {
            Ok(()) => assert_eq!(now, (budget, budget), "{}", log.join("\n")),
            Err(_) => assert_eq!(now, was, "a refused budget changed it\n{}", log.join("\n")),
        }
        return;
    }
    let n = lanes.characters();
    let values: Vec<f32> = (0..b.u8() % 12).map(|_| b.f32(-1e3, 1e3)).collect();
    let (res, res_ref) = (
        lanes.set_significance(first, &values),
        reference.set_significance(first, &values),
    );
    log.push(format!("set_significance({first}, {values:?}) -> {res:?}"));
    let valid = first.checked_add(values.len()).is_some_and(|e| e <= n)
        && values.iter().all(|v| !v.is_nan());
    assert_eq!(
        format!("{res:?}"),
        format!("{res_ref:?}"),
        "the crowds disagree on set_significance\n{}",
        log.join("\n")
    );
    assert_eq!(res.is_ok(), valid, "{}", log.join("\n"));
}

/// One fuzzed command (or `set_roots` range) to both crowds.
fn command(
    b: &mut Bytes,
    (lanes, reference): (&mut Crowd, &mut ReferenceCrowd),
    clips: usize,
    (in_domain, period_queued): (&mut bool, &mut bool),
    log: &mut Vec<String>,
) {
    let n = lanes.characters();
    let kind = b.u8() % 10;
    let c = b.character(n);
    let queued = lanes.queued();
    if kind == 9 {
        budget(b, (lanes, reference), (c, *period_queued), log);
        return;
    }
    if kind == 7 {
        // set_roots over a range, to both crowds: the same acceptance, the
        // same refusal (the first bad character named), nothing queued
        // on a refusal.
        let first = c;
        let count = b.u8() as usize % 6;
        let roots: Vec<Root> = (0..count).map(|_| b.root()).collect();
        let (ref_queued, res) = (reference.queued(), lanes.set_roots(first, &roots));
        let ref_res = reference.set_roots(first, &roots);
        log.push(format!("set_roots({first}, {roots:?}) -> {res:?}"));
        let valid = first.checked_add(count).is_some_and(|e| e <= n)
            && roots
                .iter()
                .all(|r| Command::SetRoot(*r).validate(lanes.library()).is_ok());
        // Compared as text: a refused NaN is not equal to itself.
        assert_eq!(
            format!("{res:?}"),
            format!("{ref_res:?}"),
            "the crowds disagree on set_roots\n{}",
            log.join("\n")
        );
        match res {
            Ok(()) => {
                assert!(valid, "set_roots accepted\n{}", log.join("\n"));
                assert_eq!(lanes.queued(), queued + count, "{}", log.join("\n"));
                assert_eq!(reference.queued(), ref_queued + count, "{}", log.join("\n"));
                for root in &roots {
                    *in_domain &= tame_root(root);
                }
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(!valid, "set_roots refused: {e}\n{}", log.join("\n"));
                assert_eq!(lanes.queued(), queued, "refused set_roots queued something");
                assert_eq!(
                    reference.queued(),
                    ref_queued,
                    "refused set_roots queued something"
                );
            }
        }
        return;
    }
    let cmd = match kind {
        0 => Command::Play {
            a: b.source(clips),
            b: b.source(clips),
        },
        1 => Command::Transition {
            a: b.source(clips),
            b: b.source(clips),
            duration: b.f32(0.05, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        2 => Command::SetWeight {
            weight: b.f32(0.0, 1.0),
        },
        3 => Command::WeightToward {
            target: b.f32(0.0, 1.0),
            halflife: b.f32(0.05, 1.0),
        },
        4 => Command::SetRate {
            source: b.which(),
            rate: b.f32(-2.0, 2.0),
        },
        5 => Command::SetEnd {
            source: b.which(),
            end: b.end(),
        },
        8 => layer_command(b, clips),
        // Periods and phases in and out of range (32 and 3 refused).
        6 if b.u8() < 64 => Command::SetPeriod {
            period: [1, 2, 4, 8, 16, 32, 3][b.u8() as usize % 7],
            phase: u32::from(b.u8() % 20),
        },
        _ => Command::SetRoot(b.root()),
    };
    // The lanes crowd through its named methods, the reference through
    // `command`.
    let res = match cmd {
        Command::Play { a, b } => lanes.play(c, a, b),
        Command::Transition {
            a,
            b,
            duration,
            halflife,
        } => lanes.transition(c, a, b, duration, halflife),
        Command::SetWeight { weight } => lanes.set_weight(c, weight),
        Command::WeightToward { target, halflife } => lanes.weight_toward(c, target, halflife),
        Command::SetRate { source, rate } => lanes.set_rate(c, source, rate),
        Command::SetEnd { source, end } => lanes.set_end(c, source, end),
        Command::SetRoot(root) => lanes.set_root(c, root),
        Command::PlayLayer { layer, source } => lanes.play_layer(c, layer, source),
        Command::TransitionLayer {
            layer,
            source,
            duration,
            halflife,
        } => lanes.transition_layer(c, layer, source, duration, halflife),
        Command::SetLayerWeight { layer, weight } => lanes.set_layer_weight(c, layer, weight),
        Command::LayerWeightToward {
            layer,
            target,
            halflife,
        } => lanes.layer_weight_toward(c, layer, target, halflife),
        Command::SetBlendProfile { profile } => lanes.set_blend_profile(c, profile),
        Command::SetPeriod { period, phase } => lanes.set_period(c, period, phase),
    };
    let res_ref = reference.command(c, cmd);
    log.push(format!("command({c}, {cmd:?}) -> {res:?}"));
    // A period is the allocator's while a budget is set.
    let budgeted = lanes.budget().is_some() && matches!(cmd, Command::SetPeriod { .. });
    let valid = c < n && cmd.validate_in(lanes.library(), lanes.config()).is_ok() && !budgeted;
    match (res, res_ref) {
        (Ok(()), Ok(())) => {
            assert!(valid, "accepted\n{}", log.join("\n"));
            assert_eq!(lanes.queued(), queued + 1, "{}", log.join("\n"));
            *in_domain &= tame_command(&cmd);
            *period_queued |= matches!(cmd, Command::SetPeriod { .. });
        }
        (Err(a), Err(b)) => {
            assert!(!a.to_string().is_empty() && !b.to_string().is_empty());
            assert!(!valid, "refused: {a}\n{}", log.join("\n"));
            assert_eq!(
                lanes.queued(),
                queued,
                "a refused command changed the queue\n{}",
                log.join("\n")
            );
        }
        (a, b) => panic!(
            "the crowds disagree: lanes {a:?}, reference {b:?}\n{}",
            log.join("\n")
        ),
    }
}
