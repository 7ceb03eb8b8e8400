//! Passes over a model: shape/type inference (`infer`), constant folding and dead-layer removal.

pub mod infer;
