//! Extreme values through every shape rule and kernel (issue 21's property test): each op
//! version of opset1–17, with each input count its rule takes, gets data of extreme dims
//! (intervals up to 2^63-1, dims of 2^62, dynamic rank) as a Parameter or a Const, operands of
//! extreme values (i64/i32 MIN and MAX, 2^62, -1, 0) as i64, i32, f32 or boolean Consts, and
//! attributes of extreme values (every value of its enum attributes in turn), and goes through
//! read → infer → fold → verify → write in memory: about 131,000 graphs, 50,000 of them past
//! inference, 138 op versions at least once (IRC_EXTREMES_LIST=1 names the others). Errors are
//! the expected answer for most; a panic, an unsound folded model or a kernel's internal error
//! is a bug. With overflow checks on (a debug `cargo test`, and `.ci/run`'s `cargo test
//! --profile overflow --test extremes`), an integer from the file that overflows in a rule
//! panics here instead of wrapping into a wrong shape.

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

/// (data, operand) element types: integer operands of float data (axes, shapes, pads), all
/// float (weights, scales), all integer, boolean data (masks, conditions) with float operands.
const TYPES: [(&str, &str); 5] = [
    ("f32", "i64"),
    ("f32", "f32"),
    ("i64", "i64"),
    ("boolean", "f32"),
    ("boolean", "boolean"),
];

/// Whether the rule of `ty` gets past its input count with `arity` inputs (a probe graph).
fn takes_inputs(ty: &str, opset: u32, arity: usize) -> bool {
    let mut net = Net::new();
    let mut ins = vec![net.param("1,2,3,4", "f32")];
    for _ in 1..arity {
        ins.push(net.konst("i64", &[1], false));
    }
    net.op(ty, opset, "", &ins, 1);
    let (xml, bin) = net.finish();
    let weights = Some(Arc::new(Weights::from_bytes(bin)));
    let Ok(parsed) = irc::xml::read_str(Arc::from(xml.as_str()), "x.xml", weights, "x.bin") else {
        return true;
    };
    let mut inf = irc::passes::infer::Infer::new(&parsed.model, Some(&parsed.source_map), &[]);
    inf.run();
    !inf.diags
        .iter()
        .any(|d| d.message.contains(" inputs, has "))
}

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

fn prec(et: &str) -> &'static str {
    match et {
        "i32" => "I32",
        "f32" => "FP32",
        "boolean" => "BOOL",
        _ => "I64",
    }
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

    fn param(&mut self, shape: &str, et: &str) -> usize {
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
            et,
            prec(et),
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
                "boolean" => self.bin.push((v != 0) as u8),
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
        let prec = prec(et);
        writeln!(
            self.xml,
            "<layer id=\"{id}\" name=\"c{id}\" type=\"Const\" version=\"opset1\"><data element_type=\"{et}\" shape=\"{shape}\" offset=\"{off}\" size=\"{size}\"/><output><port id=\"0\" precision=\"{prec}\">{dims}</port></output></layer>"
        )
        .unwrap();
        id
    }

    /// A Const of `shape` where that is static and small (filled with `vals` over and over),
    /// else of `vals` as a vector.
    fn konst_shaped(&mut self, et: &str, vals: &[i64], shape: &str) -> usize {
        let dims: Option<Vec<usize>> = match shape {
            "" => Some(vec![]),
            s => s
                .split(',')
                .map(|d| d.parse().ok().filter(|&n| n <= 8))
                .collect(),
        };
        let Some(dims) = dims else {
            return self.konst(et, vals, false);
        };
        let n: usize = dims.iter().product();
        let filled: Vec<i64> = (0..n).map(|i| vals[i % vals.len()]).collect();
        let id = self.konst(et, &filled, dims.is_empty());
        if dims.len() > 1 {
            // Re-declare its shape: konst wrote a vector.
            let flat = format!("shape=\"{n}\"");
            let pos = self.xml.rfind(&flat).unwrap();
            let sh = shape.to_string();
            self.xml
                .replace_range(pos..pos + flat.len(), &format!("shape=\"{sh}\""));
            let dim1 = format!("<dim>{n}</dim></port>");
            let pos = self.xml.rfind(&dim1).unwrap();
            self.xml.replace_range(
                pos..pos + dim1.len(),
                &format!("{}</port>", Self::dims_xml(&sh)),
            );
        }
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
    if let Some(op) = std::env::var_os("IRC_EXTREMES_WHY") {
        if xml.contains(&format!("type=\"{}\"", op.to_string_lossy())) {
            for d in &inf.diags {
                eprintln!("why: {}", d.message.lines().next().unwrap_or(""));
            }
        }
    }
    let mut m = parsed.model.clone();
    irc::passes::infer::apply(&mut m.graph, &facts, &[], true);
    let mut s = String::new();
    let mut sink = irc::xml::BinSink::new(Vec::new());
    let _ = irc::xml::write_to(&m, &mut s, &mut sink);
    let mut m = parsed.model.clone();
    let opts = irc::passes::fold::FoldOptions {
        max_fold_bytes: 1 << 20,
        ..Default::default()
    };
    if let Ok(report) = irc::passes::fold::fold(&mut m, Some(&parsed.source_map), &[], &opts) {
        let internal = irc::passes::infer::INTERNAL_ERROR;
        let bugs: Vec<_> = report
            .skipped
            .iter()
            .filter(|(_, why)| why.starts_with(internal))
            .collect();
        assert!(bugs.is_empty(), "kernel internal errors: {bugs:?}");
        let bad = irc::passes::validate::verify(&m);
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
    for (opset, ops) in irc::ir::opset::OPSETS {
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
    for (&(ty, version), &opset) in &seen {
        if skip.contains(&ty) {
            continue;
        }
        // The op's enum attributes take each of their values in turn (a required one, such as
        // TopK's mode, would otherwise stop every graph at the attribute).
        let enums = irc::ops::enums::attrs_of(ty, version);
        for arity in 1..=5usize {
            // Arities the op's rule refuses outright are not worth the graphs.
            if !takes_inputs(ty, opset, arity) {
                continue;
            }
            for (k, shape) in shapes.iter().enumerate() {
                for (j, vals) in values.iter().enumerate() {
                    for (t, &(data_et, operand_et)) in TYPES.iter().enumerate() {
                        // Attributes and output count rotate with the rest (not a full
                        // product: every pair of them still occurs across ops and arities).
                        let r = j + k + arity + t;
                        let mut a = attrs[r % attrs.len()].clone();
                        for (name, vals) in &enums {
                            write!(a, " {name}=\"{}\"", vals[r % vals.len()]).unwrap();
                        }
                        let nout = if (j + k + t) % 3 == 0 { 3 } else { 1 };
                        // Input 0: the data (a Parameter, or on odd rounds an extreme Const so
                        // the kernels see the values too); the others Consts of one length
                        // (begin, end and stride must agree), scalars on some rounds.
                        let mut net = Net::new();
                        let mut ins = Vec::new();
                        ins.push(match j % 2 {
                            0 => net.param(shape, data_et),
                            _ => net.konst_shaped(data_et, vals, shape),
                        });
                        let len = 1 + (j + arity) % 4;
                        let scalar = len == 1 && (j + k) % 2 == 0;
                        for i in 1..arity {
                            let v: Vec<i64> = (0..len)
                                .map(|t| POOL[(j * 3 + i * 5 + t * 7 + k) % POOL.len()])
                                .collect();
                            let et = match operand_et == "i64" && (i + k) % 3 == 2 {
                                true => "i32",
                                false => operand_et,
                            };
                            ins.push(net.konst(et, &v, scalar));
                        }
                        net.op(ty, opset, &a, &ins, nout);
                        let (xml, bin) = net.finish();
                        runs += 1;
                        match std::panic::catch_unwind(|| pipeline(&xml, bin)) {
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
                                failed.push(format!(
                                    "{ty} arity {arity} shape [{shape}] {data_et}/{operand_et} values {vals:?} outputs {nout}: {msg}"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    let ops = seen.len() - skip.len();
    // IRC_EXTREMES_LIST=1 lists the op versions no graph got through (where coverage is thin);
    // IRC_EXTREMES_WHY=Op prints why inference refused each graph of that op.
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
