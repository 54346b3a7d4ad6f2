//! Lexical search input: turns any user text into a safe FTS5 query (quoted terms OR-ed,
//! stopwords dropped), so no input can cause a MATCH syntax error.

/// Common English function words; they carry no topic and only add noise to BM25.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "for", "from", "had", "has", "have", "having",
    "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "might",
    "my", "no", "not", "of", "on", "or", "our", "ours", "out", "over", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "to", "too", "up",
    "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
    "would", "you", "your", "yours", "s", "t", "d", "ll", "m", "re", "ve",
];

/// Lowercased word tokens of `text` (letters and digits), in order, deduplicated,
/// stopwords removed. Falls back to the stopwords when nothing else is left.
pub fn terms(text: &str) -> Vec<String> {
    let mut all = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        if w.is_empty() || w.len() > 64 {
            continue;
        }
        let w = w.to_lowercase();
        if !all.contains(&w) {
            all.push(w);
        }
        if all.len() >= 64 {
            break;
        }
    }
    let content: Vec<String> = all.iter().filter(|w| !STOPWORDS.contains(&w.as_str())).cloned().collect();
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
    fn hostile_input_is_quoted() {
        assert_eq!(fts_query("When did Caroline go?").as_deref(), Some("\"caroline\" OR \"go\""));
        assert_eq!(fts_query("\"; DROP TABLE x; NEAR(a b) AND OR *"), Some("\"drop\" OR \"table\" OR \"x\" OR \"near\" OR \"b\"".into()));
        assert_eq!(fts_query("  ...  "), None);
    }
}
