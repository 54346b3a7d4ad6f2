//! Memories by (namespace, key): writes and reads, history and AS OF, caps and TTL, namespace listing, and
//! the rows they are stored as.

pub(crate) mod caps;
pub(crate) mod crud;
pub(crate) mod history;
pub(crate) mod json;
pub(crate) mod namespaces;
pub(crate) mod row;
