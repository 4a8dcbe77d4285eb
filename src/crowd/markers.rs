//! The markers a step's playheads crossed ([`MarkerHit`], reported as
//! [`super::EventKind::Marker`]): each source's move over the step, as the
//! characters' state advanced it ([`super::state`]: `Spanx8`), against its
//! clip's markers ([`crate::markers`]). Both crowds find them with this
//! code's crossing rules ([`crossings`]) from the same state, so they
//! report the same markers bit for bit; the 8-lane crowd filters first
//! ([`Scan::Filtered`]) where the reference crowd puts every source and
//! marker through the rules ([`Scan::Every`]), so the crowds' comparisons
//! hold the filters to the rules.
//! The crowd's table keeps each clip's marker times sorted, and in chunks
//! of eight lanes, so a source whose move crosses none (the common case)
//! costs a compare of its move against its clip's markers, eight at a
//! time.

use super::MAX_LAYERS;
use super::command::Which;
use super::events::{Event, EventKind};
use super::state::{Happened, LayerLanes, SourceLanes, Spanx8, Statex8};
use crate::clip::Clip;
use crate::error::Result;
use crate::lanes::{F32x8, I32x8};

/// A marker crossed in a step by a character's source.
///
/// **Which sources.** Every source of a character: the base's two
/// ([`Which::A`] and [`Which::B`]) and each layer's
/// ([`Which::Layer`], [`super::CrowdConfig::layers`]), by the same rules.
///
/// **What is crossed.** A source's playhead moves each step from where the
/// last step left it by `rate × dt` (before the step's commands, which set
/// playheads without crossing anything). Forward, it crosses the markers
/// in `(from, to]`; backward, in `[to, from)`: a marker where a step ends
/// (on a frame boundary) is reported by that step and not again by the
/// next, which starts there. A source a command set (a
/// [`super::Command::Play`] or [`super::Command::Transition`]) also
/// crosses a marker exactly at its start time (on a loop, one at the
/// seam's other end too), on its first step (`at` 0), even at rate 0. Otherwise a source at rate 0, or held at an end its
/// rate pushes against ([`super::ClipEnd::Hold`], [`super::ClipEnd::Event`]),
/// crosses nothing.
///
/// **Clip ends.** A source that does not loop stops at its clip's ends: a
/// marker at the end it runs into is crossed once, when it arrives. A
/// looping source goes on through the seam, where time `last_time` and
/// time 0 are the same instant: markers at either are crossed each time
/// the playhead passes the seam, both in the same step. A clip of one frame
/// (length 0) never moves, so only a command's start crosses its markers.
///
/// **Several laps in one step.** A looping source fast enough to pass a
/// marker more than once in a step reports it once, with `count` the
/// number of times and `at` the first; the work and the memory a step
/// takes are so bounded by the markers of the clips, however fast a source
/// plays or however long a step is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MarkerHit {
    /// The source whose playhead crossed it: [`Which::A`], [`Which::B`]
    /// or a layer's, [`Which::Layer`].
    pub source: Which,
    /// The clip (index in the crowd's [`super::ClipLibrary`]).
    pub clip: u32,
    /// The marker (index in the clip's [`Clip::markers`]).
    pub marker: u32,
    /// Seconds into the step at which the playhead first reached it,
    /// within `[0, dt]`: `(marker - from) / (rate dt) × dt` on the
    /// playhead's unwrapped path.
    pub at: f32,
    /// How many times the playhead crossed it in the step (>= 1; saturates
    /// at `u32::MAX`).
    pub count: u32,
    /// The source's blend weight when it crossed (the weight as the step's
    /// advance left it, before the step's commands): `1 - w` for source A,
    /// `w` for source B, and for layer `k`'s source the layer's weight
    /// (its spring's value, [`super::Command::SetLayerWeight`]). A layer's
    /// mask does not enter it: the mask says which joints the layer moves
    /// and how much, the weight how much of the layer shows, as `w` says
    /// of the base (an upper-body layer at weight 1 reports its clip's
    /// markers at 1, whatever its mask's weights). Sources at or below the
    /// crowd's [`super::CrowdConfig::marker_weight`] report nothing (a
    /// layer at weight 0 never does).
    pub weight: f32,
}

/// One clip's markers in the table: where its sorted entries and its
/// chunks start and end.
#[derive(Clone, Copy, Debug, Default)]
struct ClipMarks {
    entries: (u32, u32),
    chunks: (u32, u32),
}

/// Every clip's markers, as the crowd looks them up each step, and how
/// many sources a character has (2 and its layers).
#[derive(Clone, Debug, Default)]
pub(crate) struct MarkerTable {
    /// Sources per character: A, B and one per layer of the crowd.
    sources: usize,
    clips: Vec<ClipMarks>,
    /// `(time, index)` per marker, each clip's sorted by time then index.
    entries: Vec<(f32, u32)>,
    /// Each clip's sorted times, eight per chunk, padded with +inf.
    chunks: Vec<F32x8>,
    /// The most markers of any clip (0: no clip has any, and a step spends
    /// nothing on markers).
    pub most: usize,
}

impl MarkerTable {
    /// The table of `clips`' markers for a crowd of `layers` layers,
    /// reserved fallibly.
    pub(crate) fn new(clips: &[Clip], layers: usize) -> Result<MarkerTable> {
        let total: usize = clips.iter().map(|c| c.markers().len()).sum();
        let chunked: usize = clips.iter().map(|c| c.markers().len().div_ceil(8)).sum();
        let mut t = MarkerTable {
            sources: 2 + layers,
            clips: crate::error::try_vec("clips' markers", clips.len(), ClipMarks::default())?,
            entries: crate::error::try_vec("clips' markers", total, (0.0, 0))?,
            chunks: crate::error::try_vec("clips' markers", chunked, F32x8::splat(f32::INFINITY))?,
            most: clips.iter().map(|c| c.markers().len()).max().unwrap_or(0),
        };
        let (mut e, mut k) = (0usize, 0usize);
        for (clip, marks) in clips.iter().zip(&mut t.clips) {
            let n = clip.markers().len();
            let sorted = &mut t.entries[e..e + n];
            for (i, (s, m)) in sorted.iter_mut().zip(clip.markers()).enumerate() {
                *s = (m.time, i as u32);
            }
            sorted.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let chunks = n.div_ceil(8);
            let lanes: &mut [f32] = bytemuck::cast_slice_mut(&mut t.chunks[k..k + chunks]);
            for (l, s) in lanes.iter_mut().zip(sorted.iter()) {
                *l = s.0;
            }
            *marks = ClipMarks {
                entries: (e as u32, (e + n) as u32),
                chunks: (k as u32, (k + chunks) as u32),
            };
            (e, k) = (e + n, k + chunks);
        }
        Ok(t)
    }

    /// Room a pack needs for one step's markers: each of its sources
    /// (eight characters' A, B and layers) may cross every marker of its
    /// clip: `8 (2 + layers)` times the most markers of a clip.
    pub(crate) fn per_pack(&self) -> usize {
        8 * self.sources * self.most
    }
}

/// One lane of one source's move, as the crossing rules read it.
#[derive(Clone, Copy, Debug)]
struct Move {
    from: f32,
    to: f32,
    laps: f32,
    moved: f32,
    len: f32,
    looping: bool,
    fresh: bool,
}

/// The markers `entries` (a clip's, sorted) that move `m` crosses, in the
/// step of `dt` ([`MarkerHit`]'s rules): `hit(index, at, count)` for each,
/// in the order of `entries`. Computed in f64 on the move as the state
/// made it: its end unwrapped is `to + laps len`, so consecutive steps
/// cover the playhead's path end to end, each instant once.
fn crossings(m: &Move, entries: &[(f32, u32)], dt: f32, mut hit: impl FnMut(u32, f32, u32)) {
    let (a, len) = (f64::from(m.from), f64::from(m.len));
    let b = match m.looping {
        true => f64::from(m.to) + f64::from(m.laps) * len,
        false => f64::from(m.to),
    };
    let d = f64::from(m.moved) - a;
    let dt64 = f64::from(dt);
    let at = |p: f64| match d == 0.0 {
        true => 0.0,
        false => ((p - a) / d * dt64).clamp(0.0, dt64) as f32,
    };
    if b == a || (m.looping && len == 0.0) {
        if m.fresh {
            // Where it stands; on a loop, the seam's other end is the same
            // instant.
            let here = |t: f64| t == a || (m.looping && (t - a).abs() == len);
            for &(_, i) in entries.iter().filter(|e| here(f64::from(e.0))) {
                hit(i, 0.0, 1);
            }
        }
        return;
    }
    let forward = b > a;
    for &(t, i) in entries {
        let t = f64::from(t);
        if !m.looping {
            let after = match forward {
                true => t > a && t <= b,
                false => t < a && t >= b,
            };
            if after || (m.fresh && t == a) {
                hit(i, at(t), 1);
            }
            continue;
        }
        // Looping: the marker's instants are t + k len; the first one
        // ahead of `a` (at `a` itself only for a fresh source).
        let count = if forward {
            let mut p = t + ((a - t) / len).ceil() * len;
            if p < a || (p == a && !m.fresh) {
                p += len;
            }
            (p <= b).then(|| (p, ((b - p) / len).floor() + 1.0))
        } else {
            let mut p = t + ((a - t) / len).floor() * len;
            if p > a || (p == a && !m.fresh) {
                p -= len;
            }
            (p >= b).then(|| (p, ((p - b) / len).floor() + 1.0))
        };
        if let Some((p, n)) = count {
            hit(i, at(p), n as u32);
        }
    }
}

/// One source's lanes of a pack as arrays, converted once per pack.
struct SourceArrays {
    from: [f32; 8],
    to: [f32; 8],
    laps: [f32; 8],
    moved: [f32; 8],
    len: [f32; 8],
    end: [i32; 8],
    clip: [i32; 8],
    fresh: u8,
}

impl SourceArrays {
    #[inline(always)]
    fn new(s: &SourceLanes, sp: &Spanx8) -> SourceArrays {
        SourceArrays {
            from: sp.from.to_array(),
            to: sp.to.to_array(),
            laps: sp.laps.to_array(),
            moved: sp.moved.to_array(),
            len: s.len.to_array(),
            end: s.end.to_array(),
            clip: s.clip.to_array(),
            fresh: sp.fresh,
        }
    }

    /// Lane `l`'s move.
    #[inline(always)]
    fn lane(&self, l: usize) -> Move {
        Move {
            from: self.from[l],
            to: self.to[l],
            laps: self.laps[l],
            moved: self.moved[l],
            len: self.len[l],
            looping: self.end[l] == 0,
            fresh: self.fresh & (1 << l) != 0,
        }
    }
}

/// Whether looping move `m` starts or ends on its clip's seam (time 0 or
/// the clip's length) without wrapping: a marker at the seam's other end is
/// the same instant, outside the move's span by its time (a playhead
/// stepping back from 0.35 to exactly 0 crosses a marker at 1.0 of a 1 s
/// loop; found by `markers::each_step_reports_the_instants_on_its_path`).
#[inline(always)]
fn at_seam(m: &Move) -> bool {
    m.looping && [m.from, m.to].iter().any(|&t| t == 0.0 || t == m.len)
}

/// Whether move `m` may cross one of `chunks` (sorted times, +inf
/// padded): always where it wrapped or is fresh (the exact rules decide);
/// else where a time lies within its span, closed.
#[inline(always)]
fn may_cross(m: &Move, chunks: &[F32x8]) -> bool {
    if m.fresh || m.laps != 0.0 || at_seam(m) {
        return true;
    }
    let (lo, hi) = (
        F32x8::splat(m.from.min(m.to)),
        F32x8::splat(m.from.max(m.to)),
    );
    chunks.iter().any(|c| (c.simd_ge(lo) & c.simd_le(hi)).any())
}

/// The entries (sorted by time) move `m` may cross: all where it wrapped
/// or is fresh; else only those within its span, closed, found by binary
/// search (a move that does not wrap stays within `[0, len]` and meets
/// each marker at most once, at its own time), so that a clip with many
/// markers costs a crossing source only the few it passes.
#[inline(always)]
fn candidates<'e>(m: &Move, entries: &'e [(f32, u32)]) -> &'e [(f32, u32)] {
    if m.fresh || m.laps != 0.0 || at_seam(m) {
        return entries;
    }
    let (lo, hi) = (m.from.min(m.to), m.from.max(m.to));
    let first = entries.partition_point(|e| e.0 < lo);
    let end = first + entries[first..].partition_point(|e| e.0 <= hi);
    &entries[first..end]
}

/// A pack's sources as [`pack_markers`] reads them: the state its step's
/// advance left (before the step's commands), its layers' lanes (as many
/// as the crowd has) and what the advance did ([`Happened`]: the base
/// sources' moves; `layer_spans`: the layers' sources' moves, one per
/// layer).
#[derive(Clone, Copy)]
pub(crate) struct Advanced<'a> {
    pub state: &'a Statex8,
    pub layers: &'a [LayerLanes],
    pub happened: &'a Happened,
    pub layer_spans: &'a [Spanx8],
}

/// How [`pack_markers`] looks at a pack's sources. Both ways report the
/// same markers: the crowds' comparisons under generated commands hold the
/// filters to the exhaustive scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// The 8-lane crowd's: the lanes that may cross a marker found for the
    /// whole pack at once ([`may_cross_lanes`]), then per lane
    /// [`may_cross`] and only the markers within the move's span
    /// ([`candidates`]).
    Filtered,
    /// The reference crowd's: every source of every character over the
    /// weight threshold, every marker of its clip through the crossing
    /// rules ([`crossings`]), no filter.
    Every,
}

/// The markers pack `p`'s characters' sources crossed in a step of `dt`
/// ([`MarkerHit`]), into `out` (room for [`MarkerTable::per_pack`]) as
/// events, by character, then source A, B and the layers in order, then
/// by `at` and marker index; returns how many. Sources whose weight is at
/// most `threshold` are left out; with [`Scan::Filtered`], a layer whose
/// weight is at most it for every character of the pack (at zero, as the
/// layers pass skips it) is not looked at.
pub(crate) fn pack_markers(
    table: &MarkerTable,
    src: Advanced,
    (p, characters): (usize, usize),
    (dt, threshold): (f32, f32),
    (out, scan): (&mut [Event], Scan),
) -> usize {
    let spans = &src.happened.spans;
    let every = scan == Scan::Every;
    // The base sources' lanes that may cross a marker: in most steps
    // none, and the pack is done without looking at a lane.
    let may = match scan {
        Scan::Filtered => [
            may_cross_lanes(table, &src.state.a, &spans[0]),
            may_cross_lanes(table, &src.state.b, &spans[1]),
        ],
        Scan::Every => [0xff; 2],
    };
    let mut layers: [HeavyLayer; MAX_LAYERS] = Default::default();
    let layered = heavy_layers(&src, (threshold, every), &mut layers);
    if may == [0, 0] && !layered {
        return 0;
    }
    let look = (dt, scan);
    let w = src.state.weight.w.to_array();
    let (a, b) = (
        SourceArrays::new(&src.state.a, &spans[0]),
        SourceArrays::new(&src.state.b, &spans[1]),
    );
    let mut n = 0;
    for (l, &w) in w.iter().enumerate() {
        let character = p * 8 + l;
        if character >= characters {
            break;
        }
        let base = [(Which::A, &a, 1.0 - w, may[0]), (Which::B, &b, w, may[1])];
        for (source, s, weight, may) in base {
            if weight <= threshold || may & (1 << l) == 0 {
                continue;
            }
            let hit = Hit {
                character,
                source,
                weight,
            };
            n += source_markers(table, (s, l), hit, look, &mut out[n..]);
        }
        // The layers in a loop of their own rather than chained after the
        // base sources: chained (one loop, `may` all set for a layer), the
        // 400-character frame took 1.8% more instructions (1,464,698
        // against 1,438,686, callgrind), the chain's cost in every lane of
        // the third of the packs that get here.
        if !layered {
            continue;
        }
        let layers = layers.iter().enumerate();
        for (k, (s, lw)) in layers.filter_map(|(k, s)| s.as_ref().map(|s| (k, s))) {
            if lw[l] <= threshold {
                continue;
            }
            let hit = Hit {
                character,
                source: Which::Layer(k),
                weight: lw[l],
            };
            n += source_markers(table, (s, l), hit, look, &mut out[n..]);
        }
    }
    n
}

/// A layer's arrays and its weight per character, where it weighs over
/// the markers' threshold.
type HeavyLayer = Option<(SourceArrays, [f32; 8])>;

/// A pack's layers ([`Advanced::layers`]) that weigh over `threshold`
/// for some character of the pack (every layer with `every`): each one's
/// arrays and weights into its slot of `layers` (filled in place: the
/// array returned by value was copied, 0.3 M instructions over 50 frames
/// of 400 layered characters), and whether there is one.
#[inline(always)]
fn heavy_layers(
    src: &Advanced,
    (threshold, every): (f32, bool),
    layers: &mut [HeavyLayer; MAX_LAYERS],
) -> bool {
    let heavy = F32x8::splat(threshold);
    let moves = src.layers.iter().zip(src.layer_spans);
    let mut layered = false;
    for (slot, (layer, span)) in layers.iter_mut().zip(moves) {
        if every || layer.weight.w.simd_gt(heavy).any() {
            *slot = Some((
                SourceArrays::new(&layer.src, span),
                layer.weight.w.to_array(),
            ));
            layered = true;
        }
    }
    layered
}

/// The lanes of one base source (its lanes `s`, its move `sp`) whose
/// move [`may_cross`] one of its clip's markers (bits), all eight at once
/// where they play one clip, the common case: the same comparisons as
/// [`may_cross`] (fresh, wrapped, on the seam, or a marker's time within
/// the move's span, closed), so a lane left out is one
/// [`source_markers`] finds nothing for. Where the lanes play different
/// clips, or a move's ends are not numbers, every lane (each is then
/// looked at alone, as before); none where the clip has no markers.
#[inline(always)]
fn may_cross_lanes(table: &MarkerTable, s: &SourceLanes, sp: &Spanx8) -> u8 {
    let clips = s.clip.to_array();
    if clips.iter().any(|&c| c != clips[0]) {
        return 0xff;
    }
    let Some(marks) = usize::try_from(clips[0])
        .ok()
        .and_then(|c| table.clips.get(c))
    else {
        return 0;
    };
    if marks.entries.0 == marks.entries.1 {
        return 0;
    }
    let (from, to, z) = (sp.from, sp.to, F32x8::ZERO);
    if (from.simd_ne(from) | to.simd_ne(to)).any() {
        return 0xff;
    }
    let (lo, hi) = (from.min(to), from.max(to));
    let looping: F32x8 = bytemuck::cast(s.end.simd_eq(I32x8::ZERO));
    let ends = from.simd_eq(z) | from.simd_eq(s.len) | to.simd_eq(z) | to.simd_eq(s.len);
    let mut may = (looping & ends) | sp.laps.simd_ne(z);
    for c in &table.chunks[marks.chunks.0 as usize..marks.chunks.1 as usize] {
        for t in c.to_array() {
            let t = F32x8::splat(t);
            may |= t.simd_ge(lo) & t.simd_le(hi);
        }
    }
    may.to_bitmask() as u8 | sp.fresh
}

/// Who crossed a marker: the character, its source and the source's
/// weight.
#[derive(Clone, Copy)]
struct Hit {
    character: usize,
    source: Which,
    weight: f32,
}

/// The markers lane `l` of source `s` crossed ([`pack_markers`]) into
/// `out`, by `at` then marker index; returns how many. With
/// [`Scan::Filtered`] a move that [`may_cross`] none is done at once, and
/// only its [`candidates`] go through [`crossings`].
#[inline(always)]
fn source_markers(
    table: &MarkerTable,
    (s, l): (&SourceArrays, usize),
    who: Hit,
    (dt, scan): (f32, Scan),
    out: &mut [Event],
) -> usize {
    let clip = s.clip[l] as usize;
    let Some(marks) = table.clips.get(clip) else {
        return 0;
    };
    if marks.entries.0 == marks.entries.1 {
        return 0;
    }
    let m = s.lane(l);
    let chunks = &table.chunks[marks.chunks.0 as usize..marks.chunks.1 as usize];
    let filtered = scan == Scan::Filtered;
    if filtered && !may_cross(&m, chunks) {
        return 0;
    }
    let entries = &table.entries[marks.entries.0 as usize..marks.entries.1 as usize];
    let entries = match filtered {
        true => candidates(&m, entries),
        false => entries,
    };
    let mut n = 0;
    crossings(&m, entries, dt, |marker, at, count| {
        if let Some(e) = out.get_mut(n) {
            *e = Event {
                character: who.character,
                kind: EventKind::Marker(MarkerHit {
                    source: who.source,
                    clip: clip as u32,
                    marker,
                    at,
                    count,
                    weight: who.weight,
                }),
            };
            n += 1;
        }
    });
    out[..n].sort_unstable_by(|x, y| match (x.kind, y.kind) {
        (EventKind::Marker(x), EventKind::Marker(y)) => {
            x.at.total_cmp(&y.at).then(x.marker.cmp(&y.marker))
        }
        _ => core::cmp::Ordering::Equal,
    });
    n
}

#[cfg(test)]
mod tests;
