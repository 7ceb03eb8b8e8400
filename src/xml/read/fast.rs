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
    /// Go on at `to`, past the element `name` just opened (read elsewhere).
    pub(super) fn jump_past(&mut self, src: &[u8], name: &[u8], to: usize) -> Result<(), Fatal> {
        let open = self.open.last().is_some_and(|&(s, e)| &src[s..e] == name);
        if !open || to > self.end {
            return Err(give_up());
        }
        self.open.pop();
        self.pos = to;
        Ok(())
    }

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

    /// `<name>`, one of `names`, next in the source exactly so (no attributes, no space before
    /// `>`): its start tag, the element open, as the general path gives it; `None` with nothing
    /// consumed otherwise. Why: the 166k port lists (`<input>`, `<output>`) of a 100k-layer
    /// model cost about 500 instructions each through the general tag path.
    pub(super) fn fast_open(&mut self, names: &[&'static str]) -> Option<Tag<'a>> {
        let src = self.src;
        let (p, end) = self.markup_at()?;
        let rest = src.get(p..end)?.strip_prefix(b"<")?;
        let name = *names.iter().find(|n| {
            rest.strip_prefix(n.as_bytes())
                .is_some_and(|r| r.first() == Some(&b'>'))
        })?;
        self.release_behind(p);
        let f = self.fast.as_mut()?;
        f.open.push((p + 1, p + 1 + name.len()));
        f.pos = p + name.len() + 2;
        Some(Tag {
            name,
            attrs: SmallVec::new(),
            pos: p,
            empty: false,
        })
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
        // The open element's name is compared only for an end tag of this name.
        let innermost = || {
            (self.fast.as_ref())
                .and_then(|f| f.open.last())
                .is_some_and(|&(s, e)| &src[s..e] == name)
        };
        if !(is_end && innermost()) {
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
#[path = "fast_tests.rs"]
mod tests;
