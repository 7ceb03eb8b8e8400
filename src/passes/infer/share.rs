//! Equal values kept once: computed values of [`SHARE_MIN_BYTES`] or more share their bytes,
//! smaller ones (axes, shapes, scalars, read or computed) the whole tensor.

use super::*;

impl Infer<'_> {
    /// The same tensor, its bytes shared with an equal value computed before.
    pub(super) fn share(&mut self, t: Arc<Tensor>) -> Arc<Tensor> {
        if t.data.len() < SHARE_MIN_BYTES {
            return t;
        }
        let bucket = self
            .shared
            .entry(crate::ir::hash_bytes(&t.data))
            .or_default();
        match bucket.iter().find(|d| **d == t.data) {
            Some(d) if Arc::ptr_eq(d, &t.data) => t,
            Some(d) => Arc::new(Tensor {
                et: t.et,
                shape: t.shape.clone(),
                data: d.clone(),
            }),
            None => {
                bucket.push(t.data.clone());
                t
            }
        }
    }

    /// The same small value as an equal one seen before (type, shape and bytes equal).
    pub(super) fn share_small(&mut self, t: Arc<Tensor>) -> Arc<Tensor> {
        if t.data.len() >= SHARE_MIN_BYTES {
            return t;
        }
        let same = t.clone();
        self.small_entry(t.et, &t.shape, &t.data, move || same)
    }

    /// A value of these bytes: an equal small one seen before, else a new one (a Const's
    /// value is looked up before it is copied, so equal constants allocate nothing).
    pub(super) fn small_value(
        &mut self,
        et: ElementType,
        shape: Vec<u64>,
        bytes: &[u8],
    ) -> Arc<Tensor> {
        if bytes.len() >= SHARE_MIN_BYTES {
            return Arc::new(Tensor::new(et, shape, bytes.to_vec()));
        }
        self.small_entry(et, &shape, bytes, || {
            Arc::new(Tensor::new(et, shape.clone(), bytes.to_vec()))
        })
    }

    /// The small value filed under (type, shape, bytes), else `make()`'s, filed there.
    fn small_entry(
        &mut self,
        et: ElementType,
        shape: &[u64],
        bytes: &[u8],
        make: impl FnOnce() -> Arc<Tensor>,
    ) -> Arc<Tensor> {
        let bucket = self.small.entry(small_key(et, shape, bytes)).or_default();
        let same = |d: &&Arc<Tensor>| d.et == et && d.shape == shape && *d.data == *bytes;
        if let Some(d) = bucket.iter().find(same) {
            return d.clone();
        }
        let t = make();
        bucket.push(t.clone());
        t
    }
}

/// The hash [`Infer::small_value`] files a value under.
fn small_key(et: ElementType, shape: &[u64], bytes: &[u8]) -> u64 {
    let mut h = crate::ir::hash_bytes(bytes) ^ (et as u64).rotate_left(32);
    for &d in shape {
        h = (h.rotate_left(7) ^ d).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}
