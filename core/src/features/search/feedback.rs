//! Pseudo-relevance feedback for hybrid search (RM3-style query expansion, simplified): the
//! content words shared by the first pass's best memories are added to the question, at a lower
//! weight, to re-score the first pass's candidates, and the two rankings are fused again.
//!
//! Why: a question and the memory that answers it often share few words ("When did Caroline go
//! to the support group?" / "I went to an LGBTQ meeting yesterday"), while the answer and the
//! memories that rank first for the question do. Defaults (`FusionParams`: 5 memories, 10 words,
//! weight 0.3) are the usual RM3 ranges, not tuned per question;
//! docs/decisions/relative-score-fusion-with-feedback.md has the LoCoMo figures. An expansion word
//! adds about what BM25 gives one occurrence of it, so the memories holding it are all that is
//! read — not a second BM25 query, which in wasm cost about as much as the rest of the search.

use super::fusion::FusionParams;
use super::terms;
use crate::base::error::Result;
use foldhash::{HashMap, HashMapExt, HashSet};

/// Words read from each feedback text (bounds the work on long memories).
const WORDS_PER_TEXT: usize = 512;
/// Candidate words whose document frequency is looked up (one FTS count each when not cached).
const CANDIDATES: usize = 128;

/// The expansion words for a question with `terms`, with their BM25 IDF, from `texts` (the
/// first pass's best memories) in a store of `n` memories where `df` counts the memories holding
/// a word.
pub fn expansion_words(
    texts: &[String],
    terms: &[String],
    n: u64,
    p: &FusionParams,
    budget: u64,
    mut df: impl FnMut(&str) -> Result<u64>,
) -> Result<Vec<(String, f64)>> {
    let mut cands = Vec::new();
    for (w, in_texts) in candidate_words(texts, terms) {
        let d = df(&w)?;
        cands.push((w, in_texts, d));
    }
    Ok(choose(&cands, n, p.feedback_terms, budget))
}

/// The first lexical list re-scored: for each expansion word, `weight` × its one-occurrence BM25
/// score is added to every memory `holders` returns for it that is among `candidates` (the first
/// pass's vector and lexical lists: feedback re-ranks them and brings in no new memory, which
/// would need an exact vector score). Best first (ties by id), at most `pool` long.
pub fn expand(
    first: &[(i64, f64)],
    candidates: &HashSet<i64>,
    words: &[(String, f64)],
    weight: f64,
    pool: usize,
    mut holders: impl FnMut(&str) -> Result<Vec<i64>>,
) -> Result<Vec<(i64, f64)>> {
    let mut by_id: HashMap<i64, f64> = first.iter().copied().collect();
    for (w, idf) in words {
        let add = weight * idf * BM25_ONE_OCCURRENCE;
        for id in holders(w)? {
            if candidates.contains(&id) {
                *by_id.entry(id).or_insert(0.0) += add;
            }
        }
    }
    let mut out: Vec<(i64, f64)> = by_id.into_iter().collect();
    out.sort_by(super::fusion::best_first);
    out.truncate(pool);
    Ok(out)
}

/// BM25's factor for one occurrence, (k1 + 1) / (1 + k1 (1 - b)) with FTS5's k1 = 1.2, b = 0.75 and
/// a row length of 0. FTS5 reads the contentless, columnsize=0 index's row lengths as -1, which
/// gives 2.2 / (1 + 1.2 (0.25 - 0.75 / avgdl)): within 4 % of this for average texts of 10+ tokens.
const BM25_ONE_OCCURRENCE: f64 = 2.2 / 1.3;

/// The candidate expansion words of `texts`: each distinct content word (not a stopword, not a
/// query term) with the number of texts it occurs in; those in more texts first, then in order of
/// first occurrence (the best memory's words first); at most `CANDIDATES` of them.
fn candidate_words(texts: &[String], query_terms: &[String]) -> Vec<(String, u32)> {
    // word -> (texts containing it, index of the last text it was counted for, first occurrence)
    let mut counts: HashMap<String, (u32, usize, usize)> = HashMap::new();
    let mut word = String::new();
    for (ti, text) in texts.iter().enumerate() {
        for w in terms::raw_words(text).take(WORDS_PER_TEXT) {
            terms::lowercase_into(w, &mut word);
            if terms::is_stopword(&word) || query_terms.contains(&word) {
                continue;
            }
            let next = counts.len();
            match counts.get_mut(word.as_str()) {
                Some((n, last, _)) if *last != ti => {
                    *n += 1;
                    *last = ti;
                }
                Some(_) => {}
                None => {
                    counts.insert(word.clone(), (1, ti, next));
                }
            }
        }
    }
    let mut out: Vec<(String, u32, usize)> = counts.into_iter().map(|(w, (n, _, first))| (w, n, first)).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    out.truncate(CANDIDATES);
    out.into_iter().map(|(w, n, _)| (w, n)).collect()
}

/// Picks at most `max` expansion words, with their IDF, from `(word, texts containing it,
/// document frequency)` by texts × IDF, best first. Words in no memory are skipped, and so are
/// words in more than half of the `n` memories (BM25 gives them ~0 weight); the picked words'
/// postings stay within `budget` (a word that would exceed it is passed over).
fn choose(cands: &[(String, u32, u64)], n: u64, max: usize, budget: u64) -> Vec<(String, f64)> {
    let mut scored: Vec<(f64, &str, u64)> = cands
        .iter()
        .filter(|(_, _, df)| *df > 0 && *df * 2 <= n)
        .map(|(w, texts, df)| (*texts as f64 * idf(n, *df), w.as_str(), *df))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut out = Vec::new();
    let mut postings = 0;
    for (_, w, df) in scored.into_iter().take(max) {
        if postings + df <= budget {
            out.push((w.to_string(), idf(n, df)));
            postings += df;
        }
    }
    out
}

/// BM25's inverse document frequency by FTS5's formula, with `n` the memories searched.
fn idf(n: u64, df: u64) -> f64 {
    ((n as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln().max(1e-6)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn candidates_skip_stopwords_and_query_terms_and_count_texts() {
        let texts =
            s(&["Caroline: I went to the LGBTQ meeting", "Melanie: the meeting was at the center, the center!"]);
        let got = candidate_words(&texts, &s(&["caroline"]));
        let get = |w: &str| got.iter().find(|(x, _)| x == w).map(|(_, c)| *c);
        assert_eq!(get("meeting"), Some(2));
        assert_eq!(get("center"), Some(1), "counted once per text");
        assert_eq!(get("lgbtq"), Some(1));
        assert_eq!(get("caroline"), None, "query term");
        assert_eq!(get("the"), None, "stopword");
        let order: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(order, ["meeting", "went", "lgbtq", "melanie", "center"], "in more texts, then first seen");
        let long = vec![(0..1000).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ")];
        assert_eq!(candidate_words(&long, &[]).len(), CANDIDATES);
    }

    #[test]
    fn choose_prefers_shared_rare_words_and_respects_limits() {
        let n = 100;
        let cands = vec![
            ("common".to_string(), 5, 60), // in more than half: skipped
            ("absent".to_string(), 5, 0),  // in no memory: skipped
            ("rare".to_string(), 1, 1),
            ("shared".to_string(), 3, 5),
            ("mid".to_string(), 1, 20),
        ];
        let words = |max, budget| choose(&cands, n, max, budget).into_iter().map(|(w, _)| w).collect::<Vec<_>>();
        assert_eq!(words(10, 512), s(&["shared", "rare", "mid"]));
        assert_eq!(words(2, 512), s(&["shared", "rare"]));
        // Postings budget: a word that would exceed it is passed over, the first one too.
        assert_eq!(words(10, 10), s(&["shared", "rare"]));
        assert_eq!(words(10, 4), s(&["rare"]));
        assert!(words(10, 0).is_empty());
        let rare = choose(&cands, n, 10, 512)[1].1;
        assert!((rare - (99.5f64 / 1.5).ln()).abs() < 1e-12, "FTS5's IDF");
    }

    #[test]
    fn expand_adds_weighted_one_occurrence_scores_to_candidates_only() {
        let first = [(1, 4.0), (2, 3.0)];
        let candidates: HashSet<i64> = [1, 2, 3].into_iter().collect(); // 3: from the vector list
        let words = vec![("fjord".to_string(), 2.0), ("ingrid".to_string(), 1.0)];
        let holders = |w: &str| Ok(if w == "fjord" { vec![2, 3, 9] } else { vec![3, 9] });
        let one = 0.5 * BM25_ONE_OCCURRENCE;
        let got = expand(&first, &candidates, &words, 0.5, 10, holders).unwrap();
        assert_eq!(got, vec![(2, 3.0 + 2.0 * one), (1, 4.0), (3, 3.0 * one)], "9 is no candidate");
        assert_eq!(expand(&first, &candidates, &words, 0.5, 2, holders).unwrap().len(), 2);
        assert_eq!(expand(&first, &candidates, &[], 0.5, 10, holders).unwrap(), vec![(1, 4.0), (2, 3.0)]);
    }
}
