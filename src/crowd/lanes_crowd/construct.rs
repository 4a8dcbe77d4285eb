//! Building a [`Crowd`]: [`Crowd::new`] with its checks (the library, the
//! clips' scales, the crowd's size in bytes before anything is allocated)
//! and its state laid out pack-major, before the first frame; and the
//! pieces both crowds build from ([`try_vec`], [`crowd_skeleton`],
//! [`clip_rows`]), which [`crate::crowd::ReferenceCrowd`] shares.

use super::Crowd;
use crate::crowd::command::Queue;
use crate::crowd::layer::Layout;
use crate::crowd::motion::{Motionx8, RootMotionx8, ShiftOffsetx8, Track, TurnOffsetx8};
use crate::crowd::passes::LayerPass;
use crate::crowd::passes::{Scratches, ShownPoses};
use crate::crowd::state::{ClipRows, LayerLanes, Statex8};
use crate::crowd::store::{PackPlan, PackResult, PackStore, Rows};
use crate::crowd::{ClipLibrary, CrowdConfig, Root, Transition};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::lanes::{Quatx8, Vec3x8};
use crate::skeleton::Skeleton;

/// `n` copies of `v`, refused as an [`Error`] (not an abort) when the
/// memory cannot be had.
pub(crate) fn try_vec<T: Clone>(what: &'static str, n: usize, v: T) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| Error::Length {
        what,
        expected: 0,
        got: n.saturating_mul(size_of::<T>()),
    })?;
    out.resize(n, v);
    Ok(out)
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

/// Each clip's place in `db`, as lanes take it.
pub(crate) fn clip_rows(db: &Database, library: &ClipLibrary) -> Vec<ClipRows> {
    let lane = |x: usize| i32::try_from(x).unwrap_or(i32::MAX);
    db.clips()
        .iter()
        .zip(library.clips())
        .map(|(&(start, frames), c)| ClipRows {
            start: lane(start),
            last: lane(frames) - 1,
            len: c.last_time(),
        })
        .collect()
}

impl Crowd {
    /// A crowd of `cfg.characters` playing `library`'s clips (unit scales:
    /// the 8-lane path carries no scales; [`crate::crowd::ReferenceCrowd`] plays
    /// clips with scales). Refuses an empty library, no characters, or a
    /// size whose memory cannot be had, with a typed error.
    ///
    /// With the `log` feature the first crowd of a process logs which SIMD
    /// path runs, as a warning when the CPU could run a faster build
    /// ([`crate::note_simd_support`]).
    pub fn new(library: &ClipLibrary, cfg: CrowdConfig) -> Result<Crowd> {
        crate::simd::note_simd_support();
        cfg.check()?;
        if library.is_empty() {
            return Err(Error::Length {
                what: "clips in the library",
                expected: 1,
                got: 0,
            });
        }
        let db = Database::new(library.clips())?;
        if !db.unit_scales() {
            return Err(Error::Parameter {
                name: "clip scales",
                value: f32::NAN,
                reason: "the 8-lane crowd needs unit scales (use the reference crowd)",
            });
        }
        let skeleton = crowd_skeleton(library.skeleton())?;
        let j = skeleton.len();
        let packs = cfg.characters.div_ceil(8);
        let too_big = Error::Length {
            what: "crowd size in bytes (characters x joints too large)",
            expected: isize::MAX as usize,
            got: usize::MAX,
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
        let layers = cfg.layers.len();
        let layer_bytes = (size_of::<LayerLanes>() + j)
            .checked_mul(layers)
            .and_then(|b| b.checked_mul(packs));
        let bytes = crate::crowd::crowd_bytes(cfg.characters, j)
            .and_then(|b| b.checked_add(fit_bytes?)?.checked_add(layer_bytes?))
            .ok_or(too_big.clone())?;
        if bytes > isize::MAX as usize {
            return Err(too_big);
        }
        let rows = clip_rows(&db, library);
        let tracks = Track::of(&db);
        let layout = Layout::new(&cfg.layers, &cfg.blend_profiles, library.skeleton())?;
        let layer_passes = layout
            .layers
            .iter()
            .map(|l| LayerPass::of(l, &tracks))
            .collect();
        let rest: Vec<Motionx8> = (0..j)
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
            .collect();
        let inert = cfg.transition == Transition::Inertialize;
        let n = |per: usize| packs.checked_mul(per).ok_or(too_big.clone());
        let transition = if inert {
            Vec::new()
        } else {
            let mut t = try_vec("dead blending's transition poses", n(j)?, Motionx8::REST)?;
            for pose in t.chunks_mut(j) {
                pose.copy_from_slice(&rest);
            }
            t
        };
        let store = PackStore {
            count: packs,
            states: try_vec("character states", packs, Statex8::new(rows[0]))?,
            root_motion: try_vec("root motion", packs, RootMotionx8::ZERO)?,
            root_set: try_vec("roots given", packs, 0)?,
            events: try_vec("events", packs, Default::default())?,
            plan: try_vec("the frame's plan", packs, PackPlan::default())?,
            result: try_vec("the frame's figures", packs, PackResult::default())?,
            ab_flips: Rows::new(try_vec("blend paths", n(j)?, 0)?, packs),
            turns: Rows::new(
                try_vec(
                    "inertialization offsets",
                    if inert { n(turning)? } else { 0 },
                    TurnOffsetx8::ZERO,
                )?,
                packs,
            ),
            shifts: Rows::new(
                try_vec(
                    "inertialization offsets",
                    if inert { n(moving)? } else { 0 },
                    ShiftOffsetx8::ZERO,
                )?,
                packs,
            ),
            transition: Rows::new(transition, packs),
            dead_flips: Rows::new(
                try_vec("dead blending's paths", if inert { 0 } else { n(j)? }, 0)?,
                packs,
            ),
            // Any finite half-life: read only while a transition runs, and
            // written at its start.
            fit_rot: Rows::new(
                try_vec(
                    "dead blending's fitted half-lives",
                    if fitted { n(turning)? } else { 0 },
                    Vec3x8::splat(crate::reference::Vec3::splat(0.2)),
                )?,
                packs,
            ),
            fit_pos: Rows::new(
                try_vec(
                    "dead blending's fitted half-lives",
                    if fitted { n(moving)? } else { 0 },
                    Vec3x8::splat(crate::reference::Vec3::splat(0.2)),
                )?,
                packs,
            ),
            layers: Rows::new(
                try_vec("layers", n(layers)?, LayerLanes::new(rows[0]))?,
                packs,
            ),
            layer_flips: Rows::new(try_vec("layer paths", n(layers * j)?, 0)?, packs),
            roots: Rows::new(
                try_vec(
                    "roots given",
                    n(8)?,
                    Root::standing(crate::reference::Vec3::ZERO, 0.0),
                )?,
                packs,
            ),
            world: Rows::new(try_vec("world output", n(j)?, Motionx8::REST)?, packs),
        };
        debug_assert!(store.is_whole());
        Ok(Crowd {
            packs: store,
            events: Vec::new(),
            tracks,
            turning,
            layout,
            layer_passes,
            rest,
            scratch: Scratches::default(),
            queue: Queue::default(),
            roots_given: 0,
            sorted: Vec::new(),
            shown: ShownPoses::default(),
            skeleton,
            rows,
            db,
            library: library.clone(),
            frames: 0,
            cfg,
        })
    }
}
