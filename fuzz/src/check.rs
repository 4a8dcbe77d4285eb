//! The checks behind the fuzz targets, also run by `tests/suite/fuzz_smoke.rs`
//! on pseudo-random bytes so that CI exercises the same decoder.
#![allow(clippy::needless_range_loop)] // lanes and reference side by side

#[path = "api.rs"]
pub mod api;
#[path = "clips.rs"]
pub mod clips;
#[path = "crowd/mod.rs"]
pub mod crowd;
#[cfg(feature = "gltf")]
#[path = "gltf_build.rs"]
pub mod gltf_build;
#[cfg(feature = "gltf")]
#[path = "gltf_doc/mod.rs"]
pub mod gltf_doc;

use kineform::lanes::{self, F32x8, Kformx8, Quatx8, Vec3x8};
use kineform::reference::{self as r, Kform, Quat, Vec3};

/// Reads inputs from the fuzzer's bytes; past the end everything is zero.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    /// Any f32 bit pattern: NaN, infinities, subnormals included.
    fn raw(&mut self) -> f32 {
        f32::from_bits(u32::from_le_bytes([
            self.u8(),
            self.u8(),
            self.u8(),
            self.u8(),
        ]))
    }
    /// A value in [lo, hi] (16 bits of resolution), with 0 and both ends
    /// reachable exactly.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let b = u16::from_le_bytes([self.u8(), self.u8()]);
        match b {
            0 => 0.0f32.clamp(lo, hi),
            1 => lo,
            2 => hi,
            _ => lo + (hi - lo) * (b as f32 / 65535.0),
        }
    }
    fn vec3(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    fn quat(&mut self) -> Quat {
        let q = r::quat_from_scaled_angle_axis(self.vec3(6.0));
        if self.u8() & 1 == 1 { -q } else { q }
    }
    fn kform(&mut self, r: f32) -> Kform {
        Kform {
            pos: self.vec3(r),
            rot: self.quat(),
            scl: Vec3::new(
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
            ),
            vel: self.vec3(r),
            ang: self.vec3(3.0),
            svl: self.vec3(1.0),
        }
    }
}

fn parts(k: Kform) -> [f32; 19] {
    [
        k.pos.x, k.pos.y, k.pos.z, k.rot.w, k.rot.x, k.rot.y, k.rot.z, k.scl.x, k.scl.y, k.scl.z,
        k.vel.x, k.vel.y, k.vel.z, k.ang.x, k.ang.y, k.ang.z, k.svl.x, k.svl.y, k.svl.z,
    ]
}

/// `|a - b| <= abs + rel * max(scale, |b|)` per component, the scale taken
/// from the reference `b` alone (so a huge or infinite lane result cannot
/// widen its own tolerance); where either side is not finite, both must be
/// the same infinity or both NaN.
fn close(what: &str, got: &[f32], want: &[f32], scale: f32, abs: f32, rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let ok = if a.is_finite() && b.is_finite() {
            (a - b).abs() <= abs + rel * scale.max(b.abs())
        } else {
            a == b || (a.is_nan() && b.is_nan())
        };
        assert!(
            ok,
            "{what}[{i}]: lanes {a:e} vs reference {b:e}\n lanes {got:?}\n ref   {want:?}"
        );
    }
}

const ARITH: (f32, f32) = (0.0, 2e-6);
const SPRING: (f32, f32) = (1e-6, 4e-6);
const TRANSC: (f32, f32) = (4e-6, 4e-6);

/// Runs every lane kernel on raw bit patterns (must not panic) and on
/// bounded inputs (must agree with the reference).
pub fn check(data: &[u8]) {
    let mut b = Bytes(data);
    let kernel = b.u8() % 8;

    // Panic-freedom on any bit pattern, through both paths.
    let raw: [f32; 8] = core::array::from_fn(|_| b.raw());
    let f = F32x8::new(raw);
    let v = Vec3x8::new(
        f,
        F32x8::new(raw.map(|x| x * 0.5)),
        F32x8::new(raw.map(|x| -x)),
    );
    let q = Quatx8::new(f, v.x, v.y, v.z);
    let _ = (
        lanes::quat_exp(v),
        lanes::quat_log(q),
        lanes::quat_exp_short(v),
        lanes::quat_log_short(q),
        lanes::quat_exp_small_scaled(v, f, f),
        lanes::quat_slerp_shortest(q, Quatx8::IDENTITY, f),
        lanes::quat_between(v, Vec3x8::ONE),
    );
    let _ = (
        lanes::spring_damper_exact_stiffness_damping(f, f, f, f, f.abs(), f.abs(), f),
        lanes::decayed_offset_cubic(v, v, f, f),
    );
    let _ = lanes::kform_mul(
        Kformx8 {
            pos: v,
            rot: q,
            scl: v,
            vel: v,
            ang: v,
            svl: v,
        },
        Kformx8::IDENTITY,
    );
    // The frame and weight of any time, bit for bit, for an arbitrary and
    // a typical frame time.
    for dt in [raw[0], 1.0 / 120.0] {
        let (st, alpha) = lanes::sample_frame(f, dt);
        let (st, alpha) = (st.to_array(), alpha.to_array());
        for (i, &t) in raw.iter().enumerate() {
            let (rst, ra) = r::sample_frame(t, dt);
            assert!(
                st[i] as i64 == rst && alpha[i].to_bits() == ra.to_bits(),
                "sample_frame({t:e}, {dt:e}): lanes ({}, {:e}) vs reference ({rst}, {ra:e})",
                st[i],
                alpha[i]
            );
        }
    }
    for x in raw {
        let (v, q) = (Vec3::new(x, x * 0.5, -x), Quat::new(x, x, x * 0.5, -x));
        let _ = (
            r::quat_exp(v),
            r::quat_log(q),
            r::quat_slerp_shortest(q, Quat::IDENTITY, x),
            r::quat_between(v, Vec3::ONE),
        );
        let _ = r::spring_damper_exact_stiffness_damping(x, x, x, x, x.abs(), x.abs(), x);
    }

    // Equivalence on bounded inputs, each lane its own.
    match kernel {
        0 => {
            let v: [Vec3; 8] = core::array::from_fn(|_| b.vec3(6.0));
            let q: [Quat; 8] = core::array::from_fn(|_| b.quat());
            let e = lanes::quat_exp(Vec3x8::from_array(v)).to_array();
            let l = lanes::quat_log(Quatx8::from_array(q)).to_array();
            // The short variants on their domain: |v| <= π/2, w >= 0.
            let vs: [Vec3; 8] = core::array::from_fn(|_| b.vec3(0.9));
            let qa = q.map(r::quat_abs);
            let es = lanes::quat_exp_short(Vec3x8::from_array(vs)).to_array();
            // The small-angle series on its domain, |v| <= 0.2.
            let vm: [Vec3; 8] = core::array::from_fn(|_| b.vec3(0.115));
            let sm = F32x8::new(vm.map(|v| r::dot(v, v)));
            let one = F32x8::splat(1.0);
            let em = lanes::quat_exp_small_scaled(Vec3x8::from_array(vm), one, sm).to_array();
            for i in 0..8 {
                let want = r::quat_exp(vm[i]).to_array();
                close(
                    "quat_exp_small_scaled",
                    &em[i].to_array(),
                    &want,
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
            }
            let ls = lanes::quat_log_short(Quatx8::from_array(qa)).to_array();
            for i in 0..8 {
                let exp_ref = r::quat_exp(vs[i]).to_array();
                close(
                    "quat_exp_short",
                    &es[i].to_array(),
                    &exp_ref,
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
                let log_ref = r::quat_log(qa[i]).to_array();
                close(
                    "quat_log_short",
                    &ls[i].to_array(),
                    &log_ref,
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
            }
            for i in 0..8 {
                close(
                    "quat_exp",
                    &e[i].to_array(),
                    &r::quat_exp(v[i]).to_array(),
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
                close(
                    "quat_log",
                    &l[i].to_array(),
                    &r::quat_log(q[i]).to_array(),
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
            }
        }
        1 => {
            let q: [Quat; 8] = core::array::from_fn(|_| b.quat());
            let p: [Quat; 8] =
                core::array::from_fn(|i| if b.u8() % 4 == 0 { q[i] } else { b.quat() });
            let t: [f32; 8] = core::array::from_fn(|_| b.range(-0.25, 1.25));
            let s = lanes::quat_slerp_shortest(
                Quatx8::from_array(q),
                Quatx8::from_array(p),
                F32x8::new(t),
            )
            .to_array();
            for i in 0..8 {
                close(
                    "slerp",
                    &s[i].to_array(),
                    &r::quat_slerp_shortest(q[i], p[i], t[i]).to_array(),
                    1.0,
                    TRANSC.0,
                    TRANSC.1,
                );
            }
        }
        2 => {
            let x: [f32; 8] = core::array::from_fn(|_| b.range(-100.0, 100.0));
            let g: [f32; 8] = core::array::from_fn(|_| b.range(-100.0, 100.0));
            let h: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 2.0));
            let dt: [f32; 8] = core::array::from_fn(|_| b.range(-0.1, 0.5));
            let d =
                lanes::damper_exact(F32x8::new(x), F32x8::new(g), F32x8::new(h), F32x8::new(dt))
                    .to_array();
            let (sx, sv) = lanes::decay_spring_damper_exact(
                F32x8::new(x),
                F32x8::new(g),
                F32x8::new(h),
                F32x8::new(dt),
            );
            let (sx, sv) = (sx.to_array(), sv.to_array());
            for i in 0..8 {
                close(
                    "damper_exact",
                    &[d[i]],
                    &[r::damper_exact(x[i], g[i], h[i], dt[i])],
                    100.0,
                    SPRING.0,
                    SPRING.1,
                );
                let (rx, rv) = r::decay_spring_damper_exact(x[i], g[i], h[i], dt[i]);
                let scale = 100.0 * (1.0 + halflife_rate(h[i]) * dt[i].max(0.0));
                close(
                    "decay_spring_damper_exact",
                    &[sx[i], sv[i]],
                    &[rx, rv],
                    scale,
                    SPRING.0,
                    SPRING.1,
                );
            }
        }
        3 => {
            // Exact spring with stiffness and damping, away from the band
            // near critical damping where the over-damped solution divides
            // by y1 - y0 and differences are amplified (tests/suite/equivalence.rs).
            let x: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
            let v: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
            let g: [f32; 8] = core::array::from_fn(|_| b.range(-10.0, 10.0));
            let gv: [f32; 8] = core::array::from_fn(|_| b.range(-2.0, 2.0));
            let d: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 30.0));
            let s: [f32; 8] = core::array::from_fn(|i| {
                let s = b.range(0.0, 200.0);
                let disc = s - d[i] * d[i] / 4.0;
                if disc < 0.0 && disc > -1.0 {
                    s - 1.0
                } else {
                    s
                }
            });
            let dt: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 0.1));
            let (lx, lv) = lanes::spring_damper_exact_stiffness_damping(
                F32x8::new(x),
                F32x8::new(v),
                F32x8::new(g),
                F32x8::new(gv),
                F32x8::new(s),
                F32x8::new(d),
                F32x8::new(dt),
            );
            let (lx, lv) = (lx.to_array(), lv.to_array());
            for i in 0..8 {
                if s[i] < 0.0 {
                    continue;
                }
                let (rx, rv) = r::spring_damper_exact_stiffness_damping(
                    x[i], v[i], g[i], gv[i], s[i], d[i], dt[i],
                );
                let c = g[i] + d[i] * gv[i] / (s[i] + 1e-5);
                let scale = x[i].abs().max(v[i].abs()).max(c.abs()) * (1.0 + d[i]);
                close(
                    "spring_damper_exact_stiffness_damping",
                    &[lx[i], lv[i]],
                    &[rx, rv],
                    scale,
                    1e-5,
                    1e-4,
                );
            }
        }
        4 => {
            let ox: [Vec3; 8] = core::array::from_fn(|_| b.vec3(5.0));
            let ov: [Vec3; 8] = core::array::from_fn(|_| b.vec3(20.0));
            let bt: [f32; 8] = core::array::from_fn(|_| b.range(0.05, 1.0));
            let t: [f32; 8] = core::array::from_fn(|_| b.range(0.0, 1.5));
            let (x, v) = lanes::decayed_offset_cubic(
                Vec3x8::from_array(ox),
                Vec3x8::from_array(ov),
                F32x8::new(bt),
                F32x8::new(t),
            );
            let (x, v) = (x.to_array(), v.to_array());
            for i in 0..8 {
                let (rx, rv) = r::decayed_offset_cubic(ox[i], ov[i], bt[i], t[i]);
                let s = 20.0 / bt[i];
                close(
                    "decayed_offset_cubic",
                    &[x[i].x, x[i].y, x[i].z, v[i].x, v[i].y, v[i].z],
                    &[rx.x, rx.y, rx.z, rv.x, rv.y, rv.z],
                    s,
                    SPRING.0,
                    SPRING.1,
                );
            }
        }
        5 => {
            let a: [Kform; 8] = core::array::from_fn(|_| b.kform(10.0));
            let c: [Kform; 8] = core::array::from_fn(|_| b.kform(10.0));
            let m = lanes::kform_mul(Kformx8::from_array(a), Kformx8::from_array(c)).to_array();
            let dv = lanes::kform_div(Kformx8::from_array(a), Kformx8::from_array(c)).to_array();
            for i in 0..8 {
                let s = 400.0;
                close(
                    "kform_mul",
                    &parts(m[i]),
                    &parts(r::kform_mul(a[i], c[i])),
                    s,
                    ARITH.0,
                    ARITH.1,
                );
                close(
                    "kform_div",
                    &parts(dv[i]),
                    &parts(r::kform_div(a[i], c[i])),
                    8.0 * s,
                    ARITH.0,
                    ARITH.1,
                );
            }
        }
        6 => {
            // FK on a decoded hierarchy of up to 16 joints.
            let n = 1 + (b.u8() % 16) as usize;
            let parents: Vec<i32> = (0..n)
                .map(|i| {
                    if i == 0 {
                        -1
                    } else {
                        let p = b.u8() as usize % (i + 1);
                        if p == i { -1 } else { p as i32 }
                    }
                })
                .collect();
            let local: Vec<[Kform; 8]> = (0..n)
                .map(|_| core::array::from_fn(|_| b.kform(5.0)))
                .collect();
            let l8: Vec<Kformx8> = local.iter().map(|k| Kformx8::from_array(*k)).collect();
            let mut g8 = vec![Kformx8::IDENTITY; n];
            lanes::op_fk(&mut g8, &l8, &parents);
            for c in 0..8 {
                let pose = r::Pose::from_kforms(&local.iter().map(|k| k[c]).collect::<Vec<_>>());
                let mut g = r::Pose::new(n);
                r::op_fk(&mut g, &pose, &parents).unwrap();
                let scale = (0..n)
                    .flat_map(|j| parts(g.get(j)))
                    .fold(0.0f32, |m, x| m.max(x.abs()));
                for j in 0..n {
                    close(
                        "op_fk",
                        &parts(g8[j].lane(c)),
                        &parts(g.get(j)),
                        scale,
                        1e-5,
                        2e-5,
                    );
                }
            }
        }
        _ => {
            let a: [Kform; 8] = core::array::from_fn(|_| b.kform(5.0));
            let c: [Kform; 8] = core::array::from_fn(|_| b.kform(5.0));
            let t = b.range(0.0, 1.0);
            let dur = b.range(0.05, 1.0);
            let mut off = [Kformx8::IDENTITY];
            lanes::op_inertialize_offset(
                &mut off,
                &[Kformx8::from_array(a)],
                &[Kformx8::from_array(c)],
            );
            let mut out = [Kformx8::IDENTITY];
            lanes::op_inertialize(
                &mut out,
                &off,
                &[Kformx8::from_array(c)],
                F32x8::splat(t),
                F32x8::splat(dur),
            );
            for i in 0..8 {
                let (pa, pc) = (r::Pose::from_kforms(&[a[i]]), r::Pose::from_kforms(&[c[i]]));
                let (mut roff, mut rout) = (r::Pose::new(1), r::Pose::new(1));
                r::op_inertialize_offset(&mut roff, &pa, &pc).unwrap();
                r::op_inertialize(&mut rout, &roff, &pc, t, dur).unwrap();
                close(
                    "op_inertialize_offset",
                    &parts(off[0].lane(i)),
                    &parts(roff.get(0)),
                    40.0,
                    TRANSC.0,
                    TRANSC.1,
                );
                close(
                    "op_inertialize",
                    &parts(out[0].lane(i)),
                    &parts(rout.get(0)),
                    200.0 / dur,
                    TRANSC.0,
                    TRANSC.1,
                );
            }
        }
    }
}

/// Damping rate `y = 2 ln2 / h`, bounded, for the spring check's scale.
fn halflife_rate(h: f32) -> f32 {
    (2.0 * r::LN2 / (h + 1e-5)).min(1e5)
}

/// Parses bytes as a BVH file, and loads them from a file: `load` agrees
/// with `parse` (and refuses bytes that are not UTF-8). Whatever parses
/// must write (or be refused for a stated reason: rotation channels that
/// are not 0 or 3 distinct axes, or a position minus its OFFSET that
/// overflows f32) and parse again to the same hierarchy, offsets, channels,
/// End Sites, frames and frame time, with positions equal to rounding and
/// rotations the same within 1e-5.
///
/// Returns true when the round trip ran (the bytes parsed and wrote).
pub fn check_bvh(data: &[u8]) -> bool {
    let text = std::str::from_utf8(data).ok();
    let parsed = kineform::bvh::parse(&String::from_utf8_lossy(data));
    check_load(data, text.map(|_| &parsed));
    let Ok(b) = parsed else { return false };
    let out = match kineform::bvh::write(&b, &b.clip) {
        Ok(out) => out,
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("rotation channels") || e.contains("is not finite"),
                "parsed, then write refused: {e}"
            );
            return false;
        }
    };
    let again = kineform::bvh::parse(&out).expect("written BVH parses");
    assert_eq!(again.skeleton, b.skeleton);
    assert_eq!(again.channels, b.channels);
    assert_eq!(again.offsets, b.offsets);
    assert_eq!(again.end_sites, b.end_sites);
    let (c, d) = (&b.clip, &again.clip);
    assert_eq!(
        (c.frames(), c.joints(), c.frame_time()),
        (d.frames(), d.joints(), d.frame_time())
    );
    for f in 0..c.frames() {
        for j in 0..c.joints() {
            let (p, q, o) = (c.pos(f, j), d.pos(f, j), b.offsets[j]);
            for k in 0..3 {
                let (p, q, o) = (p.to_array()[k], q.to_array()[k], o.to_array()[k]);
                // Written as p - o, read back as (p - o) + o: two roundings.
                let tol = 2.4e-7 * (p.abs() + o.abs() + (p - o).abs());
                assert!(
                    (p - q).abs() <= tol,
                    "frame {f} joint {j}: position {p:e} read back as {q:e}"
                );
            }
            let (r, s) = (c.rot(f, j), d.rot(f, j));
            let s = if r::quat_dot(r, s) < 0.0 { -s } else { s };
            let gap = r::quat_length(r - s);
            assert!(
                gap < 1e-5,
                "frame {f} joint {j}: rotation {r:?} read back as {s:?}"
            );
        }
    }
    true
}

/// `bvh::load` of `data` written to a file: equal to `parse` when `data` is
/// UTF-8 (`parsed` is `Some`), an error naming the file otherwise.
fn check_load(data: &[u8], parsed: Option<&kineform::Result<kineform::bvh::Bvh>>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "kineform-fuzz-{}-{}.bvh",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed) % 4
    ));
    std::fs::write(&path, data).expect("temp file");
    let loaded = kineform::bvh::load(&path);
    let _ = std::fs::remove_file(&path);
    let name = path.display().to_string();
    match (parsed, loaded) {
        (Some(Ok(p)), Ok(l)) => assert!(*p == l, "load differs from parse"),
        (Some(Err(p)), Err(l)) => {
            assert_eq!(l.to_string(), format!("{name}: {p}"), "load's error")
        }
        (Some(p), l) => panic!("parse {:?} but load {:?}", p.is_ok(), l.is_ok()),
        (None, l) => {
            let e = l
                .expect_err("load accepted bytes that are not UTF-8")
                .to_string();
            assert!(e.starts_with(&name) && e.contains("not valid UTF-8"), "{e}");
        }
    }
}

/// Arbitrary bytes as a `.glb` or `.gltf`: `gltf::parse` returns `Ok` or
/// `Err`, never panics; whatever parses writes back as `.glb` (or is
/// refused with a typed error, as a rest pose with a zero scale is) and
/// parses again to the same skeleton and clip shapes.
#[cfg(feature = "gltf")]
pub fn check_gltf(data: &[u8]) {
    // 1 frame per second keeps the fuzzer's clips small; the sample limit
    // is checked before allocating at any rate.
    let rate = 1.0;
    if let Ok(d) = kineform::gltf::parse(data, rate) {
        let named: Vec<(&str, &kineform::Clip)> =
            d.clips.iter().map(|c| (c.name.as_str(), &c.clip)).collect();
        if let Ok(out) = kineform::gltf::write_glb(&d.skeleton, Some(&d.rest), &named) {
            let again = kineform::gltf::parse(&out, rate).expect("a written .glb parses");
            assert_eq!(again.skeleton, d.skeleton);
            assert_eq!(again.clips.len(), d.clips.len());
            for (a, b) in again.clips.iter().zip(&d.clips) {
                assert_eq!(
                    (a.clip.frames(), a.clip.joints()),
                    (b.clip.frames(), b.clip.joints())
                );
            }
        }
    }
}

/// A damaged copy of a real file: `base` with one to three mutations drawn
/// from `seed`: truncated, a byte changed, a line duplicated or deleted, a
/// number replaced by an extreme one (0, -1, 2^64 - 1, 1e39, 3e38, nan,
/// 99999999999), or a motion line duplicated with `Frames` raised to match
/// (which parses).
pub fn mutate(base: &[u8], seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rnd = move |n: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as usize % n.max(1)
    };
    let mut d = base.to_vec();
    let line_starts = |d: &[u8]| -> Vec<usize> {
        std::iter::once(0)
            .chain(
                d.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .filter(|&i| i < d.len())
            .collect()
    };
    for _ in 0..1 + rnd(3) {
        if d.is_empty() {
            break;
        }
        match rnd(6) {
            0 => d.truncate(rnd(d.len())),
            1 => {
                let at = rnd(d.len());
                d[at] ^= 1 + rnd(255) as u8;
            }
            2 | 3 => {
                let starts = line_starts(&d);
                let k = rnd(starts.len());
                let (a, b) = (starts[k], starts.get(k + 1).copied().unwrap_or(d.len()));
                if rnd(2) == 0 {
                    let line = d[a..b].to_vec();
                    d.splice(b..b, line);
                } else {
                    d.drain(a..b);
                }
            }
            4 => {
                let digits: Vec<usize> = (0..d.len()).filter(|&i| d[i].is_ascii_digit()).collect();
                if digits.is_empty() {
                    continue;
                }
                let mut a = digits[rnd(digits.len())];
                while a > 0 && (d[a - 1].is_ascii_digit() || d[a - 1] == b'.') {
                    a -= 1;
                }
                let mut b = a;
                while b < d.len() && (d[b].is_ascii_digit() || d[b] == b'.') {
                    b += 1;
                }
                let with = [
                    "0",
                    "-1",
                    "18446744073709551615",
                    "1e39",
                    "3e38",
                    "nan",
                    "99999999999",
                ];
                d.splice(a..b, with[rnd(with.len())].bytes());
            }
            _ => {
                // One more frame: the last motion line again, Frames + 1.
                let text = String::from_utf8_lossy(&d).into_owned();
                let Some(fa) = text.find("Frames:") else {
                    continue;
                };
                let fb = fa + text[fa..].find(['\r', '\n']).unwrap_or(text.len() - fa);
                let Ok(n) = text[fa + 7..fb].trim().parse::<u64>() else {
                    continue;
                };
                let body = text.trim_end();
                let last = body[body.rfind('\n').map_or(0, |i| i + 1)..].to_string();
                let mut t = format!("{}Frames: {}{}", &text[..fa], n + 1, &text[fb..]);
                t.truncate(t.trim_end().len());
                t.push('\n');
                t.push_str(&last);
                t.push('\n');
                d = t.into_bytes();
            }
        }
    }
    d
}
