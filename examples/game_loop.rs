//! A game loop that owns a crowd: a thousand characters, each under a
//! small state machine (idle, walk, turn) that changes state on clip-end
//! events and on timers; the game moves each root itself with the root
//! motion the crowd extracts (as a character controller would), steps with
//! a jittered frame time, and copies world positions into its own array
//! and the skinning matrices a renderer uploads into another every frame.
//! Its clips come from three CMU files of three joint-naming conventions
//! (`LeftUpLeg` and `LeftHandIndex1`, `LeftHip`), joined in one library
//! through the ready CMU joint map, and it acts on the crowd's events in
//! the same loop as it reads them. Characters that walk out of
//! the level turn back into it (the controller turns the root smoothly),
//! so the game runs for as long as it is left to: every root stays well
//! inside the ±1e6 units a crowd holds roots to
//! (`kineform::limits::MAX_POSITION`; a game whose world is larger moves
//! its origin instead, with `Crowd::recenter`). Everything goes through
//! kineform's public API.
//!
//! `main` reads as the game's steps: the library built
//! (`build_library`), the characters spawned (`Game::spawn`), then each
//! frame the state machine's think step (`Game::think`), the character
//! controller (`Game::control`) and the frame itself (`frame`: the
//! crowd's step and the game's copies of its output), and at the end the
//! report (`report`).
//!
//! `cargo run --release --example game_loop [CHARACTERS [SECONDS]]`

use std::time::Instant;

use kineform::bvh::{self, Bvh};
use kineform::crowd::{
    ClipEnd, ClipLibrary, Crowd, CrowdConfig, Event, EventKind, Root, RootMotion, Sampling, Source,
};
use kineform::reference::{Kform, Vec3, dot, length, quat_from_angle_axis};
use kineform::skinning::InverseBind;
use rand::{Rng, SeedableRng};

// Clip indices, in the order they are added to the library.
const WALK: usize = 0;
const IDLE: usize = 1;
const TURN: usize = 2;

/// Seconds before a clip's end at which the game leaves it, so that the
/// transition blends from a pose still in motion, never from a held frame.
const LEAVE_EARLY: f32 = 0.35;

/// The level: a character farther than this from its centre, walking
/// away from it, turns (its root at [`TURN_RATE`] about +y) until it heads
/// back in.
const LEVEL_RADIUS: f32 = 5000.0;

/// Radians per second a character turns at the level's edge.
const TURN_RATE: f32 = 1.0;

#[derive(Clone, Copy, PartialEq, Debug)]
enum State {
    /// Playing a standing clip until it reports its end.
    Idle,
    /// Walking until the state's timer runs out (re-entering the walk
    /// before its clip ends).
    Walk,
    /// Playing the turn clip, left just before its end.
    Turn,
}

/// What the game keeps per character.
struct Character {
    state: State,
    /// Seconds left in the state.
    timer: f32,
    /// Seconds before the playing clip must be left.
    clip_left: f32,
    /// The root, as the game's character controller moves it.
    pos: Vec3,
    yaw: f32,
    vel: Vec3,
    /// The clip's heading's rate about +y, as the crowd extracted it.
    turn_rate: f32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1000);
    let seconds: f32 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(10.0);

    let library = build_library()?;
    let cfg = CrowdConfig {
        characters: n,
        root_motion: RootMotion::Extract,
        sampling: Sampling::Cubic,
        velocity_check: true, // reported below; a game leaves it off
        ..CrowdConfig::default()
    };
    let mut crowd = Crowd::new(&library, cfg)?;
    let mut game = Game::spawn(&mut crowd, &library)?;
    let mut out = Output::new(&crowd, &library)?;
    let mut tally = Tally {
        passed: true,
        ..Tally::default()
    };
    while tally.elapsed < seconds {
        let dt = game.frame_time();
        game.think(&mut crowd, dt, &mut tally)?;
        game.control(dt);
        crowd.set_roots(0, &game.roots)?;
        frame(&mut crowd, &mut game, &mut out, dt, &mut tally)?;
    }

    report(&crowd, &game, &out, &tally);
    if tally.passed {
        Ok(())
    } else {
        Err("a joint jumped between frames".into())
    }
}

/// The clips, from three subjects and three naming conventions on one
/// hierarchy: the steady walk of subject 12 (MotionBuilder names, past
/// its T-pose at frame 0), the standing start of a start-walk-stop take
/// and a wide right turn (3dsMax names, whose arms hang at rest: the CMU
/// joint map renames them and turns their frames onto the walk's).
fn build_library() -> Result<ClipLibrary, Box<dyn std::error::Error>> {
    let mocap = |f: &str| bvh::load(format!("{}/data/mocap/{f}", env!("CARGO_MANIFEST_DIR")));
    let walk = mocap("cmu_12_01_walk_mb.bvh")?;
    let take = mocap("cmu_131_01_max.bvh")?;
    let excerpt = |b: &Bvh, frames| -> kineform::Result<Bvh> {
        Ok(Bvh {
            clip: b.clip.excerpt(frames)?,
            ..b.clone()
        })
    };
    let mut library = ClipLibrary::from_bvh(&excerpt(&walk, 60..524)?)?; // 0.5 s to the end
    library.add_cmu(&excerpt(&take, 0..180)?)?; // the first 1.5 s
    library.add_cmu(&mocap("cmu_102_01_max.bvh")?)?;
    Ok(library)
}

/// Where character `c` starts: on a grid of 32 columns, 100 units apart.
fn start(c: usize) -> Vec3 {
    Vec3::new((c % 32) as f32 * 100.0, 0.0, (c / 32) as f32 * 100.0)
}

/// The level's centre (see [`LEVEL_RADIUS`]).
const CENTRE: Vec3 = Vec3::new(1550.0, 0.0, 1550.0);

/// What the game keeps: its characters, their roots as it hands them to
/// the crowd, its random numbers, its clips' lengths, and its buffer of
/// the crowd's events.
struct Game {
    chars: Vec<Character>,
    roots: Vec<Root>,
    rng: rand_pcg::Pcg32,
    /// Each clip's length, seconds.
    lengths: Vec<f32>,
    events: Vec<Event>,
}

impl Game {
    /// Spawns the crowd's characters: each on its grid place, facing a
    /// random way, idle at a random time of the standing clip (which
    /// reports its end).
    fn spawn(crowd: &mut Crowd, library: &ClipLibrary) -> kineform::Result<Game> {
        let n = crowd.characters();
        let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
        let chars: Vec<Character> = (0..n)
            .map(|c| Character {
                state: State::Idle,
                timer: 0.0,
                clip_left: 0.0,
                pos: start(c),
                yaw: rng.random_range(-3.1..3.1),
                vel: Vec3::ZERO,
                turn_rate: 0.0,
            })
            .collect();
        for c in 0..n {
            let idle = Source {
                end: ClipEnd::Event,
                ..Source::looping(IDLE, rng.random_range(0.0..1.0))
            };
            crowd.play(c, idle, idle)?;
        }
        Ok(Game {
            chars,
            roots: vec![Root::standing(Vec3::ZERO, 0.0); n],
            rng,
            lengths: library.clips().iter().map(|c| c.last_time()).collect(),
            events: Vec::new(),
        })
    }

    /// The state machine's think step: the last step's events, taken into
    /// the game's buffer so that commands can be given in the same loop,
    /// then the timers.
    fn think(&mut self, crowd: &mut Crowd, dt: f32, tally: &mut Tally) -> kineform::Result<()> {
        let Game {
            chars,
            rng,
            lengths,
            events,
            ..
        } = self;
        crowd.events_into(events);
        for e in events.iter() {
            match e.kind {
                EventKind::ClipEnded(_) => tally.clip_ends += 1,
                EventKind::TransitionFinished => tally.finished += 1,
                _ => {}
            }
            let (c, ch) = (e.character, &mut chars[e.character]);
            if ch.state == State::Idle && matches!(e.kind, EventKind::ClipEnded(_)) {
                enter(crowd, rng, lengths, c, ch, State::Walk)?;
            }
        }
        for (c, ch) in chars.iter_mut().enumerate() {
            (ch.timer, ch.clip_left) = (ch.timer - dt, ch.clip_left - dt);
            match ch.state {
                State::Walk if ch.timer <= 0.0 => {
                    let next = if rng.random_bool(0.5) {
                        State::Turn
                    } else {
                        State::Idle
                    };
                    enter(crowd, rng, lengths, c, ch, next)?;
                }
                State::Walk | State::Turn if ch.clip_left <= 0.0 => {
                    enter(crowd, rng, lengths, c, ch, State::Walk)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The character controller: each root moves on with the velocity
    /// and turns at the heading's rate the crowd extracted from its clip
    /// last step, turning back at the level's edge.
    fn control(&mut self, dt: f32) {
        for (root, ch) in self.roots.iter_mut().zip(self.chars.iter_mut()) {
            ch.pos += ch.vel * dt;
            let out = ch.pos - CENTRE;
            let turn = if length(out) > LEVEL_RADIUS && dot(out, ch.vel) > 0.0 {
                TURN_RATE
            } else {
                0.0
            };
            let turn = turn + ch.turn_rate;
            ch.yaw = (ch.yaw + turn * dt).rem_euclid(std::f32::consts::TAU);
            *root = Root {
                pos: ch.pos,
                rot: quat_from_angle_axis(ch.yaw, Vec3::new(0.0, 1.0, 0.0)),
                vel: ch.vel,
                ang: Vec3::new(0.0, turn, 0.0),
            };
        }
    }

    /// A game's frame time: 60 Hz with some jitter.
    fn frame_time(&mut self) -> f32 {
        (1.0 / 60.0) * self.rng.random_range(0.8..1.25)
    }
}

/// What the game reads out of the crowd every frame: world positions into
/// its own array, and the skinning matrices a renderer uploads.
struct Output {
    /// The game's own array of world positions.
    positions: Vec<[f32; 3]>,
    /// The bind pose the skinning matrices are against.
    bind: InverseBind,
    /// The renderer's skinning matrices, uploaded as they are.
    skin: Vec<[f32; 12]>,
}

impl Output {
    /// Room for every joint of every character of `crowd`. The skinning
    /// matrices, three rows of the affine a joint, are against a bind
    /// pose: here the clips' rest pose (the root at the origin, each joint
    /// at its bone offset), where a game takes its mesh's.
    fn new(crowd: &Crowd, library: &ClipLibrary) -> kineform::Result<Output> {
        let joints = crowd.characters() * crowd.skeleton().len();
        let rest: Vec<Kform> = std::iter::once(Vec3::ZERO)
            .chain(library.offsets().iter().copied())
            .map(|pos| Kform {
                pos,
                ..Kform::IDENTITY
            })
            .collect();
        Ok(Output {
            positions: vec![[0.0f32; 3]; joints],
            bind: InverseBind::from_bind_pose(crowd.skeleton(), &rest)?,
            skin: vec![[0.0f32; 12]; joints],
        })
    }
}

/// What the game counts over its frames, for the report.
#[derive(Default)]
struct Tally {
    frames: u32,
    /// Seconds of game time.
    elapsed: f32,
    /// Seconds stepping the crowd, and writing the skinning matrices.
    step_time: f64,
    skin_time: f64,
    transitions: u32,
    clip_ends: u32,
    finished: u32,
    commands: u64,
    /// The velocity check's largest gap, and whether every frame passed.
    worst_gap: f32,
    passed: bool,
}

/// The frame: the crowd steps, the game copies its output, and takes each
/// character's extracted root motion for its controller's next frame.
fn frame(
    crowd: &mut Crowd,
    game: &mut Game,
    out: &mut Output,
    dt: f32,
    tally: &mut Tally,
) -> kineform::Result<()> {
    let n = crowd.characters();
    let t0 = Instant::now();
    let stats = crowd.step(dt)?;
    tally.step_time += t0.elapsed().as_secs_f64();
    crowd.positions_into(0..n, &mut out.positions)?;
    let t1 = Instant::now();
    crowd.skinning_matrices_into(0..n, &out.bind, &mut out.skin)?;
    tally.skin_time += t1.elapsed().as_secs_f64();
    for (c, ch) in game.chars.iter_mut().enumerate() {
        let motion = crowd.root_motion(c).expect("c < n");
        (ch.vel, ch.turn_rate) = (motion.velocity, motion.turn_rate);
    }
    tally.transitions += stats.transitions;
    tally.commands += u64::from(stats.commands);
    tally.worst_gap = tally.worst_gap.max(stats.velocity.max_gap);
    tally.passed &= stats.velocity.passed();
    tally.frames += 1;
    tally.elapsed += dt;
    Ok(())
}

/// The report: the run's size and time, the state machine's counts, the
/// velocity check, and where character 0's head ended.
fn report(crowd: &Crowd, game: &Game, out: &Output, tally: &Tally) {
    let Tally {
        frames,
        elapsed,
        step_time,
        skin_time,
        transitions,
        clip_ends,
        finished,
        commands,
        worst_gap,
        passed,
    } = *tally;
    let n = crowd.characters();
    let joints = crowd.skeleton().len();
    let count = |s: State| game.chars.iter().filter(|ch| ch.state == s).count();
    let walked = (0..n)
        .map(|c| length(game.chars[c].pos - start(c)))
        .sum::<f32>()
        / n as f32;
    println!(
        "{n} characters x {joints} joints, {frames} frames over {elapsed:.2} s of game time \
         ({} SIMD)",
        kineform::simd_backend()
    );
    println!(
        "step: {:.3} ms a frame on average; {:.0} commands a frame; skinning matrices \
         {:.3} ms a frame ({:.1} MB)",
        step_time * 1e3 / f64::from(frames),
        commands as f64 / f64::from(frames),
        skin_time * 1e3 / f64::from(frames),
        size_of_val(&out.skin[..]) as f64 / 1e6
    );
    println!(
        "{transitions} transitions, {finished} finished, {clip_ends} clip-end events; \
         now {} idle, {} walking, {} turning; roots moved {walked:.0} units on average",
        count(State::Idle),
        count(State::Walk),
        count(State::Turn)
    );
    println!(
        "velocity check: largest gap {worst_gap:.1} units/s, {}",
        if passed { "passed" } else { "FAILED" }
    );
    let head = 1 + crowd.skeleton().find("Head").unwrap_or(0);
    let p = out.positions[head];
    println!(
        "character 0's head at ({:.1}, {:.1}, {:.1})",
        p[0], p[1], p[2]
    );
}

/// Character `c` enters `state` through a transition: the state's clip,
/// from where, and how long before the game must leave it.
fn enter(
    crowd: &mut Crowd,
    rng: &mut rand_pcg::Pcg32,
    lengths: &[f32],
    c: usize,
    ch: &mut Character,
    state: State,
) -> kineform::Result<()> {
    let (clip, from, end) = match state {
        State::Idle => (IDLE, rng.random_range(0.0..0.8), ClipEnd::Event),
        State::Walk => (WALK, rng.random_range(0.0..0.5), ClipEnd::Hold),
        State::Turn => (TURN, 0.0, ClipEnd::Hold),
    };
    if state != ch.state {
        ch.timer = rng.random_range(2.0..6.0); // used by Walk only
    }
    ch.state = state;
    ch.clip_left = lengths[clip] - from - LEAVE_EARLY;
    let a = Source {
        end,
        ..Source::looping(clip, from)
    };
    crowd.transition(c, a, a, 0.3, 0.2)
}
