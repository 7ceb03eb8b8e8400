//! `infer-shapes -o` of a big graph: inference and the writer at once, on two threads.
//!
//! Both go through the layers in [`Graph::ordered`] order, and a layer's ports need only its
//! own facts and its producers' (inferred before it). So inference hands each run of
//! [`infer::DONE_RUN`] layers' port facts to a writer thread, which formats them while the
//! next run is inferred, instead of the writer starting after all of inference and `apply`.
//! The files are put in place only when inference found no error (an error leaves nothing, as
//! before). On a 100k-layer decoder the writer's 40 ms moved off the inferring thread.

use super::model::Held;
use super::output::Fail;
use crate::ir::{Dim, ElementType, Graph, NodeId, PartialShape, PortFacts};
use crate::passes::infer::{self, InputOverride};
use crate::passes::record;
use crate::xml::write::{self, BinCopy, PortFeed};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};

/// What inference sends the writer.
enum Fed {
    /// The port facts of a run of layers, in order, as [`encode`] writes them.
    Run(Vec<NodeId>, Vec<u64>),
    /// Inference is over: whether it found no error.
    End(bool),
}

/// Runs waiting for the writer at most (each ~512 layers' ports: a few hundred kB).
const RUNS_AHEAD: usize = 2;

/// Whether `infer-shapes -o` of this graph infers and writes at once: big graphs without
/// bodies (bodies are written from their own facts), as the writer's two-thread formatting.
pub(super) fn applies(g: &Graph) -> bool {
    g.len() >= write::PARALLEL_LAYERS && g.layers().all(|l| l.bodies.is_empty())
}

/// Infer `parsed` and write it to `out` (with `copy` of the .bin when started), the writer on
/// a second thread; as `infer-shapes -o` does with `apply` then `write_files_with`.
pub(super) fn infer_and_write(
    parsed: &mut Held,
    overrides: &[InputOverride],
    out: &Path,
    copy: Option<BinCopy>,
) -> Result<(), Fail> {
    // The Parameters' new `shape` first (`apply` writes it after inference; inference reads
    // the override, not the attribute; a wrong override is an error below, nothing written).
    let g = &mut parsed.model.graph;
    let params: Vec<NodeId> = g.nodes().filter(|&n| g[n].is("Parameter")).collect();
    for n in params {
        if let Some(shape) = record::parameter_shape(&g[n], overrides) {
            g[n].set_data_attr("shape", shape);
        }
    }
    let parsed = &*parsed;
    let model = &parsed.model;
    let mut inf = infer::Infer::new(model, Some(&parsed.source_map), overrides);
    inf.check_overrides().map_err(Fail::Usage)?;
    let (tx, rx) = sync_channel::<Fed>(RUNS_AHEAD);
    std::thread::scope(|s| {
        let writer = s.spawn(move || {
            let mut feed = Feed {
                rx,
                run: (Vec::new().into_iter(), Vec::new(), 0),
            };
            write::write_files_fed(model, out, copy, &mut feed)
        });
        let to_writer = tx.clone();
        inf.on_done = Some(Box::new(move |g, facts, nodes| {
            let mut words = Vec::with_capacity(nodes.len() * 8);
            for &n in nodes {
                encode(g, facts, n, &mut words);
            }
            // A writer that stopped has its error; it is reported once joined.
            let _ = to_writer.send(Fed::Run(nodes.to_vec(), words));
        }));
        let facts = inf.run();
        inf.on_done = None;
        let ok = inf.diags.is_empty();
        let _ = tx.send(Fed::End(ok));
        drop(tx);
        crate::trace("infer");
        drop(facts);
        let written = writer.join();
        if !ok {
            return Err(Fail::Model(parsed.into_error(inf.diags)));
        }
        if let Some(n) = infer::trusted_notice(&inf.trusted) {
            super::output::errln(&n);
        }
        match written {
            Ok(r) => r.map(drop).map_err(Fail::Model),
            Err(_) => Err(Fail::Usage(
                "internal error: the writer thread stopped".into(),
            )),
        }
    })
}

/// Marks a port [`encode`] leaves as it is.
const KEEP: u64 = 0;
/// A dim that is not static (`-1` in the file).
const DYNAMIC: u64 = u64::MAX;
/// The next word is a static dim (one of these two values).
const ESCAPE: u64 = u64::MAX - 1;

/// Append what [`record::apply`] writes into the ports of layer `n` (an input port gets its
/// producer's output, an output port its own), in words: the number of ports, then per port
/// [`KEEP`], or `1 | type << 1 | dims << 8` and the dims (what the writer writes of a shape:
/// static or not). Built on the inferring thread, so cheaper than the shapes themselves: a
/// word a dim, nothing allocated per port.
fn encode(g: &Graph, facts: &infer::Facts, n: NodeId, out: &mut Vec<u64>) {
    let l = &g[n];
    out.push((l.inputs.len() + l.outputs.len()) as u64);
    let mut port = |t: Option<(ElementType, Option<&[Dim]>)>| {
        let Some((et, dims)) = t else {
            return out.push(KEEP);
        };
        let dims = dims.unwrap_or(&[]);
        out.push(1 | (et as u64) << 1 | (dims.len() as u64) << 8);
        for d in dims {
            match d.get() {
                None => out.push(DYNAMIC),
                Some(v) if v >= ESCAPE => out.extend([ESCAPE, v]),
                Some(v) => out.push(v),
            }
        }
    };
    let prods = g.inputs_of(n);
    for i in 0..l.inputs.len() {
        port(
            prods
                .get(i)
                .copied()
                .flatten()
                .and_then(|(s, o)| facts.typed_dims(s, o)),
        );
    }
    for o in 0..l.outputs.len() {
        port(facts.typed_dims(n, o));
    }
}

/// The ports of the next layer in `words` (see [`encode`]), from `at` on.
fn decode(words: &[u64], at: &mut usize) -> Option<PortFacts> {
    let mut next = || {
        *at += 1;
        words.get(*at - 1).copied()
    };
    let ports = next()?;
    let mut out = PortFacts::new();
    for _ in 0..ports {
        let h = next()?;
        if h == KEEP {
            out.push(None);
            continue;
        }
        let et = *ElementType::ALL.get((h >> 1 & 0x7F) as usize)?;
        let dims = (0..h >> 8)
            .map(|_| match next()? {
                DYNAMIC => Some(Dim::any()),
                ESCAPE => next().map(Dim::known),
                v => Some(Dim::known(v)),
            })
            .collect::<Option<_>>()?;
        out.push(Some((et, PartialShape::Ranked(dims))));
    }
    Some(out)
}

/// The writer's end: runs of port facts as inference sends them.
struct Feed {
    rx: Receiver<Fed>,
    run: (std::vec::IntoIter<NodeId>, Vec<u64>, usize),
}

const STEP: &str = "internal error: inference and the writer out of step";
const ENDED: &str = "internal error: inference stopped before the writer had every layer";

impl PortFeed for Feed {
    fn next(&mut self, n: NodeId) -> Result<PortFacts, String> {
        loop {
            let (nodes, words, at) = &mut self.run;
            if let Some(m) = nodes.next() {
                return match m == n {
                    true => decode(words, at).ok_or_else(|| STEP.into()),
                    false => Err(STEP.into()),
                };
            }
            match self.rx.recv() {
                Ok(Fed::Run(nodes, words)) => self.run = (nodes.into_iter(), words, 0),
                Ok(Fed::End(_)) | Err(_) => return Err(ENDED.into()),
            }
        }
    }

    fn finish(&mut self) -> Result<(), String> {
        match self.rx.recv() {
            Ok(Fed::End(true)) => Ok(()),
            // Inference found errors: they are reported, and nothing is written.
            Ok(Fed::End(false)) => Err("inference found errors".into()),
            Ok(Fed::Run(..)) | Err(_) => Err(ENDED.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::model::read;

    fn dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("irc-iw-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn bytes(p: &Path) -> Vec<u8> {
        std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// The files written while inferring are the bytes `apply` then the writer make, for
    /// models with and without `--input` overrides (runs of 7 layers in tests).
    #[test]
    fn writes_what_apply_then_write_writes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ir-samples/models");
        let cases: [(&str, &[&str]); 5] = [
            ("qwen2_int8", &["input_ids[1,16]", "attention_mask[1,?]"]),
            ("gemma_int4_sym", &[]),
            ("llama_fp16", &["input_ids[2,8]"]),
            ("magika", &[]),
            ("silero_seq", &[]),
        ];
        let d = dir("same");
        for (name, inputs) in cases {
            let input = root.join(format!("{name}.xml"));
            let overrides: Vec<InputOverride> = inputs
                .iter()
                .map(|s| infer::parse_input_spec(s).unwrap())
                .collect();
            let mut parsed = read(&input).unwrap();
            assert!(parsed.model.graph.layers().all(|l| l.bodies.is_empty()));
            let facts = infer::Infer::new(&parsed.model, None, &overrides).run();
            record::apply(&mut parsed.model.graph, &facts, &overrides, true);
            let (a, b) = (
                d.join(format!("{name}_a.xml")),
                d.join(format!("{name}_b.xml")),
            );
            write::write_files(&parsed.model, &a).unwrap();
            let mut parsed = read(&input).unwrap();
            assert!(infer_and_write(&mut parsed, &overrides, &b, None).is_ok());
            for ext in ["xml", "bin"] {
                let (x, y) = (a.with_extension(ext), b.with_extension(ext));
                assert!(bytes(&x) == bytes(&y), "{name}.{ext} differs");
            }
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A model inference rejects: the error is the one `infer-shapes` reports, and no file is
    /// left in the output's folder.
    #[test]
    fn an_inference_error_writes_nothing() {
        let input = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("ir-samples/shape-errors/matmul_inner_dims_differ.xml");
        let d = dir("err");
        let mut parsed = read(&input).unwrap();
        let r = infer_and_write(&mut parsed, &[], &d.join("out.xml"), None);
        match r {
            Err(Fail::Model(e)) => assert!(e.to_string().contains("MatMul"), "{e}"),
            Err(Fail::Usage(m)) => panic!("usage error: {m}"),
            Ok(()) => panic!("no error"),
        }
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[cfg(test)]
mod words {
    use super::*;

    /// A static dim of either escaped value comes back as that value, not as dynamic.
    #[test]
    fn escaped_dims_decode_as_static() {
        let h = 1 | (ElementType::I64 as u64) << 1 | 4 << 8;
        let words = [2, KEEP, h, ESCAPE, DYNAMIC, ESCAPE, ESCAPE, DYNAMIC, 7];
        let mut at = 0;
        let ports = decode(&words, &mut at).unwrap();
        assert_eq!(at, words.len());
        let dims = [
            Dim::known(DYNAMIC),
            Dim::known(ESCAPE),
            Dim::any(),
            Dim::known(7),
        ];
        let want = PortFacts::from_iter([
            None,
            Some((
                ElementType::I64,
                PartialShape::Ranked(dims.into_iter().collect()),
            )),
        ]);
        assert_eq!(ports, want);
        assert_eq!(decode(&words[..5], &mut 0), None, "cut short");
    }
}
