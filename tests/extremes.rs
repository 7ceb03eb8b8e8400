//! Extreme values through every shape rule and kernel: each op version of opset1–17, with
//! 1 to 5 inputs, gets data of extreme dims (intervals up to 2^63-1, dims of 2^62, dynamic
//! rank) and integer inputs of extreme values (i64/i32 MIN and MAX, -1, 0, 2^62), and goes
//! through read → infer → fold → verify → write in memory. Errors are the expected answer for
//! most; a panic is a bug. Tests run with overflow checks (debug), so an integer from the file
//! that overflows in a rule panics here instead of wrapping into a wrong shape.

use irc::ir::Weights;
use std::fmt::Write as _;
use std::sync::Arc;

const BIG: i64 = 1 << 62;

/// Integer operand values (as i64 Const inputs, and i32 ones where they fit).
fn value_sets() -> Vec<Vec<i64>> {
    vec![
        vec![i64::MAX],
        vec![i64::MIN],
        vec![-1],
        vec![0, i64::MAX],
        vec![i64::MIN, -1, i64::MAX],
        vec![BIG, BIG, 2],
        vec![i32::MAX as i64, i32::MIN as i64],
        vec![1, 2, 3, -BIG],
    ]
}

/// The values integer operands draw from: ordinary ones, so rules get past their checks, and
/// the extremes.
const POOL: [i64; 12] = [
    1,
    0,
    -1,
    2,
    i64::MAX,
    i64::MIN,
    BIG,
    -BIG,
    i32::MAX as i64,
    i32::MIN as i64,
    3,
    1,
];

/// Data input shapes (Parameter dims as the IR spells them).
fn data_shapes() -> Vec<&'static str> {
    vec![
        "?,?",
        "0..9223372036854775807,3",
        "4611686018427387904,2,1",
        "1,2,3,4",
        "9223372036854775807",
        "",
    ]
}

/// Attribute sets: none (defaults), and the integer attributes the rules read set to extremes
/// (unused names are ignored by every rule).
fn attr_sets() -> Vec<String> {
    let ints = [
        "axis",
        "batch_dims",
        "num_splits",
        "group",
        "block_size",
        "k",
        "depth",
        "levels",
        "seq_axis",
        "batch_axis",
        "hidden_size",
        "sort_result_descending",
        "top_k",
        "max_output_boxes_per_class",
        "keep_top_k",
        "num_classes",
        "stride",
        "coords",
        "classes",
        "num",
        "spatial_scale",
        "pooled_h",
        "pooled_w",
        "sampling_ratio",
        "group_size",
        "output_dim",
        "spatial_bins_x",
        "spatial_bins_y",
        "deformable_group",
        "offset",
        "blank_index",
    ];
    let lists = [
        "axes",
        "begin_mask",
        "end_mask",
        "new_axis_mask",
        "shrink_axis_mask",
        "ellipsis_mask",
        "strides",
        "dilations",
        "pads_begin",
        "pads_end",
        "kernel",
        "output_padding",
        "pads",
        "sizes",
        "scales",
        "mask",
        "order",
        "sliding_window",
        "window_dilation",
    ];
    let set = |i: &str, l: &str| {
        let mut a: String = ints.iter().map(|n| format!(" {n}=\"{i}\"")).collect();
        a.extend(lists.iter().map(|n| format!(" {n}=\"{l}\"")));
        a.push_str(" special_zero=\"true\" keep_dims=\"true\"");
        a
    };
    vec![
        String::new(),
        set(
            "9223372036854775807",
            "9223372036854775807,4611686018427387904",
        ),
        set("-9223372036854775808", "-9223372036854775808,-1,0,1"),
        set("-1", "1,0,1,1"),
        set("1", "1,1"),
        set("2", "2,2"),
    ]
}

struct Net {
    xml: String,
    edges: String,
    bin: Vec<u8>,
    next: usize,
}

impl Net {
    fn new() -> Self {
        Net {
            xml: String::from(
                "<?xml version=\"1.0\"?>\n<net name=\"x\" version=\"11\">\n<layers>\n",
            ),
            edges: String::new(),
            bin: Vec::new(),
            next: 0,
        }
    }

    fn dims_xml(shape: &str) -> String {
        if shape.is_empty() {
            return String::new();
        }
        shape
            .split(',')
            .map(|d| {
                let d = if d == "?" { "-1" } else { d };
                format!("<dim>{d}</dim>")
            })
            .collect()
    }

    fn param(&mut self, shape: &str, int: bool) -> usize {
        let id = self.next;
        self.next += 1;
        // A `?` or an interval is written as -1 in port dims; the data shape keeps the interval.
        let port: String = if shape.is_empty() {
            String::new()
        } else {
            shape
                .split(',')
                .map(|d| match d.contains("..") || d == "?" {
                    true => "<dim>-1</dim>".to_string(),
                    false => format!("<dim>{d}</dim>"),
                })
                .collect()
        };
        writeln!(
            self.xml,
            "<layer id=\"{id}\" name=\"p{id}\" type=\"Parameter\" version=\"opset1\"><data shape=\"{shape}\" element_type=\"{}\"/><output><port id=\"0\" precision=\"{}\">{port}</port></output></layer>",
            if int { "i64" } else { "f32" },
            if int { "I64" } else { "FP32" },
        )
        .unwrap();
        id
    }

    fn konst(&mut self, et: &str, vals: &[i64], scalar: bool) -> usize {
        let id = self.next;
        self.next += 1;
        let off = self.bin.len();
        for &v in vals {
            match et {
                "i32" => self.bin.extend_from_slice(&(v as i32).to_le_bytes()),
                "f32" => self.bin.extend_from_slice(&(v as f32).to_le_bytes()),
                _ => self.bin.extend_from_slice(&v.to_le_bytes()),
            }
        }
        let size = self.bin.len() - off;
        let (shape, dims) = match scalar {
            true => (String::new(), String::new()),
            false => (
                vals.len().to_string(),
                Self::dims_xml(&vals.len().to_string()),
            ),
        };
        let prec = match et {
            "i32" => "I32",
            "f32" => "FP32",
            _ => "I64",
        };
        writeln!(
            self.xml,
            "<layer id=\"{id}\" name=\"c{id}\" type=\"Const\" version=\"opset1\"><data element_type=\"{et}\" shape=\"{shape}\" offset=\"{off}\" size=\"{size}\"/><output><port id=\"0\" precision=\"{prec}\">{dims}</port></output></layer>"
        )
        .unwrap();
        id
    }

    fn op(&mut self, ty: &str, opset: u32, attrs: &str, inputs: &[usize], nout: usize) {
        let id = self.next;
        self.next += 1;
        let ins: String = (0..inputs.len())
            .map(|i| format!("<port id=\"{i}\"/>"))
            .collect();
        let outs: String = (0..nout)
            .map(|o| format!("<port id=\"{}\" precision=\"FP32\"/>", inputs.len() + o))
            .collect();
        writeln!(
            self.xml,
            "<layer id=\"{id}\" name=\"op\" type=\"{ty}\" version=\"opset{opset}\"><data{attrs}/><input>{ins}</input><output>{outs}</output></layer>"
        )
        .unwrap();
        for (i, &src) in inputs.iter().enumerate() {
            writeln!(
                self.edges,
                "<edge from-layer=\"{src}\" from-port=\"0\" to-layer=\"{id}\" to-port=\"{i}\"/>"
            )
            .unwrap();
        }
        for o in 0..nout {
            let r = self.next;
            self.next += 1;
            writeln!(
                self.xml,
                "<layer id=\"{r}\" name=\"r{r}\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"/></input></layer>"
            )
            .unwrap();
            writeln!(
                self.edges,
                "<edge from-layer=\"{id}\" from-port=\"{}\" to-layer=\"{r}\" to-port=\"0\"/>",
                inputs.len() + o
            )
            .unwrap();
        }
    }

    fn finish(mut self) -> (String, Vec<u8>) {
        self.xml.push_str("</layers>\n<edges>\n");
        self.xml.push_str(&self.edges);
        self.xml.push_str("</edges>\n</net>\n");
        (self.xml, self.bin)
    }
}

/// Runs the pipeline: None when the reader refused the graph, else whether inference accepted it.
fn pipeline(xml: &str, bin: Vec<u8>) -> Option<bool> {
    let weights = Some(Arc::new(Weights::from_bytes(bin)));
    let Ok(parsed) = irc::xml::read_str(Arc::from(xml), "x.xml", weights, "x.bin") else {
        return None;
    };
    let mut inf = irc::passes::infer::Infer::new(&parsed.model, Some(&parsed.source_map), &[]);
    let facts = inf.run();
    let inferred = inf.diags.is_empty();
    let mut m = parsed.model.clone();
    irc::passes::infer::apply(&mut m.graph, &facts, &[], true);
    let mut s = String::new();
    let mut sink = irc::xml::BinSink::new(Vec::new());
    let _ = irc::xml::write_to(&m, &mut s, &mut sink);
    let mut m = parsed.model.clone();
    let opts = irc::passes::fold::FoldOptions {
        max_fold_bytes: 1 << 20,
    };
    if let Ok(report) = irc::passes::fold::fold(&mut m, Some(&parsed.source_map), &[], &opts) {
        let internal = irc::passes::infer::INTERNAL_ERROR;
        let bugs: Vec<_> = report
            .skipped
            .iter()
            .filter(|(_, why)| why.starts_with(internal))
            .collect();
        assert!(bugs.is_empty(), "kernel internal errors: {bugs:?}");
        let bad = irc::verify::verify(&m);
        assert!(bad.is_empty(), "fold produced an unsound model: {bad:?}");
        let mut s = String::new();
        let mut sink = irc::xml::BinSink::new(Vec::new());
        let _ = irc::xml::write_to(&m, &mut s, &mut sink);
    }
    Some(inferred)
}

#[test]
fn extreme_values_through_every_rule() {
    // Each (type, version) once, in the first opset that holds it.
    let mut seen = std::collections::BTreeMap::new();
    for (opset, ops) in irc::opset::OPSETS {
        for &(t, v) in ops.iter() {
            seen.entry((t, v)).or_insert(*opset);
        }
    }
    let skip = [
        "Parameter",
        "Result",
        "Constant",
        "If",
        "Loop",
        "TensorIterator",
    ];
    let (values, shapes, attrs) = (value_sets(), data_shapes(), attr_sets());
    let (mut runs, mut read, mut inferred) = (0usize, 0usize, 0usize);
    let mut ops_inferred = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    for (&(ty, _), &opset) in &seen {
        if skip.contains(&ty) {
            continue;
        }
        for arity in 1..=5usize {
            for (k, shape) in shapes.iter().enumerate() {
                for (j, vals) in values.iter().enumerate() {
                    // Attributes and output count rotate with the rest (not a full product:
                    // every combination of two of them still occurs across ops and arities).
                    let a = &attrs[(j + k + arity) % attrs.len()];
                    {
                        let nout = if (j + k) % 3 == 0 { 3 } else { 1 };
                        // Input 0: the data (a Parameter, or on odd rounds an extreme Const so
                        // the kernels see the values too); the others integer Consts, i64 or
                        // i32, vectors or (when one value) scalars.
                        let mut net = Net::new();
                        let mut ins = Vec::new();
                        ins.push(match j % 2 {
                            0 => net.param(shape, k % 3 == 1),
                            _ => net.konst(if k % 2 == 0 { "i64" } else { "f32" }, vals, false),
                        });
                        // The integer operands of one graph have one length (begin, end and
                        // stride must), scalars on some rounds.
                        let len = 1 + (j + arity) % 4;
                        let scalar = len == 1 && (j + k) % 2 == 0;
                        for i in 1..arity {
                            let v: Vec<i64> = (0..len)
                                .map(|t| POOL[(j * 3 + i * 5 + t * 7 + k) % POOL.len()])
                                .collect();
                            let et = if (i + k) % 3 == 2 { "i32" } else { "i64" };
                            ins.push(net.konst(et, &v, scalar));
                        }
                        net.op(ty, opset, a, &ins, nout);
                        let (xml, bin) = net.finish();
                        runs += 1;
                        let r = std::panic::catch_unwind(|| pipeline(&xml, bin));
                        match r {
                            Ok(Some(ok)) => {
                                read += 1;
                                if ok {
                                    inferred += 1;
                                    ops_inferred.insert(ty);
                                }
                            }
                            Ok(None) => {}
                            Err(e) => {
                                let msg = e
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_default();
                                failed.push(format!("{ty} arity {arity} shape [{shape}] values {vals:?} outputs {nout}: {msg}"));
                            }
                        }
                    }
                }
            }
        }
    }
    let ops = seen.len() - skip.len();
    if std::env::var_os("IRC_EXTREMES_LIST").is_some() {
        let never: Vec<_> = seen
            .keys()
            .filter(|(t, _)| !ops_inferred.contains(t) && !skip.contains(t))
            .collect();
        eprintln!("never inferred: {never:?}");
    }
    eprintln!(
        "{runs} graphs, {read} read, {inferred} inferred without error ({} of {ops} op versions at least once); {} panics",
        ops_inferred.len(),
        failed.len()
    );
    // The reader accepts most of them, and each rule accepts some: the values reach the
    // arithmetic instead of stopping at an arity or attribute check.
    assert!(read * 2 > runs, "only {read} of {runs} graphs were read");
    assert!(
        inferred * 10 > runs,
        "only {inferred} of {runs} graphs were inferred"
    );
    assert!(
        failed.is_empty(),
        "{} panics:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
