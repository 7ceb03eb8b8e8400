//! IR reader: quick-xml pull parser → [`Model`] + [`SourceMap`], validating as it goes and
//! collecting every diagnostic it can (not just the first).

mod build;
mod fast;
mod lex;
mod parallel;
pub use parallel::PARALLEL_MIN;
mod source;
mod validate;

use super::{LayerSrc, SourceMap};
use crate::error::{Diag, Error, Kind};
use crate::ir::*;
use fast::*;
use parallel::*;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use smallvec::SmallVec;
use source::*;
use std::borrow::Cow;
use std::path::Path;
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

pub use crate::files::bin_path_for;

/// Pages are released in steps of this many bytes (two threads read: 4 MB steps kept up to
/// 8 MB of passed text resident at the read's peak).
const RELEASE_STEP: usize = 1 << 20;
const PAGE: usize = 4096;

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
            .map(|map| MappedSource {
                _guard: crate::files::guard_map(&map, xml_path),
                map,
            })
    } else {
        None
    };
    crate::files::stall("start");
    let owned;
    let source = match &mapped {
        // Checked for UTF-8 and NUL bytes by the read (see `Check`); the parser keeps bytes
        // and checks each token it turns into text, so a file changed while mapped can give
        // an error, never an invalid `&str`.
        Some(m) => Source {
            unchecked: true,
            ..Source::bytes(&m.map[..])
        },
        None => {
            let mut bytes = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(io_err)?;
            owned = String::from_utf8(bytes)
                .map_err(|e| utf8_error(&label, e.as_bytes(), e.utf8_error().valid_up_to()))?;
            Source::text(owned.as_str())
        }
    };
    let bin = bin_path_for(xml_path);
    let weights = match Weights::open(&bin) {
        Ok(w) => Some(Arc::new(w)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            // A bad byte in the XML is reported first, as when it was checked before this.
            if let Some(m) = &mapped {
                m.validate()
                    .map_err(|pos| utf8_error(&label, &m.map, pos))?;
            }
            return Err(Error::io(
                &label,
                format!("cannot map {}: {e}", bin.display()),
            ));
        }
    };
    parse_with(
        source,
        None,
        &label,
        weights,
        &bin.display().to_string(),
        PARALLEL_MIN,
        mapped.as_ref(),
        Lexer::Fast,
    )
}

/// The error for a file that is not UTF-8 from `pos` on.
fn utf8_error(label: &str, bytes: &[u8], pos: usize) -> Error {
    let src: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).as_ref());
    Error::single(
        label.to_string(),
        Some(src),
        Diag::new(Kind::Xml, "the file is not valid UTF-8").at(pos),
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
    read_str_lexer(source, path, weights, bin_label, parallel_min, Lexer::Fast)
}

/// [`read_str_with`] starting with `lexer` (`Lexer::Quick`: quick-xml alone, the reference the
/// fast lexer is compared with).
#[doc(hidden)]
pub fn read_str_lexer(
    source: Arc<str>,
    path: &str,
    weights: Option<Arc<Weights>>,
    bin_label: &str,
    parallel_min: usize,
    lexer: Lexer,
) -> Result<Parsed, Error> {
    parse_with(
        Source::text(&source),
        Some(source.clone()),
        path,
        weights,
        bin_label,
        parallel_min,
        None,
        lexer,
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
    source: Source<'a>,
    base: usize,
    end: usize,
    weights: Option<Arc<Weights>>,
    bin_label: &'a str,
    mapped: Option<&'a MappedSource>,
    lexer: Lexer,
) -> Parser<'a> {
    let src = source.bytes;
    let mut p = Parser {
        fast: match lexer {
            Lexer::Fast => Fast::new(src, base, end),
            Lexer::Quick => None,
        },
        src,
        text: source.text,
        r: Reader::from_reader(&src[base..end]),
        diags: Vec::new(),
        map: SourceMap::default(),
        weights,
        bin_label,
        depth: 0,
        positions: Vec::new(),
        rt_infos: FastMap::default(),
        rt_raw: Vec::new(),
        attr_pool: AttrPool::default(),
        body_stack: Vec::new(),
        cap_hint: None,
        base,
        split: None,
        second: None,
        second_edges: None,
        mapped,
        released: base,
        check: None,
        map_base: 0,
    };
    p.r.config_mut().trim_text(true);
    p
}

/// The text to parse: its bytes, and the same as a `str` when it was validated and cannot change
/// (read into memory; not a mapped file).
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub bytes: &'a [u8],
    pub text: Option<&'a str>,
    /// A mapped file not checked for UTF-8 yet: a two-thread read checks it as it reads,
    /// any other read first ([`Check`]).
    pub unchecked: bool,
}

impl<'a> Source<'a> {
    pub fn text(t: &'a str) -> Self {
        Source {
            bytes: t.as_bytes(),
            text: Some(t),
            unchecked: false,
        }
    }
    pub fn bytes(b: &'a [u8]) -> Self {
        Source {
            bytes: b,
            text: None,
            unchecked: false,
        }
    }
}

/// Read with two threads when the text is at least `parallel_min` bytes and splits cleanly;
/// the result is the same as a one-thread read (any problem falls back to one). Reads start
/// with `lexer`: whatever the fast lexer does not take, and every read that finds a problem, is
/// read again on one thread with quick-xml, whose messages are the ones users see (a fast read
/// that succeeds gives what quick-xml's would).
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_with(
    source: Source<'_>,
    keep: Option<Arc<str>>,
    path: &str,
    weights: Option<Arc<Weights>>,
    bin_label: &str,
    parallel_min: usize,
    mapped: Option<&MappedSource>,
    lexer: Lexer,
) -> Result<Parsed, Error> {
    let text = source.bytes;
    // A parser of the whole text (the one-thread read, and the first thread of two).
    let whole = |lexer| {
        let mut p = new_parser(
            source,
            0,
            text.len(),
            weights.clone(),
            bin_label,
            mapped,
            lexer,
        );
        p.cap_hint = Some(capacity_hint(text));
        p
    };
    // XML allows no NUL character anywhere (OpenVINO's reader rejects the file); a NUL in a
    // name or type would otherwise reach the model and the written IR. A mapped file is
    // checked for them and for UTF-8 here, unless a two-thread read checks it as it goes.
    let deferred = mapped.filter(|_| source.unchecked);
    let check_all = || check_whole(source, deferred, keep.as_ref(), path);
    let plan = (text.len() >= parallel_min)
        .then(|| split_plan(text))
        .flatten();
    if deferred.is_none() || plan.is_none() {
        check_all()?;
    }
    let lossy = || Arc::from(String::from_utf8_lossy(text).as_ref());
    if let Some((split, end)) = plan {
        let first = whole(lexer);
        let part = (split, end);
        let w = weights.clone();
        let (done, checked) = read_two(first, source, part, w, bin_label, deferred, lexer);
        if let Some((doc, map)) = done {
            return Ok(parsed(doc, map, weights, keep, path));
        }
        // The parts checked good: so is the whole (they split at a `<`).
        if deferred.is_some() && !checked {
            check_all()?;
        }
        // Errors (or an unexpected layout): read again on one thread for the exact diagnostics.
    } else if lexer == Lexer::Fast {
        let mut p = whole(Lexer::Fast);
        if p.fast.is_some() {
            let result = p.document();
            if let Ok(doc) = result {
                if p.diags.is_empty() {
                    let map = std::mem::take(&mut p.map);
                    return Ok(parsed(doc, map, weights, keep, path));
                }
            }
        }
    }
    let source_for_error = || keep.clone().unwrap_or_else(lossy);
    let mut p = whole(Lexer::Quick);
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
    // The reader's tables and temporaries (ids, pools, batches, the connect step's lists)
    // are freed by now, but their pages stay resident inside the heap: handed back, a
    // 100k-layer file's model is 71 MB instead of 76 when the passes start.
    crate::files::trim_heap_for(graph.len());
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

/// Layer ids of a graph being read -> (node, position of its `<layer>`). OpenVINO numbers layers
/// 0, 1, 2 …, so ids below a few times the count so far sit in a table by id; other ids (sparse
/// or huge) in a hash map. (A hash map of every id was 6 MB of a 100k-layer read's peak, and
/// its hashing 2% of the read.)
#[derive(Default)]
pub(super) struct IdMap {
    dense: Vec<Option<(NodeId, usize)>>,
    sparse: FastMap<u64, (NodeId, usize)>,
    len: usize,
    /// Each added layer's [`PortSpan`], by node index (duplicate ids included).
    spans: Vec<PortSpan>,
}

/// What `connect` needs of a layer's ports, recorded as the layer is added, while it is in
/// the cache: how many inputs and outputs, and the first id of each list when its ids are
/// consecutive (OpenVINO numbers them so). Reading the layer and its port lists for each edge
/// end instead cost a cache miss each: two thirds of connecting a 100k-layer model (15-20 ms,
/// the read's serial tail).
#[derive(Clone, Copy)]
pub(super) struct PortSpan {
    pub(super) ins: u32,
    /// [`PortSpan::MANY`] when there are that many or more: look at the layer.
    outs: u16,
    /// [`PortSpan::MANY`] when the ids are not consecutive (or that big).
    in_first: u16,
    out_first: u16,
}

impl PortSpan {
    /// Beyond what a span holds (12 bytes a layer: 1.2 MB of a 100k-layer read's peak).
    const MANY: u16 = u16::MAX;
    pub(super) fn of(l: &Layer) -> PortSpan {
        let small = |n: usize| u16::try_from(n).unwrap_or(PortSpan::MANY);
        // The first id when the ids run first, first + 1, …
        fn first(ps: &[Port]) -> u16 {
            let f = ps.first().map_or(0, |p| p.id);
            let run = ps
                .iter()
                .enumerate()
                .all(|(i, p)| u32::try_from(i).ok().and_then(|i| f.checked_add(i)) == Some(p.id));
            match run {
                true => u16::try_from(f).unwrap_or(PortSpan::MANY),
                false => PortSpan::MANY,
            }
        }
        PortSpan {
            ins: l.inputs.len() as u32,
            outs: small(l.outputs.len()),
            in_first: first(&l.inputs),
            out_first: first(&l.outputs),
        }
    }
    /// `Layer::input_index` / `output_index` for consecutive ids; `None` means "look at the
    /// layer" (ids not consecutive, or no such port: the layer gives the message).
    fn index(first: u16, n: u32, id: u32) -> Option<usize> {
        if first == PortSpan::MANY {
            return None;
        }
        let i = id.checked_sub(first as u32)?;
        (i < n).then_some(i as usize)
    }
    pub(super) fn input_index(&self, id: u32) -> Option<usize> {
        PortSpan::index(self.in_first, self.ins, id)
    }
    pub(super) fn output_index(&self, id: u32) -> Option<usize> {
        match self.outs {
            PortSpan::MANY => None,
            outs => PortSpan::index(self.out_first, outs as u32, id),
        }
    }
}

impl IdMap {
    pub(super) fn with_capacity(n: usize) -> Self {
        IdMap {
            dense: Vec::with_capacity(n),
            spans: Vec::with_capacity(n),
            ..Default::default()
        }
    }
    pub(super) fn get(&self, id: u64) -> Option<(NodeId, usize)> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(Some(x)) => Some(*x),
            _ if self.sparse.is_empty() => None,
            _ => self.sparse.get(&id).copied(),
        }
    }
    /// Add `layer` to `graph`, recording its [`PortSpan`]; its id is recorded by `insert`.
    pub(super) fn add(&mut self, graph: &mut Graph, layer: Layer) -> NodeId {
        let span = PortSpan::of(&layer);
        self.add_with(graph, layer, span)
    }
    /// [`IdMap::add`] with the layer's [`PortSpan`] found already.
    pub(super) fn add_with(&mut self, graph: &mut Graph, layer: Layer, span: PortSpan) -> NodeId {
        let n = graph.add_layer(layer);
        if n.index() == self.spans.len() {
            self.spans.push(span);
        }
        n
    }
    /// The [`PortSpan`] of every layer of `graph`, when all were added by [`IdMap::add`].
    pub(super) fn spans(&self, graph: &Graph) -> Option<&[PortSpan]> {
        (self.spans.len() == graph.node_bound() && graph.len() == graph.node_bound())
            .then_some(&self.spans[..])
    }
    /// Record an id not recorded yet.
    pub(super) fn insert(&mut self, id: u64, v: (NodeId, usize)) {
        self.len += 1;
        match usize::try_from(id) {
            Ok(i) if i < 4 * self.len + 4096 => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, None);
                }
                self.dense[i] = Some(v);
            }
            _ => {
                self.sparse.insert(id, v);
            }
        }
    }
}

struct Parser<'a> {
    /// The source as bytes: a mapped file can change under the reader, so no `&str` is made
    /// over it; each token turned into text is checked (`borrowed`).
    src: &'a [u8],
    /// The same source as text when it is read into memory (validated once and immutable):
    /// tokens are then cut from it without checking their bytes again.
    text: Option<&'a str>,
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
    /// The text of the first few distinct layer rt_info elements with their shared copy: the
    /// fast lexer compares the next one's bytes and skips it when they are equal (13,600
    /// elements of three tags each, built and dropped, were 8% of a 100k-layer read's
    /// allocations). Copies, not slices of the mapping: the pages behind the parser go back.
    rt_raw: Vec<(Box<[u8]>, Arc<XmlElement>)>,
    /// `<data>` attribute lists read so far, shared when equal.
    attr_pool: AttrPool,
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
    /// Parallel read: the `<edges>` the second thread reads after its layers.
    second_edges: Option<std::sync::mpsc::Receiver<SecondEdges>>,
    /// Source-map entries already handed over in batches (the second thread's origins count
    /// them).
    map_base: usize,
    /// The mapped file, to release the pages behind the parser.
    mapped: Option<&'a MappedSource>,
    /// Where the not yet released part of this parser's text starts.
    released: usize,
    /// A two-thread read of a mapped file: this thread's part's UTF-8 and NUL check.
    check: Option<Check>,
    /// The fast lexer, when it reads this text (`r`, quick-xml, otherwise).
    fast: Option<Fast>,
}

/// Which lexer a read starts with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lexer {
    /// The fast lexer ([`fast`]); what it does not take is read again with quick-xml.
    Fast,
    /// quick-xml only: the reference the fast lexer is tested against.
    Quick,
}

type Fatal = Diag;

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
fn capacity_hint(text: &[u8]) -> (usize, usize) {
    let n = text.len() / 256 + 16;
    (n, n)
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
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

/// Whether the file's root element is `<net>` (OpenVINO IR), from its first 64 KiB: `None` when
/// the file cannot be read or its prolog (declaration, comments, doctype) runs longer.
pub fn root_is_net(path: &Path) -> Option<bool> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 << 10)
        .read_to_end(&mut head)
        .ok()?;
    let mut s: &[u8] = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    loop {
        s = s.trim_ascii_start();
        let end_of = |close: &[u8]| {
            s.windows(close.len())
                .position(|w| w == close)
                .map(|i| i + close.len())
        };
        if s.starts_with(b"<?") {
            s = &s[end_of(b"?>")?..];
        } else if s.starts_with(b"<!--") {
            s = &s[end_of(b"-->")?..];
        } else if s.starts_with(b"<!") {
            s = &s[end_of(b">")?..];
        } else if s.is_empty() {
            return None;
        } else {
            return Some(s.strip_prefix(b"<net").is_some_and(|rest| {
                matches!(
                    rest.first(),
                    Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/')
                )
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges find their ports by id whether or not a layer's ids are consecutive (connect
    /// takes the consecutive ones from `PortSpan` without reading the layer), on one thread
    /// and two; an edge into a port id a layer lacks is an error either way.
    #[test]
    fn edges_find_ports_whatever_their_ids() {
        let layer = |id: u32, ty: &str, ins: &[u32], outs: &[u32]| {
            let ports = |tag: &str, ids: &[u32]| match ids {
                [] => String::new(),
                _ => format!(
                    "<{tag}>{}</{tag}>",
                    ids.iter()
                        .map(|i| format!(r#"<port id="{i}" precision="FP32"><dim>2</dim></port>"#))
                        .collect::<String>()
                ),
            };
            let data = match ty {
                "Parameter" => r#"<data shape="2" element_type="f32"/>"#,
                _ => "",
            };
            format!(
                r#"<layer id="{id}" name="l{id}" type="{ty}" version="opset1">{data}{}{}</layer>"#,
                ports("input", ins),
                ports("output", outs)
            )
        };
        let model = |bad_port: u32| {
            let layers = [
                layer(0, "Parameter", &[], &[0]),
                layer(1, "Parameter", &[], &[7]),
                // Inputs 3 and 1 (reversed), outputs 5 and 9 (a gap).
                layer(2, "Foo", &[3, 1], &[5, 9]),
                layer(3, "Add", &[0, 1], &[2]),
                // An id beyond a span's 16 bits.
                layer(4, "Result", &[70000], &[]),
            ]
            .concat();
            let edge = |f: u32, fp: u32, t: u32, tp: u32| {
                format!(
                    r#"<edge from-layer="{f}" from-port="{fp}" to-layer="{t}" to-port="{tp}"/>"#
                )
            };
            let edges = [
                edge(0, 0, 2, 3),
                edge(1, 7, 2, 1),
                edge(2, 9, 3, 0),
                edge(2, 5, 3, bad_port),
                edge(3, 2, 4, 70000),
            ]
            .concat();
            format!(
                r#"<net name="m" version="11"><layers>{layers}</layers><edges>{edges}</edges></net>"#
            )
        };
        for parallel_min in [usize::MAX, 0] {
            let read =
                |text: String| read_str_with(Arc::from(text), "m.xml", None, "m.bin", parallel_min);
            let g = read(model(1)).expect("reads").model.graph;
            let by_id = |id: u64| g.nodes().find(|&n| g[n].id == id).unwrap();
            let feeds = |id: u64| -> Vec<Option<(u64, usize)>> {
                let n = by_id(id);
                g.inputs_of(n)
                    .iter()
                    .map(|x| x.map(|(p, o)| (g[p].id, o)))
                    .collect()
            };
            assert_eq!(feeds(2), vec![Some((0, 0)), Some((1, 0))], "{parallel_min}");
            assert_eq!(feeds(3), vec![Some((2, 1)), Some((2, 0))], "{parallel_min}");
            assert_eq!(feeds(4), vec![Some((3, 0))], "{parallel_min}");
            let err = read(model(4))
                .err()
                .expect("port 4 of layer 3 does not exist");
            let msg = format!("{err:?}");
            assert!(msg.contains("which has no such input port"), "{msg}");
        }
    }

    /// The parser works on bytes and checks every token it turns into text, so bytes that
    /// are not UTF-8 (a mapped file changed after it was validated) give an error, whichever
    /// token they are in, never an invalid `&str`.
    #[test]
    fn bytes_that_are_not_utf8_are_an_error_not_a_str() {
        let good = r#"<net name="m" version="11"><layers><layer id="0" name="NAME" type="Parameter" version="opset1"><data shape="1" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim></port></output></layer><layer id="1" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim></port></input></layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
        assert!(parse_with(
            Source::text(good),
            None,
            "m.xml",
            None,
            "m.bin",
            usize::MAX,
            None,
            Lexer::Fast,
        )
        .is_ok());
        for needle in ["NAME", "Parameter", "FP32", "<dim>1", "data"] {
            let at = good.find(needle).unwrap() + 1;
            let mut bad = good.as_bytes().to_vec();
            bad[at] = 0xff;
            for parallel_min in [usize::MAX, 0] {
                let r = parse_with(
                    Source::bytes(&bad),
                    None,
                    "m.xml",
                    None,
                    "m.bin",
                    parallel_min,
                    None,
                    Lexer::Fast,
                );
                assert!(r.is_err(), "0xff in {needle} was read");
            }
        }
    }

    /// A file big enough to be mapped is searched for NUL bytes while it is validated: the
    /// first NUL is reported where it is, and a byte that is not UTF-8 anywhere (even after
    /// the NUL) is reported instead, as for a file read into memory.
    #[test]
    fn a_mapped_file_reports_nul_and_utf8_as_one_read_into_memory() {
        let dir = std::env::temp_dir().join(format!("irc-nul-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let head = "<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"11\">\n";
        // Lines of 100 bytes: a big file is validated in two halves split at a newline.
        let pad = format!("{}\n", " ".repeat(99)).repeat((PARALLEL_MIN + 3 * RELEASE_STEP) / 100);
        assert!(head.len() + pad.len() >= source::VALIDATE_SPLIT_MIN);
        let base = format!("{head}{pad}<layers>\n</layers>\n</net>\n");
        let nul_at = head.len() + 2 * RELEASE_STEP + 5;
        let late = base.len() - RELEASE_STEP;
        let cases = [
            (vec![(nul_at, 0u8)], "a NUL byte".to_string(), nul_at),
            (
                vec![(nul_at, 0), (nul_at + RELEASE_STEP, 0xff)],
                "not valid UTF-8".to_string(),
                nul_at + RELEASE_STEP,
            ),
            (
                vec![(nul_at + 7, 0), (nul_at, 0)],
                "a NUL byte".to_string(),
                nul_at,
            ),
            // Late in the file (after the chunks that validation hands back): a NUL there,
            // and a NUL early with a bad byte late.
            (vec![(late, 0)], "a NUL byte".to_string(), late),
            (
                vec![(nul_at, 0), (late, 0xff)],
                "not valid UTF-8".to_string(),
                late,
            ),
            // A bad byte in the first half and a NUL in the second; both in the second.
            (
                vec![(late, 0), (nul_at, 0xff)],
                "not valid UTF-8".to_string(),
                nul_at,
            ),
            (
                vec![(late + 9, 0xff), (late, 0)],
                "not valid UTF-8".to_string(),
                late + 9,
            ),
        ];
        for (i, (edits, msg, at)) in cases.into_iter().enumerate() {
            let mut b = base.clone().into_bytes();
            for (p, v) in edits {
                b[p] = v;
            }
            let path = dir.join(format!("m{i}.xml"));
            std::fs::write(&path, &b).unwrap();
            let e = read_file(&path).err().expect("read");
            let text = e.to_string();
            assert!(text.contains(&msg), "{text}");
            // The same message as the file read as text (the in-memory path) gives.
            let small = parse_with(
                Source::bytes(&b),
                None,
                &path.display().to_string(),
                None,
                "m.bin",
                usize::MAX,
                None,
                Lexer::Fast,
            );
            if msg.contains("NUL") {
                assert_eq!(text, small.err().expect("read").to_string());
            }
            assert!(e.diags.iter().any(|d| d.pos == Some(at)), "{text}");
        }
        // A character across the middle of the file is checked whole, and a broken one there
        // is reported where it starts.
        for at in [base.len() / 2 - 2, base.len() / 2 - 1, base.len() / 2] {
            let mut b = base.clone().into_bytes();
            b[at - 5..at + 7].copy_from_slice("<!-- \u{20ac} -->".as_bytes());
            let path = dir.join("mid.xml");
            std::fs::write(&path, &b).unwrap();
            let r = read_file(&path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(!r.contains("UTF-8"), "{at}: {r}");
            b[at + 1] = b'x';
            std::fs::write(&path, &b).unwrap();
            let e = read_file(&path).err().expect("read");
            assert!(e.to_string().contains("not valid UTF-8"), "{e}");
            assert!(e.diags.iter().any(|d| d.pos == Some(at)), "{at}: {e}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
