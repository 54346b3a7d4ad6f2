//! `context`: a prompt-ready block of memories within a token budget, in one call — the pinned memories, the
//! current facts most relevant to a query (with their valid time), and the latest changes of facts (what was
//! superseded by what). Tokens are estimated as one per four bytes of text, the usual rule for English with GPT-style
//! tokenizers; a caller with a tokenizer can give a smaller budget.

use crate::base::error::{Error, Result};
use crate::base::namespace;
use crate::base::types::{ListQuery, ValidAt};
use crate::features::search::fusion::best_first;
use crate::features::search::query::{SearchHit, SearchQuery};
use crate::state::feed::{EventFilter, EventKind};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// What `context` assembles.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct ContextQuery {
    /// What the prompt is about (lexical side of the relevance search).
    #[serde(default)]
    pub query: Option<String>,
    /// The query's vector (vector side).
    #[serde(default)]
    pub vector: Option<Vec<f32>>,
    /// Namespace prefixes to draw from (none: the whole store).
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    /// Tokens at most (default 1000, at most 100,000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Valid time (default now).
    #[serde(default)]
    #[cfg_attr(test, ts(type = "ValidAt", optional))]
    pub valid_at: Option<ValidAt>,
    /// Latest changes listed at most (default 5; 0: none).
    #[serde(default)]
    pub recent: Option<usize>,
}

/// One memory in the block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ContextItem {
    /// `pinned`, `relevant` or `recent`.
    pub section: String,
    pub namespace: Vec<String>,
    pub key: String,
    pub text: String,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub updated_at: i64,
    pub score: Option<f64>,
    /// For a recent supersede: the text it replaced.
    pub replaced: Option<String>,
}

/// The block and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ContextBlock {
    pub text: String,
    /// Estimated tokens of `text` (bytes / 4, rounded up).
    pub tokens: u64,
    pub items: Vec<ContextItem>,
}

const MAX_BUDGET: usize = 100_000;

impl Store {
    /// The block for `q` (see the module doc).
    pub fn context(&mut self, q: &ContextQuery) -> Result<ContextBlock> {
        let budget = q.budget.unwrap_or(1000);
        if budget == 0 || budget > MAX_BUDGET {
            return Err(Error::invalid(format!("budget must be 1..={MAX_BUDGET} tokens")));
        }
        let prefixes = if q.namespaces.is_empty() { vec![Vec::new()] } else { q.namespaces.clone() };
        for p in &prefixes {
            namespace::encode_prefix(p)?;
        }
        let mut block = Block { budget: budget * 4, used: 0, items: Vec::new(), text: String::new() };
        // Pinned memories first.
        block.heading("Pinned");
        for p in &prefixes {
            let mut cursor = None;
            loop {
                let page = self.list(&ListQuery {
                    prefix: p.clone(),
                    cursor,
                    valid_at: q.valid_at,
                    limit: Some(1000),
                    ..ListQuery::default()
                })?;
                for m in page.items.into_iter().filter(|m| m.pinned) {
                    let Some(text) = m.text.clone() else { continue };
                    block.add(ContextItem {
                        section: "pinned".into(),
                        namespace: m.namespace,
                        key: m.key,
                        text,
                        valid_from: m.valid_from,
                        valid_to: m.valid_to,
                        updated_at: m.updated_at,
                        score: None,
                        replaced: None,
                    });
                }
                match page.next_cursor {
                    Some(c) if !block.full() => cursor = Some(c),
                    _ => break,
                }
            }
        }
        // Then what the query finds, best first across the namespaces, leaving a fifth for the recent changes.
        let recent = q.recent.unwrap_or(5);
        let full_budget = block.budget;
        if recent > 0 {
            block.budget = block.used.max(full_budget * 4 / 5);
        }
        if q.query.is_some() || q.vector.is_some() {
            block.heading("Relevant facts");
            let mut hits = Vec::new();
            for p in &prefixes {
                let s = SearchQuery {
                    text: q.query.clone(),
                    vector: q.vector.clone().filter(|_| self.cfg.dims > 0),
                    namespace: p.clone(),
                    k: Some(50),
                    valid_at: q.valid_at,
                    ..SearchQuery::default()
                };
                if s.text.is_none() && s.vector.is_none() {
                    continue;
                }
                hits.extend(self.search(&s)?);
            }
            let mut order: Vec<(i64, f64)> = hits.iter().enumerate().map(|(i, h)| (i as i64, h.score)).collect();
            order.sort_by(best_first);
            let mut hits: Vec<Option<SearchHit>> = hits.into_iter().map(Some).collect();
            for h in order.iter().filter_map(|(i, _)| hits[*i as usize].take()) {
                let Some(text) = h.text.clone() else { continue };
                block.add(ContextItem {
                    section: "relevant".into(),
                    namespace: h.namespace,
                    key: h.key,
                    text,
                    valid_from: h.valid_from,
                    valid_to: h.valid_to,
                    updated_at: h.updated_at,
                    score: Some(h.score),
                    replaced: None,
                });
            }
        }
        block.budget = full_budget;
        block.used = block.used.min(full_budget);
        if recent > 0 {
            block.heading("Recent changes");
            self.recent_changes(&prefixes, recent, &mut block)?;
        }
        block.finish();
        let tokens = block.text.len().div_ceil(4) as u64;
        Ok(ContextBlock { text: block.text, tokens, items: block.items })
    }

    /// The latest `n` supersedes under the prefixes (among the last 2,000 changes), newest first, each as the fact
    /// that replaced and the one it replaced.
    fn recent_changes(&mut self, prefixes: &[Vec<String>], n: usize, block: &mut Block) -> Result<()> {
        let floor = self.seq.saturating_sub(2000);
        let mut changes = Vec::new();
        for p in prefixes {
            let filter = EventFilter {
                kinds: vec![EventKind::Supersede],
                namespaces: if p.is_empty() { Vec::new() } else { vec![p.clone()] },
                ..EventFilter::default()
            };
            let page = self.changes_page(floor, &filter, 1000)?;
            changes.extend(page.events);
        }
        // Newest first (sorted as (index, seq) pairs with search's own order).
        let mut order: Vec<(i64, f64)> = changes.iter().enumerate().map(|(i, e)| (i as i64, e.seq as f64)).collect();
        order.sort_by(best_first);
        let mut shown = 0;
        for e in order.iter().map(|(i, _)| &changes[*i as usize]) {
            if shown == n || block.full() {
                break;
            }
            let (Some(ns), Some(key)) = (e.namespace.clone(), e.key.clone()) else { continue };
            let Some(m) = self.get_valid(&ns, &key, None, false, Some(ValidAt::Any))? else {
                continue;
            };
            let Some(text) = m.text.clone() else { continue };
            // A supersede is shown as what replaced it.
            let (n, replaced, key) = match (e.kind, &m.replaced_by) {
                (EventKind::Supersede, Some(by)) if by != &key => match self.get_valid(&ns, by, None, false, None)? {
                    Some(n) => (n, Some(text), by.clone()),
                    None => continue,
                },
                _ => continue,
            };
            if block.items.iter().any(|i| i.key == key && i.namespace == ns && i.section == "recent") {
                continue;
            }
            let before = block.items.len();
            block.add(ContextItem {
                section: "recent".into(),
                namespace: ns,
                key,
                text: n.text.unwrap_or_default(),
                valid_from: n.valid_from,
                valid_to: n.valid_to,
                updated_at: n.updated_at,
                score: None,
                replaced,
            });
            shown += usize::from(block.items.len() > before);
        }
        Ok(())
    }
}

/// The block being written, within its budget in bytes.
struct Block {
    budget: usize,
    used: usize,
    items: Vec<ContextItem>,
    text: String,
}

impl Block {
    /// Nothing more fits (a line is rarely shorter than 24 bytes).
    fn full(&self) -> bool {
        self.used + 24 > self.budget
    }

    /// A section's heading, written with its first item (a section without one leaves none).
    fn heading(&mut self, title: &str) {
        self.finish();
        self.text.push('\u{0}');
        self.text.push_str(title);
    }

    /// Drops a heading no item followed.
    fn finish(&mut self) {
        if let Some(i) = self.text.find('\u{0}') {
            self.text.truncate(i);
        }
    }

    /// Adds `item` as a line when it fits and is not already in the block (a memory is listed once).
    fn add(&mut self, item: ContextItem) {
        if item.section != "recent"
            && self.items.iter().any(|i| i.key == item.key && i.namespace == item.namespace && i.section != "recent")
        {
            return;
        }
        let mut line = format!("- {}", item.text.replace('\n', " "));
        match (item.valid_from, item.valid_to) {
            (Some(f), None) => line.push_str(&format!(" (since {})", day(f))),
            (Some(f), Some(t)) => line.push_str(&format!(" ({} to {})", day(f), day(t))),
            (None, Some(t)) => line.push_str(&format!(" (until {})", day(t))),
            (None, None) => {}
        }
        if let Some(r) = &item.replaced {
            line.push_str(&format!(" (was: {})", r.replace('\n', " ")));
        }
        line.push('\n');
        let heading = self.text.rfind('\u{0}').map(|i| self.text[i + 1..].to_string());
        let cost = line.len() + heading.as_ref().map_or(0, |h| h.len() + 4);
        if self.used + cost > self.budget {
            return;
        }
        if let Some(h) = heading {
            let at = self.text.len() - h.len() - 1;
            self.text.truncate(at);
            self.text.push_str(&format!("## {h}\n"));
        }
        self.text.push_str(&line);
        self.used += cost;
        self.items.push(item);
    }
}

/// A time (ms since epoch) as its UTC day, `YYYY-MM-DD` (civil-from-days, Howard Hinnant's algorithm).
fn day(ms: i64) -> String {
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn days() {
        assert_eq!(super::day(0), "1970-01-01");
        assert_eq!(super::day(1_795_000_000_000), "2026-11-18");
        assert_eq!(super::day(951_782_400_000), "2000-02-29");
    }
}
