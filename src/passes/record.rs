//! Inferred facts meet the file: `apply` writes them into the ports (`infer-shapes -o`,
//! `fold`), `drift` lists the ports whose recorded dims or precision disagree
//! (`infer-shapes --check`).

use super::infer::{Facts, InputOverride};
use crate::ir::*;
use crate::span::SourceMap;

/// Write inferred facts into the ports of a graph (and its bodies): an input port gets its
/// producer's output, an output port its own. (`infer-shapes -o` of a big graph writes the
/// same without it, see `cli/infer_write.rs`: its tests hold the two to the same bytes.)
pub fn apply(g: &mut Graph, facts: &Facts, overrides: &[InputOverride], top: bool) {
    let nodes: Vec<NodeId> = g.nodes().collect();
    for &n in &nodes {
        let prods = g.inputs_of(n);
        let l = &mut g[n];
        // In place: building the ports' facts first and moving them in doubled the cost.
        for (i, p) in prods.iter().enumerate() {
            if let Some((et, shape)) = p.and_then(|(s, o)| facts.typed(s, o)) {
                let port = &mut l.inputs[i];
                port.precision = Some(et);
                port.shape = shape;
            }
        }
        for (o, port) in l.outputs.iter_mut().enumerate() {
            if let Some((et, shape)) = facts.typed(n, o) {
                port.precision = Some(et);
                port.shape = shape;
            }
        }
        if top {
            if let Some(shape) = parameter_shape(l, overrides) {
                l.set_data_attr("shape", shape);
            }
        }
        for (bi, b) in l.bodies.iter_mut().enumerate() {
            if let Some(bf) = facts.bodies.get(&(n, bi)) {
                apply(&mut b.graph, bf, &[], false);
            }
        }
    }
}

/// A top-level Parameter's new `shape` attribute, when an `--input` override names it.
pub fn parameter_shape(l: &Layer, overrides: &[InputOverride]) -> Option<String> {
    if !l.is("Parameter") {
        return None;
    }
    let names = |o: &&InputOverride| {
        l.name == o.name || l.outputs.iter().any(|q| q.names().contains(&o.name))
    };
    overrides.iter().find(names).map(|o| o.shape.to_string())
}

/// One disagreement between recorded and inferred port data.
#[derive(Debug, Clone)]
pub struct Drift {
    /// The layer's label (`Gather 'g1' (id 7, opset8)`).
    pub layer: String,
    /// Friendly name, id and type of the layer, for machine-readable reports.
    pub name: String,
    pub id: u64,
    pub ty: String,
    pub port: u32,
    pub recorded: String,
    pub inferred: String,
    pub pos: Option<usize>,
    /// The port (top-level graph only), for its symbolic form.
    pub node: Option<(NodeId, usize)>,
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

/// Whether two ports have the same [`port_text`], without formatting either (`--check` compares
/// every port of every file).
fn same_text(
    (a_et, a): (Option<ElementType>, &PartialShape),
    (b_et, b): (Option<ElementType>, &PartialShape),
) -> bool {
    let name = |e: Option<ElementType>| e.map_or("?", |e| e.name());
    let (a, b) = (a.dims().unwrap_or(&[]), b.dims().unwrap_or(&[]));
    name(a_et) == name(b_et)
        && a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
}

/// Compare recorded output ports with inferred facts (in the file's lossy form).
pub fn drift(g: &Graph, facts: &Facts, map: Option<&SourceMap>, out: &mut Vec<Drift>) {
    drift_in(g, facts, map, true, out)
}

fn drift_in(g: &Graph, facts: &Facts, map: Option<&SourceMap>, top: bool, out: &mut Vec<Drift>) {
    let Some(order) = g.ordered() else { return };
    for n in order {
        let l = &g[n];
        for (o, port) in l.outputs.iter().enumerate() {
            let Some((et, shape)) = facts.typed(n, o) else {
                continue;
            };
            if !same_text((port.precision, &port.shape), (Some(et), &shape)) {
                let rec = port_text(port.precision, &port.shape);
                let inf = port_text(Some(et), &shape);
                out.push(Drift {
                    layer: l.label(),
                    name: l.name.clone(),
                    id: l.id,
                    ty: l.ty.to_string(),
                    port: port.id,
                    recorded: rec,
                    inferred: inf,
                    pos: map.and_then(|m| m.port_pos(l, port.id)),
                    node: top.then_some((n, o)),
                });
            }
        }
        for (bi, b) in l.bodies.iter().enumerate() {
            if let Some(bf) = facts.bodies.get(&(n, bi)) {
                drift_in(&b.graph, bf, None, false, out);
            }
        }
    }
}

#[cfg(test)]
mod same_text_tests {
    use super::*;

    /// `same_text` is `port_text` equality, on every pair of a set of shapes and types.
    #[test]
    fn same_text_is_equal_port_texts() {
        let shapes: Vec<PartialShape> = [
            "...", "[]", "[1,2]", "[1,?]", "[1,-1]", "[1,1..4]", "[2,1]", "[1,2,3]", "[?]", "[0]",
        ]
        .iter()
        .map(|s| PartialShape::parse(s).unwrap())
        .collect();
        let ets = [
            None,
            Some(ElementType::F32),
            Some(ElementType::F16),
            Some(ElementType::I64),
        ];
        let mut checked = 0;
        for a in &shapes {
            for b in &shapes {
                for ea in ets {
                    for eb in ets {
                        assert_eq!(
                            same_text((ea, a), (eb, b)),
                            port_text(ea, a) == port_text(eb, b),
                            "{a:?} {b:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 1600);
    }
}
