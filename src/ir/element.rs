//! OpenVINO element types: names in both spellings, bit widths, `.bin` byte sizes.

use std::fmt;

/// Every element type OpenVINO 2026.4 can put in an IR (`ov::element::Type_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    Dynamic,
    Boolean,
    Bf16,
    F16,
    F32,
    F64,
    I4,
    I8,
    I16,
    I32,
    I64,
    U1,
    U2,
    U3,
    U4,
    U6,
    U8,
    U16,
    U32,
    U64,
    Nf4,
    F8E4M3,
    F8E5M2,
    String,
    F4E2M1,
    F8E8M0,
}

use ElementType as E;

/// (type, canonical name, legacy port precision name, bits)
const TABLE: &[(ElementType, &str, &str, u32)] = &[
    (E::Dynamic, "dynamic", "UNSPECIFIED", 0),
    (E::Boolean, "boolean", "BOOL", 8),
    (E::Bf16, "bf16", "BF16", 16),
    (E::F16, "f16", "FP16", 16),
    (E::F32, "f32", "FP32", 32),
    (E::F64, "f64", "FP64", 64),
    (E::I4, "i4", "I4", 4),
    (E::I8, "i8", "I8", 8),
    (E::I16, "i16", "I16", 16),
    (E::I32, "i32", "I32", 32),
    (E::I64, "i64", "I64", 64),
    (E::U1, "u1", "BIN", 1),
    (E::U2, "u2", "U2", 2),
    (E::U3, "u3", "U3", 3),
    (E::U4, "u4", "U4", 4),
    (E::U6, "u6", "U6", 6),
    (E::U8, "u8", "U8", 8),
    (E::U16, "u16", "U16", 16),
    (E::U32, "u32", "U32", 32),
    (E::U64, "u64", "U64", 64),
    (E::Nf4, "nf4", "NF4", 4),
    (E::F8E4M3, "f8e4m3", "F8E4M3", 8),
    (E::F8E5M2, "f8e5m2", "F8E5M2", 8),
    (E::String, "string", "STRING", 0),
    (E::F4E2M1, "f4e2m1", "F4E2M1", 4),
    (E::F8E8M0, "f8e8m0", "F8E8M0", 8),
];

impl ElementType {
    pub const ALL: [ElementType; 26] = [
        E::Dynamic,
        E::Boolean,
        E::Bf16,
        E::F16,
        E::F32,
        E::F64,
        E::I4,
        E::I8,
        E::I16,
        E::I32,
        E::I64,
        E::U1,
        E::U2,
        E::U3,
        E::U4,
        E::U6,
        E::U8,
        E::U16,
        E::U32,
        E::U64,
        E::Nf4,
        E::F8E4M3,
        E::F8E5M2,
        E::String,
        E::F4E2M1,
        E::F8E8M0,
    ];

    fn row(self) -> &'static (ElementType, &'static str, &'static str, u32) {
        // TABLE is in declaration order of the enum.
        &TABLE[self as usize]
    }

    /// Canonical lower-case name (`f32`), as written in `element_type`.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// Port `precision` spelling as the 2026 serializer writes it (`FP32`, `BIN`, `BOOL`).
    pub fn precision_name(self) -> &'static str {
        self.row().2
    }

    /// Bits per element (0 for dynamic and string).
    pub fn bits(self) -> u32 {
        self.row().3
    }

    /// The spellings nearly every port and constant has, found without walking the table (a
    /// 100k-layer model has 200k of them). Each is taken by both parsers for this type (a test
    /// checks it against the table); `FP32`, `FP16` and `BOOL` are port spellings only.
    fn common(s: &str) -> Option<Self> {
        Some(match s {
            "f32" => E::F32,
            "i64" | "I64" => E::I64,
            "f16" => E::F16,
            "i32" | "I32" => E::I32,
            "boolean" => E::Boolean,
            "u8" | "U8" => E::U8,
            "i8" | "I8" => E::I8,
            _ => return None,
        })
    }

    /// Parse a `<data element_type=…>` / `destination_type` value: canonical names, case-insensitive
    /// (OpenVINO's `EnumNames<Type_t>`). `undefined` is an alias of `dynamic`.
    pub fn parse_attr(s: &str) -> Option<Self> {
        if let Some(e) = Self::common(s) {
            return Some(e);
        }
        if s.eq_ignore_ascii_case("undefined") {
            return Some(E::Dynamic);
        }
        TABLE
            .iter()
            .find(|r| r.1.eq_ignore_ascii_case(s))
            .map(|r| r.0)
    }

    /// Parse a port `precision` value: canonical or legacy spelling, case-sensitive
    /// (OpenVINO's `type_from_string`), plus a few historical aliases.
    pub fn parse_precision(s: &str) -> Option<Self> {
        match s {
            "FP32" => return Some(E::F32),
            "FP16" => return Some(E::F16),
            "BOOL" => return Some(E::Boolean),
            _ => {}
        }
        if let Some(e) = Self::common(s) {
            return Some(e);
        }
        if let Some(r) = TABLE.iter().find(|r| r.1 == s || r.2 == s) {
            return Some(r.0);
        }
        Some(match s {
            "undefined" => E::Dynamic,
            "U1" | "bin" => E::U1,
            "f8e4m3fn" => E::F8E4M3,
            _ => return None,
        })
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            E::Bf16
                | E::F16
                | E::F32
                | E::F64
                | E::Nf4
                | E::F8E4M3
                | E::F8E5M2
                | E::F4E2M1
                | E::F8E8M0
        )
    }

    pub fn is_integral(self) -> bool {
        !self.is_float() && !matches!(self, E::Dynamic | E::String)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, E::I4 | E::I8 | E::I16 | E::I32 | E::I64) || self.is_float()
    }

    /// Whole bytes per element for byte-aligned types; `None` for sub-byte, string and dynamic.
    pub fn byte_size(self) -> Option<usize> {
        let b = self.bits();
        (b >= 8 && b.is_multiple_of(8)).then_some(b as usize / 8)
    }

    /// The fewest bytes OpenVINO's reader accepts for `n` elements: `ceil(n * bits / 8)`,
    /// unpadded even for u3/u6 (whose last group [`storage_bytes`](Self::storage_bytes) pads to
    /// 3 bytes; the elements past the bytes given cannot be read). `None` for string, dynamic,
    /// and on overflow.
    pub fn min_file_bytes(self, n: u64) -> Option<u64> {
        match self {
            E::Dynamic | E::String => None,
            _ => n.checked_mul(self.bits() as u64).map(|b| b.div_ceil(8)),
        }
    }

    /// Bytes the `.bin` needs for `n` elements, padded the way OpenVINO pads packed types.
    /// `None` for string (variable size) and dynamic.
    pub fn storage_bytes(self, n: u64) -> Option<u64> {
        Some(match self {
            E::Dynamic | E::String => return None,
            E::U3 | E::U6 => {
                let per_group = if self == E::U3 { 8 } else { 4 };
                n.div_ceil(per_group).checked_mul(3)?
            }
            _ => {
                let bits = self.bits() as u64;
                n.checked_mul(bits)?.div_ceil(8)
            }
        })
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcuts give what the table gives, for every spelling in it and its case variants.
    #[test]
    fn common_spellings_agree_with_the_table() {
        let by_table_attr = |s: &str| {
            TABLE
                .iter()
                .find(|r| r.1.eq_ignore_ascii_case(s))
                .map(|r| r.0)
        };
        let by_table_precision = |s: &str| TABLE.iter().find(|r| r.1 == s || r.2 == s).map(|r| r.0);
        for r in TABLE {
            for s in [r.1, r.2] {
                for v in [s.to_string(), s.to_uppercase(), s.to_lowercase()] {
                    if v.eq_ignore_ascii_case("undefined") {
                        continue;
                    }
                    assert_eq!(E::parse_attr(&v), by_table_attr(&v), "{v}");
                    if !matches!(v.as_str(), "U1" | "bin" | "f8e4m3fn") {
                        assert_eq!(E::parse_precision(&v), by_table_precision(&v), "{v}");
                    }
                }
            }
        }
    }

    #[test]
    fn table_matches_enum_order() {
        for (i, t) in ElementType::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i);
            assert_eq!(TABLE[i].0, *t);
        }
    }

    #[test]
    fn both_spellings_parse() {
        assert_eq!(ElementType::parse_precision("FP32"), Some(E::F32));
        assert_eq!(ElementType::parse_precision("f32"), Some(E::F32));
        assert_eq!(ElementType::parse_precision("BIN"), Some(E::U1));
        assert_eq!(ElementType::parse_precision("BOOL"), Some(E::Boolean));
        assert_eq!(ElementType::parse_precision("fp32"), None);
        assert_eq!(ElementType::parse_attr("F8E4M3"), Some(E::F8E4M3));
        assert_eq!(ElementType::parse_attr("FP32"), None);
        assert_eq!(ElementType::parse_attr("bool"), None);
    }

    #[test]
    fn storage_sizes_follow_openvino_padding() {
        // shared/reference/openvino-notes.md §1.6: 5 u6 values take 6 bytes, 1 u3 value takes 3.
        assert_eq!(E::U6.storage_bytes(5), Some(6));
        assert_eq!(E::U3.storage_bytes(1), Some(3));
        assert_eq!(E::U1.storage_bytes(9), Some(2));
        assert_eq!(E::U2.storage_bytes(5), Some(2));
        assert_eq!(E::I4.storage_bytes(3), Some(2));
        assert_eq!(E::F32.storage_bytes(3), Some(12));
        assert_eq!(E::String.storage_bytes(3), None);
    }
}
