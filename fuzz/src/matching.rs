//! The `matching_api` target: arbitrary bytes decoded into a motion-matching
//! database's primary data ([`DatabaseParts`], as a file read back gives
//! it: every configuration field, its joints and the parts' joints'
//! forward axes, the frame time, offsets, scales, clip spans (empty ones
//! anywhere), features and searchable flags, each value ordinary, one of
//! [`super::api::SPECIALS`] or raw bits, lengths now and then wrong), then queries (frames' own features, near them, far, special
//! values; seeds in and out of range; switch margins special too) and the
//! database's readers.
//!
//! One input in 16 builds a database from the embedded clip under a fuzzed
//! configuration instead ([`MatchDatabase::build`]): a typed refusal, or
//! every feature finite and the parts accepted back.
//!
//! What must hold: [`MatchDatabase::from_parts`] refuses with a typed error
//! or accepts; an accepted database gives back its parts unchanged
//! (`to_parts`, and `from_parts` of them again), every frame's source
//! names a clip frame that maps back to it with a finite time, and
//! `memory` counts the frames and at least their features' bytes; a query or margin that is refused leaves the batch
//! as it was; brute force, the accelerated search and the scalar
//! reference give the same frame and distance bits for every query, and
//! the single accelerated search the reference's unseeded best; a slice
//! of the wrong length is refused, left untouched; [`MatchDatabase::query`]
//! and `query_from_frame` write a finite query or refuse, writing nothing.

use std::sync::OnceLock;

use kineform::Error;
use kineform::crowd::ClipLibrary;
use kineform::matching::{
    CharacterFrame, ClipSpan, DatabaseParts, FeatureJoints, FeatureLayout, FootFeatures, Match,
    MatchConfig, MatchDatabase, QueryBatch, TrajectoryPoint, WorldPose, reference, search,
};
use kineform::reference::{Quat, Vec3};

use super::api::SPECIALS;

/// What one input did, for the smoke test's shares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The parts were accepted.
    pub accepted: bool,
    /// Queries searched (accepted into a batch).
    pub searched: usize,
    /// Queries refused by the batch.
    pub refused_queries: usize,
    /// The input built a database from the embedded clip ([`built`]):
    /// whether it was accepted.
    pub built: Option<bool>,
}

/// Reads the input; past its end everything is zero.
struct Gen<'a>(&'a [u8]);

impl Gen<'_> {
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
    /// An ordinary value in `[lo, hi]` most of the time; one in 16 a
    /// special value (NaN, infinities, subnormals, huge, negative ...),
    /// one in 32 raw bits.
    fn value(&mut self, lo: f32, hi: f32) -> f32 {
        match self.u8() {
            0..=14 => SPECIALS[self.u8() as usize % SPECIALS.len()],
            15..=22 => f32::from_bits(u32::from_le_bytes([
                self.u8(),
                self.u8(),
                self.u8(),
                self.u8(),
            ])),
            _ => lo + (hi - lo) * (self.u16() as f32 / 65535.0),
        }
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.value(-r, r), self.value(-r, r), self.value(-r, r))
    }
    /// A length near `n`: now and then one off, or zero.
    fn len_near(&mut self, n: usize) -> usize {
        match self.u8() {
            0 => n + 1,
            1 => n.saturating_sub(1),
            2 => 0,
            _ => n,
        }
    }
}

fn config(g: &mut Gen) -> MatchConfig {
    let feet = match g.u8() % 3 {
        0 => FootFeatures::DEMO,
        1 => FootFeatures::SPRING,
        _ => FootFeatures::CUBIC,
    };
    let mut c = MatchConfig::with_feet(feet);
    let flags = g.u8();
    if flags & 1 != 0 {
        c.feet = match feet {
            FootFeatures::PositionVelocity { .. } => FootFeatures::PositionVelocity {
                position_weight: g.value(0.0, 4.0),
                velocity_weight: g.value(0.0, 4.0),
            },
            FootFeatures::Spring { .. } => FootFeatures::Spring {
                halflife: g.value(0.0, 1.0),
                weight: g.value(0.0, 4.0),
            },
            FootFeatures::Cubic { .. } => FootFeatures::Cubic {
                blendtime: g.value(0.0, 1.0),
                weight: g.value(0.0, 4.0),
            },
        };
    }
    if flags & 2 != 0 {
        c.hip_velocity_weight = g.value(0.0, 4.0);
        c.trajectory_position_weight = g.value(0.0, 4.0);
        c.trajectory_direction_weight = g.value(0.0, 4.0);
    }
    if flags & 4 != 0 {
        c.trajectory_times = [g.value(0.0, 2.0), g.value(0.0, 2.0), g.value(0.0, 61.0)];
    }
    if flags & 8 != 0 {
        c.frame_step = match g.u8() % 8 {
            0 => 0,
            1 => usize::MAX,
            2 => usize::MAX / 2 + 1,
            3 => 1 << 40,
            4 => 1_000_003,
            n => n as usize,
        };
    }
    if flags & 16 != 0 {
        c.end_margin = g.value(0.0, 61.0);
        c.cut_speed = g.value(0.0, 400.0);
    }
    if flags & 32 != 0 {
        // Indices within the CMU skeleton or past it; any forward axis.
        let mut joint = || g.u8() as usize % 40;
        let (hips, left_foot, right_foot) = (joint(), joint(), joint());
        c.joints = Some(FeatureJoints {
            hips,
            left_foot,
            right_foot,
            forward: g.vec3(2.0),
        });
    }
    c
}

/// Features of `frames` frames: a walk (each frame a small step from the
/// last, as motion is), independent values, or special ones here and
/// there.
fn features(g: &mut Gen, frames: usize, dims: usize) -> Vec<f32> {
    let n = g.len_near(frames * dims);
    let walk = g.u8() & 1 == 0;
    let special = g.u8() < 24;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let x = if special && g.u8() == 0 {
            g.value(-3.0, 3.0)
        } else if walk && i >= dims {
            v[i - dims] + (g.u8() as f32 - 127.5) / 1024.0
        } else {
            (g.u16() as f32 / 65535.0 - 0.5) * 6.0
        };
        v.push(x);
    }
    v
}

/// Spans over `frames` frames (cut at chosen places), now and then with a
/// gap, an overlap, an empty span anywhere, or one frame too many.
fn clips(g: &mut Gen, frames: usize) -> Vec<ClipSpan> {
    let mut spans = Vec::new();
    let mut first = 0;
    while first < frames && spans.len() < 8 {
        let len = match g.u8() % 4 {
            0 => frames - first,
            _ => 1 + (g.u16() as usize % (frames - first)),
        };
        spans.push(ClipSpan { first, frames: len });
        first += len;
    }
    if first < frames {
        spans.push(ClipSpan {
            first,
            frames: frames - first,
        });
    }
    match g.u8() {
        0 => {
            let at = g.u8() as usize % (spans.len() + 1);
            let first = match g.u8() % 3 {
                0 => usize::MAX,
                1 => frames,
                _ => g.u16() as usize,
            };
            spans.insert(at, ClipSpan { first, frames: 0 });
        }
        1 if !spans.is_empty() => spans[0].frames += 1,
        2 if spans.len() > 1 => spans[1].first += 1,
        3 => spans.push(ClipSpan {
            first: frames,
            frames: usize::MAX - frames,
        }),
        _ => {}
    }
    spans
}

fn parts(g: &mut Gen) -> DatabaseParts {
    let config = config(g);
    let dims = FeatureLayout::new(&config).dims();
    let frames = match g.u8() % 8 {
        0 => g.u8() as usize % 4,
        1 => 300 + g.u8() as usize * 4,
        _ => 1 + g.u8() as usize % 80,
    };
    let joints = FeatureJoints {
        hips: 0,
        left_foot: 1,
        right_foot: 2,
        forward: match g.u8() % 8 {
            0 => g.vec3(2.0),
            _ => Vec3::new(0.0, 0.0, 1.0),
        },
    };
    let frame_time = match g.u8() % 8 {
        0 => g.value(0.0, 1.0),
        _ => 1.0 / 120.0,
    };
    let norm = |g: &mut Gen, lo: f32, hi: f32| {
        let n = g.len_near(dims);
        let special = g.u8() < 16;
        (0..n)
            .map(|_| match special {
                true => g.value(lo, hi),
                false => lo + (hi - lo) * (g.u8() as f32 / 255.0),
            })
            .collect::<Vec<f32>>()
    };
    let offset = norm(g, -5.0, 5.0);
    let scale = norm(g, 0.1, 5.0);
    let features = features(g, frames, dims);
    let clips = clips(g, frames);
    let none = g.u8() == 0;
    let searchable = (0..g.len_near(frames))
        .map(|_| !none && !g.u8().is_multiple_of(4))
        .collect();
    DatabaseParts {
        config,
        joints,
        frame_time,
        offset,
        scale,
        clips,
        features,
        searchable,
    }
}

/// A refusal must be a typed error with a message.
fn typed(e: &Error) {
    assert!(
        !e.to_string().is_empty(),
        "an error without a message: {e:?}"
    );
}

/// A query for `db`: a frame's own features, near one, far, or special
/// values; now and then of the wrong length.
fn query(g: &mut Gen, db: &MatchDatabase) -> Vec<f32> {
    let (dims, padded) = (db.layout().dims(), db.layout().padded());
    let mut q = vec![0.0f32; g.len_near(padded)];
    let frame = db
        .features(g.u16() as usize % db.frames())
        .expect("a frame");
    let kind = g.u8() % 8;
    for (d, x) in q.iter_mut().enumerate().take(dims) {
        *x = match kind {
            0 | 1 => frame[d],
            2..=4 => frame[d] + (g.u8() as f32 - 127.5) / 256.0,
            5 => (g.u16() as f32 / 65535.0 - 0.5) * 8.0,
            6 => g.value(-1e30, 1e30),
            _ => g.value(-4.0, 4.0),
        };
    }
    q
}

fn key(m: Match) -> (usize, u32) {
    (m.frame, m.distance.to_bits())
}

/// The searches of `batch` agree with each other and with the reference
/// (module docs); slices of the wrong length are refused, untouched.
fn searches(db: &MatchDatabase, batch: &QueryBatch) {
    let n = batch.len();
    let none = Match {
        frame: usize::MAX - 1,
        distance: f32::NAN,
    };
    let (mut b, mut a, mut r) = (vec![none; n], vec![none; n], vec![none; n]);
    search::brute_force(db, batch, &mut b).expect("brute force of a valid batch");
    search::accelerated(db, batch, &mut a).expect("accelerated search of a valid batch");
    search::reference(db, batch, &mut r).expect("reference search of a valid batch");
    for i in 0..n {
        let q = batch.get(i).expect("query in batch");
        let want =
            reference::search_seeded(db, q, batch.seed(i), batch.margin()).expect("a valid query");
        assert!(
            db.searchable(want.frame),
            "query {i}: {want:?} not searched"
        );
        assert_eq!(key(r[i]), key(want), "search::reference, query {i}");
        assert_eq!(key(b[i]), key(want), "brute force, query {i}");
        assert_eq!(key(a[i]), key(want), "accelerated, query {i}");
        let (one, _) = search::accelerated_one(db, q, batch.seed(i)).expect("a valid query");
        assert_eq!(
            key(one),
            key(reference::search(db, q).expect("a valid query")),
            "accelerated_one, query {i}"
        );
    }
    let mut short = vec![none; n + 1];
    for e in [
        search::brute_force(db, batch, &mut short),
        search::accelerated(db, batch, &mut short),
        search::reference(db, batch, &mut short),
    ] {
        typed(&e.expect_err("an output of the wrong length"));
        assert!(
            short.iter().all(|m| key(*m) == key(none)),
            "written past a refusal"
        );
    }
}

/// The database's readers on an accepted database (module docs).
fn readers(db: &MatchDatabase, parts: &DatabaseParts) {
    assert_eq!(
        &db.to_parts().unwrap(),
        parts,
        "to_parts gives back the parts"
    );
    MatchDatabase::from_parts(db.to_parts().unwrap()).expect("its own parts are accepted");
    for f in 0..db.frames() {
        let s = db.source(f).expect("every frame has a source");
        assert!(s.time.is_finite() && s.time >= 0.0, "frame {f}: {s:?}");
        assert_eq!(
            db.frame_of(s.clip, s.clip_frame),
            Some(f),
            "frame {f}: {s:?}"
        );
    }
    assert!(db.source(db.frames()).is_none());
    assert!(db.features(db.frames()).is_none());
    // Fuzzed parts against the embedded clip's library: a typed refusal,
    // or every frame's source a frame of that clip.
    match db.check_library(library()) {
        Ok(()) => {
            let frames = library().clips()[0].frames();
            for f in 0..db.frames() {
                let s = db.source(f).expect("every frame has a source");
                assert!(s.clip == 0 && s.clip_frame < frames, "frame {f}: {s:?}");
            }
        }
        Err(e) => typed(&e),
    }
    let m = db.memory();
    assert_eq!(m.frames, db.frames());
    assert!(m.bytes >= db.frames() * db.layout().dims() * 4);
}

/// `query` and `query_from_frame` with fuzzed poses and trajectories:
/// finite output or a typed refusal that writes nothing.
fn built_queries(g: &mut Gen, db: &MatchDatabase) {
    let padded = db.layout().padded();
    let pose = WorldPose {
        hips_pos: g.vec3(100.0),
        hips_rot: Quat::new(
            g.value(-1.0, 1.0),
            g.value(-1.0, 1.0),
            g.value(-1.0, 1.0),
            g.value(-1.0, 1.0),
        ),
        hips_vel: g.vec3(50.0),
        left_foot_pos: g.vec3(100.0),
        left_foot_vel: g.vec3(50.0),
        right_foot_pos: g.vec3(100.0),
        right_foot_vel: g.vec3(50.0),
    };
    let trajectory = [(); 3].map(|_| TrajectoryPoint {
        pos: g.vec3(100.0),
        facing: g.vec3(1.0),
    });
    let sentinel = -7.25f32;
    let mut out = vec![sentinel; g.len_near(padded)];
    match db.query(&pose, &trajectory, &mut out) {
        Ok(()) => assert!(out.iter().all(|x| x.is_finite()), "a query not finite"),
        Err(e) => {
            typed(&e);
            assert!(out.iter().all(|&x| x == sentinel), "written past a refusal");
        }
    }
    let frame = CharacterFrame::new(g.vec3(100.0), g.value(-7.0, 7.0));
    let f = match g.u8() % 4 {
        0 => db.frames() + g.u8() as usize,
        _ => g.u16() as usize % db.frames(),
    };
    let mut out = vec![sentinel; g.len_near(padded)];
    match db.query_from_frame(f, &frame, &trajectory, &mut out) {
        Ok(()) => assert!(out.iter().all(|x| x.is_finite()), "a query not finite"),
        Err(e) => {
            typed(&e);
            assert!(out.iter().all(|&x| x == sentinel), "written past a refusal");
        }
    }
}

/// The embedded CMU clip as a library, parsed once.
fn library() -> &'static ClipLibrary {
    static LIBRARY: OnceLock<ClipLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("the embedded clip")
    })
}

/// [`MatchDatabase::build`] from the embedded clip under a fuzzed
/// configuration: a typed refusal, or a database whose every feature is
/// finite and whose parts `from_parts` accepts.
fn built(g: &mut Gen) -> bool {
    match MatchDatabase::build(library(), &config(g)) {
        Ok(db) => {
            for f in 0..db.frames() {
                let v = db.features(f).expect("a frame");
                assert!(v.iter().all(|x| x.is_finite()), "frame {f}: {v:?}");
            }
            MatchDatabase::from_parts(db.to_parts().unwrap()).expect("a built database's parts");
            db.check_library(library())
                .expect("a database fits the library it was built from");
            true
        }
        Err(e) => {
            typed(&e);
            false
        }
    }
}

/// Checks one input (module docs).
pub fn check_matching(data: &[u8]) -> Outcome {
    let mut g = Gen(data);
    if g.u8() < 16 {
        return Outcome {
            built: Some(built(&mut g)),
            ..Outcome::default()
        };
    }
    let parts = parts(&mut g);
    let mut outcome = Outcome::default();
    let db = match MatchDatabase::from_parts(parts.clone()) {
        Ok(db) => db,
        Err(e) => {
            typed(&e);
            return outcome;
        }
    };
    outcome.accepted = true;
    readers(&db, &parts);
    let mut batch = QueryBatch::new(&db);
    let margin = match g.u8() % 4 {
        0 => g.value(0.0, 40.0),
        1 => 0.0,
        _ => g.u8() as f32 / 16.0,
    };
    match batch.set_margin(margin) {
        Ok(()) => assert_eq!(batch.margin().to_bits(), margin.to_bits()),
        Err(e) => {
            typed(&e);
            assert_eq!(batch.margin(), 0.0, "a refused margin left the batch's");
        }
    }
    for _ in 0..(g.u8() % 24) {
        let q = query(&mut g, &db);
        let seed = match g.u8() % 4 {
            0 => None,
            1 => Some(db.frames() + g.u8() as usize),
            2 => Some(usize::MAX - g.u8() as usize),
            _ => Some(g.u16() as usize % db.frames()),
        };
        let before = batch.clone();
        match batch.push(&q, seed) {
            Ok(()) => outcome.searched += 1,
            Err(e) => {
                typed(&e);
                assert_eq!(batch, before, "a refused query left the batch as it was");
                outcome.refused_queries += 1;
            }
        }
    }
    searches(&db, &batch);
    built_queries(&mut g, &db);
    outcome
}
