//! Vectors: the HNSW index (USearch) behind a validating wrapper, how buffered vectors reach its graph, and
//! its snapshot in SQLite.

pub(crate) mod index;
pub(crate) mod snapshot;
pub(crate) mod stream;
