//! Dimensions with intervals and partial shapes, with OpenVINO's text grammar.

use smallvec::SmallVec;
use std::fmt;

/// One dimension: the interval `[min, max]`; `max() == None` means unbounded.
/// 16 bytes (the upper bound `u64::MAX` stands for "unbounded"): shapes are everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim {
    pub min: u64,
    hi: u64,
}

const UNBOUNDED: u64 = u64::MAX;

impl Dim {
    /// A static length; i64::MAX or more is `?`, as in OpenVINO (`Dimension(2^63 - 1)` is its
    /// empty interval, read and printed as `?`).
    pub const fn known(v: u64) -> Self {
        if v >= i64::MAX as u64 {
            return Dim::any();
        }
        Dim { min: v, hi: v }
    }
    /// `?`: any length.
    pub const fn any() -> Self {
        Dim {
            min: 0,
            hi: UNBOUNDED,
        }
    }
    /// Both bounds through a monotone `f`; a bound `f` has no value for (past i64::MAX, say)
    /// is unknown: without a minimum the dim is `?`, without a maximum it is unbounded.
    pub fn map_bounds(self, f: impl Fn(u64) -> Option<u64>) -> Dim {
        match f(self.min) {
            None => Dim::any(),
            Some(lo) => Dim::interval(lo, self.max().and_then(f)),
        }
    }
    /// `[min, max]`. An empty interval (max below min) is a bug in the caller: debug builds
    /// check it (OpenVINO can build one; irc says `?` there instead). An upper bound of
    /// i64::MAX or more above the minimum is unbounded, as in OpenVINO's `Interval`, whose
    /// i64::MAX is its infinity (`2..9223372036854775807` is `2..`).
    pub const fn interval(min: u64, max: Option<u64>) -> Self {
        if let Some(m) = max {
            debug_assert!(
                m >= min,
                "an empty dimension interval (upper bound below lower)"
            );
        }
        if min >= i64::MAX as u64 {
            return Dim::any();
        }
        Dim {
            min,
            hi: match max {
                Some(m) if m >= i64::MAX as u64 && m > min => UNBOUNDED,
                Some(m) => m,
                None => UNBOUNDED,
            },
        }
    }
    /// The upper bound; `None` when unbounded.
    pub const fn max(&self) -> Option<u64> {
        if self.hi == UNBOUNDED {
            None
        } else {
            Some(self.hi)
        }
    }
    /// The length when the dimension is static.
    pub fn get(&self) -> Option<u64> {
        (self.hi == self.min && self.hi != UNBOUNDED).then_some(self.min)
    }
    pub fn is_static(&self) -> bool {
        self.get().is_some()
    }

    /// Parse one dimension: `3`, `?`, `-1`, `1..10`, `..10`, `5..`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s == "?" || s == "-1" {
            return Ok(Dim::any());
        }
        if let Some((lo, hi)) = s.split_once("..") {
            let lo = lo.trim();
            let hi = hi.trim();
            let min = if lo.is_empty() { 0 } else { parse_u64(lo)? };
            let max = if hi.is_empty() || hi == "-1" {
                None
            } else {
                Some(parse_u64(hi)?)
            };
            if let Some(m) = max {
                if m < min {
                    return Err(format!("interval '{s}' has max < min"));
                }
            }
            return Ok(Dim::interval(min, max));
        }
        Ok(Dim::known(parse_u64(s)?))
    }
}

fn parse_u64(s: &str) -> Result<u64, String> {
    // Rust takes a leading `+`; OpenVINO does not.
    let digits = if s.starts_with('+') { "" } else { s };
    digits.parse::<u64>().map_err(|_| {
        if s.starts_with('-') {
            format!("dimension '{s}' is negative (only -1 means dynamic)")
        } else {
            format!("'{s}' is not a dimension")
        }
    })
}

impl fmt::Display for Dim {
    /// OpenVINO's `Dimension` text: `3`, `?`, `1..10`, `..10`, `5..`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max()) {
            (a, Some(b)) if a == b => write!(f, "{a}"),
            (0, None) => f.write_str("?"),
            (0, Some(b)) => write!(f, "..{b}"),
            (a, None) => write!(f, "{a}.."),
            (a, Some(b)) => write!(f, "{a}..{b}"),
        }
    }
}

pub type Dims = SmallVec<[Dim; 4]>;

/// A shape whose rank may be unknown.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartialShape {
    /// Dynamic rank (`...`).
    Dynamic,
    Ranked(Dims),
}

impl Default for PartialShape {
    fn default() -> Self {
        PartialShape::Ranked(Dims::new())
    }
}

impl PartialShape {
    pub fn scalar() -> Self {
        PartialShape::Ranked(Dims::new())
    }
    pub fn from_static(dims: &[u64]) -> Self {
        PartialShape::Ranked(dims.iter().map(|&d| Dim::known(d)).collect())
    }
    pub fn rank(&self) -> Option<usize> {
        match self {
            PartialShape::Dynamic => None,
            PartialShape::Ranked(d) => Some(d.len()),
        }
    }
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            PartialShape::Dynamic => None,
            PartialShape::Ranked(d) => Some(d),
        }
    }
    /// The static dims, if every dim is static.
    pub fn to_static(&self) -> Option<Vec<u64>> {
        self.dims()?.iter().map(|d| d.get()).collect()
    }
    pub fn is_static(&self) -> bool {
        self.dims()
            .is_some_and(|d| d.iter().all(|x| x.get().is_some()))
    }
    /// [`PartialShape::element_count`] of [`PartialShape::to_static`], without collecting the
    /// dims (inference asks it of most outputs).
    pub fn static_count(&self) -> Option<u64> {
        self.dims()?
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(d.get()?))
    }
    /// Whether the shape is static and equal to `dims`, without collecting its dims.
    pub fn is_static_as(&self, dims: &[u64]) -> bool {
        self.dims().is_some_and(|d| {
            d.len() == dims.len() && d.iter().zip(dims).all(|(a, &b)| a.get() == Some(b))
        })
    }

    /// Parse the Parameter `shape` grammar: comma-separated dims, `...` for dynamic rank, empty for
    /// a scalar. Tolerates spaces and surrounding brackets, as OpenVINO's reader does.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut t = s.trim();
        if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            t = inner.trim();
        }
        if t == "..." {
            return Ok(PartialShape::Dynamic);
        }
        if t.is_empty() {
            return Ok(PartialShape::scalar());
        }
        let mut dims = Dims::new();
        for part in t.split(',') {
            dims.push(Dim::parse(part)?);
        }
        Ok(PartialShape::Ranked(dims))
    }

    /// Parse a Const `shape` attribute: comma-separated non-negative integers, empty for scalar.
    pub fn parse_static(s: &str) -> Result<Vec<u64>, String> {
        match Self::parse_static_plain(s) {
            Some(dims) => Ok(dims),
            None => Self::parse_static_general(s),
        }
    }

    fn parse_static_general(s: &str) -> Result<Vec<u64>, String> {
        let t = s.trim();
        if t.is_empty() {
            return Ok(Vec::new());
        }
        t.split(',').map(|p| parse_u64(p.trim())).collect()
    }

    /// [`PartialShape::parse_static`] of the form writers use (`512, 32`, `1,3`, ``: digits,
    /// commas, spaces), in one pass and one allocation at its size; `None` for anything else
    /// (other whitespace, signs, empty parts, overflow), which the general parse takes with
    /// its messages. Why: each constant's shape is read twice on the way to its value.
    fn parse_static_plain(s: &str) -> Option<Vec<u64>> {
        let b = s.as_bytes();
        if b.iter().all(|&c| c == b' ') {
            return Some(Vec::new());
        }
        let mut dims = Vec::with_capacity(1 + b.iter().filter(|&&c| c == b',').count());
        let mut i = 0;
        loop {
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
            let start = i;
            let mut v = 0u64;
            while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
                i += 1;
            }
            if i == start {
                return None;
            }
            dims.push(v);
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
            match b.get(i) {
                None => return Some(dims),
                Some(b',') => i += 1,
                Some(_) => return None,
            }
        }
    }

    /// Number of elements, when static and not overflowing.
    pub fn element_count(dims: &[u64]) -> Option<u64> {
        dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }
}

impl fmt::Display for PartialShape {
    /// OpenVINO's serialized form: `1..10,?,3`, `...` for dynamic rank, empty for a scalar.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialShape::Dynamic => f.write_str("..."),
            PartialShape::Ranked(d) => {
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                Ok(())
            }
        }
    }
}

/// `[1,?,3]` form used in messages and dumps.
pub struct Bracketed<'a>(pub &'a PartialShape);

impl fmt::Display for Bracketed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            PartialShape::Dynamic => f.write_str("[...]"),
            s => write!(f, "[{s}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_shape_grammar() {
        let cases = [
            ("1,3,224,224", "1,3,224,224"),
            ("?,576", "?,576"),
            ("-1,3", "?,3"),
            ("1..10,..10,5..", "1..10,..10,5.."),
            ("...", "..."),
            ("", ""),
            ("[1, 3]", "1,3"),
            (" 1 , 3 ", "1,3"),
        ];
        for (input, canon) in cases {
            let s = PartialShape::parse(input).unwrap();
            assert_eq!(s.to_string(), canon, "{input}");
        }
        assert!(PartialShape::parse("1,x").is_err());
        assert!(PartialShape::parse("-2").is_err());
        assert!(PartialShape::parse("5..3").is_err());
    }

    /// The element count and comparisons made without collecting the dims agree with
    /// `to_static` and `element_count`.
    #[test]
    fn static_queries_agree_with_to_static() {
        let big = 1u64 << 40;
        let cases = [
            "1,3,224,224",
            "",
            "0",
            "?,576",
            "1..10,3",
            "...",
            "0,?",
            "2,?,3",
        ];
        for text in cases {
            let s = PartialShape::parse(text).unwrap();
            let st = s.to_static();
            assert_eq!(s.is_static(), st.is_some(), "{text}");
            assert_eq!(
                s.static_count(),
                st.as_deref().and_then(PartialShape::element_count),
                "{text}"
            );
            for dims in [&[1u64, 3, 224, 224][..], &[], &[0], &[576]] {
                assert_eq!(s.is_static_as(dims), st.as_deref() == Some(dims), "{text}");
            }
        }
        let over = PartialShape::from_static(&[big, big]);
        assert_eq!(over.static_count(), None);
        assert_eq!(
            PartialShape::from_static(&[big, big, 0]).static_count(),
            None
        );
        assert_eq!(
            PartialShape::from_static(&[big, 0, big]).static_count(),
            Some(0)
        );
    }

    #[test]
    fn const_shape() {
        assert_eq!(
            PartialShape::parse_static("4, 3, 3, 3").unwrap(),
            vec![4, 3, 3, 3]
        );
        assert_eq!(PartialShape::parse_static("").unwrap(), Vec::<u64>::new());
        assert!(PartialShape::parse_static("-1").is_err());
        // The one-pass form reads what it takes as the general parse does, and leaves the rest.
        let cases = [
            "",
            " ",
            "0",
            "512, 32",
            "1,3",
            " 4 , 5 ",
            "007",
            "1,,2",
            ",",
            "1,",
            "+1",
            "-1",
            "1\t,2",
            "\u{a0}1",
            "18446744073709551615",
            "18446744073709551616",
            "1 2",
            "[1,2]",
        ];
        for c in cases {
            if let Some(d) = PartialShape::parse_static_plain(c) {
                assert_eq!(Ok(d), PartialShape::parse_static_general(c), "{c:?}");
            }
        }
        let taken = cases
            .iter()
            .filter(|c| PartialShape::parse_static_plain(c).is_some());
        assert_eq!(taken.count(), 8);
    }
}
