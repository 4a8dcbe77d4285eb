//! Motion capture that ships inside the crate.
//!
//! The data used in this project was obtained from mocap.cs.cmu.edu.
//! The database was created with funding from NSF EIA-0196217.
//! BVH conversion by Bruce Hahne (cgspeed.com).

use crate::bvh::{self, Bvh};

/// CMU trial 102_01 ("basketball: right wide turn"), the 3dsMax-friendly
/// cgspeed conversion: 31 joints, 277 frames at 120 fps, mixed ZYX/ZXY
/// Euler orders, CRLF header. 203 KB.
pub const CMU_102_01: &str = include_str!("../data/mocap/cmu_102_01_max.bvh");

/// The embedded default clip, parsed.
pub fn default_clip() -> Bvh {
    bvh::parse(CMU_102_01).expect("the embedded CMU clip parses (tested)")
}
