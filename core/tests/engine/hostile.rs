//! Hostile input, natively and on wasm: metadata field names a JSON path cannot quote, vectors that are
//! finite but degenerate, and random operation sequences over such values. The properties: every call
//! succeeds or fails with a caller's code (never INTERNAL), every score is finite, and any field name a
//! memory can hold is filterable.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::common::*;
use edgemem_core::{
    Condition, ErrorCode, FilterOp, MemoryPut, Metric, ScalarKind, SearchMode, SearchQuery, Store, StoreConfig,
};
use serde_json::{json, Value};

const DIMS: usize = 8;

/// Field names that need quoting, escaping or decoding somewhere between JSON, SQL and a JSON path.
const FIELDS: &[&str] = &[
    "plain", "a\\b", "\\", "\\\\", "quote\"d", "\"", "a.b", "$", "$.x", "[0]", "a]b", "sp ace", "tab\tbed", "nl\nx",
    "\u{1}", "é", "😀", "'single'", "a\"b\\c", "*", "#", "..",
];

#[test]
fn any_stored_field_name_is_filterable() {
    let mut s = store(0);
    for (i, f) in FIELDS.iter().enumerate() {
        let mut m = serde_json::Map::new();
        m.insert(f.to_string(), json!(i));
        m.insert("other".into(), json!("x"));
        s.put(MemoryPut::new(&["f"], &format!("k{i}"), json!(i)).text("common").metadata(Value::Object(m))).unwrap();
    }
    for (i, f) in FIELDS.iter().enumerate() {
        for (op, value, want) in [
            (FilterOp::Eq, json!(i), 1),
            (FilterOp::Gte, json!(0), 1),
            (FilterOp::In, json!([i, 99]), 1),
            (FilterOp::Eq, json!(-1), 0),
        ] {
            let q = SearchQuery {
                mode: Some(SearchMode::Lexical),
                text: Some("common".into()),
                k: Some(100),
                filter: vec![Condition { field: f.to_string(), op, value: value.clone() }],
                ..Default::default()
            };
            let hits = s.search(&q).unwrap_or_else(|e| panic!("field {f:?}: {e}"));
            assert_eq!(hits.len(), want, "field {f:?} {op:?} {value}");
            if want == 1 {
                assert_eq!(hits[0].key, format!("k{i}"));
            }
        }
    }
    // Too long to filter on: a coded 400, not a broken query.
    let long = "x".repeat(200);
    let q =
        SearchQuery { text: Some("common".into()), filter: vec![Condition::eq(&long, json!(1))], ..Default::default() };
    assert_eq!(s.search(&q).unwrap_err().code, ErrorCode::InvalidArgument);
}

fn vec_with(first: f32, rest: f32) -> Vec<f32> {
    let mut v = vec![rest; DIMS];
    v[0] = first;
    v
}

#[test]
fn degenerate_vectors_are_refused_and_scores_stay_finite() {
    for (metric, scalar) in [
        (Metric::Cosine, ScalarKind::F32),
        (Metric::InnerProduct, ScalarKind::F32),
        (Metric::L2, ScalarKind::F32),
        (Metric::Cosine, ScalarKind::F16),
        (Metric::Cosine, ScalarKind::I8),
        (Metric::Cosine, ScalarKind::I4),
    ] {
        let mut s = store_with(StoreConfig { metric, scalar, ..StoreConfig::memory(DIMS) });
        let refused = [
            vec_with(3e38, 0.0),
            vec_with(3e38, 3e38),
            vec_with(-3.4e38, 1.0),
            vec_with(2e18, 2e18),
            vec![f32::MAX; DIMS],
        ];
        for v in refused {
            let e = s.put(MemoryPut::new(&["v"], "big", json!(1)).embedding(v.clone())).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{metric:?}/{scalar:?} {v:?}");
            let q = SearchQuery { vector: Some(v), ..Default::default() };
            assert_eq!(s.search(&q).unwrap_err().code, ErrorCode::InvalidArgument);
        }
        if metric == Metric::Cosine {
            for v in [vec_with(1e-30, 0.0), vec![1e-20; DIMS], vec_with(f32::MIN_POSITIVE, 0.0)] {
                let e = s.put(MemoryPut::new(&["v"], "tiny", json!(1)).embedding(v.clone())).unwrap_err();
                assert_eq!(e.code, ErrorCode::InvalidArgument, "{metric:?} {v:?}");
            }
        }
        if scalar == ScalarKind::F16 {
            assert_eq!(
                s.put(MemoryPut::new(&["v"], "f16", json!(1)).embedding(vec_with(70000.0, 1.0))).unwrap_err().code,
                ErrorCode::InvalidArgument
            );
        }
        // What is accepted scores finitely against anything else accepted, extremes included.
        let accepted =
            [vec_with(1e17, 1e17), vec_with(-1e17, 3.0), vec_with(1e-7, 1e-7), vec_with(1.0, 0.0), vec_with(0.5, -0.5)];
        let mut n = 0;
        for (i, v) in accepted.iter().enumerate() {
            let f16_ok = scalar != ScalarKind::F16 || v.iter().all(|x| x.abs() <= 65504.0);
            let r = s.put(MemoryPut::new(&["v"], &format!("ok{i}"), json!(i)).text("word").embedding(v.clone()));
            if f16_ok {
                r.unwrap_or_else(|e| panic!("{metric:?}/{scalar:?} {v:?}: {e}"));
                n += 1;
            }
        }
        s.maintain().unwrap();
        for v in accepted.iter().filter(|v| scalar != ScalarKind::F16 || v.iter().all(|x| x.abs() <= 65504.0)) {
            for mode in [SearchMode::Vector, SearchMode::Hybrid] {
                let q = SearchQuery {
                    mode: Some(mode),
                    vector: Some(v.clone()),
                    text: Some("word".into()),
                    k: Some(10),
                    ..Default::default()
                };
                let hits = s.search(&q).unwrap();
                assert_eq!(hits.len(), n);
                for h in hits {
                    assert!(
                        h.score.is_finite() && h.vector_score.is_none_or(f64::is_finite),
                        "{metric:?}/{scalar:?} {v:?}: {h:?}"
                    );
                }
            }
        }
    }
}

/// A hostile value of each kind the API takes.
struct Hostile(Rng);

impl Hostile {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.0.below(from.len() as u64) as usize]
    }
    fn text(&mut self) -> String {
        let base = self.pick(&[
            "",
            "a",
            "\\",
            "\"",
            "\u{0}",
            "\u{1f}",
            "é😀",
            " ",
            "..",
            ".",
            "%2E",
            "a/b",
            "__proto__",
            "constructor",
            "\u{fffd}",
        ]);
        base.repeat(1 + self.0.below(3) as usize)
    }
    fn number(&mut self) -> Value {
        match self.0.below(6) {
            0 => json!(i64::MAX),
            1 => json!(i64::MIN),
            2 => json!(1e308),
            3 => json!(-0.0),
            4 => json!(u64::MAX),
            _ => json!(self.0.below(10)),
        }
    }
    fn json(&mut self, depth: usize) -> Value {
        match self.0.below(if depth > 3 { 3 } else { 5 }) {
            0 => Value::String(self.text()),
            1 => self.number(),
            2 => Value::Null,
            3 => Value::Array((0..self.0.below(3)).map(|_| self.json(depth + 1)).collect()),
            _ => Value::Object((0..self.0.below(3)).map(|_| (self.text(), self.json(depth + 1))).collect()),
        }
    }
    fn vector(&mut self) -> Vec<f32> {
        let scale = [1.0f32, 1e-30, 1e-7, 1e17, 1e19, 3e38, 0.0][self.0.below(7) as usize];
        let dims = if self.0.below(10) == 0 { DIMS + 1 } else { DIMS };
        (0..dims).map(|_| self.0.f32() * scale).collect()
    }
}

fn coded(r: edgemem_core::Result<impl Sized>, what: &str) {
    if let Err(e) = r {
        assert_ne!(e.code, ErrorCode::Internal, "{what}: {e}");
    }
}

#[test]
fn random_operations_with_hostile_values_never_fail_internally() {
    for seed in 0..4 {
        let mut h = Hostile(Rng::new(100 + seed));
        let mut s: Store = store(DIMS);
        for step in 0..300 {
            let what = format!("seed {seed} step {step}");
            let namespace: Vec<String> = (0..1 + h.0.below(3)).map(|_| h.text()).collect();
            let key = h.text();
            match h.0.below(7) {
                0 | 1 => {
                    let mut put = MemoryPut {
                        namespace: namespace.clone(),
                        key: key.clone(),
                        value: h.json(0),
                        ..Default::default()
                    };
                    if h.0.below(2) == 0 {
                        put.embedding = Some(h.vector());
                    }
                    if let Value::Object(m) = h.json(3) {
                        put.metadata = Some(m);
                    }
                    if h.0.below(3) == 0 {
                        put.text = Some(h.text());
                    }
                    coded(s.put(put), &what);
                }
                2 => coded(s.delete(&namespace, &key, None), &what),
                3 => {
                    let field = h.text();
                    let op = [FilterOp::Eq, FilterOp::Ne, FilterOp::Gt, FilterOp::In][h.0.below(4) as usize];
                    let value = if op == FilterOp::In { json!([h.number()]) } else { h.number() };
                    let q = SearchQuery {
                        text: Some(h.text()),
                        filter: vec![Condition { field, op, value }],
                        ..Default::default()
                    };
                    coded(s.search(&q), &what);
                }
                4 | 5 => {
                    let q = SearchQuery {
                        vector: (h.0.below(3) > 0).then(|| h.vector()),
                        text: Some(h.text()),
                        filter: if h.0.below(2) == 0 { vec![Condition::eq(&h.text(), h.number())] } else { vec![] },
                        ..Default::default()
                    };
                    match s.search(&q) {
                        Ok(hits) => {
                            for hit in hits {
                                assert!(hit.score.is_finite(), "{what}: {hit:?}");
                            }
                        }
                        Err(e) => assert_ne!(e.code, ErrorCode::Internal, "{what}: {e}"),
                    }
                }
                _ => coded(s.notify(&h.text(), h.json(0)), &what),
            }
        }
        // What was stored exports and imports back unchanged.
        let doc = s.export().unwrap();
        let mut b = store(DIMS);
        b.import(&doc).unwrap();
        assert_eq!(b.export().unwrap(), doc, "seed {seed}");
    }
}
