//! Hybrid fusion of a vector ranking and a lexical ranking into one.
//!
//! Default: weighted reciprocal-rank fusion with a deep candidate pool. Each list contributes
//! `weight / (rrf_k + rank)`; see `FusionParams` for the defaults and `bench/README.md` for
//! how they were chosen on LoCoMo (no per-question tuning).

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FusionMethod {
    /// Weighted reciprocal rank fusion.
    Rrf,
    /// Min-max normalised scores, weighted sum (missing = 0).
    Relative,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FusionParams {
    pub method: FusionMethod,
    /// Weight of the vector list; the lexical list gets `1 - vector_weight`.
    pub vector_weight: f64,
    /// RRF's rank offset.
    pub rrf_k: f64,
    /// Candidates taken from each list before fusing (at least k).
    pub pool: usize,
}

impl Default for FusionParams {
    fn default() -> Self {
        FusionParams { method: FusionMethod::Rrf, vector_weight: 0.5, rrf_k: 60.0, pool: 100 }
    }
}

/// One fused candidate: id, fused score, and each list's (rank from 1, raw score).
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub id: i64,
    pub score: f64,
    pub vector: Option<(u32, f64)>,
    pub lexical: Option<(u32, f64)>,
}

/// Fuses two best-first lists of (id, score).
pub fn fuse(vector: &[(i64, f64)], lexical: &[(i64, f64)], p: &FusionParams) -> Vec<Fused> {
    let mut by_id: HashMap<i64, Fused> = HashMap::new();
    let wv = p.vector_weight.clamp(0.0, 1.0);
    let wl = 1.0 - wv;
    let norm = |list: &[(i64, f64)]| -> (f64, f64) {
        let max = list.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
        let min = list.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
        (min, if max > min { max - min } else { 1.0 })
    };
    let (vmin, vspan) = norm(vector);
    let (lmin, lspan) = norm(lexical);
    for (i, (id, s)) in vector.iter().enumerate() {
        let e = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, vector: None, lexical: None });
        e.vector = Some((i as u32 + 1, *s));
        e.score += match p.method {
            FusionMethod::Rrf => wv / (p.rrf_k + i as f64 + 1.0),
            FusionMethod::Relative => wv * (s - vmin) / vspan,
        };
    }
    for (i, (id, s)) in lexical.iter().enumerate() {
        let e = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, vector: None, lexical: None });
        e.lexical = Some((i as u32 + 1, *s));
        e.score += match p.method {
            FusionMethod::Rrf => wl / (p.rrf_k + i as f64 + 1.0),
            FusionMethod::Relative => wl * (s - lmin) / lspan,
        };
    }
    let mut out: Vec<Fused> = by_id.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    out
}
