//! Layers and annotations the passes create (below fold, simplify and compress, which all make
//! them): a Const holding a tensor, the rt_info that marks a Convert as weight decompression.

use crate::ir::tensor::Tensor;
use crate::ir::*;

/// A Const layer holding `t` (its `<data>`: type, shape, size; no ports, no id yet).
pub(crate) fn const_layer(name: &str, t: &Tensor) -> Layer {
    let mut layer = Layer::new("Const", "opset1", name);
    let shape = t
        .shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let size = t.data.len().to_string();
    layer.data = Some(Attrs::from_pairs([
        ("element_type", t.et.name()),
        ("shape", shape.as_str()),
        ("offset", "0"),
        ("size", size.as_str()),
    ]));
    layer
}

/// rt_info marking a Convert as weight decompression (OpenVINO's `decompression` attribute),
/// keeping whatever else `base` carries.
pub(crate) fn decompression_rt_info(base: Option<&XmlElement>) -> XmlElement {
    let mut rt = base.cloned().unwrap_or_else(|| XmlElement {
        name: "rt_info".into(),
        attrs: Vec::new(),
        children: Vec::new(),
        text: None,
    });
    if !rt
        .children
        .iter()
        .any(|c| c.attr("name") == Some("decompression"))
    {
        rt.children.push(XmlElement {
            name: "attribute".into(),
            attrs: vec![
                ("name".into(), "decompression".into()),
                ("version".into(), "0".into()),
            ],
            children: Vec::new(),
            text: None,
        });
    }
    rt
}
