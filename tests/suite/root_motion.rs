//! Root motion that turns and walks on (issue 24, items 1 and 2), in both
//! crowds: a game that moves and turns its root only by what
//! [`RootMotion::Extract`] reports walks the clip's own path, across the
//! clip's seam, at 30 to 480 Hz; [`RootMotion::Apply`] keeps a looping
//! walk travelling across 100 seams with its position and velocity
//! continuous at each; the up axis is +y or +z and nothing else.

use crate::crowds;
use crowds::*;

use kineform::Clip;
use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
use kineform::crowd::{
    ClipLibrary, Crowd, CrowdConfig, ReferenceCrowd, Root, RootDelta, RootMotion, Source,
    VelocityCheck,
};
use kineform::reference::{self as r, Kform, Quat, Vec3};

const UP: Vec3 = Vec3::new(0.0, 1.0, 0.0);

/// What the tests read of either crowd.
trait Game {
    fn set_root(&mut self, root: Root);
    fn play(&mut self, a: Source);
    fn step(&mut self, dt: f32);
    fn delta(&self) -> RootDelta;
    fn hips(&self) -> Kform;
    fn time(&self) -> f32;
}

macro_rules! game {
    ($t:ty) => {
        impl Game for $t {
            fn set_root(&mut self, root: Root) {
                <$t>::set_root(self, 0, root).unwrap();
            }
            fn play(&mut self, a: Source) {
                <$t>::play(self, 0, a, a).unwrap();
            }
            fn step(&mut self, dt: f32) {
                <$t>::step(self, dt).unwrap();
            }
            fn delta(&self) -> RootDelta {
                self.root_motion(0).unwrap()
            }
            fn hips(&self) -> Kform {
                self.world_kform(0, 1).unwrap()
            }
            fn time(&self) -> f32 {
                self.state(0).unwrap().a.source.time
            }
        }
    };
}
game!(Crowd);
game!(ReferenceCrowd);

fn crowds(library: &ClipLibrary, cfg: CrowdConfig) -> [Box<dyn Game>; 2] {
    [
        Box::new(Crowd::new(library, cfg.clone()).unwrap()),
        Box::new(ReferenceCrowd::new(library, cfg).unwrap()),
    ]
}

/// A place on the ground and a heading: `x ↦ rot x + pos`.
#[derive(Clone, Copy, Debug)]
struct Place {
    rot: Quat,
    pos: Vec3,
}

impl Place {
    fn of(pos: Vec3, rot: Quat) -> Place {
        Place {
            rot: r::quat_twist(rot, UP),
            pos: Vec3::new(pos.x, 0.0, pos.z),
        }
    }
    fn then(self, b: Place) -> Place {
        Place {
            rot: r::quat_mul(self.rot, b.rot),
            pos: r::quat_mul_vec3(self.rot, b.pos) + self.pos,
        }
    }
    fn inverse(self) -> Place {
        let rot = r::quat_inv(self.rot);
        Place {
            rot,
            pos: -r::quat_mul_vec3(rot, self.pos),
        }
    }
}

/// The clip's root's place at frame `k` of an endless loop of it (`k`
/// counted on past the last frame, or back before the first): each loop
/// starts where the last one ended, `net^n ∘ G(k mod last)` with `net =
/// G(last) ∘ G(0)⁻¹`.
fn looped_place(clip: &Clip, k: i64) -> Place {
    let g = |f: usize| Place::of(clip.pos(f, 0).unwrap(), clip.rot(f, 0).unwrap());
    let last = clip.frames() as i64 - 1;
    let net = g(last as usize).then(g(0).inverse());
    let step = if k < 0 { net.inverse() } else { net };
    let mut p = g(k.rem_euclid(last) as usize);
    for _ in 0..k.div_euclid(last).unsigned_abs() {
        p = step.then(p);
    }
    p
}

/// Integrates what `crowd` reports over `secs` at steps of `dt` as a game
/// does (the root moved by each displacement and turned by each turn,
/// then given back), and returns the largest distance (units) and heading
/// error (radians) between the game's root and the clip's own root mapped
/// through the first step, over the steps that land on a clip frame, and
/// the clip's total turn over the run.
fn walk(crowd: &mut dyn Game, clip: &Clip, dt: f32, secs: f32) -> (f32, f32, f32) {
    let ft = clip.frame_time();
    // The source plays from the clip's start, given before the first
    // step, which shows it there (a step advances the sources, then
    // applies the commands); that step reports velocities times dt (it
    // has no last step to measure from), so the comparison starts from it.
    let start = 0.0f32;
    let (mut pos, mut yaw) = (Vec3::new(10.0, 0.0, -5.0), 0.7f32);
    crowd.set_root(Root::standing(pos, yaw));
    crowd.play(Source::looping(0, start));
    let mut first: Option<(Place, Place)> = None;
    let (mut worst_pos, mut worst_yaw, mut turned) = (0.0f32, 0.0f32, 0.0f32);
    for n in 1..=(secs / dt).round() as usize {
        crowd.step(dt);
        let d = crowd.delta();
        pos += d.displacement;
        yaw += d.turn;
        crowd.set_root(Root::standing(pos, yaw));
        let t = start as f64 + (n - 1) as f64 * dt as f64;
        let k = (t / ft as f64).round();
        if (t / ft as f64 - k).abs() > 1e-3 {
            continue;
        }
        let game = Place {
            rot: r::quat_from_angle_axis(yaw, UP),
            pos,
        };
        let clip_now = looped_place(clip, k as i64);
        let (game0, clip0) = *first.get_or_insert((game, clip_now));
        // The game's root where the clip's root goes: the map that puts
        // the clip's root on the game's at the first step, applied to the
        // clip's root now.
        let want = game0.then(clip0.inverse()).then(clip_now);
        worst_pos = worst_pos.max(r::length(want.pos - game.pos));
        let off = r::twist_angle(r::quat_inv_mul(want.rot, game.rot), UP);
        worst_yaw = worst_yaw.max(off.abs());
        turned = r::twist_angle(r::quat_inv_mul(clip0.rot, clip_now.rot), UP)
            .abs()
            .max(turned);
    }
    (worst_pos, worst_yaw, turned)
}

/// A game that moves and turns its root by the reported displacement and
/// turn walks the clip's own path (issue 24's "done when"), in both
/// crowds, at 30, 60, 120, 240 and 480 Hz, over 3.5 s of the embedded
/// clip (102_01, a wide right turn of 2.3 s whose hips' heading turns up
/// to 0.65 rad from where it starts; the run crosses its seam once: the
/// wrap adds the loop's net displacement and turn).
///
/// Tolerance: 0.02 units (about 1 mm; CMU units are 5.6 cm) and 1e-3 rad.
/// Every step's report is the exact change of the clip's root, so what is
/// left is f32 rounding: the game's position (up to 150 units from the
/// origin, half an ulp 4e-6) summed over up to 1700 steps, and its
/// heading summed the same way (1e-7 rad a step), which turns 100 units
/// of path by 2e-4 units. Measured: at most 1.3e-3 units and 6.2e-5 rad
/// (240 Hz).
///
/// Mutation caught: each step measured from the heading the clips' root
/// has now rather than the one taken out at the last step (no turn is
/// reported, the displacement is in the wrong frame): off by 22 units and
/// 0.64 rad at 30 Hz.
#[test]
fn integrated_root_walks_the_clips_path() {
    let library = embedded();
    let clip = &library.clips()[0];
    let cfg = CrowdConfig {
        characters: 1,
        root_motion: RootMotion::Extract,
        ..Default::default()
    };
    for hz in [30.0f32, 60.0, 120.0, 240.0, 480.0] {
        for (name, mut crowd) in ["lanes", "reference"]
            .into_iter()
            .zip(crowds(&library, cfg.clone()))
        {
            let (pos, yaw, turned) = walk(&mut *crowd, clip, 1.0 / hz, 3.5);
            eprintln!(
                "MEASURE {name} {hz} Hz: position {pos:.2e} units, heading {yaw:.2e} rad (clip turned up to {turned:.2} rad)"
            );
            assert!(turned > 0.5, "the clip turns: {turned}");
            assert!(
                pos < 0.02 && yaw < 1e-3,
                "{name} at {hz} Hz: off by {pos} units, {yaw} rad"
            );
        }
    }
}

/// The CMU walk (12_01) made a loop whose root loops in character space
/// (its velocities meet at the seam, its place and heading walk on).
fn looping_walk() -> ClipLibrary {
    let walk = load("cmu_12_01_walk_mb.bvh");
    let options = LoopOptions {
        method: LoopMethod::Cubic {
            blendtime_start: 0.25,
            blendtime_end: 0.25,
        },
        ratio: 0.5,
        root_in_character_space: true,
    };
    let looped = make_loop(&walk.clip, &options).unwrap();
    let mut library = ClipLibrary::new(&walk.skeleton, &walk.offsets).unwrap();
    library.add(&walk.skeleton, &looped).unwrap();
    library
}

/// [`RootMotion::Apply`] walks on: a looping walk played for 100 loops
/// (and 10 backwards, at rate -1) keeps travelling, the hips where that
/// many loops of the clip's own path take them (each loop starting where
/// the last ended; the walk turns a little each loop, so the path is a
/// wide circle), with no jump at any seam. At each
/// seam the hips' velocity gap `|Δp / dt - (v₀ + v₁) / 2|` is at most 1.5
/// times the largest over the steps between seams plus the clip's own
/// jump at its seam over `dt` (the loop leaves the root's height and
/// swing unlooped: the hips rise 0.43 units from its last frame to its
/// first, 26 units/s at 60 Hz), and the velocity change `|v₁ - v₀|` at
/// most 1.5 times the largest between seams plus 1 unit/s. The teleport
/// back to the clip's start is a jump of 68 units in a step, 4000
/// units/s. Both crowds, at 60 Hz.
///
/// Mutation caught: places not moved at wraps (the root teleports back:
/// gap 4102 units/s).
#[test]
fn applied_root_motion_walks_on_across_100_seams() {
    let library = looping_walk();
    let clip = &library.clips()[0];
    let (dt, len) = (1.0 / 60.0, clip.last_time());
    // The clip's own jump at its seam: its first frame's hips, moved by
    // the loop's net motion, against its last frame's.
    let g = |f: usize| Place::of(clip.pos(f, 0).unwrap(), clip.rot(f, 0).unwrap());
    let last = clip.frames() - 1;
    let net = g(last).then(g(0).inverse());
    let seam = r::length(
        r::quat_mul_vec3(net.rot, clip.pos(0, 0).unwrap()) + net.pos - clip.pos(last, 0).unwrap(),
    );
    assert!(seam < 1.0, "{seam}");
    let cfg = CrowdConfig {
        characters: 1,
        ..Default::default()
    };
    for (name, mut crowd) in ["lanes", "reference"]
        .into_iter()
        .zip(crowds(&library, cfg))
    {
        for (rate, loops) in [(1.0f32, 100usize), (-1.0, 10)] {
            crowd.set_root(Root::standing(Vec3::ZERO, 0.0));
            crowd.play(Source {
                rate,
                ..Source::looping(0, 0.5 * len)
            });
            crowd.step(dt);
            let start = crowd.hips();
            let (mut before, mut t_before) = (start, crowd.time());
            let (mut seams, mut ordinary, mut worst) = (0, (0.0f32, 0.0f32), (0.0f32, 0.0f32));
            let steps = (loops as f32 * len / dt).round() as usize;
            for _ in 0..steps {
                crowd.step(dt);
                let (now, t) = (crowd.hips(), crowd.time());
                let gap = r::length((now.pos - before.pos) / dt - (now.vel + before.vel) * 0.5);
                let dv = r::length(now.vel - before.vel);
                assert!(gap.is_finite() && dv.is_finite());
                if (t - t_before) * rate < 0.0 {
                    seams += 1;
                    worst = (worst.0.max(gap), worst.1.max(dv));
                } else {
                    ordinary = (ordinary.0.max(gap), ordinary.1.max(dv));
                }
                (before, t_before) = (now, t);
            }
            eprintln!(
                "MEASURE {name} rate {rate}: {seams} seams, gap {:.2} (ordinary {:.2}) units/s, velocity change {:.2} (ordinary {:.2})",
                worst.0, ordinary.0, worst.1, ordinary.1
            );
            assert!(seams + 1 >= loops, "{name}: {seams} seams");
            assert!(
                worst.0 <= 1.5 * ordinary.0 + seam / dt,
                "{name} rate {rate}: {worst:?} {ordinary:?} seam {seam}"
            );
            assert!(
                worst.1 <= 1.5 * ordinary.1 + 1.0,
                "{name} rate {rate}: {worst:?} {ordinary:?}"
            );
            // It travelled: the hips are where `loops` loops of the clip's
            // own path take them (within one frame's travel, 0.6 units, and
            // f32 rounding 6000 units out).
            let t = 0.5 * len as f64 + rate as f64 * steps as f64 * dt as f64;
            let want = looped_place(clip, (t / clip.frame_time() as f64).round() as i64);
            let off = r::length(want.pos - Vec3::new(before.pos.x, 0.0, before.pos.z));
            let far = r::length(Vec3::new(
                before.pos.x - start.pos.x,
                0.0,
                before.pos.z - start.pos.z,
            ));
            let per_loop = r::length(net.pos);
            assert!(per_loop > 30.0, "the walk travels: {per_loop}");
            assert!(
                off < 1.0 && far > 300.0,
                "{name} rate {rate}: {off} off the clip's path, {far} from the start after {loops} loops of {per_loop}"
            );
        }
    }
}

/// The up axis is +y or +z; anything else is refused, naming the
/// component, with nothing built. A crowd on +z up playing the embedded
/// clip turned onto +z reports the +y crowd's root motion turned the same
/// way (displacement `(x, y, z) ↦ (x, -z, y)`, the same turns).
#[test]
fn up_is_y_or_z_and_z_reports_the_same_motion() {
    let library = embedded();
    for bad in [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(0.0, 0.6, 0.8),
        Vec3::new(0.0, f32::NAN, 0.0),
        Vec3::ZERO,
    ] {
        let cfg = CrowdConfig {
            characters: 1,
            up: bad,
            ..Default::default()
        };
        for e in [
            Crowd::new(&library, cfg.clone()).err(),
            ReferenceCrowd::new(&library, cfg).err(),
        ] {
            match e {
                Some(kineform::Error::Parameter { name, .. }) => {
                    assert!(name.starts_with("up"), "{name}")
                }
                e => panic!("{bad:?}: {e:?}"),
            }
        }
    }
    // The clip and its skeleton turned by +90° about x (y goes to z):
    // every position and offset turned, every rotation conjugated, so the
    // +z crowd's world is the +y crowd's turned.
    let b = kineform::data::default_clip();
    let q = r::quat_from_angle_axis(core::f32::consts::FRAC_PI_2, Vec3::new(1.0, 0.0, 0.0));
    let (frames, joints) = (b.clip.frames(), b.clip.joints());
    let pos: Vec<Vec3> = b
        .clip
        .positions()
        .iter()
        .map(|&p| r::quat_mul_vec3(q, p))
        .collect();
    let rot: Vec<Quat> = b
        .clip
        .rotations()
        .iter()
        .map(|&x| r::quat_mul(r::quat_mul(q, x), r::quat_inv(q)))
        .collect();
    let offsets: Vec<Vec3> = b.offsets.iter().map(|&p| r::quat_mul_vec3(q, p)).collect();
    let turned = Clip::new(
        frames,
        joints,
        b.clip.frame_time(),
        pos,
        rot,
        b.clip.scales().to_vec(),
    )
    .unwrap();
    let library = {
        let mut l = ClipLibrary::new(&b.skeleton, &b.offsets).unwrap();
        l.add(&b.skeleton, &b.clip).unwrap();
        l
    };
    let mut z_library = ClipLibrary::new(&b.skeleton, &offsets).unwrap();
    z_library.add(&b.skeleton, &turned).unwrap();
    let cfg = |up| CrowdConfig {
        characters: 1,
        root_motion: RootMotion::Extract,
        up,
        ..Default::default()
    };
    let [mut y_lanes, mut y_ref] = crowds(&library, cfg(UP));
    let [mut z_lanes, mut z_ref] = crowds(&z_library, cfg(Vec3::new(0.0, 0.0, 1.0)));
    let mut moved = 0.0;
    for (y, z) in [(&mut y_lanes, &mut z_lanes), (&mut y_ref, &mut z_ref)] {
        for c in [&mut *y, &mut *z] {
            c.set_root(Root::standing(Vec3::ZERO, 0.0));
            c.play(Source::looping(0, 0.3));
        }
        for _ in 0..300 {
            y.step(1.0 / 120.0);
            z.step(1.0 / 120.0);
            let (a, b) = (y.delta(), z.delta());
            let d = a.displacement;
            let want = Vec3::new(d.x, -d.z, d.y);
            assert!(
                r::length(b.displacement - want) < 1e-4 + 1e-3 * r::length(d),
                "{a:?} {b:?}"
            );
            assert!(
                (a.turn - b.turn).abs() < 1e-4 && (a.turn_rate - b.turn_rate).abs() < 1e-2,
                "{a:?} {b:?}"
            );
            moved += r::length(d);
        }
    }
    assert!(moved > 50.0, "{moved}");
}

/// The walk with the joints `held` says held at frame 40 (their rotation
/// still animated where `turning`), every other joint as it was: a clip
/// whose root does not move or only turns (`held`: the root), or that
/// stands still (every joint).
fn held_walk(held: impl Fn(usize) -> bool, turning: bool) -> ClipLibrary {
    let walk = load("cmu_12_01_walk_mb.bvh");
    let c = &walk.clip;
    let (frames, joints) = (c.frames(), c.joints());
    let at = |i: usize, moves: bool| match moves {
        true => (i / joints, i % joints),
        false => (40, i % joints),
    };
    let pos = (0..frames * joints)
        .map(|i| at(i, !held(i % joints)))
        .map(|(f, j)| c.pos(f, j).unwrap())
        .collect();
    let rot = (0..frames * joints)
        .map(|i| at(i, turning || !held(i % joints)))
        .map(|(f, j)| c.rot(f, j).unwrap())
        .collect();
    let scl = vec![Vec3::new(1.0, 1.0, 1.0); frames * joints];
    let clip = Clip::new(frames, joints, c.frame_time(), pos, rot, scl).unwrap();
    let mut library = ClipLibrary::new(&walk.skeleton, &walk.offsets).unwrap();
    library.add(&walk.skeleton, &clip).unwrap();
    library
}

/// A clip whose root joint does not move (or only turns), its place off
/// the origin and its heading turned, extracted by both crowds for 11
/// characters (two packs) over 40 steps at 60 Hz: the displacement is zero
/// and, where the root does not turn, so is the turn; both crowds report
/// the same root motion. The 8-lane crowd's passes write only the joints
/// that move, so its scratch kept the root's rest values from step to
/// step: the extraction took the place and heading out of them once, and
/// the next step reported their negation (a motionless character jumped
/// 41 units and turned 1.44 rad in its second step; `kineform crowd
/// --root-motion extract` with such a clip failed its velocity check).
/// Mutation caught: the scratch's root not restored after the pack's
/// forward kinematics (`pack_step.rs`, `scratch_root`).
#[test]
fn a_root_that_does_not_move_reports_no_motion() {
    for turning in [false, true] {
        let library = held_walk(|j| j == 0, turning);
        let n = 11;
        let cfg = CrowdConfig {
            characters: n,
            root_motion: RootMotion::Extract,
            ..CrowdConfig::default()
        };
        let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
        for c in 0..n {
            let a = Source {
                clip: 0,
                time: 0.05 * c as f32,
                rate: 1.0,
                end: kineform::crowd::ClipEnd::Loop,
            };
            lanes.play(c, a, a).unwrap();
            reference.play(c, a, a).unwrap();
        }
        let dt = 1.0 / 60.0;
        for step in 0..40 {
            lanes.step(dt).unwrap();
            reference.step(dt).unwrap();
            for c in 0..n {
                let (l, r) = (
                    lanes.root_motion(c).unwrap(),
                    reference.root_motion(c).unwrap(),
                );
                let at = format!("turning {turning}, step {step}, character {c}");
                assert!(r::length(l.displacement) < 1e-4, "{at}: lanes {l:?}");
                assert!(r::length(r.displacement) < 1e-4, "{at}: reference {r:?}");
                assert!((l.turn - r.turn).abs() < 1e-4, "{at}: {l:?} against {r:?}");
                if !turning {
                    assert!(l.turn.abs() < 1e-4, "{at}: lanes {l:?}");
                }
            }
        }
    }
}

/// A crowd that does not move passes its velocity check in both crowds:
/// the walk held at frame 40 in every joint, 11 characters standing 1e4
/// units from the origin, 30 steps at 60 Hz with a transition to another
/// time of the clip every third step (the same pose; offsets that round).
/// Its top speed is about 0 (the reference's 1.1e-5, its largest gap
/// 1.2e-4 against a floor of 1.15 units/s; the 8-lane crowd's gaps 0), so
/// without the rounding floor (`VelocityCheck::rounding`, `16 ε reach /
/// dt`) its bound was 0 and the gaps f32 rounding alone makes failed it
/// (found by a command-line audit: `kineform crowd --scalar` on a still
/// clip, a gap of 9.4e-4 against a bound of 2.8e-5). Mutation caught:
/// the floor left out of `VelocityCheck::bound`.
#[test]
fn a_crowd_that_does_not_move_passes_its_velocity_check() {
    let library = held_walk(|_| true, false);
    let n = 11;
    let (mut lanes, mut reference) = checked_crowds(&library, n);
    for k in 0..n {
        let at = Vec3::new(1e4 + 3.0 * k as f32, 0.0, -1e4);
        let root = Root::standing(at, 0.3 * k as f32);
        lanes.set_root(k, root).unwrap();
        reference.set_root(k, root).unwrap();
    }
    let dt = 1.0 / 60.0;
    let (mut l, mut r) = (VelocityCheck::default(), VelocityCheck::default());
    for step in 0..30 {
        // Transitions to other times of the still clip, as a driver gives
        // them: the same pose, its offsets made of values that round.
        if step % 3 == 0 {
            for k in 0..n {
                let a = Source {
                    clip: 0,
                    time: 0.37 * ((step + k) % 7) as f32,
                    rate: 1.0 + 0.1 * k as f32,
                    end: kineform::crowd::ClipEnd::Hold,
                };
                lanes.transition(k, a, a, 0.3, 0.1).unwrap();
                reference.transition(k, a, a, 0.3, 0.1).unwrap();
            }
        }
        l.merge(&lanes.step(dt).unwrap().velocity);
        r.merge(&reference.step(dt).unwrap().velocity);
    }
    for (name, v) in [("lanes", l), ("reference", r)] {
        assert!(v.samples > 0 && v.max_speed < 1e-3, "{name}: {v:?}");
        assert!(v.rounding > 0.0, "{name}: {v:?}");
        assert!(v.passed(), "{name}: {v:?}");
    }
    assert!(l.max_gap > 0.0 || r.max_gap > 0.0, "{l:?} {r:?}");
}

/// `Wander::follow` handed a crowd of fewer clips than the one its last
/// update played (the clip it measures the heading against is not
/// there) moves the roots and skips the measurement, where it indexed
/// past the library and panicked. Mutation caught: the clip indexed
/// again (`follow.rs`: index out of bounds).
#[test]
fn the_wanderer_follows_a_crowd_of_fewer_clips_without_a_panic() {
    use kineform::crowd::{Wander, WanderConfig};
    let embedded = kineform::data::default_clip();
    let one = ClipLibrary::from_bvh(&embedded).unwrap();
    let mut ten = one.clone();
    for _ in 1..10 {
        ten.add_bvh(&embedded).unwrap();
    }
    let n = 16;
    let cfg = CrowdConfig {
        characters: n,
        root_motion: RootMotion::Extract,
        ..CrowdConfig::default()
    };
    let (mut a, mut b) = (
        Crowd::new(&ten, cfg.clone()).unwrap(),
        Crowd::new(&one, cfg).unwrap(),
    );
    let mut w = Wander::new(
        n,
        WanderConfig {
            follow_root_motion: true,
            ..WanderConfig::default()
        },
    );
    let dt = 1.0 / 60.0;
    w.update(&mut a, dt).unwrap();
    a.step(dt).unwrap();
    b.step(dt).unwrap();
    w.follow(&mut b, dt).unwrap();
    w.follow(&mut a, dt).unwrap();
}

/// `root_motions_into` of either crowd is `root_motion` of each
/// character, for ranges that start and end inside packs, after steps of
/// characters playing different clips at different times; zero in a
/// crowd that applies root motion; and a reversed range, one past the
/// crowd or an `out` of another length is refused with `out` untouched.
/// Mutations caught: a pack's lanes taken from the first character's
/// pack for the whole range, and the lane `c % 8` taken as `c % 4`.
#[test]
fn root_motions_into_is_root_motion_of_each_character() {
    use kineform::crowd::Driven;
    let library = looping_walk();
    let n = 27;
    for mode in [RootMotion::Extract, RootMotion::Apply] {
        let cfg = CrowdConfig {
            characters: n,
            root_motion: mode,
            ..CrowdConfig::default()
        };
        let mut lanes = Crowd::new(&library, cfg.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&library, cfg).unwrap();
        for c in 0..n {
            let a = Source::looping(0, c as f32 * 0.07);
            let b = Source::looping(0, 0.3 + c as f32 * 0.05);
            lanes.play(c, a, b).unwrap();
            reference.play(c, a, b).unwrap();
            let turn = Root::standing(Vec3::new(c as f32, 0.0, 0.0), c as f32 * 0.4);
            lanes.set_root(c, turn).unwrap();
            reference.set_root(c, turn).unwrap();
        }
        for _ in 0..3 {
            lanes.step(1.0 / 60.0).unwrap();
            reference.step(1.0 / 60.0).unwrap();
        }
        for range in [0..n, 3..21, 9..10, 5..5, 17..27] {
            let mut a = vec![RootDelta::default(); range.len()];
            let mut b = a.clone();
            lanes.root_motions_into(range.clone(), &mut a).unwrap();
            reference.root_motions_into(range.clone(), &mut b).unwrap();
            for (k, c) in range.clone().enumerate() {
                let want = match mode {
                    RootMotion::Extract => lanes.root_motion(c).unwrap(),
                    RootMotion::Apply => RootDelta::default(),
                };
                assert_eq!(a[k], want, "{mode:?} lanes, character {c}");
                assert_eq!(
                    b[k],
                    reference.root_motion(c).unwrap(),
                    "{mode:?} reference, {c}"
                );
                // The trait's, as a driver reads it.
                let mut t = vec![RootDelta::default(); 1];
                Driven::root_motions_into(&lanes, c..c + 1, &mut t).unwrap();
                assert_eq!(t[0], a[k]);
            }
            if mode == RootMotion::Extract && range.len() > 1 {
                assert!(a.windows(2).any(|w| w[0] != w[1]), "the characters differ");
            }
        }
        let marker = RootDelta {
            turn: 9.0,
            ..RootDelta::default()
        };
        #[allow(clippy::reversed_empty_ranges)]
        for (range, len) in [(20..n + 1, 8), (5..3, 0), (0..4, 5)] {
            let mut out = vec![marker; len];
            assert!(lanes.root_motions_into(range.clone(), &mut out).is_err());
            assert!(
                reference
                    .root_motions_into(range.clone(), &mut out)
                    .is_err()
            );
            assert!(Driven::root_motions_into(&reference, range, &mut out).is_err());
            assert!(out.iter().all(|d| *d == marker));
        }
    }
}
