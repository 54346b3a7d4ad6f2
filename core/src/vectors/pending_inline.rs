//! On wasm, which has no threads, pending vectors are inserted into the graph inline: once there are
//! [`PENDING_MAX`], by the next write before its own work ([`VectorIndex::advance`], called by
//! `Store::write_tx`) or by a search; by the write at hand only past [`PENDING_HARD_MAX`] (a batch). No
//! batch is ever being built beside a search.

use super::VectorIndex;
use crate::base::error::Result;

/// Pending vectors are inserted into the graph once there are this many, not by the write that fills the
/// buffer: inserting 256 vectors (tens of ms) leaves the CPU caches cold, and the write after it then ran
/// 300-400 µs instead of ~100; done first, that write absorbs the cold start itself (one slow write per
/// insert, not two).
const PENDING_MAX: usize = 256;
/// …and by the write at hand once this many are pending (a batch): the buffer's bound.
const PENDING_HARD_MAX: usize = 2 * PENDING_MAX;

impl VectorIndex {
    /// Whether a write adding `incoming` vectors will insert into the graph before it returns (past the
    /// buffer's bound).
    pub fn write_will_insert(&self, incoming: usize) -> bool {
        self.pending.len() + incoming >= PENDING_HARD_MAX
    }

    /// Whether the buffer will be inserted into the graph within about `writes` more one-vector writes.
    pub fn insert_due_within(&self, writes: usize) -> bool {
        self.pending.len() + writes >= PENDING_MAX
    }

    /// After a change: an insert only past the buffer's bound (a big batch) — a full buffer waits for the
    /// next write or search (see [`PENDING_MAX`]).
    pub(super) fn bound(&mut self) -> Result<()> {
        if self.pending.len() >= PENDING_HARD_MAX {
            self.flush()?;
        }
        Ok(())
    }

    /// Inserts the pending vectors once the buffer is full. Writes call it before their own work, and
    /// searches, so a buffer left by a burst of writes does not stay to be scored exactly.
    pub fn advance(&mut self) -> Result<()> {
        if self.pending.len() >= PENDING_MAX {
            self.flush()?;
        }
        Ok(())
    }

    /// No batch ever runs beside the owner: nothing to wait for.
    #[inline]
    pub(super) fn join(&mut self) -> Result<()> {
        Ok(())
    }
}
