//! The vector index snapshot's row in SQLite (`index_snapshot`): written from the index and read back
//! into it through incremental blob I/O in 64 KiB pieces, so neither a snapshot nor a cold open holds
//! the serialised index whole (it is as big as the index: a second copy of it was most of a reopened
//! store's heap). SQLite's C API directly: rusqlite's `blob` feature would add its Read/Write/Seek
//! wrappers to the module for four calls.

use crate::base::error::{Error, Result};
use crate::config::{Metric, ScalarKind};
use crate::vectors::index::VectorIndex;
use rusqlite::{ffi, Connection, OptionalExtension};
use std::ffi::c_int;

/// Bytes moved per blob read or write.
const PIECE: usize = 1 << 16;

fn fail(what: &str, rc: c_int) -> Error {
    Error::internal(format!("index snapshot {what}: SQLite code {rc}"))
}

/// An open handle on the snapshot's `data`, closed on drop.
struct Blob {
    handle: *mut ffi::sqlite3_blob,
    len: usize,
}

impl Blob {
    fn open(conn: &Connection, write: bool) -> Result<Blob> {
        let mut handle: *mut ffi::sqlite3_blob = std::ptr::null_mut();
        // SAFETY: the connection is live for the call; the handle is owned by the returned Blob (or closed
        // here on failure, which SQLite allows on the null or failed handle).
        let rc = unsafe {
            ffi::sqlite3_blob_open(
                conn.handle(),
                c"main".as_ptr(),
                c"index_snapshot".as_ptr(),
                c"data".as_ptr(),
                1,
                c_int::from(write),
                &mut handle,
            )
        };
        if rc != ffi::SQLITE_OK {
            // SAFETY: see above.
            unsafe { ffi::sqlite3_blob_close(handle) };
            return Err(fail("open", rc));
        }
        // SAFETY: an open handle.
        let len = unsafe { ffi::sqlite3_blob_bytes(handle) }.max(0) as usize;
        Ok(Blob { handle, len })
    }

    /// Reads `dst.len()` bytes from `offset` (the caller keeps it inside the blob).
    fn read(&self, dst: &mut [u8], offset: usize) -> c_int {
        // SAFETY: an open handle; `dst` is writable for its length; SQLite checks the range.
        unsafe { ffi::sqlite3_blob_read(self.handle, dst.as_mut_ptr().cast(), dst.len() as c_int, offset as c_int) }
    }

    fn write(&self, src: &[u8], offset: usize) -> c_int {
        // SAFETY: an open handle; `src` is readable for its length; SQLite checks the range.
        unsafe { ffi::sqlite3_blob_write(self.handle, src.as_ptr().cast(), src.len() as c_int, offset as c_int) }
    }

    fn close(mut self) -> Result<()> {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        // SAFETY: the handle was open and is closed once (Drop then sees null).
        match unsafe { ffi::sqlite3_blob_close(handle) } {
            ffi::SQLITE_OK => Ok(()),
            rc => Err(fail("close", rc)),
        }
    }
}

impl Drop for Blob {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: an open handle, closed once.
            unsafe { ffi::sqlite3_blob_close(self.handle) };
        }
    }
}

/// Replaces the snapshot with `idx` (pending vectors flushed first), covering `seq`.
///
/// The old snapshot is deleted first, in a transaction of its own when none is open: SQLite journals a
/// page that a transaction frees and then reuses, but not a page that was already free when it began, so
/// rewriting the row in one transaction copied the whole old snapshot into the rollback journal — which a
/// host that commits atomically (a Durable Object) keeps in wasm memory. Between the two a crash leaves no
/// snapshot: the next open rebuilds the index from SQLite, as it does for any unusable snapshot.
pub(crate) fn write(conn: &Connection, seq: u64, idx: &mut VectorIndex) -> Result<()> {
    let len = idx.snapshot_len()?;
    conn.execute("DELETE FROM index_snapshot WHERE id = 1", [])?;
    conn.execute_batch("SAVEPOINT index_snapshot")?;
    match crate::storage::page_cache::with_small_cache(conn, || write_row(conn, seq, idx, len)) {
        Ok(()) => Ok(conn.execute_batch("RELEASE index_snapshot")?),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK TO index_snapshot; RELEASE index_snapshot");
            Err(e)
        }
    }
}

/// A zeroblob row of the serialised length, written in place piece by piece.
fn write_row(conn: &Connection, seq: u64, idx: &mut VectorIndex, len: usize) -> Result<()> {
    let len32 = i32::try_from(len).map_err(|_| Error::internal("index snapshot over 2 GiB"))?;
    // A plain INSERT keeps zeroblob() a zero-filled tail in the record (an upsert's `excluded.data` made
    // SQLite allocate it whole).
    conn.execute(
        "INSERT INTO index_snapshot (id, seq, data) VALUES (1, ?1, zeroblob(?2))",
        rusqlite::params![seq as i64, len32],
    )?;
    let blob = Blob::open(conn, true)?;
    let (mut piece, mut at, mut failed) = (Vec::with_capacity(PIECE), 0usize, None);
    let flush = |piece: &mut Vec<u8>, at: &mut usize| {
        let rc = blob.write(piece, *at);
        *at += piece.len();
        piece.clear();
        (rc == ffi::SQLITE_OK).then_some(()).ok_or(rc)
    };
    let saved = idx.save(|bytes| {
        if at + piece.len() + bytes.len() > len {
            failed = Some(Error::internal("index snapshot longer than its serialised length"));
            return false;
        }
        if piece.len() + bytes.len() > PIECE {
            if let Err(rc) = flush(&mut piece, &mut at) {
                failed = Some(fail("write", rc));
                return false;
            }
        }
        if bytes.len() >= PIECE {
            piece.extend_from_slice(bytes);
            if let Err(rc) = flush(&mut piece, &mut at) {
                failed = Some(fail("write", rc));
                return false;
            }
        } else {
            piece.extend_from_slice(bytes);
        }
        true
    });
    if let Some(e) = failed {
        return Err(e);
    }
    saved?;
    flush(&mut piece, &mut at).map_err(|rc| fail("write", rc))?;
    if at != len {
        return Err(Error::internal("index snapshot shorter than its serialised length"));
    }
    blob.close()
}

/// The snapshot's seq and the index read from it (None: no snapshot). The index is an Err when the
/// snapshot is unusable (the caller rebuilds from SQLite); SQLite's own errors are the outer Err.
pub(crate) fn read(
    conn: &Connection,
    dims: usize,
    metric: Metric,
    scalar: ScalarKind,
) -> Result<Option<(u64, Result<VectorIndex>)>> {
    let seq: Option<i64> =
        conn.query_row("SELECT seq FROM index_snapshot WHERE id = 1", [], |r| r.get(0)).optional()?;
    let Some(seq) = seq else { return Ok(None) };
    let idx = crate::storage::page_cache::with_small_cache(conn, || read_row(conn, dims, metric, scalar))?;
    Ok(Some((seq as u64, idx)))
}

/// The index in the snapshot row (an Err inside when it is unusable).
fn read_row(conn: &Connection, dims: usize, metric: Metric, scalar: ScalarKind) -> Result<Result<VectorIndex>> {
    let blob = Blob::open(conn, false)?;
    let (mut piece, mut used, mut at, mut failed) = (Vec::new(), 0usize, 0usize, None);
    let loaded = VectorIndex::load(
        |dst: &mut [u8]| {
            let mut dst = dst;
            while !dst.is_empty() {
                if used == piece.len() {
                    let left = blob.len - at;
                    // A big read (the graph's level list) goes straight to its destination.
                    let n = if dst.len() >= PIECE { dst.len() } else { PIECE.min(left) };
                    if n == 0 || n > left {
                        return false;
                    }
                    let rc = if dst.len() >= PIECE {
                        blob.read(dst, at)
                    } else {
                        piece.resize(n, 0);
                        used = 0;
                        blob.read(&mut piece, at)
                    };
                    at += n;
                    if rc != ffi::SQLITE_OK {
                        failed = Some(fail("read", rc));
                        return false;
                    }
                    if dst.len() >= PIECE {
                        return true;
                    }
                }
                let n = dst.len().min(piece.len() - used);
                dst[..n].copy_from_slice(&piece[used..used + n]);
                used += n;
                dst = &mut dst[n..];
            }
            true
        },
        dims,
        metric,
        scalar,
    );
    let complete = at == blob.len && used == piece.len();
    blob.close()?;
    Ok(match (failed, loaded) {
        (Some(e), _) => Err(e),
        (None, Ok(_)) if !complete => Err(Error::internal("index snapshot has bytes after the index")),
        (None, loaded) => loaded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE index_snapshot (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, data BLOB NOT NULL)",
        )
        .unwrap();
        c
    }

    /// Deterministic vectors in [-1, 1).
    fn vectors(n: u64, dims: usize) -> Vec<(u64, Vec<f32>)> {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2000) as f32 / 1000.0 - 1.0
        };
        (0..n).map(|id| (id, (0..dims).map(|_| next()).collect())).collect()
    }

    /// An index of several 64 KiB pieces comes back whole: same count, same stored vectors, same
    /// search results (i8 and i4, so the stored vectors are the index's own; i4's graph distances are
    /// its own metric's, installed again after the load, and its snapshot is not an i8 one).
    #[test]
    fn an_index_round_trips_through_its_row() {
        for (scalar, other) in [(ScalarKind::I8, ScalarKind::I4), (ScalarKind::I4, ScalarKind::I8)] {
            let (dims, c) = (48, conn());
            let mut idx = VectorIndex::new(dims, Metric::Cosine, scalar).unwrap();
            let vs = vectors(3000, dims);
            for (id, v) in &vs {
                idx.upsert(*id, v).unwrap();
            }
            write(&c, 42, &mut idx).unwrap();
            let len: i64 = c.query_row("SELECT length(data) FROM index_snapshot", [], |r| r.get(0)).unwrap();
            assert!(len as usize > 4 * PIECE, "{scalar:?}: {len} bytes: several pieces");
            let (seq, back) = read(&c, dims, Metric::Cosine, scalar).unwrap().unwrap();
            let back = back.unwrap();
            assert_eq!((seq, back.len(), back.pending_len()), (42, 3000, 0));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (id, v) in vs.iter().step_by(97) {
                let score = idx.score(*id, v, &mut a);
                assert!(score.is_some_and(|s| s > 0.9), "{scalar:?}: {id} scored {score:?} against itself");
                assert_eq!(score, back.score(*id, v, &mut b), "{scalar:?}: stored vector of {id}");
                let hits = back.search(v, 10).unwrap();
                assert_eq!(hits[0].0, *id, "{scalar:?}: a vector is its own nearest");
                assert_eq!(idx.search(v, 10).unwrap(), hits, "{scalar:?}: search near {id}");
            }
            assert!(read(&c, dims, Metric::Cosine, other).unwrap().unwrap().1.is_err(), "{scalar:?} read as {other:?}");
        }
    }

    /// A snapshot cut short, or with bytes after the index, or of other dimensions, is refused (the
    /// store then rebuilds); no snapshot is None.
    #[test]
    fn a_damaged_snapshot_is_refused() {
        let (dims, c) = (8, conn());
        assert!(read(&c, dims, Metric::L2, ScalarKind::F32).unwrap().is_none());
        let mut idx = VectorIndex::new(dims, Metric::L2, ScalarKind::F32).unwrap();
        for (id, v) in vectors(500, dims) {
            idx.upsert(id, &v).unwrap();
        }
        write(&c, 1, &mut idx).unwrap();
        assert!(read(&c, dims, Metric::L2, ScalarKind::F32).unwrap().unwrap().1.is_ok());
        assert!(read(&c, 16, Metric::L2, ScalarKind::F32).unwrap().unwrap().1.is_err(), "other dims");
        let mut data: Vec<u8> = c.query_row("SELECT data FROM index_snapshot", [], |r| r.get(0)).unwrap();
        data.push(0);
        c.execute("UPDATE index_snapshot SET data = ?1", [&data]).unwrap();
        assert!(read(&c, dims, Metric::L2, ScalarKind::F32).unwrap().unwrap().1.is_err(), "a byte more");
        data.truncate(data.len() - 100);
        c.execute("UPDATE index_snapshot SET data = ?1", [&data]).unwrap();
        assert!(read(&c, dims, Metric::L2, ScalarKind::F32).unwrap().unwrap().1.is_err(), "cut short");
    }
}
