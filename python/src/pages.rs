//! `FilePages`: the engine's page-store keys over ordinary files, in the npm package's file layout and with its
//! commit protocol (js/src/pages/file-page-store.ts): `<file>/<n>` is bytes `n * 8192 ..` of the file and
//! `<file>/size` its length, so the database at `path` is an ordinary SQLite file (page size 8192); each engine
//! call is one transaction, committed through the redo log `<path>-redo` (redo.rs). A store written by Python
//! opens with the npm package and the reverse, also after a crash of either writer.
//!
//! The engine runs as for any host that commits atomically (SQLite's journal in memory, no syncs): the puts of a
//! call are kept (reads see them) and, when the call ends, `commit` appends them to the log as one transaction —
//! one write, flushed when `durable` — the commit point; once the call is answered, `after` writes them in place,
//! not flushed (the caller goes on meanwhile; the next call begins after it). `abort` drops them. A checkpoint (the files flushed when durable, then the log started over) runs once the log passes
//! `CHECKPOINT_BYTES`, when the store's thread goes idle with `IDLE_CHECKPOINT_BYTES` in it, and at close;
//! opening replays the log's committed transactions, so a crash between a commit and its checkpoint loses nothing.
//!
//! A store last written by an earlier version of this package may have a rollback journal `<path>-journal`:
//! the engine rolls a hot one back on open. One whose header is zeroed (that version's end of a transaction) is
//! no hot journal and reads as empty.

use crate::redo::{Entry, Log, Logged, Op, CHUNK};
use edgemem_core::{Error, ErrorCode, PageStore};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The files a store keeps, by their id in the redo log.
const FILES: [&str; 3] = ["db", "journal", "wal"];
/// Chunks a transaction keeps in memory before it moves them to the log (4 MiB).
const MAX_PENDING_BYTES: usize = 4 << 20;
/// The log's size past which a commit checkpoints: a durable store's checkpoint flushes the files, a few
/// milliseconds; another's writes the log's header alone, so its log (and the file it grows) stays small.
const CHECKPOINT_BYTES: u64 = 16 << 20;
const CHECKPOINT_BYTES_NOT_DURABLE: u64 = 1 << 20;
/// The log's size from which an idle store's thread checkpoints.
const IDLE_CHECKPOINT_BYTES: u64 = 1 << 20;

/// The database paths open in this process (their directory resolved): a second store on one would write over the
/// first one's log.
static OPEN: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Claims `path` for this process: CONFLICT when a store has it open.
fn claim(path: &Path) -> Result<PathBuf, Error> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let key =
        std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()).join(path.file_name().unwrap_or_default());
    if !OPEN.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone()) {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!("{} is already open in this process; close that store first", path.display()),
        ));
    }
    Ok(key)
}

fn release(key: &Path) {
    OPEN.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
}

/// One file as the store holds it open.
struct Open {
    /// Its index in `FILES`.
    id: u32,
    file: File,
    /// The logical length and existence (`<file>/size`), with the running transaction's changes.
    size: u64,
    exists: bool,
    /// Length and existence as of the last commit.
    committed_size: u64,
    committed_exists: bool,
    /// The length on disk.
    disk_len: u64,
    /// The running transaction's chunks in memory (whole chunks; only bytes below `size` are written in place).
    dirty: BTreeMap<u64, Vec<u8>>,
    /// The running transaction's chunks moved to the log: where their bytes are in it.
    spilled: BTreeMap<u64, u64>,
    /// The least length the running transaction cut the file to (u64::MAX: none): zeros from here on.
    floor: u64,
    changed: bool,
    /// Written in place since the last checkpoint.
    unsynced: bool,
}

pub struct FilePages {
    path: PathBuf,
    durable: bool,
    files: RefCell<BTreeMap<&'static str, Open>>,
    /// Files found missing: SQLite asks after its journal on every transaction.
    missing: RefCell<HashSet<&'static str>>,
    log: RefCell<Log>,
    pending_bytes: Cell<usize>,
    /// Some of the running transaction's chunks are in the log.
    spilled_any: Cell<bool>,
    /// A commit reached the log but not all of the files: the log is replayed before anything else.
    replay_due: Cell<bool>,
    /// The last commit is in the log, not yet in place (`after`).
    in_place_due: Cell<bool>,
    /// A read or write of the files failed during the running call: it is not committed.
    failed: Cell<bool>,
    /// Given up after a failure (`poison`): nothing is written any more, the log is left for the next open.
    poisoned: Cell<bool>,
    /// This process's claim on the path (released by `poison` and on drop).
    claim: RefCell<Option<PathBuf>>,
    free: RefCell<Vec<Vec<u8>>>,
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

fn file_name(id: u32) -> Result<&'static str, String> {
    FILES.get(id as usize).copied().ok_or_else(|| format!("the redo log names an unknown file {id}"))
}

impl FilePages {
    /// Opens the store's files at `path` (the database is created by the engine on its first write) and its redo
    /// log, replaying the transactions a crashed writer (either package) committed there.
    pub fn open(path: &Path, durable: bool) -> Result<FilePages, Error> {
        let claim = claim(path)?;
        let cannot = |e: String| Error::invalid(format!("cannot open {}: {e}", path.display()));
        let (log, found) = match Log::open(&Self::path_at(path, "redo"), durable) {
            Ok(opened) => opened,
            Err(e) => {
                release(&claim);
                return Err(cannot(e));
            }
        };
        let pages = FilePages {
            path: path.to_path_buf(),
            durable,
            files: RefCell::default(),
            missing: RefCell::default(),
            log: RefCell::new(log),
            pending_bytes: Cell::new(0),
            spilled_any: Cell::new(false),
            replay_due: Cell::new(false),
            in_place_due: Cell::new(false),
            failed: Cell::new(false),
            poisoned: Cell::new(false),
            claim: RefCell::new(Some(claim)),
            free: RefCell::default(),
        };
        if !found.is_empty() {
            if let Err(e) = pages.replay(&found).and_then(|()| pages.checkpoint()) {
                pages.poison(); // the log stays as it is, for the next open to replay
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("cannot recover {} from its redo log: {e}", path.display()),
                ));
            }
        }
        Ok(pages)
    }

    /// Gives up after a failure: nothing more is written (not even a checkpoint), and the path is free to open again.
    pub fn poison(&self) {
        self.poisoned.set(true);
        if let Some(c) = self.claim.borrow_mut().take() {
            release(&c);
        }
    }

    /// Notes a failed read or write of the files: the running call is not committed.
    fn note<T>(&self, r: Result<T, String>) -> Result<T, String> {
        if r.is_err() {
            self.failed.set(true);
        }
        r
    }

    fn path_at(path: &Path, name: &str) -> PathBuf {
        let mut p = path.to_path_buf().into_os_string();
        if name != "db" {
            p.push(format!("-{name}"));
        }
        PathBuf::from(p)
    }

    fn path_of(&self, name: &str) -> PathBuf {
        Self::path_at(&self.path, name)
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
            if !create && self.missing.borrow().contains(name) {
                return Ok(None);
            }
            let p = self.path_of(name);
            let file = match OpenOptions::new().read(true).write(true).create(create).truncate(false).open(&p) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    self.missing.borrow_mut().insert(name);
                    return Ok(None);
                }
                Err(e) => return Err(io("cannot open", &p, e)),
            };
            self.missing.borrow_mut().remove(name);
            let disk_len = file.metadata().map_err(|e| io("cannot stat", &p, e))?.len();
            // A journal whose first byte is 0 was emptied by an earlier version: no hot journal, length 0.
            let mut first = [0u8; 1];
            let emptied = name == "journal"
                && disk_len > 0
                && file.read_exact_at(&mut first, 0).map_err(|e| io("cannot read", &p, e)).map(|()| first[0] == 0)?;
            let size = if emptied { 0 } else { disk_len };
            let id = FILES.iter().position(|f| *f == name).unwrap_or(0) as u32;
            let open = Open {
                id,
                file,
                size,
                exists: true,
                committed_size: size,
                committed_exists: true,
                disk_len,
                dirty: BTreeMap::new(),
                spilled: BTreeMap::new(),
                floor: u64::MAX,
                changed: false,
                unsynced: false,
            };
            files.insert(name, open);
        }
        match files.get_mut(name) {
            Some(o) => f(o).map(Some),
            None => Ok(None),
        }
    }

    /// Fills `dst` with chunk `ci`'s bytes from `from` on, as the running transaction sees them.
    fn read_chunk(&self, o: &Open, ci: u64, from: usize, dst: &mut [u8]) -> Result<(), String> {
        if let Some(chunk) = o.dirty.get(&ci) {
            dst.copy_from_slice(&chunk[from..from + dst.len()]);
            return Ok(());
        }
        if let Some(&at) = o.spilled.get(&ci) {
            return self.log.borrow().read(at + from as u64, dst);
        }
        let at = ci * CHUNK + from as u64;
        let n = (o.disk_len.min(o.floor).saturating_sub(at) as usize).min(dst.len());
        let mut done = 0;
        while done < n {
            match o.file.read_at(&mut dst[done..n], at + done as u64) {
                Ok(0) => break,
                Ok(k) => done += k,
                Err(e) => return Err(io("cannot read", &self.path_of(FILES[o.id as usize]), e)),
            }
        }
        dst[done..].fill(0);
        Ok(())
    }

    /// Cuts `o` to `n` bytes in the running transaction.
    fn shrink(&self, o: &mut Open, n: u64) -> Result<(), String> {
        let gone: Vec<u64> = o.dirty.range(n.div_ceil(CHUNK)..).map(|(&ci, _)| ci).collect();
        for ci in gone {
            if let Some(c) = o.dirty.remove(&ci) {
                self.recycle(c);
            }
        }
        o.spilled.retain(|&ci, _| ci * CHUNK < n);
        let (ci, cut) = (n / CHUNK, (n % CHUNK) as usize);
        if cut != 0 {
            if let Some(&at) = o.spilled.get(&ci) {
                // The chunk across the cut comes back from the log, zeroed past it, so in place and replayed agree.
                let mut chunk = self.chunk_buf();
                self.log.borrow().read(at, &mut chunk)?;
                o.spilled.remove(&ci);
                o.dirty.insert(ci, chunk);
                self.pending_bytes.set(self.pending_bytes.get() + CHUNK as usize);
            }
            if let Some(c) = o.dirty.get_mut(&ci) {
                c[cut..].fill(0);
            }
        }
        if self.spilled_any.get() {
            self.log.borrow_mut().cut(o.id, n)?; // after the chunks of this file that are logged already
        }
        o.size = n;
        o.floor = o.floor.min(n);
        Ok(())
    }

    fn chunk_buf(&self) -> Vec<u8> {
        self.free.borrow_mut().pop().unwrap_or_else(|| vec![0u8; CHUNK as usize])
    }

    fn recycle(&self, chunk: Vec<u8>) {
        let mut free = self.free.borrow_mut();
        if free.len() < 64 {
            free.push(chunk);
        }
    }

    /// Moves the running transaction's chunks to the log (not committed): memory stays bounded.
    fn spill(&self) -> Result<(), String> {
        let mut files = self.files.borrow_mut();
        for o in files.values_mut().filter(|o| o.changed) {
            let dirty = std::mem::take(&mut o.dirty);
            let chunks: Vec<(u32, u64, &[u8])> = dirty.iter().map(|(&ci, c)| (o.id, ci, &c[..])).collect();
            let at = self.log.borrow_mut().append(&chunks)?;
            for ((&ci, _), at) in dirty.iter().zip(at) {
                o.spilled.insert(ci, at);
            }
            for (_, c) in dirty {
                self.recycle(c);
            }
        }
        self.pending_bytes.set(0);
        self.spilled_any.set(true);
        Ok(())
    }

    /// Commits the running transaction: its chunks and the files' new lengths to the log, the commit point (`after`
    /// writes them in place). An error drops the transaction.
    pub fn commit(&self) -> Result<(), String> {
        if self.poisoned.get() {
            return Err("the store was closed after a failure".into());
        }
        if self.failed.replace(false) {
            self.abort();
            return Err("a read or write of the store's files failed during the call".into());
        }
        let files = self.files.borrow_mut();
        if !files.values().any(|o| o.changed) {
            return Ok(());
        }
        let mut chunks = Vec::new();
        let mut entries = Vec::new();
        for o in files.values().filter(|o| o.changed) {
            chunks.extend(o.dirty.iter().map(|(&ci, c)| (o.id, ci, &c[..])));
            let size = if o.exists { o.size } else { 0 };
            entries.push(Entry { file: o.id, exists: o.exists, floor: o.floor.min(o.committed_size), size });
        }
        let logged = self.log.borrow_mut().commit(&chunks, &entries);
        drop(chunks);
        if let Err(e) = logged {
            drop(files);
            self.abort();
            self.failed.set(true); // a caller committing inside a call (the bench) fails the call too
            return Err(e);
        }
        self.in_place_due.set(true);
        Ok(())
    }

    /// Writes the last committed transaction in place (the store's thread calls this once the call is answered:
    /// the caller goes on meanwhile), then checkpoints when the log has grown past its limit.
    pub fn after(&self) {
        if self.poisoned.get() || !self.in_place_due.replace(false) {
            return;
        }
        let mut files = self.files.borrow_mut();
        let mut removed = Vec::new();
        for (name, o) in files.iter_mut().filter(|(_, o)| o.changed) {
            if !o.exists {
                removed.push(*name);
            } else if self.write_in_place(o).is_err() {
                // Committed (the log has it), not all in place: the log is replayed before the next call.
                self.replay_due.set(true);
            }
        }
        for o in files.values_mut().filter(|o| o.changed) {
            self.settle(o, true);
        }
        drop(files);
        for name in removed {
            if self.remove_file(name).is_err() {
                self.replay_due.set(true);
            }
        }
        self.pending_bytes.set(0);
        self.spilled_any.set(false);
        let limit = if self.durable { CHECKPOINT_BYTES } else { CHECKPOINT_BYTES_NOT_DURABLE };
        if !self.replay_due.get() && self.log.borrow().used() > limit {
            let _ = self.checkpoint(); // nothing is lost on failure: the log keeps every commit
        }
    }

    /// Drops the running transaction's writes.
    pub fn abort(&self) {
        self.after(); // a committed transaction not yet in place is no part of it
        for o in self.files.borrow_mut().values_mut().filter(|o| o.changed) {
            self.settle(o, false);
        }
        self.pending_bytes.set(0);
        self.spilled_any.set(false);
        self.log.borrow_mut().abort();
    }

    /// Checkpoints when the log holds enough to be worth it (the store's thread calls this as it goes idle).
    pub fn idle(&self) {
        if self.poisoned.get() {
            return;
        }
        self.after();
        if self.replay_due.get() {
            let _ = self.recover();
        } else if self.log.borrow().used() >= IDLE_CHECKPOINT_BYTES {
            let _ = self.checkpoint(); // nothing is lost on failure: the log keeps every commit
        }
    }

    /// Before a call: the log replayed first when a commit did not reach the files in place.
    pub fn begin(&self) -> Result<(), String> {
        if self.poisoned.get() {
            return Err("the store was closed after a failure".into());
        }
        self.failed.set(false);
        self.after();
        if self.replay_due.get() {
            self.recover()?;
        }
        Ok(())
    }

    /// Checkpoints: the files then hold every commit (flushed when durable). Call after the last commit.
    pub fn close(&self) -> Result<(), String> {
        if self.poisoned.get() {
            return Ok(());
        }
        self.begin()?;
        if self.log.borrow().used() > 0 {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Ends the transaction for `o`: its state becomes the committed one, or goes back to it.
    fn settle(&self, o: &mut Open, committed: bool) {
        for (_, c) in std::mem::take(&mut o.dirty) {
            self.recycle(c);
        }
        o.spilled.clear();
        o.floor = u64::MAX;
        o.changed = false;
        if committed {
            o.committed_size = o.size;
            o.committed_exists = o.exists;
        } else {
            o.size = o.committed_size;
            o.exists = o.committed_exists;
        }
    }

    /// Writes a committed transaction's chunks of `o` in place (no flush: the log has them).
    fn write_in_place(&self, o: &mut Open) -> Result<(), String> {
        let p = self.path_of(FILES[o.id as usize]);
        o.unsynced = true;
        let floor = o.floor.min(o.committed_size);
        if floor < o.disk_len {
            o.file.set_len(floor).map_err(|e| io("cannot resize", &p, e))?;
            o.disk_len = floor;
        }
        if !o.spilled.is_empty() {
            let mut chunk = vec![0u8; CHUNK as usize];
            let spilled = std::mem::take(&mut o.spilled);
            for (&ci, &at) in &spilled {
                self.log.borrow().read(at, &mut chunk)?;
                write_run(o, &[&chunk[..]], ci, &p)?;
            }
        }
        let dirty = std::mem::take(&mut o.dirty);
        let mut run: Vec<&[u8]> = Vec::new();
        let mut first = 0;
        let mut result = Ok(());
        for (&ci, chunk) in &dirty {
            if !run.is_empty() && ci != first + run.len() as u64 {
                result = result.and_then(|()| write_run(o, &run, first, &p));
                run.clear();
            }
            if run.is_empty() {
                first = ci;
            }
            run.push(chunk);
        }
        if !run.is_empty() {
            result = result.and_then(|()| write_run(o, &run, first, &p));
        }
        drop(run);
        o.dirty = dirty;
        result?;
        if o.disk_len != o.size {
            o.file.set_len(o.size).map_err(|e| io("cannot resize", &p, e))?;
            o.disk_len = o.size;
        }
        Ok(())
    }

    /// Empties file `name` (flushed: were the unlink lost, an empty journal is no hot one), then removes it.
    fn remove_file(&self, name: &'static str) -> Result<(), String> {
        let p = self.path_of(name);
        if let Some(o) = self.files.borrow_mut().remove(name) {
            o.file.set_len(0).map_err(|e| io("cannot resize", &p, e))?;
            o.file.sync_data().map_err(|e| io("cannot flush", &p, e))?;
        }
        self.missing.borrow_mut().insert(name);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot remove", &p, e)),
            _ => Ok(()),
        }
    }

    /// Applies the log's committed transactions to the files, in order (on open, or after a failed write in place).
    fn replay(&self, found: &[Logged]) -> Result<(), String> {
        let mut chunk = vec![0u8; CHUNK as usize];
        let resize = |name: &'static str, size: u64| {
            self.with(name, true, |o| {
                o.file.set_len(size).map_err(|e| io("cannot resize", &self.path_of(name), e))?;
                o.disk_len = size;
                o.unsynced = true;
                Ok(())
            })
        };
        for tx in found {
            for e in tx.entries.iter().filter(|e| e.exists) {
                let name = file_name(e.file)?;
                let on_disk = self.with(name, true, |o| Ok(o.disk_len))?.unwrap_or(0);
                if e.floor < on_disk {
                    resize(name, e.floor)?;
                }
            }
            for op in &tx.ops {
                match *op {
                    Op::Cut { file, size } => {
                        resize(file_name(file)?, size)?;
                    }
                    Op::Page { file, chunk: ci, at } => {
                        self.log.borrow().read(at, &mut chunk)?;
                        let name = file_name(file)?;
                        self.with(name, true, |o| {
                            let p = self.path_of(name);
                            o.file.write_all_at(&chunk, ci * CHUNK).map_err(|e| io("cannot write", &p, e))?;
                            o.disk_len = o.disk_len.max((ci + 1) * CHUNK);
                            o.unsynced = true;
                            Ok(())
                        })?;
                    }
                }
            }
            for e in &tx.entries {
                let name = file_name(e.file)?;
                if e.exists {
                    resize(name, e.size)?;
                } else {
                    self.remove_file(name)?;
                }
            }
        }
        for o in self.files.borrow_mut().values_mut().filter(|o| o.unsynced) {
            o.size = o.disk_len;
            o.committed_size = o.disk_len;
        }
        Ok(())
    }

    /// Replays the whole log again (a commit did not reach the files in place), then checkpoints.
    fn recover(&self) -> Result<(), String> {
        let (log, found) = Log::open(&self.path_of("redo"), self.durable)?;
        *self.log.borrow_mut() = log;
        self.replay(&found)?;
        self.checkpoint()?;
        self.replay_due.set(false);
        Ok(())
    }

    /// Flushes the files written in place since the last checkpoint (when durable), then starts the log over.
    fn checkpoint(&self) -> Result<(), String> {
        for (name, o) in self.files.borrow_mut().iter_mut() {
            if o.unsynced {
                if self.durable {
                    o.file.sync_data().map_err(|e| io("cannot flush", &self.path_of(name), e))?;
                }
                o.unsynced = false;
            }
        }
        self.log.borrow_mut().reset()
    }
}

/// Writes the consecutive chunks `run` of `o`, the first of them chunk `first`, cut at the logical size.
fn write_run(o: &mut Open, run: &[&[u8]], first: u64, p: &Path) -> Result<(), String> {
    let at = first * CHUNK;
    let end = ((first + run.len() as u64) * CHUNK).min(o.size);
    if end <= at {
        return Ok(());
    }
    let len = (end - at) as usize;
    let r = if run.len() == 1 {
        o.file.write_all_at(&run[0][..len], at)
    } else {
        let mut src = Vec::with_capacity(len);
        for c in run {
            let n = (len - src.len()).min(c.len());
            src.extend_from_slice(&c[..n]);
        }
        o.file.write_all_at(&src, at)
    };
    r.map_err(|e| io("cannot write", p, e))?;
    o.disk_len = o.disk_len.max(end);
    Ok(())
}

impl FilePages {
    fn get_files(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let (name, part) = split(key)?;
        Ok(self
            .with(name, false, |o| {
                if !o.exists {
                    return Ok(None);
                }
                if part == "size" {
                    return Ok(Some(o.size.to_le_bytes().to_vec()));
                }
                let ci = chunk_index(part)?;
                let end = (ci * CHUNK + CHUNK).min(o.size);
                if end <= ci * CHUNK {
                    return Ok(None);
                }
                let mut buf = vec![0; (end - ci * CHUNK) as usize];
                self.read_chunk(o, ci, 0, &mut buf)?;
                Ok(Some(buf))
            })?
            .flatten())
    }

    fn read_into_files(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        let (name, part) = split(key)?;
        if part == "size" {
            return Ok(self.get(key)?.map(|b| {
                let n = b.len().saturating_sub(offset).min(dst.len());
                dst[..n].copy_from_slice(&b[offset..offset + n]);
                n
            }));
        }
        let ci = chunk_index(part)?;
        Ok(self
            .with(name, false, |o| {
                if !o.exists {
                    return Ok(None);
                }
                let end = (ci * CHUNK + CHUNK).min(o.size);
                let at = ci * CHUNK + offset as u64;
                if end <= ci * CHUNK {
                    return Ok(None);
                }
                let n = (end.saturating_sub(at) as usize).min(dst.len());
                self.read_chunk(o, ci, offset, &mut dst[..n])?;
                Ok(Some(n))
            })?
            .flatten())
    }

    fn put_files(&self, key: &str, value: &[u8]) -> Result<(), String> {
        let (name, part) = split(key)?;
        let added = self
            .with(name, true, |o| {
                o.changed = true;
                if !o.exists {
                    o.exists = true;
                    o.size = 0;
                }
                if part == "size" {
                    let size = u64::from_le_bytes(value.try_into().map_err(|_| format!("{key}: expected 8 bytes"))?);
                    if size < o.size {
                        self.shrink(o, size)?;
                    } else {
                        o.size = size;
                    }
                    return Ok(0);
                }
                // A chunk may reach past the logical size (the VFS pads a partly written last chunk, and writes
                // chunks before it records a larger size): only bytes below the size at commit go in place.
                let ci = chunk_index(part)?;
                let value = &value[..value.len().min(CHUNK as usize)];
                if let Some(chunk) = o.dirty.get_mut(&ci) {
                    chunk[..value.len()].copy_from_slice(value);
                    return Ok(0);
                }
                let mut chunk = self.chunk_buf();
                if value.len() < CHUNK as usize {
                    // A short put keeps the rest of the chunk.
                    let below = (o.size.saturating_sub(ci * CHUNK) as usize).min(CHUNK as usize);
                    self.read_chunk(o, ci, 0, &mut chunk[..below])?;
                    chunk[below..].fill(0);
                }
                chunk[..value.len()].copy_from_slice(value);
                o.dirty.insert(ci, chunk);
                o.spilled.remove(&ci);
                Ok(CHUNK as usize)
            })?
            .unwrap_or(0);
        self.pending_bytes.set(self.pending_bytes.get() + added);
        if self.pending_bytes.get() >= MAX_PENDING_BYTES {
            self.spill()?;
        }
        Ok(())
    }

    fn delete_files(&self, key: &str) -> Result<(), String> {
        let (name, part) = split(key)?;
        if part != "size" {
            return Ok(()); // chunks past the end go with the truncation that precedes this
        }
        self.with(name, false, |o| {
            if o.exists {
                o.changed = true;
                self.shrink(o, 0)?;
                o.exists = false;
            }
            Ok(())
        })?;
        Ok(())
    }
}

impl PageStore for FilePages {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        self.note(self.get_files(key))
    }

    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        self.note(self.read_into_files(key, offset, dst))
    }

    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        self.note(self.put_files(key, value))
    }

    fn delete(&self, key: &str) -> Result<(), String> {
        self.note(self.delete_files(key))
    }

    /// Nothing: each call's writes are committed when it ends (`commit`), and SQLite runs without syncs.
    fn sync(&self) -> Result<(), String> {
        Ok(())
    }
}

impl crate::worker::Host for FilePages {
    fn begin(&self) -> Result<(), String> {
        FilePages::begin(self)
    }
    fn commit(&self) -> Result<(), String> {
        FilePages::commit(self)
    }
    fn after(&self) {
        FilePages::after(self)
    }
    fn abort(&self) {
        FilePages::abort(self)
    }
    fn idle(&self) {
        FilePages::idle(self)
    }
    fn close(&self) -> Result<(), String> {
        FilePages::close(self)
    }
    fn poison(&self) {
        FilePages::poison(self)
    }
}

impl Drop for FilePages {
    /// The last resort (the store's thread closes the store): an unfinished call's writes dropped, a checkpoint;
    /// nothing after a failure. The path is free again.
    fn drop(&mut self) {
        if !self.poisoned.get() {
            self.abort();
            let _ = self.close();
        }
        if let Some(c) = self.claim.get_mut().take() {
            release(&c);
        }
    }
}
