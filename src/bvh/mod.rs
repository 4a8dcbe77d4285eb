//! BVH motion capture in and out.
//!
//! A small parser of our own rather than a crate: the crates on crates.io
//! for BVH (`bvh_anim` 0.4 being the most complete) give Euler channels but
//! no quaternions or clip layout, pull in their own math types, and were not
//! checked against these files' quirks; what we need is about 300 lines and
//! has to produce our [`Skeleton`] and [`Clip`] directly.
//!
//! Quirks handled (all five CMU files in `data/mocap` load): CRLF and LF
//! mixed in one file, lines without indentation, `Frame Time: .0083333`,
//! a different Euler order on different joints, zero-length bones, End Sites.
//! Euler channels apply in the listed order as intrinsic rotations
//! (`Zrotation Yrotation Xrotation` is `Rz Ry Rx`), in degrees. A joint's
//! local position is its OFFSET plus its position channels, if any.
//!
//! Malformed input gives [`Error::Bvh`] with the line number and the
//! reason, never a panic.

use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::reference::{Quat, Vec3};
use crate::skeleton::Skeleton;

mod parse;
mod write;

pub use parse::{load, parse};
pub use write::{MAX_INDENT, quat_to_euler, quat_to_matrix, write};

/// One motion channel of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Translation along x.
    Xposition,
    /// Translation along y.
    Yposition,
    /// Translation along z.
    Zposition,
    /// Rotation about x, degrees.
    Xrotation,
    /// Rotation about y, degrees.
    Yrotation,
    /// Rotation about z, degrees.
    Zrotation,
}

impl Channel {
    fn parse(s: &str) -> Option<Channel> {
        Some(match s.to_ascii_lowercase().as_str() {
            "xposition" => Channel::Xposition,
            "yposition" => Channel::Yposition,
            "zposition" => Channel::Zposition,
            "xrotation" => Channel::Xrotation,
            "yrotation" => Channel::Yrotation,
            "zrotation" => Channel::Zrotation,
            _ => return None,
        })
    }

    /// The name used in files.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Xposition => "Xposition",
            Channel::Yposition => "Yposition",
            Channel::Zposition => "Zposition",
            Channel::Xrotation => "Xrotation",
            Channel::Yrotation => "Yrotation",
            Channel::Zrotation => "Zrotation",
        }
    }

    /// Axis index (0 = x, 1 = y, 2 = z).
    pub fn axis(self) -> usize {
        match self {
            Channel::Xposition | Channel::Xrotation => 0,
            Channel::Yposition | Channel::Yrotation => 1,
            Channel::Zposition | Channel::Zrotation => 2,
        }
    }

    /// True for a rotation channel.
    pub fn is_rotation(self) -> bool {
        matches!(
            self,
            Channel::Xrotation | Channel::Yrotation | Channel::Zrotation
        )
    }
}

/// A parsed BVH file: the hierarchy with its offsets and channels, and the
/// motion as a [`Clip`] (unit scales).
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    /// Joint hierarchy and names (End Sites are not joints).
    pub skeleton: Skeleton,
    /// OFFSET of each joint.
    pub offsets: Vec<Vec3>,
    /// CHANNELS of each joint, in file order.
    pub channels: Vec<Vec<Channel>>,
    /// The End Site OFFSET under each joint, if it has one.
    pub end_sites: Vec<Option<Vec3>>,
    /// The motion.
    pub clip: Clip,
}

pub use crate::limits::{MAX_BVH_BYTES, MAX_SAMPLES};

/// Longest excerpt of the input quoted in an error message, in characters.
pub const EXCERPT_CHARS: usize = 40;
