//! The matching database: normalized features of every frame of a clip
//! library, where each frame came from, which frames are searched, and
//! the search's storage.

use super::build::{self, FrameInputs, normalize};
use super::config::{FeatureJoints, MatchConfig};
use super::features::{FeatureLayout, GroupKind, TrajectoryPoint, WorldPose, raw_features};
use super::frame::CharacterFrame;
use super::index::Index;
use super::search::MAX_PADDED;
use crate::crowd::ClipLibrary;
use crate::error::{Error, Result};

mod parts;
pub use parts::DatabaseParts;

/// Which clip frame a database frame is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSource {
    /// The library's clip.
    pub clip: usize,
    /// The clip's frame.
    pub clip_frame: usize,
    /// Its time in the clip, seconds (`clip_frame × frame_time`).
    pub time: f32,
}

/// A library clip's frames in the database: `first .. first + frames`,
/// database frame `first + k` being clip frame `k × frame_step`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClipSpan {
    /// The clip's first database frame.
    pub first: usize,
    /// Its number of database frames.
    pub frames: usize,
}

/// What a database holds in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Database frames.
    pub frames: usize,
    /// Bytes in all (features, exclusions and boxes as lane vectors, the
    /// normalization, the clip spans).
    pub bytes: usize,
    /// `bytes / frames`, rounded up.
    pub bytes_per_frame: usize,
}

/// Motion-matching features of every frame of a clip library, normalized
/// and weighted as the published demo does, with the search's storage
/// (module docs of [`super`]).
///
/// With the `serde` feature it serializes as its [`DatabaseParts`], which
/// deserializing reads back through [`MatchDatabase::from_parts`]; the
/// parts are written from the database where they lie (no copy of the
/// database or of its features is made).
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(try_from = "DatabaseParts")
)]
pub struct MatchDatabase {
    config: MatchConfig,
    joints: FeatureJoints,
    layout: FeatureLayout,
    frame_time: f32,
    offset: Vec<f32>,
    scale: Vec<f32>,
    clips: Vec<ClipSpan>,
    pub(crate) index: Index,
}

/// Frames a database may hold (frame numbers ride in `i32` lanes).
pub const MAX_FRAMES: usize = i32::MAX as usize - 8;

impl MatchDatabase {
    /// The database of every clip of `library` (mirrored copies included,
    /// [`super::add_mirrored`]) under `cfg`: clips' world motion and
    /// frames in parallel, features, the demo's normalization, the
    /// search's storage. Refuses what [`MatchConfig::check`] refuses,
    /// joints outside the skeleton (or, with `cfg.joints` `None`, a skeleton
    /// of no CMU convention), an empty library, a database with no
    /// searchable frame or over [`MAX_FRAMES`], and a feature group that
    /// does not vary.
    pub fn build(library: &ClipLibrary, cfg: &MatchConfig) -> Result<MatchDatabase> {
        cfg.check()?;
        let joints = match cfg.joints {
            Some(j) => j,
            None => FeatureJoints::cmu(library.skeleton())?,
        };
        joints.check(library.skeleton().len())?;
        let Some(first) = library.clips().first() else {
            return Err(Error::Length {
                what: "library clips (at least 1)",
                expected: 1,
                got: 0,
            });
        };
        let frame_time = first.frame_time();
        let total: usize = library
            .clips()
            .iter()
            .map(|c| c.frames().div_ceil(cfg.frame_step))
            .sum();
        if total > MAX_FRAMES {
            return Err(Error::Size {
                what: "matching database frames",
                reason: format!("{total} frames; at most {MAX_FRAMES}"),
            });
        }
        let layout = FeatureLayout::new(cfg);
        let frames = build::library_frames(library, cfg, &joints)?;
        let mut clips = vec![ClipSpan::default(); library.len()];
        for (i, f) in frames.iter().enumerate() {
            let span = &mut clips[f.source.clip];
            if span.frames == 0 {
                span.first = i;
            }
            debug_assert_eq!(f.source.clip_frame, span.frames * cfg.frame_step);
            span.frames += 1;
        }
        let searchable: Vec<bool> = frames.iter().map(|f| f.searchable).collect();
        if !searchable.iter().any(|&s| s) {
            return Err(Error::Length {
                what: "searchable frames (at least 1: clips longer than the end margin)",
                expected: 1,
                got: 0,
            });
        }
        let mut rows = build::raw_rows(&layout, cfg.feet, &frames)?;
        let (offset, scale) = build::normalization(&layout, &rows, &searchable)?;
        let dims = layout.dims();
        for row in rows.chunks_exact_mut(dims) {
            for ((x, &o), &s) in row.iter_mut().zip(&offset).zip(&scale) {
                *x = normalize(*x, o, s);
            }
        }
        // What `from_parts` requires of the same rows read back.
        check_finite(
            "normalized feature that is not finite (frame × features + feature)",
            &rows,
        )?;
        let index = Index::new(&rows, dims, &searchable)?;
        Ok(MatchDatabase {
            config: *cfg,
            joints,
            layout,
            frame_time,
            offset,
            scale,
            clips,
            index,
        })
    }

    /// What each frame [`MatchDatabase::build`] would build from `library`
    /// under `cfg` is made of, in database order (the same checks and
    /// refusals, before any feature is computed).
    pub fn frame_inputs(library: &ClipLibrary, cfg: &MatchConfig) -> Result<Vec<FrameInputs>> {
        cfg.check()?;
        let joints = match cfg.joints {
            Some(j) => j,
            None => FeatureJoints::cmu(library.skeleton())?,
        };
        joints.check(library.skeleton().len())?;
        build::library_frames(library, cfg, &joints)
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &MatchConfig {
        &self.config
    }

    /// The joints its features are read from.
    pub fn joints(&self) -> &FeatureJoints {
        &self.joints
    }

    /// Its feature groups.
    pub fn layout(&self) -> &FeatureLayout {
        &self.layout
    }

    /// Number of database frames (searched or not).
    pub fn frames(&self) -> usize {
        self.index.frames
    }

    /// Number of searched frames.
    pub fn searchable_frames(&self) -> usize {
        self.index.slots
    }

    /// Whether frame `f` is searched (false past the last frame).
    pub fn searchable(&self, f: usize) -> bool {
        self.index.searchable(f)
    }

    /// Per feature, the mean subtracted before scaling.
    pub fn offsets(&self) -> &[f32] {
        &self.offset
    }

    /// Per feature, the divisor: its group's standard deviation over its
    /// weight.
    pub fn scales(&self) -> &[f32] {
        &self.scale
    }

    /// Each library clip's database frames.
    pub fn clip_spans(&self) -> &[ClipSpan] {
        &self.clips
    }

    /// Where database frame `f` came from (`None` past the last frame).
    pub fn source(&self, f: usize) -> Option<FrameSource> {
        let clip = self
            .clips
            .iter()
            .position(|s| (s.first..s.first + s.frames).contains(&f))?;
        let clip_frame = (f - self.clips[clip].first) * self.config.frame_step;
        Some(FrameSource {
            clip,
            clip_frame,
            time: clip_frame as f32 * self.frame_time,
        })
    }

    /// Checks that this database's frames are frames of `library` (the
    /// library it must have been built from, as a crowd that plays its
    /// frames holds it): one clip span per library clip, each span's last
    /// clip frame (`(frames - 1) × frame_step`) within its clip, the
    /// library's frame time, and the feature joints within its skeleton.
    /// A database built from `library` passes; one built from another
    /// library (or read back from such a database's file) is refused,
    /// naming what does not fit, so that a driver refuses it before it
    /// plays a frame the library has not ([`crate::crowd::Matcher::update`]).
    pub fn check_library(&self, library: &ClipLibrary) -> Result<()> {
        if self.clips.len() != library.len() {
            return Err(Error::Length {
                what: "matching database clip spans (one per library clip)",
                expected: library.len(),
                got: self.clips.len(),
            });
        }
        for (c, (span, clip)) in self.clips.iter().zip(library.clips()).enumerate() {
            // `from_parts` checked that this product does not overflow.
            let last = span.frames.saturating_sub(1) * self.config.frame_step;
            if span.frames > 0 && last >= clip.frames() {
                return Err(Error::Size {
                    what: "matching database clip span",
                    reason: format!(
                        "clip {c}'s span reaches clip frame {last}; the library's clip {c} \
                         has {} frames",
                        clip.frames()
                    ),
                });
            }
            if clip.frame_time() != self.frame_time {
                return Err(Error::Parameter {
                    name: "frame_time",
                    value: self.frame_time,
                    reason: "a matching database's frame time must be its library's",
                });
            }
        }
        self.joints.check(library.skeleton().len())
    }

    /// The database frame of clip frame `clip_frame` of `clip`, rounded
    /// down to a frame the database holds (`None` for no such clip or
    /// frame).
    pub fn frame_of(&self, clip: usize, clip_frame: usize) -> Option<usize> {
        let s = self.clips.get(clip)?;
        let k = clip_frame / self.config.frame_step;
        (k < s.frames).then_some(s.first + k)
    }

    /// Frame `f`'s normalized features (`dims` of them; `None` past the
    /// last frame).
    pub fn features(&self, f: usize) -> Option<Vec<f32>> {
        (f < self.frames()).then(|| self.index.features(f))
    }

    /// What the database holds in memory.
    pub fn memory(&self) -> Memory {
        let bytes = self.index.bytes()
            + (self.offset.len() + self.scale.len()) * 4
            + self.clips.len() * core::mem::size_of::<ClipSpan>()
            + core::mem::size_of::<MatchDatabase>();
        Memory {
            frames: self.frames(),
            bytes,
            bytes_per_frame: bytes.div_ceil(self.frames().max(1)),
        }
    }

    /// Normalizes raw features in place, as the database's rows were.
    fn normalize_row(&self, raw: &mut [f32]) {
        for ((x, &o), &s) in raw.iter_mut().zip(&self.offset).zip(&self.scale) {
            *x = normalize(*x, o, s);
        }
    }

    /// The normalized query (`padded` features, zeros past `dims`) of a
    /// character whose world state is `pose`, in the frame under its hips
    /// ([`CharacterFrame::from_hips`] with the database's forward axis), to
    /// follow `trajectory` (world points at the database's
    /// [`MatchConfig::trajectory_times`]). A database frame's own pose and
    /// future give its own features bit for bit. Refuses, writing nothing,
    /// an `out` whose length is not [`FeatureLayout::padded`] and a
    /// non-finite result (a NaN or infinite input), naming the feature.
    pub fn query(
        &self,
        pose: &WorldPose,
        trajectory: &[TrajectoryPoint; 3],
        out: &mut [f32],
    ) -> Result<()> {
        let frame = CharacterFrame::from_hips(pose.hips_pos, pose.hips_rot, self.joints.forward);
        self.query_in_frame(&frame, pose, trajectory, out)
    }

    /// [`MatchDatabase::query`] in a character frame of the caller's (a
    /// root the game moves itself).
    pub fn query_in_frame(
        &self,
        frame: &CharacterFrame,
        pose: &WorldPose,
        trajectory: &[TrajectoryPoint; 3],
        out: &mut [f32],
    ) -> Result<()> {
        self.check_out(out)?;
        // On the stack: a crowd builds thousands of queries a frame.
        let mut buf = [0.0f32; MAX_PADDED];
        let raw = &mut buf[..self.layout.padded()];
        raw_features(&self.layout, self.config.feet, frame, pose, trajectory, raw);
        self.normalize_row(&mut raw[..self.layout.dims()]);
        check_finite(QUERY_NOT_FINITE, raw)?;
        out.copy_from_slice(raw);
        Ok(())
    }

    /// The demo's query: the pose features of database frame `f` (the
    /// frame a character plays) with the trajectory features of
    /// `trajectory` seen from `frame` (the character's frame in the
    /// world). Refuses a frame past the last, an `out` of the wrong length
    /// and a non-finite result, writing nothing.
    pub fn query_from_frame(
        &self,
        f: usize,
        frame: &CharacterFrame,
        trajectory: &[TrajectoryPoint; 3],
        out: &mut [f32],
    ) -> Result<()> {
        self.check_out(out)?;
        if f >= self.frames() {
            return Err(Error::Index {
                what: "database frame",
                index: f,
                len: self.frames(),
            });
        }
        // On the stack: a crowd builds thousands of queries a frame.
        let mut buf = [0.0f32; MAX_PADDED];
        let raw = &mut buf[..self.layout.padded()];
        raw_features(
            &self.layout,
            self.config.feet,
            frame,
            &WorldPose::default(),
            trajectory,
            raw,
        );
        self.normalize_row(&mut raw[..self.layout.dims()]);
        let own = self.index.features(f);
        for g in self.layout.groups() {
            let trajectory_group = matches!(
                g.kind,
                GroupKind::TrajectoryPositions | GroupKind::TrajectoryDirections
            );
            if !trajectory_group {
                raw[g.offset..g.offset + g.len].copy_from_slice(&own[g.offset..g.offset + g.len]);
            }
        }
        check_finite(QUERY_NOT_FINITE, raw)?;
        out.copy_from_slice(raw);
        Ok(())
    }

    fn check_out(&self, out: &[f32]) -> Result<()> {
        if out.len() != self.layout.padded() {
            return Err(Error::Length {
                what: "query features (FeatureLayout::padded)",
                expected: self.layout.padded(),
                got: out.len(),
            });
        }
        Ok(())
    }
}

/// Refuses a non-finite value of `v`, naming its index as `what`.
pub(crate) fn check_finite(what: &'static str, v: &[f32]) -> Result<()> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(d) => Err(Error::Index {
            what,
            index: d,
            len: v.len(),
        }),
    }
}

/// What a non-finite query feature is called.
pub(crate) const QUERY_NOT_FINITE: &str =
    "query feature that is not finite (from a NaN or infinite input)";
