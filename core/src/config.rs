//! Store configuration: where the bytes live, vector settings, caps and retention.
//! Defaults are what a typical agent wants; every field is documented with its unit.

use crate::base::error::{Error, Result};
use crate::storage::page_store::PageStore;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Where a store keeps its SQLite database.
#[derive(Clone)]
pub enum Storage {
    /// In memory; gone on close.
    Memory,
    /// A file on the local filesystem (native only), WAL mode.
    File(std::path::PathBuf),
    /// Pages in a host-provided key/value page store (OPFS, Durable Object storage, a file
    /// through JS). `atomic` says the host commits a whole call atomically (a DO's
    /// transactionSync): SQLite then keeps its rollback journal in memory instead of in the store.
    /// The host's side of that bargain: a call that traps, or during which any page-store call
    /// failed, has none of its writes kept, and the Store is reopened from the pages before the next
    /// call (the npm package does both): SQLite's undo record for a half-written commit lives only in
    /// this Store's memory.
    Pages { store: Rc<dyn PageStore>, atomic: bool },
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Storage::Memory => write!(f, "Memory"),
            Storage::File(p) => write!(f, "File({})", p.display()),
            Storage::Pages { atomic, .. } => write!(f, "Pages {{ atomic: {atomic} }}"),
        }
    }
}

/// Vector distance metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Cosine,
    InnerProduct,
    L2,
}

impl Metric {
    /// Every metric (`as_str` names them; `parse` also takes a few aliases).
    pub const ALL: &'static [Metric] = &[Metric::Cosine, Metric::InnerProduct, Metric::L2];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Cosine => "cosine",
            Metric::InnerProduct => "ip",
            Metric::L2 => "l2",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "cosine" | "cos" => Some(Metric::Cosine),
            "ip" | "inner_product" | "dot" => Some(Metric::InnerProduct),
            "l2" | "l2sq" | "euclidean" => Some(Metric::L2),
            _ => None,
        }
    }
}

/// How vectors are stored inside the HNSW index (SQLite always keeps the f32 originals). `I8` and `I4` (cosine
/// only) keep 1 byte and half a byte per component; searches rank their candidates by the f32 originals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    F32,
    F16,
    I8,
    I4,
}

impl ScalarKind {
    /// Every scalar kind.
    pub const ALL: &'static [ScalarKind] = &[ScalarKind::F32, ScalarKind::F16, ScalarKind::I8, ScalarKind::I4];

    pub fn as_str(self) -> &'static str {
        match self {
            ScalarKind::F32 => "f32",
            ScalarKind::F16 => "f16",
            ScalarKind::I8 => "i8",
            ScalarKind::I4 => "i4",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "f32" => Some(ScalarKind::F32),
            "f16" => Some(ScalarKind::F16),
            "i8" => Some(ScalarKind::I8),
            "i4" => Some(ScalarKind::I4),
            _ => None,
        }
    }
}

/// Durability of file storage (SQLite's `synchronous`). `Normal` survives a process crash or trap
/// (WAL, no fsync per commit); `Full` also survives power loss (fsync per commit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    Normal,
    Full,
}

/// Caps on live memories; 0 means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// Accounted bytes of live memories (see `Memory::size`).
    pub max_bytes: u64,
    /// Number of live memories.
    pub max_memories: u64,
}

/// What history and the change feed keep; 0 means keep everything. Absent fields take the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Retention {
    /// Past versions kept per key (the live version is not counted).
    pub history_versions: u64,
    /// Past versions older than this (ms since they stopped being current) are dropped.
    pub history_max_age_ms: u64,
    /// Events kept in the change feed, newest first.
    pub events_max: u64,
    /// Events older than this are dropped.
    pub events_max_age_ms: u64,
    /// Checkpoints kept per (thread, checkpoint_ns), newest first.
    pub checkpoints_per_thread: u64,
    /// Total checkpoint bytes kept; oldest go first (the newest of each thread always stays).
    pub checkpoints_max_bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            history_versions: 0,
            history_max_age_ms: 0,
            events_max: 100_000,
            events_max_age_ms: 7 * 24 * 3600 * 1000,
            checkpoints_per_thread: 0,
            checkpoints_max_bytes: 0,
        }
    }
}

/// The settings a host passes as JSON to open a store (the npm package's `openStore` options): the
/// serialisable part of `StoreConfig`, absent fields taking its defaults. The host applies them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct StoreOptions {
    /// Embedding dimensions (0: no vectors). An existing store keeps its own; a different one is DIMENSION_MISMATCH.
    pub dims: usize,
    #[cfg_attr(test, ts(type = "Metric", optional))]
    pub metric: Option<String>,
    /// How the vector index stores vectors (SQLite always keeps the f32 originals).
    #[cfg_attr(test, ts(type = "ScalarKind", optional))]
    pub scalar: Option<String>,
    /// Caps on live unpinned memories (0: none); least recently used ones are evicted.
    pub max_bytes: u64,
    pub max_memories: u64,
    /// The engine's heap budget in bytes (0: none): a write that would index vectors past it is refused with
    /// QUOTA_EXCEEDED before the host runs out of memory (`stats()` shows `heapBytes` and `projectedPeakBytes`).
    pub memory_budget: u64,
    pub retention: Option<Retention>,
    /// SQLite synchronous=FULL instead of NORMAL.
    pub sync_full: bool,
    /// The vector index is snapshotted after this many vector changes (default 5,000).
    pub index_snapshot_every: Option<u64>,
    /// Largest memory (value + text + metadata) in bytes (default 1 MiB); larger is PAYLOAD_TOO_LARGE.
    pub max_memory_bytes: Option<usize>,
    /// Largest checkpoint payload in bytes (default 8 MiB).
    pub max_checkpoint_bytes: Option<usize>,
    /// Only with a page store: the host commits each call atomically (a Durable Object).
    #[cfg_attr(test, ts(skip))]
    pub atomic: bool,
    /// `"namespace"`: the memories of one namespace form a sequence in the order they were first written (a
    /// conversation's turns), and searches score each memory with its neighbours by default
    /// (`fusion.neighbourWeight`). Absent or `"none"`: memories are unordered facts.
    #[cfg_attr(test, ts(type = "\"namespace\" | \"none\"", optional))]
    pub sequence: Option<String>,
    /// `remember`'s settings (absent fields: the defaults).
    pub coherence: Option<CoherenceSettings>,
}

/// How a store's memories form sequences, whose neighbours lend each other score in a search
/// (features/search/neighbours.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sequence {
    /// Unordered facts: no neighbours unless a search names `fusion.neighbourWeight`.
    #[default]
    None,
    /// The memories of one namespace, in the order they were first written.
    Namespace,
}

/// The rules' settings (store option `coherence`, or per call). Defaults chosen by cross-validation on the
/// labelled set in bench/coherence (see docs/benchmarks/coherence.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct CoherenceSettings {
    /// Cosine similarity at or above which two facts in different languages whose guards agree are the same fact.
    pub duplicate_similarity: f64,
    /// Content-word overlap (Jaccard) at or above which two facts in one language whose guards agree are the same
    /// fact (1: the same content words).
    pub duplicate_overlap: f64,
    /// Cosine similarity at or above which a fact with a change cue ("now", "moved", "no longer") about the same
    /// entity supersedes the memory it is closest to.
    pub supersede_similarity: f64,
    /// Content-word overlap at or above which the same holds without vectors.
    pub supersede_overlap: f64,
    /// A fact that differs from its closest memory in one slot only (a number, a date, a name), with no cue,
    /// supersedes it when true; when false (the default: "two meetings" and "the meeting moved" look alike) it is
    /// new, and uncertain.
    pub slot_updates: bool,
    /// Cosine similarity at or above which a fact the rules call new is uncertain (what a judge is asked).
    pub judge_similarity: f64,
    /// Memories of the namespace compared with the fact (the closest by vector and by words).
    pub candidates: usize,
}

impl Default for CoherenceSettings {
    fn default() -> Self {
        CoherenceSettings {
            duplicate_similarity: 0.91,
            duplicate_overlap: 1.0,
            supersede_similarity: 0.75,
            supersede_overlap: 0.5,
            slot_updates: false,
            judge_similarity: 0.85,
            candidates: 8,
        }
    }
}

impl CoherenceSettings {
    pub(crate) fn check(&self) -> Result<()> {
        let unit = [
            self.duplicate_similarity,
            self.duplicate_overlap,
            self.supersede_similarity,
            self.supersede_overlap,
            self.judge_similarity,
        ];
        if unit.iter().any(|v| !v.is_finite() || !(-1.0..=1.0).contains(v)) || !(1..=64).contains(&self.candidates) {
            return Err(Error::invalid("coherence settings: similarities in -1..=1, candidates in 1..=64"));
        }
        Ok(())
    }
}

/// Everything needed to open a store.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    pub storage: Storage,
    /// Embedding dimensions; 0 = no vectors in this store. Fixed once the store is created.
    pub dims: usize,
    pub metric: Metric,
    pub scalar: ScalarKind,
    pub caps: Caps,
    pub retention: Retention,
    pub sync: Durability,
    /// The vector index is snapshotted into SQLite after this many vector changes (and on
    /// close), never on every write. Reopen loads the snapshot and replays newer changes.
    pub index_snapshot_every: u64,
    /// Largest accepted memory (value + text + metadata + key), in bytes.
    pub max_memory_bytes: usize,
    /// Largest accepted checkpoint payload, in bytes.
    pub max_checkpoint_bytes: usize,
    /// The engine's heap budget in bytes (0 = none): writes that would index vectors past it are refused
    /// with QUOTA_EXCEEDED (memory_budget.rs). A Durable Object's host sets it from the isolate's 128 MB.
    pub memory_budget: u64,
    /// How memories form sequences (`Sequence::Namespace`: searches score neighbours by default).
    pub sequence: Sequence,
    /// `remember`'s rules' settings (features/coherence).
    pub coherence: CoherenceSettings,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            storage: Storage::Memory,
            dims: 0,
            metric: Metric::Cosine,
            scalar: ScalarKind::F32,
            caps: Caps::default(),
            retention: Retention::default(),
            sync: Durability::Normal,
            index_snapshot_every: 5_000,
            max_memory_bytes: 1 << 20,
            max_checkpoint_bytes: 8 << 20,
            memory_budget: 0,
            sequence: Sequence::None,
            coherence: CoherenceSettings::default(),
        }
    }
}

impl StoreConfig {
    pub fn memory(dims: usize) -> Self {
        StoreConfig { dims, ..Default::default() }
    }
}

/// A host's options as the store's settings, in memory storage: a host with a page store sets `storage`
/// (and takes `atomic` from the options). An unknown metric or scalar kind is INVALID_ARGUMENT.
impl TryFrom<StoreOptions> for StoreConfig {
    type Error = Error;

    fn try_from(o: StoreOptions) -> Result<Self> {
        let mut cfg = StoreConfig::memory(o.dims);
        if let Some(m) = o.metric {
            cfg.metric = Metric::parse(&m).ok_or_else(|| Error::invalid(format!("unknown metric {m:?}")))?;
        }
        if let Some(s) = o.scalar {
            cfg.scalar = ScalarKind::parse(&s).ok_or_else(|| Error::invalid(format!("unknown scalar kind {s:?}")))?;
        }
        cfg.caps = Caps { max_bytes: o.max_bytes, max_memories: o.max_memories };
        cfg.memory_budget = o.memory_budget;
        if let Some(r) = o.retention {
            cfg.retention = r;
        }
        if o.sync_full {
            cfg.sync = Durability::Full;
        }
        if let Some(n) = o.index_snapshot_every {
            cfg.index_snapshot_every = n;
        }
        if let Some(n) = o.max_memory_bytes {
            cfg.max_memory_bytes = n;
        }
        if let Some(n) = o.max_checkpoint_bytes {
            cfg.max_checkpoint_bytes = n;
        }
        if let Some(c) = o.coherence {
            c.check()?;
            cfg.coherence = c;
        }
        cfg.sequence = match o.sequence.as_deref() {
            None | Some("none") => Sequence::None,
            Some("namespace") => Sequence::Namespace,
            Some(other) => return Err(Error::invalid(format!("unknown sequence {other:?} (namespace or none)"))),
        };
        Ok(cfg)
    }
}
