//! GridSample-9: the shape rule and a kernel that follows OpenVINO's reference
//! (`reference/grid_sample.hpp`) operation for operation, in f32 as OpenVINO computes it for f32
//! data and grid — the only types its ConstantFolding folds.

use super::util::dim_at;
use super::*;
use crate::ir::{Dim, ElementType as E};

/// Interpolation mode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Bilinear,
    Nearest,
    Bicubic,
}

/// Padding mode: how indices outside the data are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

/// GridSample's attributes, validated as OpenVINO's reader does (unknown modes are errors;
/// OpenVINO's enum names match case-insensitively).
struct GridSampleAttrs {
    align_corners: bool,
    mode: Mode,
    padding: Padding,
}

impl Attrs for GridSampleAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let mode = match cx
            .attr_enum("mode", "bilinear")
            .as_str()
            .to_ascii_lowercase()
            .as_str()
        {
            "bilinear" => Mode::Bilinear,
            "nearest" => Mode::Nearest,
            "bicubic" => Mode::Bicubic,
            m => {
                return Err(OpError::attr(
                    "mode",
                    format!("unknown mode '{m}': bilinear, nearest or bicubic"),
                ))
            }
        };
        let padding = match cx
            .attr_enum("padding_mode", "zeros")
            .as_str()
            .to_ascii_lowercase()
            .as_str()
        {
            "zeros" => Padding::Zeros,
            "border" => Padding::Border,
            "reflection" => Padding::Reflection,
            p => {
                return Err(OpError::attr(
                    "padding_mode",
                    format!("unknown padding_mode '{p}': zeros, border or reflection"),
                ))
            }
        };
        Ok(GridSampleAttrs {
            align_corners: cx.attr_bool("align_corners", false)?,
            mode,
            padding,
        })
    }
}

/// GridSample-9: [N, C, grid H, grid W].
fn grid_sample_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.attrs::<GridSampleAttrs>()?;
    let (x, g) = (cx.input(0)?, cx.input(1)?);
    for (f, what) in [(x, "data"), (g, "grid")] {
        if let Some(r) = f.shape.rank() {
            if r != 4 {
                return Err(format!("{what} must be 4-D, is {}", sh(&f.shape)).into());
            }
        }
    }
    if g.shape.rank().is_some() && merge_dim(dim_at(g, 3), Dim::known(2)).is_none() {
        return Err(format!("grid {} must end with 2", sh(&g.shape)).into());
    }
    let batch = merge_dim(dim_at(x, 0), dim_at(g, 0)).ok_or_else(|| {
        format!(
            "data {} and grid {} differ in batch",
            sh(&x.shape),
            sh(&g.shape)
        )
    })?;
    Ok(vec![Fact::new(
        x.et,
        PartialShape::Ranked(
            [batch, dim_at(x, 1), dim_at(g, 1), dim_at(g, 2)]
                .into_iter()
                .collect(),
        ),
    )])
}

// ------------------------------------------------------------------ kernel

/// `static_cast<long>(float)` as x86-64 computes it (cvttss2si): truncation, and `LONG_MIN` for
/// NaN and out-of-range values.
fn to_long(v: f32) -> i64 {
    if v.is_nan() || v >= i64::MAX as f32 {
        i64::MIN
    } else {
        v as i64 // truncates; saturates to i64::MIN below the range, as cvttss2si does
    }
}

/// `std::lrint(float)` in round-to-nearest-even mode (cvtss2si): `LONG_MIN` for NaN and
/// out-of-range values.
fn lrint(v: f32) -> i64 {
    to_long(v.round_ties_even())
}

/// The data read at (n, c, y, x) under the padding mode; `Err` where OpenVINO's reference would
/// read out of bounds (`std::abs(LONG_MIN)`).
struct Sampler<'a> {
    data: &'a [f32],
    h: i64,
    w: i64,
    padding: Padding,
    align: bool,
}

impl Sampler<'_> {
    fn get(&self, plane: usize, y: i64, x: i64) -> R<f32> {
        let (h, w) = (self.h, self.w);
        let (y, x) = match self.padding {
            Padding::Zeros => {
                if y < 0 || x < 0 || y >= h || x >= w {
                    return Ok(0.0);
                }
                (y, x)
            }
            Padding::Border => (y.clamp(0, h - 1), x.clamp(0, w - 1)),
            Padding::Reflection if !self.align => {
                let (h2, w2) = (h * 2, w * 2);
                let y = (y % h2 + h2) % h2;
                let x = (x % w2 + w2) % w2;
                (
                    if y >= h { h2 - 1 - y } else { y },
                    if x >= w { w2 - 1 - x } else { x },
                )
            }
            Padding::Reflection => {
                if y == i64::MIN || x == i64::MIN {
                    return Err(
                        "a grid coordinate beyond the range of long (OpenVINO reads \
                                out of bounds)"
                            .into(),
                    );
                }
                let h22 = if h == 1 { 1 } else { 2 * (h - 1) };
                let w22 = if w == 1 { 1 } else { 2 * (w - 1) };
                let y = y.abs() % h22;
                let x = x.abs() % w22;
                (
                    if y >= h { h22 - y } else { y },
                    if x >= w { w22 - x } else { x },
                )
            }
        };
        Ok(self.data[plane * (h * w) as usize + (y * w + x) as usize])
    }
}

/// Bicubic weights of the ONNX Resize formula, A = -0.75, in f32 as OpenVINO's `cubic_coeffs`.
fn cubic_coeffs(r: f32) -> [f32; 4] {
    let a: f32 = -0.75;
    [
        ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
        ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
        ((a + 2.0) * (1.0 - r) - (a + 3.0)) * (1.0 - r) * (1.0 - r) + 1.0,
        ((a * (2.0 - r) - 5.0 * a) * (2.0 - r) + 8.0 * a) * (2.0 - r) - 4.0 * a,
    ]
}

/// `std::inner_product` starting from 0 (so -0 sums to +0, as in C++).
fn dot(c: &[f32; 4], v: &[f32; 4]) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..4 {
        acc += c[i] * v[i];
    }
    acc
}

fn grid_sample_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    // Data is f32 (kernel_types); OpenVINO folds only an f32 grid with it. In f32 mode a
    // half-precision grid was widened: decline it too.
    let (xf, gf) = (cx.input(0)?, cx.input(1)?);
    if cx.f32_mode || xf.et != E::F32 || gf.et != E::F32 {
        return Err("OpenVINO folds GridSample only for f32 data and an f32 grid".into());
    }
    let (x, g) = (
        xf.value.clone().ok_or("data unknown")?,
        gf.value.clone().ok_or("grid unknown")?,
    );
    let a = cx.attrs::<GridSampleAttrs>()?;
    let (xs, gs) = (&x.shape, &g.shape);
    if xs.len() != 4 || gs.len() != 4 || gs[3] != 2 || xs[0] != gs[0] {
        return Err(format!("data {xs:?} and grid {gs:?} do not fit").into());
    }
    let (n, c, h, w) = (xs[0], xs[1], xs[2], xs[3]);
    let (ho, wo) = (gs[1], gs[2]);
    let out_shape = vec![n, c, ho, wo];
    let total = (n * c * ho * wo) as usize;
    if total > 0 && (h == 0 || w == 0) {
        return Err("empty data with a non-empty output (OpenVINO's reference reads out of bounds or divides by zero)".into());
    }
    let data = math::f32s(&x).ok_or("bad data")?;
    let grid = math::f32s(&g).ok_or("bad grid")?;
    let s = Sampler {
        data: &data,
        h: h as i64,
        w: w as i64,
        padding: a.padding,
        align: a.align_corners,
    };
    // rescale_align / rescale_noalign, in f32.
    let denorm = |v: f32, range: u64| -> f32 {
        let r = range as f32;
        if a.align_corners {
            (v + 1.0) * (r - 1.0) / 2.0
        } else {
            ((v + 1.0) * r - 1.0) / 2.0
        }
    };
    let mut out = Vec::with_capacity(total);
    for b in 0..n as usize {
        for ch in 0..c as usize {
            let plane = b * c as usize + ch;
            for i in 0..(ho * wo) as usize {
                let gi = (b * (ho * wo) as usize + i) * 2;
                let (x_n, y_n) = (grid[gi], grid[gi + 1]);
                let v = match a.mode {
                    Mode::Bilinear => {
                        let y_d = denorm(y_n, h);
                        let x_d = denorm(x_n, w);
                        let (y0, x0) = (y_d.floor(), x_d.floor());
                        let (dy, dx) = (y_d - y0, x_d - x0);
                        let (ya, yb) = (to_long(y0), to_long(y0 + 1.0));
                        let (xa, xb) = (to_long(x0), to_long(x0 + 1.0));
                        let v00 = s.get(plane, ya, xa)?;
                        let v01 = s.get(plane, ya, xb)?;
                        let v10 = s.get(plane, yb, xa)?;
                        let v11 = s.get(plane, yb, xb)?;
                        let q0 = (1.0 - dx) * v00 + dx * v01;
                        let q1 = (1.0 - dx) * v10 + dx * v11;
                        dy * q1 + (1.0 - dy) * q0
                    }
                    Mode::Nearest => {
                        let y = lrint(denorm(y_n, h));
                        let x = lrint(denorm(x_n, w));
                        s.get(plane, y, x)?
                    }
                    Mode::Bicubic => {
                        let y_d = denorm(y_n, h);
                        let x_d = denorm(x_n, w);
                        let (y0, x0) = (y_d.floor(), x_d.floor());
                        let (dy, dx) = (y_d - y0, x_d - x0);
                        let (yt, xt) = (to_long(y0 - 1.0), to_long(x0 - 1.0));
                        let cy = cubic_coeffs(dy);
                        let cxw = cubic_coeffs(dx);
                        let mut p = [0.0f32; 4];
                        for (j, pj) in p.iter_mut().enumerate() {
                            let mut row = [0.0f32; 4];
                            for (k, rk) in row.iter_mut().enumerate() {
                                *rk = s.get(
                                    plane,
                                    yt.wrapping_add(j as i64),
                                    xt.wrapping_add(k as i64),
                                )?;
                            }
                            *pj = dot(&cxw, &row);
                        }
                        dot(&cy, &p)
                    }
                };
                out.push(v);
            }
        }
    }
    Ok(vec![Fact::with_value(math::from_f32s(out_shape, &out))])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "GridSample",
        &ALL_VERSIONS,
        OpDef::with_eval(grid_sample_infer, grid_sample_eval).kernel_types(|_, et| et == E::F32),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_x86() {
        assert_eq!(lrint(0.5), 0);
        assert_eq!(lrint(1.5), 2);
        assert_eq!(lrint(-0.5), 0);
        assert_eq!(lrint(-2.5), -2);
        assert_eq!(lrint(f32::NAN), i64::MIN);
        assert_eq!(lrint(1e30), i64::MIN);
        assert_eq!(to_long(-1.5), -1);
        assert_eq!(to_long(-1e30), i64::MIN);
    }

    #[test]
    fn cubic_weights_sum_to_one() {
        for r in [0.0f32, 0.25, 0.5, 0.75] {
            let s: f32 = cubic_coeffs(r).iter().sum();
            assert!((s - 1.0).abs() < 1e-6);
        }
    }
}
