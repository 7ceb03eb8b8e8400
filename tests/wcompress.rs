//! `irc compress --weight-format` without NNCF at hand (tests/ov/wcompress.py compares with
//! NNCF 3.4.0 itself): the report parses back and adds up, the same input gives the same bytes,
//! refused configurations are usage errors that name the layers and write nothing (messages
//! snapshotted), and IRs NNCF or optimum already compressed are left as they are.

mod common;
use common::*;
use irc::review::report::WeightCompressJson;

const LLAMA: &str = "ir-samples/models/llama_fp16.xml";

fn compress(src: &str, out: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["compress", src, "-o", out.to_str().unwrap(), "--quiet"];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn report_parses_back_and_adds_up() {
    let dir = tempdir("wc-report");
    let out = dir.join("m.xml");
    let (code, stdout, err) = compress(
        LLAMA,
        &out,
        &[
            "--weight-format",
            "int4",
            "--group-size",
            "32",
            "--ratio",
            "0.8",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r: WeightCompressJson = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r.mode, "int4_asym");
    assert_eq!(r.compressed + r.kept, r.weights.len());
    assert_eq!(
        r.kept,
        r.weights.iter().filter(|w| w.kept.is_some()).count()
    );
    let before: u64 = r.weights.iter().map(|w| w.bytes_before).sum();
    let after: u64 = r.weights.iter().map(|w| w.bytes_after).sum();
    assert_eq!((before, after), (r.bytes_before, r.bytes_after));
    // every f16 weight is 2 bytes an element; an int4 one half a byte plus its scales/zero points
    for w in &r.weights {
        let n: u64 = w.shape.iter().map(|&d| d as u64).product();
        assert_eq!(w.bytes_before, 2 * n, "{}", w.name);
        if w.mode == "int4_asym" {
            let groups = n / 32;
            assert_eq!(w.bytes_after, n / 2 + groups / 2 + 2 * groups, "{}", w.name);
        }
    }
    // ratio 0.8: some MatMuls in int4, some in the int8 backup; embeddings and lm_head int8
    let modes: Vec<&str> = r.weights.iter().map(|w| w.mode.as_str()).collect();
    assert!(modes.contains(&"int4_asym") && modes.contains(&"int8_asym"));
    assert_eq!(
        r.bin_after,
        std::fs::metadata(dir.join("m.bin")).unwrap().len()
    );
}

#[test]
fn same_input_same_bytes() {
    let dir = tempdir("wc-det");
    let mut outs = Vec::new();
    for k in 0..2 {
        let out = dir.join(format!("m{k}.xml"));
        let (code, _, err) = compress(
            LLAMA,
            &out,
            &["--weight-format", "nf4", "--group-size", "16"],
        );
        assert_eq!(code, 0, "{err}");
        outs.push((
            std::fs::read(&out).unwrap(),
            std::fs::read(out.with_extension("bin")).unwrap(),
        ));
    }
    assert!(outs[0] == outs[1]);
}

/// The `O_DIRECT` writer (used from 1 GiB of output; here forced for every size) writes the
/// same bytes as the buffered one.
#[test]
fn direct_output_same_bytes() {
    let dir = tempdir("wc-direct");
    let exe = env!("CARGO_BIN_EXE_irc");
    let mut outs = Vec::new();
    for (k, from) in ["0", "999999999999"].iter().enumerate() {
        let out = dir.join(format!("m{k}.xml"));
        let st = std::process::Command::new(exe)
            .args(["compress", LLAMA, "-o"])
            .arg(&out)
            .args(["--weight-format", "int4", "--group-size", "32", "-q"])
            .env("IRC_COMPRESS_DIRECT_FROM", from)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        outs.push((
            std::fs::read(&out).unwrap(),
            std::fs::read(out.with_extension("bin")).unwrap(),
        ));
    }
    assert!(outs[0] == outs[1]);
}

/// Refusals: exit 2, the message names what to pass instead, nothing written.
#[test]
fn refusals_name_the_layer_and_write_nothing() {
    let cases: &[(&str, &[&str])] = &[
        (
            "group_48",
            &["--weight-format", "int4", "--group-size", "48"],
        ),
        (
            "int8_group",
            &["--weight-format", "int8", "--group-size", "64"],
        ),
        ("int8_ratio", &["--weight-format", "int8", "--ratio", "0.5"]),
        ("bad_ratio", &["--weight-format", "int4", "--ratio", "1.5"]),
        (
            "ignore_nothing",
            &[
                "--weight-format",
                "int4",
                "--group-size",
                "32",
                "--ignore-layer",
                "no_such_layer",
            ],
        ),
        ("fp8", &["--weight-format", "fp8"]),
        (
            "mxfp4_group",
            &["--weight-format", "mxfp4", "--group-size", "64"],
        ),
        (
            "fp8_backup_group",
            &[
                "--weight-format",
                "fp4",
                "--group-size",
                "128",
                "--backup-precision",
                "fp8_e4m3",
                "--ratio",
                "0.05",
            ],
        ),
    ];
    let dir = tempdir("wc-err");
    let out = dir.join("m.xml");
    let mut text = String::new();
    for (name, args) in cases {
        let (code, _, err) = compress(LLAMA, &out, args);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            !out.exists() && !dir.join("m.bin").exists(),
            "{name} wrote a file"
        );
        text += &format!("== {name}: {}\n{}\n", args.join(" "), err.trim_end());
    }
    settings().bind(|| insta::assert_snapshot!(text));
}

/// The samples optimum-cli wrote with NNCF (int8, int4 sym): every weight is already compressed,
/// so the model comes out with the same constants.
#[test]
fn already_compressed_irs_stay_as_they_are() {
    let dir = tempdir("wc-nncf");
    for (name, format) in [("qwen2_int8", "int8"), ("gemma_int4_sym", "int4")] {
        let src = format!("ir-samples/models/{name}.xml");
        let out = dir.join(format!("{name}.xml"));
        let (code, stdout, err) =
            compress(&src, &out, &["--weight-format", format, "--format", "json"]);
        assert_eq!(code, 0, "{name}: {err}");
        let r: WeightCompressJson = serde_json::from_str(&stdout).unwrap();
        assert_eq!(r.bytes_before, r.bytes_after, "{name}");
        let a = irc::xml::read_file(std::path::Path::new(&src)).unwrap();
        let b = irc::xml::read_file(&out).unwrap();
        let consts = |p: &irc::xml::Parsed| {
            let m = &p.model;
            let mut v: Vec<(String, Vec<u8>)> = m
                .graph
                .nodes()
                .filter_map(|n| {
                    let l = &m.graph[n];
                    let data = l.konst.as_ref()?;
                    Some((l.name.clone(), m.const_bytes(data)?.to_vec()))
                })
                .collect();
            v.sort();
            v
        };
        assert!(consts(&a) == consts(&b), "{name}: constants changed");
    }
}
