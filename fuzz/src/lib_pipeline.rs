// Included by both drivers: run the whole pipeline on one (xml, bin) pair.
use irc::ir::Weights;
use std::sync::Arc;

/// read → infer → fold → write, all in memory. Errors are fine; panics are bugs. Returns
/// whether the reader accepted the input.
pub fn pipeline(xml: &[u8], bin: Option<&[u8]>) -> bool {
    let Ok(text) = std::str::from_utf8(xml) else { return false };
    let weights = bin.map(|b| Arc::new(Weights::from_bytes(b.to_vec())));
    let Ok(parsed) = irc::xml::read_str(Arc::from(text), "fuzz.xml", weights, "fuzz.bin") else {
        return false;
    };
    // Inference on its own (what infer-shapes does) ...
    {
        let mut inf = irc::passes::infer::Infer::new(&parsed.model, Some(&parsed.source_map), &[]);
        let facts = inf.run();
        let mut m = parsed.model.clone();
        irc::passes::infer::apply(&mut m.graph, &facts, &[], true);
        let mut drift = Vec::new();
        irc::passes::infer::drift(&parsed.model.graph, &facts, Some(&parsed.source_map), &mut drift);
        write(&m);
    }
    // ... and folding, then writing.
    let mut m = parsed.model.clone();
    let opts = irc::passes::fold::FoldOptions {
        max_fold_bytes: 1 << 20,
    };
    if irc::passes::fold::fold(&mut m, Some(&parsed.source_map), &[], &opts).is_ok() {
        write(&m);
        let _ = irc::dump::dump(&m);
    }
    true
}


fn write(m: &irc::ir::Model) {
    let mut xml = String::new();
    let mut sink = irc::xml::BinSink::new(Vec::new());
    let _ = irc::xml::write_to(m, &mut xml, &mut sink);
}
