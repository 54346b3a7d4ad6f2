//! Coherence: `remember` decides, against its namespace's current memories, whether a fact is a duplicate (folded:
//! the memory's seen count and last-seen time move on), supersedes a memory (the old one closed in valid time and
//! linked to the new one, which links back; nothing deleted) or is new — with the rules of rules.rs, no model.
//! `assess` is the same decision without the write, with the uncertain candidates a caller's judge may settle
//! (then `remember` with `decided`). consolidate.rs applies the rules to what is stored; context.rs builds a
//! prompt's block of memories.

pub(crate) mod consolidate;
pub(crate) mod context;
pub(crate) mod rules;
pub(crate) mod text;

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::namespace;
use crate::base::types::{Memory, MemoryPut, ValidAt, WriteAck};
use crate::features::memories::row::Coherence;
use crate::features::search::fusion::best_first;
use crate::features::search::query::{SearchMode, SearchQuery};
use crate::state::feed::EventKind;
use crate::store::{Store, Tx};
use rules::{compare, Verdict};
pub use rules::{CoherenceSettings, Decision};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A fact to remember into a namespace.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct RememberInput {
    pub namespace: Vec<String>,
    /// The fact, in words: what is compared, and the memory's text.
    pub text: String,
    /// The key of the memory: one names an attribute (the same key's other content supersedes it). Default: a
    /// generated `m-…` key.
    #[serde(default)]
    pub key: Option<String>,
    /// Default: the text.
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    #[serde(default)]
    pub pinned: bool,
    /// When the fact became true (ms since epoch). Default: open for a new fact, now for a supersede.
    #[serde(default)]
    pub valid_from: Option<i64>,
    #[serde(default)]
    pub settings: Option<CoherenceSettings>,
    /// A decision made outside the rules (a judge's), applied as it is: for a duplicate or a supersede, of the
    /// memory at `target` if it is still at `target_version` (else CONFLICT). Flat fields, not a nested object:
    /// each nested type's JSON reader costs the wasm module kilobytes.
    #[serde(default)]
    pub decided: Option<Decision>,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub target_version: Option<u64>,
    /// The rule or judge that made it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The memory a decision folds into or replaces.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Target {
    pub key: String,
    pub version: u64,
    #[serde(default)]
    pub text: Option<String>,
    /// Its similarity to the fact (cosine; word overlap without vectors).
    #[serde(default)]
    pub similarity: Option<f64>,
}

/// What `remember` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Remembered {
    pub decision: Decision,
    pub namespace: Vec<String>,
    /// The memory that holds the fact now: the folded one for a duplicate, else the one written.
    pub key: String,
    pub version: u64,
    pub seq: u64,
    /// The memory folded into (duplicate) or replaced (supersede), as it was.
    pub target: Option<Target>,
    pub reason: String,
    /// Whether a judge made the decision.
    pub judged: bool,
}

/// What `assess` finds: the rules' decision, and the memories they could not tell apart from the fact.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Assessment {
    pub decision: Decision,
    pub target: Option<Target>,
    pub reason: String,
    /// Close memories the rules kept apart or could not place, most similar first (a judge's questions).
    pub uncertain: Vec<Target>,
}

/// A decision to apply: what, to which memory, why, and whether a judge made it.
type Chosen = (Decision, Option<Target>, String, bool);

/// A candidate memory as the rules compare it.
struct Candidate {
    key: String,
    version: u64,
    text: String,
    facts: text::Facts,
    cos: Option<f64>,
}

impl Store {
    /// The rules' decision for `input` against its namespace's current memories, without writing.
    pub fn assess(&mut self, input: &RememberInput) -> Result<Assessment> {
        self.assess_among(input, None)
    }

    /// `assess` against the memories `among` allows (consolidate.rs: those learned before the fact).
    pub(crate) fn assess_among(&mut self, input: &RememberInput, among: Option<&Among>) -> Result<Assessment> {
        let settings = self.coherence_settings(input)?;
        let fact = text::analyse(&input.text);
        let candidates = self.remember_candidates(input, &settings, among)?;
        let about = |c: &Candidate| rules::about(&fact, &c.facts, c.cos);
        let closest = candidates
            .iter()
            .enumerate()
            .max_by(|a, b| {
                let (x, y) = (about(a.1), about(b.1));
                x.0.cmp(&y.0).then(x.1.total_cmp(&y.1))
            })
            .map(|(i, _)| i);
        let mut best: Option<(Verdict, usize)> = None;
        let mut uncertain: Vec<(f64, Target)> = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            let v = compare(&fact, &c.facts, c.cos, Some(i) == closest, &settings);
            if v.uncertain && v.decision == Decision::New {
                uncertain.push((v.similarity, target_of(c, v.similarity)));
            }
            let rank =
                |v: &Verdict| (v.decision == Decision::Duplicate, v.decision == Decision::Supersede, v.similarity);
            if v.decision != Decision::New && best.as_ref().is_none_or(|(b, _)| rank(&v) > rank(b)) {
                best = Some((v, i));
            }
        }
        // Sorted as (index, similarity) pairs with search's own order: no sort of another type in the module.
        let mut order: Vec<(i64, f64)> = uncertain.iter().enumerate().map(|(i, u)| (i as i64, u.0)).collect();
        order.sort_by(best_first);
        let mut uncertain: Vec<Option<(f64, Target)>> = uncertain.into_iter().map(Some).collect();
        let uncertain: Vec<(f64, Target)> = order.iter().filter_map(|(i, _)| uncertain[*i as usize].take()).collect();
        Ok(match best {
            Some((v, i)) => Assessment {
                decision: v.decision,
                target: Some(target_of(&candidates[i], v.similarity)),
                reason: v.reason.to_string(),
                uncertain: Vec::new(),
            },
            None => Assessment {
                decision: Decision::New,
                target: None,
                reason: if candidates.is_empty() { "nothing alike" } else { "distinct" }.to_string(),
                uncertain: uncertain.into_iter().map(|(_, t)| t).collect(),
            },
        })
    }

    /// Remembers a fact: folds it into the memory it duplicates, supersedes the memory it updates, or writes it
    /// as a new memory (see the module doc); `input.decided` applies a decision made outside the rules.
    pub fn remember(&mut self, input: RememberInput) -> Result<Remembered> {
        if input.text.trim().is_empty() {
            return Err(Error::invalid("remember needs the fact's `text`"));
        }
        let ns = namespace::encode(&input.namespace)?;
        let (decision, target, reason, judged) = match input.decided {
            Some(d) => {
                let target = match (&input.target, input.target_version) {
                    (Some(key), Some(version)) => {
                        Some(Target { key: key.clone(), version, text: None, similarity: None })
                    }
                    _ if d == Decision::New => None,
                    _ => return Err(Error::invalid("a decided duplicate or supersede names its target and version")),
                };
                (d, target, input.reason.clone().unwrap_or_else(|| "judge".to_string()), true)
            }
            None => match self.by_key(&input)? {
                Some(found) => found,
                None => {
                    let a = self.assess(&input)?;
                    (a.decision, a.target, a.reason, false)
                }
            },
        };
        let out = self.write_tx(|s, tx| {
            let now = tx.now;
            match (decision, &target) {
                (Decision::Duplicate, Some(t)) => {
                    let old = s.current(&input.namespace, t)?;
                    let ack = s.fold(tx, old, 1, now, input.pinned)?;
                    Ok((t.key.clone(), ack.version, ack.seq))
                }
                (Decision::Supersede, Some(t)) => {
                    let old = s.current(&input.namespace, t)?;
                    let same_key = input.key.as_deref() == Some(t.key.as_str());
                    // The same key: a new version (the old content stays in its history); else a new memory, and
                    // the old one closed when the new one begins.
                    let (key, links, base) = if same_key {
                        (t.key.clone(), Coherence::default(), Some(old.version))
                    } else {
                        // The fact's own key if it gave one (the caller names the attribute), else a new one.
                        let (key, base) = match &input.key {
                            Some(k) => (k.clone(), None),
                            None => (s.new_key(&input, &ns, tx), Some(0)),
                        };
                        (key, Coherence { replaces: Some(t.key.clone()), ..Coherence::default() }, base)
                    };
                    let from = input.valid_from.unwrap_or(now).max(old.valid_from.unwrap_or(i64::MIN));
                    let ack = s.write_fact(tx, &input, key.clone(), Some(from), links, base)?;
                    if !same_key {
                        s.close_fact(tx, old, from, &key)?;
                    }
                    Ok((key, ack.version, ack.seq))
                }
                _ => {
                    let key = match &input.key {
                        Some(k) => k.clone(),
                        None => s.new_key(&input, &ns, tx),
                    };
                    let base = input.key.is_none().then_some(0);
                    let ack = s.write_fact(tx, &input, key.clone(), input.valid_from, Coherence::default(), base)?;
                    Ok((key, ack.version, ack.seq))
                }
            }
        });
        let (key, version, seq) = out?;
        self.maybe_maintain();
        Ok(Remembered {
            decision: if target.is_none() { Decision::New } else { decision },
            namespace: input.namespace,
            key,
            version,
            seq,
            target,
            reason,
            judged,
        })
    }

    /// With an explicit key that holds a current memory: the same words fold into it, others supersede it.
    fn by_key(&mut self, input: &RememberInput) -> Result<Option<Chosen>> {
        let Some(key) = &input.key else { return Ok(None) };
        let Some(m) = self.get_valid(&input.namespace, key, None, false, None)? else { return Ok(None) };
        let same = m.text.as_deref().is_some_and(|t| text::analyse(t).norm == text::analyse(&input.text).norm);
        let target = Target { key: key.clone(), version: m.version, text: m.text, similarity: None };
        Ok(Some(if same {
            (Decision::Duplicate, Some(target), "same key, same words".to_string(), false)
        } else {
            (Decision::Supersede, Some(target), "same key".to_string(), false)
        }))
    }

    fn coherence_settings(&self, input: &RememberInput) -> Result<CoherenceSettings> {
        let s = input.settings.unwrap_or(self.cfg.coherence);
        s.check()?;
        Ok(s)
    }

    /// The namespace's current memories closest to the fact: by vector and by words, in that namespace only.
    fn remember_candidates(
        &mut self,
        input: &RememberInput,
        settings: &CoherenceSettings,
        among: Option<&Among>,
    ) -> Result<Vec<Candidate>> {
        let k = settings.candidates + usize::from(among.is_some());
        // By vector when the fact has one (a fact's duplicates, translations and updates are all close there; a
        // lexical search as well would cost more than the write), else by words.
        let by_vector = input.embedding.is_some() && self.cfg.dims > 0;
        let q = match &input.embedding {
            Some(v) if by_vector => {
                SearchQuery { mode: Some(SearchMode::Vector), vector: Some(v.clone()), ..query(input, k) }
            }
            _ => SearchQuery { mode: Some(SearchMode::Lexical), text: Some(input.text.clone()), ..query(input, k) },
        };
        // A hit carries what the rules read (its text, version and time); with the cosine metric its vector score
        // is the similarity itself (exact: f32 graphs score exactly, quantised ones rescore their top from the
        // stored vectors), so only another metric reads the memory's vector.
        let cosine_scores = self.cfg.metric == crate::config::Metric::Cosine;
        let mut out: Vec<Candidate> = Vec::new();
        for h in self.search(&q)? {
            if h.namespace != input.namespace || out.iter().any(|c| c.key == h.key) {
                continue;
            }
            if among.is_some_and(|a| {
                a.key == h.key || h.created_at > a.before || (h.created_at == a.before && h.key > a.key)
            }) {
                continue;
            }
            let cos = match (&input.embedding, by_vector, cosine_scores) {
                (_, true, true) => h.vector_score,
                (Some(a), true, false) => self
                    .get_valid(&input.namespace, &h.key, None, true, None)?
                    .and_then(|m| m.embedding)
                    .map(|b| cosine(a, &b)),
                _ => None,
            };
            let text = h.text.unwrap_or_default();
            out.push(Candidate { key: h.key, version: h.version, facts: text::analyse(&text), text, cos });
        }
        Ok(out)
    }

    /// The memory a decision targets, current and at the version the decision saw (else CONFLICT: decide again).
    fn current(&mut self, ns: &[String], t: &Target) -> Result<Memory> {
        match self.get_valid(ns, &t.key, None, true, Some(ValidAt::Any))? {
            Some(m) if m.version == t.version && m.valid_to.is_none() => Ok(m),
            _ => Err(Error::new(
                ErrorCode::Conflict,
                format!("memory {:?} changed since the decision (version {})", t.key, t.version),
            )),
        }
    }

    /// Folds `seen` sightings (last at `at`) into `old`, pinning it too when `pin`: a new version, event put.
    #[inline(never)]
    pub(crate) fn fold(&mut self, tx: &mut Tx, old: Memory, seen: u64, at: i64, pin: bool) -> Result<WriteAck> {
        let mut c = Coherence::of(&old);
        c.seen = Some(c.seen.unwrap_or(1) + seen);
        c.last_seen = Some(at.max(c.last_seen.unwrap_or(0)));
        let pinned = old.pinned || pin;
        self.rewrite(tx, old, c, None, None, pinned, None)
    }

    /// Closes `old` in valid time at `at`, replaced by the memory at key `by`: a new version, event supersede.
    #[inline(never)]
    pub(crate) fn close_fact(&mut self, tx: &mut Tx, old: Memory, at: i64, by: &str) -> Result<WriteAck> {
        let mut c = Coherence::of(&old);
        c.replaced_by = Some(by.to_string());
        let at = at.max(old.valid_from.unwrap_or(i64::MIN));
        let pinned = old.pinned;
        self.rewrite(tx, old, c, None, Some(at), pinned, Some(by))
    }

    /// Writes `old` again with coherence fields `c`, valid from / to the times given (else as it was), as a new
    /// version (event supersede, naming `by`, when `by` is given; else put).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rewrite(
        &mut self,
        tx: &mut Tx,
        old: Memory,
        c: Coherence,
        valid_from: Option<i64>,
        valid_to: Option<i64>,
        pinned: bool,
        by: Option<&str>,
    ) -> Result<WriteAck> {
        let version = old.version;
        let put = MemoryPut {
            namespace: old.namespace,
            key: old.key,
            value: old.value,
            text: old.text,
            embedding: old.embedding,
            metadata: Some(old.metadata),
            pinned,
            ttl_ms: old.expires_at.map(|t| (t - tx.now).max(1) as u64),
            if_version: Some(version),
            valid_from: valid_from.or(old.valid_from),
            valid_to: valid_to.or(old.valid_to),
            coherence: None,
        };
        let mut p = self.prepare_put(&put)?;
        p.coherence = c.to_column();
        if let Some(by) = by {
            p.event = EventKind::Supersede;
            p.event_payload = Some(serde_json::json!({ "by": by }));
        }
        self.put_in_tx(tx, p)
    }

    /// Writes a remembered fact at `key` (`base`: the version it must replace, 0: none; None: any).
    #[inline(never)]
    fn write_fact(
        &mut self,
        tx: &mut Tx,
        input: &RememberInput,
        key: String,
        valid_from: Option<i64>,
        links: Coherence,
        base: Option<u64>,
    ) -> Result<WriteAck> {
        let put = MemoryPut {
            namespace: input.namespace.clone(),
            key,
            value: input.value.clone().unwrap_or_else(|| Value::String(input.text.clone())),
            text: Some(input.text.clone()),
            embedding: input.embedding.clone(),
            metadata: input.metadata.clone(),
            pinned: input.pinned,
            ttl_ms: None,
            if_version: base,
            valid_from,
            valid_to: None,
            coherence: None,
        };
        let mut p = self.prepare_put(&put)?;
        p.coherence = links.to_column();
        self.put_in_tx(tx, p)
    }

    /// A new memory's key: `m-` and 16 hex digits of a hash of the namespace, the fact, the time and the seq.
    fn new_key(&self, input: &RememberInput, ns: &str, tx: &Tx) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in ns.bytes().chain(input.text.bytes()).chain(tx.now.to_le_bytes()).chain((tx.seq + 1).to_le_bytes()) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        format!("m-{h:016x}")
    }
}

/// A search of the fact's namespace (and below: the caller keeps the namespace's own) for `k` hits.
fn query(input: &RememberInput, k: usize) -> SearchQuery {
    SearchQuery { namespace: input.namespace.clone(), k: Some(k), ..SearchQuery::default() }
}

/// Which memories a fact is compared with when it is itself stored (consolidate.rs): not itself, and only those
/// learned before it (`created_at`, then key).
pub(crate) struct Among {
    pub key: String,
    pub before: i64,
}

fn target_of(c: &Candidate, similarity: f64) -> Target {
    Target { key: c.key.clone(), version: c.version, text: Some(c.text.clone()), similarity: Some(similarity) }
}

/// Cosine similarity, whatever the store's metric.
fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        dot += (*x as f64) * (*y as f64);
        na += (*x as f64) * (*x as f64);
        nb += (*y as f64) * (*y as f64);
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}
