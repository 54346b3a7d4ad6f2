//! edgemem-bench: retrieval recall on LoCoMo, latency of the engine's agent-shaped operations (natively,
//! or built for wasm32-wasip1 under Wasmtime) and the caps suite.
//! `edgemem-bench locomo --data DIR --vectors e5|minilm [--json]` (or `--embed e5 [--model PATH]`: the
//! built-in embedder makes the vectors from the text),
//! `edgemem-bench latency [--n 10000] [--json]`, `edgemem-bench caps [--json]`,
//! `edgemem-bench embed [--json]` (the built-in embedder's speed), `edgemem-bench pages [--json]` (pages a
//! request reads and writes, by B-tree, and the pages a Durable Object's SQLite writes for them).

mod caps;
mod corpus;
#[cfg(not(target_arch = "wasm32"))]
mod embed_corpus;
#[cfg(not(target_arch = "wasm32"))]
mod embed_speed;
mod latency;
mod locomo;
#[cfg(not(target_arch = "wasm32"))]
mod object_sqlite;
#[cfg(not(target_arch = "wasm32"))]
mod pages;
mod percentiles;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage:\n  edgemem-bench locomo --data DIR (--vectors e5|minilm | --embed e5 [--model PATH]) [--json] [--fusion rrf|relative] [--weight W] [--pool N] [--rrf-k K] [--feedback-docs N] [--feedback-terms N] [--feedback-weight W] [--neighbour-weight W] [--neighbour-reach N] [--layout session|conv] [--loocv] [--single-store]\n  edgemem-bench latency [--n 10000] [--iters 2000] [--scalar f32|f16|i8|i4] [--sequence none|namespace] [--data DIR] [--json]\n  edgemem-bench caps [--json]\n  edgemem-bench pages [--n 10000] [--iters 200] [--scalar i8|i4|f32] [--data DIR] [--json]\n  edgemem-bench embed [--model PATH] [--data DIR] [--queries 200] [--passages 640] [--json]"
    );
    ExitCode::from(2)
}

/// Value of `--name` in `args`.
pub fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    let result = match args.first().map(String::as_str) {
        Some("locomo") => locomo::run(&args[1..], json),
        Some("latency") => latency::run(&args[1..], json),
        Some("caps") => caps::run(&args[1..], json),
        #[cfg(not(target_arch = "wasm32"))]
        Some("pages") => pages::run(&args[1..], json),
        #[cfg(not(target_arch = "wasm32"))]
        Some("embed") => embed_speed::run(&args[1..], json),
        _ => return usage(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
