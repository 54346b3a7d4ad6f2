//! Bad input gets a coded error, never a panic or a trap.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{ErrorCode, MemoryPut, SearchQuery, StoreConfig};
use serde_json::json;

#[test]
fn invalid_input_codes() {
    let mut s = store(4);
    let code = |r: Result<edgemem_core::WriteAck, edgemem_core::Error>| r.unwrap_err().code;
    assert_eq!(code(s.put(MemoryPut::new(&[], "k", json!(1)))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a"], "", json!(1)))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a\u{1f}b"], "k", json!(1)))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a"; 17], "k", json!(1)))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a"], &"k".repeat(600), json!(1)))), ErrorCode::InvalidArgument);
    assert_eq!(
        code(s.put(MemoryPut::new(&["a"], "k", json!(1)).embedding(vec![1.0; 3]))),
        ErrorCode::DimensionMismatch
    );
    assert_eq!(
        code(s.put(MemoryPut::new(&["a"], "k", json!(1)).embedding(vec![f32::NAN; 4]))),
        ErrorCode::InvalidArgument
    );
    assert_eq!(code(s.put(MemoryPut::new(&["a"], "k", json!(1)).embedding(vec![0.0; 4]))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a"], "k", json!(1)).ttl_ms(0))), ErrorCode::InvalidArgument);
    assert_eq!(code(s.put(MemoryPut::new(&["a"], "k", json!("x".repeat(2 << 20))))), ErrorCode::PayloadTooLarge);
    let big: Vec<MemoryPut> = (0..1001).map(|i| MemoryPut::new(&["a"], &i.to_string(), json!(1))).collect();
    assert_eq!(s.put_batch(big).unwrap_err().code, ErrorCode::PayloadTooLarge);
    assert_eq!(s.delete(&ns(&["a"]), "missing", None).unwrap_err().code, ErrorCode::NotFound);
    let q = |k: Option<usize>, v: Option<Vec<f32>>, t: Option<&str>| SearchQuery {
        k,
        vector: v,
        text: t.map(String::from),
        ..Default::default()
    };
    assert_eq!(s.search(&q(Some(0), None, Some("x"))).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(s.search(&q(Some(5000), None, Some("x"))).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(s.search(&q(None, None, None)).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(s.search(&q(None, Some(vec![1.0; 5]), None)).unwrap_err().code, ErrorCode::DimensionMismatch);
    assert_eq!(s.notify("", json!(1)).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(s.notify("c", json!("x".repeat(70_000))).unwrap_err().code, ErrorCode::PayloadTooLarge);
    let mut no_vec = store(0);
    let e = no_vec.put(MemoryPut::new(&["a"], "k", json!(1)).embedding(vec![1.0])).unwrap_err();
    assert_eq!(e.code, ErrorCode::DimensionMismatch);
    assert_eq!(e.code_str(), "DIMENSION_MISMATCH");
    assert!(format!("{e}").starts_with("DIMENSION_MISMATCH: "));
    let e: Box<dyn std::error::Error> = Box::new(e);
    assert!(!e.to_string().is_empty());
    assert!(edgemem_core::Store::open(StoreConfig { dims: 9999, ..StoreConfig::memory(0) }).is_err());
}

#[test]
fn settings_that_would_misbehave_are_refused() {
    use edgemem_core::{Metric, ScalarKind};
    let e = edgemem_core::Store::open(StoreConfig {
        metric: Metric::InnerProduct,
        scalar: ScalarKind::I8,
        ..StoreConfig::memory(4)
    })
    .err()
    .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e =
        edgemem_core::Store::open(StoreConfig { metric: Metric::L2, scalar: ScalarKind::I4, ..StoreConfig::memory(4) })
            .err()
            .unwrap();
    assert_eq!((e.code, e.message.contains("scalar i8 and i4 need metric cosine")), (ErrorCode::InvalidArgument, true));
    assert!(edgemem_core::Store::open(StoreConfig {
        metric: Metric::Cosine,
        scalar: ScalarKind::I4,
        ..StoreConfig::memory(5)
    })
    .is_ok());
    assert!(edgemem_core::Store::open(StoreConfig {
        metric: Metric::Cosine,
        scalar: ScalarKind::I8,
        ..StoreConfig::memory(4)
    })
    .is_ok());
    // One page store, one open Store.
    let ps = std::rc::Rc::new(edgemem_core::MemoryPageStore::new());
    let cfg = StoreConfig {
        storage: edgemem_core::Storage::Pages { store: ps.clone(), atomic: true },
        ..StoreConfig::memory(0)
    };
    let first = edgemem_core::Store::open(cfg.clone()).unwrap();
    assert_eq!(edgemem_core::Store::open(cfg.clone()).err().unwrap().code, ErrorCode::Conflict);
    drop(first);
    assert!(edgemem_core::Store::open(cfg).is_ok());
}
