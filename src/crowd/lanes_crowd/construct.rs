//! Building a [`Crowd`]: [`Crowd::new`] with its checks (the library, the
//! clips' scales, the crowd's size in bytes before anything is allocated)
//! and its state laid out pack-major, before the first frame; and the
//! pieces both crowds build from ([`try_vec`], [`crowd_skeleton`],
//! [`clip_rows`]), which [`crate::crowd::ReferenceCrowd`] shares.

use std::sync::Mutex;

use super::Crowd;
use crate::crowd::bounds::{Aabbx8, check_radii, crowd_radii};
use crate::crowd::command::Queue;
use crate::crowd::layer::Layout;
use crate::crowd::markers::MarkerTable;
use crate::crowd::motion::{
    LodOffsetx8, Motionx8, RootMotionx8, ShiftOffsetx8, Track, TurnOffsetx8,
};
use crate::crowd::passes::LayerPass;
use crate::crowd::passes::{PackScratch, Scratches, ShownPoses};
use crate::crowd::place::{Up, loop_net};
use crate::crowd::schedule::Schedulex8;
use crate::crowd::state::{ClipRows, LayerLanes, Statex8};
use crate::crowd::store::{PackPlan, PackResult, PackStore, Rows};
use crate::crowd::{ClipLibrary, CrowdConfig, Root, Transition};
use crate::crowd::{Event, EventKind};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::lanes::{Quatx8, Vec3x8};
use crate::skeleton::Skeleton;

pub(crate) use crate::error::try_vec;

/// The bytes a crowd states before it is built, or [`Error::Size`] naming
/// them when they pass `isize::MAX`; `parts` are `(what, bytes)`, `None`
/// for a part whose size overflows.
pub(crate) fn stated_bytes(parts: &[(&str, Option<usize>)]) -> Result<usize> {
    let total = parts
        .iter()
        .try_fold(0usize, |sum, &(_, b)| sum.checked_add(b?))
        .filter(|&t| t <= isize::MAX as usize);
    total.ok_or_else(|| Error::Size {
        what: "crowd size",
        reason: format!(
            "{} is more than the {} bytes a process can address",
            parts
                .iter()
                .map(|(w, b)| format!("{w} {}", crate::error::bytes_text(*b)))
                .collect::<Vec<_>>()
                .join(" + "),
            isize::MAX
        ),
    })
}

/// `result`, or its [`Error::Size`] with the crowd's whole stated size
/// added (what failed to be reserved is one part of it).
pub(crate) fn with_stated<T>(result: Result<T>, total: usize) -> Result<T> {
    result.map_err(|e| match e {
        Error::Size { what, reason } => Error::Size {
            what,
            reason: format!(
                "{reason} (the crowd needs {} in all)",
                crate::error::bytes_text(Some(total))
            ),
        },
        e => e,
    })
}

/// The crowd skeleton: the character's root in front of the clips' joints.
pub(crate) fn crowd_skeleton(clip: &Skeleton) -> Result<Skeleton> {
    let parents = std::iter::once(-1)
        .chain(clip.parents().iter().map(|&p| p + 1))
        .collect();
    let names = std::iter::once("root".to_string())
        .chain(clip.names().iter().cloned())
        .collect();
    Skeleton::with_names(parents, names).map_err(|e| match e {
        Error::Skeleton { joint, reason } => Error::Skeleton {
            joint,
            reason: format!("{reason} (a crowd adds a root joint in front of the clips')"),
        },
        e => e,
    })
}

/// Each clip's place in `db`, as lanes take it, with its loop's net
/// motion about `up` ([`crate::crowd::place::loop_net`]).
pub(crate) fn clip_rows(db: &Database, library: &ClipLibrary, up: Up) -> Vec<ClipRows> {
    let lane = |x: usize| i32::try_from(x).unwrap_or(i32::MAX);
    db.clips()
        .iter()
        .zip(library.clips())
        .map(|(&(start, frames), c)| ClipRows {
            start: lane(start),
            last: lane(frames) - 1,
            len: c.last_time(),
            net: loop_net(db, start, frames.saturating_sub(1), up),
        })
        .collect()
}

/// The pose a crowd's local rows start from, crowd joint by joint (0 the
/// world root): each clip joint whose position never moves at its fixed
/// position, with its rotation where it never turns; the rest at rest.
fn rest_pose(db: &Database, joints: usize) -> Vec<Motionx8> {
    (0..joints)
        .map(|cj| match cj.checked_sub(1) {
            Some(clip_joint) if db.moving_row(clip_joint).is_none() => Motionx8 {
                pos: Vec3x8::splat(db.fixed_position(clip_joint)),
                rot: db
                    .still_rotation(clip_joint)
                    .map_or(Quatx8::IDENTITY, Quatx8::splat),
                ..Motionx8::REST
            },
            _ => Motionx8::REST,
        })
        .collect()
}

impl Crowd {
    /// A crowd of `cfg.characters` playing `library`'s clips (unit scales:
    /// the 8-lane path carries no scales; [`crate::crowd::ReferenceCrowd`] plays
    /// clips with scales). Refuses an empty library, no characters, or a
    /// size whose memory cannot be had, with a typed error.
    ///
    /// The size is stated before anything is allocated: the world output,
    /// the kept transition state and the schedules for every character,
    /// and one worker's scratch (about five poses) for each thread of the
    /// current rayon pool (build the crowd inside the pool it will step
    /// in); every part is reserved with `try_reserve`, and a refusal
    /// ([`Error::Size`]) says the part and the whole. A step on a pool with
    /// more threads reserves their scratch first, refusing likewise. A game
    /// that runs the frame on its own threads ([`Crowd::prepare`]) needs
    /// none of the workers' scratch beyond the one each of its threads
    /// makes: build the crowd inside a one-thread pool
    /// (`rayon::ThreadPoolBuilder::new().num_threads(1).build()?.install(..)`)
    /// so that only one is reserved.
    ///
    /// With the `log` feature the first crowd of a process logs which SIMD
    /// path runs, as a warning when the CPU could run a faster build
    /// ([`crate::note_simd_support`]).
    pub fn new(library: &ClipLibrary, cfg: CrowdConfig) -> Result<Crowd> {
        crate::simd::note_simd_support();
        cfg.check()?;
        if library.is_empty() {
            return Err(Error::Length {
                what: "clips in the library (at least 1)",
                expected: 1,
                got: 0,
            });
        }
        let db = Database::with_storage(library.clips(), cfg.clip_storage)?;
        if !db.unit_scales() {
            return Err(Error::Parameter {
                name: "clip scales",
                value: f32::NAN,
                reason: "the 8-lane crowd needs unit scales (use the reference crowd)",
            });
        }
        let skeleton = crowd_skeleton(library.skeleton())?;
        check_radii(&cfg.joint_radii, library.skeleton().len())?;
        let j = skeleton.len();
        let packs = cfg.characters.div_ceil(8);
        let too_big = Error::Size {
            what: "crowd size",
            reason: format!(
                "{} characters × {j} joints overflows the bytes a process can address",
                cfg.characters
            ),
        };
        let turning = db.turning_joints();
        let moving = db.moving_joints();
        let fitted = cfg.fit().is_some();
        let fit_bytes = match fitted {
            true => (turning + moving)
                .checked_mul(size_of::<Vec3x8>())
                .and_then(|b| b.checked_mul(packs)),
            false => Some(0),
        };
        let layout = Layout::new(&cfg.layers, &cfg.blend_profiles, library.skeleton())?;
        let layers = cfg.layers.len();
        let layer_bytes = (size_of::<LayerLanes>() + j)
            .checked_mul(layers)
            .and_then(|b| b.checked_mul(packs));
        let lod_bytes = match cfg.level_of_detail {
            true => size_of::<LodOffsetx8>()
                .checked_mul(j)
                .and_then(|b| b.checked_mul(packs)),
            false => Some(0),
        };
        let threads = rayon::current_num_threads();
        let scratch_bytes =
            PackScratch::bytes(j, turning, moving, layers).and_then(|b| b.checked_mul(threads));
        let total = stated_bytes(&[
            (
                "world output, kept state and schedules",
                crate::crowd::crowd_bytes(cfg.characters, j),
            ),
            ("fitted half-lives", fit_bytes),
            ("layers", layer_bytes),
            ("level of detail", lod_bytes),
            ("workers' scratch", scratch_bytes),
            (
                "events and markers crossed",
                marker_bytes(library, cfg.characters, layers),
            ),
        ])?;
        let rest = rest_pose(&db, j);
        let n = |per: usize| packs.checked_mul(per).ok_or(too_big.clone());
        let shape = (skeleton, rest, layout);
        with_stated(Crowd::build(library, cfg, db, shape, n), total)
    }

    /// [`Crowd::new`]'s allocations, each reserved with `try_reserve`.
    fn build(
        library: &ClipLibrary,
        cfg: CrowdConfig,
        db: Database,
        (skeleton, rest, layout): (Skeleton, Vec<Motionx8>, Layout),
        n: impl Fn(usize) -> Result<usize>,
    ) -> Result<Crowd> {
        let j = skeleton.len();
        let (turning, moving) = (db.turning_joints(), db.moving_joints());
        let layers = cfg.layers.len();
        let rows = clip_rows(&db, library, cfg.up_axis());
        let markers = MarkerTable::new(library.clips(), layers)?;
        let tracks = Track::of(&db);
        let layer_passes = layout
            .layers
            .iter()
            .map(|l| LayerPass::of(l, &tracks))
            .collect();
        let mut scratch = Vec::new();
        grow_scratch(&mut scratch, &rest, (turning, moving, layers))?;
        let store = pack_store(
            &cfg,
            (&rest, rows[0]),
            (j, turning, moving),
            markers.per_pack(),
            &n,
        )?;
        let events = events_room(cfg.characters, cfg.layers.len(), store.marks.len())?;
        debug_assert!(store.is_whole());
        let caches = crate::batch::caches::Caches::of_this_machine();
        Ok(Crowd {
            fetch_ahead: store.bytes() > crate::crowd::passes::fetch_ahead_above(caches),
            radii: crowd_radii(&cfg.joint_radii, j)?,
            packs: store,
            events,
            markers,
            tracks,
            turning,
            layout,
            layer_passes,
            rest,
            scratch: Scratches {
                workers: scratch,
                spare: Default::default(),
            },
            queue: Queue::default(),
            roots_given: 0,
            sorted: Vec::new(),
            shown: ShownPoses::default(),
            skeleton,
            rows,
            db,
            library: library.clone(),
            frames: 0,
            budget: Default::default(),
            cfg,
        })
    }
}

/// The crowd's per-pack state, every part allocated fallibly ([`try_vec`])
/// and laid out pack-major: each character state, transition and layer
/// store its mode needs (inertialization's offsets or dead blending's
/// transition poses and paths, fitted half-lives, layers), the roots, the
/// world output and the markers' room. `n(k)` is `k` rows per pack over
/// every pack, or the refusal of a size that overflows.
fn pack_store(
    cfg: &CrowdConfig,
    (rest, row0): (&[Motionx8], ClipRows),
    (j, turning, moving): (usize, usize, usize),
    marks_per_pack: usize,
    n: &impl Fn(usize) -> Result<usize>,
) -> Result<PackStore> {
    let packs = cfg.characters.div_ceil(8);
    let layers = cfg.layers.len();
    let inert = cfg.transition == Transition::Inertialize;
    let fitted = cfg.fit().is_some();
    let lod = cfg.level_of_detail;
    // `k` rows per pack where `on`, none otherwise.
    let n_if = |on: bool, k: usize| if on { n(k) } else { Ok(0) };
    let rows = |what, len| (what, len, packs);
    let offsets = "inertialization offsets";
    // Any finite half-life: read only while a transition runs, and
    // written at its start.
    let half_life = Vec3x8::splat(crate::reference::Vec3::splat(0.2));
    let fits = "dead blending's fitted half-lives";
    let standing = Root::standing(crate::reference::Vec3::ZERO, 0.0);
    Ok(PackStore {
        count: packs,
        states: try_vec("character states", packs, Statex8::new(row0))?,
        root_motion: try_vec("root motion", packs, RootMotionx8::REST)?,
        root_set: try_vec("roots given", packs, 0)?,
        events: try_vec("events", packs, Default::default())?,
        plan: try_vec("the frame's plan", packs, PackPlan::default())?,
        result: try_vec("the frame's figures", packs, PackResult::default())?,
        ab_flips: pack_rows(rows("blend paths", n(j)?), 0)?,
        turns: pack_rows(rows(offsets, n_if(inert, turning)?), TurnOffsetx8::ZERO)?,
        shifts: pack_rows(rows(offsets, n_if(inert, moving)?), ShiftOffsetx8::ZERO)?,
        transition: Rows::new(dead_blend_poses(rest, n_if(!inert, j)?)?, packs),
        dead_flips: pack_rows(rows("dead blending's paths", n_if(!inert, j)?), 0)?,
        fit_rot: pack_rows(rows(fits, n_if(fitted, turning)?), half_life)?,
        fit_pos: pack_rows(rows(fits, n_if(fitted, moving)?), half_life)?,
        layers: pack_rows(rows("layers", n(layers)?), LayerLanes::new(row0))?,
        layer_flips: pack_rows(rows("layer paths", n(layers * j)?), 0)?,
        roots: pack_rows(rows("roots given", n(8)?), standing)?,
        world: pack_rows(rows("world output", n(j)?), Motionx8::REST)?,
        schedule: try_vec("schedules", packs, Schedulex8::every_step())?,
        lod_offset: pack_rows(rows("level of detail", n_if(lod, j)?), LodOffsetx8::ZERO)?,
        mark_count: try_vec("markers crossed", packs, 0)?,
        bounds: try_vec("bounding boxes", packs, Aabbx8::ZERO)?,
        marks: pack_rows(rows("markers crossed", n(marks_per_pack)?), NO_EVENT)?,
    })
}

/// `len` items of `value` ([`try_vec`]) as rows over `packs` packs.
fn pack_rows<T: Clone>(
    (what, len, packs): (&'static str, usize, usize),
    value: T,
) -> Result<Rows<T>> {
    Ok(Rows::new(try_vec(what, len, value)?, packs))
}

/// Bytes of a crowd's room for the markers its packs' sources (A, B and
/// each of its `layers` layers') may cross in a step
/// ([`MarkerTable::per_pack`] per pack, and once more in the events; the
/// events' room for clip ends and transitions is counted apart).
pub(crate) fn marker_bytes(
    library: &ClipLibrary,
    characters: usize,
    layers: usize,
) -> Option<usize> {
    let most = library.clips().iter().map(|c| c.markers().len()).max()?;
    let sources = layers.checked_add(2)?;
    let marks = characters
        .div_ceil(8)
        .checked_mul(sources)?
        .checked_mul(8)?;
    let marks = marks.checked_mul(most)?;
    marks.checked_mul(2)?.checked_mul(size_of::<Event>())
}

/// A filler for the rows of markers crossed (overwritten before it is
/// read).
pub(crate) const NO_EVENT: Event = Event {
    character: 0,
    kind: EventKind::TransitionFinished,
};

/// An empty list of events with room for the most a step can have (per
/// character, the ends of A and B, a finished transition and each layer's
/// clip end: [`crate::crowd::events::push_events`]; and the `marks`
/// markers the packs' sources may cross, [`MarkerTable::per_pack`] per
/// pack), reserved with `try_reserve` so that no step allocates for its
/// events.
pub(crate) fn events_room(
    characters: usize,
    layers: usize,
    marks: usize,
) -> Result<Vec<crate::crowd::Event>> {
    let mut events = Vec::new();
    let per = 3 + layers;
    characters
        .checked_mul(per)
        .and_then(|n| n.checked_add(marks))
        .and_then(|n| events.try_reserve_exact(n).ok())
        .ok_or(Error::Size {
            what: "events",
            reason: format!(
                "room for {per} events for each of {characters} characters and {marks} markers crossed could not be reserved"
            ),
        })?;
    Ok(events)
}

/// The machine's hardware threads, asked once per process: how many
/// spare scratches a crowd keeps for a caller's threads. (On Linux
/// `available_parallelism` reads the cgroup files, allocating: not
/// something a frame should do.)
fn machine_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |p| p.get()))
}

/// One scratch per thread of the current rayon pool in `scratch` (those
/// missing added), each reserved with `try_reserve`: [`Error::Size`] with
/// nothing added when one cannot be had.
pub(crate) fn grow_scratch(
    scratch: &mut Vec<Mutex<PackScratch>>,
    rest: &[Motionx8],
    (turning, moving, layers): (usize, usize, usize),
) -> Result<()> {
    let threads = rayon::current_num_threads();
    if scratch.len() >= threads {
        return Ok(());
    }
    let mut more = Vec::new();
    more.try_reserve_exact(threads - scratch.len())
        .and_then(|_| scratch.try_reserve_exact(threads - scratch.len()))
        .map_err(|_| Error::Size {
            what: "workers' scratch",
            reason: format!("room for {threads} workers could not be reserved"),
        })?;
    for _ in scratch.len()..threads {
        more.push(Mutex::new(
            PackScratch::try_new(rest, turning, moving, layers).map_err(|e| match e {
                Error::Size { reason, .. } => Error::Size {
                    what: "workers' scratch",
                    reason: format!(
                        "{reason}: one scratch of {} for each of the pool's {threads} threads",
                        crate::error::bytes_text(PackScratch::bytes(
                            rest.len(),
                            turning,
                            moving,
                            layers
                        ))
                    ),
                },
                e => e,
            })?,
        ));
    }
    scratch.append(&mut more);
    Ok(())
}

impl Crowd {
    /// A scratch for each thread of the current rayon pool, reserved
    /// fallibly ([`Error::Size`]): what [`Crowd::step`] needs, and only it.
    pub(super) fn reserve_workers(&mut self) -> Result<()> {
        let (turning, moving) = (self.turning, self.db.moving_joints());
        let layers = self.cfg.layers.len();
        grow_scratch(
            &mut self.scratch.workers,
            &self.rest,
            (turning, moving, layers),
        )
    }

    /// What the next step needs, checked before it changes anything: each
    /// root it moves along its velocity checked to stay within
    /// ±[`crate::limits::MAX_POSITION`], the domain a command may set
    /// ([`Error::Character`] naming the first that would leave it:
    /// re-centre the world with [`Crowd::recenter`]); room for the frame's
    /// sorted commands and for the shown poses of every character a queued
    /// transition names, and, for a frame run on a caller's threads
    /// (`own_threads`), a spare scratch for the thread that holds it, all
    /// reserved fallibly ([`Error::Size`]).
    pub(super) fn prepare_step(&mut self, dt: f32, own_threads: bool) -> Result<()> {
        let n = self.cfg.characters;
        let set = &self.packs.root_set;
        crate::crowd::state::check_roots_after(&self.packs.states, n, dt, |c| {
            set[c / 8] & (1 << (c % 8)) != 0
        })?;
        self.queue.reserve_drain(&mut self.sorted)?;
        let movers = self.queue.transitions().min(n);
        self.shown.reserve(movers, self.skeleton.len())?;
        if own_threads {
            let (rest, turning, moving) = (&self.rest, self.turning, self.db.moving_joints());
            let layers = self.cfg.layers.len();
            let keep = machine_threads();
            self.scratch
                .reserve_spare(|| PackScratch::try_new(rest, turning, moving, layers), keep)?;
        }
        Ok(())
    }

    /// Moves the world's origin to `origin`: every character's root, the
    /// roots given for the next step, the world output the velocity
    /// check compares the next step with, and the bounding boxes
    /// ([`Crowd::bounds_into`]), shifted by `-origin`, so that the
    /// next step continues the motion without a jump. For a game whose
    /// characters travel farther than ±[`crate::limits::MAX_POSITION`] (a
    /// floating origin: re-centre on the camera or the player now and
    /// then, and shift the game's own positions by the same `origin`).
    ///
    /// Refused, changing nothing: an `origin` with a coordinate that is not
    /// finite ([`Error::Parameter`]), or one that would take a root, or a
    /// root given for the next step, out of ±`MAX_POSITION`
    /// ([`Error::Character`] naming the first).
    pub fn recenter(&mut self, origin: crate::reference::Vec3) -> Result<()> {
        crate::crowd::state::check_origin(origin)?;
        let n = self.cfg.characters;
        crate::crowd::state::check_recentered(&self.packs.states, n, origin)?;
        let given = |set: &[u8], c: usize| set[c / 8] & (1 << (c % 8)) != 0;
        for (c, root) in self.packs.roots.iter().enumerate().take(n) {
            if given(&self.packs.root_set, c) {
                crate::crowd::state::check_recentered_root(c, root, origin)?;
            }
        }
        for c in 0..n {
            if given(&self.packs.root_set, c) {
                self.packs.roots[c].pos -= origin;
            }
        }
        let shift = crate::lanes::Vec3x8::splat(origin);
        for s in self.packs.states.iter_mut() {
            s.root.pos -= shift;
        }
        for w in self.packs.world.iter_mut() {
            w.pos -= shift;
        }
        for b in self.packs.bounds.iter_mut() {
            b.shift(shift);
        }
        Ok(())
    }
}

/// Dead blending's transition poses: `len` rows, each character's pose
/// starting at the rest pose (none under inertialization).
fn dead_blend_poses(rest: &[Motionx8], len: usize) -> Result<Vec<Motionx8>> {
    let mut t = try_vec("dead blending's transition poses", len, Motionx8::REST)?;
    for pose in t.chunks_mut(rest.len()) {
        pose.copy_from_slice(rest);
    }
    Ok(t)
}
