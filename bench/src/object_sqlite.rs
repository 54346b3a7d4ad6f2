//! A Durable Object's own SQLite, simulated natively for `edgemem-bench pages`: the engine's pages kept as
//! workers/src/do-page-store.ts keeps them (the table `edgemem_pages`, chunk n at id n and the file's size at
//! id -1, a page without its longest zero run as workers/src/page-hole.ts cuts it), one transaction per store
//! call, in a SQLite of 4 KiB pages in WAL mode as workerd keeps an object's. The WAL frames a call's commit
//! appends are the 4 KiB pages workerd writes for it: leaves, overflow pages, the freelist.

use rusqlite::Connection;
use std::borrow::Cow;
use std::cell::Cell;
use std::path::PathBuf;

/// workers/src/page-hole.ts MIN_HOLE: shorter zero runs are stored.
const MIN_HOLE: usize = 256;

/// A page as workers/src/page-hole.ts `elideHole` stores it: without its longest run of zero 32-bit words
/// (widened to the zero bytes either side) when that run is MIN_HOLE bytes or more, then the run's start as a
/// little-endian u16; else the page itself.
pub fn elide_hole(page: &[u8]) -> Cow<'_, [u8]> {
    let words = page.len() / 4;
    let zero = |i: usize| page[i * 4..i * 4 + 4] == [0; 4];
    let (mut best_start, mut best_len, mut start) = (0, 0, None);
    for i in 0..=words {
        if i < words && zero(i) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            if i - s > best_len {
                (best_start, best_len) = (s, i - s);
            }
        }
    }
    if best_len == 0 {
        return Cow::Borrowed(page);
    }
    let (mut from, mut to) = (best_start * 4, (best_start + best_len) * 4);
    while from > 0 && page[from - 1] == 0 {
        from -= 1;
    }
    while to < page.len() && page[to] == 0 {
        to += 1;
    }
    if to - from < MIN_HOLE || page.len() > 0xffff {
        return Cow::Borrowed(page);
    }
    let mut out = Vec::with_capacity(page.len() - (to - from) + 2);
    out.extend_from_slice(&page[..from]);
    out.extend_from_slice(&page[to..]);
    out.extend_from_slice(&(from as u16).to_le_bytes());
    Cow::Owned(out)
}

/// The object's SQLite, in a temporary file removed on drop.
pub struct ObjectSqlite {
    conn: Connection,
    path: PathBuf,
    in_tx: Cell<bool>,
}

impl ObjectSqlite {
    pub fn open() -> Result<Self, String> {
        let path = std::env::temp_dir().join(format!("edgemem-object-{}.db", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let conn = Connection::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mode: String = conn
            .execute_batch("PRAGMA page_size = 4096")
            .and_then(|()| conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)))
            .map_err(|e| e.to_string())?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("the object's SQLite is in journal mode {mode}, not WAL"));
        }
        conn.execute_batch(
            "PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = OFF;
             CREATE TABLE edgemem_pages (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
             PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .map_err(|e| e.to_string())?;
        Ok(ObjectSqlite { conn, path, in_tx: Cell::new(false) })
    }

    /// The table id of a page-store key (`db/<n>` at n, `db/size` at -1), as do-page-store.ts maps it.
    pub fn id_of(key: &str) -> Option<i64> {
        match key.strip_prefix("db/")? {
            "size" => Some(-1),
            n => n.parse().ok(),
        }
    }

    pub fn put(&self, id: i64, value: &[u8]) -> Result<(), String> {
        let data = if id >= 0 { elide_hole(value) } else { Cow::Borrowed(value) };
        self.conn
            .prepare_cached(
                "INSERT INTO edgemem_pages (id, data) VALUES (?1, ?2) ON CONFLICT (id) DO UPDATE SET data = excluded.data",
            )
            .and_then(|mut st| st.execute(rusqlite::params![id, data.as_ref()]))
            .map(drop)
            .map_err(|e| e.to_string())
    }

    pub fn delete(&self, id: i64) -> Result<(), String> {
        self.conn
            .prepare_cached("DELETE FROM edgemem_pages WHERE id = ?1")
            .and_then(|mut st| st.execute([id]))
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Starts the transaction of one store call (puts outside one commit each on their own).
    pub fn begin(&self) -> Result<(), String> {
        self.conn.execute_batch("BEGIN").map_err(|e| e.to_string())?;
        self.in_tx.set(true);
        Ok(())
    }

    /// Commits the call's transaction; returns the WAL frames its commit appended, then empties the WAL.
    pub fn commit(&self) -> Result<u64, String> {
        if self.in_tx.replace(false) {
            self.conn.execute_batch("COMMIT").map_err(|e| e.to_string())?;
        }
        // A TRUNCATE checkpoint reports the WAL it emptied as 0 frames: count with a PASSIVE one first.
        let frames: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
            .and_then(|n| self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(n)))
            .map_err(|e| e.to_string())?;
        Ok(frames.max(0) as u64)
    }
}

impl Drop for ObjectSqlite {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_stored_without_its_long_zero_run() {
        let page = |zeros: usize| {
            let mut p = vec![1u8; 8192];
            p[100..100 + zeros].fill(0);
            p
        };
        let holed = page(300);
        let stored = elide_hole(&holed);
        assert_eq!(stored.len(), 8192 - 300 + 2);
        assert_eq!(&stored[stored.len() - 2..], &100u16.to_le_bytes());
        assert_eq!(elide_hole(&page(255)).len(), 8192, "a run under 256 bytes is kept");
        assert_eq!(elide_hole(&[0; 8192]).len(), 2);
    }

    /// A commit's frames are the object's pages it changed: a small row one leaf, a full page its leaf and
    /// its overflow pages.
    #[test]
    fn frames_count_the_pages_a_commit_writes() {
        let sim = ObjectSqlite::open().unwrap();
        sim.begin().unwrap();
        sim.put(-1, &8192u64.to_le_bytes()).unwrap();
        assert_eq!(sim.commit().unwrap(), 1, "the table's one leaf");
        sim.begin().unwrap();
        sim.put(0, &[7; 8192]).unwrap();
        assert_eq!(sim.commit().unwrap(), 4, "the leaf, two overflow pages and the header page (the file grew)");
        sim.begin().unwrap();
        sim.put(0, &[8; 8192]).unwrap();
        assert_eq!(sim.commit().unwrap(), 3, "a row of the same length is overwritten in place");
    }
}
