//! `fold --relax`: what each kind allows beyond the default (exact, name-keeping) passes, on the
//! two samples OpenVINO's MOC takes further than irc's default (tests/ov/simplify.py compares
//! the counts with MOC's and runs the folds on the CPU).

mod common;

use common::{run, tempdir};
use irc::ir::*;

fn fold(out: &std::path::Path, args: &[&str]) -> (serde_json::Value, Model) {
    let o = out.to_str().expect("utf-8 path");
    let mut a = vec!["fold", "-o", o, "--format", "json", "--quiet"];
    a.extend_from_slice(args);
    let (code, stdout, stderr) = run(&a);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json report");
    let model = irc::xml::read_file(out).expect("read the fold").model;
    (json, model)
}

/// Every tensor name of the graph.
fn names(m: &Model) -> Vec<String> {
    let mut v: Vec<String> = m
        .graph
        .layers()
        .flat_map(|l| l.outputs.iter().flat_map(|p| p.names().to_vec()))
        .collect();
    v.sort();
    v
}

/// The names of what each Result reads, in order.
fn output_names(m: &Model) -> Vec<Vec<String>> {
    let g = &m.graph;
    g.nodes()
        .filter(|&n| g[n].is("Result"))
        .map(|n| {
            let (p, o) = g.input_of(n, 0).expect("Result input");
            g[p].outputs[o].names().to_vec()
        })
        .collect()
}

fn count(m: &Model, ty: &str) -> usize {
    m.graph.layers().filter(|l| l.is(ty)).count()
}

#[test]
fn relax_names_drops_intermediate_names_only() {
    let d = tempdir("relax-names");
    let src = "ir-samples/models/silero_ov16k.xml";
    let (j0, m0) = fold(&d.join("a.xml"), &[src]);
    let (j1, m1) = fold(&d.join("b.xml"), &[src, "--relax", "names"]);
    assert!(j0.get("relaxed").is_none(), "{j0}");
    assert_eq!(j1["relaxed"], serde_json::json!(["names"]));
    assert!(
        j1["layers_after"].as_u64() < j0["layers_after"].as_u64(),
        "{j0} / {j1}"
    );
    assert_eq!(j1["simplified"]["reduce-unsqueeze"], 1);
    // The model's outputs keep their names; what went are names of intermediate tensors.
    assert_eq!(output_names(&m0), output_names(&m1));
    let (n0, n1) = (names(&m0), names(&m1));
    assert!(n1.iter().all(|n| n0.contains(n)), "a name appeared");
    let squeeze = "F2::If_0_then_branch__Inline_0__/decoder/rnn/Squeeze_output_0".to_string();
    let mean = "F0::If_0_then_branch__Inline_0__/ReduceMean_output_0".to_string();
    for n in [&squeeze, &mean] {
        assert!(n0.contains(n), "{n} not in the default fold");
        assert!(!n1.contains(n), "{n} still in the relaxed fold");
    }
}

#[test]
fn relax_rounding_fuses_softmax_and_names_decide_whether_it_may() {
    let d = tempdir("relax-rounding");
    let src = "ir-samples/models/magika.xml";
    let ins = ["--input", "bytes[1,2048]"];
    let (j0, m0) = fold(&d.join("a.xml"), &[&[src][..], &ins].concat());
    assert_eq!(j0["simplified"]["softmax"], 0);
    assert_eq!((count(&m0, "Exp"), count(&m0, "Softmax")), (1, 0));
    // Rounding alone: the Exp's tensor is named, so the fusion would lose it.
    let (j1, m1) = fold(
        &d.join("b.xml"),
        &[&[src][..], &ins, &["--relax", "rounding"]].concat(),
    );
    assert_eq!(j1["relaxed"], serde_json::json!(["rounding"]));
    assert_eq!(j1["simplified"]["softmax"], 0);
    assert_eq!(count(&m1, "Exp"), 1);
    let (j2, m2) = fold(
        &d.join("c.xml"),
        &[&[src][..], &ins, &["--relax", "rounding,names"]].concat(),
    );
    assert_eq!(j2["relaxed"], serde_json::json!(["names", "rounding"]));
    assert_eq!(j2["simplified"]["softmax"], 1);
    assert_eq!((count(&m2, "Exp"), count(&m2, "Softmax")), (0, 1));
    assert_eq!(output_names(&m0), output_names(&m2));
}

#[test]
fn relax_needs_the_passes() {
    let d = tempdir("relax-usage");
    let out = d.join("o.xml");
    let o = out.to_str().expect("utf-8 path");
    let src = "ir-samples/models/silero_seq.xml";
    let (code, _, err) = run(&["fold", src, "-o", o, "--no-simplify", "--relax", "names"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--no-simplify"), "{err}");
    assert!(!out.exists());
    let (code, _, err) = run(&["fold", src, "-o", o, "--relax", "everything"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("names") && err.contains("rounding"), "{err}");
}
