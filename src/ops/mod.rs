//! Ops: one file per op (or per family), each holding its shape/type rule, its value rule, and
//! its tests. The registry maps (type, op version) to those rules; (type, `opsetN`) resolves to
//! an op version through [`opset_table`], as OpenVINO's reader does.

/// The opset table moved to the crate root (the IR reads it too); kept here under its old name.
pub use crate::ir::opset as opset_table;
pub mod util;

mod bitwise;
pub mod control;
mod conv;
pub mod convert;
mod detection;
pub(crate) mod elementwise;
mod embedding;
pub mod enums;
mod fake_convert;
pub mod fbounds;
mod generate;
mod grid_sample;
mod interpolate;
mod linalg;
pub mod math;
mod misc;
mod nms;
pub(crate) mod ovdim;
mod pool;
mod promote;
mod reduce;
mod roi_align;
mod search;
mod sequence;
mod shape_ops;
mod signal;
mod slice_scatter;
pub mod state;
mod string;
mod vision;

pub use util::*;

use crate::ir::{tensor::Tensor, ElementType, Layer, PartialShape};
use std::sync::{Arc, OnceLock};

/// What an op error concerns, so its diagnostic points there (the attribute in `<data>`, the
/// `<port>`) rather than at `<layer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    Attr(String),
    Input(usize),
    Output(usize),
}

/// An error of a shape rule or kernel: a message quoting the shapes or values involved and,
/// when it concerns one, the attribute or port. Plain strings convert (`Err(format!(..).into())`,
/// `?` on `Result<_, String>`); the pass adds the file position, the layer and the input shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct OpError {
    pub msg: String,
    pub at: Option<At>,
    /// A kernel failing where its own shape rule and type checks said it could not (a value
    /// that will not encode into the inferred type, index values of a type the rule refused):
    /// a bug in irc, never the model's fault. See [`bug`].
    pub bug: bool,
}

/// A kernel's internal error (see [`OpError::bug`]): `x.ok_or(bug("encode"))?`. Folding
/// reports it apart from ordinary declines, and debug builds (the suites' debug run, cargo
/// tests) stop on it.
pub fn bug(what: &str) -> OpError {
    OpError {
        msg: what.to_string(),
        at: None,
        bug: true,
    }
}

impl OpError {
    pub fn attr(name: &str, msg: impl Into<String>) -> Self {
        OpError {
            msg: msg.into(),
            at: Some(At::Attr(name.to_string())),
            bug: false,
        }
    }
    pub fn input(i: usize, msg: impl Into<String>) -> Self {
        OpError {
            msg: msg.into(),
            at: Some(At::Input(i)),
            bug: false,
        }
    }
    pub fn output(o: usize, msg: impl Into<String>) -> Self {
        OpError {
            msg: msg.into(),
            at: Some(At::Output(o)),
            bug: false,
        }
    }
}

impl From<String> for OpError {
    fn from(msg: String) -> Self {
        OpError {
            msg,
            at: None,
            bug: false,
        }
    }
}

impl From<&str> for OpError {
    fn from(msg: &str) -> Self {
        OpError {
            msg: msg.to_string(),
            at: None,
            bug: false,
        }
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

/// Attach a location to an error that has none: `cx.ints(1).ok_or("..").at_input(1)?`.
pub trait Locate<T> {
    fn at_input(self, i: usize) -> Result<T, OpError>;
    fn at_attr(self, name: &str) -> Result<T, OpError>;
}

impl<T, E: Into<OpError>> Locate<T> for Result<T, E> {
    fn at_input(self, i: usize) -> Result<T, OpError> {
        self.map_err(|e| {
            let e = e.into();
            OpError {
                at: e.at.or(Some(At::Input(i))),
                ..e
            }
        })
    }
    fn at_attr(self, name: &str) -> Result<T, OpError> {
        self.map_err(|e| {
            let e = e.into();
            OpError {
                at: e.at.clone().or_else(|| Some(At::Attr(name.to_string()))),
                ..e
            }
        })
    }
}

/// Integer value bounds of a small tensor (shape values): `hi == i64::MAX` means unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    pub lo: Vec<i64>,
    pub hi: Vec<i64>,
}

impl Bounds {
    pub fn exact(v: Vec<i64>) -> Self {
        Bounds {
            lo: v.clone(),
            hi: v,
        }
    }
    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }
}

/// Bounds of a float tensor's elements (see [`fbounds`]): each an exact value of its type, held
/// as f64; the type's maximum marks "unbounded".
#[derive(Debug, Clone, PartialEq)]
pub struct FBounds {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// What inference knows about one output: element type, shape, and possibly its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub et: ElementType,
    pub shape: PartialShape,
    /// The exact value, when known and small enough to keep.
    pub value: Option<Arc<Tensor>>,
    /// Integer bounds of the value (shape subgraphs), when known.
    pub bounds: Option<Arc<Bounds>>,
    /// Bounds of a float value (a shape computed in f32), when known.
    pub fbounds: Option<Arc<FBounds>>,
    /// For f16/bf16 values computed by folding: the unrounded f32 result. OpenVINO folds such
    /// ops in f32 and feeds the f32 constant to folded consumers, rounding only where an unfolded
    /// consumer reads it; this carries that f32 value.
    pub wide: Option<Arc<Tensor>>,
    /// Folding behind a weight-decompression Convert: the value before that Convert (its
    /// low-precision element type), where `et`/`shape` describe the widened tensor. Data movement
    /// runs on it, so the Convert can move after the folded op (passes::decompress).
    pub compressed: Option<Arc<Tensor>>,
    /// A 1-D Concat of single elements without values or bounds: per element, the value of a
    /// `Const` input (others `None`). OpenVINO's Broadcast reads such a target this way.
    pub concat_consts: Option<Arc<Vec<Option<i64>>>>,
    /// The value (or bounds) comes from an op OpenVINO evaluates for shape inference but never
    /// folds ([`Policy::bound_eval`]), directly or through what computes from it: it decides
    /// shapes, but the layer is not folded.
    pub unfoldable: bool,
}

impl Fact {
    pub fn new(et: ElementType, shape: PartialShape) -> Self {
        Fact {
            et,
            shape,
            value: None,
            bounds: None,
            fbounds: None,
            wide: None,
            compressed: None,
            concat_consts: None,
            unfoldable: false,
        }
    }
    pub fn with_value(t: Tensor) -> Self {
        let shape = PartialShape::from_static(&t.shape);
        Fact {
            et: t.et,
            shape,
            value: Some(Arc::new(t)),
            bounds: None,
            fbounds: None,
            wide: None,
            compressed: None,
            concat_consts: None,
            unfoldable: false,
        }
    }
    pub fn with_bounds(mut self, b: Bounds) -> Self {
        self.bounds = Some(Arc::new(b));
        self
    }
    /// Exact integer values: from the value, or from bounds that are equal.
    pub fn ints(&self) -> Option<Vec<i64>> {
        if let Some(v) = &self.value {
            if v.et.is_integral() || v.et == ElementType::Boolean {
                return v.to_i64s();
            }
            return None;
        }
        let b = self.bounds.as_ref()?;
        b.is_exact().then(|| b.lo.clone())
    }
    /// Integer bounds: from bounds, or from an exact integer value. A pair a Convert's wrap
    /// turned upside down (lower above upper) reads as the element type's whole range here;
    /// [`Fact::raw_int_bounds`] keeps it as OpenVINO does.
    pub fn int_bounds(&self) -> Option<Bounds> {
        let mut b = self.raw_int_bounds()?;
        let (min, max) = util::type_limits(self.et);
        // irc's "unbounded" marker: an i32 INT32_MAX reads as i64::MAX to every reader.
        let max = if self.et == ElementType::I32 {
            i64::MAX
        } else {
            max
        };
        for (l, h) in b.lo.iter_mut().zip(b.hi.iter_mut()) {
            if *l > *h {
                (*l, *h) = (min, max);
            }
        }
        Some(b)
    }
    /// Integer bounds as OpenVINO's bound evaluators hand them on, a pair lower above upper
    /// included (a Convert wraps `[-2^63 + 4, 2^63 - 10]` to i32 as `[4, -10]`): the rules
    /// measured to read such pairs (Slice, StridedSlice) take them so.
    pub fn raw_int_bounds(&self) -> Option<Bounds> {
        if let Some(b) = &self.bounds {
            return Some((**b).clone());
        }
        self.ints().map(Bounds::exact)
    }
}

/// Largest value (in bytes as stored: 65,536 i64s) that `infer-shapes` computes and keeps
/// (shape values are small); folding raises it with its budget
/// (`FoldOptions::value_limit_bytes`).
pub const MAX_VALUE_BYTES: u64 = 8 << 16;

/// Hard cap (in elements) on any tensor a value rule materializes.
pub const MAX_EVAL_ELEMS: usize = 1 << 28;

/// Everything a rule may look at: the layer (attributes) and the facts of its inputs.
pub struct Ctx<'a> {
    pub layer: &'a Layer,
    /// The op type as the opset table spells it (`Relu` for an IR's `ReLU`): rules shared by a
    /// family tell their members apart by it.
    pub ty: &'static str,
    pub inputs: &'a [Fact],
    /// The op version the layer resolved to.
    pub version: u32,
    /// Folding evaluates f16/bf16 ops in f32 (Range-4 then produces f32 even when its
    /// output_type is f16).
    pub f32_mode: bool,
    /// The value is computed as ConstantFolding folds it (`fold`, and not for a shape rule):
    /// some kernels compute there what OpenVINO's shape inference leaves unknown (a Pad to
    /// below zero folds to an empty tensor, its shape is `?`).
    pub folding: bool,
    /// The layer's typed attributes, parsed once ([`Ctx::attrs`]) and shared by the shape rule
    /// and the kernel.
    pub attrs: &'a AttrCache,
}

/// An op's typed, validated attributes: parsed from the layer's `<data>` once per layer (the
/// shape rule and the kernel then read plain fields), with errors located at the attribute.
pub trait Attrs: Sized + 'static {
    fn parse(cx: &Ctx) -> Result<Self, OpError>;
}

/// Where a layer's parsed [`Attrs`] live between its shape rule and its kernel.
#[derive(Default)]
pub struct AttrCache(std::cell::OnceCell<Box<dyn std::any::Any>>);

impl Ctx<'_> {
    /// The layer's attributes as `T`, parsed on first use. An op has one attributes type.
    pub fn attrs<T: Attrs>(&self) -> Result<&T, OpError> {
        if self.attrs.0.get().is_none() {
            let parsed = T::parse(self)?;
            let _ = self.attrs.0.set(Box::new(parsed));
        }
        self.attrs
            .0
            .get()
            .and_then(|b| b.downcast_ref::<T>())
            .ok_or_else(|| OpError::from("internal: one layer read as two attribute types"))
    }
}

/// A shape/type rule: output facts (element type, shape, and for shape subgraphs the value or
/// its bounds) from the input facts.
pub type InferFn = fn(&Ctx) -> Result<Vec<Fact>, OpError>;

/// A kernel: output values from input values. `outs` are the facts the shape rule computed for
/// this layer (types and shapes), as OpenVINO's `evaluate` reuses `shape_infer`; each value
/// returned must have its output's shape (checked in debug builds).
pub type EvalFn = fn(&Ctx, &[Fact]) -> Result<Vec<Fact>, OpError>;

/// How an op's value bounds propagate when its inputs are not all exactly known.
#[derive(Clone, Copy)]
pub enum BoundsRule {
    None,
    /// Data movement: run the value rule on lower and on upper inputs separately. Inputs listed
    /// in the mask (bit i = input i) may carry bounds; the others must be exact.
    Movement(u32),
}

/// Is input `i` in a [`BoundsRule::Movement`] mask? `u32::MAX` means every input (Concat),
/// however many there are.
pub fn mask_has(mask: u32, i: usize) -> bool {
    mask == u32::MAX || (i < 32 && (mask >> i) & 1 == 1)
}

/// What passes may do with an op, beyond its rules.
#[derive(Clone, Copy)]
pub struct Policy {
    /// False: never computed ahead of run time (state, randomness, FakeQuantize), whatever its
    /// inputs, as OpenVINO's ConstantFolding never folds it.
    pub folds: bool,
    /// A sink: kept (with what it reads) by dead-layer removal although nothing reads it.
    pub sink: bool,
    /// How many leading inputs the kernel needs as values (ConvertLike: 1, the other input gives
    /// just a type); the rest only as types and shapes.
    pub value_inputs: usize,
    /// Evaluated in its own precision even for f16/bf16 (OpenVINO's ConstantFolding otherwise
    /// computes f16/bf16 ops in f32).
    pub native_precision: bool,
    /// Evaluated in its own precision (f16/bf16 rounding after every arithmetic operation)
    /// where OpenVINO computes it while inferring shapes: its `evaluate` runs the reference
    /// templated on `float16`, while ConstantFolding computes in f32 (ROIAlign).
    pub native_for_shapes: bool,
    /// The element types (of input 0) OpenVINO has a kernel for, when not all of them (called
    /// with the op type, so one table can serve a family).
    pub kernel_types: Option<fn(&str, ElementType) -> bool>,
    /// OpenVINO never folds the op, but its shape inference runs the op's `evaluate` when a
    /// rule reads its value (FakeQuantize): the value is computed (when its inputs are known)
    /// and marked [`Fact::unfoldable`], so it decides shapes but nothing folds from it, but for
    /// the ops whose `constant_fold` reads bounds ([`FOLDS_BOUNDS`]).
    pub bound_eval: bool,
    /// False: OpenVINO has no `evaluate` for the op at all (its ConstantFolding never folds
    /// it and no value or bound passes through it into a shape), though irc has a kernel.
    /// Shape inference then gives the op no values, as OpenVINO's; `fold` still computes it
    /// (the CPU plugin agrees: tests/ov/fold.py, fuzz.py).
    pub ov_evaluates: bool,
}

/// Ops irc computes whose values OpenVINO 2026.4.1 never computes ahead of run time (measured:
/// ConstantFolding leaves every constant case of tests/ov/shapes.py), by (type, versions).
const OV_NO_EVALUATE: &[(&str, &[u32])] = &[
    ("Bucketize", &ALL_VERSIONS),
    // No `evaluate` either (its ConstantFolding folds it through `constant_fold`, and so does
    // irc's fold): a NonZero of it is `[1,..3]` where the values would give `[1,2]`.
    ("ConvertLike", &ALL_VERSIONS),
    ("GatherElements", &ALL_VERSIONS),
    ("GatherND", &ALL_VERSIONS),
    ("GatherTree", &ALL_VERSIONS),
    ("Identity", &ALL_VERSIONS),
    ("SearchSorted", &ALL_VERSIONS),
    ("SliceScatter", &ALL_VERSIONS),
];

#[derive(Clone, Copy)]
pub struct OpDef {
    pub infer: InferFn,
    /// Computes output values when all inputs are known (used by inference for small values
    /// and by folding).
    pub eval: Option<EvalFn>,
    pub bounds: BoundsRule,
    pub policy: Policy,
}

const DEFAULT_POLICY: Policy = Policy {
    folds: true,
    sink: false,
    value_inputs: usize::MAX,
    native_precision: false,
    native_for_shapes: false,
    kernel_types: None,
    bound_eval: false,
    ov_evaluates: true,
};

/// Ops whose OpenVINO `constant_fold` evaluates its input's bounds, so they fold where an input
/// is only known through bound evaluation (a NonZero or a StridedSlice behind a FakeQuantize of
/// constants; measured: Reshape, Slice, Gather, Concat… do not).
pub const FOLDS_BOUNDS: &[&str] = &["NonZero", "StridedSlice"];

/// Keyed by (type as spelled in the opset table, op version). Built with the constructors and
/// the policy setters: `OpDef::with_eval(infer, eval).movement(0b1)`.
impl OpDef {
    /// A shape/type rule only: values are never computed.
    pub const fn shape_only(infer: InferFn) -> Self {
        OpDef {
            infer,
            eval: None,
            bounds: BoundsRule::None,
            policy: DEFAULT_POLICY,
        }
    }
    /// A shape/type rule and a kernel.
    pub const fn with_eval(infer: InferFn, eval: EvalFn) -> Self {
        OpDef {
            infer,
            eval: Some(eval),
            bounds: BoundsRule::None,
            policy: DEFAULT_POLICY,
        }
    }
    /// Data movement: bounds of the inputs in `mask` flow through the kernel.
    pub const fn movement(mut self, mask: u32) -> Self {
        self.bounds = BoundsRule::Movement(mask);
        self
    }
    /// Never computed ahead of run time.
    pub const fn never_folds(mut self) -> Self {
        self.policy.folds = false;
        self
    }
    /// Kept by dead-layer removal although nothing reads it (implies never folded).
    pub const fn sink(mut self) -> Self {
        self.policy.sink = true;
        self.policy.folds = false;
        self
    }
    /// The kernel needs only the first `n` inputs as values.
    pub const fn value_inputs(mut self, n: usize) -> Self {
        self.policy.value_inputs = n;
        self
    }
    /// Computed for shape rules (never folded): see [`Policy::bound_eval`].
    pub const fn bound_eval(mut self) -> Self {
        self.policy.bound_eval = true;
        self
    }
    /// Evaluated in its own precision even for f16/bf16.
    pub const fn native_for_shapes(mut self) -> Self {
        self.policy.native_for_shapes = true;
        self
    }
    pub const fn native_precision(mut self) -> Self {
        self.policy.native_precision = true;
        self
    }
    /// OpenVINO has a kernel only for these element types (of input 0).
    pub const fn kernel_types(mut self, f: fn(&str, ElementType) -> bool) -> Self {
        self.policy.kernel_types = Some(f);
        self
    }
}

/// A layer's op, resolved — the op as a value built once per layer: its rules, its type as the
/// opset table spells it, its version, and its typed attributes once a rule has parsed them.
pub struct Resolved {
    pub def: OpDef,
    pub ty: &'static str,
    pub version: u32,
    pub attrs: AttrCache,
}

/// Op versions every registration covers (the table decides which exist).
pub const ALL_VERSIONS: [u32; 18] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

type Registry = crate::ir::FastMap<(&'static str, u32), (OpDef, &'static str)>;

pub struct Reg(Registry);

impl Reg {
    /// Register `ty` for op versions `versions`. One definition per op: registering a
    /// (type, version) twice is a bug, caught when the registry is built (`registry_builds`).
    pub fn add(&mut self, ty: &'static str, versions: &[u32], def: OpDef) {
        for &v in versions {
            if self.0.insert((ty, v), (def, ty)).is_some() {
                panic!("op {ty} version {v} is registered twice");
            }
        }
    }
}

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let mut r = Reg(Default::default());
        elementwise::register(&mut r);
        shape_ops::register(&mut r);
        conv::register(&mut r);
        pool::register(&mut r);
        interpolate::register(&mut r);
        reduce::register(&mut r);
        misc::register(&mut r);
        state::register(&mut r);
        bitwise::register(&mut r);
        string::register(&mut r);
        signal::register(&mut r);
        sequence::register(&mut r);
        embedding::register(&mut r);
        search::register(&mut r);
        generate::register(&mut r);
        linalg::register(&mut r);
        slice_scatter::register(&mut r);
        promote::register(&mut r);
        detection::register(&mut r);
        roi_align::register(&mut r);
        nms::register(&mut r);
        vision::register(&mut r);
        grid_sample::register(&mut r);
        fake_convert::register(&mut r);
        // Gelu-0 (erf) is computed neither: OpenVINO has no evaluate for it and its CPU plugin
        // approximates erf, so no folded value could equal what the model computes at run time.
        if let Some((def, _)) = r.0.get_mut(&("Gelu", 0)) {
            def.policy.folds = false;
        }
        for &(ty, versions) in OV_NO_EVALUATE {
            for v in versions {
                if let Some((def, _)) = r.0.get_mut(&(ty, *v)) {
                    def.policy.ov_evaluates = false;
                }
            }
        }
        r.0
    })
}

/// IR type names that differ from the op class name.
fn canonical_type(ty: &str) -> &str {
    match ty {
        "Const" => "Constant",
        "ReLU" => "Relu",
        "PReLU" => "PRelu",
        "SoftMax" => "Softmax",
        t => t,
    }
}

/// (type as spelled in the opset table, opset) → op version, plus the same keyed by the
/// lower-case type for OpenVINO's case-insensitive lookup. Built once.
struct OpsetIndex {
    exact: crate::ir::FastMap<(&'static str, u32), (&'static str, u32)>,
    lower: crate::ir::FastMap<(String, u32), (&'static str, u32)>,
}

fn opset_index() -> &'static OpsetIndex {
    static I: OnceLock<OpsetIndex> = OnceLock::new();
    I.get_or_init(|| {
        let mut exact = crate::ir::FastMap::default();
        let mut lower = crate::ir::FastMap::default();
        for (n, ops) in opset_table::OPSETS {
            for &(t, v) in ops.iter() {
                exact.insert((t, *n), (t, v));
                lower.insert((t.to_ascii_lowercase(), *n), (t, v));
            }
        }
        OpsetIndex { exact, lower }
    })
}

/// Resolve a layer's (type, version attribute) to (type as in the opset table, op version).
/// `None` for types the named opset does not hold and for custom opsets.
pub fn resolve(ty: &str, version: &str) -> Option<(&'static str, u32)> {
    let mut n: u32 = version.strip_prefix("opset")?.parse().ok()?;
    let ty = canonical_type(ty);
    if n == 1 && matches!(ty, "MVN" | "ROIPooling" | "ReorgYolo") {
        n = 2;
    }
    let idx = opset_index();
    idx.exact
        .get(&(ty, n))
        .or_else(|| idx.lower.get(&(ty.to_ascii_lowercase(), n)))
        .copied()
}

/// The rules for a layer, with its type and op version; `None` for ops irc does not know
/// (opaque).
pub fn lookup(layer: &Layer) -> Option<Resolved> {
    let found = find_static(layer.ty.as_str(), layer.version.as_str());
    found.map(|(def, ty, version)| Resolved {
        def: *def,
        ty,
        version,
        attrs: AttrCache::default(),
    })
}

/// Is `layer` a sink (kept by dead-layer removal although nothing reads it)? Assign is the
/// only sink op (`tests::assign_is_the_only_sink`): other types are told by name, without a
/// registry look-up per layer.
pub fn is_sink(layer: &Layer) -> bool {
    layer.is("Assign") && lookup(layer).is_some_and(|op| op.def.policy.sink)
}

type Found = Option<(&'static OpDef, &'static str, u32)>;

fn find(ty: &str, version: &str) -> Found {
    let (ty, version) = resolve(ty, version)?;
    registry().get(&(ty, version)).map(|d| (&d.0, d.1, version))
}

/// [`find`] for a layer's type and version, static strings (a [`crate::ir::Sym`] is one: from
/// the opset table or interned), remembered per thread by the strings' addresses and lengths:
/// passes look a layer up several times, and resolving parses the opset and hashes two strings.
fn find_static(ty: &'static str, version: &'static str) -> Found {
    use std::cell::RefCell;
    type Key = (usize, usize, usize, usize);
    thread_local! {
        static SEEN: RefCell<crate::ir::FastMap<Key, Found>> = RefCell::default();
    }
    let key = (
        ty.as_ptr() as usize,
        ty.len(),
        version.as_ptr() as usize,
        version.len(),
    );
    // In front of the map, a small table by the strings' addresses (a model has a few dozen
    // op types; the map's hashing of four words was 1.7% of a 100k-layer fold).
    const RECENT: usize = 64;
    thread_local! {
        static LAST: RefCell<[(Key, Found); RECENT]> =
            const { RefCell::new([((0, 0, 0, 0), None); RECENT]) };
    }
    let slot = ((key.0 >> 3) ^ (key.2 >> 3).rotate_left(7) ^ key.1) % RECENT;
    let hit = LAST.with(|last| {
        let (k, f) = last.borrow()[slot];
        (k == key).then_some(f)
    });
    if let Some(f) = hit {
        return f;
    }
    let f = SEEN.with(|seen| {
        if let Some(&f) = seen.borrow().get(&key) {
            return f;
        }
        let f = find(ty, version);
        seen.borrow_mut().insert(key, f);
        f
    });
    LAST.with(|last| last.borrow_mut()[slot] = (key, f));
    f
}

/// Every (type, version) irc has rules for, with whether it has a kernel, sorted (for
/// docs/ops.md).
pub fn covered() -> Vec<(String, u32, bool)> {
    let mut v: Vec<(String, u32, bool)> = registry()
        .iter()
        .map(|((_, ver), (def, name))| (name.to_string(), *ver, def.eval.is_some()))
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    /// [`super::is_sink`] looks only at Assigns.
    #[test]
    fn assign_is_the_only_sink() {
        let sinks: Vec<(&str, u32)> = super::registry()
            .iter()
            .filter(|(_, (def, _))| def.policy.sink)
            .map(|((_, ver), (_, name))| (*name, *ver))
            .collect();
        assert!(!sinks.is_empty());
        assert!(sinks.iter().all(|(name, _)| *name == "Assign"), "{sinks:?}");
    }

    #[test]
    fn registry_builds() {
        // Building the registry panics on an op registered twice. Every (type, version) an
        // opset holds has rules, so no layer of a known op is taken on trust.
        let covered = super::covered();
        let mut missing: Vec<String> = crate::ir::opset::OPSETS
            .iter()
            .flat_map(|(_, ops)| ops.iter())
            .filter(|&&(t, v)| !covered.iter().any(|(c, cv, _)| c == t && *cv == v))
            .map(|(t, v)| format!("{t}-{v}"))
            .collect();
        missing.sort();
        missing.dedup();
        // The structural ops: the reader and `passes::infer` (bodies: `ops::control`) handle
        // them, not the registry.
        let structural = [
            "Constant-0",
            "If-8",
            "Loop-5",
            "Parameter-0",
            "Result-0",
            "TensorIterator-0",
        ];
        assert_eq!(missing, structural, "op versions without rules");
    }
}
