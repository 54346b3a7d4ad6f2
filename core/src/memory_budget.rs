//! The engine's memory budget: a store opened with `memory_budget` refuses writes that would take its
//! projected peak heap past it (QUOTA_EXCEEDED naming the budget), so a host such as a Durable Object
//! (128 MB per isolate, wasm memory never shrinks) refuses a write instead of being killed later.
//!
//! The projection is a model of where the heap goes, measured with the size bench (bench/node/heap.mjs):
//! the HNSW index (per vector: its graph copy plus ~165 B of graph, measured 362 B per 384-d i4 vector at 100k on
//! wasm), once — snapshots stream in and out of SQLite in pieces (index_snapshot.rs), never beside it —, plus
//! SQLite's bounded page cache and a fixed part: the module, write batches in flight, the index's lookups while
//! they grow (measured peaks: 55.1 MB at 100k × 384 i4, 73.8 MB at 100k × 384 i8, 16.9 MB at 10k × 384 i4; the
//! model says 62.0, 80.8 and 21.3). The same model runs natively and on wasm, so both refuse the same writes.

use crate::config::ScalarKind;
use crate::error::{Error, ErrorCode, Result};
use crate::index_state::IndexOp;
use crate::store::{Store, Tx};

/// Graph bytes per indexed vector beside its scalars (neighbour lists, key and slot lookups), rounded up.
const GRAPH_BYTES_PER_VECTOR: u64 = 256;
/// SQLite's page cache bound (store.rs `cache_size`) and the rest of the heap beside the index and the cache.
pub(crate) const PAGE_CACHE_BYTES: u64 = 4 << 20;
const FIXED_BYTES: u64 = 12 << 20;

impl Store {
    /// Bytes one vector takes in the index.
    fn bytes_per_vector(&self) -> u64 {
        let dims = self.cfg.dims as u64;
        let scalars = match self.cfg.scalar {
            ScalarKind::F32 => dims * 4,
            ScalarKind::F16 => dims * 2,
            ScalarKind::I8 => dims,
            // Two components a byte in 4-byte words, and the levels' inverse norm (vector_index/nibbles.rs).
            ScalarKind::I4 => dims.div_ceil(8) * 4 + 4,
        };
        scalars + GRAPH_BYTES_PER_VECTOR
    }

    /// The engine's projected peak heap with `extra` more vectors indexed (see the module doc).
    pub(crate) fn projected_peak_bytes(&self, extra: u64) -> u64 {
        let vectors = self.index.get().map_or(0, |i| i.len() as u64) + extra;
        vectors * self.bytes_per_vector() + PAGE_CACHE_BYTES + FIXED_BYTES
    }

    /// The engine's heap now: on wasm the module's linear memory (what an isolate is charged for);
    /// natively SQLite's allocations plus the index as the model counts it.
    pub(crate) fn heap_bytes(&self) -> u64 {
        #[cfg(target_arch = "wasm32")]
        return core::arch::wasm32::memory_size(0) as u64 * 65536;
        #[cfg(not(target_arch = "wasm32"))]
        {
            // SAFETY: a plain counter read.
            let sqlite = unsafe { rusqlite::ffi::sqlite3_memory_used() }.max(0) as u64;
            sqlite + self.index.get().map_or(0, |i| i.len() as u64) * self.bytes_per_vector()
        }
    }

    /// Refuses the transaction `tx` when the vectors it indexes would take the projected peak past
    /// the budget. Writes that index nothing (deletes, vector-less memories, checkpoints) always pass.
    pub(crate) fn check_memory_budget(&self, tx: &Tx) -> Result<()> {
        let budget = self.cfg.memory_budget;
        let added = tx.index_ops.iter().filter(|op| matches!(op, IndexOp::Upsert(..))).count() as u64;
        if budget == 0 || added == 0 {
            return Ok(());
        }
        let peak = self.projected_peak_bytes(added);
        if peak > budget {
            let mib = |b: u64| b as f64 / (1 << 20) as f64;
            return Err(Error::new(
                ErrorCode::QuotaExceeded,
                format!(
                    "memory budget of {:.1} MiB ({budget} bytes) exceeded: indexing {added} more vector(s) would bring the engine's projected peak heap to {:.1} MiB",
                    mib(budget),
                    mib(peak)
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, ErrorCode, Store, StoreConfig};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn put(s: &mut Store, key: &str, v: &[f32]) -> Result<(), Error> {
        let m = crate::types::MemoryPut {
            namespace: vec!["t".into()],
            key: key.into(),
            value: serde_json::json!(key),
            embedding: Some(v.to_vec()),
            ..Default::default()
        };
        s.put(m).map(|_| ())
    }

    fn vector(i: usize) -> Vec<f32> {
        (0..8).map(|d| ((i * 7 + d * 3) % 11) as f32 + 1.0).collect()
    }

    /// 8-d f32: 288 B per vector over the cache and the fixed overhead. A budget with room
    /// for exactly 100 vectors takes 100 and refuses the 101st, coded and naming the budget; a batch is
    /// refused whole; writes that index nothing still pass; without a budget nothing is refused.
    #[test]
    fn writes_past_the_budget_are_refused() {
        let budget = super::PAGE_CACHE_BYTES + super::FIXED_BYTES + 288 * 100;
        let mut s = Store::open(StoreConfig { memory_budget: budget, ..StoreConfig::memory(8) }).unwrap();
        for i in 0..100 {
            put(&mut s, &format!("k{i}"), &vector(i)).unwrap();
        }
        let e = put(&mut s, "k100", &vector(100)).unwrap_err();
        assert_eq!(e.code, ErrorCode::QuotaExceeded);
        assert!(e.message.contains(&format!("{budget} bytes")), "{}", e.message);
        assert_eq!(s.stats().unwrap().memories, 100);
        // Without a vector, a write indexes nothing.
        s.put(crate::types::MemoryPut {
            namespace: vec!["t".into()],
            key: "plain".into(),
            value: serde_json::json!(1),
            ..Default::default()
        })
        .unwrap();
        // A delete frees room for one vector; a batch of two is then refused as a whole.
        s.delete(&["t".into()], "k0", None).unwrap();
        let batch = (0..2)
            .map(|i| crate::types::MemoryPut {
                namespace: vec!["t".into()],
                key: format!("b{i}"),
                value: serde_json::json!(i),
                embedding: Some(vector(200 + i)),
                ..Default::default()
            })
            .collect();
        assert_eq!(s.put_batch(batch).unwrap_err().code, ErrorCode::QuotaExceeded);
        assert_eq!(s.stats().unwrap().memories, 100);
        put(&mut s, "k100", &vector(100)).unwrap();
        let st = s.stats().unwrap();
        assert_eq!((st.memory_budget, st.projected_peak_bytes), (budget, budget));
        assert!(st.heap_bytes > 0);

        let mut free = Store::open(StoreConfig::memory(8)).unwrap();
        for i in 0..200 {
            put(&mut free, &format!("k{i}"), &vector(i)).unwrap();
        }
    }
}
