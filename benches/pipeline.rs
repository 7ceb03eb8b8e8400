//! `cargo bench`: the four stages of irc (read, infer, fold, write) timed separately on
//! generated decoder-like graphs, no Python needed. The end-to-end comparison with OpenVINO
//! is `benches/bench.sh`.
//!
//!     cargo bench                      # all sizes
//!     cargo bench -- 2000              # only the graph with 2000 blocks
//!
//! Each block is the shape subgraph exported transformers carry (ShapeOf -> Gather -> Concat ->
//! Reshape), a Range-based causal mask (Range -> Unsqueeze x2 -> GreaterEqual -> Select ->
//! ReduceMean), an f16 weight with its decompression Convert feeding a MatMul, and an Add:
//! 26 layers. The "fold" stage includes cloning the model and inference.
//! Reported: the median and the best of the iterations, and layers per second.

use irc::passes::fold::{fold, FoldOptions};
use irc::passes::infer::{parse_input_spec, Infer};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const WIDTH: usize = 16;
const SEQ: usize = 32;

/// IR text and weights being generated.
struct Gen {
    x: String,
    bin: Vec<u8>,
    id: usize,
    /// (from layer, port, to layer, port), written after the layers.
    edges: Vec<(usize, u32, usize, u32)>,
}

fn port(x: &mut String, pid: u32, prec: &str, d: &[i64]) {
    if d.is_empty() {
        let _ = writeln!(x, "\t\t\t\t<port id=\"{pid}\" precision=\"{prec}\" />");
        return;
    }
    let _ = writeln!(x, "\t\t\t\t<port id=\"{pid}\" precision=\"{prec}\">");
    for v in d {
        let _ = writeln!(x, "\t\t\t\t\t<dim>{v}</dim>");
    }
    x.push_str("\t\t\t\t</port>\n");
}

type Ports<'p> = &'p [(&'p str, &'p [i64])];

impl Gen {
    /// A layer: type, data attributes, decompression rt_info, inputs and outputs as
    /// (precision, dims); input ports are numbered from 0, outputs after them. Returns its id.
    fn layer(&mut self, ty: &str, data: &str, rt: bool, ins: Ports, outs: Ports) -> usize {
        let me = self.id;
        self.id += 1;
        let x = &mut self.x;
        let _ = writeln!(
            x,
            "\t\t<layer id=\"{me}\" name=\"{ty}_{me}\" type=\"{ty}\" version=\"opset8\">"
        );
        if !data.is_empty() {
            let _ = writeln!(x, "\t\t\t<data {data} />");
        }
        if rt {
            x.push_str("\t\t\t<rt_info>\n\t\t\t\t<attribute name=\"decompression\" version=\"0\" />\n\t\t\t</rt_info>\n");
        }
        let mut pid = 0u32;
        for (tag, list) in [("input", ins), ("output", outs)] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(x, "\t\t\t<{tag}>");
            for (prec, d) in list {
                port(x, pid, prec, d);
                pid += 1;
            }
            let _ = writeln!(x, "\t\t\t</{tag}>");
        }
        x.push_str("\t\t</layer>\n");
        me
    }

    fn konst(&mut self, et: &str, prec: &str, d: &[i64], bytes: &[u8]) -> usize {
        let shape: Vec<String> = d.iter().map(|v| v.to_string()).collect();
        let data = format!(
            "element_type=\"{et}\" shape=\"{}\" offset=\"{}\" size=\"{}\"",
            shape.join(", "),
            self.bin.len(),
            bytes.len()
        );
        self.bin.extend_from_slice(bytes);
        self.layer("Const", &data, false, &[], &[(prec, d)])
    }

    fn i64s(&mut self, d: &[i64], v: &[i64]) -> usize {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.konst("i64", "I64", d, &b)
    }
}

/// Writes `blocks` blocks as IR v11 to `dir/pipeline_<blocks>.xml` + `.bin`.
fn generate(dir: &Path, blocks: usize) -> PathBuf {
    let mut g = Gen {
        x: String::new(),
        bin: Vec::new(),
        id: 0,
        edges: Vec::new(),
    };
    g.x.push_str("<?xml version=\"1.0\"?>\n<net name=\"pipeline\" version=\"11\">\n\t<layers>\n");
    let w = WIDTH as i64;
    let p = format!("shape=\"?,?,{w}\" element_type=\"f32\"");
    let mut cur = (g.layer("Parameter", &p, false, &[], &[("FP32", ACT)]), 0u32);
    let mut seed = 1u32;
    for _ in 0..blocks {
        cur = g.block(cur, &mut seed);
    }
    let result = g.layer("Result", "", false, &[("FP32", ACT)], &[]);
    g.edges.push((cur.0, cur.1, result, 0));
    g.x.push_str("\t</layers>\n\t<edges>\n");
    for (a, ap, b, bp) in std::mem::take(&mut g.edges) {
        let _ = writeln!(
            g.x,
            "\t\t<edge from-layer=\"{a}\" from-port=\"{ap}\" to-layer=\"{b}\" to-port=\"{bp}\" />"
        );
    }
    g.x.push_str("\t</edges>\n</net>\n");
    let xml = dir.join(format!("pipeline_{blocks}.xml"));
    std::fs::write(&xml, g.x).unwrap();
    std::fs::write(xml.with_extension("bin"), g.bin).unwrap();
    xml
}

/// The activation shape: [?, ?, WIDTH].
const ACT: &[i64] = &[-1, -1, WIDTH as i64];

impl Gen {
    /// One block fed by output `cur` (layer, port); returns the output of its Add.
    fn block(&mut self, cur: (usize, u32), seed: &mut u32) -> (usize, u32) {
        let (shape_of, axis, reshape) = self.reshape(cur);
        let mask = self.causal_mask(shape_of, axis);
        let mm = self.matmul(reshape, seed);
        (self.masked_add(mask, mm), 2)
    }

    /// Shape subgraph: ShapeOf -> Gather([0, 1]) -> Concat with [w] -> Reshape of `cur`.
    /// Returns the ShapeOf, the axis-0 Const and the Reshape.
    fn reshape(&mut self, (cur, cur_port): (usize, u32)) -> (usize, usize, usize) {
        let w = WIDTH as i64;
        let shape_of = self.layer(
            "ShapeOf",
            "output_type=\"i64\"",
            false,
            &[("FP32", ACT)],
            &[("I64", &[3])],
        );
        self.edges.push((cur, cur_port, shape_of, 0));
        let idx = self.i64s(&[2], &[0, 1]);
        let axis = self.i64s(&[], &[0]);
        let gather = self.layer(
            "Gather",
            "batch_dims=\"0\"",
            false,
            &[("I64", &[3]), ("I64", &[2]), ("I64", &[])],
            &[("I64", &[2])],
        );
        self.edges.extend([
            (shape_of, 1, gather, 0),
            (idx, 0, gather, 1),
            (axis, 0, gather, 2),
        ]);
        let tail = self.i64s(&[1], &[w]);
        let concat = self.layer(
            "Concat",
            "axis=\"0\"",
            false,
            &[("I64", &[2]), ("I64", &[1])],
            &[("I64", &[3])],
        );
        self.edges
            .extend([(gather, 3, concat, 0), (tail, 0, concat, 1)]);
        let reshape = self.layer(
            "Reshape",
            "special_zero=\"false\"",
            false,
            &[("FP32", ACT), ("I64", &[3])],
            &[("FP32", ACT)],
        );
        self.edges
            .extend([(cur, cur_port, reshape, 0), (concat, 2, reshape, 1)]);
        (shape_of, axis, reshape)
    }

    /// Causal mask: Range(0, seq, 1) -> Unsqueeze x2 -> GreaterEqual, seq gathered from
    /// `shape_of` along `axis`. Returns the GreaterEqual.
    fn causal_mask(&mut self, shape_of: usize, axis: usize) -> usize {
        let seq_idx = self.i64s(&[], &[1]);
        let seq = self.layer(
            "Gather",
            "batch_dims=\"0\"",
            false,
            &[("I64", &[3]), ("I64", &[]), ("I64", &[])],
            &[("I64", &[])],
        );
        self.edges.extend([
            (shape_of, 1, seq, 0),
            (seq_idx, 0, seq, 1),
            (axis, 0, seq, 2),
        ]);
        let start = self.i64s(&[], &[0]);
        let step = self.i64s(&[], &[1]);
        let range = self.layer(
            "Range",
            "output_type=\"i64\"",
            false,
            &[("I64", &[]), ("I64", &[]), ("I64", &[])],
            &[("I64", &[-1])],
        );
        self.edges.extend([
            (start, 0, range, 0),
            (seq, 3, range, 1),
            (step, 0, range, 2),
        ]);
        let ax1 = self.i64s(&[1], &[1]);
        let rows = self.layer(
            "Unsqueeze",
            "",
            false,
            &[("I64", &[-1]), ("I64", &[1])],
            &[("I64", &[-1, 1])],
        );
        self.edges.extend([(range, 3, rows, 0), (ax1, 0, rows, 1)]);
        let ax0 = self.i64s(&[1], &[0]);
        let cols = self.layer(
            "Unsqueeze",
            "",
            false,
            &[("I64", &[-1]), ("I64", &[1])],
            &[("I64", &[1, -1])],
        );
        self.edges.extend([(range, 3, cols, 0), (ax0, 0, cols, 1)]);
        let mask = self.layer(
            "GreaterEqual",
            "auto_broadcast=\"numpy\"",
            false,
            &[("I64", &[-1, 1]), ("I64", &[1, -1])],
            &[("BOOL", &[-1, -1])],
        );
        self.edges.extend([(rows, 2, mask, 0), (cols, 2, mask, 1)]);
        mask
    }

    /// Weights: f16 Const (pseudo-random from `seed`) -> decompression Convert -> MatMul of
    /// `reshape`. Returns the MatMul.
    fn matmul(&mut self, reshape: usize, seed: &mut u32) -> usize {
        let w = WIDTH as i64;
        let wbytes: Vec<u8> = (0..WIDTH * WIDTH)
            .flat_map(|_| {
                *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                half::f16::from_f32((*seed >> 16) as f32 / 65536.0 - 0.5).to_le_bytes()
            })
            .collect();
        let wc = self.konst("f16", "FP16", &[w, w], &wbytes);
        let conv = self.layer(
            "Convert",
            "destination_type=\"f32\"",
            true,
            &[("FP16", &[w, w])],
            &[("FP32", &[w, w])],
        );
        self.edges.push((wc, 0, conv, 0));
        let mm = self.layer(
            "MatMul",
            "transpose_a=\"false\" transpose_b=\"false\"",
            false,
            &[("FP32", ACT), ("FP32", &[w, w])],
            &[("FP32", ACT)],
        );
        self.edges.extend([(reshape, 2, mm, 0), (conv, 1, mm, 1)]);
        mm
    }

    /// The mask used: Select(mask, 0, -1e4) reduced to a scalar, added to `mm`
    /// (residual-style). Returns the Add.
    fn masked_add(&mut self, mask: usize, mm: usize) -> usize {
        let zero = self.konst("f32", "FP32", &[], &0f32.to_le_bytes());
        let ninf = self.konst("f32", "FP32", &[], &(-1e4f32).to_le_bytes());
        let select = self.layer(
            "Select",
            "auto_broadcast=\"numpy\"",
            false,
            &[("BOOL", &[-1, -1]), ("FP32", &[]), ("FP32", &[])],
            &[("FP32", &[-1, -1])],
        );
        self.edges.extend([
            (mask, 2, select, 0),
            (zero, 0, select, 1),
            (ninf, 0, select, 2),
        ]);
        let red_axes = self.i64s(&[2], &[0, 1]);
        let red = self.layer(
            "ReduceMean",
            "keep_dims=\"false\"",
            false,
            &[("FP32", &[-1, -1]), ("I64", &[2])],
            &[("FP32", &[])],
        );
        self.edges
            .extend([(select, 3, red, 0), (red_axes, 0, red, 1)]);
        let add = self.layer(
            "Add",
            "auto_broadcast=\"numpy\"",
            false,
            &[("FP32", ACT), ("FP32", &[])],
            &[("FP32", ACT)],
        );
        self.edges.extend([(mm, 2, add, 0), (red, 2, add, 1)]);
        add
    }
}

fn time<T>(iters: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut v: Vec<Duration> = (0..iters)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    v.sort();
    (v[v.len() / 2], v[0])
}

fn main() {
    // `cargo bench -- NAME` passes NAME (and --bench): keep the first non-flag argument.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let dir = std::env::temp_dir().join(format!("irc-cargo-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let overrides = vec![parse_input_spec(&format!("Parameter_0[1,{SEQ},{WIDTH}]")).unwrap()];
    println!(
        "{:<8} {:>8} {:>10} {:>20} {:>20} {:>14}",
        "blocks", "layers", "stage", "median", "best", "layers/s"
    );
    for blocks in [200usize, 2000, 5000] {
        if filter.as_deref().is_some_and(|f| f != blocks.to_string()) {
            continue;
        }
        let xml = generate(&dir, blocks);
        let iters = if blocks >= 2000 { 5 } else { 15 };
        let parsed = irc::xml::read_file(&xml).unwrap_or_else(|e| panic!("{e}"));
        let layers = parsed.model.graph.len();
        let mut rows = Vec::new();
        rows.push(("read", time(iters, || irc::xml::read_file(&xml).unwrap())));
        rows.push((
            "infer",
            time(iters, || {
                let mut inf = Infer::new(&parsed.model, None, &overrides);
                let f = inf.run();
                assert!(inf.diags.is_empty(), "{:?}", inf.diags);
                f
            }),
        ));
        rows.push((
            "fold",
            time(iters, || {
                let mut m = parsed.model.clone();
                let r = fold(&mut m, None, &overrides, &FoldOptions::default()).unwrap();
                assert!(!r.folded.is_empty());
                m
            }),
        ));
        let mut folded = parsed.model.clone();
        fold(&mut folded, None, &overrides, &FoldOptions::default()).unwrap();
        let out = dir.join(format!("out_{blocks}.xml"));
        rows.push((
            "write",
            time(iters, || irc::xml::write_files(&folded, &out).unwrap()),
        ));
        for (stage, (med, best)) in rows {
            println!(
                "{blocks:<8} {layers:>8} {stage:>10} {:>17.2} ms {:>17.2} ms {:>14.0}",
                med.as_secs_f64() * 1e3,
                best.as_secs_f64() * 1e3,
                layers as f64 / med.as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
