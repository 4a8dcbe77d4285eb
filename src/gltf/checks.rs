//! Checks run before the `gltf` crate's wrappers are used: they unwrap
//! enums and index lookups, and its validation lets some bad values through
//! (each found by the `gltf_parse` fuzz target).

use super::err;
use crate::error::Result;

/// A GLB container checked as the `gltf` crate reads it (12-byte header:
/// magic, version 2, length; a JSON chunk; perhaps a BIN chunk; each
/// chunk an 8-byte header, its length and type, then its bytes), refusing
/// in words what the crate would refuse as "could not completely read
/// the object" or a chunk length "exceeds that of slice" (issue 21, defect
/// 10): a file cut short, a version other than 2, a chunk of the wrong
/// type or longer than the bytes that follow it. A header length shorter
/// than the header itself is refused too: the crate subtracts 12 from it
/// unchecked (an overflow panic in a build with overflow checks; found by
/// the fuzzer). Like the crate, bytes past the chunks are ignored.
pub(super) fn check_glb_header(bytes: &[u8]) -> Result<()> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return err(
            "glb",
            format!("{} bytes: shorter than the 12-byte header", bytes.len()),
        );
    };
    if length < 12 {
        return err(
            "glb",
            format!("header length {length} is shorter than the 12-byte header"),
        );
    }
    if length as usize > bytes.len() {
        return err(
            "glb",
            format!(
                "the header says the file is {length} bytes, but it has {}: it is cut short, or its header is damaged",
                bytes.len()
            ),
        );
    }
    if version != 2 {
        return err(
            "glb",
            format!("version {version}: only glTF 2.0 binary files (version 2) are read"),
        );
    }
    let json_end = chunk(bytes, 12, b"JSON", "the JSON chunk (the first)")?;
    if json_end < bytes.len() {
        chunk(
            bytes,
            json_end,
            b"BIN\0",
            "the BIN chunk (after the JSON chunk)",
        )?;
    }
    Ok(())
}

/// Checks the GLB chunk whose 8-byte header is at `at`: its type `ty`,
/// and its length within the bytes that follow. Returns where it ends.
fn chunk(bytes: &[u8], at: usize, ty: &[u8; 4], what: &str) -> Result<usize> {
    let left = bytes.len() - at;
    let Some(head) = bytes.get(at..at + 8) else {
        return err(
            "glb",
            format!("{what}: the file ends {left} bytes into its 8-byte chunk header"),
        );
    };
    if &head[4..8] != ty {
        return err(
            "glb",
            format!(
                "{what}: its type is `{}`, not `{}`",
                head[4..8].escape_ascii(),
                ty.escape_ascii()
            ),
        );
    }
    let length = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if length > left - 8 {
        return err(
            "glb",
            format!(
                "{what}: its header says {length} bytes, but {} follow it: the file is cut short, or the chunk header is damaged",
                left - 8
            ),
        );
    }
    Ok(at + 8 + length)
}

/// The `gltf` crate's accessors unwrap the enums they return (a channel's
/// path, a sampler's interpolation, an accessor's types), and its
/// validation lets an unknown value of some of them through (found by the
/// fuzzer: `"path": "translatioo"` panicked in `Channel::property`): every
/// one is checked here first.
pub(super) fn check_enums(root: &::gltf::json::Root) -> Result<()> {
    use ::gltf::json::validation::Checked::Invalid;
    for (i, a) in root.accessors.iter().enumerate() {
        if matches!(a.component_type, Invalid) {
            return err(
                format!("accessors[{i}].componentType"),
                "unknown component type",
            );
        }
        if matches!(a.type_, Invalid) {
            return err(format!("accessors[{i}].type"), "unknown type");
        }
        if let Some(sp) = &a.sparse
            && matches!(sp.indices.component_type, Invalid)
        {
            return err(
                format!("accessors[{i}].sparse.indices.componentType"),
                "unknown index type (UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT)",
            );
        }
    }
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            if matches!(ch.target.path, Invalid) {
                return err(
                    format!("animations[{a}].channels[{c}].target.path"),
                    "unknown path (translation, rotation, scale or weights)",
                );
            }
        }
        for (s, sm) in anim.samplers.iter().enumerate() {
            if matches!(sm.interpolation, Invalid) {
                return err(
                    format!("animations[{a}].samplers[{s}].interpolation"),
                    "unknown interpolation (LINEAR, STEP or CUBICSPLINE)",
                );
            }
        }
    }
    Ok(())
}

/// Every index the loader follows through the `gltf` crate's wrappers,
/// which unwrap a lookup by index: its validation lets an out-of-range
/// channel target node through (the fuzzer's third find, a panic in
/// `Target::node`), so all of them are checked here.
pub(super) fn check_indices(root: &::gltf::json::Root) -> Result<()> {
    let (nodes, accessors) = (root.nodes.len(), root.accessors.len());
    let (views, buffers) = (root.buffer_views.len(), root.buffers.len());
    for (i, node) in root.nodes.iter().enumerate() {
        for (k, c) in node.children.iter().flatten().enumerate() {
            index(c.value(), nodes, "nodes", || {
                format!("nodes[{i}].children[{k}]")
            })?;
        }
    }
    for (i, skin) in root.skins.iter().enumerate() {
        for (k, j) in skin.joints.iter().enumerate() {
            index(j.value(), nodes, "nodes", || {
                format!("skins[{i}].joints[{k}]")
            })?;
        }
        if let Some(a) = skin.inverse_bind_matrices {
            index(a.value(), accessors, "accessors", || {
                format!("skins[{i}].inverseBindMatrices")
            })?;
        }
    }
    for (i, acc) in root.accessors.iter().enumerate() {
        if let Some(v) = acc.buffer_view {
            index(v.value(), views, "buffer views", || {
                format!("accessors[{i}].bufferView")
            })?;
        }
        if let Some(sp) = &acc.sparse {
            for (what, v) in [
                ("indices", sp.indices.buffer_view),
                ("values", sp.values.buffer_view),
            ] {
                index(v.value(), views, "buffer views", || {
                    format!("accessors[{i}].sparse.{what}.bufferView")
                })?;
            }
        }
    }
    for (i, view) in root.buffer_views.iter().enumerate() {
        index(view.buffer.value(), buffers, "buffers", || {
            format!("bufferViews[{i}].buffer")
        })?;
    }
    for (a, anim) in root.animations.iter().enumerate() {
        let samplers = anim.samplers.len();
        for (c, ch) in anim.channels.iter().enumerate() {
            let path = format!("animations[{a}].channels[{c}]");
            index(ch.target.node.value(), nodes, "nodes", || {
                format!("{path}.target.node")
            })?;
            index(ch.sampler.value(), samplers, "samplers", || {
                format!("{path}.sampler")
            })?;
        }
        for (k, sm) in anim.samplers.iter().enumerate() {
            for (what, ix) in [("input", sm.input), ("output", sm.output)] {
                index(ix.value(), accessors, "accessors", || {
                    format!("animations[{a}].samplers[{k}].{what}")
                })?;
            }
        }
    }
    Ok(())
}

/// Refuses index `i` at `path` when it is not below `n`, the count of
/// the document's `what`.
fn index(i: usize, n: usize, what: &str, path: impl FnOnce() -> String) -> Result<()> {
    match i < n {
        true => Ok(()),
        false => err(
            path(),
            format!("index {i} out of range: there are {n} {what}"),
        ),
    }
}

/// Refuses an integer past `u32::MAX` anywhere in the JSON but under
/// `extras` (a user's own data), naming where it is. The `gltf` crate
/// reads every index (a node, an accessor, a sampler, a child, a joint)
/// as a `u64` and keeps `value as u32`, so a channel on node 2^32 would
/// animate node 0 and a file would convert, exit 0, with another
/// skeleton's motion; every count and length glTF has is 32-bit or
/// refused by the file limits anyway. One pass over the text, keeping only
/// the path (no tree is built); text that is not JSON is left to the
/// crate's parser to report.
pub(super) fn check_json_integers(json: &[u8]) -> Result<()> {
    use serde::de::DeserializeSeed;
    let mut path = Vec::new();
    let mut found = None;
    let mut de = serde_json::Deserializer::from_slice(json);
    let walk = Walk {
        path: &mut path,
        found: &mut found,
    };
    let _ = walk.deserialize(&mut de);
    match found {
        Some((at, value)) => err(
            &at,
            format!(
                "{value} is past {}: glTF's indices and counts are 32-bit",
                u32::MAX
            ),
        ),
        None => Ok(()),
    }
}

/// A step of a JSON path: a key or a list index.
enum Part {
    Key(String),
    Index(usize),
}

/// `path` as glTF errors write it: `animations[0].channels[1].target.node`.
fn path_text(path: &[Part]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            Part::Key(k) if s.is_empty() => s.push_str(k),
            Part::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Part::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// The walk of [`check_json_integers`]: a value at `path`; the first
/// integer past `u32::MAX` goes into `found` and stops the walk.
struct Walk<'a> {
    path: &'a mut Vec<Part>,
    found: &'a mut Option<(String, u64)>,
}

impl Walk<'_> {
    fn deeper(&mut self) -> Walk<'_> {
        Walk {
            path: self.path,
            found: self.found,
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> core::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> core::result::Result<(), E> {
        if v > u64::from(u32::MAX) {
            *self.found = Some((path_text(self.path), v));
            return Err(E::custom("an integer past u32::MAX"));
        }
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> core::result::Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> core::result::Result<(), E> {
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> core::result::Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> core::result::Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> core::result::Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        mut self,
        mut seq: A,
    ) -> core::result::Result<(), A::Error> {
        for i in 0.. {
            self.path.push(Part::Index(i));
            let more = seq.next_element_seed(self.deeper())?;
            self.path.pop();
            if more.is_none() {
                break;
            }
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        mut self,
        mut map: A,
    ) -> core::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "extras" {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            self.path.push(Part::Key(key));
            map.next_value_seed(self.deeper())?;
            self.path.pop();
        }
        Ok(())
    }
}
