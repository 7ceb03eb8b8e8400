//! Shape and type inference: visits each layer once in topological order, computing every
//! output's element type and shape (and, for small values, the value or its integer bounds, so
//! shape subgraphs resolve). Recorded port dims/precisions are ignored except for Parameter and
//! Const data and for ops irc does not know (opaque), whose declared ports are trusted.

use crate::error::{Diag, Kind};
use crate::ir::tensor::Tensor;
use crate::ir::*;
use crate::ops::{self, BoundsRule, Ctx, Fact, MAX_VALUE_ELEMS};
use crate::xml::SourceMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Facts per (layer, output index) of one graph, plus the facts of each body graph.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    pub outputs: HashMap<(LayerId, usize), Fact>,
    /// Body facts, keyed by (layer, body index).
    pub bodies: HashMap<(LayerId, usize), Facts>,
}

impl Facts {
    pub fn get(&self, n: LayerId, o: usize) -> Option<&Fact> {
        self.outputs.get(&(n, o))
    }
}

/// A Parameter shape override from `--input NAME[dims]`.
#[derive(Debug, Clone)]
pub struct InputOverride {
    pub name: String,
    pub shape: PartialShape,
}

pub struct Infer<'a> {
    pub model: &'a Model,
    pub map: Option<&'a SourceMap>,
    pub overrides: &'a [InputOverride],
    pub diags: Vec<Diag>,
    /// Largest value (in elements) computed and kept per output.
    pub value_limit: usize,
    /// Folding: evaluate f16/bf16 ops in f32 as OpenVINO's ConstantFolding does, and read
    /// Const values up to `value_limit` (except weights that only feed decompression Converts).
    pub fold_mode: bool,
}

/// Ops whose outputs are never computed ahead of run time (OpenVINO never folds them).
pub fn never_folds(l: &Layer) -> bool {
    [
        "Parameter",
        "Result",
        "ReadValue",
        "Assign",
        "RandomUniform",
        "FakeQuantize",
        "Multinomial",
    ]
    .iter()
    .any(|t| l.is(t))
        || l.is_decompression()
        || has_rt_attr(l.rt_info.as_ref(), "DisableConstantFolding")
}

/// Ops OpenVINO evaluates in their own precision even for f16/bf16 (`is_node_whitelisted`).
fn native_precision(l: &Layer) -> bool {
    [
        "ConvertLike",
        "ConvertPromoteTypes",
        "FakeConvert",
        "Ceiling",
    ]
    .iter()
    .any(|t| l.is(t))
}

fn is_half(et: ElementType) -> bool {
    matches!(et, ElementType::F16 | ElementType::Bf16)
}

/// Parse an ovc-style input spec: `name[1,3,?,224]`, `name[1..10,-1]`, or `name` alone is an
/// error (a shape is required).
pub fn parse_input_spec(s: &str) -> Result<InputOverride, String> {
    let s = s.trim();
    let open = s
        .find('[')
        .ok_or_else(|| format!("--input '{s}': expected NAME[DIMS], e.g. x[1,3,224,224]"))?;
    if !s.ends_with(']') {
        return Err(format!("--input '{s}': missing closing ']'"));
    }
    let name = s[..open].trim();
    if name.is_empty() {
        return Err(format!("--input '{s}': the input name is empty"));
    }
    let inner = &s[open + 1..s.len() - 1];
    let shape = PartialShape::parse(inner).map_err(|e| format!("--input '{s}': {e}"))?;
    Ok(InputOverride {
        name: name.to_string(),
        shape,
    })
}

impl<'a> Infer<'a> {
    pub fn new(
        model: &'a Model,
        map: Option<&'a SourceMap>,
        overrides: &'a [InputOverride],
    ) -> Self {
        Infer {
            model,
            map,
            overrides,
            diags: Vec::new(),
            value_limit: MAX_VALUE_ELEMS,
            fold_mode: false,
        }
    }

    /// Check every override names a top-level Parameter (friendly name or tensor name).
    pub fn check_overrides(&self) -> Result<(), String> {
        let params: Vec<&Layer> = self
            .model
            .graph
            .g
            .node_weights()
            .filter(|l| l.is("Parameter"))
            .collect();
        for o in self.overrides {
            let hit = params
                .iter()
                .any(|p| p.name == o.name || p.outputs.iter().any(|q| q.names.contains(&o.name)));
            if !hit {
                let mut names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
                names.sort();
                return Err(format!(
                    "--input names '{}', which is not an input of the model; inputs: {}",
                    o.name,
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }

    fn override_for(&self, l: &Layer) -> Option<&PartialShape> {
        self.overrides
            .iter()
            .find(|o| l.name == o.name || l.outputs.iter().any(|q| q.names.contains(&o.name)))
            .map(|o| &o.shape)
    }

    fn err(&mut self, l: &Layer, msg: String) {
        let pos = self.map.and_then(|m| m.layer_pos(l));
        self.diags
            .push(Diag::new(Kind::Shape, msg).at(pos).layer(l.label()));
    }

    /// Infer the whole model (top level).
    pub fn run(&mut self) -> Facts {
        let g = &self.model.graph;
        self.graph(g, true)
    }

    pub fn graph(&mut self, g: &Graph, top: bool) -> Facts {
        let mut facts = Facts::default();
        let Some(order) = g.ordered() else {
            return facts;
        };
        for n in order {
            let l = &g.g[n];
            let inputs: Vec<Fact> = g
                .producers(n)
                .iter()
                .map(|p| {
                    p.and_then(|(s, o)| facts.get(s, o).cloned())
                        .unwrap_or_else(|| Fact::new(ElementType::Dynamic, PartialShape::Dynamic))
                })
                .collect();
            let outs = if l.is("Const") {
                vec![self.constant(g, n)]
            } else {
                self.layer(l, &inputs, top)
            };
            for (i, f) in outs.into_iter().enumerate() {
                facts.outputs.insert((n, i), f);
            }
            for (bi, b) in l.bodies.iter().enumerate() {
                let bf = self.graph(&b.graph, false);
                facts.bodies.insert((n, bi), bf);
            }
        }
        facts
    }

    /// Facts for the outputs of one layer.
    fn layer(&mut self, l: &Layer, inputs: &[Fact], top: bool) -> Vec<Fact> {
        if l.is("Parameter") {
            let et = l
                .attr("element_type")
                .and_then(ElementType::parse_attr)
                .unwrap_or(ElementType::Dynamic);
            let mut shape = l
                .attr("shape")
                .and_then(|s| PartialShape::parse(s).ok())
                .unwrap_or_default();
            if top {
                if let Some(o) = self.override_for(l) {
                    shape = o.clone();
                }
            }
            return vec![Fact::new(et, shape)];
        }
        if l.is("Result") {
            return Vec::new();
        }
        let Some((def, version)) = ops::lookup(l) else {
            return declared(l);
        };
        let cx = Ctx {
            layer: l,
            inputs,
            version,
            f32_mode: false,
        };
        let mut outs = match (def.infer)(&cx) {
            Ok(o) => o,
            Err(m) => {
                let m = with_inputs(m, inputs);
                self.err(l, m);
                return declared(l);
            }
        };
        if outs.len() != l.outputs.len() {
            self.err(
                l,
                format!(
                    "has {} output ports but the op produces {} outputs",
                    l.outputs.len(),
                    outs.len()
                ),
            );
            return declared(l);
        }
        if never_folds(l) {
            return outs;
        }
        // Values: exact when every input is known, else bounds for movement ops. ConvertLike
        // needs only its data (the `like` input gives just a type).
        let needed = if l.is("ConvertLike") { 1 } else { inputs.len() };
        let all_known = inputs[..needed.min(inputs.len())]
            .iter()
            .all(|f| f.value.is_some() || f.ints().is_some());
        let count = |s: &PartialShape| {
            s.to_static()
                .and_then(|d| PartialShape::element_count(&d))
                .map(|n| n as usize)
        };
        // Outputs must fit the limit; outputs whose shape depends on values (NonZero) are
        // bounded by the inputs.
        let small = outs
            .iter()
            .all(|o| count(&o.shape).is_some_and(|n| n <= self.value_limit))
            || (outs.iter().any(|o| count(&o.shape).is_none())
                && inputs
                    .iter()
                    .all(|f| count(&f.shape).is_some_and(|n| n <= self.value_limit)));
        if let Some(eval) = def.eval.filter(|_| all_known && small) {
            if let Some(vals) = self.evaluate(l, version, inputs, &outs, eval) {
                for (o, v) in outs.iter_mut().zip(vals) {
                    if let Some(t) = v.value.filter(|t| t.len() <= self.value_limit) {
                        o.shape = PartialShape::from_static(&t.shape);
                        o.value = Some(t);
                        o.wide = v.wide;
                        o.bounds = None;
                    }
                }
            }
        } else if let (BoundsRule::Movement(mask), Some(eval)) = (def.bounds, def.eval) {
            if let Some(b) = movement_bounds(&cx, mask, eval) {
                for (o, bo) in outs.iter_mut().zip(b) {
                    if let Some(bo) = bo {
                        o.bounds = Some(Arc::new(bo));
                    }
                }
            }
        }
        outs
    }

    /// Run a value rule. In fold mode, ops touching f16/bf16 run in f32 on the unrounded
    /// ("wide") inputs, and their f16/bf16 outputs keep the f32 result beside the rounded value.
    fn evaluate(
        &self,
        l: &Layer,
        version: u32,
        inputs: &[Fact],
        outs: &[Fact],
        eval: ops::InferFn,
    ) -> Option<Vec<Fact>> {
        // Ops OpenVINO has no kernel for in these types: not folded, as in OpenVINO.
        let orig = inputs.first().map_or(ElementType::Dynamic, |f| f.et);
        if l.is("SquaredDifference") && orig != ElementType::F32 {
            return None;
        }
        let f32_mode = self.fold_mode
            && !native_precision(l)
            && (inputs.iter().any(|f| is_half(f.et)) || outs.iter().any(|f| is_half(f.et)));
        let known: Vec<Fact> = inputs
            .iter()
            .map(|f| {
                let mut g = materialize(f);
                if f32_mode && is_half(f.et) {
                    let w = f.wide.clone().or_else(|| {
                        g.value
                            .as_ref()
                            .and_then(|v| ops::convert::convert(v, ElementType::F32))
                            .map(Arc::new)
                    });
                    g.et = ElementType::F32;
                    g.value = w;
                    g.wide = None;
                }
                g
            })
            .collect();
        let needed = if l.is("ConvertLike") { 1 } else { known.len() };
        if known[..needed.min(known.len())]
            .iter()
            .any(|f| f.value.is_none())
        {
            return None;
        }
        let cx = Ctx {
            layer: l,
            inputs: &known,
            version,
            f32_mode,
        };
        let vals = eval(&cx).ok()?;
        if vals.len() != outs.len() {
            return None;
        }
        let mut res = Vec::with_capacity(vals.len());
        for (v, o) in vals.into_iter().zip(outs) {
            let t = v.value?;
            if f32_mode && is_half(o.et) && t.et == ElementType::F32 {
                let rounded = ops::convert::convert(&t, o.et)?;
                let mut f = Fact::with_value(rounded);
                f.wide = Some(t);
                res.push(f);
            } else if t.et != o.et && o.et != ElementType::Dynamic {
                return None; // a rule produced another type than inference: do not trust it
            } else {
                res.push(Fact {
                    value: Some(t),
                    ..Fact::new(o.et, o.shape.clone())
                });
            }
        }
        Some(res)
    }

    fn constant(&self, g: &Graph, n: LayerId) -> Fact {
        let l = &g.g[n];
        let et = l
            .attr("element_type")
            .and_then(ElementType::parse_attr)
            .unwrap_or(ElementType::Dynamic);
        let dims = l
            .attr("shape")
            .and_then(|s| PartialShape::parse_static(s).ok())
            .unwrap_or_default();
        let mut f = Fact::new(et, PartialShape::from_static(&dims));
        let count = PartialShape::element_count(&dims).unwrap_or(u64::MAX);
        // Weights that only feed decompression Converts are never folded: do not read them.
        let only_decompression = (0..1).all(|o| {
            let c = g.consumers(n, o);
            !c.is_empty() && c.iter().all(|&(t, _)| g.g[t].is_decompression())
        });
        if count as usize <= self.value_limit && et != ElementType::String && !only_decompression {
            if let Some(bytes) = l.konst.as_ref().and_then(|k| self.model.const_bytes(k)) {
                let need = et.storage_bytes(count).unwrap_or(0) as usize;
                let bytes = &bytes[..need.min(bytes.len())];
                f.value = Some(Arc::new(Tensor::new(et, dims, bytes.to_vec())));
            }
        }
        f
    }
}

/// Turn exact integer bounds into a value tensor so eval rules see plain values.
fn materialize(f: &Fact) -> Fact {
    if f.value.is_some() {
        return f.clone();
    }
    let mut g = f.clone();
    if let (Some(v), Some(dims)) = (f.ints(), f.shape.to_static()) {
        let et = if f.et.is_integral() {
            f.et
        } else {
            ElementType::I64
        };
        g.value = Tensor::from_i64s(et, dims, &v).map(Arc::new);
    }
    g
}

/// Run a movement op's value rule on lower and on upper bounds.
fn movement_bounds(cx: &Ctx, mask: u32, eval: ops::InferFn) -> Option<Vec<Option<ops::Bounds>>> {
    let mut any = false;
    let mut lo_in = Vec::with_capacity(cx.inputs.len());
    let mut hi_in = Vec::with_capacity(cx.inputs.len());
    for (i, f) in cx.inputs.iter().enumerate() {
        let may_bound = mask & (1 << i) != 0;
        if let Some(v) = f.ints() {
            // Bounds are carried as i64 whatever the element type, so inputs stay uniform.
            let t = Tensor::from_i64s(ElementType::I64, f.shape.to_static()?, &v)?;
            lo_in.push(Fact::with_value(t.clone()));
            hi_in.push(Fact::with_value(t));
        } else if may_bound {
            let b = f.bounds.as_ref()?;
            any = true;
            let dims = f.shape.to_static()?;
            lo_in.push(Fact::with_value(Tensor::from_i64s(
                ElementType::I64,
                dims.clone(),
                &b.lo,
            )?));
            hi_in.push(Fact::with_value(Tensor::from_i64s(
                ElementType::I64,
                dims,
                &b.hi,
            )?));
        } else if f.value.is_some() {
            lo_in.push(f.clone());
            hi_in.push(f.clone());
        } else {
            return None;
        }
    }
    if !any {
        return None;
    }
    let run = |ins: &[Fact]| -> Option<Vec<Fact>> {
        eval(&Ctx {
            layer: cx.layer,
            inputs: ins,
            version: cx.version,
            f32_mode: false,
        })
        .ok()
    };
    let lo = run(&lo_in)?;
    let hi = run(&hi_in)?;
    Some(
        lo.iter()
            .zip(hi.iter())
            .map(|(a, b)| {
                let (a, b) = (a.value.as_ref()?, b.value.as_ref()?);
                Some(ops::Bounds {
                    lo: a.to_i64s()?,
                    hi: b.to_i64s()?,
                })
            })
            .collect(),
    )
}

/// An opaque layer's facts: its declared output ports.
pub fn declared(l: &Layer) -> Vec<Fact> {
    l.outputs
        .iter()
        .map(|p| Fact::new(p.precision.unwrap_or(ElementType::Dynamic), p.shape.clone()))
        .collect()
}

fn with_inputs(m: String, inputs: &[Fact]) -> String {
    let list: Vec<String> = inputs
        .iter()
        .map(|f| format!("{}{}", f.et, ops::sh(&f.shape)))
        .collect();
    format!("{m} (inputs: {})", list.join(", "))
}

/// Write inferred facts into the ports of a graph (and its bodies).
pub fn apply(g: &mut Graph, facts: &Facts, overrides: &[InputOverride], top: bool) {
    let nodes: Vec<LayerId> = g.g.node_indices().collect();
    for &n in &nodes {
        let prods = g.producers(n);
        let l = &mut g.g[n];
        for (i, p) in prods.iter().enumerate() {
            if let Some(f) = p.and_then(|(s, o)| facts.get(s, o)) {
                let port = &mut l.inputs[i];
                port.precision = Some(f.et);
                port.shape = f.shape.clone();
            }
        }
        for (o, port) in l.outputs.iter_mut().enumerate() {
            if let Some(f) = facts.get(n, o) {
                port.precision = Some(f.et);
                port.shape = f.shape.clone();
            }
        }
        if top && l.is("Parameter") {
            if let Some(ov) = overrides
                .iter()
                .find(|o| l.name == o.name || l.outputs.iter().any(|q| q.names.contains(&o.name)))
            {
                l.set_data_attr("shape", ov.shape.to_string());
            }
        }
        for (bi, b) in l.bodies.iter_mut().enumerate() {
            if let Some(bf) = facts.bodies.get(&(n, bi)) {
                apply(&mut b.graph, bf, &[], false);
            }
        }
    }
}

/// One disagreement between recorded and inferred port data.
#[derive(Debug, Clone)]
pub struct Drift {
    pub layer: String,
    pub port: u32,
    pub recorded: String,
    pub inferred: String,
    pub pos: Option<usize>,
}

/// How a port looks in the file: precision and `<dim>`s (non-static dims are `-1`).
fn port_text(et: Option<ElementType>, s: &PartialShape) -> String {
    let dims: Vec<String> = s
        .dims()
        .unwrap_or(&[])
        .iter()
        .map(|d| d.get().map_or("-1".to_string(), |v| v.to_string()))
        .collect();
    format!("{}[{}]", et.map_or("?", |e| e.name()), dims.join(","))
}

/// Compare recorded output ports with inferred facts (in the file's lossy form).
pub fn drift(g: &Graph, facts: &Facts, map: Option<&SourceMap>, out: &mut Vec<Drift>) {
    let Some(order) = g.ordered() else { return };
    for n in order {
        let l = &g.g[n];
        for (o, port) in l.outputs.iter().enumerate() {
            let Some(f) = facts.get(n, o) else { continue };
            let rec = port_text(port.precision, &port.shape);
            let inf = port_text(Some(f.et), &f.shape);
            if rec != inf {
                out.push(Drift {
                    layer: l.label(),
                    port: port.id,
                    recorded: rec,
                    inferred: inf,
                    pos: map.and_then(|m| m.port_pos(l, port.id)),
                });
            }
        }
        for (bi, b) in l.bodies.iter().enumerate() {
            if let Some(bf) = facts.bodies.get(&(n, bi)) {
                drift(&b.graph, bf, None, out);
            }
        }
    }
}
