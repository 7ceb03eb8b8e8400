//! Kernel results kept for inputs seen before: a layer computed from the same values as an
//! earlier one of its op and attributes gets that one's results without running the kernel.
//! A decoder builds the same causal mask in each of its blocks, from the same shape values
//! (800 masks of 16k elements, a fifth of a 100k-layer model's inference), and the same
//! ShapeOf, Gather and Concat chains around it.
//!
//! Values are recognized by their bytes' allocation, not compared: equal small values are
//! one tensor and equal bigger ones share their bytes ([`Infer::share`]), so equal inputs are
//! the same allocation. The memo holds those allocations, so an address it keys on is never
//! reused for other bytes while it is kept. Kernels are pure: their results depend only on the
//! op, its attributes, the input values, the output types and shapes they are asked for, and
//! the two modes below (`Ctx`); a layer's other fields (its name, its ports' precisions) are
//! not read by any kernel but for its number of outputs, which is in the key.

use super::*;

/// Inputs and outputs at most this big (bytes, each) are remembered.
const MEMO_MAX_BYTES: usize = 64 << 10;
/// Bytes the memo may hold alive (inputs and outputs of the kept results).
const MEMO_BUDGET: usize = 2 << 20;

/// One input as the kernel sees it: the fact's type and shape, its value's type, shape and
/// bytes, and its f32 value's bytes.
#[derive(Clone)]
struct In {
    fact: (ElementType, PartialShape),
    et: ElementType,
    shape: Vec<u64>,
    value: Arc<[u8]>,
    wide: Option<Arc<[u8]>>,
}

impl PartialEq for In {
    fn eq(&self, o: &In) -> bool {
        let same = |a: &Option<Arc<[u8]>>, b: &Option<Arc<[u8]>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        self.fact == o.fact
            && self.et == o.et
            && self.shape == o.shape
            && Arc::ptr_eq(&self.value, &o.value)
            && same(&self.wide, &o.wide)
    }
}

/// What a kernel's result depends on.
#[derive(Clone, PartialEq)]
pub(super) struct EvalKey {
    ty: &'static str,
    version: u32,
    attrs: Option<Attrs>,
    f32_mode: bool,
    folding: bool,
    outputs: usize,
    inputs: Vec<In>,
    outs: Vec<(ElementType, PartialShape)>,
}

impl EvalKey {
    /// The key of running the kernel in `cx` for `outs`, when every input has a value (and
    /// nothing else) and none is too big to keep.
    pub(super) fn new(cx: &Ctx, outs: &[Fact]) -> Option<Self> {
        let inputs = cx
            .inputs
            .iter()
            .map(|f| {
                let v = f.value.as_ref()?;
                // Only a value and its f32 form: nothing else a kernel could read.
                let plain = f.bounds.is_none()
                    && f.fbounds.is_none()
                    && f.compressed.is_none()
                    && f.concat_consts.is_none();
                let small = plain
                    && v.data.len() <= MEMO_MAX_BYTES
                    && f.wide
                        .as_ref()
                        .is_none_or(|w| w.data.len() <= MEMO_MAX_BYTES);
                small.then(|| In {
                    fact: (f.et, f.shape.clone()),
                    et: v.et,
                    shape: v.shape.clone(),
                    value: v.data.clone(),
                    wide: f.wide.as_ref().map(|w| w.data.clone()),
                })
            })
            .collect::<Option<Vec<In>>>()?;
        Some(EvalKey {
            ty: cx.ty,
            version: cx.version,
            attrs: cx.layer.data.clone(),
            f32_mode: cx.f32_mode,
            folding: cx.folding,
            outputs: cx.layer.outputs.len(),
            inputs,
            outs: outs.iter().map(|o| (o.et, o.shape.clone())).collect(),
        })
    }

    fn hash(&self) -> u64 {
        let mut h = crate::ir::hash_bytes(self.ty.as_bytes()) ^ self.version as u64;
        for i in &self.inputs {
            let p = Arc::as_ptr(&i.value) as *const u8 as u64;
            h = (h.rotate_left(9) ^ p).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        h
    }

    fn bytes(&self) -> usize {
        self.inputs
            .iter()
            .map(|i| i.value.len() + i.wide.as_ref().map_or(0, |w| w.len()))
            .sum()
    }
}

/// Kernel results by [`EvalKey`].
#[derive(Default)]
pub(super) struct Memo {
    kept: FastMap<u64, Vec<(EvalKey, Vec<Fact>)>>,
    held: usize,
    /// Results given without running the kernel.
    hits: usize,
}

impl Memo {
    pub(super) fn get(&mut self, k: &EvalKey) -> Option<Vec<Fact>> {
        let bucket = self.kept.get(&k.hash())?;
        let found = bucket.iter().find(|(e, _)| e == k).map(|(_, v)| v.clone());
        self.hits += found.is_some() as usize;
        found
    }

    /// Keep `vals` for `k` while the budget allows and every output is small enough.
    pub(super) fn put(&mut self, k: EvalKey, vals: &[Fact]) {
        let mut bytes = k.bytes();
        for f in vals {
            for t in [&f.value, &f.wide].into_iter().flatten() {
                if t.data.len() > MEMO_MAX_BYTES {
                    return;
                }
                bytes += t.data.len();
            }
        }
        if self.held + bytes > MEMO_BUDGET {
            return;
        }
        self.held += bytes;
        self.kept
            .entry(k.hash())
            .or_default()
            .push((k, vals.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ShapeOf's value read by two Converts to f32 and one to i32, and two ShapeOfs of the
    /// Parameter with different output types.
    const NET: &str = r#"<net name="m" version="11"><layers>
<layer id="0" name="p" type="Parameter" version="opset1"><data shape="2,3,4" element_type="f32"/><output><port id="0" precision="FP32"/></output></layer>
<layer id="1" name="s" type="ShapeOf" version="opset3"><data output_type="i64"/><input><port id="0" precision="FP32"/></input><output><port id="1" precision="I64"/></output></layer>
<layer id="2" name="a" type="Convert" version="opset1"><data destination_type="f32"/><input><port id="0" precision="I64"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="3" name="b" type="Convert" version="opset1"><data destination_type="f32"/><input><port id="0" precision="I64"/></input><output><port id="1" precision="FP32"/></output></layer>
<layer id="4" name="c" type="Convert" version="opset1"><data destination_type="i32"/><input><port id="0" precision="I64"/></input><output><port id="1" precision="I32"/></output></layer>
<layer id="5" name="d" type="ShapeOf" version="opset3"><data output_type="i32"/><input><port id="0" precision="FP32"/></input><output><port id="1" precision="I32"/></output></layer>
<layer id="6" name="e" type="ShapeOf" version="opset3"><data output_type="i64"/><input><port id="0" precision="FP32"/></input><output><port id="1" precision="I64"/></output></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="3" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="4" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="5" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="6" to-port="0"/>
</edges></net>"#;

    type Value = (ElementType, Vec<u64>, Vec<u8>);

    /// Each layer's value, and the memo's hits; with the memo off (its budget used up) or on.
    fn values(m: &Model, memo: bool) -> (Vec<(String, Option<Value>)>, usize) {
        let mut inf = Infer::new(m, None, &[]);
        if !memo {
            inf.memo.held = MEMO_BUDGET;
        }
        let facts = inf.run();
        let vals = m
            .graph
            .nodes()
            .map(|n| {
                let v = facts.get(n, 0).and_then(|f| f.value);
                let v = v.map(|v| (v.et, v.shape.clone(), v.data.to_vec()));
                (m.graph[n].name.to_string(), v)
            })
            .collect();
        (vals, inf.memo.hits)
    }

    /// Layers of one op on the same values share its results only when their attributes match
    /// too; each value is what the kernel alone gives.
    #[test]
    fn same_inputs_share_results_only_with_the_same_attributes() {
        let m = crate::xml::read_str(Arc::from(NET), "m.xml", None, "m.bin")
            .unwrap()
            .model;
        let ((with, hits), (without, none)) = (values(&m, true), values(&m, false));
        assert_eq!(with, without);
        // `b` is `a`'s result; `c` (another destination type) is computed.
        assert_eq!((hits, none), (1, 0));
        let v = |name: &str| {
            with.iter()
                .find(|(n, _)| n == name)
                .unwrap()
                .1
                .clone()
                .unwrap()
        };
        assert_eq!(v("a"), v("b"));
        assert_eq!(v("a").0, ElementType::F32);
        assert_eq!(v("c").0, ElementType::I32);
        assert_eq!(v("c").2, [2u32, 3, 4].map(u32::to_le_bytes).concat());
        assert_eq!(v("d").0, ElementType::I32);
        assert_eq!(v("e"), v("s"));
    }
}
