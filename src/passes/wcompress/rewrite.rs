//! The graph after the plan: each compressed weight's constants (codes, scales, zero points) and
//! decompression subgraph named as NNCF names them, the report, and the rt_info NNCF leaves on the
//! model.

use super::*;

// ------------------------------------------------------------------------------------ apply

/// One weight as compressed, for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightReport {
    /// The weight's Const (friendly name).
    pub name: String,
    /// The layer that reads it.
    pub layer: String,
    /// NNCF's mode name (`int4_asym`, `int8_asym`…), or `float` when kept.
    pub mode: String,
    /// -1: per channel; `null` when kept.
    pub group_size: Option<i64>,
    pub shape: Vec<usize>,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Why it stays float.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// What `compress` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub weights: Vec<WeightReport>,
    pub compressed: usize,
    pub kept: usize,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// Rewrite the graph: each planned weight's Const becomes NNCF's decompression subgraph whose
/// constants the returned jobs write at `.bin` offsets from 0 (see [`write`]).
pub fn apply(g: &mut Graph, plan: &Plan) -> Result<(Vec<Job>, Report), String> {
    let mut next_id = g.layers().map(|l| l.id).max().unwrap_or(0) + 1;
    let mut jobs = Vec::new();
    let mut off = 0u64;
    let mut weights = Vec::new();
    let mut names: std::collections::HashSet<String> = g.layers().map(|l| l.name.clone()).collect();
    for p in &plan.params {
        let (mode, gs) = p.config.expect("planned weights have a config");
        let group = (gs != -1).then_some(gs as usize);
        let geo =
            Geo::of(&p.shape, &p.axes, group).ok_or_else(|| geo_error(g, p, mode, gs, group))?;
        let src = source_of(g, p)?;
        let low = mode.lowering(geo.elements());
        let n = geo.elements();
        let codes = (off, stream::packed_len(n, low.bits()));
        off += codes.1;
        let zp = if low.has_zero_point() {
            let z = (off, stream::packed_len(geo.groups(), low.bits()));
            off += z.1;
            z
        } else {
            (off, 0)
        };
        let scale = (off, geo.groups() as u64 * if low.mx() { 1 } else { 2 });
        off += scale.1;
        let bytes_before = n as u64 * (if p.et == ElementType::F32 { 4 } else { 2 });
        rewrite(
            g,
            p,
            mode,
            group,
            &geo,
            (codes, zp, scale),
            &mut next_id,
            &mut names,
        );
        weights.push(WeightReport {
            name: p.name.clone(),
            layer: g[p.node].name.clone(),
            mode: mode.value().into(),
            group_size: Some(gs),
            shape: p.shape.clone(),
            bytes_before,
            bytes_after: codes.1 + zp.1 + scale.1,
            kept: None,
        });
        jobs.push(Job {
            src,
            geo,
            lowering: low,
            codes,
            zp,
            scale,
        });
    }
    let compressed = weights.len();
    for (p, why) in &plan.kept {
        let b = p.elements() * (p.et.bits() as u64) / 8;
        weights.push(WeightReport {
            name: p.name.clone(),
            layer: g.get(p.node).map_or(String::new(), |l| l.name.clone()),
            mode: "float".into(),
            group_size: None,
            shape: p.shape.clone(),
            bytes_before: b,
            bytes_after: b,
            kept: Some(why.clone()),
        });
    }
    annotate(g, plan);
    let rep = Report {
        compressed,
        kept: plan.kept.len(),
        bytes_before: weights.iter().map(|w| w.bytes_before).sum(),
        bytes_after: weights.iter().map(|w| w.bytes_after).sum(),
        weights,
    };
    Ok((jobs, rep))
}

/// The error for a weight whose shape does not fit `mode` in groups of `gs` (`group`).
fn geo_error(g: &Graph, p: &Param, mode: Mode, gs: i64, group: Option<usize>) -> String {
    let layer = &g[p.node].name;
    if group.is_some() && p.axes.len() != 1 {
        format!(
            "layer '{layer}': {} in groups of {gs} needs one reduction axis, its weight \
             '{}' {:?} is reduced over {:?} (NNCF: Group-wise quantization expects a \
             single reduction axis); leave it out with --ignore-layer, or choose \
             --backup-precision int8_asym",
            mode.value(),
            p.name,
            p.shape,
            p.axes
        )
    } else {
        format!(
            "layer '{layer}': group size {gs} ({}) does not divide its channel of {} \
             (NNCF: Channel size {} should be divisible by size of group {gs}); leave the \
             layer out with --ignore-layer, or choose another --group-size or \
             --backup-precision",
            mode.value(),
            p.channel(),
            p.channel()
        )
    }
}

/// A name not taken yet (`base`, else `base_2`, …).
pub(super) fn fresh(names: &mut std::collections::HashSet<String>, base: String) -> String {
    let mut name = base.clone();
    let mut k = 2;
    while names.contains(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    names.insert(name.clone());
    name
}

pub(super) type Parts = ((u64, u64), (u64, u64), (u64, u64));

/// Replace `p`'s Const by NNCF's subgraph (`_create_compression_subgraph`, `_replace_node`).
#[allow(clippy::too_many_arguments)]
pub(super) fn rewrite(
    g: &mut Graph,
    p: &Param,
    mode: Mode,
    group: Option<usize>,
    geo: &Geo,
    (codes, zp, scale): Parts,
    next_id: &mut u64,
    names: &mut std::collections::HashSet<String>,
) {
    use ElementType as E;
    let n = &p.name;
    let origin = g[p.konst].origin;
    let (grouped, scale_shape) = grouped_shapes(p, group);
    debug_assert_eq!(scale_shape.iter().product::<usize>(), geo.groups());
    let mut add = |g: &mut Graph, mut l: Layer| -> NodeId {
        l.id = *next_id;
        *next_id += 1;
        l.origin = origin;
        g.add_layer(l)
    };
    // A constant written to the output .bin at (offset, size).
    let out = |(offset, size): (u64, u64)| ConstData::Out { offset, size };
    let ct = mode.codes_type();
    let c = add(g, const_layer(n, ct, &grouped, out(codes)));
    // Names for the layers NNCF leaves to OpenVINO's counter (`Convert_123`): any unique
    // name does; these say what the layer is.
    let cname = fresh(names, format!("{n}/codes_to_f16"));
    let cv = add(g, convert_layer(cname, ct, E::F16, &grouped));
    g.connect(c, 0, cv, 0);
    let mut values = cv;
    if zp.1 > 0 {
        let zname = fresh(names, format!("{n}/zero_point"));
        let z = add(g, const_layer(&zname, ct, &scale_shape, out(zp)));
        let zcname = fresh(names, format!("{zname}/to_f16"));
        let zc = add(g, convert_layer(zcname, ct, E::F16, &scale_shape));
        g.connect(z, 0, zc, 0);
        let sname = fresh(names, format!("{zname}/subtract"));
        let sub = add(
            g,
            binary_layer("Subtract", sname, &grouped, &scale_shape, &grouped),
        );
        g.connect(cv, 1, sub, 0);
        g.connect(zc, 1, sub, 1);
        values = sub;
    }
    let sname = fresh(names, format!("{n}/scale"));
    let mx = matches!(mode, Mode::Mxfp4 | Mode::Mxfp8E4m3);
    let s = add(
        g,
        const_layer(
            &sname,
            if mx { E::F8E8M0 } else { E::F16 },
            &scale_shape,
            out(scale),
        ),
    );
    // MX scales are stored as f8e8m0 exponents, widened to f16.
    let s = if mx {
        let cname = fresh(names, format!("{sname}/to_f16"));
        let c = add(g, convert_layer(cname, E::F8E8M0, E::F16, &scale_shape));
        g.connect(s, 0, c, 0);
        c
    } else {
        s
    };
    let sport = g[s].outputs[0].id;
    let mname = fresh(names, format!("{n}/fq_weights_{}", p.port));
    let mul = add(
        g,
        binary_layer("Multiply", mname.clone(), &grouped, &scale_shape, &grouped),
    );
    let vport = g[values].outputs[0].id;
    g.connect(values, vport, mul, 0);
    g.connect(s, sport, mul, 1);
    let mut last = mul;
    if group.is_some() {
        last = reshape_back(g, p, &grouped, mul, names, &mut add);
    }
    // A Convert back to the weight's type when it is not f16 and something reads it directly.
    let users = g.users_of(p.konst, 0);
    let add_convert = p.et != E::F16 && users.iter().any(|&(u, _)| !g[u].is("Convert"));
    if add_convert {
        let cname = fresh(names, format!("{mname}/convert"));
        let k = add(g, convert_layer(cname, E::F16, p.et, &p.shape));
        let lp = g[last].outputs[0].id;
        g.connect(last, lp, k, 0);
        last = k;
    }
    let new_et = if add_convert { p.et } else { E::F16 };
    let mut dead = vec![p.konst];
    replace_uses(g, p.konst, last, new_et, &mut dead);
    g.remove_layers(&dead);
}

/// `p`'s shape with its reduction axis split into (groups, `group`) when grouped, and the
/// shape of its scales (and zero points).
fn grouped_shapes(p: &Param, group: Option<usize>) -> (Vec<usize>, Vec<usize>) {
    let grouped: Vec<usize> = match group {
        Some(gs) => {
            let a = p.axes[0];
            let mut s = p.shape[..a].to_vec();
            s.push(p.shape[a] / gs);
            s.push(gs);
            s.extend_from_slice(&p.shape[a + 1..]);
            s
        }
        None => p.shape.clone(),
    };
    let scale_shape: Vec<usize> = match group {
        Some(_) => {
            let mut s = grouped.clone();
            s[p.axes[0] + 1] = 1;
            s
        }
        None => p
            .shape
            .iter()
            .enumerate()
            .map(|(i, &d)| if p.axes.contains(&i) { 1 } else { d })
            .collect(),
    };
    (grouped, scale_shape)
}

/// The static partial shape of dims `d`.
fn static_shape(d: &[usize]) -> PartialShape {
    PartialShape::from_static(&d.iter().map(|&x| x as u64).collect::<Vec<_>>())
}

/// A Const layer `name` of type `et` and `shape` holding `data`.
fn const_layer(name: &str, et: ElementType, shape: &[usize], data: ConstData) -> Layer {
    let mut l = Layer::new("Const", "opset1", name);
    let dims = shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let size = match &data {
        ConstData::Out { size, .. } | ConstData::Bin { size, .. } => *size,
        ConstData::Owned(b) => b.len() as u64,
    }
    .to_string();
    l.data = Some(Attrs::from_pairs([
        ("element_type", et.name()),
        ("shape", dims.as_str()),
        ("offset", "0"),
        ("size", size.as_str()),
    ]));
    l.outputs.push(Port::new(0, et, static_shape(shape)));
    l.konst = Some(data);
    l
}

/// A Convert layer `name` from `from` to `to` on a tensor of `shape`.
fn convert_layer(name: String, from: ElementType, to: ElementType, shape: &[usize]) -> Layer {
    let mut l = Layer::new("Convert", "opset1", &name);
    l.data = Some(Attrs::from_pairs([("destination_type", to.name())]));
    l.inputs.push(Port::new(0, from, static_shape(shape)));
    l.outputs.push(Port::new(1, to, static_shape(shape)));
    l
}

/// An f16 numpy-broadcast binary layer of type `ty` named `name`, inputs `a`, `b`, output `out`.
fn binary_layer(ty: &str, name: String, a: &[usize], b: &[usize], out: &[usize]) -> Layer {
    let mut l = Layer::new(ty, "opset1", &name);
    l.data = Some(Attrs::from_pairs([("auto_broadcast", "numpy")]));
    l.inputs
        .push(Port::new(0, ElementType::F16, static_shape(a)));
    l.inputs
        .push(Port::new(1, ElementType::F16, static_shape(b)));
    l.outputs
        .push(Port::new(2, ElementType::F16, static_shape(out)));
    l
}

/// Adds (through `add`) the Reshape of grouped `mul` back to `p`'s shape, with its shape
/// Const; returns the Reshape.
fn reshape_back(
    g: &mut Graph,
    p: &Param,
    grouped: &[usize],
    mul: NodeId,
    names: &mut std::collections::HashSet<String>,
    add: &mut impl FnMut(&mut Graph, Layer) -> NodeId,
) -> NodeId {
    use ElementType as E;
    let n = &p.name;
    let shape_bytes: Vec<u8> = p
        .shape
        .iter()
        .flat_map(|&d| (d as i64).to_le_bytes())
        .collect();
    let rname = fresh(names, format!("{n}/reshape"));
    let k = add(
        g,
        const_layer(
            &fresh(names, format!("{rname}/shape")),
            E::I64,
            &[p.shape.len()],
            ConstData::Owned(Arc::from(shape_bytes)),
        ),
    );
    let mut r = Layer::new("Reshape", "opset1", &rname);
    r.data = Some(Attrs::from_pairs([("special_zero", "false")]));
    r.inputs.push(Port::new(0, E::F16, static_shape(grouped)));
    r.inputs
        .push(Port::new(1, E::I64, static_shape(&[p.shape.len()])));
    r.outputs.push(Port::new(2, E::F16, static_shape(&p.shape)));
    let r = add(g, r);
    g.connect(mul, 2, r, 0);
    g.connect(k, 0, r, 1);
    r
}

/// NNCF's `_replace_node`: readers of `old` read `new`; a Convert to `new`'s type is bypassed
/// (its readers read `new`, it goes).
pub(super) fn replace_uses(
    g: &mut Graph,
    old: NodeId,
    new: NodeId,
    et: ElementType,
    dead: &mut Vec<NodeId>,
) {
    let out = g[new].outputs[0].id;
    for (u, i) in g.users_of(old, 0) {
        if g[u].is("Convert") && g[u].outputs.first().and_then(|p| p.precision) == Some(et) {
            replace_uses(g, u, new, et, dead);
            dead.push(u);
            continue;
        }
        let pid = g[u].inputs[i].id;
        g.disconnect_input(u, pid);
        g.connect(new, out, u, pid);
    }
}

/// The model's rt_info gets NNCF's record of the compression (`nncf/weight_compression`).
pub(super) fn annotate(g: &mut Graph, plan: &Plan) {
    let rs = &plan.resolved;
    let el = |name: &str, value: Option<String>| XmlElement {
        name: name.into(),
        attrs: value.map(|v| vec![("value".into(), v)]).unwrap_or_default(),
        children: Vec::new(),
        text: None,
    };
    let py_list = |v: &[String]| {
        format!(
            "[{}]",
            v.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut scope = el("ignored_scope", None);
    let o = &plan.options;
    for (k, v) in [
        ("names", &o.ignore_names),
        ("patterns", &o.ignore_patterns),
        ("types", &o.ignore_types),
    ] {
        if !v.is_empty() {
            scope.children.push(el(k, Some(py_list(v))));
        }
    }
    if scope.children.is_empty() {
        scope.attrs.push(("value".into(), "[]".into()));
    }
    // Python's str(ratio or 1).
    let ratio = match o.ratio.filter(|&r| r != 0.0) {
        None => "1".to_string(),
        Some(r) if r.fract() == 0.0 => format!("{r:.1}"),
        Some(r) => format!("{r}"),
    };
    let adv = format!(
        "{{'statistics_path': None, 'lora_adapter_rank': 256, 'group_size_fallback_mode': '{}', \
         'min_adjusted_group_size': 32, 'awq_params': {{'subset_size': 32, 'percent_to_apply': 0.002, \
         'alpha_min': 0.0, 'alpha_max': 1.0, 'steps': 100, 'prefer_data_aware_scaling': True}}, \
         'scale_estimation_params': {{'subset_size': 64, 'initial_steps': 5, 'scale_steps': 5, \
         'weight_penalty': -1.0}}, 'gptq_params': {{'damp_percent': 0.1, 'block_size': 128, \
         'subset_size': 128}}, 'lora_correction_params': {{'adapter_rank': 8, 'num_iterations': 3, \
         'apply_regularization': True, 'subset_size': 128, 'use_int8_adapters': True}}, \
         'backend_params': {{}}, 'codebook': None, 'adaptive_codebook_params': {{'value_type': \
         'f8e4m3', 'across_blocks': False, 'num_elements': 16}}}}",
        rs.fallback.value()
    );
    let mut wc = el("weight_compression", None);
    let py_bool = |b: bool| if b { "True" } else { "False" }.to_string();
    let mut entries: Vec<XmlElement> = vec![
        el("advanced_parameters", Some(adv)),
        el("all_layers", Some(py_bool(rs.all_layers))),
        el("awq", Some("False".into())),
        el("backup_mode", Some(rs.backup.value().into())),
        el("compression_format", Some("dequantize".into())),
        el("gptq", Some("False".into())),
        el("group_size", Some(rs.group.to_string())),
        scope,
        el("lora_correction", Some("False".into())),
        el("mode", Some(rs.mode.value().into())),
        el("ratio", Some(ratio)),
        el("scale_estimation", Some("False".into())),
        el(
            "sensitivity_metric",
            Some("weight_quantization_error".into()),
        ),
    ];
    wc.children.append(&mut entries);
    let rt = g.rt_info.get_or_insert_with(|| el("rt_info", None));
    let pos = rt.children.iter().position(|c| c.name == "nncf");
    let nncf = match pos {
        Some(i) => &mut rt.children[i],
        None => {
            rt.children.push(el("nncf", None));
            rt.children.last_mut().expect("pushed")
        }
    };
    nncf.children
        .retain(|c| c.name != "weight_compression" && c.name != "friendly_names_were_updated");
    nncf.children
        .push(el("friendly_names_were_updated", Some("True".into())));
    nncf.children.push(wc);
    nncf.children.sort_by(|a, b| a.name.cmp(&b.name));
}

/// Write every job's constants to `out` (a fresh `.bin`, at offset 0), in order. Returns the
/// bytes written. `progress` is told source bytes as they are done.
pub fn write<W: std::io::Write>(
    jobs: &[Job],
    weights: Option<&Weights>,
    out: &mut W,
    progress: &mut dyn FnMut(u64),
) -> std::io::Result<u64> {
    let mut pos = 0u64;
    for j in jobs {
        debug_assert_eq!(pos, j.codes.0);
        stream::write_job(j, weights, out, progress)?;
        pos = j.scale.0 + j.scale.1;
    }
    Ok(pos)
}
