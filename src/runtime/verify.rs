//! `irc verify REF CAND`: run both models with OpenVINO's runtime ([`crate::runtime::openvino`]) on the same
//! inputs and compare every output. Inputs follow the conventions of real exports (token ids,
//! attention masks of ones, position ids counting on, beam indices of zero, floats N(0, 1)
//! seeded); a stateful model runs `steps` steps on one infer request, so the cache path is
//! compared too, and each run starts from a new request (fresh state).

mod compare;
use compare::{agrees, compare, decode, Vals};
mod divergence;
use divergence::{divergence, racy_scatter};
mod inputs;
use crate::passes::infer::InputOverride;
use crate::runtime::openvino::{Compiled, HostTensor, OvType, PortInfo, Runtime};
pub use inputs::Data;
use inputs::{ov_input_names, role, step_inputs, ties_of, vocab_of, Gen, Rng, Role, Ties, SEQ};
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
    let data = read_data(o)?;
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
    let reshape = reshape_of(o);
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

/// The `--data` arrays (none without `--data`).
fn read_data(o: &Options) -> Result<Data, Unusable> {
    Ok(match &o.data {
        Some(p) => {
            let b =
                std::fs::read(p).map_err(|e| Unusable(format!("--data {}: {e}", p.display())))?;
            crate::runtime::npz::read(&b)
                .map_err(|e| Unusable(format!("--data {}: {e}", p.display())))?
        }
        None => Data::new(),
    })
}

/// The `--input` shapes as the C API's dimension bounds, by input name, to reshape to.
fn reshape_of(o: &Options) -> Vec<(String, Vec<(i64, i64)>)> {
    o.inputs
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
        .collect()
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
    check_given_inputs(&ref_in, data, o)?;
    let seq0 = first_tokens(o, data);
    let mut steps = if stateful(&su.ir.0.text) { o.steps } else { 1 };
    let kv_mask = kv_cache(&ref_in);
    let mut report = empty_report(rt, o, steps, &ref_out);
    let (ref_fixed, cand_fixed) = fixed_length_tokens(&ref_in, su);
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
    let ref_runs = run_reference(&ref_c, &ref_in, ref_out.len(), &gen, steps, &mut report)?;
    drop(ref_c);
    let first_bad =
        match run_candidate(rt, candidate, su, &ref_in, &ref_out, &ref_runs, &mut report) {
            Ok(first_bad) => first_bad,
            Err(e) => return candidate_fails(report, e),
        };
    report.equal = report.outputs.iter().all(|r| r.ok);
    report.first_bad = first_bad;
    Ok(report)
}

/// `--data` arrays and `--input` names must name inputs of the reference.
fn check_given_inputs(ref_in: &[PortInfo], data: &Data, o: &Options) -> Result<(), Unusable> {
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
    Ok(())
}

/// The report before anything ran: every reference output, not yet compared.
fn empty_report(rt: &Runtime, o: &Options, steps: usize, ref_out: &[PortInfo]) -> Report {
    Report {
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
    }
}

/// Whether the reference's, and the candidate's, token or mask inputs have a static length.
fn fixed_length_tokens(ref_in: &[PortInfo], su: &Setup) -> (bool, bool) {
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
    (ref_fixed, cand_fixed)
}

/// Per run, per step: the inputs and the reference's outputs.
type RefRuns = Vec<Vec<(Vec<HostTensor>, Vec<HostTensor>)>>;

/// Run the reference `o.runs` times, `steps` steps each (the report's input list from the
/// first).
fn run_reference(
    ref_c: &Compiled,
    ref_in: &[PortInfo],
    n_out: usize,
    gen: &Gen,
    steps: usize,
    report: &mut Report,
) -> Result<RefRuns, Unusable> {
    let o = gen.o;
    let mut ref_runs: RefRuns = Vec::with_capacity(o.runs);
    for run in 0..o.runs {
        let mut rng = run_rng(o, run);
        let mut req = ref_c.request().map_err(Unusable)?;
        let mut kept = Vec::with_capacity(steps);
        for step in 0..steps {
            let made = step_inputs(ref_in, gen, step, &mut rng).map_err(Unusable)?;
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
            let outs = (0..n_out)
                .map(|k| req.output(k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Unusable)?;
            kept.push((made, outs));
        }
        ref_runs.push(kept);
    }
    Ok(ref_runs)
}

/// The report when the candidate fails: not equal, nothing compared.
fn candidate_fails(mut r: Report, e: String) -> Result<Report, Unusable> {
    r.equal = false;
    r.candidate_error = Some(e);
    for out in &mut r.outputs {
        out.ok = false;
        out.note = Some("not compared: the candidate fails".into());
    }
    Ok(r)
}

/// Compile and run the candidate on the reference's inputs, comparing every output into
/// `report`; the first (run, step) that differs. An error: the candidate fails.
fn run_candidate(
    rt: &Runtime,
    candidate: Files,
    su: &Setup,
    ref_in: &[PortInfo],
    ref_out: &[PortInfo],
    ref_runs: &RefRuns,
    report: &mut Report,
) -> Result<Option<(usize, usize)>, String> {
    let Setup {
        o, props, reshape, ..
    } = *su;
    let cand_c = rt.compile(candidate.xml, candidate.bin, reshape, props)?;
    let (cand_in, cand_out) = match (cand_c.inputs(), cand_c.outputs()) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => return Err(e),
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
        return Err(format!(
            "the inputs differ: reference {:?}, candidate {:?}",
            names(ref_in),
            names(&cand_in)
        ));
    }
    let out_map: Vec<Option<usize>> = ref_out
        .iter()
        .enumerate()
        .map(|(i, p)| pick(&cand_out, p, i))
        .collect();
    let mut first_bad = None;
    for (run, kept) in ref_runs.iter().enumerate() {
        let mut req_c = cand_c.request()?;
        for (step, (made, outs)) in kept.iter().enumerate() {
            for (i, t) in made.iter().enumerate() {
                req_c.set_input(in_map[i].unwrap_or(i), t)?
            }
            if let Err(e) = req_c.infer() {
                return Err(format!("the candidate: {e}"));
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
    Ok(first_bad)
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
