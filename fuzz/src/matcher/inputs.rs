//! The `matcher_api` check's inputs: the bytes' reader, the library and
//! databases built once, the configurations and steps decoded from the
//! bytes, and the rules `Matcher::new` must follow.

use super::*;

/// An ordinary value in `[lo, hi]` most of the time; one in 8 a special
/// value (NaN, infinities, subnormals, huge, negative ...), one in 16 raw
/// bits, one in 32 an ordinary value negated.
pub(super) fn value(g: &mut Bytes, lo: f32, hi: f32) -> f32 {
    match g.u8() {
        0..=31 => SPECIALS[g.u8() as usize % SPECIALS.len()],
        32..=47 => g.raw(),
        48..=55 => -(lo + (hi - lo) * (g.u16() as f32 / 65535.0)),
        _ => lo + (hi - lo) * (g.u16() as f32 / 65535.0),
    }
}

/// The library: the embedded CMU clip and its mirror (clips 0 and 1).
pub(super) fn library() -> &'static ClipLibrary {
    static LIBRARY: OnceLock<ClipLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let mut lib =
            ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("the embedded clip");
        let map = MirrorMap::cmu(lib.skeleton()).expect("CMU mirror map");
        matching::add_mirrored(&mut lib, &map).expect("mirrored");
        lib
    })
}

/// The embedded clip alone: a library the databases do not fit.
pub(super) fn other_library() -> &'static ClipLibrary {
    static LIBRARY: OnceLock<ClipLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        ClipLibrary::from_bvh(&kineform::data::default_clip()).expect("the embedded clip")
    })
}

pub(super) const FEET: [FootFeatures; 3] = [
    FootFeatures::DEMO,
    FootFeatures::SPRING,
    FootFeatures::CUBIC,
];

/// The databases of [`library`], one per feature set, built once.
pub(super) fn databases() -> &'static [MatchDatabase; 3] {
    static DBS: OnceLock<[MatchDatabase; 3]> = OnceLock::new();
    DBS.get_or_init(|| {
        FEET.map(|f| MatchDatabase::build(library(), &MatchConfig::with_feet(f)).expect("database"))
    })
}

pub(super) const FIELDS: u8 = 16;

/// Field `k` of `cfg` set to a fuzzed value (ordinary ones in the field's
/// own range).
pub(super) fn set_field(g: &mut Bytes, cfg: &mut MatcherConfig, k: u8) {
    match k % FIELDS {
        0 => cfg.search_every = value(g, 0.0, 1.0),
        1 => cfg.retarget_every.0 = value(g, 0.0, 4.0),
        2 => cfg.retarget_every.1 = value(g, 0.0, 4.0),
        3 => cfg.speed.0 = value(g, 0.0, 40.0),
        4 => cfg.speed.1 = value(g, 0.0, 40.0),
        5 => cfg.strafe = value(g, 0.0, 3.2),
        6 => cfg.velocity_halflife = value(g, 0.0, 1.0),
        7 => cfg.rotation_halflife = value(g, 0.0, 1.0),
        8 => cfg.sharp_velocity = value(g, 0.0, 20.0),
        9 => cfg.sharp_turn = value(g, 0.0, 3.2),
        10 => cfg.same_clip_window = value(g, 0.0, 1.0),
        11 => cfg.switch_margin = value(g, 0.0, 20.0),
        12 => cfg.blend_duration = value(g, 0.0, 1.0),
        13 => cfg.extrapolation_halflife = value(g, 0.0, 1.0),
        14 => cfg.clamp_distance = value(g, 0.0, 40.0),
        _ => cfg.spacing = value(g, 0.0, 200.0),
    }
}

pub(super) fn config(g: &mut Bytes) -> MatcherConfig {
    let mut cfg = MatcherConfig::default();
    let flags = g.u8();
    if flags & 1 != 0 {
        cfg.seed = g.u64();
    }
    for _ in 0..(flags >> 1) % 5 {
        let k = g.u8();
        set_field(g, &mut cfg, k);
    }
    cfg
}

/// What [`Matcher::new`] documents it refuses, independently: a field out
/// of its range, a start grid past ±1e6, a count too large to reserve.
pub(super) fn refuses(cfg: &MatcherConfig, characters: usize) -> bool {
    let positive = |v: f32| v.is_finite() && v > 0.0 && v <= 1e6;
    let non_negative = |v: f32| v.is_finite() && (0.0..=1e6).contains(&v);
    let range = |(lo, hi): (f32, f32)| hi.is_finite() && hi >= lo && hi <= 1e6;
    let fields_ok = [
        cfg.search_every,
        cfg.velocity_halflife,
        cfg.rotation_halflife,
        cfg.blend_duration,
        cfg.extrapolation_halflife,
        cfg.clamp_distance,
        cfg.retarget_every.0,
    ]
    .into_iter()
    .all(positive)
        && [
            cfg.speed.0,
            cfg.strafe,
            cfg.sharp_velocity,
            cfg.sharp_turn,
            cfg.same_clip_window,
            cfg.switch_margin,
            cfg.spacing,
        ]
        .into_iter()
        .all(non_negative)
        && range(cfg.retarget_every)
        && range(cfg.speed);
    let cols = ((characters as f32).sqrt().ceil().max(1.0)) as usize;
    let rows = characters.div_ceil(cols);
    let grid_ok = (cols.max(rows) - 1) as f32 * cfg.spacing <= 1e6;
    !(fields_ok && grid_ok && characters <= 1 << 20)
}

/// A frame's `dt`: mostly in [1/240, 1/20] s, one in 8 hostile or extreme.
pub(super) fn dt(g: &mut Bytes) -> f32 {
    match g.u8() {
        0 => 0.0,
        1 => -1.0 / 60.0,
        2 => f32::NAN,
        3 => f32::INFINITY,
        4 => f32::NEG_INFINITY,
        5 => 1e9,
        6 => 1000.0,
        7 => f32::from_bits(1000f32.to_bits() + 1),
        8 => 1e-45,
        9 => 1e-30,
        10 => 0.5,
        11 => 7.0,
        12..=31 => SPECIALS[g.u8() as usize % SPECIALS.len()],
        _ => 1.0 / 240.0 + (1.0 / 20.0 - 1.0 / 240.0) * (g.u8() as f32 / 255.0),
    }
}

pub(super) fn dt_valid(dt: f32) -> bool {
    dt.is_finite() && dt > 0.0 && dt <= 1000.0
}
