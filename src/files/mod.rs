//! Files a user can trust irc with: output names that cannot hit an input, temporary files no
//! one can hijack (unnamed until complete on Linux), a consistent `.xml`/`.bin` pair under
//! concurrent writers, cleanup on SIGINT/SIGTERM, an error instead of SIGBUS when an input
//! shrinks while it is mapped, and inputs that are not regular files refused at once.
//!
//! What is guaranteed, and where, is in the README ("Outputs").

pub mod direct;

use std::ffi::{CString, OsStr};
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// What a non-regular file is, in words ("a FIFO (named pipe)").
fn kind_of(m: &Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Open an input for reading without blocking on a FIFO, and refuse anything but a regular
/// file (a FIFO would hang the read, a device would map endless bytes). `what` names the role
/// ("weights") for the message.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let m = f.metadata()?;
    if !m.file_type().is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is {}, not a regular file", path.display(), kind_of(&m)),
        ));
    }
    Ok(f)
}

/// The two files of an output model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPaths {
    pub xml: PathBuf,
    pub bin: PathBuf,
}

fn identity(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// Both paths exist and are one file (through links too).
pub fn same_file(a: &Path, b: &Path) -> bool {
    identity(a).is_some_and(|x| Some(x) == identity(b))
}

/// What stands at an output path that is not a regular file (or a link to one, or nothing):
/// "a directory", "a FIFO"…, "a directory (through a link)".
fn not_a_file(p: &Path) -> Option<String> {
    if let Ok(m) = std::fs::symlink_metadata(p) {
        if !m.file_type().is_file() && !m.file_type().is_symlink() {
            return Some(kind_of(&m).to_string());
        }
    }
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => Some("a directory (through a link)".into()),
        _ => None,
    }
}

/// The `.bin` that belongs to an `.xml`: same path, extension replaced.
pub fn bin_path_for(xml: &Path) -> PathBuf {
    xml.with_extension("bin")
}

/// The `.bin` of an output `.xml`; `None` unless the name ends in `.xml` (case-sensitive) with
/// something before it, so a typo (`-o m`, `-o m.opt`, `-o m.XML`, `-o m.bin`) can never make
/// irc derive the input's `.bin` as an output.
pub fn bin_of_output(xml: &Path) -> Option<PathBuf> {
    let name = xml.file_name()?.as_bytes();
    if name.len() > 4 && name.ends_with(b".xml") {
        Some(xml.with_extension("bin"))
    } else {
        None
    }
}

/// Check an output before any work: its name ends in `.xml`, neither file is a directory or
/// anything but a regular file (or a link, which is replaced, never followed), the `.xml` and
/// `.bin` are two files, and the output `.bin` is not the input's `.bin` unless the output is
/// the input itself (in place, which is safe: the input stays mapped, the names are replaced).
/// The error is a sentence for a usage error.
pub fn check_output(out: &Path, input: &Path) -> Result<OutputPaths, String> {
    let Some(bin) = bin_of_output(out) else {
        let shown = out.display();
        let hint = match out.extension().and_then(OsStr::to_str) {
            Some(e) if e.eq_ignore_ascii_case("xml") => {
                format!("`{}`", out.with_extension("xml").display())
            }
            Some("bin") => format!("`{}`", out.with_extension("xml").display()),
            _ => format!("`{shown}.xml`"),
        };
        return Err(format!(
            "-o {shown}: an output must be named NAME.xml (its weights go to NAME.bin beside it); did you mean {hint}?"
        ));
    };
    for p in [out, bin.as_path()] {
        if let Some(kind) = not_a_file(p) {
            return Err(format!(
                "-o {}: {} is {kind}; an output must be a regular file",
                out.display(),
                p.display(),
            ));
        }
    }
    let dir = parent_dir(out);
    if !dir.is_dir() {
        return Err(format!(
            "-o {}: the directory {} does not exist",
            out.display(),
            dir.display()
        ));
    }
    let (ox, ob) = (identity(out), identity(&bin));
    if ox.is_some() && ox == ob {
        return Err(format!(
            "-o {}: {} and {} are the same file",
            out.display(),
            out.display(),
            bin.display()
        ));
    }
    let in_bin = bin_path_for(input);
    let (ix, ib) = (identity(input), identity(&in_bin));
    if ob.is_some() && ob == ib && ox != ix {
        return Err(format!(
            "-o {}: its weights would be written to {}, which is the input's weights file {}: {} would no longer read; choose another output name, or -o {} to write in place",
            out.display(),
            bin.display(),
            in_bin.display(),
            input.display(),
            input.display()
        ));
    }
    if (ob.is_some() && ob == ix) || (ox.is_some() && ox == ib) {
        return Err(format!(
            "-o {}: it would overwrite a file of the input model {}",
            out.display(),
            input.display()
        ));
    }
    Ok(OutputPaths {
        xml: out.to_path_buf(),
        bin,
    })
}

fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

// ---------------------------------------------------------------------------------------------
// Test hooks: deterministic points at which the fault suite (tests/faults.py) kills irc.

/// `IRC_TEST_STALL=POINT` (or `POINT:MS`): at that point, say so on stderr and sleep (forever,
/// or MS milliseconds). Points: `start` (input files open, nothing parsed), `read` (model read),
/// `bin-written`, `xml-written` (outputs complete, unnamed), `renamed-bin` (the `.bin` has its
/// final name, the `.xml` not yet).
pub fn stall(point: &str) {
    let Some(v) = std::env::var_os("IRC_TEST_STALL") else {
        return;
    };
    let v = v.to_string_lossy();
    let (p, ms) = match v.split_once(':') {
        Some((p, ms)) => (p, ms.parse::<u64>().ok()),
        None => (&*v, None),
    };
    if p != point {
        return;
    }
    eprintln!("irc: stalled at {point}");
    match ms {
        Some(ms) => std::thread::sleep(std::time::Duration::from_millis(ms)),
        None => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
    }
}

/// `IRC_TEST_VERIFY_FLIP=1`: before `fold --verify` runs the written `.bin` (by its temporary
/// name), flip 4 KiB in the middle of it, so the suite can see a difference refused.
pub fn test_flip(bin: &Path) {
    if std::env::var_os("IRC_TEST_VERIFY_FLIP").is_none() {
        return;
    }
    if let Ok(mut b) = std::fs::read(bin) {
        let mid = b.len() / 2;
        let end = (mid + 4096).min(b.len());
        for x in &mut b[mid..end] {
            *x ^= 0xA5;
        }
        let _ = std::fs::write(bin, b);
    }
}

// ---------------------------------------------------------------------------------------------
// Names to remove when the process is stopped (SIGINT/SIGTERM/SIGBUS). A lock-free table, so the
// SIGBUS handler can read it; entries are leaked C strings (a few per run).

const SLOTS: usize = 64;
#[allow(clippy::declare_interior_mutable_const)]
const NO_NAME: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());
static TEMP_NAMES: [AtomicPtr<libc::c_char>; SLOTS] = [NO_NAME; SLOTS];

/// A registered temporary name; unregistered when dropped.
struct Registered(Option<usize>);

fn register(path: &Path) -> Registered {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return Registered(None);
    };
    let p = c.into_raw();
    for (i, slot) in TEMP_NAMES.iter().enumerate() {
        if slot
            .compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return Registered(Some(i));
        }
    }
    // SAFETY: `p` came from `into_raw` just above and was not stored.
    drop(unsafe { CString::from_raw(p) });
    Registered(None)
}

impl Drop for Registered {
    fn drop(&mut self) {
        // The string is leaked, not freed: a signal handler may be reading it right now.
        if let Some(i) = self.0 {
            TEMP_NAMES[i].store(std::ptr::null_mut(), Ordering::Release);
        }
    }
}

/// Unlink every registered temporary name. Async-signal-safe (atomics and `unlink`).
fn remove_registered() {
    for slot in &TEMP_NAMES {
        let p = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: a NUL-terminated string leaked by `register`.
            unsafe { libc::unlink(p) };
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Temporary outputs.

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A temporary name beside `target`: `.NAME.irc-tmp-PID-N` (hidden; the PID lets a later run
/// tell a dead writer's leftovers from a live one's).
fn temp_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    parent_dir(target).join(format!(".{name}.irc-tmp-{}-{n}", std::process::id()))
}

/// An output file being written: unnamed (Linux `O_TMPFILE`) where the filesystem allows,
/// else created under a fresh hidden name with `O_EXCL | O_NOFOLLOW` (never through a link),
/// registered for removal on a signal and removed when dropped uncommitted.
pub struct TempOut {
    file: File,
    target: PathBuf,
    /// The temporary name, once it has one (the fallback, or linked for the final rename).
    named: Option<(PathBuf, Registered)>,
}

impl TempOut {
    /// Start an output file for `target` in `target`'s directory.
    pub fn create(target: &Path) -> io::Result<TempOut> {
        let dir = parent_dir(target);
        remove_stale(dir);
        if std::env::var_os("IRC_NO_TMPFILE").is_none() {
            let unnamed = OpenOptions::new()
                .write(true)
                .mode(0o666)
                .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
                .open(dir);
            if let Ok(file) = unnamed {
                return Ok(TempOut {
                    file,
                    target: target.to_path_buf(),
                    named: None,
                });
            }
        }
        let (file, name, reg) = create_named(target)?;
        Ok(TempOut {
            file,
            target: target.to_path_buf(),
            named: Some((name, reg)),
        })
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// A (temporary, hidden) name to read the finished file by before it is committed, as
    /// `fold --verify` has OpenVINO do; removed with the file if it is never committed.
    pub fn readable_path(&mut self) -> io::Result<PathBuf> {
        self.link().map(|p| p.to_path_buf())
    }

    /// Give an unnamed file a (temporary, fresh) name, so it can be renamed over the target.
    fn link(&mut self) -> io::Result<&Path> {
        if self.named.is_none() {
            let proc_path = CString::new(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
                .map_err(io::Error::other)?;
            for _ in 0..100 {
                let name = temp_name(&self.target);
                let reg = register(&name);
                let c = CString::new(name.as_os_str().as_bytes()).map_err(io::Error::other)?;
                // SAFETY: two valid C strings; linkat never follows or replaces the new name.
                let rc = unsafe {
                    libc::linkat(
                        libc::AT_FDCWD,
                        proc_path.as_ptr(),
                        libc::AT_FDCWD,
                        c.as_ptr(),
                        libc::AT_SYMLINK_FOLLOW,
                    )
                };
                if rc == 0 {
                    self.named = Some((name, reg));
                    break;
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
            }
        }
        match &self.named {
            Some((n, _)) => Ok(n),
            None => Err(io::Error::other("no free temporary name")),
        }
    }

    /// Rename over the target (consumes the temporary name).
    fn rename_into_place(&mut self) -> io::Result<()> {
        let name = self.link()?.to_path_buf();
        std::fs::rename(&name, &self.target)?;
        self.named = None;
        Ok(())
    }
}

impl Drop for TempOut {
    /// Uncommitted: the name (if any) is removed; an unnamed file vanishes with its descriptor.
    fn drop(&mut self) {
        if let Some((n, _)) = self.named.take() {
            let _ = std::fs::remove_file(n);
        }
    }
}

fn create_named(target: &Path) -> io::Result<(File, PathBuf, Registered)> {
    for _ in 0..100 {
        let name = temp_name(target);
        let reg = register(&name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&name)
        {
            Ok(f) => return Ok((f, name, reg)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free temporary name"))
}

/// Remove leftovers of writers that are gone (killed with SIGKILL in the instant between naming
/// and renaming, or on a filesystem without `O_TMPFILE`): hidden `*.irc-tmp-PID-N` names in
/// `dir` whose process no longer exists. Once per directory and process.
fn remove_stale(dir: &Path) {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static DONE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    {
        let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
        if !done
            .get_or_insert_with(HashSet::new)
            .insert(dir.to_path_buf())
        {
            return;
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = stale_pid(name.as_bytes()) else {
            continue;
        };
        // SAFETY: kill with signal 0 only checks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// The PID in a temporary name `.NAME.irc-tmp-PID-N`.
fn stale_pid(name: &[u8]) -> Option<libc::pid_t> {
    const MARK: &[u8] = b".irc-tmp-";
    if name.first() != Some(&b'.') {
        return None;
    }
    let at = memchr::memmem::rfind(name, MARK)?;
    let rest = std::str::from_utf8(&name[at + MARK.len()..]).ok()?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok().filter(|&p: &libc::pid_t| p > 0)
}

/// Serialises writers of one directory while they put a pair in place (`flock` on the
/// directory: nothing is created, and the lock goes with the process).
struct DirLock {
    _held: Option<File>,
}

impl DirLock {
    fn take(dir: &Path) -> DirLock {
        let f = File::open(dir).ok();
        if let Some(f) = &f {
            // SAFETY: flock on a descriptor we own; a failure (e.g. a filesystem without
            // locks) leaves the pair unserialised but still complete.
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        }
        DirLock { _held: f }
    }
}

/// Put a finished pair in place: both targets checked first (still not directories or
/// special files), then under the directory lock the `.bin` renamed, then the `.xml`, so a
/// reader never sees the new `.xml` with the old `.bin`, and two writers never mix their files.
pub fn commit_pair(mut bin: TempOut, mut xml: TempOut) -> Result<(), String> {
    for t in [&bin.target, &xml.target] {
        if let Ok(m) = std::fs::symlink_metadata(t) {
            if !m.file_type().is_file() && !m.file_type().is_symlink() {
                return Err(format!(
                    "{} is {}; nothing was written",
                    t.display(),
                    kind_of(&m)
                ));
            }
        }
    }
    let _lock = DirLock::take(parent_dir(&xml.target));
    let (bt, xt) = (bin.target.clone(), xml.target.clone());
    let fail = |what: &Path, e: io::Error| format!("cannot write {}: {e}", what.display());
    bin.link().map_err(|e| fail(&bt, e))?;
    xml.link().map_err(|e| fail(&xt, e))?;
    // The previous `.bin` under a second (temporary) name, so a failure to rename the `.xml`
    // can put it back: the pair left is then the previous one, never new `.bin` + old `.xml`.
    let previous = keep_previous(&bt);
    bin.rename_into_place().map_err(|e| fail(&bt, e))?;
    stall("renamed-bin");
    if let Err(e) = xml.rename_into_place() {
        let undo = match &previous {
            Previous::Kept { name, .. } => std::fs::rename(name, &bt)
                .map(|_| format!("{} is the previous one again", bt.display())),
            Previous::None => {
                std::fs::remove_file(&bt).map(|_| format!("the new {} was removed", bt.display()))
            }
            Previous::NotKept(why) => Err(io::Error::other(format!(
                "the previous one could not be kept aside ({why})"
            ))),
        };
        return Err(match undo {
            Ok(how) => format!("{}; nothing was written ({how})", fail(&xt, e)),
            Err(u) => format!(
                "{}; {} is the new one but {} the previous one, and it could not be undone: {u}",
                fail(&xt, e),
                bt.display(),
                xt.display()
            ),
        });
    }
    if let Previous::Kept { name, .. } = previous {
        let _ = std::fs::remove_file(name);
    }
    Ok(())
}

/// A target `.bin` as it was before a pair is put in place.
enum Previous {
    /// There was none.
    None,
    /// Hard-linked under this temporary name (registered for removal on a signal).
    Kept { name: PathBuf, _reg: Registered },
    /// There was one, but no second name could be made for it (a filesystem without links).
    NotKept(io::Error),
}

fn keep_previous(target: &Path) -> Previous {
    if std::fs::symlink_metadata(target).is_err() {
        return Previous::None;
    }
    let mut last = io::Error::other("no free temporary name");
    for _ in 0..100 {
        let name = temp_name(target);
        let reg = register(&name);
        match std::fs::hard_link(target, &name) {
            Ok(()) => return Previous::Kept { name, _reg: reg },
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Previous::NotKept(e),
        }
    }
    Previous::NotKept(last)
}

/// Write one file (a picture, a report) through a temporary and a rename: a reader sees the old
/// file or the new one, never a part. `target` must not be a directory or a special file.
pub fn write_one(target: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write as _;
    if let Some(kind) = not_a_file(target) {
        return Err(format!(
            "{} is {kind}; nothing was written",
            target.display()
        ));
    }
    let dir = parent_dir(target);
    if !dir.is_dir() {
        return Err(format!(
            "cannot write {}: the directory {} does not exist",
            target.display(),
            dir.display()
        ));
    }
    let fail = |e: io::Error| format!("cannot write {}: {e}", target.display());
    let mut t = TempOut::create(target).map_err(fail)?;
    t.file.write_all(bytes).map_err(fail)?;
    let _lock = DirLock::take(dir);
    t.rename_into_place().map_err(fail)
}

// ---------------------------------------------------------------------------------------------
// Mapped inputs: a file that shrinks while mapped raises SIGBUS on the next read of a lost
// page. The handler names the file, removes the temporaries and exits 1.

struct MapSlot {
    start: AtomicUsize,
    len: AtomicUsize,
    name: AtomicPtr<libc::c_char>,
}
#[allow(clippy::declare_interior_mutable_const)]
const NO_MAP: MapSlot = MapSlot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    name: AtomicPtr::new(std::ptr::null_mut()),
};
static MAPS: [MapSlot; 16] = [NO_MAP; 16];

/// A mapping registered for the SIGBUS message; unregistered when dropped.
pub struct MapGuard(Option<usize>);

/// Register the mapping `bytes` of file `path`.
pub fn guard_map(bytes: &[u8], path: &Path) -> MapGuard {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return MapGuard(None);
    };
    let p = c.into_raw();
    for (i, s) in MAPS.iter().enumerate() {
        if s.name
            .compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            s.start.store(bytes.as_ptr() as usize, Ordering::Release);
            s.len.store(bytes.len(), Ordering::Release);
            return MapGuard(Some(i));
        }
    }
    // SAFETY: from `into_raw` above, not stored.
    drop(unsafe { CString::from_raw(p) });
    MapGuard(None)
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            MAPS[i].len.store(0, Ordering::Release);
            MAPS[i].name.store(std::ptr::null_mut(), Ordering::Release); // leaked, see Registered
        }
    }
}

fn write_stderr(b: &[u8]) {
    // SAFETY: write(2) on fd 2 is async-signal-safe.
    unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
}

extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    let mut name: *const libc::c_char = std::ptr::null();
    for s in &MAPS {
        let (start, len) = (
            s.start.load(Ordering::Acquire),
            s.len.load(Ordering::Acquire),
        );
        if len > 0 && addr >= start && addr < start + len {
            name = s.name.load(Ordering::Acquire);
        }
    }
    write_stderr(b"error[io]: ");
    if name.is_null() {
        write_stderr(b"an input file changed while irc read it (SIGBUS)");
    } else {
        // SAFETY: a NUL-terminated string leaked by `guard_map`.
        let len = unsafe { libc::strlen(name) };
        // SAFETY: `len` bytes of that string.
        write_stderr(unsafe { std::slice::from_raw_parts(name.cast::<u8>(), len) });
        write_stderr(b": the file shrank while irc read it");
    }
    write_stderr(b"; nothing was written\n");
    remove_registered();
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(1) };
}

/// For the command line (once, before any other thread starts): SIGINT, SIGTERM and SIGHUP are
/// taken by a thread that removes the temporary names and exits 128 + the signal (130, 143,
/// 129); SIGBUS on a mapped input
/// becomes an error naming the file (exit 1).
pub fn install_handlers() {
    // SAFETY: plain signal-mask and sigaction calls with zeroed, then filled, structures.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) == 0 {
            let spawned = std::thread::Builder::new()
                .name("irc-signals".into())
                .spawn(move || loop {
                    let mut sig: libc::c_int = 0;
                    if libc::sigwait(&set, &mut sig) == 0 {
                        remove_registered();
                        libc::_exit(128 + sig);
                    }
                });
            if spawned.is_err() {
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            }
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigbus as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
    }
}

/// [`trim_heap`], only for a model of at least [`TRIM_MIN_LAYERS`] layers: for what runs once
/// per file of a many-file call (the reader), where a small model has little to hand back
/// and each file would pay the walk of the heap.
pub fn trim_heap_for(layers: usize) {
    if layers >= TRIM_MIN_LAYERS {
        trim_heap();
    }
}

/// See [`trim_heap_for`].
pub const TRIM_MIN_LAYERS: usize = 20_000;

/// Hand the heap's free pages back to the system after a big structure is freed (the reader's
/// tables, the inference facts). glibc keeps freed memory for reuse, resident, and a freed
/// multi-megabyte array is not always at the heap's top, where it would be trimmed by itself:
/// `malloc_trim` also releases whole free pages in the middle. A no-op elsewhere.
pub fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of glibc's allocator, which Rust uses.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_must_end_in_xml() {
        for bad in ["m", "m.opt", "m.XML", "m.bin", "m.xml.bak", ".xml", "dir/"] {
            assert_eq!(bin_of_output(Path::new(bad)), None, "{bad}");
        }
        assert_eq!(
            bin_of_output(Path::new("a/m.xml")),
            Some(PathBuf::from("a/m.bin"))
        );
        let e = check_output(Path::new("m.opt"), Path::new("m.xml")).unwrap_err();
        assert!(e.contains("m.opt.xml"), "{e}");
        let e = check_output(Path::new("m.bin"), Path::new("m.xml")).unwrap_err();
        assert!(e.contains("`m.xml`"), "{e}");
    }

    #[test]
    fn stale_names_parse() {
        assert_eq!(stale_pid(b".o.bin.irc-tmp-123-4"), Some(123));
        assert_eq!(stale_pid(b".a.irc-tmp-b.xml.irc-tmp-77-0"), Some(77));
        assert_eq!(stale_pid(b"o.bin.irc-tmp-123-4"), None);
        assert_eq!(stale_pid(b".o.bin.irc-tmp-123"), None);
        assert_eq!(stale_pid(b".o.bin.irc-tmp-x-1"), None);
    }
}
