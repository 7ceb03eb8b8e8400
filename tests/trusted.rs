//! What the CLI says about what it could not do: ops without a shape rule pass through with
//! their declared ports, and `infer-shapes` / `fold` say once, on stderr, which op types they
//! took on trust; `fold --verbose` says why a kernel declined a layer whose inputs were known.

mod common;
use common::run;

#[test]
fn infer_shapes_names_the_op_types_taken_on_trust() {
    let (code, stdout, stderr) = run(&["infer-shapes", "ir-samples/opaque/unknown_op_type.xml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("output out: f32[1,3]"), "{stdout}");
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("no shape rule"))
        .collect();
    assert_eq!(notes.len(), 1, "one notice line: {stderr}");
    assert!(notes[0].contains("FooBar (opset1) x1"), "{stderr}");
    // An op that exists, but not in the opset the file names, is opaque too.
    let (code, _, stderr) = run(&[
        "infer-shapes",
        "ir-samples/opaque/op_not_in_opset.xml",
        "--check",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Gelu (opset1) x1"), "{stderr}");
}

#[test]
fn fully_known_models_print_no_notice() {
    let (code, _, stderr) = run(&["infer-shapes", "ir-samples/models/silero_seq.xml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("no shape rule"), "{stderr}");
}

#[test]
fn fold_names_the_op_types_taken_on_trust() {
    let dir = std::env::temp_dir().join(format!("irc-trusted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.xml");
    let (code, _, stderr) = run(&[
        "fold",
        "ir-samples/opaque/unknown_op_type.xml",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("FooBar (opset1) x1"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fold_verbose_says_why_a_kernel_declined() {
    let dir = std::env::temp_dir().join(format!("irc-declined-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.xml");
    let (code, _, stderr) = run(&[
        "fold",
        "ir-samples/fold/kernel_declines.xml",
        "-o",
        out.to_str().unwrap(),
        "--verbose",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Divide 'div' (id 5, opset1): the kernel declined: division by zero"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the kernel declined: OpenVINO has no SquaredDifference kernel for i32"),
        "{stderr}"
    );
    assert!(stderr.contains("2 skipped"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
