//! The change feed: events for every change, notify, resumable `changes(after)`, in-process
//! subscriptions with filters, RESUME_GAP outside the retained window.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{ErrorCode, Event, EventFilter, EventKind, MemoryPut, Retention, StoreConfig};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;

#[test]
fn every_change_is_an_event_in_seq_order() {
    let mut s = store(0);
    put_text(&mut s, &["a"], "k", "v");
    s.delete(&ns(&["a"]), "k", None).unwrap();
    s.notify("chan", json!({"hello": 1})).unwrap();
    s.put_checkpoint(checkpoint("t1", "c1", json!({}))).unwrap();
    let ev = s.changes(0, &EventFilter::default(), 100).unwrap();
    assert_eq!(ev.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!(
        ev.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![EventKind::Put, EventKind::Delete, EventKind::Notify, EventKind::Checkpoint]
    );
    assert_eq!(ev[0].namespace, Some(ns(&["a"])));
    assert_eq!(ev[1].version, Some(1));
    assert_eq!(ev[2].payload, Some(json!({"hello": 1})));
    assert_eq!(ev[3].channel.as_deref(), Some("t1"));
    // Resume after seq 2.
    assert_eq!(s.changes(2, &EventFilter::default(), 100).unwrap().len(), 2);
    assert_eq!(s.changes(4, &EventFilter::default(), 100).unwrap().len(), 0);
}

#[test]
fn subscribe_with_filters_and_unsubscribe() {
    let mut s = store(0);
    let got: Rc<RefCell<Vec<Event>>> = Rc::default();
    let g = got.clone();
    let id = s.subscribe(
        EventFilter {
            kinds: vec![EventKind::Put, EventKind::Notify],
            namespaces: vec![ns(&["user", "1"])],
            channels: vec![],
        },
        move |e| g.borrow_mut().push(e.clone()),
    );
    let chan: Rc<RefCell<Vec<u64>>> = Rc::default();
    let c = chan.clone();
    s.subscribe(
        EventFilter { kinds: vec![EventKind::Notify], channels: vec!["alerts".into()], ..Default::default() },
        move |e| c.borrow_mut().push(e.seq),
    );
    put_text(&mut s, &["user", "1", "prefs"], "a", "x"); // 1: matches
    put_text(&mut s, &["user", "2"], "b", "x"); // 2: other namespace
    s.delete(&ns(&["user", "1", "prefs"]), "a", None).unwrap(); // 3: delete not wanted
    s.notify("alerts", json!(1)).unwrap(); // 4: namespaces only filter memory events → sub 1 gets it
    s.notify("other", json!(2)).unwrap(); // 5: sub 1 has no channel list → gets it
    assert_eq!(got.borrow().iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 4, 5]);
    assert_eq!(*chan.borrow(), vec![4]);
    assert!(s.unsubscribe(id));
    assert!(!s.unsubscribe(id));
    put_text(&mut s, &["user", "1"], "c", "x");
    assert_eq!(got.borrow().len(), 3, "nothing after unsubscribe");
    // A failed write delivers nothing.
    let before = chan.borrow().len();
    let _ = s.put(MemoryPut::new(&["user", "1"], "c", json!(1)).if_version(99));
    assert_eq!(chan.borrow().len(), before);
}

#[test]
fn resume_gap_outside_the_window() {
    let mut s = store_with(StoreConfig {
        retention: Retention { events_max: 10, ..Default::default() },
        ..StoreConfig::memory(0)
    });
    for i in 0..30 {
        s.notify("c", json!(i)).unwrap();
    }
    s.sweep().unwrap();
    let e = s.changes(5, &Default::default(), 100).unwrap_err();
    assert_eq!(e.code, ErrorCode::ResumeGap);
    assert_eq!(e.oldest_seq, Some(21));
    let ok = s.changes(20, &Default::default(), 100).unwrap();
    assert_eq!(ok.first().map(|e| e.seq), Some(21));
    assert_eq!(ok.len(), 10);
    assert_eq!(s.oldest_event_seq().unwrap(), Some(21));
}

#[test]
fn changes_filter_fills_the_limit() {
    let mut s = store(0);
    for i in 0..1200 {
        if i % 100 == 0 {
            s.notify("rare", json!(i)).unwrap();
        } else {
            s.notify("common", json!(i)).unwrap();
        }
    }
    let f = EventFilter { channels: vec!["rare".into()], kinds: vec![EventKind::Notify], ..Default::default() };
    let ev = s.changes(0, &f, 5).unwrap();
    assert_eq!(ev.len(), 5);
    assert!(ev.iter().all(|e| e.channel.as_deref() == Some("rare")));
}

#[test]
fn namespace_and_channel_filters_apply_to_their_own_kinds() {
    let mut s = store(0);
    let f = EventFilter { kinds: vec![], namespaces: vec![ns(&["a"])], channels: vec!["chat".into()] };
    put_text(&mut s, &["a", "x"], "k", "v"); // 1: memory event under a → yes
    put_text(&mut s, &["b"], "k", "v"); // 2: memory event elsewhere → no
    s.notify("chat", json!(1)).unwrap(); // 3: notify on chat → yes
    s.notify("other", json!(1)).unwrap(); // 4: other channel → no
    let seqs: Vec<u64> = s.changes(0, &f, 100).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, vec![1, 3]);
}
