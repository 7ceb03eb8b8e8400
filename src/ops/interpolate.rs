//! Interpolate-0/4/11: the shape rule for every version, and the kernel OpenVINO's
//! ConstantFolding runs for Interpolate-4/11 (f32, f16/bf16 computed in f32, i8, u8).
//!
//! The kernel follows OpenVINO's reference (`ov::reference::interpolate`,
//! `interpolate_pil.hpp`) operation by operation so the bits match: coordinates and weights in
//! f32 (Pillow modes in f64), the same summation order, and the same casts back to i8/u8
//! (linear rounds; linear_onnx and cubic truncate through a 32-bit integer; Pillow rounds half
//! away from zero and clamps, after each of its two passes).

mod pillow;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};
use pillow::pillow;

/// Interpolate-4/11 (and -0 with its `axes` attribute).
fn interpolate_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let r = d.len();
    let at = cx.attrs::<InterpolateAttrs>()?;
    let (pb, pe) = (&at.pads_begin, &at.pads_end);
    // Interpolate-0 ignores its pads attributes (OpenVINO 2026.4.1, measured).
    let no_pads = Vec::new();
    let (pb, pe) = if cx.version == 0 {
        (&no_pads, &no_pads)
    } else {
        (pb, pe)
    };
    let padded: Vec<Dim> = (0..r)
        .map(|i| {
            // In i128: pads from the file may be anywhere in i64; a bound past i64::MAX is
            // unknown (the dim `?`, or unbounded above).
            let p =
                pb.get(i).copied().unwrap_or(0) as i128 + pe.get(i).copied().unwrap_or(0) as i128;
            d[i].map_bounds(|v: u64| {
                let s = (v as i128 + p).max(0);
                (s <= i64::MAX as i128).then_some(s as u64)
            })
        })
        .collect();
    let mut out: Dims = padded.iter().copied().collect();
    if cx.version == 0 {
        resize_v0(cx, at, r, &mut out)?;
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))]);
    }
    let (scales_idx, sizes_idx, axes_idx) = if cx.version >= 11 {
        cx.expect_inputs(2, 3)?;
        // Input 1 holds scales or sizes, as the mode says; OpenVINO checks its type.
        let et = cx.input(1)?.et;
        if at.sizes_mode && !matches!(et, E::I32 | E::I64 | E::U32 | E::U64 | E::Dynamic) {
            return Err(OpError::input(
                1,
                format!("Sizes element type must be i32, i64, u32 or u64 (shape_calculation_mode=\"sizes\"), is {et}"),
            ));
        }
        if !at.sizes_mode && !matches!(et, E::F32 | E::F16 | E::Bf16 | E::Dynamic) {
            return Err(OpError::input(
                1,
                format!("Scales element type must be f32, f16 or bf16 (shape_calculation_mode=\"scales\"), is {et}"),
            ));
        }
        (1, 1, 2)
    } else {
        cx.expect_inputs(3, 4)?;
        (2, 1, 3)
    };
    let axes: Vec<usize> = if cx.inputs.len() > axes_idx {
        match cx.ints(axes_idx) {
            Some(a) => a.iter().map(|&v| norm_axis(v, r)).collect::<R<_>>()?,
            None => {
                return Ok(vec![Fact::new(
                    x.et,
                    PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
                )])
            }
        }
    } else {
        (0..r).collect()
    };
    if at.sizes_mode {
        match (cx.ints(sizes_idx), cx.input_bounds(sizes_idx)) {
            (None, Some(b)) if b.len() == axes.len() => {
                // Sizes from a shape subgraph: their bounds, as OpenVINO reads them.
                for (k, &a) in axes.iter().enumerate() {
                    out[a] = dim_from_bounds(b[k].0.max(0), b[k].1);
                }
            }
            (sizes, _) => resize_by_sizes(&mut out, &axes, sizes)?,
        }
    } else {
        let scales = cx
            .input(scales_idx)?
            .value
            .as_ref()
            .and_then(|v| v.to_f64s());
        resize_by_scales(&mut out, &padded, &axes, scales)?;
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// Interpolate-0's output dims: `out` with each `axes` dim set from its output_shape input.
fn resize_v0(cx: &Ctx, at: &InterpolateAttrs, r: usize, out: &mut Dims) -> R<()> {
    cx.expect_inputs(2, 2)?;
    let sizes = cx.ints(1);
    let bounds = cx.input_bounds(1);
    for (k, &a) in at.v0_axes.iter().enumerate() {
        let i = norm_axis(a, r).at_attr("axes")?;
        out[i] = match (&sizes, &bounds) {
            // As OpenVINO's `Dimension(v)`: -1 is dynamic, other negative sizes are 0
            // (measured: -1 -> ?, -5 -> 0).
            (Some(s), _) => match *s.get(k).ok_or("output_shape too short")? {
                -1 => Dim::any(),
                v => Dim::known(v.max(0) as u64),
            },
            (None, Some(b)) if b.len() == at.v0_axes.len() => {
                dim_from_bounds(b[k].0.max(0), b[k].1)
            }
            _ => Dim::any(),
        };
    }
    Ok(())
}

fn resize_by_sizes(out: &mut Dims, axes: &[usize], sizes: Option<Vec<i64>>) -> R<()> {
    for (k, &a) in axes.iter().enumerate() {
        out[a] = match &sizes {
            Some(s) => Dim::known(*s.get(k).ok_or("sizes is shorter than axes")?.max(&0) as u64),
            None => Dim::any(),
        };
    }
    Ok(())
}

fn resize_by_scales(
    out: &mut Dims,
    padded: &[Dim],
    axes: &[usize],
    scales: Option<Vec<f64>>,
) -> R<()> {
    for (k, &a) in axes.iter().enumerate() {
        out[a] = match &scales {
            Some(s) => {
                let sc = *s.get(k).ok_or("scales is shorter than axes")? as f32;
                // OpenVINO's multiply_bound_and_scale, static dims and interval bounds alike:
                // the dim times (scale + 1e-6) in f32, truncated (a static 46691964 times 3 is
                // 140075936, fuzz 6161:49372; a bound near 2^62 times 2 lands 2^39 above the
                // exact product, fuzz 1717:19986). A product past i64::MAX is `?` (measured).
                // A scale of exactly 1 keeps the dim (OpenVINO skips it: 16777216 stays).
                if sc == 1.0 {
                    out[a] = padded[a];
                    continue;
                }
                let m = sc + 1.0e-6f32;
                padded[a].map_bounds(|v: u64| {
                    let r = ((v as f32) * m).trunc().max(0.0);
                    (r < i64::MAX as f32).then_some(r as u64)
                })
            }
            None => Dim::any(),
        };
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Nearest,
    Linear,
    LinearOnnx,
    Cubic,
    BilinearPillow,
    BicubicPillow,
}

/// coordinate_transformation_mode.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ctm {
    HalfPixel,
    PytorchHalfPixel,
    Asymmetric,
    TfHalfPixelForNn,
    AlignCorners,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Nearest {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
    Simple,
}

/// How results are stored: f32 as computed, or cast to i8/u8 as the reference's `T` does.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    F32,
    I8,
    U8,
}

/// The layer's attributes, shared by the shape rule and the kernel. Interpolate-0 reads only
/// the pads and its `axes`; its mode names differ and no kernel uses them.
struct InterpolateAttrs {
    pads_begin: Vec<i64>,
    pads_end: Vec<i64>,
    /// Interpolate-0's `axes`.
    v0_axes: Vec<i64>,
    /// shape_calculation_mode: sizes (true) or scales.
    sizes_mode: bool,
    mode: Mode,
    ctm: Ctm,
    nearest: Nearest,
    antialias: bool,
    cube_coeff: f64,
}

impl Attrs for InterpolateAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let pads = |k: &str| cx.attr_ints(k).map(Option::unwrap_or_default);
        let mut a = InterpolateAttrs {
            pads_begin: pads("pads_begin")?,
            pads_end: pads("pads_end")?,
            v0_axes: Vec::new(),
            sizes_mode: true,
            mode: Mode::Nearest,
            ctm: Ctm::HalfPixel,
            nearest: Nearest::RoundPreferFloor,
            antialias: cx.attr_bool("antialias", false)?,
            cube_coeff: cx.attr_f64("cube_coeff", -0.75)?,
        };
        if cx.version == 0 {
            a.v0_axes = cx.attr_ints("axes")?.unwrap_or_default();
            return Ok(a);
        }
        a.sizes_mode = match lower(cx, "shape_calculation_mode", "sizes").as_str() {
            "sizes" => true,
            "scales" => false,
            o => return Err(unknown("shape_calculation_mode", o)),
        };
        a.mode = parse_mode(cx)?;
        a.ctm = parse_ctm(cx)?;
        a.nearest = parse_nearest(cx)?;
        Ok(a)
    }
}

fn lower(cx: &Ctx, k: &str, default: &str) -> String {
    cx.attr(k).unwrap_or(default).trim().to_ascii_lowercase()
}

fn unknown(k: &str, v: &str) -> OpError {
    OpError::attr(k, format!("unknown {k} '{v}'"))
}

/// The interpolation mode; the Pillow modes exist from Interpolate-11 on.
fn parse_mode(cx: &Ctx) -> R<Mode> {
    Ok(match lower(cx, "mode", "nearest").as_str() {
        "nearest" => Mode::Nearest,
        "linear" => Mode::Linear,
        "linear_onnx" => Mode::LinearOnnx,
        "cubic" => Mode::Cubic,
        "bilinear_pillow" if cx.version >= 11 => Mode::BilinearPillow,
        "bicubic_pillow" if cx.version >= 11 => Mode::BicubicPillow,
        o @ ("bilinear_pillow" | "bicubic_pillow") => {
            return Err(OpError::attr(
                "mode",
                format!("mode '{o}' needs Interpolate-11"),
            ))
        }
        o => return Err(unknown("mode", o)),
    })
}

fn parse_ctm(cx: &Ctx) -> R<Ctm> {
    let k = "coordinate_transformation_mode";
    Ok(match lower(cx, k, "half_pixel").as_str() {
        "half_pixel" => Ctm::HalfPixel,
        "pytorch_half_pixel" => Ctm::PytorchHalfPixel,
        "asymmetric" => Ctm::Asymmetric,
        "tf_half_pixel_for_nn" => Ctm::TfHalfPixelForNn,
        "align_corners" => Ctm::AlignCorners,
        o => return Err(unknown(k, o)),
    })
}

fn parse_nearest(cx: &Ctx) -> R<Nearest> {
    Ok(
        match lower(cx, "nearest_mode", "round_prefer_floor").as_str() {
            "round_prefer_floor" => Nearest::RoundPreferFloor,
            "round_prefer_ceil" => Nearest::RoundPreferCeil,
            "floor" => Nearest::Floor,
            "ceil" => Nearest::Ceil,
            "simple" => Nearest::Simple,
            o => return Err(unknown("nearest_mode", o)),
        },
    )
}

/// What the reference kernel sees: the padded input's shape, the output shape, the axes and
/// their f32 scales, and the attributes.
struct Geo {
    inp: Vec<usize>,
    out: Vec<usize>,
    axes: Vec<usize>,
    scales: Vec<f32>,
    ctm: Ctm,
    nearest: Nearest,
    antialias: bool,
    cube_coeff: f64,
    kind: Kind,
}

/// Non-negative pads, cut or extended with zeros to the rank (as OpenVINO corrects them).
fn pads(p: &[i64], k: &str, rank: usize) -> R<Vec<usize>> {
    (0..rank)
        .map(|i| match p.get(i).copied().unwrap_or(0) {
            v if v < 0 => Err(format!("negative {k} {p:?}: left unfolded").into()),
            v => Ok(v as usize),
        })
        .collect()
}

/// The input as f32 values (exact for every type folded) and the kind results are stored as.
fn load(t: &Tensor) -> R<(Vec<f32>, Kind)> {
    let kind = match t.et {
        E::F32 | E::F16 | E::Bf16 => Kind::F32,
        E::I8 => Kind::I8,
        E::U8 => Kind::U8,
        et => return Err(format!("OpenVINO has no Interpolate kernel for {et}").into()),
    };
    let v = match t.et {
        E::F32 => math::f32s(t),
        E::F16 | E::Bf16 => super::convert::convert(t, E::F32).and_then(|w| math::f32s(&w)),
        _ => t
            .to_f64s()
            .map(|v| v.into_iter().map(|x| x as f32).collect()),
    };
    Ok((v.ok_or("bad data values")?, kind))
}

/// Zero padding: the input placed at `pads_begin` inside the padded shape.
fn pad(x: &[f32], shape: &[usize], pb: &[usize], padded: &[usize]) -> Vec<f32> {
    if pb.iter().all(|&p| p == 0) && shape == padded {
        return x.to_vec();
    }
    let mut out = vec![0f32; padded.iter().product()];
    let ps = strides(padded);
    let rank = shape.len();
    let mut c = vec![0usize; rank];
    for &v in x {
        let off: usize = (0..rank).map(|i| (c[i] + pb[i]) * ps[i]).sum();
        out[off] = v;
        for i in (0..rank).rev() {
            c[i] += 1;
            if c[i] < shape[i] {
                break;
            }
            c[i] = 0;
        }
    }
    out
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// A C++ `static_cast<T>(float)` for T = int8_t/uint8_t as x86-64 compiles it: truncation
/// to a 32-bit integer (out of range and NaN give INT32_MIN), then the low byte.
fn cast_to(x: f32, kind: Kind) -> f32 {
    let i = if x.is_nan() || x >= 2147483648.0 || x <= -2147483649.0 {
        i32::MIN
    } else {
        x as i32
    };
    match kind {
        Kind::F32 => x,
        Kind::I8 => i as i8 as f32,
        Kind::U8 => i as u8 as f32,
    }
}

/// Interpolate-4/11 of constants, as OpenVINO's `evaluate` computes it.
fn interpolate_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.input(0)?.value.clone().ok_or("no data value")?;
    let os: Vec<usize> = outs
        .first()
        .and_then(|o| o.shape.to_static())
        .ok_or("output shape not static")?
        .iter()
        .map(|&d| d as usize)
        .collect();
    let (vals, kind) = load(&x)?;
    let (geo, mode) = geometry(cx, &x, &os, kind)?;
    let n_out: usize = os.iter().product();
    // An empty output is empty whatever the mode reads (OpenVINO folds an empty Pillow resize
    // to it too; only where its first interpolated axis is the empty one does its reference
    // crash, which an empty constant does not copy).
    let res = if n_out == 0 {
        Vec::new()
    } else {
        // Only `linear` bounds-checks its reads (an empty axis gives zeros); the other modes
        // would read out of bounds.
        if geo.inp.contains(&0) && mode != Mode::Linear {
            return Err("an empty input dim with a non-empty output: left unfolded".into());
        }
        let pb = pads(
            &cx.attrs::<InterpolateAttrs>()?.pads_begin,
            "pads_begin",
            os.len(),
        )?;
        let shape: Vec<usize> = x.shape.iter().map(|&d| d as usize).collect();
        let data = pad(&vals, &shape, &pb, &geo.inp);
        match mode {
            Mode::Nearest => nearest(&geo, &data),
            Mode::Linear => linear(&geo, &data)?,
            Mode::LinearOnnx => linear_onnx(&geo, &data)?,
            Mode::Cubic => cubic(&geo, &data)?,
            Mode::BilinearPillow | Mode::BicubicPillow => pillow(&geo, &data, mode)?,
        }
    };
    let shape: Vec<u64> = os.iter().map(|&d| d as u64).collect();
    let t = match kind {
        Kind::F32 => {
            let t = math::from_f32s(shape, &res);
            match outs[0].et {
                E::F16 | E::Bf16 => super::convert::convert(&t, outs[0].et).ok_or("convert")?,
                _ => t,
            }
        }
        _ => {
            let v: Vec<i64> = res.iter().map(|&f| f as i64).collect();
            Tensor::from_i64s(x.et, shape, &v).ok_or(crate::ops::bug("encode"))?
        }
    };
    Ok(vec![Fact::with_value(t)])
}

/// Axes, scales and attributes as `evaluate` derives them: scales from the scales input, or
/// in `sizes` mode `size / padded input dim` in f32.
fn geometry(cx: &Ctx, x: &Tensor, os: &[usize], kind: Kind) -> R<(Geo, Mode)> {
    let rank = x.shape.len();
    if os.len() != rank {
        return Err("output rank differs from the input's".into());
    }
    let at = cx.attrs::<InterpolateAttrs>()?;
    let pb = pads(&at.pads_begin, "pads_begin", rank)?;
    let pe = pads(&at.pads_end, "pads_end", rank)?;
    let inp: Vec<usize> = (0..rank)
        .map(|i| {
            (x.shape[i] as usize)
                .checked_add(pb[i])
                .and_then(|d| d.checked_add(pe[i]))
                .filter(|&d| d <= crate::ops::MAX_EVAL_ELEMS)
                .ok_or("the padded input is too large to evaluate")
        })
        .collect::<Result<_, _>>()?;
    let (sizes_idx, scales_idx, axes_idx) = match cx.version {
        v if v >= 11 => (1, 1, 2),
        4..=10 => (1, 2, 3),
        _ => return Err("Interpolate-0 is not folded (OpenVINO has no evaluate for it)".into()),
    };
    let axes: Vec<usize> = match cx.inputs.get(axes_idx) {
        Some(_) => cx
            .ints(axes_idx)
            .ok_or("axes not known")?
            .iter()
            .map(|&a| norm_axis(a, rank))
            .collect::<R<_>>()?,
        None => (0..rank).collect(),
    };
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].contains(a) {
            return Err(format!("repeated axes {axes:?}: left unfolded").into());
        }
    }
    let scales: Vec<f32> = if at.sizes_mode {
        let s = cx.ints(sizes_idx).ok_or("sizes not known")?;
        axes.iter()
            .enumerate()
            .map(|(k, &a)| Ok(*s.get(k).ok_or("sizes shorter than axes")? as f32 / inp[a] as f32))
            .collect::<R<_>>()?
    } else {
        let v = cx
            .input(scales_idx)?
            .value
            .as_ref()
            .ok_or("scales not known")?;
        let s = v.to_f64s().ok_or("bad scales")?;
        if s.len() < axes.len() {
            return Err("scales shorter than axes".into());
        }
        s.iter().map(|&f| f as f32).collect()
    };
    let geo = Geo {
        inp,
        out: os.to_vec(),
        axes,
        scales,
        ctm: at.ctm,
        nearest: at.nearest,
        antialias: at.antialias,
        cube_coeff: at.cube_coeff,
        kind,
    };
    Ok((geo, at.mode))
}

/// The source coordinate of output coordinate `x` (`GetOriginalCoordinate`), in f32.
fn source_coord(ctm: Ctm, x: f32, scale: f32, len_out: f32, len_in: f32) -> f32 {
    if scale == 1.0 || len_out == len_in {
        return x;
    }
    match ctm {
        Ctm::HalfPixel => ((x + 0.5) / scale) - 0.5,
        Ctm::PytorchHalfPixel if len_out > 1.0 => (x + 0.5) / scale - 0.5,
        Ctm::PytorchHalfPixel => 0.0,
        Ctm::Asymmetric => x / scale,
        Ctm::TfHalfPixelForNn => (x + 0.5) / scale,
        Ctm::AlignCorners if len_out == 1.0 => 0.0,
        Ctm::AlignCorners => x * (len_in - 1.0) / (len_out - 1.0),
    }
}

impl Geo {
    /// `get_in_coord`: the source coordinate along `axes[k]`.
    fn in_coord(&self, x: f32, k: usize) -> f32 {
        let a = self.axes[k];
        source_coord(
            self.ctm,
            x,
            self.scales[k],
            self.out[a] as f32,
            self.inp[a] as f32,
        )
    }
}

/// C's `(int64_t)x` for the small coordinates seen here.
fn trunc_i64(x: f32) -> i64 {
    x as i64
}

/// `GetNearestPixel`: std::round is half away from zero, as `f32::round`.
fn nearest_pixel(m: Nearest, x: f32, downsample: bool) -> i64 {
    match m {
        Nearest::RoundPreferCeil => trunc_i64(x.round()),
        Nearest::Floor => trunc_i64(x.floor()),
        Nearest::Ceil => trunc_i64(x.ceil()),
        Nearest::Simple if downsample => trunc_i64(x.ceil()),
        Nearest::Simple => trunc_i64(x),
        Nearest::RoundPreferFloor => {
            if x == trunc_i64(x) as f32 + 0.5 {
                trunc_i64(x.floor())
            } else {
                trunc_i64(x.round())
            }
        }
    }
}

/// Nearest: every dim (scale 1 off the axes) maps each output index to one input index.
fn nearest(g: &Geo, data: &[f32]) -> Vec<f32> {
    let rank = g.inp.len();
    let mut all_scales = vec![1f32; rank];
    for (k, &a) in g.axes.iter().enumerate() {
        all_scales[a] = g.scales[k];
    }
    let tables: Vec<Vec<usize>> = (0..rank)
        .map(|d| {
            let len_in = g.inp[d] as f32;
            (0..g.out[d])
                .map(|o| {
                    let c = source_coord(g.ctm, o as f32, all_scales[d], g.out[d] as f32, len_in);
                    let p = nearest_pixel(g.nearest, c, all_scales[d] < 1.0);
                    p.min(g.inp[d] as i64 - 1).max(0) as usize
                })
                .collect()
        })
        .collect();
    let st = strides(&g.inp);
    let mut res = Vec::with_capacity(g.out.iter().product());
    for_each_coord(&g.out, |c| {
        let off: usize = (0..rank).map(|d| tables[d][c[d]] * st[d]).sum();
        res.push(data[off]);
    });
    res
}

/// Calls `f` with every coordinate of `shape` in row-major order.
fn for_each_coord(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut c = vec![0usize; shape.len()];
    loop {
        f(&c);
        let mut i = shape.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            c[i] += 1;
            if c[i] < shape[i] {
                break;
            }
            c[i] = 0;
        }
    }
}

/// Most input points a fold may visit (output elements × window points): beyond it the
/// layer is left for run time.
const MAX_WORK: u128 = 1 << 31;

fn too_costly(g: &Geo, window: &[usize]) -> R<()> {
    let work = g
        .out
        .iter()
        .chain(window)
        .map(|&d| d as u128)
        .product::<u128>();
    if work > MAX_WORK {
        return Err(format!("Interpolate would visit {work} input points: left unfolded").into());
    }
    Ok(())
}

/// `linear`: a triangle filter over a window of 2r+1 input points per axis (wider with
/// antialias when downsampling), normalised by the sum of weights.
fn linear(g: &Geo, data: &[f32]) -> R<Vec<f32>> {
    let n = g.axes.len();
    let downsample = g.scales.iter().take(n).any(|&s| s < 1.0);
    let antialias = downsample && g.antialias;
    let a: Vec<f32> = (0..n)
        .map(|i| if antialias { g.scales[i] } else { 1.0 })
        .collect();
    let mut prod_a = 1f32;
    for &ai in &a {
        prod_a *= ai;
    }
    let r: Vec<i64> = (0..n)
        .map(|i| {
            if g.scales[i] > 1.0 {
                Ok(2)
            } else {
                let q = (2.0f32 / a[i]).ceil();
                if !(q.is_finite() && q < 1e6) {
                    return Err(format!("scale {} gives no finite window", g.scales[i]).into());
                }
                Ok(q as i64)
            }
        })
        .collect::<R<_>>()?;
    let window: Vec<usize> = r.iter().map(|&v| (2 * v + 1) as usize).collect();
    too_costly(g, &window)?;
    let st = strides(&g.inp);
    let mut res = Vec::with_capacity(g.out.iter().product());
    let mut inner = vec![0i64; n];
    for_each_coord(&g.out, |oc| {
        let ic: Vec<f32> = (0..n)
            .map(|k| g.in_coord(oc[g.axes[k]] as f32, k))
            .collect();
        let icr: Vec<i64> = ic.iter().map(|&c| trunc_i64(c.round())).collect();
        let base: usize = (0..oc.len())
            .filter(|d| !g.axes.contains(d))
            .map(|d| oc[d] * st[d])
            .sum();
        let (mut summa, mut wsum) = (0f32, 0f32);
        for_each_coord(&window, |idx| {
            for k in 0..n {
                inner[k] = idx[k] as i64 + icr[k] - r[k];
                if inner[k] < 0 || inner[k] >= g.inp[g.axes[k]] as i64 {
                    return;
                }
            }
            let mut w = prod_a;
            for k in 0..n {
                let dz = ic[k] - inner[k] as f32;
                w *= (1.0f32 - (a[k] * dz).abs()).max(0.0);
            }
            let off = base
                + (0..n)
                    .map(|k| inner[k] as usize * st[g.axes[k]])
                    .sum::<usize>();
            wsum += w;
            summa += w * data[off];
        });
        res.push(if wsum == 0.0 {
            0.0
        } else if g.kind == Kind::F32 {
            summa / wsum
        } else {
            cast_to((summa / wsum).round(), g.kind)
        });
    });
    Ok(res)
}

/// `linear_onnx`: the shape right-aligned in 5D; dims 1 and 2 merge into the channels when
/// the output keeps both, leaving 2 spatial dims, else 3. Spatial dim `i` takes its
/// coordinates from `axes[i + offset]` (offset `rank - spatial` when every axis is listed),
/// as the reference does even where that axis is another dim. One output block is written per
/// input batch×channel block.
fn linear_onnx(g: &Geo, data: &[f32]) -> R<Vec<f32>> {
    let rank = g.inp.len();
    let n = g.axes.len();
    let ok_axes = match rank {
        2 | 3 => g.axes.iter().copied().eq(0..rank),
        4 | 5 => g.axes.iter().copied().eq(0..rank) || g.axes.iter().copied().eq(2..rank),
        _ => false,
    };
    if !ok_axes {
        return Err(format!(
            "linear_onnx with axes {:?} of rank {rank}: OpenVINO rejects it",
            g.axes
        )
        .into());
    }
    let mut i5 = [1usize; 5];
    let mut o5 = [1usize; 5];
    i5[5 - rank..].copy_from_slice(&g.inp);
    o5[5 - rank..].copy_from_slice(&g.out);
    let mut sr = 3;
    if i5[1] == o5[1] && i5[2] == o5[2] {
        (i5[1], i5[2], o5[1], o5[2]) = (i5[1] * i5[2], 1, o5[1] * o5[2], 1);
        sr = 2;
    }
    let offset = if n == rank {
        rank as i64 - sr as i64
    } else {
        0
    };
    let (isp, osp) = (&i5[5 - sr..], &o5[5 - sr..]);
    let ist = strides(isp);
    let (in_block, out_block): (usize, usize) = (isp.iter().product(), osp.iter().product());
    // The reference writes one output block per input batch×channel: when the output has
    // more, the rest keeps its zeros; when it has fewer, it writes out of bounds.
    let n_out: usize = g.out.iter().product();
    if i5[0] * i5[1] * out_block > n_out || offset < 0 || offset as usize + sr > n {
        return Err("linear_onnx shrinking batch or channels: left unfolded".into());
    }
    let mut res = Vec::with_capacity(n_out);
    let points = 1usize << sr;
    for bc in 0..i5[0] * i5[1] {
        let x = &data[bc * in_block..(bc + 1) * in_block];
        for_each_coord(osp, |oc| {
            let (mut in1, mut in2, mut d1, mut d2) =
                ([0usize; 3], [0usize; 3], [0f32; 3], [0f32; 3]);
            for i in 0..sr {
                let c = g.in_coord(oc[i] as f32, i + offset as usize);
                let c = 0f32.max(c.min((isp[i] - 1) as f32));
                let c1 = (trunc_i64(c) as usize).min(isp[i] - 1);
                let c2 = (c1 + 1).min(isp[i] - 1);
                (in1[i], in2[i]) = (c1, c2);
                (d1[i], d2[i]) = ((c - c1 as f32).abs(), (c - c2 as f32).abs());
                if c1 == c2 {
                    (d1[i], d2[i]) = (0.5, 0.5);
                }
            }
            let bit = |p: usize, j: usize| p & (1 << (sr - 1 - j)) != 0;
            let value = |p: usize| {
                let off: usize = (0..sr)
                    .map(|j| if bit(p, j) { in1[j] } else { in2[j] } * ist[j])
                    .sum();
                x[off]
            };
            let mut sum = 0f32;
            for p in 0..points {
                let mut coeff = 1f32;
                for j in 0..sr {
                    coeff *= if bit(p, j) { d1[j] } else { d2[j] };
                }
                sum += coeff * value(points - 1 - p);
            }
            res.push(cast_to(sum, g.kind));
        });
    }
    res.resize(n_out, 0.0);
    Ok(res)
}

/// The four cubic weights of fractional offset `s` (`get_cubic_coeff`), in f32.
fn cubic_coeffs(s: f32, a: f32) -> [f32; 4] {
    let s = s.abs();
    [
        ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0) - 4.0 * a,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a + 2.0) * (1.0 - s) - (a + 3.0)) * (1.0 - s) * (1.0 - s) + 1.0,
        ((a * (2.0 - s) - 5.0 * a) * (2.0 - s) + 8.0 * a) * (2.0 - s) - 4.0 * a,
    ]
}

/// `cubic`: 4 points per axis around floor(source), clamped to the edges.
fn cubic(g: &Geo, data: &[f32]) -> R<Vec<f32>> {
    let n = g.axes.len();
    let a = g.cube_coeff as f32;
    // Per axis and output index: the base input index and the four weights.
    let tabs: Vec<Vec<(i64, [f32; 4])>> = (0..n)
        .map(|k| {
            (0..g.out[g.axes[k]])
                .map(|o| {
                    let c = g.in_coord(o as f32, k);
                    let ci = trunc_i64(c.floor());
                    (ci, cubic_coeffs(c - ci as f32, a))
                })
                .collect()
        })
        .collect();
    let st = strides(&g.inp);
    let four = vec![4usize; n];
    too_costly(g, &four)?;
    let mut res = Vec::with_capacity(g.out.iter().product());
    for_each_coord(&g.out, |oc| {
        let base: usize = (0..oc.len())
            .filter(|d| !g.axes.contains(d))
            .map(|d| oc[d] * st[d])
            .sum();
        let mut summa = 0f32;
        for_each_coord(&four, |idx| {
            let mut prod = 1f32;
            let mut off = base;
            for k in 0..n {
                let ax = g.axes[k];
                let (ci, w) = &tabs[k][oc[ax]];
                let c = (ci + idx[k] as i64 - 1).min(g.inp[ax] as i64 - 1).max(0);
                off += c as usize * st[ax];
                prod *= w[idx[k]];
            }
            summa += prod * data[off];
        });
        res.push(cast_to(summa, g.kind));
    });
    Ok(res)
}

pub(super) fn register(r: &mut Reg) {
    // OpenVINO folds Interpolate-4/11 for f32, f16, bf16 (in f32), i8 and u8 (measured);
    // Interpolate-0 has no evaluate.
    let (v0, v4): (Vec<u32>, Vec<u32>) = ALL_VERSIONS.iter().partition(|&&v| v < 4);
    r.add("Interpolate", &v0, OpDef::shape_only(interpolate_infer));
    r.add(
        "Interpolate",
        &v4,
        OpDef::with_eval(interpolate_infer, interpolate_eval)
            .kernel_types(|_, et| matches!(et, E::F32 | E::F16 | E::Bf16 | E::I8 | E::U8)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_pixel_modes() {
        let f = Nearest::RoundPreferFloor;
        assert_eq!(nearest_pixel(f, 1.5, false), 1);
        assert_eq!(nearest_pixel(f, 1.6, false), 2);
        assert_eq!(nearest_pixel(Nearest::RoundPreferCeil, 1.5, false), 2);
        assert_eq!(nearest_pixel(Nearest::Simple, 1.2, true), 2);
        assert_eq!(nearest_pixel(Nearest::Simple, 1.7, false), 1);
    }

    #[test]
    fn casts_wrap_like_x86() {
        assert_eq!(cast_to(-3.7, Kind::U8), 253.0);
        assert_eq!(cast_to(300.2, Kind::U8), 44.0);
        assert_eq!(cast_to(-129.5, Kind::I8), 127.0);
        assert_eq!(cast_to(f32::NAN, Kind::U8), 0.0);
    }

    #[test]
    fn pad_places_input() {
        let p = pad(&[1.0, 2.0], &[1, 2], &[1, 0], &[2, 3]);
        assert_eq!(p, vec![0.0, 0.0, 0.0, 1.0, 2.0, 0.0]);
    }
}
