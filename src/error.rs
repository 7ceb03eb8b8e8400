//! Errors with source positions: `file:line:col: error[kind]: message`, the source line, a caret,
//! and notes quoting the values involved. Op rules produce span-free messages; the reader and the
//! passes attach the position of the layer from the [`crate::span::SourceMap`].

use std::fmt;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Malformed XML.
    Xml,
    /// Well-formed XML that is not a valid IR (missing/bad attributes, unknown opset …).
    Schema,
    /// Graph structure: duplicate ids, dangling or duplicate edges, cycles.
    Graph,
    ElementType,
    /// Weights: Const data outside the .bin, too small, missing .bin.
    Weights,
    /// Shape/type inference.
    Shape,
    Io,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Xml => "xml",
            Kind::Schema => "schema",
            Kind::Graph => "graph",
            Kind::ElementType => "element-type",
            Kind::Weights => "weights",
            Kind::Shape => "shape",
            Kind::Io => "io",
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone)]
pub struct Diag {
    pub kind: Kind,
    pub message: String,
    /// Byte offset into the XML source.
    pub pos: Option<usize>,
    /// `Gather 'g1' (id 7, opset8)`.
    pub layer: Option<String>,
    pub notes: Vec<String>,
    /// An attribute of the tag at `pos` the diagnostic concerns: where the source is known,
    /// [`Error::new`] moves `pos` onto it.
    pub attr: Option<String>,
}

impl Diag {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Diag {
            kind,
            message: message.into(),
            pos: None,
            layer: None,
            notes: Vec::new(),
            attr: None,
        }
    }
    /// Point at attribute `name` of the tag at the diagnostic's position (the tag itself when
    /// it has no such attribute).
    pub fn in_attr(mut self, name: impl Into<String>) -> Self {
        self.attr = Some(name.into());
        self
    }
    pub fn at(mut self, pos: impl Into<Option<usize>>) -> Self {
        self.pos = pos.into();
        self
    }
    pub fn layer(mut self, label: impl Into<String>) -> Self {
        self.layer = Some(label.into());
        self
    }
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// All diagnostics of one run over one file, with the source needed to render them.
#[derive(Debug, Clone)]
pub struct Error {
    pub path: String,
    pub source: Option<Arc<str>>,
    pub diags: Vec<Diag>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(path: impl Into<String>, source: Option<Arc<str>>, mut diags: Vec<Diag>) -> Self {
        if let Some(src) = source.as_deref() {
            for d in &mut diags {
                if let (Some(pos), Some(name)) = (d.pos, d.attr.take()) {
                    d.pos = Some(attr_pos(src.as_bytes(), pos, &name));
                }
            }
        }
        Error {
            path: path.into(),
            source,
            diags,
        }
    }
    pub fn io(path: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::new(path, None, vec![Diag::new(Kind::Io, msg)])
    }
    pub fn single(path: impl Into<String>, source: Option<Arc<str>>, d: Diag) -> Self {
        Error::new(path, source, vec![d])
    }
}

/// Position of attribute `name` in the tag starting at `pos` (`pos` itself when the tag has no
/// such attribute).
pub fn attr_pos(src: &[u8], pos: usize, name: &str) -> usize {
    let rest = src.get(pos..).unwrap_or(&[]);
    let end = memchr::memchr(b'>', rest).unwrap_or(rest.len());
    let needle = format!(" {name}=");
    memchr::memmem::find(&rest[..end], needle.as_bytes())
        .map(|i| pos + i + 1)
        .unwrap_or(pos)
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(src: &[u8], pos: usize) -> (usize, usize) {
    let mut pos = pos.min(src.len());
    // Inside a character: at its start.
    while pos > 0 && pos < src.len() && (src[pos] & 0xc0) == 0x80 {
        pos -= 1;
    }
    let before = &src[..pos];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    // Characters: every byte that does not continue a UTF-8 sequence starts one.
    let col = before[line_start..]
        .iter()
        .filter(|&&b| (b & 0xc0) != 0x80)
        .count()
        + 1;
    (line, col)
}

/// Line starts of a source text, so each diagnostic finds its line by binary search (a
/// `--check` of a big model may render 100,000 of them).
struct Lines<'s> {
    src: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    fn new(src: &'s str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { src, starts }
    }

    /// (1-based line, 1-based column in characters, the line's text).
    fn locate(&self, pos: usize) -> (usize, usize, &'s str) {
        let mut pos = pos.min(self.src.len());
        while !self.src.is_char_boundary(pos) {
            pos -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= pos);
        let start = self.starts[line - 1];
        let end = self.starts.get(line).map_or(self.src.len(), |&e| e - 1);
        let col = self.src[start..pos].chars().count() + 1;
        (
            line,
            col,
            self.src[start..end.max(start)].trim_end_matches('\r'),
        )
    }
}

fn render_one(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    src: Option<&Lines>,
    d: &Diag,
) -> fmt::Result {
    let layer = d
        .layer
        .as_ref()
        .map(|l| format!("{l}: "))
        .unwrap_or_default();
    match (src, d.pos) {
        (Some(src), Some(pos)) => {
            let (line, col, text) = src.locate(pos);
            writeln!(
                f,
                "{path}:{line}:{col}: error[{}]: {layer}{}",
                d.kind.as_str(),
                d.message
            )?;
            // Show at most 160 characters of very long lines, around the column.
            let chars: Vec<char> = text.chars().collect();
            let (start, caret) = if chars.len() > 160 && col > 80 {
                (col - 80, 80)
            } else {
                (0, col - 1)
            };
            let shown: String = chars.iter().skip(start).take(160).collect();
            let shown = shown.replace('\t', " ");
            let gutter = line.to_string();
            writeln!(f, "{:w$} |", "", w = gutter.len())?;
            writeln!(f, "{gutter} | {shown}")?;
            writeln!(f, "{:w$} | {:c$}^", "", "", w = gutter.len(), c = caret)?;
        }
        _ => writeln!(
            f,
            "{path}: error[{}]: {layer}{}",
            d.kind.as_str(),
            d.message
        )?,
    }
    for n in &d.notes {
        writeln!(f, "  = note: {n}")?;
    }
    Ok(())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = self.source.as_deref().map(Lines::new);
        for d in &self.diags {
            render_one(f, &self.path, lines.as_ref(), d)?;
        }

        if self.diags.len() > 1 {
            writeln!(f, "{} errors", self.diags.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl Error {
    /// 1-based (line, column) of each diagnostic, where it has a position and the source is
    /// known.
    pub fn positions(&self) -> Vec<Option<(usize, usize)>> {
        let lines = self.source.as_deref().map(Lines::new);
        self.diags
            .iter()
            .map(|d| {
                let (line, col, _) = lines.as_ref()?.locate(d.pos?);
                Some((line, col))
            })
            .collect()
    }
}

/// 1-based (line, column) of byte positions in a source text (one scan of the text).
pub fn positions(src: &str, pos: &[Option<usize>]) -> Vec<Option<(usize, usize)>> {
    let lines = Lines::new(src);
    pos.iter()
        .map(|p| {
            let (line, col, _) = lines.locate((*p)?);
            Some((line, col))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let s = "ab\ncdé\nx".as_bytes();
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 6), (2, 3), "inside é: at its start");
        assert_eq!(line_col(s, 3), (2, 1));
        assert_eq!(line_col(s, 8), (3, 1));
        assert_eq!(line_col(s, 100), (3, 2));
    }
}
