//! Reading big files with two threads: where to split `<layers>`, the second thread's
//! batches, and joining them (tested equal to the one-thread read).

use super::*;

/// What the second reader thread hands back: its layers with their positions and source map.
/// A batch of its layers (with positions), their source-map entries, and whether it is the
/// last one; `Err` when its part must be read again by one thread.
pub(super) type SecondHalf = Result<(Vec<SecondLayer>, SourceMap, bool), ()>;
/// A layer the second thread read, with its position and [`PortSpan`] (found there, where the
/// layer is in the cache: found by the first thread, it was a third of adding the layers).
pub(super) type SecondLayer = (Layer, usize, PortSpan);
/// What the second reader thread hands back after its layers: the top-level edges, where their
/// `<edges>` tag starts and where the element ends; `None` when the first thread reads them.
pub(super) type SecondEdges = Option<(Vec<RawEdge>, usize, usize)>;
/// Layers per batch sent by the second reader thread (tiny in unit tests, so the small
/// models there go through many batches).
pub(super) const SECOND_BATCH: usize = if cfg!(test) { 7 } else { 4096 };
/// Marks a parallel read that must be redone on one thread (never shown to users).
pub(super) const PARALLEL_FALLBACK: &str = "(internal) parallel read fallback";
/// Files at least this big are read with two threads.
pub const PARALLEL_MIN: usize = 4 << 20;
/// Add `by` to the source-map indices of a layer and of its bodies' layers.
pub(super) fn shift_origins(layer: &mut Layer, by: u32) {
    if let Some(o) = &mut layer.origin {
        *o += by;
    }
    for b in &mut layer.bodies {
        for n in b.graph.nodes().collect::<Vec<_>>() {
            shift_origins(&mut b.graph[n], by);
        }
    }
}
/// Where to split the top-level `<layers>` for a parallel read: a top-level `<layer` (two tabs of
/// indentation, as OpenVINO and irc write it) near the middle, and the end of `<layers>`.
pub(super) fn split_plan(text: &[u8]) -> Option<(usize, usize)> {
    use memchr::memmem;
    let start = memmem::find(text, b"<layers>")?;
    if memmem::find(text, b"<layer ")? < start {
        return None;
    }
    let end = last_of(text, b"</layers>")?;
    // Half each: the first thread also reads the edges, but since they take the shortcut
    // (`fast_edge`) that is a few milliseconds of a 100k-layer read; with 40% it waited for
    // the second thread a third of its time.
    let mid = start + (end.checked_sub(start)?) / 2;
    let at = mid + memmem::find(text.get(mid..end)?, b"\n\t\t<layer ")? + 3;
    (at < end).then_some((at, end))
}

/// The last `needle` in `text` (as `memmem::rfind`, whose backward search has no SIMD: it was
/// 1% of a 100k-layer fold, before the read threads start): forward searches of windows
/// from the end, each overlapping the next by the needle's length. (For a needle that cannot
/// overlap itself, as `</layers>`: the forward search finds every occurrence.)
fn last_of(text: &[u8], needle: &[u8]) -> Option<usize> {
    const WINDOW: usize = 1 << 20;
    let mut end = text.len();
    while end >= needle.len() {
        let start = end.saturating_sub(WINDOW);
        if let Some(i) = memchr::memmem::find_iter(&text[start..end], needle).last() {
            return Some(start + i);
        }
        if start == 0 {
            return None;
        }
        end = start + needle.len() - 1;
    }
    None
}

/// The two-thread read: `first` (a parser of the whole text) reads up to `split` and after
/// `end` while a second thread reads the layers in between and the edges. `deferred`: each
/// thread checks its part for UTF-8 and NUL bytes as it reads ([`Check`]). The document and
/// its source map when both read without a problem; `None` otherwise (the caller reads again
/// on one thread, for the exact diagnostics). And whether the parts were checked and good
/// (then the whole file is: the parts split at a `<`), `false` when not `deferred`.
pub(super) fn read_two<'a>(
    mut first: Parser<'a>,
    source: Source<'a>,
    (split, end): (usize, usize),
    weights: Option<Arc<Weights>>,
    bin_label: &'a str,
    deferred: Option<&'a MappedSource>,
    lexer: Lexer,
) -> (Option<(Document, SourceMap)>, bool) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (edges_tx, edges_rx) = std::sync::mpsc::channel();
    let mapped = first.mapped;
    std::thread::scope(|s| {
        let second = s.spawn(move || {
            let check = deferred.is_some();
            let part = (split, end);
            second_thread(
                source, part, weights, bin_label, mapped, lexer, &tx, &edges_tx, check,
            )
        });
        let p = &mut first;
        p.split = Some((split, end));
        p.second = Some(rx);
        p.second_edges = Some(edges_rx);
        p.check = deferred.map(|_| Check::new(0, split));
        let result = p.document();
        crate::trace("read: document");
        let checked = match (deferred, p.check.as_mut()) {
            (Some(m), Some(c)) => {
                let mine = c.finish(&m.map);
                // A panic of the second thread is passed on, as the scope passes it on.
                let theirs = second
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                mine && theirs
            }
            _ => false,
        };
        let doc = match result {
            Ok(doc)
                if p.diags.is_empty() && p.split.is_none() && (checked || deferred.is_none()) =>
            {
                Some((doc, std::mem::take(&mut p.map)))
            }
            _ => None,
        };
        (doc, checked)
    })
}

/// The second reader thread: the top-level layers in `[split, end)`, sent in batches, then the
/// `<edges>` after `</layers>` ([`Parser::edges_run`]), read while the first thread adds the
/// layers. `check`: the file from `split` to its end is checked for UTF-8 and NUL bytes as it
/// is read (the rest after the edges at the end, see [`Check`]); whether it was good.
#[allow(clippy::too_many_arguments)]
pub(super) fn second_thread(
    source: Source<'_>,
    (split, end): (usize, usize),
    weights: Option<Arc<Weights>>,
    bin_label: &str,
    mapped: Option<&MappedSource>,
    lexer: Lexer,
    tx: &std::sync::mpsc::Sender<SecondHalf>,
    edges_tx: &std::sync::mpsc::Sender<SecondEdges>,
    check: bool,
) -> bool {
    let text = source.bytes;
    let mut b = new_parser(source, split, end, weights, bin_label, mapped, lexer);
    b.check = check.then(|| Check::new(split, text.len()));
    let read = b.layer_run(tx);
    crate::trace("read: second thread done");
    let after = end + "</layers>".len();
    let mut check = b.check.take();
    let edges = read.then(|| {
        let mut e = new_parser(source, after, text.len(), None, bin_label, mapped, lexer);
        e.check = check.take();
        let edges = e.edges_run(capacity_hint(text).1);
        check = e.check.take();
        edges
    });
    let _ = edges_tx.send(edges.flatten());
    match (mapped, check) {
        (Some(m), Some(mut c)) => c.finish(&m.map),
        _ => true,
    }
}

impl<'a> Parser<'a> {
    /// Skip the rest of the top-level `<layers>` (the second thread reads it; its layers are
    /// added by `join_second_half` once the rest of the graph is read). Any problem there makes
    /// the whole read fall back to one thread.
    pub(super) fn skip_second_half(&mut self, end: usize) -> Result<(), Fatal> {
        let fallback = || Diag::new(Kind::Xml, PARALLEL_FALLBACK);
        // Continue after `</layers>` with a fresh reader instead of scanning the second half
        // again. Its end tags of elements opened before (`</net>`) are unmatched for it: allowed
        // until `</net>` (see `document`); those of elements it opens are checked as usual.
        let rest = end + "</layers>".len();
        if self.src.get(end..rest) != Some(&b"</layers>"[..]) {
            return Err(fallback());
        }
        if let Some(f) = &mut self.fast {
            f.jump_past_layers(self.src, rest)?;
            crate::trace("read: first half");
            return Ok(());
        }
        self.r = Reader::from_reader(&self.src[rest..]);
        self.r.config_mut().trim_text(true);
        self.r.config_mut().allow_unmatched_ends = true;
        self.base = rest;
        crate::trace("read: first half");
        Ok(())
    }
    /// Add the layers the second thread read (after the rest of the top-level graph was read).
    pub(super) fn join_second_half(
        &mut self,
        graph: &mut Graph,
        ids: &mut IdMap,
    ) -> Result<(), Fatal> {
        let fallback = || Diag::new(Kind::Xml, PARALLEL_FALLBACK);
        let rx = self.second.take().ok_or_else(fallback)?;
        // The second thread's source-map entries follow this thread's, in order.
        let shift = self.map.len() as u32;
        loop {
            let (layers, srcs, last) = rx.recv().ok().and_then(|m| m.ok()).ok_or_else(fallback)?;
            self.map.append(srcs);
            for (mut layer, pos, span) in layers {
                shift_origins(&mut layer, shift);
                let id = layer.id;
                let n = ids.add_with(graph, layer, span);
                if ids.get(id).is_some() {
                    return Err(fallback()); // duplicate ids: let the one-thread read report them
                }
                ids.insert(id, (n, pos));
            }
            if last {
                break;
            }
        }
        crate::trace("read: joined");
        Ok(())
    }
    /// The second thread's job: the `<layer>` elements of its slice, in order.
    /// Sent in batches, so the first thread can add them while this one reads on. Whether the
    /// layers were read.
    pub(super) fn layer_run(&mut self, tx: &std::sync::mpsc::Sender<SecondHalf>) -> bool {
        let r = self.layer_run_inner(tx);
        let read = r.is_ok();
        tx.send(r).is_ok() && read
    }

    /// The second thread's other job: the `<edges>` element its parser starts at (after
    /// whitespace), when it is there and reads without a problem (else the first thread
    /// reads it, with its messages).
    pub(super) fn edges_run(&mut self, capacity: usize) -> SecondEdges {
        self.fast.as_ref()?;
        let t = loop {
            match self.next().ok()? {
                Ev::Text(_) => {}
                Ev::Open(t) if t.name == "edges" && !t.empty => break t,
                _ => return None,
            }
        };
        let mut raw = Vec::with_capacity(capacity);
        self.edges(&t, &mut raw).ok()?;
        let after = self.fast.as_ref()?.pos();
        self.diags.is_empty().then_some((raw, t.pos, after))
    }

    /// At the top-level `<edges>` of a parallel read (`t`): the second thread's layers are
    /// added (while it reads the edges), then its edges taken when it read this element; the
    /// lexer goes on after it. `false`: this thread reads the edges.
    pub(super) fn edges_from_second(
        &mut self,
        t: &Tag,
        graph: &mut Graph,
        ids: &mut IdMap,
        raw: &mut Vec<RawEdge>,
    ) -> Result<bool, Fatal> {
        if self.depth != 0 || self.split.is_some() || t.empty {
            return Ok(false);
        }
        let Some(rx) = self.second_edges.take() else {
            return Ok(false);
        };
        if self.second.is_some() {
            self.join_second_half(graph, ids)?;
        }
        let Ok(Some((mut edges, at, after))) = rx.recv() else {
            return Ok(false);
        };
        let Some(f) = &mut self.fast else {
            return Ok(false);
        };
        if at != t.pos {
            return Ok(false);
        }
        f.jump_past(self.src, b"edges", after)?;
        // After any edges of an `<edges>` before `<layers>`, as a one-thread read has them.
        match raw.is_empty() {
            true => *raw = edges,
            false => raw.append(&mut edges),
        }
        Ok(true)
    }
    pub(super) fn layer_run_inner(
        &mut self,
        tx: &std::sync::mpsc::Sender<SecondHalf>,
    ) -> SecondHalf {
        let mut out = Vec::with_capacity(SECOND_BATCH);
        loop {
            match self.next().map_err(|_| ())? {
                Ev::Open(l) if l.name == "layer" => {
                    let pos = l.pos;
                    match self.layer(l) {
                        Ok(Some(layer)) => {
                            let span = PortSpan::of(&layer);
                            out.push((layer, pos, span))
                        }
                        _ => return Err(()),
                    }
                    if out.len() == SECOND_BATCH && self.diags.is_empty() {
                        let batch = std::mem::replace(&mut out, Vec::with_capacity(SECOND_BATCH));
                        let srcs = std::mem::take(&mut self.map);
                        self.map_base += srcs.len();
                        if tx.send(Ok((batch, srcs, false))).is_err() {
                            return Err(());
                        }
                    }
                }
                Ev::Text(_) => {}
                Ev::Eof => break,
                _ => return Err(()),
            }
        }
        if !self.diags.is_empty() {
            return Err(());
        }
        Ok((out, std::mem::take(&mut self.map), true))
    }
}

#[cfg(test)]
mod parallel_tests {
    use super::*;
    use std::path::PathBuf;

    /// The windowed search finds what `rfind` finds: needles at the ends, across the windows'
    /// seams, none at all.
    #[test]
    fn last_of_is_rfind() {
        let n = b"</layers>";
        let size = 3 * (1 << 20) + 100;
        let mut places = vec![0, 5, size - n.len(), (1 << 20) - 4, (2 << 20) - 1, 2 << 20];
        places.extend((1..40).map(|i| i * 77_777 % (size - n.len())));
        for p in [None].into_iter().chain(places.into_iter().map(Some)) {
            let mut t = vec![b'x'; size];
            t[size / 3..size / 3 + 7].copy_from_slice(b"</layer");
            if let Some(p) = p {
                t[p..p + n.len()].copy_from_slice(n);
                // An earlier one too: the last is found.
                if p / 2 + n.len() <= p {
                    t[p / 2..p / 2 + n.len()].copy_from_slice(n);
                }
            }
            assert_eq!(last_of(&t, n), memchr::memmem::rfind(&t, n), "{p:?}");
            assert_eq!(
                last_of(&t[..p.unwrap_or(3)], n),
                memchr::memmem::rfind(&t[..p.unwrap_or(3)], n)
            );
        }
    }

    /// Read `text` on one thread (`parallel_min` usize::MAX) or on two (0).
    fn read(text: &str, w: Option<Arc<Weights>>, parallel_min: usize) -> Result<Parsed, Error> {
        parse_with(
            Source::bytes(text.as_bytes()),
            None,
            "m.xml",
            w,
            "m.bin",
            parallel_min,
            None,
            Lexer::Fast,
        )
    }

    /// The two-thread read must give exactly what the one-thread read gives.
    #[test]
    fn parallel_read_equals_sequential_read() {
        // The vendored samples, and the shared models when they are beside the repository
        // (nothing else: a test reads only the repository and ../shared).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let models = |d: &str| -> Vec<PathBuf> {
            std::fs::read_dir(root.join(d))
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "xml"))
                .collect()
        };
        let mut files = models("ir-samples/models");
        files.extend(models("../shared/models"));
        // Every model is big enough for a two-thread read: each one must be compared.
        let expected = files.len();
        assert!(expected >= 7, "found {expected} models");
        let mut compared = 0;
        for xml in files {
            let Ok(text) = std::fs::read_to_string(&xml) else {
                continue;
            };
            if split_plan(text.as_bytes()).is_none() {
                continue;
            }
            let w = Weights::open(&bin_path_for(&xml)).ok().map(Arc::new);
            let one = read(&text, w.clone(), usize::MAX).unwrap();
            let two = read(&text, w, 0).unwrap();
            assert_eq!(
                crate::review::dump::dump(&one.model),
                crate::review::dump::dump(&two.model),
                "{}",
                xml.display()
            );
            let write = |m: &Model| {
                let mut s = String::new();
                let mut sink = crate::xml::BinSink::new(Vec::new());
                crate::xml::write_to(m, &mut s, &mut sink).unwrap();
                (s, sink.finish().unwrap())
            };
            assert!(write(&one.model) == write(&two.model), "{}", xml.display());
            assert_eq!(one.source_map, two.source_map);
            compared += 1;
        }
        assert_eq!(compared, expected, "models compared");
    }

    #[test]
    fn parallel_read_reports_errors_like_sequential() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("ir-samples/models/silero_seq.xml"),
        )
        .unwrap();
        // Break a layer in the second half: the diagnostics must match the one-thread read.
        let (split, _) = split_plan(text.as_bytes()).unwrap();
        let at = split + text[split..].find("type=\"").unwrap();
        let bad = format!(
            "{}type=\"{}",
            &text[..at],
            &text[at + 6..].replacen('"', "\" version=\"opset99\" x=\"", 1)
        );
        let one = read(&bad, None, usize::MAX).err().unwrap();
        let two = read(&bad, None, 0).err().unwrap();
        assert_eq!(one.to_string(), two.to_string());
    }

    /// The second thread reads the `<edges>` after `</layers>`: edges elsewhere, in two
    /// elements, behind other markup, empty, or broken read as a one-thread read reads them.
    #[test]
    fn parallel_read_takes_edges_as_sequential() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ir-samples/models");
        let text = std::fs::read_to_string(dir.join("silero_seq.xml")).unwrap();
        let w = Some(Arc::new(
            Weights::open(&dir.join("silero_seq.bin")).unwrap(),
        ));
        let (open, close) = (
            text.find("<edges>").unwrap(),
            text.find("</edges>").unwrap(),
        );
        let edges = &text[open + "<edges>".len()..close];
        // The first three edges in an `<edges>` before `<layers>`, the rest where they were.
        let cut = edges.match_indices("/>").nth(2).unwrap().0 + 2;
        let layers = text.find("<layers>").unwrap();
        let early = format!(
            "{}<edges>{}</edges>\n{}<edges>{}</edges>{}",
            &text[..layers],
            &edges[..cut],
            &text[layers..open],
            &edges[cut..],
            &text[close + "</edges>".len()..]
        );
        let variants = [
            early,
            text.replacen("<edges>", "<!-- c --><edges>", 1),
            text.replacen("<edges>", "<x/><edges>", 1),
            text.replacen("</edges>", "</edges><edges/>", 1),
            text.replacen("<edges>", "<edges/><edges>", 1),
            text.replacen("to-port=\"", "to-port=\"9", 1),
            text.replacen("from-layer=\"", "from-layer=\"x", 1),
            text.replacen("<edge ", "<edge bad ", 1),
            text.replacen("</edges>", "", 1),
        ];
        for (i, v) in variants.iter().enumerate() {
            assert!(split_plan(v.as_bytes()).is_some(), "{i}");
            let one = read(v, w.clone(), usize::MAX);
            let two = read(v, w.clone(), 0);
            match (one, two) {
                (Ok(one), Ok(two)) => {
                    assert_eq!(
                        crate::review::dump::dump(&one.model),
                        crate::review::dump::dump(&two.model),
                        "{i}"
                    );
                    assert_eq!(one.source_map, two.source_map, "{i}");
                }
                (Err(one), Err(two)) => assert_eq!(one.to_string(), two.to_string(), "{i}"),
                (one, two) => panic!("{i}: one thread {:?}, two {:?}", one.is_ok(), two.is_ok()),
            }
        }
    }

    /// After the second half the main thread reads on with a fresh reader that allows the
    /// end tags of elements it did not open: broken end tags there are still reported, the
    /// same as by a one-thread read.
    #[test]
    fn parallel_read_checks_end_tags_after_the_layers() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("ir-samples/models/silero_seq.xml"),
        )
        .unwrap();
        let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("ir-samples/models/silero_seq.bin");
        let w = Some(Arc::new(Weights::open(&bin).unwrap()));
        assert!(read(&text, w.clone(), 0).is_ok());
        let breakages: [(&str, &str); 5] = [
            ("</edges>", "</edges></edges>"),
            ("</net>", "</net></net>"),
            ("</net>", "</net></x>"),
            ("</edges>", "</edgez>"),
            ("</layers>", "</layers></layers>"),
        ];
        for (from, to) in breakages {
            let at = text.rfind(from).unwrap();
            let bad = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
            let one = read(&bad, w.clone(), usize::MAX)
                .err()
                .unwrap_or_else(|| panic!("{to}: the one-thread read accepts it"));
            let two = read(&bad, w.clone(), 0)
                .err()
                .unwrap_or_else(|| panic!("{to}: the two-thread read accepts it"));
            assert_eq!(one.to_string(), two.to_string(), "{to}");
        }
    }
}
