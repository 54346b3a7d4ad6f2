//! Lexical search over live memories: BM25 through FTS5 with the terms that keep its cost bounded, each
//! common term's list and the document frequencies from the term cache (state/term_cache.rs), and the
//! expansion words of hybrid feedback.

use super::feedback;
use super::fts_table::FtsTable;
use super::fusion::Fused;
use super::plan::{live_filter, Plan, FEEDBACK_POSTINGS_BUDGET};
use super::terms;
use crate::base::error::Result;
use crate::state::term_cache::TermCache;
use rusqlite::types::Value as SqlValue;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

/// Lexical queries score at most about this many postings (see `selective_terms`). 512: on LoCoMo
/// in one store (3,435 memories) lexical R@10 is 0.672 at 512 vs 0.660 at 1024 and hybrid 0.702 vs
/// 0.700, and a 10k-memory hybrid search spends about half its lexical time (docs/benchmarks/recall.md).
const LEXICAL_POSTINGS_BUDGET: u64 = 512;
/// Document frequencies kept for lexical term selection and feedback (cleared when full).
const DF_CACHE_MAX: usize = 16384;

/// What a live lexical search reads and caches: the connection, the term cache, the full-text index's
/// version (state/lexical_buffer.rs), the store's seq and its live memories.
pub(super) struct LexicalSearch<'a> {
    pub conn: &'a Connection,
    pub cache: &'a mut TermCache,
    pub version: u64,
    pub seq: u64,
    pub count: u64,
}

impl LexicalSearch<'_> {
    /// A hybrid search's expansion words with their IDF (feedback.rs), from the texts of the
    /// first pass's best memories; none when feedback is off.
    pub(super) fn feedback_words(&mut self, plan: &Plan, fused: &[Fused]) -> Result<Vec<(String, f64)>> {
        if !plan.wants_feedback() {
            return Ok(Vec::new());
        }
        let mut texts = Vec::new();
        for f in fused.iter().take(plan.fusion.feedback_docs) {
            let text: Option<Option<String>> = self
                .conn
                .prepare_cached("SELECT text FROM memories WHERE id = ?1")?
                .query_row([f.id], |r| r.get(0))
                .optional()?;
            texts.extend(text.flatten());
        }
        let n = self.count;
        feedback::expansion_words(&texts, &plan.terms, n, &plan.fusion, FEEDBACK_POSTINGS_BUDGET, |w| self.term_df(w))
    }

    /// The store's full-text index.
    pub(super) fn fts(&self) -> FtsTable<'_> {
        FtsTable { conn: self.conn, name: "memories_fts" }
    }

    /// How many memories contain `term` (FTS5's tokenizer applied). Cached for at most
    /// max(16, memories / 64) writes: each write changes at most one memory's text, so a cached
    /// count is off by at most that much (overwrites included, which leave the memory count as is).
    fn term_df(&mut self, term: &str) -> Result<u64> {
        if let Some(&(df, at)) = self.cache.df.get(term) {
            if self.seq.saturating_sub(at) <= (self.count / 64).max(16) {
                return Ok(df);
            }
        }
        let df = self.fts().count(term)?;
        if self.cache.df.len() >= DF_CACHE_MAX {
            self.cache.df.clear();
        }
        self.cache.df.insert(term.to_string(), (df, self.seq));
        Ok(df)
    }

    /// The terms of a first lexical query that keeps BM25's cost bounded, and whether it dropped
    /// any term. Terms found in more than half of all memories are dropped (FTS5's BM25 clamps their
    /// IDF to ~0, so they barely change the ranking); then terms are kept rarest first while
    /// their postings add up to at most `LEXICAL_POSTINGS_BUDGET` (the rarest is always kept):
    /// scoring every posting of very common terms is most of a query's cost, and they carry the
    /// least weight. When this query cannot fill the candidate pool, the caller reruns with all
    /// terms, so no match is lost. Document frequencies come from `term_df`'s cache.
    pub(super) fn selective_terms(&mut self, terms: &[String]) -> Result<(Vec<String>, bool)> {
        let n = self.count;
        let mut kept: Vec<(u64, &String)> = Vec::new();
        for t in terms {
            let df = self.term_df(t)?;
            kept.push((df, t));
        }
        kept.sort_by_key(|(df, _)| *df);
        let mut chosen: Vec<String> = Vec::new();
        let mut postings = 0u64;
        for (i, (df, t)) in kept.iter().enumerate() {
            let informative = *df * 2 <= n;
            if i == 0 || (informative && postings + df <= LEXICAL_POSTINGS_BUDGET) {
                chosen.push((*t).clone());
                postings += df;
            }
        }
        let pruned = chosen.len() < terms.len();
        Ok((chosen, pruned))
    }

    /// The best `plan.pool` live memories for `terms` by BM25, after the plan's filters.
    pub(super) fn candidates(&mut self, plan: &Plan, terms: &[String], now: i64) -> Result<Vec<(i64, f64)>> {
        if plan.prefix.is_empty() && plan.conds.is_empty() && plan.value_conds.is_empty() {
            // Nothing to filter: FTS5 alone, no join per match, each term's list from the cache
            // while the index is unchanged (state/term_cache.rs), less the memories a search leaves out.
            let hidden = &plan.hidden;
            let fts = FtsTable { conn: self.conn, name: "memories_fts" };
            let (cache, version) = (&mut self.cache.scores, self.version);
            return terms::sum_term_scores(terms, plan.pool, |t| {
                let list = match cache.get(version, t) {
                    Some(list) => list,
                    None => {
                        let list = fts.term_scores(t)?;
                        cache.put(version, t, &list);
                        list
                    }
                };
                if hidden.is_empty() {
                    return Ok(list);
                }
                Ok(std::sync::Arc::new(list.iter().filter(|(id, _)| !hidden.contains(id)).copied().collect()))
            });
        }
        let mut ps = vec![SqlValue::Null];
        let where_sql = live_filter(plan, now, &mut ps)?;
        let sql = format!(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
             WHERE memories_fts MATCH ?1 AND {where_sql}"
        );
        let mut st = self.conn.prepare_cached(&sql)?;
        terms::sum_term_scores(terms, plan.pool, |t| {
            ps[0] = SqlValue::Text(terms::quote(t));
            let rows = st.query_map(params_from_iter(ps.iter()), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Option<f64>>(1)?.map(|s| -s)))
            })?;
            Ok(std::sync::Arc::new(rows.collect::<rusqlite::Result<_>>()?))
        })
    }
}
