//! A progress bar on stderr for long runs: the phases of a command (read, infer, fold, write) as
//! steps. It appears only when stderr is a terminal and the run has taken more than a second,
//! so short runs, pipes and CI logs never see it. The phases advance it through
//! [`crate::trace`]; nothing else in the pipeline knows about it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

/// The bar is drawn only for runs longer than this.
const SHOW_AFTER: Duration = Duration::from_secs(1);

static CURRENT: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The bar of one command; dropping it clears the bar.
pub struct Progress {
    bar: Option<ProgressBar>,
    shown: Option<Shown>,
}

impl Progress {
    /// A bar of `steps` phases for command `cmd`; inert when `quiet` or stderr is no terminal.
    pub fn start(cmd: &str, steps: u64, quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress {
                bar: None,
                shown: None,
            };
        }
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} irc {prefix}: [{bar:24}] {pos}/{len} {msg} ({elapsed})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(cmd.to_string());
        bar.set_message("reading");
        let shown = show_later(&bar);
        if let Ok(mut c) = CURRENT.lock() {
            *c = Some(bar.clone());
        }
        Progress {
            bar: Some(bar),
            shown: Some(shown),
        }
    }
}

type Shown = (mpsc::Sender<()>, std::thread::JoinHandle<()>);

/// Show `bar` after a second, from a thread that sleeps until then or until the returned
/// sender is dropped (the command ended first: nothing is drawn).
fn show_later(bar: &ProgressBar) -> Shown {
    let (tx, rx) = mpsc::channel::<()>();
    let b = bar.clone();
    let t = std::thread::spawn(move || {
        if rx.recv_timeout(SHOW_AFTER) == Err(mpsc::RecvTimeoutError::Timeout) {
            b.set_draw_target(ProgressDrawTarget::stderr());
            b.enable_steady_tick(Duration::from_millis(120));
        }
    });
    (tx, t)
}

/// Stop the showing thread, then clear the bar.
fn end(shown: Option<Shown>, bar: Option<ProgressBar>) {
    if let Some((tx, t)) = shown {
        drop(tx);
        let _ = t.join();
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Ok(mut c) = CURRENT.lock() {
            *c = None;
        }
        end(self.shown.take(), self.bar.take());
    }
}

/// A phase ended: top-level phases (`read`, `infer`, `write` …) advance the bar, sub-phases
/// (`fold: infer`) only name what is running.
pub fn step(phase: &str) {
    let Ok(c) = CURRENT.try_lock() else { return };
    let Some(bar) = c.as_ref() else { return };
    if phase == "start" {
        return;
    }
    if !phase.contains(':') {
        bar.inc(1);
    }
    bar.set_message(format!("{phase} done"));
}

/// Run `f` (which writes to stderr) with the bar hidden, so lines do not mix with it.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = CURRENT.try_lock().ok().and_then(|c| c.clone());
    match bar {
        Some(b) => b.suspend(f),
        None => f(),
    }
}

/// A bar of bytes for one long phase (`compress`: weights read), shown as [`Progress`] is:
/// on a terminal, after a second, never under `--quiet` or in-process.
pub struct Bytes {
    bar: Option<ProgressBar>,
    shown: Option<Shown>,
}

impl Bytes {
    pub fn start(cmd: &str, total: u64, quiet: bool) -> Bytes {
        if quiet || !std::io::stderr().is_terminal() {
            return Bytes {
                bar: None,
                shown: None,
            };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} irc {prefix}: [{bar:24}] {bytes}/{total_bytes} {binary_bytes_per_sec} ({eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(cmd.to_string());
        Bytes {
            shown: Some(show_later(&bar)),
            bar: Some(bar),
        }
    }

    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        end(self.shown.take(), self.bar.take());
    }
}

/// A phase boundary: advances the progress bar, if one is shown, and with `IRC_TRACE` set,
/// prints elapsed time and resident memory (stderr).
pub fn trace(phase: &str) {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    step(phase);
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
        "[irc] {:>8.3} s  {phase:<24} rss {} kB  peak {} kB  (heap {} kB, files {} kB)",
        start.elapsed().as_secs_f64(),
        field("VmRSS:"),
        field("VmHWM:"),
        field("RssAnon:"),
        field("RssFile:")
    );
}
