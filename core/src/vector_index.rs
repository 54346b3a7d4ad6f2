//! The HNSW vector index (USearch) behind a validating wrapper. On wasm a C++ exception is a
//! trap, never an Err, so everything USearch could reject — dimensions, non-finite values,
//! zero vectors under cosine, duplicate keys, missing capacity — is checked here first.

use crate::config::{Metric, ScalarKind};
use crate::error::{Error, ErrorCode, Result};
use usearch::{ffi::IndexOptions, Index, MetricKind};

pub struct VectorIndex {
    index: Index,
    dims: usize,
    metric: Metric,
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

/// Exact similarity score, the same scale as `score_from_distance`.
pub fn exact_score(metric: Metric, a: &[f32], b: &[f32]) -> f64 {
    match metric {
        Metric::Cosine => {
            let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
            for (x, y) in a.iter().zip(b) {
                dot += (*x as f64) * (*y as f64);
                na += (*x as f64) * (*x as f64);
                nb += (*y as f64) * (*y as f64);
            }
            if na == 0.0 || nb == 0.0 {
                0.0
            } else {
                dot / (na.sqrt() * nb.sqrt())
            }
        }
        Metric::InnerProduct => a.iter().zip(b).map(|(x, y)| (*x as f64) * (*y as f64)).sum(),
        Metric::L2 => -a.iter().zip(b).map(|(x, y)| ((*x - *y) as f64).powi(2)).sum::<f64>(),
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
        if dims == 0 || dims > 4096 {
            return Err(Error::invalid(format!("dims must be 1..=4096, got {dims}")));
        }
        let index = Index::new(&options(dims, metric, scalar)).map_err(cxx)?;
        index.reserve(1024).map_err(cxx)?;
        Ok(VectorIndex { index, dims, metric })
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

    pub fn save(&self) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; self.index.serialized_length()];
        self.index.save_to_buffer(&mut buf).map_err(cxx)?;
        Ok(buf)
    }

    pub fn len(&self) -> usize {
        self.index.size()
    }

    pub fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }

    /// Adds or replaces the vector stored under `id`.
    pub fn upsert(&mut self, id: u64, v: &[f32]) -> Result<()> {
        validate(v, self.dims, self.metric)?;
        if self.index.contains(id) {
            self.index.remove(id).map_err(cxx)?;
        }
        let need = self.index.size() + 1;
        if need > self.index.capacity() {
            let grow = (self.index.capacity() * 2).max(need).max(1024);
            self.index.reserve(grow).map_err(cxx)?;
        }
        self.index.add(id, v).map_err(cxx)
    }

    pub fn remove(&mut self, id: u64) -> Result<()> {
        if self.index.contains(id) {
            self.index.remove(id).map_err(cxx)?;
        }
        Ok(())
    }

    /// Top `k` (id, score), best first.
    pub fn search(&self, q: &[f32], k: usize) -> Result<Vec<(u64, f64)>> {
        validate(q, self.dims, self.metric)?;
        let k = k.min(self.index.size());
        if k == 0 {
            return Ok(Vec::new());
        }
        self.index.change_expansion_search(k.max(64));
        let m = self.index.search(q, k).map_err(cxx)?;
        Ok(m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect())
    }

    /// Top `k` among the ids `allow` accepts (filtered HNSW traversal).
    pub fn filtered_search(&self, q: &[f32], k: usize, allow: impl Fn(u64) -> bool) -> Result<Vec<(u64, f64)>> {
        validate(q, self.dims, self.metric)?;
        let k = k.min(self.index.size());
        if k == 0 {
            return Ok(Vec::new());
        }
        self.index.change_expansion_search(k.max(64));
        let m = self.index.filtered_search(q, k, allow).map_err(cxx)?;
        Ok(m.keys.into_iter().zip(m.distances).map(|(id, d)| (id, score_from_distance(self.metric, d))).collect())
    }

    /// The stored (possibly quantized) vector of `id`.
    pub fn get(&self, id: u64) -> Option<Vec<f32>> {
        if !self.index.contains(id) {
            return None;
        }
        let mut buf = vec![0f32; self.dims];
        match self.index.get(id, &mut buf) {
            Ok(n) if n >= 1 => Some(buf),
            _ => None,
        }
    }
}
