//! `irc extract`: cut a subgraph out of a model. The cut tensors become Parameters (named after
//! the tensor, with the type and shape inference gives them), the listed tensors become the
//! outputs, and only what those outputs need stays: constants with their decompression chains,
//! bodies whole, and state kept in pairs (a ReadValue that stays brings its Assign).
//!
//! `--around LAYER --depth N` picks the cut itself: the layers within N edges of LAYER, with the
//! constant subgraphs they read; every other tensor they read is cut, every tensor of theirs
//! read outside (or not read at all) is an output.

use super::edit::{find_tensor, unknown};
use super::infer::{Facts, Infer, InputOverride};
use crate::ir::*;
use crate::span::SourceMap;
use std::collections::{HashMap, HashSet};

/// What to cut.
#[derive(Debug, Clone, Default)]
pub struct ExtractSpec {
    /// Tensors that become inputs (tensor names, single-output layer names, `LAYER:INDEX`).
    pub inputs: Vec<String>,
    /// Tensors that become outputs.
    pub outputs: Vec<String>,
    /// `--around LAYER --depth N` instead of inputs/outputs.
    pub around: Option<(String, usize)>,
}

/// What `extract` did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ExtractReport {
    pub layers_before: usize,
    pub layers_after: usize,
    /// The new model's inputs (tensor names), in order.
    pub inputs: Vec<String>,
    /// The new model's outputs (tensor names), in order.
    pub outputs: Vec<String>,
    /// State variables kept (their ReadValue and Assign both stayed).
    pub variables: Vec<String>,
}

type Tensor = (NodeId, usize);
/// A tensor with the name it goes by.
type Named = (Tensor, String);
/// Cuts and outputs.
type Cut = (Vec<Named>, Vec<Named>);
/// A ShapeOf of a static shape: (layer, the shape, its output type).
type ShapeConst = (NodeId, Vec<u64>, ElementType);

/// Cut `model` as `spec` says. On error nothing useful is left in `model`: callers write
/// nothing then.
pub fn extract(
    model: &mut Model,
    map: Option<&SourceMap>,
    overrides: &[InputOverride],
    spec: &ExtractSpec,
) -> Result<ExtractReport, String> {
    let facts = {
        let mut inf = Infer::new(model, map, overrides);
        inf.check_overrides()?;
        let f = inf.run();
        if let Some(d) = inf.diags.first() {
            return Err(format!("the model does not infer: {}", d.message));
        }
        f
    };
    let g = &model.graph;
    let layers_before = g.len();
    let (cuts, outs) = match &spec.around {
        Some((layer, depth)) => around(g, layer, *depth)?,
        None => {
            if spec.outputs.is_empty() {
                return Err("extract: give --outputs (or --around LAYER)".into());
            }
            let resolve = |list: &[String], what: &str| -> Result<Vec<Named>, String> {
                let mut v: Vec<Named> = Vec::new();
                for s in list {
                    let t = find_tensor(g, s).map_err(|e| format!("--{what}: {e}"))?;
                    if let Some((_, first)) = v.iter().find(|(x, _)| *x == t) {
                        return Err(format!(
                            "--{what}: '{s}' and '{first}' name the same tensor"
                        ));
                    }
                    v.push((t, tensor_name(g, t, s)));
                }
                Ok(v)
            };
            (
                resolve(&spec.inputs, "inputs")?,
                resolve(&spec.outputs, "outputs")?,
            )
        }
    };
    let (keep, shapes) = needed(g, &facts, &cuts, &outs)?;
    let variables = keep
        .iter()
        .filter(|&&n| g[n].is("ReadValue"))
        .filter_map(|&n| g[n].attr("variable_id").map(str::to_string))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    build(model, &facts, &cuts, &outs, &keep)?;
    for (n, dims, et) in shapes {
        shape_to_const(&mut model.graph, n, &dims, et);
    }
    // Every port again, from the new inputs (a dynamic cut gives dynamic dims downstream);
    // the model inputs that stay keep their --input shapes.
    let kept: Vec<InputOverride> = overrides
        .iter()
        .filter(|o| {
            model.graph.layers().any(|l| {
                l.is("Parameter")
                    && (l.name == o.name || l.outputs.iter().any(|p| p.names().contains(&o.name)))
            })
        })
        .cloned()
        .collect();
    let overrides = &kept[..];
    let facts = {
        let mut inf = Infer::new(model, None, overrides);
        let f = inf.run();
        if let Some(d) = inf.diags.first() {
            return Err(format!(
                "the extracted model does not infer (please report it): {}",
                d.message
            ));
        }
        f
    };
    super::record::apply(&mut model.graph, &facts, overrides, true);
    Ok(ExtractReport {
        layers_before,
        layers_after: model.graph.len(),
        inputs: cuts.iter().map(|c| c.1.clone()).collect(),
        outputs: outs.iter().map(|c| c.1.clone()).collect(),
        variables,
    })
}

/// The name a cut or output tensor goes by: its first tensor name, else what the user wrote.
fn tensor_name(g: &Graph, t: Tensor, spec: &str) -> String {
    let names = g[t.0].outputs[t.1].names();
    if names.iter().any(|n| n == spec) {
        spec.to_string()
    } else {
        names.first().cloned().unwrap_or_else(|| spec.to_string())
    }
}

/// The layers the outputs need, walking up from them and stopping at the cuts. A model input
/// reached (not cut) is an error naming the output that needs it; a ReadValue brings the
/// Assigns of its variable, and what they need.
fn needed(
    g: &Graph,
    facts: &Facts,
    cuts: &[Named],
    outs: &[Named],
) -> Result<(HashSet<NodeId>, Vec<ShapeConst>), String> {
    // A ShapeOf of a tensor whose shape is static (under --input) needs only that shape: it
    // becomes a constant, and what it read is not kept for it (an LLM's causal mask reads the
    // shape of layer 0's key cache, which would keep layer 0 whole).
    let mut shapes: Vec<ShapeConst> = Vec::new();
    let cut: HashSet<Tensor> = cuts.iter().map(|c| c.0).collect();
    let mut assigns: HashMap<String, Vec<NodeId>> = HashMap::new();
    for n in g.nodes() {
        if g[n].is("Assign") {
            if let Some(v) = g[n].attr("variable_id") {
                assigns.entry(v.to_string()).or_default().push(n);
            }
        }
    }
    // (layer, why: the output or state that needs it)
    let mut keep: HashSet<NodeId> = HashSet::new();
    let mut stack: Vec<(NodeId, String)> = Vec::new();
    for ((n, o), name) in outs {
        if !cut.contains(&(*n, *o)) {
            stack.push((*n, format!("output '{name}'")));
        }
    }
    // Model inputs the cut leaves in: each with the first thing that needs it.
    let mut missing: Vec<(String, String)> = Vec::new();
    while let Some((n, why)) = stack.pop() {
        if !keep.insert(n) {
            continue;
        }
        let l = &g[n];
        if l.is("Parameter") {
            missing.push((l.name.clone(), why));
            continue;
        }
        if l.is("ReadValue") {
            let var = l.attr("variable_id").unwrap_or("").to_string();
            for &a in assigns.get(&var).map(Vec::as_slice).unwrap_or(&[]) {
                stack.push((
                    a,
                    format!(
                        "the state variable '{var}' (its ReadValue '{}' is kept, so is its Assign '{}')",
                        l.name, g[a].name
                    ),
                ));
            }
        }
        if l.is("ShapeOf") {
            let dims = g
                .input_of(n, 0)
                .and_then(|(s, o)| facts.get(s, o))
                .and_then(|f| f.shape.to_static());
            let et = facts.get(n, 0).map(|f| f.et);
            if let (Some(dims), Some(et @ (ElementType::I32 | ElementType::I64))) = (dims, et) {
                shapes.push((n, dims, et));
                continue;
            }
        }
        for &(src, o) in g.inputs_of(n).iter().flatten() {
            if !cut.contains(&(src, o)) {
                stack.push((src, why.clone()));
            }
        }
    }
    if let Some((param, why)) = missing.first() {
        let more = missing.len() - 1;
        let others: Vec<&str> = missing[1..].iter().map(|m| m.0.as_str()).take(4).collect();
        return Err(format!(
            "{why} needs the model input '{param}', which is not among --inputs{}: add it to --inputs (it stays an input) or cut above it",
            if more > 0 {
                format!(" (nor are {})", others.join(", "))
            } else {
                String::new()
            }
        ));
    }
    Ok((keep, shapes))
}

/// A ShapeOf of a static shape becomes the Const of that shape (in place: its name, tensor
/// names and consumers stay).
fn shape_to_const(g: &mut Graph, n: NodeId, dims: &[u64], et: ElementType) {
    let vals: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    // i32 and i64 always encode.
    let Some(t) = crate::ir::tensor::Tensor::from_i64s(et, vec![dims.len() as u64], &vals) else {
        return;
    };
    if let Some(p) = g[n].inputs.first().map(|p| p.id) {
        g.disconnect_input(n, p);
    }
    let users = g.users_of(n, 0);
    let old_port = g[n].outputs[0].id;
    let l = &mut g[n];
    l.ty = Sym::new("Const");
    l.version = Sym::new("opset1");
    l.inputs.clear();
    let size = t.data.len().to_string();
    let shape = dims.len().to_string();
    l.data = Some(Attrs::from_pairs([
        ("element_type", et.name()),
        ("shape", shape.as_str()),
        ("offset", "0"),
        ("size", size.as_str()),
    ]));
    l.konst = Some(ConstData::Owned(t.data.clone()));
    l.outputs[0].id = 0;
    if old_port != 0 {
        for (u, i) in users {
            let pid = g[u].inputs[i].id;
            g.disconnect_input(u, pid);
            g.connect(n, 0, u, pid);
        }
    }
}

/// Rewire the cuts to new Parameters, give the outputs their Results, drop everything else.
fn build(
    model: &mut Model,
    facts: &Facts,
    cuts: &[Named],
    outs: &[Named],
    keep: &HashSet<NodeId>,
) -> Result<(), String> {
    let g = &mut model.graph;
    // Results: an output the model already had keeps its Result; the others get one.
    let mut results: Vec<NodeId> = Vec::new();
    for (k, ((n, o), name)) in outs.iter().enumerate() {
        let existing = g
            .users_of(*n, *o)
            .into_iter()
            .find(|&(u, _)| g[u].is("Result"))
            .map(|(u, _)| u);
        let r = match existing {
            Some(r) => r,
            None => {
                if g[*n].outputs[*o].names().is_empty() {
                    g[*n].outputs[*o].set_names(vec![name.clone()]);
                }
                super::edit::add_result(g, (*n, *o), &format!("{name}/sink_port_0"))
            }
        };
        // Outputs in the order given.
        g[r].origin = None;
        g[r].id = k as u64;
        results.push(r);
    }
    // Parameters for the cuts (a model input cut at its own output stays as it is).
    let mut params: Vec<NodeId> = Vec::new();
    for (k, ((n, o), name)) in cuts.iter().enumerate() {
        if g[*n].is("Parameter") {
            g[*n].origin = None;
            g[*n].id = k as u64;
            params.push(*n);
            continue;
        }
        let f = facts
            .get(*n, *o)
            .ok_or_else(|| format!("--inputs: no type and shape inferred for '{name}'"))?;
        if f.et == ElementType::Dynamic {
            return Err(format!(
                "--inputs: the element type of '{name}' is not known before run time; it cannot be an input"
            ));
        }
        let mut p = Layer::new("Parameter", "opset1", name);
        p.data = Some(Attrs::from_pairs([
            ("shape", f.shape.to_string().as_str()),
            ("element_type", f.et.name()),
        ]));
        p.outputs
            .push(Port::new(0, f.et, f.shape.clone()).with_meta(PortMeta {
                names: vec![name.clone()],
                ..Default::default()
            }));
        p.id = k as u64;
        let pn = g.add_layer(p);
        for (u, i) in g.users_of(*n, *o) {
            if !keep.contains(&u) && !results.contains(&u) {
                continue;
            }
            let port = g[u].inputs[i].id;
            g.disconnect_input(u, port);
            g.connect(pn, 0, u, port);
        }
        // The tensor's name moves to the Parameter.
        if keep.contains(n) {
            let names: Vec<String> = g[*n].outputs[*o]
                .names()
                .iter()
                .filter(|s| *s != name)
                .cloned()
                .collect();
            g[*n].outputs[*o].set_names(names);
        }
        params.push(pn);
    }
    let stay: HashSet<NodeId> = keep
        .iter()
        .copied()
        .chain(results.iter().copied())
        .chain(params.iter().copied())
        .collect();
    let drop: Vec<NodeId> = g.nodes().filter(|n| !stay.contains(n)).collect();
    for n in drop {
        g.remove_layer(n);
    }
    Ok(())
}

/// `--around LAYER --depth N`: the layers within N edges of LAYER (either way; Parameters and
/// Results are not layers of the region), plus the constant subgraphs they read; cuts are the
/// other tensors they read, outputs their tensors read outside the region or not at all.
fn around(g: &Graph, layer: &str, depth: usize) -> Result<Cut, String> {
    let start = super::edit::layer_named(g, layer)
        .ok_or_else(|| unknown("layer", layer, g.layers().map(|l| l.name.clone())))?;
    // State is cut at the ReadValue: the region computes from its value.
    let boundary = |n: NodeId| {
        ["Parameter", "Result", "Const", "ReadValue", "Assign"]
            .iter()
            .any(|t| g[n].is(t))
    };
    let mut region: HashSet<NodeId> = HashSet::from([start]);
    let mut frontier = vec![start];
    for _ in 0..depth {
        let mut next = Vec::new();
        for &n in &frontier {
            let near = g
                .links_into(n)
                .map(|k| k.from)
                .chain(g.links_from(n).map(|k| k.to))
                .collect::<Vec<_>>();
            for m in near {
                if !boundary(m) && region.insert(m) {
                    next.push(m);
                }
            }
        }
        frontier = next;
    }
    // Constant-only producers come along whole (decompression chains stay chains).
    let constant = constant_only(g);
    let mut stack: Vec<NodeId> = region.iter().copied().collect();
    while let Some(n) = stack.pop() {
        for k in g.links_into(n).collect::<Vec<_>>() {
            if constant[k.from.index()] && region.insert(k.from) {
                stack.push(k.from);
            }
        }
    }
    let name_of = |t: Tensor| -> String {
        g[t.0].outputs[t.1]
            .names()
            .first()
            .cloned()
            .unwrap_or_else(|| format!("{}:{}", g[t.0].name, t.1))
    };
    let mut order: Vec<NodeId> = g.ordered().unwrap_or_else(|| g.nodes().collect());
    order.retain(|n| region.contains(n));
    let (mut cuts, mut outs): Cut = (vec![], vec![]);
    let mut seen: HashSet<Tensor> = HashSet::new();
    for &n in &order {
        for p in g.inputs_of(n).iter().flatten() {
            if !region.contains(&p.0) && seen.insert(*p) {
                cuts.push((*p, name_of(*p)));
            }
        }
    }
    for &n in &order {
        for o in 0..g[n].outputs.len() {
            let users = g.users_of(n, o);
            let outside = users.iter().any(|&(u, _)| !region.contains(&u));
            if (outside || users.is_empty()) && !constant[n.index()] {
                outs.push(((n, o), name_of((n, o))));
            }
        }
    }
    if outs.is_empty() {
        return Err(format!(
            "--around '{layer}': the region of depth {depth} has no output (it only computes constants)"
        ));
    }
    Ok((cuts, outs))
}

/// Layers whose value depends on no model input and no state: Const and what only they feed.
pub(crate) fn constant_only(g: &Graph) -> Vec<bool> {
    let mut c = vec![false; g.node_bound()];
    let order = g.ordered().unwrap_or_default();
    for n in order {
        let l = &g[n];
        c[n.index()] = if l.is("Const") {
            true
        } else if l.is("Parameter") || l.is("ReadValue") || l.is("Result") || l.is("Assign") {
            false
        } else {
            let ins = g.inputs_of(n);
            !ins.is_empty() && ins.iter().all(|p| p.is_some_and(|(s, _)| c[s.index()]))
        };
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a → relu → b(sigmoid) → Result` with a Parameter `p`: cutting at relu's output keeps
    /// only the sigmoid, fed by a new Parameter named after the tensor.
    fn chain() -> Model {
        let mut g = Graph::default();
        let sh = PartialShape::from_static(&[2, 3]);
        let mut p = Layer::new("Parameter", "opset1", "p");
        p.data = Some(Attrs::from_pairs([
            ("shape", "2,3"),
            ("element_type", "f32"),
        ]));
        p.outputs.push(Port::new(0, ElementType::F32, sh.clone()));
        let mut relu = Layer::new("Relu", "opset1", "relu");
        relu.inputs.push(Port::new(0, ElementType::F32, sh.clone()));
        relu.outputs.push(
            Port::new(1, ElementType::F32, sh.clone()).with_meta(PortMeta {
                names: vec!["r".into()],
                ..Default::default()
            }),
        );
        let mut sig = Layer::new("Sigmoid", "opset1", "sig");
        sig.inputs.push(Port::new(0, ElementType::F32, sh.clone()));
        sig.outputs.push(
            Port::new(1, ElementType::F32, sh.clone()).with_meta(PortMeta {
                names: vec!["s".into()],
                ..Default::default()
            }),
        );
        let mut res = Layer::new("Result", "opset1", "s/sink_port_0");
        res.inputs.push(Port::new(0, ElementType::F32, sh));
        let (p, relu, sig, res) = (
            g.add_layer(p),
            g.add_layer(relu),
            g.add_layer(sig),
            g.add_layer(res),
        );
        g.connect(p, 0, relu, 0);
        g.connect(relu, 1, sig, 0);
        g.connect(sig, 1, res, 0);
        Model {
            name: "t".into(),
            version: 11,
            graph: g,
            extra: Vec::new(),
            weights: None,
        }
    }

    #[test]
    fn a_cut_tensor_becomes_a_parameter_named_after_it() {
        let mut m = chain();
        let spec = ExtractSpec {
            inputs: vec!["r".into()],
            outputs: vec!["s".into()],
            around: None,
        };
        let r = extract(&mut m, None, &[], &spec).unwrap();
        assert_eq!(
            (r.inputs.clone(), r.outputs.clone()),
            (vec!["r".to_string()], vec!["s".to_string()])
        );
        let types: Vec<&str> = m.graph.layers().map(|l| l.ty.as_str()).collect();
        assert_eq!(types.len(), 3, "{types:?}");
        assert!(!types.contains(&"Relu"));
        let p = m.graph.layers().find(|l| l.is("Parameter")).unwrap();
        assert_eq!(
            (p.name.as_str(), p.outputs[0].names()),
            ("r", &["r".to_string()][..])
        );
        assert_eq!(p.attr("shape"), Some("2,3"));
    }

    #[test]
    fn an_output_that_needs_a_model_input_says_which() {
        let mut m = chain();
        let spec = ExtractSpec {
            inputs: vec![],
            outputs: vec!["s".into()],
            around: None,
        };
        let e = extract(&mut m, None, &[], &spec).unwrap_err();
        assert!(e.contains("output 's' needs the model input 'p'"), "{e}");
        let spec = ExtractSpec {
            inputs: vec!["rr".into()],
            outputs: vec!["s".into()],
            around: None,
        };
        let e = extract(&mut chain(), None, &[], &spec).unwrap_err();
        assert!(e.contains("no tensor named 'rr'; close: r"), "{e}");
    }
}
