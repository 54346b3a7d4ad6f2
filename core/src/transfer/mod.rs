//! Export and import of a whole store: the format (one document, or NDJSON lines), the streamed export and
//! the streamed import.

pub(crate) mod export;
pub(crate) mod format;
pub(crate) mod import;
