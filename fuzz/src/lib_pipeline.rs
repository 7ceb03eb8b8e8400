// Included by both drivers: run the whole pipeline on one (xml, bin) pair.
use irc::ir::Weights;
use std::sync::Arc;

/// read → infer → fold → write, all in memory. Errors are fine; panics are bugs. Returns
/// whether the reader accepted the input.
pub fn pipeline(xml: &[u8], bin: Option<&[u8]>) -> bool {
    let Ok(text) = std::str::from_utf8(xml) else { return false };
    let weights = bin.map(|b| Arc::new(Weights::from_bytes(b.to_vec())));
    let one = irc::xml::read_str(Arc::from(text), "fuzz.xml", weights.clone(), "fuzz.bin");
    // The fast lexer reads what quick-xml reads, or leaves the file to it: same model, same
    // messages.
    let quick = irc::xml::read::read_str_lexer(
        Arc::from(text),
        "fuzz.xml",
        weights.clone(),
        "fuzz.bin",
        usize::MAX,
        irc::xml::read::Lexer::Quick,
    );
    match (&one, &quick) {
        (Ok(a), Ok(b)) => assert_eq!(
            irc::review::dump::dump(&a.model),
            irc::review::dump::dump(&b.model),
            "the fast lexer's read differs from quick-xml's"
        ),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "fast lexer errors differ"),
        _ => panic!("fast lexer and quick-xml disagree: {} / {}", one.is_ok(), quick.is_ok()),
    }
    // On a quarter of the inputs (threads cost): the two-thread read (used for files >= 4 MB)
    // must agree with the one-thread read, and the two-thread writer with the one-thread one.
    let differential = xml.len().is_multiple_of(4);
    if differential {
        let two =
            irc::xml::read::read_str_with(Arc::from(text), "fuzz.xml", weights, "fuzz.bin", 0);
        match (&one, &two) {
            (Ok(a), Ok(b)) => assert_eq!(
                irc::review::dump::dump(&a.model),
                irc::review::dump::dump(&b.model),
                "two-thread read differs"
            ),
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "two-thread read errors differ")
            }
            _ => panic!("one- and two-thread reads disagree: {} / {}", one.is_ok(), two.is_ok()),
        }
    }
    let Ok(parsed) = one else {
        return false;
    };
    // What the reader accepts is sound ...
    let bad = irc::passes::validate::verify(&parsed.model);
    assert!(bad.is_empty(), "the reader accepted an unsound model: {bad:?}");
    // Inference on its own (what infer-shapes does) ...
    {
        let mut inf = irc::passes::infer::Infer::new(&parsed.model, Some(&parsed.source_map), &[]);
        let facts = inf.run();
        let mut m = parsed.model.clone();
        irc::passes::infer::apply(&mut m.graph, &facts, &[], true);
        let mut drift = Vec::new();
        irc::passes::infer::drift(&parsed.model.graph, &facts, Some(&parsed.source_map), &mut drift);
        write(&m, differential);
        // ... its dims as expressions (what every report shows), on the inferred shapes and on
        // the file's own (dump reads those) ...
        for g in [&m.graph, &parsed.model.graph] {
            let sym = irc::passes::symbolic::Symbolic::of(g, m.weights.as_deref(), &[]);
            for n in g.nodes() {
                for (o, p) in g[n].outputs.iter().enumerate() {
                    let _ = sym.symbolic(n, o, &p.shape);
                }
            }
        }
        let _ = irc::review::dump::dump(&parsed.model);
        // ... drawing it (what render does; both collapse modes) ...
        for collapse in [irc::review::render::Collapse::Auto, irc::review::render::Collapse::None] {
            let opts = irc::review::render::Options { collapse, around: None, inputs: Vec::new() };
            if let Ok(p) = irc::review::render::render(&m, &opts) {
                assert!(p.svg.starts_with("<svg ") && p.svg.ends_with("</svg>\n"));
                let _ = p.html();
            }
        }
    }
    // ... and folding, then writing.
    let mut m = parsed.model.clone();
    let opts = irc::passes::fold::FoldOptions {
        max_fold_bytes: 1 << 20,
        ..Default::default()
    };
    if let Ok(report) = irc::passes::fold::fold(&mut m, Some(&parsed.source_map), &[], &opts) {
        // A kernel failing where its rules said it could not is a bug, even though the
        // layer is then simply left unfolded.
        let internal = irc::passes::infer::INTERNAL_ERROR;
        let bugs: Vec<_> = report.skipped.iter().filter(|(_, why)| why.starts_with(internal)).collect();
        assert!(bugs.is_empty(), "kernel internal errors: {bugs:?}");
        // ... and so is what folding makes of it.
        let bad = irc::passes::validate::verify(&m);
        assert!(bad.is_empty(), "fold produced an unsound model: {bad:?}");
        write(&m, differential);
        let _ = irc::review::dump::dump(&m);
        // ... and the picture of what the fold changed (what diff --render does).
        let (_, marks) = irc::review::diff::diff_marked(&parsed.model, &m);
        let opts = irc::review::render::Options::default();
        if let Ok(p) = irc::review::render::render_diff(&parsed.model, &m, &marks, &opts) {
            let _ = p.html();
        }
    }
    true
}


fn write(m: &irc::ir::Model, differential: bool) {
    let mut xml = String::new();
    let mut sink = irc::xml::BinSink::new(Vec::new());
    let r = irc::xml::write_to(m, &mut xml, &mut sink);
    if !differential {
        return;
    }
    // The two-thread writer (graphs >= 20,000 layers) must write the same, forced here.
    let mut xml2: Vec<u8> = Vec::new();
    let mut sink2 = irc::xml::BinSink::new(Vec::new());
    let r2 = irc::xml::write::write_stream_with(m, &mut xml2, &mut sink2, (1, 3));
    assert_eq!(r.is_ok(), r2.is_ok(), "two-thread writer result differs");
    if r.is_ok() {
        assert!(xml.as_bytes() == &xml2[..], "two-thread writer XML differs");
        assert!(sink.finish().ok() == sink2.finish().ok(), "two-thread writer .bin differs");
    }
}
