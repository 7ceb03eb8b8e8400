//! Building the IR: the document, graphs and bodies, layers, ports and edges.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn document(&mut self) -> Result<Document, Fatal> {
        let net = loop {
            match self.next()? {
                Ev::Open(t) => break t,
                Ev::Eof => return Err(Diag::new(Kind::Xml, "the file holds no XML element").at(0)),
                _ => {}
            }
        };
        if !net.name.eq_ignore_ascii_case("net") {
            return Err(Diag::new(
                Kind::Schema,
                format!(
                    "root element is <{}>, not <net>: not an OpenVINO IR",
                    net.name
                ),
            )
            .at(net.pos));
        }
        let name = net.get("name").unwrap_or("").to_string();
        let version = match net.get("version") {
            None => {
                return Err(Diag::new(
                    Kind::Schema,
                    "<net> has no 'version' attribute (IR version 10 or 11 expected)",
                )
                .at(net.pos))
            }
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n @ 10..=11) => n,
                _ => {
                    return Err(Diag::new(
                        Kind::Schema,
                        format!("unsupported IR version '{v}': irc reads IR versions 10 and 11"),
                    )
                    .at(self.attr_pos(net.pos, "version")))
                }
            },
        };
        let mut extra = Vec::new();
        let graph = self.graph_body(&net, Some(&mut extra))?;
        self.r.config_mut().allow_unmatched_ends = false;
        // Trailing content after </net> is ignored, as OpenVINO's reader does, but must be XML.
        loop {
            let before = self.lex_pos();

            match self.next()? {
                Ev::Eof => break,
                Ev::Text(t) if !t.trim().is_empty() => {
                    self.err(
                        Diag::new(Kind::Xml, "unexpected text after </net>")
                            .at(skip_ws(self.src, before)),
                    );
                }
                Ev::Open(t) => {
                    self.err(
                        Diag::new(
                            Kind::Xml,
                            format!("unexpected element <{}> after </net>", t.name),
                        )
                        .at(t.pos),
                    );
                    self.skip(&t)?;
                }
                _ => {}
            }
        }
        Ok((name, version, graph, extra))
    }
    /// The children of `<net>` or a body: `<layers>`, `<edges>`, `<rt_info>`, others.
    pub(super) fn graph_body(
        &mut self,
        parent: &Tag,
        mut extra: Option<&mut Vec<XmlElement>>,
    ) -> Result<Graph, Fatal> {
        let mut graph = Graph::default();
        // The top-level graph gets its exact size up front (counted tags): no node storage
        // doubling, no moves of big nodes while growing.
        let hint = self.cap_hint.take();
        if let Some((nodes, edges)) = hint {
            graph = Graph::with_capacity(nodes, edges);
        }
        let mut ids = IdMap::with_capacity(graph.capacity());
        // The edges as read, until they are connected: sized up front too (grown by doubling,
        // the list and its last copy were both resident at the read's peak).
        let mut raw_edges = Vec::with_capacity(hint.map_or(0, |h| h.1));
        if parent.empty {
            return Ok(graph);
        }
        loop {
            match self.next()? {
                Ev::Open(t) => match t.name {
                    "layers" => self.layers(&t, &mut graph, &mut ids)?,
                    "edges" => {
                        if !self.edges_from_second(&t, &mut graph, &mut ids, &mut raw_edges)? {
                            self.edges(&t, &mut raw_edges)?
                        }
                    }
                    "rt_info" => graph.rt_info = Some(self.generic(t)?),
                    _ => {
                        let el = self.generic(t)?;
                        if let Some(x) = extra.as_deref_mut() {
                            x.push(el);
                        }
                    }
                },
                Ev::Close => break,
                Ev::Text(_) => {}
                Ev::Eof => return Err(eof(parent)),
            }
        }
        if self.depth == 0 {
            crate::trace("read: parsed");
            // The split was passed: the second thread's layers are still to be added (the
            // edges after `</layers>` were read while it may still have been busy).
            if self.split.is_none() && self.second.is_some() {
                self.join_second_half(&mut graph, &mut ids)?;
            }
            // The whole graph is read, by both threads: its text is read again only for
            // messages (a released page is read back from the file), so none of it stays
            // resident while the graph is connected. (Released before the second thread is
            // done, its pages would be read in again.)
            if let Some(m) = self.mapped {
                m.release(0, self.src.len());
            }
        }
        self.connect(&mut graph, &ids, raw_edges);
        if self.depth == 0 {
            crate::trace("read: connected");
        }
        Ok(graph)
    }
    pub(super) fn layers(
        &mut self,
        t: &Tag,
        graph: &mut Graph,
        ids: &mut IdMap,
    ) -> Result<(), Fatal> {
        if t.empty {
            return Ok(());
        }
        loop {
            match self.next()? {
                Ev::Open(l) if l.name == "layer" => {
                    let pos = l.pos;
                    // Parallel read: the top-level layers from `split` on were parsed by a
                    // second thread; skip them here and take its result.
                    if self.depth == 0 && self.split.is_some_and(|(s, _)| pos >= s) {
                        let end = self.split.take().map_or(0, |x| x.1);
                        return self.skip_second_half(end);
                    }
                    if let Some(layer) = self.layer(l)? {
                        let id = layer.id;
                        let n = ids.add(graph, layer);

                        if let Some((_, first)) = ids.get(id) {
                            let label = graph[n].label();
                            let (line, _) = crate::error::line_col(self.src, first);

                            self.err(
                                Diag::new(Kind::Graph, format!("duplicate layer id {id}"))
                                    .at(self.attr_pos(pos, "id"))
                                    .layer(label)
                                    .note(format!("layer id {id} is first defined on line {line}")),
                            );
                        } else {
                            ids.insert(id, (n, pos));
                        }
                    }
                }
                Ev::Open(other) => {
                    self.err(
                        Diag::new(
                            Kind::Schema,
                            format!("unexpected <{}> inside <layers>", other.name),
                        )
                        .at(other.pos),
                    );
                    self.skip(&other)?;
                }
                Ev::Close => return Ok(()),
                Ev::Text(_) => {}
                Ev::Eof => return Err(eof(t)),
            }
        }
    }
    /// One `<layer>`. Returns `None` when it is too broken to be a node (errors recorded).
    pub(super) fn layer(&mut self, t: Tag) -> Result<Option<Layer>, Fatal> {
        let id = self.layer_id(&t);
        let name = t.get("name").unwrap_or("");
        let ty = t.get("type").unwrap_or("");
        let version = t.get("version");
        // The layer as messages name it, formatted only when a message is made.
        let who = Who { ty, name, id };
        let ok = self.check_type_version(&t, &who);
        let extra_attrs = t
            .attrs
            .iter()
            .filter(|(k, _)| !matches!(*k, "id" | "name" | "type" | "version"))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut layer = Layer::new(ty, version.unwrap_or(""), name);
        layer.id = id.unwrap_or(0);
        layer.set_extra_attrs(extra_attrs);
        let mut src = LayerSrc {
            pos: t.pos,
            data: None,
            ports: Default::default(),
            pre: Few::new(),
        };
        if !t.empty {
            self.layer_children(&t, &who, &mut layer, &mut src)?;
        }
        self.check_port_ids(&layer, &who, &src);
        if layer.is("Const") {
            self.konst(&mut layer, &who, &src);
        } else if layer.is("Parameter") {
            self.parameter(&layer, &who, &src);
        }
        self.check_boundary_ports(&layer, &who, &src);
        self.check_port_maps(&layer, &who, &src);
        self.check_bodies(&layer, &who, &src);
        // A layer with schema errors stays in the graph (the read fails anyway), so its edges
        // are not reported again as dangling.
        let _ = ok;
        if id.is_none() {
            return Ok(None);
        }
        layer.origin = Some((self.map_base + self.map.len()) as u32);
        self.map.push(&src);
        Ok(Some(layer))
    }
    /// A `<layer>`'s id attribute (`None` with an error when it is missing or malformed).
    fn layer_id(&mut self, t: &Tag) -> Option<u64> {
        match t.get("id") {
            Some(v) => match v.trim().parse::<u64>() {
                Ok(i) => Some(i),
                Err(_) => {
                    self.err(
                        Diag::new(
                            Kind::Schema,
                            format!("layer id '{v}' is not a non-negative integer"),
                        )
                        .at(self.attr_pos(t.pos, "id")),
                    );
                    None
                }
            },
            None => {
                self.err(Diag::new(Kind::Schema, "<layer> has no 'id' attribute").at(t.pos));
                None
            }
        }
    }
    /// Whether a `<layer>` has a type and a known opset version (errors recorded).
    fn check_type_version(&mut self, t: &Tag, who: &Who) -> bool {
        let mut ok = true;
        if who.ty.is_empty() {
            self.err(
                Diag::new(Kind::Schema, "<layer> has no 'type' attribute")
                    .at(t.pos)
                    .layer(who),
            );
            ok = false;
        }
        match t.get("version") {
            None => {
                self.err(
                    Diag::new(
                        Kind::Schema,
                        "<layer> has no 'version' attribute (e.g. version=\"opset1\")",
                    )
                    .at(t.pos)
                    .layer(who),
                );
                ok = false;
            }
            Some(v) => {
                if let Some(n) = v.strip_prefix("opset") {
                    match n.parse::<u32>() {
                        Ok(1..=17) => {}
                        _ => {
                            self.err(
                                Diag::new(
                                    Kind::Schema,
                                    format!("unknown opset '{v}': OpenVINO 2026.4 defines opset1 … opset17"),
                                )
                                .at(self.attr_pos(t.pos, "version"))
                                .layer(who),
                            );
                            ok = false;
                        }
                    }
                } else if v.is_empty() {
                    self.err(
                        Diag::new(Kind::Schema, "layer 'version' is empty")
                            .at(self.attr_pos(t.pos, "version"))
                            .layer(who),
                    );
                    ok = false;
                }
            }
        }
        ok
    }
    /// The children of a non-empty `<layer>`: `<data>`, `<rt_info>`, ports, bodies, and the
    /// other elements kept as they are (port maps, back edges …).
    fn layer_children(
        &mut self,
        t: &Tag,
        who: &Who,
        layer: &mut Layer,
        src: &mut LayerSrc,
    ) -> Result<(), Fatal> {
        // A constant's offset makes its list its own: not pooled.
        let share = !layer.is("Const");
        loop {
            if let Some((attrs, pos)) = self.fast_data(share) {
                src.data = Some(pos);
                layer.data = Some(attrs);
                continue;
            }
            if self.fast_close(t.name.as_bytes()) {
                return Ok(());
            }
            let ev = match self.fast_open(&["input", "output"]) {
                Some(c) => Ev::Open(c),
                None => self.next()?,
            };
            match ev {
                Ev::Open(c) => match c.name {
                    "data" => {
                        src.data = Some(c.pos);
                        let pairs = c.attrs.iter().map(|(k, v)| (*k, v.as_ref()));
                        layer.data = Some(Attrs::from_pairs_in(pairs, &mut self.attr_pool, share));
                        self.skip(&c)?;
                    }
                    "rt_info" => {
                        layer.rt_info = Some(match self.seen_rt_info(&c) {
                            Some(same) => same,
                            None => {
                                let start = c.pos;
                                let el = self.generic(c)?;
                                let shared = self.share_rt_info(el);
                                self.remember_rt_info(start, &shared);
                                shared
                            }
                        });
                    }
                    "input" | "output" => {
                        let is_in = c.name == "input";
                        let ports = self.ports(&c, who, src)?;
                        let list = if is_in {
                            &mut layer.inputs
                        } else {
                            &mut layer.outputs
                        };
                        if list.is_empty() {
                            // Allocated once at its size: collecting would reserve four ports
                            // and shrink, leaving a freed tail behind each list.
                            let mut v = Vec::with_capacity(ports.len());
                            v.extend(ports);
                            *list = v.into();
                        } else {
                            list.extend(ports);
                        }
                    }
                    "body" | "then_body" | "else_body" => {
                        let b = self.layer_body(&c, who)?;
                        layer.bodies.push(b);
                    }
                    _ => {
                        let el = self.generic(c)?;
                        src.pre.push(std::mem::take(&mut self.positions));
                        layer.push_pre(el);
                    }
                },
                Ev::Close => return Ok(()),
                Ev::Text(_) => {}
                Ev::Eof => return Err(eof(t)),
            }
        }
    }
    /// A subgraph body (`<body>`, `<then_body>`, `<else_body>`) of the layer `who`.
    fn layer_body(&mut self, c: &Tag, who: &Who) -> Result<Body, Fatal> {
        if self.depth >= MAX_BODY_DEPTH {
            return Err(Diag::new(
                Kind::Schema,
                format!("bodies nested deeper than {MAX_BODY_DEPTH} levels"),
            )
            .at(c.pos));
        }
        self.depth += 1;
        self.body_stack.push(format!("<{}> of {who}", c.name));
        let g = self.graph_body(c, None)?;
        self.body_stack.pop();
        self.depth -= 1;
        Ok(Body {
            tag: c.name.to_string(),
            graph: g,
        })
    }
    pub(super) fn ports(
        &mut self,
        t: &Tag,
        who: &Who,
        src: &mut LayerSrc,
    ) -> Result<SmallVec<[Port; 2]>, Fatal> {
        // Inline for the usual one or two ports: the layer's list is then allocated once, at
        // its size (a Vec grown by push reserves 4 ports and is shrunk again).
        let mut out = SmallVec::new();
        if t.empty {
            return Ok(out);
        }
        loop {
            if let Some((p, head)) = self.fast_port() {
                if let Some(port) = self.port_body(&p, head, who, src)? {
                    out.push(port);
                }
                continue;
            }
            if self.fast_close(t.name.as_bytes()) {
                return Ok(out);
            }
            match self.next()? {
                Ev::Open(p) if p.name == "port" => {
                    if let Some(port) = self.port(p, who, src)? {
                        out.push(port);
                    }
                }
                Ev::Open(other) => self.skip(&other)?,
                Ev::Close => return Ok(out),
                Ev::Text(_) => {}
                Ev::Eof => return Err(eof(t)),
            }
        }
    }
    pub(super) fn port(
        &mut self,
        t: Tag,
        who: &Who,
        src: &mut LayerSrc,
    ) -> Result<Option<Port>, Fatal> {
        let id = self.port_id(&t, who);
        let precision = match t.get("precision") {
            None => None,
            Some(p) => match ElementType::parse_precision(p) {
                Some(e) => Some(e),
                None => {
                    self.err(
                        Diag::new(Kind::ElementType, format!("unknown element type '{p}' in port precision"))
                            .at(self.attr_pos(t.pos, "precision"))
                            .layer(who)
                            .note("expected a canonical name (f32, i64, u1 …) or a legacy one (FP32, I64, BIN, BOOL …)"),
                    );
                    None
                }
            },
        };
        let names = t.get("names").map(split_names).unwrap_or_default();
        let extra_attrs = t
            .attrs
            .iter()
            .filter(|(k, _)| !matches!(*k, "id" | "precision" | "names"))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let head = PortHead {
            id,
            precision,
            names,
            extra_attrs,
        };
        self.port_body(&t, head, who, src)
    }
    /// The rest of a `<port>` whose start tag was read (by the general path or
    /// [`Parser::fast_port`]): its dims and rt_info, up to its end tag.
    pub(super) fn port_body(
        &mut self,
        t: &Tag,
        head: PortHead,
        who: &Who,
        src: &mut LayerSrc,
    ) -> Result<Option<Port>, Fatal> {
        let PortHead {
            id,
            precision,
            names,
            extra_attrs,
        } = head;
        let mut dims = Dims::new();
        let mut rt_info = None;
        if !t.empty {
            loop {
                if let Some(d) = self.fast_dim() {
                    dims.push(d);
                    continue;
                }
                if self.fast_close(b"port") {
                    break;
                }
                match self.next()? {
                    Ev::Open(c) if c.name == "dim" => {
                        if let Some(d) = self.dim(&c, who)? {
                            dims.push(d);
                        }
                    }
                    Ev::Open(c) if c.name == "rt_info" => {
                        rt_info = Some(Box::new(self.generic(c)?))
                    }
                    Ev::Open(c) => self.skip(&c)?,
                    Ev::Close => break,
                    Ev::Text(_) => {}
                    Ev::Eof => return Err(eof(t)),
                }
            }
        }
        let Some(id) = id else { return Ok(None) };
        src.push_port(id, t.pos);
        Ok(Some(
            Port {
                id,
                precision,
                shape: PartialShape::Ranked(dims),
                meta: None,
            }
            .with_meta(PortMeta {
                names,
                extra_attrs,
                rt_info,
            }),
        ))
    }
    /// A `<port>`'s id attribute (`None` with an error when it is missing or malformed).
    fn port_id(&mut self, t: &Tag, who: &Who) -> Option<u32> {
        match t.get("id").map(|v| (v, v.trim().parse::<u32>())) {
            Some((_, Ok(i))) => Some(i),
            Some((v, Err(_))) => {
                self.err(
                    Diag::new(
                        Kind::Schema,
                        format!("port id '{v}' is not a non-negative integer"),
                    )
                    .at(self.attr_pos(t.pos, "id"))
                    .layer(who),
                );
                None
            }
            None => {
                self.err(
                    Diag::new(Kind::Schema, "<port> has no 'id' attribute")
                        .at(t.pos)
                        .layer(who),
                );
                None
            }
        }
    }
    /// One `<dim>` of a port, read to its end: `None` (error recorded) when it is empty or
    /// not an integer >= -1.
    fn dim(&mut self, c: &Tag, who: &Who) -> Result<Option<Dim>, Fatal> {
        if c.empty {
            self.err(Diag::new(Kind::Schema, "empty <dim/>").at(c.pos).layer(who));
            return Ok(None);
        }
        // Usually one text event: borrowed, no allocation per dim.
        let mut text: Cow<str> = Cow::Borrowed("");
        loop {
            match self.next()? {
                Ev::Text(s) if text.is_empty() => text = s,
                Ev::Text(s) => text.to_mut().push_str(&s),
                Ev::Close => break,
                Ev::Open(x) => self.skip(&x)?,
                Ev::Eof => return Err(eof(c)),
            }
        }
        // OpenVINO's reader takes digits (and -1), not a sign: `+1` is an error there.
        let plus = text.trim().starts_with('+');
        match text.trim().parse::<i64>().ok().filter(|_| !plus).ok_or(()) {
            Ok(-1) => Ok(Some(Dim::any())),
            Ok(v) if v >= 0 => Ok(Some(Dim::known(v as u64))),
            _ => {
                self.err(
                    Diag::new(
                        Kind::Schema,
                        format!("bad dimension '{}': a port <dim> holds an integer >= -1 (-1 = dynamic)", text.trim()),
                    )
                    .at(c.pos)
                    .layer(who),
                );
                Ok(None)
            }
        }
    }
    /// The edge (from-layer, from-port, to-layer, to-port) at `pos`, or an error when a port id
    /// is past `u32`.
    fn push_edge(
        &mut self,
        [from, from_port, to, to_port]: [u64; 4],
        pos: usize,
        out: &mut Vec<RawEdge>,
    ) {
        match (u32::try_from(from_port), u32::try_from(to_port)) {
            (Ok(from_port), Ok(to_port)) => out.push(RawEdge {
                from,
                from_port,
                to,
                to_port,
                pos,
            }),
            _ => self.err(Diag::new(Kind::Graph, "edge port id out of range").at(pos)),
        }
    }
    pub(super) fn edges(&mut self, t: &Tag, out: &mut Vec<RawEdge>) -> Result<(), Fatal> {
        if t.empty {
            return Ok(());
        }
        loop {
            if let Some((vals, pos)) = self.fast_edge() {
                self.push_edge(vals, pos, out);
                continue;
            }
            match self.next()? {
                Ev::Open(e) if e.name == "edge" => {
                    let mut vals = [0u64; 4];
                    let mut ok = true;
                    for (i, k) in ["from-layer", "from-port", "to-layer", "to-port"]
                        .iter()
                        .enumerate()
                    {
                        match e.get(k).map(|v| (v, v.trim().parse::<u64>())) {
                            Some((_, Ok(v))) => vals[i] = v,
                            Some((v, Err(_))) => {
                                self.err(
                                    Diag::new(
                                        Kind::Graph,
                                        format!("edge {k} '{v}' is not a non-negative integer"),
                                    )
                                    .at(self.attr_pos(e.pos, k)),
                                );
                                ok = false;
                            }
                            None => {
                                self.err(
                                    Diag::new(Kind::Graph, format!("<edge> has no '{k}'"))
                                        .at(e.pos),
                                );
                                ok = false;
                            }
                        }
                    }
                    if ok {
                        self.push_edge(vals, e.pos, out);
                    }
                    self.skip(&e)?;
                }
                Ev::Open(other) => self.skip(&other)?,
                Ev::Close => return Ok(()),
                Ev::Text(_) => {}
                Ev::Eof => return Err(eof(t)),
            }
        }
    }
}

/// What a `<port>` start tag says: its id (`None` when it is missing or malformed, reported),
/// element type, tensor names and other attributes.
pub(super) struct PortHead {
    pub(super) id: Option<u32>,
    pub(super) precision: Option<ElementType>,
    pub(super) names: Vec<String>,
    pub(super) extra_attrs: Vec<(String, String)>,
}
