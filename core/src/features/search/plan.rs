//! A search's plan: the query checked and resolved once (mode, depth, terms, vector, filters, fusion
//! settings), the filter SQL over live memories, and how ranked lists become hits.

use super::fusion::{fuse, Fused, FusionParams};
use super::query::{SearchHit, SearchMode, SearchQuery, MAX_K};
use super::terms;
use crate::base::error::{Error, ErrorCode, Result};
use crate::base::filter::{self, Condition};
use crate::base::namespace;
use crate::base::types::Memory;
use crate::config::{Sequence, StoreConfig};
use crate::features::memories::crud::valid_sql;
use foldhash::HashSet;
use rusqlite::types::Value as SqlValue;
use rusqlite::Connection;

/// Hybrid feedback (feedback.rs) reads at most about this many postings of expansion words.
pub(super) const FEEDBACK_POSTINGS_BUDGET: u64 = 128;

pub(super) struct Plan {
    pub mode: SearchMode,
    pub k: usize,
    pub pool: usize,
    /// Lexical query terms (empty: no lexical side, or nothing searchable in the text).
    pub terms: Vec<String>,
    pub vector: Option<Vec<f32>>,
    pub prefix: String,
    pub end: String,
    pub conds: Vec<Condition>,
    pub value_conds: Vec<Condition>,
    pub fusion: FusionParams,
    /// Neighbour scoring's weight (neighbours.rs); 0: off.
    pub neighbour_weight: f64,
    /// Valid time hits must be valid at (ms since epoch; None: any). `search` resolves it (default: the read's time).
    pub valid_at: Option<i64>,
    /// The live memories left out though no filter names them (`hidden`), found once per search.
    pub hidden: HashSet<i64>,
}

impl Plan {
    /// Hybrid searches with a lexical side re-score their candidates with expansion words
    /// (feedback.rs).
    pub(super) fn wants_feedback(&self) -> bool {
        let f = &self.fusion;
        self.mode == SearchMode::Hybrid
            && !self.terms.is_empty()
            && f.feedback_docs > 0
            && f.feedback_terms > 0
            && f.feedback_weight.is_finite()
            && f.feedback_weight > 0.0
    }
}

pub(super) fn plan(q: &SearchQuery, cfg: &StoreConfig) -> Result<Plan> {
    let mode = match (q.mode, &q.text, &q.vector) {
        (Some(m), _, _) => m,
        (None, Some(_), Some(_)) => SearchMode::Hybrid,
        (None, None, Some(_)) => SearchMode::Vector,
        (None, Some(_), None) => SearchMode::Lexical,
        (None, None, None) => return Err(Error::invalid("search needs `text`, `vector` or both")),
    };
    let k = q.k.unwrap_or(10);
    if k == 0 || k > MAX_K {
        return Err(Error::invalid(format!("k must be 1..={MAX_K}")));
    }
    if q.offset > MAX_K - k {
        return Err(Error::invalid(format!("offset + k must be at most {MAX_K}")));
    }
    // The plan ranks the first offset + k; `search` drops the first `offset`.
    let k = k + q.offset;
    let wants_vec = mode != SearchMode::Lexical;
    let wants_lex = mode != SearchMode::Vector;
    let vector = if wants_vec {
        let v = q.vector.clone().ok_or_else(|| Error::invalid(format!("{mode:?} search needs `vector`")))?;
        crate::vectors::index::validate(&v, cfg.dims, cfg.metric, cfg.scalar)?;
        Some(v)
    } else {
        None
    };
    let terms = if wants_lex {
        let t = q.text.as_deref().ok_or_else(|| Error::invalid(format!("{mode:?} search needs `text`")))?;
        if t.len() > 16 * 1024 {
            return Err(Error::new(ErrorCode::PayloadTooLarge, "search text is limited to 16 KiB"));
        }
        terms::terms(t)
    } else {
        Vec::new()
    };
    let fusion = q.fusion.unwrap_or_default();
    fusion.check()?;
    let neighbour_weight = fusion.neighbour_weight.unwrap_or(match cfg.sequence {
        Sequence::Namespace => super::fusion::NEIGHBOUR_DEFAULT_WEIGHT,
        Sequence::None => 0.0,
    });
    // Neighbour scoring re-ranks a deeper list than k in every mode.
    let pool = if mode == SearchMode::Hybrid || neighbour_weight > 0.0 { fusion.pool.max(k) } else { k };
    let prefix = namespace::encode_prefix(&q.namespace)?;
    let end = namespace::prefix_end(&prefix).unwrap_or_else(|| "\u{10FFFF}".to_string());
    let mut probe = Vec::new();
    filter::compile(&q.filter, "metadata", &mut probe)?;
    filter::compile(&q.value_filter, "value", &mut probe)?;
    Ok(Plan {
        mode,
        k,
        pool,
        terms,
        vector,
        prefix,
        end,
        conds: q.filter.clone(),
        value_conds: q.value_filter.clone(),
        fusion,
        neighbour_weight,
        valid_at: None,
        hidden: HashSet::default(),
    })
}

/// Filter SQL over live memories (alias-free columns), params starting after `base`.
pub(super) fn live_filter(plan: &Plan, now: i64, base: &mut Vec<SqlValue>) -> Result<String> {
    base.push(SqlValue::Text(plan.prefix.clone()));
    let p = base.len();
    base.push(SqlValue::Text(plan.end.clone()));
    base.push(SqlValue::Integer(now));
    let mut sql = format!("m.ns >= ?{p} AND m.ns < ?{} AND (m.expires_at IS NULL OR m.expires_at > ?{})", p + 1, p + 2);
    if let Some(t) = plan.valid_at {
        base.push(SqlValue::Integer(t));
        sql.push_str(&valid_sql("m.", base.len()));
    }
    sql.push_str(&filter::compile(&plan.conds, "m.metadata", base)?);
    sql.push_str(&filter::compile(&plan.value_conds, "m.value", base)?);
    Ok(sql)
}

/// The live memories a search must leave out though no filter names them: expired but not swept yet, or not
/// valid at the plan's valid time. Empty (the usual case: two seeks of partial indexes) when there are none.
pub(super) fn hidden(conn: &Connection, plan: &Plan, now: i64) -> Result<HashSet<i64>> {
    let mut ids: HashSet<i64> = HashSet::default();
    let mut collect = |sql: &str, t: i64| -> Result<()> {
        let mut st = conn.prepare_cached(sql)?;
        for id in st.query_map([t], |r| r.get::<_, i64>(0))? {
            ids.insert(id?);
        }
        Ok(())
    };
    collect("SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?1", now)?;
    if let Some(t) = plan.valid_at {
        collect("SELECT id FROM memories WHERE valid_to IS NOT NULL AND valid_to <= ?1", t)?;
        collect("SELECT id FROM memories WHERE valid_from IS NOT NULL AND valid_from > ?1", t)?;
    }
    Ok(ids)
}

/// The mode's ranking of the live lists, with the `extra` candidates (neighbours, in neither list) after them:
/// in vector mode with their exact similarity (those without a vector left out), in lexical mode scoring 0;
/// they hold no rank in either list.
pub(super) fn combine(
    plan: &Plan,
    vec_list: &[(i64, f64)],
    lex_list: &[(i64, f64)],
    extra: &[i64],
    rescore: impl Fn(i64) -> Option<f64>,
) -> Vec<Fused> {
    let mut out: Vec<Fused> = match plan.mode {
        SearchMode::Vector => vec_list
            .iter()
            .enumerate()
            .map(|(i, (id, s))| Fused { id: *id, score: *s, vector: Some((i as u32 + 1, *s)), lexical: None })
            .chain(
                extra
                    .iter()
                    .filter_map(|id| rescore(*id).map(|s| Fused { id: *id, score: s, vector: None, lexical: None })),
            )
            .collect(),
        SearchMode::Lexical => lex_list
            .iter()
            .enumerate()
            .map(|(i, (id, s))| Fused { id: *id, score: *s, vector: None, lexical: Some((i as u32 + 1, *s)) })
            .chain(extra.iter().map(|id| Fused { id: *id, score: 0.0, vector: None, lexical: None }))
            .collect(),
        SearchMode::Hybrid => return fuse(vec_list, lex_list, extra, &plan.fusion, rescore),
    };
    if !extra.is_empty() {
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    }
    out
}

pub(super) fn hit(m: Memory, f: &Fused) -> SearchHit {
    SearchHit {
        namespace: m.namespace,
        key: m.key,
        value: m.value,
        text: m.text,
        metadata: m.metadata,
        version: m.version,
        seq: m.seq,
        created_at: m.created_at,
        updated_at: m.updated_at,
        score: f.score,
        vector_rank: f.vector.map(|v| v.0),
        vector_score: f.vector.map(|v| v.1),
        lexical_rank: f.lexical.map(|v| v.0),
        lexical_score: f.lexical.map(|v| v.1),
        valid_from: m.valid_from,
        valid_to: m.valid_to,
    }
}
