//! Motion matching: a database of per-frame features built from a clip
//! library, and an exact search for the frame that best matches a query,
//! with the transition-cost article's inertialization features as an
//! alternative to the usual bone positions and velocities.
//!
//! ```
//! use kineform::crowd::ClipLibrary;
//! use kineform::matching::{self, MatchConfig, MatchDatabase, MirrorMap, QueryBatch};
//!
//! let mut library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
//! let mirror = MirrorMap::cmu(library.skeleton())?;
//! matching::add_mirrored(&mut library, &mirror)?;
//! let db = MatchDatabase::build(&library, &MatchConfig::default())?;
//! assert_eq!(db.layout().dims(), 27);
//!
//! // Query with frame 50's own features: frame 50 is the best match.
//! let mut queries = QueryBatch::new(&db);
//! let mut q = db.features(50).unwrap();
//! q.resize(db.layout().padded(), 0.0);
//! queries.push(&q, None)?;
//! let mut found = vec![matching::Match { frame: 0, distance: 0.0 }; 1];
//! matching::search::accelerated(&db, &queries, &mut found)?;
//! assert_eq!((found[0].frame, found[0].distance), (50, 0.0));
//! # Ok::<(), kineform::Error>(())
//! ```
//!
//! ## The database
//!
//! [`MatchDatabase::build`] takes every clip of a
//! [`ClipLibrary`](crate::crowd::ClipLibrary) (clips of other CMU namings
//! join it through [`ClipLibrary::add_cmu`](crate::crowd::ClipLibrary::add_cmu);
//! [`add_mirrored`] adds each clip's left-right mirror image,
//! [`MirrorMap`]), takes every [`MatchConfig::frame_step`]-th clip frame
//! (the CMU clips' 120 Hz at the demo's 60 Hz by default) and computes,
//! in the [`CharacterFrame`] under the hips, the published demo's
//! features:
//!
//! | group | features | weight (demo) |
//! | --- | --- | --- |
//! | left, right foot position | 3 + 3, character space | 0.75 |
//! | left, right foot velocity | 3 + 3, world velocity turned into the character frame | 1.0 |
//! | hip velocity | 3 | 1.0 |
//! | trajectory positions | `(x, z)` of the character frame 1/3, 2/3, 1 s ahead | 1.0 |
//! | trajectory directions | `(x, z)` of its facing then | 1.5 |
//!
//! or, with [`FootFeatures::Spring`] or [`FootFeatures::Cubic`], the
//! article's feature in place of each foot's position and velocity groups
//! (`2 pos / y + vel / y²`, `z pos / 2 + z² vel / 12`, computed by
//! [`crate::batch::cost`]): 21 features, one weight fewer. Velocities are
//! central differences of world positions (one-sided at a range's ends).
//! Each group is normalized as the demo's `normalize_feature` does: each
//! feature's mean subtracted, divided by the group's mean standard
//! deviation over its weight, statistics over the searched frames. A
//! query goes through the same function ([`MatchDatabase::query`]), so a
//! frame's own pose and future give its own features bit for bit.
//!
//! ## Cuts and frames left out
//!
//! A step between two clip frames in which the joints' world positions
//! move faster on average than [`MatchConfig::cut_speed`] (200 units/s by
//! default, about 11 m/s in CMU units) is a cut: the motion on either side
//! is a different range, velocities and trajectories do not cross it. This is how the MotionBuilder-friendly CMU files'
//! synthetic T-pose at frame 0 is found: it is a range of one frame, and
//! a range's last [`MatchConfig::end_margin`] (1/3 s) is never searched
//! (the demo's `ignore_range_end`), since its trajectory runs past its end
//! (and is clamped to its last frame, as the demo clamps). Searches skip
//! those frames; their features are still there for a character that
//! plays them ([`MatchDatabase::query_from_frame`]).
//!
//! ## The search
//!
//! [`reference::search`] defines the result: the lowest distance, ties
//! broken by the lowest frame, the distance summed in one documented
//! order; [`search::brute_force`] and [`search::accelerated`] (bounding
//! boxes over blocks of frames, branch and bound) compute the same
//! arithmetic in eight lanes and return the same frame and distance bits,
//! many queries per call on rayon.
//!
//! ## What a matching driver needs
//!
//! A crowd driver builds each character's query from the crowd's world
//! output ([`WorldPose`]: hips position, rotation and velocity, feet
//! positions and velocities, read from `Crowd::positions_into`,
//! `velocities_into`, `rotations_into`) and a desired trajectory of three
//! [`TrajectoryPoint`]s at [`MatchConfig::trajectory_times`], or from the
//! frame it plays ([`QueryBatch::push_frame`]); searches the batch; and
//! plays [`MatchDatabase::source`]'s clip and time of the result.

mod build;
pub mod config;
pub mod database;
pub mod features;
pub mod frame;
mod index;
mod kernels;
pub mod mirror;
pub mod reference;
pub mod search;

pub use build::FrameInputs;
pub use config::{FeatureJoints, FootFeatures, MatchConfig};
pub use database::{ClipSpan, DatabaseParts, FrameSource, MatchDatabase, Memory};
pub use features::{FeatureLayout, Group, GroupKind, TrajectoryPoint, WorldPose};
pub use frame::CharacterFrame;
pub use index::{BRANCH, LEAF, TOP_BOXES};
pub use mirror::{MirrorAxis, MirrorMap, add_mirrored};
pub use search::{Match, QueryBatch, SearchStats};
