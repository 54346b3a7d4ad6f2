//! `consolidate`: `remember`'s rules over what a namespace already holds, a page at a time and resumable. Each
//! current memory is compared with the memories learned before it, as if it had just been remembered: one that
//! duplicates an older memory is closed and linked to it (the older one's seen count takes its own), one that
//! updates an older memory closes that one and links both ways. Nothing is deleted.

use super::rules::Decision;
use super::{Among, RememberInput, Remembered, Target};
use crate::base::error::Result;
use crate::base::types::{ListQuery, Memory};
use crate::features::memories::row::Coherence;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// A consolidation run over a namespace (and the namespaces under it, each on its own).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct ConsolidateQuery {
    pub namespace: Vec<String>,
    /// The `next_cursor` of the previous run.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Memories examined at most (1..=1000, default 100).
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub settings: Option<crate::config::CoherenceSettings>,
}

/// What a consolidation run did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ConsolidateReport {
    /// The duplicates and supersedes applied (a memory found new is not listed).
    pub decisions: Vec<Remembered>,
    pub examined: u64,
    /// Pass back to go on; None when the namespace is done.
    pub next_cursor: Option<String>,
}

impl Store {
    /// Applies `remember`'s rules to up to `limit` stored memories, from `cursor` on.
    pub fn consolidate(&mut self, q: &ConsolidateQuery) -> Result<ConsolidateReport> {
        let limit = q.limit.unwrap_or(100).clamp(1, 1000);
        let page = self.list(&ListQuery {
            prefix: q.namespace.clone(),
            cursor: q.cursor.clone(),
            limit: Some(limit),
            include_embeddings: true,
            ..ListQuery::default()
        })?;
        let mut decisions = Vec::new();
        let examined = page.items.len() as u64;
        for m in page.items {
            if let Some(r) = self.consolidate_one(m, q)? {
                decisions.push(r);
            }
        }
        Ok(ConsolidateReport { decisions, examined, next_cursor: page.next_cursor })
    }

    /// One memory against those learned before it; None when it is new (or no longer current).
    fn consolidate_one(&mut self, m: Memory, q: &ConsolidateQuery) -> Result<Option<Remembered>> {
        let Some(text) = m.text.clone() else { return Ok(None) };
        // An earlier memory of this run may have closed it.
        let Some(now) = self.get_valid(&m.namespace, &m.key, None, false, None)? else { return Ok(None) };
        if now.version != m.version {
            return Ok(None);
        }
        let input = RememberInput {
            namespace: m.namespace.clone(),
            text,
            embedding: m.embedding.clone(),
            settings: q.settings,
            ..RememberInput::default()
        };
        let a = self.assess_among(&input, Some(&Among { key: m.key.clone(), before: m.created_at }))?;
        let Some(older) = a.target.filter(|_| a.decision != Decision::New) else { return Ok(None) };
        let this = Target { key: m.key.clone(), version: m.version, text: m.text.clone(), similarity: None };
        let (version, seq) = self.write_tx(|s, tx| {
            let old = s.current(&m.namespace, &older)?;
            let mine = s.current(&m.namespace, &this)?;
            if a.decision == Decision::Duplicate {
                // The older memory takes this one's sightings; this one is closed, pointing at it.
                let ack = s.fold(tx, old, mine.seen.unwrap_or(1), mine.updated_at, false)?;
                s.close_fact(tx, mine, tx.now, &older.key)?;
                Ok((ack.version, ack.seq))
            } else {
                // This one replaces the older one from when it began.
                let from = mine.valid_from.unwrap_or(mine.created_at).max(old.valid_from.unwrap_or(i64::MIN));
                let mut links = Coherence::of(&mine);
                links.replaces = Some(older.key.clone());
                let pinned = mine.pinned;
                let ack = s.rewrite(tx, mine, links, Some(from), None, pinned, None)?;
                s.close_fact(tx, old, from, &m.key)?;
                Ok((ack.version, ack.seq))
            }
        })?;
        let duplicate = a.decision == Decision::Duplicate;
        Ok(Some(Remembered {
            decision: a.decision,
            namespace: m.namespace,
            // The memory that holds the fact now.
            key: if duplicate { older.key.clone() } else { m.key },
            version,
            seq,
            target: Some(older),
            reason: a.reason,
            judged: false,
        }))
    }
}
