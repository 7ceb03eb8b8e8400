//! The early whole-.bin copy (`BinCopy`: `fold` uses it for weights >= 4 MiB, `infer-shapes`
//! always; `IRC_BIN_COPY_MIN` forces either way here) gives the same model as the compact
//! writer, and leaves nothing behind when the run fails.

mod common;

use irc::ir::{ConstData, Model};
use std::path::{Path, PathBuf};
use std::process::Command;

fn irc(env_min: Option<&str>, args: &[&str]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_irc"));
    c.args(args);
    match env_min {
        Some(v) => c.env("IRC_BIN_COPY_MIN", v),
        None => c.env_remove("IRC_BIN_COPY_MIN"),
    };
    c.output().expect("run irc")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("irc-bincopy-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every Const's element type, shape and bytes, in layer order.
fn consts(xml: &Path) -> Vec<(String, String, String, Vec<u8>)> {
    let p = irc::xml::read_file(xml).unwrap_or_else(|e| panic!("{}: {e}", xml.display()));
    let m: &Model = &p.model;
    let g = &m.graph;
    g.ordered()
        .unwrap()
        .into_iter()
        .filter_map(|n| {
            let l = &g[n];
            let k = l.konst.as_ref()?;
            Some((
                l.name.clone(),
                l.attr("element_type").unwrap_or("").to_string(),
                l.attr("shape").unwrap_or("").to_string(),
                m.const_bytes(k).unwrap().to_vec(),
            ))
        })
        .collect()
}

#[test]
fn whole_copy_gives_the_same_constants() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("ir-samples/models/silero_seq.xml");
    let src_bin_len = std::fs::metadata(src.with_extension("bin")).unwrap().len();
    let dir = scratch("same");
    for cmd in [
        vec!["fold", "--input", "input[4,576]"],
        vec!["infer-shapes", "--input", "input[4,576]"],
    ] {
        let compact = dir.join(format!("{}-compact.xml", cmd[0]));
        let copied = dir.join(format!("{}-copied.xml", cmd[0]));
        for (out, min) in [
            (&compact, Some("18446744073709551615")),
            (&copied, Some("0")),
        ] {
            let mut args = vec![cmd[0], src.to_str().unwrap(), "-o", out.to_str().unwrap()];
            args.extend(&cmd[1..]);
            let o = irc(min, &args);
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        assert_eq!(consts(&compact), consts(&copied), "{}", cmd[0]);
        // The copied .bin starts with the whole input .bin.
        let bin = std::fs::read(copied.with_extension("bin")).unwrap();
        let input = std::fs::read(src.with_extension("bin")).unwrap();
        assert!(bin.len() as u64 >= src_bin_len);
        assert_eq!(&bin[..input.len()], &input[..], "{}", cmd[0]);
        // Constants that stayed reference the input bytes in place: no Const reads past the
        // copy unless irc made it.
        let p = irc::xml::read_file(&copied).unwrap();
        for l in p.model.graph.layers() {
            if let Some(ConstData::Bin { offset, size }) = &l.konst {
                assert!(offset + size <= bin.len() as u64);
            }
        }
    }
    // infer-shapes changes no constant: by default its .bin is the input's, byte for byte.
    let shapes = dir.join("shapes-default.xml");
    let o = irc(
        None,
        &[
            "infer-shapes",
            src.to_str().unwrap(),
            "-o",
            shapes.to_str().unwrap(),
        ],
    );
    assert!(o.status.success());
    assert_eq!(
        std::fs::read(shapes.with_extension("bin")).unwrap(),
        std::fs::read(src.with_extension("bin")).unwrap()
    );
    // Deterministic: the same run twice gives the same bytes.
    let again = dir.join("again.xml");
    let o = irc(
        Some("0"),
        &[
            "fold",
            src.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
            "--input",
            "input[4,576]",
        ],
    );
    assert!(o.status.success());
    assert_eq!(
        std::fs::read(dir.join("fold-copied.bin")).unwrap(),
        std::fs::read(again.with_extension("bin")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failed_runs_leave_no_copy_behind() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("ir-samples/models/silero_seq.xml");
    let dir = scratch("fail");
    let out = dir.join("out.xml");
    // Fails after the copy started: an --input that names no input, and a broken XML.
    let broken = dir.join("broken.xml");
    std::fs::write(&broken, "<net name=\"x\" version=\"11\"><layers>").unwrap();
    std::fs::copy(src.with_extension("bin"), broken.with_extension("bin")).unwrap();
    let runs: [Vec<&str>; 3] = [
        vec![
            "fold",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--input",
            "nope[1]",
        ],
        vec![
            "fold",
            broken.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        vec![
            "infer-shapes",
            broken.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    ];
    for args in runs {
        let o = irc(Some("0"), &args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["broken.bin", "broken.xml"], "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An XML of 4 MiB or more is read before the copy starts (`fold` defers it while both cores
/// read): the files are those of a copy started at once, and a run that fails while the copy
/// waits leaves nothing behind.
#[test]
fn deferred_copy_gives_the_same_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("ir-samples/models/silero_seq.xml");
    let dir = scratch("deferred");
    // The same model, padded with whitespace to past the two-thread read's 4 MiB.
    let text = std::fs::read_to_string(&src).unwrap();
    let at = text.find("<layers>").unwrap() + "<layers>".len();
    let pad = format!("{}\n", " ".repeat(99)).repeat((4 << 20) / 100 + 1);
    let big = dir.join("big.xml");
    std::fs::write(&big, format!("{}{pad}{}", &text[..at], &text[at..])).unwrap();
    std::fs::copy(src.with_extension("bin"), big.with_extension("bin")).unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() >= 4 << 20);
    let fold = |input: &Path, out: &Path, shape: &str| {
        irc(
            Some("0"),
            &[
                "fold",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--input",
                shape,
            ],
        )
    };
    let (at_once, deferred) = (dir.join("at_once.xml"), dir.join("deferred.xml"));
    for (input, out) in [(&src, &at_once), (&big, &deferred)] {
        let o = fold(input, out, "input[4,576]");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for ext in ["xml", "bin"] {
        assert!(
            std::fs::read(at_once.with_extension(ext)).unwrap()
                == std::fs::read(deferred.with_extension(ext)).unwrap(),
            "the .{ext} files differ"
        );
    }
    // Failing after the read (an --input naming no input), and in the read itself, while the
    // copy still waits (the padded XML cut short: never begun).
    let cut = dir.join("cut.xml");
    let padded = std::fs::read(&big).unwrap();
    std::fs::write(&cut, &padded[..padded.len() - 200]).unwrap();
    std::fs::copy(src.with_extension("bin"), cut.with_extension("bin")).unwrap();
    let failed = dir.join("failed.xml");
    for (input, shape) in [(&big, "nope[1]"), (&cut, "input[4,576]")] {
        let o = fold(input, &failed, shape);
        assert!(!o.status.success(), "{}", input.display());
        assert!(!failed.exists() && !failed.with_extension("bin").exists());
    }
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("failed"))
        .collect();
    left.sort();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The two-thread XML formatting (graphs of >= 20,000 layers) writes exactly what one thread
/// writes: forced here on small models with tiny chunks, as read and as folded.
#[test]
fn two_thread_writer_equals_one_thread() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The vendored samples always; the shared models too when they are beside the repository.
    let mut files = common::xml_files(&root.join("ir-samples/models"));
    if let Some(dir) = common::shared_models("two_thread_writer_equals_one_thread") {
        files.extend(common::xml_files(&dir));
    }
    let write = |m: &Model, parallel: (usize, usize)| {
        let mut xml: Vec<u8> = Vec::new();
        let mut sink = irc::xml::BinSink::new(Vec::new());
        irc::xml::write::write_stream_with(m, &mut xml, &mut sink, parallel).unwrap();
        (xml, sink.finish().unwrap())
    };
    let mut compared = 0;
    for xml in files {
        let mut p = irc::xml::read_file(&xml).unwrap();
        for pass in 0..2 {
            if pass == 1 {
                let opts = irc::passes::fold::FoldOptions::default();
                if irc::passes::fold::fold(&mut p.model, None, &[], &opts).is_err() {
                    continue;
                }
            }
            let one = write(&p.model, (usize::MAX, 2048));
            for chunk in [1, 7, 64] {
                let two = write(&p.model, (1, chunk));
                assert!(one == two, "{} (pass {pass}, chunk {chunk})", xml.display());
                compared += 1;
            }
        }
    }
    assert!(compared >= 24, "compared {compared}");
}
