//! LoCoMo retrieval recall: one store per conversation (text = "<speaker>: <embed_text>" plus
//! the turn's vector), every question asked through the engine's own search in each mode;
//! hit@k = any evidence turn in the top k, R@10 = the fraction of its evidence turns in the top 10.
//! Categories 1–4 together (and each), 5 separately. `--loocv`: the settings chosen by
//! leave-one-conversation-out (each conversation's held-out score under the settings that score best on
//! the other five), reported as mean ± sd over the folds.

use crate::corpus::{load_locomo, Locomo, DIMS};
use crate::flag;
use edgemem_core::{
    FusionMethod, FusionParams, MemoryPut, ScalarKind, SearchMode, SearchQuery, Sequence, Store, StoreConfig,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Default, Clone, Copy)]
struct Tally {
    h1: usize,
    h5: usize,
    h10: usize,
    /// Sum over questions of the fraction of evidence turns in the top 10.
    r10: f64,
    n: usize,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Tally {
    fn add(&mut self, q: &QResult) {
        self.n += 1;
        self.h1 += q.rank.is_some_and(|r| r < 1) as usize;
        self.h5 += q.rank.is_some_and(|r| r < 5) as usize;
        self.h10 += q.rank.is_some_and(|r| r < 10) as usize;
        self.r10 += q.frac10;
    }
    fn r(&self, h: usize) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            h as f64 / self.n as f64
        }
    }
    fn frac(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.r10 / self.n as f64
        }
    }
    fn json(&self) -> Value {
        json!({
            "r1": round3(self.r(self.h1)), "r5": round3(self.r(self.h5)), "r10": round3(self.r(self.h10)),
            "recall10": round3(self.frac()), "n": self.n,
        })
    }
}

/// One question's outcome: its conversation, category, first evidence rank and fraction of evidence in the top 10.
#[derive(Clone, Copy)]
struct QResult {
    conv: usize,
    category: u8,
    rank: Option<usize>,
    frac10: f64,
}

/// How the turns are stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    /// One namespace per conversation: ["conv", c].
    Conv,
    /// One namespace per session: ["conv", c, "s<n>"] (a session is the sequence its turns form).
    Session,
}

struct Bench {
    data: Locomo,
    convs: Vec<String>,
    single: bool,
    scalar: ScalarKind,
}

impl Bench {
    /// The stores (one per conversation, or one for all), with `sequence` set.
    fn stores(&self, layout: Layout, sequence: Sequence) -> Result<BTreeMap<String, Store>, String> {
        let mut batches: BTreeMap<String, Vec<MemoryPut>> = BTreeMap::new();
        for (t, v) in self.data.turns.iter().zip(&self.data.turn_vecs) {
            let session = format!("s{}", t.session);
            let ns: Vec<&str> = match layout {
                Layout::Conv => vec!["conv", &t.conv],
                Layout::Session => vec!["conv", &t.conv, &session],
            };
            let put = MemoryPut::new(&ns, &t.dia_id, json!({"speaker": t.speaker, "text": t.embed_text}))
                .text(&format!("{}: {}", t.speaker, t.embed_text))
                .embedding(v.clone());
            let store_key = if self.single { "all".to_string() } else { t.conv.clone() };
            batches.entry(store_key).or_default().push(put);
        }
        let mut stores = BTreeMap::new();
        for (conv, puts) in batches {
            let cfg = StoreConfig { scalar: self.scalar, sequence, ..StoreConfig::memory(DIMS) };
            let mut s = Store::open(cfg).map_err(|e| e.to_string())?;
            for chunk in puts.chunks(1000) {
                s.put_batch(chunk.to_vec()).map_err(|e| e.to_string())?;
            }
            stores.insert(conv, s);
        }
        Ok(stores)
    }

    /// Every question with evidence asked in `mode` with `fusion`.
    fn ask(
        &self,
        stores: &mut BTreeMap<String, Store>,
        mode: SearchMode,
        fusion: FusionParams,
    ) -> Result<Vec<QResult>, String> {
        let mut out = Vec::new();
        for (q, v) in self.data.questions.iter().zip(&self.data.question_vecs) {
            if q.evidence_clean.is_empty() {
                continue;
            }
            let store_key = if self.single { "all" } else { q.conv.as_str() };
            let s = stores.get_mut(store_key).ok_or_else(|| format!("question for unknown conversation {}", q.conv))?;
            let hits = s
                .search(&SearchQuery {
                    mode: Some(mode),
                    text: Some(q.question.clone()),
                    vector: Some(v.clone()),
                    k: Some(10),
                    fusion: Some(fusion),
                    namespace: if self.single { vec!["conv".to_string(), q.conv.clone()] } else { Vec::new() },
                    ..Default::default()
                })
                .map_err(|e| e.to_string())?;
            let found = q.evidence_clean.iter().filter(|e| hits.iter().any(|h| &h.key == *e)).count();
            out.push(QResult {
                conv: self.convs.iter().position(|c| *c == q.conv).unwrap_or(0),
                category: q.category,
                rank: hits.iter().position(|h| q.evidence_clean.contains(&h.key)),
                frac10: found as f64 / q.evidence_clean.len() as f64,
            });
        }
        Ok(out)
    }
}

/// Categories 1–4 together, each of them, and 5, of the results `keep` selects.
fn summary(results: &[QResult], keep: impl Fn(&QResult) -> bool) -> Value {
    let mut all = Tally::default();
    let mut cats = [Tally::default(); 6];
    for r in results.iter().filter(|r| keep(r)) {
        if r.category != 5 {
            all.add(r);
        }
        cats[r.category.min(5) as usize].add(r);
    }
    // Each conversation's categories 1–4 R@10 and hit@10: their mean and sd.
    let convs = results.iter().map(|r| r.conv).max().map_or(0, |m| m + 1);
    let per: Vec<(f64, f64)> = (0..convs).map(|c| score(results, |x| x == c)).collect();
    let (r, rsd) = mean_sd(&per.iter().map(|p| p.0).collect::<Vec<_>>());
    let (h, hsd) = mean_sd(&per.iter().map(|p| p.1).collect::<Vec<_>>());
    json!({
        "cat1-4": all.json(), "cat1": cats[1].json(), "cat2": cats[2].json(), "cat3": cats[3].json(),
        "cat4": cats[4].json(), "cat5": cats[5].json(),
        "byConversation": {"recall10": {"mean": round3(r), "sd": round3(rsd)}, "hit10": {"mean": round3(h), "sd": round3(hsd)}},
    })
}

/// Categories 1–4's fractional R@10 and hit@10 over the conversations `keep` selects.
fn score(results: &[QResult], keep: impl Fn(usize) -> bool) -> (f64, f64) {
    let mut t = Tally::default();
    for r in results.iter().filter(|r| r.category != 5 && keep(r.conv)) {
        t.add(r);
    }
    (t.frac(), t.r(t.h10))
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, var.sqrt())
}

/// One point of the LOOCV grid.
#[derive(Clone, Copy, Debug)]
struct Setting {
    layout: Layout,
    fusion: FusionParams,
}

impl Setting {
    fn json(&self) -> Value {
        let f = &self.fusion;
        json!({
            "layout": format!("{:?}", self.layout).to_lowercase(), "method": f.method,
            "vectorWeight": f.vector_weight, "neighbourWeight": f.neighbour_weight.unwrap_or(0.0),
            "neighbourReach": f.neighbour_reach,
        })
    }
}

/// Leave-one-conversation-out over `grid` (each point's results): for each conversation, the point with the best
/// categories 1–4 R@10 on the other conversations, and its score on the held-out one.
fn loocv(convs: usize, grid: &[(Setting, Vec<QResult>)]) -> Value {
    let mut folds = Vec::new();
    let (mut held, mut held_hit, mut train) = (Vec::new(), Vec::new(), Vec::new());
    for c in 0..convs {
        let best = grid.iter().map(|(s, r)| (s, r, score(r, |x| x != c).0)).fold(
            None,
            |b: Option<(&Setting, &Vec<QResult>, f64)>, x| match b {
                Some(b) if b.2 >= x.2 => Some(b),
                _ => Some(x),
            },
        );
        let Some((s, r, t)) = best else { continue };
        let (h, hh) = score(r, |x| x == c);
        held.push(h);
        held_hit.push(hh);
        train.push(t);
        folds.push(json!({"heldOut": c, "setting": s.json(), "train": round3(t), "heldOutR10": round3(h), "heldOutHit10": round3(hh)}));
    }
    let ms = |xs: &[f64]| {
        let (m, sd) = mean_sd(xs);
        json!({"mean": round3(m), "sd": round3(sd)})
    };
    let gap: Vec<f64> = train.iter().zip(&held).map(|(t, h)| t - h).collect();
    json!({"heldOutR10": ms(&held), "heldOutHit10": ms(&held_hit), "trainR10": ms(&train), "gap": ms(&gap), "folds": folds})
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
        fusion.method = parse_method(m)?;
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
    // --neighbour-weight W: the conversation-aware runs' weight (default: the engine's).
    let neighbour_weight = num("--neighbour-weight")?;
    if let Some(r) = num("--neighbour-reach")? {
        fusion.neighbour_reach = r as usize;
    }
    let layout = match flag(args, "--layout").unwrap_or("session") {
        "conv" => Layout::Conv,
        "session" => Layout::Session,
        other => return Err(format!("--layout: conv|session, not {other}")),
    };
    let data = if embed.is_some() {
        embedded_locomo(data, flag(args, "--model"))?
    } else {
        load_locomo(Path::new(data), vectors)?
    };
    let mut convs: Vec<String> = data.turns.iter().map(|t| t.conv.clone()).collect();
    convs.dedup();
    // --single-store: every conversation in one store, each question filtered to its own
    // conversation's namespace (exercises filtered search and store-wide term statistics).
    let single = args.iter().any(|a| a == "--single-store");
    let b = Bench { data, convs, single, scalar };

    let modes = [("vector", SearchMode::Vector), ("lexical", SearchMode::Lexical), ("hybrid", SearchMode::Hybrid)];
    // Each mode as the engine ranks unordered memories, then with the store's sequences on
    // (`sequence: "namespace"`, `layout`'s namespaces; the engine's neighbour weight unless --neighbour-weight).
    let mut plain = serde_json::Map::new();
    let mut stores = b.stores(Layout::Conv, Sequence::None)?;
    for (name, mode) in modes {
        let r = b.ask(&mut stores, mode, fusion)?;
        plain.insert(name.into(), summary(&r, |_| true));
    }
    let mut seq = serde_json::Map::new();
    let mut stores = b.stores(layout, Sequence::Namespace)?;
    for (name, mode) in modes {
        let r = b.ask(&mut stores, mode, FusionParams { neighbour_weight, ..fusion })?;
        seq.insert(name.into(), summary(&r, |_| true));
    }
    let mut report = json!({"modes": plain, "sequence": seq, "layout": format!("{layout:?}").to_lowercase()});
    if args.iter().any(|a| a == "--loocv") {
        report["loocv"] = loocv_report(&b, fusion)?;
    }
    if as_json {
        println!("{report}");
    } else {
        let layout = if single { "one store, namespace filter per conversation" } else { "one store per conversation" };
        println!("LoCoMo recall ({vectors} vectors, {layout}, fusion {:?})", fusion);
        for (title, key) in
            [("unordered (sequence none)", "modes"), ("conversation-aware (sequence namespace)", "sequence")]
        {
            println!("{title}");
            println!(
                "{:<8} {:>6} {:>6} {:>6} {:>6} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>5} | R@10 by conversation",
                "mode",
                "R@1",
                "R@5",
                "hit@10",
                "R@10",
                "n",
                "c1 R10",
                "c2",
                "c3",
                "c4",
                "c5 hit",
                "R@10",
                "n"
            );
            for (name, _) in modes {
                let m = &report[key][name];
                let (a, e, by) = (&m["cat1-4"], &m["cat5"], &m["byConversation"]["recall10"]);
                println!(
                    "{:<8} {:>6} {:>6} {:>6} {:>6} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>5} | {} ± {}",
                    name,
                    a["r1"],
                    a["r5"],
                    a["r10"],
                    a["recall10"],
                    a["n"],
                    m["cat1"]["recall10"],
                    m["cat2"]["recall10"],
                    m["cat3"]["recall10"],
                    m["cat4"]["recall10"],
                    e["r10"],
                    e["recall10"],
                    e["n"],
                    by["mean"],
                    by["sd"]
                );
            }
        }
        if let Some(l) = report.get("loocv") {
            println!("leave-one-conversation-out (categories 1–4, fractional R@10 on the held-out conversation):");
            for name in ["vector", "lexical", "hybrid", "hybridUnordered"] {
                let x = &l[name];
                println!(
                    "{:<8} held out {} ± {} (hit@10 {} ± {}), train {} ± {}, gap {} ± {}",
                    name,
                    x["heldOutR10"]["mean"],
                    x["heldOutR10"]["sd"],
                    x["heldOutHit10"]["mean"],
                    x["heldOutHit10"]["sd"],
                    x["trainR10"]["mean"],
                    x["trainR10"]["sd"],
                    x["gap"]["mean"],
                    x["gap"]["sd"]
                );
                for f in x["folds"].as_array().into_iter().flatten() {
                    println!("         fold {}: {} -> {}", f["heldOut"], f["setting"], f["heldOutR10"]);
                }
            }
        }
    }
    Ok(())
}

fn parse_method(m: &str) -> Result<FusionMethod, String> {
    match m {
        "rrf" => Ok(FusionMethod::Rrf),
        "relative" => Ok(FusionMethod::Relative),
        "zscore" => Ok(FusionMethod::ZScore),
        _ => Err(format!("unknown --fusion {m}")),
    }
}

/// Neighbour weights the LOOCV grid tries (0: off).
const NEIGHBOUR_WEIGHTS: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// Neighbour reaches the LOOCV grid tries.
const NEIGHBOUR_REACHES: [usize; 3] = [1, 2, 3];
/// Vector weights the hybrid grid tries.
const VECTOR_WEIGHTS: [f64; 5] = [0.3, 0.4, 0.5, 0.6, 0.7];

/// The grid's neighbour settings: off, then each reach × weight, over `base`.
fn neighbour_grid(base: FusionParams) -> Vec<FusionParams> {
    let mut out = vec![FusionParams { neighbour_weight: Some(0.0), ..base }];
    for neighbour_reach in NEIGHBOUR_REACHES {
        for nw in NEIGHBOUR_WEIGHTS {
            out.push(FusionParams { neighbour_weight: Some(nw), neighbour_reach, ..base });
        }
    }
    out
}

/// LOOCV per mode over the session layout: vector and lexical over the neighbour settings; hybrid also over
/// the fusion method (relative, z-score) and the vector weight (`base`'s other settings kept).
fn loocv_report(b: &Bench, base: FusionParams) -> Result<Value, String> {
    let layout = Layout::Session;
    let mut out = serde_json::Map::new();
    let mut grids: BTreeMap<&str, Vec<(Setting, Vec<QResult>)>> = BTreeMap::new();
    let mut stores = b.stores(layout, Sequence::Namespace)?;
    for (name, mode) in [("vector", SearchMode::Vector), ("lexical", SearchMode::Lexical)] {
        for fusion in neighbour_grid(base) {
            grids.entry(name).or_default().push((Setting { layout, fusion }, b.ask(&mut stores, mode, fusion)?));
        }
    }
    for method in [FusionMethod::Relative, FusionMethod::ZScore] {
        for vector_weight in VECTOR_WEIGHTS {
            for fusion in neighbour_grid(FusionParams { method, vector_weight, ..base }) {
                let r = b.ask(&mut stores, SearchMode::Hybrid, fusion)?;
                grids.entry("hybrid").or_default().push((Setting { layout, fusion }, r));
            }
        }
    }
    // The fusion alone (neighbour scoring off): the unordered store's method and vector weight.
    let unordered: Vec<(Setting, Vec<QResult>)> = grids["hybrid"]
        .iter()
        .filter(|(s, _)| s.fusion.neighbour_weight == Some(0.0))
        .map(|(s, r)| (*s, r.clone()))
        .collect();
    out.insert("hybridUnordered".into(), loocv(b.convs.len(), &unordered));
    for (name, grid) in grids {
        out.insert(name.into(), loocv(b.convs.len(), &grid));
    }
    Ok(Value::Object(out))
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
