//! # irc — a compiler for OpenVINO IR
//!
//! Pipeline: [`xml::read`] (quick-xml pull parser, positions kept in a [`xml::SourceMap`]) →
//! [`ir::Model`] (a petgraph `StableDiGraph` of layers; constants stay in the memory-mapped
//! `.bin`) → passes → [`xml::write`] (canonical XML, deduplicated `.bin`).
//!
//! Layout:
//! - [`ir`]: plain data — model, layers, ports, element types, shapes with intervals.
//! - [`xml`]: reader and writer, symmetric; the source map of byte positions lives beside the IR.
//! - [`error`]: diagnostics rendered as `file:line:col: error[kind]: …` with a caret.
//! - [`dump`]: the stable text form used for snapshot review.

pub mod dump;
pub mod error;
pub mod ir;
pub mod xml;

pub use error::{Diag, Error, Kind};
pub mod cli;
pub mod ops;
pub mod passes;
