//! What the Store does, each feature a file or folder of `impl Store` methods over the Store and its parts:
//! memories, checkpoints, coherence (remember, consolidate, context), search, the change feed's API, host metadata, stats and a replica's outbox and pulls.

pub(crate) mod app_meta;
pub(crate) mod changes;
pub(crate) mod checkpoints;
pub(crate) mod coherence;
pub(crate) mod memories;
pub(crate) mod replica;
pub(crate) mod search;
pub(crate) mod stats;
