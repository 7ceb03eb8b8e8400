//! The fast lexer: tags, attributes and text cut straight from the source bytes, for the XML
//! that OpenVINO and irc write. It accepts a strict subset of what quick-xml accepts and gives
//! the same events for it; on anything else (comments, CDATA, a DOCTYPE, a BOM, unquoted or
//! run-together attributes, mismatched end tags, a form feed …) it stops with
//! [`FAST_FALLBACK`], and the file is read again with quick-xml, whose events and messages are
//! the reference. So a file either reads exactly as quick-xml reads it, or through quick-xml.
//!
//! Why: quick-xml's general reader (event states, attribute iterator, per-event bookkeeping)
//! was a fifth of the whole `fold` of a 100k-layer model; this walks each tag once.

use super::*;

/// Marks a read the fast lexer gave up on (never shown to users: the read is redone).
pub(super) const FAST_FALLBACK: &str = "(internal) fast lexer fallback";

/// The fast lexer's state over `src[pos..end]`.
pub(super) struct Fast {
    pos: usize,
    end: usize,
    /// Names of the open elements (ranges of `src`), for the end-tag check.
    open: Vec<(usize, usize)>,
}

/// Byte classes, one table look-up a byte in the scanning loops.
const WS: u8 = 1;
const STOP: u8 = 2;
/// Bytes of the attribute names the `<data>` shortcut takes: ASCII letters, digits, `_-.:`.
const KEY: u8 = 4;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    // XML's whitespace (quick-xml's `is_whitespace`): not form feed.
    let ws = [b' ', b'\t', b'\r', b'\n'];
    let mut i = 0;
    while i < ws.len() {
        t[ws[i] as usize] = WS | STOP;
        i += 1;
    }
    // Bytes that end a tag name or attribute key, or that the fast lexer does not take in one.
    let stop = [b'/', b'>', b'<', b'=', b'"', b'\''];
    let mut i = 0;
    while i < stop.len() {
        t[stop[i] as usize] = STOP;
        i += 1;
    }
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':') {
            t[b] |= KEY;
        }
        b += 1;
    }
    t
};

#[inline(always)]
fn ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}

#[inline(always)]
fn key_byte(b: u8) -> bool {
    CLASS[b as usize] & KEY != 0
}

#[inline(always)]
fn name_stop(b: u8) -> bool {
    CLASS[b as usize] & STOP != 0
}

/// The first `q` in `b` (attribute values are mostly a few bytes: a plain loop first).
#[inline(always)]
fn find_quote(q: u8, b: &[u8]) -> Option<usize> {
    match b.iter().take(16).position(|&c| c == q) {
        Some(i) => Some(i),
        None if b.len() > 16 => memchr::memchr(q, &b[16..]).map(|i| i + 16),
        None => None,
    }
}

/// The decimal number of plain digits at the start of `b`, and how many digits: `None` without
/// a digit or past `u64::MAX` (the general path reports those).
fn plain_number(b: &[u8]) -> Option<(u64, usize)> {
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let v = b[..digits].iter().try_fold(0u64, |v, &c| {
        v.checked_mul(10)?.checked_add((c - b'0') as u64)
    })?;
    Some((v, digits))
}

fn give_up() -> Fatal {
    Diag::new(Kind::Xml, FAST_FALLBACK)
}

impl Fast {
    pub(super) fn new(src: &[u8], base: usize, end: usize) -> Option<Fast> {
        // quick-xml drops a UTF-8 byte-order mark at the start: leave such files to it.
        if src[base..end].starts_with(b"\xEF\xBB\xBF") {
            return None;
        }
        Some(Fast {
            pos: base,
            end,
            open: Vec::with_capacity(16),
        })
    }
    /// Where the next event starts being looked for.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }
    /// Where this lexer's text ends.
    pub(super) fn end(&self) -> usize {
        self.end
    }
    /// Continue at `to`, just past the end tag of the open element `name` (the innermost
    /// one), which is then closed; `None` (nothing changed) when `name` is not the innermost.
    pub(super) fn close_at(&mut self, src: &[u8], name: &[u8], to: usize) -> Option<()> {
        let &(s, e) = self.open.last()?;
        if &src[s..e] != name || to > self.end || to < self.pos {
            return None;
        }
        self.open.pop();
        self.pos = to;
        Some(())
    }
    /// Continue after the top-level `</layers>` ending at `rest` (the second reader thread read
    /// the layers from the split on): the open `<layer>` just read, if any, and `<layers>`
    /// are closed.
    pub(super) fn jump_past_layers(&mut self, src: &[u8], rest: usize) -> Result<(), Fatal> {
        let top_is =
            |f: &Fast, name: &[u8]| f.open.last().is_some_and(|&(s, e)| &src[s..e] == name);
        if top_is(self, b"layer") {
            self.open.pop();
        }
        if !top_is(self, b"layers") {
            return Err(give_up());
        }
        self.open.pop();
        self.pos = rest;
        self.end = src.len();
        Ok(())
    }
}

impl<'a> Parser<'a> {
    /// Where the shortcuts look: the position after the whitespace at the lexer's position,
    /// and the end of its text; `None` when the fast lexer is not reading. The whitespace is
    /// passed for good (the lexer's next event, whatever reads it, skips it too): a shortcut
    /// that does not apply leaves the next one, and the general path, at the markup, instead
    /// of each skipping the same indentation again (1.5 times the file's 7.4 MB of it).
    fn markup_at(&mut self) -> Option<(usize, usize)> {
        let f = self.fast.as_mut()?;
        let rest = self.src.get(f.pos..f.end)?;
        let mut i = 0;
        while i < rest.len() && ws(rest[i]) {
            i += 1;
        }
        f.pos += i;
        Some((f.pos, f.end))
    }

    /// The next event from the fast lexer (see the module comment).
    pub(super) fn next_fast(&mut self) -> Result<Ev<'a>, Fatal> {
        let src = self.src;
        let (mut p, end) = match &self.fast {
            Some(f) => (f.pos, f.end),
            None => return Err(give_up()),
        };
        loop {
            while p < end && ws(src[p]) {
                p += 1;
            }
            self.release_behind(p);
            let f = self.fast.as_mut().ok_or_else(give_up)?;
            if p >= end {
                f.pos = p;
                // quick-xml ends quietly inside open elements; the parser then reports it.
                return if f.open.is_empty() {
                    Ok(Ev::Eof)
                } else {
                    Err(give_up())
                };
            }
            if src[p] != b'<' {
                // Text up to the next tag, without its trailing whitespace.
                let lt = memchr::memchr(b'<', &src[p..end]).map_or(end, |i| p + i);
                let mut e = lt;
                while e > p && ws(src[e - 1]) {
                    e -= 1;
                }
                if src[p] == 0x0C {
                    return Err(give_up()); // quick-xml's text keeps it, the position skips it
                }
                f.pos = lt;
                let raw = self.borrowed(&src[p..e]).ok_or_else(give_up)?;
                return Ok(Ev::Text(self.unescape(raw, || p, || "text".into())?));
            }
            match src.get(p + 1) {
                Some(b'/') => {
                    let gt = memchr::memchr(b'>', &src[p + 2..end]).ok_or_else(give_up)?;
                    let mut name = &src[p + 2..p + 2 + gt];
                    while let [rest @ .., last] = name {
                        if !ws(*last) {
                            break;
                        }
                        name = rest;
                    }
                    match f.open.pop() {
                        Some((s, e)) if &src[s..e] == name => {}
                        _ => return Err(give_up()),
                    }
                    f.pos = p + 2 + gt + 1;
                    return Ok(Ev::Close);
                }
                Some(b'?') => {
                    // A declaration or processing instruction, when its first `>` ends it.
                    let gt = memchr::memchr(b'>', &src[p + 2..end]).ok_or_else(give_up)?;
                    if gt == 0 || src[p + 2 + gt - 1] != b'?' {
                        return Err(give_up());
                    }
                    p += 2 + gt + 1;
                    f.pos = p;
                    continue;
                }
                Some(b'!') | None => return Err(give_up()),
                Some(_) => return self.fast_tag(p, end),
            }
        }
    }

    /// A `<dim>N</dim>` next in the source, N being digits or `-1` (whitespace around it
    /// allowed): its dimension, the lexer moved past it. Anything else (an entity, a sign, a
    /// comment, a long number, `</dim >` …) gives `None` with nothing consumed, and the port
    /// reads it as events. Why: a port's dims are most of a model's elements, three events
    /// each.
    pub(super) fn fast_dim(&mut self) -> Option<Dim> {
        let src = self.src;
        let (p, end) = self.markup_at()?;
        let body = src.get(p..end)?.strip_prefix(b"<dim>")?;
        let skip_ws = |mut i: usize| {
            while i < body.len() && ws(body[i]) {
                i += 1;
            }
            i
        };
        let start = skip_ws(0);
        let neg = body.get(start) == Some(&b'-');
        let d0 = start + neg as usize;
        let digits = body[d0..].iter().take_while(|b| b.is_ascii_digit()).count();
        // 18 digits stay below i64::MAX; longer numbers are left to the parser's check.
        if digits == 0 || digits > 18 {
            return None;
        }
        let text = &body[d0..d0 + digits];
        let value = text.iter().fold(0u64, |v, &b| v * 10 + (b - b'0') as u64);
        let close = skip_ws(d0 + digits);
        if !body[close..].starts_with(b"</dim>") {
            return None;
        }
        let dim = match (neg, text) {
            (false, _) => Dim::known(value),
            (true, b"1") => Dim::any(),
            (true, _) => return None,
        };
        self.fast.as_mut()?.pos = p + b"<dim>".len() + close + b"</dim>".len();
        Some(dim)
    }

    /// An `<edge from-layer="A" from-port="B" to-layer="C" to-port="D"/>` next in the source,
    /// written as OpenVINO and irc write it (those four attributes in that order, plain digits,
    /// one space apart, optional whitespace before `/>`): the edge and the position of its `<`,
    /// the lexer moved past it. Anything else gives `None` with nothing consumed, and the edge
    /// is read as an event. Why: a 100k-layer model has 114k edges, read on one thread after
    /// the layers, and the general tag path cost 2,200 instructions each.
    pub(super) fn fast_edge(&mut self) -> Option<([u64; 4], usize)> {
        const KEYS: [&[u8]; 4] = [
            b"<edge from-layer=\"",
            b"\" from-port=\"",
            b"\" to-layer=\"",
            b"\" to-port=\"",
        ];
        let src = self.src;
        let (mut p, end) = self.markup_at()?;
        let at = p;
        let mut vals = [0u64; 4];
        for (k, v) in KEYS.iter().zip(vals.iter_mut()) {
            p += src.get(p..end)?.starts_with(k).then_some(k.len())?;
            let (x, digits) = plain_number(&src[p..end])?;
            *v = x;
            p += digits;
        }
        p += src.get(p..end)?.starts_with(b"\"").then_some(1)?;
        while p < end && ws(src[p]) {
            p += 1;
        }
        p += src.get(p..end)?.starts_with(b"/>").then_some(2)?;
        self.release_behind(at);
        self.fast.as_mut()?.pos = p;
        Some((vals, at))
    }

    /// `</name>` next in the source (whitespace before it allowed) closing the innermost open
    /// element, `name`: the lexer moved past it and the element closed, as the `Close` event
    /// would; `false` with nothing consumed otherwise. Why: the ends of 216k ports, 166k port
    /// lists and 100k layers went through the general path's search for `>`.
    pub(super) fn fast_close(&mut self, name: &[u8]) -> bool {
        let src = self.src;
        let Some((p, end)) = self.markup_at() else {
            return false;
        };
        let Some(rest) = src.get(p..end) else {
            return false;
        };
        let tag_len = name.len() + 3;
        let is_end = rest.len() >= tag_len
            && rest.starts_with(b"</")
            && &rest[2..2 + name.len()] == name
            && rest[2 + name.len()] == b'>';
        let innermost = (self.fast.as_ref())
            .and_then(|f| f.open.last())
            .is_some_and(|&(s, e)| &src[s..e] == name);
        if !(is_end && innermost) {
            return false;
        }
        self.release_behind(p);
        if let Some(f) = self.fast.as_mut() {
            f.open.pop();
            f.pos = p + tag_len;
        }
        true
    }

    /// An empty `<data k="v" …/>` next in the source, as OpenVINO and irc write it (ASCII;
    /// names of letters, digits and `_-.:`, `="…"` with no space, values without `&`, `<` or
    /// NUL, no name twice): its attributes encoded straight from the text into the attribute
    /// pool (`share` as for [`Attrs::from_pairs_in`]), and the position of its `<`; the lexer
    /// moved past it. Anything else gives `None` with nothing consumed, and the element is
    /// read as an event. Why: 95k `<data>` elements of a 100k-layer model cost 1,000
    /// instructions each through the general tag path and the pair list.
    pub(super) fn fast_data(&mut self, share: bool) -> Option<(Attrs, usize)> {
        let src = self.src;
        let (mut p, end) = self.markup_at()?;
        let at = p;
        if !src.get(p..end)?.starts_with(b"<data") {
            return None;
        }
        p += b"<data".len();
        // (key start, key end = `=`, value end = its quote)
        let mut spans: SmallVec<[(usize, usize, usize); 8]> = SmallVec::new();
        loop {
            let before = p;
            while p < end && ws(src[p]) {
                p += 1;
            }
            match src.get(p..end)? {
                [b'/', b'>', ..] => break,
                [b, ..] if key_byte(*b) && p > before => {}
                _ => return None, // `>` (children), no space before a name, …
            }
            let k0 = p;
            while p < end && key_byte(src[p]) {
                p += 1;
            }
            if src.get(p..end)?.get(..2)? != b"=\"" {
                return None;
            }
            let v0 = p + 2;
            let v1 = v0 + find_quote(b'"', &src[v0..end])?;
            // Lists longer than writers make go to the general path (its duplicate check is
            // linear; the pairwise one here is for a handful of names).
            if spans.len() == 8 {
                return None;
            }
            spans.push((k0, p, v1));
            p = v1 + 1;
        }
        let tag = &src[at..p + 2];
        // ASCII (so UTF-8) without `&` or NUL; `<` only where it opens the tag; no key twice.
        let key = |&(k0, k1, _): &(usize, usize, usize)| &src[k0..k1];
        if !tag.is_ascii()
            || tag[1..].iter().any(|&b| matches!(b, b'&' | b'<' | 0))
            || spans
                .iter()
                .enumerate()
                .any(|(i, a)| spans[..i].iter().any(|b| key(a) == key(b)))
        {
            return None;
        }
        let (attrs, ()) = Attrs::from_encoded_in(&mut self.attr_pool, share, |out| {
            out.reserve(tag.len());
            for &(k0, k1, v1) in &spans {
                for piece in [&src[k0..k1], &src[k1 + 2..v1]] {
                    // SAFETY: ASCII bytes (the whole tag was checked above) are UTF-8.
                    out.push_str(unsafe { std::str::from_utf8_unchecked(piece) });
                    out.push('\0');
                }
            }
            Some(())
        })?;
        self.release_behind(at);
        self.fast.as_mut()?.pos = p + 2;
        Some((attrs, at))
    }

    /// A `<port id="N" precision="P">` next in the source (or `…/>`, optionally with
    /// ` names="…"` after the precision), as OpenVINO and irc write it: one space apart,
    /// plain digits, a known element type, names without `&` or `<`. Returns the tag (no
    /// attributes: they are in the head) and the head, the lexer moved past the tag and the
    /// port opened. Anything else gives `None` with nothing consumed, and the port is read as
    /// an event (with its messages). Why: a 100k-layer model has 216k ports, and the general
    /// tag path, its attribute list and three look-ups cost about 1,000 instructions each.
    pub(super) fn fast_port(&mut self) -> Option<(Tag<'a>, build::PortHead)> {
        let src = self.src;
        let (mut p, end) = self.markup_at()?;
        let at = p;
        let expect = |p: usize, s: &[u8]| src.get(p..end)?.starts_with(s).then_some(p + s.len());
        p = expect(p, b"<port id=\"")?;
        let (id, digits) = plain_number(&src[p..end])?;
        let id = u32::try_from(id).ok()?;
        p = expect(p + digits, b"\" precision=\"")?;
        let n = src[p..end]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        // ASCII letters and digits: UTF-8, and a name `parse_precision` knows or not.
        let name = std::str::from_utf8(&src[p..p + n]).ok()?;
        let precision = ElementType::parse_precision(name)?;
        p = expect(p + n, b"\"")?;
        let mut names = Vec::new();
        if let Some(v0) = expect(p, b" names=\"") {
            let len = find_quote(b'"', &src[v0..end])?;
            let raw = &src[v0..v0 + len];
            if raw.iter().any(|&b| b == b'&' || b == b'<') {
                return None;
            }
            names = split_names(self.borrowed(raw)?);
            p = v0 + len + 1;
        }
        while p < end && ws(src[p]) {
            p += 1;
        }
        let empty = match src.get(p..end)? {
            [b'/', b'>', ..] => true,
            [b'>', ..] => false,
            _ => return None,
        };
        p += if empty { 2 } else { 1 };
        self.release_behind(at);
        let f = self.fast.as_mut()?;
        if !empty {
            f.open.push((at + 1, at + 5));
        }
        f.pos = p;
        let tag = Tag {
            name: "port",
            attrs: SmallVec::new(),
            pos: at,
            empty,
        };
        let head = build::PortHead {
            id: Some(id),
            precision: Some(precision),
            names,
            extra_attrs: Vec::new(),
        };
        Some((tag, head))
    }

    /// The start tag at `p` (`<name k="v" …>` or `…/>`); the lexer moves past it. (Built in
    /// place as the event returned: a tag is 200 bytes, each move of it a copy.)
    #[inline(always)]
    fn fast_tag(&mut self, p: usize, end: usize) -> Result<Ev<'a>, Fatal> {
        let src = self.src;
        let at = |i: usize| -> Result<u8, Fatal> {
            src.get(i).copied().filter(|_| i < end).ok_or_else(give_up)
        };
        let skip_ws = |mut i: usize| {
            while i < end && ws(src[i]) {
                i += 1;
            }
            i
        };
        let word = |mut i: usize| {
            while i < end && !name_stop(src[i]) {
                i += 1;
            }
            i
        };
        let name_end = word(p + 1);
        if name_end == p + 1 {
            return Err(give_up());
        }
        let mut spans: SmallVec<[(usize, usize, usize, usize); 6]> = SmallVec::new();
        let mut i = name_end;
        let empty = loop {
            let before = i;
            i = skip_ws(i);
            match at(i)? {
                b'>' => break false,
                b'/' if at(i + 1)? == b'>' => {
                    i += 1;
                    break true;
                }
                _ if i == before => return Err(give_up()), // no space before the attribute
                _ => {}
            }
            let k0 = i;
            let k1 = word(k0);
            if k1 == k0 {
                return Err(give_up());
            }
            i = skip_ws(k1);
            if at(i)? != b'=' {
                return Err(give_up());
            }
            i = skip_ws(i + 1);
            let q = at(i)?;
            if q != b'"' && q != b'\'' {
                return Err(give_up());
            }
            let v0 = i + 1;
            let v1 = v0 + find_quote(q, &src[v0..end]).ok_or_else(give_up)?;
            spans.push((k0, k1, v0, v1));
            i = v1 + 1;
        };
        // The whole tag checked as text once, and for entities once: its names and values are
        // cut from it (each cut on a delimiter, an ASCII byte, so on a character boundary).
        // A byte that is not UTF-8 is inside a name or value, so the tag is given up on either
        // way, as when each piece was checked.
        let tag = self.borrowed(&src[p..=i]).ok_or_else(give_up)?;
        let cut = |a: usize, b: usize| tag.get(a - p..b - p).ok_or_else(give_up);
        let entities = memchr::memchr(b'&', tag.as_bytes()).is_some();
        let name = cut(p + 1, name_end)?;
        let mut attrs: SmallVec<[(&'a str, Cow<'a, str>); 4]> =
            SmallVec::with_capacity(spans.len());
        for &(k0, k1, v0, v1) in spans.iter() {
            let (key, raw) = (cut(k0, k1)?, cut(v0, v1)?);
            let value = if entities {
                self.unescape(raw, || v0, String::new)?
            } else {
                Cow::Borrowed(raw)
            };
            attrs.push((key, value));
        }
        if super::lex::duplicated(&attrs).is_some() {
            return Err(give_up());
        }
        let f = self.fast.as_mut().ok_or_else(give_up)?;
        f.pos = i + 1;
        if !empty {
            f.open.push((p + 1, name_end));
        }
        Ok(Ev::Open(Tag {
            name,
            attrs,
            pos: p,
            empty,
        }))
    }
}

#[cfg(test)]
mod tests {
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
        let edits = [LEXER_EDITS, EDGE_EDITS, PORT_EDITS, CLOSE_EDITS, DATA_EDITS].concat();
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
        assert_eq!(fast, 56);
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
        let dec = "<rt_info>\n\t\t\t\t<attribute name=\"decompression\" version=\"0\"/>\n\t\t\t</rt_info>";
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
}
