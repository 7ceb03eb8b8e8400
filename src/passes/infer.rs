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
            let outs = self.layer(l, &inputs, top);
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
        if l.is("Const") {
            return vec![self.constant(l)];
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
        // Values: exact when every input is known, else bounds for movement ops.
        let all_known = inputs
            .iter()
            .all(|f| f.value.is_some() || f.ints().is_some());
        if let Some(eval) = def.eval.filter(|_| all_known) {
            let known: Vec<Fact> = inputs.iter().map(materialize).collect();
            let cx = Ctx {
                layer: l,
                inputs: &known,
                version,
            };
            if let Ok(vals) = eval(&cx) {
                if vals.len() == outs.len() {
                    for (o, v) in outs.iter_mut().zip(vals) {
                        if let Some(t) = v.value.filter(|t| t.len() <= MAX_VALUE_ELEMS) {
                            o.shape = PartialShape::from_static(&t.shape);
                            o.value = Some(t);
                        }
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
        } else if let BoundsRule::None = def.bounds {
            // Arithmetic-style ops may still compute bounds inside `infer`.
        }
        outs
    }

    fn constant(&self, l: &Layer) -> Fact {
        let et = l
            .attr("element_type")
            .and_then(ElementType::parse_attr)
            .unwrap_or(ElementType::Dynamic);
        let dims = l
            .attr("shape")
            .and_then(|s| PartialShape::parse_static(s).ok())
            .unwrap_or_default();
        let mut f = Fact::new(et, PartialShape::from_static(&dims));
        let n = PartialShape::element_count(&dims).unwrap_or(u64::MAX);
        if n as usize <= MAX_VALUE_ELEMS && et != ElementType::String {
            if let Some(bytes) = l.konst.as_ref().and_then(|k| self.model.const_bytes(k)) {
                let need = et.storage_bytes(n).unwrap_or(0) as usize;
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
