//! Texts of every shape give finite, normalised vectors: empty, very long (several model windows),
//! non-Latin scripts, emoji, NUL characters; batching does not change a vector.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

mod support;
use edgemem_e5::Kind;
use support::{dot, model, norm, DIMS};

fn assert_unit(v: &[f32], what: &str) {
    assert_eq!(v.len() % DIMS, 0);
    for row in v.chunks_exact(DIMS) {
        assert!(row.iter().all(|x| x.is_finite()), "{what}: non-finite value");
        assert!((norm(row) - 1.0).abs() < 1e-4, "{what}: norm {}", norm(row));
    }
}

#[test]
fn empty_text_embeds_the_prefix_alone() {
    let v = model().embed_passage(&[""]).unwrap();
    assert_unit(&v, "empty");
    // <s>, the prefix's tokens, </s>: the model still sees a (short) input.
    let tokens = model().token_count("", Kind::Passage).unwrap();
    assert!((3..8).contains(&tokens), "{tokens} tokens");
}

#[test]
fn very_long_text_is_windowed() {
    let sentence = "Melanie painted a sunrise over the lake and showed it to Caroline at the weekend. ";
    let long = sentence.repeat(70); // ~1,300 tokens: 3 windows of 510
    let tokens = model().token_count(&long, Kind::Passage).unwrap();
    assert!(tokens > 2 * (model().max_positions() - 2), "only {tokens} tokens");
    let v = model().embed_passage(&[long.as_str()]).unwrap();
    assert_unit(&v, "long");
    // Windows of the same sentence average to close to the sentence's own direction.
    let one = model().embed_passage(&[sentence.repeat(20)]).unwrap();
    assert!(dot(&v, &one) > 0.9, "long text drifted: {}", dot(&v, &one));
}

#[test]
fn non_latin_and_emoji_texts() {
    let texts = [
        "我昨天和朋友去公园散步了。",
        "Вчера я гулял в парке с друзьями.",
        "ذهبت إلى الحديقة مع أصدقائي أمس.",
        "昨日は友達と公園を散歩しました。",
        "🎉🎨🌅 ❤️‍🔥 👩🏽‍💻",
        "\u{200b}\u{feff}\u{0301}",
    ];
    let v = model().embed_passage(&texts).unwrap();
    assert_unit(&v, "non-latin");
    // Multilingual: the Russian and Chinese sentences (same meaning) are closer to each other than to emoji.
    let row = |i: usize| &v[i * DIMS..(i + 1) * DIMS];
    assert!(dot(row(0), row(1)) > dot(row(0), row(4)));
}

#[test]
fn nul_counts_as_a_space() {
    let a = model().embed_passage(&["before\0after"]).unwrap();
    let b = model().embed_passage(&["before after"]).unwrap();
    assert_eq!(a, b);
}

#[test]
fn batching_does_not_change_vectors() {
    let texts: Vec<String> = (0..40).map(|i| format!("memory number {i}: the cat sat on mat {}", i * 7)).collect();
    let batch = model().embed_passage(&texts).unwrap();
    for (i, t) in texts.iter().enumerate().step_by(13) {
        let single = model().embed_passage(&[t]).unwrap();
        let diff = single.iter().zip(&batch[i * DIMS..(i + 1) * DIMS]).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(diff < 1e-5, "text {i}: batch and single differ by {diff}");
    }
    assert!(model().embed_passage::<&str>(&[]).unwrap().is_empty());
}

#[test]
fn long_ligatures_stay_within_the_engine_buffers() {
    // U+FDFA normalises to 18 codepoints; nine or more in a text would overflow e5.c's buffer unless
    // expanded first. The result equals embedding the expansion itself.
    let ligatures = "\u{fdfa}".repeat(12);
    let v = model().embed_passage(&[ligatures.as_str()]).unwrap();
    assert_unit(&v, "ligatures");
    let expanded = "صلى الله عليه وسلم".repeat(12);
    let w = model().embed_passage(&[expanded.as_str()]).unwrap();
    assert!(dot(&v, &w) > 0.9999, "{}", dot(&v, &w));
}
