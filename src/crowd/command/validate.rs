//! Commands checked before they are queued ([`Command::validate`],
//! [`Command::validate_in`]): clip indices in range, times, rates,
//! positions and velocities finite, weights in `[0, 1]`, durations and
//! half-lives positive, roots of unit rotation ([`check_root`],
//! [`check_roots`]), each refusal an error that names the argument.

use super::{COMMAND_MAX, Command, Which};
use crate::crowd::library::ClipLibrary;
use crate::crowd::schedule::check_period;
use crate::crowd::{CrowdConfig, Root, Source};
use crate::error::{Error, Result};
use crate::reference::Vec3;

fn finite_in(name: &'static str, v: f32, lo: f32, hi: f32, reason: &'static str) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason,
        })
    }
}

fn positive(name: &'static str, v: f32) -> Result<()> {
    if v.is_finite() && v > 0.0 && v <= COMMAND_MAX {
        Ok(())
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason: "must be finite, > 0 and <= 1e6",
        })
    }
}

/// Checks a source against the crowd's clips; `names` are the clip's,
/// the time's and the rate's names in errors.
fn source(names: [&'static str; 3], s: &Source, library: &ClipLibrary) -> Result<()> {
    if s.clip >= library.len() {
        return Err(Error::Index {
            what: names[0],
            index: s.clip,
            len: library.len(),
        });
    }
    let reason = "must be finite and within ±1e6";
    finite_in(names[1], s.time, -COMMAND_MAX, COMMAND_MAX, reason)?;
    finite_in(names[2], s.rate, -COMMAND_MAX, COMMAND_MAX, reason)
}

const SOURCE_A: [&str; 3] = ["source A clip", "source A time", "source A rate"];
const SOURCE_B: [&str; 3] = ["source B clip", "source B time", "source B rate"];
const LAYER_SOURCE: [&str; 3] = [
    "layer source clip",
    "layer source time",
    "layer source rate",
];

fn vec3(name: &'static str, v: crate::reference::Vec3) -> Result<()> {
    for x in v.to_array() {
        finite_in(
            name,
            x,
            -COMMAND_MAX,
            COMMAND_MAX,
            "must be finite and within ±1e6",
        )?;
    }
    Ok(())
}

impl Command {
    /// Checks the command against the crowd's clips: clip indices in
    /// range; times, rates, positions and velocities finite (within
    /// [`COMMAND_MAX`]); weights in `[0, 1]`; durations and half-lives
    /// finite and positive; a root rotation of unit length (within 1e-3).
    /// The error names the argument. Layer and blend profile indices are
    /// checked against a crowd's configuration by [`Command::validate_in`]
    /// (which the crowds' commands call).
    pub fn validate(&self, library: &ClipLibrary) -> Result<()> {
        let unit = |name, v: f32| finite_in(name, v, 0.0, 1.0, "must be in [0, 1]");
        match self {
            Command::Play { a, b } => {
                source(SOURCE_A, a, library)?;
                source(SOURCE_B, b, library)
            }
            Command::Transition {
                a,
                b,
                duration,
                halflife,
            } => {
                source(SOURCE_A, a, library)?;
                source(SOURCE_B, b, library)?;
                positive("transition duration", *duration)?;
                positive("transition halflife", *halflife)
            }
            Command::PlayLayer { source: s, .. } => source(LAYER_SOURCE, s, library),
            Command::TransitionLayer {
                source: s,
                duration,
                halflife,
                ..
            } => {
                source(LAYER_SOURCE, s, library)?;
                positive("transition duration", *duration)?;
                positive("transition halflife", *halflife)
            }
            Command::SetWeight { weight } => unit("weight", *weight),
            Command::SetLayerWeight { weight, .. } => unit("layer weight", *weight),
            Command::WeightToward { target, halflife } => {
                unit("weight target", *target)?;
                positive("weight halflife", *halflife)
            }
            Command::LayerWeightToward {
                target, halflife, ..
            } => {
                unit("layer weight target", *target)?;
                positive("layer weight halflife", *halflife)
            }
            Command::SetRate { rate, .. } => finite_in(
                "rate",
                *rate,
                -COMMAND_MAX,
                COMMAND_MAX,
                "must be finite and within ±1e6",
            ),
            Command::SetEnd { .. } | Command::SetBlendProfile { .. } => Ok(()),
            Command::SetRoot(r) => check_root(r),
            Command::SetPeriod { period, phase } => check_period(*period, *phase),
        }
    }

    /// [`Command::validate`], and its layer ([`Error::Index`], `layer`)
    /// and blend profile (`blend profile`) among a crowd's `cfg`'s.
    pub fn validate_in(&self, library: &ClipLibrary, cfg: &CrowdConfig) -> Result<()> {
        self.validate(library)?;
        let in_range = |what, index: usize, len: usize| match index < len {
            true => Ok(()),
            false => Err(Error::Index { what, index, len }),
        };
        let layers = cfg.layers.len();
        match *self {
            Command::PlayLayer { layer, .. }
            | Command::TransitionLayer { layer, .. }
            | Command::SetLayerWeight { layer, .. }
            | Command::LayerWeightToward { layer, .. }
            | Command::SetRate {
                source: Which::Layer(layer),
                ..
            }
            | Command::SetEnd {
                source: Which::Layer(layer),
                ..
            } => in_range("layer", layer, layers),
            Command::SetBlendProfile { profile: Some(p) } => {
                in_range("blend profile", p, cfg.blend_profiles.len())
            }
            Command::SetPeriod { period, .. } if period > 1 && !cfg.level_of_detail => {
                Err(Error::Parameter {
                    name: "period",
                    value: period as f32,
                    reason: "must be 1 in a crowd without level_of_detail",
                })
            }
            _ => Ok(()),
        }
    }
}

/// Checks a root as [`Command::SetRoot`] does: finite position and
/// velocities, a rotation of unit length within 1e-3.
pub(crate) fn check_root(r: &Root) -> Result<()> {
    // The common case in one pass; the named checks below, which say what
    // is wrong, only when something is.
    if root_fits(r) {
        return Ok(());
    }
    let q = r.rot;
    let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    vec3("root position", r.pos)?;
    vec3("root velocity", r.vel)?;
    vec3("root angular velocity", r.ang)?;
    finite_in(
        "root rotation length",
        n,
        1.0 - 1e-3,
        1.0 + 1e-3,
        "a root rotation must be a unit quaternion (within 1e-3)",
    )
}

/// Checks the roots given for characters `first .. first + roots.len()` of a
/// crowd of `characters`, all of them, before any is used: the range
/// ([`Error::Index`]), then each root as [`check_root`] does
/// ([`Error::Character`] naming the first refused one).
pub(crate) fn check_roots(characters: usize, first: usize, roots: &[Root]) -> Result<()> {
    if first
        .checked_add(roots.len())
        .is_none_or(|end| end > characters)
    {
        return Err(Error::Index {
            what: "character range end (set_roots)",
            index: first.saturating_add(roots.len()),
            len: characters,
        });
    }
    // Each root's test inline, without an error to build; the first that
    // fails is checked again for its named error. (A call and its
    // `Result` per root were 60 instructions a root, 10,000 roots a frame
    // in a driver that hands every character's: callgrind.)
    match roots.iter().position(|r| !root_fits(r)) {
        None => Ok(()),
        Some(k) => check_root(&roots[k]).map_err(|e| Error::Character {
            character: first + k,
            error: Box::new(e),
        }),
    }
}

/// Whether [`check_root`] takes `r`: every position and velocity
/// component within ±[`COMMAND_MAX`] and the rotation's length within
/// 1e-3 of 1 (NaN fails every comparison).
#[inline(always)]
fn root_fits(r: &Root) -> bool {
    let q = r.rot;
    let n = (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    let within = |v: Vec3| {
        (v.x.abs() <= COMMAND_MAX) & (v.y.abs() <= COMMAND_MAX) & (v.z.abs() <= COMMAND_MAX)
    };
    within(r.pos) & within(r.vel) & within(r.ang) & (1.0 - 1e-3..=1.0 + 1e-3).contains(&n)
}
