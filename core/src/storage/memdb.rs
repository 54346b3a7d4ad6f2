//! Opens `Storage::Memory` databases: a private database on SQLite's `memdb` VFS, not `:memory:`.
//!
//! Why not `:memory:`: its pager keeps every page in the page cache, so the cache's hash table grows
//! with the database (16k slots at 10k memories). A b-tree rebalance parks a page at the pending-byte
//! page number (131073 with 8 KiB pages) while it renumbers siblings, and the next COMMIT then
//! truncates the cache by walking every hash slot — ~120 µs on one write in fifteen. On `memdb` the
//! pager is an ordinary one with a bounded cache (`cache_size`), so that walk stays short; pages
//! outside the cache are a memcpy away. (Since page_cache.rs keys the parked page 0, the walk is
//! gone on every kind of database; the bounded cache remains memdb's advantage.)

use crate::base::error::Result;
use rusqlite::{ffi, Connection, OpenFlags};
use std::ffi::c_void;

/// `SQLITE_FCNTL_SIZE_LIMIT` (not exported by every binding this crate builds against).
const FCNTL_SIZE_LIMIT: i32 = 36;

/// A memdb database is capped at 1 GiB unless told otherwise; a memory store is bounded by the
/// store's caps and the host's memory instead.
const MAX_BYTES: i64 = 1 << 46;

/// A fresh, private (unnamed-to-others) in-memory database. The rollback journal must stay in
/// memory as well: memdb hands every file but the main database to the default VFS.
pub fn open(flags: OpenFlags) -> Result<Connection> {
    // A name without a leading '/' is private to this connection.
    let conn = Connection::open_with_flags("file:edgemem?vfs=memdb", flags | OpenFlags::SQLITE_OPEN_URI)?;
    let mut limit = MAX_BYTES;
    // SAFETY: the handle is live for the call; SIZE_LIMIT reads and writes one sqlite3_int64.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            FCNTL_SIZE_LIMIT,
            &mut limit as *mut i64 as *mut c_void,
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(crate::base::error::Error::internal(format!("memdb size limit: SQLite code {rc}")));
    }
    conn.pragma_update(None, "journal_mode", "MEMORY")?;
    Ok(conn)
}
