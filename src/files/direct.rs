//! A sequential writer for big outputs that bypasses the page cache (`O_DIRECT`) and writes on
//! a thread of its own: the bytes go to the disk by DMA from one of two aligned 4 MiB buffers
//! while the caller fills the other, instead of being copied into new page-cache pages by the
//! writing thread (on a machine whose memory the host backs lazily, that copy cost more than
//! computing the bytes). The last partial block is written normally. Where the file system
//! refuses `O_DIRECT` it is an ordinary buffered writer.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::io::AsRawFd;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

const BLOCK: usize = 4096;
const BUF: usize = 4 << 20;

/// A 4 MiB buffer aligned to a block (its `Vec` over-allocated by a block).
struct Aligned {
    v: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new() -> Aligned {
        let v = vec![0u8; BUF + BLOCK];
        let start = v.as_ptr().align_offset(BLOCK);
        Aligned { v, start, len: 0 }
    }

    fn bytes(&self) -> &[u8] {
        &self.v[self.start..self.start + self.len]
    }

    fn room(&mut self) -> &mut [u8] {
        &mut self.v[self.start + self.len..self.start + BUF]
    }
}

/// Set or clear `O_DIRECT` on `f` (shared with its clones). False when the kernel refuses.
fn set_direct(f: &File, on: bool) -> bool {
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns, with integer arguments only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return false;
        }
        let want = if on {
            flags | libc::O_DIRECT
        } else {
            flags & !libc::O_DIRECT
        };
        libc::fcntl(fd, libc::F_SETFL, want) == 0
    }
}

/// Write all of `bytes`; a write `O_DIRECT` refuses (`EINVAL`: the file system, or a short
/// write that left the rest unaligned) is done again without it, and so is the rest.
fn write_block(f: &mut File, bytes: &[u8], direct: &mut bool) -> io::Result<()> {
    let mut done = 0;
    while done < bytes.len() {
        match f.write(&bytes[done..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if *direct && e.raw_os_error() == Some(libc::EINVAL) => {
                set_direct(f, false);
                *direct = false;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// See the module. Bytes are written at `file`'s position, which `finish` leaves after them.
pub struct DirectOut {
    file: File,
    cur: Aligned,
    to_writer: Option<SyncSender<Aligned>>,
    back: Option<Receiver<io::Result<Aligned>>>,
    writer: Option<JoinHandle<()>>,
    spare: Option<Aligned>,
    direct: bool,
}

impl DirectOut {
    /// A writer appending at `file`'s position, which must be a multiple of 4096 (it is 0 for
    /// a new file); else, or where `O_DIRECT` is refused, a buffered one.
    pub fn new(file: File) -> io::Result<DirectOut> {
        use std::io::Seek;
        let mut f = file;
        let at_block = f.stream_position()? % BLOCK as u64 == 0;
        let direct = at_block && set_direct(&f, true);
        let mut out = DirectOut {
            file: f,
            cur: Aligned::new(),
            to_writer: None,
            back: None,
            writer: None,
            spare: Some(Aligned::new()),
            direct,
        };
        if direct {
            let (tx, rx) = sync_channel::<Aligned>(1);
            let (btx, brx) = sync_channel::<io::Result<Aligned>>(2);
            let mut wf = out.file.try_clone()?;
            out.writer = Some(std::thread::spawn(move || {
                let mut direct = true;
                for mut b in rx {
                    let r = write_block(&mut wf, b.bytes(), &mut direct).map(|_| {
                        b.len = 0;
                        b
                    });
                    if btx.send(r).is_err() {
                        return;
                    }
                }
            }));
            out.to_writer = Some(tx);
            out.back = Some(brx);
        }
        Ok(out)
    }

    /// Hand the full current buffer over (direct) or write it (buffered).
    fn ship(&mut self) -> io::Result<()> {
        if !self.direct {
            self.file.write_all(self.cur.bytes())?;
            self.cur.len = 0;
            return Ok(());
        }
        let next = match self.spare.take() {
            Some(b) => b,
            None => self.receive()?,
        };
        let full = std::mem::replace(&mut self.cur, next);
        let tx = self
            .to_writer
            .as_ref()
            .expect("a direct writer has a thread");
        tx.send(full)
            .map_err(|_| io::Error::other("the writing thread stopped"))
    }

    fn receive(&mut self) -> io::Result<Aligned> {
        let rx = self.back.as_ref().expect("a direct writer has a thread");
        rx.recv()
            .map_err(|_| io::Error::other("the writing thread stopped"))?
    }

    /// Write what is left and leave the file's position after it, `O_DIRECT` off again.
    pub fn finish(mut self) -> io::Result<File> {
        if self.direct {
            // The whole blocks of the last buffer go direct too, then the thread ends.
            let whole = self.cur.len / BLOCK * BLOCK;
            let tail = self.cur.bytes()[whole..].to_vec();
            self.cur.len = whole;
            if whole > 0 {
                self.ship()?;
            }
            drop(self.to_writer.take());
            let rx = self.back.take().expect("a direct writer has a thread");
            let mut first_err = None;
            for r in rx {
                if let Err(e) = r {
                    first_err.get_or_insert(e);
                }
            }
            if let Some(h) = self.writer.take() {
                let _ = h.join();
            }
            if let Some(e) = first_err {
                return Err(e);
            }
            set_direct(&self.file, false);
            self.file.write_all(&tail)?;
        } else {
            self.file.write_all(self.cur.bytes())?;
        }
        Ok(self.file)
    }
}

impl Write for DirectOut {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.cur.room();
        let n = room.len().min(data.len());
        room[..n].copy_from_slice(&data[..n]);
        self.cur.len += n;
        if self.cur.len == BUF {
            self.ship()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    /// Whatever the file system says to O_DIRECT, the bytes come out in order, and the
    /// position is after them.
    #[test]
    fn bytes_in_order() {
        let dir = std::env::temp_dir().join(format!("irc-direct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.bin");
        let file = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut w = DirectOut::new(file).unwrap();
        let data: Vec<u8> = (0..(9 << 20) + 12345u32)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        for piece in data.chunks(100_003) {
            w.write_all(piece).unwrap();
        }
        let mut f = w.finish().unwrap();
        assert_eq!(f.stream_position().unwrap(), data.len() as u64);
        f.write_all(b"tail").unwrap();
        let mut back = Vec::new();
        f.seek(SeekFrom::Start(0)).unwrap();
        f.read_to_end(&mut back).unwrap();
        assert_eq!(&back[..data.len()], &data[..]);
        assert_eq!(&back[data.len()..], b"tail");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
