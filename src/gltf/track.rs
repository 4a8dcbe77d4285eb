//! Animation samplers: keys read and checked, and sampled at any time as
//! glTF 2.0 defines LINEAR, STEP and CUBICSPLINE.

use ::gltf::accessor::Dimensions;
use ::gltf::animation::Interpolation;

use super::accessor::Data;
use super::err;
use super::read::unit_quat;
use crate::error::Result;
use crate::reference::{Quat, quat_slerp_shortest};

/// A sampler's keys: times and, per key, one value (LINEAR, STEP) or
/// in-tangent, value, out-tangent (CUBICSPLINE).
pub(super) struct Track<const N: usize> {
    pub(super) times: Vec<f32>,
    values: Vec<[f32; N]>,
    mode: Interpolation,
}

impl<const N: usize> Track<N> {
    fn value(&self, k: usize) -> [f32; N] {
        match self.mode {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The value at `t`; `rotation` selects slerp and normalization.
    pub(super) fn sample(&self, t: f32, rotation: bool) -> [f32; N] {
        let n = self.times.len();
        let i1 = self.times.partition_point(|&x| x <= t);
        if i1 == 0 {
            return self.value(0);
        }
        if i1 >= n {
            return self.value(n - 1);
        }
        let i0 = i1 - 1;
        let (t0, t1) = (self.times[i0], self.times[i1]);
        let dt = t1 - t0;
        if dt <= 0.0 {
            return self.value(i1);
        }
        // A time within a few f32 roundings of a key is that key: resampling
        // at a file's own key rate then gives its keys back exactly (k / rate
        // and the stored k x frame_time differ by an ulp or two, and an ulp
        // of time is a visible fraction of a fast joint's step).
        let near = 4.0 * f32::EPSILON * t.abs().max(t1.abs());
        if t - t0 <= near {
            return self.value(i0);
        }
        if t1 - t <= near {
            return self.value(i1);
        }
        let u = ((t - t0) / dt).clamp(0.0, 1.0);
        let (a, b) = (self.value(i0), self.value(i1));
        match self.mode {
            Interpolation::Step => a,
            Interpolation::Linear => {
                if rotation {
                    let q = quat_slerp_shortest(to_quat(a), to_quat(b), u);
                    core::array::from_fn(|k| [q.x, q.y, q.z, q.w][k])
                } else {
                    core::array::from_fn(|k| a[k] + (b[k] - a[k]) * u)
                }
            }
            Interpolation::CubicSpline => {
                let out0 = self.values[3 * i0 + 2];
                let in1 = self.values[3 * i1];
                let (u2, u3) = (u * u, u * u * u);
                let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                let h10 = u3 - 2.0 * u2 + u;
                let h01 = -2.0 * u3 + 3.0 * u2;
                let h11 = u3 - u2;
                let v: [f32; N] = core::array::from_fn(|k| {
                    h00 * a[k] + h10 * dt * out0[k] + h01 * b[k] + h11 * dt * in1[k]
                });
                if rotation {
                    let l = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    if l > 1e-12 {
                        return v.map(|x| x / l);
                    }
                    return a;
                }
                v
            }
        }
    }
}

fn to_quat<const N: usize>(v: [f32; N]) -> Quat {
    Quat::new(v[3 % N], v[0], v[1 % N], v[2 % N])
}

pub(super) fn read_track<const N: usize>(
    data: &Data,
    anim: &::gltf::Animation,
    sampler: &::gltf::animation::Sampler,
    dims: Dimensions,
    rotation: bool,
) -> Result<Track<N>> {
    let spath = format!("animations[{}].samplers[{}]", anim.index(), sampler.index());
    let times: Vec<[f32; 1]> = data.read(
        &sampler.input(),
        Dimensions::Scalar,
        false,
        &format!("{spath}.input"),
    )?;
    let times: Vec<f32> = times.into_iter().map(|[t]| t).collect();
    for (i, w) in times.windows(2).enumerate() {
        if w[1] < w[0] {
            return err(
                format!("{spath}.input"),
                format!("key times go back: {} then {} at key {}", w[0], w[1], i + 1),
            );
        }
    }
    if times[0] < 0.0 {
        return err(
            format!("{spath}.input"),
            format!("negative key time {}", times[0]),
        );
    }
    let mode = sampler.interpolation();
    let values: Vec<[f32; N]> = data.read(
        &sampler.output(),
        dims,
        rotation,
        &format!("{spath}.output"),
    )?;
    let per_key = if mode == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if values.len() != per_key * times.len() {
        return err(
            format!("{spath}.output"),
            format!(
                "{} values for {} keys ({mode:?} needs {per_key} per key)",
                values.len(),
                times.len()
            ),
        );
    }
    if rotation {
        for k in 0..times.len() {
            let v = if per_key == 3 {
                values[3 * k + 1]
            } else {
                values[k]
            };
            unit_quat(
                core::array::from_fn(|i| v[i % N]),
                &format!("{spath}.output[{k}]"),
            )?;
        }
    }
    Ok(Track {
        times,
        values,
        mode,
    })
}
