//! Per-term queries on an FTS5 table — the store's `memories_fts`, or the scratch table an AS OF
//! search builds — so live and AS OF search score, count and match terms the same way.

use super::terms;
use crate::base::error::Result;
use crate::state::term_cache::TermList;
use rusqlite::Connection;

pub struct FtsTable<'c> {
    pub conn: &'c Connection,
    /// The table's name (unqualified: SQLite looks in `temp` first).
    pub name: &'static str,
}

impl FtsTable<'_> {
    /// The best `pool` rows for `terms` by BM25, summed term by term (`terms::sum_term_scores`).
    pub fn bm25(&self, terms: &[String], pool: usize) -> Result<Vec<(i64, f64)>> {
        terms::sum_term_scores(terms, pool, |t| self.term_scores(t))
    }

    /// Every row holding `term`, with its BM25 for the term (negated FTS5 `bm25()`; None: NULL).
    pub fn term_scores(&self, term: &str) -> Result<TermList> {
        let sql = format!("SELECT rowid, bm25({0}) FROM {0} WHERE {0} MATCH ?1", self.name);
        let mut st = self.conn.prepare_cached(&sql)?;
        let rows =
            st.query_map([terms::quote(term)], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<f64>>(1)?.map(|s| -s))))?;
        let mut list: Vec<_> = rows.collect::<rusqlite::Result<_>>()?;
        // Collected by doubling, a list has up to twice its length in capacity, which the term cache would keep
        // (state/term_cache.rs counts lengths). Shrinking gives the tail back in place.
        list.shrink_to_fit();
        Ok(TermList::new(list))
    }

    /// The rows whose text holds `term`.
    pub fn holders(&self, term: &str) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(&format!("SELECT rowid FROM {0} WHERE {0} MATCH ?1", self.name))?;
        let rows = st.query_map([terms::quote(term)], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many rows' texts hold `term` (FTS5's tokenizer applied).
    pub fn count(&self, term: &str) -> Result<u64> {
        let n: i64 = self
            .conn
            .prepare_cached(&format!("SELECT COUNT(*) FROM {0} WHERE {0} MATCH ?1", self.name))?
            .query_row([terms::quote(term)], |r| r.get(0))?;
        Ok(n as u64)
    }
}
