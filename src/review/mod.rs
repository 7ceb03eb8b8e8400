//! What reads a model and reports on it: the stable text dump, the semantic diff, statistics,
//! the picture, and the JSON report types they share with the command line.

pub mod diff;
pub mod dump;
pub mod render;
pub mod report;
pub mod stats;
