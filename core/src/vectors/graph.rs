//! The HNSW graph's turns and its inserts: the lock that lets the builder (inserts) and the owner (searches,
//! stats) take turns on the graph, and the insert of a batch (on the builder thread, or inline).

use super::nibbles;
use crate::config::ScalarKind;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use usearch::Index;

/// Inserts a batch into the graph (on the builder thread, or inline), one vector per turn of the
/// lock so a search waits for one insert at most.
pub(super) fn insert(
    index: &Index,
    lock: &GraphLock,
    batch: &[(u64, Vec<f32>)],
    scalar: ScalarKind,
) -> std::result::Result<(), String> {
    // An i4 graph takes each vector's codes (see `options`).
    let mut words = Vec::new();
    for (id, v) in batch {
        if scalar == ScalarKind::I4 {
            nibbles::encode_words(v, &mut words);
        }
        let _turn = lock.builder();
        index.add(*id, if scalar == ScalarKind::I4 { &words } else { v }).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Turns on the graph for its owner (searches, stats) and the builder (inserts): USearch reads
/// neighbour lists without locks, so a traversal beside an insert could miss nodes. A plain mutex
/// is not enough: not fair, re-taken in a loop by the builder it let a search wait behind most of a
/// batch (measured: up to 25 ms behind 64 inserts, 200–400 ms behind 2,000). So the builder steps
/// aside while the owner waits, and the owner waits for one insert at most.
#[derive(Default)]
pub(super) struct GraphLock {
    turn: Mutex<()>,
    owner_waiting: AtomicBool,
}

impl GraphLock {
    pub(super) fn owner(&self) -> MutexGuard<'_, ()> {
        self.owner_waiting.store(true, Ordering::SeqCst);
        let turn = self.take();
        self.owner_waiting.store(false, Ordering::SeqCst);
        turn
    }

    fn builder(&self) -> MutexGuard<'_, ()> {
        while self.owner_waiting.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        self.take()
    }

    /// (A panicked builder leaves nothing half-done behind it: USearch reports errors.)
    fn take(&self) -> MutexGuard<'_, ()> {
        self.turn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
