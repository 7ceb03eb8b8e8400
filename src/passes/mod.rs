//! Passes over a model: shape/type inference (`infer`), constant folding and dead-layer removal.

pub mod compress;
pub mod decompress;
pub mod dedup;
pub mod edit;
pub mod extract;
pub mod fold;
pub mod infer;
pub mod make;
pub mod record;
pub mod simplify;
pub mod symbolic;
pub mod validate;
pub mod wcompress;
