//! Snapshot and round-trip tests over every sample in `ir-samples/` (errors and shape-errors excluded) and every
//! model in `../shared/models` (skipped, with a notice, when that is not beside the repository).

mod common;
use common::*;
use std::path::Path;

fn read(path: &Path) -> irc::xml::Parsed {
    irc::xml::read_file(path).unwrap_or_else(|e| panic!("{}: {e}", rel(path)))
}

/// `irc normalize` twice: the second output must equal the first byte for byte, and the dump
/// of the written model must equal the dump of the original.
fn check_roundtrip(path: &Path) {
    let dir = tempdir("rt");
    let p = read(path);
    let a = dir.join("a.xml");
    let b = dir.join("b.xml");
    irc::xml::write_files(&p.model, &a).expect("write a");
    let pa = read(&a);
    irc::xml::write_files(&pa.model, &b).expect("write b");
    let (xa, xb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(xa == xb, "{}: normalize is not idempotent (xml)", rel(path));
    let (ba, bb) = (
        std::fs::read(a.with_extension("bin")).unwrap(),
        std::fs::read(b.with_extension("bin")).unwrap(),
    );
    assert!(ba == bb, "{}: normalize is not idempotent (bin)", rel(path));
    assert_eq!(
        irc::review::dump::dump(&p.model),
        irc::review::dump::dump(&pa.model),
        "{}: writing changed the graph",
        rel(path)
    );
}

/// The graph as read, after `infer-shapes` (ports recomputed), and after `fold`: one snapshot
/// per sample, so a change in inference or folding shows up as a reviewable diff.
#[test]
fn sample_dumps() {
    settings().bind(|| {
        insta::glob!("../ir-samples", "**/*.xml", |path| {
            if path
                .components()
                .any(|c| c.as_os_str() == "errors" || c.as_os_str() == "shape-errors")
            {
                return;
            }
            let p = read(path);
            let mut text = format!("== read\n{}", irc::review::dump::dump(&p.model));

            let bad = irc::passes::validate::verify(&p.model);
            assert!(bad.is_empty(), "{}: read model: {bad:?}", rel(path));
            let mut inferred = p.model.clone();
            let mut inf = irc::passes::infer::Infer::new(&p.model, Some(&p.source_map), &[]);
            let facts = inf.run();
            assert!(inf.diags.is_empty(), "{}: inference failed", rel(path));
            irc::passes::infer::apply(&mut inferred.graph, &facts, &[], true);
            text.push_str(&format!(
                "== infer-shapes\n{}",
                irc::review::dump::dump(&inferred)
            ));

            let mut folded = p.model.clone();
            let report = irc::passes::fold::fold(
                &mut folded,
                Some(&p.source_map),
                &[],
                &irc::passes::fold::FoldOptions::default(),
            )
            .unwrap_or_else(|_| panic!("{}: fold failed", rel(path)));
            // The folded model is sound, and its recorded ports are what inference gives.
            let bad = irc::passes::infer::verify_types(&folded);
            assert!(bad.is_empty(), "{}: folded model: {bad:?}", rel(path));
            text.push_str(&format!(
                "== fold: {} -> {} layers, {} folded\n{}",
                report.layers_before,
                report.layers_after,
                report.folded_count,
                irc::review::dump::dump(&folded)
            ));
            insta::assert_snapshot!(text);
        });
    });
}

#[test]
fn sample_roundtrips() {
    insta::glob!("../ir-samples", "**/*.xml", |path| {
        if path
            .components()
            .any(|c| c.as_os_str() == "errors" || c.as_os_str() == "shape-errors")
        {
            return;
        }
        check_roundtrip(path);
    });
}

#[test]
fn shared_model_dumps_and_roundtrips() {
    let Some(dir) = shared_models("shared_model_dumps_and_roundtrips") else {
        return;
    };
    let mut n = 0;
    for path in xml_files(&dir) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let p = read(&path);
        settings().bind(|| {
            insta::assert_snapshot!(format!("shared__{name}"), irc::review::dump::dump(&p.model));
        });
        check_roundtrip(&path);
        n += 1;
    }
    assert_eq!(n, 8, "expected the eight shared models");
}
