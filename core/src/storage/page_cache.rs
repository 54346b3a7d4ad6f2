//! SQLite's page cache with one key moved: the default cache (pcache1) behind a thin wrapper that
//! stores the pending-byte page under key 0.
//!
//! Why: when a b-tree rebalance puts its new sibling pages in page-number order, it parks one page
//! at the pending-byte page number (1 GiB / page size + 1: 131073 with 8 KiB pages) while it swaps
//! two numbers. pcache1 remembers that as the largest key it has held, and the truncate at the end
//! of the transaction (drop pages past the database's end) then walks every slot of its hash table
//! instead of the few past the end: 10-40 µs in wasm with a 16 MiB cache, on the writes that split
//! a page. No real page ever has that number (SQLite never stores data there), and none has number
//! 0, so the wrapper swaps the two keys and pcache1's largest key stays the database's last page.
//! (This assumes SQLite's default pending byte: nothing here changes it with SQLITE_TESTCTRL_PENDING_BYTE.)
//!
//! Installed at the first `Store::open`, before SQLite initialises. SQLite's configuration is not
//! thread-safe: a program that also uses SQLite elsewhere should open its first edgemem store before
//! other threads start using SQLite. A cache SQLite created before the switch still works: the wrapper
//! recognises its own caches by a tag and passes any other straight to pcache1.

use rusqlite::ffi;
use std::ffi::{c_int, c_uint};
use std::sync::OnceLock;

/// pcache1's methods, as SQLite's configuration had them before the wrapper was installed.
struct Default(ffi::sqlite3_pcache_methods2);
// SAFETY: read-only after `install`; SQLite itself calls these methods from any thread.
// (Every method `install` checked for is Some: the wrappers call them unchecked.)
unsafe impl Sync for Default {}
// SAFETY: as for Sync: the table of function pointers is never written after `install`.
unsafe impl Send for Default {}

static DEFAULT: OnceLock<Option<Default>> = OnceLock::new();

/// SQLite's `PENDING_BYTE` (the first byte past 1 GiB), which no database page may hold.
const PENDING_BYTE: u32 = 0x4000_0000;

/// One cache: pcache1's, and the page number this page size parks pages at.
#[repr(C)]
struct Cache {
    /// [`TAG`]: what tells this wrapper's caches from pcache1's own (whose first field is a pointer).
    tag: u64,
    inner: *mut ffi::sqlite3_pcache,
    parked: c_uint,
}

/// No pointer can have this value: its low half is unaligned and just under 4 GiB (wasm32), its high
/// half non-canonical on 64-bit hosts.
const TAG: u64 = 0x6564_6765_6d65_fff3;

/// Installs the wrapper, once per process, before SQLite initialises (configuration is refused
/// after that; SQLite then keeps its default cache and this returns false).
pub fn install() -> bool {
    DEFAULT
        // SAFETY: `d` is a plain C struct that SQLite fills (GETPCACHE2) before it is read; SQLite takes the
        // wrapper's methods (PCACHE2) only before it initialises, which `install` runs ahead of (vfs.rs).
        .get_or_init(|| unsafe {
            let mut d: ffi::sqlite3_pcache_methods2 = std::mem::zeroed();
            if ffi::sqlite3_config(ffi::SQLITE_CONFIG_GETPCACHE2, &mut d as *mut ffi::sqlite3_pcache_methods2)
                != ffi::SQLITE_OK
                || d.xCreate.is_none()
                || d.xPagecount.is_none()
                || d.xFetch.is_none()
                || d.xUnpin.is_none()
                || d.xRekey.is_none()
                || d.xTruncate.is_none()
                || d.xDestroy.is_none()
            {
                return None;
            }
            let wrapped = ffi::sqlite3_pcache_methods2 {
                iVersion: 1,
                pArg: d.pArg,
                xInit: d.xInit,
                xShutdown: d.xShutdown,
                xCreate: Some(x_create),
                xCachesize: Some(x_cachesize),
                xPagecount: Some(x_pagecount),
                xFetch: Some(x_fetch),
                xUnpin: Some(x_unpin),
                xRekey: Some(x_rekey),
                xTruncate: Some(x_truncate),
                xDestroy: Some(x_destroy),
                xShrink: Some(x_shrink),
            };
            if ffi::sqlite3_config(ffi::SQLITE_CONFIG_PCACHE2, &wrapped as *const ffi::sqlite3_pcache_methods2)
                != ffi::SQLITE_OK
            {
                return None;
            }
            Some(Default(d))
        })
        .is_some()
}

/// Whether the wrapper is SQLite's page cache in this process.
pub fn page_cache_active() -> bool {
    matches!(DEFAULT.get(), Some(Some(_)))
}

fn methods() -> &'static ffi::sqlite3_pcache_methods2 {
    match DEFAULT.get() {
        Some(Some(d)) => &d.0,
        // SQLite calls these only after `install` succeeded.
        _ => unreachable!("page cache wrapper called before it was installed"),
    }
}

/// The wrapper's cache behind `p`, or None when `p` is pcache1's own (created before the switch).
// SAFETY (callers): `p` is a live cache from `x_create` or pcache1, at least 8 bytes long; the reference
// lives no longer than the cache.
unsafe fn ours<'a>(p: *mut ffi::sqlite3_pcache) -> Option<&'a Cache> {
    // Every cache object is at least 8 bytes long (pcache1's starts with two pointers).
    if std::ptr::read_unaligned(p as *const u64) == TAG {
        Some(&*(p as *const Cache))
    } else {
        None
    }
}

/// pcache1's cache and the key `pgno` has in it.
// SAFETY (callers): as for `ours`.
unsafe fn inner(p: *mut ffi::sqlite3_pcache, pgno: c_uint) -> (*mut ffi::sqlite3_pcache, c_uint) {
    match ours(p) {
        Some(c) => (c.inner, key(c, pgno)),
        None => (p, pgno),
    }
}

/// The key pcache1 holds page `pgno` under: the parked number and 0 trade places.
fn key(c: &Cache, pgno: c_uint) -> c_uint {
    if pgno == c.parked {
        0
    } else if pgno == 0 {
        c.parked
    } else {
        pgno
    }
}

// The pcache2 methods below. SAFETY (SQLite, their caller): `p` is a cache `x_create` returned (or pcache1
// made before the switch) and not yet destroyed; `page` is one of its pages. pcache1's methods are called
// unchecked because `install` only succeeds when each is Some.
unsafe extern "C" fn x_create(sz_page: c_int, sz_extra: c_int, purgeable: c_int) -> *mut ffi::sqlite3_pcache {
    let inner = (methods().xCreate.unwrap_unchecked())(sz_page, sz_extra, purgeable);
    if inner.is_null() {
        return inner;
    }
    let parked = PENDING_BYTE / (sz_page.max(1) as u32) + 1;
    Box::into_raw(Box::new(Cache { tag: TAG, inner, parked })) as *mut ffi::sqlite3_pcache
}

unsafe extern "C" fn x_cachesize(p: *mut ffi::sqlite3_pcache, n: c_int) {
    if let Some(f) = methods().xCachesize {
        f(inner(p, 1).0, n)
    }
}

unsafe extern "C" fn x_pagecount(p: *mut ffi::sqlite3_pcache) -> c_int {
    (methods().xPagecount.unwrap_unchecked())(inner(p, 1).0)
}

unsafe extern "C" fn x_fetch(
    p: *mut ffi::sqlite3_pcache,
    pgno: c_uint,
    create: c_int,
) -> *mut ffi::sqlite3_pcache_page {
    let (c, k) = inner(p, pgno);
    (methods().xFetch.unwrap_unchecked())(c, k, create)
}

unsafe extern "C" fn x_unpin(p: *mut ffi::sqlite3_pcache, page: *mut ffi::sqlite3_pcache_page, discard: c_int) {
    (methods().xUnpin.unwrap_unchecked())(inner(p, 1).0, page, discard)
}

unsafe extern "C" fn x_rekey(
    p: *mut ffi::sqlite3_pcache,
    page: *mut ffi::sqlite3_pcache_page,
    old: c_uint,
    new: c_uint,
) {
    let ((c, old), (_, new)) = (inner(p, old), inner(p, new));
    (methods().xRekey.unwrap_unchecked())(c, page, old, new)
}

/// Drops pages numbered `limit` and up, which never includes one parked under key 0: a page is only
/// parked between the back-to-back rekeys of one rebalance (btree.c), with no truncate in between.
unsafe extern "C" fn x_truncate(p: *mut ffi::sqlite3_pcache, limit: c_uint) {
    (methods().xTruncate.unwrap_unchecked())(inner(p, 1).0, limit)
}

unsafe extern "C" fn x_destroy(p: *mut ffi::sqlite3_pcache) {
    match ours(p) {
        Some(_) => {
            let c = Box::from_raw(p as *mut Cache);
            (methods().xDestroy.unwrap_unchecked())(c.inner)
        }
        None => (methods().xDestroy.unwrap_unchecked())(p),
    }
}

unsafe extern "C" fn x_shrink(p: *mut ffi::sqlite3_pcache) {
    if let Some(f) = methods().xShrink {
        f(inner(p, 1).0)
    }
}

/// SQLite's page cache (KiB) while something reads or writes many pages once — an index snapshot, the
/// scans that count a store when it opens or for `stats()`: in the store's full cache those pages filled
/// all of it, memory that wasm never gives back, for nothing afterwards.
const PASSING_CACHE_KIB: i64 = 512;

/// Sets the connection's page cache to [`PASSING_CACHE_KIB`]; returns the size to restore.
pub(crate) fn shrink_cache(conn: &rusqlite::Connection) -> crate::Result<i64> {
    let size: i64 = conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
    conn.pragma_update(None, "cache_size", -PASSING_CACHE_KIB)?;
    Ok(size)
}

/// Puts back the page cache size `shrink_cache` returned.
pub(crate) fn restore_cache(conn: &rusqlite::Connection, size: i64) -> crate::Result<()> {
    Ok(conn.pragma_update(None, "cache_size", size)?)
}

/// Runs `f` with the connection's page cache at [`PASSING_CACHE_KIB`], then restores its size.
pub(crate) fn with_small_cache<T>(
    conn: &rusqlite::Connection,
    f: impl FnOnce() -> crate::Result<T>,
) -> crate::Result<T> {
    let size = shrink_cache(conn)?;
    let out = f();
    restore_cache(conn, size)?;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn only_the_parked_page_and_zero_trade_keys() {
        let c = Cache { tag: TAG, inner: std::ptr::null_mut(), parked: PENDING_BYTE / 8192 + 1 };
        assert_eq!(c.parked, 131073);
        assert_eq!(key(&c, 131073), 0);
        assert_eq!(key(&c, 0), 131073);
        for pgno in [1, 2, 131072, 131074, u32::MAX] {
            assert_eq!(key(&c, pgno), pgno);
        }
    }

    #[test]
    fn the_wrapper_tells_its_caches_from_pcache1s() {
        let mut c = Cache { tag: TAG, inner: std::ptr::null_mut(), parked: 131073 };
        // pcache1's cache object starts with pointers (PGroup*, unsigned*).
        let mut group = 0u64;
        let mut theirs: [*mut u64; 4] = [&mut group, &mut group, std::ptr::null_mut(), std::ptr::null_mut()];
        // SAFETY: both pointers are to live stack values at least 8 bytes long, for the duration of the calls.
        unsafe {
            assert!(ours(&mut c as *mut Cache as *mut ffi::sqlite3_pcache).is_some());
            assert!(ours(theirs.as_mut_ptr() as *mut ffi::sqlite3_pcache).is_none());
            assert_eq!(inner(theirs.as_mut_ptr() as *mut ffi::sqlite3_pcache, 131073).1, 131073);
            assert_eq!(inner(&mut c as *mut Cache as *mut ffi::sqlite3_pcache, 131073).1, 0);
        }
    }
}
