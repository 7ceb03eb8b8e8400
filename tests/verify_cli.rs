//! `irc verify` without an OpenVINO runtime to load: exit 2 and one message saying how to get
//! it; the other commands never need it (every other test runs without it). The comparisons
//! themselves need OpenVINO and live in tests/ov/verify.py.

mod common;
use std::process::Command;

fn verify(env: &[(&str, &str)], extra: &[&str]) -> (i32, String, String) {
    let sample = common::repo().join("ir-samples/models/silero_seq.xml");
    let s = sample.to_str().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_irc"));
    c.args(["verify", s, s]).args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("run irc");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn no_runtime_is_exit_2_with_how_to_get_it() {
    let dir = common::tempdir("verify-none");
    let lib = dir.join("libopenvino_c.so");
    let lib = lib.to_str().unwrap();
    let (rc, out, err) = verify(&[("IRC_OPENVINO_LIB", lib)], &[]);
    assert_eq!(rc, 2, "stdout: {out}\nstderr: {err}");
    assert!(err.contains("pip install openvino"), "{err}");
    assert!(
        err.contains(lib),
        "the message names where it looked: {err}"
    );
    // The same as a JSON error report.
    let (rc, out, _) = verify(&[("IRC_OPENVINO_LIB", lib)], &["--format", "json"]);
    assert_eq!(rc, 2);
    let v: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    let msg = v["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("pip install openvino"), "{v}");
    // --openvino-lib wins over the environment, and a file that is not a library is named.
    let (rc, _, err) = verify(
        &[("IRC_OPENVINO_LIB", lib)],
        &[
            "--openvino-lib",
            common::repo().join("README.md").to_str().unwrap(),
        ],
    );
    assert_eq!(rc, 2);
    assert!(err.contains("README.md"), "{err}");
}

#[test]
fn bad_options_are_usage_errors() {
    let (rc, _, err) = verify(&[], &["--runs", "0"]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--runs"), "{err}");
    let (rc, _, err) = verify(&[], &["--input", "nosuch[1,2"]);
    assert_eq!(rc, 2, "{err}");
}
