//! FakeConvert-13: emulate an f8 type (f8e4m3, f8e5m2) on f32/f16/bf16 data, with a scale and
//! an optional shift: `((emulate(data * scale - shift) + shift) / scale)`.
//!
//! The kernel reproduces OpenVINO 2026.4.1's reference, measured bit for bit (every f16 code
//! through both emulations; tests/ov/fold.py):
//! - scale and shift are applied in the data's own type, one rounding per operation (f16/bf16
//!   through f32 and back, bf16 with OpenVINO's rounding); ConstantFolding runs it natively,
//!   never widened to f32;
//! - the f8 emulation works on f16 bits: f32 and bf16 data are converted to f16 first (round to
//!   nearest even, overflow to ±inf) and back after;
//! - f8e5m2 rounds to nearest even, keeps NaN, and clamps ±inf (and overflow) to ±57344;
//! - f8e4m3 flushes |x| < 2^-9 to +0, saturates at ±448 and maps ±inf and NaN to ±448 (the
//!   NaN's sign); its subnormal range rounds at the normal position first, then truncates.

use super::*;
use crate::ir::tensor::Tensor;
use crate::ir::ElementType as E;
use half::f16;

/// The emulated type (`destination_type`); OpenVINO rejects any other.
#[derive(Clone, Copy)]
enum Dest {
    E4M3,
    E5M2,
}

fn destination(cx: &Ctx) -> R<Dest> {
    match cx.attr_et("destination_type")? {
        E::F8E4M3 => Ok(Dest::E4M3),
        E::F8E5M2 => Ok(Dest::E5M2),
        et => Err(format!("destination_type {et} is not supported (f8e4m3 or f8e5m2)").into()),
    }
}

/// OpenVINO's shape rule: scale and shift shapes compatible, scale broadcast (numpy) into the
/// data without growing it; the output is that broadcast. All inputs share one float type.
fn fake_convert_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    destination(cx)?;
    let mut et = cx.input(0)?.et;
    for f in &cx.inputs[1..] {
        et = merge_et(et, f.et).map_err(|_| {
            format!(
                "mixed input types are not supported: {}",
                cx.inputs
                    .iter()
                    .map(|f| f.et.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    }
    if !matches!(et, E::F32 | E::F16 | E::Bf16 | E::Dynamic) {
        return Err(format!("data must be f32, f16 or bf16, got {et}").into());
    }
    let data = &cx.input(0)?.shape;
    let scale = &cx.input(1)?.shape;
    if let Some(shift) = cx.inputs.get(2) {
        merge_shapes(scale, &shift.shape).map_err(|_| {
            format!(
                "scale {} and shift {} are not compatible",
                sh(scale),
                sh(&shift.shape)
            )
        })?;
    }
    let out = broadcast_numpy(data, scale)?;
    merge_shapes(data, &out).map_err(|_| {
        format!(
            "scale {} cannot broadcast into the data {} (unidirectional broadcasting)",
            sh(scale),
            sh(data)
        )
    })?;
    Ok(vec![Fact::new(et, out)])
}

/// f8e5m2 on f16 bits: round to nearest even at 2 mantissa bits (NaN and inf untouched), then
/// clamp ±inf to ±max.
fn emulate_e5m2(v: u16) -> u16 {
    let mut v = v;
    if v & 0x7c00 != 0x7c00 {
        let up = (v & 0x00ff) > 0x0080 || (v & 0x0180) == 0x0180;
        v += (up as u16) << 8;
    }
    v &= 0xff00;
    if v & 0x7f00 == 0x7c00 {
        v -= 1 << 8;
    }
    v
}

/// f8e4m3 on f16 bits (bias 7, no inf; saturating at 448). The order of steps is OpenVINO's:
/// flush below 2^-9, clamp large exponents, round at the normal mantissa position, then shift
/// subnormals (exponents -9..-7) and truncate.
fn emulate_e4m3(v: u16) -> u16 {
    const MIN: f32 = 0.001_953_125; // 2^-9
    let v = if f16::from_bits(v).to_f32().abs() < MIN {
        0
    } else {
        v
    };
    let sign = v & 0x8000;
    let mut exp = ((v & 0x7c00) >> 10) as i32 - 15;
    let mut man = (v & 0x03ff) as i32;
    let can_round = (v & 0x7fff) < 0x5f80;
    let mut special = v & 0x7c00 == 0x7c00;
    if exp > 8 {
        special = true;
        exp = 8;
        man = 0x300;
    } else if exp < -9 {
        exp = -15;
        man = 0;
    }
    if exp == 8 && man >= 0x300 {
        man = 0x300;
    }
    if !special && can_round {
        let up = (man & 0x7f) > 0x40 || (man & 0xc0) == 0xc0;
        man += (up as i32) << 7;
    }
    let dshift = if exp < -6 { -6 - exp } else { 0 };
    man >>= dshift;
    man &= 0xff80;
    man <<= dshift;
    man += (exp + 15) << 10;
    (man as u16) | sign
}

/// One element type's arithmetic, as OpenVINO's reference does it for `T`.
trait Elem: Copy {
    const SIZE: usize;
    const ZERO: Self;
    fn read(b: &[u8]) -> Self;
    fn write(self, out: &mut Vec<u8>);
    /// `static_cast<T>(x * scale - shift)`, rounding after each operation.
    fn forward(x: Self, scale: Self, shift: Self) -> Self;
    /// `static_cast<T>((x + shift) / scale)`.
    fn inverse(x: Self, scale: Self, shift: Self) -> Self;
    /// `reference::convert<T, float16>` and back.
    fn to_f16(self) -> u16;
    fn from_f16(h: u16) -> Self;
}

impl Elem for f32 {
    const SIZE: usize = 4;
    const ZERO: Self = 0.0;
    fn read(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn forward(x: Self, scale: Self, shift: Self) -> Self {
        x * scale - shift
    }
    fn inverse(x: Self, scale: Self, shift: Self) -> Self {
        (x + shift) / scale
    }
    fn to_f16(self) -> u16 {
        // vcvtps2ph (or float16's constructor): nearest even, ±inf on overflow. Values reaching
        // it come out of arithmetic, so NaNs are quiet and both agree with `half`.
        f16::from_f32(self).to_bits()
    }
    fn from_f16(h: u16) -> Self {
        f16::from_bits(h).to_f32()
    }
}

/// f16 data: `ov::float16` arithmetic (each operation in f32, rounded to nearest even).
#[derive(Clone, Copy)]
struct Half(u16);

impl Half {
    fn f(self) -> f32 {
        f16::from_bits(self.0).to_f32()
    }
    fn round(x: f32) -> Self {
        Half(f16::from_f32(x).to_bits())
    }
}

impl Elem for Half {
    const SIZE: usize = 2;
    const ZERO: Self = Half(0);
    fn read(b: &[u8]) -> Self {
        Half(u16::from_le_bytes([b[0], b[1]]))
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn forward(x: Self, scale: Self, shift: Self) -> Self {
        let prod = Half::round(x.f() * scale.f());
        Half::round(prod.f() - shift.f())
    }
    fn inverse(x: Self, scale: Self, shift: Self) -> Self {
        let sum = Half::round(x.f() + shift.f());
        Half::round(sum.f() / scale.f())
    }
    fn to_f16(self) -> u16 {
        self.0
    }
    fn from_f16(h: u16) -> Self {
        Half(h)
    }
}

/// bf16 data: `ov::bfloat16` arithmetic (each operation in f32, rounded OpenVINO's way).
#[derive(Clone, Copy)]
struct Brain(u16);

impl Brain {
    fn f(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
    fn round(x: f32) -> Self {
        Brain(convert::f32_to_bf16_ov(x))
    }
}

impl Elem for Brain {
    const SIZE: usize = 2;
    const ZERO: Self = Brain(0);
    fn read(b: &[u8]) -> Self {
        Brain(u16::from_le_bytes([b[0], b[1]]))
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn forward(x: Self, scale: Self, shift: Self) -> Self {
        let prod = Brain::round(x.f() * scale.f());
        Brain::round(prod.f() - shift.f())
    }
    fn inverse(x: Self, scale: Self, shift: Self) -> Self {
        let sum = Brain::round(x.f() + shift.f());
        Brain::round(sum.f() / scale.f())
    }
    fn to_f16(self) -> u16 {
        f16::from_f32(self.f()).to_bits()
    }
    fn from_f16(h: u16) -> Self {
        Brain::round(f16::from_bits(h).to_f32())
    }
}

/// For each element of `out` (row-major), the flat offset of the element of `s` that numpy
/// broadcasting reads (`s` has at most `out`'s rank).
fn broadcast_offsets(out: &[u64], s: &[u64]) -> Vec<usize> {
    let pad = out.len() - s.len();
    let mut strides = vec![0usize; out.len()];
    let mut acc = 1usize;
    for i in (0..s.len()).rev() {
        strides[pad + i] = if s[i] == 1 { 0 } else { acc };
        acc *= s[i] as usize;
    }
    let n = out.iter().product::<u64>() as usize;
    let mut offs = Vec::with_capacity(n);
    let mut idx = vec![0u64; out.len()];
    let mut off = 0usize;
    for _ in 0..n {
        offs.push(off);
        for a in (0..out.len()).rev() {
            idx[a] += 1;
            off += strides[a];
            if idx[a] < out[a] {
                break;
            }
            off -= strides[a] * out[a] as usize;
            idx[a] = 0;
        }
    }
    offs
}

fn run<T: Elem>(data: &Tensor, scale: &Tensor, shift: Option<&Tensor>, dest: Dest) -> Vec<u8> {
    let elems = |t: &Tensor| -> Vec<T> { t.data.chunks_exact(T::SIZE).map(T::read).collect() };
    let (x, s) = (elems(data), elems(scale));
    // Without a shift input OpenVINO subtracts zeros of the scale's shape.
    let o = match shift {
        Some(t) => elems(t),
        None => vec![T::ZERO; s.len()],
    };
    let offs = broadcast_offsets(&data.shape, &scale.shape);
    let emulate = match dest {
        Dest::E4M3 => emulate_e4m3,
        Dest::E5M2 => emulate_e5m2,
    };
    let mut out = Vec::with_capacity(x.len() * T::SIZE);
    for (&v, &k) in x.iter().zip(&offs) {
        let scaled = T::forward(v, s[k], o[k]);
        let back = T::from_f16(emulate(scaled.to_f16()));
        T::inverse(back, s[k], o[k]).write(&mut out);
    }
    out
}

fn fake_convert_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let dest = destination(cx)?;
    let value = |i: usize| -> R<&Tensor> {
        cx.input(i)?
            .value
            .as_deref()
            .ok_or_else(|| format!("input {i} is not known").into())
    };
    let (data, scale) = (value(0)?, value(1)?);
    let shift = if cx.inputs.len() > 2 {
        Some(value(2)?)
    } else {
        None
    };
    let same = |t: &Tensor| t.et == data.et;
    if !same(scale) || !shift.is_none_or(same) {
        return Err("scale and shift must have the data's element type".into());
    }
    if shift.is_some_and(|t| t.shape != scale.shape) {
        return Err(format!(
            "shift {:?} must have the scale's shape {:?}",
            shift.map(|t| &t.shape),
            scale.shape
        )
        .into());
    }
    let (ds, ss) = (&data.shape, &scale.shape);
    let fits = ss.len() <= ds.len()
        && ss
            .iter()
            .rev()
            .zip(ds.iter().rev())
            .all(|(&a, &b)| a == 1 || a == b);
    if !fits {
        return Err(format!("scale {ss:?} does not broadcast into data {ds:?}").into());
    }
    let bytes = match data.et {
        E::F32 => run::<f32>(data, scale, shift, dest),
        E::F16 => run::<Half>(data, scale, shift, dest),
        E::Bf16 => run::<Brain>(data, scale, shift, dest),
        et => return Err(format!("OpenVINO has no FakeConvert kernel for {et}").into()),
    };
    let t = Tensor::new(data.et, data.shape.clone(), bytes);
    Ok(vec![Fact::with_value(t)])
}

pub(super) fn register(r: &mut Reg) {
    // ConstantFolding runs FakeConvert in its own precision (`is_node_whitelisted`).
    r.add(
        "FakeConvert",
        &ALL_VERSIONS,
        OpDef::with_eval(fake_convert_infer, fake_convert_eval).native_precision(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e4(x: f32) -> f32 {
        f16::from_bits(emulate_e4m3(f16::from_f32(x).to_bits())).to_f32()
    }
    fn e5(x: f32) -> f32 {
        f16::from_bits(emulate_e5m2(f16::from_f32(x).to_bits())).to_f32()
    }

    #[test]
    fn e4m3_rounds_saturates_and_flushes() {
        assert_eq!(e4(1.0625), 1.0); // tie to even
        assert_eq!(e4(1.07), 1.125);
        assert_eq!(e4(500.0), 448.0);
        assert_eq!(e4(-1e4), -448.0);
        assert_eq!(e4(f32::INFINITY), 448.0);
        assert_eq!(e4(f32::NAN), 448.0);
        assert_eq!(e4(0.0028), 0.001_953_125); // subnormal range
        assert_eq!(e4(0.0019).to_bits(), 0); // below 2^-9: +0
        assert_eq!(e4(-0.0019).to_bits(), 0);
    }

    #[test]
    fn e5m2_rounds_and_clamps_inf() {
        assert_eq!(e5(1.125), 1.0);
        assert_eq!(e5(1.2), 1.25);
        assert_eq!(e5(f32::INFINITY), 57344.0);
        assert_eq!(e5(-70000.0), -57344.0);
        assert!(e5(f32::NAN).is_nan());
    }

    fn ctx_run<T>(dest: &str, inputs: &[Fact], f: impl Fn(&Ctx) -> R<T>) -> R<T> {
        let mut l = crate::ir::Layer::new("FakeConvert", "opset13", "fc");
        l.data = Some(crate::ir::Attrs::from_pairs([("destination_type", dest)]));
        let cx = Ctx {
            layer: &l,
            ty: "FakeConvert",
            inputs,
            version: 13,
            f32_mode: false,
            folding: false,
            attrs: &Default::default(),
        };
        f(&cx)
    }

    fn fact(et: E, s: &str) -> Fact {
        Fact::new(et, PartialShape::parse(s).unwrap())
    }

    #[test]
    fn shape_rule_checks_like_openvino() {
        let infer = |dest: &str, ins: &[Fact]| ctx_run(dest, ins, fake_convert_infer);
        let (x, sc) = (fact(E::F32, "?,3"), fact(E::F32, "4,1"));
        let o = infer("f8e4m3", &[x.clone(), sc.clone(), sc.clone()]).unwrap();
        assert_eq!(o[0].shape, PartialShape::parse("4,3").unwrap());
        // Other destination types, integer or mixed types, a scale growing the data, a shift
        // not matching the scale: all rejected.
        assert!(infer("f8e8m0", &[x.clone(), sc.clone()]).is_err());
        assert!(infer("f16", &[x.clone(), sc.clone()]).is_err());
        let xi = fact(E::I32, "2,3");
        assert!(infer("f8e4m3", &[xi.clone(), fact(E::I32, "1")]).is_err());
        assert!(infer("f8e4m3", &[x.clone(), fact(E::F16, "1")]).is_err());
        assert!(infer("f8e5m2", &[fact(E::F32, "3"), fact(E::F32, "2,3")]).is_err());
        assert!(infer("f8e5m2", &[x.clone(), sc.clone(), fact(E::F32, "4")]).is_err());
        assert!(infer("f8e5m2", &[x]).is_err());
    }

    #[test]
    fn kernel_matches_openvino_values() {
        // Measured with OpenVINO 2026.4.1's ConstantFolding.
        let f32s = |v: &[f32]| {
            let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            Fact::with_value(Tensor::new(E::F32, vec![v.len() as u64], b))
        };
        let (x, one) = (f32s(&[1.3, 500.0, -0.001]), f32s(&[1.0]));
        let eval = |dest: &str| {
            let o = ctx_run(dest, &[x.clone(), one.clone()], |cx| {
                fake_convert_eval(cx, &[])
            })
            .unwrap();
            let t = o[0].value.clone().unwrap();
            t.data
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<f32>>()
        };
        assert_eq!(eval("f8e4m3"), vec![1.25, 448.0, 0.0]);
        assert_eq!(eval("f8e5m2"), vec![1.25, 512.0, -0.000_976_562_5]);
    }

    #[test]
    fn offsets_broadcast_like_numpy() {
        assert_eq!(broadcast_offsets(&[2, 3], &[3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_offsets(&[2, 3], &[2, 1]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_offsets(&[2, 2], &[]), vec![0; 4]);
        assert_eq!(broadcast_offsets(&[0, 2], &[2]), Vec::<usize>::new());
    }
}
