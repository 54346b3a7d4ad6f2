//! A SQLite VFS that keeps each file as fixed-size chunks in a host [`PageStore`].
//! Keys: `<file>/<chunk index>` for data and `<file>/size` for the length, where `<file>` is
//! `db` or `journal`. Registered once per process as "edgemem-pages"; the store behind a
//! database name is looked up in a thread-local registry (stores are not `Send`). The rollback
//! journal of a store whose host commits atomically, and SQLite's temporary files, are instead one
//! buffer in this instance's memory ([`HeapFile`]).

use crate::storage::page_store::PageStore;
use rusqlite::ffi;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::rc::Rc;

pub const VFS_NAME: &CStr = c"edgemem-pages";
/// Chunk size = SQLite page size used for page-store databases.
pub const CHUNK: u64 = 8192;

/// A registered database: its page store, and its journal when that lives in memory.
struct Registered {
    store: Rc<dyn PageStore>,
    journal: Option<Rc<RefCell<HeapFile>>>,
}

thread_local! {
    static REGISTRY: RefCell<HashMap<String, Registered>> = RefCell::new(HashMap::new());
    static NEXT_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// Registers `store` under a fresh database name and returns that name; None when the same
/// store is already open (two connections on one page store would corrupt it: locks are no-ops).
///
/// `memory_journal`: the host commits each call atomically (a trap discards all of a call's page
/// writes), so the rollback journal only has to serve SQLite's own rollbacks within this instance:
/// it is kept in one reused buffer here, not in the page store. Unlike journal_mode=MEMORY (a list
/// of 1 KiB chunks allocated and freed on every write transaction), journaling a page is one copy.
pub fn register_store(store: Rc<dyn PageStore>, memory_journal: bool) -> Option<String> {
    ensure_vfs();
    let addr = Rc::as_ptr(&store) as *const () as usize;
    let taken = REGISTRY.with(|r| r.borrow().values().any(|s| Rc::as_ptr(&s.store) as *const () as usize == addr));
    if taken {
        return None;
    }
    let id = NEXT_ID.with(|n| {
        let v = n.get();
        n.set(v + 1);
        v
    });
    let name = format!("edgemem-{id}.db");
    let journal = memory_journal.then(Default::default);
    REGISTRY.with(|r| r.borrow_mut().insert(name.clone(), Registered { store, journal }));
    Some(name)
}

pub fn unregister_store(name: &str) {
    REGISTRY.with(|r| r.borrow_mut().remove(name));
}

/// Maps a path SQLite hands us to the file's backing.
fn resolve(path: &str) -> Option<Backing> {
    let path = path.trim_start_matches('/');
    let (base, prefix) = if let Some(b) = path.strip_suffix("-journal") {
        (b, "journal")
    } else if let Some(b) = path.strip_suffix("-wal") {
        (b, "wal")
    } else {
        (path, "db")
    };
    let (store, heap_journal) = REGISTRY.with(|r| {
        let r = r.borrow();
        let reg = r.get(base)?;
        Some((reg.store.clone(), reg.journal.clone()))
    })?;
    let in_pages = Backing::Pages { store, prefix };
    match heap_journal {
        Some(heap) if prefix == "journal" => Some(journal_of_atomic_store(in_pages, heap)),
        _ => Some(in_pages),
    }
}

/// An atomic store's journal is its heap file — unless the page store still holds a journal with
/// something in it (the store was last opened without `atomic` and did not finish a write): SQLite
/// must see that one, to roll it back. An empty one left behind is removed.
fn journal_of_atomic_store(in_pages: Backing, heap: Rc<RefCell<HeapFile>>) -> Backing {
    match in_pages.size() {
        Ok(None) => Backing::Heap(heap),
        Ok(Some(0)) => {
            let mut st = FileState { backing: in_pages, size: 0, delete_on_close: false };
            match st.remove_all() {
                Ok(()) => Backing::Heap(heap),
                Err(_) => st.backing,
            }
        }
        // Something to roll back, or the page store failing (SQLite then meets the error itself).
        Ok(Some(_)) | Err(_) => in_pages,
    }
}

/// A heap file keeps up to this much of the capacity it grew to when SQLite truncates it (a journal
/// is truncated after every transaction): ordinary writes reuse it, one large one does not pin memory.
const HEAP_KEEP_BYTES: usize = 1 << 20;

/// A file in this instance's memory. `exists` tells an empty file from a deleted one.
#[derive(Default)]
struct HeapFile {
    bytes: Vec<u8>,
    exists: bool,
}

/// Where a file's bytes live.
enum Backing {
    /// Chunks `<prefix>/<n>` and the length `<prefix>/size` in the host's page store.
    Pages { store: Rc<dyn PageStore>, prefix: &'static str },
    /// One buffer in memory (its capacity is kept when SQLite truncates it, for the next transaction).
    Heap(Rc<RefCell<HeapFile>>),
}

impl Backing {
    /// The file's length, or None when it does not exist.
    fn size(&self) -> Result<Option<u64>, String> {
        match self {
            Backing::Pages { store, prefix } => {
                Ok(store.get(&format!("{prefix}/size"))?.and_then(|b| b.try_into().ok()).map(u64::from_le_bytes))
            }
            Backing::Heap(h) => {
                let h = h.borrow();
                Ok(h.exists.then_some(h.bytes.len() as u64))
            }
        }
    }
}

struct FileState {
    backing: Backing,
    size: u64,
    delete_on_close: bool,
}

impl FileState {
    fn open(backing: Backing, size: u64, delete_on_close: bool) -> Self {
        if let Backing::Heap(h) = &backing {
            h.borrow_mut().exists = true;
        }
        FileState { backing, size, delete_on_close }
    }
    /// The file's length (a heap file's is its buffer's, whatever happened to it through another handle).
    fn len(&self) -> u64 {
        match &self.backing {
            Backing::Pages { .. } => self.size,
            Backing::Heap(h) => h.borrow().bytes.len() as u64,
        }
    }
    fn read(&self, buf: &mut [u8], offset: u64) -> Result<bool, String> {
        let end = offset + buf.len() as u64;
        let len = self.len();
        let avail_end = end.min(len);
        match &self.backing {
            Backing::Pages { store, prefix } => {
                for (ci, in_chunk, at, n) in chunks(offset, avail_end) {
                    let dst = &mut buf[at..at + n];
                    // Straight into SQLite's buffer; a missing or short chunk reads as zeros.
                    let have = store.read_into(&chunk_key(prefix, ci), in_chunk, dst)?.unwrap_or(0).min(n);
                    dst[have..].fill(0);
                }
            }
            Backing::Heap(h) => {
                if offset < avail_end {
                    let n = (avail_end - offset) as usize;
                    buf[..n].copy_from_slice(&h.borrow().bytes[offset as usize..avail_end as usize]);
                }
            }
        }
        buf[avail_end.saturating_sub(offset) as usize..].fill(0);
        Ok(end <= len)
    }
    fn write(&mut self, data: &[u8], offset: u64) -> Result<(), String> {
        let end = offset + data.len() as u64;
        match &self.backing {
            Backing::Pages { store, prefix } => {
                for (ci, in_chunk, at, n) in chunks(offset, end) {
                    let src = &data[at..at + n];
                    if n == CHUNK as usize {
                        store.put(&chunk_key(prefix, ci), src)?;
                    } else {
                        let mut chunk = store.get(&chunk_key(prefix, ci))?.unwrap_or_default();
                        chunk.resize(CHUNK as usize, 0);
                        chunk[in_chunk..in_chunk + n].copy_from_slice(src);
                        store.put(&chunk_key(prefix, ci), &chunk)?;
                    }
                }
            }
            Backing::Heap(h) => {
                let bytes = &mut h.borrow_mut().bytes;
                let (offset, end) = (offset as usize, end as usize);
                if offset == bytes.len() {
                    bytes.extend_from_slice(data); // the usual case: the journal is written in order
                } else {
                    if bytes.len() < end {
                        bytes.resize(end, 0);
                    }
                    bytes[offset..end].copy_from_slice(data);
                }
            }
        }
        if end > self.size {
            self.store_size(end)?;
        }
        Ok(())
    }
    fn truncate(&mut self, size: u64) -> Result<(), String> {
        if size >= self.size {
            return Ok(());
        }
        let had = self.size.div_ceil(CHUNK);
        // The new length first: it is the truncation (the commit point of a TRUNCATE-mode journal, whose chunks
        // alone would still read as a hot journal). Nothing past it is ever read, so the chunks there are only
        // tidied after, and a page store failing at that does not fail a truncation that happened (SQLite would
        // report a commit failed that is durable).
        self.store_size(size)?;
        match &self.backing {
            // SQLite truncates a journal to 0 and a database to whole pages (chunks): no chunk is cut in two.
            Backing::Pages { store, prefix } => {
                for ci in size.div_ceil(CHUNK)..had {
                    let _ = store.delete(&chunk_key(prefix, ci));
                }
            }
            Backing::Heap(h) => {
                let bytes = &mut h.borrow_mut().bytes;
                bytes.truncate(size as usize);
                if bytes.capacity() > HEAP_KEEP_BYTES {
                    bytes.shrink_to(HEAP_KEEP_BYTES.max(bytes.len()));
                }
            }
        }
        Ok(())
    }
    /// Records a new length (the page store's `<prefix>/size`; a heap file's is its buffer's), kept in
    /// memory once the store has it.
    fn store_size(&mut self, size: u64) -> Result<(), String> {
        if size != self.size {
            if let Backing::Pages { store, prefix } = &self.backing {
                store.put(&format!("{prefix}/size"), &size.to_le_bytes())?;
            }
            self.size = size;
        }
        Ok(())
    }
    fn sync(&self) -> Result<(), String> {
        match &self.backing {
            Backing::Pages { store, .. } => store.sync(),
            Backing::Heap(_) => Ok(()),
        }
    }
    fn remove_all(&mut self) -> Result<(), String> {
        match &self.backing {
            Backing::Pages { store, prefix } => {
                let had = self.size.div_ceil(CHUNK);
                for ci in 0..had {
                    store.delete(&chunk_key(prefix, ci))?;
                }
                store.delete(&format!("{prefix}/size"))?;
            }
            Backing::Heap(h) => {
                let mut h = h.borrow_mut();
                h.bytes.clear();
                h.exists = false;
            }
        }
        self.size = 0;
        Ok(())
    }
}

fn chunk_key(prefix: &str, i: u64) -> String {
    format!("{prefix}/{i}")
}

/// The chunks bytes `start..end` of a file span: (chunk index, offset in the chunk, offset from
/// `start`, length).
fn chunks(start: u64, end: u64) -> impl Iterator<Item = (u64, usize, usize, usize)> {
    let mut pos = start;
    std::iter::from_fn(move || {
        if pos >= end {
            return None;
        }
        let (ci, in_chunk) = (pos / CHUNK, (pos % CHUNK) as usize);
        let n = ((CHUNK - in_chunk as u64).min(end - pos)) as usize;
        let item = (ci, in_chunk, (pos - start) as usize, n);
        pos += n as u64;
        Some(item)
    })
}

#[repr(C)]
struct PsFile {
    base: ffi::sqlite3_file,
    state: *mut FileState,
}

// The VFS methods below. SAFETY (SQLite, their caller): `f` is a file `x_open` initialised (`szOsFile` is
// a PsFile, so the cast holds) and `x_close` has not freed its state; SQLite serialises calls on one file
// (one connection per store), so the `&mut FileState` is unique; `buf`/`amt` and `out` are valid for the
// access SQLite's VFS contract describes.
unsafe fn state<'a>(f: *mut ffi::sqlite3_file) -> &'a mut FileState {
    &mut *(*(f as *mut PsFile)).state
}

unsafe extern "C" fn x_close(f: *mut ffi::sqlite3_file) -> c_int {
    let pf = f as *mut PsFile;
    if (*pf).state.is_null() {
        return ffi::SQLITE_OK;
    }
    let mut st = Box::from_raw((*pf).state);
    (*pf).state = std::ptr::null_mut();
    if st.delete_on_close && st.remove_all().is_err() {
        return ffi::SQLITE_IOERR_DELETE;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_read(f: *mut ffi::sqlite3_file, buf: *mut c_void, amt: c_int, off: ffi::sqlite3_int64) -> c_int {
    let buf = std::slice::from_raw_parts_mut(buf as *mut u8, amt as usize);
    match state(f).read(buf, off as u64) {
        Ok(true) => ffi::SQLITE_OK,
        Ok(false) => ffi::SQLITE_IOERR_SHORT_READ,
        Err(_) => ffi::SQLITE_IOERR_READ,
    }
}

unsafe extern "C" fn x_write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    amt: c_int,
    off: ffi::sqlite3_int64,
) -> c_int {
    let data = std::slice::from_raw_parts(buf as *const u8, amt as usize);
    match state(f).write(data, off as u64) {
        Ok(()) => ffi::SQLITE_OK,
        Err(_) => ffi::SQLITE_IOERR_WRITE,
    }
}

unsafe extern "C" fn x_truncate(f: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    match state(f).truncate(size as u64) {
        Ok(()) => ffi::SQLITE_OK,
        Err(_) => ffi::SQLITE_IOERR_TRUNCATE,
    }
}

unsafe extern "C" fn x_sync(f: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    match state(f).sync() {
        Ok(()) => ffi::SQLITE_OK,
        Err(_) => ffi::SQLITE_IOERR_FSYNC,
    }
}

unsafe extern "C" fn x_file_size(f: *mut ffi::sqlite3_file, out: *mut ffi::sqlite3_int64) -> c_int {
    *out = state(f).len() as ffi::sqlite3_int64;
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_lock(_f: *mut ffi::sqlite3_file, _l: c_int) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_check_reserved(_f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    *out = 0;
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_file_control(_f: *mut ffi::sqlite3_file, _op: c_int, _arg: *mut c_void) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn x_sector_size(_f: *mut ffi::sqlite3_file) -> c_int {
    CHUNK as c_int
}

unsafe extern "C" fn x_device_characteristics(_f: *mut ffi::sqlite3_file) -> c_int {
    ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_lock),
    xCheckReservedLock: Some(x_check_reserved),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

// SAFETY (callers): `p` is null or a NUL-terminated string that outlives the returned reference.
unsafe fn path_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}

// SAFETY (SQLite): `f` points to `szOsFile` writable bytes, `name` is null or a NUL-terminated path, and
// `out_flags` is null or writable.
unsafe extern "C" fn x_open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    f: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let pf = f as *mut PsFile;
    (*pf).base.pMethods = std::ptr::null();
    (*pf).state = std::ptr::null_mut();
    let delete_on_close = flags & ffi::SQLITE_OPEN_DELETEONCLOSE != 0;
    let st = match path_str(name).and_then(resolve) {
        Some(backing) => match backing.size() {
            Ok(Some(size)) => FileState::open(backing, size, delete_on_close),
            Ok(None) if flags & ffi::SQLITE_OPEN_CREATE != 0 => FileState::open(backing, 0, delete_on_close),
            Ok(None) => return ffi::SQLITE_CANTOPEN,
            Err(_) => return ffi::SQLITE_IOERR,
        },
        // Temporary files (no name, or not ours) live in memory.
        None if name.is_null() || delete_on_close => FileState::open(Backing::Heap(Default::default()), 0, true),
        None => return ffi::SQLITE_CANTOPEN,
    };
    let st = Box::new(st);
    (*pf).state = Box::into_raw(st);
    (*pf).base.pMethods = &IO_METHODS;
    if !out_flags.is_null() {
        *out_flags = flags;
    }
    ffi::SQLITE_OK
}

// The VFS-level methods. SAFETY (SQLite): names are NUL-terminated strings; output pointers are valid for
// the sizes SQLite's VFS contract gives (`n` bytes for x_full_pathname and x_randomness).
unsafe extern "C" fn x_delete(_vfs: *mut ffi::sqlite3_vfs, name: *const c_char, _sync: c_int) -> c_int {
    let Some(backing) = path_str(name).and_then(resolve) else { return ffi::SQLITE_OK };
    let size = match backing.size() {
        Ok(s) => s.unwrap_or(0),
        Err(_) => return ffi::SQLITE_IOERR_DELETE,
    };
    let mut st = FileState { backing, size, delete_on_close: false };
    match st.remove_all() {
        Ok(()) => ffi::SQLITE_OK,
        Err(_) => ffi::SQLITE_IOERR_DELETE,
    }
}

unsafe extern "C" fn x_access(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _flags: c_int,
    out: *mut c_int,
) -> c_int {
    *out = 0;
    if let Some(backing) = path_str(name).and_then(resolve) {
        match backing.size() {
            Ok(Some(_)) => *out = 1,
            Ok(None) => {}
            Err(_) => return ffi::SQLITE_IOERR_ACCESS,
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_full_pathname(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    let src = CStr::from_ptr(name).to_bytes_with_nul();
    if src.len() > n as usize {
        return ffi::SQLITE_CANTOPEN;
    }
    std::ptr::copy_nonoverlapping(src.as_ptr() as *const c_char, out, src.len());
    ffi::SQLITE_OK
}

/// The process's default VFS, for randomness, sleep and time.
fn default_vfs() -> *mut ffi::sqlite3_vfs {
    // SAFETY: a lookup by null name returns the default VFS or null; nothing is dereferenced here.
    unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) }
}

unsafe extern "C" fn x_randomness(_vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let d = default_vfs();
    match (*d).xRandomness {
        Some(f) => f(d, n, out),
        None => 0,
    }
}

unsafe extern "C" fn x_sleep(_vfs: *mut ffi::sqlite3_vfs, us: c_int) -> c_int {
    let d = default_vfs();
    match (*d).xSleep {
        Some(f) => f(d, us),
        None => 0,
    }
}

unsafe extern "C" fn x_current_time(_vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    let d = default_vfs();
    match (*d).xCurrentTime {
        Some(f) => f(d, out),
        None => ffi::SQLITE_ERROR,
    }
}

unsafe extern "C" fn x_current_time_int64(_vfs: *mut ffi::sqlite3_vfs, out: *mut ffi::sqlite3_int64) -> c_int {
    let d = default_vfs();
    match (*d).xCurrentTimeInt64 {
        Some(f) => f(d, out),
        None => ffi::SQLITE_ERROR,
    }
}

unsafe extern "C" fn x_get_last_error(_vfs: *mut ffi::sqlite3_vfs, _n: c_int, _out: *mut c_char) -> c_int {
    0
}

fn ensure_vfs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: runs once, before any connection uses this VFS; the registered struct is leaked, so it lives as
    // long as SQLite may call it, and names a VFS_NAME that is a static C string.
    ONCE.call_once(|| unsafe {
        crate::storage::page_cache::install();
        ffi::sqlite3_initialize();
        let vfs = Box::new(ffi::sqlite3_vfs {
            iVersion: 2,
            szOsFile: std::mem::size_of::<PsFile>() as c_int,
            mxPathname: 512,
            pNext: std::ptr::null_mut(),
            zName: VFS_NAME.as_ptr(),
            pAppData: std::ptr::null_mut(),
            xOpen: Some(x_open),
            xDelete: Some(x_delete),
            xAccess: Some(x_access),
            xFullPathname: Some(x_full_pathname),
            xDlOpen: None,
            xDlError: None,
            xDlSym: None,
            xDlClose: None,
            xRandomness: Some(x_randomness),
            xSleep: Some(x_sleep),
            xCurrentTime: Some(x_current_time),
            xGetLastError: Some(x_get_last_error),
            xCurrentTimeInt64: Some(x_current_time_int64),
            xSetSystemCall: None,
            xGetSystemCall: None,
            xNextSystemCall: None,
        });
        ffi::sqlite3_vfs_register(Box::leak(vfs), 0);
    });
}
