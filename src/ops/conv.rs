//! Convolution family and MatMul: output spatial dims with OpenVINO's interval arithmetic
//! (subtractions clamp at 0, so `[1,3,1..64,?]` stride 2 pad 1 k3 → `[1,8,1..32,1..]`).

use super::ovdim::Iv;
use super::*;
use crate::ir::{Dim, Dims, PartialShape};

/// Which member of the convolution family a rule runs for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ConvKind {
    /// Convolution-1, BinaryConvolution-1.
    Fwd,
    GroupFwd,
    Backprop,
    GroupBackprop,
    /// DeformableConvolution-1/8 (filter at input 2).
    Deformable,
}

impl ConvKind {
    fn group(self) -> bool {
        matches!(self, ConvKind::GroupFwd | ConvKind::GroupBackprop)
    }
    fn backprop(self) -> bool {
        matches!(self, ConvKind::Backprop | ConvKind::GroupBackprop)
    }
    /// Filter dims before the spatial ones.
    fn filter_non_spatial(self) -> usize {
        if self.group() {
            3
        } else {
            2
        }
    }
}

/// The convolution family's attributes after OpenVINO's `resize_attributes`: empty strides,
/// dilations and output_padding become 1s / 0s for `n` spatial dims, pads 0s (all 0 for
/// `valid`, and for `same_*` where the shape rule does not read them).
struct ConvAttrs {
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads_begin: Vec<i64>,
    pads_end: Vec<i64>,
    output_padding: Vec<i64>,
    same: bool,
}

fn conv_attrs(cx: &Ctx, n: usize, kind: ConvKind) -> R<ConvAttrs> {
    let get = |k: &str, fill: i64| -> R<Vec<i64>> {
        Ok(match cx.attr_ints(k)? {
            Some(v) if !v.is_empty() => v,
            _ => vec![fill; n],
        })
    };
    let auto_pad = cx.attr_enum("auto_pad", "explicit");
    let (same, valid) = match auto_pad.as_str() {
        "explicit" | "notset" => (false, false),
        "valid" => (false, true),
        "same_upper" | "same_lower" => (true, false),
        other => {
            return Err(OpError::attr(
                "auto_pad",
                format!("unknown auto_pad '{other}'"),
            ))
        }
    };
    let mut a = ConvAttrs {
        strides: get("strides", 1)?,
        dilations: get("dilations", 1)?,
        pads_begin: get("pads_begin", 0)?,
        pads_end: get("pads_end", 0)?,
        output_padding: get("output_padding", 0)?,
        same,
    };
    let check = |name: &str, v: &[i64]| -> R<()> {
        if v.len() != n {
            return Err(OpError::attr(
                name,
                format!(
                    "{name} has {} values but there are {n} spatial dims",
                    v.len()
                ),
            ));
        }
        Ok(())
    };
    check("strides", &a.strides)?;
    check("dilations", &a.dilations)?;
    check("pads_begin", &a.pads_begin)?;
    check("pads_end", &a.pads_end)?;
    if kind.backprop() {
        check("output_padding", &a.output_padding)?;
    }
    for (name, v) in [("strides", &a.strides), ("dilations", &a.dilations)] {
        if v.iter().any(|&x| x <= 0) {
            return Err(OpError::attr(
                name,
                format!("{name} must be positive, are {v:?}"),
            ));
        }
    }
    if valid || (same && kind.backprop()) {
        // Backprop without an output_shape input ignores same_* pads (OpenVINO's apply_padding).
        a.pads_begin = vec![0; n];
        a.pads_end = vec![0; n];
    }
    Ok(a)
}

/// The number of spatial dims as OpenVINO's `calculate_num_spatial` finds it: from data's
/// rank, else the filter's, else (backprop) the output_shape input's length, else the
/// attributes' lengths; `None` gives a dynamic-rank output.
fn conv_num_spatial(cx: &Ctx, kind: ConvKind, out_spatial: &PartialShape) -> R<Option<usize>> {
    let fi = if kind == ConvKind::Deformable { 2 } else { 1 };
    let under = |r: usize, k: usize, what: &str, s: &PartialShape| -> R<usize> {
        r.checked_sub(k)
            .ok_or_else(|| format!("{what} {} has too low a rank", sh(s)).into())
    };
    if let Some(r) = cx.input(0)?.shape.rank() {
        return under(r, 2, "data", &cx.input(0)?.shape).map(Some);
    }
    let f = &cx.input(fi)?.shape;
    if let Some(r) = f.rank() {
        return under(r, kind.filter_non_spatial(), "filter", f).map(Some);
    }
    if kind == ConvKind::Deformable {
        // A static-rank offsets input means rank 4.
        return Ok(cx.input(1)?.shape.rank().map(|_| 2));
    }
    if kind.backprop() && cx.inputs.len() == 3 {
        if let Some(n) = out_spatial.rank().filter(|&n| n > 0) {
            return Ok(Some(n));
        }
    }
    for k in ["strides", "dilations", "pads_begin", "pads_end"] {
        if let Some(v) = cx.attr_ints(k)?.filter(|v| !v.is_empty()) {
            return Ok(Some(v.len()));
        }
    }
    Ok(None)
}

/// The output_shape input of a backprop convolution as OpenVINO reads it: its values (or their
/// bounds, `evaluate_as_partial_shape`), else `?` per element when its length is static, else a
/// dynamic rank.
fn conv_out_spatial(cx: &Ctx) -> R<PartialShape> {
    if cx.inputs.len() < 3 {
        return Ok(PartialShape::Ranked(Dims::new()));
    }
    let f = cx.input(2)?;
    if f.shape.rank().is_some_and(|r| r != 1) {
        return Err(OpError::input(
            2,
            format!("output_shape must have rank 1, is {}", sh(&f.shape)),
        ));
    }
    if let Some(v) = cx.ints(2) {
        return Ok(PartialShape::Ranked(
            v.iter().map(|&x| Iv::int(x).dim()).collect(),
        ));
    }
    if let Some(b) = cx.shape_bounds(2) {
        return Ok(PartialShape::Ranked(
            (0..b.lo.len())
                .map(|k| super::signal::bound_dim(&b, k).unwrap_or(Dim::any()))
                .collect(),
        ));
    }
    Ok(match f.shape.dims().and_then(|d| d[0].get()) {
        Some(n) => PartialShape::Ranked((0..n).map(|_| Dim::any()).collect()),
        None => PartialShape::Dynamic,
    })
}

/// A dim of `s` (or `?` when its rank is dynamic), counted from the end.
fn last_dim(s: &PartialShape, n: usize, i: usize) -> Iv {
    match s.dims() {
        Some(d) => Iv::of(d[d.len() - n + i]),
        None => Iv::of(Dim::any()),
    }
}

/// The convolution family's shape rules, ported from OpenVINO's
/// `convolution_shape_inference*.hpp`, `group_convolution*`, and
/// `deformable_convolution_shape_inference.hpp`: every dim in OpenVINO's interval arithmetic
/// (so a dynamic-rank data still gives spatial dims `1..`), the validations it makes, and the
/// channel merges it does.
fn conv_family(cx: &Ctx, kind: ConvKind) -> R<Vec<Fact>> {
    let fi = if kind == ConvKind::Deformable { 2 } else { 1 };
    let (x, f) = (cx.input(0)?, cx.input(fi)?);
    let et = if cx.ty == "BinaryConvolution" {
        x.et
    } else {
        let mut et = merge_et(x.et, f.et)?;
        if kind == ConvKind::Deformable {
            for g in &cx.inputs[1..] {
                et = merge_et(et, g.et)?;
            }
        }
        et
    };
    let out_spatial = if kind.backprop() {
        conv_out_spatial(cx)?
    } else {
        PartialShape::Dynamic
    };
    let Some(n) = conv_num_spatial(cx, kind, &out_spatial)? else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let (xs, fs) = (&x.shape, &f.shape);
    let xd = xs.dims();
    let fd = fs.dims();
    if kind.backprop() && cx.inputs.len() == 3 {
        if let Some(r) = out_spatial.rank().filter(|&r| r != n) {
            return Err(OpError::input(
                2,
                format!("output_shape has {r} values but there are {n} spatial dims"),
            ));
        }
    }
    conv_check_ranks(cx, kind, n)?;
    let a = conv_attrs(cx, n, kind)?;
    let mut out = Dims::new();
    out.push(xd.map_or(Dim::any(), |d| d[0]));
    match kind {
        ConvKind::Fwd => out.push(fd.map_or(Dim::any(), |d| d[0])),
        ConvKind::Backprop => out.push(fd.map_or(Dim::any(), |d| d[1])),
        ConvKind::GroupFwd | ConvKind::GroupBackprop => match fd {
            // groups = filter[0], merged with data channels / filter input channels.
            Some(fd) => out.push(group_channels(kind, xs, fs, xd, fd)?),
            None => out.push(Dim::any()),
        },
        ConvKind::Deformable => deformable_channels(cx, xs, fs, &mut out)?,
    }
    conv_spatial(cx, kind, &a, n, &out_spatial, &mut out)?;
    if kind == ConvKind::Deformable {
        check_deformable_spatial(cx, n, &out)?;
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// The rank checks of the convolution family: deformable inputs are 4-D; otherwise data and
/// filter ranks agree with each other and with `n` spatial dims, and channels match.
fn conv_check_ranks(cx: &Ctx, kind: ConvKind, n: usize) -> R<()> {
    let fi = if kind == ConvKind::Deformable { 2 } else { 1 };
    let (xs, fs) = (&cx.input(0)?.shape, &cx.input(fi)?.shape);
    let k_off = kind.filter_non_spatial();
    let (xd, fd) = (xs.dims(), fs.dims());
    if kind == ConvKind::Deformable {
        for (i, g) in cx.inputs.iter().enumerate() {
            if g.shape.rank().is_some_and(|r| r != 4) {
                return Err(OpError::input(
                    i,
                    format!("must have rank 4, is {}", sh(&g.shape)),
                ));
            }
        }
    } else {
        if let (Some(xd), Some(fd)) = (xd, fd) {
            if xd.len() + k_off - 2 != fd.len() {
                return Err(
                    format!("data {} and filter {} ranks do not match", sh(xs), sh(fs)).into(),
                );
            }
        }
        if xd.is_some_and(|d| !(3..=5).contains(&d.len())) {
            return Err(format!("data {} must have rank 3, 4 or 5", sh(xs)).into());
        }
        if let (Some(xd), Some(fd), ConvKind::Fwd | ConvKind::Backprop) = (xd, fd, kind) {
            let fc = if kind == ConvKind::Fwd { fd[1] } else { fd[0] };
            if merge_dim(xd[1], fc).is_none() {
                return Err(format!(
                    "data channels {} do not match the filter's input channels {} (data {}, filter {})",
                    xd[1],
                    fc,
                    sh(xs),
                    sh(fs)
                )
                .into());
            }
        }
    }
    if xd.is_none() && fd.is_some_and(|d| d.len() != n + k_off) {
        return Err(format!("filter {} has the wrong rank for {n} spatial dims", sh(fs)).into());
    }
    Ok(())
}

/// Output channels of a group (backprop) convolution: groups (filter dim 0, merged with the
/// data channels over the per-group input channels) times the per-group output channels.
fn group_channels(
    kind: ConvKind,
    xs: &PartialShape,
    fs: &PartialShape,
    xd: Option<&[Dim]>,
    fd: &[Dim],
) -> R<Dim> {
    let (per_group_in, per_group_out) = if kind == ConvKind::GroupFwd {
        (fd[2], fd[1])
    } else {
        (fd[1], fd[2])
    };
    let mut groups = fd[0];
    if let (Some(xd), Some(k)) = (xd, per_group_in.get()) {
        let bad = || -> OpError {
            format!(
                "data channels {} are not the filter's groups x input channels (data {}, filter {})",
                xd[1],
                sh(xs),
                sh(fs)
            )
            .into()
        };
        // OpenVINO divides in double: by 0 every bound becomes the integer
        // conversion of inf/NaN, i.e. 0 after clipping (measured), `?` stays `?`.
        let per = match k {
            0 if xd[1] != Dim::any() => Dim::known(0),
            0 => Dim::any(),
            // Not evenly divisible: OpenVINO's empty interval merges with nothing.
            _ if ov_div_empty(xd[1], k) => return Err(bad()),
            _ => ov_dim_div(xd[1], k),
        };
        groups = merge_dim(groups, per).ok_or_else(bad)?;
    }
    Ok(Iv::of(groups).mul(Iv::of(per_group_out)).dim())
}

/// DeformableConvolution's batch (merged with the offsets') and output channels, after its
/// group, deformable_group, offsets and mask checks; `out` holds the batch on entry.
fn deformable_channels(cx: &Ctx, xs: &PartialShape, fs: &PartialShape, out: &mut Dims) -> R<()> {
    let (xd, fd) = (xs.dims(), fs.dims());
    let group = cx.attr_i64("group", 1)?;
    let dg = cx.attr_i64("deformable_group", 1)?;
    for (name, g) in [("group", group), ("deformable_group", dg)] {
        if g <= 0 {
            return Err(OpError::attr(name, format!("{name} must be >= 1, is {g}")));
        }
    }
    // OpenVINO's dim::is_divisible: `d / g` is not the empty interval.
    let divisible = |d: Dim, g: i64| !ov_div_empty(d, g as u64);
    let mut batch = xd.map_or(Dim::any(), |d| d[0]);
    if let Some(xd) = xd {
        if !divisible(xd[1], group) {
            return Err(
                format!("data channels {} are not divisible by group {group}", xd[1]).into(),
            );
        }
    }
    let kernel_area = fd.map(|fd| Iv::of(fd[2]).mul(Iv::of(fd[3])).mul(Iv::int(dg)));
    // Offsets (input 1: 2 per kernel element) and v8's mask (input 3: 1 per element):
    // channels fit the kernel area x deformable_group and divide by the latter; the
    // batch merges (offsets) or must be compatible (mask).
    for (j, what, per) in [(1, "offsets", 2), (3, "mask", 1)] {
        let Some(ed) = cx.inputs.get(j).and_then(|e| e.shape.dims()) else {
            continue;
        };
        if let Some(ka) = kernel_area {
            if merge_dim(ed[1], ka.mul(Iv::int(per)).dim()).is_none() {
                return Err(OpError::input(
                    j,
                    format!(
                        "{what} channels {} do not match the filter {} and deformable_group {dg}",
                        ed[1],
                        sh(fs)
                    ),
                ));
            }
        }
        if !divisible(ed[1], dg) {
            return Err(OpError::input(
                j,
                format!(
                    "{what} channels {} are not divisible by deformable_group {dg}",
                    ed[1]
                ),
            ));
        }
        let bad_batch = || {
            OpError::input(
                j,
                format!("{what} batch {} does not match data {}", ed[0], sh(xs)),
            )
        };
        if j == 1 {
            batch = merge_dim(batch, ed[0]).ok_or_else(bad_batch)?;
        } else if xd.is_some_and(|xd| merge_dim(ed[0], xd[0]).is_none()) {
            return Err(bad_batch());
        }
    }
    out[0] = batch;
    match fd {
        Some(fd) => {
            if !divisible(fd[0], group) {
                return Err(format!(
                    "filter output channels {} are not divisible by group {group}",
                    fd[0]
                )
                .into());
            }
            let want = Iv::of(fd[1]).mul(Iv::int(group)).dim();
            if xd.is_some_and(|xd| merge_dim(xd[1], want).is_none()) {
                return Err(format!(
                    "data channels do not match the filter's {want} (data {}, filter {})",
                    sh(xs),
                    sh(fs)
                )
                .into());
            }
            out.push(fd[0]);
        }
        None => out.push(Dim::any()),
    }
    Ok(())
}

/// The spatial output dims, pushed onto `out`: forward windows (explicit or auto pads), or
/// backprop's from the data or from `output_shape`.
fn conv_spatial(
    cx: &Ctx,
    kind: ConvKind,
    a: &ConvAttrs,
    n: usize,
    out_spatial: &PartialShape,
    out: &mut Dims,
) -> R<()> {
    let fi = if kind == ConvKind::Deformable { 2 } else { 1 };
    let (xs, fs) = (&cx.input(0)?.shape, &cx.input(fi)?.shape);
    for i in 0..n {
        let (d, k) = (last_dim(xs, n, i), last_dim(fs, n, i));
        let (s, dil) = (a.strides[i], a.dilations[i]);
        let dim = if kind.backprop() {
            if cx.inputs.len() == 3 {
                match out_spatial.dims() {
                    Some(o) => o[i],
                    // OpenVINO inserts the dims of a dynamic-rank output_shape: none.
                    None => break,
                }
            } else {
                d.sub(Iv::int(1))
                    .mul(Iv::int(s))
                    .add(k.dilated(dil))
                    .padded(
                        a.output_padding[i]
                            .saturating_sub(a.pads_begin[i])
                            .saturating_sub(a.pads_end[i]),
                    )
                    .dim()
            }
        } else if a.same {
            d.ceil_div(s).dim()
        } else {
            let padded = d.add(Iv::int(a.pads_begin[i].saturating_add(a.pads_end[i])));
            let kd = k.dilated(dil);
            if padded.is_static() && kd.is_static() && kd.dim().min > padded.dim().min {
                return Err(format!(
                    "the kernel after dilation ({}) is larger than the padded input dimension ({}) at spatial axis {i}",
                    kd.dim(),
                    padded.dim()
                )
                .into());
            }
            padded.sub(kd).floor_div(s).add(Iv::int(1)).dim()
        };
        out.push(dim);
    }
    Ok(())
}

/// Deformable offsets' and mask's spatial dims must match the output's.
fn check_deformable_spatial(cx: &Ctx, n: usize, out: &Dims) -> R<()> {
    for (j, what) in [(1, "offsets"), (3, "mask")] {
        let Some(ed) = cx.inputs.get(j).and_then(|e| e.shape.dims()) else {
            continue;
        };
        for i in 0..n.min(ed.len().saturating_sub(2)) {
            if merge_dim(out[2 + i], ed[2 + i]).is_none() {
                return Err(OpError::input(
                    j,
                    format!(
                        "{what} spatial dims {} do not match the output's {}",
                        sh(&e_shape(ed)),
                        sh(&PartialShape::Ranked(out.clone()))
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn e_shape(d: &[Dim]) -> PartialShape {
    PartialShape::Ranked(d.iter().copied().collect())
}

fn conv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    conv_family(cx, ConvKind::Fwd)
}
fn group_conv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    conv_family(cx, ConvKind::GroupFwd)
}
fn conv_bp_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    conv_family(cx, ConvKind::Backprop)
}
fn group_conv_bp_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    conv_family(cx, ConvKind::GroupBackprop)
}
fn deformable_conv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, if cx.version >= 8 { 4 } else { 3 })?;
    conv_family(cx, ConvKind::Deformable)
}

/// MatMul's attributes.
#[derive(Clone, Copy)]
struct MatMulAttrs {
    ta: bool,
    tb: bool,
}

impl Attrs for MatMulAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        Ok(MatMulAttrs {
            ta: cx.attr_bool("transpose_a", false)?,
            tb: cx.attr_bool("transpose_b", false)?,
        })
    }
}

fn matmul_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(a.et, b.et)?;
    let (Some(ad), Some(bd)) = (a.shape.dims(), b.shape.dims()) else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let MatMulAttrs { ta, tb } = *cx.attrs::<MatMulAttrs>()?;
    if ad.is_empty() || bd.is_empty() {
        return Err("MatMul inputs must not be scalars".into());
    }
    let mut av: Vec<Dim> = ad.to_vec();
    let mut bv: Vec<Dim> = bd.to_vec();
    let (a1, b1) = (av.len() == 1, bv.len() == 1);
    if a1 {
        av.insert(0, Dim::known(1));
    } else if ta {
        let n = av.len();
        av.swap(n - 1, n - 2);
    }
    if b1 {
        bv.push(Dim::known(1));
    } else if tb {
        let n = bv.len();
        bv.swap(n - 1, n - 2);
    }
    let (m, ka) = (av[av.len() - 2], av[av.len() - 1]);
    let (kb, n) = (bv[bv.len() - 2], bv[bv.len() - 1]);
    // OpenVINO keeps an interval mismatch "for backward compatibility": only two static dims
    // that differ are an error.
    if merge_dim(ka, kb).is_none() && ka.is_static() && kb.is_static() {
        return Err(format!(
            "incompatible matrix dimensions: {ka} vs {kb} (a {}, b {}, transpose_a={ta}, transpose_b={tb})",
            sh(&a.shape),
            sh(&b.shape)
        ).into());
    }
    // Batch dims broadcast one by one; a pair that cannot broadcast is an error only when both
    // are static, else `?` (OpenVINO, "for backward compatibility": [2] with [8..13]).
    let (ba, bb) = (&av[..av.len() - 2], &bv[..bv.len() - 2]);
    let rank = ba.len().max(bb.len());
    let pad = |v: &[Dim], i: usize| match (i + v.len()).checked_sub(rank) {
        Some(j) => v[j],
        None => Dim::known(1),
    };
    let mut out = Dims::new();
    for i in 0..rank {
        let (x, y) = (pad(ba, i), pad(bb, i));
        let one = |d: Dim| PartialShape::Ranked([d].into_iter().collect());
        match broadcast_numpy(&one(x), &one(y)) {
            Ok(d) => out.push(d.dims().map_or(Dim::any(), |d| d[0])),
            Err(_) if !x.is_static() || !y.is_static() => out.push(Dim::any()),
            Err(e) => {
                return Err(format!(
                    "batch dims of a {} and b {} cannot be broadcast: {}",
                    sh(&a.shape),
                    sh(&b.shape),
                    e.msg
                )
                .into())
            }
        }
    }
    if !a1 {
        out.push(m);
    }
    if !b1 {
        out.push(n);
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// MatMul values: transposes materialized, batch dims broadcast, then per batch
/// `for i, for k, for j: out[i][j] += a[i][k] * b[k][j]` accumulated in the element type.
fn matmul_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    use super::math;
    let (a, b) = (
        cx.input(0)?.value.clone().ok_or("value")?,
        cx.input(1)?.value.clone().ok_or("value")?,
    );
    let out = matmul_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("output shape not static")?;
    let MatMulAttrs { ta, tb } = *cx.attrs::<MatMulAttrs>()?;
    // Logical 2-D+ shapes of a and b after 1-D promotion.
    let mut sa = a.shape.clone();
    let mut sb = b.shape.clone();
    let (ta, tb) = (ta && sa.len() > 1, tb && sb.len() > 1);
    if sa.len() == 1 {
        sa.insert(0, 1);
    }
    if sb.len() == 1 {
        sb.push(1);
    }
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k) = if ta {
        (sa[ra - 1], sa[ra - 2])
    } else {
        (sa[ra - 2], sa[ra - 1])
    };
    let n = if tb { sb[rb - 2] } else { sb[rb - 1] };
    let (batch, maps) = math::bcast_index_maps(&[&sa[..ra - 2], &sb[..rb - 2]])
        .ok_or("batch dims do not broadcast")?;
    let nb: usize = batch.iter().product::<u64>() as usize;
    let (m, k, n) = (m as usize, k as usize, n as usize);
    let (ma, mb) = (m * k, k * n);
    let at = |bi: usize, i: usize, kk: usize| -> usize {
        maps[0][bi] * ma + if ta { kk * m + i } else { i * k + kk }
    };
    let bt = |bi: usize, kk: usize, j: usize| -> usize {
        maps[1][bi] * mb + if tb { j * k + kk } else { kk * n + j }
    };
    macro_rules! run {
        ($t:ty, $x:expr, $y:expr, $zero:expr) => {{
            let (x, y) = ($x, $y);
            let mut o = vec![$zero; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for kk in 0..k {
                        let av: $t = x[at(bi, i, kk)];
                        for j in 0..n {
                            let p = av * y[bt(bi, kk, j)];
                            o[(bi * m + i) * n + j] += p;
                        }
                    }
                }
            }
            o
        }};
    }
    let t = match a.et {
        crate::ir::ElementType::F32 => {
            let (x, y) = (math::f32s(&a).ok_or("bad")?, math::f32s(&b).ok_or("bad")?);
            math::from_f32s(os, &run!(f32, x, y, 0f32))
        }
        et if et.is_integral() && et.byte_size().is_some() => {
            let (x, y) = (a.to_i64s().ok_or("bad")?, b.to_i64s().ok_or("bad")?);
            let mut o = vec![0i64; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for kk in 0..k {
                        let av = x[at(bi, i, kk)];
                        for j in 0..n {
                            let idx = (bi * m + i) * n + j;
                            o[idx] = o[idx].wrapping_add(av.wrapping_mul(y[bt(bi, kk, j)]));
                        }
                    }
                }
            }
            crate::ir::tensor::Tensor::from_i64s(et, os, &o).ok_or(crate::ops::bug("encode"))?
        }
        _ => return Err("no kernel".into()),
    };
    Ok(vec![Fact::with_value(t)])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("Convolution", &all, d(conv_infer));
    r.add("GroupConvolution", &all, d(group_conv_infer));
    r.add("ConvolutionBackpropData", &all, d(conv_bp_infer));
    r.add("GroupConvolutionBackpropData", &all, d(group_conv_bp_infer));
    r.add("DeformableConvolution", &all, d(deformable_conv_infer));
    // OpenVINO infers BinaryConvolution with Convolution's rule (output: data's type).
    r.add("BinaryConvolution", &all, d(conv_infer));
    // OpenVINO folds MatMul for these types only (measured); i8/u8 stay for the runtime.
    r.add(
        "MatMul",
        &all,
        OpDef::with_eval(matmul_infer, matmul_eval).kernel_types(ov_common_kernel_type),
    );
}
