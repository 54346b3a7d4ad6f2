//! Search: vector (HNSW), lexical (FTS5 BM25) and hybrid (fusion of both), with a
//! namespace-prefix and metadata filter applied so that k hits come back whenever k exist,
//! and AS OF search (exact scoring over the versions valid then).

mod feedback;
mod fts_table;
mod fusion;
pub mod lexical;

pub use fusion::{FusionMethod, FusionParams};

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::filter::{self, Condition};
use crate::base::namespace;
use crate::base::types::{AsOf, Memory};
use crate::config::ScalarKind;
use crate::features::memories::crud::history_pruned;
use crate::features::memories::row::{row_to_memory, MEM_COLS, VER_COLS};
use crate::store::Store;
use crate::vectors::index::exact_score;
use foldhash::{HashMap, HashSet};
use fts_table::FtsTable;
use fusion::{fuse, Fused};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// Exact vector similarities computed during one search (None: the memory has no vector).
type Rescored = RefCell<HashMap<i64, Option<f64>>>;

pub const MAX_K: usize = 1000;
/// Lexical queries score at most about this many postings (see `selective_terms`). 512: on LoCoMo
/// in one store (3,435 memories) lexical R@10 is 0.672 at 512 vs 0.660 at 1024 and hybrid 0.702 vs
/// 0.700, and a 10k-memory hybrid search spends about half its lexical time (docs/benchmarks/recall.md).
const LEXICAL_POSTINGS_BUDGET: u64 = 512;
/// In hybrid mode the vector list contributes its top max(k, this) (at most `pool`): the lexical
/// candidates it misses are scored exactly anyway, so a deeper vector list only adds candidates
/// too far down to reach the top k. On LoCoMo, R@1/5/10 are identical with 30 and 100 (both
/// embeddings, per-conversation and single-store layouts); the HNSW walk is ~40 % cheaper.
const HYBRID_VECTOR_POOL: usize = 32;
/// Hybrid feedback (feedback.rs) reads at most about this many postings of expansion words.
const FEEDBACK_POSTINGS_BUDGET: u64 = 128;
/// Document frequencies kept for lexical term selection and feedback (cleared when full).
const DF_CACHE_MAX: usize = 16384;
/// With a filter, at most this many allowed vectors are scored exactly instead of walking HNSW.
const EXACT_MAX: usize = 2048;
/// With a quantised graph (i8, f16) a vector search takes this many more candidates from the graph than it
/// returns and ranks them all by their exact similarity to the stored f32 vectors: i8's own ranking missed
/// the exact top 10 on 7 % of hits (bench/node/heap.mjs, 10k × 384 MiniLM + clustered vectors: R@10 vs
/// exact 0.931, with this 0.99+), and the scores fused with full-text ranks are exact.
const RESCORE_EXTRA: usize = 32;
/// With i4 graph vectors a search first ranks the graph's candidates by their codes' levels against the
/// query (in memory), then reads the stored vectors of only its best k + this many: each is a row read, one
/// page each once the store outgrows the page cache, and those reads were most of a search's pages. Measured
/// (10k × 384 with 1 KB values, hybrid top 10, `edgemem-bench pages --scalar i4`): 21.8 pages read per search
/// instead of 59.3 with all 64 candidates read. Vector R@10 vs exact at 100k (MiniLM + clustered vectors, LoCoMo
/// questions, native): 0.972 against 0.978 with every candidate read (0.854 with none, 0.957 with 6, 0.976 with
/// 16); the size suite's 0.962 (0.967 before). LoCoMo hybrid R@10 within 0.001 of reading them all.
const I4_EXACT_EXTRA: usize = 10;

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
    /// The mode's score: similarity (vector), -bm25 (lexical), fused score (hybrid).
    pub score: f64,
    /// Each list's rank (from 1) and score of the hit, null when it is not in that list. In hybrid mode with
    /// feedback, the lexical score includes the expansion words' share, so a memory can have a lexical rank
    /// without holding any word of the question.
    pub vector_rank: Option<u32>,
    pub vector_score: Option<f64>,
    pub lexical_rank: Option<u32>,
    pub lexical_score: Option<f64>,
}

struct Plan {
    mode: SearchMode,
    k: usize,
    pool: usize,
    /// Lexical query terms (empty: no lexical side, or nothing searchable in the text).
    terms: Vec<String>,
    vector: Option<Vec<f32>>,
    prefix: String,
    end: String,
    conds: Vec<Condition>,
    value_conds: Vec<Condition>,
    fusion: FusionParams,
}

impl Plan {
    /// Hybrid searches with a lexical side re-score their candidates with expansion words
    /// (feedback.rs).
    fn wants_feedback(&self) -> bool {
        let f = &self.fusion;
        self.mode == SearchMode::Hybrid
            && !self.terms.is_empty()
            && f.feedback_docs > 0
            && f.feedback_terms > 0
            && f.feedback_weight.is_finite()
            && f.feedback_weight > 0.0
    }
}

impl Store {
    fn plan(&self, q: &SearchQuery) -> Result<Plan> {
        let mode = match (q.mode, &q.text, &q.vector) {
            (Some(m), _, _) => m,
            (None, Some(_), Some(_)) => SearchMode::Hybrid,
            (None, None, Some(_)) => SearchMode::Vector,
            (None, Some(_), None) => SearchMode::Lexical,
            (None, None, None) => return Err(Error::invalid("search needs `text`, `vector` or both")),
        };
        let k = q.k.unwrap_or(10);
        if k == 0 || k > MAX_K {
            return Err(Error::invalid(format!("k must be 1..={MAX_K}")));
        }
        if q.offset > MAX_K - k {
            return Err(Error::invalid(format!("offset + k must be at most {MAX_K}")));
        }
        // The plan ranks the first offset + k; `search` drops the first `offset`.
        let k = k + q.offset;
        let wants_vec = mode != SearchMode::Lexical;
        let wants_lex = mode != SearchMode::Vector;
        let vector = if wants_vec {
            let v = q.vector.clone().ok_or_else(|| Error::invalid(format!("{mode:?} search needs `vector`")))?;
            crate::vectors::index::validate(&v, self.cfg.dims, self.cfg.metric, self.cfg.scalar)?;
            Some(v)
        } else {
            None
        };
        let terms = if wants_lex {
            let t = q.text.as_deref().ok_or_else(|| Error::invalid(format!("{mode:?} search needs `text`")))?;
            if t.len() > 16 * 1024 {
                return Err(Error::new(ErrorCode::PayloadTooLarge, "search text is limited to 16 KiB"));
            }
            lexical::terms(t)
        } else {
            Vec::new()
        };
        let mut fusion = q.fusion.unwrap_or_default();
        // Feedback's work grows with these; beyond them it only adds cost.
        fusion.feedback_docs = fusion.feedback_docs.min(20);
        fusion.feedback_terms = fusion.feedback_terms.min(50);
        fusion.feedback_weight = fusion.feedback_weight.min(1.0);
        let pool = if mode == SearchMode::Hybrid { fusion.pool.clamp(k, 4 * MAX_K) } else { k };
        let prefix = namespace::encode_prefix(&q.namespace)?;
        let end = namespace::prefix_end(&prefix).unwrap_or_else(|| "\u{10FFFF}".to_string());
        let mut probe = Vec::new();
        filter::compile(&q.filter, "metadata", &mut probe)?;
        filter::compile(&q.value_filter, "value", &mut probe)?;
        Ok(Plan {
            mode,
            k,
            pool,
            terms,
            vector,
            prefix,
            end,
            conds: q.filter.clone(),
            value_conds: q.value_filter.clone(),
            fusion,
        })
    }

    /// Searches live memories, or the store as it was `as_of`.
    pub fn search(&mut self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let mut hits = self.search_ranked(q)?;
        hits.drain(..q.offset.min(hits.len()));
        Ok(hits)
    }

    /// The first `offset + k` hits.
    fn search_ranked(&mut self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let plan = self.plan(q)?;
        if let Some(a) = q.as_of {
            return self.search_as_of(&plan, a);
        }
        self.index.advance();
        self.index.ensure_fresh(&self.conn, &self.cfg)?;
        if !plan.terms.is_empty() {
            // The FTS index must hold every write before BM25 reads it.
            self.lexical.flush(&self.conn)?;
        }
        let now = self.now_ms();
        let vec_list = match &plan.vector {
            Some(v) => {
                let depth = if plan.mode == SearchMode::Hybrid {
                    plan.pool.min(plan.k.max(HYBRID_VECTOR_POOL))
                } else {
                    plan.pool
                };
                self.vector_candidates(&plan, v, depth, now)?
            }
            None => Vec::new(),
        };
        let lex_list = {
            let (chosen, pruned) = self.selective_terms(&plan.terms)?;
            let first = self.lexical_candidates(&plan, &chosen, now)?;
            // The rarer terms found fewer than k: the dropped common terms may be the only
            // matches (e.g. inside a filter), so run the full query.
            if pruned && first.len() < plan.k {
                self.lexical_candidates(&plan, &plan.terms, now)?
            } else {
                first
            }
        };
        let rescored = Rescored::default();
        let mut fused = self.fuse_live(&plan, &vec_list, &lex_list, &rescored);
        let words = self.feedback_words(&plan, &fused)?;
        if !words.is_empty() {
            let candidates = fused.iter().map(|f| f.id).collect();
            let lex_list =
                feedback::expand(&lex_list, &candidates, &words, plan.fusion.feedback_weight, plan.pool, |w| {
                    self.fts().holders(w)
                })?;
            fused = self.fuse_live(&plan, &vec_list, &lex_list, &rescored);
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

    /// Fuses the live lists; `rescored` keeps the exact similarities of lexical-only candidates
    /// between the two fusions of a search with feedback.
    fn fuse_live(
        &self,
        plan: &Plan,
        vec_list: &[(i64, f64)],
        lex_list: &[(i64, f64)],
        rescored: &Rescored,
    ) -> Vec<Fused> {
        let idx = self.index.get();
        let q = plan.vector.as_deref();
        let scratch = RefCell::new(Vec::new());
        combine(plan, vec_list, lex_list, |id| {
            *rescored.borrow_mut().entry(id).or_insert_with(|| idx?.score(id as u64, q?, &mut scratch.borrow_mut()))
        })
    }

    /// A hybrid search's expansion words with their IDF (feedback.rs), from the texts of the
    /// first pass's best memories; none when feedback is off.
    fn feedback_words(&mut self, plan: &Plan, fused: &[Fused]) -> Result<Vec<(String, f64)>> {
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
        let n = self.usage.count;
        feedback::expansion_words(&texts, &plan.terms, n, &plan.fusion, FEEDBACK_POSTINGS_BUDGET, |w| self.term_df(w))
    }

    /// The store's full-text index.
    fn fts(&self) -> FtsTable<'_> {
        FtsTable { conn: &self.conn, name: "memories_fts" }
    }

    /// How many memories contain `term` (FTS5's tokenizer applied). Cached for at most
    /// max(16, memories / 64) writes: each write changes at most one memory's text, so a cached
    /// count is off by at most that much (overwrites included, which leave the memory count as is).
    fn term_df(&mut self, term: &str) -> Result<u64> {
        if let Some(&(df, at)) = self.term_cache.df.get(term) {
            if self.seq.saturating_sub(at) <= (self.usage.count / 64).max(16) {
                return Ok(df);
            }
        }
        let df = self.fts().count(term)?;
        if self.term_cache.df.len() >= DF_CACHE_MAX {
            self.term_cache.df.clear();
        }
        self.term_cache.df.insert(term.to_string(), (df, self.seq));
        Ok(df)
    }

    /// Filter SQL over live memories (alias-free columns), params starting after `base`.
    fn live_filter(&self, plan: &Plan, now: i64, base: &mut Vec<SqlValue>) -> Result<String> {
        base.push(SqlValue::Text(plan.prefix.clone()));
        let p = base.len();
        base.push(SqlValue::Text(plan.end.clone()));
        base.push(SqlValue::Integer(now));
        let mut sql =
            format!("m.ns >= ?{p} AND m.ns < ?{} AND (m.expires_at IS NULL OR m.expires_at > ?{})", p + 1, p + 2);
        sql.push_str(&filter::compile(&plan.conds, "m.metadata", base)?);
        sql.push_str(&filter::compile(&plan.value_conds, "m.value", base)?);
        Ok(sql)
    }

    /// The top `depth` live memories by vector similarity, after the plan's filters.
    fn vector_candidates(&self, plan: &Plan, q: &[f32], depth: usize, now: i64) -> Result<Vec<(i64, f64)>> {
        let idx = self
            .index
            .get()
            .ok_or_else(|| Error::new(ErrorCode::DimensionMismatch, "this store has no vectors (dims = 0)"))?;
        let filtered = !plan.prefix.is_empty() || !plan.conds.is_empty() || !plan.value_conds.is_empty();
        if filtered {
            if idx.len() > EXACT_MAX {
                if let Some(top) = self.top_if_allowed(plan, idx.search(q, depth * 2)?, depth, now)? {
                    return Ok(top);
                }
            }
            let mut ps = Vec::new();
            let where_sql = self.live_filter(plan, now, &mut ps)?;
            let allowed: Vec<i64> = {
                let mut st = self.conn.prepare_cached(&format!(
                    "SELECT m.id FROM memories m WHERE m.embedding IS NOT NULL AND {where_sql}"
                ))?;
                let rows = st.query_map(params_from_iter(ps.iter()), |r| r.get(0))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            if allowed.len() <= EXACT_MAX || allowed.len() * 8 <= idx.len() {
                let mut buf = Vec::new();
                let mut scored: Vec<(i64, f64)> =
                    allowed.iter().filter_map(|id| idx.score(*id as u64, q, &mut buf).map(|s| (*id, s))).collect();
                scored.sort_by(best_first_in_order);
                scored.truncate(depth);
                return Ok(scored);
            }
            let set: HashSet<u64> = allowed.iter().map(|i| *i as u64).collect();
            let res = idx.filtered_search(q, self.graph_depth(depth, plan.k), |key| set.contains(&key))?;
            return self.rescored(q, res, depth, plan.k);
        }
        // Unfiltered: HNSW top-pool, minus memories that expired but were not swept yet.
        if !self.any_expired(now)? {
            let res = idx.search(q, self.graph_depth(depth, plan.k))?;
            return self.rescored(q, res, depth, plan.k);
        }
        let expired: HashSet<u64> = {
            let mut st = self
                .conn
                .prepare_cached("SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?1")?;
            let rows = st.query_map([now], |r| r.get::<_, i64>(0))?;
            rows.map(|r| r.map(|i| i as u64)).collect::<rusqlite::Result<_>>()?
        };
        let res = idx.filtered_search(q, self.graph_depth(depth, plan.k), |key| !expired.contains(&key))?;
        self.rescored(q, res, depth, plan.k)
    }

    /// How many candidates a vector search of `depth` (for a top `k`) takes from the graph (see
    /// `RESCORE_EXTRA`). i4 ranks them by their codes' levels and reads only the first `k + I4_EXACT_EXTRA`
    /// exactly (`rescored`), so a hybrid search's deeper list needs no more from the graph than its top k
    /// does: 42 for a top 10 instead of 64, a walk a quarter shorter (USearch's `ef` follows it at 10k), with
    /// the same hybrid top 10 at 10k and 100k (LoCoMo questions over MiniLM + clustered vectors).
    fn graph_depth(&self, depth: usize, k: usize) -> usize {
        match self.cfg.scalar {
            ScalarKind::F32 => depth,
            ScalarKind::I4 => depth.max(k + RESCORE_EXTRA),
            _ => depth + RESCORE_EXTRA,
        }
    }

    /// Graph hits, best `depth` first: as scored with f32 graph vectors, else by the exact similarity
    /// of the stored vectors (a hit without one keeps its graph score). With i4 graph vectors only the
    /// best `k + I4_EXACT_EXTRA` by their codes' levels are read from their stored vectors (see
    /// `I4_EXACT_EXTRA`); the rest keep their levels' similarity, as a lexical-only candidate does.
    fn rescored(&self, q: &[f32], res: Vec<(u64, f64)>, depth: usize, k: usize) -> Result<Vec<(i64, f64)>> {
        let mut out: Vec<(i64, f64)> = res.into_iter().map(|(id, s)| (id as i64, s)).collect();
        let exact = match (self.cfg.scalar, self.index.get()) {
            (ScalarKind::F32, _) => 0,
            (ScalarKind::I4, Some(idx)) => {
                let mut buf = Vec::new();
                for (id, score) in out.iter_mut() {
                    if let Some(s) = idx.score(*id as u64, q, &mut buf) {
                        *score = s;
                    }
                }
                out.sort_by(best_first);
                k + I4_EXACT_EXTRA
            }
            _ => out.len(),
        };
        if exact > 0 {
            let mut st = self.conn.prepare_cached("SELECT embedding FROM memories WHERE id = ?1")?;
            for (id, score) in out.iter_mut().take(exact) {
                let stored: Option<Option<Vec<u8>>> = st.query_row([*id], |r| r.get(0)).optional()?;
                if let Some(Some(b)) = stored {
                    *score = exact_score(self.cfg.metric, q, &crate::vectors::index::decode_vec(&b));
                }
            }
            out.sort_by(best_first);
        }
        out.truncate(depth);
        Ok(out)
    }

    /// A filter that most of the best memories pass (a namespace holding most of the store, say) is
    /// cheaper checked on the unfiltered HNSW hits than by listing every allowed id: when at least
    /// `depth` of `wide` (the unfiltered top, best first) pass the filter, the first `depth` of them
    /// are the allowed memories' top (any other allowed memory scores below all of `wide`). None
    /// when fewer pass.
    fn top_if_allowed(
        &self,
        plan: &Plan,
        wide: Vec<(u64, f64)>,
        depth: usize,
        now: i64,
    ) -> Result<Option<Vec<(i64, f64)>>> {
        if wide.len() < depth {
            return Ok(None);
        }
        let ids = serde_json::to_string(&wide.iter().map(|(id, _)| *id as i64).collect::<Vec<_>>())?;
        let mut ps = vec![SqlValue::Text(ids)];
        let where_sql = self.live_filter(plan, now, &mut ps)?;
        let passing: HashSet<i64> = {
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT m.id FROM memories m WHERE m.id IN (SELECT value FROM json_each(?1)) AND m.embedding IS NOT NULL AND {where_sql}"
            ))?;
            let rows = st.query_map(params_from_iter(ps.iter()), |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let top: Vec<(i64, f64)> =
            wide.into_iter().map(|(id, s)| (id as i64, s)).filter(|(id, _)| passing.contains(id)).take(depth).collect();
        Ok((top.len() == depth).then_some(top))
    }

    /// The terms of a first lexical query that keeps BM25's cost bounded, and whether it dropped
    /// any term. Terms found in more than half of all memories are dropped (FTS5's BM25 clamps their
    /// IDF to ~0, so they barely change the ranking); then terms are kept rarest first while
    /// their postings add up to at most `LEXICAL_POSTINGS_BUDGET` (the rarest is always kept):
    /// scoring every posting of very common terms is most of a query's cost, and they carry the
    /// least weight. When this query cannot fill the candidate pool, the caller reruns with all
    /// terms, so no match is lost. Document frequencies come from `term_df`'s cache.
    fn selective_terms(&mut self, terms: &[String]) -> Result<(Vec<String>, bool)> {
        let n = self.usage.count;
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

    /// Whether some memory has expired but was not swept yet (uses the partial expiry index).
    fn any_expired(&self, now: i64) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?1)")?
            .query_row([now], |r| r.get(0))?)
    }

    /// The best `plan.pool` live memories for `terms` by BM25, after the plan's filters.
    fn lexical_candidates(&mut self, plan: &Plan, terms: &[String], now: i64) -> Result<Vec<(i64, f64)>> {
        if plan.prefix.is_empty() && plan.conds.is_empty() && plan.value_conds.is_empty() && !self.any_expired(now)? {
            // Nothing to filter: FTS5 alone, no join per match, each term's list from the cache
            // while the index is unchanged (term_scores.rs).
            let fts = FtsTable { conn: &self.conn, name: "memories_fts" };
            let (cache, version) = (&mut self.term_cache.scores, self.lexical.version());
            return lexical::sum_term_scores(terms, plan.pool, |t| {
                if let Some(list) = cache.get(version, t) {
                    return Ok(list);
                }
                let list = fts.term_scores(t)?;
                cache.put(version, t, &list);
                Ok(list)
            });
        }
        let mut ps = vec![SqlValue::Null];
        let where_sql = self.live_filter(plan, now, &mut ps)?;
        let sql = format!(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
             WHERE memories_fts MATCH ?1 AND {where_sql}"
        );
        let mut st = self.conn.prepare_cached(&sql)?;
        lexical::sum_term_scores(terms, plan.pool, |t| {
            ps[0] = SqlValue::Text(lexical::quote(t));
            let rows = st.query_map(params_from_iter(ps.iter()), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Option<f64>>(1)?.map(|s| -s)))
            })?;
            Ok(std::sync::Arc::new(rows.collect::<rusqlite::Result<_>>()?))
        })
    }

    /// AS OF search: loads the versions valid at the seq (after filters) and scores them
    /// exactly — cosine/ip/l2 over the stored f32 embeddings, BM25 through a scratch FTS5 table.
    fn search_as_of(&mut self, plan: &Plan, a: AsOf) -> Result<Vec<SearchHit>> {
        let s = self.resolve_as_of(a)?;
        if s < self.history_floor {
            return Err(history_pruned(s, self.history_floor));
        }
        let ts = self.as_of_time(a, s)?;
        let mut ps = vec![
            SqlValue::Integer(s as i64),
            SqlValue::Text(plan.prefix.clone()),
            SqlValue::Text(plan.end.clone()),
            SqlValue::Integer(ts),
        ];
        let mut cond_sql = filter::compile(&plan.conds, "metadata", &mut ps)?;
        cond_sql.push_str(&filter::compile(&plan.value_conds, "value", &mut ps)?);
        let sql = format!(
            "SELECT {VER_COLS} FROM all_versions WHERE seq_from <= ?1 AND (seq_to IS NULL OR seq_to > ?1)
             AND ns >= ?2 AND ns < ?3 AND (expires_at IS NULL OR expires_at > ?4){cond_sql}"
        );
        let rows: Vec<Memory> = {
            let mut st = self.conn.prepare(&sql)?;
            let it =
                st.query_map(params_from_iter(ps.iter()), |r| row_to_memory(r, plan.vector.is_some()).map(|(_, m)| m))?;
            it.collect::<rusqlite::Result<_>>()?
        };
        let vec_list: Vec<(i64, f64)> = match &plan.vector {
            Some(q) => {
                let mut v: Vec<(i64, f64)> = rows
                    .iter()
                    .enumerate()
                    .filter_map(|(i, m)| m.embedding.as_ref().map(|e| (i as i64, exact_score(self.cfg.metric, q, e))))
                    .collect();
                v.sort_by(best_first_in_order);
                v.truncate(plan.pool);
                v
            }
            None => Vec::new(),
        };
        let fuse = |lex_list: &[(i64, f64)]| {
            combine(plan, &vec_list, lex_list, |i| {
                let (q, e) = (plan.vector.as_deref()?, rows.get(i as usize)?.embedding.as_deref()?);
                Some(exact_score(self.cfg.metric, q, e))
            })
        };
        let fused = self.with_scratch_fts(&rows, |fts| {
            let lex_list = fts.bm25(&plan.terms, plan.pool)?;
            let fused = fuse(&lex_list);
            if !plan.wants_feedback() {
                return Ok(fused);
            }
            let texts: Vec<String> =
                fused.iter().take(plan.fusion.feedback_docs).filter_map(|f| rows[f.id as usize].text.clone()).collect();
            let n = rows.len() as u64; // as live search: the memories searched, with text or not
            let words =
                feedback::expansion_words(&texts, &plan.terms, n, &plan.fusion, FEEDBACK_POSTINGS_BUDGET, |w| {
                    fts.count(w)
                })?;
            if words.is_empty() {
                return Ok(fused);
            }
            let candidates = fused.iter().map(|f| f.id).collect();
            Ok(fuse(&feedback::expand(&lex_list, &candidates, &words, plan.fusion.feedback_weight, plan.pool, |w| {
                fts.holders(w)
            })?))
        })?;
        Ok(fused.into_iter().take(plan.k).map(|f| hit(rows[f.id as usize].clone(), &f)).collect())
    }

    /// Runs `f` over a temporary FTS5 table of `rows`' texts (rowid = row index), then drops it.
    fn with_scratch_fts<T>(&self, rows: &[Memory], f: impl FnOnce(&FtsTable) -> Result<T>) -> Result<T> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS temp.asof_fts; CREATE VIRTUAL TABLE temp.asof_fts USING fts5 (text, content = '', columnsize = 0, tokenize = 'porter unicode61');",
        )?;
        let out = (|| -> Result<T> {
            {
                let mut ins = self.conn.prepare("INSERT INTO temp.asof_fts (rowid, text) VALUES (?1, ?2)")?;
                for (i, m) in rows.iter().enumerate() {
                    if let Some(t) = &m.text {
                        ins.execute(params![i as i64, t])?;
                    }
                }
            }
            f(&FtsTable { conn: &self.conn, name: "asof_fts" })
        })();
        self.conn.execute_batch("DROP TABLE IF EXISTS temp.asof_fts;")?;
        out
    }
}

/// Order of a ranked (id, score) list: best score first, ties by id. One function for every such
/// sort, so the module holds one copy of the sort for it rather than one per closure.
pub(crate) fn best_first(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Best score first, ties left in the order they came (a stable sort).
fn best_first_in_order(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1)
}

fn combine(
    plan: &Plan,
    vec_list: &[(i64, f64)],
    lex_list: &[(i64, f64)],
    rescore: impl Fn(i64) -> Option<f64>,
) -> Vec<Fused> {
    match plan.mode {
        SearchMode::Vector => vec_list
            .iter()
            .enumerate()
            .map(|(i, (id, s))| Fused { id: *id, score: *s, vector: Some((i as u32 + 1, *s)), lexical: None })
            .collect(),
        SearchMode::Lexical => lex_list
            .iter()
            .enumerate()
            .map(|(i, (id, s))| Fused { id: *id, score: *s, vector: None, lexical: Some((i as u32 + 1, *s)) })
            .collect(),
        SearchMode::Hybrid => fuse(vec_list, lex_list, &plan.fusion, rescore),
    }
}

fn hit(m: Memory, f: &Fused) -> SearchHit {
    SearchHit {
        namespace: m.namespace,
        key: m.key,
        value: m.value,
        text: m.text,
        metadata: m.metadata,
        version: m.version,
        seq: m.seq,
        created_at: m.created_at,
        updated_at: m.updated_at,
        score: f.score,
        vector_rank: f.vector.map(|v| v.0),
        vector_score: f.vector.map(|v| v.1),
        lexical_rank: f.lexical.map(|v| v.0),
        lexical_score: f.lexical.map(|v| v.1),
    }
}
