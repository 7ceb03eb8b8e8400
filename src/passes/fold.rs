//! Constant folding: every output whose value inference knows (constants, ShapeOf of static
//! shapes, shape values pinned by equal bounds, and everything computed from those) becomes a
//! `Const`; then dead layers are removed. Never folded: Parameters, Results, ReadValue/Assign,
//! RandomUniform, FakeQuantize, and `decompression` Converts (so f16 weights stay compact).

use super::dedup;
use super::infer::{self, Facts, Infer, InputOverride};
use super::make::{const_layer, decompression_rt_info};
use crate::error::Diag;
use crate::ir::tensor::Tensor;
use crate::ir::*;
use crate::ops::Fact;
use crate::span::SourceMap;
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

#[derive(Debug, Clone)]
pub struct FoldOptions {
    /// Folding may grow the weights by at most this many bytes, in total.
    pub max_fold_bytes: u64,
    /// After folding, run the simplification passes (`super::simplify`); `--no-simplify`
    /// turns them off.
    pub simplify: bool,
    /// Rewrites the passes may make beyond exact, name-keeping ones (`--relax`).
    pub relax: super::simplify::Relax,
    /// Keep each folded layer's label in [`FoldReport::folded`] (`--verbose` prints them);
    /// without it only their number is kept (14,400 labels formatted for nothing were 1% of a
    /// 100k-layer fold).
    pub labels: bool,
    /// Models with at least this many layers have their constants compared for dedup on a
    /// second thread while inference runs ([`dedup::ahead`]); 0 compares them on any model.
    pub ahead_min_layers: usize,
}

impl FoldOptions {
    /// The largest intermediate value folding computes, in bytes as stored: four times the
    /// budget (at least 4 MiB, at most 1 GiB). An intermediate can be that much larger than
    /// what it adds to the weights because what is written is usually reduced from it (a
    /// causal mask sliced to the sequence, a Range gathered); the budget itself is counted in
    /// bytes as written (`FoldReport::grown`).
    pub fn value_limit_bytes(&self) -> u64 {
        self.max_fold_bytes
            .max(1 << 20)
            .saturating_mul(4)
            .min(1 << 30)
    }
}

impl Default for FoldOptions {
    fn default() -> Self {
        FoldOptions {
            max_fold_bytes: 16 << 20,
            simplify: true,
            relax: Default::default(),
            labels: true,
            ahead_min_layers: crate::xml::write::PARALLEL_LAYERS,
        }
    }
}

/// What folding did.
#[derive(Debug, Default, Clone)]
pub struct FoldReport {
    pub layers_before: usize,
    pub layers_after: usize,
    /// How many layers' outputs became constants (including intermediate ones).
    pub folded_count: usize,
    /// Their labels, when [`FoldOptions::labels`] asks for them.
    pub folded: Vec<String>,
    /// Outputs that could have folded but were skipped, with the reason.
    pub skipped: Vec<(String, String)>,
    pub removed_dead: usize,
    pub deduplicated: usize,
    /// Bytes the new constants add beyond the constants they replace (at most
    /// `--max-fold-bytes`).
    pub grown: u64,
    /// Op types without a shape rule whose declared ports were kept (see `Infer::trusted`).
    pub trusted: std::collections::BTreeMap<String, usize>,
    /// What the simplification passes did (`None` with `--no-simplify`).
    pub simplify: Option<super::simplify::SimplifyReport>,
}

/// Fold the model in place.
pub fn fold(
    model: &mut Model,
    map: Option<&SourceMap>,
    overrides: &[InputOverride],
    opts: &FoldOptions,
) -> Result<FoldReport, Vec<Diag>> {
    let mut report = FoldReport {
        layers_before: model.graph.len(),
        ..Default::default()
    };
    // A big model's constants are compared for dedup on the second core while inference runs
    // on this one (inference and the comparison only read the model).
    let big = model.graph.len() >= opts.ahead_min_layers;
    let (inferred, ahead) = std::thread::scope(|s| {
        let (g, w) = (&model.graph, model.weights.as_deref());
        // No thread to be had: dedup compares them itself (the same result).
        let ahead = beside(s, big, move || dedup::ahead(g, w));
        let mut inf = Infer::new(model, map, overrides);
        inf.fold_mode = true;
        inf.fold_budget = Some(opts.max_fold_bytes);
        inf.value_limit = opts.value_limit_bytes();
        let f = inf.run();
        let r = match inf.diags.is_empty() {
            true => Ok(f),
            false => Err(std::mem::take(&mut inf.diags)),
        };
        report.trusted = std::mem::take(&mut inf.trusted);
        report.skipped.append(&mut inf.declined);
        (r, ahead.and_then(|h| h.join().ok()))
    });
    let facts = inferred?;
    crate::trace("fold: infer");
    let weights = model.weights.clone();
    std::thread::scope(|s| {
        let g = &mut model.graph;
        fold_rec(g, &facts, weights.as_deref(), opts, &mut report);
        crate::trace("fold: consts");
        // Dead layers go before the facts are written into the ports (dce reads types and
        // edges only): a 100k-layer decoder's 28,800 folded layers are not written for nothing.
        report.removed_dead = dce(g);
        crate::trace("fold: dce");
        // Shapes and types of every remaining port, as inferred (with --input overrides
        // applied).
        infer::apply(g, &facts, overrides, true);
        // The facts are in the ports now; the passes below infer what they need again.
        // Dropped here, not at the end: on a 100k-layer model they are 16 MB of the peak.
        drop(facts);
        crate::files::trim_heap();
        crate::trace("fold: apply");
        let dedup::Deduped {
            shared,
            removed,
            order,
        } = dedup::dedup_take(g, weights.as_deref(), ahead.as_ref());
        report.deduplicated = shared;
        // A big model's shared constants (4,000 of a 100k-layer decoder, a few allocations
        // each) and dedup's tables are freed on the second core while the passes go on.
        // Then the free pages go back to the system (for all threads' heaps).
        let free = move || {
            drop((removed, ahead));
            crate::files::trim_heap();
        };
        if beside(s, big, free).is_none() {
            // Not on a helper: what it would have freed was dropped with it, here.
            crate::files::trim_heap();
        }
        crate::trace("fold: dedup");
        if opts.simplify {
            let r = super::simplify::simplify_from(model, opts.relax, order);
            crate::trace("fold: simplify");
            if r.new_consts > 0 {
                // The passes' new constants (shapes, axes) may equal ones already there.
                let g = &mut model.graph;
                report.deduplicated += dedup::dedup(g, model.weights.as_deref(), None);
            }
            report.simplify = Some(r);
        }
    });
    report.layers_after = model.graph.len();
    // What dedup and the passes removed (a 100k-layer decoder: 33,000 layers) and their
    // tables are free now: pages the writer does not reuse go back.
    crate::files::trim_heap();
    #[cfg(debug_assertions)]
    {
        let bad = crate::passes::validate::verify(model);
        assert!(bad.is_empty(), "fold produced an unsound model: {bad:?}");
    }
    Ok(report)
}

/// `f` on a helper thread of `s` when `on` (a big model) and the system gives one; `None`
/// otherwise, `f` dropped unrun: the caller does the work itself.
fn beside<'s, T, F>(s: &'s Scope<'s, '_>, on: bool, f: F) -> Option<ScopedJoinHandle<'s, T>>
where
    F: FnOnce() -> T + Send + 's,
    T: Send + 's,
{
    on.then(|| std::thread::Builder::new().spawn_scoped(s, f).ok())
        .flatten()
}

/// The value of a fact as a tensor (exact bounds count as a value).
fn fact_value(f: &Fact) -> Option<Arc<Tensor>> {
    if let Some(v) = &f.value {
        return Some(v.clone());
    }
    let dims = f.shape.to_static()?;
    let v = f.ints()?;
    let et = if f.et.is_integral() {
        f.et
    } else {
        return None;
    };
    Tensor::from_i64s(et, dims, &v).map(Arc::new)
}

fn byte_len(t: &Tensor) -> u64 {
    t.data.len() as u64
}

/// Fold a graph, then the bodies of its If/Loop/TensorIterator layers (as OpenVINO's
/// ConstantFolding recurses into them), removing dead layers inside bodies too.
fn fold_rec(
    g: &mut Graph,
    facts: &Facts,
    weights: Option<&Weights>,
    opts: &FoldOptions,
    report: &mut FoldReport,
) {
    fold_graph(g, facts, weights, opts, report);
    let with_bodies: Vec<NodeId> = g.nodes().filter(|&n| !g[n].bodies.is_empty()).collect();
    for n in with_bodies {
        for bi in 0..g[n].bodies.len() {
            let Some(bf) = facts.bodies.get(&(n, bi)) else {
                continue;
            };
            let body = &mut g[n].bodies[bi].graph;
            fold_rec(body, bf, weights, opts, report);
            report.removed_dead += dce(body);
        }
    }
}

fn fold_graph(
    g: &mut Graph,
    facts: &Facts,
    weights: Option<&Weights>,
    opts: &FoldOptions,
    report: &mut FoldReport,
) {
    let _ = weights;
    // The graph is as inference saw it (nothing changed it since): its order is kept.
    let order = facts.order();
    if order.len() != g.len() {
        return; // a cycle
    }
    let (folded, known, max_id) = foldable(g, facts, order);
    // What is too big to fold only reads the graph: a big one's is looked for on the second
    // core while this one plans the constants (the same list, in the same order).
    let (new_consts, too_big) = std::thread::scope(|s| {
        let g = &*g;
        let (folded, known) = (&folded, &known);
        let big = g.len() >= opts.ahead_min_layers;
        let ahead = beside(s, big, move || {
            too_big(g, facts, order, folded, known, opts)
        });
        let new_consts = plan_consts(g, facts, order, folded, opts, report);
        let too_big = match ahead {
            Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            None => too_big(g, facts, order, folded, known, opts),
        };
        (new_consts, too_big)
    });
    // A folded layer that an unfolded one still reads (its constant was refused) stays.
    let replaced: std::collections::HashSet<(NodeId, u32)> = new_consts
        .iter()
        .map(|c| (c.producer, g[c.producer].outputs[c.output].id))
        .collect();
    let mut kept = NodeSet::new(g);
    for &n in order.iter().rev() {
        let read = |lk: Link| {
            if folded.contains(&lk.to) {
                kept.contains(&lk.to)
            } else {
                !replaced.contains(&(n, lk.edge.from_port))
            }
        };
        if folded.contains(&n) && g.links_from(n).any(read) {
            kept.insert(n);
        }
    }
    for n in order {
        if folded.contains(n) && !kept.contains(n) {
            report.folded_count += 1;
            if opts.labels {
                report.folded.push(g[*n].label());
            }
        }
    }
    report_too_big(g, too_big, opts, report);
    // New layers get fresh ids (ids stay unique, as the verifier checks); they sort where
    // their producer stood through its source position.
    let mut next_id = max_id.map_or(0, |m| m + 1);
    for c in new_consts {
        materialize(g, c, &mut next_id);
    }
}

/// The layers to fold: every output's value is known (exactly, or compressed behind a
/// decompression Convert), and the op may fold. Also the layers whose value is known as
/// written: those and the Consts. With them the largest layer id (`order` holds every layer).
fn foldable(g: &Graph, facts: &Facts, order: &[NodeId]) -> (NodeSet, NodeSet, Option<u64>) {
    let mut folded = NodeSet::new(g);
    let mut known = NodeSet::new(g);
    let mut max_id = None;
    for &n in order {
        let l = &g[n];
        max_id = max_id.max(Some(l.id));
        if l.is("Const") {
            known.insert(n);
            continue;
        }
        if infer::never_folds(l) || l.outputs.is_empty() || !l.bodies.is_empty() {
            continue;
        }
        let all = (0..l.outputs.len()).all(|o| {
            facts.get(n, o).is_some_and(|f| {
                !f.unfoldable && (f.compressed.is_some() || fact_value(&f).is_some())
            })
        });
        if all {
            folded.insert(n);
            known.insert(n);
        }
    }
    (folded, known, max_id)
}

/// A constant that replaces a folded layer's output where unfolded layers read it.
struct NewConst {
    name: String,
    value: Arc<Tensor>,
    /// The value is compressed: a decompression Convert to this type follows the Const.
    widen_to: Option<ElementType>,
    names: Vec<String>,
    rt_info: Option<Arc<XmlElement>>,
    consumers: Vec<(NodeId, u32)>,
    producer: NodeId,
    output: usize,
}

/// The constants to create: outputs of folded layers that an unfolded layer reads, unless
/// they would grow the weights by more than `--max-fold-bytes` (reported).
fn plan_consts(
    g: &Graph,
    facts: &Facts,
    order: &[NodeId],
    folded: &NodeSet,
    opts: &FoldOptions,
    report: &mut FoldReport,
) -> Vec<NewConst> {
    let mut new_consts = Vec::new();
    for &n in order {
        if !folded.contains(&n) {
            continue;
        }
        let l = &g[n];
        let multi = l.outputs.len() > 1;
        for o in 0..l.outputs.len() {
            // Most folded layers feed folded ones only: told from the edges, without reading
            // the readers' layers.
            let port = l.outputs[o].id;
            if !g
                .links_from(n)
                .any(|k| k.edge.from_port == port && !folded.contains(&k.to))
            {
                continue;
            }
            let consumers: Vec<(NodeId, usize)> = g
                .users_of(n, o)
                .into_iter()
                .filter(|(c, _)| !folded.contains(c))
                .collect();
            if consumers.is_empty() {
                continue;
            }
            let Some(fact) = facts.get(n, o) else {
                continue;
            };
            // Known widened, or only compressed (then the Const holds the compressed value and
            // a decompression Convert follows it).
            let (value, widen_to) = match (fact_value(&fact), &fact.compressed) {
                (Some(v), _) => (v, None),
                (None, Some(c)) => (c.clone(), Some(fact.et)),
                (None, None) => continue,
            };
            // Growth of the weights: the new bytes minus the constants this layer alone reads.
            let mut producers: Vec<NodeId> = g.inputs_of(n).iter().flatten().map(|p| p.0).collect();
            producers.sort_unstable();
            producers.dedup();
            let freed: u64 = producers
                .iter()
                .filter(|p| g[**p].is("Const") && g.users_of(**p, 0).len() == 1)
                .filter_map(|p| facts.value(*p, 0).map(|v| byte_len(v)))
                .sum();
            let grow = byte_len(&value).saturating_sub(freed);
            if report.grown.saturating_add(grow) > opts.max_fold_bytes {
                report.skipped.push((
                    format!("{}:{o}", l.label()),
                    format!(
                        "folding would add {grow} bytes of weights to the {} already added (over --max-fold-bytes {} for the whole model)",
                        report.grown, opts.max_fold_bytes
                    ),
                ));
                continue;
            }
            report.grown += grow;
            let name = if multi {
                format!("{}.{o}", l.name)
            } else {
                l.name.clone()
            };
            new_consts.push(NewConst {
                name,
                value,
                widen_to,
                names: l.outputs[o].names().to_vec(),
                rt_info: l.rt_info.clone(),
                consumers: consumers
                    .iter()
                    .map(|&(c, i)| (c, g[c].inputs[i].id))
                    .collect(),
                producer: n,
                output: o,
            });
        }
    }
    new_consts
}

/// Layers whose inputs are all known but whose result is too big to compute (a Broadcast or
/// Tile to gigabytes is never attempted): each one's output index and size in bytes
/// (`u64::MAX`: more than 2^64), in order.
fn too_big(
    g: &Graph,
    facts: &Facts,
    order: &[NodeId],
    folded: &NodeSet,
    known: &NodeSet,
    opts: &FoldOptions,
) -> Vec<(NodeId, usize, u64)> {
    let mut found = Vec::new();
    for &n in order {
        let l = &g[n];
        if folded.contains(&n)
            || l.is("Const")
            || infer::never_folds(l)
            || !l.bodies.is_empty()
            || super::decompress::is_head(g, n)
        {
            continue;
        }
        // By the producers' ids (reading each producer was a cache miss a layer).
        let inputs_known = g.input_ports(n).iter().all(|p| {
            p.is_some_and(|(s, port)| known.contains(&s) && g[s].output_index(port).is_some())
        });
        if !inputs_known || crate::ops::lookup(l).and_then(|op| op.def.eval).is_none() {
            continue;
        }
        for o in 0..l.outputs.len() {
            let Some(f) = facts.get(n, o) else { continue };
            let Some(dims) = f.shape.to_static() else {
                continue;
            };
            let bytes = PartialShape::element_count(&dims)
                .and_then(|c| f.et.storage_bytes(c))
                .unwrap_or(u64::MAX);
            if bytes > opts.max_fold_bytes {
                found.push((n, o, bytes));
            }
        }
    }
    found
}

/// Say why each of [`too_big`]'s layers was not computed, unless something said so already.
fn report_too_big(
    g: &Graph,
    found: Vec<(NodeId, usize, u64)>,
    opts: &FoldOptions,
    report: &mut FoldReport,
) {
    if found.is_empty() {
        return;
    }
    let said: std::collections::HashSet<String> =
        report.skipped.iter().map(|(w, _)| w.clone()).collect();
    for (n, o, bytes) in found {
        // The label is formatted only here: most layers are never reported.
        let label = g[n].label();
        if said.contains(&label) {
            continue;
        }
        report.skipped.push((
            format!("{label}:{o}"),
            format!(
                "its value would take {} bytes (over --max-fold-bytes {}); not computed",
                if bytes == u64::MAX {
                    "more than 2^64".to_string()
                } else {
                    bytes.to_string()
                },
                opts.max_fold_bytes
            ),
        ));
    }
}

/// Put a planned constant in the graph: a Const (followed by a decompression Convert when the
/// value is compressed) where the folded output stood, wired to the unfolded consumers.
fn materialize(g: &mut Graph, c: NewConst, next_id: &mut u64) {
    let mut layer = const_layer(&c.name, &c.value);
    let t = &c.value;

    let shape = PartialShape::from_static(&t.shape);
    let mut port = Port::new(0, t.et, shape.clone());
    // The new Const (and its Convert) sorts where its producer stood.
    layer.id = *next_id;
    *next_id += 1;
    layer.origin = g[c.producer].origin;
    layer.konst = Some(ConstData::Owned(t.data.clone()));
    let k = if let Some(wide) = c.widen_to {
        // Const (compressed) → Convert(decompression): the Convert takes the name, the
        // tensor names and the rt_info, as the folded layer's output it stands for.
        layer.name = format!("{}/compressed", c.name);
        layer.outputs.push(port);
        let origin = layer.origin;
        let k0 = g.add_layer(layer);
        let mut cv = Layer::new("Convert", "opset1", &c.name);
        cv.data = Some(Attrs::from_pairs([("destination_type", wide.name())]));
        cv.rt_info = Some(Arc::new(decompression_rt_info(c.rt_info.as_deref())));
        cv.inputs.push(Port::new(0, t.et, shape.clone()));
        let mut out = Port::new(1, wide, shape);
        out.set_names(c.names);
        cv.outputs.push(out);
        cv.id = *next_id;
        *next_id += 1;
        cv.origin = origin;
        let k1 = g.add_layer(cv);
        g.connect(k0, 0, k1, 0);
        k1
    } else {
        layer.rt_info = c.rt_info;
        port.set_names(c.names);
        layer.outputs.push(port);
        g.add_layer(layer)
    };
    for (consumer, port_id) in c.consumers {
        g.disconnect_input(consumer, port_id);
        let from_port = g[k].outputs[0].id;
        g.connect(k, from_port, consumer, port_id);
    }
    // The producer's output loses its names to the Const that replaces it.
    g[c.producer].outputs[c.output].set_names(Vec::new());
}

/// A set of nodes of one graph, as a bit per node index.
struct NodeSet(Vec<bool>);

impl NodeSet {
    fn new(g: &Graph) -> Self {
        NodeSet(vec![false; g.node_bound()])
    }
    fn contains(&self, n: &NodeId) -> bool {
        self.0.get(n.index()).copied().unwrap_or(false)
    }
    /// Add `n`; false when it was there already.
    fn insert(&mut self, n: NodeId) -> bool {
        if n.index() >= self.0.len() {
            self.0.resize(n.index() + 1, false);
        }
        !std::mem::replace(&mut self.0[n.index()], true)
    }
}

/// Remove layers that no Result or sink depends on (Parameters always stay: they are the
/// model's inputs). Returns how many were removed.
pub fn dce(g: &mut Graph) -> usize {
    let mut live = NodeSet::new(g);
    let mut stack: Vec<NodeId> = g
        .nodes()
        .filter(|&n| {
            let l = &g[n];
            l.is("Result") || l.is("Parameter") || crate::ops::is_sink(l)
        })
        .collect();
    while let Some(n) = stack.pop() {
        if !live.insert(n) {
            continue;
        }
        stack.extend(g.links_into(n).map(|k| k.from));
    }
    let dead: Vec<NodeId> = g.nodes().filter(|n| !live.contains(n)).collect();
    g.remove_layers(&dead);
    dead.len()
}
