//! The engine's behaviour suite. The same tests run natively (`cargo test`) and compiled to
//! wasm32 under Node (`scripts/test-core-wasm`); filesystem-only tests are ignored on wasm.

mod app_meta;
mod caps;
mod checkpoint_blobs;
mod checkpoint_delete;
mod checkpoints;
mod coherence;
mod common;
mod errors;
mod feed;
mod history;
mod hostile;
mod import_verdict;
mod memories;
mod migrations;
mod pages;
mod persistence;
mod replica;
mod search;
mod search_feedback;
mod search_neighbours;
mod store_queries;
mod transfer;
