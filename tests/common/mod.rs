#![allow(dead_code)]
use std::path::{Path, PathBuf};

/// insta settings shared by every suite: snapshots live in `snapshots/`, named by test input.
pub fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/models`, beside the repository root.
pub fn shared_models() -> PathBuf {
    repo().join("../shared/models")
}

/// Path relative to the repo root, for stable messages in snapshots.
pub fn rel(p: &Path) -> String {
    let r = repo();
    p.strip_prefix(&r).unwrap_or(p).display().to_string()
}

/// A fresh, empty temporary directory for one test.
pub fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "irc-test-{}-{}-{}",
        tag,
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}
