//! Kernels of the unary-shaped ops that are not elementwise: Softmax, CumSum, Reverse, PRelu
//! (channel slopes) and MVN-6.

use super::*;

/// The Softmax steps in one float type: `$get` reads the tensor, `$put` builds one.
macro_rules! softmax_in {
    ($t:ty, $get:expr, $put:expr, $v:expr, $ax:expr) => {{
        let (v, ax) = ($v, $ax);
        let x: Vec<$t> = $get(v).ok_or("bad")?;
        let mut red_shape = v.shape.clone();
        red_shape[ax] = 1;
        let reduce = |ty: &str, t: &crate::ir::tensor::Tensor, s: Vec<u64>| -> R<Vec<$t>> {
            Ok($get(&super::reduce::reduce_values(ty, t, &[ax], s)?).ok_or("bad")?)
        };
        let maxes = reduce("ReduceMax", v, red_shape.clone())?;
        let (_, maps) = math::bcast_index_maps(&[&v.shape, &red_shape]).ok_or("bcast")?;
        let e: Vec<$t> = x
            .iter()
            .zip(&maps[1])
            .map(|(&a, &m)| (a - maxes[m]).exp())
            .collect();
        let sums = reduce("ReduceSum", &$put(v.shape.clone(), &e), red_shape)?;
        let out: Vec<$t> = e.iter().zip(&maps[1]).map(|(&a, &m)| a / sums[m]).collect();
        $put(v.shape.clone(), &out)
    }};
}

/// Softmax: x - max (NaN-ignoring max), exp, Kahan sum, divide — OpenVINO's reference steps, in
/// f32 (f16/bf16 through f32) or in f64.
pub(super) fn softmax_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.as_ref().ok_or("no value")?;
    let r = v.shape.len();
    let ax = cx.attr_axis("axis", 1, r)?;
    let t = match v.et {
        E::F32 => softmax_in!(f32, math::f32s, math::from_f32s, &**v, ax),
        E::F64 => softmax_in!(f64, math::f64s, math::from_f64s, &**v, ax),
        E::F16 | E::Bf16 => {
            let w = convert::convert(v, E::F32).ok_or("bad")?;
            let t = softmax_in!(f32, math::f32s, math::from_f32s, &w, ax);
            convert::convert(&t, v.et).ok_or("bad")?
        }
        _ => return Err("no kernel".into()),
    };
    Ok(vec![Fact::with_value(t)])
}

/// CumSum (OpenVINO folds f32 only): sequential sums along the axis.
pub(super) fn cumsum_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.as_ref().ok_or("no value")?;
    if v.et != E::F32 {
        return Err("no kernel".into());
    }
    let r = v.shape.len();
    if r == 0 {
        // OpenVINO infers `[]`, but its CPU plugin crashes computing it (2026.4.1, measured).
        return Err("a scalar CumSum is not computed".into());
    }
    let ax = match cx.inputs.get(1) {
        Some(a) => norm_axis(*a.ints().ok_or("axis")?.first().ok_or("axis")?, r)?,
        None => 0,
    };
    let exclusive = cx.attr_bool("exclusive", false)?;
    let reverse = cx.attr_bool("reverse", false)?;
    let x = math::f32s(v).ok_or("bad")?;
    let mut out = vec![0f32; x.len()];
    let d = v.shape[ax] as usize;
    let inner: usize = v.shape[ax + 1..].iter().product::<u64>() as usize;
    let outer: usize = v.shape[..ax].iter().product::<u64>() as usize;
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * d + k) * inner + i;
            let order: Vec<usize> = if reverse {
                (0..d).rev().collect()
            } else {
                (0..d).collect()
            };
            let mut prev: Option<usize> = None;
            for &k in &order {
                out[at(k)] = match (prev, exclusive) {
                    (None, false) => x[at(k)],
                    (None, true) => 0.0,
                    (Some(p), false) => out[at(p)] + x[at(k)],
                    (Some(p), true) => out[at(p)] + x[at(p)],
                };
                prev = Some(k);
            }
        }
    }
    Ok(vec![Fact::with_value(math::from_f32s(
        v.shape.clone(),
        &out,
    ))])
}

/// Reverse-1: flip the axes given by index (mode "index") or by a boolean mask ("mask").
pub(super) fn reverse_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.clone().ok_or("no value")?;
    let shape = v.shape.clone();
    let r = shape.len();
    let a = cx.input(1)?.value.clone().ok_or("axes unknown")?;
    let mut flip = vec![false; r];
    if cx.attr_enum("mode", "index").as_str() == "mask" {
        let m = a.to_i64s().ok_or("bad mask")?;
        if m.len() != r {
            return Err(format!("mask has {} elements for rank {r}", m.len()).into());
        }
        for (f, &b) in flip.iter_mut().zip(&m) {
            *f = b != 0;
        }
    } else {
        for &ax in &a.to_i64s().ok_or("bad axes")? {
            flip[norm_axis(ax, r)?] = true;
        }
    }
    let _ = outs;
    let mut ic = vec![0u64; r];
    let map = super::shape_ops::index_map(&shape, |o| {
        for d in 0..r {
            ic[d] = if flip[d] { shape[d] - 1 - o[d] } else { o[d] };
        }
        ic.iter()
            .zip(&shape)
            .fold(0u64, |acc, (&c, &d)| acc * d + c) as usize
    });
    Ok(vec![Fact::with_value(super::shape_ops::remap(
        &v,
        shape.clone(),
        &map,
    )?)])
}

/// PRelu: `x < 0 ? x * slope : x`; a 1-D slope as long as the channel dim (dim 1, or dim 0 for
/// 1-D data) runs along the channels, any other slope broadcasts numpy-style.
pub(super) fn prelu_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.input(0)?.value.clone().ok_or("no value")?;
    let s = cx.input(1)?.value.clone().ok_or("no slope")?;
    let xs = x.shape.clone();
    let ch = usize::from(xs.len() > 1);
    let mut ss = s.shape.clone();
    if ss.len() == 1 && xs.get(ch) == Some(&ss[0]) {
        let mut c = vec![1u64; xs.len()];
        c[ch] = ss[0];
        ss = c;
    }
    let (out_shape, maps) = math::bcast_index_maps(&[&xs, &ss]).ok_or("cannot broadcast")?;
    // OpenVINO's reference broadcasts data and slope numpy-style into the data's buffer: a
    // broadcast shape with the data's element count ([4] with a slope [1,4]) is the data's.
    if out_shape.iter().product::<u64>() != xs.iter().product::<u64>() {
        return Err("slope does not broadcast to the data".into());
    }
    let t = match x.et {
        E::F32 => {
            let (a, b) = (math::f32s(&x).ok_or("bad")?, math::f32s(&s).ok_or("bad")?);
            let out: Vec<f32> = (0..a.len())
                .map(|i| {
                    let v = a[maps[0][i]];
                    if v < 0.0 {
                        v * b[maps[1][i]]
                    } else {
                        v
                    }
                })
                .collect();
            math::from_f32s(xs, &out)
        }
        E::I8 => {
            let (a, b) = (x.to_i64s().ok_or("bad")?, s.to_i64s().ok_or("bad")?);
            let out: Vec<i64> = (0..a.len())
                .map(|i| {
                    let v = a[maps[0][i]];
                    if v < 0 {
                        v.wrapping_mul(b[maps[1][i]])
                    } else {
                        v
                    }
                })
                .collect();
            Tensor::from_i64s(x.et, xs, &out).ok_or(crate::ops::bug("encode"))?
        }
        et => return Err(format!("no PRelu kernel for {et} outside folding").into()),
    };
    Ok(vec![Fact::with_value(t)])
}

/// MVN-6 (f32): mean (Kahan sum / count), subtract, then for normalize_variance the mean of the
/// squares, eps added inside or outside the sqrt, and a division — OpenVINO's reference steps.
pub(super) fn mvn_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.clone().ok_or("no value")?;
    if v.et != E::F32 {
        return Err("no kernel".into());
    }
    let r = v.shape.len();
    let mut axes: Vec<usize> = cx
        .ints(1)
        .ok_or("axes unknown")?
        .iter()
        .map(|&a| norm_axis(a, r))
        .collect::<R<_>>()?;
    axes.sort_unstable();
    axes.dedup();
    let norm = cx.attr_bool("normalize_variance", true)?;
    let eps = cx.attr_f64("eps", 1e-9)? as f32;
    let inside = match cx
        .attr_enum("eps_mode", "inside_sqrt")
        .as_str()
        .to_ascii_lowercase()
        .as_str()
    {
        "inside_sqrt" => true,
        "outside_sqrt" => false,
        m => return Err(format!("unknown eps_mode '{m}'").into()),
    };
    let mut red = v.shape.clone();
    for &a in &axes {
        red[a] = 1;
    }
    let x = math::f32s(&v).ok_or("bad")?;
    let (_, maps) = math::bcast_index_maps(&[&v.shape, &red]).ok_or("bcast")?;
    let mean = math::f32s(&super::reduce::reduce_values(
        "ReduceMean",
        &v,
        &axes,
        red.clone(),
    )?)
    .ok_or("bad")?;
    let mut out: Vec<f32> = x.iter().zip(&maps[1]).map(|(&a, &m)| a - mean[m]).collect();
    if norm {
        let sq: Vec<f32> = out.iter().map(|&a| a * a).collect();
        let var = math::f32s(&super::reduce::reduce_values(
            "ReduceMean",
            &math::from_f32s(v.shape.clone(), &sq),
            &axes,
            red,
        )?)
        .ok_or("bad")?;
        let den: Vec<f32> = var
            .iter()
            .map(|&m| {
                if inside {
                    (m + eps).sqrt()
                } else {
                    m.sqrt() + eps
                }
            })
            .collect();
        for (o, &m) in out.iter_mut().zip(&maps[1]) {
            *o /= den[m];
        }
    }
    Ok(vec![Fact::with_value(math::from_f32s(
        v.shape.clone(),
        &out,
    ))])
}
