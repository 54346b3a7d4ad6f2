//! The HNSW vector index (USearch) behind a validating wrapper. On wasm a C++ exception is a
//! trap, never an Err, so everything USearch could reject — dimensions, non-finite values,
//! zero vectors under cosine, duplicate keys, missing capacity — is checked here first.
//!
//! Writes are buffered: a new or changed vector goes to a pending set that searches score exactly,
//! and reaches the HNSW graph in batches, so an acknowledged write never waits on graph
//! construction and results are the same as if every vector were in the graph. How a batch gets there is
//! the `pending` module's, one of two chosen here: natively a builder thread beside writes and searches
//! (`pending_threaded.rs`), on wasm, which has no threads, inline by writes (`pending_inline.rs`).
//! `flush()` (hosts call it when idle, and before a snapshot) puts everything in the graph before it returns.

use crate::base::error::{Error, ErrorCode, Result};
use crate::config::{Metric, ScalarKind};
use graph::{insert, GraphLock};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use usearch::{ffi::IndexOptions, Index, MetricKind};

/// The batch being built, if any (natively; never one on wasm).
#[path = "builder.rs"]
mod builder;
/// The native builder thread.
#[cfg(not(target_family = "wasm"))]
#[path = "builder_thread.rs"]
mod builder_thread;
/// The graph's turns and its inserts.
#[path = "graph.rs"]
mod graph;
/// The `i4` kind's codes and metric.
#[path = "nibbles.rs"]
mod nibbles;
/// How pending vectors reach the graph: the write/advance policy, one of two.
#[cfg_attr(not(target_family = "wasm"), path = "pending_threaded.rs")]
#[cfg_attr(target_family = "wasm", path = "pending_inline.rs")]
mod pending;

pub const MAX_DIMS: usize = 4096;

/// Thread contexts USearch reserves: the builder's insert and the owner's search run at once.
const THREADS: usize = 2;

pub struct VectorIndex {
    index: Arc<Index>,
    /// Taken by the builder for each insert and by the owner for each graph traversal.
    graph_lock: Arc<GraphLock>,
    dims: usize,
    metric: Metric,
    scalar: ScalarKind,
    /// Vectors written but not yet handed to the graph (never also live in the graph or a batch).
    pending: HashMap<u64, Vec<f32>>,
    /// Ids whose graph (or batch) entry was replaced or deleted while a batch was being built:
    /// hidden from results, removed from the graph once the batch is joined.
    stale: HashSet<u64>,
    builder: builder::Builder,
}

fn options(dims: usize, metric: Metric, scalar: ScalarKind) -> IndexOptions {
    IndexOptions {
        // i4 codes are f32 words to USearch, compared by our metric (`nibbles`); the metric named here
        // is the one a snapshot's header records.
        dimensions: if scalar == ScalarKind::I4 { nibbles::words(dims) } else { dims },
        metric: match (metric, scalar) {
            (_, ScalarKind::I4) => MetricKind::L2sq,
            (Metric::Cosine, _) => MetricKind::Cos,
            (Metric::InnerProduct, _) => MetricKind::IP,
            (Metric::L2, _) => MetricKind::L2sq,
        },
        quantization: match scalar {
            ScalarKind::F32 | ScalarKind::I4 => usearch::ScalarKind::F32,
            ScalarKind::F16 => usearch::ScalarKind::F16,
            ScalarKind::I8 => usearch::ScalarKind::I8,
        },
        connectivity: 16,
        expansion_add: 64,
        expansion_search: 64,
        multi: false,
    }
}

fn cxx(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("vector index: {e}"))
}

/// The largest squared Euclidean norm a vector may have: every dot product, squared norm and squared
/// L2 distance between two accepted vectors stays below 4e36, inside f32 (3.4e38), however the index
/// accumulates it. Past it a score overflows to infinity or NaN.
pub const MAX_NORM_SQ: f64 = 1e36;
/// Under cosine, the smallest squared norm: below it the f32 squares of the components underflow and
/// the vector's direction is lost (the index would divide by zero).
pub const MIN_COSINE_NORM_SQ: f64 = 1e-30;
/// The largest component an f16 index can hold (f16's max); past it a component becomes infinite.
pub const MAX_F16_COMPONENT: f32 = 65504.0;

/// Checks a vector against the store's dims, metric and index scalar kind: finite components, and a
/// magnitude with which every score computed from it is finite (see `MAX_NORM_SQ`).
pub fn validate(v: &[f32], dims: usize, metric: Metric, scalar: ScalarKind) -> Result<()> {
    if dims == 0 {
        return Err(Error::new(ErrorCode::DimensionMismatch, "this store has no vectors (dims = 0)"));
    }
    if v.len() != dims {
        return Err(Error::new(
            ErrorCode::DimensionMismatch,
            format!("vector has {} dimensions, the store expects {dims}", v.len()),
        ));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::invalid("vector contains NaN or infinity"));
    }
    if metric == Metric::Cosine && v.iter().all(|x| *x == 0.0) {
        return Err(Error::invalid("a zero vector has no direction (metric is cosine)"));
    }
    let norm_sq: f64 = v.iter().map(|x| (*x as f64) * (*x as f64)).sum();
    if norm_sq > MAX_NORM_SQ {
        return Err(Error::invalid(format!(
            "vector norm {:.3e} is too large (at most 1e18): its scores would overflow",
            norm_sq.sqrt()
        )));
    }
    if metric == Metric::Cosine && norm_sq < MIN_COSINE_NORM_SQ {
        return Err(Error::invalid(format!(
            "vector norm {:.3e} is too small (at least 1e-15 under cosine): its direction is lost",
            norm_sq.sqrt()
        )));
    }
    if scalar == ScalarKind::F16 && v.iter().any(|x| x.abs() > MAX_F16_COMPONENT) {
        return Err(Error::invalid(format!("vector component beyond {MAX_F16_COMPONENT} (the f16 index's range)")));
    }
    Ok(())
}

/// Similarity score (higher is better) from a USearch distance.
pub fn score_from_distance(metric: Metric, d: f32) -> f64 {
    match metric {
        Metric::Cosine | Metric::InnerProduct => 1.0 - d as f64,
        Metric::L2 => -(d as f64),
    }
}

/// dot(a, b), |a|², |b|² with eight f32 lanes (auto-vectorised, also with wasm simd128).
fn dot_norms(a: &[f32], b: &[f32]) -> (f32, f32, f32) {
    let (mut d, mut na, mut nb) = ([0f32; 8], [0f32; 8], [0f32; 8]);
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            d[l] += x[l] * y[l];
            na[l] += x[l] * x[l];
            nb[l] += y[l] * y[l];
        }
    }
    let (mut d, mut na, mut nb) = (d.iter().sum::<f32>(), na.iter().sum::<f32>(), nb.iter().sum::<f32>());
    for (x, y) in ra.iter().zip(rb) {
        d += x * y;
        na += x * x;
        nb += y * y;
    }
    (d, na, nb)
}

/// a·b, in 8 independent lanes (vectorised natively and with wasm SIMD).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut d = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            d[l] += x[l] * y[l];
        }
    }
    d.iter().sum::<f32>() + ra.iter().zip(rb).map(|(x, y)| x * y).sum::<f32>()
}

/// Exact similarity score, the same scale as `score_from_distance`.
pub fn exact_score(metric: Metric, a: &[f32], b: &[f32]) -> f64 {
    let (dot, na, nb) = dot_norms(a, b);
    match metric {
        Metric::Cosine if na == 0.0 || nb == 0.0 => 0.0,
        Metric::Cosine => dot as f64 / ((na as f64).sqrt() * (nb as f64).sqrt()),
        Metric::InnerProduct => dot as f64,
        // |a - b|² = |a|² + |b|² - 2 a·b
        Metric::L2 => -((na + nb - 2.0 * dot).max(0.0) as f64),
    }
}

pub fn encode_vec(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn decode_vec(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

impl VectorIndex {
    pub fn new(dims: usize, metric: Metric, scalar: ScalarKind) -> Result<Self> {
        if dims == 0 || dims > MAX_DIMS {
            return Err(Error::invalid(format!("dims must be 1..={MAX_DIMS}, got {dims}")));
        }
        let index = Index::new(&options(dims, metric, scalar)).map_err(cxx)?;
        index.reserve_capacity_and_threads(1024, THREADS).map_err(cxx)?;
        let me = VectorIndex {
            index: Arc::new(index),
            graph_lock: Arc::default(),
            dims,
            metric,
            scalar,
            pending: HashMap::new(),
            stale: HashSet::new(),
            builder: builder::Builder::default(),
        };
        me.install_metric()?;
        Ok(me)
    }

    /// An i4 index's metric (`nibbles`); the other kinds' is USearch's own.
    fn install_metric(&self) -> Result<()> {
        if self.scalar == ScalarKind::I4 {
            nibbles::install_metric(&self.index, self.dims).map_err(Error::internal)?;
        }
        Ok(())
    }

    /// Restores a snapshot written by `save` from `read` (see [`crate::vectors::stream::load`]); checks it
    /// against the store's dimensions.
    pub fn load(read: impl FnMut(&mut [u8]) -> bool, dims: usize, metric: Metric, scalar: ScalarKind) -> Result<Self> {
        let me = Self::new(dims, metric, scalar)?;
        crate::vectors::stream::load(&me.index, read).map_err(cxx)?;
        let want = options(dims, metric, scalar);
        if me.index.dimensions() != want.dimensions || me.index.scalar_kind() != want.quantization {
            return Err(Error::internal("index snapshot has other dimensions or scalars"));
        }
        // Loading sets the metric the snapshot's header names (for i4 USearch's L2, not ours).
        me.install_metric()?;
        me.index.change_expansion_search(64);
        // Loading sizes the thread contexts to the machine; the builder needs its own beside the owner's.
        me.index.reserve_capacity_and_threads(me.index.capacity().max(1024), THREADS).map_err(cxx)?;
        Ok(me)
    }

    /// Puts pending vectors in the graph, then returns how many bytes `save` writes.
    pub fn snapshot_len(&mut self) -> Result<usize> {
        self.flush()?;
        Ok(self.index.serialized_length())
    }

    /// Serialises the graph through `write` in pieces (after `snapshot_len`, which flushes; see
    /// [`crate::vectors::stream::save`]).
    pub fn save(&mut self, write: impl FnMut(&[u8]) -> bool) -> Result<()> {
        self.flush()?;
        crate::vectors::stream::save(&self.index, write).map_err(cxx)
    }

    /// Live vectors: in the graph, in a batch being built, or pending.
    pub fn len(&self) -> usize {
        if let Some(graph_len) = self.builder.started_at() {
            // Every stale id is in the graph or the batch exactly once (see `unlink`).
            return graph_len + self.builder.batch().len() + self.pending.len() - self.stale.len();
        }
        self.index.size() + self.pending.len()
    }

    /// Vectors not yet in the graph (pending, or in a batch being built).
    pub fn pending_len(&self) -> usize {
        if self.builder.started_at().is_some() {
            let replaced = self.stale.iter().filter(|id| self.builder.in_batch(**id)).count();
            return self.pending.len() + self.builder.batch().len() - replaced;
        }
        self.pending.len()
    }

    /// Puts every pending vector in the graph before it returns (waits for a running batch).
    pub fn flush(&mut self) -> Result<()> {
        self.join()?;
        let batch = self.take_pending();
        if !batch.is_empty() {
            self.reserve_for(batch.len())?;
            insert(&self.index, &self.graph_lock, &batch, self.scalar).map_err(Error::internal)?;
        }
        Ok(())
    }

    pub fn memory_bytes(&self) -> usize {
        // Walks every node: not beside a running insert.
        let _turn = self.graph_lock.owner();
        self.index.memory_usage()
    }

    /// Adds or replaces the vector stored under `id` (buffered; see the module doc).
    pub fn upsert(&mut self, id: u64, v: &[f32]) -> Result<()> {
        validate(v, self.dims, self.metric, self.scalar)?;
        self.unlink(id)?;
        // Under cosine a pending vector is kept unit-length, so scoring it is one dot product.
        let kept = match self.metric {
            Metric::Cosine => {
                let n = dot(v, v).sqrt();
                v.iter().map(|x| x / n).collect()
            }
            _ => v.to_vec(),
        };
        self.pending.insert(id, kept);
        self.bound()
    }

    pub fn remove(&mut self, id: u64) -> Result<()> {
        self.unlink(id)?;
        self.bound()
    }

    /// Takes `id` out of the graph and any batch: at once when no batch is being built, otherwise
    /// by marking it stale until the batch is joined (the builder owns the graph meanwhile).
    fn unlink(&mut self, id: u64) -> Result<()> {
        self.pending.remove(&id);
        if self.builder.started_at().is_some() {
            if self.builder.in_batch(id) || self.index.contains(id) {
                self.stale.insert(id);
            }
            return Ok(());
        }
        if self.index.contains(id) {
            self.index.remove(id).map_err(cxx)?;
        }
        Ok(())
    }

    /// The pending vectors in id order (the order they enter the graph), leaving none pending.
    fn take_pending(&mut self) -> Vec<(u64, Vec<f32>)> {
        let mut batch: Vec<(u64, Vec<f32>)> = self.pending.drain().collect();
        batch.sort_unstable_by_key(|(id, _)| *id);
        batch
    }

    /// Grows the graph's capacity for `more` vectors (only while no batch is being built).
    fn reserve_for(&self, more: usize) -> Result<()> {
        let need = self.index.size() + more;
        if need > self.index.capacity() {
            let grow = (self.index.capacity() * 2).max(need).max(1024);
            self.index.reserve_capacity_and_threads(grow, THREADS).map_err(cxx)?;
        }
        Ok(())
    }

    /// Whether a graph hit for `id` is current (not replaced or deleted since, not in a batch
    /// being built — those are scored exactly instead).
    fn graph_current(&self, id: u64) -> bool {
        if self.builder.started_at().is_some() {
            return !self.builder.in_batch(id) && !self.stale.contains(&id);
        }
        !self.stale.contains(&id)
    }

    /// Exact scores of the vectors not (yet) in the graph that `allow` accepts: pending ones,
    /// and a running batch's that are still current.
    fn buffered_scores(&self, q: &[f32], allow: impl Fn(u64) -> bool) -> Vec<(u64, f64)> {
        let pending = self.pending.iter().map(|(id, v)| (*id, v.as_slice()));
        let building =
            self.builder.batch().iter().filter(|(id, _)| !self.stale.contains(id)).map(|(id, v)| (*id, v.as_slice()));
        let kept = pending.chain(building).filter(|(id, _)| allow(*id));
        match self.metric {
            // Kept unit-length (see `upsert`): cos = q·v / |q|.
            Metric::Cosine => {
                let qn = dot(q, q).sqrt() as f64;
                kept.map(|(id, v)| (id, if qn == 0.0 { 0.0 } else { dot(q, v) as f64 / qn })).collect()
            }
            Metric::InnerProduct => kept.map(|(id, v)| (id, dot(q, v) as f64)).collect(),
            Metric::L2 => kept.map(|(id, v)| (id, exact_score(self.metric, q, v))).collect(),
        }
    }

    /// Merges graph hits with exactly scored buffered vectors, best first, at most `k`.
    fn merge(&self, graph: Vec<(u64, f64)>, mut buffered: Vec<(u64, f64)>, k: usize) -> Vec<(u64, f64)> {
        if buffered.is_empty() {
            return graph;
        }
        buffered.extend(graph);
        buffered.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        buffered.truncate(k);
        buffered
    }

    /// Graph entries (a lower bound while a batch is being built: the builder only adds).
    fn graph_len(&self) -> usize {
        self.builder.started_at().unwrap_or_else(|| self.index.size())
    }

    /// The candidate list a graph search of `kg` keeps (USearch's `ef`). With quantised graph vectors the
    /// graph's near-ties are coarse and a search must look wider as the graph grows: at 100k × 384 i8
    /// (MiniLM + clustered vectors, rescored exactly) R@10 vs exact search was 0.675 with ef 64, 0.89 with
    /// 256, 0.95 with 1,000 (bench/node/heap.mjs); at 10k 0.98 with 64.
    fn expansion(&self, kg: usize) -> usize {
        match self.scalar {
            ScalarKind::F32 => kg.max(64),
            _ => (self.graph_len() / 100).clamp(64, 1024).max(kg * 4),
        }
    }

    /// Top `k` (id, score), best first.
    pub fn search(&self, q: &[f32], k: usize) -> Result<Vec<(u64, f64)>> {
        if !self.hides_nothing() {
            return self.filtered_search(q, k, |_| true);
        }
        validate(q, self.dims, self.metric, self.scalar)?;
        let buffered = self.buffered_scores(q, |_| true);
        let kg = k.min(self.graph_len());
        let graph = if kg == 0 {
            Vec::new()
        } else {
            let codes = self.codes(q);
            let _turn = self.graph_lock.owner();
            self.index.change_expansion_search(self.expansion(kg));
            let m = self.index.search(codes.as_deref().unwrap_or(q), kg).map_err(cxx)?;
            m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect()
        };
        Ok(self.merge(graph, buffered, k))
    }

    /// Top `k` among the ids `allow` accepts (filtered HNSW traversal).
    pub fn filtered_search(&self, q: &[f32], k: usize, allow: impl Fn(u64) -> bool) -> Result<Vec<(u64, f64)>> {
        validate(q, self.dims, self.metric, self.scalar)?;
        let buffered = self.buffered_scores(q, &allow);
        let kg = k.min(self.graph_len());
        let graph = if kg == 0 {
            Vec::new()
        } else {
            let codes = self.codes(q);
            let _turn = self.graph_lock.owner();
            self.index.change_expansion_search(self.expansion(kg));
            let keep = |id: u64| allow(id) && (self.hides_nothing() || self.graph_current(id));
            let m = self.index.filtered_search(codes.as_deref().unwrap_or(q), kg, keep);
            let m = m.map_err(cxx)?;
            m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect()
        };
        Ok(self.merge(graph, buffered, k))
    }

    /// The query as an i4 graph takes it (its codes' words, see `nibbles`); None for the other kinds,
    /// which take it as is.
    fn codes(&self, q: &[f32]) -> Option<Vec<f32>> {
        (self.scalar == ScalarKind::I4).then(|| {
            let mut words = Vec::new();
            nibbles::encode_words(q, &mut words);
            words
        })
    }

    /// No batch is being built and nothing is stale: every graph entry is current.
    fn hides_nothing(&self) -> bool {
        self.builder.started_at().is_none() && self.stale.is_empty()
    }

    /// Exact similarity of `q` to the stored vector of `id` (None if it has none); `buf` is scratch
    /// space reused across calls, so scoring a candidate list allocates once.
    pub fn score(&self, id: u64, q: &[f32], buf: &mut Vec<f32>) -> Option<f64> {
        if let Some(v) = self.pending.get(&id) {
            return Some(exact_score(self.metric, q, v));
        }
        if self.stale.contains(&id) {
            return None;
        }
        if self.builder.in_batch(id) {
            let batch = self.builder.batch();
            let at = batch.binary_search_by_key(&id, |(i, _)| *i).ok()?;
            return Some(exact_score(self.metric, q, &batch[at].1));
        }
        // `get` finds nothing (0) for an id outside the graph: no separate `contains` lookup.
        if self.scalar == ScalarKind::I4 {
            // The codes' levels stand for the vector (a cosine store's, whose scale does not count).
            buf.resize(nibbles::words(self.dims), 0.0);
            return match self.index.get(id, buf) {
                Ok(n) if n >= 1 => Some(nibbles::levels_cosine(q, buf)),
                _ => None,
            };
        }
        buf.resize(self.dims, 0.0);
        match self.index.get(id, buf) {
            Ok(n) if n >= 1 => Some(exact_score(self.metric, q, buf)),
            _ => None,
        }
    }
}

impl Drop for VectorIndex {
    fn drop(&mut self) {
        // A builder still inserting holds the graph; let it finish rather than outlive the store.
        let _ = self.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// xorshift64: deterministic vectors in [-1, 1).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        fn vec(&mut self, dims: usize) -> Vec<f32> {
            (0..dims).map(|_| self.below(2000) as f32 / 1000.0 - 1.0).collect()
        }
    }

    /// Random upserts and removes over a graph while batches are built (natively on the builder
    /// thread; inline on wasm): after every op the count is exact, every id scores exactly or not
    /// at all, and searches never return a removed id, an id twice, or an inexact score, nor miss
    /// the best match when it is buffered.
    fn churn(metric: Metric, seed: u64) {
        let dims = 16;
        let mut idx = VectorIndex::new(dims, metric, ScalarKind::F32).unwrap();
        let mut rng = Rng(seed);
        let mut truth: HashMap<u64, Vec<f32>> = HashMap::new();
        for id in 0..1000 {
            let v = rng.vec(dims);
            idx.upsert(id, &v).unwrap();
            truth.insert(id, v);
        }
        idx.flush().unwrap();
        let mut buf = Vec::new();
        for op in 0..4000 {
            let id = rng.below(1200);
            if rng.below(4) == 0 {
                idx.remove(id).unwrap();
                truth.remove(&id);
            } else {
                let v = rng.vec(dims);
                idx.upsert(id, &v).unwrap();
                truth.insert(id, v);
            }
            assert_eq!(idx.len(), truth.len(), "op {op}: len");
            let probe = rng.below(1200);
            match (truth.get(&probe), idx.score(probe, &[0.5; 16], &mut buf)) {
                (Some(v), Some(s)) => {
                    assert!((s - exact_score(metric, &[0.5; 16], v)).abs() < 1e-4, "op {op}: score of {probe}")
                }
                (None, None) => {}
                (want, got) => panic!("op {op}: {probe} live {} but scored {got:?}", want.is_some()),
            }
            if op % 5 == 0 {
                let q = rng.vec(dims);
                let res = if op % 3 == 0 {
                    idx.filtered_search(&q, 50, |i| i % 2 == 0).unwrap()
                } else {
                    idx.search(&q, 50).unwrap()
                };
                let mut seen = HashSet::new();
                for (i, s) in &res {
                    assert!(seen.insert(*i), "op {op}: {i} twice");
                    let v = truth.get(i).unwrap_or_else(|| panic!("op {op}: {i} is not live"));
                    let e = exact_score(metric, &q, v);
                    assert!((s - e).abs() < 1e-4 * (1.0 + e.abs()), "op {op}: {i} scored {s}, exact {e}");
                }
                let best = truth
                    .iter()
                    .filter(|(i, _)| op % 3 != 0 || *i % 2 == 0)
                    .map(|(i, v)| (*i, exact_score(metric, &q, v)))
                    .max_by(|a, b| a.1.total_cmp(&b.1));
                if let Some((b, _)) = best {
                    let building = idx.builder.in_batch(b) && !idx.stale.contains(&b);
                    if idx.pending.contains_key(&b) || building {
                        assert!(
                            res.iter().any(|(i, _)| *i == b),
                            "op {op}: the best match {b} is buffered but missing"
                        );
                    }
                }
            }
        }
        idx.flush().unwrap();
        assert_eq!((idx.len(), idx.pending_len()), (truth.len(), 0));
    }

    #[test]
    fn churn_cosine() {
        churn(Metric::Cosine, 7919);
    }

    #[test]
    fn churn_l2() {
        churn(Metric::L2, 104_729);
    }

    #[test]
    fn churn_inner_product() {
        churn(Metric::InnerProduct, 31);
    }
}
