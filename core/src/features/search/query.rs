//! The search API's shapes: what a search asks (`SearchQuery`, `SearchMode`) and what it answers
//! (`SearchHit`).

use super::fusion::FusionParams;
use crate::base::filter::Condition;
use crate::base::types::AsOf;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub const MAX_K: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SearchMode {
    Vector,
    Lexical,
    Hybrid,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct SearchQuery {
    /// Default: hybrid when both `text` and `vector` are given, else whichever is.
    #[serde(default)]
    pub mode: Option<SearchMode>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub vector: Option<Vec<f32>>,
    /// Hits wanted (1..=1000, default 10).
    #[serde(default)]
    pub k: Option<usize>,
    /// Namespace prefix (empty: the whole store).
    #[serde(default)]
    pub namespace: Vec<String>,
    #[serde(default)]
    pub filter: Vec<Condition>,
    /// Conditions on top-level fields of the memory's value (a value that is not an object has none).
    #[serde(default)]
    pub value_filter: Vec<Condition>,
    /// Hits to skip first (the ranking's `offset..offset + k`; `offset + k` at most 1000).
    #[serde(default)]
    pub offset: usize,
    #[serde(default)]
    pub as_of: Option<AsOf>,
    /// Valid time (default: now): only memories valid then are hits.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "ValidAt", optional))]
    pub valid_at: Option<crate::base::types::ValidAt>,
    #[serde(default)]
    pub fusion: Option<FusionParams>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchHit {
    pub namespace: Vec<String>,
    pub key: String,
    pub value: Value,
    pub text: Option<String>,
    pub metadata: Map<String, Value>,
    pub version: u64,
    pub seq: u64,
    /// When the memory was first written and last changed (ms since the epoch), as of the search.
    pub created_at: i64,
    pub updated_at: i64,
    /// The mode's score: similarity (vector), -bm25 (lexical), fused score (hybrid); with neighbour scoring
    /// (`fusion.neighbourWeight`), the normalised score plus what the best neighbour lends.
    pub score: f64,
    /// Each list's rank (from 1) and score of the hit, null when it is not in that list. In hybrid mode with
    /// feedback, the lexical score includes the expansion words' share, so a memory can have a lexical rank
    /// without holding any word of the question.
    pub vector_rank: Option<u32>,
    pub vector_score: Option<f64>,
    pub lexical_rank: Option<u32>,
    pub lexical_score: Option<f64>,
    /// The memory's valid time (absent when open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<i64>,
}
