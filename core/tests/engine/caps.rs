//! Caps: LRU eviction of unpinned memories, pinned never evicted, QUOTA_EXCEEDED only when
//! pinned data alone would not fit, usage never above the cap (randomized check).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{Caps, ErrorCode, EventFilter, EventKind, MemoryPut, StoreConfig};
use serde_json::json;

fn capped(max_bytes: u64, max_memories: u64) -> edgemem_core::Store {
    store_with(StoreConfig { caps: Caps { max_bytes, max_memories }, ..StoreConfig::memory(0) })
}

#[test]
fn lru_evicts_least_recently_used_unpinned() {
    let mut s = capped(0, 3);
    put_text(&mut s, &["a"], "1", "one");
    put_text(&mut s, &["a"], "2", "two");
    put_text(&mut s, &["a"], "3", "three");
    // Reading 1 makes 2 the least recently used.
    assert!(value_of(&mut s, &["a"], "1").is_some());
    let ack = s.put(MemoryPut::new(&["a"], "4", json!("four"))).unwrap();
    assert_eq!(ack.evicted, vec![(ns(&["a"]), "2".to_string())]);
    assert!(value_of(&mut s, &["a"], "2").is_none());
    let ev = s.changes(0, &EventFilter { kinds: vec![EventKind::Evict], ..Default::default() }, 10).unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].key.as_deref(), Some("2"));
    // Evicted versions stay in history.
    assert_eq!(s.history(&ns(&["a"]), "2").unwrap().len(), 1);
}

#[test]
fn pinned_survive_and_quota_exceeded_only_when_pins_fill_the_cap() {
    let mut s = capped(0, 2);
    s.put(MemoryPut::new(&["a"], "p1", json!(1)).pinned(true)).unwrap();
    put_text(&mut s, &["a"], "u", "x");
    s.put(MemoryPut::new(&["a"], "p2", json!(2)).pinned(true)).unwrap(); // evicts u
    assert!(value_of(&mut s, &["a"], "u").is_none());
    let e = s.put(MemoryPut::new(&["a"], "x", json!(3))).unwrap_err();
    assert_eq!(e.code, ErrorCode::QuotaExceeded);
    // Overwriting a pinned key needs no room.
    s.put(MemoryPut::new(&["a"], "p1", json!(11)).pinned(true)).unwrap();
    assert_eq!(value_of(&mut s, &["a"], "p1"), Some(json!(11)));
    assert!(value_of(&mut s, &["a"], "p2").is_some());
}

#[test]
fn expired_go_before_live_ones() {
    let mut s = capped(0, 2);
    let clock = manual_clock(&mut s, 1_000);
    s.put(MemoryPut::new(&["a"], "old", json!(1)).ttl_ms(10)).unwrap();
    put_text(&mut s, &["a"], "live", "x");
    clock.set(2_000);
    let ack = s.put(MemoryPut::new(&["a"], "new", json!(2))).unwrap();
    assert!(ack.evicted.is_empty(), "an expired memory made room, nothing live was evicted");
    assert!(value_of(&mut s, &["a"], "live").is_some());
}

/// Random puts (some pinned, random sizes), deletes and reads under a byte cap: usage never
/// exceeds the cap, pinned memories are never evicted, QUOTA_EXCEEDED only when justified.
#[test]
fn usage_never_exceeds_cap_randomized() {
    for seed in 0..4u64 {
        let cap = 20_000;
        let mut s = capped(cap, 0);
        let mut rng = Rng::new(100 + seed);
        let mut pinned: std::collections::BTreeSet<String> = Default::default();
        for step in 0..400 {
            let key = format!("k{}", rng.below(80));
            match rng.below(10) {
                0..=6 => {
                    let pin = rng.below(12) == 0;
                    let len = 50 + rng.below(900) as usize;
                    let r = s.put(MemoryPut::new(&["c"], &key, json!("x".repeat(len))).pinned(pin));
                    match r {
                        Ok(ack) => {
                            for (_, k) in &ack.evicted {
                                assert!(!pinned.contains(k), "seed {seed} step {step}: pinned {k} evicted");
                            }
                            if pin {
                                pinned.insert(key.clone());
                            } else {
                                pinned.remove(&key);
                            }
                        }
                        Err(e) => {
                            assert_eq!(e.code, ErrorCode::QuotaExceeded);
                            let st = s.stats().unwrap();
                            let own = s.get(&ns(&["c"]), &key).unwrap().filter(|m| m.pinned).map_or(0, |m| m.size);
                            assert!(
                                st.pinned_bytes - own + 2 * len as u64 + 100 > cap,
                                "seed {seed} step {step}: refused without cause"
                            );
                        }
                    }
                }
                7 => {
                    if s.delete(&ns(&["c"]), &key, None).is_ok() {
                        pinned.remove(&key);
                    }
                }
                _ => {
                    let _ = s.get(&ns(&["c"]), &key).unwrap();
                }
            }
            let st = s.stats().unwrap();
            assert!(st.bytes <= cap, "seed {seed} step {step}: {} > {cap}", st.bytes);
            for k in &pinned {
                assert!(s.get(&ns(&["c"]), k).unwrap().is_some(), "pinned {k} vanished");
            }
        }
    }
}

#[test]
fn an_expired_pinned_memory_does_not_block_writes() {
    let mut s = capped(0, 1);
    let clock = manual_clock(&mut s, 1_000);
    s.put(MemoryPut::new(&["a"], "pin", json!(1)).pinned(true).ttl_ms(10)).unwrap();
    clock.set(5_000);
    assert!(value_of(&mut s, &["a"], "pin").is_none());
    s.put(MemoryPut::new(&["a"], "new", json!(2))).unwrap();
    assert_eq!(s.stats().unwrap().memories, 1);
}
