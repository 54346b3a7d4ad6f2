//! The Store's parts: the in-memory state kept beside SQLite, each a type with its own file that alone
//! changes it. A part takes the connection and the settings, never the Store, so it depends on nothing above
//! it.

pub(crate) mod feed;
pub(crate) mod import_gate;
pub(crate) mod index_state;
pub(crate) mod lexical_buffer;
pub(crate) mod memory_budget;
pub(crate) mod recency;
pub(crate) mod term_cache;
pub(crate) mod usage;
