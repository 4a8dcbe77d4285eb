//! Issue 21 (defect 5, its per-step half): every allocation of a crowd's
//! step that grows with its input is reserved fallibly or bounded when the
//! crowd is built. A global allocator that refuses every allocation of
//! `FAIL_FROM` bytes or more (as a process under a memory limit would)
//! shows it: a step then either succeeds without such an allocation or is
//! refused with a typed error that changes nothing; an infallible
//! allocation would abort the test binary instead. The same allocator
//! counts allocations on request: a crowd's steady-state steps (the same
//! commands each frame as in the frames before) allocate nothing at all.

use std::sync::atomic::Ordering::Relaxed;

use kineform::Error;
use kineform::crowd::{
    ClipLibrary, Command, Crowd, CrowdConfig, EventKind, Layer, Mask, ReferenceCrowd, Source, Which,
};

use super::*;

fn library() -> ClipLibrary {
    ClipLibrary::from_bvh(&kineform::data::default_clip()).unwrap()
}

/// The library with eight markers spread over its clip (issue 24 item 3:
/// the markers crossed have their own room in a step's events).
fn with_markers() -> ClipLibrary {
    let mut lib = library();
    let last = lib.clips()[0].last_time();
    for k in 0..8 {
        lib.add_marker(0, "m", last * k as f32 / 8.0).unwrap();
    }
    lib
}

fn config(characters: usize) -> CrowdConfig {
    CrowdConfig {
        characters,
        ..Default::default()
    }
}

/// A pool of `threads` threads tagged with a number of their own.
fn pool(threads: usize) -> rayon::ThreadPool {
    let number = POOLS.fetch_add(1, Relaxed) + 1;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(move |_| TAG.with(|t| t.set(number)))
        .build()
        .unwrap()
}

/// Every character transitions, finishing within the next steps (an
/// event each).
fn transition_all(n: usize, mut transition: impl FnMut(usize)) {
    for c in 0..n {
        transition(c);
    }
}

/// Where every transition goes.
fn to() -> Source {
    Source::looping(0, 0.5)
}

/// The 8-lane crowd's step with every character starting a transition
/// needs room for 2,000 shown poses (3.6 MB): refused when it cannot be
/// had, with the queue, the frame count and the world output as they
/// were (the frame's commands had room from an earlier step); the same
/// step runs once the memory can be had. From then on the room is kept:
/// with large allocations refused, every character transitions again and
/// the transitions finish (2,000 events, in room reserved when the crowd
/// was built).
#[test]
fn a_step_whose_memory_cannot_be_had_is_refused_and_changes_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lib = library();
    let n = 2000;
    let mut crowd = Crowd::new(&lib, config(n)).unwrap();
    for c in 0..n {
        crowd.set_rate(c, Which::A, 1.0).unwrap();
    }
    crowd.step(1.0 / 60.0).unwrap();
    transition_all(n, |c| crowd.transition(c, to(), to(), 0.05, 0.1).unwrap());
    let world = crowd.world().to_vec();
    let refused = {
        let _refuse = Refuse::large();
        crowd.step(1.0 / 60.0)
    };
    assert!(
        matches!(
            refused,
            Err(Error::Size {
                what: "the frame's shown poses",
                ..
            })
        ),
        "expected the shown poses' refusal, got {refused:?}"
    );
    assert_eq!(crowd.queued(), n, "the refused step kept the queue");
    assert!(
        crowd.world() == &world[..],
        "the refused step changed the output"
    );
    let stats = crowd.step(1.0 / 60.0).unwrap();
    assert_eq!((stats.transitions as usize, crowd.queued()), (n, 0));
    let _refuse = Refuse::large();
    transition_all(n, |c| crowd.transition(c, to(), to(), 0.05, 0.1).unwrap());
    let mut events = 0;
    for _ in 0..8 {
        crowd.step(1.0 / 60.0).unwrap();
        events += crowd.events().len();
    }
    assert!(events >= n, "{events} events for {n} transitions");
}

/// `prepare` reserves no scratch for rayon's workers (a crowd built in a
/// pool of one thread prepares in a pool of eight with large allocations
/// refused), and a caller's thread whose scratch cannot be had leaves its
/// run to the frame's next part: the frame completes on the thread that
/// holds it, bit-identical to a crowd stepped by rayon.
#[test]
fn own_threads_never_abort_for_scratch() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lib = library();
    let n = 400;
    let (mut own, mut by_rayon) = pool(1).install(|| {
        (
            Crowd::new(&lib, config(n)).unwrap(),
            Crowd::new(&lib, config(n)).unwrap(),
        )
    });
    let frame = |crowd: &mut Crowd, threads: usize| {
        let mut f = crowd.prepare(1.0 / 60.0)?;
        std::thread::scope(|s| {
            for part in f.shown().split(threads) {
                s.spawn(move || part.run());
            }
        });
        std::thread::scope(|s| {
            for part in f.packs().split(threads) {
                s.spawn(move || part.run());
            }
        });
        Ok::<_, Error>(f.finish())
    };
    // The first frame, on one thread of the caller's, makes the spare
    // scratch the holder keeps; the later ones run on four threads, three
    // of which cannot make theirs.
    pool(1).install(|| frame(&mut own, 1)).unwrap();
    by_rayon.step(1.0 / 60.0).unwrap();
    for step in 0..4 {
        if step == 1 {
            transition_all(n, |c| {
                own.transition(c, to(), to(), 0.05, 0.1).unwrap();
                by_rayon.transition(c, to(), to(), 0.05, 0.1).unwrap();
            });
        }
        let stats = {
            // The shown poses' room is reserved outside the refusal.
            if step == 1 {
                pool(8).install(|| frame(&mut own, 1)).unwrap()
            } else {
                let _refuse = Refuse::large();
                pool(8).install(|| frame(&mut own, 4)).unwrap()
            }
        };
        let expected = by_rayon.step(1.0 / 60.0).unwrap();
        assert_eq!(stats, expected, "step {step}");
        let bits = |c: &Crowd| {
            (0..n)
                .flat_map(|ch| {
                    let k = c.world_kform(ch, 5).unwrap();
                    [k.pos.x, k.pos.y, k.pos.z, k.rot.w, k.vel.x, k.ang.y].map(f32::to_bits)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&own), bits(&by_rayon), "step {step}");
    }
}

/// The reference crowd's step keeps each pack's figures and its events in
/// room reserved when it was built: 4,000 characters (500 packs) whose
/// transitions finish step with large allocations refused.
#[test]
fn the_reference_step_allocates_nothing_that_grows_with_the_crowd() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lib = library();
    let n = 4000;
    let mut crowd = ReferenceCrowd::new(&lib, config(n)).unwrap();
    crowd.step(1.0 / 60.0).unwrap();
    transition_all(n, |c| crowd.transition(c, to(), to(), 0.05, 0.1).unwrap());
    // The commands' room is the queue's (reserved as they were given).
    crowd.step(1.0 / 60.0).unwrap();
    let _refuse = Refuse::large();
    let mut events = 0;
    for _ in 0..8 {
        crowd.step(1.0 / 60.0).unwrap();
        events += crowd.events().len();
    }
    assert!(events >= n, "{events} events for {n} transitions");
}

/// A frame's commands as a game gives them: each character's rate, and
/// on every fourth frame whether it transitions (every other character,
/// whose transitions finish, with events, within the frames between).
fn commands(frame: usize, n: usize) -> impl Iterator<Item = (usize, f32, bool)> {
    (0..n).map(move |c| {
        let rate = 1.0 + (frame % 3) as f32 * 0.1;
        (c, rate, frame.is_multiple_of(4) && c % 2 == frame / 4 % 2)
    })
}

/// Steady state: after frames that give the same pattern of commands,
/// a frame of either crowd (stepped by rayon inside a pool of one thread,
/// so that no job is injected from outside it, or by a caller's own
/// thread through `prepare`) allocates nothing at all, events (markers
/// crossed included), shown poses, two layers (an override and an
/// additive) and bounding boxes padded per joint (issue 24 item 4) and
/// copied into the game's memory included, with level of detail (issue
/// 25): the packs at periods 1, 2 and 4 (10%, 30%, 60%), phases
/// staggered, so that packs are carried whole, and characters at mixed
/// periods in the last packs, moved every frame between periods 1 and 2.
#[test]
fn steady_state_steps_allocate_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lib = with_markers();
    let n = 1000;
    let dt = 1.0 / 60.0;
    // With an override and an additive layer, each at a weight that
    // shows (the reference crowd once copied its layers to a Vec each step).
    let padded = CrowdConfig {
        joint_radii: (0..lib.skeleton().len()).map(|j| j as f32 * 0.1).collect(),
        layers: vec![
            Layer::overriding(Mask::new().subtree("Chest", 1.0)),
            Layer::additive(Mask::new().subtree("Chest", 1.0), 0),
        ],
        level_of_detail: true,
        ..config(n)
    };
    let period = |c: usize| match (c / 8) % 10 {
        0 => 1,
        1..=3 => 2,
        _ => 4,
    };
    pool(1).install(|| {
        let mut lanes = Crowd::new(&lib, padded.clone()).unwrap();
        let mut own = Crowd::new(&lib, padded.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&lib, padded).unwrap();
        let mut boxes = vec![kineform::crowd::Aabb::ZERO; n];
        for c in 0..n {
            for layer in 0..2 {
                let cmd = Command::SetLayerWeight { layer, weight: 0.6 };
                lanes.command(c, cmd).unwrap();
                own.command(c, cmd).unwrap();
                reference.command(c, cmd).unwrap();
            }
            let p = period(c);
            let cmd = Command::SetPeriod {
                period: p,
                phase: (c / 8) as u32 % p,
            };
            lanes.command(c, cmd).unwrap();
            own.command(c, cmd).unwrap();
            reference.command(c, cmd).unwrap();
        }
        // Allocations counted in each part of a frame: the commands given,
        // the lanes crowd's step, its prepared frame, the reference's step,
        // the boxes read out.
        let mut parts = [0; 5];
        let mut frame = |f: usize| {
            let mut at = COUNT.load(Relaxed);
            let mut part = |k: usize| {
                let now = COUNT.load(Relaxed);
                parts[k] += now - at;
                at = now;
            };
            for c in n - 16..n {
                let cmd = Command::SetPeriod {
                    period: 1 + ((f + c) % 2) as u32,
                    phase: 0,
                };
                lanes.command(c, cmd).unwrap();
                own.command(c, cmd).unwrap();
                reference.command(c, cmd).unwrap();
            }
            for (c, rate, moves) in commands(f, n) {
                lanes.set_rate(c, Which::A, rate).unwrap();
                own.set_rate(c, Which::A, rate).unwrap();
                reference.set_rate(c, Which::A, rate).unwrap();
                if moves {
                    lanes.transition(c, to(), to(), 0.02, 0.05).unwrap();
                    own.transition(c, to(), to(), 0.02, 0.05).unwrap();
                    reference.transition(c, to(), to(), 0.02, 0.05).unwrap();
                }
            }
            part(0);
            let a = lanes.step(dt).unwrap();
            part(1);
            let mut p = own.prepare(dt).unwrap();
            p.shown().run();
            p.packs().run();
            let b = p.finish();
            part(2);
            let c = reference.step(dt).unwrap();
            part(3);
            lanes.bounds_into(0..n, &mut boxes).unwrap();
            own.bounds_into(0..n, &mut boxes).unwrap();
            reference.bounds_into(0..n, &mut boxes).unwrap();
            part(4);
            assert_eq!(a, b);
            assert_eq!(a.evaluated, c.evaluated);
            let marker = |e: &&kineform::crowd::Event| matches!(e.kind, EventKind::Marker(_));
            let marks = lanes.events().iter().filter(marker).count();
            assert_eq!(marks, reference.events().iter().filter(marker).count());
            (a, c, lanes.events().len(), reference.events().len(), marks)
        };
        for f in 0..16 {
            frame(f);
        }
        let mut seen = Vec::with_capacity(16);
        let count = allocations(|| {
            for f in 16..32 {
                seen.push(frame(f));
            }
        });
        assert!(
            seen.iter().any(|s| s.0.transitions > 0 && s.1.transitions > 0)
                && seen.iter().any(|s| s.2 > 0 && s.3 > 0)
                && seen.iter().any(|s| s.4 > 0)
                && seen.iter().all(|s| s.0.evaluated < n as u32),
            "the frames transition, have events, markers among them, and carry characters: {seen:?}"
        );
        assert_eq!(
            count, 0,
            "allocations in 16 steady-state frames: {parts:?} (commands, lanes step, prepared frame, reference step, boxes read)"
        );
    });
}

/// The markers' own room in a step's events: every character crossing
/// every one of 32 markers in one step (a step of a whole second: far
/// more events than the 3 a character kept for clip ends and
/// transitions), with its source A and both its layers' sources (at full
/// weight, playing from the start), allocates nothing in either crowd,
/// from the first step.
#[test]
fn a_step_crossing_every_marker_allocates_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut lib = library();
    let last = lib.clips()[0].last_time();
    for k in 0..32 {
        lib.add_marker(0, "m", last * (k as f32 + 0.5) / 32.0)
            .unwrap();
    }
    let n = 64;
    let dt = last.max(0.1);
    let layered = CrowdConfig {
        layers: vec![Layer::overriding(Mask::new()); 2],
        ..config(n)
    };
    pool(1).install(|| {
        let mut lanes = Crowd::new(&lib, layered.clone()).unwrap();
        let mut reference = ReferenceCrowd::new(&lib, layered).unwrap();
        // The first step, source A crossing every marker: what a step
        // needs was reserved when the crowd was built, so even this one
        // does not allocate.
        let step = |lanes: &mut Crowd, reference: &mut ReferenceCrowd| {
            lanes.step(dt).unwrap();
            reference.step(dt).unwrap();
            (lanes.events().len(), reference.events().len())
        };
        let mut seen = (0, 0);
        let count = allocations(|| seen = step(&mut lanes, &mut reference));
        assert!(seen.0 >= 32 * n && seen.1 == seen.0, "{seen:?} events");
        assert_eq!(count, 0, "allocations in a step crossing every marker");
        // Both layers playing at full weight (their commands applied in a
        // step not counted: a frame's commands' sorting has its own room,
        // kept from then on), then a step in which A and both layers'
        // sources cross every marker.
        for c in 0..n {
            for k in 0..2 {
                lanes.play_layer(c, k, Source::looping(0, 0.0)).unwrap();
                lanes.set_layer_weight(c, k, 1.0).unwrap();
                reference.play_layer(c, k, Source::looping(0, 0.0)).unwrap();
                reference.set_layer_weight(c, k, 1.0).unwrap();
            }
        }
        step(&mut lanes, &mut reference);
        let count = allocations(|| seen = step(&mut lanes, &mut reference));
        assert!(seen.0 >= 3 * 32 * n && seen.1 == seen.0, "{seen:?} events");
        assert_eq!(count, 0, "allocations in a step crossing every marker");
    });
}

/// The allocations rayon itself makes on a thread outside its pools that
/// enters one `entries` times (`Crowd::step` enters the global pool once a
/// frame): its queue of injected jobs (crossbeam's `Injector`) takes a
/// block of 63 job slots (1,520 bytes, freed by the worker that empties
/// it) once every 63 jobs, so at most `entries / 63 + 1` blocks, none of
/// them the crowd's (a worker's scratch made on the calling thread is a
/// dozen allocations a frame).
fn injector_blocks(entries: usize) -> usize {
    entries / 63 + 1
}

/// The size of that block (crossbeam-deque 0.8: 63 slots of a job
/// reference and a state word, and the next block's pointer), the only
/// allocation the calling-thread tests let pass.
pub(super) const INJECTOR_BLOCK: usize = 63 * 24 + 8;

/// `count` allocations on the stepping thread over `entries` entries into
/// the pool, `blocks` of them of the injector's block size: none but those
/// blocks, and no more of them than [`injector_blocks`] allows.
fn assert_only_injector_blocks((count, blocks): (usize, usize), entries: usize, what: &str) {
    assert_eq!(
        count - blocks,
        0,
        "{what}: {count} allocations on the stepping thread, {blocks} of rayon's injector blocks"
    );
    assert!(
        blocks <= injector_blocks(entries),
        "{what}: {blocks} injector blocks in {entries} entries"
    );
}

/// A crowd of `n` characters playing, stepped on a thread of its own
/// outside every rayon pool, `commands(crowd, frame)` queued before each
/// step: 12 frames, then 12 counted. Returns the counted frames'
/// allocations on that thread, those of rayon's injector block size, and
/// the transitions the counted frames started.
fn outside_the_pool(
    n: usize,
    commands: impl Fn(&mut Crowd, usize) + Send + 'static,
) -> ((usize, usize), u32) {
    let lib = library();
    let number = POOLS.fetch_add(1, Relaxed) + 1;
    std::thread::spawn(move || {
        TAG.with(|t| t.set(number));
        let mut crowd = Crowd::new(&lib, config(n)).unwrap();
        let a = Source::looping(0, 0.0);
        for c in 0..n {
            crowd.play(c, a, a).unwrap();
        }
        let mut frame = |f: usize| {
            commands(&mut crowd, f);
            crowd.step(1.0 / 60.0).unwrap()
        };
        for f in 0..12 {
            frame(f);
        }
        let mut moved = 0;
        let count = allocations(|| {
            for f in 12..24 {
                moved += frame(f).transitions;
            }
        });
        ((count, BLOCKS.load(Relaxed)), moved)
    })
    .join()
    .unwrap()
}

/// A step called from a thread outside every rayon pool (a game's main
/// thread, stepping on rayon's global pool) allocates nothing on that
/// thread in steady state but rayon's own block of injected jobs
/// ([`injector_blocks`]), with transitions starting every frame: the
/// frame's remainder, which the pool has already run, takes no scratch.
/// Mutation caught: `PackRange::run` or `ShownRange::run` without their
/// all-ran check (the calling thread, which has no worker scratch, then
/// made and dropped a 75 KB scratch once or twice a frame: 18 M of 265 M
/// instructions of `kineform match spring --characters 500 --seconds 1`).
#[test]
fn a_step_from_outside_the_pool_allocates_nothing_on_the_calling_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = 256;
    let (counted, moved) = outside_the_pool(n, move |crowd, f| {
        for (c, rate, moves) in commands(f, n) {
            crowd.set_rate(c, Which::A, rate).unwrap();
            if moves {
                crowd.transition(c, to(), to(), 0.02, 0.05).unwrap();
            }
        }
    });
    assert!(moved > 0, "the counted frames start transitions");
    assert_only_injector_blocks(counted, 12, "256 characters");
}

/// As [`a_step_from_outside_the_pool_allocates_nothing_on_the_calling_thread`],
/// where a part does not split (one batch of shown poses: one character
/// transitioning each frame in a crowd of 256; a crowd of one pack):
/// rayon runs an unsplit part on the thread that asks for it, so
/// `Crowd::step` runs both parts inside one entry into the pool. Mutation
/// caught: each part entering the pool on its own (as before; the calling
/// thread then made and dropped a scratch of about 75 KB a frame, 144
/// allocations in the 12 frames: 0.1 M instructions a frame of
/// `examples/lod_cost mix 2000`, 3.7%).
#[test]
fn a_part_rayon_does_not_split_allocates_nothing_on_the_calling_thread() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for n in [256, 8] {
        let (counted, moved) = outside_the_pool(n, move |crowd, f| {
            crowd.transition(f % n, to(), to(), 0.02, 0.05).unwrap();
        });
        assert_eq!(moved, 12, "{n} characters: one transition a counted frame");
        assert_only_injector_blocks(counted, 12, &format!("{n} characters"));
    }
}
