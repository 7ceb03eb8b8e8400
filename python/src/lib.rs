//! `irc_ov._native`: the irc command line, in-process. The Python layer (`irc_ov`) turns its
//! JSON output into dicts and its error reports into `IrcError`.

use pyo3::prelude::*;
use std::ffi::OsString;

thread_local! {
    /// The message of the last panic on this thread (a bug in irc), for the internal error.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Run `irc ARGS...` in-process and return `(exit_code, stdout, stderr)`. Nothing is printed;
/// the GIL is released while irc works, so several threads can run at once.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> (i32, String, String) {
    let mut argv: Vec<OsString> = vec!["irc".into()];
    argv.extend(args.into_iter().map(OsString::from));
    let (code, out, mut err) = py.allow_threads(|| irc::cli::run_captured(argv));
    if let Some(p) = LAST_PANIC.with(|c| c.borrow_mut().take()) {
        err.push_str(&format!("irc: panic: {p}\n"));
    }
    (code, out, err)
}

/// [`run`] for `--format json` commands: `(exit_code, report, stderr)`, the report (stdout)
/// parsed into Python objects (`None` when stdout is not JSON).
#[pyfunction]
fn run_json(py: Python<'_>, args: Vec<String>) -> PyResult<(i32, PyObject, String)> {
    let (code, out, err) = run(py, args);
    let report = match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(v) => to_py(py, &v)?,
        Err(_) => py.None(),
    };
    Ok((code, report, err))
}

fn to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<PyObject> {
    use pyo3::types::{PyDict, PyList};
    use pyo3::IntoPyObjectExt;
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py_any(py)?,
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_py_any(py)?
            }
        }
        Value::String(s) => s.into_py_any(py)?,
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any().unbind()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The `irc` command: run the command line with `argv` (`argv[0]` is the program name) on the
/// process's own stdout and stderr, with the binary's signal handling; returns the exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    let argv: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    py.allow_threads(|| irc::cli::main_args(argv))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // irc catches its own panics and reports an internal error; the default hook would also
    // print a Rust backtrace into the Python program's stderr. Keep the message for the error.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|c| *c.borrow_mut() = Some(format!("{msg}{at}")));
    }));
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("IRC_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
