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

/// Run the irc binary from the repository root: exit code, stdout, stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_irc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run irc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/models` beside the repository root (or `IRC_SHARED_MODELS`), when it is there.
/// A plain clone has no `../shared`: then the caller's test is skipped, and this says so once.
pub fn shared_models(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("IRC_SHARED_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/models"));
    if dir.is_dir() {
        return Some(dir);
    }
    // Written to stderr directly: libtest captures eprintln!, and the notice must be seen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "{test}: skipped: {} not found (the shared model set is beside the repository in CI)",
        dir.display()
    );
    None
}

/// The `.xml` files of a directory, sorted (none if it cannot be read).
pub fn xml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "xml"));
    v.sort();
    v
}

/// Path relative to the repo root, for stable messages in snapshots.
pub fn rel(p: &Path) -> String {
    let r = repo();
    p.strip_prefix(&r).unwrap_or(p).display().to_string()
}

/// A fresh, empty temporary directory for one test, removed with what is in it when the
/// value goes (a test leaves nothing behind in TMPDIR).
pub fn tempdir(tag: &str) -> TempDir {
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
    TempDir(d)
}

/// See [`tempdir`].
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
