//! The early copy of the input `.bin` to the output's temporary `.bin` ([`BinCopy`]).

use crate::files::TempOut;
use std::io;
use std::path::Path;

/// Copies the input .bin in steps of this size (a cancelled copy stops after the current one).
const BIN_COPY_STEP: u64 = 64 << 20;

/// A copy of the input .bin to the temporary output .bin, started early on another thread.
/// [`super::write::write_files_with`] builds on it (constants are referenced at their input offsets, new
/// ones appended) or, when too much of the input became unused, drops it.
pub struct BinCopy {
    /// The output's .bin being written (taken when the pair is put in place).
    pub(super) tmp: Option<TempOut>,
    /// The input .bin being copied.
    input: std::path::PathBuf,
    pub(super) len: u64,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// A deferred copy waits until this is sent on or dropped ([`BinCopy::begin`]).
    go: Option<std::sync::mpsc::Sender<()>>,
    handle: Option<std::thread::JoinHandle<io::Result<()>>>,
}

impl BinCopy {
    /// Start copying the .bin at `bin` for an output at `out_xml`, if it is at least `min`
    /// bytes (`IRC_BIN_COPY_MIN` overrides). Called before the XML is read, so the copy runs
    /// beside all the work on the graph.
    pub fn start(bin: &Path, out_xml: &Path, min: u64) -> Option<BinCopy> {
        Self::start_when(bin, out_xml, min, false)
    }

    /// [`BinCopy::start`]; `deferred`: the copy waits for [`BinCopy::begin`] (a big XML's
    /// read keeps both cores busy, and the work on the graph after it leaves one free).
    pub fn start_when(bin: &Path, out_xml: &Path, min: u64, deferred: bool) -> Option<BinCopy> {
        let min = std::env::var("IRC_BIN_COPY_MIN")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(min);
        let mut src = crate::files::open_regular(bin).ok()?;
        let len = src.metadata().ok()?.len();
        if len == 0 || len < min {
            return None;
        }

        let tmp = TempOut::create(&crate::files::bin_of_output(out_xml)?).ok()?;
        let mut dst = tmp.file().try_clone().ok()?;
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = cancel.clone();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        // No thread to be had: no early copy (the writer writes the .bin itself).
        let handle = std::thread::Builder::new().spawn(move || -> io::Result<()> {
            use std::io::{Read, Seek, SeekFrom};
            if deferred {
                // Sent on, or the sender dropped (the copy was begun, or dropped unused).
                let _ = wait.recv();
            }
            src.seek(SeekFrom::Start(0))?;
            let mut done = 0;
            while done < len {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok(());
                }
                let step = BIN_COPY_STEP.min(len - done);
                // File to file: std copies with copy_file_range, inside the kernel.
                let n = io::copy(&mut (&mut src).take(step), &mut dst)?;
                if n != step {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("the input .bin ended after {} of {len} bytes", done + n),
                    ));
                }
                done += n;
            }
            Ok(())
        });
        let handle = handle.ok()?;
        Some(BinCopy {
            input: bin.to_path_buf(),
            tmp: Some(tmp),
            len,
            cancel,
            go: Some(go),
            handle: Some(handle),
        })
    }

    /// Let a deferred copy start (nothing for one started at once).
    pub fn begin(&mut self) {
        self.go.take();
    }

    pub(super) fn join(&mut self) -> Result<(), String> {
        self.begin();
        match self.handle.take().map(|h| h.join()) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) if e.kind() == io::ErrorKind::UnexpectedEof => Err(format!(
                "{}: the file shrank while irc read it ({e}); nothing was written",
                self.input.display()
            )),
            Some(Ok(Err(e))) => Err(format!("copying the weights: {e}")),
            Some(Err(_)) => Err("copying the weights: the copy thread failed".into()),
        }
    }
}

impl Drop for BinCopy {
    /// An unused copy is stopped and removed (an error before writing leaves nothing behind).
    fn drop(&mut self) {
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = self.join();
    }
}
