//! The house keeps its floor plan (docs/architecture.md): no source file over 1,000 lines but
//! the generated opset table, no function over 100 lines (from `fn` to its closing brace).

use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 1000;
const MAX_FN_LINES: usize = 100;
/// Generated tables, exempt from the file limit.
const GENERATED: &[&str] = &["src/ir/opset.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The source with comments, strings and character literals blanked (newlines kept), so that
/// braces and `fn` are only the code's.
fn code_only(src: &str) -> Vec<u8> {
    let s = src.as_bytes();
    let mut out = s.to_vec();
    let blank = |out: &mut Vec<u8>, a: usize, b: usize| {
        for c in &mut out[a..b] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let ident_before = i > 0 && (s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_');
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(s.len(), |k| i + k);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let end = find(s, i + 2, b"*/").map_or(s.len(), |k| k + 2);
            blank(&mut out, i, end);
            i = end;
        } else if !ident_before
            && (rest.starts_with(b"r\"") || rest.starts_with(b"r#") || rest.starts_with(b"br"))
        {
            let start = if rest[0] == b'b' { i + 1 } else { i };
            let hashes = s[start + 1..].iter().take_while(|&&c| c == b'#').count();
            if s.get(start + 1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = find(s, start + 2 + hashes, &close).map_or(s.len(), |k| k + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, (j + 1).min(s.len()));
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            let n = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|k| k + 3)
            } else {
                let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(2 + ch)
            };
            match n {
                Some(n) => {
                    blank(&mut out, i, i + n);
                    i += n;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

fn find(s: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    s.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|k| from + k)
}

/// (name, first line, length in lines) of every function with a body.
fn functions(code: &[u8]) -> Vec<(String, usize, usize)> {
    let line_of = |at: usize| 1 + code[..at].iter().filter(|&&c| c == b'\n').count();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = find(code, i, b"fn ") {
        i = k + 3;
        if k > 0 && (code[k - 1].is_ascii_alphanumeric() || code[k - 1] == b'_') {
            continue;
        }
        let name: String = code[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .map(|&c| c as char)
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` before any `;` (a declaration without body has none).
        let Some(open) = code[i..]
            .iter()
            .position(|&c| c == b'{' || c == b';')
            .map(|p| i + p)
            .filter(|&p| code[p] == b'{')
        else {
            continue;
        };
        let mut depth = 0usize;
        let mut end = open;
        for (j, &c) in code.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let first = line_of(k);
        out.push((name, first, line_of(end) - first + 1));
    }
    out
}

#[test]
fn no_file_over_1000_lines_and_no_function_over_100() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&repo.join("src"), &mut files);
    let mut too_big = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(repo)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let src = std::fs::read_to_string(f).unwrap();
        let lines = src.lines().count();
        if lines > MAX_FILE_LINES && !GENERATED.contains(&rel.as_str()) {
            too_big.push(format!("{rel}: {lines} lines (at most {MAX_FILE_LINES})"));
        }
        for (name, line, len) in functions(&code_only(&src)) {
            if len > MAX_FN_LINES {
                too_big.push(format!(
                    "{rel}:{line}: fn {name} is {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    assert!(
        too_big.is_empty(),
        "split these (docs/architecture.md):\n{}",
        too_big.join("\n")
    );
}

#[test]
fn the_scan_sees_functions_through_strings_and_comments() {
    let src = "fn a() {\n let s = \"}}\"; // }\n let c = '}';\n /* { */\n let r = r#\"{\"#;\n}\nfn b<'x>(v: &'x str) -> &'x str {\n v\n}\nfn c();\n";
    let f = functions(&code_only(src));
    assert_eq!(
        f,
        vec![("a".to_string(), 1, 6), ("b".to_string(), 7, 3)],
        "{f:?}"
    );
}
