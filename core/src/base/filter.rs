//! Filters: conditions on top-level fields of a JSON column (a memory's metadata, or its value),
//! compiled to SQL over `json_extract(col, ...)` with bound parameters (never string-spliced values).

use crate::base::error::{Error, Result};
use rusqlite::types::Value as SqlValue;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum FilterOp {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    In,
    /// Not in the array; a missing field matches (LangGraph's `$nin`).
    Nin,
}

/// `metadata[field] <op> value` (or `value[field]` for a value filter). For `In` / `Nin`, `value` is an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Condition {
    pub field: String,
    pub op: FilterOp,
    pub value: Value,
}

impl Condition {
    pub fn eq(field: &str, value: Value) -> Self {
        Condition { field: field.into(), op: FilterOp::Eq, value }
    }
}

pub const MAX_CONDITIONS: usize = 16;

fn scalar(v: &Value) -> Result<SqlValue> {
    Ok(match v {
        Value::Bool(b) => SqlValue::Integer(*b as i64),
        Value::Number(n) => match n.as_i64() {
            Some(i) => SqlValue::Integer(i),
            None => SqlValue::Real(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        _ => return Err(Error::invalid("filter values must be strings, numbers or booleans")),
    })
}

/// The longest filterable field name, in bytes.
pub const MAX_FIELD_BYTES: usize = 128;

/// The SQL expression for `metadata[field]` (NULL when absent), pushing its parameter. Any field name a
/// memory can hold is filterable: names the stored JSON holds verbatim (no `"`, `\` or control
/// characters, which serde_json escapes) are looked up by a quoted JSON path — one `json_extract`, the
/// fast path; the others by comparing `json_each`'s decoded keys, since a JSON path cannot quote them.
fn field_expr(field: &str, col: &str, params: &mut Vec<SqlValue>) -> Result<String> {
    if field.is_empty() || field.len() > MAX_FIELD_BYTES {
        return Err(Error::invalid(format!("filter field must be 1..={MAX_FIELD_BYTES} bytes")));
    }
    if field.chars().any(|ch| ch == '"' || ch == '\\' || ch.is_control()) {
        params.push(SqlValue::Text(field.to_string()));
        return Ok(format!("(SELECT value FROM json_each({col}) WHERE key = ?{})", params.len()));
    }
    params.push(SqlValue::Text(format!("$.\"{field}\"")));
    Ok(format!("json_extract({col}, ?{})", params.len()))
}

/// Appends `AND (...)` clauses for `conds` over the metadata column `col`, pushing params.
pub fn compile(conds: &[Condition], col: &str, params: &mut Vec<SqlValue>) -> Result<String> {
    if conds.len() > MAX_CONDITIONS {
        return Err(Error::invalid(format!("at most {MAX_CONDITIONS} filter conditions")));
    }
    let mut sql = String::new();
    for c in conds {
        let lhs = field_expr(&c.field, col, params)?;
        let clause = match c.op {
            FilterOp::In | FilterOp::Nin => {
                let Value::Array(items) = &c.value else { return Err(Error::invalid("`in` and `nin` take an array")) };
                if items.is_empty() || items.len() > 100 {
                    return Err(Error::invalid("`in` and `nin` take 1..=100 values"));
                }
                let mut marks = Vec::new();
                for it in items {
                    params.push(scalar(it)?);
                    marks.push(format!("?{}", params.len()));
                }
                if c.op == FilterOp::In {
                    format!("{lhs} IN ({})", marks.join(", "))
                } else {
                    format!("({lhs} IS NULL OR {lhs} NOT IN ({}))", marks.join(", "))
                }
            }
            FilterOp::Eq if c.value.is_null() => format!("{lhs} IS NULL"),
            FilterOp::Ne if c.value.is_null() => format!("{lhs} IS NOT NULL"),
            op => {
                params.push(scalar(&c.value)?);
                let sym = match op {
                    FilterOp::Eq => "=",
                    FilterOp::Ne => "IS NOT",
                    FilterOp::Gt => ">",
                    FilterOp::Gte => ">=",
                    FilterOp::Lt => "<",
                    FilterOp::Lte => "<=",
                    FilterOp::In | FilterOp::Nin => unreachable!("handled above"),
                };
                format!("{lhs} {sym} ?{}", params.len())
            }
        };
        sql.push_str(" AND ");
        sql.push_str(&clause);
    }
    Ok(sql)
}
