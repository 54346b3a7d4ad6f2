//! Vector search over live memories: the HNSW graph's candidates after the plan's filters (or the allowed
//! memories scored exactly, when few pass), rescored exactly where the graph's vectors are quantised, and the
//! live lists fused with the exact similarities of candidates the graph did not rank.

use super::fusion::{best_first, best_first_in_order, Fused};
use super::plan::{combine, live_filter, Plan};
use crate::base::error::{Error, ErrorCode, Result};
use crate::config::{ScalarKind, StoreConfig};
use crate::vectors::index::{exact_score, VectorIndex};
use foldhash::{HashMap, HashSet};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use std::cell::RefCell;

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

/// Exact vector similarities computed during one search (None: the memory has no vector).
pub(super) type Rescored = RefCell<HashMap<i64, Option<f64>>>;

/// What a live vector search reads: the connection, the store's settings and its index (None: dims 0).
pub(super) struct VectorSearch<'a> {
    pub conn: &'a Connection,
    pub cfg: &'a StoreConfig,
    pub index: Option<&'a VectorIndex>,
}

impl VectorSearch<'_> {
    /// Fuses the live lists and the `extra` candidates (plan.rs `combine`); `rescored` keeps the exact
    /// similarities of candidates outside the vector list between the fusions of one search.
    pub(super) fn fuse(
        &self,
        plan: &Plan,
        vec_list: &[(i64, f64)],
        lex_list: &[(i64, f64)],
        extra: &[i64],
        rescored: &Rescored,
    ) -> Vec<Fused> {
        let idx = self.index;
        let q = plan.vector.as_deref();
        let scratch = RefCell::new(Vec::new());
        combine(plan, vec_list, lex_list, extra, |id| {
            *rescored.borrow_mut().entry(id).or_insert_with(|| idx?.score(id as u64, q?, &mut scratch.borrow_mut()))
        })
    }

    /// The top `depth` live memories by vector similarity, after the plan's filters.
    pub(super) fn candidates(&self, plan: &Plan, q: &[f32], depth: usize, now: i64) -> Result<Vec<(i64, f64)>> {
        let idx = self
            .index
            .ok_or_else(|| Error::new(ErrorCode::DimensionMismatch, "this store has no vectors (dims = 0)"))?;
        let filtered = !plan.prefix.is_empty() || !plan.conds.is_empty() || !plan.value_conds.is_empty();
        if filtered {
            if idx.len() > EXACT_MAX {
                if let Some(top) = self.top_if_allowed(plan, idx.search(q, depth * 2)?, depth, now)? {
                    return Ok(top);
                }
            }
            let mut ps = Vec::new();
            let where_sql = live_filter(plan, now, &mut ps)?;
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
        // Unfiltered: HNSW top-pool, minus memories expired but not swept yet or not valid at the plan's time.
        let hidden = &plan.hidden;
        if hidden.is_empty() {
            let res = idx.search(q, self.graph_depth(depth, plan.k))?;
            return self.rescored(q, res, depth, plan.k);
        }
        let res = idx.filtered_search(q, self.graph_depth(depth, plan.k), |key| !hidden.contains(&(key as i64)))?;
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
        let exact = match (self.cfg.scalar, self.index) {
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
        let where_sql = live_filter(plan, now, &mut ps)?;
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
}
