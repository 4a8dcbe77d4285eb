//! # kineform
//!
//! SIMD batch kernels for character animation: springs and dampers,
//! inertialization, dead blending, tracking springs, looping offsets,
//! transition costs and forward kinematics that carries velocities, on
//! structure-of-arrays joint streams in 8-lane f32 SIMD, checked against a
//! plain scalar reference path.
//!
//! The math is that of five articles by Daniel Holden (inertialization
//! transition cost, dead blending, perfect tracking springs, looping
//! animations from motion capture, propagating velocities through
//! animation systems).
//!
//! ## Quick start
//!
//! A game loop drives a [`crowd`]: it tells characters what to play and when
//! to transition, steps the crowd with its own frame time, and copies the
//! world poses it needs into its own memory (no allocation per frame).
//! `examples/game_loop.rs` runs a thousand characters under a small state
//! machine this way.
//!
//! ```
//! use kineform::crowd::{ClipLibrary, Crowd, CrowdConfig, Root, Source};
//! use kineform::reference::Vec3;
//!
//! let library = ClipLibrary::from_bvh(&kineform::data::default_clip())?;
//! // The live velocity check is off by default, as a game runs; on here.
//! let cfg = CrowdConfig { characters: 1000, velocity_check: true, ..CrowdConfig::default() };
//! let mut crowd = Crowd::new(&library, cfg)?;
//! crowd.set_root(7, Root::standing(Vec3::new(5.0, 0.0, -2.0), 1.57))?;
//! let walk = Source::looping(0, 1.0); // clip 0 from 1 s: sources A and B
//! crowd.transition(7, walk, walk, 0.3, 0.1)?; // hidden over 0.3 s
//! assert!(crowd.play(7, Source::looping(9, 0.0), walk).is_err()); // no clip 9
//!
//! let joints = crowd.skeleton().len(); // joint 0 is each character's root
//! let mut positions = vec![[0.0f32; 3]; 1000 * joints];
//! for dt in [1.0 / 60.0, 1.0 / 55.0, 1.0 / 62.0] { // the game's frame times
//!     let stats = crowd.step(dt)?;
//!     assert!(stats.velocity.passed(), "no joint jumped");
//!     crowd.positions_into(0..1000, &mut positions)?;
//! }
//! assert!((positions[7 * joints][0] - 5.0).abs() < 1e-3);
//! # Ok::<(), kineform::Error>(())
//! ```
//!
//! With the `glam` feature (or `glam029`/`glam030` for the glam of Bevy
//! 0.15-0.17, [`interop`]) the same calls fill `&mut [glam::Vec3]` and
//! `&mut [glam::Quat]` ([`crowd::Crowd::rotations_into`]); the frame's
//! events go into the game's buffer with [`crowd::Crowd::events_into`];
//! [`crowd::Crowd::world_packed`] hands the whole crowd to [`output`] and
//! [`skinning`].
//!
//! `step` runs on the current rayon pool. An engine with a job system of
//! its own runs the same step as tasks on its threads instead:
//! [`crowd::Crowd::prepare`], then the runs of [`crowd::PreparedStep::shown`]
//! and [`crowd::PreparedStep::packs`] from any threads, then
//! [`crowd::PreparedStep::finish`], bit-identical to `step` however the
//! runs are split (`examples/own_threads.rs`).
//!
//! ## The kernels without the runtime
//!
//! The [`batch`] entry points run one stage over a whole crowd pose, for a
//! game with its own runtime: pose a hundred characters on a clip, carry
//! them to world space and read one character's joints:
//!
//! ```
//! use kineform::reference::Vec3;
//! use kineform::stream::CrowdPose;
//! use kineform::{batch, data, output};
//!
//! // The CMU clip embedded in the crate: 31 joints, 277 frames at 120 fps.
//! let clip = data::default_clip();
//! let (skeleton, clip) = (clip.skeleton, clip.clip);
//! let joints = skeleton.len();
//!
//! // 100 characters, character c at 0.02 c seconds into the clip.
//! let times: Vec<f32> = (0..100).map(|c| 0.02 * c as f32).collect();
//! let mut local = CrowdPose::new(100, joints)?;
//! let mut world = CrowdPose::new(100, joints)?;
//! batch::crowd::op_sample_linear(&mut local, &clip, &times)?;
//! batch::crowd::op_fk(&mut world, &local, &skeleton)?;
//!
//! // World positions, one per character and joint: [c * joints + j].
//! let mut positions = vec![Vec3::ZERO; 100 * joints];
//! output::positions(world.packed(), &mut positions)?;
//! let head = skeleton.find("Head").unwrap();
//! let p = positions[3 * joints + head];
//! assert!(p.y > 20.0, "character 3's head is {p:?}, above its hips");
//! // Velocities come with FK: the clip's root walks at a few units/s.
//! let v = world.get(3, 0).unwrap().vel;
//! assert!(v.x.abs() + v.z.abs() > 1.0 && v.x.abs() + v.z.abs() < 100.0);
//! # Ok::<(), kineform::Error>(())
//! ```
//!
//! With the `glam` feature the same copy fills `&mut [glam::Vec3]`,
//! `&mut [glam::Quat]` or `&mut [glam::Mat4]` ([`interop`]), and
//! [`skinning`] writes skinning matrices for a GPU upload.
//!
//! ## Which module do I use
//!
//! | you want to | use |
//! | --- | --- |
//! | read the math, or run one kernel on a few values | [`reference`](mod@reference): plain scalar f32 code mirroring the articles, same names and argument order |
//! | write your own 8-lane loop | [`lanes`]: the same functions over [`lanes::F32x8`], [`lanes::Vec3x8`], [`lanes::Quatx8`], [`lanes::Kformx8`], branch-free |
//! | store many values or characters | [`stream`]: `Stream<L>` (N elements) and `CrowdPose` (C characters × J joints), owned as lane vectors; [`pose_stream`]: `PoseStream<T>`, crowds of only the fields a caller uses (`PosRotx8`, `PosRotSclx8`, `Motionx8`, `Kformx8`) |
//! | run a kernel over a whole stream or crowd pose, validated, on all cores | [`batch`] (and `batch::{cost, tracking, looping}` for the catalogue's database-wide entry points) |
//! | a crowd of characters playing clips every frame | [`crowd`] |
//! | load or write motion | [`bvh`], `gltf` (feature `gltf`), [`convert`]; [`clip`], [`skeleton`], [`data`] (the embedded CMU clip) |
//! | play clips of other joint namings together (the CMU files' three) | [`joint_map`], [`crowd::ClipLibrary::add_cmu`] |
//! | get results into an engine | [`output`] (copies into your slices, any `From` type), [`skinning`] (matrices for a GPU), [`interop`] (features `glam`, `mint`) |
//! | know which SIMD path runs | [`simd`]: [`simd_backend`], [`simd_level`], [`simd_support`] |
//! | control the memory pages of large buffers (Linux huge pages) | [`pages`]: on by default for the crate's own; [`pages::huge_vec`] for yours |
//!
//! Data flows one way: `reference` → `lanes` → `stream`/`batch` → `crowd`
//! → the `kineform` program; `output`, `skinning`, `interop`, `bvh`,
//! `gltf` and `convert` sit at the edges.
//!
//! ## Articles, and where their entry points are
//!
//! | article | reference | batch |
//! | --- | --- | --- |
//! | springs (the building block) | [`reference::damper_exact`], [`reference::decay_spring_damper_exact`] | [`batch::damper_exact`] |
//! | inertialization, transition cost | [`reference::decayed_offset_cubic`], [`reference::decay_spring_damper_displacement`] | [`batch::op_inertialize`], [`batch::cost`] |
//! | dead blending | [`reference::extrapolate_decay_position`], [`reference::op_dead_blending`] | [`batch::crowd::op_dead_blending`] |
//! | perfect tracking springs | [`reference::tracking_target_acceleration`], [`reference::tracking_spring_update_exact`] | [`batch::tracking`] |
//! | looping animations | [`reference::compute_inertialize_both_offsets_cubic`] | [`batch::looping::make_loop`] |
//! | propagating velocities | [`reference::kform_mul`], [`reference::op_fk`], [`reference::op_fk_joints`] | [`batch::crowd::op_fk`], [`batch::fk::op_fk`] |
//!
//! ## The fast build
//!
//! Build with `-C target-cpu=x86-64-v3` (or any target with AVX and FMA) for
//! the 256-bit path; [`simd_backend`] says which one was compiled in,
//! [`simd_level`] the build's x86-64 level (`x86-64-v4` compiles the same
//! 8 lanes with AVX-512's 32 registers), and [`simd_support`] whether the
//! running CPU could run a faster one (the README's "Using kineform in your
//! project" has the `.cargo/config.toml` lines and when v4 is worth it).
//!
//! ## Hostile input, NaN and infinity
//!
//! No file, number or size makes kineform panic, abort, hang or pass off
//! NaN as a result: a public function either refuses with a typed
//! [`Error`] that names what is wrong, writing nothing, or gives finite
//! output ([`batch`] says, per function, which parameters saturate and
//! which are refused outside a range). The [`lanes`] and
//! [`reference`](mod@reference) kernels refuse shapes that do not fit (a
//! pose shorter than another, a joint or chain past a pose, a hierarchy
//! whose parent does not precede its child, a clip view without a frame,
//! offsets that are not whole frames) with the same [`Error`] on both
//! paths, writing nothing (`tests/suite/shape_refusals.rs`), and take any
//! f32 without panicking (the index accessors, such as [`Clip::pos`] and
//! [`reference::Slice2d::get`], answer `None` past the data); a
//! NaN or an infinity in an input propagates only within the element or
//! lane it poisons: every other lane's result is bit for bit what it is
//! with clean inputs (`tests/suite/backends.rs`), and a batch call's other
//! elements likewise.
//!
//! ## SIMD backends
//!
//! `wide` chooses its instructions at compile time, so results differ in
//! the last bits between builds for different CPUs: between an x86-64
//! baseline build (SSE2) and x86-64-v3 (AVX2 + FMA), 29% of the lane
//! kernels' output floats differ, by at most 1.1e-5 on outputs of a few
//! units (measured by `tests/suite/backends.rs`). Both builds stay within the
//! lanes-vs-reference tolerances of `tests/suite/equivalence.rs` (README, "SIMD
//! backends").

#![deny(missing_docs)]

pub mod batch;
pub mod bvh;
pub mod clip;
pub mod convert;
pub mod crowd;
pub mod data;
pub mod database;
pub mod error;
pub mod files;
#[cfg(feature = "gltf")]
pub mod gltf;
pub mod interop;
pub mod joint_map;
pub mod lanes;
pub mod limits;
pub mod markers;
pub mod matching;
pub mod output;
pub mod pages;
pub mod pose_stream;
mod prefetch;
pub mod reference;
mod rows;
pub mod simd;
pub mod skeleton;
pub mod skinning;
pub mod stream;

#[cfg(feature = "glam029")]
pub use glam029;
/// The newest glam that a feature turns on (see [`interop`]).
#[cfg(all(
    feature = "glam029",
    not(any(feature = "glam030", feature = "glam033"))
))]
pub use glam029 as glam;
#[cfg(feature = "glam030")]
pub use glam030;
/// The newest glam that a feature turns on (see [`interop`]).
#[cfg(all(feature = "glam030", not(feature = "glam033")))]
pub use glam030 as glam;
#[cfg(feature = "glam033")]
pub use glam033;
/// The newest glam that a feature turns on (`glam033`, `glam030` or
/// `glam029`, in that order): the version of the types that
/// [`interop`]'s impls convert, for a program that names them without a
/// glam dependency of its own.
#[cfg(feature = "glam033")]
pub use glam033 as glam;

pub use clip::Clip;
pub use error::{Error, Result};
pub use simd::{SimdSupport, note_simd_support, simd_backend, simd_level, simd_support};
pub use skeleton::Skeleton;
