//! edgemem-core: the agent-memory engine. SQLite holds the truth (memories, history, checkpoints,
//! change feed, FTS5); a USearch HNSW index serves vector search. No JavaScript in here: hosts
//! (the wasm adapter, the Worker) plug in through [`PageStore`] and the public [`Store`] API.
//!
//! The modules import one way, each only from those before it (`node scripts/check-core-layers.mjs`
//! checks it, files inside a folder too): `base` (errors, the API's shapes, the clock) → `storage` (page
//! store, VFS, page cache, schema, commit log) → `config` → `vectors` (the HNSW index) → `state` (the
//! Store's parts) → `store` (the `Store` and its write transaction) → `features` (memories, checkpoints,
//! search, the change feed's API, host metadata, stats) → `transfer` (the export format, export, import).

mod base;
mod config;
mod features;
mod state;
mod storage;
mod store;
mod transfer;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod ts_bindings;
mod vectors;

// wasm32-unknown-unknown only. On wasm32-wasip1 (the bench's Wasmtime host) wasi-libc is the C library:
// its malloc backs Rust's allocator there (so libc_alloc's malloc would recurse) and the command's
// `_start` already runs the C++ static constructors.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod wasm_rt;

pub use base::error::{Error, ErrorCode, Result};
pub use base::filter::{Condition, FilterOp};
pub use base::page_bytes::MAX_PAGE_BYTES;
pub use base::types::{AsOf, ExportCounts, ListPage, ListQuery, Memory, MemoryPut, ValidAt, WriteAck};
pub use config::{
    Caps, CoherenceSettings, Durability, Metric, Retention, ScalarKind, Sequence, Storage, StoreConfig, StoreOptions,
};
pub use features::app_meta::{MAX_APP_META_NAME, MAX_APP_META_VALUE};
pub use features::checkpoints::{
    ChannelBlob, Checkpoint, CheckpointData, CheckpointListQuery, CheckpointPage, CheckpointPut, PendingWrite,
};
pub use features::coherence::consolidate::{ConsolidateQuery, ConsolidateReport};
pub use features::coherence::context::{ContextBlock, ContextItem, ContextQuery};
pub use features::coherence::{Assessment, Decision, RememberInput, Remembered, Target};
pub use features::memories::crud::{HistoryPage, HISTORY_PAGE_MAX};
pub use features::memories::namespaces::NamespaceQuery;
pub use features::replica::{OutboxOp, PullApplied, PulledMemory, APPLIED_OPS_KEPT, MAX_OUTBOX_READ};
pub use features::search::fusion::{FusionMethod, FusionParams};
pub use features::search::query::{SearchHit, SearchMode, SearchQuery};
pub use features::stats::Stats;
pub use state::feed::{ChangesPage, Event, EventFilter, EventKind, SubscriptionId};
pub use storage::page_cache::page_cache_active;
pub use storage::page_store::{MemoryPageStore, PageStore};
pub use store::Store;
pub use transfer::export::{ExportChunk, DEFAULT_CHUNK_BYTES};
pub use transfer::format::{
    ExportCommits, ExportDoc, ExportHeader, ExportLine, ExportedVersion, ExportedWrite, STREAM_FORMAT,
};
pub use transfer::import::{ImportChunk, ImportProgress};
