//! The writer's text pieces: numbers, indentation, attribute lists and escaping, appended to
//! the XML being built (the writer's hot path: no formatting machinery, no allocation unless
//! a value needs escaping).

use std::fmt::Write as _;

pub(super) fn indent(xml: &mut String, depth: usize) {
    const TABS: &str = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
    let mut d = depth;
    while d > 0 {
        let k = d.min(TABS.len());
        xml.push_str(&TABS[..k]);
        d -= k;
    }
}

/// Append a decimal number (the writer's hot path; `write!` costs several times more).
pub(super) fn push_u64(xml: &mut String, mut v: u64) {
    // Most numbers written are port ids and small dims: one or two digits, pushed as bytes
    // (a copy call for one byte cost more than the digits).
    if v < 10 {
        xml.push((b'0' + v as u8) as char);
        return;
    }
    if v < 100 {
        xml.push((b'0' + (v / 10) as u8) as char);
        xml.push((b'0' + (v % 10) as u8) as char);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // SAFETY: ASCII digits only.
    xml.push_str(unsafe { std::str::from_utf8_unchecked(&buf[i..]) });
}

pub(super) fn attrs_inline(xml: &mut String, attrs: &[(String, String)]) {
    for (k, v) in attrs {
        push_attr(xml, k, v);
    }
}

/// ` k="v"` with `v` escaped.
pub(super) fn push_attr(xml: &mut String, k: &str, v: &str) {
    xml.push(' ');
    xml.push_str(k);
    xml.push_str("=\"");
    xml.push_str(&esc(v));
    xml.push('"');
}

/// Escape an attribute value.
pub fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    if !s
        .bytes()
        .any(|b| matches!(b, b'&' | b'<' | b'>' | b'"') || b < 0x20)
    {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "&#{};", c as u32);
            }
            c => o.push(c),
        }
    }
    o.into()
}

pub(super) fn esc_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_display_writes_them() {
        let mut cases = vec![0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, u64::MAX];
        cases.extend((0..64).map(|b| 1u64 << b));
        cases.extend((1..20).map(|k| 10u64.pow(k) - 1));
        for v in cases {
            let mut s = String::from("x");
            push_u64(&mut s, v);
            assert_eq!(s, format!("x{v}"));
        }
    }

    #[test]
    fn values_are_escaped_for_attributes() {
        assert_eq!(esc("a<b>&\"c"), "a&lt;b&gt;&amp;&quot;c");
        assert_eq!(esc("\t\n"), "&#9;&#10;");
        assert!(matches!(esc("plain é"), std::borrow::Cow::Borrowed(_)));
        let mut s = String::new();
        indent(&mut s, 20);
        assert_eq!(s, "\t".repeat(20));
    }
}
