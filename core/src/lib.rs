//! edgemem-core: the agent-memory engine. SQLite holds the truth (memories, history, checkpoints,
//! change feed, FTS5); a USearch HNSW index serves vector search. No JavaScript in here: hosts
//! (the wasm adapter, the Worker) plug in through [`PageStore`] and the public [`Store`] API.

mod app_meta;
mod caps;
mod checkpoints;
mod clock;
mod config;
mod error;
mod export;
mod export_stream;
mod feed;
mod feed_api;
mod filter;
mod history;
mod import_stream;
mod index_snapshot;
mod index_state;
mod index_stream;
mod lexical_buffer;
mod memdb;
mod memories;
mod memory_budget;
mod memory_json;
mod memory_row;
mod namespace;
mod namespace_list;
mod page_bytes;
mod page_cache;
mod page_store;
mod recency;
mod schema;
mod search;
mod stats;
mod store;
mod time_index;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod ts_bindings;
mod types;
mod usage;
mod vector_index;
mod vfs;
mod wire_enum;

// wasm32-unknown-unknown only. On wasm32-wasip1 (the bench's Wasmtime host) wasi-libc is the C library:
// its malloc backs Rust's allocator there (so libc_alloc's malloc would recurse) and the command's
// `_start` already runs the C++ static constructors.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod wasm_rt;

pub use app_meta::{MAX_APP_META_NAME, MAX_APP_META_VALUE};
pub use checkpoints::{
    ChannelBlob, Checkpoint, CheckpointData, CheckpointListQuery, CheckpointPage, CheckpointPut, PendingWrite,
};
pub use config::{Caps, Durability, Metric, Retention, ScalarKind, Storage, StoreConfig, StoreOptions};
pub use error::{Error, ErrorCode, Result};
pub use export::{ExportDoc, ExportedVersion};
pub use export_stream::{
    ExportChunk, ExportCommits, ExportCounts, ExportHeader, ExportLine, ExportedWrite, DEFAULT_CHUNK_BYTES,
    STREAM_FORMAT,
};
pub use feed::{ChangesPage, Event, EventFilter, EventKind, SubscriptionId};
pub use filter::{Condition, FilterOp};
pub use import_stream::{ImportChunk, ImportProgress};
pub use memories::{HistoryPage, HISTORY_PAGE_MAX};
pub use namespace_list::NamespaceQuery;
pub use page_bytes::MAX_PAGE_BYTES;
pub use page_cache::page_cache_active;
pub use page_store::{MemoryPageStore, PageStore};
pub use search::{FusionMethod, FusionParams, SearchHit, SearchMode, SearchQuery};
pub use stats::Stats;
pub use store::Store;
pub use types::{AsOf, ListPage, ListQuery, Memory, MemoryPut, WriteAck};
