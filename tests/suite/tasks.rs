//! A crowd's step run as tasks on the caller's own threads
//! ([`Crowd::prepare`], then the shown poses and the packs in runs split
//! any way, then `finish`) gives, bit for bit, what [`Crowd::step`] gives
//! on rayon: the world output, the events, the root motion, every
//! character's state and the frame's figures. Each frame is run a
//! different way: every part left to `finish`; even and uneven splits on
//! one to four threads; parts left unrun (the next part runs them); random
//! splits; a frame dropped unfinished (the drop finishes it); plain `step`
//! in between. The commands come from a small random driver of the test's
//! own, with transitions (the shown poses), new sources, weights, clip
//! ends that report events, and roots.

use crate::crowds;
use crowds::*;

use kineform::crowd::{
    ClipEnd, Crowd, CrowdConfig, DeadBlendHalflives, FrameStats, PackRange, PreparedStep, Root,
    RootMotion, Sampling, Source, Transition, Which,
};
use kineform::reference::{Vec3, quat_from_angle_axis};

/// A xorshift64* generator: the test's own, seeded, so both crowds get
/// the same commands.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// This frame's random commands for `crowd` (about one character in
/// five gets one).
fn give_commands(crowd: &mut Crowd, r: &mut Rng) {
    let n = crowd.characters();
    let lengths: Vec<f32> = crowd
        .library()
        .clips()
        .iter()
        .map(|c| c.last_time())
        .collect();
    let source = |r: &mut Rng| {
        let clip = r.below(lengths.len());
        Source {
            clip,
            time: r.unit() * lengths[clip],
            rate: 0.5 + r.unit(),
            end: [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][r.below(3)],
        }
    };
    for _ in 0..n.div_ceil(5) {
        let c = r.below(n);
        match r.below(8) {
            0..=2 => {
                let (a, b) = (source(r), source(r));
                crowd
                    .transition(c, a, b, 0.1 + 0.4 * r.unit(), 0.1)
                    .unwrap()
            }
            3 => crowd.play(c, source(r), source(r)).unwrap(),
            4 => crowd.set_weight(c, r.unit()).unwrap(),
            5 => crowd.weight_toward(c, r.unit(), 0.2).unwrap(),
            6 => crowd.set_end(c, Which::A, ClipEnd::Event).unwrap(),
            _ => {
                let yaw = 6.0 * r.unit() - 3.0;
                let root = Root {
                    pos: Vec3::new(100.0 * r.unit(), 0.0, 100.0 * r.unit()),
                    rot: quat_from_angle_axis(yaw, Vec3::new(0.0, 1.0, 0.0)),
                    vel: Vec3::new(r.unit(), 0.0, r.unit()),
                    ang: Vec3::new(0.0, r.unit() - 0.5, 0.0),
                };
                crowd.set_root(c, root).unwrap()
            }
        }
    }
    if !crowd.config().layers.is_empty() {
        layer_commands(crowd, r, &source);
    }
    if r.below(4) == 0 {
        let first = r.below(n);
        let roots: Vec<Root> = (first..n.min(first + 20))
            .map(|c| Root::standing(Vec3::new(c as f32, 0.0, 1.0), 0.1 * c as f32))
            .collect();
        crowd.set_roots(first, &roots).unwrap();
    }
}

/// A layered crowd's share of a frame's commands: layers' sources played
/// and transitioned, weights set and moving, blend profiles chosen.
fn layer_commands(crowd: &mut Crowd, r: &mut Rng, source: &dyn Fn(&mut Rng) -> Source) {
    let (n, layers) = (crowd.characters(), crowd.config().layers.len());
    for _ in 0..n.div_ceil(6) {
        let (c, k) = (r.below(n), r.below(layers));
        match r.below(5) {
            0 => crowd.play_layer(c, k, source(r)).unwrap(),
            1 => crowd
                .transition_layer(c, k, source(r), 0.1 + 0.3 * r.unit(), 0.1)
                .unwrap(),
            2 => crowd.set_layer_weight(c, k, r.unit()).unwrap(),
            3 => crowd.layer_weight_toward(c, k, r.unit(), 0.1).unwrap(),
            _ => {
                let p = r.below(3);
                crowd.set_blend_profile(c, (p < 2).then_some(p)).unwrap()
            }
        }
    }
}

/// Runs `parts` on `threads` threads of the test's own (round robin),
/// `skip` of them not at all.
fn run_on_threads<T: RunPart + Send>(parts: Vec<T>, threads: usize, skip: impl Fn(usize) -> bool) {
    let mut per: Vec<Vec<T>> = (0..threads).map(|_| Vec::new()).collect();
    for (k, part) in parts.into_iter().enumerate() {
        if !skip(k) {
            per[k % threads].push(part);
        }
    }
    std::thread::scope(|s| {
        for mine in per {
            s.spawn(move || mine.into_iter().for_each(RunPart::run));
        }
    });
}

/// A run of a frame's work, shown poses or packs.
trait RunPart {
    fn run(self);
}
impl RunPart for PackRange<'_> {
    fn run(self) {
        PackRange::run(self)
    }
}
impl RunPart for kineform::crowd::ShownRange<'_> {
    fn run(self) {
        kineform::crowd::ShownRange::run(self)
    }
}

/// `range` cut at random points into up to `cuts + 1` runs.
fn random_cuts<'f>(range: PackRange<'f>, cuts: usize, r: &mut Rng) -> Vec<PackRange<'f>> {
    let mut out = vec![range];
    for _ in 0..cuts {
        let k = r.below(out.len());
        let part = out.remove(k);
        let mid = r.below(part.len() + 2); // past the end too
        let (a, b) = part.split_at(mid);
        out.insert(k, b);
        out.insert(k, a);
    }
    out
}

/// Steps `crowd` by `dt` the `way`-th way (module docs); `None` for the
/// figures when the frame was dropped unfinished.
fn step_a_way(crowd: &mut Crowd, dt: f32, way: usize, r: &mut Rng) -> Option<FrameStats> {
    let finish = |f: PreparedStep| Some(f.finish());
    match way {
        0 => finish(crowd.prepare(dt).unwrap()),
        1 => {
            let mut frame = crowd.prepare(dt).unwrap();
            run_on_threads(frame.shown().split(2).collect(), 2, |_| false);
            run_on_threads(frame.packs().split(3).collect(), 3, |_| false);
            finish(frame)
        }
        2 => {
            // No shown poses run before the packs ask for them; only every
            // other run of packs is run, the rest left to `finish`.
            let mut frame = crowd.prepare(dt).unwrap();
            run_on_threads(frame.packs().split(7).collect(), 2, |k| k % 2 == 0);
            finish(frame)
        }
        3 => {
            let mut frame = crowd.prepare(dt).unwrap();
            let threads = 1 + r.below(4);
            let shown: Vec<_> = frame.shown().split(1 + r.below(5)).collect();
            run_on_threads(shown, threads, |_| false);
            let cuts = r.below(9);
            let parts = random_cuts(frame.packs(), cuts, r);
            let skip = r.below(3);
            run_on_threads(parts, threads, |k| k == skip);
            finish(frame)
        }
        4 => {
            // Dropped unfinished: the drop finishes the frame.
            let mut frame = crowd.prepare(dt).unwrap();
            run_on_threads(frame.packs().split(2).collect(), 2, |k| k == 1);
            drop(frame);
            None
        }
        5 => {
            // From a rayon pool's threads, with more threads than the
            // crowd keeps scratch for.
            let mut frame = crowd.prepare(dt).unwrap();
            let parts: Vec<_> = frame.packs().split(5).collect();
            pool(3)
                .install(|| rayon::scope(|s| parts.into_iter().for_each(|p| s.spawn(|_| p.run()))));
            finish(frame)
        }
        _ => Some(pool(1).install(|| crowd.step(dt)).unwrap()),
    }
}

/// Every output of the two crowds, bit for bit.
fn assert_same(a: &Crowd, b: &Crowd, what: &str) {
    let (wa, wb): (&[u8], &[u8]) = (
        bytemuck::cast_slice(a.world()),
        bytemuck::cast_slice(b.world()),
    );
    assert!(wa == wb, "{what}: world output differs");
    assert_eq!(a.events(), b.events(), "{what}: events");
    for c in 0..a.characters() {
        let bits = |m: Option<kineform::crowd::RootDelta>| {
            m.map(|m| {
                let [d, v] = [m.displacement, m.velocity].map(|x| x.to_array().map(f32::to_bits));
                (d, v, m.turn.to_bits(), m.turn_rate.to_bits())
            })
        };
        let boxes = |c: &Crowd, k| {
            c.bounds(k)
                .map(|b| [b.min, b.max].map(|x| x.to_array().map(f32::to_bits)))
        };
        assert_eq!(boxes(a, c), boxes(b, c), "{what}: bounds of {c}");
        assert_eq!(
            bits(a.root_motion(c)),
            bits(b.root_motion(c)),
            "{what}: root motion of {c}"
        );
        assert_eq!(
            format!("{:?}", a.state(c)),
            format!("{:?}", b.state(c)),
            "{what}: state of {c}"
        );
        for k in 0..a.config().layers.len() {
            assert_eq!(
                format!("{:?}", a.layer_state(c, k)),
                format!("{:?}", b.layer_state(c, k)),
                "{what}: layer {k} of {c}"
            );
        }
    }
}

fn configs() -> Vec<CrowdConfig> {
    let base = CrowdConfig {
        characters: 203,
        velocity_check: true,
        ..Default::default()
    };
    vec![
        base.clone(),
        CrowdConfig {
            sampling: Sampling::Cubic,
            transition: Transition::DeadBlend,
            root_motion: RootMotion::Extract,
            ..base.clone()
        },
        CrowdConfig {
            transition: Transition::DeadBlend,
            dead_blend_halflives: DeadBlendHalflives::FITTED,
            characters: 64,
            // Bounds padded per joint (the CMU skeleton's 31).
            joint_radii: (0..31).map(|j| 0.1 * j as f32).collect(),
            ..base.clone()
        },
        CrowdConfig {
            sampling: Sampling::Cubic,
            root_motion: RootMotion::Extract,
            velocity_check: false,
            characters: 1,
            ..base.clone()
        },
        layered(CrowdConfig {
            characters: 77,
            ..base.clone()
        }),
        layered(CrowdConfig {
            transition: Transition::DeadBlend,
            dead_blend_halflives: DeadBlendHalflives::FITTED,
            sampling: Sampling::Cubic,
            characters: 40,
            ..base
        }),
    ]
}

#[test]
fn a_step_run_as_tasks_on_any_threads_is_bit_identical_to_step() {
    let library = two_subjects();
    for (k, cfg) in configs().into_iter().enumerate() {
        let mut by_step = Crowd::new(&library, cfg.clone()).unwrap();
        let mut by_tasks = Crowd::new(&library, cfg).unwrap();
        let (mut commands, mut splits) = (Rng(0x9E37_79B9 + k as u64), Rng(7 + k as u64));
        let (mut events, mut transitions) = (0, 0);
        for f in 0..84 {
            let dt = [1.0 / 60.0, 1.0 / 30.0, 0.013, 1.0 / 144.0][f % 4];
            give_commands(&mut by_step, &mut commands.clone());
            give_commands(&mut by_tasks, &mut commands);
            let want = pool(2).install(|| by_step.step(dt)).unwrap();
            let way = f % 7;
            let got = step_a_way(&mut by_tasks, dt, way, &mut splits);
            let what = format!("config {k}, frame {f}, way {way}");
            if let Some(got) = got {
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "{what}: figures");
            }
            assert_same(&by_step, &by_tasks, &what);
            events += by_step.events().len();
            transitions += want.transitions;
        }
        assert_eq!(by_tasks.frames(), 84);
        // The driver did reach what the frame's parts have to get right.
        assert!(transitions >= 20 && events > 0, "{transitions} {events}");
    }
}

#[test]
fn a_split_covers_its_run_in_order_with_sizes_one_apart() {
    let library = embedded();
    let cfg = CrowdConfig {
        characters: 83, // 11 packs, the last one short
        ..Default::default()
    };
    let mut crowd = Crowd::new(&library, cfg).unwrap();
    let mut frame = crowd.prepare(1.0 / 60.0).unwrap();
    for parts in [0, 1, 2, 3, 4, 10, 11, 12, 40] {
        let runs: Vec<_> = frame
            .packs()
            .split(parts)
            .map(|r| (r.packs(), r.characters()))
            .collect();
        assert_eq!(runs.len(), parts.max(1), "{parts} parts");
        let sizes: Vec<usize> = runs.iter().map(|r| r.0.len()).collect();
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(
            hi - lo <= 1 && sizes.windows(2).all(|w| w[0] >= w[1]),
            "{sizes:?}"
        );
        let mut next = 0;
        for (packs, chars) in &runs {
            assert_eq!(packs.start, next, "{runs:?}");
            assert_eq!(*chars, (packs.start * 8).min(83)..(packs.end * 8).min(83));
            next = packs.end;
        }
        assert_eq!(next, 11);
    }
    let (a, b) = frame.packs().split_at(99);
    assert_eq!((a.packs(), b.packs()), (0..11, 11..11));
    assert!(frame.shown().is_empty(), "no command, no shown pose");
    frame.finish();
}

#[test]
fn a_refused_step_changes_nothing() {
    let library = embedded();
    let mut crowd = Crowd::new(
        &library,
        CrowdConfig {
            characters: 9,
            ..Default::default()
        },
    )
    .unwrap();
    crowd.set_weight(3, 0.5).unwrap();
    crowd.set_root(8, Root::standing(Vec3::ZERO, 1.0)).unwrap();
    for dt in [f32::NAN, 0.0, -1.0, 1e4, f32::INFINITY] {
        assert!(crowd.prepare(dt).is_err(), "{dt}");
    }
    assert_eq!((crowd.queued(), crowd.frames()), (2, 0));
    let stats = crowd.prepare(0.01).unwrap().finish();
    assert_eq!((stats.commands, crowd.queued(), crowd.frames()), (2, 0, 1));
    assert_eq!(crowd.state(3).unwrap().weight, 0.5);
}
