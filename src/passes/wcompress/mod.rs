//! `irc compress --weight-format int8|int4|nf4`: NNCF 3.4.0's data-free `compress_weights`
//! (OpenVINO backend), result for result, streamed.
//!
//! [`plan`] decides, as NNCF does, which weights are compressed and how (candidates in NNCF's
//! own topological order, the backup precision for embeddings, convolutions and the last
//! layer, `--ratio` by the int8 quantization error, the group-size check, ignored scopes);
//! [`apply`] rewrites the graph (each weight's Const becomes the decompression subgraph NNCF
//! builds: codes → Convert → [Subtract zero point] → Multiply scale → [Reshape] → [Convert]) and
//! [`write`] streams every weight from the mapped input `.bin` to the output one
//! ([`stream`]). The arithmetic is in [`lower`]; the orders in [`order`]. What NNCF does was
//! measured (docs/compress.md) and is held to NNCF by tests/ov/wcompress.py.

pub mod kernel;
pub mod lower;
pub mod order;
pub mod stream;

use crate::ir::*;
use lower::Lowering;
use std::sync::Arc;
use stream::{Geo, Job, Source};

/// NNCF's `CompressWeightsMode`, the data-free ones irc computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Int8Asym,
    Int8Sym,
    Int4Asym,
    Int4Sym,
    Nf4,
    /// f8e4m3 codes, f16 scales per group.
    Fp8E4m3,
    /// f4e2m1 codes, f16 scales per group.
    Fp4,
    /// f4e2m1 codes, f8e8m0 (power of two) scales per group of 32.
    Mxfp4,
    /// f8e4m3 codes, f8e8m0 scales per group of 32.
    Mxfp8E4m3,
}

impl Mode {
    /// From optimum-cli's `--weight-format` and `--sym` (or NNCF's mode names).
    pub fn parse(format: &str, sym: bool) -> Result<Mode, String> {
        Ok(match (format.to_ascii_lowercase().as_str(), sym) {
            ("int8", false) | ("int8_asym", false) => Mode::Int8Asym,
            ("int8", true) | ("int8_sym", _) => Mode::Int8Sym,
            ("int4", false) | ("int4_asym", false) => Mode::Int4Asym,
            ("int4", true) | ("int4_sym", _) => Mode::Int4Sym,
            ("nf4", _) => Mode::Nf4,
            ("fp8_e4m3", _) => Mode::Fp8E4m3,
            ("fp4", _) => Mode::Fp4,
            ("mxfp4", _) => Mode::Mxfp4,
            ("mxfp8_e4m3", _) => Mode::Mxfp8E4m3,
            ("int8_asym", true) | ("int4_asym", true) => {
                return Err(format!(
                    "--weight-format {format} is asymmetric: drop --sym"
                ))
            }
            (f, _) => {
                return Err(format!(
                    "--weight-format {f}: irc compresses to int8, int4 (asymmetric, or symmetric \
                     with --sym), nf4, fp8_e4m3, fp4, mxfp4 and mxfp8_e4m3, as NNCF's data-free \
                     modes INT8_ASYM, INT8_SYM, INT4_ASYM, INT4_SYM, NF4, FP8_E4M3, FP4, MXFP4 and \
                     MXFP8_E4M3 (fp16: --fp16)"
                ))
            }
        })
    }

    /// NNCF's `mode.value`.
    pub fn value(self) -> &'static str {
        match self {
            Mode::Int8Asym => "int8_asym",
            Mode::Int8Sym => "int8_sym",
            Mode::Int4Asym => "int4_asym",
            Mode::Int4Sym => "int4_sym",
            Mode::Nf4 => "nf4",
            Mode::Fp8E4m3 => "fp8_e4m3",
            Mode::Fp4 => "fp4",
            Mode::Mxfp4 => "mxfp4",
            Mode::Mxfp8E4m3 => "mxfp8_e4m3",
        }
    }

    fn is_mx(self) -> bool {
        matches!(self, Mode::Mxfp4 | Mode::Mxfp8E4m3)
    }

    fn is_int8(self) -> bool {
        matches!(self, Mode::Int8Asym | Mode::Int8Sym)
    }

    /// The arithmetic for a weight of `elements` values (NNCF computes weights of 10,000 or
    /// more with an OpenVINO model; for the float modes that differs, see [`Lowering::Float`]).
    pub fn lowering(self, elements: usize) -> Lowering {
        let ov = elements >= 10_000;
        match self {
            Mode::Int8Asym => Lowering::Asym { bits: 8 },
            Mode::Int8Sym => Lowering::Sym { bits: 8 },
            Mode::Int4Asym => Lowering::Asym { bits: 4 },
            Mode::Int4Sym => Lowering::Sym { bits: 4 },
            Mode::Nf4 => Lowering::Nf4,
            Mode::Fp8E4m3 => Lowering::Float {
                f8: true,
                mx: false,
                ov,
            },
            Mode::Fp4 => Lowering::Float {
                f8: false,
                mx: false,
                ov,
            },
            Mode::Mxfp4 => Lowering::Float {
                f8: false,
                mx: true,
                ov,
            },
            Mode::Mxfp8E4m3 => Lowering::Float {
                f8: true,
                mx: true,
                ov,
            },
        }
    }

    /// The element type of the stored codes (and of an asymmetric mode's zero points).
    pub fn codes_type(self) -> ElementType {
        match self {
            Mode::Int8Asym => ElementType::U8,
            Mode::Int8Sym => ElementType::I8,
            Mode::Int4Asym => ElementType::U4,
            Mode::Int4Sym => ElementType::I4,
            Mode::Nf4 => ElementType::Nf4,
            Mode::Fp8E4m3 | Mode::Mxfp8E4m3 => ElementType::F8E4M3,
            Mode::Fp4 | Mode::Mxfp4 => ElementType::F4E2M1,
        }
    }
}

/// NNCF's `BackupMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backup {
    None,
    Int8Sym,
    Int8Asym,
    /// f8e4m3 in groups of the primary group size.
    Fp8E4m3,
    /// f8e4m3 with f8e8m0 scales in groups of 32.
    Mxfp8E4m3,
}

impl Backup {
    pub fn parse(s: &str) -> Result<Backup, String> {
        match s.to_ascii_lowercase().as_str() {
            "none" => Ok(Backup::None),
            "int8_sym" => Ok(Backup::Int8Sym),
            "int8_asym" => Ok(Backup::Int8Asym),
            "fp8_e4m3" => Ok(Backup::Fp8E4m3),
            "mxfp8_e4m3" => Ok(Backup::Mxfp8E4m3),
            _ => Err(format!(
                "--backup-precision {s}: one of int8_asym (the default for integer modes), \
                 int8_sym, fp8_e4m3 (fp4's and fp8_e4m3's), mxfp8_e4m3 (the MX modes'), none"
            )),
        }
    }

    pub fn value(self) -> &'static str {
        match self {
            Backup::None => "none",
            Backup::Int8Sym => "int8_sym",
            Backup::Int8Asym => "int8_asym",
            Backup::Fp8E4m3 => "fp8_e4m3",
            Backup::Mxfp8E4m3 => "mxfp8_e4m3",
        }
    }

    /// NNCF's `_get_backup_config`: the mode and group size of a weight in the backup.
    fn config(self, primary_group: i64) -> Option<(Mode, i64)> {
        match self {
            Backup::None => None,
            Backup::Int8Sym => Some((Mode::Int8Sym, -1)),
            Backup::Int8Asym => Some((Mode::Int8Asym, -1)),
            Backup::Fp8E4m3 => Some((Mode::Fp8E4m3, primary_group)),
            Backup::Mxfp8E4m3 => Some((Mode::Mxfp8E4m3, 32)),
        }
    }
}

/// NNCF's `GroupSizeFallbackMode`: what a weight whose channel a group does not divide gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// An error naming every such layer (NNCF's default).
    Error,
    /// The layer stays in float.
    Ignore,
    /// The largest power of two dividing the channel, if at least 32; else the backup.
    Adjust,
}

impl Fallback {
    pub fn parse(s: &str) -> Result<Fallback, String> {
        match s.to_ascii_lowercase().as_str() {
            "error" => Ok(Fallback::Error),
            "ignore" => Ok(Fallback::Ignore),
            "adjust" => Ok(Fallback::Adjust),
            _ => Err(format!(
                "--group-size-fallback {s}: one of error (the default), ignore, adjust"
            )),
        }
    }

    fn value(self) -> &'static str {
        match self {
            Fallback::Error => "error",
            Fallback::Ignore => "ignore",
            Fallback::Adjust => "adjust",
        }
    }
}

/// `compress_weights`' parameters, as given (`None`: not given, NNCF's default).
#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    pub group_size: Option<i64>,
    pub ratio: Option<f64>,
    pub all_layers: Option<bool>,
    pub backup: Option<Backup>,
    pub ignore_names: Vec<String>,
    pub ignore_patterns: Vec<String>,
    pub ignore_types: Vec<String>,
    pub fallback: Fallback,
}

impl Options {
    pub fn new(mode: Mode) -> Self {
        Options {
            mode,
            group_size: None,
            ratio: None,
            all_layers: None,
            backup: None,
            ignore_names: Vec::new(),
            ignore_patterns: Vec::new(),
            ignore_types: Vec::new(),
            fallback: Fallback::Error,
        }
    }
}

/// The parameters after NNCF's checks and defaults.
#[derive(Debug, Clone)]
struct Resolved {
    mode: Mode,
    group: i64,
    ratio: f64,
    all_layers: bool,
    backup: Backup,
    fallback: Fallback,
}

/// NNCF's `check_user_compression_configuration` and `get_weight_compression_configuration`.
fn resolve(o: &Options) -> Result<Resolved, String> {
    if o.mode.is_int8() {
        let ratio_set = o.ratio.is_some_and(|r| r != 0.0 && r != 1.0);
        let group_set = o.group_size.is_some_and(|g| g != 0 && g != -1);
        if ratio_set || group_set {
            return Err(format!(
                "{}: every weight is compressed per channel in 8 bits, so --ratio and \
                 --group-size do not apply (NNCF: INT8 modes require per-channel quantization of \
                 all layers in 8 bit)",
                o.mode.value()
            ));
        }
        let mut given = Vec::new();
        if o.all_layers.is_some() {
            given.push("--all-layers");
        }
        if o.backup.is_some() {
            given.push("--backup-precision");
        }
        if !given.is_empty() {
            return Err(format!(
                "{}: {} do(es) not apply to 8-bit modes (NNCF: INT8 modes do not support \
                 all_layers, backup_mode)",
                o.mode.value(),
                given.join(", ")
            ));
        }
    }
    if let Some(r) = o.ratio {
        if !(0.0..=1.0).contains(&r) {
            return Err(format!("--ratio {r}: the ratio is between 0 and 1"));
        }
    }
    if o.mode.is_mx() {
        if let Some(g) = o.group_size.filter(|&g| g != 32) {
            return Err(format!(
                "{}: groups of 32 only (the MX formats' block), not --group-size {g} (NNCF: \
                 MXFP4 and MXFP8_E4M3 types only support group size of 32)",
                o.mode.value()
            ));
        }
        if o.fallback == Fallback::Adjust {
            return Err(format!(
                "{}: --group-size-fallback adjust does not apply (the group is always 32)",
                o.mode.value()
            ));
        }
    }
    let group = o.group_size.unwrap_or(if o.mode.is_int8() {
        -1
    } else if o.mode.is_mx() {
        32
    } else {
        128
    });
    if group == 0 || group < -1 {
        return Err(format!(
            "--group-size {group}: a group size is a positive integer, or -1 for per channel"
        ));
    }
    Ok(Resolved {
        mode: o.mode,
        group,
        // `ratio or 1`: 0 is 1.
        ratio: o.ratio.filter(|&r| r != 0.0).unwrap_or(1.0),
        all_layers: o.all_layers.unwrap_or(false),
        backup: o.backup.unwrap_or(match o.mode {
            Mode::Mxfp4 | Mode::Mxfp8E4m3 => Backup::Mxfp8E4m3,
            Mode::Fp4 | Mode::Fp8E4m3 => Backup::Fp8E4m3,
            _ => Backup::Int8Asym,
        }),
        fallback: o.fallback,
    })
}

// ------------------------------------------------------------------------------- candidates

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    MatMul,
    Embedding,
    Conv,
}

/// One weight a compressed layer reads, in NNCF's terms.
#[derive(Debug, Clone)]
pub struct Param {
    /// The layer that owns the weight (the first reader in NNCF's order).
    pub node: NodeId,
    /// Its input port index (the `p` of `fq_weights_p`).
    pub port: usize,
    /// The weight's Const.
    pub konst: NodeId,
    pub name: String,
    pub et: ElementType,
    pub shape: Vec<usize>,
    pub axes: Vec<usize>,
    kind: Kind,
    /// (mode, group size; -1 per channel); `None` stays float.
    pub config: Option<(Mode, i64)>,
}

impl Param {
    fn elements(&self) -> u64 {
        self.shape.iter().map(|&d| d as u64).product()
    }

    fn channel(&self) -> usize {
        self.axes.first().map_or(1, |&a| self.shape[a])
    }
}

/// The Const a weight input reads through Convert/FakeQuantize/FakeConvert/Reshape (input 0
/// each time), as NNCF's `get_operation_const_op` finds it.
fn const_through(g: &Graph, mut n: NodeId) -> Option<NodeId> {
    for _ in 0..64 {
        let l = &g[n];
        if l.is("Const") {
            return Some(n);
        }
        if !["Convert", "FakeQuantize", "FakeConvert", "Reshape"]
            .iter()
            .any(|t| l.is(t))
        {
            return None;
        }
        n = g.input_of(n, 0)?.0;
    }
    None
}

fn const_type(l: &Layer) -> Option<ElementType> {
    l.attr("element_type")
        .and_then(ElementType::parse_attr)
        .or_else(|| l.outputs.first().and_then(|p| p.precision))
}

fn const_shape(l: &Layer) -> Option<Vec<usize>> {
    if let Some(s) = l.attr("shape") {
        let d = PartialShape::parse_static(s).ok()?;
        return Some(d.iter().map(|&x| x as usize).collect());
    }
    let p = l.outputs.first()?;
    p.shape
        .to_static()
        .map(|d| d.iter().map(|&x| x as usize).collect())
}

/// NNCF's "float" element types (a weight of another type is never a candidate).
fn nncf_float(et: ElementType) -> bool {
    use ElementType as E;
    matches!(
        et,
        E::Nf4 | E::F4E2M1 | E::F8E8M0 | E::F8E4M3 | E::F8E5M2 | E::F16 | E::Bf16 | E::F32 | E::F64
    )
}

/// The weight kinds irc computes (NNCF also takes f64 and f8 weights: irc leaves them).
fn irc_supported(et: ElementType) -> bool {
    matches!(et, ElementType::F16 | ElementType::Bf16 | ElementType::F32)
}

fn kind_of(g: &Graph, n: NodeId) -> Option<Kind> {
    let l = &g[n];
    if l.is("MatMul") {
        return Some(Kind::MatMul);
    }
    if [
        "Convolution",
        "GroupConvolution",
        "ConvolutionBackpropData",
        "GroupConvolutionBackpropData",
    ]
    .iter()
    .any(|t| l.is(t))
    {
        return Some(Kind::Conv);
    }
    if l.is("Gather") && !l.name.ends_with("nncf_codebook") {
        let et = l.inputs.first().and_then(|p| p.precision);
        let float = matches!(
            et,
            Some(ElementType::F16) | Some(ElementType::F32) | Some(ElementType::F64)
        );
        let from_const = g
            .input_of(n, 0)
            .and_then(|(s, _)| const_through(g, s))
            .is_some();
        if float && from_const {
            return Some(Kind::Embedding);
        }
    }
    None
}

/// The reduction axes of a weight of rank `rank` read at input `port` of `n` (NNCF's
/// `get_reduction_axes`: every axis but the output channels).
fn reduction_axes(g: &Graph, n: NodeId, kind: Kind, port: usize, rank: usize) -> Vec<usize> {
    let l = &g[n];
    match kind {
        Kind::MatMul => {
            if rank <= 1 {
                return vec![0];
            }
            let flag = if port == 0 {
                "transpose_a"
            } else {
                "transpose_b"
            };
            let t = l.attr(flag).is_some_and(|v| v == "true" || v == "1");
            if (t && port == 0) || (!t && port == 1) {
                vec![rank - 2]
            } else {
                vec![rank - 1]
            }
        }
        Kind::Embedding => (1..rank).collect(),
        Kind::Conv => {
            let skip: &[usize] = if l.is("Convolution") {
                &[0]
            } else if l.is("GroupConvolution") {
                &[0, 1]
            } else if l.is("ConvolutionBackpropData") {
                &[1]
            } else {
                &[0, 2]
            };
            (0..rank).filter(|a| !skip.contains(a)).collect()
        }
    }
}

/// Weight inputs of `n` as NNCF's graph builder finds them: inputs not reached from the model
/// inputs that read a float Const.
fn weight_ports(g: &Graph, ids: &order::Ids, n: NodeId) -> Vec<(usize, NodeId)> {
    let l = &g[n];
    let count = if l.is("ConvolutionBackpropData") || l.is("GroupConvolutionBackpropData") {
        2.min(l.inputs.len())
    } else {
        l.inputs.len()
    };
    let mut out = Vec::new();
    for i in 0..count {
        let Some((src, _)) = g.input_of(n, i) else {
            continue;
        };
        if ids.reached[src.index()] {
            continue;
        }
        let Some(k) = const_through(g, src) else {
            continue;
        };
        if const_type(&g[k]).is_some_and(nncf_float) {
            out.push((i, k));
        }
    }
    out
}

// ---------------------------------------------------------------------------- ignored scope

/// The op type as OpenVINO names it (`Const` is `Constant`).
fn ov_type(l: &Layer) -> &str {
    if l.is("Const") {
        "Constant"
    } else {
        &l.ty
    }
}

/// Names of the layers the ignored scope covers; an entry that matches nothing is an error,
/// as NNCF's (validated) `IgnoredScope`.
fn ignored(g: &Graph, o: &Options) -> Result<std::collections::HashSet<String>, String> {
    let mut out = std::collections::HashSet::new();
    let mut unmatched = Vec::new();
    for name in &o.ignore_names {
        if g.layers().any(|l| &l.name == name) {
            out.insert(name.clone());
        } else {
            unmatched.push(format!("--ignore-layer '{name}' names no layer"));
        }
    }
    for t in &o.ignore_types {
        let hit: Vec<String> = g
            .layers()
            .filter(|l| ov_type(l) == t)
            .map(|l| l.name.clone())
            .collect();
        if hit.is_empty() {
            unmatched.push(format!("--ignore-type '{t}' matches no layer"));
        }
        out.extend(hit);
    }
    for p in &o.ignore_patterns {
        // Python's re.match: anchored at the start only.
        let re = regex::Regex::new(&format!("^(?:{p})"))
            .map_err(|e| format!("--ignore-pattern '{p}': not a regular expression: {e}"))?;
        let hit: Vec<String> = g
            .layers()
            .filter(|l| re.is_match(&l.name))
            .map(|l| l.name.clone())
            .collect();
        if hit.is_empty() {
            unmatched.push(format!("--ignore-pattern '{p}' matches no layer name"));
        }
        out.extend(hit);
    }
    if !unmatched.is_empty() {
        return Err(format!(
            "{} (NNCF: Ignored nodes ... were not found in the NNCFGraph)",
            unmatched.join("; ")
        ));
    }
    Ok(out)
}

/// MatMuls NNCF leaves in float by pattern: a rotary embedding's `inv_freq` product (MatMul →
/// [Transpose] → Concat(x, x) → Cos and Sin, MatMul → Transpose → Cos and Sin) and SAM's
/// positional encoding (MatMul → Multiply → Cos and Sin → one Concat).
fn rope_matmuls(g: &Graph) -> std::collections::HashSet<NodeId> {
    let users = |n: NodeId| -> Vec<NodeId> {
        let mut u: Vec<NodeId> = (0..g[n].outputs.len())
            .flat_map(|o| g.users_of(n, o))
            .map(|(u, _)| u)
            .collect();
        u.dedup();
        u
    };
    let edges = |a: NodeId, b: NodeId| -> usize {
        g.inputs_of(b)
            .iter()
            .flatten()
            .filter(|(s, _)| *s == a)
            .count()
    };
    let cos_sin = |n: NodeId| {
        let u = users(n);
        u.iter().any(|&x| g[x].is("Cos")) && u.iter().any(|&x| g[x].is("Sin"))
    };
    let concat_of_two = |from: NodeId| {
        users(from)
            .into_iter()
            .any(|c| g[c].is("Concat") && edges(from, c) == 2 && cos_sin(c))
    };
    let mut out = std::collections::HashSet::new();
    for m in g.nodes().filter(|&n| g[n].is("MatMul")) {
        let us = users(m);
        let transposed = us
            .iter()
            .any(|&t| g[t].is("Transpose") && (concat_of_two(t) || cos_sin(t)));
        let sam = us.iter().any(|&x| {
            g[x].is("Multiply") && {
                let u = users(x);
                let cos: Vec<NodeId> = u.iter().copied().filter(|&y| g[y].is("Cos")).collect();
                let sin: Vec<NodeId> = u.iter().copied().filter(|&y| g[y].is("Sin")).collect();
                cos.iter().any(|&c| {
                    sin.iter().any(|&s| {
                        users(c)
                            .iter()
                            .any(|&k| g[k].is("Concat") && users(s).contains(&k))
                    })
                })
            }
        });
        if transposed || concat_of_two(m) || sam {
            out.insert(m);
        }
    }
    out
}

// ------------------------------------------------------------------------------------- plan

/// What NNCF decides for a model: every weight it looks at, with its config.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Weights compressed, in NNCF's order.
    pub params: Vec<Param>,
    /// Weights left in float (ignored, unsupported, backup `none`, group-size `ignore`), with why.
    pub kept: Vec<(Param, String)>,
    resolved: Resolved,
    options: Options,
    /// Layers renamed because another had their name (NNCF makes friendly names unique).
    pub renamed: usize,
}

/// Decide every weight's compression as NNCF 3.4.0 does. Renames layers whose friendly name
/// repeats (as NNCF does before anything else). `weights` is read for `--ratio` below 1.
pub fn plan(g: &mut Graph, weights: Option<&Weights>, o: &Options) -> Result<Plan, String> {
    let rs = resolve(o)?;
    let ops = order::ov_ops(g);
    let done = g
        .rt_info
        .as_ref()
        .and_then(|rt| find_child(rt, "nncf"))
        .and_then(|n| find_child(n, "friendly_names_were_updated"))
        .and_then(|e| e.attr("value"))
        == Some("True");
    let renamed = if done { 0 } else { order::dedup_names(g, &ops) };
    let g: &Graph = g;
    let ids = order::nncf_ids(g, &ops);
    let topo = order::topological(g, &ids);
    let mut ignored = ignored(g, o)?;
    for m in rope_matmuls(g) {
        ignored.insert(g[m].name.clone());
    }
    let nodes: Vec<(NodeId, Kind)> = topo
        .iter()
        .filter(|&&n| ids.reached[n.index()])
        .filter_map(|&n| Some((n, kind_of(g, n)?)))
        .filter(|&(n, _)| !weight_ports(g, &ids, n).is_empty())
        .collect();

    let mut all: Vec<Param> = Vec::new();
    let mut kept: Vec<(Param, String)> = Vec::new();
    let mut taken = std::collections::HashSet::new();
    let mut last_skipped = false;
    let count = nodes.len();
    for (i, &(n, kind)) in nodes.iter().enumerate() {
        let target = !ignored.contains(&g[n].name);
        for (port, k) in weight_ports(g, &ids, n) {
            let is_last = i + 1 == count;
            let name = g[k].name.clone();
            if taken.contains(&name) {
                last_skipped = is_last;
                continue;
            }
            let (Some(et), Some(shape)) = (const_type(&g[k]), const_shape(&g[k])) else {
                continue;
            };
            let axes = reduction_axes(g, n, kind, port, shape.len());
            let p = Param {
                node: n,
                port,
                konst: k,
                name: name.clone(),
                et,
                shape,
                axes,
                kind,
                config: None,
            };
            let why = if !target {
                Some(format!("layer '{}' is ignored", g[n].name))
            } else if ignored.contains(&name) {
                Some(format!("weight '{name}' is ignored"))
            } else if !irc_supported(et) {
                Some(format!("{} weights are left as they are", et.name()))
            } else {
                None
            };
            match why {
                None => {
                    let mut p = p;
                    p.config = backup_config(&rs);
                    taken.insert(name);
                    all.push(p);
                }
                Some(w) => {
                    last_skipped = is_last;
                    kept.push((p, w));
                }
            }
        }
    }

    // The ratio-defining weights: MatMuls but the last (all of them with --all-layers, plus
    // single-axis embeddings); every weight in 8-bit modes.
    let mut rd: Vec<usize> = if rs.mode.is_int8() {
        (0..all.len()).collect()
    } else {
        let mut v: Vec<usize> = (0..all.len())
            .filter(|&i| all[i].kind == Kind::MatMul)
            .collect();
        if !rs.all_layers && !last_skipped {
            v.pop();
        }
        if rs.all_layers {
            v.extend(
                (0..all.len())
                    .filter(|&i| all[i].kind == Kind::Embedding && all[i].axes.len() == 1),
            );
        }
        v
    };

    // Group sizes that do not divide a channel.
    let mut group_of: std::collections::HashMap<usize, i64> =
        rd.iter().map(|&i| (i, rs.group)).collect();
    if rs.group != -1 {
        match rs.fallback {
            Fallback::Error => {}
            Fallback::Ignore => {
                let bad: Vec<NodeId> = rd
                    .iter()
                    .filter(|&&i| all[i].channel() as i64 % rs.group != 0)
                    .map(|&i| all[i].node)
                    .collect();
                if !bad.is_empty() {
                    let mut keep = Vec::new();
                    let mut map = Vec::new();
                    for (i, p) in all.drain(..).enumerate() {
                        if bad.contains(&p.node) {
                            let why = format!(
                                "group size {} does not divide its channel of {} (--group-size-fallback ignore)",
                                rs.group,
                                p.channel()
                            );
                            kept.push((Param { config: None, ..p }, why));
                        } else {
                            map.push((i, keep.len()));
                            keep.push(p);
                        }
                    }
                    all = keep;
                    let remap: std::collections::HashMap<usize, usize> = map.into_iter().collect();
                    rd = rd.iter().filter_map(|i| remap.get(i).copied()).collect();
                    group_of = rd.iter().map(|&i| (i, rs.group)).collect();
                }
            }
            Fallback::Adjust => {
                let mut valid = Vec::new();
                for &i in &rd {
                    let c = all[i].channel() as i64;
                    if c % rs.group == 0 {
                        valid.push(i);
                        continue;
                    }
                    let adjusted = c & c.wrapping_neg();
                    if adjusted >= 32 {
                        group_of.insert(i, adjusted);
                        valid.push(i);
                    }
                }
                rd = valid;
            }
        }
    }
    for &i in &rd {
        all[i].config = Some((rs.mode, group_of.get(&i).copied().unwrap_or(rs.group)));
    }

    // Mixed precision: the weights with the largest int8 error go to the primary precision
    // first, until the next would reach the ratio.
    if rs.ratio < 1.0 && !rd.is_empty() {
        let mut scores = Vec::with_capacity(rd.len());
        for &i in &rd {
            let p = &all[i];
            let geo = Geo::of(&p.shape, &p.axes, None).ok_or_else(|| {
                format!(
                    "weight '{}': reduction axes {:?} are not contiguous",
                    p.name, p.axes
                )
            })?;
            let src = source_of(g, p)?;
            let err = stream::int8_error(&src, geo, weights)
                .map_err(|e| format!("reading weight '{}': {e}", p.name))?;
            let eps = if p.et == ElementType::F32 {
                f32::EPSILON as f64
            } else {
                half::f16::EPSILON.to_f64()
            };
            scores.push(1.0 / (err as f64 + eps));
        }
        let mut idx: Vec<usize> = (0..rd.len()).collect();
        idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
        let total: u64 = rd.iter().map(|&i| all[i].elements()).sum();
        let mut n4 = 0u64;
        let mut primary = std::collections::HashSet::new();
        for k in idx {
            let p = &all[rd[k]];
            if (n4 + p.elements()) as f64 / total as f64 >= rs.ratio {
                break;
            }
            primary.insert(p.node);
            n4 += p.elements();
        }
        for &i in &rd {
            if !primary.contains(&all[i].node) {
                all[i].config = backup_config(&rs);
            }
        }
    }

    // The group size must divide the channel of every weight in the primary precision.
    let failed: Vec<String> = rd
        .iter()
        .filter_map(|&i| {
            let p = &all[i];
            let (_, gs) = p.config?;
            (gs != -1 && p.channel() as i64 % gs != 0)
                .then(|| format!("\"{}\" (channel size: {})", g[p.node].name, p.channel()))
        })
        .collect();
    if !failed.is_empty() {
        let chans: Vec<usize> = rd.iter().map(|&i| all[i].channel()).collect();
        let fits = [128i64, 64, 32, 16]
            .into_iter()
            .find(|gs| chans.iter().all(|&c| c as i64 % gs == 0));
        return Err(format!(
            "group size {} does not divide the channel of {} layer(s):\n\t{}\npass {}, or \
             --group-size-fallback ignore (those stay float) or adjust (a smaller group for them) \
             (NNCF: InvalidGroupSizeError)",
            rs.group,
            failed.len(),
            failed.join("\n\t"),
            match fits {
                Some(gs) => format!(
                    "--group-size {gs} (it divides every channel) or --group-size -1 (per channel)"
                ),
                None => "--group-size -1 (per channel)".to_string(),
            }
        ));
    }

    let (params, floats): (Vec<Param>, Vec<Param>) =
        all.into_iter().partition(|p| p.config.is_some());
    for p in floats {
        kept.push((p, "the backup precision is none".into()));
    }
    Ok(Plan {
        params,
        kept,
        resolved: rs,
        options: o.clone(),
        renamed,
    })
}

fn backup_config(rs: &Resolved) -> Option<(Mode, i64)> {
    rs.backup.config(rs.group)
}

fn source_of(g: &Graph, p: &Param) -> Result<Source, String> {
    let data = g[p.konst]
        .konst
        .clone()
        .ok_or_else(|| format!("weight '{}' has no data", p.name))?;
    Ok(Source { data, et: p.et })
}

fn find_child<'a>(e: &'a XmlElement, name: &str) -> Option<&'a XmlElement> {
    e.children.iter().find(|c| c.name == name)
}

// ------------------------------------------------------------------------------------ apply

/// One weight as compressed, for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightReport {
    /// The weight's Const (friendly name).
    pub name: String,
    /// The layer that reads it.
    pub layer: String,
    /// NNCF's mode name (`int4_asym`, `int8_asym`…), or `float` when kept.
    pub mode: String,
    /// -1: per channel; `null` when kept.
    pub group_size: Option<i64>,
    pub shape: Vec<usize>,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Why it stays float.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// What `compress` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub weights: Vec<WeightReport>,
    pub compressed: usize,
    pub kept: usize,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// Rewrite the graph: each planned weight's Const becomes NNCF's decompression subgraph whose
/// constants the returned jobs write at `.bin` offsets from 0 (see [`write`]).
pub fn apply(g: &mut Graph, plan: &Plan) -> Result<(Vec<Job>, Report), String> {
    let mut next_id = g.layers().map(|l| l.id).max().unwrap_or(0) + 1;
    let mut jobs = Vec::new();
    let mut off = 0u64;
    let mut weights = Vec::new();
    let mut names: std::collections::HashSet<String> = g.layers().map(|l| l.name.clone()).collect();
    for p in &plan.params {
        let (mode, gs) = p.config.expect("planned weights have a config");
        let group = (gs != -1).then_some(gs as usize);
        let geo = Geo::of(&p.shape, &p.axes, group).ok_or_else(|| {
            let layer = &g[p.node].name;
            if group.is_some() && p.axes.len() != 1 {
                format!(
                    "layer '{layer}': {} in groups of {gs} needs one reduction axis, its weight \
                     '{}' {:?} is reduced over {:?} (NNCF: Group-wise quantization expects a \
                     single reduction axis); leave it out with --ignore-layer, or choose \
                     --backup-precision int8_asym",
                    mode.value(),
                    p.name,
                    p.shape,
                    p.axes
                )
            } else {
                format!(
                    "layer '{layer}': group size {gs} ({}) does not divide its channel of {} \
                     (NNCF: Channel size {} should be divisible by size of group {gs}); leave the \
                     layer out with --ignore-layer, or choose another --group-size or \
                     --backup-precision",
                    mode.value(),
                    p.channel(),
                    p.channel()
                )
            }
        })?;
        let src = source_of(g, p)?;
        let low = mode.lowering(geo.elements());
        let n = geo.elements();
        let codes = (off, stream::packed_len(n, low.bits()));
        off += codes.1;
        let zp = if low.has_zero_point() {
            let z = (off, stream::packed_len(geo.groups(), low.bits()));
            off += z.1;
            z
        } else {
            (off, 0)
        };
        let scale = (off, geo.groups() as u64 * if low.mx() { 1 } else { 2 });
        off += scale.1;
        let bytes_before = n as u64 * (if p.et == ElementType::F32 { 4 } else { 2 });
        rewrite(
            g,
            p,
            mode,
            group,
            &geo,
            (codes, zp, scale),
            &mut next_id,
            &mut names,
        );
        weights.push(WeightReport {
            name: p.name.clone(),
            layer: g[p.node].name.clone(),
            mode: mode.value().into(),
            group_size: Some(gs),
            shape: p.shape.clone(),
            bytes_before,
            bytes_after: codes.1 + zp.1 + scale.1,
            kept: None,
        });
        jobs.push(Job {
            src,
            geo,
            lowering: low,
            codes,
            zp,
            scale,
        });
    }
    let compressed = weights.len();
    for (p, why) in &plan.kept {
        let b = p.elements() * (p.et.bits() as u64) / 8;
        weights.push(WeightReport {
            name: p.name.clone(),
            layer: g.get(p.node).map_or(String::new(), |l| l.name.clone()),
            mode: "float".into(),
            group_size: None,
            shape: p.shape.clone(),
            bytes_before: b,
            bytes_after: b,
            kept: Some(why.clone()),
        });
    }
    annotate(g, plan);
    let rep = Report {
        compressed,
        kept: plan.kept.len(),
        bytes_before: weights.iter().map(|w| w.bytes_before).sum(),
        bytes_after: weights.iter().map(|w| w.bytes_after).sum(),
        weights,
    };
    Ok((jobs, rep))
}

/// A name not taken yet (`base`, else `base_2`, …).
fn fresh(names: &mut std::collections::HashSet<String>, base: String) -> String {
    let mut name = base.clone();
    let mut k = 2;
    while names.contains(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    names.insert(name.clone());
    name
}

type Parts = ((u64, u64), (u64, u64), (u64, u64));

/// Replace `p`'s Const by NNCF's subgraph (`_create_compression_subgraph`, `_replace_node`).
#[allow(clippy::too_many_arguments)]
fn rewrite(
    g: &mut Graph,
    p: &Param,
    mode: Mode,
    group: Option<usize>,
    geo: &Geo,
    (codes, zp, scale): Parts,
    next_id: &mut u64,
    names: &mut std::collections::HashSet<String>,
) {
    use ElementType as E;
    let n = &p.name;
    let origin = g[p.konst].origin;
    let grouped: Vec<usize> = match group {
        Some(gs) => {
            let a = p.axes[0];
            let mut s = p.shape[..a].to_vec();
            s.push(p.shape[a] / gs);
            s.push(gs);
            s.extend_from_slice(&p.shape[a + 1..]);
            s
        }
        None => p.shape.clone(),
    };
    let scale_shape: Vec<usize> = match group {
        Some(_) => {
            let mut s = grouped.clone();
            s[p.axes[0] + 1] = 1;
            s
        }
        None => p
            .shape
            .iter()
            .enumerate()
            .map(|(i, &d)| if p.axes.contains(&i) { 1 } else { d })
            .collect(),
    };
    debug_assert_eq!(scale_shape.iter().product::<usize>(), geo.groups());
    let ps =
        |d: &[usize]| PartialShape::from_static(&d.iter().map(|&x| x as u64).collect::<Vec<_>>());
    let mut add = |g: &mut Graph, mut l: Layer| -> NodeId {
        l.id = *next_id;
        *next_id += 1;
        l.origin = origin;
        g.add_layer(l)
    };
    let konst = |name: &str, et: E, shape: &[usize], data: ConstData| -> Layer {
        let mut l = Layer::new("Const", "opset1", name);
        let dims = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let size = match &data {
            ConstData::Out { size, .. } | ConstData::Bin { size, .. } => *size,
            ConstData::Owned(b) => b.len() as u64,
        }
        .to_string();
        l.data = Some(Attrs::from_pairs([
            ("element_type", et.name()),
            ("shape", dims.as_str()),
            ("offset", "0"),
            ("size", size.as_str()),
        ]));
        l.outputs.push(Port::new(0, et, ps(shape)));
        l.konst = Some(data);
        l
    };
    let convert = |name: String, from: E, to: E, shape: &[usize]| -> Layer {
        let mut l = Layer::new("Convert", "opset1", &name);
        l.data = Some(Attrs::from_pairs([("destination_type", to.name())]));
        l.inputs.push(Port::new(0, from, ps(shape)));
        l.outputs.push(Port::new(1, to, ps(shape)));
        l
    };
    let binary = |ty: &str, name: String, a: &[usize], b: &[usize], out: &[usize]| -> Layer {
        let mut l = Layer::new(ty, "opset1", &name);
        l.data = Some(Attrs::from_pairs([("auto_broadcast", "numpy")]));
        l.inputs.push(Port::new(0, E::F16, ps(a)));
        l.inputs.push(Port::new(1, E::F16, ps(b)));
        l.outputs.push(Port::new(2, E::F16, ps(out)));
        l
    };
    // A constant written to the output .bin at (offset, size).
    let out = |(offset, size): (u64, u64)| ConstData::Out { offset, size };
    let ct = mode.codes_type();
    let c = add(g, konst(n, ct, &grouped, out(codes)));
    // Names for the layers NNCF leaves to OpenVINO's counter (`Convert_123`): any unique
    // name does; these say what the layer is.
    let cname = fresh(names, format!("{n}/codes_to_f16"));
    let cv = add(g, convert(cname, ct, E::F16, &grouped));
    g.connect(c, 0, cv, 0);
    let mut values = cv;
    if zp.1 > 0 {
        let zname = fresh(names, format!("{n}/zero_point"));
        let z = add(g, konst(&zname, ct, &scale_shape, out(zp)));
        let zcname = fresh(names, format!("{zname}/to_f16"));
        let zc = add(g, convert(zcname, ct, E::F16, &scale_shape));
        g.connect(z, 0, zc, 0);
        let sname = fresh(names, format!("{zname}/subtract"));
        let sub = add(
            g,
            binary("Subtract", sname, &grouped, &scale_shape, &grouped),
        );
        g.connect(cv, 1, sub, 0);
        g.connect(zc, 1, sub, 1);
        values = sub;
    }
    let sname = fresh(names, format!("{n}/scale"));
    let mx = matches!(mode, Mode::Mxfp4 | Mode::Mxfp8E4m3);
    let s = add(
        g,
        konst(
            &sname,
            if mx { E::F8E8M0 } else { E::F16 },
            &scale_shape,
            out(scale),
        ),
    );
    // MX scales are stored as f8e8m0 exponents, widened to f16.
    let s = if mx {
        let cname = fresh(names, format!("{sname}/to_f16"));
        let c = add(g, convert(cname, E::F8E8M0, E::F16, &scale_shape));
        g.connect(s, 0, c, 0);
        c
    } else {
        s
    };
    let sport = g[s].outputs[0].id;
    let mname = fresh(names, format!("{n}/fq_weights_{}", p.port));
    let mul = add(
        g,
        binary("Multiply", mname.clone(), &grouped, &scale_shape, &grouped),
    );
    let vport = g[values].outputs[0].id;
    g.connect(values, vport, mul, 0);
    g.connect(s, sport, mul, 1);
    let mut last = mul;
    if group.is_some() {
        let shape_bytes: Vec<u8> = p
            .shape
            .iter()
            .flat_map(|&d| (d as i64).to_le_bytes())
            .collect();
        let rname = fresh(names, format!("{n}/reshape"));
        let k = add(
            g,
            konst(
                &fresh(names, format!("{rname}/shape")),
                E::I64,
                &[p.shape.len()],
                ConstData::Owned(Arc::from(shape_bytes)),
            ),
        );
        let mut r = Layer::new("Reshape", "opset1", &rname);
        r.data = Some(Attrs::from_pairs([("special_zero", "false")]));
        r.inputs.push(Port::new(0, E::F16, ps(&grouped)));
        r.inputs.push(Port::new(1, E::I64, ps(&[p.shape.len()])));
        r.outputs.push(Port::new(2, E::F16, ps(&p.shape)));
        let r = add(g, r);
        g.connect(mul, 2, r, 0);
        g.connect(k, 0, r, 1);
        last = r;
    }
    // A Convert back to the weight's type when it is not f16 and something reads it directly.
    let users = g.users_of(p.konst, 0);
    let add_convert = p.et != E::F16 && users.iter().any(|&(u, _)| !g[u].is("Convert"));
    if add_convert {
        let cname = fresh(names, format!("{mname}/convert"));
        let k = add(g, convert(cname, E::F16, p.et, &p.shape));
        let lp = g[last].outputs[0].id;
        g.connect(last, lp, k, 0);
        last = k;
    }
    let new_et = if add_convert { p.et } else { E::F16 };
    let mut dead = vec![p.konst];
    replace_uses(g, p.konst, last, new_et, &mut dead);
    g.remove_layers(&dead);
}

/// NNCF's `_replace_node`: readers of `old` read `new`; a Convert to `new`'s type is bypassed
/// (its readers read `new`, it goes).
fn replace_uses(g: &mut Graph, old: NodeId, new: NodeId, et: ElementType, dead: &mut Vec<NodeId>) {
    let out = g[new].outputs[0].id;
    for (u, i) in g.users_of(old, 0) {
        if g[u].is("Convert") && g[u].outputs.first().and_then(|p| p.precision) == Some(et) {
            replace_uses(g, u, new, et, dead);
            dead.push(u);
            continue;
        }
        let pid = g[u].inputs[i].id;
        g.disconnect_input(u, pid);
        g.connect(new, out, u, pid);
    }
}

/// The model's rt_info gets NNCF's record of the compression (`nncf/weight_compression`).
fn annotate(g: &mut Graph, plan: &Plan) {
    let rs = &plan.resolved;
    let el = |name: &str, value: Option<String>| XmlElement {
        name: name.into(),
        attrs: value.map(|v| vec![("value".into(), v)]).unwrap_or_default(),
        children: Vec::new(),
        text: None,
    };
    let py_list = |v: &[String]| {
        format!(
            "[{}]",
            v.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut scope = el("ignored_scope", None);
    let o = &plan.options;
    for (k, v) in [
        ("names", &o.ignore_names),
        ("patterns", &o.ignore_patterns),
        ("types", &o.ignore_types),
    ] {
        if !v.is_empty() {
            scope.children.push(el(k, Some(py_list(v))));
        }
    }
    if scope.children.is_empty() {
        scope.attrs.push(("value".into(), "[]".into()));
    }
    // Python's str(ratio or 1).
    let ratio = match o.ratio.filter(|&r| r != 0.0) {
        None => "1".to_string(),
        Some(r) if r.fract() == 0.0 => format!("{r:.1}"),
        Some(r) => format!("{r}"),
    };
    let adv = format!(
        "{{'statistics_path': None, 'lora_adapter_rank': 256, 'group_size_fallback_mode': '{}', \
         'min_adjusted_group_size': 32, 'awq_params': {{'subset_size': 32, 'percent_to_apply': 0.002, \
         'alpha_min': 0.0, 'alpha_max': 1.0, 'steps': 100, 'prefer_data_aware_scaling': True}}, \
         'scale_estimation_params': {{'subset_size': 64, 'initial_steps': 5, 'scale_steps': 5, \
         'weight_penalty': -1.0}}, 'gptq_params': {{'damp_percent': 0.1, 'block_size': 128, \
         'subset_size': 128}}, 'lora_correction_params': {{'adapter_rank': 8, 'num_iterations': 3, \
         'apply_regularization': True, 'subset_size': 128, 'use_int8_adapters': True}}, \
         'backend_params': {{}}, 'codebook': None, 'adaptive_codebook_params': {{'value_type': \
         'f8e4m3', 'across_blocks': False, 'num_elements': 16}}}}",
        rs.fallback.value()
    );
    let mut wc = el("weight_compression", None);
    let py_bool = |b: bool| if b { "True" } else { "False" }.to_string();
    let mut entries: Vec<XmlElement> = vec![
        el("advanced_parameters", Some(adv)),
        el("all_layers", Some(py_bool(rs.all_layers))),
        el("awq", Some("False".into())),
        el("backup_mode", Some(rs.backup.value().into())),
        el("compression_format", Some("dequantize".into())),
        el("gptq", Some("False".into())),
        el("group_size", Some(rs.group.to_string())),
        scope,
        el("lora_correction", Some("False".into())),
        el("mode", Some(rs.mode.value().into())),
        el("ratio", Some(ratio)),
        el("scale_estimation", Some("False".into())),
        el(
            "sensitivity_metric",
            Some("weight_quantization_error".into()),
        ),
    ];
    wc.children.append(&mut entries);
    let rt = g.rt_info.get_or_insert_with(|| el("rt_info", None));
    let pos = rt.children.iter().position(|c| c.name == "nncf");
    let nncf = match pos {
        Some(i) => &mut rt.children[i],
        None => {
            rt.children.push(el("nncf", None));
            rt.children.last_mut().expect("pushed")
        }
    };
    nncf.children
        .retain(|c| c.name != "weight_compression" && c.name != "friendly_names_were_updated");
    nncf.children
        .push(el("friendly_names_were_updated", Some("True".into())));
    nncf.children.push(wc);
    nncf.children.sort_by(|a, b| a.name.cmp(&b.name));
}

/// Write every job's constants to `out` (a fresh `.bin`, at offset 0), in order. Returns the
/// bytes written. `progress` is told source bytes as they are done.
pub fn write<W: std::io::Write>(
    jobs: &[Job],
    weights: Option<&Weights>,
    out: &mut W,
    progress: &mut dyn FnMut(u64),
) -> std::io::Result<u64> {
    let mut pos = 0u64;
    for j in jobs {
        debug_assert_eq!(pos, j.codes.0);
        stream::write_job(j, weights, out, progress)?;
        pos = j.scale.0 + j.scale.1;
    }
    Ok(pos)
}
