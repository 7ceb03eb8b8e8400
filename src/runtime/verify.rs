//! `irc verify REF CAND`: run both models with OpenVINO's runtime ([`crate::runtime::openvino`]) on the same
//! inputs and compare every output. Inputs follow the conventions of real exports (token ids,
//! attention masks of ones, position ids counting on, beam indices of zero, floats N(0, 1)
//! seeded); a stateful model runs `steps` steps on one infer request, so the cache path is
//! compared too, and each run starts from a new request (fresh state).

use crate::passes::infer::InputOverride;
use crate::runtime::openvino::{HostTensor, OvType, PortInfo, Runtime};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What `verify` was asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub inputs: Vec<InputOverride>,
    pub seed: u64,
    pub runs: usize,
    pub steps: usize,
    pub rtol: f64,
    pub atol: f64,
    pub openvino_lib: Option<PathBuf>,
    /// `--data inputs.npz`: inputs by name (`NAME`, `NAME@STEP` for later steps).
    pub data: Option<PathBuf>,
    /// Extension libraries to load (`--extension`); with none, a model with extension ops
    /// gets openvino-tokenizers' when the python3 on PATH has it.
    pub extensions: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            inputs: Vec::new(),
            seed: 0,
            runs: 1,
            steps: 2,
            rtol: 1e-3,
            atol: 1e-4,
            openvino_lib: None,
            data: None,
            extensions: Vec::new(),
        }
    }
}

/// One output's comparison, worst over every run and step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputReport {
    pub name: String,
    pub element_type: String,
    pub shape: Vec<u64>,
    pub max_abs: f64,
    pub max_rel: f64,
    /// Index of the element furthest past the tolerance (or of the largest error).
    pub worst_index: Vec<u64>,
    pub ok: bool,
    /// Why the output cannot be compared element by element (shapes or types differ), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl OutputReport {
    /// Nothing compared yet: no error, ok.
    fn new(name: String, element_type: &str, shape: Vec<u64>) -> Self {
        OutputReport {
            name,
            element_type: element_type.to_string(),
            shape,
            max_abs: 0.0,
            max_rel: 0.0,
            worst_index: Vec::new(),
            ok: true,
            note: None,
        }
    }
}

/// The report `--format json` prints (`docs/json.md`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub equal: bool,
    pub openvino: String,
    pub runs: usize,
    pub steps: usize,
    /// Why fewer steps ran than asked, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps_note: Option<String>,
    /// Why both models ran on one CPU thread, if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_note: Option<String>,
    pub rtol: f64,
    pub atol: f64,
    /// The inputs of the first step of the first run, as `NAME[dims]` with their type.
    pub inputs: Vec<String>,
    pub outputs: Vec<OutputReport>,
    /// The candidate could not be read, compiled or run (then `equal` is false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_error: Option<String>,
    pub first_divergence: Option<Divergence>,
    /// Compiles of both models it took (more than 1: an attempt differed, see `verify`).
    pub attempts: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The run and step at which an output first differed.
    #[serde(skip)]
    first_bad: Option<(usize, usize)>,
}

/// Where the two models first compute different values (`first_divergence` in JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Divergence {
    /// The reference's layer (the candidate's of the same name computes something else).
    pub layer: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// Its output port (as the IR numbers it).
    pub port: u32,
    pub max_abs: f64,
    pub max_rel: f64,
    pub run: usize,
    pub step: usize,
    /// Layer outputs of both models compared (those of the same name computed at run time).
    pub compared: usize,
    /// Of those, outputs passed over because one model computed them differently in two
    /// requests of one compile (OpenVINO's request-to-request variation, seen on the zoo's
    /// Mamba).
    #[serde(default)]
    pub varying: usize,
}

/// Errors that are not a verdict: no runtime, a reference OpenVINO cannot run, bad options.
#[derive(Debug)]
pub struct Unusable(pub String);

/// splitmix64: small, seeded, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// N(0, 1) by Box-Muller.
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(f64::MIN_POSITIVE);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// How an input is filled, from its name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Mask,
    Positions,
    Beam,
    Zeros,
    Ids,
    Other,
}

fn role(name: &str) -> Role {
    let n = name.to_ascii_lowercase();
    if n.contains("attention_mask") || n.ends_with("_mask") || n == "mask" {
        Role::Mask
    } else if n.contains("position_ids") || n.contains("cache_position") {
        Role::Positions
    } else if n.contains("beam_idx") {
        Role::Beam
    } else if n.contains("token_type_ids") {
        Role::Zeros
    } else if n.contains("input_ids") || n.ends_with("_ids") {
        Role::Ids
    } else {
        Role::Other
    }
}

/// `--input` names as OpenVINO names the inputs: an input given by its friendly name or by any
/// of its tensor names (as `fold` takes them) is named by its smallest tensor name, what
/// OpenVINO's `get_any_name` returns (a GPT-2 export's `input_ids` may have the friendly name
/// `80`); a name irc does not find is left as given.
fn ov_input_names(o: &Options, ir: &Ir) -> Options {
    let mut out = o.clone();
    let Ok(m) = ir.model() else { return out };
    for ov in &mut out.inputs {
        let param = m.graph.layers().find(|l| {
            l.is("Parameter")
                && (l.name == ov.name || l.outputs.iter().any(|p| p.names().contains(&ov.name)))
        });
        if let Some(smallest) = param
            .and_then(|l| l.outputs.first())
            .and_then(|p| p.names().iter().min())
        {
            ov.name = smallest.clone();
        }
    }
    out
}

/// The sequence length of the first step; later steps add one token each.
const SEQ: u64 = 8;
/// Token ids are drawn below this when the model's vocabulary cannot be read (see [`vocab_of`]).
const VOCAB: u64 = 100;

/// The vocabulary size of a token input: the rows of the embedding table its ids index (the
/// first Gather they reach, through Convert/Reshape/Squeeze/Unsqueeze), by the input's name.
/// Each input's dims as the reference's symbols (by its friendly name and every tensor name),
/// `None` for a static dim: an input dim given with `--input` then sets every dim tied to it
/// (`input_ids[2,8]` makes `beam_idx` 2 long, as the KV cache's Gather needs).
type Ties = std::collections::BTreeMap<String, Vec<Option<String>>>;

fn ties_of(m: &crate::ir::Model, inputs: &[InputOverride]) -> Ties {
    let g = &m.graph;
    let sym = crate::passes::symbolic::Symbolic::of(g, m.weights.as_deref(), inputs);
    let mut out = Ties::new();
    for n in g.nodes() {
        let l = &g[n];
        let Some(p) = l.outputs.first().filter(|_| l.is("Parameter")) else {
            continue;
        };
        let Some(dims) = sym.symbolic(n, 0, &p.shape) else {
            continue;
        };
        for name in std::iter::once(&l.name).chain(p.names().iter()) {
            out.insert(name.clone(), dims.clone());
        }
    }
    out
}

/// The value of each symbol an input dim given with `--input` (a single value) has.
fn given_symbols(o: &Options, ties: &Ties) -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    for x in &o.inputs {
        let (Some(d), Some(t)) = (x.shape.dims(), ties.get(&x.name)) else {
            continue;
        };
        for (dim, sym) in d.iter().zip(t) {
            if let (Some(v), Some(sym)) = (dim.get(), sym) {
                out.entry(sym.clone()).or_insert(v);
            }
        }
    }
    out
}

fn vocab_of(m: &crate::ir::Model) -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    let g = &m.graph;
    for n in g.nodes() {
        let l = &g[n];
        if !l.is("Parameter") {
            continue;
        }
        let mut names: Vec<String> = vec![l.name.clone()];
        names.extend(l.outputs.iter().flat_map(|p| p.names().to_vec()));
        if !names.iter().any(|x| role(x) == Role::Ids) {
            continue;
        }
        let mut frontier = vec![(n, 0usize)];
        let mut found = None;
        for _ in 0..4 {
            let mut next = Vec::new();
            for &(m, o) in &frontier {
                for (u, port) in g.users_of(m, o) {
                    let ul = &g[u];
                    if ul.is("Gather") && port == 1 {
                        found = ul.inputs[0].shape.dims().and_then(|d| d.first()?.get());
                    } else if ["Convert", "Reshape", "Squeeze", "Unsqueeze"]
                        .iter()
                        .any(|t| ul.is(t))
                    {
                        next.push((u, 0));
                    }
                }
            }
            if found.is_some() || next.is_empty() {
                break;
            }
            frontier = next;
        }
        if let Some(v) = found.filter(|&v| v > 0) {
            for x in names {
                out.insert(x, v);
            }
        }
    }
    out
}

/// The tokens of step `step` and those already in the state before it, for a first step of
/// `seq0` tokens.
fn tokens(seq0: u64, step: usize) -> (u64, u64) {
    match step {
        0 => (seq0, 0),
        s => (1, seq0 + s as u64 - 1),
    }
}

/// The run-time dims of input `p` at `step` of a run whose first step has `seq0` tokens.
fn dims_for(
    p: &PortInfo,
    ov: Option<&InputOverride>,
    step: usize,
    seq0: u64,
    kv_mask: bool,
    tied: &dyn Fn(usize) -> Option<u64>,
) -> Result<Vec<u64>, String> {
    let r = role(&p.name);
    let (cur, past) = tokens(seq0, step);
    let given: Option<Vec<(u64, Option<u64>)>> = ov.and_then(|o| {
        o.shape
            .dims()
            .map(|d| d.iter().map(|x| (x.min, x.max())).collect())
    });
    let Some(dims) = &p.dims else {
        return match given {
            Some(g) => Ok(g.iter().map(|&(lo, hi)| hi.unwrap_or(lo.max(1))).collect()),
            None => Err(format!(
                "input '{}' has a dynamic rank: give its shape with --input {}[dims]",
                p.name, p.name
            )),
        };
    };
    let rank = dims.len();
    let mut out = Vec::with_capacity(rank);
    for (i, d) in dims.iter().enumerate() {
        if let Some(v) = d {
            out.push(*v);
            continue;
        }
        // --input first (a static dim, or an interval's lower bound, at least 1).
        if let Some(g) = given.as_ref().and_then(|g| g.get(i)) {
            if step == 0 || !matches!(r, Role::Mask | Role::Positions | Role::Ids) || i == 0 {
                out.push(match g {
                    (lo, Some(hi)) if lo == hi => *lo,
                    (lo, hi) => (*lo).max(1).min(hi.unwrap_or(u64::MAX)),
                });
                continue;
            }
        }
        let (lo, hi) = p.bounds.get(i).copied().unwrap_or((0, -1));
        // Tied to a dim given with --input: its value.
        let tie = tied(i).filter(|_| {
            step == 0 || !matches!(r, Role::Mask | Role::Positions | Role::Ids) || i == 0
        });
        let want = if let Some(v) = tie {
            v
        } else if i == 0 && (rank > 1 || r == Role::Beam) {
            1 // batch
        } else if r == Role::Mask && kv_mask {
            past + cur
        } else {
            cur
        };
        let hi = if hi < 0 { u64::MAX } else { hi as u64 };
        out.push(want.max(lo.max(0) as u64).min(hi));
    }
    Ok(out)
}

fn encode_f(et: OvType, vals: &[f64]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(vals.len() * 4);
    for &v in vals {
        match et {
            OvType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            OvType::F64 => out.extend_from_slice(&v.to_le_bytes()),
            OvType::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
            OvType::Bf16 => out.extend_from_slice(&half::bf16::from_f64(v).to_le_bytes()),
            _ => return None,
        }
    }
    Some(out)
}

fn encode_i(et: OvType, vals: &[i64]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(vals.len() * 8);
    for &v in vals {
        match et {
            OvType::Boolean => out.push((v != 0) as u8),
            OvType::I8 | OvType::U8 => out.push(v as u8),
            OvType::I16 | OvType::U16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
            OvType::I32 | OvType::U32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
            OvType::I64 | OvType::U64 => out.extend_from_slice(&v.to_le_bytes()),
            _ => return None,
        }
    }
    Some(out)
}

/// The tensor for input `p` at `step` of a run seeded `seed`.
fn make_input(
    p: &PortInfo,
    ov: Option<&InputOverride>,
    step: usize,
    gen: &Gen,
    rng: &mut Rng,
) -> Result<HostTensor, String> {
    let (seq0, kv_mask) = (gen.seq0, gen.kv_mask);
    let vocab = gen.vocab.get(&p.name).copied().unwrap_or(VOCAB).max(1);
    let et =
        p.et.ok_or_else(|| format!("input '{}' has an unknown element type", p.name))?;
    let given = given_symbols(gen.o, gen.ties);
    let syms = gen.ties.get(&p.name);
    let tied = |i: usize| {
        let sym = syms?.get(i)?.as_ref()?;
        given.get(sym).copied()
    };
    let shape = dims_for(p, ov, step, seq0, kv_mask, &tied)?;
    let n = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= 1 << 28)
        .ok_or_else(|| format!("input '{}' of shape {shape:?} is too large", p.name))?
        as usize;
    let r = role(&p.name);
    let past = tokens(seq0, step).1;
    if et == OvType::String {
        return Ok(HostTensor {
            et,
            shape,
            data: Vec::new(),
            strings: vec!["irc verify: the quick brown fox".to_string(); n],
        });
    }
    let is_float = matches!(et, OvType::F32 | OvType::F64 | OvType::F16 | OvType::Bf16);
    let data = if is_float && r == Role::Other {
        let v: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        encode_f(et, &v)
    } else {
        let last = *shape.last().unwrap_or(&1) as usize;
        let v: Vec<i64> = match r {
            Role::Mask => vec![1; n],
            Role::Positions => (0..n)
                .map(|i| (past + (i % last.max(1)) as u64) as i64)
                .collect(),
            Role::Beam | Role::Zeros => vec![0; n],
            Role::Ids | Role::Other if et == OvType::Boolean => vec![1; n],
            Role::Ids => (0..n).map(|_| (rng.next() % vocab) as i64).collect(),
            Role::Other => (0..n).map(|_| (rng.next() % VOCAB) as i64).collect(),
        };
        match is_float {
            true => encode_f(et, &v.iter().map(|&x| x as f64).collect::<Vec<_>>()),
            false => encode_i(et, &v),
        }
    };
    let data = data.ok_or_else(|| {
        format!(
            "input '{}': irc does not make {} inputs (give them with --data, not yet supported)",
            p.name,
            et.name()
        )
    })?;
    Ok(HostTensor {
        et,
        shape,
        data,
        strings: Vec::new(),
    })
}

/// The arrays of `--data` by key (`NAME` for the first step, `NAME@S` for step S).
pub type Data = std::collections::BTreeMap<String, crate::runtime::npz::Array>;

/// The inputs of one step: from `--data` where it has them, else made by [`make_input`].
/// How inputs are made for one verification (see [`make_input`]).
struct Gen<'a> {
    o: &'a Options,
    data: &'a Data,
    /// The first step's token count.
    seq0: u64,
    /// The attention mask covers past tokens too (a KV cache).
    kv_mask: bool,
    /// Vocabulary sizes of token inputs, by name (see [`vocab_of`]).
    vocab: &'a std::collections::BTreeMap<String, u64>,
    ties: &'a Ties,
}

fn step_inputs(
    ports: &[PortInfo],
    gen: &Gen,
    step: usize,
    rng: &mut Rng,
) -> Result<Vec<HostTensor>, String> {
    let (o, data) = (gen.o, gen.data);
    ports
        .iter()
        .map(|p| {
            let key = match step {
                0 => p.name.clone(),
                s => format!("{}@{s}", p.name),
            };
            match data.get(&key) {
                Some(a) => from_data(p, &key, a),
                None => {
                    let ov = o.inputs.iter().find(|x| x.name == p.name);
                    make_input(p, ov, step, gen, rng)
                }
            }
        })
        .collect()
}

/// A `--data` array as input `p`: numbers convert to the input's type (numpy's default int64
/// and float64 feed i32 and f32 inputs).
fn from_data(
    p: &PortInfo,
    key: &str,
    a: &crate::runtime::npz::Array,
) -> Result<HostTensor, String> {
    let et =
        p.et.ok_or_else(|| format!("input '{}' has an unknown element type", p.name))?;
    let src = match a.dtype.as_str() {
        "<f4" => OvType::F32,
        "<f8" => OvType::F64,
        "<f2" => OvType::F16,
        "<i8" => OvType::I64,
        "<i4" => OvType::I32,
        "<i2" => OvType::I16,
        "|i1" => OvType::I8,
        "|u1" => OvType::U8,
        "<u2" => OvType::U16,
        "<u4" => OvType::U32,
        "<u8" => OvType::U64,
        "|b1" => OvType::Boolean,
        d => return Err(format!("--data {key}: numpy dtype {d} is not read")),
    };
    let n: u64 = a.shape.iter().product();
    let size = src.size().unwrap_or(1) as u64;
    if a.data.len() as u64 != n * size {
        return Err(format!(
            "--data {key}: {} bytes for {:?} of {}",
            a.data.len(),
            a.shape,
            a.dtype
        ));
    }
    let t = HostTensor {
        et: src,
        shape: a.shape.clone(),
        data: a.data.clone(),
        strings: Vec::new(),
    };
    if src == et {
        return Ok(t);
    }
    let data = match decode(&t) {
        Some(Vals::F(v)) if et.is_float() => encode_f(et, &v),
        Some(Vals::I(v)) if et.is_float() => {
            encode_f(et, &v.iter().map(|&x| x as f64).collect::<Vec<_>>())
        }
        Some(Vals::I(v)) => encode_i(et, &v.iter().map(|&x| x as i64).collect::<Vec<_>>()),
        _ => None,
    }
    .ok_or_else(|| {
        format!(
            "--data {key}: {} does not convert to {}",
            a.dtype,
            et.name()
        )
    })?;
    Ok(HostTensor { et, data, ..t })
}

/// Elements as f64 (floats) or i128 (integers, booleans); None for types not compared.
enum Vals {
    F(Vec<f64>),
    I(Vec<i128>),
}

fn decode(t: &HostTensor) -> Option<Vals> {
    let d = &t.data;
    Some(match t.et {
        OvType::F32 => Vals::F(
            d.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect(),
        ),
        OvType::F64 => Vals::F(
            d.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        OvType::F16 => Vals::F(
            d.chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
        ),
        OvType::Bf16 => Vals::F(
            d.chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
        ),
        OvType::Boolean | OvType::U8 => Vals::I(d.iter().map(|&b| b as i128).collect()),
        OvType::I8 => Vals::I(d.iter().map(|&b| b as i8 as i128).collect()),
        OvType::I16 => Vals::I(
            d.chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]) as i128)
                .collect(),
        ),
        OvType::U16 => Vals::I(
            d.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as i128)
                .collect(),
        ),
        OvType::I32 => Vals::I(
            d.chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::U32 => Vals::I(
            d.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::I64 => Vals::I(
            d.chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::U64 => Vals::I(
            d.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        _ => return None,
    })
}

fn unravel(mut i: usize, shape: &[u64]) -> Vec<u64> {
    let mut idx = vec![0u64; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        let d = d.max(1) as usize;
        idx[k] = (i % d) as u64;
        i /= d;
    }
    idx
}

/// Compare one output pair into `rep` (worst kept).
fn compare(a: &HostTensor, b: &HostTensor, o: &Options, rep: &mut OutputReport) {
    if a.et != b.et || a.shape != b.shape {
        rep.ok = false;
        rep.note = Some(format!(
            "the candidate gives {}{:?}, the reference {}{:?}",
            b.et.name(),
            b.shape,
            a.et.name(),
            a.shape
        ));
        return;
    }
    if a.et == OvType::String {
        // The C API hands strings out as std::string objects, which irc does not read.
        rep.note = Some("string values are not compared (their shapes are)".into());
        return;
    }
    let (Some(va), Some(vb)) = (decode(a), decode(b)) else {
        // Strings and sub-byte outputs: compared as bytes.
        if a.data != b.data {
            rep.ok = false;
            rep.note = Some(format!("{} values differ", a.et.name()));
        }
        return;
    };
    let mut worst_excess = f64::NEG_INFINITY;
    match (va, vb) {
        (Vals::F(x), Vals::F(y)) => {
            for (i, (&p, &q)) in x.iter().zip(&y).enumerate() {
                let same = (p.is_nan() && q.is_nan()) || p == q;
                let diff = if same { 0.0 } else { (p - q).abs() };
                let diff = if diff.is_nan() { f64::INFINITY } else { diff };
                let tol = o.atol + o.rtol * p.abs();
                if diff > rep.max_abs {
                    rep.max_abs = diff;
                }
                if p.abs() > o.atol && diff / p.abs() > rep.max_rel {
                    rep.max_rel = diff / p.abs();
                }
                let excess = diff - tol;
                if excess > worst_excess && diff > 0.0 {
                    worst_excess = excess;
                    rep.worst_index = unravel(i, &a.shape);
                }
                if diff > tol {
                    rep.ok = false;
                }
            }
        }
        (Vals::I(x), Vals::I(y)) => {
            for (i, (&p, &q)) in x.iter().zip(&y).enumerate() {
                if p != q {
                    let diff = (p - q).unsigned_abs() as f64;
                    if diff > rep.max_abs {
                        rep.max_abs = diff;
                        rep.worst_index = unravel(i, &a.shape);
                    }
                    if p != 0 && diff / (p.unsigned_abs() as f64) > rep.max_rel {
                        rep.max_rel = diff / p.unsigned_abs() as f64;
                    }
                    rep.ok = false;
                }
            }
        }
        _ => rep.ok = false,
    }
}

/// Whether two output values agree within the tolerances (see [`compare`]).
fn agrees(a: &HostTensor, b: &HostTensor, o: &Options) -> bool {
    let mut rep = OutputReport::new(String::new(), a.et.name(), a.shape.clone());
    compare(a, b, o, &mut rep);
    rep.ok
}

/// Whether the model has layers of `version="extension"` (openvino-tokenizers' ops).
fn has_extension_ops(text: &str) -> bool {
    text.contains("version=\"extension\"")
}

/// Whether the model keeps state between inferences (ReadValue layers).
fn stateful(text: &str) -> bool {
    text.contains("type=\"ReadValue\"")
}

fn bin_of(xml: &Path) -> PathBuf {
    xml.with_extension("bin")
}

/// A model's `.xml` and `.bin`.
#[derive(Debug, Clone, Copy)]
pub struct Files<'a> {
    pub xml: &'a Path,
    pub bin: &'a Path,
}

/// Run `reference` and `candidate` (each .bin beside its .xml) and compare them.
pub fn verify(reference: &Path, candidate: &Path, o: &Options) -> Result<Report, Unusable> {
    check_options(o)?;
    let rt = Runtime::load(o.openvino_lib.as_deref()).map_err(Unusable)?;
    let (rb, cb) = (bin_of(reference), bin_of(candidate));
    verify_with(
        &rt,
        Files {
            xml: reference,
            bin: &rb,
        },
        Files {
            xml: candidate,
            bin: &cb,
        },
        o,
    )
}

/// Options `verify` refuses before loading anything.
pub fn check_options(o: &Options) -> Result<(), Unusable> {
    if o.runs == 0 || o.steps == 0 {
        return Err(Unusable("--runs and --steps must be at least 1".into()));
    }
    Ok(())
}

/// [`verify`] with a loaded runtime and explicit `.bin` paths (`fold --verify` reads the
/// output by its temporary names).
pub fn verify_with(
    rt: &Runtime,
    reference: Files,
    candidate: Files,
    o: &Options,
) -> Result<Report, Unusable> {
    check_options(o)?;
    let data: Data = match &o.data {
        Some(p) => {
            let b =
                std::fs::read(p).map_err(|e| Unusable(format!("--data {}: {e}", p.display())))?;
            crate::runtime::npz::read(&b)
                .map_err(|e| Unusable(format!("--data {}: {e}", p.display())))?
        }
        None => Data::new(),
    };
    let data = &data;
    // Each XML is read once: its text (appended to for the divergence search) and irc's
    // reading of it (vocabulary, static inputs, layers to compare).
    let ir = (read_ir(reference), read_ir(candidate));
    let renamed = ov_input_names(o, &ir.0);
    let o = &renamed;
    let mut exts = o.extensions.clone();
    if exts.is_empty() && has_extension_ops(&ir.0.text) {
        exts.extend(crate::runtime::openvino::tokenizers_lib());
    }
    for e in &exts {
        rt.add_extension(e).map_err(Unusable)?;
    }
    // f32 execution on both sides, so bf16/f16 modes of the CPU plugin, a u8 KV cache and the
    // int8 dynamic quantization of activations (whose use depends on which fusions match) do
    // not blur results.
    let mut props = vec![
        ("INFERENCE_PRECISION_HINT", "f32"),
        ("KV_CACHE_PRECISION", "f32"),
        ("DYNAMIC_QUANTIZATION_GROUP_SIZE", "0"),
    ];
    // A scatter whose indices are computed at run time may be given repeated indices (the
    // zoo's Mamba writes its conv state at [0, 1, 2, 2, 2, 2, 2, 2]): OpenVINO's CPU plugin
    // splits a scatter among its threads, and which of the repeated writes stays then depends
    // on their timing (Mamba: 5 of 120 requests on 2 threads kept another value, 0 of 420 on
    // one). Such models run on one thread, so a difference is one of the models.
    let racy = racy_scatter(&ir.0).or_else(|| racy_scatter(&ir.1));
    if racy.is_some() {
        props.push(("INFERENCE_NUM_THREADS", "1"));
    }
    // Inputs given with --input are reshaped in both models before compiling (as ovc and
    // benchmark_app do): a dynamic model and its static fold compile to different CPU kernels
    // (int8 ones especially), which is not a difference of the models.
    let reshape: Vec<(String, Vec<(i64, i64)>)> = o
        .inputs
        .iter()
        .filter_map(|x| {
            let d = x.shape.dims()?;
            let dims = d
                .iter()
                // The C API's ov_dimension: {-1, -1} is `?`; a max below the min is refused
                // (INVALID_C_PARAM), so an open interval `2..` has i64::MAX as its max.
                .map(|d| match (d.min, d.max()) {
                    (0, None) => (-1, -1),
                    (min, None) => (min as i64, i64::MAX),
                    (min, Some(max)) => (min as i64, max as i64),
                })
                .collect();
            Some((x.name.clone(), dims))
        })
        .collect();
    // A model may still not compute the same twice (random ops; a race the rule above does not
    // see). A difference is therefore confirmed on fresh compiles of both models; it is
    // reported only when every attempt differs, and a pass after a failed attempt says so.
    let vocab = ir.0.model.as_ref().map(vocab_of).unwrap_or_default();
    let ties =
        ir.0.model
            .as_ref()
            .map(|m| ties_of(m, &o.inputs))
            .unwrap_or_default();
    let su = Setup {
        o,
        data,
        props: &props,
        reshape: &reshape,
        vocab: &vocab,
        ties: &ties,
        ir: (&ir.0, &ir.1),
    };
    let mut report = once(rt, reference, candidate, &su)?;
    let mut differed = 0;
    while !report.equal && report.candidate_error.is_none() && differed + 1 < ATTEMPTS {
        differed += 1;
        report = once(rt, reference, candidate, &su)?;
    }
    if report.equal && differed > 0 {
        report.note = Some(format!(
            "{differed} earlier attempt{} differed: OpenVINO's results for this model vary from one compilation to the next",
            if differed == 1 { "" } else { "s" }
        ));
    }
    report.attempts = differed + 1;
    if let Some(l) = racy {
        report.threads_note = Some(format!(
            "run on one CPU thread: {l} writes at indices computed at run time, and OpenVINO's threads race on repeated indices"
        ));
    }
    if let (false, None, Some(at)) = (report.equal, &report.candidate_error, report.first_bad) {
        match divergence(rt, reference, candidate, &su, at) {
            Ok(d) => report.first_divergence = d,
            Err(e) => report.note = Some(format!("the first divergence was not found: {e}")),
        }
    }
    Ok(report)
}

/// What every run of a verification shares: the options, `--data`, the compile properties and
/// the `--input` reshape.
#[derive(Clone, Copy)]
struct Setup<'a> {
    o: &'a Options,
    data: &'a Data,
    props: &'a [(&'a str, &'a str)],
    reshape: &'a [(String, Vec<(i64, i64)>)],
    /// Vocabulary sizes of the reference's token inputs.
    vocab: &'a std::collections::BTreeMap<String, u64>,
    /// Each input's dims as symbols of the reference (see [`ties_of`]).
    ties: &'a Ties,
    /// The reference and the candidate as read once (see [`read_ir`]).
    ir: (&'a Ir, &'a Ir),
}

fn run_rng(o: &Options, run: usize) -> Rng {
    Rng(o
        .seed
        .wrapping_mul(0x100_0000_01B3)
        .wrapping_add(run as u64))
}

/// Layer outputs exposed at once to find the first divergence (more are taken window by
/// window).
const MAX_PROBES: usize = 4000;

/// The model's XML with a Result after each of `probes` (layer id and output port as in the
/// file, and the port's precision), appended after its own layers and edges: OpenVINO then
/// lists them after the model's outputs, in this order.
fn with_probes(text: &str, probes: &[(u64, u32, String)], next_id: u64) -> Option<String> {
    let (le, ee) = (text.rfind("</layers>")?, text.rfind("</edges>")?);
    if le > ee {
        return None;
    }
    let mut layers = String::new();
    let mut edges = String::new();
    for (k, (id, port, prec)) in probes.iter().enumerate() {
        let rid = next_id + k as u64;
        let prec = match prec.is_empty() {
            true => String::new(),
            false => format!(" precision=\"{prec}\""),
        };
        layers.push_str(&format!(
            "\t\t<layer id=\"{rid}\" name=\"irc.probe.{k}\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"{prec}/></input></layer>\n"
        ));
        edges.push_str(&format!(
            "\t\t<edge from-layer=\"{id}\" from-port=\"{port}\" to-layer=\"{rid}\" to-port=\"0\"/>\n"
        ));
    }
    let mut out = String::with_capacity(text.len() + layers.len() + edges.len());
    out.push_str(&text[..le]);
    out.push_str(&layers);
    out.push_str(&text[le..ee]);
    out.push_str(&edges);
    out.push_str(&text[ee..]);
    Some(out)
}

type Probe = (u64, u32, String);

/// Find the earliest layer (in the reference's order) whose values differ: expose every layer
/// output computed at run time that both models have (matched by layer name) as extra outputs
/// of copies of their XML (the .bin files are read as they are), run those on the inputs of
/// the first failing run up to its failing step, and compare them in order.
fn divergence(
    rt: &Runtime,
    reference: Files,
    candidate: Files,
    su: &Setup,
    (bad_run, bad_step): (usize, usize),
) -> Result<Option<Divergence>, String> {
    use crate::ir::NodeId;
    let (rm, cm) = (su.ir.0.model()?, su.ir.1.model()?);
    let skip = |t: &str| matches!(t, "Const" | "Parameter" | "Result" | "Assign");
    let by_name: std::collections::HashMap<&str, NodeId> = cm
        .graph
        .nodes()
        .filter(|&n| !skip(cm.graph[n].ty.as_str()))
        .map(|n| (cm.graph[n].name.as_str(), n))
        .collect();
    let order = rm
        .graph
        .ordered()
        .unwrap_or_else(|| rm.graph.nodes().collect());
    // (reference layer, output index) of each probe, and the ports in each file.
    let mut which: Vec<(NodeId, usize)> = Vec::new();
    let (mut rp, mut cp): (Vec<Probe>, Vec<Probe>) = (Vec::new(), Vec::new());
    for n in order {
        let l = &rm.graph[n];
        if skip(l.ty.as_str()) {
            continue;
        }
        let Some(&c) = by_name.get(l.name.as_str()) else {
            continue;
        };
        let cl = &cm.graph[c];
        if cl.outputs.len() != l.outputs.len() {
            continue;
        }
        for (i, (po, pc)) in l.outputs.iter().zip(&cl.outputs).enumerate() {
            if po.precision != pc.precision {
                continue;
            }
            let prec = po
                .precision
                .map_or(String::new(), |e| e.precision_name().to_string());
            which.push((n, i));
            rp.push((l.id, po.id, prec.clone()));
            cp.push((cl.id, pc.id, prec));
        }
    }
    if which.is_empty() {
        return Ok(None);
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("irc-verify-{}-{stamp}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    struct Cleanup(PathBuf);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _cleanup = Cleanup(dir.clone());
    let (rx, cx) = (dir.join("reference.xml"), dir.join("candidate.xml"));
    // Windows of MAX_PROBES exposed outputs, in the reference's order: the first window with
    // a difference holds the first divergence (each window is one compile of both models).
    // IRC_VERIFY_PROBES: a smaller window, for the suite to go through several.
    let window = std::env::var("IRC_VERIFY_PROBES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(MAX_PROBES);
    // Fresh compiles, as for the outputs: a compile of the zoo's Mamba that ignores the state
    // change (OpenVINO's nondeterminism, see `verify_with`) finds nothing.
    for _ in 0..ATTEMPTS {
        let found = search(
            rt,
            (reference, candidate),
            su,
            (bad_run, bad_step),
            window,
            (&rx, &cx),
            (&which, &rp, &cp),
        )?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// One pass of the first-divergence search over every window (see [`divergence`]).
fn search(
    rt: &Runtime,
    (reference, candidate): (Files, Files),
    su: &Setup,
    (bad_run, bad_step): (usize, usize),
    window: usize,
    (rx, cx): (&Path, &Path),
    (which, rp, cp): (&[(crate::ir::NodeId, usize)], &[Probe], &[Probe]),
) -> Result<Option<Divergence>, String> {
    let (rtext, ctext) = (&su.ir.0.text, &su.ir.1.text);
    let (rm, cm) = (su.ir.0.model()?, su.ir.1.model()?);
    let Setup {
        o,
        data,
        props,
        reshape,
        ..
    } = *su;
    let next = |m: &crate::ir::Model| m.graph.nodes().map(|n| m.graph[n].id).max().unwrap_or(0) + 1;
    let write = |path: &Path, text: &str, probes: &[Probe], m: &crate::ir::Model| {
        let t = with_probes(text, probes, next(m)).ok_or("the XML has no top-level edges")?;
        std::fs::write(path, t).map_err(|e| format!("{}: {e}", path.display()))
    };
    let (mut compared, mut varying) = (0, 0);
    for w in (0..which.len()).step_by(window) {
        let e = (w + window).min(which.len());
        write(rx, rtext, &rp[w..e], rm)?;
        write(cx, ctext, &cp[w..e], cm)?;
        // One model compiled at a time, as in `once`: the reference's exposed outputs at the
        // failing step are kept, then the candidate runs the same inputs.
        let rc = rt.compile(rx, reference.bin, reshape, props)?;
        let (ri, ro) = (rc.inputs()?, rc.outputs()?);
        let base_r = ro.len() - (e - w);
        let gen = Gen {
            o,
            data,
            seq0: first_tokens(o, data),
            kv_mask: kv_cache(&ri),
            vocab: su.vocab,
            ties: su.ties,
        };
        let mut rng = run_rng(o, bad_run);
        let mut inputs = Vec::with_capacity(bad_step + 1);
        for step in 0..=bad_step {
            inputs.push(step_inputs(&ri, &gen, step, &mut rng)?);
        }
        let n = e - w;
        let same = |a: &Option<HostTensor>, b: &Option<HostTensor>| match (a, b) {
            (Some(a), Some(b)) => agrees(a, b, o),
            _ => true,
        };
        // The reference's exposed outputs at the failing step, settled by requests of one
        // compile: a layer may not compute the same in every request (random ops; the zoo's
        // Mamba's conv-state scatter on several threads, before `racy_scatter`: 5 of 300
        // requests kept other values there and in everything after it). A second request
        // checks the first; where they differ, a third decides, and an output no two agree on
        // is passed over. Only the first request's values are kept whole (the compile is
        // freed before the candidate's).
        let q = run_steps(&rc, &inputs, None)?;
        let mut kept: Vec<Option<HostTensor>> = (0..n).map(|k| q.output(base_r + k).ok()).collect();
        drop(q);
        let q = run_steps(&rc, &inputs, None)?;
        let odd: Vec<(usize, Option<HostTensor>)> = (0..n)
            .map(|k| (k, q.output(base_r + k).ok()))
            .filter(|(k, t)| !same(&kept[*k], t))
            .collect();
        drop(q);
        let mut varies = vec![false; n];
        if !odd.is_empty() {
            let q = run_steps(&rc, &inputs, None)?;
            for (k, second) in odd {
                match settle(&kept[k], &second, &q.output(base_r + k).ok(), same) {
                    Settled::First => {}
                    Settled::Second => kept[k] = second,
                    Settled::Varies => varies[k] = true,
                }
            }
        }
        drop(rc);
        let cc = rt.compile(cx, candidate.bin, reshape, props)?;
        let (ci, co) = (cc.inputs()?, cc.outputs()?);
        let base_c = co.len() - n;
        let map = Some((ri.as_slice(), ci.as_slice()));
        let q = run_steps(&cc, &inputs, map)?;
        // A difference is confirmed on a second request of the candidate (run when first
        // needed): one that shows in one request only is the candidate's own variation.
        let mut check: Option<crate::runtime::openvino::Request> = None;
        for (k, &(node, i)) in which[w..e].iter().enumerate() {
            // An exposed output the plugin cannot hand out (it computed it into a
            // constant) is passed over.
            let (Some(a), Ok(b)) = (&kept[k], q.output(base_c + k)) else {
                continue;
            };
            compared += 1;
            if varies[k] {
                varying += 1;
                continue;
            }
            let l = &rm.graph[node];
            let mut rep = OutputReport::new(l.name.clone(), a.et.name(), a.shape.clone());
            compare(a, &b, o, &mut rep);
            if rep.ok {
                continue;
            }
            if check.is_none() {
                check = Some(run_steps(&cc, &inputs, map)?);
            }
            if check
                .as_ref()
                .is_some_and(|c| same(&kept[k], &c.output(base_c + k).ok()))
            {
                varying += 1;
                continue;
            }
            return Ok(Some(Divergence {
                layer: l.name.clone(),
                ty: l.ty.as_str().to_string(),
                port: l.outputs[i].id,
                max_abs: rep.max_abs,
                max_rel: rep.max_rel,
                run: bad_run,
                step: bad_step,
                compared,
                varying,
            }));
        }
    }
    Ok(None)
}

/// The first scatter (by type and name) whose indices are not a constant, in a model or its
/// bodies: repeated indices make OpenVINO's parallel scatter keep a value that varies from
/// run to run. A file irc cannot read is looked at as text (any scatter counts).
fn racy_scatter(ir: &Ir) -> Option<String> {
    const SCATTERS: [&str; 3] = ["ScatterUpdate", "ScatterNDUpdate", "ScatterElementsUpdate"];
    fn walk(g: &crate::ir::Graph) -> Option<String> {
        g.nodes().find_map(|n| {
            let l = &g[n];
            let indices_const = || g.input_of(n, 1).is_some_and(|(p, _)| g[p].is("Const"));
            if SCATTERS.iter().any(|t| l.is(t)) && !indices_const() {
                return Some(format!("{} '{}'", l.ty.as_str(), l.name));
            }
            l.bodies.iter().find_map(|b| walk(&b.graph))
        })
    }
    match &ir.model {
        Ok(m) => walk(&m.graph),
        Err(_) => SCATTERS
            .iter()
            .find(|t| ir.text.contains(&format!("type=\"{t}\"")))
            .map(|t| t.to_string()),
    }
}

/// Which of a reference's values stands when its first two requests differ.
#[derive(Debug, PartialEq)]
enum Settled {
    First,
    Second,
    /// No two of the three requests agree.
    Varies,
}

/// Two of three: the value a third request agrees with (the first when it agrees with both).
fn settle<T>(first: &T, second: &T, third: &T, same: impl Fn(&T, &T) -> bool) -> Settled {
    if same(first, third) {
        Settled::First
    } else if same(second, third) {
        Settled::Second
    } else {
        Settled::Varies
    }
}

/// One fresh request of a compiled model run through every step of `inputs` (given in the
/// order of `map`'s first list, set by name into the second's); its outputs are those after
/// the last step.
fn run_steps<'c>(
    c: &'c crate::runtime::openvino::Compiled,
    inputs: &[Vec<HostTensor>],
    map: Option<(&[PortInfo], &[PortInfo])>,
) -> Result<crate::runtime::openvino::Request<'c>, String> {
    let mut q = c.request()?;
    for made in inputs {
        for (i, t) in made.iter().enumerate() {
            let j = map.map_or(i, |(from, to)| {
                to.iter()
                    .position(|p| from.get(i).is_some_and(|f| f.name == p.name))
                    .unwrap_or(i)
            });
            q.set_input(j, t)?;
        }
        q.infer()?;
    }
    Ok(q)
}

/// A model's XML text and irc's reading of it.
pub struct Ir {
    text: String,
    /// irc's reading (weights mapped, not read), or why it cannot read the model: OpenVINO
    /// may still run it; then only the vocabulary and the divergence search go without.
    model: Result<crate::ir::Model, String>,
}

impl Ir {
    fn model(&self) -> Result<&crate::ir::Model, String> {
        self.model.as_ref().map_err(|e| e.clone())
    }
}

/// Read a model's XML once. A file irc cannot read gives an empty text and the reason in
/// `model`: OpenVINO's own reading of it is what decides.
fn read_ir(f: Files) -> Ir {
    let text = match std::fs::read_to_string(f.xml) {
        Ok(t) => t,
        Err(e) => {
            return Ir {
                text: String::new(),
                model: Err(format!("{}: {e}", f.xml.display())),
            }
        }
    };
    let model = crate::ir::Weights::open(f.bin)
        .map_err(|e| format!("{}: {e}", f.bin.display()))
        .and_then(|w| {
            crate::xml::read_str(
                std::sync::Arc::from(text.as_str()),
                &f.xml.display().to_string(),
                Some(std::sync::Arc::new(w)),
                &f.bin.display().to_string(),
            )
            .map(|p| p.model)
            .map_err(|e| e.to_string())
        });
    Ir { text, model }
}

/// The first step's token count: a token input's length in --data or --input, else [`SEQ`].
fn first_tokens(o: &Options, data: &Data) -> u64 {
    let from_data = data
        .iter()
        .filter(|(k, _)| !k.contains('@') && role(k) == Role::Ids)
        .find_map(|(_, a)| a.shape.last().copied());
    from_data
        .or_else(|| {
            o.inputs
                .iter()
                .filter(|x| role(&x.name) == Role::Ids)
                .find_map(|x| x.shape.dims().and_then(|d| d.last().and_then(|l| l.get())))
        })
        .unwrap_or(SEQ)
}

/// A key/value cache (transformers: position_ids or beam_idx inputs) sees the attention mask
/// over past and new tokens; a recurrent state (Mamba: cache_position) only over the new.
fn kv_cache(inputs: &[PortInfo]) -> bool {
    inputs.iter().any(|p| {
        let n = p.name.to_ascii_lowercase();
        n.contains("position_ids") || n.contains("beam_idx")
    })
}

/// Compiles before a difference is reported (see `verify`).
const ATTEMPTS: usize = 3;

/// One attempt: compile both models and compare them.
fn once(rt: &Runtime, reference: Files, candidate: Files, su: &Setup) -> Result<Report, Unusable> {
    let Setup {
        o,
        data,
        props,
        reshape,
        ..
    } = *su;
    // The reference runs first, alone: its inputs and outputs are kept and it is freed before
    // the candidate is compiled, so only one model is compiled at a time (an 8B LLM twice
    // would need twice its memory).
    // A reference neither irc nor OpenVINO reads: irc's error has the file position.
    let ref_c = rt
        .compile(reference.xml, reference.bin, reshape, props)
        .map_err(|ov| match &su.ir.0.model {
            Err(irc) => Unusable(format!("{irc}\n(OpenVINO: {ov})")),
            Ok(_) => Unusable(ov),
        })?;
    let ref_in = ref_c.inputs().map_err(Unusable)?;
    let ref_out = ref_c.outputs().map_err(Unusable)?;
    for k in data.keys() {
        let base = k.split('@').next().unwrap_or(k);
        if !ref_in.iter().any(|p| p.name == base) {
            let names: Vec<&str> = ref_in.iter().map(|p| p.name.as_str()).collect();
            return Err(Unusable(format!(
                "--data: the array '{k}' is no input of the reference (its inputs: {})",
                names.join(", ")
            )));
        }
    }
    for ov in &o.inputs {
        if !ref_in.iter().any(|p| p.name == ov.name) {
            let names: Vec<&str> = ref_in.iter().map(|p| p.name.as_str()).collect();
            return Err(Unusable(format!(
                "--input {}: the reference has no input of that name (its inputs: {})",
                ov.name,
                names.join(", ")
            )));
        }
    }
    let seq0 = first_tokens(o, data);
    let mut steps = if stateful(&su.ir.0.text) { o.steps } else { 1 };
    let kv_mask = kv_cache(&ref_in);
    let mut report = Report {
        equal: true,
        openvino: rt.version.clone(),
        runs: o.runs,
        steps,
        steps_note: None,
        threads_note: None,
        rtol: o.rtol,
        atol: o.atol,
        inputs: Vec::new(),
        outputs: ref_out
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let name = match p.name.is_empty() {
                    true => format!("output {i}"),
                    false => p.name.clone(),
                };
                OutputReport::new(name, p.et.map_or("dynamic", |t| t.name()), Vec::new())
            })
            .collect(),
        candidate_error: None,
        first_divergence: None,
        attempts: 1,
        note: None,
        first_bad: None,
    };
    // A model whose token or mask inputs have a static length (folded with --input) cannot
    // take a second step: its state would have to grow. The candidate's inputs are read from
    // its XML (it is not compiled yet).
    let fixed = |name: &str, dims: Option<Vec<bool>>| {
        matches!(role(name), Role::Ids | Role::Mask)
            && dims.is_some_and(|d| d.len() > 1 && d.last() == Some(&true))
    };
    let ref_fixed = ref_in.iter().any(|p| {
        fixed(
            &p.name,
            p.dims
                .as_ref()
                .map(|d| d.iter().map(|x| x.is_some()).collect()),
        )
    });
    let cand_fixed = su.ir.1.model.as_ref().is_ok_and(|m| {
        m.graph.nodes().any(|n| {
            let l = &m.graph[n];
            let dims = l.outputs.first().and_then(|p| {
                p.shape
                    .dims()
                    .map(|d| d.iter().map(|x| x.get().is_some()).collect::<Vec<_>>())
            });
            l.is("Parameter")
                && std::iter::once(l.name.as_str())
                    .chain(
                        l.outputs
                            .iter()
                            .flat_map(|p| p.names().iter().map(|s| s.as_str())),
                    )
                    .any(|n| fixed(n, dims.clone()))
        })
    });
    if steps > 1 && (ref_fixed || cand_fixed) {
        steps = 1;
        report.steps = 1;
        report.steps_note = Some(format!(
            "1 step, not {}: the token inputs have a static length, so the state cannot grow",
            o.steps
        ));
    }
    let gen = Gen {
        o,
        data,
        seq0,
        kv_mask,
        vocab: su.vocab,
        ties: su.ties,
    };
    // Per run, per step: the inputs and the reference's outputs.
    let mut ref_runs: Vec<Vec<(Vec<HostTensor>, Vec<HostTensor>)>> = Vec::with_capacity(o.runs);
    for run in 0..o.runs {
        let mut rng = run_rng(o, run);
        let mut req = ref_c.request().map_err(Unusable)?;
        let mut kept = Vec::with_capacity(steps);
        for step in 0..steps {
            let made = step_inputs(&ref_in, &gen, step, &mut rng).map_err(Unusable)?;
            if run == 0 && step == 0 {
                report.inputs = ref_in
                    .iter()
                    .zip(&made)
                    .map(|(p, t)| {
                        let d: Vec<String> = t.shape.iter().map(|d| d.to_string()).collect();
                        format!("{}[{}] {}", p.name, d.join(","), t.et.name())
                    })
                    .collect();
            }
            for (i, t) in made.iter().enumerate() {
                req.set_input(i, t).map_err(Unusable)?;
            }
            req.infer()
                .map_err(|e| Unusable(format!("the reference: {e}")))?;
            let outs = (0..ref_out.len())
                .map(|k| req.output(k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Unusable)?;
            kept.push((made, outs));
        }
        ref_runs.push(kept);
    }
    drop(ref_c);
    let fail = |mut r: Report, e: String| {
        r.equal = false;
        r.candidate_error = Some(e);
        for out in &mut r.outputs {
            out.ok = false;
            out.note = Some("not compared: the candidate fails".into());
        }
        Ok(r)
    };
    let cand_c = match rt.compile(candidate.xml, candidate.bin, reshape, props) {
        Ok(c) => c,
        Err(e) => return fail(report, e),
    };
    let (cand_in, cand_out) = match (cand_c.inputs(), cand_c.outputs()) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => return fail(report, e),
    };
    // Candidate ports matched by tensor name, else by position.
    let pick = |ports: &[PortInfo], p: &PortInfo, i: usize| -> Option<usize> {
        ports
            .iter()
            .position(|q| !p.name.is_empty() && q.name == p.name)
            .or((ports.len() > i).then_some(i))
    };
    let in_map: Vec<Option<usize>> = ref_in
        .iter()
        .enumerate()
        .map(|(i, p)| pick(&cand_in, p, i))
        .collect();
    if cand_in.len() != ref_in.len() || in_map.iter().any(|m| m.is_none()) {
        let names = |v: &[PortInfo]| v.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        return fail(
            report,
            format!(
                "the inputs differ: reference {:?}, candidate {:?}",
                names(&ref_in),
                names(&cand_in)
            ),
        );
    }
    let out_map: Vec<Option<usize>> = ref_out
        .iter()
        .enumerate()
        .map(|(i, p)| pick(&cand_out, p, i))
        .collect();
    let mut first_bad = None;
    for (run, kept) in ref_runs.iter().enumerate() {
        let mut req_c = match cand_c.request() {
            Ok(r) => r,
            Err(e) => return fail(report, e),
        };
        for (step, (made, outs)) in kept.iter().enumerate() {
            for (i, t) in made.iter().enumerate() {
                if let Err(e) = req_c.set_input(in_map[i].unwrap_or(i), t) {
                    return fail(report, e);
                }
            }
            if let Err(e) = req_c.infer() {
                return fail(report, format!("the candidate: {e}"));
            }
            for (k, rep) in report.outputs.iter_mut().enumerate() {
                let a = &outs[k];
                if rep.shape.is_empty() {
                    rep.shape = a.shape.clone();
                }
                let Some(ck) = out_map[k] else {
                    rep.ok = false;
                    rep.note = Some("the candidate has no such output".into());
                    continue;
                };
                match req_c.output(ck) {
                    Ok(b) => {
                        compare(a, &b, o, rep);
                        if !rep.ok && first_bad.is_none() {
                            first_bad = Some((run, step));
                        }
                    }
                    Err(e) => {
                        rep.ok = false;
                        rep.note = Some(e);
                    }
                }
            }
        }
    }
    report.equal = report.outputs.iter().all(|r| r.ok);
    report.first_bad = first_bad;
    Ok(report)
}

fn g(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.3e}")
    }
}

/// The readable summary.
pub fn render_text(r: &Report) -> String {
    let mut s = format!(
        "irc verify: {} (OpenVINO {}, {} run{} x {} step{}, rtol {} atol {})\n",
        if r.equal { "equal" } else { "DIFFERENT" },
        r.openvino,
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        r.steps,
        if r.steps == 1 { "" } else { "s" },
        r.rtol,
        r.atol
    );
    s.push_str(&format!("  inputs: {}\n", r.inputs.join("  ")));
    if let Some(n) = &r.note {
        s.push_str(&format!("  note: {n}\n"));
    }
    if let Some(n) = &r.steps_note {
        s.push_str(&format!("  {n}\n"));
    }
    if let Some(n) = &r.threads_note {
        s.push_str(&format!("  {n}\n"));
    }
    if let Some(e) = &r.candidate_error {
        s.push_str(&format!("  the candidate fails: {e}\n"));
    }
    if let Some(d) = &r.first_divergence {
        s.push_str(&format!(
            "  first divergence: {} {} (port {}): max abs {} max rel {} (run {}, step {}; {} outputs compared{})\n",
            d.ty,
            d.layer,
            d.port,
            g(d.max_abs),
            g(d.max_rel),
            d.run,
            d.step,
            d.compared,
            match d.varying {
                0 => String::new(),
                v => format!(", {v} passed over: they vary from one run to the next"),
            }
        ));
    }
    for o in &r.outputs {
        let shape: Vec<String> = o.shape.iter().map(|d| d.to_string()).collect();
        s.push_str(&format!(
            "  {} {}[{}]  max abs {}  max rel {}  {}{}\n",
            o.name,
            o.element_type,
            shape.join(","),
            g(o.max_abs),
            g(o.max_rel),
            if o.ok { "ok" } else { "DIFFERS" },
            match (&o.note, o.ok) {
                (Some(n), _) => format!(" ({n})"),
                (None, false) => format!(" (worst at {:?})", o.worst_index),
                _ => String::new(),
            }
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocab_is_read_from_the_embedding_table() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |name: &str| {
            let xml = root.join("ir-samples/models").join(name);
            let bin = xml.with_extension("bin");
            read_ir(Files {
                xml: &xml,
                bin: &bin,
            })
            .model
            .unwrap()
        };
        let v = vocab_of(&read("gemma_int4_sym.xml"));
        // The embedding Gather's table: the decompression chain's output, [vocab, hidden].
        // (OpenVINO reads that Gather's table as [512,64].)
        assert_eq!(v.get("input_ids"), Some(&512), "{v:?}");
        assert!(vocab_of(&read("silero_seq.xml")).is_empty());
    }

    #[test]
    fn a_reference_value_stands_when_two_of_three_requests_agree() {
        let o = Options::default();
        let t = |v: &[f32]| {
            Some(HostTensor {
                et: OvType::F32,
                shape: vec![v.len() as u64],
                data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                strings: Vec::new(),
            })
        };
        let same = |a: &Option<HostTensor>, b: &Option<HostTensor>| {
            agrees(a.as_ref().unwrap(), b.as_ref().unwrap(), &o)
        };
        let (good, odd, other) = (t(&[1.0, 2.0]), t(&[1.0, 98.8]), t(&[7.0, 2.0]));
        // The first request was the odd one: the second and third agree.
        assert_eq!(settle(&odd, &good, &good, same), Settled::Second);
        // The second was: the first stands.
        assert_eq!(settle(&good, &odd, &good, same), Settled::First);
        // Within the tolerance counts as agreeing.
        assert_eq!(
            settle(&good, &odd, &t(&[1.0, 2.000_001]), same),
            Settled::First
        );
        // Three different values: passed over.
        assert_eq!(settle(&good, &odd, &other, same), Settled::Varies);
    }
}
