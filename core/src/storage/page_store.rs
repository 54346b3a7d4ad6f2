//! The host page-store hook: a synchronous key/value store of byte blobs that the engine's
//! SQLite VFS (see `vfs.rs`) keeps database pages in. Hosts implement it over OPFS, a Durable
//! Object's `ctx.storage.kv`, a file through JS, or memory. Keys are short ASCII strings.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Synchronous blob storage for database pages. Errors are messages; the VFS reports them to
/// SQLite as I/O errors, which roll the current transaction back.
pub trait PageStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String>;
    /// Copies the blob at `key`, from byte `offset` on, into the start of `dst`: returns how many
    /// bytes were copied (fewer than `dst.len()` when the blob ends first), or None when absent.
    /// The VFS reads pages through it; hosts override it to copy straight into SQLite's buffer.
    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        Ok(self.get(key)?.map(|blob| copy_from(&blob, offset, dst)))
    }
    fn put(&self, key: &str, value: &[u8]) -> Result<(), String>;
    fn delete(&self, key: &str) -> Result<(), String>;
    /// Makes earlier puts durable (called when SQLite syncs). Default: nothing to do.
    fn sync(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Copies `blob[offset..]` into the start of `dst` as far as both go; returns the count.
fn copy_from(blob: &[u8], offset: usize, dst: &mut [u8]) -> usize {
    let have = blob.len().saturating_sub(offset).min(dst.len());
    if have > 0 {
        dst[..have].copy_from_slice(&blob[offset..offset + have]);
    }
    have
}

/// A page store in memory: the reference implementation, and handy for tests (share one
/// between two opens with `Rc` to simulate a restart). Counts operations.
#[derive(Default)]
pub struct MemoryPageStore {
    blobs: RefCell<HashMap<String, Vec<u8>>>,
    puts: Cell<u64>,
    fail_puts: Cell<bool>,
    /// Puts left before `fail_puts` turns on by itself (None: not counting).
    fail_in: Cell<Option<u64>>,
}

impl MemoryPageStore {
    pub fn new() -> Self {
        Self::default()
    }
    /// Number of `put` calls so far.
    pub fn put_count(&self) -> u64 {
        self.puts.get()
    }
    /// Total bytes held.
    pub fn bytes(&self) -> usize {
        self.blobs.borrow().values().map(Vec::len).sum()
    }
    /// Makes every later `put` fail (fault injection for tests).
    pub fn set_fail_puts(&self, fail: bool) {
        self.fail_puts.set(fail);
        self.fail_in.set(None);
    }
    /// A copy of every blob, as a crash would leave them (for tests: open it while this one stays open).
    pub fn copy(&self) -> MemoryPageStore {
        MemoryPageStore { blobs: RefCell::new(self.blobs.borrow().clone()), ..Default::default() }
    }
    /// Lets `n` more puts through, then fails every later one until `set_fail_puts(false)`.
    pub fn fail_puts_after(&self, n: u64) {
        self.fail_puts.set(n == 0);
        self.fail_in.set(Some(n));
    }
}

impl PageStore for MemoryPageStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.blobs.borrow().get(key).cloned())
    }
    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        Ok(self.blobs.borrow().get(key).map(|blob| copy_from(blob, offset, dst)))
    }
    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        if let Some(n) = self.fail_in.get() {
            self.fail_in.set(n.checked_sub(1));
            self.fail_puts.set(n == 0);
        }
        if self.fail_puts.get() {
            return Err("injected put failure".into());
        }
        self.puts.set(self.puts.get() + 1);
        self.blobs.borrow_mut().insert(key.to_string(), value.to_vec());
        Ok(())
    }
    fn delete(&self, key: &str) -> Result<(), String> {
        self.blobs.borrow_mut().remove(key);
        Ok(())
    }
}
