//! What `remember`'s rules read in a fact's words, without a model: its normalised form, its content words, and
//! the slots that tell apart facts that only look alike — numbers (dates, versions, ports, counts), names,
//! negation, the words that relate one entity to another (a sister, a team) and the cue words of a change.
//! Word lists cover English first, then Portuguese, Spanish, French and German, the languages the built-in
//! embedder is most used with.

use foldhash::HashSet;

/// Words that carry no content of their own (articles, pronouns, auxiliaries, prepositions).
const STOP: &str =
    "a an the is are was were be been being am has have had do does did of in on at to for from by with \
     and or but as it its this that these those i me my mine we our you your he him his she her they them \
     their there here so very really also just will would should can could may might into about than then \
     which who whom what user o os as um uma de do da dos das em no na nos nas e e que el la los las un \
     una del en y es le les des du et est der die das ein eine und ist im mit von zu su sus se son sont \
     ele ela il elle er sie es ich je yo eu para por pour fur au aux";

/// Negation, as a word or a contraction's tail ("no" is left out: it is also Portuguese for "in the").
const NEGATION: &str =
    "not never none nobody nothing neither nor without cannot dont doesnt didnt isnt wasnt arent werent \
     wont cant hasnt havent nao nao nunca nem jamais pas ne nicht kein keine keinen nie ningun ninguna \
     nadie sin";

/// Words that say a fact changed: a new fact holding one is read as an update of what it resembles.
const CHANGE_CUES: &str =
    "now moved moves moving changed changes switched switches longer anymore instead updated upgraded \
     downgraded migrated replaced became become becomes currently rescheduled postponed renamed relocated \
     stopped quit left joined promoted transferred recently agora mudou passou ahora cambio maintenant \
     desormais jetzt nun mittlerweile inzwischen umgezogen depuis";

/// Words that name a relation to another entity: a fact about "Ana's sister" is not a fact about Ana.
const RELATIONS: &str =
    "sister brother mother father mom dad wife husband partner son daughter friend colleague boss manager \
     cousin aunt uncle grandmother grandfather neighbor neighbour roommate girlfriend boyfriend team \
     client parents kids children dog cat irma irmao mae pai hermana hermano madre padre sœur frere mere \
     pere schwester bruder mutter vater";

/// Number words, read as their digits.
const NUMBER_WORDS: &str = "zero=0 one=1 two=2 three=3 four=4 five=5 six=6 seven=7 eight=8 nine=9 ten=10 eleven=11 twelve=12 twice=2 once=1 dois=2 tres=3 tres=3 deux=2 trois=3 zwei=2 drei=3";

/// Weekdays and months: a date's words are slots like its digits.
const DATE_WORDS: &str =
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july \
     august september october november december tomorrow yesterday today morning afternoon evening night \
     weekend weekday weekly daily monthly";

/// Function words by language (en, pt, es, fr, de): a fact is in the language most of them are from. Two facts in
/// different languages share few words however alike they are, so rules.rs compares them by their vectors.
const LANGUAGES: [&str; 5] = [
    "the is are was in of to a an and on at with has have his her for from by it that this",
    "o a os as do da dos das no na nos nas em de e um uma com para pelo pela que mora tem foi",
    "el la los las en de es un una con para y del al que por su vive tiene esta",
    "le la les des du est un une et en de au aux sur pour avec il elle dans son sa ses",
    "der die das ist und ein eine mit von zu im am fur auf den dem des hat sich nicht",
];

/// A fact's words as the rules read them.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Lower case, words separated by one space, no punctuation: equal forms are the same fact.
    pub norm: String,
    /// Content words, stemmed lightly.
    pub content: HashSet<String>,
    /// The same words in the fact's order (with repeats).
    pub order: Vec<String>,
    /// Numbers and date words.
    pub numbers: HashSet<String>,
    /// Capitalised words that are not sentence-initial function words.
    pub names: HashSet<String>,
    pub relations: HashSet<String>,
    /// Every word, lower case.
    pub words: HashSet<String>,
    pub negated: bool,
    pub change_cue: bool,
    /// The language of most of its function words (an index of `LANGUAGES`), if any.
    pub language: Option<usize>,
}

/// Whether `list` (words separated by single spaces, written without diacritics as `fold` leaves words) holds `word`. The lists are strings rather than arrays of
/// strings: an array's table of pointers and lengths cost the wasm module more than the words.
fn has(list: &str, word: &str) -> bool {
    list.split(' ').any(|w| w == word)
}

/// Reads `text`.
pub(crate) fn analyse(text: &str) -> Facts {
    let mut f = Facts::default();
    let mut votes = [0u32; LANGUAGES.len()];
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '.' || c == '-')) {
        let raw = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if raw.is_empty() {
            continue;
        }
        let mut lower: String = raw.to_lowercase().chars().map(fold).collect();
        // A possessive is its owner's word: "Ana's" is about Ana.
        for tail in ["'s", "’s"] {
            if lower.len() > tail.len() + 1 && lower.ends_with(tail) {
                lower.truncate(lower.len() - tail.len());
            }
        }
        let word: String = lower.chars().filter(|c| c.is_alphanumeric() || *c == '.' || *c == '-').collect();
        let bare: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
        if !f.norm.is_empty() {
            f.norm.push(' ');
        }
        f.norm.push_str(&bare);
        let is_stop = has(STOP, &bare);
        let (negation, cue) = (has(NEGATION, &bare), has(CHANGE_CUES, &bare));
        if lower.ends_with("n't") || lower.ends_with("n’t") || negation {
            f.negated = true;
        }
        if cue {
            f.change_cue = true;
        }
        if has(RELATIONS, &bare) {
            f.relations.insert(bare.clone());
        }
        if word.chars().any(|c| c.is_ascii_digit()) {
            f.numbers.insert(word.trim_start_matches('v').trim_end_matches('.').to_string());
        } else if let Some(d) = NUMBER_WORDS.split(' ').find_map(|p| p.strip_prefix(bare.as_str())?.strip_prefix('=')) {
            f.numbers.insert(d.to_string());
        } else if has(DATE_WORDS, &stem(&bare)) {
            f.numbers.insert(stem(&bare));
        } else if raw.chars().next().is_some_and(char::is_uppercase) && !is_stop {
            // A sentence's first word counts too ("Ana lives…"); rules.rs does not hold it against a fact that
            // has the same word in lower case ("Prefers…" and "the user prefers…").
            f.names.insert(bare.clone());
        }
        // Function words are short: a longer word is in no language's list.
        if bare.len() <= 6 {
            for (i, list) in LANGUAGES.iter().enumerate() {
                votes[i] += u32::from(has(list, &bare));
            }
        }
        f.words.insert(bare.clone());
        if !is_stop && !negation && !cue {
            f.order.push(stem(&bare));
            f.content.insert(stem(&bare));
        }
    }
    let best = votes.iter().copied().max().unwrap_or(0);
    // A tie (the articles Portuguese and Spanish share) names no language.
    f.language = (best > 0 && votes.iter().filter(|&&v| v == best).count() == 1)
        .then(|| votes.iter().position(|&v| v == best))
        .flatten();
    f
}

/// A letter without its diacritic (Škoda and Skoda, São and Sao): the common Latin ones.
fn fold(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'ç' | 'č' | 'ć' => 'c',
        'è' | 'é' | 'ê' | 'ë' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' => 'i',
        'ñ' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'ů' => 'u',
        'š' | 'ś' => 's',
        'ž' | 'ź' | 'ż' => 'z',
        'ř' => 'r',
        'ý' | 'ÿ' => 'y',
        _ => c,
    }
}

/// English inflections off (a light Porter): "lives" and "living" meet "live", "JWTs" meets "JWT".
fn stem(w: &str) -> String {
    for suffix in ["ing", "ed", "es", "s"] {
        let keep = if suffix == "s" { 3 } else { 4 };
        if w.len() >= suffix.len() + keep && w.ends_with(suffix) && !w.ends_with("ss") {
            return w[..w.len() - suffix.len()].to_string();
        }
    }
    w.to_string()
}

/// Whether `b` is `a` with two of its words exchanged: "tabs over spaces" and "spaces over tabs", the two sides of
/// a relation swapped (a clause moved keeps each word's neighbours, and is not this).
pub(crate) fn swapped(a: &[String], b: &[String]) -> bool {
    let diff: Vec<usize> = (0..a.len()).filter(|&i| b.get(i) != a.get(i)).collect();
    a.len() == b.len() && diff.len() == 2 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
}

/// Shared over all words of the two content sets (Jaccard), 0 when both are empty.
pub(crate) fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn slots_are_read() {
        let f = analyse("Ana doesn't live in Porto since March 2024; the API runs on port 8080 (v2.1).");
        assert!(f.negated);
        assert!(f.names.contains("ana") && f.names.contains("porto") && f.names.contains("api"));
        for n in ["march", "2024", "8080", "2.1"] {
            assert!(f.numbers.contains(n), "{n}: {:?}", f.numbers);
        }
        assert!(!f.change_cue);
        assert!(analyse("Ana moved to Lisbon").change_cue);
        assert_eq!(analyse("Ana  LIVES in Porto!").norm, "ana lives in porto");
        assert!(analyse("Ana's sister lives in Porto").relations.contains("sister"));
        assert_eq!(analyse("I have two cats").numbers, analyse("I have 2 cats").numbers);
    }
}
