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

mod plan;
mod rewrite;
use plan::source_of;
pub use plan::{plan, Plan};
pub use rewrite::{apply, write, Report, WeightReport};
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
