//! Plain data for an OpenVINO IR model. Mirrors the XML closely so the writer is faithful;
//! source positions live in [`crate::span::SourceMap`], not here.

pub mod element;
mod graph;
pub mod opset;
pub mod runs;
pub mod shape;
pub mod tensor;
pub mod weights;

pub use element::ElementType;
pub use graph::{Edge, Graph, Link, NodeId, Removed};
pub use shape::{Dim, Dims, PartialShape};
pub use weights::Weights;

use std::sync::Arc;

/// A generic XML element kept verbatim (rt_info, meta_data, port_map, back_edges …).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct XmlElement {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<XmlElement>,
    pub text: Option<String>,
}

impl XmlElement {
    pub fn attr(&self, name: &str) -> Option<&str> {
        attr(&self.attrs, name)
    }
}

/// Ordered attributes stored compactly: one string `k\0v\0k\0v\0…` instead of two
/// allocations per attribute (a big model has hundreds of thousands of them). XML attribute
/// values cannot contain NUL.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Attrs {
    /// Shared, not a `String`: equal lists read from one file are one allocation (see
    /// [`AttrPool`]), and there is no capacity word.
    buf: Arc<str>,
}

/// Equal attribute lists of a file read once, shared: `<data auto_broadcast="numpy"/>` is on
/// 17k layers of a 100k-layer decoder, and its 58k non-constant `<data>` elements have 12
/// distinct attribute lists.
#[derive(Default)]
pub struct AttrPool {
    set: std::collections::HashSet<Arc<str>, std::hash::BuildHasherDefault<FastHasher>>,
    scratch: String,
}

/// Append `k\0v\0` for each pair (a NUL inside a name or value becomes U+FFFD).
fn encode_pairs<'x>(pairs: impl IntoIterator<Item = (&'x str, &'x str)>, buf: &mut String) {
    for (k, v) in pairs {
        for part in [k, v] {
            if part.contains('\0') {
                buf.push_str(&part.replace('\0', "\u{FFFD}"));
            } else {
                buf.push_str(part);
            }
            buf.push('\0');
        }
    }
}

impl Attrs {
    pub fn new() -> Self {
        Attrs::default()
    }

    pub fn from_pairs<'x>(pairs: impl IntoIterator<Item = (&'x str, &'x str)>) -> Self {
        let mut buf = String::new();
        encode_pairs(pairs, &mut buf);
        Attrs {
            buf: Arc::from(buf),
        }
    }

    /// [`Attrs::from_pairs`] through `pool`: with `share`, the list is shared with an equal one
    /// made before (lists that are seldom equal, a constant's offset among them, are better
    /// not kept in the pool).
    pub fn from_pairs_in<'x>(
        pairs: impl IntoIterator<Item = (&'x str, &'x str)>,
        pool: &mut AttrPool,
        share: bool,
    ) -> Self {
        pool.scratch.clear();
        encode_pairs(pairs, &mut pool.scratch);
        Attrs::from_scratch(pool, share)
    }

    /// [`Attrs::from_pairs_in`] of pairs already encoded: `fill` appends `k\0v\0` for each
    /// (names and values without NUL) to the pool's emptied scratch buffer, or returns `None`,
    /// and then nothing is made. For a reader that encodes attributes straight from the text.
    pub fn from_encoded_in<R>(
        pool: &mut AttrPool,
        share: bool,
        fill: impl FnOnce(&mut String) -> Option<R>,
    ) -> Option<(Self, R)> {
        pool.scratch.clear();
        let r = fill(&mut pool.scratch)?;
        Some((Attrs::from_scratch(pool, share), r))
    }

    fn from_scratch(pool: &mut AttrPool, share: bool) -> Self {
        if !share {
            return Attrs {
                buf: Arc::from(pool.scratch.as_str()),
            };
        }
        if let Some(same) = pool.set.get(pool.scratch.as_str()) {
            return Attrs { buf: same.clone() };
        }
        let buf: Arc<str> = Arc::from(pool.scratch.as_str());
        pool.set.insert(buf.clone());
        Attrs { buf }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        // NULs found by plain loops over the short names and values (`split('\0')` went
        // through the general char searcher: 600k lists read and written a 100k-layer fold).
        let (s, b) = (&*self.buf, self.buf.as_bytes());
        let nul = move |from: usize| b[from..].iter().position(|&c| c == 0).map(|p| from + p);
        let mut i = 0;
        std::iter::from_fn(move || {
            let ke = nul(i).filter(|&ke| ke > i)?;
            let ve = nul(ke + 1)?;
            // NUL is ASCII: both cuts are on character boundaries.
            let kv = (s.get(i..ke)?, s.get(ke + 1..ve)?);
            i = ve + 1;
            Some(kv)
        })
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        // Scan `k\0v\0` pairs without the general iterator (this is on every layer's path, for
        // every attribute an op reads): names and values are short, so plain loops, not memchr.
        let (b, k) = (self.buf.as_bytes(), k.as_bytes());
        let nul = |from: usize| b[from..].iter().position(|&c| c == 0).map(|p| from + p);
        let mut i = 0;
        while i < b.len() {
            // The NUL that would end a key of this length first: most keys differ in length,
            // and are passed over without comparing their bytes. No stored name holds a NUL,
            // so bytes equal to a `k` that holds one are not a name (checked only then: a
            // `contains` on every call was a memchr call on every attribute read).
            let hit = b.get(i + k.len()) == Some(&0)
                && b[i..i + k.len()] == *k
                && k.iter().all(|&c| c != 0);
            let ke = if hit { i + k.len() } else { nul(i)? };
            let ve = nul(ke + 1)?;
            if hit {
                return self.buf.get(ke + 1..ve);
            }
            i = ve + 1;
        }
        None
    }

    /// Set an attribute, keeping its position when present, appending otherwise.
    pub fn set(&mut self, k: &str, v: &str) {
        let mut pairs: Vec<(String, String)> = self
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        match pairs.iter_mut().find(|(n, _)| n == k) {
            Some(slot) => slot.1 = v.to_string(),
            None => pairs.push((k.to_string(), v.to_string())),
        }
        *self = Attrs::from_pairs(pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

impl std::fmt::Debug for Attrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Look up an attribute in an ordered attribute list.
pub fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub id: u32,
    pub precision: Option<ElementType>,
    pub shape: PartialShape,
    /// Names, other attributes and rt_info: most ports have none, so they sit behind one
    /// pointer (a port is 96 bytes instead of 144; big models have 200k+ ports).
    pub meta: Option<Box<PortMeta>>,
}

/// A layer's input or output ports: a boxed slice, two words where a `Vec` is three (the
/// lists are allocated at their size anyway; 1.6 MB of a 100k-layer model's layers). Reads
/// as a slice; `push` and the other edits reallocate, which costs nothing that matters for
/// the few ports a layer has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ports(Box<[Port]>);

impl Ports {
    pub fn new() -> Self {
        Ports::default()
    }
    /// Change the list as a `Vec` (one reallocation to its new size after).
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut Vec<Port>) -> R) -> R {
        let mut v = std::mem::take(&mut self.0).into_vec();
        let r = f(&mut v);
        self.0 = v.into_boxed_slice();
        r
    }
    pub fn push(&mut self, p: Port) {
        self.edit(|v| v.push(p))
    }
    pub fn clear(&mut self) {
        self.0 = Box::default();
    }
}

impl std::ops::Deref for Ports {
    type Target = [Port];
    fn deref(&self) -> &[Port] {
        &self.0
    }
}

impl std::ops::DerefMut for Ports {
    fn deref_mut(&mut self) -> &mut [Port] {
        &mut self.0
    }
}

impl From<Vec<Port>> for Ports {
    fn from(v: Vec<Port>) -> Self {
        Ports(v.into_boxed_slice())
    }
}

impl FromIterator<Port> for Ports {
    fn from_iter<I: IntoIterator<Item = Port>>(it: I) -> Self {
        Ports(it.into_iter().collect())
    }
}

impl Extend<Port> for Ports {
    fn extend<I: IntoIterator<Item = Port>>(&mut self, it: I) {
        self.edit(|v| v.extend(it))
    }
}

impl IntoIterator for Ports {
    type Item = Port;
    type IntoIter = std::vec::IntoIter<Port>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a Ports {
    type Item = &'a Port;
    type IntoIter = std::slice::Iter<'a, Port>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Ports {
    type Item = &'a mut Port;
    type IntoIter = std::slice::IterMut<'a, Port>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PortMeta {
    /// Tensor names (output ports), unescaped, in file order.
    pub names: Vec<String>,
    /// Port attributes other than id/precision/names, verbatim.
    pub extra_attrs: Vec<(String, String)>,
    pub rt_info: Option<Box<XmlElement>>,
}

impl Port {
    pub fn new(id: u32, precision: ElementType, shape: PartialShape) -> Self {
        Port {
            id,
            precision: Some(precision),
            shape,
            meta: None,
        }
    }

    /// Tensor names (output ports), unescaped, in file order.
    pub fn names(&self) -> &[String] {
        self.meta.as_ref().map_or(&[], |m| &m.names)
    }
    /// Port attributes other than id/precision/names, verbatim.
    pub fn extra_attrs(&self) -> &[(String, String)] {
        self.meta.as_ref().map_or(&[], |m| &m.extra_attrs)
    }
    pub fn rt_info(&self) -> Option<&XmlElement> {
        self.meta.as_ref().and_then(|m| m.rt_info.as_deref())
    }
    pub fn set_names(&mut self, names: Vec<String>) {
        if names.is_empty() && self.meta.is_none() {
            return;
        }
        self.meta.get_or_insert_with(Default::default).names = names;
    }
    /// Build the metadata box only when there is something to keep.
    pub fn with_meta(mut self, meta: PortMeta) -> Self {
        let empty = meta.names.is_empty() && meta.extra_attrs.is_empty() && meta.rt_info.is_none();
        self.meta = (!empty).then(|| Box::new(meta));
        self
    }
}

/// Where a constant's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstData {
    /// A byte range of the input `.bin` (memory-mapped, never copied until written).
    Bin { offset: u64, size: u64 },
    /// Bytes computed by irc (folding).
    Owned(Arc<[u8]>),
    /// Bytes a pass already wrote to the output `.bin` at this place (weight compression
    /// streams its constants there); not readable through the model.
    Out { offset: u64, size: u64 },
}

/// A body graph of a subgraph op (`body`, `then_body`, `else_body`).
#[derive(Debug, Clone)]
pub struct Body {
    pub tag: String,
    pub graph: Graph,
}

/// A short string that is usually one of a known few (op types, `opsetN`, `Const`): those are
/// borrowed from static tables, so a 100k-layer model does not allocate them 200k times.
/// Other spellings (custom ops and opsets) are interned: one copy each for the life of the
/// process. A `Sym` is one pointer to a `&'static str` that lives in a static table or was
/// leaked once (8 bytes, two a layer; a `&'static str` itself is 16).
#[derive(Clone, Copy)]
pub struct Sym(&'static &'static str);

/// The opsets, and the IR's spelling of Constant: `static`, so a `Sym` can point into it.
static OTHERS: [&str; 18] = [
    "opset1", "opset2", "opset3", "opset4", "opset5", "opset6", "opset7", "opset8", "opset9",
    "opset10", "opset11", "opset12", "opset13", "opset14", "opset15", "opset16", "opset17",
    "Const",
];

impl Sym {
    /// The static spelling when `s` is an op type of the opset table, `opset1..17` or `Const`;
    /// else the interned copy of `s`.
    pub fn new(s: &str) -> Sym {
        use std::sync::OnceLock;
        static KNOWN: OnceLock<FastMap<&'static str, &'static &'static str>> = OnceLock::new();
        let known = KNOWN.get_or_init(|| {
            let mut m = FastMap::default();
            for (_, ops) in crate::ir::opset::OPSETS {
                for (t, _) in ops.iter() {
                    m.entry(*t).or_insert(t);
                }
            }
            for v in &OTHERS {
                m.entry(*v).or_insert(v);
            }
            m
        });
        match known.get(s) {
            Some(k) => Sym(k),
            None => Sym(intern(s)),
        }
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

/// The one copy of a spelling no static table has (bounded by the distinct spellings read).
fn intern(s: &str) -> &'static &'static str {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static OWNED: OnceLock<Mutex<HashMap<&'static str, &'static &'static str>>> = OnceLock::new();
    let mut set = OWNED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = set.get(s) {
        return k;
    }
    let text: &'static str = Box::leak(s.into());
    let k: &'static &'static str = Box::leak(Box::new(text));
    set.insert(text, k);
    k
}

impl std::ops::Deref for Sym {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Sym {
    fn eq(&self, o: &Sym) -> bool {
        self.as_str() == o.as_str()
    }
}
impl Eq for Sym {}

impl PartialEq<&str> for Sym {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}

impl std::fmt::Display for Sym {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Sym {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A list most owners leave empty, in one pointer (a `Vec` is three words): a layer's
/// bodies, port maps and extra attributes are rare, and a 100k-layer model holds 100k layers.
/// Reads as a slice; [`Few::push`] makes room on first use.
// The Box around the Vec is the point (one word where the Vec is three), not an oversight.
#[allow(clippy::box_collection)]
#[derive(Clone)]
pub struct Few<T>(Option<Box<Vec<T>>>);

/// Equal when the lists are (an emptied list equals one never made).
impl<T: PartialEq> PartialEq for Few<T> {
    fn eq(&self, o: &Self) -> bool {
        **self == **o
    }
}
impl<T: Eq> Eq for Few<T> {}

impl<T> Few<T> {
    pub const fn new() -> Self {
        Few(None)
    }
    pub fn push(&mut self, x: T) {
        self.0.get_or_insert_with(Default::default).push(x)
    }
}

impl<T> Default for Few<T> {
    fn default() -> Self {
        Few(None)
    }
}

impl<T> From<Vec<T>> for Few<T> {
    fn from(v: Vec<T>) -> Self {
        Few((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl<T> FromIterator<T> for Few<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        Few::from(it.into_iter().collect::<Vec<T>>())
    }
}

impl<T> std::ops::Deref for Few<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], |v| v.as_slice())
    }
}

impl<T> std::ops::DerefMut for Few<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_deref_mut().map_or(&mut [], |v| v.as_mut_slice())
    }
}

impl<'x, T> IntoIterator for &'x Few<T> {
    type Item = &'x T;
    type IntoIter = std::slice::Iter<'x, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'x, T> IntoIterator for &'x mut Few<T> {
    type Item = &'x mut T;
    type IntoIter = std::slice::IterMut<'x, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Few<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The parts of a layer most layers lack, in one allocation (a 100k-layer decoder has none).
#[derive(Debug, Clone, Default)]
struct Rare {
    extra_attrs: Vec<(String, String)>,
    pre: Vec<XmlElement>,
}

#[derive(Debug, Clone)]
pub struct Layer {
    /// The id as read (the writer renumbers).
    pub id: u64,
    pub name: String,
    pub ty: Sym,
    /// The `version` attribute, e.g. `opset8`.
    pub version: Sym,
    /// `<data>` attributes in file order; `None` when the layer has no `<data>`.
    pub data: Option<Attrs>,
    pub rt_info: Option<Arc<XmlElement>>,
    /// Ports live on the heap: a `Port` is large and most layers have two or three.
    pub inputs: Ports,
    pub outputs: Ports,
    /// What few layers have (extra `<layer>` attributes, elements before `<data>`), behind one
    /// pointer; read through [`Layer::extra_attrs`] and [`Layer::pre`].
    rare: Option<Box<Rare>>,
    pub bodies: Few<Body>,
    pub konst: Option<ConstData>,
    /// Index into the reader's [`crate::span::SourceMap`]; `None` for layers irc created.
    pub origin: Option<u32>,
}

impl Layer {
    pub fn new(ty: &str, version: &str, name: &str) -> Self {
        Layer {
            id: 0,
            name: name.to_string(),
            ty: Sym::new(ty),
            version: Sym::new(version),
            rare: None,
            data: None,
            rt_info: None,
            inputs: Ports::new(),
            outputs: Ports::new(),
            bodies: Few::new(),
            konst: None,
            origin: None,
        }
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.data.as_ref().and_then(|d| d.get(name))
    }

    /// Other `<layer>` attributes (e.g. `output_names`), verbatim, in order.
    pub fn extra_attrs(&self) -> &[(String, String)] {
        self.rare.as_ref().map_or(&[], |r| &r.extra_attrs)
    }
    /// The extra attributes to change in place (none added: empty when there are none).
    pub fn extra_attrs_mut(&mut self) -> &mut [(String, String)] {
        match &mut self.rare {
            Some(r) => &mut r.extra_attrs,
            None => &mut [],
        }
    }
    pub fn set_extra_attrs(&mut self, attrs: Vec<(String, String)>) {
        if !attrs.is_empty() || self.rare.is_some() {
            self.rare.get_or_insert_with(Default::default).extra_attrs = attrs;
        }
    }
    /// Elements written before `<data>`: port_map, back_edges, then/else_port_map, unknown ones.
    pub fn pre(&self) -> &[XmlElement] {
        self.rare.as_ref().map_or(&[], |r| &r.pre)
    }
    pub fn push_pre(&mut self, el: XmlElement) {
        self.rare.get_or_insert_with(Default::default).pre.push(el);
    }

    pub fn set_data_attr(&mut self, name: &str, value: String) {
        self.data.get_or_insert_with(Attrs::new).set(name, &value)
    }

    /// The opset number from `version="opsetN"`, if it has that form.
    pub fn opset(&self) -> Option<u32> {
        self.version.strip_prefix("opset")?.parse().ok()
    }

    /// Inlined: passes ask it several times a layer (a 100k-layer fold: 3.5M calls), and
    /// most answers are a length compare.
    #[inline]
    pub fn is(&self, ty: &str) -> bool {
        let (a, b) = (self.ty.as_str().as_bytes(), ty.as_bytes());
        a.len() == b.len() && a.eq_ignore_ascii_case(b)
    }

    /// The index of input port `port_id`. Ports are almost always numbered in order, so the
    /// expected place is tried first (a Concat of thousands of inputs stays linear).
    pub fn input_index(&self, port_id: u32) -> Option<usize> {
        port_index(&self.inputs, port_id)
    }
    pub fn output_index(&self, port_id: u32) -> Option<usize> {
        port_index(&self.outputs, port_id)
    }

    /// True when the layer's rt_info carries the `decompression` attribute.
    pub fn is_decompression(&self) -> bool {
        has_rt_attr(self.rt_info.as_deref(), "decompression")
    }

    /// A short human label: `Gather 'g1' (id 7, opset8)`.
    pub fn label(&self) -> String {
        format!(
            "{} '{}' (id {}, {})",
            self.ty, self.name, self.id, self.version
        )
    }
}

pub fn has_rt_attr(rt: Option<&XmlElement>, name: &str) -> bool {
    rt.is_some_and(|r| r.children.iter().any(|c| c.attr("name") == Some(name)))
}

/// A whole IR model.
#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    /// IR version: 10 or 11.
    pub version: u32,
    pub graph: Graph,
    /// Other children of `<net>` (legacy `meta_data`, `quantization_parameters`, unknown ones),
    /// kept verbatim and written after `<rt_info>`.
    pub extra: Vec<XmlElement>,
    /// The input `.bin`, memory-mapped.
    pub weights: Option<Arc<Weights>>,
}

impl Model {
    /// The bytes of a constant.
    pub fn const_bytes<'a>(&'a self, data: &'a ConstData) -> Option<&'a [u8]> {
        match data {
            ConstData::Owned(b) => Some(b),
            ConstData::Out { .. } => None,
            ConstData::Bin { offset, size } => {
                let w = self.weights.as_ref()?;
                let start = usize::try_from(*offset).ok()?;
                let end = start.checked_add(usize::try_from(*size).ok()?)?;
                w.bytes().get(start..end)
            }
        }
    }
}

/// A fast hasher for integer keys (layer ids, node indices, ports): the multiply-rotate of
/// FxHash. Not DoS-resistant, which a compiler reading local files does not need.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Eight bytes at a time (strings: op types, names).
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64)
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64)
    }
}

/// A layer's ports as inference found them, in port order (inputs, then outputs): the
/// precision and shape of each, `None` where nothing was inferred (the port stays as it is).
pub type PortFacts = smallvec::SmallVec<[Option<(ElementType, PartialShape)>; 4]>;

/// `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// A fast 64-bit content hash (collisions are resolved by comparing bytes).
pub fn hash_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = b.len() as u64 ^ 0x51_7c_c1_b7_27_22_0a_95;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    for &x in chunks.remainder() {
        h = (h.rotate_left(5) ^ x as u64).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// The index of the port with id `id`: where consecutive numbering from the first port puts it,
/// else by search.
fn port_index(ports: &[Port], id: u32) -> Option<usize> {
    // Ids usually run from the first one up; any other order is searched (an id below the
    // first was once "no such port").
    let guess = id.wrapping_sub(ports.first()?.id) as usize;
    match ports.get(guess) {
        Some(p) if p.id == id => Some(guess),
        _ => ports.iter().position(|p| p.id == id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list reads back as it was made: order, empty values, non-ASCII text, a NUL made
    /// U+FFFD; `get` finds each name, and names that are prefixes or extensions of others
    /// are told apart.
    #[test]
    fn attrs_read_back_as_made() {
        let pairs = [
            ("shape", "1, 2"),
            ("s", ""),
            ("shapes", "é,∞"),
            ("element_type", "f32"),
            ("odd", "a\0b"),
        ];
        let a = Attrs::from_pairs(pairs);
        let back: Vec<(&str, &str)> = a.iter().collect();
        let want: Vec<(&str, String)> = pairs
            .iter()
            .map(|&(k, v)| (k, v.replace('\0', "\u{FFFD}")))
            .collect();
        assert_eq!(back.len(), want.len());
        for ((k, v), (wk, wv)) in back.iter().zip(&want) {
            assert_eq!((k, v), (wk, &wv.as_str()));
            assert_eq!(a.get(k), Some(wv.as_str()), "{k}");
        }
        // "s\0" is the bytes of the name `s` and its NUL: not a name.
        for missing in ["", "sh", "shape ", "element", "x\0", "s\0"] {
            assert_eq!(a.get(missing), None, "{missing:?}");
        }
        assert_eq!(Attrs::from_pairs([]).iter().count(), 0);
    }
}
