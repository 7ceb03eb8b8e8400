//! IR writer: canonical XML (layer ids renumbered in topological order, edges sorted, tensor
//! names sorted) and a `.bin` holding each distinct constant buffer once, unpadded, as OpenVINO's
//! `ConstantWriter` does. Same input → byte-identical output.

use crate::error::Error;
use crate::files::TempOut;
use crate::ir::*;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

pub use super::bin_copy::BinCopy;
use super::text::{attrs_inline, esc, esc_text, indent, push_attr, push_u64};

/// Buffers already written under one (hash, length) key: (offset, bytes). Nearly always
/// one, kept inline (a 100k-layer model has 13,000 distinct constants; a `Vec` each, with
/// room for four, was 1.5 MB of the writer's peak).
type Written<'a> = smallvec::SmallVec<[(u64, &'a [u8]); 1]>;

/// Copies `len` bytes at `offset` of the input .bin to the end of the output.
pub type RangeCopier<W> = fn(&mut W, &std::fs::File, u64, u64) -> io::Result<()>;

/// Graphs with at least this many layers (and no bodies) are formatted on two threads.
pub const PARALLEL_LAYERS: usize = 20_000;
/// Layers per chunk of the two-thread writer.
/// 512: a chunk of text is ~256 kB, and three of them are alive at once (the helper's, the
/// one waiting in the channel, the one being written).
const PARALLEL_CHUNK: usize = 512;

/// The ports of the top graph's layers handed to the writer as it goes (`infer-shapes -o`
/// infers on one thread while the writer formats on another), in the order layers are written
/// ([`Graph::ordered`]).
pub trait PortFeed: Send {
    /// What to write into the ports of layer `n` (as [`crate::passes::record::apply`] would).
    fn next(&mut self, n: NodeId) -> Result<PortFacts, String>;
    /// The top graph is written: whether the files may be put in place (`Err`: they are not).
    fn finish(&mut self) -> Result<(), String>;
}

/// Constants at least this big are copied file-to-file (never read through the mapping) and
/// shared by identity of their input range rather than by content.
pub const BIG_CONST: u64 = 64 << 10;

/// Where constant bytes go: appends each distinct buffer once and returns its offset.
pub struct BinSink<'a, W: Write> {
    out: W,
    len: u64,
    /// content hash → (offset, bytes) of buffers already written, for confirmation by compare.
    seen: HashMap<(u64, usize), Written<'a>>,
    /// Range copies from the input .bin, when writing to a file.
    copy: Option<(&'a std::fs::File, RangeCopier<W>)>,
    /// Output offset of each big input range already placed.
    ranges: HashMap<(u64, u64), u64>,
    /// A run of input bytes not yet copied: (input offset, length); output is at `len - length`.
    pending: Option<(u64, u64)>,
    /// The output .bin already holds the input .bin's first `prefix` bytes at the same
    /// offsets ([`BinCopy`]): constants inside that range are referenced where they are.
    prefix: u64,
    /// The mapped input .bin, told how much of it is read through the mapping (hashed for
    /// dedup) so it can release the pages.
    mapped: Option<&'a Weights>,
}

impl<'a, W: Write> BinSink<'a, W> {
    pub fn new(out: W) -> Self {
        BinSink {
            out,
            len: 0,
            seen: HashMap::new(),
            copy: None,
            ranges: HashMap::new(),
            pending: None,
            prefix: 0,
            mapped: None,
        }
    }

    /// A sink whose output follows a copy of the input .bin's first `prefix` bytes.
    fn after_prefix(out: W, prefix: u64) -> Self {
        let mut s = BinSink::new(out);
        s.len = prefix;
        s.prefix = prefix;
        s
    }

    /// A sink appending after `len` bytes a pass already wrote (constants it placed there are
    /// [`ConstData::Out`]); nothing of the input is referenced in place.
    fn appending(out: W, len: u64) -> Self {
        let mut s = BinSink::new(out);
        s.len = len;
        s
    }

    /// Account the input bytes read through `w`'s mapping (see [`Weights::note_read`]).
    pub fn reading(mut self, w: Option<&'a Weights>) -> Self {
        self.mapped = w;
        self
    }

    /// Copy big constants from `input` with `copier` instead of through memory.
    pub fn with_range_copy(mut self, input: &'a std::fs::File, copier: RangeCopier<W>) -> Self {
        self.copy = Some((input, copier));
        self
    }

    fn flush_pending(&mut self) -> io::Result<()> {
        if let (Some((off, n)), Some((input, copier))) = (self.pending.take(), self.copy) {
            copier(&mut self.out, input, off, n)?;
        }
        Ok(())
    }

    /// Write `bytes` unless an identical buffer was written before; return its offset.
    pub fn put(&mut self, bytes: &'a [u8]) -> io::Result<u64> {
        let key = (hash_bytes(bytes), bytes.len());
        if let Some(list) = self.seen.get(&key) {
            if let Some(&(off, _)) = list.iter().find(|(_, b)| *b == bytes) {
                return Ok(off);
            }
        }
        self.flush_pending()?;
        let off = self.len;
        self.out.write_all(bytes)?;
        self.len += bytes.len() as u64;
        self.seen.entry(key).or_default().push((off, bytes));
        Ok(off)
    }

    /// Place a constant that lives at `offset..offset+size` of the input .bin (`bytes` is that
    /// range). Big ones are copied file-to-file, contiguous runs in one go.
    pub fn put_range(&mut self, offset: u64, size: u64, bytes: &'a [u8]) -> io::Result<u64> {
        if offset
            .checked_add(size)
            .is_some_and(|end| end <= self.prefix)
        {
            return Ok(offset);
        }
        if self.copy.is_none() || size < BIG_CONST {
            if let Some(w) = self.mapped {
                w.note_read(bytes.len()); // hashed through the mapping
            }
            return self.put(bytes);
        }
        if let Some(&o) = self.ranges.get(&(offset, size)) {
            return Ok(o);
        }
        let out_off = self.len;
        match &mut self.pending {
            Some((p_off, p_len)) if *p_off + *p_len == offset => *p_len += size,
            _ => {
                self.flush_pending()?;
                self.pending = Some((offset, size));
            }
        }
        self.len += size;
        self.ranges.insert((offset, size), out_off);
        Ok(out_off)
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Finish pending copies and hand back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_pending()?;
        Ok(self.out)
    }
}

/// Range copier for a buffered file: flush, then let the kernel copy (copy_file_range).
pub fn copy_range_to_file(
    w: &mut io::BufWriter<std::fs::File>,
    src: &std::fs::File,
    offset: u64,
    len: u64,
) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    w.flush()?;
    let mut src = src;
    src.seek(SeekFrom::Start(offset))?;
    let copied = io::copy(&mut src.take(len), w.get_mut())?;
    if copied != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the input .bin ended after {copied} of {len} bytes at offset {offset}"),
        ));
    }
    Ok(())
}

pub use crate::ir::hash_bytes;

/// Write the model as XML into `xml` and its constants into `bin`.
pub fn write_to<'a, W: Write>(
    model: &'a Model,
    xml: &mut String,
    bin: &mut BinSink<'a, W>,
) -> Result<(), String> {
    write_impl(model, xml, bin, None, (usize::MAX, PARALLEL_CHUNK), None)
}

/// Write the model as XML to `out` (streamed: the text is flushed every megabyte) and its
/// constants into `bin`.
pub fn write_stream<'a, W: Write>(
    model: &'a Model,
    out: &mut dyn Write,
    bin: &mut BinSink<'a, W>,
) -> Result<(), String> {
    write_fed(model, out, bin, None)
}

/// [`write_stream`], the top graph's ports taken from `feed` when given.
fn write_fed<'a, W: Write>(
    model: &'a Model,
    out: &mut dyn Write,
    bin: &mut BinSink<'a, W>,
    feed: Option<&mut (dyn PortFeed + 'static)>,
) -> Result<(), String> {
    let mut xml = String::with_capacity(2 << 20);
    let parallel = (PARALLEL_LAYERS, PARALLEL_CHUNK);
    write_impl(model, &mut xml, bin, Some(out), parallel, feed)
}

/// [`write_stream`] with the two-thread formatting thresholds given (tests).
#[doc(hidden)]
pub fn write_stream_with<'a, W: Write>(
    model: &'a Model,
    out: &mut dyn Write,
    bin: &mut BinSink<'a, W>,
    parallel: (usize, usize),
) -> Result<(), String> {
    let mut xml = String::with_capacity(2 << 20);
    write_impl(model, &mut xml, bin, Some(out), parallel, None)
}

fn write_impl<'a, 'm, W: Write>(
    model: &'a Model,
    xml: &'m mut String,
    bin: &'m mut BinSink<'a, W>,
    mut out: Option<&'m mut dyn Write>,
    parallel: (usize, usize),
    feed: Option<&'m mut (dyn PortFeed + 'static)>,
) -> Result<(), String> {
    xml.push_str("<?xml version=\"1.0\"?>\n");
    let _ = writeln!(
        xml,
        "<net name=\"{}\" version=\"{}\">",
        esc(&model.name),
        model.version
    );
    let mut w = Writer {
        model,
        xml,
        bin,
        out: out.take(),
        parallel,
        feed,
    };
    w.graph(&model.graph, 1)?;
    for e in &model.extra {
        w.element(e, 1);
    }
    w.xml.push_str("</net>\n");
    w.flush(0)?;
    Ok(())
}

struct Writer<'a, 'm, W: Write> {
    model: &'a Model,
    xml: &'m mut String,
    bin: &'m mut BinSink<'a, W>,
    /// When streaming: where the XML text goes once the buffer holds `limit` bytes.
    out: Option<&'m mut dyn Write>,
    /// Two-thread formatting: (minimum layers of a graph, layers per chunk).
    parallel: (usize, usize),
    /// The top graph's ports, when they come from a [`PortFeed`].
    feed: Option<&'m mut (dyn PortFeed + 'static)>,
}

impl<W: Write> Writer<'_, '_, W> {
    /// Move buffered XML to the output once it holds more than `limit` bytes.
    fn flush(&mut self, limit: usize) -> Result<(), String> {
        if let Some(out) = self.out.as_mut() {
            if self.xml.len() > limit {
                out.write_all(self.xml.as_bytes())
                    .map_err(|e| format!("writing XML: {e}"))?;
                self.xml.clear();
            }
        }
        Ok(())
    }
}

impl<'a, W: Write> Writer<'a, '_, W> {
    /// The layers and edges of a big graph without bodies, formatted on two threads: the
    /// constants are placed first (in order, so the .bin is the same as a one-thread write),
    /// then chunks of layers and after them chunks of edges (by producer) alternate between
    /// this thread and a helper, and are written in order. Memory stays bounded: at most two
    /// chunks wait. `depth`: the `<layers>` element's.
    fn layers_parallel(
        &mut self,
        g: &'a Graph,
        order: &[NodeId],
        new_id: &[u32],
        depth: usize,
    ) -> Result<(), String> {
        let chunk = self.parallel.1.max(1);
        let chunks: Vec<&[NodeId]> = order.chunks(chunk).collect();
        // The constants' places, in order (only layers with constant data have one), and
        // where each chunk's first is: 16 bytes a constant, not 24 a layer.
        let mut places: Vec<(u64, u64)> = Vec::new();
        let mut first_place: Vec<usize> = Vec::with_capacity(chunks.len());
        for c in &chunks {
            first_place.push(places.len());
            for &n in c.iter() {
                places.extend(self.place(&g[n])?);
            }
        }
        // The place of each layer of chunk `k` (`Some` exactly where `place` gave one).
        let (places, first_place) = (&places, &first_place);
        let placed = move |k: usize| {
            let mut next = first_place[k];
            move |l: &Layer| {
                l.konst.as_ref().map(|_| {
                    next += 1;
                    places[next - 1]
                })
            }
        };
        // Job `k`: chunk `k` of the layers, then chunk `k - chunks.len()` of the edges.
        let jobs = 2 * chunks.len();
        let model = self.model;
        std::thread::scope(|s| -> Result<(), String> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<String, String>>(1);
            let (chunks2, placed2) = (&chunks, &placed);
            s.spawn(move || {
                let mut sink = BinSink::new(io::sink());
                for k in (1..jobs).step_by(2) {
                    let mut xml = String::with_capacity(chunk * 512);
                    let r = match chunks2.get(k) {
                        Some(c) => {
                            let mut w = Writer {
                                model,
                                xml: &mut xml,
                                bin: &mut sink,
                                out: None,
                                parallel: (usize::MAX, chunk),
                                feed: None,
                            };
                            let mut place = placed2(k);
                            c.iter().try_for_each(|&n| {
                                let p = place(&g[n]);
                                w.layer(&g[n], new_id[n.index()] as usize, depth + 1, Some(p), None)
                            })
                        }
                        None => {
                            let e = k - chunks2.len();
                            edges(&mut xml, g, chunks2[e], e * chunk, new_id, depth + 1);
                            Ok(())
                        }
                    };
                    if tx.send(r.map(|()| xml)).is_err() {
                        return;
                    }
                }
            });
            for k in 0..jobs {
                if k == chunks.len() {
                    between_layers_and_edges(self.xml, depth);
                }
                if k % 2 == 0 {
                    if let Some(c) = chunks.get(k) {
                        let mut place = placed(k);
                        for &n in c.iter() {
                            let p = place(&g[n]);
                            let id = new_id[n.index()] as usize;
                            self.layer(&g[n], id, depth + 1, Some(p), None)?;
                        }
                    } else {
                        let e = k - chunks.len();
                        edges(self.xml, g, chunks[e], e * chunk, new_id, depth + 1);
                    }
                } else {
                    let text = rx
                        .recv()
                        .map_err(|_| "the writer thread stopped".to_string())??;
                    self.flush(0)?;
                    if let Some(out) = self.out.as_mut() {
                        out.write_all(text.as_bytes())
                            .map_err(|e| format!("writing XML: {e}"))?;
                    }
                }
                self.flush(1 << 20)?;
            }
            Ok(())
        })
    }

    /// `<layers>`, `<edges>`, `<rt_info>` of a graph at indentation `depth`.
    fn graph(&mut self, g: &'a Graph, depth: usize) -> Result<(), String> {
        let order = g
            .ordered()
            .ok_or_else(|| "cannot write a graph with a cycle".to_string())?;
        // Written ids as u32 (with `order`, the writer's share of a big model's peak; the
        // edges are written from the graph's own lists, no table of them).
        let mut new_id: Vec<u32> = vec![u32::MAX; g.node_bound()];
        for (i, &n) in order.iter().enumerate() {
            new_id[n.index()] = i as u32;
        }
        indent(self.xml, depth);
        self.xml.push_str("<layers>\n");
        // Only the top graph's ports come from the feed (bodies are written from their own).
        let mut feed = self.feed.take();
        let parallel = self.out.is_some()
            && feed.is_none()
            && order.len() >= self.parallel.0.max(1)
            && order.iter().all(|&n| g[n].bodies.is_empty());
        if parallel {
            self.layers_parallel(g, &order, &new_id, depth)?;
        } else {
            for &n in &order {
                let ports = feed.as_mut().map(|f| f.next(n)).transpose()?;
                let id = new_id[n.index()] as usize;
                self.layer(&g[n], id, depth + 1, None, ports.as_ref())?;
                self.flush(1 << 20)?;
            }
            between_layers_and_edges(self.xml, depth);
            let step = self.parallel.1.max(1);
            for (k, c) in order.chunks(step).enumerate() {
                edges(self.xml, g, c, k * step, &new_id, depth + 1);
                self.flush(1 << 20)?;
            }
        }
        indent(self.xml, depth);
        self.xml.push_str("</edges>\n");
        if let Some(rt) = &g.rt_info {
            self.element(rt, depth);
        }
        // The edges need no facts: written while inference finishes, before it says whether
        // the files may be put in place.
        if let Some(f) = feed {
            f.finish()?;
        }
        Ok(())
    }

    /// Put a Const's bytes into the .bin: (offset, size) there; `None` for other layers.
    fn place(&mut self, l: &'a Layer) -> Result<Option<(u64, u64)>, String> {
        let Some(k) = &l.konst else { return Ok(None) };
        if let ConstData::Out { offset, size } = k {
            return Ok(Some((*offset, *size)));
        }
        let bytes = self
            .model
            .const_bytes(k)
            .ok_or_else(|| format!("constant data of {} is unavailable", l.label()))?;
        let off = match k {
            ConstData::Bin { offset, size } => self.bin.put_range(*offset, *size, bytes),
            ConstData::Owned(_) => self.bin.put(bytes),
            ConstData::Out { offset, .. } => Ok(*offset),
        }
        .map_err(|e| format!("writing weights: {e}"))?;
        Ok(Some((off, bytes.len() as u64)))
    }

    /// One `<layer>`. `placed`: its constant's place in the .bin when already put there
    /// (`Some`), else it is put there now. `ports`: what to write into its ports instead of
    /// their own precision and shape, where `Some`.
    fn layer(
        &mut self,
        l: &'a Layer,
        id: usize,
        depth: usize,
        placed: Option<Option<(u64, u64)>>,
        ports: Option<&PortFacts>,
    ) -> Result<(), String> {
        indent(self.xml, depth);
        self.xml.push_str("<layer id=\"");
        push_u64(self.xml, id as u64);
        self.xml.push_str("\" name=\"");
        self.xml.push_str(&esc(&l.name));
        self.xml.push_str("\" type=\"");
        self.xml.push_str(&esc(&l.ty));
        self.xml.push_str("\" version=\"");
        self.xml.push_str(&esc(&l.version));
        self.xml.push('"');
        attrs_inline(self.xml, l.extra_attrs());
        self.xml.push_str(">\n");

        // Bodies are renumbered on their own; port maps refer to body ids, so remap them.
        let body_maps: Vec<(String, HashMap<u64, usize>)> = l
            .bodies
            .iter()
            .map(|b| {
                let order = b.graph.ordered().unwrap_or_default();
                let m = order
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| (b.graph[n].id, i))
                    .collect();
                (b.tag.clone(), m)
            })
            .collect();
        for el in l.pre() {
            let want = match el.name.as_str() {
                "then_port_map" => "then_body",
                "else_port_map" => "else_body",
                _ => "body",
            };
            match body_maps.iter().find(|(t, _)| t == want) {
                Some((_, m)) => {
                    let remapped = remap_ids(el, m);
                    self.element(&remapped, depth + 1);
                }
                None => self.element(el, depth + 1),
            }
        }

        if let Some(data) = &l.data {
            self.data(l, data, placed, depth + 1)?;
        }

        if let Some(rt) = &l.rt_info {
            self.element(rt, depth + 1);
        }
        let fed = |k: usize| ports.and_then(|f| f.get(k)).and_then(Option::as_ref);
        let sides = [
            ("input", &l.inputs[..], 0),
            ("output", &l.outputs[..], l.inputs.len()),
        ];
        for (tag, side, first) in sides {
            if side.is_empty() {
                continue;
            }
            indent(self.xml, depth + 1);
            self.xml.push('<');
            self.xml.push_str(tag);
            self.xml.push_str(">\n");
            for (k, p) in side.iter().enumerate() {
                self.port(p, depth + 2, fed(first + k));
            }
            indent(self.xml, depth + 1);
            self.xml.push_str("</");
            self.xml.push_str(tag);
            self.xml.push_str(">\n");
        }
        for b in &l.bodies {
            indent(self.xml, depth + 1);
            let _ = writeln!(self.xml, "<{}>", b.tag);
            self.graph(&b.graph, depth + 2)?;
            indent(self.xml, depth + 1);
            let _ = writeln!(self.xml, "</{}>", b.tag);
        }
        indent(self.xml, depth);
        self.xml.push_str("</layer>\n");
        Ok(())
    }

    /// A layer's `<data>`; a Const's offset and size are where its bytes land in the new .bin
    /// (`placed`, or placed now).
    fn data(
        &mut self,
        l: &'a Layer,
        data: &Attrs,
        placed: Option<Option<(u64, u64)>>,
        depth: usize,
    ) -> Result<(), String> {
        let placed = match placed {
            Some(p) => p,
            None => self.place(l)?,
        };
        indent(self.xml, depth);
        self.xml.push_str("<data");
        for (k, v) in data.iter() {
            // Numbers written in place (no string made for each of a model's constants).
            let number = match (k, placed) {
                ("offset", Some((o, _))) => Some(o),
                ("size", Some((_, n))) => Some(n),
                _ => None,
            };
            match number {
                Some(x) => {
                    self.xml.push(' ');
                    self.xml.push_str(k);
                    self.xml.push_str("=\"");
                    push_u64(self.xml, x);
                    self.xml.push('"');
                }
                None => push_attr(self.xml, k, v),
            }
        }
        self.xml.push_str(" />\n");
        Ok(())
    }

    /// A `<port>`; `fed`: its precision and shape, instead of the port's own.
    fn port(&mut self, p: &Port, depth: usize, fed: Option<&(ElementType, PartialShape)>) {
        indent(self.xml, depth);
        self.xml.push_str("<port id=\"");
        push_u64(self.xml, p.id as u64);
        self.xml.push('"');
        let (precision, shape) = fed.map_or((p.precision, &p.shape), |(e, s)| (Some(*e), s));
        if let Some(e) = precision {
            self.xml.push_str(" precision=\"");
            self.xml.push_str(e.precision_name());
            self.xml.push('"');
        }
        if !p.names().is_empty() {
            let mut names: Vec<&str> = p.names().iter().map(String::as_str).collect();
            names.sort_unstable();
            names.dedup();
            let joined: Vec<String> = names.iter().map(|n| n.replace(',', "\\,")).collect();
            let _ = write!(self.xml, " names=\"{}\"", esc(&joined.join(",")));
        }
        attrs_inline(self.xml, p.extra_attrs());
        let dims = shape.dims().unwrap_or(&[]);
        if dims.is_empty() && p.rt_info().is_none() {
            self.xml.push_str(" />\n");
            return;
        }
        self.xml.push_str(">\n");
        for d in dims {
            indent(self.xml, depth + 1);
            match d.get() {
                Some(v) => {
                    self.xml.push_str("<dim>");
                    push_u64(self.xml, v);
                    self.xml.push_str("</dim>\n");
                }
                None => self.xml.push_str("<dim>-1</dim>\n"),
            }
        }
        if let Some(rt) = p.rt_info() {
            self.element(rt, depth + 1);
        }
        indent(self.xml, depth);
        self.xml.push_str("</port>\n");
    }

    /// A verbatim element (iterative, so deep nesting cannot overflow the stack).
    fn element(&mut self, el: &XmlElement, depth: usize) {
        enum Step<'e> {
            Open(&'e XmlElement, usize),
            Close(&'e XmlElement, usize),
        }
        let mut stack = vec![Step::Open(el, depth)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Open(e, d) => {
                    indent(self.xml, d);
                    self.xml.push('<');
                    self.xml.push_str(&e.name);
                    attrs_inline(self.xml, &e.attrs);
                    match (&e.text, e.children.is_empty()) {
                        (None, true) => self.xml.push_str(" />\n"),
                        (Some(t), true) => {
                            let _ = writeln!(self.xml, ">{}</{}>", esc_text(t), e.name);
                        }
                        (text, false) => {
                            self.xml.push_str(">\n");
                            if let Some(t) = text {
                                indent(self.xml, d + 1);
                                let _ = writeln!(self.xml, "{}", esc_text(t));
                            }
                            stack.push(Step::Close(e, d));
                            for c in e.children.iter().rev() {
                                stack.push(Step::Open(c, d + 1));
                            }
                        }
                    }
                }
                Step::Close(e, d) => {
                    indent(self.xml, d);
                    let _ = writeln!(self.xml, "</{}>", e.name);
                }
            }
        }
    }
}

/// `</layers>` and `<edges>` at indentation `depth`.
fn between_layers_and_edges(xml: &mut String, depth: usize) {
    indent(xml, depth);
    xml.push_str("</layers>\n");
    indent(xml, depth);
    xml.push_str("<edges>\n");
}

/// The `<edge>`s from `producers`, the layers of the written order from position `first` on,
/// sorted by (from-layer, from-port, to-layer, to-port) in the new ids: producers in order
/// (their new ids ascending), each one's few edges sorted, instead of one sort of every edge
/// (a 100k-layer model's edges: 22M instructions of the writer). Written from the graph's own
/// lists, no table of them.
fn edges(
    xml: &mut String,
    g: &Graph,
    producers: &[NodeId],
    first: usize,
    new_id: &[u32],
    depth: usize,
) {
    let mut out: Vec<(u32, u32, u32)> = Vec::new();
    for (a, &n) in producers.iter().enumerate() {
        out.clear();
        out.extend(
            g.links_from(n)
                .map(|k| (k.edge.from_port, new_id[k.to.index()], k.edge.to_port)),
        );
        out.sort_unstable();
        for &(ap, b, bp) in &out {
            indent(xml, depth);
            xml.push_str("<edge from-layer=\"");
            push_u64(xml, (first + a) as u64);
            xml.push_str("\" from-port=\"");
            push_u64(xml, ap as u64);
            xml.push_str("\" to-layer=\"");
            push_u64(xml, b as u64);
            xml.push_str("\" to-port=\"");
            push_u64(xml, bp as u64);
            xml.push_str("\" />\n");
        }
    }
}

/// Rewrite body layer ids in a port map / back_edges element.
fn remap_ids(el: &XmlElement, m: &HashMap<u64, usize>) -> XmlElement {
    let mut out = el.clone();
    for c in &mut out.children {
        for (k, v) in &mut c.attrs {
            if matches!(k.as_str(), "internal_layer_id" | "from-layer" | "to-layer") {
                if let Some(n) = v.trim().parse::<u64>().ok().and_then(|i| m.get(&i)) {
                    *v = n.to_string();
                }
            }
        }
    }
    out
}

/// `irc fold`: input .bin files at least this big are copied whole to the output's temporary
/// .bin while irc reads, infers and folds (one kernel copy, like `cp`); smaller ones are written
/// compactly, equal constants once. `irc infer-shapes -o` changes no constant and always
/// copies (threshold 0), so its .bin is the input's, byte for byte. The environment variable
/// `IRC_BIN_COPY_MIN` (bytes) overrides both.
pub const BIN_COPY_MIN: u64 = 4 << 20;

/// The early whole-file copy is kept when constants still reference at least this share of the
/// input .bin (folding rarely drops weights); otherwise the .bin is written compactly.
const BIN_COPY_LIVE: f64 = 0.99;

/// Bytes of the input .bin that constants of `g` (and its bodies) reference, overlaps counted
/// once.
fn live_bin_bytes(g: &Graph, ranges: &mut Vec<(u64, u64)>) {
    for l in g.layers() {
        if let Some(ConstData::Bin { offset, size }) = &l.konst {
            ranges.push((*offset, offset.saturating_add(*size)));
        }
        for b in &l.bodies {
            live_bin_bytes(&b.graph, ranges);
        }
    }
}

fn merged_len(mut ranges: Vec<(u64, u64)>) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut end) = (0u64, 0u64);
    for (a, b) in ranges {
        let a = a.max(end);
        if b > a {
            total += b - a;
            end = b;
        }
    }
    total
}

/// The XML to a temporary file for `out`, constants into `sink`.
fn write_xml_file<'a, W: Write>(
    model: &'a Model,
    out: &Path,
    sink: &mut BinSink<'a, W>,
    feed: Option<&mut (dyn PortFeed + 'static)>,
) -> Result<TempOut, String> {
    let tmp = TempOut::create(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut xw = io::BufWriter::with_capacity(1 << 20, tmp.file());
    write_fed(model, &mut xw, sink, feed)?;
    xw.flush()
        .map_err(|e| format!("writing {}: {e}", out.display()))?;
    drop(xw);
    Ok(tmp)
}

/// Both files are complete: make them durable-in-order and put them in place, the .bin first.
/// A check of the finished files (`.xml`, `.bin`, read by their temporary names) before they
/// are put in place: an error leaves nothing behind (`fold --verify`).
pub type Check<'a> = &'a dyn Fn(&Path, &Path) -> Result<(), String>;

fn finish_pair(mut bin: TempOut, mut xml: TempOut, check: Option<Check>) -> Result<(), String> {
    crate::files::stall("xml-written");
    if let Some(check) = check {
        let x = xml.readable_path().map_err(|e| e.to_string())?;
        let b = bin.readable_path().map_err(|e| e.to_string())?;
        check(&x, &b)?;
    }
    crate::files::commit_pair(bin, xml)
}

/// Write `out.xml` and `out.bin` atomically: both are written to unnamed (or fresh hidden)
/// files in the target directory and put in place only when both are complete, the `.bin`
/// first (see [`crate::files`]). On error or a signal nothing is left behind. `out_xml` must
/// end in `.xml`. Returns the number of bytes in the written .bin.
pub fn write_files(model: &Model, out_xml: &Path) -> Result<u64, Error> {
    write_files_with(model, out_xml, None, None)
}

/// [`write_files`], building on an early copy of the input .bin when one was started.
pub fn write_files_with(
    model: &Model,
    out_xml: &Path,
    copy: Option<BinCopy>,
    check: Option<Check>,
) -> Result<u64, Error> {
    write_files_impl(model, out_xml, copy, check, None)
}

/// [`write_files_with`], the top graph's ports taken from `feed` (see [`PortFeed`]).
pub fn write_files_fed(
    model: &Model,
    out_xml: &Path,
    copy: Option<BinCopy>,
    feed: &mut (dyn PortFeed + 'static),
) -> Result<u64, Error> {
    write_files_impl(model, out_xml, copy, None, Some(feed))
}

fn write_files_impl(
    model: &Model,
    out_xml: &Path,
    copy: Option<BinCopy>,
    check: Option<Check>,
    feed: Option<&mut (dyn PortFeed + 'static)>,
) -> Result<u64, Error> {
    let label = out_xml.display().to_string();
    let Some(out_bin) = crate::files::bin_of_output(out_xml) else {
        return Err(Error::io(
            label,
            "an output must be named NAME.xml (its weights go to NAME.bin)".to_string(),
        ));
    };
    write_pair(model, out_xml, &out_bin, copy, check, feed).map_err(|msg| Error::io(label, msg))
}

/// Write `out.xml` and finish `out.bin` of which a pass already wrote the first `prefix` bytes
/// into `bin` (its constants there are [`ConstData::Out`]): the model's other constants are
/// appended, then both files are put in place as [`write_files`] does.
pub fn write_files_after(
    model: &Model,
    out_xml: &Path,
    bin: TempOut,
    prefix: u64,
) -> Result<u64, Error> {
    let label = out_xml.display().to_string();
    let out_bin = crate::files::bin_of_output(out_xml).unwrap_or_default();
    let werr = |e: io::Error| format!("writing {}: {e}", out_bin.display());
    write_compact(model, out_xml, bin, prefix, None, &werr, None)
        .map_err(|msg| Error::io(label, msg))
}

/// Write `model`'s constants into `bin` after its first `prefix` bytes (written already, the
/// file positioned after them), its XML to `out_xml`, and put both in place. Returns the
/// `.bin`'s length.
fn write_compact(
    model: &Model,
    out_xml: &Path,
    bin: TempOut,
    prefix: u64,
    check: Option<Check>,
    werr: &dyn Fn(io::Error) -> String,
    feed: Option<&mut (dyn PortFeed + 'static)>,
) -> Result<u64, String> {
    let file = bin.file().try_clone().map_err(werr)?;
    let mut sink = BinSink::appending(io::BufWriter::with_capacity(1 << 20, file), prefix)
        .reading(model.weights.as_deref());
    if let Some(input) = model.weights.as_ref().and_then(|w| w.file()) {
        sink = sink.with_range_copy(input, copy_range_to_file);
    }
    let xml = write_xml_file(model, out_xml, &mut sink, feed)?;
    let bin_len = sink.len();
    let mut bw = sink.finish().map_err(werr)?;
    bw.flush().map_err(werr)?;
    drop(bw);
    crate::files::stall("bin-written");
    finish_pair(bin, xml, check)?;
    Ok(bin_len)
}

fn write_pair(
    model: &Model,
    out_xml: &Path,
    out_bin: &Path,
    copy: Option<BinCopy>,
    check: Option<Check>,
    feed: Option<&mut (dyn PortFeed + 'static)>,
) -> Result<u64, String> {
    let input = model
        .weights
        .as_ref()
        .map(|w| w.path().display().to_string());
    let werr = |e: io::Error| match (&input, e.kind()) {
        (Some(p), io::ErrorKind::UnexpectedEof) => {
            format!("{p}: the file shrank while irc read it ({e}); nothing was written")
        }
        _ => format!("writing {}: {e}", out_bin.display()),
    };
    // The copy must be of the .bin the model was read with (same length).
    let copy = copy.filter(|c| model.weights.as_ref().map(|w| w.len() as u64) == Some(c.len));
    if let Some(mut copy) = copy {
        let mut ranges = Vec::new();
        live_bin_bytes(&model.graph, &mut ranges);
        if merged_len(ranges) as f64 >= BIN_COPY_LIVE * copy.len as f64 {
            // Keep the copy: constants stay where they are, new ones are appended.
            let mut sink =
                BinSink::after_prefix(Vec::new(), copy.len).reading(model.weights.as_deref());
            let xml = write_xml_file(model, out_xml, &mut sink, feed)?;
            let bin_len = sink.len();
            let tail = sink.finish().map_err(werr)?;
            // The XML was written while the copy may still have been running; the copy
            // thread wrote through a clone of the descriptor, so this one is at the end.
            copy.join()?;
            let bin = copy.tmp.take().ok_or("copying the weights: no output")?;
            bin.file().write_all(&tail).map_err(werr)?;
            crate::files::stall("bin-written");
            finish_pair(bin, xml, check)?;
            return Ok(bin_len);
        }
        // Too much of the input is unused now: write compactly (the copy is stopped and
        // removed when `copy` is dropped here).
    }

    let bin = TempOut::create(out_bin).map_err(werr)?;
    write_compact(model, out_xml, bin, 0, check, &werr, feed)
}
