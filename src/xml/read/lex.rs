//! Lexing: quick-xml events → start tags with unescaped attributes and byte positions;
//! generic elements kept verbatim (rt_info, port maps); diagnostics collection.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn next(&mut self) -> Result<Ev<'a>, Fatal> {
        if self.fast.is_some() {
            return self.next_fast();
        }
        loop {
            let before = self.base + self.r.buffer_position() as usize;
            let ev = self.r.read_event().map_err(|e| {
                Diag::new(Kind::Xml, format!("malformed XML: {e}"))
                    .at(self.base + self.r.error_position() as usize)
            })?;
            let pos = skip_ws(self.src, before);
            self.release_behind(pos);
            return Ok(match ev {
                Event::Start(s) => Ev::Open(self.tag(&s, pos, false)?),
                Event::Empty(s) => Ev::Open(self.tag(&s, pos, true)?),
                Event::End(_) => Ev::Close,
                Event::Text(t) => {
                    let raw = self.borrowed(&t).unwrap_or("");
                    Ev::Text(self.unescape(raw, || pos, || "text".into())?)
                }
                Event::CData(t) => Ev::Text(Cow::Owned(String::from_utf8_lossy(&t).into_owned())),
                Event::Eof => Ev::Eof,
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => continue,
            });
        }
    }
    /// A mapped file: hand back the pages behind `pos` (every [`RELEASE_STEP`] bytes).
    /// A deferred check ([`source::Check`]) goes a step ahead of `pos`.
    pub(super) fn release_behind(&mut self, pos: usize) {
        if let Some(m) = self.mapped {
            if let Some(c) = self.check.as_mut() {
                c.ahead(&m.map, pos);
            }
            if pos >= self.released + RELEASE_STEP {
                let to = pos - PAGE;
                m.release(self.released, to);
                self.released = to;
            }
        }
    }
    /// Where the lexer looks for the next event (for positions of what it finds).
    pub(super) fn lex_pos(&self) -> usize {
        match &self.fast {
            Some(f) => f.pos(),
            None => self.base + self.r.buffer_position() as usize,
        }
    }
    /// The source slice a borrowed event buffer points into (the reader reads from `src`).
    /// Checked: the bytes may be of a mapped file that changed since it was validated (text
    /// read into memory was validated once; only the slice's ends are checked).
    pub(super) fn borrowed(&self, b: &[u8]) -> Option<&'a str> {
        let base = self.src.as_ptr() as usize;
        let p = b.as_ptr() as usize;
        if b.is_empty() {
            return Some("");
        }
        let off = p.checked_sub(base)?;
        match self.text {
            // `get` checks only that both ends are character boundaries.
            Some(t) => t.get(off..off + b.len()),
            None => {
                let b = self.src.get(off..off + b.len())?;
                if b.is_ascii() {
                    // SAFETY: ASCII bytes are UTF-8 (checked just now, as from_utf8 would; most
                    // tokens are ASCII, and this check is several times cheaper).
                    Some(unsafe { std::str::from_utf8_unchecked(b) })
                } else {
                    std::str::from_utf8(b).ok()
                }
            }
        }
    }
    /// Unescape entities; `at` gives the error position (only computed on error).
    pub(super) fn unescape(
        &self,
        raw: &'a str,
        at: impl FnOnce() -> usize,
        what: impl FnOnce() -> String,
    ) -> Result<Cow<'a, str>, Fatal> {
        if !raw.contains('&') {
            return Ok(Cow::Borrowed(raw));
        }
        quick_xml::escape::unescape(raw)
            .map(|c| Cow::Owned(c.into_owned()))
            .map_err(|e| Diag::new(Kind::Xml, format!("malformed {}: {e}", what())).at(at()))
    }
    pub(super) fn tag(&self, s: &BytesStart, pos: usize, empty: bool) -> Result<Tag<'a>, Fatal> {
        let name = self
            .borrowed(s.name().as_ref())
            .ok_or_else(|| Diag::new(Kind::Xml, "element name is not UTF-8").at(pos))?;
        let mut attrs: SmallVec<[(&'a str, Cow<'a, str>); 4]> = SmallVec::new();
        // Duplicates are checked below in linear time (quick-xml's own check is quadratic).
        for a in s.attributes().with_checks(false) {
            let a = a.map_err(|e| {
                use quick_xml::events::attributes::AttrError as A;
                // Positions in AttrError count from the start of the tag name.
                let (off, msg) = match &e {
                    A::Duplicated(p, _) => (*p, "duplicated attribute".to_string()),
                    A::ExpectedEq(p) => (
                        *p,
                        "expected '=' after the attribute name (is a '>' missing?)".to_string(),
                    ),
                    A::ExpectedValue(p) => (*p, "expected an attribute value".to_string()),
                    A::UnquotedValue(p) => (*p, "attribute value is not quoted".to_string()),
                    A::ExpectedQuote(p, _) => {
                        (*p, "attribute value is not closed by its quote".to_string())
                    }
                };
                Diag::new(Kind::Xml, format!("malformed attribute in <{name}>: {msg}"))
                    .at(pos + 1 + off)
            })?;
            let key = self
                .borrowed(a.key.as_ref())
                .ok_or_else(|| Diag::new(Kind::Xml, "attribute name is not UTF-8").at(pos))?;
            let raw = match &a.value {
                Cow::Borrowed(b) => self.borrowed(b),
                Cow::Owned(_) => None,
            };
            let val = match raw {
                Some(r) => self.unescape(
                    r,
                    || self.attr_pos(pos, key),
                    || format!("value of '{key}'"),
                )?,

                None => Cow::Owned(
                    a.unescape_value()
                        .map_err(|e| {
                            Diag::new(Kind::Xml, format!("malformed value of '{key}': {e}"))
                                .at(self.attr_pos(pos, key))
                        })?
                        .into_owned(),
                ),
            };
            attrs.push((key, val));
        }
        if let Some(key) = duplicated(&attrs) {
            // The caret on the second occurrence.
            let first = self.attr_pos(pos, key);
            return Err(Diag::new(
                Kind::Xml,
                format!("malformed attribute in <{name}>: duplicated attribute '{key}'"),
            )
            .at(self.attr_pos(first + 1, key)));
        }
        Ok(Tag {
            name,
            attrs,
            pos,
            empty,
        })
    }
    /// Position of attribute `name` inside the tag starting at `pos` (falls back to the tag).
    pub(super) fn attr_pos(&self, pos: usize, name: &str) -> usize {
        crate::error::attr_pos(self.src, pos, name)
    }
    /// One shared copy of equal layer rt_info elements.
    pub(super) fn share_rt_info(&mut self, el: XmlElement) -> Arc<XmlElement> {
        use std::hash::{Hash, Hasher};
        let mut h = FastHasher::default();
        el.hash(&mut h);
        let bucket = self.rt_infos.entry(h.finish()).or_default();
        if let Some(same) = bucket.iter().find(|e| ***e == el) {
            return same.clone();
        }
        let a = Arc::new(el);
        bucket.push(a.clone());
        a
    }
    /// The shared copy of a layer's `<rt_info>` whose text equals one read before (fast lexer
    /// only), the lexer moved past its end tag; `None` (nothing consumed) otherwise.
    pub(super) fn seen_rt_info(&mut self, t: &Tag) -> Option<Arc<XmlElement>> {
        if t.empty || self.rt_raw.is_empty() {
            return None;
        }
        let end = rt_info_end(self.src, t.pos, self.fast.as_ref()?.end())?;
        let text = &self.src[t.pos..end];
        let same = self.rt_raw.iter().find(|(r, _)| **r == *text)?.1.clone();
        self.fast.as_mut()?.close_at(self.src, b"rt_info", end)?;
        Some(same)
    }
    /// After `generic` read a layer's `<rt_info>` from `start`: keep its text (the first 32
    /// distinct ones) for [`Parser::seen_rt_info`].
    pub(super) fn remember_rt_info(&mut self, start: usize, shared: &Arc<XmlElement>) {
        let Some(f) = &self.fast else { return };
        // The element must end where its first end tag ends (no nested `<rt_info>`).
        if self.rt_raw.len() >= 32 || rt_info_end(self.src, start, f.end()) != Some(f.pos()) {
            return;
        }
        let text = &self.src[start..f.pos()];
        if !self.rt_raw.iter().any(|(r, _)| **r == *text) {
            self.rt_raw.push((text.into(), shared.clone()));
        }
    }
    pub(super) fn err(&mut self, mut d: Diag) {
        if let Some(b) = self.body_stack.last() {
            d = d.note(format!("inside the {b}"));
        }
        self.diags.push(d);
    }
    /// Consume everything up to the end of `tag`.
    pub(super) fn skip(&mut self, tag: &Tag) -> Result<(), Fatal> {
        if tag.empty {
            return Ok(());
        }
        let mut depth = 1usize;
        loop {
            match self.next()? {
                Ev::Open(t) if !t.empty => depth += 1,
                Ev::Close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Ev::Eof => return Err(eof(tag)),
                _ => {}
            }
        }
    }
    /// Read `tag` and everything inside it as a verbatim element (iteratively: no recursion).
    pub(super) fn generic(&mut self, tag: Tag) -> Result<XmlElement, Fatal> {
        self.positions.clear();
        let root = XmlElement {
            name: tag.name.to_string(),
            attrs: tag.owned(),
            ..Default::default()
        };
        if tag.empty {
            return Ok(root);
        }
        let mut stack = vec![root];
        loop {
            match self.next()? {
                Ev::Open(t) => {
                    if stack.len() >= MAX_ELEMENT_DEPTH {
                        return Err(Diag::new(
                            Kind::Schema,
                            format!("<{}> is nested more than {MAX_ELEMENT_DEPTH} levels deep inside <{}>", t.name, tag.name),
                        )
                        .at(t.pos));
                    }
                    self.positions.push(t.pos);
                    let el = XmlElement {
                        name: t.name.to_string(),
                        attrs: t.owned(),
                        ..Default::default()
                    };
                    if t.empty {
                        stack.last_mut().expect("stack").children.push(el);
                    } else {
                        stack.push(el);
                    }
                }
                Ev::Close => {
                    let done = stack.pop().expect("stack");
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => return Ok(done),
                    }
                }
                Ev::Text(s) => {
                    let cur = stack.last_mut().expect("stack");
                    cur.text.get_or_insert_with(String::new).push_str(&s);
                }
                Ev::Eof => return Err(eof(&tag)),
            }
        }
    }
}

/// The first attribute name given twice, if any.
pub(super) fn duplicated<'a>(attrs: &[(&'a str, Cow<'a, str>)]) -> Option<&'a str> {
    if attrs.len() <= 16 {
        return attrs
            .iter()
            .enumerate()
            .find(|(i, (k, _))| attrs[..*i].iter().any(|(j, _)| j == k))
            .map(|(_, (k, _))| *k);
    }
    let mut seen = std::collections::HashSet::with_capacity(attrs.len());
    attrs.iter().map(|(k, _)| *k).find(|k| !seen.insert(*k))
}

/// Where the first `</rt_info>` at or after `from` (and before `end`) ends.
fn rt_info_end(src: &[u8], from: usize, end: usize) -> Option<usize> {
    const CLOSE: &[u8] = b"</rt_info>";
    let at = memchr::memmem::find(src.get(from..end)?, CLOSE)?;
    Some(from + at + CLOSE.len())
}
