//! AS OF search: the versions valid at a seq (after the plan's filters), scored exactly — the metric over
//! their stored f32 embeddings, BM25 through a scratch FTS5 table of their texts.

use super::feedback;
use super::fts_table::FtsTable;
use super::fusion::best_first_in_order;
use super::plan::{combine, hit, Plan, FEEDBACK_POSTINGS_BUDGET};
use super::query::SearchHit;
use crate::base::error::Result;
use crate::base::filter;
use crate::base::types::Memory;
use crate::config::Metric;
use crate::features::memories::crud::valid_sql;
use crate::features::memories::row::{row_to_memory, VER_COLS};
use crate::vectors::index::exact_score;
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, Connection};

/// AS OF search at seq `s` (committed at `ts`): loads the versions valid at the seq (after filters) and scores them
/// exactly — cosine/ip/l2 over the stored f32 embeddings, BM25 through a scratch FTS5 table.
pub(super) fn search(conn: &Connection, metric: Metric, plan: &Plan, s: u64, ts: i64) -> Result<Vec<SearchHit>> {
    let mut ps = vec![
        SqlValue::Integer(s as i64),
        SqlValue::Text(plan.prefix.clone()),
        SqlValue::Text(plan.end.clone()),
        SqlValue::Integer(ts),
    ];
    let mut cond_sql = String::new();
    if let Some(t) = plan.valid_at {
        ps.push(SqlValue::Integer(t));
        cond_sql.push_str(&valid_sql("", ps.len()));
    }
    cond_sql.push_str(&filter::compile(&plan.conds, "metadata", &mut ps)?);
    cond_sql.push_str(&filter::compile(&plan.value_conds, "value", &mut ps)?);
    let sql = format!(
        "SELECT {VER_COLS} FROM all_versions WHERE seq_from <= ?1 AND (seq_to IS NULL OR seq_to > ?1)
         AND ns >= ?2 AND ns < ?3 AND (expires_at IS NULL OR expires_at > ?4){cond_sql}"
    );
    let rows: Vec<Memory> = {
        let mut st = conn.prepare(&sql)?;
        let it =
            st.query_map(params_from_iter(ps.iter()), |r| row_to_memory(r, plan.vector.is_some()).map(|(_, m)| m))?;
        it.collect::<rusqlite::Result<_>>()?
    };
    let vec_list: Vec<(i64, f64)> = match &plan.vector {
        Some(q) => {
            let mut v: Vec<(i64, f64)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.embedding.as_ref().map(|e| (i as i64, exact_score(metric, q, e))))
                .collect();
            v.sort_by(best_first_in_order);
            v.truncate(plan.pool);
            v
        }
        None => Vec::new(),
    };
    let fuse = |lex_list: &[(i64, f64)]| {
        combine(plan, &vec_list, lex_list, &[], |i| {
            let (q, e) = (plan.vector.as_deref()?, rows.get(i as usize)?.embedding.as_deref()?);
            Some(exact_score(metric, q, e))
        })
    };
    let fused = with_scratch_fts(conn, &rows, |fts| {
        let lex_list = fts.bm25(&plan.terms, plan.pool)?;
        let fused = fuse(&lex_list);
        if !plan.wants_feedback() {
            return Ok(fused);
        }
        let texts: Vec<String> =
            fused.iter().take(plan.fusion.feedback_docs).filter_map(|f| rows[f.id as usize].text.clone()).collect();
        let n = rows.len() as u64; // as live search: the memories searched, with text or not
        let words = feedback::expansion_words(&texts, &plan.terms, n, &plan.fusion, FEEDBACK_POSTINGS_BUDGET, |w| {
            fts.count(w)
        })?;
        if words.is_empty() {
            return Ok(fused);
        }
        let candidates = fused.iter().map(|f| f.id).collect();
        Ok(fuse(&feedback::expand(&lex_list, &candidates, &words, plan.fusion.feedback_weight, plan.pool, |w| {
            fts.holders(w)
        })?))
    })?;
    Ok(fused.into_iter().take(plan.k).map(|f| hit(rows[f.id as usize].clone(), &f)).collect())
}

/// Runs `f` over a temporary FTS5 table of `rows`' texts (rowid = row index), then drops it.
fn with_scratch_fts<T>(conn: &Connection, rows: &[Memory], f: impl FnOnce(&FtsTable) -> Result<T>) -> Result<T> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS temp.asof_fts; CREATE VIRTUAL TABLE temp.asof_fts USING fts5 (text, content = '', columnsize = 0, tokenize = 'porter unicode61');",
    )?;
    let out = (|| -> Result<T> {
        {
            let mut ins = conn.prepare("INSERT INTO temp.asof_fts (rowid, text) VALUES (?1, ?2)")?;
            for (i, m) in rows.iter().enumerate() {
                if let Some(t) = &m.text {
                    ins.execute(params![i as i64, t])?;
                }
            }
        }
        f(&FtsTable { conn, name: "asof_fts" })
    })();
    conn.execute_batch("DROP TABLE IF EXISTS temp.asof_fts;")?;
    out
}
