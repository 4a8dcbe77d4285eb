//! What the `matcher_api` check observes: the crowds it drives, what the
//! matcher shows, its readers and the crowd's world output.

use super::*;

/// A refusal must be a typed error with a message.
pub(super) fn typed(e: &Error) {
    assert!(
        !e.to_string().is_empty(),
        "an error without a message: {e:?}"
    );
}

/// Number of [`MatcherConfig`] f32 fields [`set_field`] knows.
/// A crowd the driver runs, whatever its kind.
pub(super) trait Stepped: Driven + Sync {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error>;
    fn queued(&self) -> usize;
    fn joints(&self) -> usize;
    /// World positions of every character through the crowd's bulk
    /// reader, where it has one.
    fn positions(&self) -> Option<Vec<[f32; 3]>>;
}

impl Stepped for Crowd {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error> {
        self.step(dt)
    }
    fn queued(&self) -> usize {
        Crowd::queued(self)
    }
    fn joints(&self) -> usize {
        self.skeleton().len()
    }
    fn positions(&self) -> Option<Vec<[f32; 3]>> {
        let n = Crowd::characters(self);
        let mut out = vec![[f32::NAN; 3]; n * Stepped::joints(self)];
        self.positions_into(0..n, &mut out)
            .expect("positions_into of the whole crowd");
        Some(out)
    }
}

impl Stepped for ReferenceCrowd {
    fn step_it(&mut self, dt: f32) -> Result<FrameStats, Error> {
        self.step(dt)
    }
    fn queued(&self) -> usize {
        ReferenceCrowd::queued(self)
    }
    fn joints(&self) -> usize {
        self.skeleton().len()
    }
    fn positions(&self) -> Option<Vec<[f32; 3]>> {
        None
    }
}

/// What the matcher shows: every character (and one past), its last
/// search and transitions, its statistics.
#[derive(Debug, PartialEq)]
pub(super) struct Seen {
    pub(super) characters: Vec<Option<MatchCharacter>>,
    pub(super) search: (QueryBatch, Vec<usize>, Vec<Match>),
    pub(super) transitions: Vec<(usize, usize)>,
    pub(super) stats: MatcherStats,
}

pub(super) fn seen(m: &Matcher, walkers: usize) -> Seen {
    Seen {
        characters: (0..=walkers).map(|c| m.character(c)).collect(),
        search: m.last_search(),
        transitions: m.last_transitions().to_vec(),
        stats: *m.stats(),
    }
}

pub(super) fn finite3(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// The readers' promises, after any update (module docs).
pub(super) fn readers(m: &Matcher, db: &MatchDatabase, walkers: usize, c: usize) {
    let (batch, chars, found) = m.last_search();
    assert_eq!(
        (chars.len(), found.len()),
        (batch.len(), batch.len()),
        "last_search: one character and one match a query"
    );
    assert!(
        chars.windows(2).all(|w| w[0] < w[1]),
        "last_search: characters in order: {chars:?}"
    );
    assert!(
        chars.iter().all(|&c| c < walkers),
        "last_search: a character past the matcher's {walkers}: {chars:?}"
    );
    let none = Match {
        frame: usize::MAX,
        distance: f32::NAN,
    };
    let mut brute = vec![none; batch.len()];
    search::brute_force(db, &batch, &mut brute).expect("brute force of the matcher's batch");
    for (i, (a, b)) in found.iter().zip(&brute).enumerate() {
        assert!(db.searchable(a.frame), "query {i}: {a:?} not searched");
        assert_eq!(
            (a.frame, a.distance.to_bits()),
            (b.frame, b.distance.to_bits()),
            "query {i} (character {}): the matcher's search against brute force",
            chars[i]
        );
    }
    let moves = m.last_transitions();
    assert!(
        moves.windows(2).all(|w| w[0].0 < w[1].0),
        "last_transitions: characters in order: {moves:?}"
    );
    for &(c, f) in moves {
        let i = chars
            .binary_search(&c)
            .unwrap_or_else(|_| panic!("character {c} moved without searching"));
        assert_eq!(found[i].frame, f, "character {c}: moved to another frame");
    }
    let s = m.stats();
    assert!(
        s.seconds.is_finite() && s.error_sum.is_finite() && s.mean_error().is_finite(),
        "stats not finite: {s:?}"
    );
    match m.character(c) {
        Some(k) => {
            assert!(c < walkers, "character {c} of {walkers}");
            assert!(
                finite3(k.root.pos)
                    && finite3(k.desired_pos)
                    && finite3(k.desired_vel)
                    && finite3(k.target_vel)
                    && k.time.is_finite(),
                "character {c} not finite: {k:?}"
            );
            assert!(k.clip < library().len(), "character {c}: clip {}", k.clip);
        }
        None => assert!(c >= walkers, "character {c} of {walkers} missing"),
    }
}

/// The world output of every character of `crowd` is finite, and its bulk
/// positions are `world_kform`'s.
pub(super) fn world_finite(crowd: &impl Stepped) {
    let (n, nj) = (crowd.characters(), crowd.joints());
    let bulk = crowd.positions();
    for c in 0..n {
        for j in 0..nj {
            let k = crowd
                .world_kform(c, j)
                .expect("a joint of a character of the crowd");
            assert!(
                finite3(k.pos) && finite3(k.vel) && finite3(k.ang),
                "character {c} joint {j} not finite: {k:?}"
            );
            let q = k.rot;
            assert!(
                q.w.is_finite() && q.x.is_finite() && q.y.is_finite() && q.z.is_finite(),
                "character {c} joint {j} rotation not finite: {q:?}"
            );
            if let Some(b) = &bulk {
                let p = b[c * nj + j];
                assert_eq!(
                    p.map(f32::to_bits),
                    [k.pos.x, k.pos.y, k.pos.z].map(f32::to_bits),
                    "character {c} joint {j}: positions_into against world_kform"
                );
            }
        }
    }
    assert!(crowd.world_kform(n, 0).is_none());
}
