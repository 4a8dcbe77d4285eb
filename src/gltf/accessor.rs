//! Accessors read as f32 through the `gltf` crate's accessor iterator
//! (dense and sparse alike), after checking every byte it will touch lies
//! inside its buffer view and buffer, and that sparse indices rise and stay
//! below the count: the iterator computes its ranges unchecked and skips
//! indices out of order without a word.

use std::borrow::Cow;

use ::gltf::accessor::util::{Item, ItemIter, Iter};
use ::gltf::accessor::{DataType, Dimensions};

use super::{err, error};
use crate::error::{Result, bytes_text};

/// The buffers of a document that the reader needs, each checked to hold
/// its `byteLength` (`None`: not needed, not read).
pub(super) struct Data<'a> {
    pub(super) buffers: Vec<Option<Cow<'a, [u8]>>>,
}

/// The f32 values an accessor decodes to (count × components), saturating.
pub(super) fn values(acc: &::gltf::Accessor) -> usize {
    acc.count().saturating_mul(acc.dimensions().multiplicity())
}

/// The buffers an accessor reads: its view's and its sparse views'.
pub(super) fn buffers_of(acc: &::gltf::Accessor) -> Vec<usize> {
    let mut b: Vec<usize> = acc.view().map(|v| v.buffer().index()).into_iter().collect();
    if let Some(s) = acc.sparse() {
        b.push(s.indices().view().buffer().index());
        b.push(s.values().view().buffer().index());
    }
    b
}

/// Checks that an accessor has the type `dims` and f32 components (or,
/// when `allow_normalized`, normalized 8- or 16-bit integers).
pub(super) fn check_type(
    acc: &::gltf::Accessor,
    dims: Dimensions,
    allow_normalized: bool,
    used_as: &str,
) -> Result<()> {
    let at = || format!("{used_as} -> accessors[{}]", acc.index());
    if acc.dimensions() != dims {
        return err(
            at(),
            format!("type {:?}, expected {dims:?}", acc.dimensions()),
        );
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
        return err(
            at(),
            format!(
                "component type {dt:?}{} is not supported here",
                if acc.normalized() { " normalized" } else { "" }
            ),
        );
    }
    Ok(())
}

/// One range an iterator will read: `count` elements of `elem` bytes,
/// `stride` apart, from `offset` in `view`.
struct Range {
    offset: usize,
    count: usize,
    elem: usize,
    stride: usize,
}

impl Data<'_> {
    fn bytes(&self, b: usize) -> Option<&[u8]> {
        self.buffers.get(b).and_then(|x| x.as_deref())
    }

    /// Checks that `r` lies inside `view` and `view` inside its buffer.
    fn check(&self, view: &::gltf::buffer::View, r: &Range, at: &str) -> Result<()> {
        let vpath = format!("bufferViews[{}]", view.index());
        let b = view.buffer();
        let have = self.bytes(b.index()).map_or(0, <[u8]>::len);
        match view.offset().checked_add(view.length()) {
            Some(e) if e <= b.length() && e <= have => {}
            _ => {
                return err(
                    vpath,
                    format!(
                        "bytes {} + {} past the end of buffers[{}] ({} bytes)",
                        view.offset(),
                        view.length(),
                        b.index(),
                        b.length()
                    ),
                );
            }
        }
        if r.stride < r.elem {
            return err(
                vpath,
                format!("byteStride {} < element size {}", r.stride, r.elem),
            );
        }
        let needed = (r.count - 1)
            .checked_mul(r.stride)
            .and_then(|x| x.checked_add(r.elem))
            .and_then(|x| x.checked_add(r.offset));
        match needed {
            Some(n) if n <= view.length() => Ok(()),
            _ => err(
                at,
                format!(
                    "count {} x stride {} from offset {} is past the end of {vpath} ({} bytes)",
                    r.count,
                    r.stride,
                    r.offset,
                    view.length()
                ),
            ),
        }
    }

    /// The elements of an accessor of `dims`, flat (`count × components`
    /// f32, normalized integers converted when `allow_normalized`), after
    /// checking every byte and index it reads.
    pub(super) fn read(
        &self,
        acc: &::gltf::Accessor,
        dims: Dimensions,
        allow_normalized: bool,
        used_as: &str,
    ) -> Result<Vec<f32>> {
        check_type(acc, dims, allow_normalized, used_as)?;
        let at = format!("{used_as} -> accessors[{}]", acc.index());
        let dt = acc.data_type();
        let count = acc.count();
        if count == 0 {
            return err(at, "count is 0");
        }
        let comp = dt.size();
        let elem = comp * dims.multiplicity();
        if let Some(view) = acc.view() {
            let stride = view.stride().unwrap_or(elem);
            if !acc.offset().is_multiple_of(comp) || !stride.is_multiple_of(comp) {
                return err(at, "offset or stride not a multiple of the component size");
            }
            let r = Range {
                offset: acc.offset(),
                count,
                elem,
                stride,
            };
            self.check(&view, &r, &at)?;
        } else if acc.sparse().is_none() {
            // No buffer view and no sparse values means all zeros (glTF
            // 2.0, 3.6.2.1): never a usable key time, rotation or matrix.
            return err(at, "no bufferView (all zeros) is not supported here");
        }
        if let Some(sparse) = acc.sparse() {
            self.check_sparse(&sparse, count, elem, &at)?;
        }
        let n = count * dims.multiplicity();
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| {
            error(
                &at,
                format!(
                    "{n} values ({}) could not be reserved",
                    bytes_text(n.checked_mul(4))
                ),
            )
        })?;
        self.decode_as(acc, (dims, dt), &mut out, &at)?;
        if out.len() != n {
            return err(at, format!("{} values decoded, {n} expected", out.len()));
        }
        let w = dims.multiplicity();
        if let Some(i) = out.iter().position(|x| !x.is_finite()) {
            let e = i / w;
            return err(
                at,
                format!("element {e} is not finite: {:?}", &out[e * w..(e + 1) * w]),
            );
        }
        Ok(out)
    }

    /// The accessor's elements of `dims` and component type `dt` decoded
    /// into `out` as f32 (normalized integers to [-1, 1] or [0, 1]); other
    /// pairs are refused, naming the accessor (`at`).
    fn decode_as(
        &self,
        acc: &::gltf::Accessor,
        (dims, dt): (Dimensions, DataType),
        out: &mut Vec<f32>,
        at: &str,
    ) -> Result<()> {
        use DataType::*;
        use Dimensions::*;
        match (dims, dt) {
            (Scalar, F32) => self.decode(acc, out, |v: f32, o| o.push(v))?,
            (Vec3, F32) => self.decode(acc, out, |v: [f32; 3], o| o.extend(v))?,
            (Vec4, F32) => self.decode(acc, out, |v: [f32; 4], o| o.extend(v))?,
            (Vec4, I8) => self.decode(acc, out, |v: [i8; 4], o| {
                o.extend(v.map(|x| (x as f32 / 127.0).max(-1.0)))
            })?,
            (Vec4, U8) => self.decode(acc, out, |v: [u8; 4], o| {
                o.extend(v.map(|x| x as f32 / 255.0))
            })?,
            (Vec4, I16) => self.decode(acc, out, |v: [i16; 4], o| {
                o.extend(v.map(|x| (x as f32 / 32767.0).max(-1.0)))
            })?,
            (Vec4, U16) => self.decode(acc, out, |v: [u16; 4], o| {
                o.extend(v.map(|x| x as f32 / 65535.0))
            })?,
            (Mat4, F32) => self.decode(acc, out, |v: [[f32; 4]; 4], o| {
                o.extend(v.into_iter().flatten())
            })?,
            _ => return err(at, format!("{dims:?} of {dt:?} is not supported here")),
        }
        Ok(())
    }

    /// Checks a sparse accessor's index and value ranges, and that its
    /// indices rise strictly and stay below `count` (glTF 2.0, 3.6.2.3).
    fn check_sparse(
        &self,
        sparse: &::gltf::accessor::sparse::Sparse,
        count: usize,
        elem: usize,
        at: &str,
    ) -> Result<()> {
        let n = sparse.count();
        if n == 0 || n > count {
            return err(
                at,
                format!("sparse count {n}: must be 1 to the accessor's count {count}"),
            );
        }
        let (indices, values) = (sparse.indices(), sparse.values());
        let size = indices.index_type().size();
        let view = indices.view();
        let stride = view.stride().unwrap_or(size);
        let r = Range {
            offset: indices.offset(),
            count: n,
            elem: size,
            stride,
        };
        self.check(&view, &r, &format!("{at}.sparse.indices"))?;
        let view = values.view();
        let r = Range {
            offset: values.offset(),
            count: n,
            elem,
            stride: view.stride().unwrap_or(elem),
        };
        self.check(&view, &r, &format!("{at}.sparse.values"))?;
        // Both checked above: inside the view, which is inside the buffer.
        let iv = indices.view();
        let Some(bytes) = self.bytes(iv.buffer().index()) else {
            return err(at, "sparse indices: buffer not read");
        };
        let from = iv.offset() + indices.offset();
        let bytes = &bytes[from..from + stride * (n - 1) + size];
        use ::gltf::accessor::sparse::IndexType;
        let all: Vec<u32> = match indices.index_type() {
            IndexType::U8 => ItemIter::<u8>::new(bytes, stride).map(u32::from).collect(),
            IndexType::U16 => ItemIter::<u16>::new(bytes, stride).map(u32::from).collect(),
            IndexType::U32 => ItemIter::<u32>::new(bytes, stride).collect(),
        };
        let mut last: Option<u32> = None;
        for (k, &i) in all.iter().enumerate() {
            if i as usize >= count || last.is_some_and(|l| i <= l) {
                return err(
                    format!("{at}.sparse.indices"),
                    format!(
                        "index {k} is {i}: sparse indices must rise strictly and stay below the count {count}"
                    ),
                );
            }
            last = Some(i);
        }
        Ok(())
    }

    /// Every element through the `gltf` crate's iterator, dense or sparse.
    fn decode<T: Item + Copy>(
        &self,
        acc: &::gltf::Accessor,
        out: &mut Vec<f32>,
        push: impl Fn(T, &mut Vec<f32>),
    ) -> Result<()> {
        let Some(it) = Iter::<T>::new(acc.clone(), |b: ::gltf::Buffer| self.bytes(b.index()))
        else {
            return err(
                format!("accessors[{}]", acc.index()),
                "its data could not be read",
            );
        };
        for v in it.take(acc.count()) {
            push(v, out);
        }
        Ok(())
    }
}
