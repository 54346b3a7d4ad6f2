//! Neighbour scoring: with sequences on (a store's `sequence: "namespace"`, or a search's
//! `fusion.neighbourWeight`), the memory next to a match in its namespace is found even when it holds none of
//! the query's words; unordered stores, other namespaces and filters are left alone.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    Condition, ErrorCode, FilterOp, FusionParams, MemoryPut, SearchMode, SearchQuery, Sequence, Store, StoreConfig,
};
use serde_json::json;

/// A conversation in ["chat", "a"]: the question "what did you research" answered by the next turn (which
/// shares no word with it), then filler; one memory of another namespace written between the two.
fn conversation(sequence: Sequence) -> Store {
    let mut s = store_with(StoreConfig { sequence, ..StoreConfig::memory(0) });
    let turn = |ns: &[&str], key: &str, text: &str, topic: &str| {
        MemoryPut::new(ns, key, json!(text)).text(text).metadata(json!({"topic": topic}))
    };
    let a = ["chat", "a"];
    let mut puts = vec![
        turn(&a, "1", "Hello again, how was your week?", "greeting"),
        turn(&a, "2", "Busy! What did you research for the project?", "question"),
        turn(&["facts"], "f", "The research budget is approved.", "fact"),
        turn(&a, "3", "Adoption agencies, mostly the local ones.", "answer"),
        turn(&a, "4", "That sounds like a lot of reading.", "remark"),
    ];
    for i in 0..20 {
        puts.push(turn(&a, &format!("x{i}"), &format!("filler line {i} about the weather"), "filler"));
    }
    s.put_batch(puts).unwrap();
    s
}

fn keys(s: &mut Store, k: usize, fusion: Option<FusionParams>, filter: Vec<Condition>) -> Vec<String> {
    let q = SearchQuery {
        mode: Some(SearchMode::Lexical),
        text: Some("what did they research".into()),
        k: Some(k),
        namespace: ns(&["chat"]),
        filter,
        fusion,
        ..Default::default()
    };
    s.search(&q).unwrap().into_iter().map(|h| h.key).collect()
}

#[test]
fn the_answer_next_to_the_match_is_found_only_with_sequences() {
    // Unordered facts: only the memory holding the word.
    let mut plain = conversation(Sequence::None);
    assert_eq!(keys(&mut plain, 2, None, vec![]), ["2"]);
    // The store's setting turns neighbour scoring on: the answer next to the question comes second.
    let mut seq = conversation(Sequence::Namespace);
    let on = keys(&mut seq, 3, None, vec![]);
    assert_eq!(on[0], "2");
    assert!(on.contains(&"3".to_string()), "the answer is the question's neighbour: {on:?}");
    // A search turns it off (weight 0) on that store, or on (weight > 0) on an unordered store.
    let off = FusionParams { neighbour_weight: Some(0.0), ..Default::default() };
    assert_eq!(keys(&mut seq, 3, Some(off), vec![]), ["2"]);
    let per_search = FusionParams { neighbour_weight: Some(0.5), ..Default::default() };
    assert!(keys(&mut plain, 3, Some(per_search), vec![]).contains(&"3".to_string()));
}

#[test]
fn neighbours_stay_in_their_namespace_and_filters() {
    let mut s = conversation(Sequence::Namespace);
    // Reach 1: turn 1 (before the question) and turn 3 (after it, past the other namespace's memory); the fact
    // in ["facts"] is outside the search's prefix and no neighbour; turn 4 is two places away.
    let reach1 = FusionParams { neighbour_reach: 1, ..Default::default() };
    let mut got = keys(&mut s, 10, Some(reach1), vec![]);
    got.sort();
    assert_eq!(got, ["1", "2", "3"]);
    let reach2 = FusionParams { neighbour_reach: 2, ..Default::default() };
    assert!(keys(&mut s, 10, Some(reach2), vec![]).contains(&"4".to_string()));
    // A neighbour the filter excludes neither comes back nor lends.
    let not_answer = vec![Condition { field: "topic".into(), op: FilterOp::Ne, value: json!("answer") }];
    let mut got = keys(&mut s, 10, Some(reach1), not_answer);
    got.sort();
    assert_eq!(got, ["1", "2", "4"], "with turn 3 filtered out, turn 4 is the question's next neighbour");
}

#[test]
fn neighbour_settings_outside_their_ranges_are_refused() {
    let mut s = conversation(Sequence::Namespace);
    for (f, named) in [
        (FusionParams { neighbour_weight: Some(1.5), ..Default::default() }, "fusion.neighbourWeight"),
        (
            FusionParams { neighbour_reach: 0, ..Default::default() },
            "fusion.neighbourReach must be an integer in 1..=4",
        ),
        (FusionParams { neighbour_reach: 5, ..Default::default() }, "fusion.neighbourReach"),
    ] {
        let q = SearchQuery { text: Some("research".into()), fusion: Some(f), ..Default::default() };
        let e = s.search(&q).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(e.message.starts_with(named), "{}", e.message);
    }
    let bad = edgemem_core::StoreOptions { sequence: Some("threads".into()), ..Default::default() };
    assert_eq!(StoreConfig::try_from(bad).unwrap_err().code, ErrorCode::InvalidArgument);
    let ok = edgemem_core::StoreOptions { sequence: Some("namespace".into()), ..Default::default() };
    assert_eq!(StoreConfig::try_from(ok).unwrap().sequence, Sequence::Namespace);
}

#[test]
fn a_neighbour_outranks_a_weaker_match_only_by_what_it_borrows() {
    // Turn 2 holds both words of the query, each one-memory namespace one of them (about half turn 2's BM25):
    // without neighbour scoring they follow turn 2; with weight 0.8 turn 3 borrows 0.8 of turn 2's score and
    // passes them (as does turn 1), with 0.3 they do not.
    let mut s = store(0);
    let turn = |ns: &[&str], key: &str, text: &str| MemoryPut::new(ns, key, json!(text)).text(text);
    let mut puts = vec![
        turn(&["chat", "a"], "1", "hello again"),
        turn(&["chat", "a"], "2", "what did you research for the project?"),
        turn(&["chat", "a"], "3", "adoption agencies, mostly local ones"),
        turn(&["chat", "b1"], "b1", "my research notes"),
        turn(&["chat", "b2"], "b2", "a project plan"),
    ];
    for i in 0..10 {
        puts.push(turn(&["other"], &format!("o{i}"), &format!("filler line {i}")));
    }
    s.put_batch(puts).unwrap();
    let top3 = |s: &mut Store, w: f64| {
        let fusion = FusionParams { neighbour_weight: Some(w), neighbour_reach: 1, ..Default::default() };
        let text = Some("research project".into());
        let q = SearchQuery { text, k: Some(3), fusion: Some(fusion), ..Default::default() };
        s.search(&q).unwrap().into_iter().map(|h| h.key).collect::<Vec<_>>()
    };
    assert_eq!(top3(&mut s, 0.0), ["2", "b1", "b2"]);
    assert_eq!(top3(&mut s, 0.8), ["2", "1", "3"], "both neighbours borrow 0.8, ties by id");
    assert_eq!(top3(&mut s, 0.3), ["2", "b1", "b2"], "a weight below the ratio of the scores keeps the order");
}
