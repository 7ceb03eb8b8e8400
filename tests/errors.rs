//! Every file in `ir-samples/errors/` must be rejected with a positioned message (snapshotted),
//! and `normalize` must leave no output behind.

mod common;
use common::*;

#[test]
fn error_messages() {
    settings().bind(|| {
        insta::glob!("../ir-samples", "errors/*.xml", |path| {
            // Read through the repo-relative path (tests run from the crate root), so messages
            // that name the .bin are the same on every machine.
            let err = match irc::xml::read_file(std::path::Path::new(&rel(path))) {
                Ok(_) => panic!("{} was accepted but is malformed", rel(path)),
                Err(e) => e,
            };
            let mut err = err;
            err.path = rel(path);
            let text = err.to_string();
            assert!(
                text.contains(&format!("{}:", rel(path))),
                "message does not name the file: {text}"
            );
            insta::assert_snapshot!(text);
        });
    });
}

#[test]
fn cli_leaves_no_output_on_error() {
    let exe = env!("CARGO_BIN_EXE_irc");
    insta::glob!("../ir-samples", "errors/*.xml", |path| {
        let dir = tempdir("err");
        let out = dir.join("out.xml");
        let st = std::process::Command::new(exe)
            .arg("normalize")
            .arg(path)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("run irc");
        assert_eq!(st.status.code(), Some(1), "{}: exit code", rel(path));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(
            left.is_empty(),
            "{}: left files behind: {left:?}",
            rel(path)
        );
    });
}

/// Shape errors point at what they concern: the attribute inside `<data>` (an axis out of
/// range, a value that is not a number), the `<port>` of an input of the wrong type, or the
/// `<layer>` when no single attribute or port is at fault. `infer-shapes` exits 1.
#[test]
fn shape_error_messages() {
    let exe = env!("CARGO_BIN_EXE_irc");
    settings().bind(|| {
        insta::glob!("../ir-samples", "shape-errors/*.xml", |path| {
            let st = std::process::Command::new(exe)
                .current_dir(repo())
                .arg("infer-shapes")
                .arg(rel(path))
                .output()
                .expect("run irc");
            assert_eq!(st.status.code(), Some(1), "{}: exit code", rel(path));
            let text = String::from_utf8_lossy(&st.stderr).to_string();
            assert!(
                text.contains("error[shape]"),
                "{}: no shape error: {text}",
                rel(path)
            );
            insta::assert_snapshot!(text);
        });
    });
}
