//! LoCoMo retrieval recall: one store per conversation (text = "<speaker>: <embed_text>" plus
//! the turn's vector), every question asked through the engine's own search in each mode;
//! hit@k = any evidence turn in the top k. Categories 1–4 together, 5 separately.

use crate::corpus::{load_locomo, DIMS};
use crate::flag;
use edgemem_core::{FusionMethod, FusionParams, MemoryPut, ScalarKind, SearchMode, SearchQuery, Store, StoreConfig};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Default, Clone, Copy)]
struct Tally {
    h1: usize,
    h5: usize,
    h10: usize,
    n: usize,
}

impl Tally {
    fn json(&self) -> Value {
        let r = |h: usize| if self.n == 0 { 0.0 } else { (h as f64 / self.n as f64 * 1000.0).round() / 1000.0 };
        json!({"r1": r(self.h1), "r5": r(self.h5), "r10": r(self.h10), "n": self.n})
    }
}

pub fn run(args: &[String], as_json: bool) -> Result<(), String> {
    let data = flag(args, "--data").ok_or("--data DIR is required")?;
    // --embed e5: the built-in embedder makes the vectors from the text; else the precomputed --vectors.
    let embed = flag(args, "--embed");
    let vectors = match embed {
        Some("e5") => "e5 (embedded here)",
        Some(other) => return Err(format!("--embed: only e5, not {other}")),
        None => flag(args, "--vectors").ok_or("--vectors e5|minilm (or --embed e5) is required")?,
    };
    let mut fusion = FusionParams::default();
    if let Some(m) = flag(args, "--fusion") {
        fusion.method = match m {
            "rrf" => FusionMethod::Rrf,
            "relative" => FusionMethod::Relative,
            "zscore" => FusionMethod::ZScore,
            _ => return Err(format!("unknown --fusion {m}")),
        };
    }
    // The index's scalar kind (the exact rescoring of hybrid candidates reads the stored, quantized vectors).
    let scalar = flag(args, "--scalar").unwrap_or("f32");
    let scalar = ScalarKind::parse(scalar).ok_or(format!("--scalar: f32|f16|i8|i4, not {scalar}"))?;
    let num = |name: &str| flag(args, name).map(|v| v.parse::<f64>().map_err(|e| format!("{name}: {e}"))).transpose();
    if let Some(w) = num("--weight")? {
        fusion.vector_weight = w;
    }
    if let Some(k) = num("--rrf-k")? {
        fusion.rrf_k = k;
    }
    if let Some(p) = num("--pool")? {
        fusion.pool = p as usize;
    }
    if let Some(d) = num("--feedback-docs")? {
        fusion.feedback_docs = d as usize; // 0: no pseudo-relevance feedback
    }
    if let Some(t) = num("--feedback-terms")? {
        fusion.feedback_terms = t as usize;
    }
    if let Some(w) = num("--feedback-weight")? {
        fusion.feedback_weight = w;
    }
    let d = if embed.is_some() {
        embedded_locomo(data, flag(args, "--model"))?
    } else {
        load_locomo(Path::new(data), vectors)?
    };
    // --single-store: every conversation in one store, each question filtered to its own
    // conversation's namespace (exercises filtered search and store-wide term statistics).
    let single = args.iter().any(|a| a == "--single-store");

    // One store per conversation (or one for all).
    let mut stores: BTreeMap<String, Store> = BTreeMap::new();
    let mut batches: BTreeMap<String, Vec<MemoryPut>> = BTreeMap::new();
    for (t, v) in d.turns.iter().zip(&d.turn_vecs) {
        let put = MemoryPut::new(&["conv", &t.conv], &t.dia_id, json!({"speaker": t.speaker, "text": t.embed_text}))
            .text(&format!("{}: {}", t.speaker, t.embed_text))
            .embedding(v.clone());
        let store_key = if single { "all".to_string() } else { t.conv.clone() };
        batches.entry(store_key).or_default().push(put);
    }
    for (conv, puts) in batches {
        let mut s = Store::open(StoreConfig { scalar, ..StoreConfig::memory(DIMS) }).map_err(|e| e.to_string())?;
        for chunk in puts.chunks(1000) {
            s.put_batch(chunk.to_vec()).map_err(|e| e.to_string())?;
        }
        stores.insert(conv, s);
    }

    let modes = [("vector", SearchMode::Vector), ("lexical", SearchMode::Lexical), ("hybrid", SearchMode::Hybrid)];
    let mut out = serde_json::Map::new();
    for (name, mode) in modes {
        let (mut main, mut adv) = (Tally::default(), Tally::default());
        for (q, v) in d.questions.iter().zip(&d.question_vecs) {
            if q.evidence_clean.is_empty() {
                continue;
            }
            let store_key = if single { "all" } else { q.conv.as_str() };
            let s = stores.get_mut(store_key).ok_or_else(|| format!("question for unknown conversation {}", q.conv))?;
            let hits = s
                .search(&SearchQuery {
                    mode: Some(mode),
                    text: Some(q.question.clone()),
                    vector: Some(v.clone()),
                    k: Some(10),
                    fusion: Some(fusion),
                    namespace: if single { vec!["conv".to_string(), q.conv.clone()] } else { Vec::new() },
                    ..Default::default()
                })
                .map_err(|e| e.to_string())?;
            let rank = hits.iter().position(|h| q.evidence_clean.contains(&h.key));
            let t = if q.category == 5 { &mut adv } else { &mut main };
            t.n += 1;
            if let Some(r) = rank {
                t.h1 += (r < 1) as usize;
                t.h5 += (r < 5) as usize;
                t.h10 += (r < 10) as usize;
            }
        }
        out.insert(name.into(), json!({"cat1-4": main.json(), "cat5": adv.json()}));
    }
    let report = json!({"modes": out});
    if as_json {
        println!("{report}");
    } else {
        let layout = if single { "one store, namespace filter per conversation" } else { "one store per conversation" };
        println!("LoCoMo recall ({vectors} vectors, {layout}, fusion {:?})", fusion);
        println!(
            "{:<8} {:>6} {:>6} {:>6} {:>5} | {:>6} {:>6} {:>6} {:>5}",
            "mode", "R@1", "R@5", "R@10", "n", "c5 R@1", "R@5", "R@10", "n"
        );
        for (name, _) in modes {
            let m = &report["modes"][name];
            let (a, b) = (&m["cat1-4"], &m["cat5"]);
            println!(
                "{:<8} {:>6} {:>6} {:>6} {:>5} | {:>6} {:>6} {:>6} {:>5}",
                name, a["r1"], a["r5"], a["r10"], a["n"], b["r1"], b["r5"], b["r10"], b["n"]
            );
        }
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
fn embedded_locomo(data: &str, model: Option<&str>) -> Result<crate::corpus::Locomo, String> {
    let path = match model {
        Some(p) => p.to_owned(),
        None => crate::embed_corpus::default_model_path()?,
    };
    let model = crate::embed_corpus::load_model(&path)?;
    crate::embed_corpus::load_locomo_embedded(Path::new(data), &model, true)
}

#[cfg(target_arch = "wasm32")]
fn embedded_locomo(_data: &str, _model: Option<&str>) -> Result<crate::corpus::Locomo, String> {
    Err("--embed e5 runs in the native bench only".into())
}
