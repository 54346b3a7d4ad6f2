//! Lexical search: turns any user text into safe FTS5 terms (quoted, stopwords dropped), so no
//! input can cause a MATCH syntax error, and sums BM25 over them term by term.

use foldhash::HashSet;
use std::sync::OnceLock;

/// Common English function words; they carry no topic and only add noise to BM25.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "but", "by", "can", "could", "d", "did", "do", "does", "doing", "done", "for", "from", "had", "has", "have",
    "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "ll", "m", "me", "might", "my", "no", "not", "of", "on", "or", "our", "ours", "out", "over", "re", "s", "she",
    "should", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "then", "there", "these",
    "they", "this", "those", "to", "too", "up", "us", "ve", "very", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
];

/// Whether `w` (lowercase) is a common English function word.
pub fn is_stopword(w: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOPWORDS.iter().copied().collect()).contains(w)
}

/// The words of `text` as written: runs of letters and digits, at most 64 bytes long.
pub fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && w.len() <= 64)
}

/// Writes `w` lowercased into `out` (replacing its contents); ASCII without allocating.
pub fn lowercase_into(w: &str, out: &mut String) {
    out.clear();
    if w.is_ascii() {
        out.extend(w.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        out.push_str(&w.to_lowercase());
    }
}

/// The distinct lowercased words of `text` in order of first occurrence, at most `max` of them.
pub fn words(text: &str, max: usize) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    let mut word = String::new();
    for w in raw_words(text) {
        if all.len() >= max {
            break;
        }
        lowercase_into(w, &mut word);
        if !all.contains(&word) {
            all.push(word.clone());
        }
    }
    all
}

/// Lowercased word tokens of `text` (letters and digits), in order, deduplicated,
/// stopwords removed. Falls back to the stopwords when nothing else is left.
pub fn terms(text: &str) -> Vec<String> {
    let all = words(text, 64);
    let content: Vec<String> = all.iter().filter(|w| !is_stopword(w)).cloned().collect();
    if content.is_empty() {
        all
    } else {
        content
    }
}

/// BM25 of several terms as the sum of each term's own FTS5 `bm25()` — what FTS5 computes for an
/// OR of the terms — best `pool` first, ties by id. `per_term` returns (id, -bm25 or None) for each
/// memory holding the term. Term by term because with the contentless, `columnsize=0` index FTS5
/// reads every row's length as -1, so in a query of several terms a row lacking one of them scores
/// 0 / (k1 (1 - b - b / avgdl)) for it, which is NaN (SQL NULL) for the whole row when the average
/// text is exactly 3 tokens long. A term's score that is NULL or not finite counts 0.
pub fn sum_term_scores(
    terms: &[String],
    pool: usize,
    mut per_term: impl FnMut(&str) -> crate::base::error::Result<crate::state::term_cache::TermList>,
) -> crate::base::error::Result<Vec<(i64, f64)>> {
    let mut by_id: foldhash::HashMap<i64, f64> = Default::default();
    for t in terms {
        for &(id, s) in per_term(t)?.iter() {
            *by_id.entry(id).or_insert(0.0) += s.filter(|s| s.is_finite()).unwrap_or(0.0);
        }
    }
    let mut out: Vec<(i64, f64)> = by_id.into_iter().collect();
    out.sort_by(super::fusion::best_first);
    out.truncate(pool);
    Ok(out)
}

/// A term as an FTS5 string literal (never MATCH syntax).
pub fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The MATCH strings a search runs for `text` (one per term).
    fn fts_queries(text: &str) -> Vec<String> {
        terms(text).iter().map(|t| quote(t)).collect()
    }
    #[test]
    fn stopwords_are_recognised() {
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        assert!(!is_stopword("otter") && !is_stopword("") && !is_stopword("The"), "lowercase words only");
    }

    #[test]
    fn term_scores_add_up_and_bad_ones_count_zero() {
        let per_term = |t: &str| {
            Ok(std::sync::Arc::new(match t {
                "a" => vec![(1, Some(2.0)), (2, Some(1.0))],
                "b" => vec![(2, Some(3.0)), (3, None), (4, Some(f64::NAN))],
                _ => vec![],
            }))
        };
        let terms = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(sum_term_scores(&terms, 10, per_term).unwrap(), vec![(2, 4.0), (1, 2.0), (3, 0.0), (4, 0.0)]);
        assert_eq!(sum_term_scores(&terms, 1, per_term).unwrap(), vec![(2, 4.0)]);
    }

    #[test]
    fn hostile_input_is_quoted() {
        assert_eq!(fts_queries("When did Caroline go?"), ["\"caroline\"", "\"go\""]);
        assert_eq!(
            fts_queries("\"; DROP TABLE x; NEAR(a b) AND OR *"),
            ["\"drop\"", "\"table\"", "\"x\"", "\"near\"", "\"b\""]
        );
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
        assert!(fts_queries("  ...  ").is_empty());
    }
}
