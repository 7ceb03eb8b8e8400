//! `irc compress --fp16`: f32 constants become f16 constants followed by a `decompression`
//! Convert, as OpenVINO 2026.4.1's `save_model(..., compress_to_fp16=True)` writes them
//! (measured; `tests/ov/compress.py` compares the written constants with OpenVINO's):
//!
//! - nothing is compressed in a model that is already optimized: one holding a FakeQuantize or
//!   FakeConvert, or low-precision weights (`Const u8/i8/u4/i4/nf4/f8 → Convert → [Subtract] →
//!   Multiply`);
//! - a constant stays f32 when it is empty, is marked `precise` / `disable_fp16_compression`
//!   in its rt_info, when 75% or more of its values are out of f16's range (beyond ±65504, or
//!   non-zero below 2^-24, or NaN), when any value in range is more than 1.0 away
//!   from its f16 (5002 is 5000 in f16), or, for a single value, when f16 is more than 1e-4
//!   away relatively (a scalar 1.0002);
//! - values are clamped to ±65504 and rounded to nearest even; NaN becomes 65504 (0x7bff), as
//!   OpenVINO's x86 conversion does (its `vminps`/`vmaxps` clamp returns the bound for NaN);
//! - the Const keeps its tensor names and is renamed `NAME_compressed`; the Convert takes its
//!   friendly name and rt_info, plus `decompression`.
//!
//! f64 constants stay as they are (OpenVINO compresses them too; no IR irc has met holds one).

use crate::ir::*;
use half::f16;

/// What `compress` did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CompressReport {
    /// Constants now stored as f16.
    pub compressed: usize,
    /// f32 constants kept, with why (friendly name, reason).
    pub kept: Vec<(String, String)>,
    /// Why nothing was compressed, when so (an optimized model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_model: Option<String>,
}

/// Compress the model's f32 constants (bodies included).
pub fn compress_fp16(model: &mut Model) -> Result<CompressReport, String> {
    let mut rep = CompressReport::default();
    if let Some(why) = optimized(&model.graph) {
        rep.skipped_model = Some(why);
        return Ok(rep);
    }
    let weights = model.weights.clone();
    compress_graph(&mut model.graph, weights.as_deref(), &mut rep)?;
    Ok(rep)
}

/// OpenVINO's `is_model_optimized`: a FakeQuantize/FakeConvert, or compressed weights.
fn optimized(g: &Graph) -> Option<String> {
    const LOW: &[ElementType] = &[
        ElementType::I4,
        ElementType::U4,
        ElementType::I8,
        ElementType::U8,
        ElementType::Nf4,
        ElementType::F8E4M3,
        ElementType::F8E5M2,
    ];
    for n in g.nodes() {
        let l = &g[n];
        if l.is("FakeQuantize") || l.is("FakeConvert") {
            return Some(format!(
                "the model is already optimized: it holds {}",
                l.label()
            ));
        }
        if l.is("Const") {
            let et = l.outputs.first().and_then(|p| p.precision);
            if et.is_some_and(|e| LOW.contains(&e)) {
                for (c, _) in g.users_of(n, 0) {
                    if !g[c].is("Convert") {
                        continue;
                    }
                    for (u, _) in g.users_of(c, 0) {
                        let mul = g[u].is("Multiply")
                            || (g[u].is("Subtract")
                                && g.users_of(u, 0).iter().any(|&(v, _)| g[v].is("Multiply")));
                        if mul {
                            return Some(format!(
                                "the model is already optimized: {} holds compressed weights",
                                l.label()
                            ));
                        }
                    }
                }
            }
        }
        for b in &l.bodies {
            if let Some(w) = optimized(&b.graph) {
                return Some(w);
            }
        }
    }
    None
}

const F16_MAX: f32 = 65504.0;

/// The f16 bytes OpenVINO writes for these f32 values, or why it keeps them f32. One pass
/// over the values after a vectorized conversion (F16C where the CPU has it, round to nearest
/// even either way).
fn compress_values(v: &[f32]) -> Result<Vec<u8>, String> {
    use half::slice::HalfFloatSliceExt;
    if v.is_empty() {
        return Err("empty".into());
    }
    let mut h = vec![f16::ZERO; v.len()];
    h.convert_from_f32_slice(v);
    let tiny = f32::from_bits(0x3380_0000); // 2^-24, f16's smallest subnormal
    let mut out = 0usize;
    let bits: &mut [u16] = h.reinterpret_cast_mut();
    for (&x, b) in v.iter().zip(bits.iter_mut()) {
        if x.is_nan() || (x.abs() < tiny && x != 0.0) || !(-F16_MAX..=F16_MAX).contains(&x) {
            out += 1;
            // clamped to +-65504 (NaN too, as OpenVINO's x86 clamp does); tiny values keep
            // their rounding (0 or the smallest subnormal)
            if x.is_nan() || x > F16_MAX {
                *b = 0x7bff;
            } else if x < -F16_MAX {
                *b = 0xfbff;
            }
            continue;
        }
        // f16's rounding error is at most half its spacing: more than 1.0 only from 4096 on
        // (spacing 4); below that only a lone value needs its relative error.
        if x.abs() < 4096.0 && v.len() != 1 {
            continue;
        }
        let back = f16::from_bits(*b).to_f32() as f64;
        let err = (x as f64 - back).abs();
        if err > 1.0 {
            return Err(format!("{x} is {back} in f16 (more than 1.0 away)"));
        }
        if v.len() == 1 && x != 0.0 && err / (x.abs() as f64) > 1e-4 {
            out += 1;
        }
    }
    if out as f32 / v.len() as f32 >= 0.75 {
        return Err(format!(
            "{out} of {} values are out of f16's range (or, alone, not within 1e-4 of it)",
            v.len()
        ));
    }
    let mut bytes = Vec::with_capacity(bits.len() * 2);
    for b in bits.iter() {
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    Ok(bytes)
}

/// Why OpenVINO keeps these f32 values, or None to compress them.
#[cfg(test)]
fn keep_reason(v: &[f32]) -> Option<String> {
    compress_values(v).err()
}

/// f32 → f16 bits as OpenVINO writes them: clamped to ±65504, round to nearest even, NaN to
/// 65504.
#[cfg(test)]
fn to_f16_bits(x: f32) -> u16 {
    let b = compress_values(&[x, 1.0, 1.0, 1.0]).expect("in range");
    u16::from_le_bytes([b[0], b[1]])
}

fn compress_graph(
    g: &mut Graph,
    w: Option<&Weights>,
    rep: &mut CompressReport,
) -> Result<(), String> {
    let nodes: Vec<NodeId> = g.nodes().collect();
    // The f32 constants to look at, with their bytes.
    let mut work: Vec<(NodeId, &[u8])> = Vec::new();
    let mut owned: Vec<(NodeId, std::sync::Arc<[u8]>)> = Vec::new();
    for &n in &nodes {
        for b in g[n].bodies.iter_mut() {
            compress_graph(&mut b.graph, w, rep)?;
        }
        let l = &g[n];
        if !l.is("Const") || l.outputs.len() != 1 {
            continue;
        }
        if l.outputs[0].precision != Some(ElementType::F32)
            || ElementType::parse_attr(l.attr("element_type").unwrap_or(""))
                != Some(ElementType::F32)
        {
            continue;
        }
        let rt = l.rt_info.as_deref();
        if [
            "precise",
            "disable_fp16_compression",
            "DisablePrecisionConversion",
        ]
        .iter()
        .any(|a| has_rt_attr(rt, a))
        {
            rep.kept
                .push((l.name.clone(), "marked precise in its rt_info".into()));
            continue;
        }
        match l.konst.as_ref() {
            Some(ConstData::Owned(b)) => owned.push((n, b.clone())),
            Some(ConstData::Bin { offset, size }) => work.push((
                n,
                w.and_then(|w| w.bytes().get(*offset as usize..(*offset + *size) as usize))
                    .ok_or_else(|| format!("{}: its bytes are outside the .bin", l.label()))?,
            )),
            Some(ConstData::Out { .. }) | None => {}
        }
    }
    work.extend(owned.iter().map(|(n, b)| (*n, &b[..])));
    // Each constant converts on its own: two halves on two threads (by bytes).
    let total: usize = work.iter().map(|w| w.1.len()).sum();
    let mut acc = 0;
    let split = work
        .iter()
        .position(|w| {
            acc += w.1.len();
            acc * 2 >= total
        })
        .map_or(work.len(), |i| i + 1);
    let (a, b) = work.split_at(split);
    let results: Vec<Result<Vec<u8>, String>> = if total > 1 << 20 {
        std::thread::scope(|s| {
            let h = s.spawn(|| convert_constants(b));
            let mut r = convert_constants(a);
            let rest = h
                .join()
                .map_err(|_| "compress: a conversion thread failed".to_string())?;
            r.extend(rest);
            Ok::<_, String>(r)
        })?
    } else {
        convert_constants(&work)
    };
    let done: Vec<NodeId> = work.iter().map(|w| w.0).collect();
    for (n, r) in done.into_iter().zip(results) {
        match r {
            Ok(data) => {
                rewrite(g, n, data);
                rep.compressed += 1;
            }
            Err(why) => rep.kept.push((g[n].name.clone(), why)),
        }
    }
    Ok(())
}

/// Each constant's f16 bytes, or why it stays f32.
fn convert_constants(items: &[(NodeId, &[u8])]) -> Vec<Result<Vec<u8>, String>> {
    items
        .iter()
        .map(|(_, bytes)| {
            // Aligned bytes are read in place (little-endian hosts); others are copied.
            // SAFETY: every bit pattern is a valid f32.
            let (pre, mid, post) = unsafe { bytes.align_to::<f32>() };
            if cfg!(target_endian = "little") && pre.is_empty() && post.is_empty() {
                return compress_values(mid);
            }
            let vals: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            compress_values(&vals)
        })
        .collect()
}

/// Const(f32) → Const(f16) `NAME_compressed` → Convert(f32) `NAME` (decompression).
fn rewrite(g: &mut Graph, n: NodeId, data: Vec<u8>) {
    let users = g.users_of(n, 0);
    let l = &mut g[n];
    let name = std::mem::take(&mut l.name);
    l.name = format!("{name}_compressed");
    let size = data.len().to_string();
    if let Some(d) = l.data.as_mut() {
        d.set("element_type", "f16");
        d.set("size", &size);
    }
    l.konst = Some(ConstData::Owned(data.into()));
    let port = &mut l.outputs[0];
    port.precision = Some(ElementType::F16);
    let (shape, out_id) = (port.shape.clone(), port.id);
    let rt = l.rt_info.take();
    let (origin, id) = (l.origin, l.id);
    let mut cv = Layer::new("Convert", "opset1", &name);
    cv.data = Some(Attrs::from_pairs([("destination_type", "f32")]));
    cv.rt_info = Some(std::sync::Arc::new(super::make::decompression_rt_info(
        rt.as_deref(),
    )));
    cv.inputs
        .push(Port::new(0, ElementType::F16, shape.clone()));
    cv.outputs.push(Port::new(1, ElementType::F32, shape));
    cv.origin = origin;
    cv.id = id;
    let c = g.add_layer(cv);
    g.connect(n, out_id, c, 0);
    for (u, i) in users {
        let pid = g[u].inputs[i].id;
        g.disconnect_input(u, pid);
        g.connect(c, 1, u, pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_rules_are_openvinos() {
        // measured with OpenVINO 2026.4.1's save_model(compress_to_fp16=True)
        assert!(keep_reason(&[5002.0, 1.0, 1.0, 1.0]).is_some());
        assert!(keep_reason(&[1.0002; 4]).is_none());
        assert!(keep_reason(&[1.0002]).is_some());
        assert!(keep_reason(&[1e5, 1e5, 1e5, 1.0]).is_some());
        assert!(keep_reason(&[1e5, 1e5, 1.0, 1.0]).is_none());
        assert!(keep_reason(&[f32::NAN, 1.0, 2.0, 3.0]).is_none());
        assert!(keep_reason(&[1e-8, 3e-8, 1.0, 2.0]).is_none());
        assert!(keep_reason(&[1e-10]).is_some());
        assert!(keep_reason(&[]).is_some());
        let (n, i) = (f32::NAN, f32::INFINITY);
        assert!(keep_reason(&[n, n, n, 1.0]).is_some());
        assert!(keep_reason(&[n, n, 1.0, 1.0]).is_none());
        assert!(keep_reason(&[n, i, -i, 1.0]).is_some());
        assert!(keep_reason(&[n, i, 1.0, 1.0]).is_none());
    }

    #[test]
    fn values_convert_as_openvino_writes_them() {
        // bytes OpenVINO wrote for the probes above
        let b = |v: &[f32]| v.iter().map(|&x| to_f16_bits(x)).collect::<Vec<_>>();
        assert_eq!(b(&[1e5, 1e5, 1.0, 1.0]), [0x7bff, 0x7bff, 0x3c00, 0x3c00]);
        assert_eq!(
            b(&[f32::NAN, 1.0, 2.0, 3.0]),
            [0x7bff, 0x3c00, 0x4000, 0x4200]
        );
        assert_eq!(b(&[1e-8, 3e-8, 1.0, 2.0]), [0x0000, 0x0001, 0x3c00, 0x4000]);
        assert_eq!(
            b(&[-1e5, 70000.0, 1.0, 2.0]),
            [0xfbff, 0x7bff, 0x3c00, 0x4000]
        );
        assert_eq!(
            b(&[f32::INFINITY, f32::NEG_INFINITY, -0.0]),
            [0x7bff, 0xfbff, 0x8000]
        );
    }
}
