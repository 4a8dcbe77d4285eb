//! glTF documents built from values, for the `gltf_doc` fuzz target and the
//! glTF tests (`tests/gltf_hostile/`, `tests/suite/gltf_exporters.rs` include
//! this file): JSON through serde_json, one BIN buffer, written as a
//! `.glb`, a `.gltf` with its buffer as a data URI, or a `.gltf` and a
//! `.bin`; and, as an oracle independent of kineform's reader, the world
//! transform glTF defines for a node (its ancestors' TRS matrices
//! multiplied in f64).
#![allow(dead_code)]

use base64::Engine;
use serde_json::{Value, json};

/// A document under construction.
#[derive(Clone, Debug)]
pub struct Builder {
    /// The JSON document (without `buffers`, added when written).
    pub doc: Value,
    /// The BIN buffer.
    pub bin: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

fn push(doc: &mut Value, key: &str, v: Value) -> usize {
    let list = doc
        .as_object_mut()
        .expect("an object")
        .entry(key)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .expect("a list");
    list.push(v);
    list.len() - 1
}

impl Builder {
    /// An empty glTF 2.0 document.
    pub fn new() -> Builder {
        Builder {
            doc: json!({"asset": {"version": "2.0"}}),
            bin: Vec::new(),
        }
    }

    /// Appends `v` to the list `key` (`"nodes"`, `"animations"`...), giving
    /// its index.
    pub fn push(&mut self, key: &str, v: Value) -> usize {
        push(&mut self.doc, key, v)
    }

    /// A node.
    pub fn node(&mut self, v: Value) -> usize {
        self.push("nodes", v)
    }

    /// A buffer view of `bytes` (4-byte aligned in the buffer).
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.push(
            "bufferViews",
            json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}),
        )
    }

    /// An f32 accessor of `type_` (`"SCALAR"`, `"VEC3"`, `"VEC4"`,
    /// `"MAT4"`) over `values` in a view of its own, with min and max for
    /// scalars (glTF requires them on animation inputs).
    pub fn floats(&mut self, values: &[f32], type_: &str) -> usize {
        let width = match type_ {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => panic!("{type_}"),
        };
        let view = self.view(&bytes(values));
        let mut a = json!({
            "bufferView": view,
            "componentType": 5126,
            "count": values.len() / width,
            "type": type_,
        });
        if width == 1 && !values.is_empty() {
            let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            a["min"] = json!([lo]);
            a["max"] = json!([hi]);
        }
        self.push("accessors", a)
    }

    /// An animation sampler (`input`, `output` accessors) and channels on
    /// `(node, path)` pairs sharing it, as animation `anim` (a new one when
    /// it is the count of animations).
    pub fn channels(
        &mut self,
        anim: usize,
        input: usize,
        output: usize,
        interpolation: &str,
        targets: &[(usize, &str)],
    ) {
        let list = self
            .doc
            .as_object_mut()
            .expect("an object")
            .entry("animations")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .expect("a list");
        if anim >= list.len() {
            list.push(json!({"channels": [], "samplers": []}));
        }
        let a = &mut list[anim];
        let s = a["samplers"].as_array().map_or(0, Vec::len);
        push(
            a,
            "samplers",
            json!({"input": input, "output": output, "interpolation": interpolation}),
        );
        for &(node, path) in targets {
            push(
                a,
                "channels",
                json!({"sampler": s, "target": {"node": node, "path": path}}),
            );
        }
    }

    fn with_buffer(&self, uri: Option<String>) -> Value {
        let mut d = self.doc.clone();
        let mut b = json!({"byteLength": self.bin.len()});
        if let Some(u) = uri {
            b["uri"] = json!(u);
        }
        if !self.bin.is_empty() {
            d["buffers"] = json!([b]);
        }
        d
    }

    /// The document as a `.glb`.
    pub fn glb(&self) -> Vec<u8> {
        glb(&self.with_buffer(None), &self.bin)
    }

    /// The document as a `.gltf` whose buffer is a base64 data URI (what
    /// Blender's "glTF Embedded" writes).
    pub fn embedded(&self) -> Vec<u8> {
        let data = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        let uri = format!("data:application/octet-stream;base64,{data}");
        serde_json::to_vec(&self.with_buffer(Some(uri))).expect("JSON")
    }

    /// The document as a `.gltf` whose buffer is the file `uri` (written
    /// by the caller with [`Builder::bin`]).
    pub fn gltf(&self, uri: &str) -> Vec<u8> {
        serde_json::to_vec(&self.with_buffer(Some(uri.to_string()))).expect("JSON")
    }
}

/// Little-endian f32 bytes.
pub fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A `.glb` of a JSON document and a BIN chunk (none when empty).
pub fn glb(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(doc).expect("JSON");
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&j);
    if !b.is_empty() {
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(&b);
    }
    out
}

/// A 4x4 matrix, column-major as glTF writes them.
pub type Mat = [f64; 16];

fn mat_mul(a: &Mat, b: &Mat) -> Mat {
    let mut m = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            m[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    m
}

/// The matrix of a translation, rotation `(x, y, z, w)` (normalized here)
/// and scale, `T R S`.
pub fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let [x, y, z, w] = q.map(|v| v / n);
    let r = [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + z * w),
        2.0 * (x * z - y * w),
        2.0 * (x * y - z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + x * w),
        2.0 * (x * z + y * w),
        2.0 * (y * z - x * w),
        1.0 - 2.0 * (x * x + y * y),
    ];
    [
        r[0] * s[0],
        r[1] * s[0],
        r[2] * s[0],
        0.0,
        r[3] * s[1],
        r[4] * s[1],
        r[5] * s[1],
        0.0,
        r[6] * s[2],
        r[7] * s[2],
        r[8] * s[2],
        0.0,
        t[0],
        t[1],
        t[2],
        1.0,
    ]
}

fn arr<const N: usize>(v: &Value, default: [f64; N]) -> [f64; N] {
    match v.as_array() {
        Some(a) if a.len() == N => core::array::from_fn(|i| a[i].as_f64().unwrap_or(default[i])),
        _ => default,
    }
}

/// A node's local matrix from its JSON (`matrix`, or TRS with glTF's
/// defaults), with `over` replacing translation, rotation or scale (an
/// animated value).
pub fn local(node: &Value, over: &Override) -> Mat {
    if let Some(m) = node.get("matrix") {
        return arr(m, [0.0; 16]);
    }
    trs(
        over.t
            .unwrap_or_else(|| arr(&node["translation"], [0.0; 3])),
        over.r
            .unwrap_or_else(|| arr(&node["rotation"], [0.0, 0.0, 0.0, 1.0])),
        over.s.unwrap_or_else(|| arr(&node["scale"], [1.0; 3])),
    )
}

/// Animated values that replace a node's own.
#[derive(Clone, Copy, Debug, Default)]
pub struct Override {
    pub t: Option<[f64; 3]>,
    pub r: Option<[f64; 4]>,
    pub s: Option<[f64; 3]>,
}

/// The world matrix of node `n` in `doc` (parents found from `children`),
/// with `over(node)` giving animated values.
pub fn world(doc: &Value, n: usize, over: &dyn Fn(usize) -> Override) -> Mat {
    let nodes = doc["nodes"].as_array().expect("nodes");
    let mut parent = vec![usize::MAX; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for c in node["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().expect("index") as usize] = i;
        }
    }
    let mut chain = vec![n];
    while parent[*chain.last().expect("one")] != usize::MAX {
        chain.push(parent[*chain.last().expect("one")]);
    }
    let mut m = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    for &i in chain.iter().rev() {
        m = mat_mul(&m, &local(&nodes[i], &over(i)));
    }
    m
}

/// The world matrix of every node of `doc` (a forest: nodes in or below
/// a cycle get the identity), with `over(node)` giving animated values:
/// one pass from the roots, for documents of many nodes.
pub fn worlds(doc: &Value, over: &dyn Fn(usize) -> Override) -> Vec<Mat> {
    let nodes = doc["nodes"].as_array().expect("nodes");
    let identity = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let mut has_parent = vec![false; nodes.len()];
    for node in nodes {
        for c in node["children"].as_array().into_iter().flatten() {
            has_parent[c.as_u64().expect("index") as usize] = true;
        }
    }
    let mut m = vec![identity; nodes.len()];
    let mut stack: Vec<(usize, Mat)> = (0..nodes.len())
        .filter(|&i| !has_parent[i])
        .map(|i| (i, identity))
        .collect();
    while let Some((i, above)) = stack.pop() {
        m[i] = mat_mul(&above, &local(&nodes[i], &over(i)));
        for c in nodes[i]["children"].as_array().into_iter().flatten() {
            stack.push((c.as_u64().expect("index") as usize, m[i]));
        }
    }
    m
}

/// The translation column of a matrix.
pub fn origin(m: &Mat) -> [f64; 3] {
    [m[12], m[13], m[14]]
}
