//! What runs a model with OpenVINO: the C-API binding loaded at run time, `irc verify` (both
//! models on the same inputs, the first divergence), and the `.npz` reader for given inputs.

pub mod npz;
pub mod openvino;
pub mod verify;
