//! Every validated entry point of kineform (`batch::*`, the stream and clip
//! constructors, `Skeleton`, `Database`, `make_loop`) called with chosen
//! parameters on bounded, finite inputs. The promise checked (issue 13):
//! a call either refuses with a typed error and leaves its outputs
//! byte-identical, or succeeds with every output finite. Used by the
//! `batch_api` fuzz target and by the table-driven test of
//! `tests/suite/edge_cases.rs`.

use kineform::batch::{self, crowd, looping, tracking};
use kineform::reference::{self as r, Kform, Quat, Vec3};
use kineform::stream::{CrowdPose, F32Stream, KformStream, QuatStream, Vec3Stream};
use kineform::{Clip, Error, Skeleton};

/// Parameter values worth trying in every slot: zeros, subnormals, tiny,
/// typical, huge, the largest f32, negatives and the non-finite ones.
pub const SPECIALS: [f32; 20] = [
    0.0,
    -0.0,
    1e-45,
    1e-38,
    1e-30,
    1e-7,
    1e-6,
    1.0 / 60.0,
    0.2,
    0.5,
    1.0,
    1e6,
    1.1e6,
    1e20,
    3e38,
    f32::MAX,
    -1.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// Number of entry points [`call`] knows.
pub const FUNCTIONS: usize = 33;

/// Names of the entry points, by index.
pub const NAMES: [&str; FUNCTIONS] = [
    "batch::damper_exact",
    "batch::damper_decay_exact",
    "batch::decay_spring_damper_exact",
    "batch::decay_spring_damper_exact_vec3",
    "batch::decay_spring_damper_exact_quat",
    "batch::quat_exp",
    "batch::quat_log",
    "batch::op_inertialize_offset",
    "batch::op_inertialize",
    "batch::cost::transition_features_spring",
    "batch::cost::transition_features_cubic",
    "batch::cost::decay_spring_damper_displacement",
    "batch::cost::decay_cubic_displacement",
    "batch::tracking::tracking_spring_update",
    "batch::tracking::tracking_spring_update_improved",
    "batch::tracking::tracking_spring_update_exact",
    "batch::crowd::op_fk",
    "batch::crowd::op_fk_static",
    "batch::crowd::op_bk",
    "batch::crowd::op_finite_diff",
    "batch::crowd::op_inertialize_offset",
    "batch::crowd::op_inertialize",
    "batch::crowd::op_sample_linear",
    "batch::crowd::op_sample_cubic",
    "batch::crowd::op_blend",
    "batch::crowd::op_extrapolate_decayed",
    "batch::crowd::op_dead_blending",
    "batch::looping::make_loop (spring)",
    "batch::looping::make_loop (cubic)",
    "batch::looping::make_loop (linear)",
    "batch::looping::make_loop (softfade)",
    "Clip::new + Database::new",
    "Skeleton::new + CrowdPose/Stream constructors",
];

/// One call: which entry point, its scalar parameters (each function reads
/// the slots it needs, in order), the number of elements or characters,
/// a shape parameter, and a seed for the inputs.
#[derive(Clone, Copy, Debug)]
pub struct Call {
    /// Index into [`NAMES`].
    pub func: usize,
    /// Scalar parameters.
    pub p: [f32; 8],
    /// Elements (`n % 41`), characters (`n % 17`) or frames (small).
    pub n: usize,
    /// Joints or a size mismatch selector.
    pub shape: usize,
    /// Seed of the inputs.
    pub seed: u64,
}

/// Deterministic inputs: bounded, finite values.
struct Gen(u64);

impl Gen {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    fn quat(&mut self) -> Quat {
        r::quat_from_scaled_angle_axis(self.vec3(3.0))
    }
    fn kform(&mut self) -> Kform {
        Kform {
            pos: self.vec3(100.0),
            rot: self.quat(),
            scl: Vec3::new(
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
            ),
            vel: self.vec3(100.0),
            ang: self.vec3(20.0),
            svl: self.vec3(1.0),
        }
    }
    fn f32s(&mut self, n: usize, r: f32) -> Vec<f32> {
        (0..n).map(|_| self.range(-r, r)).collect()
    }
}

fn bits(s: &[f32]) -> Vec<u32> {
    s.iter().map(|x| x.to_bits()).collect()
}

/// The promise for one call: `Err` leaves every output as it was (`before`
/// and `after` are the outputs' bits), `Ok` leaves every output finite.
fn judge(
    what: &str,
    call: &Call,
    res: kineform::Result<()>,
    before: &[Vec<u32>],
    after: &[&[f32]],
) {
    match res {
        Err(e) => {
            for (k, (b, a)) in before.iter().zip(after).enumerate() {
                assert!(
                    *b == bits(a),
                    "{what} {call:?}: refused ({e}) but wrote output {k}"
                );
            }
        }
        Ok(()) => {
            for (k, a) in after.iter().enumerate() {
                if let Some(i) = a.iter().position(|x| !x.is_finite()) {
                    panic!("{what} {call:?}: accepted, but output {k}[{i}] = {}", a[i]);
                }
            }
        }
    }
}

fn kstream(g: &mut Gen, n: usize) -> KformStream {
    let k: Vec<Kform> = (0..n).map(|_| g.kform()).collect();
    KformStream::from_elems(&k).unwrap()
}

fn crowd_pose(g: &mut Gen, c: usize, j: usize) -> CrowdPose {
    let mut p = CrowdPose::new(c, j).unwrap();
    for ci in 0..c {
        for ji in 0..j {
            p.set(ci, ji, g.kform());
        }
    }
    p
}

/// A small clip of `frames` × `joints` with bounded motion.
fn small_clip(
    g: &mut Gen,
    frames: usize,
    joints: usize,
    frame_time: f32,
) -> kineform::Result<Clip> {
    let n = frames * joints;
    let mut pos = Vec::with_capacity(n);
    let mut rot = Vec::with_capacity(n);
    let base: Vec<(Vec3, Vec3)> = (0..joints).map(|_| (g.vec3(50.0), g.vec3(2.0))).collect();
    for f in 0..frames {
        for (p, w) in &base {
            let t = f as f32 * 0.05;
            pos.push(*p + Vec3::new(t.sin(), t.cos(), t) * 3.0);
            rot.push(r::quat_from_scaled_angle_axis(
                *w + Vec3::new(t.sin(), 0.0, t.cos()) * 0.3,
            ));
        }
    }
    Clip::new(frames, joints, frame_time, pos, rot, vec![Vec3::ONE; n])
}

/// A parent-first skeleton of `j` joints from the seed.
fn skeleton(g: &mut Gen, j: usize) -> Skeleton {
    let parents: Vec<i32> = (0..j)
        .map(|i| {
            if i == 0 {
                -1
            } else {
                (g.unit() * i as f32) as i32
            }
        })
        .collect();
    Skeleton::new(parents).unwrap()
}

/// Runs `call`: panics if the entry point panics, or if it breaks the
/// promise (a refusal that wrote, or an accepted call with a non-finite
/// output). Returns whether the call was accepted.
pub fn call(c: &Call) -> bool {
    let mut g = Gen(c.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let p = c.p;
    let n = c.n % 41;
    // shape 0 gives matching sizes; others a mismatch in one input.
    let m = if c.shape % 7 == 6 { n + 1 } else { n };
    let what = NAMES[c.func % FUNCTIONS];
    macro_rules! run {
        ($res:expr, [$($out:expr),*]) => {{
            let before = vec![$(bits($out.as_f32s())),*];
            let res = $res;
            let ok = res.is_ok();
            judge(what, c, res, &before, &[$($out.as_f32s()),*]);
            ok
        }};
    }
    match c.func % FUNCTIONS {
        0 => {
            let mut x = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let goal = F32Stream::from_elems(&g.f32s(m, 100.0)).unwrap();
            let before = vec![bits(x.as_f32s())];
            let res = batch::damper_exact(&mut x, &goal, p[0], p[1]);
            let ok = res.is_ok();
            judge(what, c, res, &before, &[x.as_f32s()]);
            ok
        }
        1 => {
            let mut x = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let before = vec![bits(x.as_f32s())];
            let res = batch::damper_decay_exact(&mut x, p[0], p[1]);
            let ok = res.is_ok();
            judge(what, c, res, &before, &[x.as_f32s()]);
            ok
        }
        2 => {
            let mut x = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let mut v = F32Stream::from_elems(&g.f32s(m, 100.0)).unwrap();
            let before = vec![bits(x.as_f32s()), bits(v.as_f32s())];
            let res = batch::decay_spring_damper_exact(&mut x, &mut v, p[0], p[1]);
            let ok = res.is_ok();
            judge(what, c, res, &before, &[x.as_f32s(), v.as_f32s()]);
            ok
        }
        3 => {
            let x: Vec<Vec3> = (0..n).map(|_| g.vec3(100.0)).collect();
            let v: Vec<Vec3> = (0..m).map(|_| g.vec3(100.0)).collect();
            let (mut x, mut v) = (
                Vec3Stream::from_elems(&x).unwrap(),
                Vec3Stream::from_elems(&v).unwrap(),
            );
            let before = vec![bits(x.as_f32s()), bits(v.as_f32s())];
            let res = batch::decay_spring_damper_exact_vec3(&mut x, &mut v, p[0], p[1]);
            let ok = res.is_ok();
            judge(what, c, res, &before, &[x.as_f32s(), v.as_f32s()]);
            ok
        }
        4 => {
            let x: Vec<Quat> = (0..n).map(|_| g.quat()).collect();
            let v: Vec<Vec3> = (0..m).map(|_| g.vec3(20.0)).collect();
            let (mut x, mut v) = (
                QuatStream::from_elems(&x).unwrap(),
                Vec3Stream::from_elems(&v).unwrap(),
            );
            let before = vec![bits(x.as_f32s()), bits(v.as_f32s())];
            let res = batch::decay_spring_damper_exact_quat(&mut x, &mut v, p[0], p[1]);
            let ok = res.is_ok();
            judge(what, c, res, &before, &[x.as_f32s(), v.as_f32s()]);
            ok
        }
        5 => {
            let v: Vec<Vec3> = (0..m).map(|_| g.vec3(20.0)).collect();
            let mut out = QuatStream::new(n).unwrap();
            let v = Vec3Stream::from_elems(&v).unwrap();
            run!(batch::quat_exp(&mut out, &v), [out])
        }
        6 => {
            let q: Vec<Quat> = (0..m).map(|_| g.quat()).collect();
            let mut out = Vec3Stream::new(n).unwrap();
            let q = QuatStream::from_elems(&q).unwrap();
            run!(batch::quat_log(&mut out, &q), [out])
        }
        7 => {
            let (a, b) = (kstream(&mut g, m), kstream(&mut g, n));
            let mut out = KformStream::new(n).unwrap();
            run!(batch::op_inertialize_offset(&mut out, &a, &b), [out])
        }
        8 => {
            let (a, b) = (kstream(&mut g, n), kstream(&mut g, m));
            let mut off = KformStream::new(n).unwrap();
            batch::op_inertialize_offset(&mut off, &a, &kstream(&mut g, n)).unwrap();
            let mut out = KformStream::new(n).unwrap();
            run!(batch::op_inertialize(&mut out, &off, &b, p[0], p[1]), [out])
        }
        9..=10 => {
            let pos: Vec<Vec3> = (0..n).map(|_| g.vec3(100.0)).collect();
            let vel: Vec<Vec3> = (0..m).map(|_| g.vec3(100.0)).collect();
            let (pos, vel) = (
                Vec3Stream::from_elems(&pos).unwrap(),
                Vec3Stream::from_elems(&vel).unwrap(),
            );
            let mut out = Vec3Stream::new(n).unwrap();
            if c.func % FUNCTIONS == 9 {
                run!(
                    batch::cost::transition_features_spring(&mut out, &pos, &vel, p[0]),
                    [out]
                )
            } else {
                run!(
                    batch::cost::transition_features_cubic(&mut out, &pos, &vel, p[0]),
                    [out]
                )
            }
        }
        11..=12 => {
            let x = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let v = F32Stream::from_elems(&g.f32s(m, 100.0)).unwrap();
            let mut out = F32Stream::new(n).unwrap();
            if c.func % FUNCTIONS == 11 {
                run!(
                    batch::cost::decay_spring_damper_displacement(&mut out, &x, &v, p[0]),
                    [out]
                )
            } else {
                run!(
                    batch::cost::decay_cubic_displacement(&mut out, &x, &v, p[0]),
                    [out]
                )
            }
        }
        13..=15 => {
            let mut x = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let mut v = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let tx = F32Stream::from_elems(&g.f32s(m, 100.0)).unwrap();
            let tv = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let ta = F32Stream::from_elems(&g.f32s(n, 100.0)).unwrap();
            let t = tracking::Targets {
                x: &tx,
                v: &tv,
                a: &ta,
            };
            let gains = tracking::Gains {
                x: p[0],
                v: p[1],
                a: p[2],
            };
            match c.func % FUNCTIONS {
                13 => run!(
                    tracking::tracking_spring_update(&mut x, &mut v, &t, gains, p[3]),
                    [x, v]
                ),
                14 => run!(
                    tracking::tracking_spring_update_improved(
                        &mut x,
                        &mut v,
                        &t,
                        [p[0], p[1], p[2]],
                        p[3]
                    ),
                    [x, v]
                ),
                _ => run!(
                    tracking::tracking_spring_update_exact(&mut x, &mut v, &t, gains, p[3], p[4]),
                    [x, v]
                ),
            }
        }
        16..=26 => {
            let j = 1 + c.shape % 6;
            let chars = n % 17;
            let other = if c.shape % 7 == 6 { chars + 1 } else { chars };
            let skel = skeleton(&mut g, j);
            let a = crowd_pose(&mut g, chars, j);
            let b = crowd_pose(&mut g, other, j);
            let mut out = crowd_pose(&mut g, chars, j);
            let times: Vec<f32> = (0..chars).map(|i| p[i % 2]).collect();
            match c.func % FUNCTIONS {
                16 => run!(crowd::op_fk(&mut out, &b, &skel), [out]),
                17 => run!(crowd::op_fk_static(&mut out, &b, &skel), [out]),
                18 => run!(crowd::op_bk(&mut out, &b, &skel), [out]),
                19 => run!(crowd::op_finite_diff(&mut out, &a, &b, p[0]), [out]),
                20 => run!(crowd::op_inertialize_offset(&mut out, &a, &b), [out]),
                21 => {
                    let mut off = CrowdPose::new(chars, j).unwrap();
                    crowd::op_inertialize_offset(&mut off, &a, &crowd_pose(&mut g, chars, j))
                        .unwrap();
                    run!(
                        crowd::op_inertialize(&mut out, &off, &b, &times, p[2]),
                        [out]
                    )
                }
                22 | 23 => {
                    let frames = 2 + c.shape % 5;
                    let ft = if p[3] > 0.0 && p[3].is_finite() {
                        p[3]
                    } else {
                        1.0 / 120.0
                    };
                    let Ok(clip) = small_clip(&mut g, frames, j, ft) else {
                        return false;
                    };
                    let times: Vec<f32> = (0..other).map(|i| p[i % 2]).collect();
                    if c.func % FUNCTIONS == 22 {
                        run!(crowd::op_sample_linear(&mut out, &clip, &times), [out])
                    } else {
                        run!(crowd::op_sample_cubic(&mut out, &clip, &times), [out])
                    }
                }
                24 => {
                    let alpha: Vec<f32> = (0..chars).map(|_| p[0]).collect();
                    let av: Vec<f32> = (0..chars).map(|_| p[1]).collect();
                    run!(crowd::op_blend(&mut out, &a, &b, &alpha, &av, p[2]), [out])
                }
                25 => run!(
                    crowd::op_extrapolate_decayed(&mut out, &b, &times, p[2]),
                    [out]
                ),
                _ => {
                    let mut ex = crowd_pose(&mut g, chars, j);
                    let mut path = vec![kineform::lanes::Quatx8::IDENTITY; ex.lanes().len()];
                    run!(
                        crowd::op_dead_blending(
                            &mut out, &mut ex, &mut path, &a, &b, p[2], &times, p[3], p[4]
                        ),
                        [out, ex]
                    )
                }
            }
        }
        27..=30 => {
            let frames = 1 + n % 12;
            let joints = 1 + c.shape % 10;
            let ft = if p[7] > 0.0 && p[7].is_finite() {
                p[7]
            } else {
                1.0 / 120.0
            };
            let Ok(clip) = small_clip(&mut g, frames, joints, ft) else {
                return false;
            };
            let method = match c.func % FUNCTIONS {
                27 => looping::LoopMethod::Spring {
                    halflife_start: p[0],
                    halflife_end: p[1],
                },
                28 => looping::LoopMethod::Cubic {
                    blendtime_start: p[0],
                    blendtime_end: p[1],
                },
                29 => looping::LoopMethod::Linear {
                    blendtime_start: p[0],
                    blendtime_end: p[1],
                },
                _ => looping::LoopMethod::Softfade {
                    blendtime: (p[0], p[1]),
                    duration: (p[2], p[3]),
                    hardness: (p[4], p[5]),
                },
            };
            let options = looping::LoopOptions {
                method,
                ratio: p[6],
                root_in_character_space: c.shape % 2 == 1,
            };
            match looping::make_loop(&clip, &options) {
                Ok(l) => {
                    let bad = l
                        .positions()
                        .iter()
                        .flat_map(|v| v.to_array())
                        .chain(l.rotations().iter().flat_map(|q| q.to_array()))
                        .find(|x| !x.is_finite());
                    assert!(bad.is_none(), "{what} {c:?}: accepted, but gave {bad:?}");
                    true
                }
                Err(e) => {
                    typed(&e);
                    false
                }
            }
        }
        31 => {
            // A clip from arbitrary parameters: frame time p[0], one value
            // replaced by p[1] (position), p[2] (rotation w) or p[3] (scale).
            let frames = 1 + n % 6;
            let joints = 1 + c.shape % 5;
            let k = frames * joints;
            let mut pos: Vec<Vec3> = (0..k).map(|_| g.vec3(100.0)).collect();
            let mut rot: Vec<Quat> = (0..k).map(|_| g.quat()).collect();
            let mut scl = vec![Vec3::ONE; k];
            let i = (g.unit() * k as f32) as usize % k;
            match c.seed % 4 {
                0 => pos[i].y = p[1],
                1 => rot[i].w = p[2],
                2 => scl[i].z = p[3],
                _ => {}
            }
            let lens = if c.shape % 7 == 6 { k + 1 } else { k };
            pos.resize(lens, Vec3::ZERO);
            match Clip::new(frames, joints, p[0], pos, rot, scl) {
                Ok(clip) => {
                    assert!((clip.last_time()).is_finite(), "{c:?}");
                    let db = kineform::database::Database::new(&[clip.clone(), clip]);
                    if let Err(e) = db {
                        typed(&e);
                    }
                    true
                }
                Err(e) => {
                    typed(&e);
                    false
                }
            }
        }
        _ => {
            // Skeleton and constructors on sizes from the parameters.
            // Small sizes are built; large ones must be refused (they are
            // far beyond memory), so the check stays fast.
            let size = |x: f32| {
                if x.is_finite() && (0.0..256.0).contains(&x) {
                    x as usize
                } else if x.is_finite() && x >= 0.0 {
                    (x as usize).max(1 << 50)
                } else {
                    usize::MAX
                }
            };
            let parents: Vec<i32> = (0..n)
                .map(|i| (g.unit() * (i as f32 + 2.0)) as i32 - 1 - (c.shape % 3 == 2) as i32)
                .collect();
            let _ = Skeleton::new(parents).map_err(|e| typed(&e));
            let (a, b) = (size(p[0]), size(p[1]));
            let ok = CrowdPose::new(a, b).map_err(|e| typed(&e)).is_ok();
            let _ = F32Stream::new(a.saturating_mul(b)).map_err(|e| typed(&e));
            let _ = KformStream::new(a).map_err(|e| typed(&e));
            ok
        }
    }
}

/// Every refusal must be one of kineform's typed errors with a message.
fn typed(e: &Error) {
    assert!(!e.to_string().is_empty());
}

/// A [`Call`] from fuzzer bytes: the function, then each parameter either
/// one of [`SPECIALS`] or a raw f32 bit pattern, then sizes and seed.
pub fn decode(data: &[u8]) -> Call {
    let mut b = data.iter().copied();
    let mut byte = || b.next().unwrap_or(0);
    let func = byte() as usize % FUNCTIONS;
    let mut p = [0.2f32; 8];
    for v in &mut p {
        let sel = byte();
        *v = if sel < 128 {
            SPECIALS[sel as usize % SPECIALS.len()]
        } else if sel < 192 {
            // Typical: in [0, 2].
            2.0 * byte() as f32 / 255.0
        } else {
            f32::from_bits(u32::from_le_bytes([byte(), byte(), byte(), byte()]))
        };
    }
    let n = byte() as usize;
    let shape = byte() as usize;
    let seed = u64::from(byte()) | u64::from(byte()) << 8;
    Call {
        func,
        p,
        n,
        shape,
        seed,
    }
}

/// The fuzz target's check: decode and call.
pub fn check_api(data: &[u8]) {
    call(&decode(data));
}
