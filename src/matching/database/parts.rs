//! A matching database's primary data ([`DatabaseParts`]): the checks
//! [`MatchDatabase::from_parts`] makes before it builds the search's
//! storage, the copy [`MatchDatabase::to_parts`] gives back, and the
//! database serialized as its parts (`serde`).

use super::check_finite;
use super::{ClipSpan, MAX_FRAMES, MatchDatabase};
use crate::error::{Error, Result};
use crate::matching::config::{FeatureJoints, MatchConfig};
use crate::matching::features::FeatureLayout;
use crate::matching::index::Index;

/// A database's primary data: what [`MatchDatabase::from_parts`] checks
/// and builds the search's storage from, and what it serializes as.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DatabaseParts {
    /// The configuration (its feet, weights and times say the layout).
    pub config: MatchConfig,
    /// The joints the features were read from.
    pub joints: FeatureJoints,
    /// The clips' frame time, seconds.
    pub frame_time: f32,
    /// Per feature, the mean subtracted.
    pub offset: Vec<f32>,
    /// Per feature, the divisor.
    pub scale: Vec<f32>,
    /// Each clip's frames, in order, covering every frame.
    pub clips: Vec<ClipSpan>,
    /// Frames × features normalized features, frame-major.
    pub features: Vec<f32>,
    /// Per frame, whether it is searched.
    pub searchable: Vec<bool>,
}

impl DatabaseParts {
    /// The lengths against the layout's `dims` and the `frames`, and the
    /// values: finite offsets and features, finite positive scales, a
    /// frame time of at least [`crate::clip::MIN_FRAME_TIME`]
    /// ([`MatchDatabase::from_parts`]).
    fn check_values(&self, dims: usize, frames: usize) -> Result<()> {
        for (what, got, expected) in [
            ("feature offsets (one per feature)", self.offset.len(), dims),
            ("feature scales (one per feature)", self.scale.len(), dims),
            (
                "features (frames × features)",
                self.features.len(),
                frames.saturating_mul(dims),
            ),
        ] {
            if got != expected {
                return Err(Error::Length {
                    what,
                    expected,
                    got,
                });
            }
        }
        check_finite("feature offset that is not finite", &self.offset)?;
        check_finite(
            "feature value that is not finite (frame × features + feature)",
            &self.features,
        )?;
        if let Some(&s) = self.scale.iter().find(|&&s| !(s.is_finite() && s > 0.0)) {
            return Err(Error::Parameter {
                name: "feature scale",
                value: s,
                reason: "every feature scale must be finite and positive",
            });
        }
        if !(self.frame_time.is_finite() && self.frame_time >= crate::clip::MIN_FRAME_TIME) {
            return Err(Error::Parameter {
                name: "frame_time",
                value: self.frame_time,
                reason: "must be finite and at least 1e-6 s",
            });
        }
        Ok(())
    }

    /// The clip spans: one after another over all `frames`, each span's
    /// last clip frame and time within what `usize` and `f32` hold, and
    /// at least one searchable frame ([`MatchDatabase::from_parts`]).
    fn check_spans(&self, frames: usize) -> Result<()> {
        let mut next = 0usize;
        for (c, s) in self.clips.iter().enumerate() {
            if s.frames > 0 && s.first != next {
                return Err(Error::Index {
                    what: "clip span whose first frame does not follow the last span's",
                    index: c,
                    len: self.clips.len(),
                });
            }
            next = next.saturating_add(s.frames);
        }
        if next != frames {
            return Err(Error::Length {
                what: "frames of the clip spans",
                expected: frames,
                got: next,
            });
        }
        // Every frame's source (`source`) is a clip frame and a time:
        // the last frame of each span must have both.
        let longest = self.clips.iter().map(|s| s.frames).max().unwrap_or(0);
        let last = longest
            .saturating_sub(1)
            .checked_mul(self.config.frame_step);
        if !last.is_some_and(|k| (k as f32 * self.frame_time).is_finite()) {
            return Err(Error::Size {
                what: "matching database clip frames",
                reason: format!(
                    "a span of {longest} frames at frame_step {} and frame_time {} s \
                     reaches a clip frame or time past what usize and f32 hold",
                    self.config.frame_step, self.frame_time
                ),
            });
        }
        if !self.searchable.iter().any(|&s| s) {
            return Err(Error::Length {
                what: "searchable frames (at least 1)",
                expected: 1,
                got: 0,
            });
        }
        Ok(())
    }
}

impl MatchDatabase {
    /// A database of features computed elsewhere (or read back). Refuses,
    /// naming what is wrong and building nothing: what
    /// [`MatchConfig::check`] refuses, lengths that do not match the
    /// layout and the frame count, more than [`MAX_FRAMES`] frames, a
    /// feature or offset that is not finite, a scale that is not finite and
    /// positive, a frame time below [`crate::clip::MIN_FRAME_TIME`], clip
    /// spans that do not follow one another over every frame, a span whose
    /// last frame's clip frame (`(frames - 1) × frame_step`) or time is
    /// past what `usize` and `f32` hold ([`MatchDatabase::source`] gives
    /// both), and no searchable frame.
    pub fn from_parts(d: DatabaseParts) -> Result<MatchDatabase> {
        d.config.check()?;
        d.joints.check(usize::MAX)?;
        let layout = FeatureLayout::new(&d.config);
        let (dims, frames) = (layout.dims(), d.searchable.len());
        if frames > MAX_FRAMES {
            return Err(Error::Size {
                what: "matching database frames",
                reason: format!("{frames} frames; at most {MAX_FRAMES}"),
            });
        }
        d.check_values(dims, frames)?;
        d.check_spans(frames)?;
        let index = Index::new(&d.features, dims, &d.searchable)?;
        Ok(MatchDatabase {
            config: d.config,
            joints: d.joints,
            layout,
            frame_time: d.frame_time,
            offset: d.offset,
            scale: d.scale,
            clips: d.clips,
            index,
        })
    }

    /// The database's primary data ([`DatabaseParts`]), copied: its
    /// features and flags are reserved fallibly ([`crate::Error::Size`]
    /// where memory for a copy of the database cannot be had).
    pub fn to_parts(&self) -> Result<DatabaseParts> {
        let frames = self.frames();
        // The index's own width, which `features` gives per frame, so the
        // count is exact; no overflow: the index holds `frames * dims`
        // features already.
        let n = frames * self.index.dims;
        Ok(DatabaseParts {
            features: crate::error::try_collect(
                "database features",
                n,
                (0..frames).flat_map(|f| self.index.features(f)),
            )?,
            searchable: crate::error::try_collect(
                "database searchable flags",
                frames,
                (0..frames).map(|f| self.searchable(f)),
            )?,
            config: self.config,
            joints: self.joints,
            frame_time: self.frame_time,
            offset: crate::error::try_copy("feature offsets", &self.offset)?,
            scale: crate::error::try_copy("feature scales", &self.scale)?,
            clips: crate::error::try_copy("database clips", &self.clips)?,
        })
    }
}

/// [`MatchDatabase`] serialized as its [`DatabaseParts`], field for
/// field, in their order: the features and the searchable flags written
/// frame by frame from the search's storage. (Serde's `into` would clone
/// the whole database and then copy its features into the parts: three
/// times its memory at once.)
/// A sequence of `.0` elements written from the iterator `.1` makes, its
/// length given up front (a flattened iterator's size hint is not exact,
/// and formats such as bincode need it).
#[cfg(feature = "serde")]
struct Seq<F>(usize, F);

#[cfg(feature = "serde")]
impl<F, I> serde::Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator<Item: serde::Serialize>,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0))?;
        for x in (self.1)() {
            seq.serialize_element(&x)?;
        }
        seq.end()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for MatchDatabase {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let frames = 0..self.frames();
        let n = self.frames() * self.layout.dims();
        let features = Seq(n, || frames.clone().flat_map(|f| self.index.features(f)));
        let searchable = Seq(self.frames(), || frames.clone().map(|f| self.searchable(f)));
        let mut st = s.serialize_struct("DatabaseParts", 8)?;
        st.serialize_field("config", &self.config)?;
        st.serialize_field("joints", &self.joints)?;
        st.serialize_field("frame_time", &self.frame_time)?;
        st.serialize_field("offset", &self.offset)?;
        st.serialize_field("scale", &self.scale)?;
        st.serialize_field("clips", &self.clips)?;
        st.serialize_field("features", &features)?;
        st.serialize_field("searchable", &searchable)?;
        st.end()
    }
}

#[cfg(feature = "serde")]
impl TryFrom<DatabaseParts> for MatchDatabase {
    type Error = Error;
    fn try_from(d: DatabaseParts) -> Result<MatchDatabase> {
        MatchDatabase::from_parts(d)
    }
}
