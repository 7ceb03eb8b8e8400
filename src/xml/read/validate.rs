//! Validation with source positions: port ids, the model's boundary, Parameters, Consts
//! (element types, sizes, `.bin` ranges, string tensors), port maps, bodies, and connecting
//! the edges (dangling, duplicate and unfed ports, cycles).

use super::*;

/// A string tensor: i32 count, count+1 i32 offsets (first 0, non-decreasing), then the bytes.
pub(super) fn check_string_tensor(b: &[u8], count: u64) -> Result<(), String> {
    let rd = |i: usize| -> Option<i64> {
        b.get(i * 4..i * 4 + 4)
            .map(|x| i32::from_le_bytes([x[0], x[1], x[2], x[3]]) as i64)
    };
    if count == 0 && b.is_empty() {
        return Ok(());
    }
    let n = rd(0).ok_or("shorter than its 4-byte element count")?;
    if n < 0 || n as u64 != count {
        return Err(format!(
            "holds {n} strings but the shape has {count} elements"
        ));
    }
    let header = 4 * (n as usize + 2);
    if b.len() < header {
        return Err(format!("{} bytes cannot hold {} offsets", b.len(), n + 1));
    }
    let data_len = (b.len() - header) as i64;
    let mut prev = 0i64;
    for i in 0..=n as usize {
        let o = rd(1 + i).unwrap_or(-1);
        if o < prev || o > data_len {
            return Err(format!(
                "offset {i} is {o}, outside 0..={data_len} or decreasing"
            ));
        }
        prev = o;
    }
    Ok(())
}

/// A Const's `<data>` attributes, parsed.
#[derive(Clone, Copy)]
struct ConstDecl<'d> {
    et: ElementType,
    /// The shape as written (for messages).
    shape_s: &'d str,
    offset: u64,
    size: u64,
    /// The element count of the shape.
    count: u64,
}

/// Where the edge into each input port is (`usize::MAX`: none yet): one slot per input
/// port, the slots of a node starting at `start[node]`. No hashing per edge.
struct Fed {
    start: Vec<u32>,
    /// Per input port: the index in the edge list of the first edge into it, or `u32::MAX`.
    at: Vec<u32>,
}

impl Fed {
    fn new(graph: &Graph, spans: Option<&[PortSpan]>) -> Fed {
        let bound = graph.node_bound();
        let mut start = vec![0u32; bound + 1];
        match spans {
            // Without reading the layers.
            Some(spans) => {
                for (i, s) in spans.iter().enumerate() {
                    start[i + 1] = s.ins;
                }
            }
            None => {
                for n in graph.nodes() {
                    start[n.index() + 1] = graph[n].inputs.len() as u32;
                }
            }
        }
        for i in 0..bound {
            start[i + 1] += start[i];
        }
        let at = vec![u32::MAX; start[bound] as usize];
        Fed { start, at }
    }
    fn slot(&self, n: NodeId, idx: usize) -> usize {
        self.start[n.index()] as usize + idx
    }
}

impl<'a> Parser<'a> {
    pub(super) fn check_port_ids(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        let ports: SmallVec<[&Port; 8]> = layer.inputs.iter().chain(layer.outputs.iter()).collect();

        // Layers have a handful of ports: a quadratic check allocates nothing for them.
        let mut seen = std::collections::HashSet::new();
        for (k, p) in ports.iter().enumerate() {
            let dup = if ports.len() <= 16 {
                ports[..k].iter().any(|q| q.id == p.id)
            } else {
                !seen.insert(p.id)
            };
            if dup {
                let pos = src
                    .ports
                    .iter()
                    .rev()
                    .find(|(i, _)| *i == p.id)
                    .map(|&(_, r)| src.pos + r as usize);
                self.err(
                    Diag::new(Kind::Graph, format!("port id {} is used twice", p.id))
                        .at(pos.unwrap_or(src.pos))
                        .layer(who),
                );
            }
        }
    }
    /// The model's boundary has fixed arity (OpenVINO cannot build it otherwise): a Parameter
    /// has no input port and one output port, a Result one input port and no output port.
    pub(super) fn check_boundary_ports(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        let (ins, outs) = (layer.inputs.len(), layer.outputs.len());
        let want = if layer.is("Parameter") {
            (0, 1)
        } else if layer.is("Result") {
            (1, 0)
        } else {
            return;
        };
        if (ins, outs) != want {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!(
                        "{} needs {} input port(s) and {} output port(s), has {ins} and {outs}",
                        layer.ty, want.0, want.1
                    ),
                )
                .at(src.pos)
                .layer(who),
            );
        }
    }
    pub(super) fn parameter(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        let Some(data) = &layer.data else {
            self.err(
                Diag::new(
                    Kind::Schema,
                    "Parameter has no <data> (shape and element_type are required)",
                )
                .at(src.pos)
                .layer(who),
            );
            return;
        };
        let dpos = src.data.unwrap_or(src.pos);
        match data.get("element_type") {
            None => self.err(
                Diag::new(Kind::Schema, "Parameter <data> has no 'element_type'")
                    .at(dpos)
                    .layer(who),
            ),
            Some(e) => {
                if ElementType::parse_attr(e).is_none() {
                    self.err(
                        Diag::new(Kind::ElementType, format!("unknown element type '{e}'"))
                            .at(self.attr_pos(dpos, "element_type"))
                            .layer(who),
                    );
                }
            }
        }
        if let Some(s) = data.get("shape") {
            if let Err(m) = PartialShape::parse(s) {
                self.err(
                    Diag::new(Kind::Schema, format!("bad Parameter shape \"{s}\": {m}"))
                        .at(self.attr_pos(dpos, "shape"))
                        .layer(who),
                );
            }
        }
        if layer.outputs.len() != 1 {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!(
                        "Parameter must have exactly 1 output port, found {}",
                        layer.outputs.len()
                    ),
                )
                .at(src.pos)
                .layer(who),
            );
        }
    }
    pub(super) fn konst(&mut self, layer: &mut Layer, who: &Who, src: &LayerSrc) {
        let Some(data) = layer.data.clone() else {
            self.err(
                Diag::new(
                    Kind::Schema,
                    "Const has no <data> (element_type, shape, offset, size are required)",
                )
                .at(src.pos)
                .layer(who),
            );
            return;
        };
        let dpos = src.data.unwrap_or(src.pos);
        let Some(c) = self.const_decl(&data, who, dpos) else {
            return;
        };
        let Some(w) = self.const_range(&c, who, dpos) else {
            return;
        };
        if !self.const_content(&c, &w, who, dpos) {
            return;
        }
        if layer.outputs.len() != 1 {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!(
                        "Const must have exactly 1 output port, found {}",
                        layer.outputs.len()
                    ),
                )
                .at(src.pos)
                .layer(who),
            );
        }
        layer.konst = Some(ConstData::Bin {
            offset: c.offset,
            size: c.size,
        });
    }
    /// The attributes of a Const's `<data>` (at `dpos`), parsed and checked: all four
    /// present, a known element type, a static shape whose element count fits in 64 bits,
    /// integral offset and size.
    fn const_decl<'d>(&mut self, data: &'d Attrs, who: &Who, dpos: usize) -> Option<ConstDecl<'d>> {
        // The four looked up in one pass over the attributes (eight look-ups were a tenth of
        // the reader's checks of a model of 37k constants).
        const KEYS: [&str; 4] = ["element_type", "shape", "offset", "size"];
        let mut found: [Option<&'d str>; 4] = [None; 4];
        for (k, v) in data.iter() {
            if let Some(i) = KEYS.iter().position(|&x| x == k) {
                found[i] = found[i].or(Some(v));
            }
        }
        let missing: Vec<&str> = KEYS
            .iter()
            .zip(&found)
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| *k)
            .collect();
        if !missing.is_empty() {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!("Const <data> is missing {}", missing.join(", ")),
                )
                .at(dpos)
                .layer(who),
            );
            return None;
        }
        let [Some(et_s), Some(shape_s), Some(offset_s), Some(size_s)] = found else {
            return None;
        };
        let Some(et) = ElementType::parse_attr(et_s) else {
            self.err(
                Diag::new(Kind::ElementType, format!("unknown element type '{et_s}'"))
                    .at(self.attr_pos(dpos, "element_type"))
                    .layer(who)
                    .note("element_type takes a canonical name: f32, f16, bf16, i64, u8, u1, boolean, string …"),
            );
            return None;
        };
        let shape = match PartialShape::parse_static(shape_s) {
            Ok(s) => s,
            Err(m) => {
                self.err(
                    Diag::new(Kind::Schema, format!("bad Const shape \"{shape_s}\": {m}"))
                        .at(self.attr_pos(dpos, "shape"))
                        .layer(who),
                );
                return None;
            }
        };
        let (Some(offset), Some(size)) = (
            self.const_num(offset_s, "offset", who, dpos),
            self.const_num(size_s, "size", who, dpos),
        ) else {
            return None;
        };
        let Some(count) = PartialShape::element_count(&shape) else {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!("Const shape [{shape_s}] has more elements than fit in 64 bits"),
                )
                .at(self.attr_pos(dpos, "shape"))
                .layer(who),
            );
            return None;
        };
        Some(ConstDecl {
            et,
            shape_s,
            offset,
            size,
            count,
        })
    }
    /// Const `<data>` attribute `k` as a non-negative integer.
    fn const_num(&mut self, v: &str, k: &str, who: &Who, dpos: usize) -> Option<u64> {
        match v.trim().parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                self.err(
                    Diag::new(
                        Kind::Schema,
                        format!("Const {k} '{v}' is not a non-negative integer"),
                    )
                    .at(self.attr_pos(dpos, k))
                    .layer(who),
                );
                None
            }
        }
    }
    /// The weights, when they are there and hold the Const's byte range.
    fn const_range(&mut self, c: &ConstDecl, who: &Who, dpos: usize) -> Option<Arc<Weights>> {
        let (offset, size) = (c.offset, c.size);
        let Some(w) = self.weights.clone() else {
            self.err(
                Diag::new(
                    Kind::Weights,
                    format!(
                        "Const needs {size} bytes of weights but {} cannot be found",
                        self.bin_label
                    ),
                )
                .at(dpos)
                .layer(who),
            );
            return None;
        };
        let len = w.len() as u64;
        if offset.checked_add(size).is_none_or(|end| end > len) {
            self.err(
                Diag::new(Kind::Weights, "Const data lies outside the .bin")
                    .at(self.attr_pos(dpos, "offset"))
                    .layer(who)
                    .note(format!(
                        "offset {offset} + size {size} = {} but {} holds {len} bytes",
                        offset as u128 + size as u128,
                        self.bin_label
                    )),
            );
            return None;
        }
        Some(w)
    }
    /// Whether the Const's bytes (in range of `w`) fit its element type and shape: a
    /// well-formed string tensor, or enough bytes for the elements.
    fn const_content(&mut self, c: &ConstDecl, w: &Weights, who: &Who, dpos: usize) -> bool {
        let ConstDecl {
            et,
            shape_s,
            offset,
            size,
            count,
        } = *c;
        if et == ElementType::String {
            let bytes = &w.bytes()[offset as usize..(offset + size) as usize];
            if let Err(m) = check_string_tensor(bytes, count) {
                self.err(
                    Diag::new(Kind::Weights, format!("malformed string Const data: {m}"))
                        .at(dpos)
                        .layer(who),
                );
                return false;
            }
        } else if et.bits() > 0 {
            // OpenVINO checks size >= ceil(n * bits / 8) (unpadded, even for u3/u6).
            let Some(need) = et.min_file_bytes(count) else {
                self.err(
                    Diag::new(
                        Kind::Schema,
                        format!(
                            "Const {et}[{shape_s}] is too large: its byte size overflows 64 bits"
                        ),
                    )
                    .at(self.attr_pos(dpos, "shape"))
                    .layer(who),
                );
                return false;
            };
            if size < need {
                self.err(
                    Diag::new(Kind::Weights, "Const size is too small for its shape")
                        .at(self.attr_pos(dpos, "size"))
                        .layer(who)
                        .note(format!("{et}[{shape_s}] has {count} elements and needs {need} bytes; size is {size}")),
                );
                return false;
            }
        } else {
            self.err(
                Diag::new(
                    Kind::ElementType,
                    format!("Const cannot have element type '{et}'"),
                )
                .at(self.attr_pos(dpos, "element_type"))
                .layer(who),
            );
            return false;
        }
        true
    }
    /// port_map / back_edges refer to body layer ids and to the op's port ids: check both.
    pub(super) fn check_port_maps(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        if layer.pre().is_empty() {
            return;
        }
        let body_for = |tag: &str| -> Option<&Graph> {
            let want = match tag {
                "then_port_map" => "then_body",
                "else_port_map" => "else_body",
                _ => "body",
            };
            layer
                .bodies
                .iter()
                .find(|b| b.tag == want)
                .map(|b| &b.graph)
        };
        let mut errs: Vec<(String, usize)> = Vec::new();
        for (k, el) in layer.pre().iter().enumerate() {
            let child_pos = |i: usize| {
                src.pre
                    .get(k)
                    .and_then(|p| p.get(i))
                    .copied()
                    .unwrap_or(src.pos)
            };
            let Some(body) = body_for(&el.name) else {
                continue;
            };
            for (ci, c) in el.children.iter().enumerate() {
                self.check_port_map_entry(layer, body, el, c, child_pos(ci), &mut errs);
            }
        }
        for (m, pos) in errs {
            self.err(Diag::new(Kind::Graph, m).at(pos).layer(who));
        }
    }
    /// Checks one port map or back edge entry `c` of `el`: the body layers it names and the
    /// layer port it maps to; the errors go to `errs` (`at`: the entry's position).
    fn check_port_map_entry(
        &self,
        layer: &Layer,
        body: &Graph,
        el: &XmlElement,
        c: &XmlElement,
        at: usize,
        errs: &mut Vec<(String, usize)>,
    ) {
        let has = |id: &str| -> bool {
            id.trim()
                .parse::<u64>()
                .ok()
                .is_some_and(|i| body.find_by_id(i).is_some())
        };
        // What the named body layer must be: OpenVINO's reader looks port maps and back
        // edges up among the body's Parameters (inputs, back-edge targets) and Results
        // (outputs, back-edge sources), and fails on anything else.
        let must_be = |child: &str, key: &str| -> Option<&'static str> {
            match (el.name.as_str(), child, key) {
                ("back_edges", _, "from-layer") => Some("Result"),
                ("back_edges", _, "to-layer") => Some("Parameter"),
                (_, "input", "internal_layer_id") => Some("Parameter"),
                (_, "output", "internal_layer_id") => Some("Result"),
                _ => None,
            }
        };
        for key in ["internal_layer_id", "from-layer", "to-layer"] {
            if let Some(v) = c.attr(key) {
                if !has(v) {
                    errs.push((
                        format!("<{}> {key}=\"{v}\" names no layer of the body", el.name),
                        self.attr_pos(at, key),
                    ));
                    continue;
                }
                let named = v
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .and_then(|i| body.find_by_id(i))
                    .map(|n| &body[n]);
                if let (Some(want), Some(l)) = (must_be(&c.name, key), named) {
                    if !l.is(want) {
                        errs.push((
                            format!(
                                "<{}> <{}> {key}=\"{v}\" names {} '{}', not a {want} of the body",
                                el.name, c.name, l.ty, l.name
                            ),
                            self.attr_pos(at, key),
                        ));
                    }
                }
            }
        }
        if let Some(v) = c.attr("external_port_id") {
            let ok = match v.trim().parse::<i64>() {
                Ok(-1) => true,
                Ok(p) if p >= 0 => layer
                    .inputs
                    .iter()
                    .chain(layer.outputs.iter())
                    .any(|x| x.id as i64 == p),
                _ => false,
            };
            if !ok {
                errs.push((
                    format!(
                        "<{}> external_port_id=\"{v}\" names no port of the layer",
                        el.name
                    ),
                    self.attr_pos(at, "external_port_id"),
                ));
            }
        }
    }
    /// Loop/TensorIterator need a `<body>`, If needs `<then_body>` and `<else_body>`.
    pub(super) fn check_bodies(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        let need: &[&str] = if layer.is("Loop") || layer.is("TensorIterator") {
            &["body"]
        } else if layer.is("If") {
            &["then_body", "else_body"]
        } else {
            &[]
        };
        for tag in need {
            if !layer.bodies.iter().any(|b| b.tag == *tag) {
                self.err(
                    Diag::new(Kind::Schema, format!("{} has no <{tag}>", layer.ty))
                        .at(src.pos)
                        .layer(who),
                );
            }
        }
    }
    /// Resolve edges, then check ports are fed exactly once and the graph is acyclic.
    pub(super) fn connect(&mut self, graph: &mut Graph, ids: &IdMap, edges: Vec<RawEdge>) {
        let spans = ids.spans(graph);
        let mut fed = Fed::new(graph, spans);
        for (k, e) in edges.iter().enumerate() {
            // The ends from the port spans when they tell (no layer read); else from the
            // layers, with the messages.
            let quick = || {
                let (from, to) = (ids.get(e.from)?.0, ids.get(e.to)?.0);
                let spans = spans?;
                spans[from.index()].output_index(e.from_port)?;
                Some((from, to, spans[to.index()].input_index(e.to_port)?))
            };
            let Some((from, to, to_idx)) = quick().or_else(|| self.edge_ends(graph, ids, e)) else {
                continue;
            };
            let first = fed.at[fed.slot(to, to_idx)];
            if first != u32::MAX {
                let (line, _) = crate::error::line_col(self.src, edges[first as usize].pos);
                self.err(
                    Diag::new(
                        Kind::Graph,
                        format!(
                            "input port {} of {} has two incoming edges",
                            e.to_port,
                            graph[to].label()
                        ),
                    )
                    .at(e.pos)
                    .note(format!("the first edge into that port is on line {line}")),
                );
                continue;
            }
            let s = fed.slot(to, to_idx);
            fed.at[s] = k as u32;
            graph.connect(from, e.from_port, to, e.to_port);
        }
        self.check_unfed(graph, &fed);
        if !graph.is_acyclic() {
            self.check_cycles(graph);
        }
    }
    /// The layers an edge joins and the index of the input port it enters, when both
    /// layers and both ports exist.
    fn edge_ends(
        &mut self,
        graph: &Graph,
        ids: &IdMap,
        e: &RawEdge,
    ) -> Option<(NodeId, NodeId, usize)> {
        let from = ids.get(e.from).map(|x| x.0);
        let to = ids.get(e.to).map(|x| x.0);
        let (Some(from), Some(to)) = (from, to) else {
            let missing = if from.is_none() { e.from } else { e.to };
            self.err(
                Diag::new(
                    Kind::Graph,
                    format!("edge refers to layer id {missing}, which does not exist"),
                )
                .at(e.pos)
                .note(format!(
                    "edge {}:{} -> {}:{}",
                    e.from, e.from_port, e.to, e.to_port
                )),
            );
            return None;
        };
        let fl = &graph[from];
        let tl = &graph[to];
        if fl.output_index(e.from_port).is_none() {
            let have: Vec<String> = fl.outputs.iter().map(|p| p.id.to_string()).collect();
            self.err(
                Diag::new(
                    Kind::Graph,
                    format!(
                        "edge leaves output port {} of {}, which has no such output port",
                        e.from_port,
                        fl.label()
                    ),
                )
                .at(e.pos)
                .note(format!("output ports of that layer: [{}]", have.join(", "))),
            );
            return None;
        }
        let Some(to_idx) = tl.input_index(e.to_port) else {
            let have: Vec<String> = tl.inputs.iter().map(|p| p.id.to_string()).collect();
            self.err(
                Diag::new(
                    Kind::Graph,
                    format!(
                        "edge enters input port {} of {}, which has no such input port",
                        e.to_port,
                        tl.label()
                    ),
                )
                .at(e.pos)
                .note(format!("input ports of that layer: [{}]", have.join(", "))),
            );
            return None;
        };
        Some((from, to, to_idx))
    }
    /// Every declared input port must be fed (OpenVINO: "Incorrect number of inputs").
    fn check_unfed(&mut self, graph: &Graph, fed: &Fed) {
        // Every port fed: no layer needs to be read.
        if !fed.at.contains(&u32::MAX) {
            return;
        }
        let mut unfed = Vec::new();
        for n in graph.nodes() {
            let l = &graph[n];
            if l.is("LSTMCell") && l.version == "opset1" {
                continue; // the peephole port is legitimately unconnected
            }
            for (i, p) in l.inputs.iter().enumerate() {
                // Edges are matched to the first input with a port id (ids repeat only in
                // files that fail anyway).
                let fed_at = |idx: usize| fed.at[fed.slot(n, idx)] != u32::MAX;
                if !fed_at(i) && !l.input_index(p.id).is_some_and(fed_at) {
                    unfed.push((n, p.id));
                }
            }
        }
        for (n, port) in unfed {
            let l = &graph[n];
            let pos = l.origin.and_then(|o| self.map.port(o as usize, port));

            self.err(
                Diag::new(
                    Kind::Graph,
                    format!("input port {port} has no incoming edge"),
                )
                .at(pos)
                .layer(l.label()),
            );
        }
    }
    /// One error per cycle of a graph that has cycles, at its layer with the lowest id.
    fn check_cycles(&mut self, graph: &Graph) {
        for scc in graph.cycles() {
            let mut members: Vec<&Layer> = scc.iter().map(|&n| &graph[n]).collect();
            members.sort_by_key(|l| l.id);
            let first = members[0];
            let list: Vec<String> = members
                .iter()
                .take(12)
                .map(|l| format!("{} '{}'", l.id, l.name))
                .collect();
            let more = if members.len() > 12 {
                format!(" … ({} layers)", members.len())
            } else {
                String::new()
            };
            self.err(
                Diag::new(Kind::Graph, "the graph has a cycle")
                    .at(self.map.layer_pos(first))
                    .layer(first.label())
                    .note(format!("layers on the cycle: {}{more}", list.join(", "))),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_with_escapes() {
        assert_eq!(split_names("a,b\\,c, d"), vec!["a", "b,c", " d"]);
        assert_eq!(split_names(""), Vec::<String>::new());
    }

    #[test]
    fn string_tensor_layout() {
        // ["ab","","xyz"] from shared/reference/openvino-notes.md §1.6
        let mut b = Vec::new();
        for v in [3i32, 0, 2, 2, 5] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(b"abxyz");
        assert_eq!(b.len(), 25);
        assert!(check_string_tensor(&b, 3).is_ok());
        assert!(check_string_tensor(&b, 2).is_err());
        assert!(check_string_tensor(&b[..20], 3).is_err());
    }
}
