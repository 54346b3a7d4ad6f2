//! `remember`'s rules: how a new fact compares with one memory of its namespace — the same fact (duplicate), a
//! new value of the same attribute of the same entity (supersede), or another fact (new) — from the vectors'
//! similarity, the content words' overlap and the guards of text.rs. Safety first: a guard that differs keeps
//! the two facts apart, and what the rules cannot tell is marked uncertain for a judge (the caller's model).

use super::text::{overlap, swapped, Facts};
pub use crate::config::CoherenceSettings;
use serde::{Deserialize, Serialize};

/// What the rules decide of a fact against one memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Decision {
    New,
    Duplicate,
    Supersede,
}

/// One comparison's outcome: the decision, the rule that made it, and whether a judge should look.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Verdict {
    pub decision: Decision,
    pub reason: &'static str,
    pub uncertain: bool,
    /// The similarity it was decided on (cosine, or overlap without vectors).
    pub similarity: f64,
}

/// Compares fact `a` (new) with memory `b`; `cos` is their vectors' similarity when both have one; `closest`
/// whether `b` is the memory the fact is most about (`about`; only that one can be superseded).
pub(crate) fn compare(a: &Facts, b: &Facts, cos: Option<f64>, closest: bool, s: &CoherenceSettings) -> Verdict {
    let words = overlap(&a.content, &b.content);
    let similarity = cos.unwrap_or(words);
    let verdict = |decision, reason, uncertain| Verdict { decision, reason, uncertain, similarity };
    if a.norm == b.norm {
        return verdict(Decision::Duplicate, "same words", false);
    }
    // Two languages share few words however alike the facts are: their vectors compare them, and German's
    // capitalised nouns are not names.
    let translation = a.language.is_some() && b.language.is_some() && a.language != b.language;
    let numbers_differ = a.numbers != b.numbers;
    let names_differ = if translation {
        !(shares_name(a, b) || (a.names.is_empty() && b.names.is_empty()))
    } else {
        !same_names(a, b)
    };
    // Relation words differ by language ("sister", "irmã"): across two, only one side naming a relation counts.
    let relation_differs =
        if translation { a.relations.is_empty() != b.relations.is_empty() } else { a.relations != b.relations };
    let guard = if relation_differs {
        Some("guard: another entity")
    } else if a.negated != b.negated {
        Some("guard: negation")
    } else if numbers_differ {
        Some("guard: numbers")
    } else if names_differ {
        Some("guard: names")
    } else if swapped(&a.order, &b.order) {
        Some("guard: word order")
    } else {
        None
    };
    // The same fact: in one language, (nearly) the same content words — a vector alone cannot tell "the billing
    // API listens on 8080" from "the atlas API listens on 8080"; in two, vectors that close.
    let same_fact =
        if translation { cos.is_some_and(|c| c >= s.duplicate_similarity) } else { words >= s.duplicate_overlap };
    if guard.is_none() && same_fact {
        return verdict(Decision::Duplicate, if translation { "same fact, translated" } else { "same fact" }, false);
    }
    // An update names the same entity: a shared name, or none on either side (the namespace's own subject).
    let same_entity = !relation_differs && (shares_name(a, b) || (a.names.is_empty() && b.names.is_empty()));
    let uncertain = cos.is_some_and(|c| c >= s.judge_similarity);
    let near = cos.is_some_and(|c| c >= s.supersede_similarity) || words >= s.supersede_overlap;
    if closest && same_entity && near {
        if a.change_cue {
            return verdict(Decision::Supersede, "change cue", false);
        }
        if s.slot_updates && a.negated == b.negated && (numbers_differ || names_differ) {
            return verdict(Decision::Supersede, "one slot changed", false);
        }
    }
    verdict(Decision::New, guard.unwrap_or("distinct"), uncertain)
}

/// How much fact `a` is about memory `b`: the content words they share besides names (the attribute: "lunch on
/// Sundays"), then their similarity (cosine, else word overlap).
pub(crate) fn about(a: &Facts, b: &Facts, cos: Option<f64>) -> (usize, f64) {
    let shared = a.content.iter().filter(|w| b.content.contains(*w) && !a.names.contains(*w)).count();
    (shared, cos.unwrap_or_else(|| overlap(&a.content, &b.content)))
}

/// Names match when each of one side's has one of the other's sharing its first four letters (Lisbon, Lisboa), or
/// is a word of the other in lower case (a capitalised first word).
fn same_names(a: &Facts, b: &Facts) -> bool {
    let covered =
        |x: &Facts, y: &Facts| x.names.iter().all(|n| y.words.contains(n) || y.names.iter().any(|m| akin(n, m)));
    covered(a, b) && covered(b, a)
}

fn shares_name(a: &Facts, b: &Facts) -> bool {
    a.names.iter().any(|n| b.names.iter().any(|m| akin(n, m)))
}

fn akin(a: &str, b: &str) -> bool {
    a == b || (a.chars().count() >= 4 && b.chars().count() >= 4 && a.chars().take(4).eq(b.chars().take(4)))
}

#[cfg(test)]
mod tests {
    use super::super::text::analyse;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn decide(a: &str, b: &str, cos: f64) -> Decision {
        compare(&analyse(a), &analyse(b), Some(cos), true, &CoherenceSettings::default()).decision
    }

    #[test]
    fn guards_keep_apart_what_only_looks_alike() {
        assert_eq!(decide("Ana lives in Porto.", "ana lives in porto", 0.99), Decision::Duplicate);
        assert_eq!(decide("On Mondays Ana works nights", "Ana works nights on Mondays", 0.96), Decision::Duplicate);
        assert_eq!(decide("Ben prefers spaces over tabs", "Ben prefers tabs over spaces", 0.99), Decision::New);
        // Other words, however close the vectors: a judge's question, not the rules' fold.
        assert_eq!(decide("Ana lives in Porto", "Ana resides in Porto", 0.96), Decision::New);
        assert_eq!(decide("The billing API listens on 8080", "The atlas API listens on 8080", 0.98), Decision::New);
        assert_eq!(decide("A Ana mora no Porto.", "Ana lives in Porto.", 0.95), Decision::Duplicate);
        assert_eq!(decide("The API listens on port 8080", "The API listens on port 9090", 0.98), Decision::New);
        assert_eq!(decide("Ana's sister lives in Porto", "Ana lives in Porto", 0.97), Decision::New);
        assert_eq!(decide("Ana likes coffee", "Ana does not like coffee", 0.95), Decision::New);
        assert_eq!(decide("Ana moved to Lisbon", "Ana lives in Porto", 0.9), Decision::Supersede);
        assert_eq!(decide("Ana moved to Lisbon", "Bruno lives in Porto", 0.9), Decision::New);
        assert_eq!(decide("Ana moved to Lisbon", "Ana lives in Porto", 0.7), Decision::New);
    }
}
