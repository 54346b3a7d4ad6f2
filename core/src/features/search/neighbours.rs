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

/// The neighbours of the best max(k / 2, this) candidates (at most `MAX_SOURCES`) are looked up, two short rowid
/// ranges each. Reading rows of other namespaces in between is most of neighbour scoring's cost: on LoCoMo (e5,
/// hybrid top 10) hit@10 was 0.790 / 0.812 / 0.815 with 3 / 5 / 10 and unchanged from 10 to 60; the 10k latency
/// search (four namespaces written in turn) took +25 % / +30 % / +55 % (docs/decisions/neighbour-scoring.md).
const SOURCES: usize = 5;
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
    /// The best candidates' neighbours, as pairs (candidate, neighbour): for each, the nearest `neighbour_reach`
    /// memories of its namespace on each side, read outward along the rowid and no further than `WINDOW` ids (a
    /// sequence written in one run costs `neighbour_reach` rows a side). `NOT INDEXED`: the namespace index would
    /// visit the whole namespace instead.
    fn pairs(&self, fused: &[Fused]) -> Result<Vec<(i64, i64)>> {
        let reach = self.plan.fusion.neighbour_reach;
        // A neighbour shares its candidate's namespace, so it is within the search's prefix: only metadata and
        // value conditions, and expiry, can leave it out (their columns lie past the value, often on overflow
        // pages, so they are read only when they can matter).
        let plan = self.plan;
        let unfiltered = plan.conds.is_empty() && plan.value_conds.is_empty() && plan.hidden.is_empty();
        let mut out = Vec::new();
        for (range, order) in [
            (format!("m.id < ?1 AND m.id >= ?1 - {WINDOW}"), "DESC"),
            (format!("m.id > ?1 AND m.id <= ?1 + {WINDOW}"), "ASC"),
        ] {
            let mut ps = vec![SqlValue::Null];
            let where_sql = if unfiltered { "1".to_string() } else { live_filter(plan, self.now, &mut ps)? };
            let sql = format!(
                "SELECT m.id FROM memories m NOT INDEXED WHERE {range}
                 AND m.ns = (SELECT ns FROM memories WHERE id = ?1) AND {where_sql} ORDER BY m.id {order}"
            );
            let mut st = self.conn.prepare_cached(&sql)?;
            for f in fused.iter().take((self.plan.k / 2).clamp(SOURCES, MAX_SOURCES)) {
                ps[0] = SqlValue::Integer(f.id);
                let mut rows = st.query(params_from_iter(ps.iter()))?;
                for _ in 0..reach {
                    match rows.next()? {
                        Some(r) => out.push((f.id, r.get::<_, i64>(0)?)),
                        None => break,
                    }
                }
            }
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
