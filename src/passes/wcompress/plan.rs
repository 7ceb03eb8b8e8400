//! Which weights are compressed and how, as NNCF's data-free algorithm decides: the weight ports of
//! MatMuls, embeddings and convolutions, reduction axes, ignored scopes (with RoPE's MatMuls), the
//! ratio between primary and backup mode, group-size fallback.

use super::*;

pub(super) fn kind_of(g: &Graph, n: NodeId) -> Option<Kind> {
    let l = &g[n];
    if l.is("MatMul") {
        return Some(Kind::MatMul);
    }
    if [
        "Convolution",
        "GroupConvolution",
        "ConvolutionBackpropData",
        "GroupConvolutionBackpropData",
    ]
    .iter()
    .any(|t| l.is(t))
    {
        return Some(Kind::Conv);
    }
    if l.is("Gather") && !l.name.ends_with("nncf_codebook") {
        let et = l.inputs.first().and_then(|p| p.precision);
        let float = matches!(
            et,
            Some(ElementType::F16) | Some(ElementType::F32) | Some(ElementType::F64)
        );
        let from_const = g
            .input_of(n, 0)
            .and_then(|(s, _)| const_through(g, s))
            .is_some();
        if float && from_const {
            return Some(Kind::Embedding);
        }
    }
    None
}

/// The reduction axes of a weight of rank `rank` read at input `port` of `n` (NNCF's
/// `get_reduction_axes`: every axis but the output channels).
pub(super) fn reduction_axes(
    g: &Graph,
    n: NodeId,
    kind: Kind,
    port: usize,
    rank: usize,
) -> Vec<usize> {
    let l = &g[n];
    match kind {
        Kind::MatMul => {
            if rank <= 1 {
                return vec![0];
            }
            let flag = if port == 0 {
                "transpose_a"
            } else {
                "transpose_b"
            };
            let t = l.attr(flag).is_some_and(|v| v == "true" || v == "1");
            if (t && port == 0) || (!t && port == 1) {
                vec![rank - 2]
            } else {
                vec![rank - 1]
            }
        }
        Kind::Embedding => (1..rank).collect(),
        Kind::Conv => {
            let skip: &[usize] = if l.is("Convolution") {
                &[0]
            } else if l.is("GroupConvolution") {
                &[0, 1]
            } else if l.is("ConvolutionBackpropData") {
                &[1]
            } else {
                &[0, 2]
            };
            (0..rank).filter(|a| !skip.contains(a)).collect()
        }
    }
}

/// Weight inputs of `n` as NNCF's graph builder finds them: inputs not reached from the model
/// inputs that read a float Const.
pub(super) fn weight_ports(g: &Graph, ids: &order::Ids, n: NodeId) -> Vec<(usize, NodeId)> {
    let l = &g[n];
    let count = if l.is("ConvolutionBackpropData") || l.is("GroupConvolutionBackpropData") {
        2.min(l.inputs.len())
    } else {
        l.inputs.len()
    };
    let mut out = Vec::new();
    for i in 0..count {
        let Some((src, _)) = g.input_of(n, i) else {
            continue;
        };
        if ids.reached[src.index()] {
            continue;
        }
        let Some(k) = const_through(g, src) else {
            continue;
        };
        if const_type(&g[k]).is_some_and(nncf_float) {
            out.push((i, k));
        }
    }
    out
}

// ---------------------------------------------------------------------------- ignored scope

/// The op type as OpenVINO names it (`Const` is `Constant`).
pub(super) fn ov_type(l: &Layer) -> &str {
    if l.is("Const") {
        "Constant"
    } else {
        &l.ty
    }
}

/// Names of the layers the ignored scope covers; an entry that matches nothing is an error,
/// as NNCF's (validated) `IgnoredScope`.
pub(super) fn ignored(g: &Graph, o: &Options) -> Result<std::collections::HashSet<String>, String> {
    let mut out = std::collections::HashSet::new();
    let mut unmatched = Vec::new();
    for name in &o.ignore_names {
        if g.layers().any(|l| &l.name == name) {
            out.insert(name.clone());
        } else {
            unmatched.push(format!("--ignore-layer '{name}' names no layer"));
        }
    }
    for t in &o.ignore_types {
        let hit: Vec<String> = g
            .layers()
            .filter(|l| ov_type(l) == t)
            .map(|l| l.name.clone())
            .collect();
        if hit.is_empty() {
            unmatched.push(format!("--ignore-type '{t}' matches no layer"));
        }
        out.extend(hit);
    }
    for p in &o.ignore_patterns {
        // Python's re.match: anchored at the start only.
        let re = regex::Regex::new(&format!("^(?:{p})"))
            .map_err(|e| format!("--ignore-pattern '{p}': not a regular expression: {e}"))?;
        let hit: Vec<String> = g
            .layers()
            .filter(|l| re.is_match(&l.name))
            .map(|l| l.name.clone())
            .collect();
        if hit.is_empty() {
            unmatched.push(format!("--ignore-pattern '{p}' matches no layer name"));
        }
        out.extend(hit);
    }
    if !unmatched.is_empty() {
        return Err(format!(
            "{} (NNCF: Ignored nodes ... were not found in the NNCFGraph)",
            unmatched.join("; ")
        ));
    }
    Ok(out)
}

/// MatMuls NNCF leaves in float by pattern: a rotary embedding's `inv_freq` product (MatMul →
/// [Transpose] → Concat(x, x) → Cos and Sin, MatMul → Transpose → Cos and Sin) and SAM's
/// positional encoding (MatMul → Multiply → Cos and Sin → one Concat).
pub(super) fn rope_matmuls(g: &Graph) -> std::collections::HashSet<NodeId> {
    let users = |n: NodeId| -> Vec<NodeId> {
        let mut u: Vec<NodeId> = (0..g[n].outputs.len())
            .flat_map(|o| g.users_of(n, o))
            .map(|(u, _)| u)
            .collect();
        u.dedup();
        u
    };
    let edges = |a: NodeId, b: NodeId| -> usize {
        g.inputs_of(b)
            .iter()
            .flatten()
            .filter(|(s, _)| *s == a)
            .count()
    };
    let cos_sin = |n: NodeId| {
        let u = users(n);
        u.iter().any(|&x| g[x].is("Cos")) && u.iter().any(|&x| g[x].is("Sin"))
    };
    let concat_of_two = |from: NodeId| {
        users(from)
            .into_iter()
            .any(|c| g[c].is("Concat") && edges(from, c) == 2 && cos_sin(c))
    };
    let mut out = std::collections::HashSet::new();
    for m in g.nodes().filter(|&n| g[n].is("MatMul")) {
        let us = users(m);
        let transposed = us
            .iter()
            .any(|&t| g[t].is("Transpose") && (concat_of_two(t) || cos_sin(t)));
        let sam = us.iter().any(|&x| {
            g[x].is("Multiply") && {
                let u = users(x);
                let cos: Vec<NodeId> = u.iter().copied().filter(|&y| g[y].is("Cos")).collect();
                let sin: Vec<NodeId> = u.iter().copied().filter(|&y| g[y].is("Sin")).collect();
                cos.iter().any(|&c| {
                    sin.iter().any(|&s| {
                        users(c)
                            .iter()
                            .any(|&k| g[k].is("Concat") && users(s).contains(&k))
                    })
                })
            }
        });
        if transposed || concat_of_two(m) || sam {
            out.insert(m);
        }
    }
    out
}

// ------------------------------------------------------------------------------------- plan

/// What NNCF decides for a model: every weight it looks at, with its config.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Weights compressed, in NNCF's order.
    pub params: Vec<Param>,
    /// Weights left in float (ignored, unsupported, backup `none`, group-size `ignore`), with why.
    pub kept: Vec<(Param, String)>,
    pub(super) resolved: Resolved,
    pub(super) options: Options,
    /// Layers renamed because another had their name (NNCF makes friendly names unique).
    pub renamed: usize,
}

/// Decide every weight's compression as NNCF 3.4.0 does. Renames layers whose friendly name
/// repeats (as NNCF does before anything else). `weights` is read for `--ratio` below 1.
pub fn plan(g: &mut Graph, weights: Option<&Weights>, o: &Options) -> Result<Plan, String> {
    let rs = resolve(o)?;
    let ops = order::ov_ops(g);
    let done = g
        .rt_info
        .as_ref()
        .and_then(|rt| find_child(rt, "nncf"))
        .and_then(|n| find_child(n, "friendly_names_were_updated"))
        .and_then(|e| e.attr("value"))
        == Some("True");
    let renamed = if done { 0 } else { order::dedup_names(g, &ops) };
    let g: &Graph = g;
    let ids = order::nncf_ids(g, &ops);
    let topo = order::topological(g, &ids);
    let mut ignored = ignored(g, o)?;
    for m in rope_matmuls(g) {
        ignored.insert(g[m].name.clone());
    }
    let nodes: Vec<(NodeId, Kind)> = topo
        .iter()
        .filter(|&&n| ids.reached[n.index()])
        .filter_map(|&n| Some((n, kind_of(g, n)?)))
        .filter(|&(n, _)| !weight_ports(g, &ids, n).is_empty())
        .collect();

    let (mut all, mut kept, last_skipped) = candidates(g, &ids, &nodes, &ignored, &rs);

    // The ratio-defining weights: MatMuls but the last (all of them with --all-layers, plus
    // single-axis embeddings); every weight in 8-bit modes.
    let mut rd = ratio_defining(&all, &rs, last_skipped);

    let group_of = group_fallback(&mut all, &mut kept, &mut rd, &rs);
    for &i in &rd {
        all[i].config = Some((rs.mode, group_of.get(&i).copied().unwrap_or(rs.group)));
    }

    // Mixed precision: the weights with the largest int8 error go to the primary precision
    // first, until the next would reach the ratio.
    if rs.ratio < 1.0 && !rd.is_empty() {
        mixed_precision(g, weights, &mut all, &rd, &rs)?;
    }

    check_group_sizes(g, &all, &rd, &rs)?;

    let (params, floats): (Vec<Param>, Vec<Param>) =
        all.into_iter().partition(|p| p.config.is_some());
    for p in floats {
        kept.push((p, "the backup precision is none".into()));
    }
    Ok(Plan {
        params,
        kept,
        resolved: rs,
        options: o.clone(),
        renamed,
    })
}

/// Every weight NNCF looks at, in its order: the ones to compress (with the backup config)
/// and the ones kept in float with why; whether the last layer's weight was skipped.
fn candidates(
    g: &Graph,
    ids: &order::Ids,
    nodes: &[(NodeId, Kind)],
    ignored: &std::collections::HashSet<String>,
    rs: &Resolved,
) -> (Vec<Param>, Vec<(Param, String)>, bool) {
    let mut all: Vec<Param> = Vec::new();
    let mut kept: Vec<(Param, String)> = Vec::new();
    let mut taken = std::collections::HashSet::new();
    let mut last_skipped = false;
    let count = nodes.len();
    for (i, &(n, kind)) in nodes.iter().enumerate() {
        let target = !ignored.contains(&g[n].name);
        for (port, k) in weight_ports(g, ids, n) {
            let is_last = i + 1 == count;
            let name = g[k].name.clone();
            if taken.contains(&name) {
                last_skipped = is_last;
                continue;
            }
            let (Some(et), Some(shape)) = (const_type(&g[k]), const_shape(&g[k])) else {
                continue;
            };
            let axes = reduction_axes(g, n, kind, port, shape.len());
            let p = Param {
                node: n,
                port,
                konst: k,
                name: name.clone(),
                et,
                shape,
                axes,
                kind,
                config: None,
            };
            let why = if !target {
                Some(format!("layer '{}' is ignored", g[n].name))
            } else if ignored.contains(&name) {
                Some(format!("weight '{name}' is ignored"))
            } else if !irc_supported(et) {
                Some(format!("{} weights are left as they are", et.name()))
            } else {
                None
            };
            match why {
                None => {
                    let mut p = p;
                    p.config = backup_config(rs);
                    taken.insert(name);
                    all.push(p);
                }
                Some(w) => {
                    last_skipped = is_last;
                    kept.push((p, w));
                }
            }
        }
    }
    (all, kept, last_skipped)
}

/// Indices into `all` of the weights that define the ratio.
fn ratio_defining(all: &[Param], rs: &Resolved, last_skipped: bool) -> Vec<usize> {
    if rs.mode.is_int8() {
        (0..all.len()).collect()
    } else {
        let mut v: Vec<usize> = (0..all.len())
            .filter(|&i| all[i].kind == Kind::MatMul)
            .collect();
        if !rs.all_layers && !last_skipped {
            v.pop();
        }
        if rs.all_layers {
            v.extend(
                (0..all.len())
                    .filter(|&i| all[i].kind == Kind::Embedding && all[i].axes.len() == 1),
            );
        }
        v
    }
}

/// `--group-size-fallback`: where the group size does not divide a channel, the weight is
/// dropped (ignore; `rd` remapped) or takes a smaller group (adjust). The group per weight.
fn group_fallback(
    all: &mut Vec<Param>,
    kept: &mut Vec<(Param, String)>,
    rd: &mut Vec<usize>,
    rs: &Resolved,
) -> std::collections::HashMap<usize, i64> {
    let mut group_of: std::collections::HashMap<usize, i64> =
        rd.iter().map(|&i| (i, rs.group)).collect();
    if rs.group != -1 {
        match rs.fallback {
            Fallback::Error => {}
            Fallback::Ignore => {
                let bad: Vec<NodeId> = rd
                    .iter()
                    .filter(|&&i| all[i].channel() as i64 % rs.group != 0)
                    .map(|&i| all[i].node)
                    .collect();
                if !bad.is_empty() {
                    let mut keep = Vec::new();
                    let mut map = Vec::new();
                    for (i, p) in all.drain(..).enumerate() {
                        if bad.contains(&p.node) {
                            let why = format!(
                                "group size {} does not divide its channel of {} (--group-size-fallback ignore)",
                                rs.group,
                                p.channel()
                            );
                            kept.push((Param { config: None, ..p }, why));
                        } else {
                            map.push((i, keep.len()));
                            keep.push(p);
                        }
                    }
                    *all = keep;
                    let remap: std::collections::HashMap<usize, usize> = map.into_iter().collect();
                    *rd = rd.iter().filter_map(|i| remap.get(i).copied()).collect();
                    group_of = rd.iter().map(|&i| (i, rs.group)).collect();
                }
            }
            Fallback::Adjust => {
                let mut valid = Vec::new();
                for &i in rd.iter() {
                    let c = all[i].channel() as i64;
                    if c % rs.group == 0 {
                        valid.push(i);
                        continue;
                    }
                    let adjusted = c & c.wrapping_neg();
                    if adjusted >= 32 {
                        group_of.insert(i, adjusted);
                        valid.push(i);
                    }
                }
                *rd = valid;
            }
        }
    }
    group_of
}

/// The ratio: weights by ascending int8-error score go to the primary precision until the
/// next would reach it; the others take the backup config.
fn mixed_precision(
    g: &Graph,
    weights: Option<&Weights>,
    all: &mut [Param],
    rd: &[usize],
    rs: &Resolved,
) -> Result<(), String> {
    let mut scores = Vec::with_capacity(rd.len());
    for &i in rd.iter() {
        let p = &all[i];
        let geo = Geo::of(&p.shape, &p.axes, None).ok_or_else(|| {
            format!(
                "weight '{}': reduction axes {:?} are not contiguous",
                p.name, p.axes
            )
        })?;
        let src = source_of(g, p)?;
        let err = stream::int8_error(&src, geo, weights)
            .map_err(|e| format!("reading weight '{}': {e}", p.name))?;
        let eps = if p.et == ElementType::F32 {
            f32::EPSILON as f64
        } else {
            half::f16::EPSILON.to_f64()
        };
        scores.push(1.0 / (err as f64 + eps));
    }
    let mut idx: Vec<usize> = (0..rd.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let total: u64 = rd.iter().map(|&i| all[i].elements()).sum();
    let mut n4 = 0u64;
    let mut primary = std::collections::HashSet::new();
    for k in idx {
        let p = &all[rd[k]];
        if (n4 + p.elements()) as f64 / total as f64 >= rs.ratio {
            break;
        }
        primary.insert(p.node);
        n4 += p.elements();
    }
    for &i in rd.iter() {
        if !primary.contains(&all[i].node) {
            all[i].config = backup_config(rs);
        }
    }
    Ok(())
}

/// The group size must divide the channel of every weight in the primary precision (NNCF's
/// InvalidGroupSizeError, with what to pass instead).
fn check_group_sizes(g: &Graph, all: &[Param], rd: &[usize], rs: &Resolved) -> Result<(), String> {
    let failed: Vec<String> = rd
        .iter()
        .filter_map(|&i| {
            let p = &all[i];
            let (_, gs) = p.config?;
            (gs != -1 && p.channel() as i64 % gs != 0)
                .then(|| format!("\"{}\" (channel size: {})", g[p.node].name, p.channel()))
        })
        .collect();
    if !failed.is_empty() {
        let chans: Vec<usize> = rd.iter().map(|&i| all[i].channel()).collect();
        let fits = [128i64, 64, 32, 16]
            .into_iter()
            .find(|gs| chans.iter().all(|&c| c as i64 % gs == 0));
        return Err(format!(
            "group size {} does not divide the channel of {} layer(s):\n\t{}\npass {}, or \
             --group-size-fallback ignore (those stay float) or adjust (a smaller group for them) \
             (NNCF: InvalidGroupSizeError)",
            rs.group,
            failed.len(),
            failed.join("\n\t"),
            match fits {
                Some(gs) => format!(
                    "--group-size {gs} (it divides every channel) or --group-size -1 (per channel)"
                ),
                None => "--group-size -1 (per channel)".to_string(),
            }
        ));
    }
    Ok(())
}

pub(super) fn backup_config(rs: &Resolved) -> Option<(Mode, i64)> {
    rs.backup.config(rs.group)
}

pub(super) fn source_of(g: &Graph, p: &Param) -> Result<Source, String> {
    let data = g[p.konst]
        .konst
        .clone()
        .ok_or_else(|| format!("weight '{}' has no data", p.name))?;
    Ok(Source { data, et: p.et })
}

pub(super) fn find_child<'a>(e: &'a XmlElement, name: &str) -> Option<&'a XmlElement> {
    e.children.iter().find(|c| c.name == name)
}
