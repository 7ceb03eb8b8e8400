//! # irc — a compiler for OpenVINO IR
//!
//! Pipeline: [`xml::read`] (quick-xml pull parser, positions kept in a [`span::SourceMap`]) →
//! [`ir::Model`] (a petgraph `StableDiGraph` of layers; constants stay in the memory-mapped
//! `.bin`) → passes → [`xml::write`] (canonical XML, deduplicated `.bin`).
//!
//! Layout:
//! - [`ir`]: plain data — model, layers, ports, element types, shapes with intervals.
//! - [`opset`]: which op version each opset holds (generated table), [`span`]: source positions.
//! - [`xml`]: reader and writer, symmetric; the source map of byte positions lives beside the IR.
//! - [`error`]: diagnostics rendered as `file:line:col: error[kind]: …` with a caret.
//! - [`dump`]: the stable text form used for snapshot review.
//! - [`verify`]: structural invariants of any model (after reading, after every pass).
//! - [`report`], [`diff`], [`stats`]: the review commands' reports (text and `--format json`).

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

/// A phase boundary: advances the progress bar, if one is shown, and with `IRC_TRACE` set,
/// prints elapsed time and resident memory (stderr).
pub fn trace(phase: &str) {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    progress::step(phase);
    if std::env::var_os("IRC_TRACE").is_none() {
        return;
    }
    use std::io::Write;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("?")
            .to_string()
    };
    // A closed stderr is not an error worth stopping for.
    let _ = writeln!(
        std::io::stderr(),
        "[irc] {:>8.3} s  {phase:<24} rss {} kB  peak {} kB",
        start.elapsed().as_secs_f64(),
        field("VmRSS:"),
        field("VmHWM:")
    );
}
