//! The review commands: `irc diff` of a fold and `irc stats` on every sample (insta snapshots),
//! every `--format json` form parsed back with serde (the report types refuse unknown fields),
//! the examples of docs/json.md, and output to a closed pipe.

mod common;
use common::*;
use irc::review::diff::DiffReport;
use irc::review::report::{
    CheckReport, ErrorReport, FoldJson, IoReport, NormalFormJson, NormalizeJson,
};
use irc::review::stats::Stats;
use std::path::{Path, PathBuf};

fn samples() -> Vec<PathBuf> {
    let mut v = xml_files(&repo().join("ir-samples/models"));
    v.extend(xml_files(&repo().join("ir-samples/opaque")));
    v
}

fn read(path: &Path) -> irc::xml::Parsed {
    irc::xml::read_file(path).unwrap_or_else(|e| panic!("{}: {e}", rel(path)))
}

/// `irc diff M fold(M)` for every vendored sample model, as text.
#[test]
fn diff_of_fold_snapshots() {
    let dir = tempdir("diff-fold");
    for path in xml_files(&repo().join("ir-samples/models")) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.join(format!("{name}.xml"));
        let (code, _, err) = run(&[
            "fold",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        let (a, b) = (read(&path), read(&out));
        let r = irc::review::diff::diff(&a.model, &b.model);
        assert!(!r.equal, "{name}: fold changed nothing?");
        settings().bind(|| {
            insta::assert_snapshot!(
                format!("diff_fold__{name}"),
                irc::review::diff::render_text(&r)
            );
        });
        // The same through the binary: exit 1, and the JSON is the same report.
        let (code, stdout, _) = run(&[
            "diff",
            path.to_str().unwrap(),
            out.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert_eq!(code, 1, "{name}");
        let parsed: DiffReport = serde_json::from_str(&stdout).expect("diff JSON");
        assert_eq!(parsed, r, "{name}");
        // A model against itself: equal, exit 0.
        let (code, stdout, _) = run(&["diff", path.to_str().unwrap(), path.to_str().unwrap()]);
        assert_eq!((code, stdout.as_str()), (0, "equal\n"), "{name}");
    }
}

/// `irc stats` on every sample, as text; the JSON parses into the same report.
#[test]
fn stats_snapshots() {
    for path in samples() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let p = path.to_str().unwrap();
        let (code, text, err) = run(&["stats", p]);
        assert_eq!(code, 0, "{name}: {err}");
        settings().bind(|| insta::assert_snapshot!(format!("stats__{name}"), text));
        let (code, json, _) = run(&["stats", p, "--format", "json"]);
        assert_eq!(code, 0);
        let s: Stats = serde_json::from_str(&json).expect("stats JSON");
        assert_eq!(irc::review::stats::render_text(&s), text, "{name}");
    }
}

#[test]
fn stats_says_why_dims_stay_dynamic() {
    // The vendored Llama: batch and sequence dims of the logits come from the token inputs.
    let (code, json, err) = run(&[
        "stats",
        "ir-samples/models/llama_fp16.xml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let s: Stats = serde_json::from_str(&json).unwrap();
    let logits = &s.dynamic[0];
    assert_eq!(logits.dynamic.len(), 2, "{logits:?}");
    assert!(logits.dynamic[0]
        .because
        .contains(&"input \"input_ids\" dim 0".to_string()));
    assert!(logits.dynamic[1]
        .because
        .contains(&"input \"input_ids\" dim 1".to_string()));
    // A static shape: nothing dynamic, MACs counted.
    let (_, json, _) = run(&[
        "stats",
        "ir-samples/models/silero_seq.xml",
        "--input",
        "input[4,576]",
        "--format",
        "json",
    ]);
    let s: Stats = serde_json::from_str(&json).unwrap();
    assert!(s.dynamic.iter().all(|o| o.dynamic.is_empty()), "{json}");
    // The opaque sample: its op type taken on trust is listed.
    let (_, json, _) = run(&[
        "stats",
        "ir-samples/opaque/unknown_op_type.xml",
        "--format",
        "json",
    ]);
    let s: Stats = serde_json::from_str(&json).unwrap();
    assert_eq!(s.trusted.get("FooBar (opset1)"), Some(&1), "{json}");
}

#[test]
fn every_json_form_parses() {
    let dir = tempdir("json");
    let m = "ir-samples/models/silero_seq.xml";
    // infer-shapes: inputs and outputs.
    let (code, out, err) = run(&["infer-shapes", m, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let io: IoReport = serde_json::from_str(&out).unwrap();
    assert!(!io.inputs.is_empty() && !io.outputs.is_empty());
    // Intervals and a dynamic dim come through as strings.
    let (_, out, _) = run(&[
        "infer-shapes",
        m,
        "--input",
        "input[1..8,?]",
        "--format",
        "json",
    ]);
    let io: IoReport = serde_json::from_str(&out).unwrap();
    let shape = serde_json::to_string(&io.inputs[0].shape).unwrap();
    assert_eq!(shape, r#"["1..8","?"]"#);
    // --check, agreeing and not.
    let (code, out, _) = run(&["infer-shapes", m, "--check", "--format", "json"]);
    let c: CheckReport = serde_json::from_str(&out).unwrap();
    assert!(c.ok && c.diffs.is_empty() && code == 0);
    let text = std::fs::read_to_string(m).unwrap();
    let bad = dir.join("drift.xml");
    std::fs::write(&bad, text.replacen("<dim>576</dim>", "<dim>575</dim>", 1)).unwrap();
    std::fs::copy("ir-samples/models/silero_seq.bin", dir.join("drift.bin")).unwrap();
    let (code, out, _) = run(&[
        "infer-shapes",
        bad.to_str().unwrap(),
        "--check",
        "--format",
        "json",
    ]);
    let c: CheckReport = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1);
    assert!(!c.ok && !c.diffs.is_empty());
    assert!(c
        .diffs
        .iter()
        .all(|d| d.line.is_some() && d.column.is_some()));
    // fold and normalize.
    let o = dir.join("f.xml");
    let (code, out, err) = run(&["fold", m, "-o", o.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let f: FoldJson = serde_json::from_str(&out).unwrap();
    assert!(f.layers_after <= f.layers_before && f.bin_after > 0);
    assert!(
        !err.contains("irc fold:"),
        "no text summary with --format json: {err}"
    );
    let o2 = dir.join("n.xml");
    let (code, out, _) = run(&[
        "normalize",
        m,
        "-o",
        o2.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let n: NormalizeJson = serde_json::from_str(&out).unwrap();
    assert!(n.layers > 0 && n.bin > 0);
    // Errors: an invalid model (exit 1) and a usage error (exit 2).
    let (code, out, _) = run(&[
        "infer-shapes",
        "ir-samples/errors/duplicate_layer_id.xml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let e: ErrorReport = serde_json::from_str(&out).unwrap();
    assert!(e
        .errors
        .iter()
        .all(|x| x.kind == "graph" && x.line.is_some()));
    let (code, out, _) = run(&[
        "fold",
        m,
        "-o",
        o.to_str().unwrap(),
        "--input",
        "nope[1]",
        "--format",
        "json",
    ]);
    assert_eq!(code, 2);
    let e: ErrorReport = serde_json::from_str(&out).unwrap();
    assert_eq!(e.errors[0].kind, "usage");
    // diff of an unreadable model: trouble, exit 2.
    let (code, out, _) = run(&[
        "diff",
        m,
        "ir-samples/errors/empty_file.xml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 2);
    let _: ErrorReport = serde_json::from_str(&out).unwrap();
}

/// docs/json.md: each ```json block parses as the report its heading names.
#[test]
fn docs_json_examples_parse() {
    let doc = std::fs::read_to_string(repo().join("docs/json.md")).unwrap();
    let mut heading = String::new();
    let mut seen = Vec::new();
    let mut lines = doc.lines();
    while let Some(l) = lines.next() {
        if let Some(h) = l.strip_prefix("## ") {
            heading = h.to_string();
        }
        if l.trim() != "```json" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|x| x.trim() != "```").collect();
        let text = block.join("\n");
        let key = heading.split_whitespace().next().unwrap_or("").to_string();
        let ok = match key.as_str() {
            "infer-shapes" => serde_json::from_str::<IoReport>(&text).is_ok(),
            "--check" => serde_json::from_str::<CheckReport>(&text).is_ok(),
            "fold" => serde_json::from_str::<FoldJson>(&text).is_ok(),
            "edit" => serde_json::from_str::<irc::review::report::EditJson>(&text).is_ok(),
            "extract" => serde_json::from_str::<irc::review::report::ExtractJson>(&text).is_ok(),
            "compress" => {
                serde_json::from_str::<irc::review::report::CompressJson>(&text).is_ok()
                    || serde_json::from_str::<irc::review::report::WeightCompressJson>(&text)
                        .is_ok()
            }
            "normalize" => serde_json::from_str::<NormalizeJson>(&text).is_ok(),
            "diff" => serde_json::from_str::<DiffReport>(&text).is_ok(),
            "stats" => serde_json::from_str::<Stats>(&text).is_ok(),
            "verify" => serde_json::from_str::<irc::runtime::verify::Report>(&text).is_ok(),
            "errors" => serde_json::from_str::<ErrorReport>(&text).is_ok(),
            "normal-form" => serde_json::from_str::<NormalFormJson>(&text).is_ok(),
            "dump" => serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| {
                v["text"].is_string() && v.as_object().is_some_and(|o| o.len() == 1)
            }),
            "several" => serde_json::from_str::<Vec<serde_json::Value>>(&text).is_ok_and(|v| {
                v.iter().all(|r| {
                    r["file"].is_string()
                        && r["exit_code"].is_i64()
                        && r.as_object().is_some_and(|o| o.len() == 3)
                })
            }),
            other => panic!("docs/json.md: no report type for section {other:?}"),
        };
        assert!(
            ok,
            "docs/json.md: the {heading} example does not parse:\n{text}"
        );
        seen.push(key);
    }
    for k in [
        "infer-shapes",
        "--check",
        "fold",
        "edit",
        "extract",
        "compress",
        "normalize",
        "diff",
        "verify",
        "stats",
        "errors",
        "normal-form",
        "dump",
        "several",
    ] {
        assert!(
            seen.iter().any(|s| s == k),
            "docs/json.md has no {k} example"
        );
    }
}

/// Writing to a closed pipe ends quietly with the command's own exit code, never 101.
#[test]
fn closed_pipe_is_not_a_panic() {
    let bin = env!("CARGO_BIN_EXE_irc");
    let dir = tempdir("pipe");
    let text = std::fs::read_to_string(repo().join("ir-samples/models/llama_fp16.xml")).unwrap();
    // Every port's dims gone: hundreds of drift lines on stderr.
    let bad = dir.join("bad.xml");
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("<dim>"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&bad, stripped).unwrap();
    std::fs::copy(
        repo().join("ir-samples/models/llama_fp16.bin"),
        dir.join("bad.bin"),
    )
    .unwrap();
    for (cmd, want) in [
        (
            format!(
                "{bin} infer-shapes {} --check 2>&1 | head -1 >/dev/null",
                bad.display()
            ),
            1,
        ),
        (
            format!("{bin} dump {} | head -1 >/dev/null", bad.display()),
            0,
        ),
        (
            format!("{bin} stats {} | head -1 >/dev/null", bad.display()),
            0,
        ),
    ] {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("{cmd}; exit ${{PIPESTATUS[0]}}"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(want),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
