//! The HNSW vector index (USearch) behind a validating wrapper. On wasm a C++ exception is a
//! trap, never an Err, so everything USearch could reject — dimensions, non-finite values,
//! zero vectors under cosine, duplicate keys, missing capacity — is checked here first.
//!
//! Writes are buffered: a new or changed vector goes to a small pending set that searches score
//! exactly, and is inserted into the HNSW graph in batches — by `flush()` (hosts call it when
//! idle, e.g. from an alarm), before a snapshot, or when the buffer reaches `PENDING_MAX`. An
//! acknowledged write is thus never waiting on graph construction, and results are the same as
//! if every vector were in the graph (the pending ones are scored exactly).

use crate::config::{Metric, ScalarKind};
use crate::error::{Error, ErrorCode, Result};
use std::collections::HashMap;
use usearch::{ffi::IndexOptions, Index, MetricKind};

pub const MAX_DIMS: usize = 4096;

/// Pending vectors are inserted into the graph once there are this many.
pub const PENDING_MAX: usize = 256;

pub struct VectorIndex {
    index: Index,
    dims: usize,
    metric: Metric,
    /// Vectors written but not yet in the graph (never also in the graph).
    pending: HashMap<u64, Vec<f32>>,
}

fn options(dims: usize, metric: Metric, scalar: ScalarKind) -> IndexOptions {
    IndexOptions {
        dimensions: dims,
        metric: match metric {
            Metric::Cosine => MetricKind::Cos,
            Metric::InnerProduct => MetricKind::IP,
            Metric::L2 => MetricKind::L2sq,
        },
        quantization: match scalar {
            ScalarKind::F32 => usearch::ScalarKind::F32,
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

/// Checks a vector against the store's dims and metric.
pub fn validate(v: &[f32], dims: usize, metric: Metric) -> Result<()> {
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
        index.reserve(1024).map_err(cxx)?;
        Ok(VectorIndex { index, dims, metric, pending: HashMap::new() })
    }

    /// Restores a snapshot written by `save`; checks its header against the store's settings.
    pub fn load(bytes: &[u8], dims: usize, metric: Metric, scalar: ScalarKind) -> Result<Self> {
        let me = Self::new(dims, metric, scalar)?;
        // A USearch dense file starts with a 64-byte header; anything shorter is not ours.
        if bytes.len() < 64 {
            return Err(Error::internal("index snapshot is truncated"));
        }
        let meta = Index::metadata_from_buffer(bytes).map_err(cxx)?;
        if meta.dimensions as usize != dims {
            return Err(Error::internal("index snapshot has other dimensions"));
        }
        me.index.load_from_buffer(bytes).map_err(cxx)?;
        me.index.change_expansion_search(64);
        Ok(me)
    }

    /// Flushes pending vectors, then serialises the graph.
    pub fn save(&mut self) -> Result<Vec<u8>> {
        self.flush()?;
        let mut buf = vec![0u8; self.index.serialized_length()];
        self.index.save_to_buffer(&mut buf).map_err(cxx)?;
        Ok(buf)
    }

    pub fn len(&self) -> usize {
        self.index.size() + self.pending.len()
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Inserts every pending vector into the HNSW graph.
    pub fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let need = self.index.size() + self.pending.len();
        if need > self.index.capacity() {
            let grow = (self.index.capacity() * 2).max(need).max(1024);
            self.index.reserve(grow).map_err(cxx)?;
        }
        let mut ids: Vec<u64> = self.pending.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            if let Some(v) = self.pending.remove(&id) {
                self.index.add(id, &v).map_err(cxx)?;
            }
        }
        Ok(())
    }

    pub fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }

    /// Adds or replaces the vector stored under `id` (buffered; see the module doc).
    pub fn upsert(&mut self, id: u64, v: &[f32]) -> Result<()> {
        validate(v, self.dims, self.metric)?;
        if self.index.contains(id) {
            self.index.remove(id).map_err(cxx)?;
        }
        // Under cosine a pending vector is kept unit-length, so scoring it is one dot product.
        let kept = match self.metric {
            Metric::Cosine => {
                let n = dot(v, v).sqrt();
                v.iter().map(|x| x / n).collect()
            }
            _ => v.to_vec(),
        };
        self.pending.insert(id, kept);
        if self.pending.len() >= PENDING_MAX {
            self.flush()?;
        }
        Ok(())
    }

    pub fn remove(&mut self, id: u64) -> Result<()> {
        self.pending.remove(&id);
        if self.index.contains(id) {
            self.index.remove(id).map_err(cxx)?;
        }
        Ok(())
    }

    /// Exact scores of the pending vectors `allow` accepts.
    fn pending_scores(&self, q: &[f32], allow: impl Fn(u64) -> bool) -> Vec<(u64, f64)> {
        let kept = self.pending.iter().filter(|(id, _)| allow(**id));
        match self.metric {
            // Kept unit-length (see `upsert`): cos = q·v / |q|.
            Metric::Cosine => {
                let qn = dot(q, q).sqrt() as f64;
                kept.map(|(id, v)| (*id, if qn == 0.0 { 0.0 } else { dot(q, v) as f64 / qn })).collect()
            }
            Metric::InnerProduct => kept.map(|(id, v)| (*id, dot(q, v) as f64)).collect(),
            Metric::L2 => kept.map(|(id, v)| (*id, exact_score(self.metric, q, v))).collect(),
        }
    }

    /// Merges graph hits with exactly scored pending vectors, best first, at most `k`.
    fn merge(&self, graph: Vec<(u64, f64)>, mut pending: Vec<(u64, f64)>, k: usize) -> Vec<(u64, f64)> {
        if pending.is_empty() {
            return graph;
        }
        pending.extend(graph);
        pending.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        pending.truncate(k);
        pending
    }

    /// Top `k` (id, score), best first.
    pub fn search(&self, q: &[f32], k: usize) -> Result<Vec<(u64, f64)>> {
        validate(q, self.dims, self.metric)?;
        let pending = self.pending_scores(q, |_| true);
        let kg = k.min(self.index.size());
        let graph = if kg == 0 {
            Vec::new()
        } else {
            self.index.change_expansion_search(kg.max(64));
            let m = self.index.search(q, kg).map_err(cxx)?;
            m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect()
        };
        Ok(self.merge(graph, pending, k))
    }

    /// Top `k` among the ids `allow` accepts (filtered HNSW traversal).
    pub fn filtered_search(&self, q: &[f32], k: usize, allow: impl Fn(u64) -> bool) -> Result<Vec<(u64, f64)>> {
        validate(q, self.dims, self.metric)?;
        let pending = self.pending_scores(q, &allow);
        let kg = k.min(self.index.size());
        let graph = if kg == 0 {
            Vec::new()
        } else {
            self.index.change_expansion_search(kg.max(64));
            let m = self.index.filtered_search(q, kg, &allow).map_err(cxx)?;
            m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect()
        };
        Ok(self.merge(graph, pending, k))
    }

    /// Exact similarity of `q` to the stored vector of `id` (None if it has none); `buf` is scratch
    /// space reused across calls, so scoring a candidate list allocates once.
    pub fn score(&self, id: u64, q: &[f32], buf: &mut Vec<f32>) -> Option<f64> {
        if let Some(v) = self.pending.get(&id) {
            return Some(exact_score(self.metric, q, v));
        }
        if !self.index.contains(id) {
            return None;
        }
        buf.resize(self.dims, 0.0);
        match self.index.get(id, buf) {
            Ok(n) if n >= 1 => Some(exact_score(self.metric, q, buf)),
            _ => None,
        }
    }
}
