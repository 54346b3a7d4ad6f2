//! `FilePages`: the engine's page-store keys over ordinary files, in the npm package's file layout
//! (js/src/pages/node-file-page-store.ts): `<file>/<n>` is bytes `n * 8192 ..` of the file and `<file>/size` its
//! length, so the database at `path` is an ordinary SQLite file (page size 8192); SQLite's rollback journal is
//! `<path>-journal`. A store written by Python opens with the npm package and the reverse.
//!
//! Python's store commits through SQLite's own rollback journal (the engine's non-atomic page-store mode), not
//! through the npm package's redo log (`<path>-redo`). Opening replays what a crashed Node writer left committed
//! in that log (`replay_redo`), then empties it; the npm package rolls back a hot `-journal` a crashed Python
//! writer left.
//!
//! Writes are buffered per chunk (SQLite journals a page in three writes, each a read-modify-write of a chunk
//! through the VFS) and go to the files, journal first, at SQLite's `sync` and before any cut or removal of a
//! file — the journal's truncation is a transaction's commit point, so everything written before it is in the
//! files (the OS's, a process crash keeps them) first. A run of adjacent chunks goes in one write. `sync` also
//! flushes to the disk with `durable` (power-loss safety, the engine's `syncFull`).
//!
//! The journal is emptied the way SQLite's `journal_mode=PERSIST` empties it: its header is zeroed (a journal
//! whose first byte is 0 is no hot journal, and its stale records fail the next header's checksum nonce), and
//! the file keeps its blocks, so the next transaction's journal overwrites them instead of allocating them again
//! (measured here: six 8 KiB writes after a truncation 21 µs, over kept blocks 3 µs). SQLite still sees the
//! length it set (0); the file is cut to it when the store closes. A reader after a crash (either package) finds
//! a journal that is not hot, as after a PERSIST commit.

use edgemem_core::PageStore;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The VFS's chunk size (core/src/storage/vfs.rs `CHUNK`).
const CHUNK: u64 = 8192;
/// The files a store keeps, by their id in the npm package's redo log.
const FILES: [&str; 3] = ["db", "journal", "wal"];

struct Open {
    file: File,
    /// The logical length (`<file>/size`).
    size: u64,
    /// The length on disk.
    disk_len: u64,
    /// Chunks written and not yet in the file (whole chunks; only their bytes below `size` are written: the VFS
    /// pads a partly written last chunk, and records a larger size after its chunks).
    dirty: BTreeMap<u64, Vec<u8>>,
    unsynced: bool,
}

/// Buffered chunks flushed once they hold this many bytes, whatever SQLite does (a very large transaction).
const MAX_DIRTY_BYTES: usize = 64 << 20;
/// The bytes of a rollback journal's header SQLite's PERSIST mode zeroes to end a transaction (its magic, record
/// count, checksum nonce, page count and sizes).
const JOURNAL_HEADER: usize = 28;

pub struct FilePages {
    path: PathBuf,
    files: RefCell<HashMap<&'static str, Open>>,
    durable: bool,
    dirty_bytes: std::cell::Cell<usize>,
}

fn io(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("{what} {}: {e}", path.display())
}

fn split(key: &str) -> Result<(&'static str, &str), String> {
    let (name, part) = key.split_once('/').ok_or_else(|| format!("malformed page key {key:?}"))?;
    let name = FILES.iter().find(|f| **f == name).ok_or_else(|| format!("unknown page-store file {name:?}"))?;
    Ok((name, part))
}

fn chunk_index(part: &str) -> Result<u64, String> {
    part.parse().map_err(|_| format!("malformed chunk index {part:?}"))
}

impl FilePages {
    /// Opens the store's files at `path` (the database is created by the engine on its first write), after
    /// replaying a redo log a crashed npm-package writer left.
    pub fn open(path: &Path, durable: bool) -> Result<FilePages, String> {
        let pages =
            FilePages { path: path.to_path_buf(), files: RefCell::default(), durable, dirty_bytes: Default::default() };
        crate::redo::replay(&pages)?;
        Ok(pages)
    }

    pub fn path_of(&self, name: &str) -> PathBuf {
        let mut p = self.path.clone().into_os_string();
        if name != "db" {
            p.push(format!("-{name}"));
        }
        PathBuf::from(p)
    }

    /// Runs `f` on the open file `name`: opened if it exists, created when `create`; None when missing.
    fn with<R>(
        &self,
        name: &'static str,
        create: bool,
        f: impl FnOnce(&mut Open) -> Result<R, String>,
    ) -> Result<Option<R>, String> {
        let mut files = self.files.borrow_mut();
        if !files.contains_key(name) {
            let p = self.path_of(name);
            let file = match OpenOptions::new().read(true).write(true).create(create).truncate(false).open(&p) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(io("cannot open", &p, e)),
            };
            let disk_len = file.metadata().map_err(|e| io("cannot stat", &p, e))?.len();
            // A journal whose first byte is 0 was emptied (`empty_journal`): no hot journal, length 0 for SQLite.
            let mut first = [0u8; 1];
            let emptied = name == "journal"
                && disk_len > 0
                && file.read_exact_at(&mut first, 0).map_err(|e| io("cannot read", &p, e)).map(|()| first[0] == 0)?;
            let size = if emptied { 0 } else { disk_len };
            files.insert(name, Open { file, size, disk_len, dirty: BTreeMap::new(), unsynced: false });
        }
        let open = files.get_mut(name).expect("inserted above");
        f(open).map(Some)
    }

    /// Writes `bytes` at `at` in file `name` (created if missing), cutting or extending it to `size` after;
    /// used by the redo-log replay.
    pub fn write_raw(&self, name: &'static str, at: u64, bytes: &[u8]) -> Result<(), String> {
        let p = self.path_of(name);
        self.with(name, true, |o| {
            o.file.write_all_at(bytes, at).map_err(|e| io("cannot write", &p, e))?;
            o.size = o.size.max(at + bytes.len() as u64);
            o.disk_len = o.disk_len.max(at + bytes.len() as u64);
            o.unsynced = true;
            Ok(())
        })?;
        Ok(())
    }

    /// Cuts (or extends with zeros) file `name` to `size` bytes, creating it when missing.
    pub fn set_len_raw(&self, name: &'static str, size: u64) -> Result<(), String> {
        let p = self.path_of(name);
        self.with(name, true, |o| {
            o.file.set_len(size).map_err(|e| io("cannot resize", &p, e))?;
            o.size = size;
            o.disk_len = size;
            o.unsynced = true;
            Ok(())
        })?;
        Ok(())
    }

    /// The file's length on disk now (0 when missing).
    pub fn len_raw(&self, name: &'static str) -> Result<u64, String> {
        Ok(self.with(name, false, |o| Ok(o.size))?.unwrap_or(0))
    }

    /// Removes file `name`.
    pub fn remove_raw(&self, name: &'static str) -> Result<(), String> {
        self.write_dirty()?;
        self.files.borrow_mut().remove(name);
        let p = self.path_of(name);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot remove", &p, e)),
            _ => Ok(()),
        }
    }

    /// Writes the buffered chunks to the files, the journal's first (its records before the pages they guard); a
    /// run of adjacent chunks in one write.
    pub fn write_dirty(&self) -> Result<(), String> {
        if self.dirty_bytes.get() == 0 {
            return Ok(());
        }
        let mut files = self.files.borrow_mut();
        let mut run: Vec<u8> = Vec::new();
        for name in ["journal", "wal", "db"] {
            let Some(o) = files.get_mut(name) else { continue };
            let p = self.path_of(name);
            let dirty = std::mem::take(&mut o.dirty);
            let mut it = dirty.iter().peekable();
            while let Some((&ci, bytes)) = it.next() {
                let start = ci * CHUNK;
                let mut n = (o.size.saturating_sub(start) as usize).min(bytes.len());
                if n == 0 {
                    continue;
                }
                // Whole chunks followed by the next one: written together.
                let mut next = ci + 1;
                run.clear();
                while n == CHUNK as usize && it.peek().is_some_and(|(&c, _)| c == next) {
                    if run.is_empty() {
                        run.extend_from_slice(bytes);
                    }
                    let (_, more) = it.next().expect("peeked");
                    let m = (o.size.saturating_sub(next * CHUNK) as usize).min(more.len());
                    run.extend_from_slice(&more[..m]);
                    n = m;
                    next += 1;
                }
                let out = if run.is_empty() { &bytes[..n] } else { &run[..] };
                o.file.write_all_at(out, start).map_err(|e| io("cannot write", &p, e))?;
                o.disk_len = o.disk_len.max(start + out.len() as u64);
            }
            // The journal keeps blocks past its length (`empty_journal`); other files are cut or grown to it.
            if o.disk_len != o.size && (name != "journal" || o.size > o.disk_len) {
                o.file.set_len(o.size).map_err(|e| io("cannot resize", &p, e))?;
                o.disk_len = o.size;
            }
        }
        self.dirty_bytes.set(0);
        Ok(())
    }

    /// Ends a transaction as SQLite's PERSIST journal mode does (see the module's doc): the journal's header
    /// zeroed in the file, its length 0 for SQLite, its blocks kept. Everything buffered goes first (this is the
    /// commit point).
    fn empty_journal(&self) -> Result<(), String> {
        self.write_dirty()?;
        let p = self.path_of("journal");
        self.with("journal", false, |o| {
            if o.disk_len > 0 {
                let n = (o.disk_len as usize).min(JOURNAL_HEADER);
                o.file.write_all_at(&[0u8; JOURNAL_HEADER][..n], 0).map_err(|e| io("cannot write", &p, e))?;
            }
            o.size = 0;
            o.unsynced = true;
            Ok(())
        })?;
        Ok(())
    }

    /// Cuts the journal's file to the length SQLite set (its kept blocks go), as a closed store leaves it.
    fn trim_journal(&self) -> Result<(), String> {
        self.write_dirty()?;
        let p = self.path_of("journal");
        self.with("journal", false, |o| {
            if o.disk_len > o.size {
                o.file.set_len(o.size).map_err(|e| io("cannot resize", &p, e))?;
                o.disk_len = o.size;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Writes the buffered chunks, then flushes every file written since the last flush to the disk.
    pub fn flush_all(&self) -> Result<(), String> {
        self.write_dirty()?;
        for (name, o) in self.files.borrow_mut().iter_mut() {
            if o.unsynced {
                o.file.sync_data().map_err(|e| io("cannot flush", &self.path_of(name), e))?;
                o.unsynced = false;
            }
        }
        Ok(())
    }
}

impl PageStore for FilePages {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let (name, part) = split(key)?;
        if part == "size" {
            return self.with(name, false, |o| Ok(o.size.to_le_bytes().to_vec()));
        }
        let ci = chunk_index(part)?;
        let p = self.path_of(name);
        Ok(self
            .with(name, false, |o| {
                let start = ci * CHUNK;
                let end = (start + CHUNK).min(o.size);
                if end <= start {
                    return Ok(None);
                }
                let len = (end - start) as usize;
                if let Some(chunk) = o.dirty.get(&ci) {
                    return Ok(Some(chunk[..len].to_vec()));
                }
                let mut buf = vec![0; len];
                read_at(&o.file, &mut buf, start).map_err(|e| io("cannot read", &p, e))?;
                Ok(Some(buf))
            })?
            .flatten())
    }

    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        let (name, part) = split(key)?;
        if part == "size" {
            return Ok(self.get(key)?.map(|b| {
                let n = b.len().saturating_sub(offset).min(dst.len());
                dst[..n].copy_from_slice(&b[offset..offset + n]);
                n
            }));
        }
        let ci = chunk_index(part)?;
        let p = self.path_of(name);
        Ok(self
            .with(name, false, |o| {
                let start = ci * CHUNK;
                let end = (start + CHUNK).min(o.size);
                if end <= start {
                    return Ok(None);
                }
                let at = start + offset as u64;
                let n = (end.saturating_sub(at) as usize).min(dst.len());
                if let Some(chunk) = o.dirty.get(&ci) {
                    dst[..n].copy_from_slice(&chunk[offset..offset + n]);
                    return Ok(Some(n));
                }
                read_at(&o.file, &mut dst[..n], at).map_err(|e| io("cannot read", &p, e))?;
                Ok(Some(n))
            })?
            .flatten())
    }

    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        let (name, part) = split(key)?;
        if part == "size" {
            let size = u64::from_le_bytes(value.try_into().map_err(|_| format!("{key}: expected 8 bytes"))?);
            if name == "journal" && size == 0 {
                return self.empty_journal();
            }
            let shrinks = self.with(name, true, |o| Ok(size < o.size))?.unwrap_or(false);
            if shrinks {
                // A cut may be a commit point (the journal's truncation): what was written before it goes first.
                self.write_dirty()?;
            }
            let p = self.path_of(name);
            self.with(name, true, |o| {
                o.unsynced = true;
                if size < o.size {
                    o.file.set_len(size).map_err(|e| io("cannot resize", &p, e))?;
                    o.disk_len = size;
                    o.dirty.retain(|&ci, _| ci * CHUNK < size);
                } else if size > o.size && o.dirty.is_empty() && size > o.disk_len {
                    // Growth with nothing buffered (the VFS writes a file's chunks before its new size, so this
                    // is a length alone): set it now, as the flush would.
                    o.file.set_len(size).map_err(|e| io("cannot resize", &p, e))?;
                    o.disk_len = size;
                }
                o.size = size;
                Ok(())
            })?;
            return Ok(());
        }
        let ci = chunk_index(part)?;
        let p = self.path_of(name);
        let added = self
            .with(name, true, |o| {
                o.unsynced = true;
                let value = &value[..value.len().min(CHUNK as usize)];
                if let Some(chunk) = o.dirty.get_mut(&ci) {
                    chunk[..value.len()].copy_from_slice(value);
                    return Ok(0);
                }
                let mut chunk = vec![0u8; CHUNK as usize];
                if value.len() < CHUNK as usize {
                    // A short put keeps the rest of the chunk.
                    let start = ci * CHUNK;
                    let below = (o.size.saturating_sub(start) as usize).min(CHUNK as usize);
                    if below > 0 {
                        read_at(&o.file, &mut chunk[..below], start).map_err(|e| io("cannot read", &p, e))?;
                    }
                }
                chunk[..value.len()].copy_from_slice(value);
                o.dirty.insert(ci, chunk);
                Ok(CHUNK as usize)
            })?
            .unwrap_or(0);
        self.dirty_bytes.set(self.dirty_bytes.get() + added);
        if self.dirty_bytes.get() >= MAX_DIRTY_BYTES {
            self.write_dirty()?;
        }
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), String> {
        let (name, part) = split(key)?;
        if part != "size" {
            return Ok(()); // chunks past the end go with the truncation that precedes this
        }
        self.remove_raw(name)
    }

    fn sync(&self) -> Result<(), String> {
        if self.durable {
            self.flush_all()
        } else {
            self.write_dirty()
        }
    }
}

impl Drop for FilePages {
    /// What a closed store left buffered (SQLite syncs before it closes; this is the last resort), and the
    /// journal's kept blocks cut off: a closed store leaves an empty journal, as the npm package's does.
    fn drop(&mut self) {
        let _ = self.trim_journal();
    }
}

/// Reads `buf.len()` bytes at `at`; bytes past the file's end read as zeros.
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], at + done as u64)? {
            0 => break,
            n => done += n,
        }
    }
    buf[done..].fill(0);
    Ok(())
}
