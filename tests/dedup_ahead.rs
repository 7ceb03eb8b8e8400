//! `fold`'s constant sharing gives the same model whether the read constants were compared
//! ahead, on a second thread during inference (`passes::dedup::ahead`, which `fold` does for
//! models of 20,000 layers or more), or in the pass itself: every sample, every shared, zoo and next
//! model (skipped with a notice without `../shared`), folded both ways and written.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn folded(path: &Path, ahead_min_layers: usize) -> (String, Vec<u8>, usize) {
    let parsed = irc::xml::read_file(path).unwrap_or_else(|e| panic!("{}: {e}", rel(path)));
    let mut m = parsed.model;
    let opts = irc::passes::fold::FoldOptions {
        ahead_min_layers,
        ..Default::default()
    };
    let report = irc::passes::fold::fold(&mut m, Some(&parsed.source_map), &[], &opts)
        .unwrap_or_else(|e| panic!("{}: fold: {e:?}", rel(path)));
    let (mut xml, mut bin) = (String::new(), Vec::new());
    let mut sink = irc::xml::BinSink::new(&mut bin);
    irc::xml::write_to(&m, &mut xml, &mut sink).expect("write");
    drop(sink);
    (xml, bin, report.deduplicated)
}

#[test]
fn constants_compared_ahead_share_the_same() {
    let mut paths: Vec<PathBuf> = ["ir-samples/models", "ir-samples/fold"]
        .iter()
        .flat_map(|d| xml_files(&repo().join(d)))
        .collect();
    if let Some(shared) = shared_models("constants_compared_ahead_share_the_same") {
        paths.extend(xml_files(&shared));
        paths.extend(xml_files(&shared.join("zoo")));
        paths.extend(xml_files(&shared.join("next")));
    }
    let mut shared_any = 0;
    for p in &paths {
        let (xa, ba, da) = folded(p, 0);
        let (xb, bb, db) = folded(p, usize::MAX);
        assert_eq!(da, db, "{}: constants shared", rel(p));
        assert!(xa == xb, "{}: the XML differs", rel(p));
        assert!(ba == bb, "{}: the weights differ", rel(p));
        shared_any += (da > 0) as usize;
    }
    // The comparison means something: most models share some constants.
    assert!(
        shared_any * 2 > paths.len(),
        "{shared_any} of {}",
        paths.len()
    );
}
