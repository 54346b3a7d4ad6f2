//! What live searches cache of the full-text index (the Store's part for it): document frequencies, and
//! per-term BM25 lists of the live full-text index, kept while the index stays as it is. A term
//! held by many memories — the user's or a speaker's name — costs a search one scored row per
//! holder (when the rarer terms find fewer than k, lexical search scores every term), which is most
//! of that search, and agents ask about the same names again and again. Every change to the index
//! (a buffer apply, an import) moves the lexical buffer's `version` and so empties the cache: a cached
//! list is always what FTS5 would return now.

use foldhash::HashMap;
use std::sync::Arc;

/// One term's holders with their BM25 (negated FTS5 `bm25()`; None when FTS5 gave NULL).
pub type TermList = Arc<Vec<(i64, Option<f64>)>>;

/// Shorter lists are not kept: scoring them again is cheap.
pub const MIN_HOLDERS: usize = 128;
/// Postings kept at most (24 bytes each: 1.5 MiB); the cache starts over when full.
pub const MAX_POSTINGS: usize = 1 << 16;

/// What live searches cache of the full-text index between searches (the Store's part for it).
#[derive(Default)]
pub(crate) struct TermCache {
    /// Document frequencies: term -> (df, the store's seq when counted).
    pub df: HashMap<String, (u64, u64)>,
    /// Per-term BM25 lists.
    pub scores: TermScores,
}

#[derive(Default)]
pub struct TermScores {
    /// The index version the lists belong to.
    version: u64,
    lists: HashMap<String, TermList>,
    postings: usize,
}

impl TermScores {
    /// `term`'s list if it was kept at index version `version`.
    pub fn get(&mut self, version: u64, term: &str) -> Option<TermList> {
        if version != self.version {
            self.clear(version);
            return None;
        }
        self.lists.get(term).cloned()
    }

    /// Keeps `term`'s list, read at index version `version`, if it is long enough to be worth it.
    pub fn put(&mut self, version: u64, term: &str, list: &TermList) {
        if list.len() < MIN_HOLDERS || list.len() > MAX_POSTINGS {
            return;
        }
        if version != self.version || self.postings + list.len() > MAX_POSTINGS {
            self.clear(version);
        }
        self.postings += list.len();
        self.lists.insert(term.to_string(), list.clone());
    }

    fn clear(&mut self, version: u64) {
        self.version = version;
        self.lists.clear();
        self.postings = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn list(n: usize) -> TermList {
        Arc::new((0..n as i64).map(|i| (i, Some(1.0))).collect())
    }

    #[test]
    fn lists_last_until_the_index_changes_and_short_ones_are_not_kept() {
        let mut c = TermScores::default();
        c.put(1, "ingrid", &list(MIN_HOLDERS));
        c.put(1, "fjord", &list(MIN_HOLDERS - 1));
        assert_eq!(c.get(1, "ingrid").map(|l| l.len()), Some(MIN_HOLDERS));
        assert!(c.get(1, "fjord").is_none(), "too short to keep");
        assert!(c.get(2, "ingrid").is_none(), "the index changed");
        assert!(c.get(1, "ingrid").is_none(), "gone for good, not back at an older version");
    }

    #[test]
    fn the_cache_starts_over_when_full() {
        let mut c = TermScores::default();
        let big = list(MAX_POSTINGS / 2 + 1);
        c.put(1, "a", &big);
        c.put(1, "b", &big);
        assert!(c.get(1, "a").is_none() && c.get(1, "b").is_some());
    }
}
