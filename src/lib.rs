//! # irc — a compiler for OpenVINO IR
//!
//! Pipeline: [`xml::read`] (quick-xml pull parser, positions kept in a [`span::SourceMap`]) →
//! [`ir::Model`] (a graph of layers in slots, each slot's edges in two short arrays; constants
//! stay in the memory-mapped `.bin`) → [`passes`] → [`xml::write`] (canonical XML, deduplicated `.bin`).
//!
//! The folders are the layers, each using only those listed before it:
//! - [`error`], [`span`], [`files`], [`progress`]: diagnostics with source positions, output
//!   files written whole or not at all, the progress bar and `IRC_TRACE`.
//! - [`ir`]: plain data — model, layers, ports, element types, shapes with intervals, tensors,
//!   the mapped weights, the opset table (generated).
//! - [`ops`]: one definition per op (attributes, shape rule, kernel, folding policy) and the
//!   registry keyed by (type, version).
//! - [`xml`]: reader and writer, symmetric; the source map of byte positions beside the IR.
//! - [`passes`]: what rewrites or checks a model: inference, fold, simplify, decompression
//!   policy, compress (fp16 and NNCF's weight compression), edit, extract, symbolic dims, and
//!   the model validator.
//! - [`review`]: what reads a model and reports on it: dump, diff, stats, render, the JSON
//!   report types.
//! - [`runtime`]: what runs a model with OpenVINO: the C-API binding, `irc verify`, `.npz`.
//! - [`cli`]: the command line, one file per command.
//!
//! Where a change goes (docs/architecture.md has the whole table): a new op in `ops/` (one
//! file and a `register` line, docs/adding-an-op.md); a new pass in `passes/`; a new command
//! in `cli/` (a file holding its arguments and body, a variant in `cli/mod.rs`'s `Cmd`), with
//! what it reports in `review/`.

pub mod cli;
pub mod error;
pub mod files;
pub mod ir;
pub mod ops;
pub mod passes;
pub mod progress;
pub mod review;
pub mod runtime;
pub mod span;
pub mod xml;

pub use error::{Diag, Error, Kind};
pub use progress::trace;
