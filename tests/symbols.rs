//! Symbolic dims in the reports (`symbolic`, `symbols`), on the vendored samples: a stateful
//! Llama (token dims, KV cache, the past length), and user-named dims. tests/ov/symbols.py holds
//! every expression of the shared and zoo models to OpenVINO, reshaped.

mod common;

use common::run;
use serde_json::Value;

fn infer(args: &[&str]) -> Value {
    let mut a = vec!["infer-shapes", "--format", "json", "--ports"];
    a.extend_from_slice(args);
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

/// The `symbolic` of the port of the layer named `layer` (output `o`).
fn port<'v>(r: &'v Value, layer: &str, o: usize) -> &'v Vec<Value> {
    let lp = r["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|lp| lp["layer"] == layer)
        .unwrap_or_else(|| panic!("no layer {layer}"));
    lp["outputs"][o]["symbolic"].as_array().expect("symbolic")
}

#[test]
fn llama_logits_and_kv_cache_relate_to_the_tokens() {
    let r = infer(&[
        "ir-samples/models/llama_fp16.xml",
        "--input",
        "input_ids[batch,seq]",
    ]);
    let outs = r["outputs"].as_array().unwrap();
    let logits = outs
        .iter()
        .find(|o| o["names"].as_array().unwrap().iter().any(|n| n == "logits"))
        .unwrap();
    assert_eq!(
        logits["symbolic"],
        serde_json::json!(["batch", "seq", null])
    );
    // Every KV cache written back (Assign) is [batch, heads, seq+past, head_dim]: one past length
    // for all layers (the attention mask ties them).
    let assigns: Vec<&Value> = r["ports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|lp| lp["type"] == "Assign")
        .collect();
    assert!(!assigns.is_empty());
    let mut pasts = std::collections::BTreeSet::new();
    for a in &assigns {
        let s = a["outputs"][0]["symbolic"].as_array().unwrap();
        assert_eq!(s[0], "batch", "{a}");
        let len = s[2].as_str().unwrap();
        let past = len.strip_prefix("seq+").unwrap_or_else(|| panic!("{len}"));
        pasts.insert(past.to_string());
    }
    assert_eq!(pasts.len(), 1, "{pasts:?}");
    // The symbols: the two named dims from input_ids, the past length from a ReadValue's port.
    let syms = r["symbols"].as_array().unwrap();
    let by = |n: &str| syms.iter().find(|s| s["name"] == n).cloned();
    assert_eq!(
        by("batch"),
        Some(serde_json::json!({"name": "batch", "input": "input_ids", "axis": 0}))
    );
    let past = by(pasts.iter().next().unwrap()).expect("the past length is a symbol");
    assert!(past["layer"].is_string() && past["port"] == 0, "{past}");
    // The attention mask is not tied to the tokens: its dims are its own.
    let mask = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "attention_mask")
        .unwrap();
    assert_eq!(
        mask["symbolic"],
        serde_json::json!(["attention_mask_0", "attention_mask_1"])
    );
}

#[test]
fn static_dims_are_null_and_names_join_inputs() {
    // Static dims: `null` beside every static dim (the ports of a fully static fold too).
    let r = infer(&[
        "ir-samples/models/silero_seq.xml",
        "--input",
        "input[4,576]",
    ]);
    for lp in r["ports"].as_array().unwrap() {
        for p in lp["outputs"].as_array().unwrap() {
            if let (Some(shape), Some(sym)) = (p["shape"].as_array(), p["symbolic"].as_array()) {
                assert_eq!(shape.len(), sym.len(), "{lp}");
                for (d, e) in shape.iter().zip(sym) {
                    assert_eq!(d.is_u64(), e.is_null(), "{lp}");
                }
            }
        }
    }
    // One name on two inputs' dims is one symbol, on the user's word.
    let r = infer(&[
        "ir-samples/models/llama_fp16.xml",
        "--input",
        "input_ids[b,s]",
        "--input",
        "attention_mask[b,m]",
    ]);
    let mask = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "attention_mask")
        .unwrap();
    assert_eq!(mask["symbolic"], serde_json::json!(["b", "m"]));
    assert_eq!(*port(&r, "position_ids", 0), vec!["b", "s"]);
}

#[test]
fn text_reports_show_expressions() {
    let (code, out, err) = run(&[
        "infer-shapes",
        "ir-samples/models/llama_fp16.xml",
        "--input",
        "input_ids[batch,seq]",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("output logits: f32[batch,seq,512]"), "{out}");
    assert!(out.contains("  seq: input input_ids, axis 1"), "{out}");
    let (code, out, _) = run(&["dump", "ir-samples/models/llama_fp16.xml"]);
    assert_eq!(code, 0);
    assert!(out.contains("-> f32[input_ids_0,input_ids_1,512]"), "{out}");
    let (code, out, _) = run(&["stats", "ir-samples/models/llama_fp16.xml"]);
    assert_eq!(code, 0);
    assert!(out.contains("dim 1 = input_ids_1:"), "{out}");
    // A name where a dim goes that is not an identifier is still a dim (and its error says so).
    let (code, _, err) = run(&[
        "infer-shapes",
        "ir-samples/models/llama_fp16.xml",
        "--input",
        "input_ids[b-1,seq]",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("input_ids[b-1,seq]"), "{err}");
}

#[test]
fn auto_names_never_join_a_user_name() {
    // A user's name that is also another input's auto name (`attention_mask_1`) stays the
    // user's symbol; the input it would have named gets a name of its own.
    let r = infer(&[
        "ir-samples/models/llama_fp16.xml",
        "--input",
        "input_ids[batch,attention_mask_1]",
    ]);
    let input = |name: &str| {
        r["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .unwrap()["symbolic"]
            .clone()
    };
    assert_eq!(
        input("input_ids"),
        serde_json::json!(["batch", "attention_mask_1"])
    );
    assert_eq!(
        input("attention_mask"),
        serde_json::json!(["attention_mask_0", "attention_mask_1_2"])
    );
    let names: Vec<&str> = r["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
}
