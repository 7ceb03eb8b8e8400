//! Static numpy broadcasting for the binary kernels: output shape, per-input strides and the
//! inner-dimension loop that applies an op without index maps.

use super::*;

/// Flat index maps for numpy broadcasting of two static shapes.
pub(crate) fn bcast_maps(a: &[u64], b: &[u64]) -> Option<(Vec<u64>, Vec<usize>, Vec<usize>)> {
    // Fast paths: equal shapes, or one side holding a single element.
    let (na, nb) = (a.iter().product::<u64>(), b.iter().product::<u64>());
    if a == b || (nb == 1 && a.len() >= b.len()) || (na == 1 && b.len() >= a.len()) {
        let out = if a.len() >= b.len() && (a == b || nb == 1) {
            a.to_vec()
        } else {
            b.to_vec()
        };
        let n = out.iter().product::<u64>() as usize;
        if n > MAX_EVAL_ELEMS {
            return None;
        }
        let id: Vec<usize> = (0..n).collect();
        let (ia, ib) = if a == b {
            (id.clone(), id)
        } else if nb == 1 {
            (id, vec![0; n])
        } else {
            (vec![0; n], id)
        };
        return Some((out, ia, ib));
    }

    // The general case: pairs of flat indices, by the same loop the kernels use.
    bcast_shapes(a, b)?;
    let ids = |s: &[u64]| -> Vec<usize> { (0..s.iter().product::<u64>() as usize).collect() };
    let (out, pairs) = bcast_apply(a, b, &ids(a), &ids(b), |i, j| (i, j))?;
    let (ia, ib) = pairs.into_iter().unzip();
    Some((out, ia, ib))
}

/// Numpy broadcasting of two static shapes: both left-padded with 1s, the output shape and its
/// element count; `None` when they do not broadcast or the output is over the evaluation limit.
#[allow(clippy::type_complexity)]
pub(super) fn bcast_shapes(a: &[u64], b: &[u64]) -> Option<(Vec<u64>, Vec<u64>, Vec<u64>, u64)> {
    let n = a.len().max(b.len());
    let pad = |s: &[u64]| -> Vec<u64> {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(a), pad(b));
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match (pa[i], pb[i]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        });
    }
    let total = out.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    if total as usize > MAX_EVAL_ELEMS {
        return None;
    }
    Some((pa, pb, out, total))
}

/// Element strides of a padded input shape, 0 along broadcast (size-1) dimensions.
pub(super) fn bcast_strides(s: &[u64]) -> Vec<u64> {
    let mut st = vec![0u64; s.len()];
    let mut acc = 1;
    for i in (0..s.len()).rev() {
        st[i] = if s[i] == 1 { 0 } else { acc };
        acc *= s[i];
    }
    st
}

/// `f` over the numpy-broadcast pairs of `va` (shape `a`) and `vb` (shape `b`): the output
/// shape and values. No index maps: the innermost dimension is a tight loop.
pub(super) fn bcast_apply<T: Copy, U>(
    a: &[u64],
    b: &[u64],
    va: &[T],
    vb: &[T],
    f: impl Fn(T, T) -> U,
) -> Option<(Vec<u64>, Vec<U>)> {
    let (pa, pb, out, total) = bcast_shapes(a, b)?;
    let n = out.len();
    if va.len() as u64 != pa.iter().product::<u64>()
        || vb.len() as u64 != pb.iter().product::<u64>()
    {
        return None;
    }
    let mut vals = Vec::with_capacity(total as usize);
    if total == 0 {
        return Some((out, vals));
    }
    if n == 0 {
        vals.push(f(va[0], vb[0]));
        return Some((out, vals));
    }
    let strides =
        |s: &[u64]| -> Vec<usize> { bcast_strides(s).iter().map(|&x| x as usize).collect() };
    let (sa, sb) = (strides(&pa), strides(&pb));
    let inner = out[n - 1] as usize;
    let (ia_in, ib_in) = (sa[n - 1], sb[n - 1]);
    let mut idx = vec![0u64; n];
    let (mut oa, mut ob) = (0usize, 0usize);
    for _ in 0..total as usize / inner {
        match (ia_in, ib_in) {
            (1, 1) => vals.extend(
                va[oa..oa + inner]
                    .iter()
                    .zip(&vb[ob..ob + inner])
                    .map(|(&x, &y)| f(x, y)),
            ),
            (1, 0) => {
                let y = vb[ob];
                vals.extend(va[oa..oa + inner].iter().map(|&x| f(x, y)));
            }
            (0, 1) => {
                let x = va[oa];
                vals.extend(vb[ob..ob + inner].iter().map(|&y| f(x, y)));
            }
            _ => {
                let (x, y) = (va[oa], vb[ob]);
                vals.extend((0..inner).map(|_| f(x, y)));
            }
        }
        for d in (0..n - 1).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                oa += sa[d];
                ob += sb[d];
                break;
            }
            oa -= sa[d] * (out[d] as usize - 1);
            ob -= sb[d] * (out[d] as usize - 1);
            idx[d] = 0;
        }
    }
    Some((out, vals))
}
