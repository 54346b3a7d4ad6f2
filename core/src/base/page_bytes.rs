//! Byte budgets for pages of results. Every list-shaped read (memories, history, change feed,
//! checkpoints) ends its page once the items in it reach `MAX_PAGE_BYTES` as estimated from their
//! stored sizes, as well as at its count, and says where to go on — so no page is too big for a host
//! to carry across a bounded boundary (a Durable Object call carries 32 MiB). A page always holds at
//! least one item, so paging always moves forward.

/// The most one page holds, in estimated bytes of its JSON form.
pub const MAX_PAGE_BYTES: usize = 4 << 20;
/// Estimated JSON bytes of an item's fields besides its stored payload (names, seqs, times, quotes).
pub(crate) const ITEM_OVERHEAD: usize = 256;

/// Estimated JSON bytes of a stored vector of `dims` f32s (shortest decimal forms, commas).
pub(crate) fn vector_json_bytes(dims: usize) -> usize {
    dims * 13
}

/// What one page has taken so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageBudget {
    used: usize,
    max: usize,
}

impl PageBudget {
    pub(crate) fn new() -> Self {
        PageBudget { used: 0, max: MAX_PAGE_BYTES }
    }

    /// Counts an item in; true when the page is full with it (end the page after this item).
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        self.used = self.used.saturating_add(bytes.saturating_add(ITEM_OVERHEAD));
        self.used >= self.max
    }
}
