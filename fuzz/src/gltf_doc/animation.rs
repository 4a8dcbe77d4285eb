//! The animations: each sampler's accessors (or a pair reused from the
//! pool every animation shares) and the channels that use them, noting in
//! [`Info`] what the oracle needs (each animated node's first and last
//! values, the last key time) or that it cannot be asked.

use serde_json::{Value, json};

use super::super::gltf_build::{Builder, Override, bytes};
use super::document::Info;
use super::spec::{AnimSpec, SPACING, SamplerSpec, Small, quat};

/// A sampler added: its accessors, their element width (3 or 4), its
/// interpolation, its first and last values (`None` for accessors reused
/// from the pool, whose values are not tracked) and its last key time.
struct Sampler {
    input: usize,
    output: usize,
    width: usize,
    interpolation: &'static str,
    first: Option<Vec<f64>>,
    last: Option<Vec<f64>>,
    end: f32,
}

/// Adds sampler `s`'s accessors (or reuses a pair from `pool`, shared by
/// every animation).
fn sampler(b: &mut Builder, s: &SamplerSpec, pool: &mut Vec<(usize, usize, usize)>) -> Sampler {
    let interpolation = ["LINEAR", "STEP", "CUBICSPLINE"][s.interpolation as usize % 3];
    if let Some(&(input, output, width)) = s
        .reuse
        .and_then(|k| pool.get(k as usize % pool.len().max(1)))
    {
        return Sampler {
            input,
            output,
            width,
            interpolation,
            first: None,
            last: None,
            end: f32::INFINITY,
        };
    }
    let per_key = if interpolation == "CUBICSPLINE" { 3 } else { 1 };
    let keys = (s.keys as usize % 64).max(1);
    let dt = SPACING[s.spacing as usize % SPACING.len()];
    let t0 = s.start.get().abs();
    let times: Vec<f32> = (0..keys).map(|k| t0 + k as f32 * dt).collect();
    let input = b.floats(&times, "SCALAR");
    let width = if matches!(s.values.first(), Some(Small::One)) {
        4
    } else {
        3
    };
    let count = keys * per_key * width;
    let mut vals: Vec<f32> = (0..count)
        .map(|k| {
            s.values
                .get(k % s.values.len().max(1))
                .map_or(0.5, |v| v.get())
        })
        .collect();
    if width == 4 {
        // Mostly unit rotations: an angle-axis per element.
        for e in vals.chunks_exact_mut(4) {
            let raw = |x: f32| Small::Raw((x * 1000.0) as i16);
            e.copy_from_slice(&quat([raw(e[0]), raw(e[1]), raw(e[2]), Small::Zero]));
        }
    }
    let type_ = if width == 4 { "VEC4" } else { "VEC3" };
    let output = if s.sparse {
        // Every element substituted over zeros (u8 indices: at most 189).
        let idx: Vec<u8> = (0..count / width).map(|k| k as u8).collect();
        let iv = b.view(&idx);
        let vv = b.view(&bytes(&vals));
        b.push(
            "accessors",
            json!({"componentType": 5126, "count": count / width, "type": type_,
                   "sparse": {"count": count / width,
                              "indices": {"bufferView": iv, "componentType": 5121},
                              "values": {"bufferView": vv}}}),
        )
    } else {
        b.floats(&vals, type_)
    };
    pool.push((input, output, width));
    let at = (per_key / 3) * width; // a cubic key's value follows its in-tangent
    let value = |k: usize| {
        let i = k * per_key * width + at;
        Some(vals[i..i + width].iter().map(|&x| x as f64).collect())
    };
    Sampler {
        input,
        output,
        width,
        interpolation,
        first: value(0),
        last: value(keys - 1),
        end: times[keys - 1],
    }
}

/// Adds an animation (none when it has no sampler or channel), noting
/// each animated node's value at time 0 in `info`.
pub(super) fn animation(
    b: &mut Builder,
    anim: &AnimSpec,
    pool: &mut Vec<(usize, usize, usize)>,
    info: &mut Info,
) {
    let samplers: Vec<Sampler> = anim
        .samplers
        .iter()
        .take(6)
        .map(|s| sampler(b, s, pool))
        .collect();
    if samplers.is_empty() {
        return;
    }
    let n = info.nodes;
    let mut firsts = vec![Override::default(); n];
    let mut lasts = vec![Override::default(); n];
    let mut end = 0.0f32;
    let mut targets = std::collections::HashSet::new();
    let mut list = Vec::new();
    let mut push = |node: usize, path: u8, s: usize, info: &mut Info| {
        let sm = &samplers[s];
        let path = match (path % 4, sm.width) {
            (3, _) => "weights",
            (_, 4) => "rotation",
            (2, _) => "scale",
            _ => "translation",
        };
        if !targets.insert((node, path)) {
            info.oracle_off = true;
        }
        end = end.max(sm.end);
        for (o, value) in [(&mut firsts[node], &sm.first), (&mut lasts[node], &sm.last)] {
            match (path, value) {
                ("weights", _) => {}
                (_, None) => info.oracle_off = true,
                ("translation", Some(v)) => o.t = Some([v[0], v[1], v[2]]),
                ("rotation", Some(v)) => o.r = Some([v[0], v[1], v[2], v[3]]),
                (_, Some(v)) => {
                    info.non_uniform |= v[0] != v[1] || v[1] != v[2];
                    o.s = Some([v[0], v[1], v[2]]);
                }
            }
        }
        list.push(json!({"sampler": s, "target": {"node": node, "path": path}}));
    };
    for c in anim.channels.iter().take(16) {
        push(
            c.node as usize % n,
            c.path,
            c.sampler as usize % samplers.len(),
            info,
        );
    }
    for k in 0..anim.fan as usize {
        push((anim.fan_node as usize + k) % n, anim.fan_path, 0, info);
    }
    if list.is_empty() {
        return;
    }
    let json_samplers: Vec<Value> = samplers
        .iter()
        .map(|s| json!({"input": s.input, "output": s.output, "interpolation": s.interpolation}))
        .collect();
    b.push(
        "animations",
        json!({"channels": list, "samplers": json_samplers}),
    );
    info.first.push(firsts);
    info.last.push(lasts);
    info.end.push(end);
}
