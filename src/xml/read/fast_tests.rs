//! Tests of the fast lexer and its shortcuts against quick-xml (a child of `fast`).

use super::*;

/// A read as users get it (fast lexer, quick-xml for what it does not take) and quick-xml's
/// alone: the same model, or the same message.
fn same_as_quick(text: &str, w: Option<Arc<Weights>>, parallel_min: usize) {
    let read = |lexer| {
        parse_with(
            Source::text(text),
            None,
            "m.xml",
            w.clone(),
            "m.bin",
            parallel_min,
            None,
            lexer,
        )
    };
    match (read(Lexer::Fast), read(Lexer::Quick)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                crate::review::dump::dump(&a.model),
                crate::review::dump::dump(&b.model),
                "{text}"
            );
            let write = |m: &Model| {
                let mut s = String::new();
                let mut sink = crate::xml::BinSink::new(Vec::new());
                crate::xml::write_to(m, &mut s, &mut sink).unwrap();
                s
            };
            assert_eq!(write(&a.model), write(&b.model), "{text}");
            assert_eq!(a.source_map, b.source_map, "{text}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
        (a, b) => panic!(
            "fast {} / quick-xml {}: {text}",
            if a.is_ok() { "reads" } else { "fails" },
            if b.is_ok() { "reads" } else { "fails" }
        ),
    }
}

/// Whether the fast lexer alone reads `text` (one thread), without quick-xml.
fn fast_alone(text: &str, w: Option<Arc<Weights>>) -> bool {
    let mut p = new_parser(
        Source::text(text),
        0,
        text.len(),
        w,
        "m.bin",
        None,
        Lexer::Fast,
    );
    p.fast.is_some() && p.document().is_ok() && p.diags.is_empty()
}

const NET: &str = r#"<?xml version="1.0"?>
<net name="m" version="11">
	<layers>
		<layer id="0" name="in" type="Parameter" version="opset1">
			<data shape="1,2" element_type="f32"/>
			<output>
				<port id="0" precision="FP32" names="in">
					<dim>1</dim>
					<dim>2</dim>
				</port>
			</output>
		</layer>
		<layer id="1" name="r" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32">
					<dim>1</dim>
					<dim>2</dim>
				</port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
	</edges>
	<rt_info>
		<x value="a&amp;b"/>
	</rt_info>
</net>
"#;

/// Edits of [`NET`] for the lexer in general: declarations, comments, quotes, entities,
/// spacing, dims, end tags.
const LEXER_EDITS: &[(&str, &str)] = &[
    ("", ""),
    ("<?xml version=\"1.0\"?>", "\u{feff}<?xml version=\"1.0\"?>"),
    (
        "<?xml version=\"1.0\"?>",
        "<?xml version=\"1.0\"?><!-- c -->",
    ),
    ("<?xml version=\"1.0\"?>", "<?>"),
    ("<?xml version=\"1.0\"?>", "<?xml version=\"1.0\">"),
    ("<?xml version=\"1.0\"?>", "<?p a?><?q?>"),
    ("<?xml version=\"1.0\"?>", "<!DOCTYPE net>"),
    ("name=\"in\"", "name = 'in'"),
    ("name=\"in\"", "name=\"i&lt;n\""),
    ("name=\"in\"", "name=\"i&bad;n\""),
    ("name=\"in\"", "name=in"),
    ("name=\"in\"", "name=\"in"),
    ("id=\"0\" name=\"in\"", "id=\"0\"name=\"in\""),
    ("id=\"0\" name=\"in\"", "id=\"0\" id=\"0\""),
    ("id=\"0\" name=\"in\"", "id=\"0\"\n\tname=\"in\""),
    ("id=\"0\" name=\"in\"", "id=\"0\" name=\"a>b\""),
    ("id=\"0\" name=\"in\"", "id=\"0\" name=\"a/b\" x/y=\"1\""),
    ("<dim>1</dim>", "<dim>\u{c}1</dim>"),
    ("<dim>1</dim>", "<dim> 1 </dim>"),
    ("<dim>1</dim>", "<dim>&#49;</dim>"),
    ("<dim>1</dim>", "<dim><![CDATA[1]]></dim>"),
    ("<dim>1</dim>", "<dim>1</dim >"),
    ("<dim>1</dim>", "<dim>1</dim\n>"),
    ("<dim>1</dim>", "<dim>1</dimx>"),
    ("<dim>1</dim>", "<dim>1</ dim>"),
    ("<dim>1</dim>", "<dim>1</dim></dim>"),
    ("<dim>1</dim>", "<dim>1"),
    ("<dim>1</dim>", "<dim>1</dim><!-- x -->"),
    ("<dim>1</dim>", "<dim>-1</dim>"),
    ("<dim>1</dim>", "<dim>\t-1\n</dim>"),
    ("<dim>1</dim>", "<dim>007</dim>"),
    ("<dim>1</dim>", "<dim>-01</dim>"),
    ("<dim>1</dim>", "<dim>-0</dim>"),
    ("<dim>1</dim>", "<dim>-2</dim>"),
    ("<dim>1</dim>", "<dim>+1</dim>"),
    ("<dim>1</dim>", "<dim>- 1</dim>"),
    ("<dim>1</dim>", "<dim>1 2</dim>"),
    ("<dim>1</dim>", "<dim>999999999999999999</dim>"),
    ("<dim>1</dim>", "<dim>9223372036854775807</dim>"),
    ("<dim>1</dim>", "<dim>99999999999999999999</dim>"),
    ("<dim>1</dim>", "<dim></dim>"),
    ("<dim>1</dim>", "<dim/>"),
    ("<dim>1</dim>", "<dim a=\"1\">1</dim>"),
    ("<dim>1</dim>", "<dim>1<x/></dim>"),
    ("<dim>1</dim>", "<dim>1</dim>x"),
    ("element_type=\"f32\"/>", "element_type=\"f32\" />"),
    ("element_type=\"f32\"/>", "element_type=\"f32\"/ >"),
    ("element_type=\"f32\"/>", "element_type=\"f32\"></data>"),
    ("<edges>", "< edges>"),
    ("<edges>", "<edges\t>"),
    ("</net>", "</net>\n<x/>"),
    ("</net>", "</net>\ntext"),
    ("</net>", ""),
    ("</net>", "</net></net>"),
    ("</net>", "</net>\n</x>"),
    ("</edges>", "</edges></edges>"),
];
/// Edges the edge shortcut reads, and those it leaves to the events.
const EDGE_EDITS: &[(&str, &str)] = &[
    ("to-port=\"0\"/>", "to-port=\"0\" \t/>"),
    ("to-port=\"0\"/>", "to-port=\"0\"></edge>"),
    ("to-port=\"0\"/>", "to-port=\"0\" x=\"1\"/>"),
    ("to-port=\"0\"/>", "to-port=\"4294967296\"/>"),
    ("to-port=\"0\"/>", "to-port=\"00\"/>"),
    ("to-port=\"0\"/>", "to-port=\"+0\"/>"),
    ("to-port=\"0\"/>", "to-port=\" 0\"/>"),
    ("to-port=\"0\"/>", "to-port='0'/>"),
    ("to-port=\"0\"/>", "to-port=\"0\"/>x"),
    ("to-port=\"0\"/>", "to-port=\"0\"/><edge/>"),
    ("from-layer=\"0\"", "from-layer=\"99999999999999999999\""),
    ("from-layer=\"0\"", "from-layer=\"18446744073709551616\""),
    (
        "from-layer=\"0\" from-port=\"0\"",
        "from-port=\"0\" from-layer=\"0\"",
    ),
    ("from-layer=\"0\"", "from-layer=\"0&#48;\""),
    ("<edge from", "<edge  from"),
];
/// Ports the port shortcut reads, and those it leaves to the events.
const PORT_EDITS: &[(&str, &str)] = &[
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\" names=\"a\\,b,c\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\" names=\"a&amp;b\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\" names=\"\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "names=\"in\" precision=\"FP32\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\"  names=\"in\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\" names=\"in\" x=\"1\"",
    ),
    (
        "precision=\"FP32\" names=\"in\"",
        "precision=\"FP32\" names='in'",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"f32\" >",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"XYZ\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"4294967296\" precision=\"FP32\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"\" precision=\"FP32\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"00\" precision=\"FP32\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\" 0\" precision=\"FP32\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port precision=\"FP32\">",
    ),
    ("<port id=\"0\" precision=\"FP32\">", "<port id=\"0\">"),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"FP32\"/>",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"FP32\">x",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"FP32\"><!-- c -->",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<portx id=\"0\" precision=\"FP32\">",
    ),
    (
        "<port id=\"0\" precision=\"FP32\">",
        "<port id=\"0\" precision=\"FP32\" precision=\"FP32\">",
    ),
];
/// End tags the close shortcut takes (`</port>`) and those it leaves to the events.
const CLOSE_EDITS: &[(&str, &str)] = &[
    ("</port>", "</port >"),
    ("</port>", "</port\n>"),
    ("</port>", "</portx>"),
    ("</port>", "</output>"),
    ("</output>", "</output >"),
    ("</output>", "</outputs>"),
    ("</layer>", "</layer\t>"),
    ("</layer>", "</layer></layer>"),
];
/// Start tags of port lists the open shortcut reads (exactly `<input>`, `<output>`), and
/// those it leaves to the events.
const OPEN_EDITS: &[(&str, &str)] = &[
    ("<output>", "<output >"),
    ("<output>", "<output\n>"),
    ("<output>", "<output x=\"1\">"),
    ("<output>", "<outputs>"),
    ("<output>", "<output/>"),
    ("<output>", "<!-- c --><output>"),
    ("<input>", "<input\t>"),
    ("<input>", "<inputx>"),
];
/// `<data>` elements the data shortcut reads, and those it leaves to the events.
const DATA_EDITS: &[(&str, &str)] = &[
    (
        "element_type=\"f32\"/>",
        "element_type=\"f32\" x_y.z:w-1=\"\"/>",
    ),
    ("element_type=\"f32\"/>", "element_type=\"f\u{e9}32\"/>"),
    (
        "element_type=\"f32\"/>",
        "element_type=\"f32\" element_type=\"f32\"/>",
    ),
    ("element_type=\"f32\"/>", "element_type=\"f&amp;32\"/>"),
    ("element_type=\"f32\"/>", "element_type=\"f<32\"/>"),
    (
        "element_type=\"f32\"/>",
        "element_type=\"f32\" k\u{e9}=\"1\"/>",
    ),
    ("element_type=\"f32\"/>", "element_type =\"f32\"/>"),
    ("element_type=\"f32\"/>", "element_type='f32'/>"),
    (
        "element_type=\"f32\"/>",
        "element_type=\"f32\"shape=\"1\"/>",
    ),
    ("<data shape", "<data\n\t shape"),
    ("<data shape=\"1,2\" element_type=\"f32\"/>", "<data/>"),
    ("<data shape=\"1,2\" element_type=\"f32\"/>", "<data />"),
    (
        "<data shape=\"1,2\" element_type=\"f32\"/>",
        "<data></data>",
    ),
    ("<data shape=\"1,2\" element_type=\"f32\"/>", "<datax/>"),
    (
        "<data shape=\"1,2\" element_type=\"f32\"/>",
        "<data shape=\"1,2\"/><data element_type=\"f32\"/>",
    ),
];

/// Each edit gives XML the fast lexer takes, or leaves to quick-xml, or that is broken:
/// in every case the result is quick-xml's.
#[test]
fn fast_reads_as_quick_xml_reads() {
    let edits = [
        LEXER_EDITS,
        EDGE_EDITS,
        PORT_EDITS,
        CLOSE_EDITS,
        DATA_EDITS,
        OPEN_EDITS,
    ]
    .concat();
    assert!(fast_alone(NET, None));
    let mut fast = 0;
    for &(from, to) in &edits {
        assert!(NET.contains(from), "{from}");
        let text = NET.replacen(from, to, 1);
        same_as_quick(&text, None, usize::MAX);
        same_as_quick(&text, None, 0);
        fast += fast_alone(&text, None) as usize;
    }
    // The plain file and the harmless edits (quotes, spaces, entities, a PI, dims that
    // parse, edges that are not in the shortcut's form) read fast; edges with ids out of
    // range or attributes missing are errors. Of the 21 port edits, 12 read fast; an
    // unknown or empty precision and an id out of range, empty or missing are errors,
    // `/>` and `<portx` leave `</port>` unmatched, a comment and a repeated attribute
    // go to quick-xml. Of the 15 `<data>` edits, 6 read fast: the others are a
    // Parameter's type that is not one or missing (errors), a repeated attribute and
    // run-together attributes (quick-xml), and `<datax/>` (not its data). Of the 8 end
    // tags, the 4 with whitespace before `>` read fast; the mismatched ones go to quick-xml.
    // Of the 8 port-list start tags, the 4 with whitespace or an attribute read fast (through
    // the general path); `/>`, a comment and the mismatched names go to quick-xml.
    assert_eq!(fast, 60);
}

/// A layer rt_info whose text equals an earlier one is skipped and shared; any other (a
/// byte different, a nested `<rt_info>`, a broken copy) is read as before. Either way the
/// model (or message) is quick-xml's.
#[test]
fn repeated_rt_info_is_shared_by_its_text() {
    let with = |a: &str, b: &str| {
        NET.replacen("\t\t\t<output>", &format!("\t\t\t{a}\n\t\t\t<output>"), 1)
            .replacen("\t\t\t<input>", &format!("\t\t\t{b}\n\t\t\t<input>"), 1)
    };
    let dec =
        "<rt_info>\n\t\t\t\t<attribute name=\"decompression\" version=\"0\"/>\n\t\t\t</rt_info>";
    let nested =
        "<rt_info><attribute name=\"a\"><rt_info/><rt_info></rt_info></attribute></rt_info>";
    let cases = [
        (dec, dec),
        (dec, &*dec.replace("version=\"0\"", "version=\"1\"")),
        (dec, &*dec.replace("\n\t\t\t</rt_info>", "</rt_info>")),
        (nested, nested),
        (dec, &*dec.replace("</rt_info>", "</rt_infox>")),
        (dec, &*dec.replace("<attribute", "<attribute x=\"&bad;\"")),
        ("<rt_info/>", "<rt_info/>"),
    ];
    for (a, b) in cases {
        let text = with(a, b);
        same_as_quick(&text, None, usize::MAX);
        same_as_quick(&text, None, 0);
    }
    // Equal texts: one element, read once.
    let m = read_str(Arc::from(with(dec, dec)), "m.xml", None, "m.bin")
        .unwrap()
        .model;
    let rts: Vec<_> = m.graph.layers().filter_map(|l| l.rt_info.clone()).collect();
    assert_eq!(rts.len(), 2);
    assert!(Arc::ptr_eq(&rts[0], &rts[1]));
    assert!(fast_alone(&with(dec, dec), None));
}

/// Layer ids far apart (a table by id for small ones, a hash map for the rest) connect and
/// report duplicates the same way.
#[test]
fn sparse_and_huge_layer_ids() {
    let huge = "18446744073709551615";
    let text = NET
        .replace("id=\"1\" name=\"r\"", &format!("id=\"{huge}\" name=\"r\""))
        .replace("to-layer=\"1\"", &format!("to-layer=\"{huge}\""));
    let read = |t: &str| read_str(Arc::from(t), "m.xml", None, "m.bin");
    let m = read(&text).unwrap().model;
    assert_eq!(m.graph.links().count(), 1);
    assert!(m.graph.layers().any(|l| l.id == u64::MAX));
    same_as_quick(&text, None, usize::MAX);
    // The same huge id twice: reported as a duplicate, as a small one is.
    let dup = text.replace(
        "id=\"0\" name=\"in\"",
        &format!("id=\"{huge}\" name=\"in\""),
    );
    let e = read(&dup).err().unwrap().to_string();
    assert!(e.contains(&format!("duplicate layer id {huge}")), "{e}");
    let dup = NET.replace("id=\"1\" name=\"r\"", "id=\"0\" name=\"r\"");
    let e = read(&dup).err().unwrap().to_string();
    assert!(e.contains("duplicate layer id 0"), "{e}");
}

/// Every sample model (and the shared ones beside the repository): the fast read gives what
/// quick-xml gives, on one thread and on two.
#[test]
fn fast_reads_the_models_as_quick_xml() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for dir in [
        "ir-samples/models",
        "../shared/models",
        "../shared/models/zoo",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "xml") {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    let w = Weights::open(&bin_path_for(&p)).ok().map(Arc::new);
                    same_as_quick(&text, w.clone(), usize::MAX);
                    same_as_quick(&text, w.clone(), 0);
                    assert!(fast_alone(&text, w), "{}", p.display());
                    n += 1;
                }
            }
        }
    }
    assert!(n >= 7, "{n} models");
}
