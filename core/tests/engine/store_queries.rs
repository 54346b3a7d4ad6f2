//! What a LangGraph store asks beyond plain gets and puts: namespace listing (prefix, suffix, `*`,
//! max depth, limit, offset), filters on the value's fields with every operator, offsets for search
//! and list.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{Condition, ErrorCode, FilterOp, ListQuery, MemoryPut, NamespaceQuery, SearchQuery};
use serde_json::{json, Value};

fn names(s: &edgemem_core::Store, q: NamespaceQuery) -> Vec<String> {
    s.list_namespaces(&q).unwrap().into_iter().map(|n| n.join("/")).collect()
}

fn cond(field: &str, op: FilterOp, value: Value) -> Condition {
    Condition { field: field.into(), op, value }
}

#[test]
fn lists_namespaces_by_prefix_suffix_depth_and_page() {
    let mut s = store(0);
    for n in [
        &["a", "b", "c"][..],
        &["a", "b", "d", "e"],
        &["a", "b", "d", "i"],
        &["a", "b", "f"],
        &["a", "c", "f"],
        &["b", "a", "f"],
        &["users", "123"],
        &["users", "456", "settings"],
    ] {
        s.put(MemoryPut::new(n, "k", json!({"x": 1}))).unwrap();
    }
    let all = || NamespaceQuery::default();
    assert_eq!(
        names(&s, all()),
        ["a/b/c", "a/b/d/e", "a/b/d/i", "a/b/f", "a/c/f", "b/a/f", "users/123", "users/456/settings"]
    );
    assert_eq!(
        names(&s, NamespaceQuery { prefix: vec!["a".into(), "b".into()], ..all() }),
        ["a/b/c", "a/b/d/e", "a/b/d/i", "a/b/f"]
    );
    assert_eq!(names(&s, NamespaceQuery { suffix: vec!["f".into()], ..all() }), ["a/b/f", "a/c/f", "b/a/f"]);
    assert_eq!(
        names(&s, NamespaceQuery { prefix: vec!["a".into(), "*".into(), "f".into()], ..all() }),
        ["a/b/f", "a/c/f"]
    );
    assert_eq!(
        names(&s, NamespaceQuery { suffix: vec!["*".into(), "f".into()], prefix: vec!["a".into()], ..all() }),
        ["a/b/f", "a/c/f"]
    );
    assert_eq!(
        names(&s, NamespaceQuery { max_depth: Some(2), ..all() }),
        ["a/b", "a/c", "b/a", "users/123", "users/456"]
    );
    assert_eq!(
        names(&s, NamespaceQuery { prefix: vec!["a".into()], max_depth: Some(3), ..all() }),
        ["a/b/c", "a/b/d", "a/b/f", "a/c/f"]
    );
    assert_eq!(names(&s, NamespaceQuery { limit: Some(3), offset: 2, ..all() }), ["a/b/d/i", "a/b/f", "a/c/f"]);
    assert!(names(&s, NamespaceQuery { prefix: vec!["zzz".into()], ..all() }).is_empty());

    // Only namespaces that still hold a live memory.
    s.delete(&ns(&["b", "a", "f"]), "k", None).unwrap();
    assert_eq!(names(&s, NamespaceQuery { suffix: vec!["f".into()], ..all() }), ["a/b/f", "a/c/f"]);

    for bad in [
        NamespaceQuery { limit: Some(0), ..all() },
        NamespaceQuery { max_depth: Some(0), ..all() },
        NamespaceQuery { prefix: vec![String::new()], ..all() },
    ] {
        assert_eq!(s.list_namespaces(&bad).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn filters_on_value_fields_with_every_operator() {
    let mut s = store(0);
    for (k, v) in [
        ("1", json!({"color": "red", "score": 4.5, "n": 1})),
        ("2", json!({"color": "blue", "score": 3.0})),
        ("3", json!({"color": "red", "score": 2.0, "n": 3})),
        ("4", json!("just text")),
    ] {
        s.put(MemoryPut::new(&["docs"], k, v).text(&format!("document number {k}"))).unwrap();
    }
    let keys = |s: &mut edgemem_core::Store, value_filter: Vec<Condition>| {
        let page = s
            .list(&ListQuery { prefix: ns(&["docs"]), value_filter: value_filter.clone(), ..Default::default() })
            .unwrap();
        let listed: Vec<String> = page.items.into_iter().map(|m| m.key).collect();
        let q = SearchQuery {
            text: Some("document".into()),
            namespace: ns(&["docs"]),
            k: Some(10),
            value_filter,
            ..Default::default()
        };
        let mut found: Vec<String> = s.search(&q).unwrap().into_iter().map(|h| h.key).collect();
        found.sort();
        assert_eq!(listed, found, "list and search filter alike");
        listed
    };
    assert_eq!(keys(&mut s, vec![cond("color", FilterOp::Eq, json!("red"))]), ["1", "3"]);
    assert_eq!(keys(&mut s, vec![cond("color", FilterOp::Ne, json!("red"))]), ["2", "4"]);
    assert_eq!(keys(&mut s, vec![cond("score", FilterOp::Gt, json!(3.0))]), ["1"]);
    assert_eq!(keys(&mut s, vec![cond("score", FilterOp::Gte, json!(3.0))]), ["1", "2"]);
    assert_eq!(keys(&mut s, vec![cond("score", FilterOp::Lt, json!(3))]), ["3"]);
    assert_eq!(keys(&mut s, vec![cond("score", FilterOp::Lte, json!(3))]), ["2", "3"]);
    assert_eq!(keys(&mut s, vec![cond("n", FilterOp::In, json!([1, 3]))]), ["1", "3"]);
    assert_eq!(keys(&mut s, vec![cond("n", FilterOp::Nin, json!([1]))]), ["2", "3", "4"]);
    assert_eq!(
        keys(&mut s, vec![cond("color", FilterOp::Eq, json!("red")), cond("score", FilterOp::Lt, json!(3))]),
        ["3"]
    );
    let e = s
        .list(&ListQuery { value_filter: vec![cond("n", FilterOp::Nin, json!(1))], ..Default::default() })
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}

#[test]
fn search_and_list_take_an_offset() {
    let mut s = store(0);
    for i in 0..6 {
        s.put(MemoryPut::new(&["n"], &format!("k{i}"), json!({"i": i})).text(&"apple ".repeat(i + 1))).unwrap();
    }
    let q = |offset, k| SearchQuery { text: Some("apple".into()), k: Some(k), offset, ..Default::default() };
    let all: Vec<String> = s.search(&q(0, 6)).unwrap().into_iter().map(|h| h.key).collect();
    let page: Vec<String> = s.search(&q(2, 3)).unwrap().into_iter().map(|h| h.key).collect();
    assert_eq!(page, all[2..5]);
    assert!(s.search(&q(6, 3)).unwrap().is_empty());
    assert_eq!(s.search(&q(999, 2)).unwrap_err().code, ErrorCode::InvalidArgument);

    let listed = |s: &mut edgemem_core::Store, offset, limit| {
        s.list(&ListQuery { prefix: ns(&["n"]), offset, limit: Some(limit), ..Default::default() })
            .unwrap()
            .items
            .into_iter()
            .map(|m| m.key)
            .collect::<Vec<_>>()
    };
    assert_eq!(listed(&mut s, 4, 10), ["k4", "k5"]);
    assert_eq!(listed(&mut s, 1, 2), ["k1", "k2"]);
    let e = s.list(&ListQuery { offset: 1, cursor: Some("00".into()), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}
