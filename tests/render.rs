//! `irc render` and `irc diff --render` on the samples: the SVG parses as XML and its layer
//! boxes account for every layer (bodies included) exactly once; the HTML loads nothing by URL;
//! the same input gives the same bytes; the picture of a diff marks what `irc diff --format
//! json` lists; bad arguments are usage errors. The drawing of a small If (two nested bodies) is
//! snapshotted, so a layout change shows up as a reviewable diff. (tests/ov/render.py checks the
//! shared and zoo models against OpenVINO and the page in a real browser.)

mod common;
use common::*;
use quick_xml::events::Event;

/// Layers of a graph and of every body in it.
fn layers_in(g: &irc::ir::Graph) -> usize {
    g.layers()
        .map(|l| 1 + l.bodies.iter().map(|b| layers_in(&b.graph)).sum::<usize>())
        .sum()
}

/// One `<g class="layer …">` of an SVG.
#[derive(Debug)]
struct LayerBox {
    class: Vec<String>,
    id: String,
    ids: Vec<String>,
    count: Option<usize>,
}

/// Every layer box of an SVG document (which must parse as XML).
fn boxes(svg: &str) -> Vec<LayerBox> {
    let mut r = quick_xml::Reader::from_str(svg);
    let mut out = Vec::new();
    loop {
        match r.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) if e.name().as_ref() == b"g" => {
                let mut class = Vec::new();
                let (mut id, mut ids, mut count) = (String::new(), Vec::new(), None);
                for a in e.attributes() {
                    let a = a.expect("attribute");
                    let v = a.unescape_value().expect("value").into_owned();
                    match a.key.as_ref() {
                        b"class" => class = v.split_whitespace().map(String::from).collect(),
                        b"data-id" => id = v,
                        b"data-ids" => ids = v.split_whitespace().map(String::from).collect(),
                        b"data-count" => count = Some(v.parse().expect("data-count")),
                        _ => {}
                    }
                }
                if class.iter().any(|c| c == "layer") {
                    out.push(LayerBox {
                        class,
                        id,
                        ids,
                        count,
                    });
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("the SVG does not parse at {}: {e}", r.buffer_position()),
        }
    }
    out
}

/// Layers a picture draws: a box's data-ids, else its one data-id (removed layers aside).
fn drawn(b: &[LayerBox]) -> usize {
    b.iter()
        .filter(|x| !x.class.iter().any(|c| c == "removed"))
        .map(|x| if x.ids.is_empty() { 1 } else { x.ids.len() })
        .sum()
}

fn samples() -> Vec<std::path::PathBuf> {
    let mut v = xml_files(&repo().join("ir-samples/models"));
    v.extend(xml_files(&repo().join("ir-samples/opaque")));
    v.extend(xml_files(&repo().join("ir-samples/render")));
    v
}

#[test]
fn every_sample_renders_with_every_layer_once() {
    let dir = tempdir("render");
    for path in samples() {
        let p = irc::xml::read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", rel(&path)));
        let want = layers_in(&p.model.graph);
        for collapse in ["auto", "none"] {
            let out = dir.join("m.svg");
            let (code, _, err) = run(&[
                "render",
                path.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--collapse",
                collapse,
            ]);
            assert_eq!(code, 0, "{}: {err}", rel(&path));
            assert!(err.contains(" boxes ("), "{}: summary: {err}", rel(&path));
            let svg = std::fs::read_to_string(&out).unwrap();
            let b = boxes(&svg);
            assert_eq!(
                drawn(&b),
                want,
                "{} --collapse {collapse}: boxes draw {} layers, the model has {want}",
                rel(&path),
                drawn(&b)
            );
            for x in &b {
                if x.class.iter().any(|c| c == "block") {
                    assert_eq!(collapse, "auto", "{}: a block with none", rel(&path));
                    assert!(x.count.is_some_and(|c| c >= 2), "{}: {x:?}", rel(&path));
                }
                assert!(!x.id.is_empty(), "{}: a box without data-id", rel(&path));
            }
        }
        // The page: the same boxes, nothing loaded by URL, and the same bytes every time.
        let html = dir.join("m.html");
        for round in 0..2 {
            let (code, _, err) = run(&[
                "render",
                path.to_str().unwrap(),
                "-o",
                html.to_str().unwrap(),
                "--quiet",
            ]);
            assert_eq!(code, 0, "{}: {err}", rel(&path));
            assert!(err.is_empty(), "--quiet printed {err}");
            let text = std::fs::read_to_string(&html).unwrap();
            for bad in [
                "src=", "href=", "url(", "@import", "<link", "http://", "https://",
            ] {
                let t = text.replace("http://www.w3.org/2000/svg", "");
                assert!(!t.contains(bad), "{}: the page has {bad}", rel(&path));
            }
            let start = text.find("<svg ").expect("inline svg");
            let end = text.find("</svg>").expect("end of svg") + 6;
            assert_eq!(drawn(&boxes(&text[start..end])), want, "{}", rel(&path));
            if round == 1 {
                let again = std::fs::read_to_string(&html).unwrap();
                assert_eq!(text, again);
            }
        }
        let a = std::fs::read(dir.join("m.svg")).unwrap();
        run(&[
            "render",
            path.to_str().unwrap(),
            "-o",
            dir.join("m2.svg").to_str().unwrap(),
            "--collapse",
            "none",
        ]);
        assert_eq!(
            a,
            std::fs::read(dir.join("m2.svg")).unwrap(),
            "{}: not deterministic",
            rel(&path)
        );
    }
}

#[test]
fn nested_bodies_snapshot() {
    let dir = tempdir("render-if");
    let out = dir.join("if.svg");
    let (code, _, err) = run(&[
        "render",
        "ir-samples/render/if_branch.xml",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    // Both bodies are nested inside the If's box: its element, found by depth.
    let mut r = quick_xml::Reader::from_str(&svg);
    let (mut depth, mut start, mut end) = (0usize, None, None);
    loop {
        let pos = r.buffer_position() as usize;
        match r.read_event().expect("parses") {
            Event::Start(e) => {
                depth += 1;
                let is_if = e
                    .attributes()
                    .any(|a| a.is_ok_and(|a| a.key.as_ref() == b"data-type" && &*a.value == b"If"));
                if is_if && start.is_none() {
                    start = Some((pos, depth));
                }
            }
            Event::End(_) => {
                if let Some((_, d)) = start {
                    if d == depth && end.is_none() {
                        end = Some(r.buffer_position() as usize);
                    }
                }
                depth -= 1;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let (s, e) = (start.expect("the If box").0, end.expect("its end"));
    for tag in [
        "then_body",
        "else_body",
        "then_relu",
        "else_mul",
        "then_x",
        "two",
    ] {
        assert!(svg[s..e].contains(tag), "{tag} not inside the If's box");
    }
    assert!(!svg[s..e].contains("data-type=\"Sigmoid\""));
    // The drawing, without the style sheet (colours are not layout).
    let drawing: String = svg
        .lines()
        .filter(|l| !l.starts_with("<style>"))
        .collect::<Vec<_>>()
        .join("\n");
    settings().bind(|| insta::assert_snapshot!("render__if_branch_svg", drawing));
}

#[test]
fn diff_render_marks_what_the_diff_lists() {
    let dir = tempdir("render-diff");
    for name in ["silero_seq", "llama_fp16"] {
        let src = format!("ir-samples/models/{name}.xml");
        let folded = dir.join(format!("{name}.xml"));
        let (code, _, err) = run(&["fold", &src, "-o", folded.to_str().unwrap(), "--quiet"]);
        assert_eq!(code, 0, "{err}");
        let (code, json, _) = run(&["diff", &src, folded.to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, 1);
        let r: irc::review::diff::DiffReport = serde_json::from_str(&json).unwrap();
        for ext in ["svg", "html"] {
            let pic = dir.join(format!("{name}.{ext}"));
            let (code2, json2, _) = run(&[
                "diff",
                &src,
                folded.to_str().unwrap(),
                "--format",
                "json",
                "--render",
                pic.to_str().unwrap(),
            ]);
            assert_eq!(code2, 1, "the exit code is irc diff's");
            assert_eq!(json2, json, "--render changes nothing in the report");
            let text = std::fs::read_to_string(&pic).unwrap();
            let (s, e) = (
                text.find("<svg ").unwrap(),
                text.rfind("</svg>").unwrap() + 6,
            );
            let b = boxes(&text[s..e]);
            let n = |k: &str| b.iter().filter(|x| x.class.iter().any(|c| c == k)).count();
            assert_eq!(n("added"), r.added.len(), "{name}.{ext}: added");
            assert_eq!(n("removed"), r.removed.len(), "{name}.{ext}: removed");
            assert_eq!(n("changed"), r.changed.len(), "{name}.{ext}: changed");
            assert!(n("added") + n("removed") + n("changed") > 0);
        }
    }
    // Two equal models: exit 0, a picture with nothing marked.
    let pic = dir.join("same.svg");
    let m = "ir-samples/models/magika.xml";
    let (code, _, _) = run(&["diff", m, m, "--render", pic.to_str().unwrap()]);
    assert_eq!(code, 0);
    let b = boxes(&std::fs::read_to_string(&pic).unwrap());
    assert!(!b.is_empty());
    assert!(b.iter().all(|x| !x
        .class
        .iter()
        .any(|c| c == "added" || c == "removed" || c == "changed")));
}

#[test]
fn repeated_blocks_collapse_by_structure() {
    let dir = tempdir("render-blocks");
    let out = dir.join("s.svg");
    let m = "ir-samples/render/residual_stack.xml";
    let (code, _, err) = run(&["render", m, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let b = boxes(&std::fs::read_to_string(&out).unwrap());
    let blocks: Vec<&LayerBox> = b
        .iter()
        .filter(|x| x.class.iter().any(|c| c == "block"))
        .collect();
    // 32 residual layers of MatMul, Add (bias), Relu, Add (residual), each with its constants.
    assert_eq!(blocks.len(), 1, "{b:?}");
    assert_eq!(blocks[0].count, Some(32));
    assert_eq!(blocks[0].ids.len(), 32 * 6);
    // Without collapsing: every one of the 128 run-time layers has its own box.
    let (code, _, err) = run(&[
        "render",
        m,
        "-o",
        out.to_str().unwrap(),
        "--collapse",
        "none",
    ]);
    assert_eq!(code, 0, "{err}");
    let b = boxes(&std::fs::read_to_string(&out).unwrap());
    let own = b
        .iter()
        .filter(|x| x.ids.is_empty() || x.class.iter().all(|c| c != "const"))
        .count();
    assert_eq!(own, 128 + 2, "128 layers, the Parameter and the Result");
}

#[test]
fn around_draws_the_neighbourhood() {
    let dir = tempdir("render-around");
    let out = dir.join("a.svg");
    let (code, _, err) = run(&[
        "render",
        "ir-samples/models/silero_seq.xml",
        "-o",
        out.to_str().unwrap(),
        "--around",
        "/stft/Sqrt",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let b = boxes(&std::fs::read_to_string(&out).unwrap());
    let types: Vec<String> = b
        .iter()
        .filter(|x| !x.class.iter().any(|c| c == "const"))
        .map(|x| x.id.clone())
        .collect();
    // The Sqrt, the Add before it and the Convolution after it.
    assert_eq!(types.len(), 3, "{b:?}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let dir = tempdir("render-bad");
    let m = "ir-samples/models/silero_seq.xml";
    let png = dir.join("m.png");
    let (code, _, err) = run(&["render", m, "-o", png.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("OUT.svg or OUT.html"), "{err}");
    assert!(!png.exists());
    let out = dir.join("m.svg");
    let (code, _, err) = run(&[
        "render",
        m,
        "-o",
        out.to_str().unwrap(),
        "--around",
        "/stft/Sqr",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no layer named '/stft/Sqr'"), "{err}");
    assert!(err.contains("/stft/Sqrt"), "close names are listed: {err}");
    assert!(!out.exists());
    let (code, _, err) = run(&[
        "render",
        m,
        "-o",
        dir.join("no/such/dir/m.svg").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    // A directory in the way: nothing written, no temporaries left.
    std::fs::create_dir(dir.join("d.svg")).unwrap();
    let (code, _, err) = run(&["render", m, "-o", dir.join("d.svg").to_str().unwrap()]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("is a directory"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}
