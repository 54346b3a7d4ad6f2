//! Host metadata (`app_meta` / `set_app_meta`): kept across reopen of a page store, apart from the engine's
//! own entries, removable, with names and sizes checked.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{ErrorCode, MemoryPageStore, Storage, Store, StoreConfig, MAX_APP_META_VALUE};
use std::rc::Rc;

fn paged(ps: &Rc<MemoryPageStore>, atomic: bool) -> Store {
    Store::open(StoreConfig { storage: Storage::Pages { store: ps.clone(), atomic }, ..StoreConfig::memory(4) })
        .expect("open paged store")
}

#[test]
fn app_meta_survives_reopen_and_can_be_removed() {
    for atomic in [true, false] {
        let ps = Rc::new(MemoryPageStore::new());
        let mut s = paged(&ps, atomic);
        assert_eq!(s.app_meta("embedder").unwrap(), None);
        s.set_app_meta("embedder", Some(r#"{"id":"a","dims":4}"#)).unwrap();
        s.set_app_meta("embedder", Some(r#"{"id":"b","dims":4}"#)).unwrap();
        s.set_app_meta("reembed.progress", Some("cursor-1")).unwrap();
        let seq = s.seq();
        s.close().unwrap();

        let mut s = paged(&ps, atomic);
        assert_eq!(s.seq(), seq, "metadata writes take no seq");
        assert_eq!(s.app_meta("embedder").unwrap().as_deref(), Some(r#"{"id":"b","dims":4}"#), "atomic={atomic}");
        assert_eq!(s.app_meta("reembed.progress").unwrap().as_deref(), Some("cursor-1"));
        s.set_app_meta("reembed.progress", None).unwrap();
        s.set_app_meta("never-set", None).unwrap();
        s.close().unwrap();

        let s = paged(&ps, atomic);
        assert_eq!(s.app_meta("reembed.progress").unwrap(), None);
        assert_eq!(s.app_meta("embedder").unwrap().as_deref(), Some(r#"{"id":"b","dims":4}"#));
    }
}

#[test]
fn app_meta_never_reads_or_writes_engine_entries() {
    let mut s = store(4);
    // The engine keeps `dims` in the same table; a host entry of that name is another entry.
    assert_eq!(s.app_meta("dims").unwrap(), None);
    s.set_app_meta("dims", Some("not a number")).unwrap();
    assert_eq!(s.stats().unwrap().dims, 4);
    assert_eq!(s.app_meta("dims").unwrap().as_deref(), Some("not a number"));
}

#[test]
fn app_meta_checks_names_and_sizes() {
    let mut s = store(4);
    for bad in ["", "Embedder", "a b", "a:b", "ü", &"x".repeat(65)] {
        assert_eq!(s.app_meta(bad).unwrap_err().code, ErrorCode::InvalidArgument, "{bad:?}");
        assert_eq!(s.set_app_meta(bad, Some("v")).unwrap_err().code, ErrorCode::InvalidArgument, "{bad:?}");
    }
    s.set_app_meta("big", Some(&"v".repeat(MAX_APP_META_VALUE))).unwrap();
    let e = s.set_app_meta("big", Some(&"v".repeat(MAX_APP_META_VALUE + 1))).unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge);
    assert_eq!(s.app_meta("big").unwrap().map(|v| v.len()), Some(MAX_APP_META_VALUE));
}
