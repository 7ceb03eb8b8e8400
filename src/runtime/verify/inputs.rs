//! The inputs `irc verify` feeds both models: seeded random data by role (token ids within the
//! vocabulary, masks, positions, floats), dims for dynamic shapes (tied symbols equal), data given
//! as .npz, and the next step's inputs of a stateful model.

use super::*;

/// splitmix64: small, seeded, the same everywhere.
pub(super) struct Rng(pub(super) u64);

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
pub(super) enum Role {
    Mask,
    Positions,
    Beam,
    Zeros,
    Ids,
    Other,
}

pub(super) fn role(name: &str) -> Role {
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
pub(super) fn ov_input_names(o: &Options, ir: &Ir) -> Options {
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
pub(super) const SEQ: u64 = 8;
/// Token ids are drawn below this when the model's vocabulary cannot be read (see [`vocab_of`]).
pub(super) const VOCAB: u64 = 100;

/// The vocabulary size of a token input: the rows of the embedding table its ids index (the
/// first Gather they reach, through Convert/Reshape/Squeeze/Unsqueeze), by the input's name.
/// Each input's dims as the reference's symbols (by its friendly name and every tensor name),
/// `None` for a static dim: an input dim given with `--input` then sets every dim tied to it
/// (`input_ids[2,8]` makes `beam_idx` 2 long, as the KV cache's Gather needs).
pub(super) type Ties = std::collections::BTreeMap<String, Vec<Option<String>>>;

pub(super) fn ties_of(m: &crate::ir::Model, inputs: &[InputOverride]) -> Ties {
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
pub(super) fn given_symbols(o: &Options, ties: &Ties) -> std::collections::BTreeMap<String, u64> {
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

pub(super) fn vocab_of(m: &crate::ir::Model) -> std::collections::BTreeMap<String, u64> {
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
pub(super) fn tokens(seq0: u64, step: usize) -> (u64, u64) {
    match step {
        0 => (seq0, 0),
        s => (1, seq0 + s as u64 - 1),
    }
}

/// The run-time dims of input `p` at `step` of a run whose first step has `seq0` tokens.
pub(super) fn dims_for(
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

pub(super) fn encode_f(et: OvType, vals: &[f64]) -> Option<Vec<u8>> {
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

pub(super) fn encode_i(et: OvType, vals: &[i64]) -> Option<Vec<u8>> {
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
pub(super) fn make_input(
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
pub(super) struct Gen<'a> {
    pub(super) o: &'a Options,
    pub(super) data: &'a Data,
    /// The first step's token count.
    pub(super) seq0: u64,
    /// The attention mask covers past tokens too (a KV cache).
    pub(super) kv_mask: bool,
    /// Vocabulary sizes of token inputs, by name (see [`vocab_of`]).
    pub(super) vocab: &'a std::collections::BTreeMap<String, u64>,
    pub(super) ties: &'a Ties,
}

pub(super) fn step_inputs(
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
pub(super) fn from_data(
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
