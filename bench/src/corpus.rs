//! Benchmark corpora: the LoCoMo dataset files (turns, questions, f32 embeddings) and
//! clustered synthetic vectors around real embeddings — realistic, not uniform random.

use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
pub struct Turn {
    pub conv: String,
    pub dia_id: String,
    pub speaker: String,
    pub embed_text: String,
    /// The session the turn belongs to (0 when the file has none).
    #[serde(default)]
    pub session: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    pub conv: String,
    pub question: String,
    pub evidence_clean: Vec<String>,
    pub category: u8,
}

pub const DIMS: usize = 384;

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

fn read_f32(path: &Path, rows: usize) -> Result<Vec<Vec<f32>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() != rows * DIMS * 4 {
        return Err(format!("{}: expected {} rows of {DIMS} f32, got {} bytes", path.display(), rows, bytes.len()));
    }
    Ok(bytes
        .chunks_exact(DIMS * 4)
        .map(|row| row.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        .collect())
}

pub struct Locomo {
    pub turns: Vec<Turn>,
    pub turn_vecs: Vec<Vec<f32>>,
    pub questions: Vec<Question>,
    pub question_vecs: Vec<Vec<f32>>,
}

/// The LoCoMo folder: `--data` when given, else `EDGEMEM_LOCOMO`, else ../shared/datasets/locomo (relative to the
/// repository root, where `npm run bench` runs; bench/lib/locomo.mjs is the same rule for the Node benches).
pub fn locomo_dir(data_flag: Option<&str>) -> String {
    data_flag
        .map(str::to_owned)
        .or_else(|| std::env::var("EDGEMEM_LOCOMO").ok())
        .unwrap_or_else(|| "../shared/datasets/locomo".to_owned())
}

/// Loads a folder laid out like shared/datasets/locomo with the `e5` or `minilm` vectors.
pub fn load_locomo(dir: &Path, vectors: &str) -> Result<Locomo, String> {
    if vectors != "e5" && vectors != "minilm" {
        return Err(format!("--vectors must be e5 or minilm, got {vectors:?}"));
    }
    let turns: Vec<Turn> = read_jsonl(&dir.join("turns.jsonl"))?;
    let questions: Vec<Question> = read_jsonl(&dir.join("questions.jsonl"))?;
    let turn_vecs = read_f32(&dir.join(format!("turns.{vectors}.f32")), turns.len())?;
    let question_vecs = read_f32(&dir.join(format!("questions.{vectors}.f32")), questions.len())?;
    Ok(Locomo { turns, turn_vecs, questions, question_vecs })
}

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Approximately standard normal (sum of uniforms).
    pub fn gauss(&mut self) -> f32 {
        (0..4).map(|_| (self.next() >> 40) as f32 / (1u64 << 24) as f32).sum::<f32>() - 2.0
    }
}

pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
    v.iter_mut().for_each(|x| *x /= n);
}

/// `n` vectors: the real ones first, then clustered synthetic ones (a real vector plus small
/// Gaussian noise, renormalised), so the corpus keeps the real data's cluster structure.
pub fn realistic_vectors(real: &[Vec<f32>], n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng::new(seed);
    let mut out: Vec<Vec<f32>> = real.iter().take(n).cloned().collect();
    while out.len() < n {
        let base = &real[rng.below(real.len())];
        let mut v: Vec<f32> = base.iter().map(|x| x + 0.03 * rng.gauss()).collect();
        normalize(&mut v);
        out.push(v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-turn, one-question folder in the LoCoMo layout loads, and a size mismatch is refused.
    #[test]
    fn loads_a_folder_in_the_locomo_layout() {
        let dir = std::env::temp_dir().join(format!("edgemem-locomo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("turns.jsonl"),
            "{\"row\":0,\"conv\":\"1\",\"dia_id\":\"D1:1\",\"speaker\":\"A\",\"embed_text\":\"hi\"}\n{\"row\":1,\"conv\":\"1\",\"dia_id\":\"D1:2\",\"speaker\":\"B\",\"embed_text\":\"yo\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("questions.jsonl"),
            "{\"row\":0,\"conv\":\"1\",\"question\":\"who?\",\"evidence_clean\":[\"D1:2\"],\"category\":1}\n",
        )
        .unwrap();
        let vec = |rows: usize| -> Vec<u8> { (0..rows * DIMS).flat_map(|i| (i as f32).to_le_bytes()).collect() };
        std::fs::write(dir.join("turns.e5.f32"), vec(2)).unwrap();
        std::fs::write(dir.join("questions.e5.f32"), vec(1)).unwrap();
        let d = load_locomo(&dir, "e5").unwrap();
        assert_eq!((d.turns.len(), d.questions.len()), (2, 1));
        assert_eq!(d.turn_vecs[1][0], DIMS as f32);
        std::fs::write(dir.join("questions.e5.f32"), vec(2)).unwrap();
        assert!(load_locomo(&dir, "e5").is_err());
        assert!(load_locomo(&dir, "bert").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn synthetic_vectors_stay_near_real_ones() {
        let real: Vec<Vec<f32>> = (0..4)
            .map(|i| {
                let mut v = vec![0.0; DIMS];
                v[i] = 1.0;
                v
            })
            .collect();
        let all = realistic_vectors(&real, 50, 1);
        assert_eq!(all.len(), 50);
        for v in &all[4..] {
            let best = real.iter().map(|r| r.iter().zip(v).map(|(a, b)| a * b).sum::<f32>()).fold(f32::MIN, f32::max);
            assert!(best > 0.8, "clustered, not uniform: best cosine {best}");
        }
    }
}
