//! OpenVINO's enum attributes, checked in one place before an op's shape rule: a value
//! OpenVINO's reader rejects (`"bogus" is not a member of enum …`) is an error at the attribute,
//! never read as some default. Values compare lower-cased (OpenVINO's `EnumNames` are
//! case-insensitive) except the few attributes OpenVINO keeps as strings and compares as
//! written. Measured against OpenVINO 2026.4.1 by `tests/ov/spellings.py` (every value of every
//! listed attribute, and a bogus one, on every op that has it).

use super::{Ctx, OpError, R};

struct EnumAttr {
    ops: &'static [&'static str],
    /// Op versions the attribute has this value set in (inclusive).
    versions: (u32, u32),
    attr: &'static str,
    values: &'static [&'static str],
    /// A `std::string` attribute in OpenVINO: compared as written (`"average"`, not `"AVERAGE"`).
    exact: bool,
}

const fn e(
    ops: &'static [&'static str],
    versions: (u32, u32),
    attr: &'static str,
    values: &'static [&'static str],
) -> EnumAttr {
    EnumAttr {
        ops,
        versions,
        attr,
        values,
        exact: false,
    }
}

const ALL: (u32, u32) = (0, u32::MAX);
const CONV: &[&str] = &[
    "Convolution",
    "GroupConvolution",
    "ConvolutionBackpropData",
    "GroupConvolutionBackpropData",
    "BinaryConvolution",
    "DeformableConvolution",
    "MaxPool",
    "AvgPool",
];

static TABLE: &[EnumAttr] = &[
    e(
        &["Round"],
        ALL,
        "mode",
        &["half_to_even", "half_away_from_zero"],
    ),
    e(
        &["Gelu"],
        (7, u32::MAX),
        "approximation_mode",
        &["erf", "tanh"],
    ),
    e(
        &["Pad"],
        ALL,
        "pad_mode",
        &["constant", "edge", "reflect", "symmetric"],
    ),
    e(&["Reverse"], ALL, "mode", &["index", "mask"]),
    e(&["TopK"], ALL, "mode", &["max", "min"]),
    e(&["TopK"], ALL, "sort", &["none", "index", "value"]),
    e(
        &["DepthToSpace", "SpaceToDepth"],
        ALL,
        "mode",
        &["blocks_first", "depth_first"],
    ),
    e(&["ROIAlign"], ALL, "mode", &["avg", "max"]),
    e(
        &["ROIAlign"],
        (9, u32::MAX),
        "aligned_mode",
        &["asymmetric", "half_pixel_for_nn", "half_pixel"],
    ),
    EnumAttr {
        ops: &["ROIPooling"],
        versions: ALL,
        attr: "method",
        values: &["max", "bilinear"],
        exact: true,
    },
    EnumAttr {
        ops: &["PSROIPooling"],
        versions: ALL,
        attr: "mode",
        values: &["average", "bilinear"],
        exact: true,
    },
    e(&["NormalizeL2"], ALL, "eps_mode", &["add", "max"]),
    e(
        &["MVN"],
        (6, u32::MAX),
        "eps_mode",
        &["inside_sqrt", "outside_sqrt"],
    ),
    e(
        &["ScatterElementsUpdate"],
        (12, u32::MAX),
        "reduction",
        &["none", "sum", "prod", "min", "max", "mean"],
    ),
    e(
        &["ScatterNDUpdate"],
        (15, u32::MAX),
        "reduction",
        &["none", "sum", "sub", "prod", "min", "max"],
    ),
    e(
        &["EmbeddingBagOffsets", "EmbeddingBagPacked"],
        (15, u32::MAX),
        "reduction",
        &["sum", "mean"],
    ),
    e(
        &["OneHot"],
        (16, u32::MAX),
        "negative_indices_mode",
        &["ignore_negative", "normalize"],
    ),
    e(&["SegmentMax"], ALL, "fill_mode", &["zero", "lowest"]),
    e(
        &["NonMaxSuppression"],
        ALL,
        "box_encoding",
        &["corner", "center"],
    ),
    e(
        CONV,
        ALL,
        "auto_pad",
        &["explicit", "same_upper", "same_lower", "valid"],
    ),
    e(
        &["MaxPool", "AvgPool"],
        ALL,
        "rounding_type",
        &["floor", "ceil", "ceil_torch"],
    ),
    e(
        &["Broadcast"],
        (1, 2),
        "mode",
        &["none", "explicit", "numpy", "pdpd"],
    ),
    e(
        &["Broadcast"],
        (3, u32::MAX),
        "mode",
        &["none", "explicit", "numpy", "pdpd", "bidirectional"],
    ),
    e(
        &["FakeConvert"],
        ALL,
        "destination_type",
        &["f8e4m3", "f8e5m2"],
    ),
];

/// The layer's enum attributes are values OpenVINO reads.
pub fn check(cx: &Ctx) -> R<()> {
    for t in rows_of(cx.ty) {
        if cx.version < t.versions.0 || cx.version > t.versions.1 {
            continue;
        }
        let Some(v) = cx.attr(t.attr) else { continue };
        let known = if t.exact {
            t.values.contains(&v)
        } else {
            t.values.iter().any(|x| x.eq_ignore_ascii_case(v))
        };
        if !known {
            return Err(OpError::attr(
                t.attr,
                format!(
                    "{}=\"{v}\" is not one of {}{} (OpenVINO rejects it)",
                    t.attr,
                    t.values.join(", "),
                    if t.exact { ", as written" } else { "" }
                ),
            ));
        }
    }
    Ok(())
}

/// The rows of [`TABLE`] that list op type `ty`, in table order (built once: `check` runs for
/// every layer inferred, and walking the table's op lists cost 600 instructions a layer).
fn rows_of(ty: &str) -> &'static [&'static EnumAttr] {
    use std::sync::OnceLock;
    type ByType = crate::ir::FastMap<&'static str, Vec<&'static EnumAttr>>;
    static BY_TYPE: OnceLock<ByType> = OnceLock::new();
    let by_type = BY_TYPE.get_or_init(|| {
        let mut m = ByType::default();
        for t in TABLE {
            for &op in t.ops {
                let rows = m.entry(op).or_default();
                // An op listed twice in one row still has that row once.
                if !rows.last().is_some_and(|&r| std::ptr::eq(r, t)) {
                    rows.push(t);
                }
            }
        }
        m
    });
    by_type.get(ty).map_or(&[], |v| v.as_slice())
}

/// The enum attributes `ty` version `version` has, with their values (tests/extremes.rs builds
/// layers from them).
pub fn attrs_of(ty: &str, version: u32) -> Vec<(&'static str, &'static [&'static str])> {
    rows_of(ty)
        .iter()
        .filter(|t| (t.versions.0..=t.versions.1).contains(&version))
        .map(|t| (t.attr, t.values))
        .collect()
}
