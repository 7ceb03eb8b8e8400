//! Output and failure for every command: stdout/stderr that end quietly on a closed pipe and are
//! captured per thread in-process (the Python API), `--format`, the usage/model/internal
//! failure frame with its exit codes and JSON error report, and several files per call.

use crate::error::Error;
use crate::progress::Progress;
use crate::review::report::{self, to_json};
use clap::ValueEnum;
use std::io::Write;
use std::path::PathBuf;

/// `--format`: the human-readable text (default) or one JSON object on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(super) enum Format {
    #[default]
    Text,
    Json,
}

thread_local! {
    /// Where [`out`] and [`err`] write while a command runs in-process ([`run_captured`], the
    /// Python API; and per file for several files with `--format json`): stdout and stderr text.
    pub(super) static CAPTURE: std::cell::RefCell<Option<(String, String)>> =
        const { std::cell::RefCell::new(None) };
    /// Set while this thread runs a command for the Python API: models are freed after the
    /// command, no progress bar is drawn.
    pub(super) static IN_PROCESS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set on the threads that read one of several files: no progress bar.
    static FILE_WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with [`out`] and [`err`] captured; returns its result, stdout and stderr text.
/// Nests: an outer capture is restored afterwards.
pub(super) fn capture<R>(f: impl FnOnce() -> R) -> (R, String, String) {
    let outer = CAPTURE.with(|c| c.replace(Some((String::new(), String::new()))));
    let r = f();
    let (o, e) = CAPTURE.with(|c| c.replace(outer)).unwrap_or_default();
    (r, o, e)
}

/// Append to the captured stream (0 stdout, 1 stderr); false when nothing is capturing.
pub(super) fn captured(s: &str, stream: u8) -> bool {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some((o, e)) => {
            if stream == 0 { o } else { e }.push_str(s);
            true
        }
        None => false,
    })
}

pub(super) fn in_process() -> bool {
    IN_PROCESS.with(|c| c.get())
}

/// Set when stdout could not be written (other than a closed pipe): the run then exits 1.
pub(super) static STDOUT_FAILED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Write to stdout; a closed stdout (`| head`) ends output quietly, never with a panic. Any
/// other failure (a full disk, `/dev/full`) is said on stderr and makes the run exit 1.
pub(super) fn out(s: &str) {
    if captured(s, 0) {
        return;
    }
    let mut o = std::io::stdout().lock();
    match o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        Err(e)
            if e.kind() != std::io::ErrorKind::BrokenPipe
                && !STDOUT_FAILED.swap(true, std::sync::atomic::Ordering::Relaxed) =>
        {
            errln(&format!("error: cannot write to standard output: {e}"));
        }
        _ => {}
    }
}

/// `--format json` among the raw arguments (for errors found before they are parsed).
pub(super) fn json_requested(args: &[std::ffi::OsString]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Write to stderr (with the progress bar, if any, out of the way); errors are ignored.
pub(super) fn err(s: &str) {
    if captured(s, 1) {
        return;
    }
    crate::progress::suspend(|| {
        let _ = std::io::stderr().lock().write_all(s.as_bytes());
    });
}

pub(super) fn errln(s: &str) {
    err(&format!("{s}\n"));
}

pub(super) const INTERNAL: &str =
    "irc: internal error (this is a bug in irc; please report it with the input file)";

/// Run one command on one model (or pair, for diff) and report its failure, if any, as the
/// command line does: the exit code.
pub(super) fn one(json: bool, diff: bool, f: impl FnOnce() -> Result<i32, Fail>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(code)) => code,
        Ok(Err(Fail::Usage(m))) if json => {
            out(&to_json(&report::ErrorReport::usage(&m)));
            2
        }
        Ok(Err(Fail::Usage(m))) => {
            errln(&format!("error: {m}"));
            2
        }
        Ok(Err(Fail::Model(e))) => {
            if json {
                out(&to_json(&report::ErrorReport::from_error(&e)));
            } else {
                err(&e.to_string());
            }
            // diff: 1 means "different"; a model it cannot read is trouble, as for diff(1).
            if diff {
                2
            } else {
                1
            }
        }
        Err(_) => {
            if json {
                let mut r = report::ErrorReport::usage(INTERNAL);
                r.errors[0].kind = "internal".into();
                out(&to_json(&r));
            } else {
                errln(INTERNAL);
            }
            1
        }
    }
}

/// Run `f` on each file: one file as [`one`]; several (as given, before `--skip-non-ir`) give one report each (text: after a
/// `==> FILE <==` line when `header`; json: an array of `{"file", "exit_code", "report"}`) and
/// the worst exit code. Several files are read on up to [`FILE_WORKERS`] threads, each file's
/// output captured and printed in the order the files were given: the same bytes as one at a
/// time (pre-commit hands irc every changed model in one call).
pub(super) fn each(
    (inputs, several): (Vec<PathBuf>, bool),
    json: bool,
    header: bool,
    f: impl Fn(PathBuf) -> Result<i32, Fail> + Sync,
) -> i32 {
    if !several && inputs.len() == 1 {
        let input = inputs.into_iter().next().unwrap_or_default();
        return one(json, false, || f(input));
    }
    let mut worst = 0;
    let mut reports = Vec::new();
    let files: Vec<String> = inputs.iter().map(|i| i.display().to_string()).collect();
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    in_order(
        inputs,
        size,
        |input| capture(|| one(json, false, || f(input))),
        |i, (code, o, e)| {
            let file = &files[i];
            if json {
                err(&e);
                let report = serde_json::from_str::<serde_json::Value>(&o).unwrap_or_default();
                reports
                    .push(serde_json::json!({"file": file, "exit_code": code, "report": report}));
            } else {
                if header {
                    out(&format!("==> {file} <==\n"));
                }
                out(&o);
                err(&e);
            }
            worst = worst.max(code);
        },
    );
    if json {
        out(&to_json(&reports));
    }
    worst
}

/// Threads that read files at once for several files (each holds one model).
const FILE_WORKERS: usize = 4;

/// `work` on each item on up to [`FILE_WORKERS`] threads (as many as the machine has cores),
/// the costliest first; `done(index, result)` on this thread in the items' order, each as soon
/// as it and those before it are finished. Workers draw no progress bar; they free each model after its file
/// only in-process (the Python API), as one thread does.
fn in_order<T: Send, R: Send>(
    items: Vec<T>,
    cost: impl Fn(&T) -> u64,
    work: impl Fn(T) -> R + Sync,
    mut done: impl FnMut(usize, R),
) {
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(FILE_WORKERS)
        .min(items.len());
    if workers <= 1 {
        for (i, item) in items.into_iter().enumerate() {
            done(i, work(item));
        }
        return;
    }
    // Biggest first (by `cost`), so no big item is left to run alone at the end.
    let mut items: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    items.sort_by_key(|(i, t)| (std::cmp::Reverse(cost(t)), *i));
    let queue = std::sync::Mutex::new(items.into_iter());
    let in_process = in_process();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (tx, queue, work) = (tx.clone(), &queue, &work);
            s.spawn(move || {
                IN_PROCESS.with(|c| c.set(in_process));
                FILE_WORKER.with(|c| c.set(true));
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.next());
                    let Some((i, item)) = next else { break };
                    if tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0;
        for (i, r) in rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&next) {
                done(next, r);
                next += 1;
            }
        }
    });
}

pub(super) enum Fail {
    Usage(String),
    Model(Error),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Model(e)
    }
}

/// A writing command given several input files: a usage error.
pub(super) fn several(json: bool, what: &str, n: usize) -> i32 {
    let m = format!(
        "{what} takes one input model (got {n}); several files are taken {}",
        if what == "normalize -o" {
            "with --check"
        } else {
            "without -o"
        }
    );
    one(json, false, || Err(Fail::Usage(m)))
}

/// `--skip-non-ir`: the files that are OpenVINO IR (their root element is `<net>`); the others
/// are named on stderr. A file that cannot be read is kept, for its error.
pub(super) fn ir_only(inputs: Vec<PathBuf>, skip: bool) -> (Vec<PathBuf>, bool) {
    let several = inputs.len() > 1;
    if !skip {
        return (inputs, several);
    }
    let kept = inputs
        .into_iter()
        .filter(|p| {
            let keep = crate::xml::read::root_is_net(p).unwrap_or(true);
            if !keep {
                errln(&format!(
                    "{}: skipped: not OpenVINO IR (no <net> root)",
                    p.display()
                ));
            }
            keep
        })
        .collect();
    (kept, several)
}

/// A progress bar, never in-process (the Python API).
pub(super) fn bar(cmd: &str, steps: u64, quiet: bool) -> Progress {
    Progress::start(
        cmd,
        steps,
        quiet || in_process() || FILE_WORKER.with(|c| c.get()),
    )
}
