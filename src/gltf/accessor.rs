//! Accessors read as f32 after checking every byte they touch lies inside
//! their buffer view and buffer.

use ::gltf::accessor::{DataType, Dimensions};

use super::err;
use crate::error::{Error, Result};

/// The buffers of a document, each checked to hold its `byteLength`.
pub(super) struct Data<'a> {
    pub(super) buffers: &'a [Vec<u8>],
}

impl Data<'_> {
    /// The elements of an accessor of `dims`, as f32 (normalized integers
    /// converted when `allow_normalized`), after checking that every byte
    /// it reads lies inside its view and buffer.
    pub(super) fn read<const N: usize>(
        &self,
        acc: &::gltf::Accessor,
        dims: Dimensions,
        allow_normalized: bool,
        used_as: &str,
    ) -> Result<Vec<[f32; N]>> {
        let path = format!("accessors[{}]", acc.index());
        let at = |reason: String| err(format!("{used_as} -> {path}"), reason);
        if acc.dimensions() != dims {
            return at(format!("type {:?}, expected {dims:?}", acc.dimensions()));
        }
        if acc.sparse().is_some() {
            return at("sparse accessors are not supported".into());
        }
        let dt = acc.data_type();
        let ok_type = dt == DataType::F32
            || (allow_normalized
                && acc.normalized()
                && matches!(
                    dt,
                    DataType::I8 | DataType::U8 | DataType::I16 | DataType::U16
                ));
        if !ok_type {
            return at(format!(
                "component type {dt:?}{} is not supported here",
                if acc.normalized() { " normalized" } else { "" }
            ));
        }
        let count = acc.count();
        if count == 0 {
            return at("count is 0".into());
        }
        let comp = dt.size();
        let elem = comp * N;
        let Some(view) = acc.view() else {
            // No buffer view means all zeros (glTF 2.0, 3.6.2.1): never a
            // usable key time, rotation or inverse bind matrix.
            return at("no bufferView (all zeros) is not supported here".into());
        };
        let vpath = format!("bufferViews[{}]", view.index());
        let buf = &self.buffers[view.buffer().index()];
        let view_end = view.offset().checked_add(view.length());
        match view_end {
            Some(e) if e <= view.buffer().length() && e <= buf.len() => {}
            _ => {
                return err(
                    vpath,
                    format!(
                        "bytes {} + {} past the end of buffers[{}] ({} bytes)",
                        view.offset(),
                        view.length(),
                        view.buffer().index(),
                        view.buffer().length()
                    ),
                );
            }
        }
        let stride = view.stride().unwrap_or(elem);
        if stride < elem {
            return err(vpath, format!("byteStride {stride} < element size {elem}"));
        }
        if !acc.offset().is_multiple_of(comp) || !stride.is_multiple_of(comp) {
            return at("offset or stride not a multiple of the component size".into());
        }
        let needed = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem))
            .and_then(|x| x.checked_add(acc.offset()));
        match needed {
            Some(n) if n <= view.length() => {}
            _ => {
                return at(format!(
                    "count {count} x stride {stride} from offset {} is past the end of {vpath} ({} bytes)",
                    acc.offset(),
                    view.length()
                ));
            }
        }
        let bytes = &buf[view.offset()..view.offset() + view.length()];
        let mut out = Vec::new();
        out.try_reserve_exact(count).map_err(|_| Error::Gltf {
            path: path.clone(),
            reason: format!("count {count} is too large"),
        })?;
        for i in 0..count {
            let e = &bytes[acc.offset() + i * stride..][..elem];
            let v: [f32; N] = core::array::from_fn(|k| component(dt, &e[k * comp..][..comp]));
            if v.iter().any(|x| !x.is_finite()) {
                return at(format!("element {i} is not finite: {v:?}"));
            }
            out.push(v);
        }
        Ok(out)
    }
}

/// One little-endian component as f32 (normalized integers by the rules of
/// glTF 2.0, 3.11).
fn component(dt: DataType, b: &[u8]) -> f32 {
    match dt {
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DataType::I8 => (b[0] as i8 as f32 / 127.0).max(-1.0),
        DataType::U8 => b[0] as f32 / 255.0,
        DataType::I16 => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
        DataType::U16 => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}
