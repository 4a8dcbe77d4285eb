//! What every pack's frame reads that is not the pack's own state
//! ([`Shared`]): the clips, the skeleton, the frame's commands and shown
//! poses, the step and the crowd's settings.

use super::ahead::Ahead;
use super::layers::LayerPass;
use crate::crowd::command::Command;
use crate::crowd::halflives::Fit;
use crate::crowd::layer::Layout;
use crate::crowd::markers::MarkerTable;
use crate::crowd::motion::{Motionx8, Track};
use crate::crowd::state::ClipRows;
use crate::database::Database;

/// Everything a pack's frame (and a batch of shown poses) reads that is
/// not the pack's own state ([`crate::crowd::store::Pack`]).
#[derive(Clone, Copy)]
pub(crate) struct Shared<'a> {
    pub db: &'a Database,
    pub parents: &'a [i32],
    pub tracks: &'a [Track],
    /// Each crowd joint's radius in its character's bounds (0 for joint
    /// 0), `None` where the crowd pads none.
    pub radii: Option<&'a [f32]>,
    pub rows: &'a [ClipRows],
    /// The frame's commands, sorted by character (each pack's are its
    /// [`crate::crowd::store::PackPlan::commands`]).
    pub commands: &'a [(u32, Command)],
    /// The poses the frame's transitioning characters would have shown
    /// (empty while they are computed).
    pub shown: &'a [Motionx8],
    /// Pack 0's world output (a head and a tail) and kept state (turn
    /// offsets or transition poses) as regions to prefetch, in parts of one
    /// per clip joint; a pack prefetches the next pack's while it runs.
    pub world_ahead: [Ahead; 2],
    pub kept_ahead: Ahead,
    /// Whether the crowd's store is larger than half the L3
    /// (`Crowd::fetch_ahead`): rows last touched frames ago then come
    /// from memory, so level of detail's whole resumptions write their
    /// new offsets past the caches and nothing fetches them first
    /// ([`super::lod::lod_world`]).
    pub fetch: bool,
    pub packs: usize,
    pub characters: usize,
    /// The crowd's first step (no previous output to check against).
    pub first: bool,
    pub frame: u64,
    pub dt: f32,
    pub check: bool,
    pub extract: bool,
    /// Whether the crowd has level of detail
    /// ([`crate::crowd::CrowdConfig::level_of_detail`]).
    pub lod: bool,
    /// The crowd's up axis ([`crate::crowd::CrowdConfig::up`]).
    pub up: crate::reference::Vec3,
    /// Whether a layer's mask covers the clips' root joint (its wraps then
    /// move the root at once).
    pub root_layered: bool,
    /// Dead blending's half-lives fitted per joint and axis, with the
    /// fit's parameters; `None` for one half-life per transition.
    pub fit: Option<Fit>,
    /// Every clip's markers, and the weight a source must exceed for its
    /// markers to be reported.
    pub markers: &'a MarkerTable,
    pub marker_weight: f32,
    /// The crowd's layers, as the passes walk them (empty without).
    pub layers: &'a [LayerPass],
    /// The crowd's layers and blend profiles resolved per joint.
    pub layout: &'a Layout,
}
