//! Building a [`ReferenceCrowd`]: its size stated and every part
//! reserved with `try_reserve` before it is used (each character's kept
//! poses, the schedules, the layers, one worker's scratch per thread).

use std::sync::Mutex;

use super::{RefScratch, RefState, ReferenceCrowd};
use crate::crowd::command::Queue;
use crate::crowd::lanes_crowd::construct::{
    NO_EVENT, clip_rows, crowd_skeleton, events_room, marker_bytes, stated_bytes, try_vec,
    with_stated,
};
use crate::crowd::layer::Layout;
use crate::crowd::markers::MarkerTable;
use crate::crowd::place::Place;
use crate::crowd::schedule::Schedulex8;
use crate::crowd::state::{LayerLanes, Statex8};
use crate::crowd::store::EventBits;
use crate::crowd::{ClipLibrary, CrowdConfig, Event, FrameStats};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::reference::{self as r, Pose, Vec3};

/// A pose of `joints` joints at rest, every field reserved with
/// `try_reserve` ([`Error::Size`] naming `what`).
fn try_pose(what: &'static str, joints: usize) -> Result<Pose> {
    let v = |one| try_vec(what, joints, one);
    Ok(Pose {
        pos: v(Vec3::ZERO)?,
        rot: try_vec(what, joints, r::Quat::IDENTITY)?,
        scl: v(Vec3::ONE)?,
        vel: v(Vec3::ZERO)?,
        ang: v(Vec3::ZERO)?,
        svl: v(Vec3::ZERO)?,
    })
}

/// Bytes of one pose of `joints` joints.
fn pose_bytes(joints: usize) -> Option<usize> {
    joints.checked_mul(5 * size_of::<Vec3>() + size_of::<r::Quat>())
}

impl RefState {
    /// Bytes of one character's kept state for `joints` joints (`fits`
    /// fitted half-lives per axis).
    fn bytes(joints: usize, fits: usize, layers: usize) -> Option<usize> {
        pose_bytes(joints)?
            .checked_mul(5)?
            .checked_add(joints.checked_mul(2 + layers)?)?
            .checked_add(fits.checked_mul(2 * size_of::<Vec3>())?)?
            .checked_add(size_of::<RefState>())
    }

    /// One character's kept state, reserved with `try_reserve`.
    fn try_new(joints: usize, fits: usize, layers: usize) -> Result<RefState> {
        const WHAT: &str = "reference crowd poses";
        Ok(RefState {
            offset: try_pose(WHAT, joints)?,
            transition: try_pose(WHAT, joints)?,
            dead_flip: try_vec(WHAT, joints, false)?,
            ab_flip: try_vec(WHAT, joints, false)?,
            layer_flip: try_vec(WHAT, layers * joints, false)?,
            fit_pos: try_vec(WHAT, fits, Vec3::splat(0.2))?,
            fit_rot: try_vec(WHAT, fits, Vec3::splat(0.2))?,
            world: try_pose(WHAT, joints)?,
            anchor: try_pose(WHAT, joints)?,
            lod_offset: try_pose(WHAT, joints)?,
            bounds: crate::crowd::Aabb::ZERO,
            removed: Place::IDENTITY,
            root_motion: crate::crowd::RootDelta::default(),
            places: [Place::IDENTITY; 2],
        })
    }
}

impl RefScratch {
    /// Bytes of one worker's scratch for `joints` crowd joints and
    /// `layers` layers.
    fn bytes(joints: usize, layers: usize) -> Option<usize> {
        pose_bytes(joints)?
            .checked_mul(12)?
            .checked_add(joints.checked_mul(1 + layers)?)
    }

    /// One worker's scratch, reserved with `try_reserve`.
    fn try_new(j: usize, layers: usize) -> Result<RefScratch> {
        const WHAT: &str = "a reference worker's scratch";
        let p = || try_pose(WHAT, j);
        Ok(RefScratch {
            a: p()?,
            b: p()?,
            input: p()?,
            old: p()?,
            shown: p()?,
            local: p()?,
            extrapolated: p()?,
            global: p()?,
            carried: p()?,
            shown_lod: p()?,
            sample: try_pose(WHAT, j - 1)?,
            layer: p()?,
            flips: try_vec(WHAT, j, false)?,
            layer_flips: try_vec(WHAT, layers * j, false)?,
        })
    }
}

/// One scratch per thread of the current rayon pool in `scratch` (those
/// missing added, fallibly).
pub(super) fn grow_ref_scratch(
    scratch: &mut Vec<Mutex<RefScratch>>,
    (joints, layers): (usize, usize),
) -> Result<()> {
    let threads = rayon::current_num_threads();
    if scratch.len() >= threads {
        return Ok(());
    }
    scratch
        .try_reserve_exact(threads - scratch.len())
        .map_err(|_| Error::Size {
            what: "a reference worker's scratch",
            reason: format!("room for {threads} workers could not be reserved"),
        })?;
    while scratch.len() < threads {
        scratch.push(Mutex::new(RefScratch::try_new(joints, layers)?));
    }
    Ok(())
}

impl ReferenceCrowd {
    /// See [`crate::crowd::Crowd::new`]; clips with any scales are accepted. The
    /// size is stated and every part reserved with `try_reserve` before it
    /// is used, as there: each character's kept poses, the schedules, and
    /// one worker's scratch (ten poses) per thread of the current pool; a
    /// refusal is an [`Error::Size`] naming the part and the whole.
    pub fn new(library: &ClipLibrary, cfg: CrowdConfig) -> Result<ReferenceCrowd> {
        cfg.check()?;
        not_empty(library)?;
        let db = Database::with_storage(library.clips(), cfg.clip_storage)?;
        let decoded = match cfg.clip_storage {
            crate::crowd::ClipStorage::Full => None,
            crate::crowd::ClipStorage::Compact | crate::crowd::ClipStorage::Stepped => {
                Some(db.decoded_clips(library.clips())?)
            }
        };
        let skeleton = crowd_skeleton(library.skeleton())?;
        crate::crowd::bounds::check_radii(&cfg.joint_radii, library.skeleton().len())?;
        let layout = Layout::new(&cfg.layers, &cfg.blend_profiles, library.skeleton())?;
        let (j, nl) = (skeleton.len(), cfg.layers.len());
        let rows = clip_rows(&db, library, cfg.up_axis());
        let packs = cfg.characters.div_ceil(8);
        let fits = if cfg.fit().is_some() { j } else { 0 };
        let slots = whole_packs(cfg.characters)?;
        let total = stated_size(library, &cfg, (j, nl, fits), slots)?;
        let markers = with_stated(MarkerTable::new(library.clips(), nl), total)?;
        let marks = with_stated(
            packs
                .checked_mul(markers.per_pack().max(1))
                .ok_or(Error::Size {
                    what: "markers crossed",
                    reason: format!("{packs} packs' markers crossed do not fit a usize"),
                })
                .and_then(|n| try_vec("markers crossed", n, NO_EVENT)),
            total,
        )?;
        let room = packs * markers.per_pack();
        let built = characters(slots, (j, fits, nl));
        let (chars, scratch) = with_stated(built, total)?;
        Ok(ReferenceCrowd {
            states: with_stated(
                try_vec("character states", packs, Statex8::new(rows[0])),
                total,
            )?,
            layers: with_stated(
                try_vec("layers", packs * nl, LayerLanes::new(rows[0])),
                total,
            )?,
            schedules: with_stated(
                try_vec("level of detail", packs, Schedulex8::every_step()),
                total,
            )?,
            layout,
            chars,
            queue: Queue::default(),
            sorted: Vec::new(),
            scratch,
            events: with_stated(events_room(cfg.characters, nl, room), total)?,
            markers,
            marks,
            pack_stats: with_stated(
                try_vec(
                    "each pack's figures",
                    packs,
                    (FrameStats::default(), [0; 4 + crate::crowd::MAX_LAYERS], 0),
                ),
                total,
            )?,
            rows,
            skeleton,
            library: library.clone(),
            decoded,
            clip_table_bytes: db.table_bytes(),
            frames: 0,
            budget: Default::default(),
            cfg,
        })
    }
}

/// A library with no clips is refused.
fn not_empty(library: &ClipLibrary) -> Result<()> {
    match library.is_empty() {
        true => Err(Error::Length {
            what: "clips in the library (at least 1)",
            expected: 1,
            got: 0,
        }),
        false => Ok(()),
    }
}

/// `characters` rounded up to whole packs of 8: a size within 7 of
/// `usize::MAX` has no such count (found by the `crowd_api` fuzz target).
fn whole_packs(characters: usize) -> Result<usize> {
    characters.checked_next_multiple_of(8).ok_or(Error::Size {
        what: "reference crowd characters",
        reason: format!("{characters} characters do not round up to whole packs of 8 in a usize"),
    })
}

/// The bytes a reference crowd states before it is built (its characters'
/// kept poses, the packs' schedules, layers and figures, every worker's
/// scratch and the markers' room), or [`crate::Error::Size`] when they pass
/// `isize::MAX`. `slots` is the characters rounded up to whole packs.
/// Every character's kept state (`slots`, whole packs) and one scratch per
/// worker thread, allocated fallibly.
fn characters(
    slots: usize,
    (j, fits, nl): (usize, usize, usize),
) -> Result<(Vec<RefState>, Vec<Mutex<RefScratch>>)> {
    let mut chars = Vec::new();
    chars.try_reserve_exact(slots).map_err(|_| Error::Size {
        what: "reference crowd poses",
        reason: format!("{slots} characters' states could not be reserved"),
    })?;
    for i in 0..slots {
        // A failure part way names the whole reservation, not the one
        // small vector that happened to fail (issue 21, defect 10).
        let state = RefState::try_new(j, fits, nl).map_err(|_| Error::Size {
            what: "reference crowd poses",
            reason: format!(
                "the kept states of {slots} characters ({} bytes each) could not be reserved: memory ran out at character {i}",
                RefState::bytes(j, fits, nl).unwrap_or(usize::MAX)
            ),
        })?;
        chars.push(state);
    }
    let mut scratch = Vec::new();
    grow_ref_scratch(&mut scratch, (j, nl))?;
    Ok((chars, scratch))
}

fn stated_size(
    library: &ClipLibrary,
    cfg: &CrowdConfig,
    (j, nl, fits): (usize, usize, usize),
    slots: usize,
) -> Result<usize> {
    let packs = cfg.characters.div_ceil(8);
    let threads = rayon::current_num_threads();
    stated_bytes(&[
        (
            "characters' kept poses",
            RefState::bytes(j, fits, nl).and_then(|b| b.checked_mul(slots)),
        ),
        (
            "schedules",
            packs.checked_mul(
                size_of::<Statex8>()
                    + size_of::<Schedulex8>()
                    + size_of::<(FrameStats, EventBits, usize)>()
                    + 8 * (3 + nl) * size_of::<Event>(),
            ),
        ),
        (
            "layers",
            packs
                .checked_mul(nl)
                .and_then(|b| b.checked_mul(size_of::<LayerLanes>())),
        ),
        (
            "workers' scratch",
            RefScratch::bytes(j, nl).and_then(|b| b.checked_mul(threads)),
        ),
        (
            "markers crossed",
            marker_bytes(library, cfg.characters, cfg.layers.len()),
        ),
    ])
}
