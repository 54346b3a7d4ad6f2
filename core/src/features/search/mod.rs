//! Search: vector (HNSW), lexical (FTS5 BM25) and hybrid (fusion of both), with a namespace-prefix and
//! metadata filter applied so that k hits come back whenever k exist, and AS OF search (exact scoring over
//! the versions valid then). This file is the entry, `Store::search`: the plan (plan.rs), then the live
//! lists (vector.rs, lexical.rs) fused (fusion.rs, with feedback.rs), or the AS OF path (as_of.rs).

mod as_of;
mod feedback;
mod fts_table;
pub(crate) mod fusion;
mod lexical;
mod neighbours;
mod plan;
pub(crate) mod query;
mod terms;
mod vector;

use crate::base::error::Result;
use crate::base::types::ValidAt;
use crate::features::memories::crud::history_pruned;
use crate::features::memories::row::{row_to_memory, MEM_COLS};
use crate::store::Store;
use lexical::LexicalSearch;
use neighbours::Neighbours;
use plan::hit;
use query::{SearchHit, SearchMode, SearchQuery};
use rusqlite::OptionalExtension;
use vector::{Rescored, VectorSearch};

/// In hybrid mode the vector list contributes its top max(k, this) (at most `pool`): the lexical
/// candidates it misses are scored exactly anyway, so a deeper vector list only adds candidates
/// too far down to reach the top k. On LoCoMo, R@1/5/10 are identical with 30 and 100 (both
/// embeddings, per-conversation and single-store layouts); the HNSW walk is ~40 % cheaper.
const HYBRID_VECTOR_POOL: usize = 32;

impl Store {
    /// Searches live memories, or the store as it was `as_of`.
    pub fn search(&mut self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let mut hits = self.search_ranked(q)?;
        hits.drain(..q.offset.min(hits.len()));
        Ok(hits)
    }

    /// The first `offset + k` hits.
    fn search_ranked(&mut self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let mut plan = plan::plan(q, &self.cfg)?;
        if let Some(a) = q.as_of {
            let s = self.resolve_as_of(a)?;
            if s < self.history_floor {
                return Err(history_pruned(s, self.history_floor));
            }
            let ts = self.as_of_time(a, s)?;
            plan.valid_at = ValidAt::resolve(q.valid_at, ts);
            return as_of::search(&self.conn, self.cfg.metric, &plan, s, ts);
        }
        let now = self.now_ms();
        plan.valid_at = ValidAt::resolve(q.valid_at, now);
        plan.hidden = plan::hidden(&self.conn, &plan, now)?;
        self.index.advance();
        self.index.ensure_fresh(&self.conn, &self.cfg)?;
        if !plan.terms.is_empty() {
            // The FTS index must hold every write before BM25 reads it.
            self.lexical.flush(&self.conn)?;
        }
        let vectors = VectorSearch { conn: &self.conn, cfg: &self.cfg, index: self.index.get() };
        let mut lexical = LexicalSearch {
            conn: &self.conn,
            cache: &mut self.term_cache,
            version: self.lexical.version(),
            seq: self.seq,
            count: self.usage.count,
        };
        let vec_list = match &plan.vector {
            Some(v) => {
                let depth = if plan.mode == SearchMode::Hybrid || plan.neighbour_weight > 0.0 {
                    plan.pool.min(plan.k.max(HYBRID_VECTOR_POOL))
                } else {
                    plan.pool
                };
                vectors.candidates(&plan, v, depth, now)?
            }
            None => Vec::new(),
        };
        let lex_list = {
            let (chosen, pruned) = lexical.selective_terms(&plan.terms)?;
            let first = lexical.candidates(&plan, &chosen, now)?;
            // The rarer terms found fewer than k: the dropped common terms may be the only
            // matches (e.g. inside a filter), so run the full query.
            if pruned && first.len() < plan.k {
                lexical.candidates(&plan, &plan.terms, now)?
            } else {
                first
            }
        };
        let rescored = Rescored::default();
        let mut fused = vectors.fuse(&plan, &vec_list, &lex_list, &[], &rescored);
        let words = lexical.feedback_words(&plan, &fused)?;
        let lex_list = if words.is_empty() {
            lex_list
        } else {
            let candidates = fused.iter().map(|f| f.id).collect();
            let lex_list =
                feedback::expand(&lex_list, &candidates, &words, plan.fusion.feedback_weight, plan.pool, |w| {
                    lexical.fts().holders(w)
                })?;
            fused = vectors.fuse(&plan, &vec_list, &lex_list, &[], &rescored);
            lex_list
        };
        if plan.neighbour_weight > 0.0 && !fused.is_empty() {
            let n = Neighbours { conn: &self.conn, plan: &plan, now };
            fused = n.rerank(fused, |extra| vectors.fuse(&plan, &vec_list, &lex_list, extra, &rescored))?;
        }
        let mut hits = Vec::with_capacity(plan.k);
        for f in fused.into_iter().take(plan.k) {
            let row = self
                .conn
                .prepare_cached(&format!("SELECT {MEM_COLS} FROM memories WHERE id = ?1"))?
                .query_row([f.id], |r| row_to_memory(r, false))
                .optional()?;
            if let Some((id, m)) = row {
                self.recency.touch(id, self.usage.count);
                hits.push(hit(m, &f));
            }
        }
        Ok(hits)
    }
}
