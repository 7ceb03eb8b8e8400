//! Values during inference: which layers are computed (OpenVINO's folding policy, the size budget,
//! decompression chains left as they are) and their evaluation, with the constants read from the
//! .bin.

use super::*;

impl<'a> Infer<'a> {
    /// Values of a layer's outputs: exact when every input the kernel reads is known and the
    /// result is small, else bounds for movement ops.
    pub(super) fn values(
        &mut self,
        l: &Layer,
        op: &ops::Resolved,
        cx: &Ctx,
        outs: Vec<Fact>,
    ) -> Vec<Fact> {
        let mut outs = self.values_of(l, op, cx, outs);
        // Known only through OpenVINO's bound evaluation of an op it never folds: so is what
        // is computed from it, but for the ops whose own folding reads bounds.
        let unfoldable = op.def.policy.bound_eval
            || (cx.inputs.iter().any(|f| f.unfoldable) && !ops::FOLDS_BOUNDS.contains(&op.ty));
        if unfoldable {
            for o in &mut outs {
                o.unfoldable = o.value.is_some() || o.bounds.is_some();
            }
        }
        outs
    }

    pub(super) fn values_of(
        &mut self,
        l: &Layer,
        op: &ops::Resolved,
        cx: &Ctx,
        mut outs: Vec<Fact>,
    ) -> Vec<Fact> {
        let inputs = cx.inputs;
        let needed = op.def.policy.value_inputs.min(inputs.len());
        let all_known = inputs[..needed]
            .iter()
            .all(|f| f.value.is_some() || f.ints().is_some());
        let bytes = |f: &Fact| f.shape.static_count().map(|n| value_bytes(f.et, n));
        // Outputs must fit the limit; outputs whose shape depends on values (NonZero) are
        // bounded by the inputs.
        let small = outs
            .iter()
            .all(|o| bytes(o).is_some_and(|n| n <= self.value_limit))
            || (outs.iter().any(|o| bytes(o).is_none())
                && inputs
                    .iter()
                    .all(|f| bytes(f).is_some_and(|n| n <= self.value_limit)));
        if op.def.eval.is_some() && all_known && small && self.within_budget(l, inputs, &outs) {
            if let Some(vals) = self.evaluate(l, op, inputs, &outs) {
                for (o, v) in outs.iter_mut().zip(vals) {
                    // String values move only when folding: OpenVINO's reader infers
                    // StringTensorUnpack's byte count only off a Constant producer, and a
                    // Reshape of one stays a Reshape until ConstantFolding runs.
                    let keep = |t: &Arc<Tensor>| {
                        t.data.len() as u64 <= self.value_limit
                            && (self.fold_mode || t.et != ElementType::String)
                    };
                    if let Some(t) = v.value.filter(keep) {
                        o.shape = PartialShape::from_static(&t.shape);
                        o.value = Some(self.share(t));
                        o.wide = v.wide.map(|w| self.share(w));
                        o.bounds = None;
                        o.fbounds = None;
                    }
                }
            }
        } else if let (BoundsRule::Movement(mask), Some(eval)) = (op.def.bounds, op.def.eval) {
            // OpenVINO moves bounds with the op's kernel: none where it has no kernel.
            let et = inputs.first().map_or(ElementType::Dynamic, |f| f.et);
            if op.def.policy.kernel_types.is_some_and(|ok| !ok(op.ty, et)) {
                return outs;
            }
            if let Some(b) = movement_bounds(cx, mask, op.def.infer, eval) {
                for (o, (bo, fo)) in outs.iter_mut().zip(b) {
                    if let Some(bo) = bo {
                        o.bounds = Some(Arc::new(bo));
                    }
                    if let Some(fo) = fo {
                        o.fbounds = Some(Arc::new(fo));
                    }
                }
            }
        }
        outs
    }

    /// Run a kernel. In fold mode, ops touching f16/bf16 run in f32 on the unrounded ("wide")
    /// inputs, and their f16/bf16 outputs keep the f32 result beside the rounded value.
    pub(super) fn evaluate(
        &mut self,
        l: &Layer,
        op: &ops::Resolved,
        inputs: &[Fact],
        outs: &[Fact],
    ) -> Option<Vec<Fact>> {
        let eval = op.def.eval?;
        let policy = &op.def.policy;
        // Types OpenVINO has no kernel for: not folded, as in OpenVINO.
        let orig = inputs.first().map_or(ElementType::Dynamic, |f| f.et);
        if policy.kernel_types.is_some_and(|ok| !ok(op.ty, orig)) {
            self.decline(l, format!("OpenVINO has no {} kernel for {orig}", op.ty));
            return None;
        }
        // Range-1 has no f16/bf16 `evaluate`: OpenVINO's ConstantFolding folds it through f32,
        // its shape inference computes no value (a NonZero of it is `[1,..4]`; measured, fuzz
        // 1717:45274).
        let for_shapes = !self.fold_mode || self.round_each_op;
        if for_shapes && op.ty == "Range" && op.version < 4 && outs.iter().any(|o| is_half(o.et)) {
            return None;
        }
        // Convert is not computed in f32 by ConstantFolding: it reads its input as it is, an
        // f16 result handed on in f32 included (f16 -> nf4 has a kernel, f32 -> nf4 none).
        let convert_native = op.ty == "Convert" && inputs.iter().all(|f| f.wide.is_none());
        // An op computed for a shape rule with its native f16/bf16 kernel (ROIAlign) is not.
        let native_for_shapes = self.round_each_op && policy.native_for_shapes;
        let f32_mode = self.fold_mode
            && !policy.native_precision
            && !native_for_shapes
            && !convert_native
            && (inputs.iter().any(|f| is_half(f.et)) || outs.iter().any(|f| is_half(f.et)));
        // OpenVINO has no bf16 kernel for these: ConstantFolding restores their inputs to bf16
        // (rounding a result handed on in f32) and rounds their result
        // (docs/openvino-differences.md, "f16/bf16 chains").
        let bf16_restored = (inputs.iter().any(|f| f.et == ElementType::Bf16)
            || outs.iter().any(|f| f.et == ElementType::Bf16))
            && BF16_RESTORED.contains(&op.ty);
        let rounded = self.round_each_op || bf16_restored;
        let widen = |f: &Fact| {
            let mut g = materialize(f);
            if f32_mode && is_half(f.et) {
                let wide = if rounded { None } else { f.wide.clone() };
                let w = wide.or_else(|| {
                    g.value
                        .as_ref()
                        .and_then(|v| ops::convert::convert(v, ElementType::F32))
                        .map(Arc::new)
                });
                g.et = ElementType::F32;
                g.value = w;
                g.wide = None;
            }
            g
        };
        let known: Vec<Fact> = inputs.iter().map(widen).collect();
        let needed = policy.value_inputs.min(known.len());
        if known[..needed].iter().any(|f| f.value.is_none()) {
            return None;
        }
        // The kernel sees the output types it computes in (f32 in f32 mode).
        let eval_outs: Vec<Fact> = outs
            .iter()
            .map(|o| match f32_mode && is_half(o.et) {
                true => Fact::new(ElementType::F32, o.shape.clone()),
                false => Fact::new(o.et, o.shape.clone()),
            })
            .collect();
        let cx = Ctx {
            layer: l,
            ty: op.ty,
            inputs: &known,
            version: op.version,
            f32_mode,
            folding: self.fold_mode && !self.round_each_op,
            attrs: &op.attrs,
        };
        let vals = self.kernel(eval, &cx, &eval_outs)?;
        if vals.len() != outs.len() {
            return None;
        }
        // Values OpenVINO reads while inferring shapes come through the bound evaluators, whose
        // Convert maps the source type's maximum to the destination's
        let mut vals = vals;
        if !self.fold_mode || self.round_each_op {
            if let Some(t) = self.shape_bound_value(op.ty, &known, &vals) {
                vals[0].value = Some(Arc::new(t));
            }
        }
        Self::kernel_facts(l, vals, outs, f32_mode, rounded)
    }

    /// The kernel's results, or those of an earlier layer computed from the same values
    /// ([`memo`]); `None` when it fails.
    fn kernel(&mut self, eval: ops::EvalFn, cx: &Ctx, eval_outs: &[Fact]) -> Option<Vec<Fact>> {
        let key = memo::EvalKey::new(cx, eval_outs);
        if let Some(v) = key.as_ref().and_then(|k| self.memo.get(k)) {
            return Some(v);
        }
        match eval(cx, eval_outs) {
            Ok(v) => {
                if let Some(k) = key {
                    self.memo.put(k, &v);
                }
                Some(v)
            }
            Err(why) => {
                self.kernel_failed(cx.layer, cx.ty, why);
                None
            }
        }
    }

    /// Records a kernel's failure: a bug in irc stops debug builds and is reported apart when
    /// folding; any other failure is a decline.
    fn kernel_failed(&mut self, l: &Layer, ty: &str, why: ops::OpError) {
        if why.bug {
            // Not folded either way; but it is irc's fault, so debug builds (the suites'
            // debug run, cargo test) stop here and release builds say so.
            debug_assert!(false, "{}: {} kernel: {}", l.label(), ty, why.msg);
            if self.fold_mode {
                self.declined.push((
                    l.label(),
                    format!(
                        "{INTERNAL_ERROR} {} kernel ({}): not folded; please report it",
                        ty, why.msg
                    ),
                ));
            }
        } else {
            self.decline(l, why.msg);
        }
    }

    /// The value the bound evaluators give for the first output of a `ty` computed from
    /// `known` inputs where it differs from the kernel's result `vals`; `None` where it does not.
    fn shape_bound_value(&self, ty: &str, known: &[Fact], vals: &[Fact]) -> Option<Tensor> {
        let input = |i: usize| known.get(i).and_then(|f| f.value.as_ref());
        let out = vals.first().and_then(|f| f.value.as_ref());
        match ty {
            "Convert" => input(0)
                .zip(out)
                .and_then(|(i, o)| ops::convert::translate_max(i, o)),
            // Divide's and Mod's give 0 where an input is its type's maximum (measured when
            // folding; what shape inference reads there is not characterized)
            "Divide" if self.fold_mode => match (input(0), input(1), out) {
                (Some(a), Some(b), Some(o)) => ops::elementwise::divide_lower_bound(a, b, o),
                _ => None,
            },
            "Mod" if self.fold_mode => match (input(0), input(1), out) {
                (Some(a), Some(b), Some(o)) => ops::elementwise::mod_lower_bound(a, b, o),
                _ => None,
            },
            _ => None,
        }
    }

    /// The facts of `outs` holding the kernel's values `vals` (rounded to f16/bf16 in
    /// `f32_mode`); `None` where a value does not have its output's shape or type.
    fn kernel_facts(
        l: &Layer,
        vals: Vec<Fact>,
        outs: &[Fact],
        f32_mode: bool,
        rounded: bool,
    ) -> Option<Vec<Fact>> {
        let mut res = Vec::with_capacity(vals.len());
        for (v, o) in vals.into_iter().zip(outs) {
            let t = v.value?;
            if !value_fits(&t, &o.shape) {
                // A kernel disagreeing with its own shape rule is a bug in irc.
                debug_assert!(
                    false,
                    "{}: kernel value {:?} does not have the inferred shape {}",
                    l.label(),
                    t.shape,
                    o.shape
                );
                return None;
            }
            if f32_mode && is_half(o.et) && t.et == ElementType::F32 {
                let rounded_value = ops::convert::convert(&t, o.et)?;
                let mut f = Fact::with_value(rounded_value);
                if !rounded {
                    f.wide = Some(t);
                }
                res.push(f);
            } else if t.et != o.et && o.et != ElementType::Dynamic {
                return None; // a rule produced another type than inference: do not trust it
            } else {
                res.push(Fact {
                    value: Some(t),
                    ..Fact::new(o.et, o.shape.clone())
                });
            }
        }
        Some(res)
    }

    pub(super) fn constant(&mut self, g: &Graph, n: NodeId) -> Fact {
        let (et, dims) = const_type(&g[n]);
        let mut f = Fact::new(et, PartialShape::from_static(&dims));
        // Weights that only feed decompression Converts are never folded: do not read them
        // (a consumer that folds behind the Convert reads them then, see `compressed_input`).
        let only_decompression = {
            let mut users = g.users(n, 0).peekable();
            users.peek().is_some() && users.all(|(t, _)| decompress::is_head(g, t))
        };
        if !only_decompression {
            if let Some((et, dims, bytes)) =
                const_slice(self.model, self.value_limit, &g[n], (et, dims))
            {
                f.value = Some(self.small_value(et, dims, bytes));
            }
        }
        f
    }

    /// Fold mode: remember why a kernel declined a layer whose inputs were known.
    pub(super) fn decline(&mut self, l: &Layer, why: String) {
        if self.fold_mode {
            self.declined
                .push((l.label(), format!("the kernel declined: {why}")));
        }
    }

    /// Fold mode: take what computing `outs` adds (their bytes less the bytes of the input
    /// values they replace) from the fold budget, or refuse before computing anything.
    pub(super) fn within_budget(&mut self, l: &Layer, inputs: &[Fact], outs: &[Fact]) -> bool {
        let Some(left) = self.fold_budget else {
            return true;
        };
        let out_bytes = outs.iter().try_fold(0u64, |acc, o| {
            let n = o.shape.static_count()?;
            acc.checked_add(o.et.storage_bytes(n)?)
        });
        let Some(out_bytes) = out_bytes else {
            return true; // sized by values (NonZero): bounded by its inputs, which fit
        };
        let freed: u64 = inputs
            .iter()
            .filter_map(|f| f.value.as_ref().map(|v| v.data.len() as u64))
            .sum();
        let grow = out_bytes.saturating_sub(freed);
        if grow > left {
            self.declined.push((
                l.label(),
                format!(
                    "computing it would add {grow} bytes, over what is left of --max-fold-bytes for the whole model ({left} bytes); not computed"
                ),
            ));
            return false;
        }
        self.fold_budget = Some(left - grow);
        true
    }

    /// A Const's value, if it takes at most `value_limit` bytes.
    pub(super) fn read_const(&self, l: &Layer) -> Option<Tensor> {
        let (et, dims, bytes) = const_slice(self.model, self.value_limit, l, const_type(l))?;
        Some(Tensor::new(et, dims, bytes.to_vec()))
    }

    /// Fold mode: the inputs of layer `n` read from a decompression Convert, as (input index,
    /// the Const behind the Convert), when `n` may fold behind it (every other input known).
    /// `prods`: `g.inputs_of(n)`, which the caller has.
    /// Nothing is read here: `behind_decompression` reads a Const only once it knows the fold
    /// pays, so weights feeding run-time ops or the rest of a chain are never read.
    pub(super) fn compressed_inputs(
        &self,
        g: &Graph,
        n: NodeId,
        prods: &[Option<(NodeId, usize)>],
        inputs: &[Fact],
    ) -> Vec<(usize, NodeId)> {
        let l = &g[n];
        if !self.fold_mode || never_folds(l) || !l.bodies.is_empty() {
            return Vec::new();
        }
        let known = |f: &Fact| f.value.is_some() || f.compressed.is_some() || f.ints().is_some();
        let mut pending = Vec::new();
        for (i, f) in inputs.iter().enumerate() {
            if known(f) {
                continue;
            }
            let head = prods[i]
                .map(|(p, _)| p)
                .filter(|&p| decompress::is_head(g, p));
            match head.and_then(|h| g.input_of(h, 0)) {
                Some((k, _)) if g[k].is("Const") => pending.push((i, k)),
                _ => return Vec::new(),
            }
        }
        if !pending.is_empty() && ops::lookup(l).and_then(|op| op.def.eval).is_none() {
            return Vec::new();
        }
        pending
    }

    /// Facts of a layer some of whose inputs are known only compressed (behind a decompression
    /// Convert; `pending` are Consts not read yet): data movement runs on the compressed
    /// values; anything else folds on the widened values when its result is no bigger than what
    /// it reads or at most SMALL_FOLD_BYTES (passes::decompress).
    pub(super) fn behind_decompression(
        &mut self,
        l: &Layer,
        op: &ops::Resolved,
        inputs: &[Fact],
        pending: &[(usize, &Layer)],
        mut outs: Vec<Fact>,
    ) -> Vec<Fact> {
        let def = &op.def;
        let packed = |i: usize| {
            pending.iter().any(|p| p.0 == i)
                || (inputs[i].value.is_none() && inputs[i].compressed.is_some())
        };
        // (compressed type, widened type, bytes) of each compressed input, before reading any.
        let comp: Vec<(usize, ElementType, ElementType, u64)> = (0..inputs.len())
            .filter(|&i| packed(i))
            .filter_map(|i| {
                let (cet, bytes) = match (&inputs[i].compressed, pending.iter().find(|p| p.0 == i))
                {
                    (Some(c), _) => (c.et, c.data.len() as u64),
                    (None, Some((_, k))) => {
                        let (et, dims) = const_type(k);
                        let n = PartialShape::element_count(&dims)?;
                        (et, et.storage_bytes(n)?)
                    }
                    _ => return None,
                };
                Some((i, cet, inputs[i].et, bytes))
            })
            .collect();
        if comp.is_empty() {
            return outs;
        }
        let read = |this: &Self| -> Option<Vec<Fact>> {
            let mut v = inputs.to_vec();
            for (i, k) in pending {
                v[*i].compressed = Some(Arc::new(this.read_const(k)?));
            }
            Some(v)
        };
        let same = comp.iter().all(|c| (c.1, c.2) == (comp[0].1, comp[0].2));
        if let (BoundsRule::Movement(mask), Some(eval), true) = (def.bounds, def.eval, same) {
            // Every data input must be compressed alike (Concat of a compressed and a plain
            // input is not data movement of one compressed tensor).
            let data_ok = (0..inputs.len()).all(|i| ops::mask_has(mask, i) == packed(i));
            if data_ok {
                if let Some(done) =
                    read(self).and_then(|ins| self.move_compressed(l, op, &ins, &outs, eval))
                {
                    return done;
                }
            }
        }
        // Any other op: fold on the widened values when the result stays small.
        let in_bytes: u64 = comp.iter().map(|c| c.3).sum();
        let out_bytes = outs.iter().try_fold(0u64, |acc, o| {
            let b = o.et.storage_bytes(o.shape.static_count()?)?;
            acc.checked_add(b)
        });
        if out_bytes.is_none_or(|b| b > in_bytes.max(decompress::SMALL_FOLD_BYTES)) {
            return outs;
        }
        if def.eval.is_none() {
            return outs;
        }
        let Some(ins) = read(self) else { return outs };
        let widened: Option<Vec<Fact>> = ins
            .iter()
            .map(|f| match (&f.value, &f.compressed) {
                (None, Some(c)) => ops::convert::convert(c, f.et).map(Fact::with_value),
                _ => Some(f.clone()),
            })
            .collect();
        let Some(widened) = widened else { return outs };
        if let Some(vals) = self.evaluate(l, op, &widened, &outs) {
            for (o, v) in outs.iter_mut().zip(vals) {
                if let Some(t) = v.value {
                    o.shape = PartialShape::from_static(&t.shape);
                    o.value = Some(self.share(t));
                    o.wide = v.wide.map(|w| self.share(w));
                }
            }
        }
        outs
    }
}

/// A Const's type, shape (its [`const_type`], parsed once by the caller) and bytes, if its
/// value takes at most `value_limit` bytes.
fn const_slice<'m>(
    model: &'m Model,
    value_limit: u64,
    l: &'m Layer,
    (et, dims): (ElementType, Vec<u64>),
) -> Option<(ElementType, Vec<u64>, &'m [u8])> {
    let count = PartialShape::element_count(&dims).unwrap_or(u64::MAX);
    if value_bytes(et, count) > value_limit {
        return None;
    }
    let bytes = l.konst.as_ref().and_then(|k| model.const_bytes(k))?;
    // String constants keep their whole encoding (count, offsets, bytes): no value rule
    // moves them, but StringTensorUnpack reads their byte count.
    let need = match et {
        ElementType::String => bytes.len(),
        _ => et.storage_bytes(count).unwrap_or(0) as usize,
    };
    let bytes = &bytes[..need.min(bytes.len())];
    if let Some(w) = &model.weights {
        w.note_read(bytes.len());
    }
    Some((et, dims, bytes))
}
