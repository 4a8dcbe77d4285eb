//! Markers (issue 24, item 3): named points of clips' time that both
//! crowds report, identically, as events when a source's playhead crosses
//! them: the crossing rules of `kineform::crowd::MarkerHit` one by one
//! (a marker where a step ends, at a clip's ends, on a looping clip's
//! seam, several laps in one step, an end-clamped source, rate 0,
//! backwards, a command's start, the weight threshold), a property test
//! against an oracle that enumerates a marker's instants on the
//! playhead's path, markers kept through serde and the library, and foot
//! contacts detected on the CMU walk; layers' sources report theirs by
//! the same rules, at the layer's weight.

use crate::crowds;
use crowds::*;

use kineform::Clip;
use kineform::crowd::command::Which;
use kineform::crowd::{
    ClipEnd, ClipLibrary, Crowd, CrowdConfig, EventKind, Layer, MarkerHit, Mask, ReferenceCrowd,
    Source,
};
use kineform::markers::FootContact;
use kineform::reference::{Quat, Vec3};
use kineform::skeleton::Skeleton;
use proptest::prelude::*;

/// A two-joint clip of 5 frames 0.25 s apart (1 s long) with `markers`,
/// in a library: times and rates on a grid of 1/64 keep every playhead
/// time exact in f32.
fn library(markers: &[f32]) -> ClipLibrary {
    let skeleton = Skeleton::new(vec![-1, 0]).unwrap();
    let offsets = [Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0)];
    let mut library = ClipLibrary::new(&skeleton, &offsets).unwrap();
    let frames = 5;
    let pos: Vec<Vec3> = (0..frames * 2)
        .map(|i| Vec3::new(0.1 * (i / 2) as f32, (i % 2) as f32, 0.0))
        .collect();
    let rot = vec![Quat::IDENTITY; frames * 2];
    let scl = vec![Vec3::splat(1.0); frames * 2];
    let mut clip = Clip::new(frames, 2, 0.25, pos, rot, scl).unwrap();
    for (i, &t) in markers.iter().enumerate() {
        assert_eq!(clip.add_marker(&format!("m{i}"), t).unwrap(), i);
    }
    library.add(&skeleton, &clip).unwrap();
    library
}

/// [`library`] and a second clip (1), without markers, like the first.
fn with_a_quiet_clip(markers: &[f32]) -> ClipLibrary {
    let mut lib = library(markers);
    let quiet = library(&[]).clips()[0].clone();
    lib.add(&lib.skeleton().clone(), &quiet).unwrap();
    lib
}

/// Both crowds of `n` characters on `library`.
struct Both {
    lanes: Crowd,
    reference: ReferenceCrowd,
}

impl Both {
    fn new(library: &ClipLibrary, n: usize, marker_weight: f32) -> Both {
        Both::layered(library, n, marker_weight, 0)
    }

    /// With `layers` override layers whose masks weigh no joint (a
    /// layer's mask does not enter its markers' weight).
    fn layered(library: &ClipLibrary, n: usize, marker_weight: f32, layers: usize) -> Both {
        let cfg = CrowdConfig {
            characters: n,
            marker_weight,
            layers: vec![Layer::overriding(Mask::new()); layers],
            ..Default::default()
        };
        Both {
            lanes: Crowd::new(library, cfg.clone()).unwrap(),
            reference: ReferenceCrowd::new(library, cfg).unwrap(),
        }
    }

    fn play(&mut self, c: usize, a: Source, b: Source) {
        self.lanes.play(c, a, b).unwrap();
        self.reference.play(c, a, b).unwrap();
    }

    fn play_layer(&mut self, c: usize, k: usize, s: Source, weight: f32) {
        self.lanes.play_layer(c, k, s).unwrap();
        self.reference.play_layer(c, k, s).unwrap();
        self.lanes.set_layer_weight(c, k, weight).unwrap();
        self.reference.set_layer_weight(c, k, weight).unwrap();
    }

    fn set_weight(&mut self, c: usize, w: f32) {
        self.lanes.set_weight(c, w).unwrap();
        self.reference.set_weight(c, w).unwrap();
    }

    /// One step of both; the markers of character `c` (both crowds' events
    /// the same).
    fn step(&mut self, dt: f32, c: usize) -> Vec<MarkerHit> {
        self.lanes.step(dt).unwrap();
        self.reference.step(dt).unwrap();
        assert_eq!(self.lanes.events(), self.reference.events());
        marks(self.lanes.events(), c)
    }
}

fn marks(events: &[kineform::crowd::Event], c: usize) -> Vec<MarkerHit> {
    events
        .iter()
        .filter(|e| e.character == c)
        .filter_map(|e| match e.kind {
            EventKind::Marker(m) => Some(m),
            _ => None,
        })
        .collect()
}

fn src(time: f32, rate: f32, end: ClipEnd) -> Source {
    Source {
        clip: 0,
        time,
        rate,
        end,
    }
}

/// `(marker, at, count)` of each hit.
fn short(h: &[MarkerHit]) -> Vec<(u32, f32, u32)> {
    h.iter().map(|m| (m.marker, m.at, m.count)).collect()
}

#[test]
fn a_marker_where_a_step_ends_is_reported_by_that_step_only() {
    let mut both = Both::new(&library(&[0.0, 0.5]), 3, 0.0);
    both.play(
        1,
        src(0.0, 1.0, ClipEnd::Loop),
        src(0.0, 1.0, ClipEnd::Loop),
    );
    // The first step: characters start playing clip 0 from its start, as
    // if a command had set it, so its marker at 0 is crossed (the play
    // sets the playhead after this step's advance).
    assert_eq!(short(&both.step(0.25, 1)), vec![(0, 0.0, 1)]);
    // A command's start is crossed by its first step, at 0.
    assert_eq!(short(&both.step(0.25, 1)), vec![(0, 0.0, 1)]);
    // 0.25 -> 0.5: the end of the step, inclusive.
    let h = both.step(0.25, 1);
    assert_eq!(short(&h), vec![(1, 0.25, 1)]);
    assert_eq!((h[0].source, h[0].clip, h[0].weight), (Which::A, 0, 1.0));
    // 0.5 -> 0.75: the start, exclusive.
    assert_eq!(short(&both.step(0.25, 1)), vec![]);
}

#[test]
fn a_looping_seam_crosses_markers_at_both_ends_once_a_lap() {
    let mut both = Both::new(&library(&[0.0, 1.0, 0.5]), 1, 0.0);
    both.play(
        0,
        src(0.5, 1.0, ClipEnd::Loop),
        src(0.5, 1.0, ClipEnd::Loop),
    );
    both.step(0.25, 0);
    // 0.5 (the play's start) -> 0.75 -> 1.0 (wraps to 0) -> 0.25 -> 0.5.
    assert_eq!(short(&both.step(0.25, 0)), vec![(2, 0.0, 1)]);
    assert_eq!(short(&both.step(0.25, 0)), vec![(0, 0.25, 1), (1, 0.25, 1)]);
    assert_eq!(short(&both.step(0.25, 0)), vec![]);
    assert_eq!(short(&both.step(0.25, 0)), vec![(2, 0.25, 1)]);
    // Mid-step over the seam: 0.5 -> 1.125 (0.125).
    let h = both.step(0.625, 0);
    assert_eq!(short(&h), vec![(0, 0.5, 1), (1, 0.5, 1)]);
}

/// A looping playhead stepping back onto the seam exactly (0.25 -> 0)
/// crosses a marker at the seam's other end (1.0, the same instant)
/// though the marker's time is outside the step's span: found by
/// `each_step_reports_the_instants_on_its_path`, and kept here on its own
/// for the crowd's test of a whole pack's lanes at once (`pack_markers`'
/// `may_cross_lanes`), which this path must pass.
#[test]
fn a_loop_stepping_back_onto_the_seam_crosses_the_marker_at_its_end() {
    let mut both = Both::new(&library(&[1.0]), 1, 0.0);
    let back = src(0.5, -1.0, ClipEnd::Loop);
    both.play(0, back, back);
    both.step(0.25, 0);
    // 0.5 (the play's start) -> 0.25: nothing.
    assert_eq!(short(&both.step(0.25, 0)), vec![]);
    // 0.25 -> 0.0, the seam: the marker at 1.0 at the step's end.
    assert_eq!(short(&both.step(0.25, 0)), vec![(0, 0.25, 1)]);
}

#[test]
fn a_fast_loop_reports_each_marker_once_with_its_count() {
    let mut both = Both::new(&library(&[0.25, 0.75]), 1, 0.0);
    both.play(
        0,
        src(0.0, 10.0, ClipEnd::Loop),
        src(0.0, 10.0, ClipEnd::Loop),
    );
    both.step(0.125, 0);
    // 0 -> 2.5 in 0.25 s: 0.25 at 0.025, 1.25, 2.25 (3 times); 0.75 at
    // 0.075, 1.75 (2 times). Order by the first crossing.
    let h = both.step(0.25, 0);
    assert_eq!(h.len(), 2);
    assert_eq!((h[0].marker, h[0].count), (0, 3));
    assert_eq!((h[1].marker, h[1].count), (1, 2));
    assert!(
        (h[0].at - 0.025).abs() < 1e-6 && (h[1].at - 0.075).abs() < 1e-6,
        "{h:?}"
    );
    // A step of 1000 s at rate 1e6: a billion laps, counted, not listed.
    both.lanes.set_rate(0, Which::A, 1e6).unwrap();
    both.reference.set_rate(0, Which::A, 1e6).unwrap();
    both.step(0.125, 0);
    let h = both.step(1000.0, 0);
    assert_eq!(h.len(), 2);
    assert!(h.iter().all(|m| m.count >= 999_999_000), "{h:?}");
}

#[test]
fn clip_ends_held_and_backwards() {
    let mut both = Both::new(&library(&[0.0, 1.0]), 2, 0.0);
    both.play(
        0,
        src(0.5, 1.0, ClipEnd::Hold),
        src(0.5, 1.0, ClipEnd::Hold),
    );
    both.play(
        1,
        src(0.5, -1.0, ClipEnd::Event),
        src(0.5, -1.0, ClipEnd::Event),
    );
    both.step(0.25, 0);
    // 0.5 -> 0.875 -> 1.0 (clamped: arrives at 0.125 of 0.375).
    assert_eq!(short(&both.step(0.375, 0)), vec![]);
    let h = both.step(0.375, 0);
    assert_eq!(short(&h), vec![(1, 0.125, 1)]);
    // Held at the end: nothing more, however long.
    assert_eq!(short(&both.step(0.375, 0)), vec![]);
    assert_eq!(short(&both.step(5.0, 0)), vec![]);
    // Backwards from 0.5, Event end: 0 arrives in the step 0.5 -> 0 (a
    // step of 0.375 + 0.375 = 0.75 s in total; the marker at 0.125 of the
    // second).
    let mut both = Both::new(&library(&[0.0, 1.0]), 2, 0.0);
    both.play(
        1,
        src(0.5, -1.0, ClipEnd::Event),
        src(0.5, -1.0, ClipEnd::Event),
    );
    both.step(0.25, 1);
    assert_eq!(short(&both.step(0.375, 1)), vec![]);
    assert_eq!(short(&both.step(0.375, 1)), vec![(0, 0.125, 1)]);
    assert_eq!(short(&both.step(0.375, 1)), vec![]);
}

#[test]
fn rate_zero_crosses_nothing_but_a_commands_start() {
    let mut both = Both::new(&library(&[0.25, 0.5]), 1, 0.0);
    both.play(
        0,
        src(0.5, 0.0, ClipEnd::Loop),
        src(0.5, 0.0, ClipEnd::Loop),
    );
    both.step(0.25, 0);
    assert_eq!(short(&both.step(0.25, 0)), vec![(1, 0.0, 1)]);
    for _ in 0..5 {
        assert_eq!(short(&both.step(0.25, 0)), vec![]);
    }
    // Backwards: [to, from), the start excluded, the end included.
    both.lanes.set_rate(0, Which::A, -1.0).unwrap();
    both.reference.set_rate(0, Which::A, -1.0).unwrap();
    both.step(0.125, 0); // the rate is set after this step's advance
    assert_eq!(short(&both.step(0.125, 0)), vec![]); // 0.5 -> 0.375
    assert_eq!(short(&both.step(0.125, 0)), vec![(0, 0.125, 1)]);
}

#[test]
fn sources_at_or_below_the_weight_threshold_are_left_out() {
    let lib = library(&[0.5]);
    let go = src(0.25, 1.0, ClipEnd::Loop);
    // Default threshold 0: source B at weight 0 is left out, A reported.
    let mut both = Both::new(&lib, 1, 0.0);
    both.play(0, go, go);
    both.step(0.25, 0);
    let h = both.step(0.25, 0);
    assert_eq!(
        h.iter().map(|m| m.source).collect::<Vec<_>>(),
        vec![Which::A]
    );
    // Threshold 0.3 at weight 0.25: A (0.75) reported, B (0.25) not; at
    // 0.5 both.
    let mut both = Both::new(&lib, 1, 0.3);
    both.play(0, go, go);
    both.set_weight(0, 0.25);
    both.step(0.25, 0);
    let h = both.step(0.25, 0);
    assert_eq!(
        h.iter().map(|m| (m.source, m.weight)).collect::<Vec<_>>(),
        vec![(Which::A, 0.75)]
    );
    both.set_weight(0, 0.5);
    both.step(0.5, 0);
    let h = both.step(0.5, 0);
    let got: Vec<_> = h.iter().map(|m| (m.source, m.weight)).collect();
    assert_eq!(got, vec![(Which::A, 0.5), (Which::B, 0.5)]);
    // A threshold out of [0, 1) is refused.
    for bad in [-0.1, 1.0, f32::NAN] {
        let cfg = CrowdConfig {
            characters: 1,
            marker_weight: bad,
            ..Default::default()
        };
        assert!(Crowd::new(&lib, cfg.clone()).is_err() && ReferenceCrowd::new(&lib, cfg).is_err());
    }
}

#[test]
fn markers_are_checked_kept_by_the_library_and_excerpts() {
    let lib = library(&[0.0, 0.75, 1.0]);
    let clip = &lib.clips()[0];
    let names: Vec<_> = clip
        .markers()
        .iter()
        .map(|m| (m.name.as_str(), m.time))
        .collect();
    assert_eq!(names, vec![("m0", 0.0), ("m1", 0.75), ("m2", 1.0)]);
    let mut c = clip.clone();
    for bad in [-0.01, 1.01, f32::NAN, f32::INFINITY] {
        assert!(c.add_marker("x", bad).is_err());
    }
    assert!(
        c.add_marker(&"x".repeat(kineform::limits::MAX_MARKER_NAME + 1), 0.5)
            .is_err()
    );
    assert_eq!(c.markers().len(), 3);
    // An excerpt keeps the markers within it, from its start.
    let part = clip.excerpt(2..5).unwrap();
    let kept: Vec<_> = part
        .markers()
        .iter()
        .map(|m| (m.name.as_str(), m.time))
        .collect();
    assert_eq!(kept, vec![("m1", 0.25), ("m2", 0.5)]);
    let mut lib = lib.clone();
    assert_eq!(lib.add_marker(0, "late", 0.5).unwrap(), 3);
    assert!(lib.add_marker(1, "none", 0.5).is_err());
}

#[cfg(feature = "serde")]
#[test]
fn markers_travel_with_the_clip_through_serde() {
    let clip = library(&[0.25, 1.0]).clips()[0].clone();
    let json = serde_json::to_string(&clip).unwrap();
    let back: Clip = serde_json::from_str(&json).unwrap();
    assert_eq!(back, clip);
    // A marker past the clip is refused on the way in.
    let bad = json.replace("\"time\":1.0", "\"time\":2.0");
    assert!(serde_json::from_str::<Clip>(&bad).is_err());
}

/// A layer's source crosses its clip's markers as a base source does:
/// the seam's two ends in one step, a fast loop's count, a held end once,
/// backwards; reported by both crowds alike as `Which::Layer(k)` at the
/// layer's weight, after the base's, while a layer at weight 0 (layer 0
/// here, on the same clip) reports nothing.
#[test]
fn a_layers_source_reports_the_markers_it_crosses() {
    let lib = with_a_quiet_clip(&[0.0, 1.0, 0.5]);
    let mut both = Both::layered(&lib, 2, 0.0, 2);
    let quiet = Source::looping(1, 0.0);
    both.play(1, quiet, quiet);
    let go = src(0.5, 1.0, ClipEnd::Loop);
    both.play_layer(1, 0, go, 0.0);
    both.play_layer(1, 1, go, 0.75);
    both.step(0.25, 1);
    // The play's start (fresh), then 0.5 -> 0.75 -> 1.0 (wraps to 0).
    let h = both.step(0.25, 1);
    assert_eq!(short(&h), vec![(2, 0.0, 1)]);
    assert_eq!(
        (h[0].source, h[0].clip, h[0].weight),
        (Which::Layer(1), 0, 0.75)
    );
    assert_eq!(short(&both.step(0.25, 1)), vec![(0, 0.25, 1), (1, 0.25, 1)]);
    assert_eq!(short(&both.step(0.25, 1)), vec![]);
    // Fast: 0.265625 -> 2.765625 in 0.25 s (rate 10): 0.5 crossed three
    // times, the seam twice.
    both.lanes.set_rate(1, Which::Layer(1), 10.0).unwrap();
    both.reference.set_rate(1, Which::Layer(1), 10.0).unwrap();
    assert_eq!(short(&both.step(1.0 / 64.0, 1)), vec![]);
    let h = both.step(0.25, 1);
    let counts: Vec<_> = h.iter().map(|m| (m.marker, m.count)).collect();
    assert_eq!(counts, vec![(2, 3), (0, 2), (1, 2)]);
    // Backwards from 0.5 (fresh: its marker at 0, at once), reporting its
    // end: 0 arrives once, then it holds.
    let back = src(0.5, -1.0, ClipEnd::Event);
    both.play_layer(1, 1, back, 0.75);
    both.step(0.25, 1);
    assert_eq!(short(&both.step(0.375, 1)), vec![(2, 0.0, 1)]);
    assert_eq!(short(&both.step(0.375, 1)), vec![(0, 0.125, 1)]);
    assert_eq!(short(&both.step(1.0, 1)), vec![]);
    // Under a base that crosses too: the base's first, then the layer's.
    let mut both = Both::layered(&lib, 1, 0.0, 1);
    let go = src(0.25, 1.0, ClipEnd::Loop);
    both.play(0, go, go);
    both.play_layer(0, 0, go, 0.5);
    both.step(0.25, 0);
    let h = both.step(0.25, 0);
    let got: Vec<_> = h.iter().map(|m| (m.source, m.marker, m.weight)).collect();
    assert_eq!(got, vec![(Which::A, 2, 1.0), (Which::Layer(0), 2, 0.5)]);
}

/// `CrowdConfig::marker_weight` leaves out a layer at or below it, as it
/// does a light base source, and keeps one above it; a layer at weight 0
/// never reports (the pack skips it).
#[test]
fn the_weight_threshold_leaves_out_a_light_layer() {
    let lib = with_a_quiet_clip(&[0.5]);
    let quiet = Source::looping(1, 0.0);
    let go = src(0.25, 1.0, ClipEnd::Loop);
    let mut both = Both::layered(&lib, 2, 0.3, 2);
    for c in 0..2 {
        both.play(c, quiet, quiet);
    }
    both.play_layer(0, 0, go, 0.25);
    both.play_layer(0, 1, go, 0.3);
    both.play_layer(1, 0, go, 0.35);
    both.play_layer(1, 1, go, 0.0);
    both.step(0.25, 0);
    both.lanes.step(0.25).unwrap();
    both.reference.step(0.25).unwrap();
    assert_eq!(both.lanes.events(), both.reference.events());
    let all = |c| marks(both.lanes.events(), c);
    let got: Vec<_> = all(1).iter().map(|m| (m.source, m.weight)).collect();
    assert_eq!(got, vec![(Which::Layer(0), 0.35)]);
    assert_eq!(all(0), vec![], "layers at 0.25 and 0.3 (the threshold)");
}

/// Every instant of marker `m` on a loop of `len` in the move from `a` by
/// `d` (forward `(a, a + d]`, backward `[a + d, a)`, and `a` itself where
/// `fresh`), enumerated: its count and the first as a fraction of the move.
fn oracle(m: f64, len: f64, a: f64, d: f64, fresh: bool, looping: bool) -> Option<(u32, f64)> {
    let b = a + d;
    let within = |p: f64| match d > 0.0 {
        true => (p > a && p <= b) || (fresh && p == a),
        false => (p < a && p >= b) || (fresh && p == a),
    };
    let instants: Vec<f64> = match looping {
        true => (-4000..4000).map(|k| m + k as f64 * len).collect(),
        false => vec![m],
    };
    let mut hit: Vec<f64> = instants.into_iter().filter(|&p| within(p)).collect();
    hit.sort_by(|x, y| ((x - a).abs()).total_cmp(&(y - a).abs()));
    let first = *hit.first()?;
    Some((
        hit.len() as u32,
        if d == 0.0 { 0.0 } else { (first - a) / d },
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64), ..ProptestConfig::default() })]

    /// On a grid where every playhead time is exact in f32 (1/64 s, rates
    /// in quarters, a 1 s clip), each step's markers are exactly those an
    /// enumeration of each marker's instants on the step's path finds:
    /// counts, first crossings, none missing or extra; looping, held and
    /// reporting ends, any rate from -8 to 8 (0 included), steps from 1/64
    /// to 4 s, starts on a marker half the time.
    #[test]
    fn each_step_reports_the_instants_on_its_path(
        marks in proptest::collection::vec(0u32..=64, 1..5),
        start in 0u32..=64,
        on_a_marker: bool,
        rate in -32i32..=32,
        end in 0usize..3,
        steps in proptest::collection::vec(1u32..=256, 1..12),
    ) {
        let times: Vec<f32> = marks.iter().map(|&m| m as f32 / 64.0).collect();
        let mut both = Both::new(&library(&times), 1, 0.0);
        let end = [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][end];
        let rate = rate as f32 / 4.0;
        // Half the time the play starts on a marker.
        let start = if on_a_marker { marks[0] } else { start };
        let s = src(start as f32 / 64.0, rate, end);
        both.play(0, s, s);
        both.step(1.0 / 64.0, 0);
        let mut fresh = true;
        for &k in &steps {
            let dt = k as f32 / 64.0;
            let a = both.lanes.state(0).unwrap().a.source.time;
            let got = both.step(dt, 0);
            let d = f64::from(rate) * f64::from(dt);
            let looping = end == ClipEnd::Loop;
            // Where a source that does not loop stops.
            let d = match looping {
                true => d,
                false => (f64::from(a) + d).clamp(0.0, 1.0) - f64::from(a),
            };
            let mut want = Vec::new();
            for (i, &t) in times.iter().enumerate() {
                if let Some((n, f)) = oracle(f64::from(t), 1.0, f64::from(a), d, fresh, looping) {
                    want.push((i as u32, n, f));
                }
            }
            prop_assert_eq!(got.len(), want.len(), "from {} by {}: {:?} against {:?}", a, d, got, want);
            for (i, n, f) in want {
                let h = got.iter().find(|h| h.marker == i);
                prop_assert!(h.is_some(), "marker {} missing: {:?}", i, got);
                let h = h.unwrap();
                prop_assert_eq!(h.count, n);
                // The first crossing, as a share of the (unclamped) move.
                let full = f64::from(rate) * f64::from(dt);
                let at = if full == 0.0 { 0.0 } else { f * d / full * f64::from(dt) };
                prop_assert!((f64::from(h.at) - at).abs() <= 1e-5, "{:?} at {}", h, at);
            }
            // By first crossing.
            prop_assert!(got.windows(2).all(|w| w[0].at <= w[1].at));
            fresh = false;
        }
    }

    /// A layer's source reports what a base source playing the same does,
    /// step for step: character 0's source A plays it (B at weight 0),
    /// character 1's layer 1 at weight `w` over a base on a clip without
    /// markers; their hits are the same but for the source and the
    /// weight; any rate from -8 to 8, any end, steps from 1/64 to 4 s.
    #[test]
    fn a_layers_source_crosses_what_a_base_source_crosses(
        at in proptest::collection::vec(0u32..=64, 1..5),
        start in 0u32..=64,
        rate in -32i32..=32,
        end in 0usize..3,
        w in 1u32..=4,
        steps in proptest::collection::vec(1u32..=256, 1..12),
    ) {
        let times: Vec<f32> = at.iter().map(|&m| m as f32 / 64.0).collect();
        let mut both = Both::layered(&with_a_quiet_clip(&times), 2, 0.0, 2);
        let end = [ClipEnd::Loop, ClipEnd::Hold, ClipEnd::Event][end];
        let s = src(start as f32 / 64.0, rate as f32 / 4.0, end);
        let w = w as f32 / 4.0;
        both.play(0, s, s);
        let quiet = Source::looping(1, 0.0);
        both.play(1, quiet, quiet);
        both.play_layer(1, 1, s, w);
        both.step(1.0 / 64.0, 0);
        for dt in steps.into_iter().map(|k| k as f32 / 64.0) {
            let base = both.step(dt, 0);
            let layer = marks(both.lanes.events(), 1);
            let want: Vec<_> = base
                .iter()
                .map(|m| MarkerHit { source: Which::Layer(1), weight: w, ..*m })
                .collect();
            prop_assert_eq!(layer, want);
        }
    }
}

/// Foot contacts on the CMU walk (12_01, 4.4 s at about 0.9 m/s): each
/// foot comes down about once a stride, and the feet alternate.
#[test]
fn foot_contacts_of_the_cmu_walk_follow_its_gait() {
    let b = load("cmu_12_01_walk_mb.bvh");
    let parents = b.skeleton.parents();
    let mut contacts = Vec::new();
    for foot in ["LeftFoot", "RightFoot"] {
        let j = b.skeleton.find(foot).unwrap();
        let c = FootContact {
            looping: false,
            ..FootContact::CMU
        };
        for t in b.clip.foot_contacts(parents, j, &c).unwrap() {
            contacts.push((t, foot));
        }
    }
    contacts.sort_by(|x, y| x.0.total_cmp(&y.0));
    let per_second = contacts.len() as f32 / b.clip.last_time();
    println!(
        "{} contacts in {} s ({per_second:.2}/s): {contacts:?}",
        contacts.len(),
        b.clip.last_time()
    );
    // A walk at about 0.9 m/s: 1.4 to 2.2 steps a second.
    assert!(
        (1.4..=2.2).contains(&per_second),
        "{per_second} steps/s: {contacts:?}"
    );
    assert!(
        contacts.windows(2).all(|w| w[0].1 != w[1].1),
        "the feet alternate: {contacts:?}"
    );
    // Refusals name what is wrong.
    let bad = FootContact {
        height: f32::NAN,
        ..FootContact::CMU
    };
    assert!(b.clip.foot_contacts(parents, 0, &bad).is_err());
    assert!(
        b.clip
            .foot_contacts(parents, 99, &FootContact::CMU)
            .is_err()
    );
    assert!(
        b.clip
            .foot_contacts(&parents[1..], 0, &FootContact::CMU)
            .is_err()
    );
}
