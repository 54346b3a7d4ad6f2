//! Hybrid fusion of a vector ranking and a lexical ranking into one.
//!
//! Default: weighted reciprocal-rank fusion with a deep candidate pool. Each list contributes
//! `weight / (rrf_k + rank)`; see `FusionParams` for the defaults and
//! `docs/decisions/relative-score-fusion-with-feedback.md` for how they were chosen on LoCoMo
//! (no per-question tuning).

use crate::base::error::{Error, Result};
use foldhash::{HashMap, HashMapExt};
use serde::{Deserialize, Serialize};

/// The weight a store with `sequence: "namespace"` scores neighbours with (search/neighbours.rs) when a search
/// names none: the weight every leave-one-conversation-out fold chose on LoCoMo (e5, hybrid, each with reach 2),
/// not picked by the whole set's score.
pub(crate) const NEIGHBOUR_DEFAULT_WEIGHT: f64 = 0.8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum FusionMethod {
    /// Weighted reciprocal rank fusion.
    Rrf,
    /// Scores of the union of both candidate sets, each normalised to [0, 1] (vector:
    /// min-max over the union, with missing similarities computed exactly; lexical: BM25 / max,
    /// no match = 0), then a weighted sum.
    Relative,
    /// As `Relative`, but each signal standardised (z-score over the union).
    ZScore,
}

/// Hybrid fusion settings (absent fields: the defaults below).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FusionParams {
    pub method: FusionMethod,
    /// Weight of the vector list; the lexical list gets `1 - vector_weight`.
    pub vector_weight: f64,
    /// RRF's rank offset.
    pub rrf_k: f64,
    /// Candidates taken from each list before fusing (at least k).
    pub pool: usize,
    /// Pseudo-relevance feedback (search/feedback.rs): the first pass's top this many memories
    /// (at most 20: `FUSION_RANGES`) supply expansion words that re-score its candidates (0: off).
    pub feedback_docs: usize,
    /// At most this many expansion words (at most 50).
    pub feedback_terms: usize,
    /// Each expansion word adds this weight (at most 1) × its one-occurrence BM25 score.
    pub feedback_weight: f64,
    /// Neighbour scoring (search/neighbours.rs), in every mode: each candidate's score, min-max normalised, plus
    /// this weight (at most 1) × its best neighbour's in its sequence (the memories of its namespace in the order
    /// they were first written); the best candidates' neighbours join the candidates. Absent: the store's
    /// default (`sequence: "namespace"` turns it on), 0: off.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub neighbour_weight: Option<f64>,
    /// Neighbour scoring's reach: the memories up to this many places before and after a memory in its
    /// sequence (at most 4) are its neighbours.
    pub neighbour_reach: usize,
}

impl Default for FusionParams {
    fn default() -> Self {
        FusionParams {
            method: FusionMethod::Relative,
            vector_weight: 0.5,
            rrf_k: 60.0,
            pool: 100,
            feedback_docs: 5,
            feedback_terms: 10,
            feedback_weight: 0.3,
            neighbour_weight: None,
            neighbour_reach: 2,
        }
    }
}

/// The largest candidate pool (4 × the largest k).
pub const MAX_POOL: usize = 4000;

/// The inclusive range of each fusion setting. A search with a setting outside its range is refused with
/// INVALID_ARGUMENT, here and on every surface (the TypeScript checks and the Worker's schemas take these
/// numbers from the generated `ENGINE_LIMITS`).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FusionRanges {
    pub vector_weight: (f64, f64),
    pub rrf_k: (f64, f64),
    pub pool: (usize, usize),
    /// Feedback's work grows with these; beyond them it only adds cost.
    pub feedback_docs: (usize, usize),
    pub feedback_terms: (usize, usize),
    pub feedback_weight: (f64, f64),
    pub neighbour_weight: (f64, f64),
    pub neighbour_reach: (usize, usize),
}

pub const FUSION_RANGES: FusionRanges = FusionRanges {
    vector_weight: (0.0, 1.0),
    rrf_k: (1.0, 1000.0),
    pool: (1, MAX_POOL),
    feedback_docs: (0, 20),
    feedback_terms: (0, 50),
    feedback_weight: (0.0, 1.0),
    neighbour_weight: (0.0, 1.0),
    neighbour_reach: (1, 4),
};

impl FusionParams {
    /// INVALID_ARGUMENT naming the first setting outside its range (`FUSION_RANGES`).
    pub fn check(&self) -> Result<()> {
        let r = &FUSION_RANGES;
        within("vectorWeight", self.vector_weight, r.vector_weight, false)?;
        within("rrfK", self.rrf_k, r.rrf_k, false)?;
        within("pool", self.pool as f64, (r.pool.0 as f64, r.pool.1 as f64), true)?;
        within("feedbackDocs", self.feedback_docs as f64, (r.feedback_docs.0 as f64, r.feedback_docs.1 as f64), true)?;
        within(
            "feedbackTerms",
            self.feedback_terms as f64,
            (r.feedback_terms.0 as f64, r.feedback_terms.1 as f64),
            true,
        )?;
        within("feedbackWeight", self.feedback_weight, r.feedback_weight, false)?;
        let reach = (r.neighbour_reach.0 as f64, r.neighbour_reach.1 as f64);
        within("neighbourReach", self.neighbour_reach as f64, reach, true)?;
        match self.neighbour_weight {
            Some(w) => within("neighbourWeight", w, r.neighbour_weight, false),
            None => Ok(()),
        }
    }
}

/// `v` within `lo..=hi` (NaN is not), else INVALID_ARGUMENT in the words the TypeScript check uses.
fn within(name: &str, v: f64, (lo, hi): (f64, f64), int: bool) -> Result<()> {
    if v >= lo && v <= hi {
        return Ok(());
    }
    let kind = if int { "an integer" } else { "a number" };
    Err(Error::invalid(format!("fusion.{name} must be {kind} in {lo}..={hi}, got {v}")))
}

/// One fused candidate: id, fused score, and each list's (rank from 1, raw score).
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub id: i64,
    pub score: f64,
    pub vector: Option<(u32, f64)>,
    pub lexical: Option<(u32, f64)>,
}

/// Fuses two best-first lists of (id, score), and the `extra` ids neither holds (neighbours of candidates).
/// `rescore` gives the exact vector similarity of an id the vector list missed (None if it has no vector).
pub fn fuse(
    vector: &[(i64, f64)],
    lexical: &[(i64, f64)],
    extra: &[i64],
    p: &FusionParams,
    rescore: impl Fn(i64) -> Option<f64>,
) -> Vec<Fused> {
    let wv = p.vector_weight; // within 0..=1: `FusionParams::check`
    let wl = 1.0 - wv;
    let mut by_id: HashMap<i64, Fused> = HashMap::new();
    for (i, (id, s)) in vector.iter().enumerate() {
        by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, vector: None, lexical: None }).vector =
            Some((i as u32 + 1, *s));
    }
    for (i, (id, s)) in lexical.iter().enumerate() {
        by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, vector: None, lexical: None }).lexical =
            Some((i as u32 + 1, *s));
    }
    for id in extra {
        by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, vector: None, lexical: None });
    }
    let mut out: Vec<Fused> = by_id.into_values().collect();
    match p.method {
        FusionMethod::Rrf => {
            for f in out.iter_mut() {
                f.score = f.vector.map_or(0.0, |(r, _)| wv / (p.rrf_k + r as f64))
                    + f.lexical.map_or(0.0, |(r, _)| wl / (p.rrf_k + r as f64));
            }
        }
        FusionMethod::Relative | FusionMethod::ZScore => {
            let vs: Vec<Option<f64>> = out.iter().map(|f| f.vector.map(|v| v.1).or_else(|| rescore(f.id))).collect();
            let ls: Vec<f64> = out.iter().map(|f| f.lexical.map_or(0.0, |l| l.1.max(0.0))).collect();
            let present: Vec<f64> = vs.iter().flatten().copied().collect();
            let (vmin, vmax) =
                present.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
            let lmax = ls.iter().copied().fold(0.0, f64::max);
            let stats = |xs: &[f64]| {
                let n = xs.len().max(1) as f64;
                let mean = xs.iter().sum::<f64>() / n;
                let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
                (mean, if sd > 0.0 { sd } else { 1.0 })
            };
            let (vmu, vsd) = stats(&present);
            let (lmu, lsd) = stats(&ls);
            for (i, f) in out.iter_mut().enumerate() {
                let (v, l) = match p.method {
                    FusionMethod::Relative => (
                        vs[i].map_or(0.0, |x| if vmax > vmin { (x - vmin) / (vmax - vmin) } else { 1.0 }),
                        if lmax > 0.0 { ls[i] / lmax } else { 0.0 },
                    ),
                    _ => (vs[i].map_or(-3.0, |x| (x - vmu) / vsd), (ls[i] - lmu) / lsd),
                };
                f.score = wv * v + wl * l;
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    out
}

/// Order of a ranked (id, score) list: best score first, ties by id. One function for every such
/// sort, so the module holds one copy of the sort for it rather than one per closure.
pub(crate) fn best_first(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Best score first, ties left in the order they came (a stable sort).
pub(crate) fn best_first_in_order(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1)
}
