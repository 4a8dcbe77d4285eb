//! Animation samplers: keys checked and sampled at any time as glTF 2.0
//! defines LINEAR, STEP and CUBICSPLINE. A track borrows its keys from the
//! decoded accessors, which every channel sharing them shares.

use ::gltf::animation::Interpolation;

use super::err;
use super::nodes::unit_quat;
use crate::error::Result;
use crate::reference::{Quat, quat_slerp_shortest};

/// A sampler's keys: times and, per key, one value (LINEAR, STEP) or
/// in-tangent, value, out-tangent (CUBICSPLINE).
#[derive(Clone, Copy)]
pub(super) struct Track<'a, const N: usize> {
    pub(super) times: &'a [f32],
    /// `N` floats per value.
    values: &'a [f32],
    mode: Interpolation,
}

impl<const N: usize> Track<'_, N> {
    /// Value `i` of the accessor (a key's value, or a cubic tangent).
    fn element(&self, i: usize) -> [f32; N] {
        core::array::from_fn(|c| self.values[i * N + c])
    }

    fn value(&self, k: usize) -> [f32; N] {
        match self.mode {
            Interpolation::CubicSpline => self.element(3 * k + 1),
            _ => self.element(k),
        }
    }

    /// The value at `t`; `rotation` selects slerp and normalization.
    /// The first key after `t` (the key count when there is none),
    /// searched from `hint` (the answer for an earlier time) by doubling
    /// steps, then halving: a clip sampled at rising times finds each key
    /// in O(log of the keys passed) rather than O(log of all keys).
    fn after(&self, t: f32, hint: &mut usize) -> usize {
        let ts = self.times;
        let n = ts.len();
        let mut lo = (*hint).min(n);
        if lo > 0 && ts[lo - 1] > t {
            lo = 0; // an earlier time than the hint's
        }
        // Every key before `lo` is at or before `t`; `hi` is past `t`
        // or the end.
        let (mut hi, mut step) = (lo, 1usize);
        while hi < n && ts[hi] <= t {
            lo = hi + 1;
            hi = lo.saturating_add(step).min(n);
            step = step.saturating_mul(2);
        }
        let i1 = lo + ts[lo..hi].partition_point(|&x| x <= t);
        *hint = i1;
        i1
    }

    /// The value at `t`; `rotation` selects slerp and normalization;
    /// `hint` is where the last search ended (0 to begin with).
    pub(super) fn sample(&self, t: f32, rotation: bool, hint: &mut usize) -> [f32; N] {
        let n = self.times.len();
        let i1 = self.after(t, hint);
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
                let out0 = self.element(3 * i0 + 2);
                let in1 = self.element(3 * i1);
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

/// Checks a sampler's key times: rising strictly (glTF 2.0 requires
/// `time[n + 1] > time[n]` of every sampler input), not negative. Two keys
/// at one time leave the value at that time undefined: readers differ
/// (the `gltf_doc` fuzz target's finding was a sampler whose 63 keys were
/// all at 0 s, read as the last key's value where glTF's oracle took the
/// first), so such a sampler is refused, named, rather than read one way.
pub(super) fn check_times(times: &[f32], spath: &str) -> Result<()> {
    for (i, w) in times.windows(2).enumerate() {
        if w[1] < w[0] {
            return err(
                format!("{spath}.input"),
                format!("key times go back: {} then {} at key {}", w[0], w[1], i + 1),
            );
        }
        if w[1] == w[0] {
            return err(
                format!("{spath}.input"),
                format!(
                    "keys {i} and {} are both at {} s: glTF key times must rise strictly, and two values at one time leave the value there undefined",
                    i + 1,
                    w[0]
                ),
            );
        }
    }
    if times[0] < 0.0 {
        return err(
            format!("{spath}.input"),
            format!("negative key time {}", times[0]),
        );
    }
    Ok(())
}

/// Checks that each key's rotation (the value, not the tangents, of a
/// cubic key) can be normalized.
pub(super) fn check_rotations(values: &[f32], cubic: bool, spath: &str) -> Result<()> {
    let per_key = if cubic { 3 } else { 1 };
    for (k, v) in values.chunks_exact(4 * per_key).enumerate() {
        let at = if cubic { 4 } else { 0 };
        unit_quat(
            [v[at], v[at + 1], v[at + 2], v[at + 3]],
            &format!("{spath}.output[{k}]"),
        )?;
    }
    Ok(())
}

/// A track on checked, decoded keys: `times` (one per key) and `values`
/// (`N` floats per value, three values per key for CUBICSPLINE), refusing
/// value counts that do not match the key count.
pub(super) fn track<'a, const N: usize>(
    times: &'a [f32],
    values: &'a [f32],
    mode: Interpolation,
    spath: &str,
) -> Result<Track<'a, N>> {
    let per_key = if mode == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if values.len() != N * per_key * times.len() {
        return err(
            format!("{spath}.output"),
            format!(
                "{} values for {} keys ({mode:?} needs {per_key} per key)",
                values.len() / N,
                times.len()
            ),
        );
    }
    Ok(Track {
        times,
        values,
        mode,
    })
}
