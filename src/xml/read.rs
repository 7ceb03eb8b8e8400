//! IR reader: quick-xml pull parser → [`Model`] + [`SourceMap`], validating as it goes and
//! collecting every diagnostic it can (not just the first).

use super::{LayerSrc, SourceMap};
use crate::error::{Diag, Error, Kind};
use crate::ir::*;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Nesting limit for bodies of If/Loop/TensorIterator (guards the recursive descent).
const MAX_BODY_DEPTH: usize = 64;
/// Nesting limit for verbatim elements (rt_info, port maps): deeper trees would make the
/// pretty-printed output quadratic in size.
const MAX_ELEMENT_DEPTH: usize = 256;

/// What the reader returns: the model, byte positions of its layers, and the source text.
pub struct Parsed {
    pub model: Model,
    pub source_map: SourceMap,
    /// The source text, when the caller kept it (`read_str`); `read_file` drops it after a
    /// successful read (a big model's XML is large) and re-reads the file to render an error.
    pub source: Option<Arc<str>>,
    pub path: String,
}

impl Parsed {
    /// An error at a layer's position in this file.
    pub fn error_at(&self, layer: &Layer, kind: Kind, msg: impl Into<String>) -> Diag {
        Diag::new(kind, msg)
            .at(self.source_map.layer_pos(layer))
            .layer(layer.label())
    }
    pub fn into_error(&self, diags: Vec<Diag>) -> Error {
        let source = self.source.clone().or_else(|| {
            std::fs::read_to_string(&self.path)
                .ok()
                .map(|s| Arc::from(s.as_str()))
        });
        Error::new(self.path.clone(), source, diags)
    }
}

/// The `.bin` that belongs to an `.xml`: same path, extension replaced.
pub fn bin_path_for(xml: &Path) -> PathBuf {
    xml.with_extension("bin")
}

/// A big XML file, memory-mapped. Pages the parser has passed are handed back to the kernel
/// (`MADV_DONTNEED`): they stay readable (a later access reads them again from the page cache),
/// but do not count in the process's memory while the model is built.
pub(crate) struct MappedSource {
    map: memmap2::Mmap,
}

/// Pages are released in steps of this many bytes.
const RELEASE_STEP: usize = 4 << 20;
const PAGE: usize = 4096;

impl MappedSource {
    /// Drop the pages wholly inside `[from, to)` from this process's resident set.
    fn release(&self, from: usize, to: usize) {
        let from = from.next_multiple_of(PAGE);
        let to = to.min(self.map.len()) / PAGE * PAGE;
        if to > from {
            // SAFETY: the mapping is read-only and file-backed; after MADV_DONTNEED a read of
            // these pages faults them in again from the file, so every `&str` into the
            // mapping stays valid and unchanged.
            unsafe {
                let _ = self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    from,
                    to - from,
                );
            }
        }
    }

    /// Check the whole file is UTF-8, chunk by chunk, releasing each checked chunk.
    /// `Err(pos)`: the first invalid byte.
    fn validate(&self) -> Result<(), usize> {
        let b: &[u8] = &self.map;
        let mut start = 0;
        while start < b.len() {
            let end = (start + RELEASE_STEP).min(b.len());
            match std::str::from_utf8(&b[start..end]) {
                Ok(_) => start = end,
                Err(e) if e.error_len().is_none() && end < b.len() => {
                    // A character split by the chunk boundary: check it with the next chunk.
                    start += e.valid_up_to();
                }
                Err(e) => return Err(start + e.valid_up_to()),
            }
            self.release(0, start);
        }
        Ok(())
    }
}

/// Read `model.xml` and map `model.bin` beside it (if present).
pub fn read_file(xml_path: &Path) -> Result<Parsed, Error> {
    let label = xml_path.display().to_string();
    let io_err = |e: std::io::Error| Error::io(&label, format!("cannot read {label}: {e}"));
    let file = std::fs::File::open(xml_path).map_err(io_err)?;
    let len = file.metadata().map_err(io_err)?.len();
    // Big files are mapped (their pages released as the parser passes them); small ones read.
    let mapped = if len >= PARALLEL_MIN as u64 {
        // SAFETY: opened read-only; irc never writes its input (outputs are written to a
        // temporary file and renamed).
        unsafe { memmap2::Mmap::map(&file) }
            .ok()
            .map(|map| MappedSource { map })
    } else {
        None
    };
    let utf8_error = |bytes: &[u8], pos: usize| {
        let src: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).as_ref());
        Error::single(
            label.clone(),
            Some(src),
            Diag::new(Kind::Xml, "the file is not valid UTF-8").at(pos),
        )
    };
    let owned;
    let text: &str = match &mapped {
        Some(m) => {
            m.validate().map_err(|pos| utf8_error(&m.map, pos))?;
            crate::trace("read: validated");
            // SAFETY: validated just above (the file is not expected to change while read).
            unsafe { std::str::from_utf8_unchecked(&m.map) }
        }
        None => {
            let mut bytes = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(io_err)?;
            owned = String::from_utf8(bytes)
                .map_err(|e| utf8_error(e.as_bytes(), e.utf8_error().valid_up_to()))?;
            &owned
        }
    };
    let bin = bin_path_for(xml_path);
    let weights = match Weights::open(&bin) {
        Ok(w) => Some(Arc::new(w)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Error::io(
                &label,
                format!("cannot map {}: {e}", bin.display()),
            ))
        }
    };
    parse_with(
        text,
        None,
        &label,
        weights,
        &bin.display().to_string(),
        PARALLEL_MIN,
        mapped.as_ref(),
    )
}

/// [`read_str`] with the size from which the two-thread read is tried (the fuzzer compares
/// both reads on every input).
#[doc(hidden)]
pub fn read_str_with(
    source: Arc<str>,
    path: &str,
    weights: Option<Arc<Weights>>,
    bin_label: &str,
    parallel_min: usize,
) -> Result<Parsed, Error> {
    parse_with(
        &source.clone(),
        Some(source),
        path,
        weights,
        bin_label,
        parallel_min,
        None,
    )
}

/// Read an IR from text. `bin_label` names the weights file in messages.
pub fn read_str(
    source: Arc<str>,
    path: &str,
    weights: Option<Arc<Weights>>,
    bin_label: &str,
) -> Result<Parsed, Error> {
    read_str_with(source, path, weights, bin_label, PARALLEL_MIN)
}

fn new_parser<'a>(
    src: &'a str,
    base: usize,
    end: usize,
    weights: Option<Arc<Weights>>,
    bin_label: &'a str,
    mapped: Option<&'a MappedSource>,
) -> Parser<'a> {
    let mut p = Parser {
        src,
        r: Reader::from_str(&src[base..end]),
        diags: Vec::new(),
        map: SourceMap::default(),
        weights,
        bin_label,
        depth: 0,
        positions: Vec::new(),
        rt_infos: FastMap::default(),
        body_stack: Vec::new(),
        cap_hint: None,
        base,
        split: None,
        second: None,
        mapped,
        released: base,
        map_base: 0,
    };
    p.r.config_mut().trim_text(true);
    p
}

/// Read with two threads when the text is at least `parallel_min` bytes and splits cleanly;
/// the result is the same as a one-thread read (any problem falls back to one).
pub(crate) fn parse_with(
    text: &str,
    keep: Option<Arc<str>>,
    path: &str,
    weights: Option<Arc<Weights>>,
    bin_label: &str,
    parallel_min: usize,
    mapped: Option<&MappedSource>,
) -> Result<Parsed, Error> {
    let plan = (text.len() >= parallel_min)
        .then(|| split_plan(text))
        .flatten();
    if let Some((split, end)) = plan {
        let (tx, rx) = std::sync::mpsc::channel();
        let w2 = weights.clone();
        let done = std::thread::scope(|s| {
            s.spawn(move || {
                let mut b = new_parser(text, split, end, w2, bin_label, mapped);
                b.layer_run(&tx);
                crate::trace("read: second thread done");
            });
            let mut p = new_parser(text, 0, text.len(), weights.clone(), bin_label, mapped);
            p.cap_hint = Some(capacity_hint(text));
            p.split = Some((split, end));
            p.second = Some(rx);
            let result = p.document();
            crate::trace("read: document");
            match result {
                Ok(doc) if p.diags.is_empty() && p.split.is_none() => {
                    Some((doc, std::mem::take(&mut p.map)))
                }
                _ => None,
            }
        });
        if let Some((doc, map)) = done {
            return Ok(parsed(doc, map, weights, keep, path));
        }
        // Errors (or an unexpected layout): read again on one thread for the exact diagnostics.
    }
    let source_for_error = || keep.clone().unwrap_or_else(|| Arc::from(text));
    let mut p = new_parser(text, 0, text.len(), weights.clone(), bin_label, mapped);
    p.cap_hint = Some(capacity_hint(text));
    let result = p.document();

    let mut diags = std::mem::take(&mut p.diags);
    diags.sort_by_key(|d| d.pos.unwrap_or(usize::MAX));
    let map = std::mem::take(&mut p.map);
    match result {
        Ok(doc) if diags.is_empty() => Ok(parsed(doc, map, weights, keep.clone(), path)),
        Ok(_) => Err(Error::new(path, Some(source_for_error()), diags)),
        Err(fatal) => {
            diags.push(fatal);
            diags.sort_by_key(|d| d.pos.unwrap_or(usize::MAX));
            Err(Error::new(path, Some(source_for_error()), diags))
        }
    }
}

/// What `Parser::document` returns: the net's name, IR version, graph and other children.
type Document = (String, u32, Graph, Vec<XmlElement>);

fn parsed(
    (name, version, graph, extra): Document,
    source_map: SourceMap,
    weights: Option<Arc<Weights>>,
    source: Option<Arc<str>>,
    path: &str,
) -> Parsed {
    Parsed {
        model: Model {
            name,
            version,
            graph,
            extra,
            weights,
        },
        source_map,
        source,
        path: path.to_string(),
    }
}

/// A start tag: name and unescaped attributes borrowed from the source where possible, and
/// the byte position of `<`.
struct Tag<'a> {
    name: &'a str,
    attrs: SmallVec<[(&'a str, Cow<'a, str>); 4]>,

    pos: usize,
    /// `<x/>`: no children, no end event follows.
    empty: bool,
}

impl<'a> Tag<'a> {
    fn get(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.as_ref())
    }
    /// The attributes as owned pairs, for the model.
    fn owned(&self) -> Vec<(String, String)> {
        self.attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }
}

// Events are consumed immediately; boxing the tag would cost an allocation per element.
#[allow(clippy::large_enum_variant)]
enum Ev<'a> {
    Open(Tag<'a>),
    Close,
    Text(Cow<'a, str>),
    Eof,
}

struct RawEdge {
    from: u64,
    from_port: u32,
    to: u64,
    to_port: u32,
    pos: usize,
}

struct Parser<'a> {
    src: &'a str,
    r: Reader<&'a [u8]>,
    diags: Vec<Diag>,
    map: SourceMap,
    weights: Option<Arc<Weights>>,
    bin_label: &'a str,
    depth: usize,
    /// Positions of the elements read by the last `generic` call, in document order.
    positions: Vec<usize>,
    /// Layer rt_info elements read so far, shared when equal (13,600 identical
    /// `decompression` markers in a 100k-layer decoder).
    rt_infos: FastMap<u64, Vec<Arc<XmlElement>>>,
    /// Labels of the subgraph layers whose bodies are being read (for error notes).
    body_stack: Vec<String>,
    /// (layers, edges) counted in the source, for sizing the top-level graph.
    cap_hint: Option<(usize, usize)>,
    /// Offset of the reader's slice in `src` (the second thread reads a slice).
    base: usize,
    /// Parallel read: where the second thread's part of the top-level layers starts.
    split: Option<(usize, usize)>,
    /// Parallel read: the second thread's result.
    second: Option<std::sync::mpsc::Receiver<SecondHalf>>,
    /// Source-map entries already handed over in batches (the second thread's origins count
    /// them).
    map_base: usize,
    /// The mapped file, to release the pages behind the parser.
    mapped: Option<&'a MappedSource>,
    /// Where the not yet released part of this parser's text starts.
    released: usize,
}

/// What the second reader thread hands back: its layers with their positions and source map.
/// A batch of its layers (with positions), their source-map entries, and whether it is the
/// last one; `Err` when its part must be read again by one thread.
type SecondHalf = Result<(Vec<(Layer, usize)>, Vec<LayerSrc>, bool), ()>;

/// Layers per batch sent by the second reader thread (tiny in unit tests, so the small
/// models there go through many batches).
const SECOND_BATCH: usize = if cfg!(test) { 7 } else { 4096 };

/// Marks a parallel read that must be redone on one thread (never shown to users).
const PARALLEL_FALLBACK: &str = "(internal) parallel read fallback";

/// Files at least this big are read with two threads.
pub const PARALLEL_MIN: usize = 4 << 20;

/// Add `by` to the source-map indices of a layer and of its bodies' layers.
fn shift_origins(layer: &mut Layer, by: u32) {
    if let Some(o) = &mut layer.origin {
        *o += by;
    }
    for b in &mut layer.bodies {
        for n in b.graph.g.node_indices().collect::<Vec<_>>() {
            shift_origins(&mut b.graph.g[n], by);
        }
    }
}

/// Where to split the top-level `<layers>` for a parallel read: a top-level `<layer` (two tabs of
/// indentation, as OpenVINO and irc write it) near the middle, and the end of `<layers>`.
fn split_plan(text: &str) -> Option<(usize, usize)> {
    let start = text.find("<layers>")?;
    if text.find("<layer ")? < start {
        return None;
    }
    let end = text.rfind("</layers>")?;
    // The first thread also reads the edges and connects the graph: it takes 40% of the layers.
    let mid = start + (end.checked_sub(start)?) / 5 * 2;
    let at = mid + text.get(mid..end)?.find("\n\t\t<layer ")? + 3;
    (at < end).then_some((at, end))
}

type Fatal = Diag;

impl<'a> Parser<'a> {
    fn next(&mut self) -> Result<Ev<'a>, Fatal> {
        loop {
            let before = self.base + self.r.buffer_position() as usize;
            let ev = self.r.read_event().map_err(|e| {
                Diag::new(Kind::Xml, format!("malformed XML: {e}"))
                    .at(self.base + self.r.error_position() as usize)
            })?;
            let pos = skip_ws(self.src, before);
            if let Some(m) = self.mapped {
                if pos >= self.released + RELEASE_STEP {
                    let to = pos - PAGE;
                    m.release(self.released, to);
                    self.released = to;
                }
            }
            return Ok(match ev {
                Event::Start(s) => Ev::Open(self.tag(&s, pos, false)?),
                Event::Empty(s) => Ev::Open(self.tag(&s, pos, true)?),
                Event::End(_) => Ev::Close,
                Event::Text(t) => {
                    let raw = self.borrowed(&t).unwrap_or("");
                    Ev::Text(self.unescape(raw, || pos, || "text".into())?)
                }
                Event::CData(t) => Ev::Text(Cow::Owned(String::from_utf8_lossy(&t).into_owned())),
                Event::Eof => Ev::Eof,
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => continue,
            });
        }
    }

    /// The source slice a borrowed event buffer points into (the reader reads from `src`).
    fn borrowed(&self, b: &[u8]) -> Option<&'a str> {
        let base = self.src.as_ptr() as usize;
        let p = b.as_ptr() as usize;
        if b.is_empty() {
            return Some("");
        }
        let off = p.checked_sub(base)?;
        self.src.get(off..off + b.len())
    }

    /// Unescape entities; `at` gives the error position (only computed on error).
    fn unescape(
        &self,
        raw: &'a str,
        at: impl FnOnce() -> usize,
        what: impl FnOnce() -> String,
    ) -> Result<Cow<'a, str>, Fatal> {
        if !raw.contains('&') {
            return Ok(Cow::Borrowed(raw));
        }
        quick_xml::escape::unescape(raw)
            .map(|c| Cow::Owned(c.into_owned()))
            .map_err(|e| Diag::new(Kind::Xml, format!("malformed {}: {e}", what())).at(at()))
    }

    fn tag(&self, s: &BytesStart, pos: usize, empty: bool) -> Result<Tag<'a>, Fatal> {
        let name = self
            .borrowed(s.name().as_ref())
            .ok_or_else(|| Diag::new(Kind::Xml, "element name is not UTF-8").at(pos))?;
        let mut attrs = SmallVec::new();
        for a in s.attributes() {
            let a = a.map_err(|e| {
                use quick_xml::events::attributes::AttrError as A;
                // Positions in AttrError count from the start of the tag name.
                let (off, msg) = match &e {
                    A::Duplicated(p, _) => (*p, "duplicated attribute".to_string()),
                    A::ExpectedEq(p) => (
                        *p,
                        "expected '=' after the attribute name (is a '>' missing?)".to_string(),
                    ),
                    A::ExpectedValue(p) => (*p, "expected an attribute value".to_string()),
                    A::UnquotedValue(p) => (*p, "attribute value is not quoted".to_string()),
                    A::ExpectedQuote(p, _) => {
                        (*p, "attribute value is not closed by its quote".to_string())
                    }
                };
                Diag::new(Kind::Xml, format!("malformed attribute in <{name}>: {msg}"))
                    .at(pos + 1 + off)
            })?;
            let key = self
                .borrowed(a.key.as_ref())
                .ok_or_else(|| Diag::new(Kind::Xml, "attribute name is not UTF-8").at(pos))?;
            let raw = match &a.value {
                Cow::Borrowed(b) => self.borrowed(b),
                Cow::Owned(_) => None,
            };
            let val = match raw {
                Some(r) => self.unescape(
                    r,
                    || self.attr_pos(pos, key),
                    || format!("value of '{key}'"),
                )?,

                None => Cow::Owned(
                    a.unescape_value()
                        .map_err(|e| {
                            Diag::new(Kind::Xml, format!("malformed value of '{key}': {e}"))
                                .at(self.attr_pos(pos, key))
                        })?
                        .into_owned(),
                ),
            };
            attrs.push((key, val));
        }
        Ok(Tag {
            name,
            attrs,
            pos,
            empty,
        })
    }

    /// Position of attribute `name` inside the tag starting at `pos` (falls back to the tag).
    fn attr_pos(&self, pos: usize, name: &str) -> usize {
        let rest = &self.src[pos.min(self.src.len())..];
        let end = rest.find('>').unwrap_or(rest.len());
        let needle = format!(" {name}=");
        rest[..end]
            .find(&needle)
            .map(|i| pos + i + 1)
            .unwrap_or(pos)
    }

    /// One shared copy of equal layer rt_info elements.
    fn share_rt_info(&mut self, el: XmlElement) -> Arc<XmlElement> {
        use std::hash::{Hash, Hasher};
        let mut h = FastHasher::default();
        el.hash(&mut h);
        let bucket = self.rt_infos.entry(h.finish()).or_default();
        if let Some(same) = bucket.iter().find(|e| ***e == el) {
            return same.clone();
        }
        let a = Arc::new(el);
        bucket.push(a.clone());
        a
    }

    fn err(&mut self, mut d: Diag) {
        if let Some(b) = self.body_stack.last() {
            d = d.note(format!("inside the {b}"));
        }
        self.diags.push(d);
    }

    /// Consume everything up to the end of `tag`.
    fn skip(&mut self, tag: &Tag) -> Result<(), Fatal> {
        if tag.empty {
            return Ok(());
        }
        let mut depth = 1usize;
        loop {
            match self.next()? {
                Ev::Open(t) if !t.empty => depth += 1,
                Ev::Close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Ev::Eof => return Err(eof(tag)),
                _ => {}
            }
        }
    }

    /// Read `tag` and everything inside it as a verbatim element (iteratively: no recursion).
    fn generic(&mut self, tag: Tag) -> Result<XmlElement, Fatal> {
        self.positions.clear();
        let root = XmlElement {
            name: tag.name.to_string(),
            attrs: tag.owned(),
            ..Default::default()
        };
        if tag.empty {
            return Ok(root);
        }
        let mut stack = vec![root];
        loop {
            match self.next()? {
                Ev::Open(t) => {
                    if stack.len() >= MAX_ELEMENT_DEPTH {
                        return Err(Diag::new(
                            Kind::Schema,
                            format!("<{}> is nested more than {MAX_ELEMENT_DEPTH} levels deep inside <{}>", t.name, tag.name),
                        )
                        .at(t.pos));
                    }
                    self.positions.push(t.pos);
                    let el = XmlElement {
                        name: t.name.to_string(),
                        attrs: t.owned(),
                        ..Default::default()
                    };
                    if t.empty {
                        stack.last_mut().expect("stack").children.push(el);
                    } else {
                        stack.push(el);
                    }
                }
                Ev::Close => {
                    let done = stack.pop().expect("stack");
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => return Ok(done),
                    }
                }
                Ev::Text(s) => {
                    let cur = stack.last_mut().expect("stack");
                    cur.text.get_or_insert_with(String::new).push_str(&s);
                }
                Ev::Eof => return Err(eof(&tag)),
            }
        }
    }

    fn document(&mut self) -> Result<Document, Fatal> {
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
            let before = self.base + self.r.buffer_position() as usize;

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
    fn graph_body(
        &mut self,
        parent: &Tag,
        mut extra: Option<&mut Vec<XmlElement>>,
    ) -> Result<Graph, Fatal> {
        let mut graph = Graph::default();
        // The top-level graph gets its exact size up front (counted tags): no node storage
        // doubling, no moves of big nodes while growing.
        if let Some((nodes, edges)) = self.cap_hint.take() {
            graph.g = petgraph::stable_graph::StableDiGraph::with_capacity(nodes, edges);
        }
        let mut ids: FastMap<u64, (NodeIndex, usize)> = FastMap::default();
        ids.reserve(graph.g.capacity().0);
        let mut raw_edges = Vec::new();
        if parent.empty {
            return Ok(graph);
        }
        loop {
            match self.next()? {
                Ev::Open(t) => match t.name {
                    "layers" => self.layers(&t, &mut graph, &mut ids)?,
                    "edges" => self.edges(&t, &mut raw_edges)?,
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
        }
        self.connect(&mut graph, &ids, raw_edges);
        if self.depth == 0 {
            crate::trace("read: connected");
        }
        Ok(graph)
    }

    fn layers(
        &mut self,
        t: &Tag,
        graph: &mut Graph,
        ids: &mut FastMap<u64, (NodeIndex, usize)>,
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
                        let n = graph.g.add_node(layer);

                        if let Some(&(_, first)) = ids.get(&id) {
                            let label = graph.g[n].label();
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

    /// Skip the rest of the top-level `<layers>` (the second thread reads it; its layers are
    /// added by `join_second_half` once the rest of the graph is read). Any problem there makes
    /// the whole read fall back to one thread.
    fn skip_second_half(&mut self, end: usize) -> Result<(), Fatal> {
        let fallback = || Diag::new(Kind::Xml, PARALLEL_FALLBACK);
        // Continue after `</layers>` with a fresh reader instead of scanning the second half
        // again. Its end tags of elements opened before (`</net>`) are unmatched for it: allowed
        // until `</net>` (see `document`); those of elements it opens are checked as usual.
        let rest = end + "</layers>".len();
        if self.src.get(end..rest) != Some("</layers>") {
            return Err(fallback());
        }
        self.r = Reader::from_str(&self.src[rest..]);
        self.r.config_mut().trim_text(true);
        self.r.config_mut().allow_unmatched_ends = true;
        self.base = rest;
        crate::trace("read: first half");
        Ok(())
    }

    /// Add the layers the second thread read (after the rest of the top-level graph was read).
    fn join_second_half(
        &mut self,
        graph: &mut Graph,
        ids: &mut FastMap<u64, (NodeIndex, usize)>,
    ) -> Result<(), Fatal> {
        let fallback = || Diag::new(Kind::Xml, PARALLEL_FALLBACK);
        let rx = self.second.take().ok_or_else(fallback)?;
        // The second thread's source-map entries follow this thread's, in order.
        let shift = self.map.layers.len() as u32;
        loop {
            let (layers, srcs, last) = rx.recv().ok().and_then(|m| m.ok()).ok_or_else(fallback)?;
            self.map.layers.extend(srcs);
            for (mut layer, pos) in layers {
                shift_origins(&mut layer, shift);
                let id = layer.id;
                let n = graph.g.add_node(layer);
                if ids.contains_key(&id) {
                    return Err(fallback()); // duplicate ids: let the one-thread read report them
                }
                ids.insert(id, (n, pos));
            }
            if last {
                break;
            }
        }
        crate::trace("read: joined");
        Ok(())
    }

    /// The second thread's job: the `<layer>` elements of its slice, in order.
    /// Sent in batches, so the first thread can add them while this one reads on.
    fn layer_run(&mut self, tx: &std::sync::mpsc::Sender<SecondHalf>) {
        let r = self.layer_run_inner(tx);
        let _ = tx.send(r);
    }

    fn layer_run_inner(&mut self, tx: &std::sync::mpsc::Sender<SecondHalf>) -> SecondHalf {
        let mut out = Vec::with_capacity(SECOND_BATCH);
        loop {
            match self.next().map_err(|_| ())? {
                Ev::Open(l) if l.name == "layer" => {
                    let pos = l.pos;
                    match self.layer(l) {
                        Ok(Some(layer)) => out.push((layer, pos)),
                        _ => return Err(()),
                    }
                    if out.len() == SECOND_BATCH && self.diags.is_empty() {
                        let batch = std::mem::replace(&mut out, Vec::with_capacity(SECOND_BATCH));
                        let srcs = std::mem::take(&mut self.map.layers);
                        self.map_base += srcs.len();
                        if tx.send(Ok((batch, srcs, false))).is_err() {
                            return Err(());
                        }
                    }
                }
                Ev::Text(_) => {}
                Ev::Eof => break,
                _ => return Err(()),
            }
        }
        if !self.diags.is_empty() {
            return Err(());
        }
        Ok((out, std::mem::take(&mut self.map.layers), true))
    }

    /// One `<layer>`. Returns `None` when it is too broken to be a node (errors recorded).
    fn layer(&mut self, t: Tag) -> Result<Option<Layer>, Fatal> {
        let mut ok = true;
        let id = match t.get("id") {
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
        };
        let name = t.get("name").unwrap_or("");
        let ty = t.get("type").unwrap_or("");
        let version = t.get("version");
        // The layer as messages name it, formatted only when a message is made.
        let who = Who { ty, name, id };

        if ty.is_empty() {
            self.err(
                Diag::new(Kind::Schema, "<layer> has no 'type' attribute")
                    .at(t.pos)
                    .layer(who),
            );
            ok = false;
        }
        match &version {
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
        let extra_attrs = t
            .attrs
            .iter()
            .filter(|(k, _)| !matches!(*k, "id" | "name" | "type" | "version"))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut layer = Layer::new(ty, version.unwrap_or(""), name);
        layer.id = id.unwrap_or(0);
        layer.extra_attrs = extra_attrs;
        let mut src = LayerSrc {
            pos: t.pos,
            data: None,
            ports: Default::default(),
            pre: Vec::new(),
        };
        if !t.empty {
            loop {
                match self.next()? {
                    Ev::Open(c) => match c.name {
                        "data" => {
                            src.data = Some(c.pos);
                            layer.data = Some(Attrs::from_pairs(
                                c.attrs.iter().map(|(k, v)| (*k, v.as_ref())),
                            ));
                            self.skip(&c)?;
                        }
                        "rt_info" => {
                            let el = self.generic(c)?;
                            layer.rt_info = Some(self.share_rt_info(el));
                        }
                        "input" | "output" => {
                            let is_in = c.name == "input";
                            let ports = self.ports(&c, &who, &mut src)?;
                            if is_in {
                                layer.inputs.extend(ports);
                            } else {
                                layer.outputs.extend(ports);
                            }
                        }
                        "body" | "then_body" | "else_body" => {
                            if self.depth >= MAX_BODY_DEPTH {
                                return Err(Diag::new(
                                    Kind::Schema,
                                    format!("bodies nested deeper than {MAX_BODY_DEPTH} levels"),
                                )
                                .at(c.pos));
                            }
                            self.depth += 1;
                            self.body_stack.push(format!("<{}> of {who}", c.name));
                            let g = self.graph_body(&c, None)?;
                            self.body_stack.pop();
                            self.depth -= 1;
                            layer.bodies.push(Body {
                                tag: c.name.to_string(),
                                graph: g,
                            });
                        }
                        _ => {
                            let el = self.generic(c)?;
                            src.pre.push(std::mem::take(&mut self.positions));
                            layer.pre.push(el);
                        }
                    },
                    Ev::Close => break,
                    Ev::Text(_) => {}
                    Ev::Eof => return Err(eof(&t)),
                }
            }
        }
        // Exact-size port lists: `push` growth leaves room for 4 ports (704 bytes) where most
        // layers have 1 or 2.
        layer.inputs.shrink_to_fit();
        layer.outputs.shrink_to_fit();

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
        layer.origin = Some((self.map_base + self.map.layers.len()) as u32);
        self.map.layers.push(src);
        Ok(Some(layer))
    }

    fn ports(&mut self, t: &Tag, who: &Who, src: &mut LayerSrc) -> Result<Vec<Port>, Fatal> {
        let mut out = Vec::new();
        if t.empty {
            return Ok(out);
        }
        loop {
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

    fn port(&mut self, t: Tag, who: &Who, src: &mut LayerSrc) -> Result<Option<Port>, Fatal> {
        let id = match t.get("id").map(|v| (v, v.trim().parse::<u32>())) {
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
        };
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
        let mut dims = Dims::new();
        let mut rt_info = None;
        if !t.empty {
            loop {
                match self.next()? {
                    Ev::Open(c) if c.name == "dim" => {
                        if c.empty {
                            self.err(Diag::new(Kind::Schema, "empty <dim/>").at(c.pos).layer(who));
                            continue;
                        }
                        // Usually one text event: borrowed, no allocation per dim.
                        let mut text: Cow<str> = Cow::Borrowed("");
                        loop {
                            match self.next()? {
                                Ev::Text(s) if text.is_empty() => text = s,
                                Ev::Text(s) => text.to_mut().push_str(&s),
                                Ev::Close => break,
                                Ev::Open(x) => self.skip(&x)?,
                                Ev::Eof => return Err(eof(&c)),
                            }
                        }
                        match text.trim().parse::<i64>() {
                            Ok(-1) => dims.push(Dim::any()),
                            Ok(v) if v >= 0 => dims.push(Dim::known(v as u64)),
                            _ => self.err(
                                Diag::new(
                                    Kind::Schema,
                                    format!("bad dimension '{}': a port <dim> holds an integer >= -1 (-1 = dynamic)", text.trim()),
                                )
                                .at(c.pos)
                                .layer(who),
                            ),
                        }
                    }
                    Ev::Open(c) if c.name == "rt_info" => {
                        rt_info = Some(Box::new(self.generic(c)?))
                    }
                    Ev::Open(c) => self.skip(&c)?,
                    Ev::Close => break,
                    Ev::Text(_) => {}
                    Ev::Eof => return Err(eof(&t)),
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

    fn check_port_ids(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
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
    fn check_boundary_ports(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
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

    fn parameter(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
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

    fn konst(&mut self, layer: &mut Layer, who: &Who, src: &LayerSrc) {
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
        let mut missing = Vec::new();
        for k in ["element_type", "shape", "offset", "size"] {
            if data.get(k).is_none() {
                missing.push(k);
            }
        }
        if !missing.is_empty() {
            self.err(
                Diag::new(
                    Kind::Schema,
                    format!("Const <data> is missing {}", missing.join(", ")),
                )
                .at(dpos)
                .layer(who),
            );
            return;
        }
        let et_s = data.get("element_type").unwrap_or_default();
        let Some(et) = ElementType::parse_attr(et_s) else {
            self.err(
                Diag::new(Kind::ElementType, format!("unknown element type '{et_s}'"))
                    .at(self.attr_pos(dpos, "element_type"))
                    .layer(who)
                    .note("element_type takes a canonical name: f32, f16, bf16, i64, u8, u1, boolean, string …"),
            );
            return;
        };
        let shape_s = data.get("shape").unwrap_or_default();
        let shape = match PartialShape::parse_static(shape_s) {
            Ok(s) => s,
            Err(m) => {
                self.err(
                    Diag::new(Kind::Schema, format!("bad Const shape \"{shape_s}\": {m}"))
                        .at(self.attr_pos(dpos, "shape"))
                        .layer(who),
                );
                return;
            }
        };
        let num = |s: &mut Self, k: &str| -> Option<u64> {
            let v = data.get(k).unwrap_or_default();
            match v.trim().parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    s.err(
                        Diag::new(
                            Kind::Schema,
                            format!("Const {k} '{v}' is not a non-negative integer"),
                        )
                        .at(s.attr_pos(dpos, k))
                        .layer(who),
                    );
                    None
                }
            }
        };
        let (Some(offset), Some(size)) = (num(self, "offset"), num(self, "size")) else {
            return;
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
            return;
        };
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
            return;
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
            return;
        }
        if et == ElementType::String {
            let bytes = &w.bytes()[offset as usize..(offset + size) as usize];
            if let Err(m) = check_string_tensor(bytes, count) {
                self.err(
                    Diag::new(Kind::Weights, format!("malformed string Const data: {m}"))
                        .at(dpos)
                        .layer(who),
                );
                return;
            }
        } else if et.bits() > 0 {
            // OpenVINO checks size >= ceil(n * bits / 8) (unpadded, even for u3/u6).
            let Some(need) = count.checked_mul(et.bits() as u64).map(|b| b.div_ceil(8)) else {
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
                return;
            };
            if size < need {
                self.err(
                    Diag::new(Kind::Weights, "Const size is too small for its shape")
                        .at(self.attr_pos(dpos, "size"))
                        .layer(who)
                        .note(format!("{et}[{shape_s}] has {count} elements and needs {need} bytes; size is {size}")),
                );
                return;
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
        layer.konst = Some(ConstData::Bin { offset, size });
    }

    /// port_map / back_edges refer to body layer ids and to the op's port ids: check both.
    fn check_port_maps(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
        if layer.pre.is_empty() {
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
        for (k, el) in layer.pre.iter().enumerate() {
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
            let has = |id: &str| -> bool {
                id.trim()
                    .parse::<u64>()
                    .ok()
                    .is_some_and(|i| body.find_by_id(i).is_some())
            };
            for (ci, c) in el.children.iter().enumerate() {
                for key in ["internal_layer_id", "from-layer", "to-layer"] {
                    if let Some(v) = c.attr(key) {
                        if !has(v) {
                            errs.push((
                                format!("<{}> {key}=\"{v}\" names no layer of the body", el.name),
                                self.attr_pos(child_pos(ci), key),
                            ));
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
                            self.attr_pos(child_pos(ci), "external_port_id"),
                        ));
                    }
                }
            }
        }
        for (m, pos) in errs {
            self.err(Diag::new(Kind::Graph, m).at(pos).layer(who));
        }
    }

    /// Loop/TensorIterator need a `<body>`, If needs `<then_body>` and `<else_body>`.
    fn check_bodies(&mut self, layer: &Layer, who: &Who, src: &LayerSrc) {
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

    fn edges(&mut self, t: &Tag, out: &mut Vec<RawEdge>) -> Result<(), Fatal> {
        if t.empty {
            return Ok(());
        }
        loop {
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
                    let port_ok = vals[1] <= u32::MAX as u64 && vals[3] <= u32::MAX as u64;
                    if ok && port_ok {
                        out.push(RawEdge {
                            from: vals[0],
                            from_port: vals[1] as u32,
                            to: vals[2],
                            to_port: vals[3] as u32,
                            pos: e.pos,
                        });
                    } else if ok {
                        self.err(Diag::new(Kind::Graph, "edge port id out of range").at(e.pos));
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

    /// Resolve edges, then check ports are fed exactly once and the graph is acyclic.
    fn connect(
        &mut self,
        graph: &mut Graph,
        ids: &FastMap<u64, (NodeIndex, usize)>,
        edges: Vec<RawEdge>,
    ) {
        // Where the edge into each input port is (`usize::MAX`: none yet): one slot per input
        // port, the slots of a node starting at `start[node]`. No hashing per edge.
        let bound = petgraph::visit::NodeIndexable::node_bound(&graph.g);
        let mut start = vec![0usize; bound + 1];
        for i in 0..bound {
            let n = NodeIndex::new(i);
            start[i + 1] = start[i] + graph.g.node_weight(n).map_or(0, |l| l.inputs.len());
        }
        let mut fed = vec![usize::MAX; start[bound]];
        let slot = |n: NodeIndex, idx: usize| start[n.index()] + idx;
        for e in edges {
            let from = ids.get(&e.from).map(|x| x.0);
            let to = ids.get(&e.to).map(|x| x.0);
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
                continue;
            };
            let fl = &graph.g[from];
            let tl = &graph.g[to];
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
                continue;
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
                continue;
            };
            let first = fed[slot(to, to_idx)];
            if first != usize::MAX {
                let (line, _) = crate::error::line_col(self.src, first);
                self.err(
                    Diag::new(
                        Kind::Graph,
                        format!(
                            "input port {} of {} has two incoming edges",
                            e.to_port,
                            tl.label()
                        ),
                    )
                    .at(e.pos)
                    .note(format!("the first edge into that port is on line {line}")),
                );
                continue;
            }
            fed[slot(to, to_idx)] = e.pos;
            graph.g.add_edge(
                from,
                to,
                Edge {
                    from_port: e.from_port,
                    to_port: e.to_port,
                },
            );
        }
        // Every declared input port must be fed (OpenVINO: "Incorrect number of inputs").
        let mut unfed = Vec::new();
        for n in graph.g.node_indices() {
            let l = &graph.g[n];
            if l.is("LSTMCell") && l.version == "opset1" {
                continue; // the peephole port is legitimately unconnected
            }
            for (i, p) in l.inputs.iter().enumerate() {
                // Edges are matched to the first input with a port id (ids repeat only in
                // files that fail anyway).
                let fed_at = |idx: usize| fed[slot(n, idx)] != usize::MAX;
                if !fed_at(i) && !l.input_index(p.id).is_some_and(fed_at) {
                    unfed.push((n, p.id));
                }
            }
        }
        for (n, port) in unfed {
            let l = &graph.g[n];
            let pos = l
                .origin
                .map(|o| &self.map.layers[o as usize])
                .and_then(|s| s.port(port));

            self.err(
                Diag::new(
                    Kind::Graph,
                    format!("input port {port} has no incoming edge"),
                )
                .at(pos)
                .layer(l.label()),
            );
        }
        if graph.ordered().is_none() {
            let sccs = petgraph::algo::kosaraju_scc(&graph.g);
            for scc in sccs {
                let cyclic =
                    scc.len() > 1 || graph.g.edges_connecting(scc[0], scc[0]).next().is_some();
                if !cyclic {
                    continue;
                }
                let mut members: Vec<&Layer> = scc.iter().map(|&n| &graph.g[n]).collect();
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
}

use petgraph::stable_graph::NodeIndex;

/// How messages name a layer being read: `Gather 'g1' (id 7)`.
#[derive(Clone, Copy)]
struct Who<'x> {
    ty: &'x str,
    name: &'x str,
    id: Option<u64>,
}

impl std::fmt::Display for Who<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ty = if self.ty.is_empty() { "layer" } else { self.ty };
        match self.id {
            Some(i) => write!(f, "{ty} '{}' (id {i})", self.name),
            None => write!(f, "{ty} '{}' (id ?)", self.name),
        }
    }
}

impl From<Who<'_>> for String {
    fn from(w: Who<'_>) -> String {
        w.to_string()
    }
}

impl From<&Who<'_>> for String {
    fn from(w: &Who<'_>) -> String {
        w.to_string()
    }
}

fn eof(t: &Tag) -> Diag {
    Diag::new(
        Kind::Xml,
        format!("unexpected end of file inside <{}>", t.name),
    )
    .at(t.pos)
}

/// Room to reserve for the top-level layers and edges: generous (a layer takes well over 256
/// bytes of XML), so the node storage never grows by copying; the part never used is never
/// touched, so it costs address space, not memory. Counting the tags instead read the whole
/// file up front (30 ms and its size in resident memory for a 44 MB file).
fn capacity_hint(text: &str) -> (usize, usize) {
    let n = text.len() / 256 + 16;
    (n, n)
}

fn skip_ws(src: &str, mut pos: usize) -> usize {
    let b = src.as_bytes();
    while pos < b.len() && b[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

/// Split a `names` attribute: comma-separated, `\,` escapes a comma inside a name. Names are
/// kept exactly (no trimming: OpenVINO reads `" a"` as `" a"`); empty pieces are dropped.
pub fn split_names(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                cur.push(',');
                chars.next();
            }
            ',' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A string tensor: i32 count, count+1 i32 offsets (first 0, non-decreasing), then the bytes.
fn check_string_tensor(b: &[u8], count: u64) -> Result<(), String> {
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

#[cfg(test)]
mod parallel_tests {
    use super::*;

    /// The two-thread read must give exactly what the one-thread read gives.
    #[test]
    fn parallel_read_equals_sequential_read() {
        // The vendored samples, and the shared models when they are beside the repository.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<PathBuf> = ["ir-samples/models", "../shared/models"]
            .iter()
            .filter_map(|d| std::fs::read_dir(root.join(d)).ok())
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "xml"))
            .collect();
        files.push(PathBuf::from("/tmp/irc-bench/decoder_many.xml")); // when benchmarks ran
        let mut compared = 0;
        for xml in files {
            let Ok(text) = std::fs::read_to_string(&xml) else {
                continue;
            };
            if split_plan(&text).is_none() {
                continue;
            }
            let w = Weights::open(&bin_path_for(&xml)).ok().map(Arc::new);
            let one =
                parse_with(&text, None, "m.xml", w.clone(), "m.bin", usize::MAX, None).unwrap();
            let two = parse_with(&text, None, "m.xml", w, "m.bin", 0, None).unwrap();
            assert_eq!(
                crate::dump::dump(&one.model),
                crate::dump::dump(&two.model),
                "{}",
                xml.display()
            );
            let write = |m: &Model| {
                let mut s = String::new();
                let mut sink = crate::xml::BinSink::new(Vec::new());
                crate::xml::write_to(m, &mut s, &mut sink).unwrap();
                (s, sink.finish().unwrap())
            };
            assert!(write(&one.model) == write(&two.model), "{}", xml.display());
            assert_eq!(one.source_map.layers.len(), two.source_map.layers.len());
            compared += 1;
        }
        assert!(compared >= 8, "compared {compared} models");
    }

    #[test]
    fn parallel_read_reports_errors_like_sequential() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("ir-samples/models/silero_seq.xml"),
        )
        .unwrap();
        // Break a layer in the second half: the diagnostics must match the one-thread read.
        let (split, _) = split_plan(&text).unwrap();
        let at = split + text[split..].find("type=\"").unwrap();
        let bad = format!(
            "{}type=\"{}",
            &text[..at],
            &text[at + 6..].replacen('"', "\" version=\"opset99\" x=\"", 1)
        );
        let one = parse_with(&bad, None, "m.xml", None, "m.bin", usize::MAX, None)
            .err()
            .unwrap();
        let two = parse_with(&bad, None, "m.xml", None, "m.bin", 0, None)
            .err()
            .unwrap();
        assert_eq!(one.to_string(), two.to_string());
    }

    /// After the second half the main thread reads on with a fresh reader that allows the
    /// end tags of elements it did not open: broken end tags there are still reported, the
    /// same as by a one-thread read.
    #[test]
    fn parallel_read_checks_end_tags_after_the_layers() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("ir-samples/models/silero_seq.xml"),
        )
        .unwrap();
        let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("ir-samples/models/silero_seq.bin");
        let w = Some(Arc::new(Weights::open(&bin).unwrap()));
        assert!(parse_with(&text, None, "m.xml", w.clone(), "m.bin", 0, None).is_ok());
        let breakages: [(&str, &str); 5] = [
            ("</edges>", "</edges></edges>"),
            ("</net>", "</net></net>"),
            ("</net>", "</net></x>"),
            ("</edges>", "</edgez>"),
            ("</layers>", "</layers></layers>"),
        ];
        for (from, to) in breakages {
            let at = text.rfind(from).unwrap();
            let bad = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
            let one = parse_with(&bad, None, "m.xml", w.clone(), "m.bin", usize::MAX, None)
                .err()
                .unwrap_or_else(|| panic!("{to}: the one-thread read accepts it"));
            let two = parse_with(&bad, None, "m.xml", w.clone(), "m.bin", 0, None)
                .err()
                .unwrap_or_else(|| panic!("{to}: the two-thread read accepts it"));
            assert_eq!(one.to_string(), two.to_string(), "{to}");
        }
    }
}
