//! Natively, pending vectors reach the graph on a builder thread (`builder_thread.rs`; the batch it works on: `builder.rs`) while writes and
//! searches go on: a write hands the buffer over as a batch once it holds [`BUILD_MIN`] vectors, and waits
//! for the running batch only when writes outpace the builder by [`PENDING_HARD_MAX`]. Until a batch is done
//! the graph may or may not hold any of it: searches score the batch exactly and hide its ids (and every
//! stale id) from graph results, so nothing is missed or counted twice.

use super::builder::Build;
use super::builder_thread::GraphBuilder;
use super::VectorIndex;
use crate::base::error::{Error, Result};
use std::sync::Arc;

/// The builder thread takes the pending vectors once there are this many…
const BUILD_MIN: usize = 64;
/// …and a write waits for the running batch only when writes outpace the builder this far.
const PENDING_HARD_MAX: usize = 2048;

impl VectorIndex {
    /// Whether a write adding `incoming` vectors will insert into the graph before it returns (natively:
    /// writes outpaced the builder and it waits for the batch).
    pub fn write_will_insert(&self, incoming: usize) -> bool {
        self.builder.build.is_some() && self.pending.len() + incoming >= PENDING_HARD_MAX
    }

    /// Whether the buffer will be inserted into the graph within about `writes` more one-vector writes:
    /// natively never (a builder thread does it beside the writes).
    pub fn insert_due_within(&self, _writes: usize) -> bool {
        false
    }

    /// After a change: [`Self::advance`].
    pub(super) fn bound(&mut self) -> Result<()> {
        self.advance()
    }

    /// Moves pending vectors towards the graph: joins a finished batch, waits for the running one when
    /// writes outpaced it, and hands the buffer to the builder thread once it holds a batch. Writes call it,
    /// and searches, so a buffer left by a burst of writes does not stay to be scored exactly.
    pub fn advance(&mut self) -> Result<()> {
        if let Some(done) = self.builder.build.as_ref().and(self.builder.thread.as_ref()).and_then(|t| t.try_done()) {
            self.finish(done)?;
        }
        if self.pending.len() >= PENDING_HARD_MAX {
            self.join()?;
        }
        if self.builder.build.is_none() && self.pending.len() >= BUILD_MIN {
            self.start_build()?;
        }
        Ok(())
    }

    /// Waits for the running batch (if any), then finishes it.
    pub(super) fn join(&mut self) -> Result<()> {
        if self.builder.build.is_some() {
            let done = self.builder.thread.as_ref().map_or(Err("no builder".to_string()), |t| t.wait());
            self.finish(done)?;
        }
        Ok(())
    }

    fn start_build(&mut self) -> Result<()> {
        // Everything that can fail before the hand-over does so while the vectors are still pending.
        self.reserve_for(self.pending.len())?;
        if self.builder.thread.is_none() {
            let t = GraphBuilder::spawn(self.index.clone(), self.graph_lock.clone(), self.scalar)
                .map_err(|e| Error::internal(format!("vector index builder: {e}")))?;
            self.builder.thread = Some(t);
        }
        let graph_len = self.index.size();
        let batch = Arc::new(self.take_pending());
        if let Err(e) = self.builder.thread.as_ref().map_or(Err("no builder".to_string()), |t| t.submit(batch.clone()))
        {
            self.pending.extend(batch.iter().cloned());
            self.builder.thread = None; // stopped: the next batch starts a new one
            return Err(Error::internal(format!("vector index builder: {e}")));
        }
        let ids = batch.iter().map(|(id, _)| *id).collect();
        self.builder.build = Some(Build { batch, ids, graph_len });
        Ok(())
    }

    /// A batch is done: the graph is the owner's again, and the stale entries leave it. On an error the
    /// caller (the Store) rebuilds the index from SQLite before using it again.
    fn finish(&mut self, done: std::result::Result<(), String>) -> Result<()> {
        self.builder.build = None;
        if done.is_err() {
            self.builder.thread = None; // a builder that failed mid-batch is not trusted with the next one
        }
        let mut removed = Ok(());
        for id in std::mem::take(&mut self.stale) {
            if self.index.contains(id) {
                if let Err(e) = self.index.remove(id) {
                    removed = Err(super::cxx(e));
                    self.stale.insert(id); // still hidden
                }
            }
        }
        done.map_err(|e| Error::internal(format!("vector index: {e}")))?;
        removed
    }
}
