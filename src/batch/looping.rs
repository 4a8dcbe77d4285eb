//! Looping whole clips: differences, offsets and their application for
//! every joint, eight joints per lane vector, with the root optionally
//! looped in character space (looping article).

use crate::batch::{MAX_TIME, check_in};

/// A half-life, blend time, duration or hardness of a loop: in `(0, MAX_TIME]`.
fn positive(name: &'static str, v: f32) -> Result<()> {
    if v > 0.0 {
        check_in(name, v, 0.0, MAX_TIME, "must be > 0 and at most 1e6")
    } else {
        Err(Error::Parameter {
            name,
            value: v,
            reason: "must be > 0 and at most 1e6",
        })
    }
}
use crate::clip::Clip;
use crate::error::{Error, Result};
use crate::lanes::{self, Quatx8, Vec3x8};
use crate::reference::{Quat, Slice2d, Vec3};

/// How the offsets are spread over the clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopMethod {
    /// Critically damped springs decaying from each end.
    Spring {
        /// Half-life at the start, seconds.
        halflife_start: f32,
        /// Half-life at the end, seconds.
        halflife_end: f32,
    },
    /// Cubic inertializers that reach zero exactly after their blend time.
    Cubic {
        /// Blend time at the start, seconds.
        blendtime_start: f32,
        /// Blend time at the end, seconds.
        blendtime_end: f32,
    },
    /// The positional difference spread linearly over the clip, velocity
    /// differences removed with cubic offsets at each end.
    Linear {
        /// Blend time of the start velocity offset.
        blendtime_start: f32,
        /// Blend time of the end velocity offset.
        blendtime_end: f32,
    },
    /// Softfades at each end plus cubic velocity offsets.
    Softfade {
        /// Blend times of the velocity offsets (start, end).
        blendtime: (f32, f32),
        /// Fade durations (start, end).
        duration: (f32, f32),
        /// Fade hardnesses (start, end).
        hardness: (f32, f32),
    },
    /// The whole correction at the start: a critically damped spring
    /// decaying from the first frame, which moves onto the last frame and
    /// takes its velocity ([`lanes::compute_inertialize_start_offsets`]).
    /// `ratio` is not used (the start takes all of it).
    SpringStart {
        /// Half-life, seconds.
        halflife: f32,
    },
    /// The whole correction at the end, decaying backward in time from the
    /// last frame ([`lanes::compute_inertialize_end_offsets`]). `ratio` is
    /// not used (the end takes all of it).
    SpringEnd {
        /// Half-life, seconds.
        halflife: f32,
    },
    /// The positional difference faded linearly over the clip, `ratio` of it
    /// at the start, with no velocity correction
    /// ([`lanes::compute_linear_offsets`]): the looping article's naive fade,
    /// which leaves a velocity seam that [`LoopMethod::Linear`] removes.
    /// With `root_in_character_space` the root is left as it is (this
    /// method corrects no velocity).
    LinearFade,
}

/// Options of [`make_loop`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopOptions {
    /// The method for every joint (and the root, unless `root_in_character_space`).
    pub method: LoopMethod,
    /// Share of the correction applied at the start, in `[0, 1]`.
    pub ratio: f32,
    /// Loop joint 0 only in character space (its velocities meet; its world
    /// position and facing keep advancing), with cubic velocity offsets of
    /// the method's start and end blend times (or half-lives).
    pub root_in_character_space: bool,
}

impl LoopMethod {
    fn check(&self) -> Result<()> {
        match *self {
            LoopMethod::Spring {
                halflife_start,
                halflife_end,
            } => {
                positive("halflife_start", halflife_start)?;
                positive("halflife_end", halflife_end)
            }
            LoopMethod::Cubic {
                blendtime_start,
                blendtime_end,
            }
            | LoopMethod::Linear {
                blendtime_start,
                blendtime_end,
            } => {
                positive("blendtime_start", blendtime_start)?;
                positive("blendtime_end", blendtime_end)
            }
            LoopMethod::Softfade {
                blendtime,
                duration,
                hardness,
            } => {
                for (n, v) in [
                    ("blendtime", blendtime.0),
                    ("blendtime", blendtime.1),
                    ("duration", duration.0),
                    ("duration", duration.1),
                    ("hardness", hardness.0),
                    ("hardness", hardness.1),
                ] {
                    positive(n, v)?;
                }
                Ok(())
            }
            LoopMethod::SpringStart { halflife } | LoopMethod::SpringEnd { halflife } => {
                positive("halflife", halflife)
            }
            LoopMethod::LinearFade => Ok(()),
        }
    }

    /// Start and end times, and the start's share of the correction, of
    /// the root's velocity offsets.
    fn root_ends(&self, ratio: f32) -> (f32, f32, f32) {
        match *self {
            LoopMethod::Spring {
                halflife_start,
                halflife_end,
            } => (halflife_start, halflife_end, ratio),
            LoopMethod::Cubic {
                blendtime_start,
                blendtime_end,
            }
            | LoopMethod::Linear {
                blendtime_start,
                blendtime_end,
            } => (blendtime_start, blendtime_end, ratio),
            LoopMethod::Softfade { blendtime, .. } => (blendtime.0, blendtime.1, ratio),
            LoopMethod::SpringStart { halflife } => (halflife, halflife, 1.0),
            LoopMethod::SpringEnd { halflife } => (halflife, halflife, 0.0),
            // Zero blend times give zero velocity offsets: the root unchanged.
            LoopMethod::LinearFade => (0.0, 0.0, ratio),
        }
    }
}

/// Offsets (frames × packs) for differences `d`, `dv` with one method.
fn offsets(
    m: &LoopMethod,
    d: &[Vec3x8],
    dv: &[Vec3x8],
    frames: usize,
    ratio: f32,
    dt: f32,
) -> Result<Vec<Vec3x8>> {
    let mut off = vec![Vec3x8::ZERO; frames * d.len()];
    match *m {
        LoopMethod::Spring {
            halflife_start,
            halflife_end,
        } => lanes::compute_inertialize_both_offsets(
            &mut off,
            d,
            dv,
            halflife_start,
            halflife_end,
            ratio,
            dt,
        ),
        LoopMethod::Cubic {
            blendtime_start,
            blendtime_end,
        } => lanes::compute_inertialize_both_offsets_cubic(
            &mut off,
            d,
            dv,
            blendtime_start,
            blendtime_end,
            ratio,
            dt,
        ),
        LoopMethod::Linear {
            blendtime_start,
            blendtime_end,
        } => lanes::compute_linear_inertialize_offsets(
            &mut off,
            d,
            dv,
            blendtime_start,
            blendtime_end,
            ratio,
            dt,
        ),
        LoopMethod::Softfade {
            blendtime,
            duration,
            hardness,
        } => lanes::compute_softfade_inertialize_offsets(
            &mut off,
            d,
            dv,
            blendtime.0,
            blendtime.1,
            duration.0,
            duration.1,
            hardness.0,
            hardness.1,
            ratio,
            dt,
        ),
        LoopMethod::SpringStart { halflife } => {
            lanes::compute_inertialize_start_offsets(&mut off, d, dv, halflife, dt)
        }
        LoopMethod::SpringEnd { halflife } => {
            lanes::compute_inertialize_end_offsets(&mut off, d, dv, halflife, dt)
        }
        LoopMethod::LinearFade => lanes::compute_linear_offsets(&mut off, d, ratio),
    }?;
    Ok(off)
}

/// A looped copy of `clip`: its first and last frames meet and their
/// velocities match (except with [`LoopMethod::LinearFade`], which corrects
/// positions only), every joint's position and rotation corrected by
/// offsets spread as `options.method` says (scales are kept). Refuses
/// clips of fewer than 3 frames and bad parameters, with nothing built:
/// a ratio outside `[0, 1]`, and half-lives, blend times, durations and
/// hardnesses that are not in `(0, 1e6]` ([`MAX_TIME`]; far larger ones
/// overflow the offsets). The clip's frame time is at least
/// [`crate::clip::MIN_FRAME_TIME`] by construction.
///
/// A joint sliding 0, 1, 2, 3, 4 along x: looped, its last frame meets its
/// first (each end moved by half of the gap of 4, `ratio` 0.5).
///
/// ```
/// use kineform::batch::looping::{LoopMethod, LoopOptions, make_loop};
/// use kineform::reference::{Quat, Vec3};
/// use kineform::Clip;
/// let pos: Vec<Vec3> = (0..5).map(|f| Vec3::new(f as f32, 0.0, 0.0)).collect();
/// let clip = Clip::new(5, 1, 0.1, pos, vec![Quat::IDENTITY; 5], vec![Vec3::ONE; 5])?;
/// let options = LoopOptions {
///     method: LoopMethod::Linear { blendtime_start: 0.2, blendtime_end: 0.2 },
///     ratio: 0.5,
///     root_in_character_space: false,
/// };
/// let looped = make_loop(&clip, &options)?;
/// let (first, last) = (looped.pos(0, 0), looped.pos(4, 0)); // None out of range
/// let (first, last) = (first.unwrap().x, last.unwrap().x);
/// assert!((first - last).abs() < 1e-5, "{first} {last}");
/// # Ok::<(), kineform::Error>(())
/// ```
pub fn make_loop(clip: &Clip, options: &LoopOptions) -> Result<Clip> {
    let (frames, joints, dt) = (clip.frames(), clip.joints(), clip.frame_time());
    if frames < 3 {
        return Err(Error::Length {
            what: "clip frames (a loop needs at least 3)",
            expected: 3,
            got: frames,
        });
    }
    if !(0.0..=1.0).contains(&options.ratio) {
        return Err(Error::Parameter {
            name: "ratio",
            value: options.ratio,
            reason: "must be in [0, 1]",
        });
    }
    options.method.check()?;
    let packs = joints.div_ceil(8);
    let (pos8, rot8) = in_lanes(clip);
    // `in_lanes` gives `frames × packs` of each: whole rows, the only
    // shape `Slice2d::new` refuses otherwise.
    let (ps, rs) = (
        Slice2d::new(&pos8, packs).expect("shape"),
        Slice2d::new(&rot8, packs).expect("shape"),
    );
    let [dp, dpv, dr, drv] = start_end_differences(options, ps, rs, dt)?;
    let mut off_p = offsets(&options.method, &dp, &dpv, frames, options.ratio, dt)?;
    let mut off_r = offsets(&options.method, &dr, &drv, frames, options.ratio, dt)?;
    if options.root_in_character_space {
        root_in_character_space(clip, options, (&mut off_p, &mut off_r))?;
    }

    let mut out_p = vec![Vec3x8::ZERO; frames * packs];
    let mut out_r = vec![Quatx8::IDENTITY; frames * packs];
    lanes::apply_positional_offsets(&mut out_p, ps, &off_p)?;
    lanes::apply_rotational_offsets(&mut out_r, rs, &off_r)?;
    let unpack_p: Vec<Vec3> = (0..frames)
        .flat_map(|f| (0..joints).map(move |j| (f, j)))
        .map(|(f, j)| out_p[f * packs + j / 8].lane(j % 8))
        .collect();
    let unpack_r: Vec<Quat> = (0..frames)
        .flat_map(|f| (0..joints).map(move |j| (f, j)))
        .map(|(f, j)| out_r[f * packs + j / 8].lane(j % 8))
        .collect();
    Clip::new(
        frames,
        joints,
        dt,
        unpack_p,
        unpack_r,
        clip.scales().to_vec(),
    )
}

/// The clip's joints in lanes: frame-major, one `Vec3x8`/`Quatx8` per pack
/// of 8 joints (the last pack padded with zero positions and identity
/// rotations).
fn in_lanes(clip: &Clip) -> (Vec<Vec3x8>, Vec<Quatx8>) {
    let (frames, joints) = (clip.frames(), clip.joints());
    let packs = joints.div_ceil(8);
    let pos8: Vec<Vec3x8> = (0..frames * packs)
        .map(|k| {
            let (f, p) = (k / packs, k % packs);
            Vec3x8::from_array(core::array::from_fn(|i| {
                if p * 8 + i < joints {
                    clip.pos_at(f, p * 8 + i)
                } else {
                    Vec3::ZERO
                }
            }))
        })
        .collect();
    let rot8: Vec<Quatx8> = (0..frames * packs)
        .map(|k| {
            let (f, p) = (k / packs, k % packs);
            Quatx8::from_array(core::array::from_fn(|i| {
                if p * 8 + i < joints {
                    clip.rot_at(f, p * 8 + i)
                } else {
                    Quat::IDENTITY
                }
            }))
        })
        .collect();
    (pos8, rot8)
}

/// The differences between the clip's start and end that the loop spreads
/// over it, per pack of joints: positions and their velocities, rotations
/// (scaled angle axes) and their angular velocities, from the soft-fade
/// windows or the end frames as the method says.
fn start_end_differences(
    options: &LoopOptions,
    ps: Slice2d<'_, Vec3x8>,
    rs: Slice2d<'_, Quatx8>,
    dt: f32,
) -> Result<[Vec<Vec3x8>; 4]> {
    let packs = ps.cols();
    let [mut dp, mut dpv, mut dr, mut drv] = core::array::from_fn(|_| vec![Vec3x8::ZERO; packs]);
    match options.method {
        LoopMethod::Softfade {
            duration, hardness, ..
        } => {
            lanes::compute_softfade_start_end_difference(
                &mut dp,
                &mut dpv,
                ps,
                duration.0,
                duration.1,
                hardness.0,
                hardness.1,
                options.ratio,
                dt,
            )?;
            lanes::compute_softfade_start_end_difference_quat(
                &mut dr,
                &mut drv,
                rs,
                duration.0,
                duration.1,
                hardness.0,
                hardness.1,
                options.ratio,
                dt,
            )?;
        }
        _ => {
            lanes::compute_start_end_positional_difference(&mut dp, &mut dpv, ps, dt)?;
            lanes::compute_start_end_rotational_difference(&mut dr, &mut drv, rs, dt)?;
        }
    }
    Ok([dp, dpv, dr, drv])
}

/// Joint 0 (lane 0 of pack 0) looped in character space: only its
/// character-space velocity is inertialized, its generic offsets replaced
/// by [`crate::reference::compute_root_inertialize_offsets`]'.
fn root_in_character_space(
    clip: &Clip,
    options: &LoopOptions,
    (off_p, off_r): (&mut [Vec3x8], &mut [Vec3x8]),
) -> Result<()> {
    let (frames, packs, dt) = (clip.frames(), clip.joints().div_ceil(8), clip.frame_time());
    let root_p: Vec<Vec3> = (0..frames).map(|f| clip.pos_at(f, 0)).collect();
    let root_r: Vec<Quat> = (0..frames).map(|f| clip.rot_at(f, 0)).collect();
    let (mut rp, mut rr) = (vec![Vec3::ZERO; frames], vec![Vec3::ZERO; frames]);
    let (bs, be, ratio) = options.method.root_ends(options.ratio);
    // One column of `frames` rows: every length is whole rows.
    crate::reference::compute_root_inertialize_offsets(
        &mut rp,
        &mut rr,
        Slice2d::new(&root_p, 1).expect("shape"),
        Slice2d::new(&root_r, 1).expect("shape"),
        bs,
        be,
        ratio,
        dt,
    )?;
    for f in 0..frames {
        for (o, v) in [
            (&mut off_p[f * packs], rp[f]),
            (&mut off_r[f * packs], rr[f]),
        ] {
            let mut a = o.to_array();
            a[0] = v;
            *o = Vec3x8::from_array(a);
        }
    }
    Ok(())
}
