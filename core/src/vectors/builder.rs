//! The batch of vectors being inserted into the graph beside the owner, if any: natively the builder
//! thread's (`builder_thread.rs`); on wasm, which has no threads, never one. How pending vectors become a
//! batch is the policy's (`pending_threaded.rs`, `pending_inline.rs`).

#[cfg(not(target_family = "wasm"))]
use super::builder_thread::{Batch, GraphBuilder};
#[cfg(not(target_family = "wasm"))]
use std::collections::HashSet;

/// A batch of vectors the builder thread is inserting into the graph.
#[cfg(not(target_family = "wasm"))]
pub(super) struct Build {
    pub(super) batch: Batch,
    pub(super) ids: HashSet<u64>,
    /// Graph size when the batch started (nothing else changes the graph until it is done).
    pub(super) graph_len: usize,
}

/// The running batch, if any, and the thread (started with the first batch).
#[cfg(not(target_family = "wasm"))]
#[derive(Default)]
pub(super) struct Builder {
    pub(super) build: Option<Build>,
    pub(super) thread: Option<GraphBuilder>,
}

#[cfg(not(target_family = "wasm"))]
impl Builder {
    /// The graph's size when the running batch started; None when no batch is being built.
    pub(super) fn started_at(&self) -> Option<usize> {
        self.build.as_ref().map(|b| b.graph_len)
    }

    /// The running batch's vectors in id order (empty when none).
    pub(super) fn batch(&self) -> &[(u64, Vec<f32>)] {
        self.build.as_ref().map_or(&[], |b| b.batch.as_slice())
    }

    /// Whether `id` is in the running batch.
    pub(super) fn in_batch(&self, id: u64) -> bool {
        self.build.as_ref().is_some_and(|b| b.ids.contains(&id))
    }
}

/// Nothing to hold: inserts happen inside the calls that make them due.
#[cfg(target_family = "wasm")]
#[derive(Default)]
pub(super) struct Builder {}

#[cfg(target_family = "wasm")]
impl Builder {
    /// The graph's size when the running batch started: never one here.
    #[inline]
    pub(super) fn started_at(&self) -> Option<usize> {
        None
    }

    /// The running batch's vectors: none.
    #[inline]
    pub(super) fn batch(&self) -> &[(u64, Vec<f32>)] {
        &[]
    }

    /// Whether `id` is in the running batch: no.
    #[inline]
    pub(super) fn in_batch(&self, _id: u64) -> bool {
        false
    }
}
