//! Commands over several files (pre-commit passes every changed file in one call): one report
//! per file and the worst exit code; `normalize --check`.

mod common;
use std::path::Path;
use std::process::Command;

fn irc(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(args)
        .output()
        .expect("run irc");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A normalized copy of a sample, and a copy of it whose recorded output dims were changed (in
/// a directory removed when the first value goes).
fn setup(tag: &str) -> (common::TempDir, String, String, String) {
    let d = common::tempdir(tag);
    let sample = common::repo().join("ir-samples/models/silero_seq.xml");
    let good = d.join("good.xml");
    let (rc, _, err) = irc(&[
        "normalize",
        sample.to_str().unwrap(),
        "-o",
        good.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    let text = std::fs::read_to_string(&good).unwrap();
    // The first recorded output <dim> of the last layer with outputs.
    let out = text.rfind("<output>").unwrap();
    let at = out + text[out..].find("<dim>").unwrap();
    let end = at + text[at..].find("</dim>").unwrap();
    let drifted = format!("{}<dim>12345{}", &text[..at], &text[end..]);
    let bad = d.join("bad.xml");
    std::fs::write(&bad, drifted).unwrap();
    std::fs::copy(d.join("good.bin"), d.join("bad.bin")).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let dir = s(&d);
    (d, s(&good), s(&bad), dir)
}

#[test]
fn check_several_files_reports_each_and_exits_with_the_worst() {
    let (_dir, good, bad, dir) = setup("several-check");
    let (rc, _, err) = irc(&["infer-shapes", "--check", &good]);
    assert_eq!(rc, 0, "{err}");
    let (rc, _, err) = irc(&["infer-shapes", "--check", &good, &bad]);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("good.xml: recorded shapes and types agree"),
        "{err}"
    );
    assert!(err.contains("12345"), "the drift is shown: {err}");
    let (rc, out, _) = irc(&["infer-shapes", "--check", "--format", "json", &good, &bad]);
    assert_eq!(rc, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0]["file"], good.as_str());
    assert_eq!(a[0]["exit_code"], 0);
    assert_eq!(a[0]["report"]["ok"], true);
    assert_eq!(a[1]["exit_code"], 1);
    assert_eq!(a[1]["report"]["ok"], false);
    // A file that cannot be read is an error report in its slot; the others still run.
    let missing = format!("{dir}/missing.xml");
    let (rc, out, _) = irc(&["stats", "--format", "json", &good, &missing]);
    assert_eq!(rc, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v[0]["report"]["layers"].is_number(), "{out}");
    assert!(v[1]["report"]["errors"][0]["message"].is_string(), "{out}");
    // -o takes one model.
    let (rc, _, err) = irc(&["infer-shapes", &good, &bad, "-o", &format!("{dir}/o.xml")]);
    assert_eq!(rc, 2);
    assert!(err.contains("takes one input model (got 2)"), "{err}");
}

#[test]
fn dump_several_files_heads_each() {
    let (_dir, good, bad, _) = setup("several-dump");
    let (rc, both, _) = irc(&["dump", &good, &bad]);
    assert_eq!(rc, 0);
    let (_, one, _) = irc(&["dump", &good]);
    assert!(
        both.starts_with(&format!("==> {good} <==\n{one}")),
        "{both}"
    );
    assert!(both.contains(&format!("==> {bad} <==\n")));
}

#[test]
fn normalize_check_tells_normal_form() {
    let (_dir, good, bad, _) = setup("several-normal");
    let (rc, _, err) = irc(&["normalize", "--check", &good]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(err, "");
    // The converter's own file is not in irc's normal form; the message says where it differs.
    let sample = common::repo().join("ir-samples/models/silero_seq.xml");
    let (rc, _, err) = irc(&["normalize", "--check", &good, sample.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert!(
        err.contains(
            "silero_seq.xml: not in normal form: `irc normalize` would change its .xml (from line "
        ),
        "{err}"
    );
    // The drifted copy differs only in a dim: normalize keeps recorded dims, so it is normal.
    let (rc, out, _) = irc(&["normalize", "--check", "--format", "json", &bad]);
    assert_eq!(rc, 0, "{out}");
    // A changed weight byte makes the .bin not normal.
    let bin = bad.replace(".xml", ".bin");
    let mut b = std::fs::read(&bin).unwrap();
    let last = b.len() - 1;
    b[last] ^= 1;
    b.push(0);
    std::fs::write(&bin, b).unwrap();
    let (rc, out, _) = irc(&["normalize", "--check", "--format", "json", &bad]);
    assert_eq!(rc, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["xml_normal"], true);
    assert_eq!(v["bin_normal"], false);
    // Nothing was written beside the inputs.
    let dir = Path::new(&good).parent().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["bad.bin", "bad.xml", "good.bin", "good.xml"]);
}

#[test]
fn skip_non_ir_leaves_other_xml_alone() {
    let (_dir, good, bad, dir) = setup("several-skip");
    let pom = format!("{dir}/pom.xml");
    std::fs::write(
        &pom,
        "<?xml version=\"1.0\"?>\n<!-- a build file -->\n<project/>\n",
    )
    .unwrap();
    let (rc, _, err) = irc(&["infer-shapes", "--check", &pom, &good]);
    assert_eq!(
        rc, 1,
        "without the flag another XML file is an error: {err}"
    );
    let (rc, _, err) = irc(&["infer-shapes", "--check", "--skip-non-ir", &pom, &good]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        err.contains("pom.xml: skipped: not OpenVINO IR (no <net> root)"),
        "{err}"
    );
    let (rc, _, _) = irc(&["infer-shapes", "--check", "--skip-non-ir", &pom, &bad]);
    assert_eq!(rc, 1, "the IR among them is still checked");
    let (rc, _, err) = irc(&["normalize", "--check", "--skip-non-ir", &pom, &good]);
    assert_eq!(rc, 0, "{err}");
}
