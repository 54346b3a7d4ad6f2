//! Wall-clock time in ms since the Unix epoch, on every target without JavaScript glue:
//! natively from the OS; on wasm32 through the SQLite VFS's xCurrentTimeInt64, which the
//! host layer (sqlite-wasm-rs) implements.

#[cfg(not(target_arch = "wasm32"))]
pub fn system_now_ms() -> i64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

#[cfg(target_arch = "wasm32")]
pub fn system_now_ms() -> i64 {
    use rusqlite::ffi;
    // Julian day 2440587.5 is the Unix epoch; xCurrentTimeInt64 returns Julian day * 86_400_000.
    const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;
    // SAFETY: the default VFS, when there is one, lives for the whole process; its xCurrentTimeInt64 writes
    // one sqlite3_int64 through the pointer given, which points to `t`.
    unsafe {
        let vfs = ffi::sqlite3_vfs_find(std::ptr::null());
        if vfs.is_null() {
            return 0;
        }
        if let Some(f) = (*vfs).xCurrentTimeInt64 {
            let mut t: ffi::sqlite3_int64 = 0;
            if f(vfs, &mut t) == 0 {
                return t - UNIX_EPOCH_JD_MS;
            }
        }
        0
    }
}

/// A clock the store reads; tests and hosts may substitute their own.
pub type ClockFn = std::rc::Rc<dyn Fn() -> i64>;
