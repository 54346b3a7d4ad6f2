//! Latency of agent-shaped operations on a 10k-memory store of realistic data (LoCoMo
//! turn texts, LoCoMo vectors plus clustered synthetic ones; LoCoMo questions as queries):
//! PUT (1 KB value + 384-d vector), GET, CHECKPOINT PUT (1 KB JSON), hybrid SEARCH top-10 (after
//! another search, and right after a PUT),
//! GET AS OF vs live GET, NOTIFY publish → callback. p50 / p95 / p99 after warm-up. Runs natively
//! and, the same code built for wasm32-wasip1, under Wasmtime (`host` in the output says which).

use crate::corpus::{load_locomo, locomo_dir, realistic_vectors, Rng, DIMS};
use crate::flag;
use crate::percentiles::{summarize, Summary};
use edgemem_core::{
    AsOf, CheckpointData, CheckpointPut, EventFilter, EventKind, MemoryPut, SearchQuery, Storage, Store, StoreConfig,
};
use serde_json::json;
use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

const WORDS: &[&str] = &[
    "meeting",
    "project",
    "deadline",
    "coffee",
    "travel",
    "paris",
    "budget",
    "report",
    "family",
    "birthday",
    "gym",
    "doctor",
    "recipe",
    "garden",
    "music",
    "concert",
    "book",
    "movie",
    "python",
    "rust",
    "launch",
    "customer",
    "invoice",
    "weekend",
    "hiking",
    "camera",
    "painting",
    "school",
    "exam",
    "flight",
    "hotel",
    "dinner",
    "allergy",
    "preference",
];

/// Which host runs this code: natively, or compiled to wasm32-wasip1 for the Wasmtime CLI.
const HOST: &str = if cfg!(target_os = "wasi") { "wasmtime" } else { "native" };

fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
}

/// ~1 KB JSON value with a text field.
fn value_1k(rng: &mut Rng, i: usize) -> serde_json::Value {
    json!({"id": i, "note": sentence(rng, 40), "pad": "x".repeat(700)})
}

fn time<T>(samples: &mut Vec<u64>, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    samples.push(t.elapsed().as_nanos() as u64);
    r
}

/// One hybrid top-10 search for a question, its time added to `samples` when given (None: a warm-up).
fn timed_search(s: &mut Store, text: &str, vector: &[f32], samples: Option<&mut Vec<u64>>) -> Result<(), String> {
    let q = SearchQuery { text: Some(text.into()), vector: Some(vector.to_vec()), k: Some(10), ..Default::default() };
    let mut tmp = Vec::new();
    let hits = time(&mut tmp, || s.search(&q)).map_err(|e| e.to_string())?;
    if hits.len() != 10 {
        return Err(format!("search returned {} hits", hits.len()));
    }
    if let Some(out) = samples {
        out.extend(tmp);
    }
    Ok(())
}

pub fn run(args: &[String], as_json: bool) -> Result<(), String> {
    let n: usize = flag(args, "--n").map(|v| v.parse().map_err(|e| format!("--n: {e}"))).transpose()?.unwrap_or(10_000);
    let iters: usize =
        flag(args, "--iters").map(|v| v.parse().map_err(|e| format!("--iters: {e}"))).transpose()?.unwrap_or(2_000);
    let data = locomo_dir(flag(args, "--data"));
    let scalar = flag(args, "--scalar").unwrap_or("f32");
    let scalar = edgemem_core::ScalarKind::parse(scalar).ok_or(format!("--scalar: no kind {scalar}"))?;
    // --sequence namespace: each namespace's memories are a sequence, so every search scores neighbours.
    let sequence = match flag(args, "--sequence").unwrap_or("none") {
        "none" => edgemem_core::Sequence::None,
        "namespace" => edgemem_core::Sequence::Namespace,
        other => return Err(format!("--sequence: none|namespace, not {other}")),
    };
    let storage = match flag(args, "--storage").unwrap_or("memory") {
        "memory" => Storage::Memory,
        f => Storage::File(f.into()),
    };
    let loco = load_locomo(Path::new(&data), "minilm")?;
    let real = &loco.turn_vecs;
    let texts: Vec<String> = loco.turns.iter().map(|t| format!("{}: {}", t.speaker, t.embed_text)).collect();
    let questions: Vec<(String, Vec<f32>)> =
        loco.questions.iter().map(|q| q.question.clone()).zip(loco.question_vecs.iter().cloned()).collect();
    let vecs = realistic_vectors(real, n + iters * 2, 42);
    let mut rng = Rng::new(1);
    let e = |e: edgemem_core::Error| e.to_string();

    let mut s = Store::open(StoreConfig { storage, scalar, sequence, ..StoreConfig::memory(DIMS) }).map_err(e)?;
    let t0 = Instant::now();
    let mut batch = Vec::new();
    for (i, v) in vecs.iter().take(n).enumerate() {
        let put = MemoryPut::new(
            &["agent", ["facts", "prefs", "episodes", "tasks"][i % 4]],
            &format!("m{i}"),
            value_1k(&mut rng, i),
        )
        .text(&texts[i % texts.len()])
        .embedding(v.clone());
        batch.push(put);
        if batch.len() == 500 {
            s.put_batch(std::mem::take(&mut batch)).map_err(e)?;
        }
    }
    s.put_batch(batch).map_err(e)?;
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let seq_built = s.seq();

    let ns_of = |i: usize| vec!["agent".to_string(), ["facts", "prefs", "episodes", "tasks"][i % 4].to_string()];
    let (mut put, mut get, mut cp, mut search, mut asof, mut live, mut notify) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let warm = iters / 10;
    // PUT: updates of existing keys and new keys, alternating.
    for it in 0..iters + warm {
        let i = if it % 2 == 0 { rng.below(n) } else { n + it };
        let p = MemoryPut::new(
            &["agent", ["facts", "prefs", "episodes", "tasks"][i % 4]],
            &format!("m{i}"),
            value_1k(&mut rng, i),
        )
        .text(&texts[rng.below(texts.len())])
        .embedding(vecs[n + it].clone());
        let mut tmp = Vec::new();
        time(&mut tmp, || s.put(p)).map_err(e)?;
        if it >= warm {
            put.extend(tmp);
        }
    }
    for it in 0..iters + warm {
        let i = rng.below(n);
        let key = format!("m{i}");
        let mut tmp = Vec::new();
        let m = time(&mut tmp, || s.get(&ns_of(i), &key)).map_err(e)?;
        if m.is_none() {
            return Err(format!("GET m{i} found nothing"));
        }
        if it >= warm {
            get.extend(tmp);
        }
    }
    let cp_payload = json!({"channel_values": {"messages": [sentence(&mut rng, 60), sentence(&mut rng, 60)]}, "pad": "y".repeat(300)});
    for it in 0..iters + warm {
        let c = CheckpointPut {
            channel_versions: Default::default(),
            blobs: Vec::new(),
            thread_id: format!("thread-{}", it % 16),
            checkpoint_ns: String::new(),
            checkpoint_id: format!("cp-{it:08}"),
            parent_id: (it >= 16).then(|| format!("cp-{:08}", it - 16)),
            data: CheckpointData::json(&cp_payload),
            metadata: json!({"step": it, "source": "loop"}).as_object().cloned().unwrap_or_default(),
        };
        let mut tmp = Vec::new();
        time(&mut tmp, || s.put_checkpoint(c)).map_err(e)?;
        if it >= warm {
            cp.extend(tmp);
        }
    }
    for it in 0..iters + warm {
        let (qt, qv) = &questions[rng.below(questions.len())];
        timed_search(&mut s, qt, qv, if it >= warm { Some(&mut search) } else { None })?;
    }
    // SEARCH right after a PUT (an agent writes a memory, then searches): the write's buffered
    // full-text mark is applied by the search.
    let mut after_put = Vec::new();
    for it in 0..iters + warm {
        let i = n + iters + warm + it;
        let p = MemoryPut::new(&["agent", "episodes"], &format!("m{i}"), value_1k(&mut rng, i))
            .text(&texts[rng.below(texts.len())])
            .embedding(vecs[n + iters + it % iters].clone());
        s.put(p).map_err(e)?;
        let (qt, qv) = &questions[rng.below(questions.len())];
        timed_search(&mut s, qt, qv, if it >= warm { Some(&mut after_put) } else { None })?;
    }
    // AS OF the moment the store was built vs live, interleaved on the same keys.
    for it in 0..iters + warm {
        let i = rng.below(n);
        let key = format!("m{i}");
        let (mut a, mut l) = (Vec::new(), Vec::new());
        // Alternate which goes first so neither always reads a cache the other warmed.
        if it % 2 == 0 {
            time(&mut l, || s.get(&ns_of(i), &key)).map_err(e)?;
        }
        let old = time(&mut a, || s.get_at(&ns_of(i), &key, Some(AsOf::Seq(seq_built)))).map_err(e)?;
        if it % 2 == 1 {
            time(&mut l, || s.get(&ns_of(i), &key)).map_err(e)?;
        }
        if old.is_none() {
            return Err(format!("GET AS OF m{i} found nothing"));
        }
        if it >= warm {
            asof.extend(a);
            live.extend(l);
        }
    }
    let got: Rc<Cell<Option<Instant>>> = Rc::default();
    let g = got.clone();
    s.subscribe(EventFilter { kinds: vec![EventKind::Notify], ..Default::default() }, move |_| {
        g.set(Some(Instant::now()))
    });
    for it in 0..iters + warm {
        let t = Instant::now();
        s.notify("bench", json!({"i": it})).map_err(e)?;
        let at = got.take().ok_or("notify callback did not run")?;
        if it >= warm {
            notify.push(at.duration_since(t).as_nanos() as u64);
        }
    }

    let (temporal_correct, temporal_total, mut t_asof, mut t_live) = temporal(n, iters)?;
    let (t_asof_p50, t_live_p50) = (summarize(&mut t_asof).p50_us, summarize(&mut t_live).p50_us);
    let temporal_ratio = t_asof_p50 / t_live_p50;

    let rows: Vec<(&str, Summary)> = vec![
        ("put", summarize(&mut put)),
        ("get", summarize(&mut get)),
        ("checkpoint_put", summarize(&mut cp)),
        ("search", summarize(&mut search)),
        ("search_after_put", summarize(&mut after_put)),
        ("get_as_of", summarize(&mut asof)),
        ("get_live", summarize(&mut live)),
        ("notify", summarize(&mut notify)),
    ];
    let ratio = rows[5].1.p50_us / rows[6].1.p50_us;
    let stats = s.stats().map_err(e)?;
    if as_json {
        let ops: serde_json::Map<String, serde_json::Value> =
            rows.iter().map(|(k, v)| (k.to_string(), serde_json::to_value(v).unwrap_or_default())).collect();
        println!(
            "{}",
            json!({"host": HOST, "memories": n, "build_ms": build_ms, "ops": ops, "as_of_over_live_p50": ratio,
                   "temporal": {"correct": temporal_correct, "total": temporal_total, "ratio": temporal_ratio, "as_of_p50_us": t_asof_p50, "live_p50_us": t_live_p50},
                   "db_bytes": stats.db_bytes, "index_bytes": stats.index_bytes})
        );
    } else {
        println!("{HOST} latency, {n} memories × {DIMS}-d (built in {build_ms:.0} ms), {iters} timed iterations after {warm} warm-up");
        println!("{:<16} {:>9} {:>9} {:>9} {:>9}", "op", "p50 µs", "p95 µs", "p99 µs", "max µs");
        for (k, v) in &rows {
            println!("{:<16} {:>9.1} {:>9.1} {:>9.1} {:>9.1}", k, v.p50_us, v.p95_us, v.p99_us, v.max_us);
        }
        println!("AS OF / live GET (p50): {ratio:.3}  (AS OF the moment the store was built)");
        println!(
            "temporal (rows at A, half updated at B, rest at C; GETs AS OF A, B, C): {temporal_correct}/{temporal_total} correct, AS OF p50 {t_asof_p50:.1} µs / live p50 {t_live_p50:.1} µs = {temporal_ratio:.3}"
        );
    }
    Ok(())
}

/// The seed's temporal procedure: `n` rows written at seq A, half of them updated at B, the rest
/// at C; point GETs AS OF A, B and C must each return that moment's value. Returns (correct,
/// total, AS OF samples, live samples) with live GETs interleaved on the same keys.
fn temporal(n: usize, iters: usize) -> Result<(usize, usize, Vec<u64>, Vec<u64>), String> {
    let e = |e: edgemem_core::Error| e.to_string();
    let mut s = Store::open(StoreConfig::memory(0)).map_err(e)?;
    let ns = vec!["t".to_string()];
    let write = |s: &mut Store, keys: std::ops::Range<usize>, phase: &str| -> Result<u64, String> {
        for chunk in keys.collect::<Vec<_>>().chunks(500) {
            let puts = chunk
                .iter()
                .map(|i| MemoryPut::new(&["t"], &format!("k{i}"), json!({"phase": phase, "pad": "z".repeat(900)})))
                .collect();
            s.put_batch(puts).map_err(|e| e.to_string())?;
        }
        Ok(s.seq())
    };
    let a = write(&mut s, 0..n, "A")?;
    let b = write(&mut s, 0..n / 2, "B")?;
    let c = write(&mut s, n / 2..n, "C")?;
    let mut rng = Rng::new(3);
    let (mut correct, mut total, mut asof, mut live) = (0, 0, Vec::new(), Vec::new());
    for it in 0..iters * 3 {
        let i = rng.below(n);
        let key = format!("k{i}");
        // One AS OF GET (A, B and C in turn) and one live GET of the same key, alternating which
        // goes first, so both read one row with the same cache warmth.
        let (at, want) =
            [(a, "A"), (b, if i < n / 2 { "B" } else { "A" }), (c, if i < n / 2 { "B" } else { "C" })][it % 3];
        if (it / 3) % 2 == 0 {
            time(&mut live, || s.get(&ns, &key)).map_err(e)?;
        }
        let m = time(&mut asof, || s.get_at(&ns, &key, Some(AsOf::Seq(at)))).map_err(e)?;
        if (it / 3) % 2 == 1 {
            time(&mut live, || s.get(&ns, &key)).map_err(e)?;
        }
        total += 1;
        correct += (m.map(|m| m.value["phase"].clone()) == Some(json!(want))) as usize;
    }
    Ok((correct, total, asof, live))
}
