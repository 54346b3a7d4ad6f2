//! Plain data types of the memory API: what a caller puts, what it gets back, how it lists.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A point in the store's past: a commit sequence number, or a wall-clock time (ms since epoch),
/// which maps to the last seq committed at or before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum AsOf {
    Seq(u64),
    Time(i64),
}

/// One memory as stored: identified by (namespace, key). Its fields are snake_case: it is also a line of
/// the export format, which stays as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Memory {
    pub namespace: Vec<String>,
    pub key: String,
    pub value: Value,
    /// What lexical search indexes (derived from a string `value` when not given).
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
    pub metadata: Map<String, Value>,
    pub pinned: bool,
    /// Expiry, ms since epoch.
    pub expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Per-key version, 1 for the first put; continues across delete + re-put.
    pub version: u64,
    /// Global commit sequence number of this version.
    pub seq: u64,
    /// Accounted bytes (what caps count).
    pub size: u64,
    /// Valid time (ms since epoch): when the fact became true in the world; None: always was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<i64>,
    /// When the fact stopped being true (a supersede sets it); None: still is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<i64>,
    /// How many times `remember` was told this fact (None: once, or a plain put).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<u64>,
    /// When `remember` was last told it (ms since epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<i64>,
    /// The key (same namespace) of the memory this one superseded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// The key (same namespace) of the memory that superseded this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

impl Memory {
    /// Whether the memory is valid at `at` (ms since epoch): `valid_from <= at < valid_to`, an open end holding.
    pub fn valid_at(&self, at: i64) -> bool {
        self.valid_from.is_none_or(|f| f <= at) && self.valid_to.is_none_or(|t| t > at)
    }
}

/// Which memories a read answers with by valid time: those valid at a time (ms since epoch), or all of them
/// (`"any"` on the wire). A read without one answers with what is valid at its own time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidAt {
    At(i64),
    Any,
}

// By hand, not `#[serde(untagged)]`: the untagged derive buffers the input through serde's `Content`, which
// costs the wasm module kilobytes.
impl Serialize for ValidAt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            ValidAt::At(t) => s.serialize_i64(*t),
            ValidAt::Any => s.serialize_str("any"),
        }
    }
}

impl<'de> Deserialize<'de> for ValidAt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ValidAt;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a time in ms since the epoch (an integer) or \"any\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<ValidAt, E> {
                Ok(ValidAt::At(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<ValidAt, E> {
                i64::try_from(v).map(ValidAt::At).map_err(|_| E::custom("validAt is out of range"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<ValidAt, E> {
                if v == "any" {
                    Ok(ValidAt::Any)
                } else {
                    Err(E::custom("validAt must be a time or \"any\""))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl ValidAt {
    /// The time reads filter at (None: any), `now` when none was asked for.
    pub fn resolve(v: Option<ValidAt>, now: i64) -> Option<i64> {
        match v {
            None => Some(now),
            Some(ValidAt::At(t)) => Some(t),
            Some(ValidAt::Any) => None,
        }
    }
}

/// A write of one memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct MemoryPut {
    pub namespace: Vec<String>,
    pub key: String,
    pub value: Value,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default)]
    pub pinned: bool,
    /// Time to live in ms from now.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// Compare-and-set: the write applies only if the live version equals this
    /// (0 = the key must not exist), else CONFLICT.
    #[serde(default)]
    pub if_version: Option<u64>,
    /// Valid time (ms since epoch): when the fact became true, and stopped being true.
    #[serde(default)]
    pub valid_from: Option<i64>,
    #[serde(default)]
    pub valid_to: Option<i64>,
    /// A memory's coherence fields as `remember` keeps them (`seen`, `last_seen`, `replaces`, `replaced_by`):
    /// what replication carries; a caller's put leaves it out.
    #[serde(default)]
    pub coherence: Option<Map<String, Value>>,
}

impl MemoryPut {
    pub fn new(namespace: &[&str], key: &str, value: Value) -> Self {
        MemoryPut {
            namespace: namespace.iter().map(|s| s.to_string()).collect(),
            key: key.to_string(),
            value,
            ..Default::default()
        }
    }
    pub fn text(mut self, text: &str) -> Self {
        self.text = Some(text.to_string());
        self
    }
    pub fn embedding(mut self, v: Vec<f32>) -> Self {
        self.embedding = Some(v);
        self
    }
    pub fn metadata(mut self, m: Value) -> Self {
        self.metadata = m.as_object().cloned();
        self
    }
    pub fn pinned(mut self, pinned: bool) -> Self {
        self.pinned = pinned;
        self
    }
    pub fn ttl_ms(mut self, ttl: u64) -> Self {
        self.ttl_ms = Some(ttl);
        self
    }
    pub fn if_version(mut self, v: u64) -> Self {
        self.if_version = Some(v);
        self
    }
}

/// What a successful write tells the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WriteAck {
    pub seq: u64,
    pub version: u64,
    /// Memories evicted to make room, as (namespace, key).
    pub evicted: Vec<(Vec<String>, String)>,
}

/// Listing memories under a namespace prefix, in (namespace, key) order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct ListQuery {
    pub prefix: Vec<String>,
    /// Metadata conditions.
    #[serde(default)]
    pub filter: Vec<crate::base::filter::Condition>,
    /// Conditions on top-level fields of the value.
    #[serde(default)]
    pub value_filter: Vec<crate::base::filter::Condition>,
    /// Matching memories to skip first (with no cursor).
    #[serde(default)]
    pub offset: usize,
    /// Page size (default 100, at most 1000).
    #[serde(default)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub as_of: Option<AsOf>,
    /// Valid time (default: now).
    #[serde(default)]
    #[cfg_attr(test, ts(type = "ValidAt", optional))]
    pub valid_at: Option<ValidAt>,
    #[serde(default)]
    pub include_embeddings: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ListPage {
    pub items: Vec<Memory>,
    pub next_cursor: Option<String>,
}

/// An export's `end` line (transfer/format.rs): the history floor when the export finished, and how many
/// lines of each kind came; also what an import in progress has taken so far (state/import_gate.rs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportCounts {
    pub history_floor: u64,
    pub versions: u64,
    /// Commit pairs (not `commits` lines).
    pub commits: u64,
    pub checkpoints: u64,
    pub writes: u64,
}
