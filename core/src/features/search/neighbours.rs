//! Neighbour scoring: memories that form a sequence (the memories of one namespace in the order they were
//! first written — a conversation's turns) are scored with their neighbours. The evidence a question needs
//! is often the turn next to the one that matches it (a question and its answer), so each candidate's score
//! (min-max normalised over the candidates) gains `weight` × its best neighbour's, and the best candidates'
//! neighbours join the candidates. Chosen by leave-one-conversation-out on LoCoMo
//! (docs/decisions/neighbour-scoring.md).

use super::fusion::Fused;
use super::plan::{live_filter, Plan};
use crate::base::error::Result;
use foldhash::{HashMap, HashMapExt, HashSet};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params_from_iter, Connection};

/// The weight a store with `sequence: "namespace"` scores neighbours with when a search names none: the
/// weight most leave-one-conversation-out folds chose on LoCoMo (e5, hybrid; 0.6 in 3 of 6 folds, each with
/// reach 2), not the whole set's best.
pub(crate) const DEFAULT_WEIGHT: f64 = 0.6;
/// The neighbours of the best max(k, this) candidates (at most `MAX_SOURCES`) are looked up, one rowid range
/// each: on LoCoMo hybrid hit@10 is within 0.002 with 10, 30 or 60, at a third of 30's lookups.
const SOURCES: usize = 10;
const MAX_SOURCES: usize = 30;
/// A memory's neighbours are the nearest memories of its namespace (`neighbour_reach` each side) written
/// within this many ids of it: the lookup is a short rowid range, with no index per namespace to keep up on
/// every write. Memories of other namespaces written in between (more than this many) break a sequence.
const WINDOW: i64 = 16;

/// The ids of `id`'s previous and next memory in its sequence among those the plan may return.
pub(super) struct Neighbours<'a> {
    pub conn: &'a Connection,
    pub plan: &'a Plan,
    pub now: i64,
}

impl Neighbours<'_> {
    /// The best candidates' neighbours, as pairs (candidate, neighbour): one rowid range of `2 × WINDOW + 1`
    /// rows per candidate, the nearest `neighbour_reach` same-namespace memories each side.
    fn pairs(&self, fused: &[Fused]) -> Result<Vec<(i64, i64)>> {
        let mut ps = vec![SqlValue::Null];
        let where_sql = live_filter(self.plan, self.now, &mut ps)?;
        let sql = format!(
            "SELECT m.id FROM memories m WHERE m.id BETWEEN ?1 - {WINDOW} AND ?1 + {WINDOW} AND m.id <> ?1
             AND m.ns = (SELECT ns FROM memories WHERE id = ?1) AND {where_sql}"
        );
        let mut st = self.conn.prepare_cached(&sql)?;
        let mut out = Vec::new();
        let reach = self.plan.fusion.neighbour_reach;
        let mut ids: Vec<i64> = Vec::new();
        for f in fused.iter().take(self.plan.k.clamp(SOURCES, MAX_SOURCES)) {
            ps[0] = SqlValue::Integer(f.id);
            ids.clear();
            for id in st.query_map(params_from_iter(ps.iter()), |r| r.get::<_, i64>(0))? {
                ids.push(id?);
            }
            ids.sort_unstable();
            let at = ids.partition_point(|&i| i < f.id);
            let before = ids[..at].iter().rev().take(reach);
            out.extend(before.chain(ids[at..].iter().take(reach)).map(|&n| (f.id, n)));
        }
        Ok(out)
    }

    /// `fused` re-ranked with neighbour scores. `refuse` ranks the candidates again with the given extra ids
    /// (neighbours that were not candidates).
    pub(super) fn rerank(&self, fused: Vec<Fused>, refuse: impl FnOnce(&[i64]) -> Vec<Fused>) -> Result<Vec<Fused>> {
        let pairs = self.pairs(&fused)?;
        let known: HashSet<i64> = fused.iter().map(|f| f.id).collect();
        let mut extra: Vec<i64> = pairs.iter().map(|p| p.1).filter(|id| !known.contains(id)).collect();
        extra.sort_unstable();
        extra.dedup();
        let mut fused = if extra.is_empty() { fused } else { refuse(&extra) };
        lend(&mut fused, &pairs, self.plan.neighbour_weight);
        Ok(fused)
    }
}

/// Scores each candidate as its min-max normalised score plus `weight` × the best normalised score among its
/// neighbours (`pairs` are symmetric: each lends to the other), best first.
fn lend(fused: &mut [Fused], pairs: &[(i64, i64)], weight: f64) {
    let (lo, hi) = fused.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), f| (a.min(f.score), b.max(f.score)));
    let norm = |s: f64| if hi > lo { (s - lo) / (hi - lo) } else { 1.0 };
    let score: HashMap<i64, f64> = fused.iter().map(|f| (f.id, norm(f.score))).collect();
    let mut best: HashMap<i64, f64> = HashMap::with_capacity(pairs.len() * 2);
    for &(a, b) in pairs {
        for (to, from) in [(a, b), (b, a)] {
            if let Some(&s) = score.get(&from) {
                let e = best.entry(to).or_insert(0.0);
                *e = e.max(s);
            }
        }
    }
    for f in fused.iter_mut() {
        f.score = norm(f.score) + weight * best.get(&f.id).copied().unwrap_or(0.0);
    }
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
}
