//! `irc edit`: the model's interface edited in place of the XML by hand — inputs and outputs
//! renamed, an intermediate tensor exposed as an output, an output dropped (with what only it
//! needed), an input shape made permanent, model-level rt_info set or removed.
//!
//! Every edit is checked before it is applied (an unknown name lists the close matches; a new
//! name may not clash with a layer or tensor name already in the model), edits apply in the
//! order given, and weights are never touched: the writer copies the .bin ranges of the
//! constants that stay.

use super::infer::{Infer, InputOverride};
use crate::ir::*;

/// One edit, as `irc edit` takes them (in order).
#[derive(Debug, Clone, PartialEq)]
pub enum EditOp {
    /// `--rename-input OLD=NEW`: the Parameter's friendly name and tensor name.
    RenameInput { old: String, new: String },
    /// `--rename-output OLD=NEW`: the Result's friendly name and the tensor name it reads.
    RenameOutput { old: String, new: String },
    /// `--add-output TENSOR`: a tensor name, or `LAYER:INDEX` (the layer's friendly name and
    /// the 0-based index of its output).
    AddOutput(String),
    /// `--drop-output NAME`: the Result goes, then every layer only it needed.
    DropOutput(String),
    /// `--set-input NAME[dims]`: the Parameter's shape, and every port inferred from it.
    SetInput(InputOverride),
    /// `--set-rt-info PATH=VALUE`: `<rt_info><a><b value="VALUE"/></a></rt_info>` for `a/b`.
    SetRtInfo { path: String, value: String },
    /// `--strip-rt-info`: the model-level `<rt_info>` (layer rt_info stays: it carries marks
    /// such as `decompression` that change what OpenVINO computes).
    StripRtInfo,
}

impl EditOp {
    /// Parse one command-line edit (`flag` without its dashes).
    pub fn parse(flag: &str, value: &str) -> Result<EditOp, String> {
        let pair = |what: &str| -> Result<(String, String), String> {
            match value.split_once('=') {
                Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.into(), b.into())),
                _ => Err(format!(
                    "--{flag} '{value}': expected {what}, e.g. --{flag} input_ids=tokens"
                )),
            }
        };
        Ok(match flag {
            "rename-input" => {
                let (old, new) = pair("OLD=NEW")?;
                EditOp::RenameInput { old, new }
            }
            "rename-output" => {
                let (old, new) = pair("OLD=NEW")?;
                EditOp::RenameOutput { old, new }
            }
            "add-output" => EditOp::AddOutput(nonempty(flag, value)?),
            "drop-output" => EditOp::DropOutput(nonempty(flag, value)?),
            "set-input" => EditOp::SetInput(super::infer::parse_input_spec(value)?),
            "set-rt-info" => {
                let (path, v) = value.split_once('=').ok_or_else(|| {
                    format!("--set-rt-info '{value}': expected PATH=VALUE, e.g. runtime_options/KV_CACHE_PRECISION=u8")
                })?;
                if path.is_empty() || path.split('/').any(|s| !is_xml_name(s)) {
                    return Err(format!(
                        "--set-rt-info '{value}': the path must be XML element names joined by '/'"
                    ));
                }
                EditOp::SetRtInfo {
                    path: path.into(),
                    value: v.into(),
                }
            }
            "strip-rt-info" => EditOp::StripRtInfo,
            _ => return Err(format!("unknown edit --{flag}")),
        })
    }
}

fn nonempty(flag: &str, v: &str) -> Result<String, String> {
    if v.is_empty() {
        Err(format!("--{flag}: the name is empty"))
    } else {
        Ok(v.to_string())
    }
}

fn is_xml_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || matches!(x, '_' | '-' | '.'))
}

/// What `edit` did, for the report.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct EditReport {
    /// One line per edit, in the order applied.
    pub applied: Vec<String>,
    /// Layers removed because no output needs them any more.
    pub removed_dead: usize,
}

/// Apply `ops` in order. On error the model is left half-edited: callers write nothing then.
pub fn edit(model: &mut Model, ops: &[EditOp]) -> Result<EditReport, String> {
    let mut rep = EditReport::default();
    let mut overrides: Vec<InputOverride> = Vec::new();
    let mut dropped = false;
    for op in ops {
        let g = &mut model.graph;
        let line = match op {
            EditOp::RenameInput { old, new } => {
                let n = find_input(g, old)?;
                check_free(g, new, Some(n), "--rename-input")?;
                let l = &mut g[n];
                let was = l.name.clone();
                l.name = new.clone();
                if let Some(p) = l.outputs.first_mut() {
                    let names = renamed(p.names(), old, &was, new);
                    p.set_names(names);
                }
                // A later --set-input may use either name.
                for o in overrides.iter_mut().filter(|o| &o.name == old) {
                    o.name = new.clone();
                }
                format!("input '{was}' renamed '{new}'")
            }
            EditOp::RenameOutput { old, new } => rename_output(g, old, new)?,
            EditOp::AddOutput(spec) => add_output(g, spec)?,
            EditOp::DropOutput(name) => {
                let r = find_output(g, name)?;
                let results = g.layers().filter(|l| l.is("Result")).count();
                if results == 1 {
                    return Err(format!(
                        "--drop-output '{name}': it is the model's only output; a model needs one"
                    ));
                }
                let was = g[r].name.clone();
                g.remove_layer(r);
                dropped = true;
                format!("output '{was}' dropped")
            }
            EditOp::SetInput(ov) => {
                let n = find_input(g, &ov.name)?;
                let name = g[n].name.clone();
                overrides.retain(|o| {
                    layer_named(g, &o.name) != Some(n)
                        && !g[n].outputs.iter().any(|q| q.names().contains(&o.name))
                });
                overrides.push(ov.clone());
                format!("input '{name}' set to [{}]", ov.shape)
            }
            EditOp::SetRtInfo { path, value } => set_rt_info(g, path, value),
            EditOp::StripRtInfo => {
                let had = g.rt_info.take().is_some_and(|r| !r.children.is_empty());
                match had {
                    true => "model rt_info removed".to_string(),
                    false => "model rt_info removed (there was none)".to_string(),
                }
            }
        };
        rep.applied.push(line);
    }
    if dropped {
        rep.removed_dead = super::fold::dce(&mut model.graph);
    }
    if !overrides.is_empty() {
        let facts = {
            let mut inf = Infer::new(model, None, &overrides);
            inf.check_overrides()?;
            let facts = inf.run();
            if let Some(d) = inf.diags.first() {
                return Err(format!(
                    "--set-input: the model does not take these shapes: {}",
                    d.message
                ));
            }
            facts
        };
        super::record::apply(&mut model.graph, &facts, &overrides, true);
    }
    Ok(rep)
}

/// `--rename-output OLD=NEW`: renames the Result `old` and its tensor name; the report line.
fn rename_output(g: &mut Graph, old: &str, new: &str) -> Result<String, String> {
    let r = find_output(g, old)?;
    check_free(g, new, Some(r), "--rename-output")?;
    let (p, o) = g
        .input_of(r, 0)
        .ok_or_else(|| format!("output '{old}' has no producer"))?;
    let was = g[r].name.clone();
    let port = &mut g[p].outputs[o];
    let names = renamed(port.names(), old, &was, new);
    port.set_names(names);
    // OpenVINO 2025+ writes the output's own names on the Result: `output_names`.
    let res = &mut g[r];
    if let Some((_, v)) = res
        .extra_attrs_mut()
        .iter_mut()
        .find(|(k, _)| k == "output_names")
    {
        let names = renamed(&crate::xml::read::split_names(v), old, &was, new);
        *v = join_names(&names);
    }
    res.name = new.to_string();
    Ok(format!("output '{was}' renamed '{new}'"))
}

/// `--add-output SPEC`: a Result on the tensor `spec`, named after it; the report line.
fn add_output(g: &mut Graph, spec: &str) -> Result<String, String> {
    let (p, o) = find_tensor(g, spec)?;
    if let Some((r, _)) = g
        .users_of(p, o)
        .into_iter()
        .find(|&(u, _)| g[u].is("Result"))
    {
        return Err(format!(
            "--add-output '{spec}': that tensor is already the output '{}'",
            g[r].name
        ));
    }
    // The tensor needs a name to be asked for by name.
    let tensor = match g[p].outputs[o].names().first() {
        Some(t) => t.clone(),
        None => {
            let t = format!("{}:{o}", g[p].name);
            check_free(g, &t, None, "--add-output")?;
            g[p].outputs[o].set_names(vec![t.clone()]);
            t
        }
    };
    let mut name = format!("{tensor}/sink_port_0");
    let mut k = 1;
    while layer_named(g, &name).is_some() {
        name = format!("{tensor}/sink_port_0_{k}");
        k += 1;
    }
    add_result(g, (p, o), &name);
    Ok(format!("tensor '{tensor}' added as output '{name}'"))
}

/// `--set-rt-info PATH=VALUE`: sets the `value` of the rt_info element at `path`, creating
/// the elements missing on the way; the report line.
fn set_rt_info(g: &mut Graph, path: &str, value: &str) -> String {
    let root = g.rt_info.get_or_insert_with(|| XmlElement {
        name: "rt_info".into(),
        ..Default::default()
    });
    let mut at = root;
    for part in path.split('/') {
        let i = match at.children.iter().position(|c| c.name == part) {
            Some(i) => i,
            None => {
                at.children.push(XmlElement {
                    name: part.into(),
                    ..Default::default()
                });
                at.children.len() - 1
            }
        };
        at = &mut at.children[i];
    }
    at.attrs.retain(|(k, _)| k != "value");
    at.attrs.push(("value".into(), value.to_string()));
    format!("rt_info {path} = '{value}'")
}

/// A port's tensor names after `old` (a tensor name, or the layer's former friendly name `was`)
/// becomes `new`: `old` is replaced where it is a tensor name; otherwise `new` comes first and
/// the names that were the layer's friendly name go.
fn renamed(names: &[String], old: &str, was: &str, new: &str) -> Vec<String> {
    let mut v: Vec<String> = names.to_vec();
    if let Some(i) = v.iter().position(|s| s == old) {
        v[i] = new.to_string();
    } else {
        v.retain(|s| s != was);
        v.insert(0, new.to_string());
    }
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
    v
}

/// A Result named `name` reading output `o` of layer `p`, its port typed as that output.
pub(crate) fn add_result(g: &mut Graph, (p, o): (NodeId, usize), name: &str) -> NodeId {
    let src = &g[p].outputs[o];
    let (port_id, et, shape) = (src.id, src.precision, src.shape.clone());
    let mut res = Layer::new("Result", "opset1", name);
    res.inputs.push(Port {
        id: 0,
        precision: et,
        shape,
        meta: None,
    });
    let rn = g.add_layer(res);
    g.connect(p, port_id, rn, 0);
    rn
}

/// A `names` attribute: comma-separated, a comma inside a name escaped as `\,`.
fn join_names(names: &[String]) -> String {
    names
        .iter()
        .map(|n| n.replace(',', "\\,"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The Result's own `output_names` (OpenVINO 2025+).
fn output_names(l: &Layer) -> Vec<String> {
    l.extra_attrs()
        .iter()
        .find(|(k, _)| k == "output_names")
        .map(|(_, v)| crate::xml::read::split_names(v))
        .unwrap_or_default()
}

pub(crate) fn layer_named(g: &Graph, name: &str) -> Option<NodeId> {
    g.nodes().find(|&n| g[n].name == name)
}

/// `name` is neither a layer's friendly name nor a tensor name (the layer `except` and its
/// output ports aside, and for an output also its producer's port).
fn check_free(g: &Graph, name: &str, except: Option<NodeId>, flag: &str) -> Result<(), String> {
    let producer = except.and_then(|r| g[r].is("Result").then(|| g.input_of(r, 0)).flatten());
    for n in g.nodes() {
        let l = &g[n];
        let mine = Some(n) == except;
        if !mine && l.name == name {
            return Err(format!(
                "{flag}: the name '{name}' is taken by layer {}",
                l.label()
            ));
        }
        if !mine && output_names(l).iter().any(|s| s == name) {
            return Err(format!(
                "{flag}: the name '{name}' is already the output name of {}",
                l.label()
            ));
        }
        for (o, p) in l.outputs.iter().enumerate() {
            if mine || producer == Some((n, o)) {
                continue;
            }
            if p.names().iter().any(|s| s == name) {
                return Err(format!(
                    "{flag}: the name '{name}' is already a tensor name of output {o} of {}",
                    l.label()
                ));
            }
        }
    }
    Ok(())
}

/// The Parameter named `name` (friendly name or tensor name).
fn find_input(g: &Graph, name: &str) -> Result<NodeId, String> {
    let params: Vec<NodeId> = g.nodes().filter(|&n| g[n].is("Parameter")).collect();
    params
        .iter()
        .copied()
        .find(|&n| {
            g[n].name == name
                || g[n]
                    .outputs
                    .iter()
                    .any(|p| p.names().iter().any(|s| s == name))
        })
        .ok_or_else(|| {
            let names = params.iter().flat_map(|&n| {
                std::iter::once(g[n].name.clone())
                    .chain(g[n].outputs.iter().flat_map(|p| p.names().to_vec()))
            });
            unknown("input", name, names)
        })
}

/// The Result named `name` (its friendly name, or a tensor name of what it reads).
fn find_output(g: &Graph, name: &str) -> Result<NodeId, String> {
    let results: Vec<NodeId> = g.nodes().filter(|&n| g[n].is("Result")).collect();
    let reads = |r: NodeId| -> Vec<String> {
        let mut v = output_names(&g[r]);
        if let Some((p, o)) = g.input_of(r, 0) {
            v.extend(g[p].outputs[o].names().iter().cloned());
        }
        v
    };
    if let Some(&r) = results.iter().find(|&&r| g[r].name == name) {
        return Ok(r);
    }
    results
        .iter()
        .copied()
        .find(|&r| reads(r).iter().any(|s| s == name))
        .ok_or_else(|| {
            let names = results
                .iter()
                .flat_map(|&r| std::iter::once(g[r].name.clone()).chain(reads(r)));
            unknown("output", name, names)
        })
}

/// An output port of a top-level layer: by tensor name, else a single-output layer's friendly
/// name, else `LAYER:INDEX`.
pub(crate) fn find_tensor(g: &Graph, spec: &str) -> Result<(NodeId, usize), String> {
    for n in g.nodes() {
        for (o, p) in g[n].outputs.iter().enumerate() {
            if p.names().iter().any(|s| s == spec) {
                return Ok((n, o));
            }
        }
    }
    // A single-output layer by its friendly name.
    if let Some(n) = layer_named(g, spec).filter(|&n| g[n].outputs.len() == 1) {
        return Ok((n, 0));
    }
    if let Some((layer, idx)) = spec.rsplit_once(':') {
        if let (Some(n), Ok(i)) = (layer_named(g, layer), idx.parse::<usize>()) {
            let outs = g[n].outputs.len();
            return if i < outs {
                Ok((n, i))
            } else {
                Err(format!(
                    "tensor '{spec}': layer {} has {outs} output(s), numbered from 0",
                    g[n].label()
                ))
            };
        }
    }
    let names = g.nodes().flat_map(|n| {
        let l = &g[n];
        l.outputs
            .iter()
            .flat_map(|p| p.names().to_vec())
            .chain((0..l.outputs.len()).map(move |o| format!("{}:{o}", l.name)))
            .collect::<Vec<_>>()
    });
    Err(unknown("tensor", spec, names))
}

/// "no input named 'x'; close: a, b" — up to 5 names nearest by edit distance.
pub(crate) fn unknown(what: &str, name: &str, names: impl Iterator<Item = String>) -> String {
    let mut all: Vec<String> = names.collect();
    all.sort();
    all.dedup();
    let mut scored: Vec<(usize, &String)> = all
        .iter()
        .map(|s| (distance(&s.to_lowercase(), &name.to_lowercase()), s))
        .collect();
    scored.sort();
    let limit = name.chars().count().div_ceil(3);
    let close: Vec<&str> = scored
        .iter()
        .filter(|(d, s)| *d <= limit || s.contains(name) || name.contains(s.as_str()))
        .take(5)
        .map(|(_, s)| s.as_str())
        .collect();
    let total = all.len();
    if close.is_empty() {
        format!("no {what} named '{name}' (the model has {total} {what} names)")
    } else {
        format!("no {what} named '{name}'; close: {}", close.join(", "))
    }
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_replaces_a_tensor_name_or_puts_the_new_name_first() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(renamed(&v(&["a", "b"]), "b", "x", "c"), v(&["a", "c"]));
        assert_eq!(renamed(&v(&["x", "b"]), "x", "x", "c"), v(&["c", "b"]));
        // Addressed by friendly name: the new name first, the old friendly name gone.
        assert_eq!(renamed(&v(&["f", "t"]), "f/sink", "f", "n"), v(&["n", "t"]));
        assert_eq!(renamed(&[], "p", "p", "q"), v(&["q"]));
    }

    #[test]
    fn unknown_names_list_close_matches() {
        let names = ["input_ids", "attention_mask", "position_ids", "beam_idx"]
            .iter()
            .map(|s| s.to_string());
        let m = unknown("input", "input_id", names);
        assert!(
            m.starts_with("no input named 'input_id'; close: input_ids"),
            "{m}"
        );
        let m = unknown("input", "zzzzzzzzzzzzzzzzz", ["a".to_string()].into_iter());
        assert_eq!(
            m,
            "no input named 'zzzzzzzzzzzzzzzzz' (the model has 1 input names)"
        );
    }

    #[test]
    fn edits_parse_and_refuse_malformed_values() {
        assert_eq!(
            EditOp::parse("rename-input", "a=b").unwrap(),
            EditOp::RenameInput {
                old: "a".into(),
                new: "b".into()
            }
        );
        assert!(EditOp::parse("rename-input", "a=").is_err());
        assert!(EditOp::parse("rename-output", "ab").is_err());
        assert!(EditOp::parse("set-rt-info", "a//b=1").is_err());
        assert!(EditOp::parse("set-rt-info", "1a=1").is_err());
        assert!(EditOp::parse("set-input", "x").is_err());
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
