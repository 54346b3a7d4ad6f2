//! Bad weight files are clear errors, never a crash: wrong magic, truncation anywhere, corrupted counts.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

mod support;
use edgemem_e5::{E5Error, E5};

fn rejected(bytes: Vec<u8>) -> String {
    match E5::from_bytes(bytes) {
        Err(E5Error::InvalidWeights(m)) => m,
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("accepted bad weights"),
    }
}

#[test]
fn bad_images_are_invalid_weights() {
    let good = support::read(&support::model_path());
    assert!(rejected(Vec::new()).contains("truncated"));
    assert!(rejected(b"GGUF and more bytes".to_vec()).contains("magic"));
    // Truncated in the header, the tokenizer, the tensor directory and inside the tensors.
    for cut in [10, 100, 5_000, 3_000_000, 4_638_000, good.len() / 2, good.len() - 1] {
        rejected(good[..cut].to_vec());
    }
    // An absurd piece count.
    let mut bad = good[..200].to_vec();
    bad[44..48].copy_from_slice(&i32::MAX.to_le_bytes());
    rejected(bad);
    let err = E5::from_bytes(b"E5S1".to_vec()).err().unwrap();
    assert!(err.to_string().starts_with("invalid e5 weights"), "{err}");
}

#[test]
fn the_pruned_variant_loads_too() {
    let path = support::model_path().replace("e5-small-q4.bin", "e5-small-enpt-q4.bin");
    let m = E5::from_bytes(support::read(&path)).expect("load enpt");
    assert_eq!(m.dims(), 384);
    let v = m.embed_query(&["where did we go hiking?"]).unwrap();
    assert!((support::norm(&v) - 1.0).abs() < 1e-4);
}
