//! A big file, read on two threads, is checked for UTF-8 and NUL bytes as each thread reads its
//! part: a bad byte or a NUL anywhere (in a layer, in a comment the parser passes over, in
//! either thread's part, in the edges, after them) is refused with the message and position a
//! check of the whole file gives, and a good file reads as the same text read into memory.

use std::fmt::Write as _;

/// A chain of `n` Relu layers between a Parameter and a Result, names with multi-byte
/// characters. (No comments: the fast two-thread read leaves a file with comments in its
/// layers to the one-thread read.)
fn big_ir(n: usize) -> String {
    let port =
        |id: usize| format!("<port id=\"{id}\" precision=\"FP32\"><dim>1</dim><dim>8</dim></port>");
    let mut s =
        String::from("<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"11\">\n\t<layers>\n");
    let _ = writeln!(
        s,
        "\t\t<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,8\" element_type=\"f32\"/><output>{}</output></layer>",
        port(0)
    );
    for i in 1..=n {
        let _ = writeln!(
            s,
            "\t\t<layer id=\"{i}\" name=\"relu \u{20ac}\u{e9} {i}\" type=\"ReLU\" version=\"opset1\"><input>{}</input><output>{}</output></layer>",
            port(0),
            port(1)
        );
    }
    let _ = writeln!(
        s,
        "\t\t<layer id=\"{}\" name=\"y\" type=\"Result\" version=\"opset1\"><input>{}</input></layer>",
        n + 1,
        port(0)
    );
    s.push_str("\t</layers>\n\t<edges>\n");
    for i in 0..=n {
        let from_port = if i == 0 { 0 } else { 1 };
        let _ = writeln!(
            s,
            "\t\t<edge from-layer=\"{i}\" from-port=\"{from_port}\" to-layer=\"{}\" to-port=\"0\"/>",
            i + 1
        );
    }
    s.push_str("\t</edges>\n</net>\n");
    s
}

#[test]
fn a_big_file_is_checked_as_it_is_read_on_two_threads() {
    let text = big_ir(20_000);
    assert!(text.len() >= irc::xml::read::PARALLEL_MIN + (1 << 20));
    let dir = std::env::temp_dir().join(format!("irc-read-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.xml");
    let write = |b: &[u8]| std::fs::write(&path, b).unwrap();

    // Good: read as the same text read into memory is.
    write(text.as_bytes());
    let mapped = irc::xml::read_file(&path).expect("good file");
    let memory = irc::xml::read_str(text.as_str().into(), "m.xml", None, "m.bin").unwrap();
    assert_eq!(mapped.model.graph.len(), 20_002);
    assert_eq!(mapped.model.graph.len(), memory.model.graph.len());
    // It is read on two threads (the path this test is about): the first thread joins the
    // second's layers.
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(["infer-shapes", "--check"])
        .arg(&path)
        .env("IRC_TRACE", "1")
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&run.stderr);
    assert!(trace.contains("read: joined"), "{trace}");

    // Places: the XML declaration (which the parser passes over), a layer name in each
    // thread's part (they split in the middle of `<layers>`: about 10,000 layers in), an
    // edge, the end of the file.
    let at = |needle: &str| text.find(needle).expect(needle) + needle.len() - 3;
    let places = [
        at("version=\"1.0"),
        at("relu \u{20ac}\u{e9} 100\""),
        at("relu \u{20ac}\u{e9} 15000\""),
        at("from-layer=\"17000\" from-port=\"1\""),
        text.len() - 1,
    ];
    let check = |b: &[u8], msg: &str, pos: usize| {
        write(b);
        let e = irc::xml::read_file(&path)
            .err()
            .expect("a bad file is refused");
        let shown = e.to_string();
        assert!(shown.contains(msg), "{pos}: {shown}");
        assert!(e.diags.iter().any(|d| d.pos == Some(pos)), "{pos}: {shown}");
    };
    for (i, &p) in places.iter().enumerate() {
        let mut bad = text.clone().into_bytes();
        bad[p] = 0xff;
        check(&bad, "not valid UTF-8", p);
        let mut nul = text.clone().into_bytes();
        nul[p] = 0;
        check(&nul, "a NUL byte", p);
        // A NUL before a bad byte: the bad byte is reported (as a whole-file check does).
        if let Some(&later) = places.get(i + 1).filter(|&&q| q > p) {
            let mut both = text.clone().into_bytes();
            both[p] = 0;
            both[later] = 0xff;
            check(&both, "not valid UTF-8", later);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
