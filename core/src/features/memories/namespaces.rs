//! Listing the namespaces that hold live memories: filtered by a prefix and a suffix (where a `*`
//! segment matches any one segment), cut to a maximum depth, in order, with limit and offset — what
//! LangGraph's `listNamespaces` asks of a store.

use crate::base::error::{Error, Result};
use crate::base::namespace;
use crate::store::Store;
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// The segment that matches any one segment in a prefix or suffix.
pub const WILDCARD: &str = "*";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct NamespaceQuery {
    /// Namespaces that start with these segments (`*` matches any one).
    #[serde(default)]
    pub prefix: Vec<String>,
    /// Namespaces that end with these segments (`*` matches any one).
    #[serde(default)]
    pub suffix: Vec<String>,
    /// Namespaces deeper than this are cut to their first `max_depth` segments (then deduplicated).
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// At most this many (1..=1000, default 100).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Namespaces to skip first.
    #[serde(default)]
    pub offset: usize,
}

fn matches(pattern: &[String], segments: &[&str]) -> bool {
    pattern.iter().zip(segments).all(|(p, s)| p == WILDCARD || p == s)
}

impl Store {
    /// Namespaces holding at least one live memory, in segment order, after the query's filters.
    pub fn list_namespaces(&self, q: &NamespaceQuery) -> Result<Vec<Vec<String>>> {
        namespace::encode_prefix(&q.prefix)?;
        namespace::encode_prefix(&q.suffix)?;
        if q.max_depth == Some(0) {
            return Err(Error::invalid("max_depth must be at least 1"));
        }
        let limit = q.limit.unwrap_or(100);
        if limit == 0 || limit > 1000 {
            return Err(Error::invalid("limit must be 1..=1000"));
        }
        // The literal segments before the first wildcard bound the scan to a key range.
        let literal: Vec<String> = q.prefix.iter().take_while(|s| *s != WILDCARD).cloned().collect();
        let lo = namespace::encode_prefix(&literal)?;
        let hi = namespace::prefix_end(&lo).unwrap_or_else(|| "\u{10FFFF}".to_string());
        let mut st = self.conn.prepare_cached(
            "SELECT DISTINCT ns FROM memories WHERE ns >= ?1 AND ns < ?2 AND (expires_at IS NULL OR expires_at > ?3) ORDER BY ns",
        )?;
        let mut rows = st.query(params![lo, hi, self.now_ms()])?;
        // Encoded (segments each followed by U+001F, below any character a segment may hold): sorting
        // these sorts by segments.
        let mut found: Vec<String> = Vec::new();
        while let Some(r) = rows.next()? {
            let joined: String = r.get(0)?;
            let segments: Vec<&str> = namespace::segments(&joined).collect();
            if segments.len() < q.prefix.len() || segments.len() < q.suffix.len() {
                continue;
            }
            if !matches(&q.prefix, &segments) || !matches(&q.suffix, &segments[segments.len() - q.suffix.len()..]) {
                continue;
            }
            let depth = q.max_depth.map_or(segments.len(), |d| d.min(segments.len()));
            let mut cut = String::new();
            for seg in &segments[..depth] {
                cut.push_str(seg);
                cut.push(namespace::SEP);
            }
            found.push(cut);
        }
        found.sort_unstable();
        found.dedup();
        Ok(found.iter().skip(q.offset).take(limit).map(|n| namespace::decode(n)).collect())
    }
}
