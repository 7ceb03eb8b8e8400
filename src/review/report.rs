//! The `--format json` reports of `infer-shapes`, `infer-shapes --check`, `fold`, `normalize`
//! and errors (`diff` and `stats` keep theirs beside them). Every form derives serde both ways,
//! so tests and CI scripts parse exactly what irc writes; docs/json.md shows one of each.

use crate::error::Error;
use crate::ir::{Dim, Graph, Model, NodeId, PartialShape};
use crate::passes::infer::Drift;
use crate::passes::symbolic::{Origin, Symbolic};
use serde::{Deserialize, Serialize};

/// One dimension: an integer when static, `"?"` when unbounded, `"1..10"` (also `"..10"`,
/// `"2.."`) when an interval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonDim {
    Static(u64),
    Dynamic(String),
}

impl From<&Dim> for JsonDim {
    fn from(d: &Dim) -> Self {
        match d.get() {
            Some(v) => JsonDim::Static(v),
            None => JsonDim::Dynamic(d.to_string()),
        }
    }
}

/// A shape: a list of dims, or `null` for a dynamic rank.
pub type JsonShape = Option<Vec<JsonDim>>;

pub fn json_shape(s: &PartialShape) -> JsonShape {
    s.dims().map(|d| d.iter().map(JsonDim::from).collect())
}

/// A model input or output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Io {
    /// Friendly name of the Parameter / Result.
    pub name: String,
    /// Tensor names (of the Parameter's output / of the tensor the Result reads), sorted.
    pub names: Vec<String>,
    pub element_type: String,
    pub shape: JsonShape,
    /// Beside `shape`, one entry per dim: `null` where static, else the dim's expression over
    /// the report's `symbols` (`"seq"`, `"past+seq"`, `"(h-1)//2+1"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<Vec<Option<String>>>,
}

/// An input's or output's shape as text, dynamic dims as their expressions where there are
/// some (`[batch,seq,96]`, an interval beside its expression: `seq:1..8`), `[...]` for a dynamic
/// rank.
pub fn io_shape_text(x: &Io) -> String {
    let Some(d) = &x.shape else {
        return "[...]".to_string();
    };
    let sym = x.symbolic.as_ref().filter(|s| s.len() == d.len());
    let v: Vec<String> = d
        .iter()
        .enumerate()
        .map(|(i, d)| match (d, sym.and_then(|s| s[i].as_ref())) {
            (JsonDim::Static(v), _) => v.to_string(),
            (JsonDim::Dynamic(s), None) => s.clone(),
            (JsonDim::Dynamic(s), Some(e)) if s == "?" && e.parse::<i64>().is_err() => e.clone(),
            (JsonDim::Dynamic(s), Some(e)) => format!("{e}:{s}"),
        })
        .collect();
    format!("[{}]", v.join(","))
}

/// A free symbol of a report: where its value comes from, a model input's axis or, for a dim
/// known only at run time (data-dependent, a state variable's, one no rule expresses), a
/// layer's output port and axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolJson {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<usize>,
    pub axis: usize,
}

/// The free symbols of `sym`, in order.
pub fn symbols_json(sym: &Symbolic) -> Vec<SymbolJson> {
    sym.free()
        .into_iter()
        .map(|s| match &s.origin {
            Origin::Input { input, axis } => SymbolJson {
                name: s.name.clone(),
                input: Some(input.clone()),
                layer: None,
                port: None,
                axis: *axis,
            },
            Origin::Port { layer, port, axis } => SymbolJson {
                name: s.name.clone(),
                input: None,
                layer: Some(layer.clone()),
                port: Some(*port),
                axis: *axis,
            },
        })
        .collect()
}

/// `infer-shapes --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoReport {
    pub inputs: Vec<Io>,
    pub outputs: Vec<Io>,
    /// `--ports`: every layer of the top-level graph with its output ports' inferred types and
    /// shapes, intervals kept (which ports written to a file lose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<LayerPorts>>,
    /// The symbols the `symbolic` expressions are written in (see [`SymbolJson`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbols: Option<Vec<SymbolJson>>,
}

/// One layer's output ports (`infer-shapes --ports`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerPorts {
    pub layer: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub outputs: Vec<PortShape>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortShape {
    pub element_type: String,
    pub shape: JsonShape,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<Vec<Option<String>>>,
}

/// `symbolic` of output `o` of `n` (when `sym` is given and the port has a rank).
fn sym_of(
    sym: Option<&Symbolic>,
    n: NodeId,
    o: usize,
    shape: &PartialShape,
) -> Option<Vec<Option<String>>> {
    sym?.symbolic(n, o, shape)
}

/// Every layer's output ports, in the writer's order (see [`IoReport::ports`]).
pub fn ports_of(g: &Graph, sym: Option<&Symbolic>) -> Vec<LayerPorts> {
    let et = |p: &crate::ir::Port| p.precision.map_or("dynamic".into(), |e| e.to_string());
    g.ordered()
        .unwrap_or_default()
        .into_iter()
        .map(|n| {
            let l = &g[n];
            LayerPorts {
                layer: l.name.clone(),
                ty: l.ty.to_string(),
                outputs: l
                    .outputs
                    .iter()
                    .enumerate()
                    .map(|(o, p)| PortShape {
                        element_type: et(p),
                        shape: json_shape(&p.shape),
                        symbolic: sym_of(sym, n, o, &p.shape),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The model's inputs (Parameters) and outputs (Results) in the writer's order, with the types
/// and shapes their ports carry (apply inference first to get inferred ones).
pub fn io(m: &Model) -> IoReport {
    io_of(&m.graph, None)
}

/// [`io`] with each shape's `symbolic` and the report's `symbols` from `sym`.
pub fn io_of(g: &Graph, sym: Option<&Symbolic>) -> IoReport {
    let order = g.ordered().unwrap_or_default();
    let mut r = IoReport {
        inputs: Vec::new(),
        outputs: Vec::new(),
        ports: None,
        symbols: sym.map(symbols_json),
    };
    let et = |p: &crate::ir::Port| p.precision.map_or("dynamic".into(), |e| e.to_string());
    for &n in &order {
        let l = &g[n];
        if l.is("Parameter") {
            let Some(p) = l.outputs.first() else { continue };
            // The `shape` attribute (overrides applied) keeps intervals, which ports lose once
            // written; the port is the fallback.
            let shape = l
                .attr("shape")
                .and_then(|s| PartialShape::parse(s).ok())
                .unwrap_or_else(|| p.shape.clone());
            let mut names = p.names().to_vec();
            names.sort();
            r.inputs.push(Io {
                name: l.name.clone(),
                names,
                element_type: et(p),
                symbolic: sym_of(sym, n, 0, &shape),
                shape: json_shape(&shape),
            });
        } else if l.is("Result") {
            let Some(p) = l.inputs.first() else { continue };
            let mut names = g
                .input_of(n, 0)
                .map(|(src, o)| g[src].outputs[o].names().to_vec())
                .unwrap_or_default();
            names.sort();
            let symbolic = g
                .input_of(n, 0)
                .and_then(|(src, o)| sym_of(sym, src, o, &p.shape));
            r.outputs.push(Io {
                name: l.name.clone(),
                names,
                element_type: et(p),
                shape: json_shape(&p.shape),
                symbolic,
            });
        }
    }
    r
}

/// One port whose recorded type or shape differs from inference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDiff {
    /// Friendly name of the layer.
    pub layer: String,
    pub id: u64,
    #[serde(rename = "type")]
    pub ty: String,
    /// Output port id.
    pub port: u32,
    /// As the file has it: `f32[1,-1,3]`.
    pub recorded: String,
    pub inferred: String,
    /// The inferred shape with its dynamic dims as expressions (`f32[1,seq,3]`), where it has
    /// any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// `infer-shapes --check --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    pub ok: bool,
    pub diffs: Vec<CheckDiff>,
}

/// The `--check` report; `source` is the XML text (for lines and columns), when available;
/// `symbolic` the inferred ports' symbolic forms (see [`Drift::node`]).
pub fn check(
    drift: &[Drift],
    source: Option<&str>,
    symbolic: &dyn Fn(&Drift) -> Option<String>,
) -> CheckReport {
    let pos: Vec<Option<usize>> = drift.iter().map(|d| d.pos).collect();
    let lc = source.map_or_else(
        || vec![None; pos.len()],
        |s| crate::error::positions(s, &pos),
    );
    CheckReport {
        ok: drift.is_empty(),
        diffs: drift
            .iter()
            .zip(lc)
            .map(|(d, lc)| CheckDiff {
                layer: d.name.clone(),
                id: d.id,
                ty: d.ty.clone(),
                port: d.port,
                recorded: d.recorded.clone(),
                inferred: d.inferred.clone(),
                symbolic: symbolic(d),
                line: lc.map(|x| x.0),
                column: lc.map(|x| x.1),
            })
            .collect(),
    }
}

/// An output that could have folded and did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skipped {
    pub layer: String,
    pub reason: String,
}

/// `edit --format json`: the edits as applied, the layers removed, the written `.bin` size,
/// and the edited model's inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditJson {
    pub applied: Vec<String>,
    pub removed_dead: usize,
    pub bin_bytes: u64,
    pub inputs: Vec<Io>,
    pub outputs: Vec<Io>,
}

/// `extract --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractJson {
    pub layers_before: usize,
    pub layers_after: usize,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub variables: Vec<String>,
    pub bin_bytes: u64,
}

/// `compress --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompressJson {
    pub compressed: usize,
    /// f32 constants kept, as (friendly name, why).
    pub kept: Vec<(String, String)>,
    /// Why nothing was compressed (an already optimized model); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_model: Option<String>,
    pub bin_before: u64,
    pub bin_after: u64,
}

/// `compress --weight-format ... --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightCompressJson {
    /// The primary mode (NNCF's name: `int4_asym`, `int8_sym`...).
    pub mode: String,
    /// Weights compressed (in the primary or the backup precision).
    pub compressed: usize,
    /// Weights left float (ignored, unsupported, backup `none`, group-size `ignore`).
    pub kept: usize,
    /// Bytes of the weights looked at, before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// The .bin files' sizes.
    pub bin_before: u64,
    pub bin_after: u64,
    /// Per weight, in NNCF's order (compressed first, then kept).
    pub weights: Vec<crate::passes::wcompress::WeightReport>,
}

/// `fold --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoldJson {
    pub layers_before: usize,
    pub layers_after: usize,
    /// Layers whose outputs became constants.
    pub folded: usize,
    /// Dead layers removed.
    pub dead: usize,
    /// Constants shared with an identical one.
    pub shared: usize,
    pub skipped: Vec<Skipped>,
    /// Rewrites per simplification pass, every pass listed (`null` with `--no-simplify`).
    pub simplified: Option<std::collections::BTreeMap<String, usize>>,
    /// `--relax` kinds the passes were allowed (`names`, `rounding`); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relaxed: Vec<String>,
    pub bin_before: u64,
    pub bin_after: u64,
}

impl FoldJson {
    pub fn new(r: &crate::passes::fold::FoldReport, bin_before: u64, bin_after: u64) -> Self {
        FoldJson {
            layers_before: r.layers_before,
            layers_after: r.layers_after,
            folded: r.folded_count,
            dead: r.removed_dead,
            shared: r.deduplicated,
            skipped: r
                .skipped
                .iter()
                .map(|(l, why)| Skipped {
                    layer: l.clone(),
                    reason: why.clone(),
                })
                .collect(),
            simplified: r
                .simplify
                .as_ref()
                .map(|s| s.counts.iter().map(|(p, n)| (p.to_string(), *n)).collect()),
            relaxed: r.simplify.as_ref().map_or_else(Vec::new, |s| {
                [("names", s.relax.names), ("rounding", s.relax.rounding)]
                    .iter()
                    .filter(|k| k.1)
                    .map(|k| k.0.to_string())
                    .collect()
            }),
            bin_before,
            bin_after,
        }
    }
}

/// `normalize --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalizeJson {
    /// The written `.xml`.
    pub output: String,
    pub layers: usize,
    /// Bytes of the written `.bin`.
    pub bin: u64,
}

/// One error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorEntry {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// `xml`, `schema`, `graph`, `element-type`, `weights`, `shape`, `fold`, `io`, or `usage`.
    pub kind: String,
    /// `Gather 'g1' (id 7, opset8)`, when the error is at a layer.
    pub layer: Option<String>,
    /// The message, with its notes on lines of their own.
    pub message: String,
}

/// `normalize --check --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalFormJson {
    pub file: String,
    /// The .xml and the .bin are both what `irc normalize` writes.
    pub normal: bool,
    pub xml_normal: bool,
    pub bin_normal: bool,
}

/// Errors, as every command reports them with `--format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorReport {
    pub errors: Vec<ErrorEntry>,
}

impl ErrorReport {
    pub fn from_error(e: &Error) -> Self {
        let pos = e.positions();
        ErrorReport {
            errors: e
                .diags
                .iter()
                .zip(pos)
                .map(|(d, lc)| {
                    let mut message = d.message.clone();
                    for n in &d.notes {
                        message.push_str("\nnote: ");
                        message.push_str(n);
                    }
                    ErrorEntry {
                        file: Some(e.path.clone()),
                        line: lc.map(|x| x.0),
                        column: lc.map(|x| x.1),
                        kind: d.kind.as_str().to_string(),
                        layer: d.layer.clone(),
                        message,
                    }
                })
                .collect(),
        }
    }

    pub fn usage(message: &str) -> Self {
        ErrorReport {
            errors: vec![ErrorEntry {
                file: None,
                line: None,
                column: None,
                kind: "usage".into(),
                layer: None,
                message: message.to_string(),
            }],
        }
    }
}

/// Pretty JSON text of a report, newline-terminated.
pub fn to_json<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|e| {
        serde_json::json!({"errors": [{"kind": "io", "message": e.to_string()}]}).to_string()
    });
    s.push('\n');
    s
}
