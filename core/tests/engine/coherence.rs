//! Valid time and coherence: reads answer with what is valid now (or at `valid_at`, or however valid), AS OF
//! combines with it; `remember` folds duplicates, supersedes updates (closing and linking, never deleting), keeps
//! apart what only looks alike; `assess` + `decided` apply a judge's decision; `consolidate` applies the rules to
//! what is stored; `context` assembles a block within its budget; export / import carry it all.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    AsOf, ConsolidateQuery, ContextQuery, Decision, EventFilter, EventKind, ListQuery, MemoryPut, RememberInput,
    SearchMode, SearchQuery, ValidAt,
};
use serde_json::json;

const ANY: Option<ValidAt> = Some(ValidAt::Any);

fn fact(text: &str) -> RememberInput {
    RememberInput { namespace: ns(&["u"]), text: text.into(), ..RememberInput::default() }
}

fn fact_v(text: &str, v: [f32; 2]) -> RememberInput {
    RememberInput { embedding: Some(v.to_vec()), ..fact(text) }
}

fn keys(s: &mut edgemem_core::Store, valid_at: Option<ValidAt>) -> Vec<String> {
    let q = ListQuery { prefix: ns(&["u"]), valid_at, ..ListQuery::default() };
    s.list(&q).unwrap().items.into_iter().map(|m| m.key).collect()
}

#[test]
fn reads_answer_with_what_is_valid_then() {
    let mut s = store(2);
    let clock = manual_clock(&mut s, 10_000);
    let mut p = MemoryPut::new(&["u"], "old", json!("Ana lives in Porto")).embedding(vec![1.0, 0.0]);
    p.valid_to = Some(20_000);
    s.put(p).unwrap();
    let mut p = MemoryPut::new(&["u"], "new", json!("Ana lives in Lisbon")).embedding(vec![0.9, 0.1]);
    p.valid_from = Some(20_000);
    s.put(p).unwrap();
    s.put(MemoryPut::new(&["u"], "plain", json!("Ana likes tea")).embedding(vec![0.0, 1.0])).unwrap();
    let mut bad = MemoryPut::new(&["u"], "bad", json!(1));
    bad.valid_from = Some(5);
    bad.valid_to = Some(4);
    assert_eq!(s.put(bad).unwrap_err().code, edgemem_core::ErrorCode::InvalidArgument);

    assert_eq!(keys(&mut s, None), ["old", "plain"], "now is 10,000");
    assert_eq!(keys(&mut s, Some(ValidAt::At(25_000))), ["new", "plain"]);
    assert_eq!(keys(&mut s, ANY), ["new", "old", "plain"]);
    assert!(s.get(&ns(&["u"]), "new").unwrap().is_none());
    assert!(s.get_valid(&ns(&["u"]), "new", None, false, ANY).unwrap().is_some());
    assert_eq!(s.get_json_valid(&ns(&["u"]), "new", None, false, None).unwrap(), "null");
    clock.set(30_000);
    assert_eq!(keys(&mut s, None), ["new", "plain"], "now is 30,000");
    let old = s.get_valid(&ns(&["u"]), "old", None, false, ANY).unwrap().unwrap();
    assert_eq!((old.valid_from, old.valid_to), (None, Some(20_000)));

    // Search: every mode leaves out what is not valid at the search's valid time.
    for (mode, text, vector) in [
        (SearchMode::Vector, None, Some(vec![1.0, 0.0])),
        (SearchMode::Lexical, Some("Ana lives".to_string()), None),
        (SearchMode::Hybrid, Some("Ana lives".to_string()), Some(vec![1.0, 0.0])),
    ] {
        let mut q = SearchQuery { mode: Some(mode), text, vector, k: Some(10), ..SearchQuery::default() };
        let hits = |s: &mut edgemem_core::Store, q: &SearchQuery| -> Vec<String> {
            let mut k: Vec<String> = s.search(q).unwrap().into_iter().map(|h| h.key).collect();
            k.sort();
            k
        };
        assert!(!hits(&mut s, &q).contains(&"old".to_string()), "{mode:?}");
        q.valid_at = Some(ValidAt::At(15_000));
        assert!(hits(&mut s, &q).contains(&"old".to_string()) && !hits(&mut s, &q).contains(&"new".to_string()));
        q.valid_at = ANY;
        assert!(hits(&mut s, &q).contains(&"old".to_string()) && hits(&mut s, &q).contains(&"new".to_string()));
        // Within a namespace filter too.
        q.namespace = ns(&["u"]);
        q.valid_at = None;
        assert!(!hits(&mut s, &q).contains(&"old".to_string()), "{mode:?} filtered");
    }
    // AS OF reads the store as it was, valid at that time by default.
    let seq = s.seq();
    s.put(MemoryPut::new(&["u"], "plain", json!("Ana likes coffee"))).unwrap();
    let then = s.get_valid(&ns(&["u"]), "plain", Some(AsOf::Seq(seq)), false, None).unwrap().unwrap();
    assert_eq!(then.value, json!("Ana likes tea"));
    // That seq was committed at 10,000, when "old" was valid.
    assert!(s.get_valid(&ns(&["u"]), "old", Some(AsOf::Seq(seq)), false, None).unwrap().is_some());
    let at = Some(ValidAt::At(25_000));
    assert!(s.get_valid(&ns(&["u"]), "old", Some(AsOf::Seq(seq)), false, at).unwrap().is_none());
    let as_of = |s: &mut edgemem_core::Store, valid_at| {
        let q = ListQuery { prefix: ns(&["u"]), as_of: Some(AsOf::Seq(seq)), valid_at, ..ListQuery::default() };
        s.list(&q).unwrap().items.into_iter().map(|m| m.key).collect::<Vec<_>>()
    };
    assert_eq!(as_of(&mut s, None), ["old", "plain"]);
    assert_eq!(as_of(&mut s, Some(ValidAt::At(25_000))), ["new", "plain"]);
}

#[test]
fn remember_folds_supersedes_and_keeps_apart() {
    let mut s = store(2);
    let clock = manual_clock(&mut s, 1_000);
    let first = s.remember(fact_v("Ana lives in Porto.", [1.0, 0.0])).unwrap();
    assert_eq!(first.decision, Decision::New);
    assert!(first.key.starts_with("m-"), "{}", first.key);

    // The same fact: folded, no new memory.
    clock.set(2_000);
    let again = s.remember(fact_v("ana lives in porto", [0.99, 0.01])).unwrap();
    assert_eq!((again.decision, again.key.as_str()), (Decision::Duplicate, first.key.as_str()));
    assert_eq!(again.target.as_ref().unwrap().version, first.version);
    let m = s.get(&ns(&["u"]), &first.key).unwrap().unwrap();
    assert_eq!((m.seen, m.last_seen, m.value), (Some(2), Some(2_000), json!("Ana lives in Porto.")));
    assert_eq!(keys(&mut s, ANY).len(), 1);
    // A paraphrase in other words is left to a judge: new by the rules alone, and uncertain.
    let para = s.assess(&fact_v("Ana resides in Porto", [0.98, 0.05])).unwrap();
    assert_eq!((para.decision, para.uncertain.len()), (Decision::New, 1), "{}", para.reason);

    // An update: the old memory closed and linked, the new one current, both kept.
    clock.set(3_000);
    let moved = s.remember(fact_v("Ana now lives in Lisbon.", [0.95, 0.3])).unwrap();
    assert_eq!(moved.decision, Decision::Supersede, "{}", moved.reason);
    assert_eq!(moved.target.as_ref().unwrap().key, first.key);
    let old = s.get_valid(&ns(&["u"]), &first.key, None, false, ANY).unwrap().unwrap();
    assert_eq!((old.valid_to, old.replaced_by.as_deref()), (Some(3_000), Some(moved.key.as_str())));
    let new = s.get(&ns(&["u"]), &moved.key).unwrap().unwrap();
    assert_eq!((new.valid_from, new.replaces.as_deref()), (Some(3_000), Some(first.key.as_str())));
    assert!(s.get(&ns(&["u"]), &first.key).unwrap().is_none(), "not valid now");
    assert_eq!(
        s.get_valid(&ns(&["u"]), &first.key, None, false, Some(ValidAt::At(2_500))).unwrap().unwrap().value,
        json!("Ana lives in Porto.")
    );
    let supersede = s
        .changes(0, &EventFilter { kinds: vec![EventKind::Supersede], ..EventFilter::default() }, 1000)
        .unwrap()
        .remove(0);
    assert_eq!(
        (supersede.key.as_deref(), supersede.payload),
        (Some(first.key.as_str()), Some(json!({ "by": moved.key })))
    );
    // A search for where Ana lives answers with the current fact only.
    let hits: Vec<String> = s
        .search(&SearchQuery { text: Some("where does Ana live".into()), ..SearchQuery::default() })
        .unwrap()
        .into_iter()
        .map(|h| h.key)
        .collect();
    assert!(hits.contains(&moved.key) && !hits.contains(&first.key), "{hits:?}");

    // Facts that only look alike stay apart, however close their vectors.
    for distinct in [
        "Ana's sister lives in Lisbon.",
        "Ana does not live in Lisbon.",
        "Bruno lives in Lisbon.",
        "Ana lived in Lisbon in 2019.",
    ] {
        let r = s.remember(fact_v(distinct, [0.95, 0.3])).unwrap();
        assert_eq!(r.decision, Decision::New, "{distinct}: {}", r.reason);
    }
}

#[test]
fn an_explicit_key_names_the_attribute() {
    let mut s = store(0);
    let mut f = fact("Prefers dark mode");
    f.key = Some("theme".into());
    assert_eq!(s.remember(f.clone()).unwrap().decision, Decision::New);
    assert_eq!(s.remember(f.clone()).unwrap().decision, Decision::Duplicate);
    f.text = "Prefers light mode".into();
    let r = s.remember(f).unwrap();
    assert_eq!((r.decision, r.key.as_str(), r.version), (Decision::Supersede, "theme", 3));
    assert_eq!(s.history(&ns(&["u"]), "theme").unwrap().len(), 3);
    // A fact given its own key that supersedes another memory is written at that key.
    let mut t = store(2);
    let porto = t.remember(fact_v("Ana lives in Porto", [1.0, 0.0])).unwrap();
    let mut moved = fact_v("Ana moved to Lisbon", [0.95, 0.3]);
    moved.key = Some("city".into());
    let r = t.remember(moved).unwrap();
    assert_eq!((r.decision, r.key.as_str()), (Decision::Supersede, "city"));
    assert_eq!(r.target.unwrap().key, porto.key);
    assert!(t.get(&ns(&["u"]), "city").unwrap().is_some());
}

#[test]
fn a_judge_decides_what_the_rules_cannot() {
    let mut s = store(2);
    let mut f = fact("Meeting with Bruno on Monday");
    f.embedding = Some(vec![1.0, 0.0]);
    s.remember(f.clone()).unwrap();
    let mut g = fact("Meeting with Bruno on Friday");
    g.embedding = Some(vec![0.99, 0.05]);
    let a = s.assess(&g).unwrap();
    assert_eq!(a.decision, Decision::New);
    assert_eq!(a.uncertain.len(), 1, "{a:?}");
    // The judge says it is the same meeting, moved.
    g.decided = Some(Decision::Supersede);
    g.target = Some(a.uncertain[0].key.clone());
    g.target_version = Some(a.uncertain[0].version);
    g.reason = Some("judge: rescheduled".into());
    let r = s.remember(g.clone()).unwrap();
    assert!(r.judged);
    assert_eq!(r.decision, Decision::Supersede);
    // A decision about a memory that changed since is refused: decide again.
    let e = s.remember(g).unwrap_err();
    assert_eq!(e.code, edgemem_core::ErrorCode::Conflict);
}

#[test]
fn consolidate_applies_the_rules_to_what_is_stored() {
    let mut s = store(2);
    let clock = manual_clock(&mut s, 1_000);
    let facts = [
        ("Ana lives in Porto", [1.0, 0.0]),
        ("Bruno likes jazz", [0.0, 1.0]),
        ("ana lives in porto!", [1.0, 0.02]),
        ("Ana moved to Lisbon", [0.95, 0.3]),
    ];
    for (i, (t, v)) in facts.iter().enumerate() {
        clock.set(1_000 + i as i64 * 1_000);
        s.put(MemoryPut::new(&["u"], &format!("k{i}"), json!(t)).embedding(v.to_vec())).unwrap();
    }
    let mut cursor = None;
    let mut decisions = Vec::new();
    loop {
        let r =
            s.consolidate(&ConsolidateQuery { namespace: ns(&["u"]), cursor, limit: Some(2), settings: None }).unwrap();
        decisions.extend(r.decisions);
        match r.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    let got: Vec<(Decision, String)> = decisions.iter().map(|d| (d.decision, d.target.clone().unwrap().key)).collect();
    assert_eq!(got, [(Decision::Duplicate, "k0".to_string()), (Decision::Supersede, "k0".to_string())]);
    assert_eq!(keys(&mut s, None), ["k1", "k3"]);
    assert_eq!(keys(&mut s, ANY), ["k0", "k1", "k2", "k3"], "nothing deleted");
    let k0 = s.get_valid(&ns(&["u"]), "k0", None, false, ANY).unwrap().unwrap();
    assert_eq!((k0.seen, k0.replaced_by.as_deref()), (Some(2), Some("k3")));
    // A second run finds nothing more to do.
    let again =
        s.consolidate(&ConsolidateQuery { namespace: ns(&["u"]), limit: Some(100), ..Default::default() }).unwrap();
    assert!(again.decisions.is_empty());
}

#[test]
fn context_fits_its_budget() {
    let mut s = store(2);
    let clock = manual_clock(&mut s, 1_795_000_000_000);
    let mut pin = MemoryPut::new(&["u"], "name", json!("The user's name is Ana"));
    pin.pinned = true;
    s.put(pin).unwrap();
    s.remember(fact_v("Ana lives in Porto", [1.0, 0.0])).unwrap();
    clock.set(1_795_100_000_000);
    s.remember(fact_v("Ana moved to Lisbon", [0.95, 0.3])).unwrap();
    for i in 0..50 {
        put_text(&mut s, &["u"], &format!("n{i}"), &format!("Ana read book number {i} about sailing"));
    }
    let q =
        ContextQuery { query: Some("where does Ana live".into()), namespaces: vec![ns(&["u"])], ..Default::default() };
    let c = s.context(&q).unwrap();
    assert!(c.text.starts_with("## Pinned\n- The user's name is Ana\n"), "{}", c.text);
    assert!(c.text.contains("- Ana moved to Lisbon (since 2026-11-19)"), "{}", c.text);
    assert!(!c.text.contains("- Ana lives in Porto\n"), "{}", c.text);
    assert!(c.text.contains("## Recent changes"), "{}", c.text);
    assert!(c.text.contains("- Ana moved to Lisbon (since 2026-11-19) (was: Ana lives in Porto)\n"), "{}", c.text);
    assert!(c.tokens <= 1000);
    let small = s.context(&ContextQuery { budget: Some(30), ..q.clone() }).unwrap();
    assert!(small.tokens <= 30 && small.text.len() <= 120, "{}", small.text);
    assert_eq!(
        s.context(&ContextQuery { budget: Some(0), ..q }).unwrap_err().code,
        edgemem_core::ErrorCode::InvalidArgument
    );
}

#[test]
fn valid_time_and_links_survive_export_and_import() {
    let mut s = store(2);
    s.remember(fact_v("Ana lives in Porto", [1.0, 0.0])).unwrap();
    s.remember(fact_v("Ana lives in Porto", [1.0, 0.0])).unwrap();
    s.remember(fact_v("Ana moved to Lisbon", [0.95, 0.3])).unwrap();
    let all = |s: &mut edgemem_core::Store| {
        let q = ListQuery { prefix: ns(&["u"]), valid_at: ANY, ..ListQuery::default() };
        s.list(&q).unwrap().items
    };
    let before = all(&mut s);
    let mut t = store(2);
    import_all(&mut t, &export_chunks(&mut s, 1 << 20)).unwrap();
    assert_eq!(all(&mut t), before);
    assert!(before.iter().any(|m| m.valid_to.is_some() && m.seen == Some(2) && m.replaced_by.is_some()));
}
