//! The vocabulary every layer uses: errors with their stable codes, the API's shapes (memories,
//! queries, namespaces, filters), the clock and the byte budget of a page of results. Depends on nothing
//! else of the crate.

pub(crate) mod clock;
pub(crate) mod error;
pub(crate) mod filter;
pub(crate) mod namespace;
pub(crate) mod page_bytes;
pub(crate) mod types;
pub(crate) mod wire_enum;
