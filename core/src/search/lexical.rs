//! Lexical search input: turns any user text into a safe FTS5 query (quoted terms OR-ed,
//! stopwords dropped), so no input can cause a MATCH syntax error.

use foldhash::HashSet;
use std::sync::OnceLock;

/// Common English function words; they carry no topic and only add noise to BM25.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "but", "by", "can", "could", "d", "did", "do", "does", "doing", "done", "for", "from", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "just", "ll", "m", "me", "might", "my", "no", "not", "of", "on", "or", "our", "ours", "out", "over", "re", "s",
    "she", "should", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "then", "there",
    "these", "they", "this", "those", "to", "too", "up", "us", "ve", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
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

/// A term as an FTS5 string literal (never MATCH syntax).
pub fn quote(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// An FTS5 MATCH expression OR-ing every term as a quoted string, or None if there are none.
pub fn or_query(terms: &[String]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    Some(terms.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn fts_query(text: &str) -> Option<String> {
        or_query(&terms(text))
    }
    #[test]
    fn stopwords_are_recognised() {
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        assert!(!is_stopword("otter") && !is_stopword("") && !is_stopword("The"), "lowercase words only");
    }

    #[test]
    fn hostile_input_is_quoted() {
        assert_eq!(fts_query("When did Caroline go?").as_deref(), Some("\"caroline\" OR \"go\""));
        assert_eq!(fts_query("\"; DROP TABLE x; NEAR(a b) AND OR *"), Some("\"drop\" OR \"table\" OR \"x\" OR \"near\" OR \"b\"".into()));
        assert_eq!(fts_query("  ...  "), None);
    }
}
