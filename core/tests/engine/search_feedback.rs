//! Hybrid search's query expansion: words of the best first-pass matches added to the question,
//! inside the filter, as of any seq, with document frequencies that follow the store's changes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{AsOf, Condition, FilterOp, MemoryPut, SearchMode, SearchQuery, Store};
use serde_json::json;

const DIMS: usize = 16;

/// Memories with one shared vector (so hybrid ranks by the lexical side alone, and all of them, fewer
/// than the vector list's 32, are first-pass candidates): four that answer "kayak trip" in its own
/// words, one that shares only rarer words with those four, and fillers.
fn feedback_corpus() -> Store {
    let mut s = store(DIMS);
    let v: Vec<f32> = (0..DIMS).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    let mut texts: Vec<String> = vec![
        "kayak trip along the fjord with Ingrid".into(),
        "planning a kayak trip to the fjord, Ingrid says".into(),
        "Ingrid booked the kayak trip on the fjord".into(),
        "the fjord kayak trip, Ingrid and me".into(),
    ];
    let fillers = ["garden", "invoice", "piano", "recipe", "tennis", "compiler", "museum", "harbour"];
    texts.extend(fillers.iter().cycle().take(20).map(|f| format!("a note about the {f}")));
    texts.push("Ingrid packed the drysuit for the fjord".into());
    let batch = texts
        .iter()
        .enumerate()
        .map(|(i, t)| MemoryPut::new(&["f"], &format!("k{i}"), json!(t)).embedding(v.clone()))
        .collect();
    s.put_batch(batch).unwrap();
    s
}

/// The top 5 of a hybrid search for "Which kayak trip?": (key, lexical rank, score × 1e9).
fn hybrid_top5(s: &mut Store, feedback: bool, as_of: Option<AsOf>) -> Vec<(String, Option<u32>, i64)> {
    let mut fusion = edgemem_core::FusionParams::default();
    if !feedback {
        fusion.feedback_docs = 0;
    }
    let q = SearchQuery {
        text: Some("Which kayak trip?".into()),
        vector: Some((0..DIMS).map(|i| if i == 1 { 1.0 } else { 0.0 }).collect()),
        k: Some(5),
        fusion: Some(fusion),
        as_of,
        ..Default::default()
    };
    s.search(&q).unwrap().into_iter().map(|h| (h.key, h.lexical_rank, (h.score * 1e9).round() as i64)).collect()
}

const TARGET: &str = "k24";

/// Pseudo-relevance feedback: words the best matches share ("fjord", "ingrid") find a memory that
/// shares no word with the question; without feedback it has no lexical score at all.
#[test]
fn hybrid_search_expands_the_question_with_words_of_its_best_matches() {
    let mut s = feedback_corpus();
    let kayaks = ["k0", "k1", "k2", "k3"];
    let without = hybrid_top5(&mut s, false, None);
    assert!(without[..4].iter().all(|h| kayaks.contains(&h.0.as_str())), "{without:?}");
    assert!(without.iter().all(|h| h.0 != TARGET));
    assert_eq!(without[4].1, None, "nothing else matches the question");
    let with = hybrid_top5(&mut s, true, None);
    assert!(with[..4].iter().all(|h| kayaks.contains(&h.0.as_str())), "{with:?}");
    assert_eq!((with[4].0.as_str(), with[4].1), (TARGET, Some(5)), "the expansion gave it a lexical rank");
}

/// A hybrid search AS OF the current seq expands the question the same way and scores as live.
#[test]
fn hybrid_search_as_of_now_matches_the_live_search() {
    let mut s = feedback_corpus();
    let by_key = |mut v: Vec<(String, Option<u32>, i64)>| {
        v.sort();
        v.into_iter().map(|(k, _, score)| (k, score)).collect::<Vec<_>>()
    };
    let live = hybrid_top5(&mut s, true, None);
    let now = s.seq();
    let then = hybrid_top5(&mut s, true, Some(AsOf::Seq(now)));
    assert_eq!(live[4].0, TARGET);
    assert_eq!(by_key(then), by_key(live));
}

/// Feedback re-scores the first pass's candidates only, so namespace and metadata filters hold.
#[test]
fn hybrid_feedback_stays_inside_the_filter() {
    let mut s = feedback_corpus();
    let v: Vec<f32> = (0..DIMS).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    s.put(MemoryPut::new(&["elsewhere"], "x", json!("Ingrid's drysuit dried by the fjord")).embedding(v.clone()))
        .unwrap();
    s.put(
        MemoryPut::new(&["f"], "tagged", json!("Ingrid and the fjord, drysuit on"))
            .embedding(v)
            .metadata(json!({"skip": true})),
    )
    .unwrap();
    let q = SearchQuery {
        text: Some("Which kayak trip?".into()),
        vector: Some((0..DIMS).map(|i| if i == 1 { 1.0 } else { 0.0 }).collect()),
        k: Some(10),
        namespace: vec!["f".into()],
        filter: vec![Condition { field: "skip".into(), op: FilterOp::Ne, value: json!(true) }],
        ..Default::default()
    };
    let hits = s.search(&q).unwrap();
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|h| h.namespace == ["f"] && h.key != "tagged"), "{hits:?}");
    assert!(hits.iter().any(|h| h.key == TARGET));
}

/// Term statistics are re-read after enough writes even when the number of memories stays the
/// same: a word that overwrites made rare again is searched for, not dropped as too common.
#[test]
fn lexical_document_frequencies_follow_overwrites() {
    let mut s = store(DIMS);
    // "alpha" in k0..k29 (30 of 40: too common, dropped from the query), "beta" in k25..k39.
    for i in 0..40 {
        let t = match i {
            0..25 => format!("alpha note {i}"),
            25..30 => format!("alpha beta note {i}"),
            _ => format!("beta note {i}"),
        };
        put_text(&mut s, &["d"], &format!("k{i}"), &t);
    }
    let q = SearchQuery {
        mode: Some(SearchMode::Lexical),
        text: Some("alpha beta".into()),
        k: Some(10),
        ..Default::default()
    };
    assert!(s.search(&q).unwrap().iter().all(|h| h.key != "k0"));
    for i in 1..30 {
        put_text(&mut s, &["d"], &format!("k{i}"), &format!("gamma note {i}"));
    }
    let hits = s.search(&q).unwrap();
    assert_eq!(hits[0].key, "k0", "the one memory left with \"alpha\" ranks first: {hits:?}");
}

/// Random vectors, memories without text among them and more memories than the vector list holds:
/// hybrid search with feedback AS OF now still ranks and scores as live. (Not with a filter: AS OF
/// search takes term statistics over the versions the filter keeps, live search over the store.)
#[test]
fn hybrid_search_with_feedback_as_of_now_matches_live_on_a_mixed_store() {
    let mut s = store(DIMS);
    let mut rng = Rng::new(11);
    let words = ["fjord", "kayak", "trip", "ingrid", "drysuit", "paddle", "harbour", "ferry", "storm", "map"];
    let mut batch = Vec::new();
    for i in 0..120 {
        let mut put = MemoryPut::new(&["m"], &format!("k{i}"), json!({"i": i}))
            .embedding(rng.unit_vec(DIMS))
            .metadata(json!({"even": i % 2 == 0}));
        if i % 4 != 3 {
            let t: Vec<&str> = (0..6).map(|j| words[(i * 7 + j * (i % 5 + 1)) % words.len()]).collect();
            put = put.text(&t.join(" "));
        }
        batch.push(put);
    }
    s.put_batch(batch).unwrap();
    let now = s.seq();
    {
        let q = |as_of| SearchQuery {
            text: Some("kayak trip".into()),
            vector: Some(Rng::new(5).unit_vec(DIMS)),
            k: Some(10),
            as_of,
            ..Default::default()
        };
        // Live similarities come from the graph in f32, AS OF ones are computed in f64: 1e-6.
        let scored = |hits: Vec<edgemem_core::SearchHit>| {
            let mut v: Vec<(String, i64)> = hits.into_iter().map(|h| (h.key, (h.score * 1e6).round() as i64)).collect();
            v.sort();
            v
        };
        let live = scored(s.search(&q(None)).unwrap());
        assert_eq!(live.len(), 10);
        assert_eq!(scored(s.search(&q(Some(AsOf::Seq(now)))).unwrap()), live);
    }
}
