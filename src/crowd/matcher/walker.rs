//! One character of a [`Matcher`](super::Matcher) ([`Walker`]): what it
//! keeps between updates (its desired motion apart, eight characters a
//! [`SteerPack`]), and its share of an update: its desired motion and,
//! when due, its query ([`desire`], a pack at a time), then its decision
//! on what the search found ([`decide`]).

use rand_pcg::Pcg32;

use super::steer::Lapses;
use super::steer_lanes::{Ahead, SteerPack};
use super::{MatcherConfig, Part};
use crate::crowd::{Driven, Root};
use crate::error::Result;
use crate::lanes::F32x8;
use crate::matching::search::MAX_PADDED;
use crate::matching::{FrameSource, Match, MatchDatabase, WorldPose};

/// What a character keeps between updates: its targets' random numbers,
/// its root, the clip it plays and its time, and the seconds to its next
/// search (its desired motion is its lane of a [`SteerPack`]).
#[derive(Clone, Debug)]
pub(super) struct Walker {
    pub(super) rng: Pcg32,
    pub(super) root: Root,
    pub(super) clip: usize,
    pub(super) time: f32,
    pub(super) countdown: f32,
    /// Its query's index in its part's batch this update ([`NO_SLOT`]: it
    /// did not search).
    pub(super) slot: u32,
}

/// [`Walker::slot`] of a character that did not search.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// A due character's query ([`MatchDatabase::query`]) and its seed, the
/// database frame it plays (evaluated first:
/// [`QueryBatch::push`](crate::matching::QueryBatch::push)).
#[derive(Clone, Debug)]
pub(super) struct Query {
    pub(super) q: [f32; MAX_PADDED],
    pub(super) seed: Option<usize>,
}

/// An update's step and the times its trajectories look ahead, with the
/// springs' constants for each ([`Lapses`]: the same for every character).
pub(super) struct Now {
    step: Lapses,
    ahead: [Lapses; 3],
}

impl Now {
    pub(super) fn new(cfg: &MatcherConfig, dt: f32, ahead: [f32; 3]) -> Now {
        Now {
            step: Lapses::new(cfg, dt),
            ahead: ahead.map(|t| Lapses::new(cfg, t)),
        }
    }

    /// The step, seconds.
    fn dt(&self) -> f32 {
        self.step.pos.dt
    }
}

/// A pack of up to eight characters' desired motion for a step of
/// `now.dt()` (new targets, the simulated roots stepped, their trajectory
/// errors taken, then clamped: [`SteerPack`], eight lanes at once) and,
/// for each one due (on its interval, on a sharp change, or near its
/// clip's end), its query from its world pose in `crowd`; `first` is the
/// first one's character, `walkers` theirs. Into `part`: the trajectory
/// errors summed in character order, the queries in its batch (each
/// due walker's slot its index there) and their characters, and the first
/// query refused (that character's error not summed).
#[inline]
pub(super) fn desire(
    (cfg, crowd, db, now): (&MatcherConfig, &impl Driven, &MatchDatabase, &Now),
    first: usize,
    walkers: &mut [Walker],
    steer: &mut SteerPack,
    part: &mut Part,
) {
    let dt = now.dt();
    // Unreachable truncation: at most 8 lanes, so the mask fits a byte.
    let live = ((1u16 << walkers.len().min(8)) - 1) as u8;
    let sharp = steer.retarget(dt, live, |l, s| s.draw(cfg, &mut walkers[l].rng));
    steer.step(&now.step, live);
    let root = [
        F32x8::new(core::array::from_fn(|l| {
            walkers.get(l).map_or(0.0, |w| w.root.pos.x)
        })),
        F32x8::new(core::array::from_fn(|l| {
            walkers.get(l).map_or(0.0, |w| w.root.pos.z)
        })),
    ];
    let dist = steer.clamp(cfg.clamp_distance, root, live).to_array();
    let mut due = 0u32;
    for (l, w) in walkers.iter_mut().enumerate() {
        if is_due(cfg, crowd, dt, w, sharp & (1 << l) != 0) {
            due |= 1 << l;
        }
    }
    // The due lanes' trajectories, the pack's springs predicted once.
    let ahead = (due != 0).then(|| steer.ahead(&now.ahead));
    for (l, w) in walkers.iter_mut().enumerate() {
        let c = first + l;
        let q = match &ahead {
            Some(ahead) if due & (1 << l) != 0 => query((crowd, db), c, w, ahead, l),
            _ => Ok(None),
        };
        // The query into the part's batch (its slot there), or the first
        // refusal kept.
        let q = q.and_then(|q| match q {
            Some(q) => part
                .batch
                .push(&q.q[..db.layout().padded()], q.seed)
                .map(|()| true),
            None => Ok(false),
        });
        match q {
            Ok(searches) => {
                part.error += f64::from(dist[l]);
                if searches {
                    w.slot = part.chars.len() as u32;
                    part.chars.push(c as u32);
                }
            }
            Err(e) => {
                part.failed.get_or_insert(e);
            }
        }
    }
}

/// Whether character `w` searches this step (`sharp` when its targets
/// changed sharply): on its interval, on a sharp change, or near its
/// clip's end ([`desire`]). Counts its interval down by `dt`.
#[inline(always)]
fn is_due(cfg: &MatcherConfig, crowd: &impl Driven, dt: f32, w: &mut Walker, sharp: bool) -> bool {
    w.countdown -= dt;
    w.slot = NO_SLOT;
    let clip = &crowd.library().clips()[w.clip];
    let near_end = w.time + 2.0 * dt > clip.last_time();
    if !(w.countdown <= 0.0 || sharp || near_end) {
        return false;
    }
    // On the interval, keep the phase (`search_every` apart on average,
    // whatever the step); out of turn, keep it too. Restarting the
    // interval on a sharp change put every character in one phase: each
    // character's first targets are a sharp change, on the same update,
    // so the stagger was lost after one frame and every sixth frame
    // searched for the whole crowd (callgrind: 21 M instructions against
    // 2.5 M in the frames between, at 2,000 characters).
    if w.countdown <= 0.0 {
        w.countdown = (w.countdown + cfg.search_every).max(0.0);
    }
    true
}

/// Character `c`'s query, lane `l` of its pack's predicted trajectories
/// `ahead` ([`SteerPack::ahead`]), from its world pose in `crowd`.
#[inline(always)]
fn query(
    (crowd, db): (&impl Driven, &MatchDatabase),
    c: usize,
    w: &Walker,
    ahead: &[Ahead; 3],
    l: usize,
) -> Result<Option<Query>> {
    let joints = db.joints();
    let kf = |j: usize| crowd.world_kform(c, j + 1).unwrap_or_default();
    let (hips, lf, rf) = (kf(joints.hips), kf(joints.left_foot), kf(joints.right_foot));
    let pose = WorldPose {
        hips_pos: hips.pos,
        hips_rot: hips.rot,
        hips_vel: hips.vel,
        left_foot_pos: lf.pos,
        left_foot_vel: lf.vel,
        right_foot_pos: rf.pos,
        right_foot_vel: rf.vel,
    };
    let traj = ahead.each_ref().map(|a| a.point(l));
    let frame_time = crowd.library().clips()[w.clip].frame_time();
    let mut q = Query {
        q: [0.0; MAX_PADDED],
        seed: db.frame_of(w.clip, (w.time / frame_time) as usize),
    };
    db.query(&pose, &traj, &mut q.q[..db.layout().padded()])?;
    Ok(Some(q))
}

/// Whether character `w` transitions to what its search found (`found`
/// at its slot, when it searched): to a frame that is not the one playing
/// (frames of its clip within [`MatcherConfig::same_clip_window`] count as
/// the one playing, while that one is searchable): returns that frame and
/// its source. Its clip time moves on by `dt` when it does not.
pub(super) fn decide(
    cfg: &MatcherConfig,
    crowd: &impl Driven,
    db: &MatchDatabase,
    dt: f32,
    found: &[Match],
    w: &mut Walker,
) -> Option<(usize, FrameSource)> {
    let to = (w.slot != NO_SLOT)
        .then(|| found.get(w.slot as usize))
        .flatten()
        .and_then(|m| Some((m.frame, db.source(m.frame)?)));
    // The frame playing is looked up only for a character that searched
    // (a sixth of them a frame): the others stay.
    let stays = |f: usize, s: &FrameSource| {
        let frame_time = crowd.library().clips()[w.clip].frame_time();
        let playing = db.frame_of(w.clip, (w.time / frame_time) as usize);
        playing.is_some_and(|p| db.searchable(p) || p == f)
            && s.clip == w.clip
            && (s.time - w.time).abs() <= cfg.same_clip_window
    };
    match to {
        Some((f, s)) if !stays(f, &s) => {
            (w.clip, w.time) = (s.clip, s.time);
            Some((f, s))
        }
        _ => {
            w.time += dt;
            None
        }
    }
}
