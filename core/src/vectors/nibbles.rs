//! The `i4` graph vectors: each component in 4 bits, two to a byte, compared by a cosine metric of our own
//! installed in the index.
//!
//! A vector is quantised on a step of `STEP_PER_RMS` times its own root-mean-square component, to 16 levels
//! symmetric about zero (code c stands for the level 2c − 15, that is ±0.5 … ±7.5 steps), so no level is zero.
//! The step is per vector, which cosine ignores (it scales the whole vector): what is stored is the codes and
//! the inverse norm of their levels, so a distance is one integer dot product. A 384-d vector is 196 bytes.
//!
//! To USearch a vector is f32 "words" (a 384-d one is 49): the codes, four bytes a word, then the inverse norm.
//! An f32 index stores and returns f32 input as it is (no arithmetic) and only our metric reads it, so the
//! index is used through the f32 calls every other kind uses and the engine carries no other copy of them
//! (USearch's b1x8 calls check their input against the bits, not the bytes, and would not do).

use usearch::Index;

/// The quantisation step as a share of the vector's RMS component: 16 levels ±2.7 RMS wide, about the
/// least-error uniform 16-level quantiser of a Gaussian (0.335σ per step).
const STEP_PER_RMS: f32 = 0.335;

/// Bytes of a `dims`-d vector's codes.
pub(super) fn code_bytes(dims: usize) -> usize {
    dims.div_ceil(2)
}

/// The f32 words (see the module doc) a `dims`-d vector takes: the index's dimensions.
pub(super) fn words(dims: usize) -> usize {
    code_bytes(dims).div_ceil(4) + 1
}

#[inline(always)]
fn level(c: u8) -> i32 {
    2 * c as i32 - 15
}

/// `v` as the index takes it, into `out`: component i in bits 4 (i % 8) of word i / 8, so that in memory
/// (little-endian) component 2j is byte j's low half and 2j + 1 its high half, unused halves 0; then the
/// levels' inverse norm.
pub(super) fn encode_words(v: &[f32], out: &mut Vec<f32>) {
    let rms = (v.iter().map(|x| x * x).sum::<f32>() / v.len() as f32).sqrt();
    let inv_step = 1.0 / (STEP_PER_RMS * rms);
    out.clear();
    out.resize(words(v.len()), 0.0);
    let mut norm_sq = 0i64;
    for (w, eight) in out.iter_mut().zip(v.chunks(8)) {
        let mut word = 0u32;
        for (k, x) in eight.iter().enumerate() {
            let c = ((x * inv_step).floor() + 8.0).clamp(0.0, 15.0) as u8;
            norm_sq += (level(c) * level(c)) as i64;
            word |= (c as u32) << (4 * k);
        }
        *w = f32::from_bits(word);
    }
    // Every level is odd: the norm is at least 1.
    out[words(v.len()) - 1] = (1.0 / (norm_sq as f64).sqrt()) as f32;
}

/// The cosine of `q` and the levels of the codes the index gave back as `words` (a `q.len()`-d vector's), in
/// one pass without decoding them: a level is 2c − 15, so q · levels = 2 q · codes − 15 Σq, and the levels'
/// inverse norm follows the codes. What a search scores quantised candidates by (`VectorIndex::score`).
pub(super) fn levels_cosine(q: &[f32], words: &[f32]) -> f64 {
    debug_assert_eq!(words.len(), self::words(q.len()), "codes of another dimension");
    let (mut qc, mut qs, mut qq) = (0f32, 0f32, 0f32);
    for (w, eight) in words.iter().zip(q.chunks(8)) {
        let mut bits = w.to_bits();
        for x in eight {
            qc += x * (bits & 15) as f32;
            qs += x;
            qq += x * x;
            bits >>= 4;
        }
    }
    if qq == 0.0 {
        return 0.0;
    }
    let inv_norm = words[self::words(q.len()) - 1] as f64;
    (2.0 * qc as f64 - 15.0 * qs as f64) * inv_norm / (qq as f64).sqrt()
}

/// The levels of the codes the index gave back as words, into `out` (`dims` values): a vector parallel to
/// the original.
#[cfg(test)]
fn decode_words(words: &[f32], out: &mut [f32]) {
    for (i, o) in out.iter_mut().enumerate() {
        let byte = words[i / 8].to_bits().to_le_bytes()[(i / 2) % 4];
        *o = level((byte >> (4 * (i % 2))) & 15) as f32;
    }
}

/// Installs the codes' cosine (`edgemem_i4_distance`, cxx/index_stream.cpp, built like USearch's kernels) as
/// `index`'s metric. A loaded snapshot comes back with USearch's own metric for its header: the metric is
/// installed again after every load, before any use.
pub(super) fn install_metric(index: &Index, dims: usize) -> Result<(), String> {
    crate::vectors::stream::use_i4_metric(index, dims)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        d / (a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt())
    }

    /// Codes lie two to a byte, even components low, unused halves and padding 0, then the levels' inverse
    /// norm; the words decode to levels as a scalar reading of the bytes does; the metric USearch calls is
    /// the cosine of the levels, odd dims included, as is `levels_cosine` of an f32 vector; and for these vectors the levels' cosine tracks the true
    /// one within a few hundredths.
    #[test]
    fn codes_and_metric_agree() {
        for dims in [1usize, 7, 32, 33, 384] {
            let a: Vec<f32> = (0..dims).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
            let b: Vec<f32> = (0..dims).map(|i| ((i * 53 % 97) as f32 - 48.0) / 40.0 + a[i] * 0.5).collect();
            let (mut wa, mut wb) = (Vec::new(), Vec::new());
            encode_words(&a, &mut wa);
            encode_words(&b, &mut wb);
            assert_eq!(wa.len(), words(dims));
            let bytes: Vec<u8> = wb[..words(dims) - 1].iter().flat_map(|x| x.to_bits().to_le_bytes()).collect();
            assert!(bytes[code_bytes(dims)..].iter().all(|b| *b == 0), "dims {dims}: padding");
            if dims % 2 == 1 {
                assert_eq!(bytes[dims / 2] >> 4, 0, "the odd half byte stays empty");
            }
            let scalar: Vec<f32> = (0..dims).map(|i| level((bytes[i / 2] >> (4 * (i % 2))) & 15) as f32).collect();
            let (mut la, mut lb) = (vec![0f32; dims], vec![0f32; dims]);
            decode_words(&wa, &mut la);
            decode_words(&wb, &mut lb);
            assert_eq!(lb, scalar);
            assert!(la.iter().all(|x| x.abs() <= 15.0 && (*x as i32) % 2 != 0));
            let norm = lb.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((wb[words(dims) - 1] * norm - 1.0).abs() < 1e-6, "dims {dims}: inverse norm");
            let exact = crate::vectors::index::exact_score(crate::config::Metric::Cosine, &a, &lb);
            assert!((levels_cosine(&a, &wb) - exact).abs() < 1e-5, "dims {dims}: levels' cosine");
            let want = 1.0 - cos(&la, &lb);
            // SAFETY: both point at `words(dims)` f32 words, the layout the function reads.
            let distance = |a: &[f32], b: &[f32]| unsafe {
                crate::vectors::stream::edgemem_i4_distance(a.as_ptr() as usize, b.as_ptr() as usize, dims)
            };
            let got = distance(&wa, &wb);
            assert!((got - want).abs() < 1e-5, "dims {dims}: {got} vs {want}");
            assert!(distance(&wa, &wa).abs() < 1e-5);
            if dims >= 32 {
                assert!(
                    (cos(&la, &lb) - cos(&a, &b)).abs() < 0.05,
                    "dims {dims}: {} vs {}",
                    cos(&la, &lb),
                    cos(&a, &b)
                );
            }
        }
    }
}
