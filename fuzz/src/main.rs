//! irc-fuzz: a structure-aware mutation fuzzer for irc that runs on the stable toolchain.
//!
//! It mutates real IR files (attribute values, dims, element types, op types, opsets, lines,
//! edges, .bin truncation and corruption, raw bytes) and runs read → infer → fold → write on
//! each mutant in-process. A panic or a run longer than the hang limit is a failure: the input
//! is saved to the artifacts directory (add it to ir-samples/errors/ as a regression test).
//!
//! Usage: irc-fuzz [--seconds N] [--iters N] [--seed S] [--hang-secs N] [--artifacts DIR]
//!                 [--corpus DIR]...   (default corpora: ../ir-samples and ../../shared/models)

include!("lib_pipeline.rs");

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "255",
    "256",
    "65535",
    "65536",
    "-2",
    "2147483647",
    "2147483648",
    "-2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999",
    "",
    "?",
    "1..4",
    "..",
    "-1,-1",
    "0,0,0",
    "1,1,1,1,1,1,1,1",
    "1e10",
    "nan",
    "inf",
    "-0",
    "4611686018427387904",
];
const TYPES: &[&str] = &[
    "f32", "f16", "bf16", "f64", "i64", "i32", "i8", "u8", "u1", "u2", "u3", "u4", "u6", "i4",
    "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0", "boolean", "string", "dynamic", "FP32", "I64",
    "BIN", "BOOL", "bogus",
];
const OPS: &[&str] = &[
    "Add",
    "Multiply",
    "Reshape",
    "Gather",
    "Concat",
    "Range",
    "Broadcast",
    "Tile",
    "ShapeOf",
    "Slice",
    "StridedSlice",
    "Convert",
    "Transpose",
    "Squeeze",
    "Unsqueeze",
    "Split",
    "Select",
    "MatMul",
    "Convolution",
    "MaxPool",
    "ReduceSum",
    "Softmax",
    "Pad",
    "NonZero",
    "OneHot",
    "TopK",
    "Loop",
    "If",
    "TensorIterator",
    "Result",
    "Parameter",
    "Const",
    "FooBar",
    "Einsum",
    "Interpolate",
];

/// Spans of attribute values (`="…"`) and `<dim>` texts in the XML.
fn value_spans(x: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i + 1 < x.len() {
        if x[i] == b'=' && x[i + 1] == b'"' {
            let s = i + 2;
            if let Some(e) = x[s..].iter().position(|&b| b == b'"') {
                v.push((s, s + e));
                i = s + e;
            }
        } else if x[i..].starts_with(b"<dim>") {
            let s = i + 5;
            if let Some(e) = x[s..].iter().position(|&b| b == b'<') {
                v.push((s, s + e));
            }
        }
        i += 1;
    }
    v
}

fn line_spans(x: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut s = 0;
    for (i, &b) in x.iter().enumerate() {
        if b == b'\n' {
            v.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < x.len() {
        v.push((s, x.len()));
    }
    v
}

fn splice(x: &[u8], (s, e): (usize, usize), with: &[u8]) -> Vec<u8> {
    let mut o = Vec::with_capacity(x.len() + with.len());
    o.extend_from_slice(&x[..s]);
    o.extend_from_slice(with);
    o.extend_from_slice(&x[e..]);
    o
}

fn mutate(r: &mut Rng, xml: &mut Vec<u8>, bin: &mut Option<Vec<u8>>) {
    match r.below(14) {
        0..=1 => data_value(r, xml),
        2..=3 => any_value(r, xml),
        4 => {
            let spans = value_spans(xml);
            if !spans.is_empty() {
                let sp = *r.pick(&spans);
                *xml = splice(xml, sp, r.pick(TYPES).as_bytes());
            }
        }
        5 => op_type(r, xml),
        6 => {
            let lines = line_spans(xml);
            if !lines.is_empty() {
                let l = *r.pick(&lines);
                *xml = splice(xml, l, b"");
            }
        }
        7 => {
            let lines = line_spans(xml);
            if !lines.is_empty() {
                let (s, e) = *r.pick(&lines);
                let dup = xml[s..e].to_vec();
                *xml = splice(xml, (s, s), &dup);
            }
        }
        8 => swap_lines(r, xml),
        9 => {
            let n = r.below(xml.len() + 1);
            xml.truncate(n);
        }
        10 => {
            if let Some(b) = bin.as_mut() {
                let n = r.below(b.len() + 1);
                b.truncate(n);
            }
        }
        11 => {
            if let Some(b) = bin.as_mut() {
                for _ in 0..1 + r.below(16) {
                    if !b.is_empty() {
                        let i = r.below(b.len());
                        b[i] = r.next() as u8;
                    }
                }
            }
        }
        12 => {
            // Raw byte flips.
            for _ in 0..1 + r.below(4) {
                if !xml.is_empty() {
                    let i = r.below(xml.len());
                    xml[i] = r.next() as u8;
                }
            }
        }
        _ => data_window(r, xml),
    }
}

/// An op attribute (inside <data>) gets an interesting value: the file stays valid and the
/// change reaches inference and folding.
fn data_value(r: &mut Rng, xml: &mut Vec<u8>) {
    let spans: Vec<_> = value_spans(xml)
        .into_iter()
        .filter(|&(s, _)| {
            let line_start = xml[..s]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            xml[line_start..s].windows(5).any(|w| w == b"<data")
        })
        .collect();
    if !spans.is_empty() {
        let sp = *r.pick(&spans);
        let val = if r.below(3) == 0 {
            (r.next() % 300).to_string()
        } else {
            r.pick(NUMBERS).to_string()
        };
        *xml = splice(xml, sp, val.as_bytes());
    }
}

/// A numeric-ish attribute or dim gets an interesting value.
fn any_value(r: &mut Rng, xml: &mut Vec<u8>) {
    let spans = value_spans(xml);
    if !spans.is_empty() {
        let sp = *r.pick(&spans);
        let val = if r.below(3) == 0 {
            (r.next() % 2000).to_string()
        } else {
            r.pick(NUMBERS).to_string()
        };
        *xml = splice(xml, sp, val.as_bytes());
    }
}

/// Change an op type or opset.
fn op_type(r: &mut Rng, xml: &mut Vec<u8>) {
    let spans: Vec<_> = value_spans(xml)
        .into_iter()
        .filter(|&(s, _)| {
            s >= 6 && (&xml[s - 6..s] == b"type=\"" || xml[..s].ends_with(b"version=\""))
        })
        .collect();
    if !spans.is_empty() {
        let sp = *r.pick(&spans);
        let with = if xml[..sp.0].ends_with(b"version=\"") {
            format!("opset{}", r.below(19))
        } else {
            r.pick(OPS).to_string()
        };
        *xml = splice(xml, sp, with.as_bytes());
    }
}

/// Two lines trade places.
fn swap_lines(r: &mut Rng, xml: &mut Vec<u8>) {
    let lines = line_spans(xml);
    if lines.len() > 2 {
        let (a, b) = (*r.pick(&lines), *r.pick(&lines));
        let (a, b) = if a.0 < b.0 { (a, b) } else { (b, a) };
        if a.1 <= b.0 {
            let mut o = xml[..a.0].to_vec();
            o.extend_from_slice(&xml[b.0..b.1]);
            o.extend_from_slice(&xml[a.1..b.0]);
            o.extend_from_slice(&xml[a.0..a.1]);
            o.extend_from_slice(&xml[b.1..]);
            *xml = o;
        }
    }
}

/// Move a Const's data window.
fn data_window(r: &mut Rng, xml: &mut Vec<u8>) {
    let spans: Vec<_> = value_spans(xml)
        .into_iter()
        .filter(|&(s, _)| xml[..s].ends_with(b"offset=\"") || xml[..s].ends_with(b"size=\""))
        .collect();
    if !spans.is_empty() {
        let sp = *r.pick(&spans);
        let val = (r.next() % 64).to_string();
        *xml = splice(xml, sp, val.as_bytes());
    }
}

/// An IR as bytes: the .xml and, when present, the .bin.
type Input = (Vec<u8>, Option<Vec<u8>>);

fn collect(dir: &Path, out: &mut Vec<(PathBuf, Input)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "xml") {
            let Ok(x) = std::fs::read(&p) else { continue };
            if x.len() > 400_000 {
                continue;
            }
            let bin = std::fs::read(p.with_extension("bin"))
                .ok()
                .filter(|b| b.len() <= 4 << 20);
            out.push((p, (x, bin)));
        }
    }
}

static CURRENT_START_MS: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<Option<Input>> = Mutex::new(None);
static PANIC_MSG: Mutex<String> = Mutex::new(String::new());

fn save(dir: &Path, kind: &str, xml: &[u8], bin: Option<&[u8]>) -> PathBuf {
    let _ = std::fs::create_dir_all(dir);
    let h = irc::xml::write::hash_bytes(xml) ^ bin.map_or(0, irc::xml::write::hash_bytes);
    let p = dir.join(format!("{kind}-{h:016x}.xml"));
    let _ = std::fs::write(&p, xml);
    if let Some(b) = bin {
        let _ = std::fs::write(p.with_extension("bin"), b);
    }
    p
}

fn main() {
    let o = options();
    let mut corpus = Vec::new();
    for c in &o.corpora {
        collect(c, &mut corpus);
    }
    if corpus.is_empty() {
        eprintln!("irc-fuzz: no .xml files in {:?}", o.corpora);
        std::process::exit(2);
    }
    std::panic::set_hook(Box::new(|info| {
        *PANIC_MSG.lock().unwrap_or_else(|e| e.into_inner()) = info.to_string();
    }));
    let t0 = Instant::now();
    watchdog(t0, o.artifacts.clone(), o.hang);
    let mut rng = Rng(o.seed | 1);
    let (mut execs, mut crashes, mut rejected) = (0u64, 0u64, 0u64);
    let deadline = Duration::from_secs(o.seconds);
    // Every seed file once, unmutated, first.
    // Seeds the reader accepts are mutated most of the time, so mutants reach inference and
    // folding; the error corpus keeps the reader's rejection paths busy.
    let valid: Vec<usize> = (0..corpus.len())
        .filter(|&i| {
            let (x, b) = &corpus[i].1;
            // Under the watchdog too: a seed that hangs is a finding like any other.
            watched(t0, x, b).unwrap_or(false)
        })
        .collect();

    let mut queue: Vec<Input> = corpus.iter().map(|(_, i)| i.clone()).collect();
    while execs < o.iters && t0.elapsed() < deadline {
        let (xml, bin) = match queue.pop() {
            Some(q) => q,
            None => mutant(&mut rng, &corpus, &valid),
        };
        let ok = watched(t0, &xml, &bin);
        execs += 1;
        match ok {
            Ok(accepted) => rejected += (!accepted) as u64,
            Err(_) => {
                crashes += 1;
                let p = save(&o.artifacts, "crash", &xml, bin.as_deref());
                let msg = PANIC_MSG.lock().unwrap_or_else(|e| e.into_inner()).clone();
                eprintln!("irc-fuzz: PANIC saved to {}: {msg}", p.display());
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "irc-fuzz: {execs} execs in {secs:.1} s ({:.0}/s), {} seed files, {rejected} rejected by the reader, {crashes} panics, 0 hangs",
        execs as f64 / secs,
        corpus.len()
    );
    println!("{} passed, {} failed", execs - crashes, crashes);
    std::process::exit(if crashes > 0 { 1 } else { 0 });
}

/// The command line (see the usage at the top).
struct Options {
    seconds: u64,
    iters: u64,
    seed: u64,
    hang: u64,
    artifacts: PathBuf,
    corpora: Vec<PathBuf>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let seconds: u64 = get("--seconds").and_then(|v| v.parse().ok()).unwrap_or(60);
    let iters: u64 = get("--iters")
        .and_then(|v| v.parse().ok())
        .unwrap_or(u64::MAX);
    let seed: u64 = get("--seed")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x1234_5678);
    let hang: u64 = get("--hang-secs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let artifacts = get("--artifacts")
        .map(PathBuf::from)
        .unwrap_or(here.join("artifacts"));
    let mut corpora: Vec<PathBuf> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| *a == "--corpus")
        .filter_map(|(i, _)| args.get(i + 1).map(PathBuf::from))
        .collect();
    if corpora.is_empty() {
        corpora = vec![here.join("../ir-samples"), here.join("../../shared/models")];
    }
    Options {
        seconds,
        iters,
        seed,
        hang,
        artifacts,
        corpora,
    }
}

/// Watchdog: an input that runs longer than the hang limit is saved and the run fails.
fn watchdog(t0: Instant, art: PathBuf, hang: u64) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(500));
        let start = CURRENT_START_MS.load(Ordering::SeqCst);
        let now = t0.elapsed().as_millis() as u64;
        if start > 0 && now.saturating_sub(start) > hang * 1000 {
            if let Some((x, b)) = CURRENT.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                let p = save(&art, "hang", &x, b.as_deref());
                eprintln!("irc-fuzz: HANG (> {hang} s) on {}", p.display());
            }
            std::process::exit(3);
        }
    });
}

/// Runs the pipeline on one input under the watchdog: whether the reader accepted it, or the
/// panic.
fn watched(t0: Instant, xml: &[u8], bin: &Option<Vec<u8>>) -> std::thread::Result<bool> {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some((xml.to_vec(), bin.clone()));
    CURRENT_START_MS.store(t0.elapsed().as_millis().max(1) as u64, Ordering::SeqCst);
    let ok = std::panic::catch_unwind(|| pipeline(xml, bin.as_deref()));
    CURRENT_START_MS.store(0, Ordering::SeqCst);
    ok
}

/// A seed file (one the reader accepts 4 times in 5) mutated 1 to 4 times.
fn mutant(rng: &mut Rng, corpus: &[(PathBuf, Input)], valid: &[usize]) -> Input {
    let seed = if !valid.is_empty() && rng.below(5) != 0 {
        valid[rng.below(valid.len())]
    } else {
        rng.below(corpus.len())
    };
    let (_, (x, b)) = &corpus[seed];

    let (mut x, mut b) = (x.clone(), b.clone());
    for _ in 0..1 + rng.below(4) {
        mutate(rng, &mut x, &mut b);
    }
    (x, b)
}
