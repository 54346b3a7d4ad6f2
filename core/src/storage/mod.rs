//! Storage: SQLite over the host's pages (the page store, the VFS, the page cache, in-memory databases), the
//! schema and its migrations, and the commit log's time index. Knows nothing of the Store.

pub(crate) mod memdb;
pub(crate) mod page_cache;
pub(crate) mod page_store;
pub(crate) mod schema;
pub(crate) mod time_index;
pub(crate) mod vfs;
