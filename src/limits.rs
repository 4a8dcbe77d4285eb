//! Every limit kineform holds its inputs to, in one place: the readers
//! (BVH, glTF), the writers, [`crate::Clip`], the crowd's library and
//! commands, and the files read from disk. Each is re-exported where it
//! was first defined (`skeleton::MAX_JOINTS`, `bvh::MAX_SAMPLES`,
//! `clip::MIN_FRAME_TIME`, `crowd::command::COMMAND_MAX`,
//! `crowd::MAX_STEP`), so the old paths keep working.
//!
//! The limits are one domain: whatever one part accepts, the next can
//! take. A clip any reader accepts can be played (its length is a time a
//! command may set), written (BVH and `.glb` out), and read back (the
//! written file is within the reader's byte cap, or the writer refuses it
//! with nothing written); a root the crowd reaches by integrating its
//! velocity is one a command may set ([`MAX_POSITION`]: the step refuses
//! to leave it, and [`crate::crowd::Crowd::recenter`] moves a game's world
//! origin).
//!
//! | what | limit | why |
//! | --- | --- | --- |
//! | joints of a skeleton | [`MAX_JOINTS`] = 65,535 | indices fit in 16 bits; a crowd adds one root joint, so its clips have at most 65,534 |
//! | samples (frames × joints) of a clip a reader builds, summed over a file's clips | [`MAX_SAMPLES`] = 2^23 | 335 MB as a [`crate::Clip`]; written back, its `.bvh` (at most [`BVH_BYTES_PER_SAMPLE`] per sample) fits [`MAX_BVH_BYTES`] and its `.glb` (at most [`GLB_BYTES_PER_SAMPLE`]) fits [`MAX_GLB_BYTES`] |
//! | bytes of a `.bvh` file read | [`MAX_BVH_BYTES`] = 1 GiB | read whole before parsing; the writer refuses a text past it |
//! | bytes of a `.glb` / `.gltf` file read or written | [`MAX_GLB_BYTES`] = 1 GiB | likewise |
//! | bytes of a glTF document's buffers (BIN chunk, `.bin` files, data URIs), summed | [`MAX_BUFFER_BYTES`] = 1 GiB | what a `.glb` of [`MAX_GLB_BYTES`] can hold |
//! | key values a glTF document decodes (f32 components; each accessor once) | [`MAX_KEY_VALUES`] = 11 × [`MAX_SAMPLES`] + 16 × [`MAX_JOINTS`] | a document kineform writes at [`MAX_SAMPLES`] holds at most 11 per joint-frame (a time, translation, rotation, scale) and 16 per joint (inverse bind matrices): 370 MB decoded at most |
//! | a glTF animation's key rate when resampled at its own keys | at least [`MIN_KEY_RATE`] = 1 frame per second | keys further apart are sampled once a second |
//! | frame time | [`MIN_FRAME_TIME`] = 1e-6 s to [`MAX_TIME`] | velocities divide by it |
//! | clip length `(frames - 1) × frame_time` | [`MAX_TIME`] = 1e6 s | a command can set any time of a clip |
//! | clip positions, bone offsets, root positions | each coordinate within ±[`MAX_POSITION`] = 1e6 | with [`MAX_REACH`], forward kinematics of every frame and its velocities stay finite |
//! | clip scales | each coordinate in [[`MIN_SCALE`], [`MAX_SCALE`]] = [1e-6, 1e6] | sampling interpolates their logarithm |
//! | a joint's reach from its character's root | [`MAX_REACH`] = 1e9 along its chain, scales multiplied in ([`reach`]) | bounds every frame's world pose before it is computed |
//! | times, rates, velocities, durations, half-lives of commands | [`COMMAND_MAX`] = 1e6 | past it f32 arithmetic over a step loses the motion |
//! | a crowd's step | (0, [`MAX_STEP`] = 1000 s] | the lanes' sine and exponential stay accurate |
//!
//! Within these, a clip's steps between frames (at most 2 × 1e6 per
//! coordinate), its velocities (steps over at least 1e-6 s) and the forward
//! kinematics of each of its frames are finite; a crowd counts any world
//! output that is not finite all the same, with or without its velocity
//! check ([`crate::crowd::VelocityCheck::non_finite`]).
//!
//! glTF's reader holds a document to [`MAX_SAMPLES`] summed over every
//! animation, to [`MAX_KEY_VALUES`] decoded key values (each accessor
//! counted once, however many channels share it), to [`MAX_GLB_BYTES`] for
//! the file and [`MAX_BUFFER_BYTES`] for its buffers, summed; its writers
//! refuse clips past [`MAX_SAMPLES`], so whatever kineform writes it reads.

/// Most joints a [`crate::Skeleton`] may have (indices fit in 16 bits).
pub const MAX_JOINTS: usize = 65_535;

/// Most samples (frames × joints) a reader turns into clips, summed over
/// every clip of one file: 2^23, about 8.4 million, 335 MB as
/// [`crate::Clip`]s (40 bytes a sample). Checked against the file's header before any motion
/// is read, and storage grows only as frames are read, so a header cannot
/// make a reader allocate what the file does not contain.
pub const MAX_SAMPLES: usize = 1 << 23;

/// Most key values (f32 components: a time is one, a rotation four) that a
/// glTF document's animations and skin may decode, each accessor counted
/// once: a document kineform writes at [`MAX_SAMPLES`] holds at most 11 per
/// joint-frame (a time per frame, translation, rotation and scale) and 16
/// per joint (inverse bind matrices).
pub const MAX_KEY_VALUES: usize = 11 * MAX_SAMPLES + 16 * MAX_JOINTS;

/// Most bytes of buffers a glTF document may hold, summed (its BIN chunk,
/// `.bin` files beside a `.gltf`, data URIs decoded): [`MAX_GLB_BYTES`].
pub const MAX_BUFFER_BYTES: usize = MAX_GLB_BYTES as usize;

/// The lowest rate (frames per second) at which glTF animations are
/// resampled at their own keys (`gltf::Rate::Keys`): keys further apart
/// than a second are sampled once a second.
pub const MIN_KEY_RATE: f64 = 1.0;

/// Largest `.bvh` file kineform reads (1 GiB): a file past it is refused
/// before it is read, naming it. [`crate::bvh::write()`] refuses a text
/// past it, so what kineform writes it can read.
pub const MAX_BVH_BYTES: u64 = 1 << 30;

/// Most bytes [`crate::bvh::write()`] spends per sample of a clip written
/// by [`crate::convert::bvh_for_clip`]: six channels, each at most 15
/// characters (numbers of 1e-4 and more as decimals of at most 9
/// significant digits, smaller ones in exponent form) and a separator.
/// [`MAX_SAMPLES`] of them (805 MB) and a hierarchy of [`MAX_JOINTS`]
/// joints fit [`MAX_BVH_BYTES`].
pub const BVH_BYTES_PER_SAMPLE: u64 = 96;

/// Largest `.glb` or `.gltf` file (and buffer file) kineform reads, and
/// largest `.glb` it writes (1 GiB).
pub const MAX_GLB_BYTES: u64 = 1 << 30;

/// Most bytes a `.glb` written by kineform spends per sample in its binary
/// chunk: translation (12), rotation (16), scale (12) and a key time per
/// frame (4). [`MAX_SAMPLES`] of them (369 MB) fit [`MAX_GLB_BYTES`] with
/// room for the JSON.
pub const GLB_BYTES_PER_SAMPLE: u64 = 44;

/// The shortest frame time a clip may have, in seconds (a million frames
/// per second): sampled velocities divide by the frame time, and a smaller
/// one turns ordinary position steps into infinities.
pub const MIN_FRAME_TIME: f32 = 1e-6;

/// Longest a clip may last, `(frames - 1) × frame_time`, and longest frame
/// time, in seconds: the times a command may set ([`COMMAND_MAX`]), so
/// every frame of every clip can be played.
pub const MAX_TIME: f32 = COMMAND_MAX;

/// Largest coordinate of a clip's position, a bone offset, and a crowd
/// character's root position: 1e6 units (10 km in centimetres). A crowd
/// step that would move a root past it is refused (re-centre the world
/// with [`crate::crowd::Crowd::recenter`]).
pub const MAX_POSITION: f32 = 1e6;

/// Smallest coordinate of a clip's scale.
pub const MIN_SCALE: f32 = 1e-6;

/// Largest coordinate of a clip's scale.
pub const MAX_SCALE: f32 = 1e6;

/// Farthest a joint may reach from its character's root in any frame:
/// the sum, along its chain, of each joint's largest position length times
/// the product of its ancestors' largest scales ([`reach`]). With
/// positions within [`MAX_POSITION`] it refuses only chains thousands of
/// joints long or scaled far up; it keeps world positions, and the
/// velocities forward kinematics carries to them, finite.
pub const MAX_REACH: f64 = 1e9;

/// Largest time, rate, position or velocity a crowd command may carry:
/// past it f32 arithmetic over a step loses the motion (a time of 1e7 s
/// moves in steps of a whole second).
pub const COMMAND_MAX: f32 = 1e6;

/// A crowd's step must be finite, positive, and at most this (seconds):
/// beyond it the lanes' sine and exponential lose accuracy and a frame is
/// no longer a frame.
pub const MAX_STEP: f32 = 1e3;

/// Where a chain first reaches past [`MAX_REACH`] (or scales past
/// [`MAX_SCALE`]): the joint, and the reach or scale it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overreach {
    /// The first joint (in parent-first order) past the limit.
    pub joint: usize,
    /// Its reach in units, or its scale product where `scale` is true.
    pub value: f64,
    /// Whether the product of scales, not the reach, is past its limit.
    pub scale: bool,
}

/// The bound forward kinematics is held to: for each joint of `parents`
/// (parent-first), `reach[j] = reach[parent] + scale[parent] × length[j]`
/// and `scale[j] = scale[parent] × most_scale[j]`, from each joint's
/// largest position length and largest scale coordinate over every frame.
/// No frame's world position is farther than `reach[j]` from the
/// character's root (rotations keep lengths; a scale stretches by at most
/// its largest coordinate). `None` when every joint is within
/// [`MAX_REACH`] and [`MAX_SCALE`], else the first that is not.
pub fn reach(parents: &[i32], length: &[f64], most_scale: &[f64]) -> Option<Overreach> {
    let mut reach = vec![0.0f64; parents.len()];
    let mut scale = vec![1.0f64; parents.len()];
    for (j, &p) in parents.iter().enumerate() {
        let (r0, s0) = match usize::try_from(p) {
            Ok(p) if p < j => (reach[p], scale[p]),
            _ => (0.0, 1.0),
        };
        reach[j] = r0 + s0 * length.get(j).copied().unwrap_or(0.0);
        scale[j] = s0 * most_scale.get(j).copied().unwrap_or(1.0);
        if reach[j].is_nan() || reach[j] > MAX_REACH {
            return Some(Overreach {
                joint: j,
                value: reach[j],
                scale: false,
            });
        }
        if scale[j].is_nan() || scale[j] > MAX_SCALE as f64 {
            return Some(Overreach {
                joint: j,
                value: scale[j],
                scale: true,
            });
        }
    }
    None
}

/// Most markers a clip may hold ([`crate::Clip::add_marker`]): a crowd
/// keeps room for each pack's sixteen sources to cross every marker of the
/// clip with the most in one step (16 x this x 32 bytes per pack at most).
pub const MAX_MARKERS: usize = 1024;

/// Longest marker name, bytes.
pub const MAX_MARKER_NAME: usize = 256;
