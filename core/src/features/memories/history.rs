//! AS OF reads and history retention. A version is visible at seq S when
//! seq_from <= S < seq_to (seq_to NULL: still live), and it had not expired at S's commit time.
//! Time-based AS OF maps to the last seq committed at or before that time (the commit log).

use crate::base::error::Result;
use crate::base::namespace;
use crate::base::types::{AsOf, Memory, ValidAt};
use crate::features::memories::crud::history_pruned;
use crate::features::memories::row::{data_cols, mem_cols, row_to_memory, EXTRA_COL};
use crate::storage::time_index::{seq_by_time, ts_at_or_after, Bound};
use crate::store::Store;
use rusqlite::{params, OptionalExtension};

/// AS OF in one statement of two seeks in turn: the live row at (ns, key) if its version began at or before ?3
/// (then SQLite stops there: LIMIT 1), else the newest closed version that began at or before ?3, with where it
/// ended. A constant: a read neither formats nor allocates SQL.
const AS_OF_SQL: &str = concat!(
    "SELECT ",
    mem_cols!(),
    ", NULL FROM memories WHERE ns = ?1 AND key = ?2 AND seq <= ?3 UNION ALL SELECT * FROM (SELECT mem_id, ",
    data_cols!(),
    ", seq_from, size, seq_to FROM versions WHERE seq_to IS NOT NULL AND ns = ?1 AND key = ?2 AND seq_from <= ?3 \
     ORDER BY seq_from DESC LIMIT 1) LIMIT 1"
);

impl Store {
    /// The seq an `AsOf` names (a seq beyond the present is the present).
    pub fn resolve_as_of(&self, a: AsOf) -> Result<u64> {
        match a {
            AsOf::Seq(s) => Ok(s.min(self.seq)),
            AsOf::Time(t) => Ok(seq_by_time(&self.conn, t, Bound::AtOrBefore)?.unwrap_or(0)),
        }
    }

    /// The moment expiry is judged at for an AS OF read of seq `s`: the asked time itself for
    /// `AsOf::Time`, the commit time of `s` for `AsOf::Seq`.
    pub(crate) fn as_of_time(&self, a: AsOf, s: u64) -> Result<i64> {
        match a {
            AsOf::Time(t) => Ok(t),
            AsOf::Seq(_) => self.ts_of_seq(s),
        }
    }

    /// Commit time of the write that produced `seq` (now for the present).
    pub(crate) fn ts_of_seq(&self, seq: u64) -> Result<i64> {
        if seq >= self.seq {
            return Ok(self.now_ms().max(self.last_ts));
        }
        Ok(ts_at_or_after(&self.conn, seq)?.unwrap_or(self.last_ts))
    }

    /// The memory at (ns, key) as of `a`, valid at `valid_at` (default: the AS OF time).
    pub(crate) fn get_as_of(
        &mut self,
        ns: &[String],
        key: &str,
        a: AsOf,
        with_embedding: bool,
        valid_at: Option<ValidAt>,
    ) -> Result<Option<Memory>> {
        let ns = namespace::encode(ns)?;
        namespace::check_key(key)?;
        let s = self.resolve_as_of(a)?;
        // The live row first (one seek of its unique index): when it began at or before `s` it is the answer.
        // Else the newest closed version that began at or before `s` (one seek of `versions_key`), if it lasted
        // past `s`.
        let found = self
            .conn
            .prepare_cached(AS_OF_SQL)?
            .query_row(params![ns, key, s as i64], |r| {
                Ok((row_to_memory(r, with_embedding)?, r.get::<_, Option<i64>>(EXTRA_COL)?))
            })
            .optional()?
            .and_then(|(row, seq_to)| seq_to.is_none_or(|t| t as u64 > s).then_some(row));
        match found {
            Some((_, m)) => {
                let at = self.as_of_time(a, s)?;
                if m.expires_at.is_some_and(|exp| exp <= at) {
                    return Ok(None);
                }
                if ValidAt::resolve(valid_at, at).is_some_and(|t| !m.valid_at(t)) {
                    return Ok(None);
                }
                Ok(Some(m))
            }
            None if s < self.history_floor => Err(history_pruned(s, self.history_floor)),
            None => Ok(None),
        }
    }

    /// Drops past versions beyond retention (N per key, max age) and raises the history floor.
    pub(crate) fn prune_history(&mut self, now: i64) -> Result<()> {
        let r = self.cfg.retention;
        let mut floor = self.history_floor;
        if r.history_max_age_ms > 0 {
            let cutoff = now - r.history_max_age_ms as i64;
            let m: Option<i64> = self.conn.query_row(
                "SELECT MAX(seq_to) FROM versions WHERE seq_to IS NOT NULL AND ended_at < ?1",
                [cutoff],
                |row| row.get(0),
            )?;
            if let Some(m) = m {
                floor = floor.max(m as u64);
                self.conn.execute("DELETE FROM versions WHERE seq_to IS NOT NULL AND ended_at < ?1", [cutoff])?;
            }
        }
        if r.history_versions > 0 {
            let doomed = "SELECT ns, key, seq_from, seq_to FROM (SELECT ns, key, seq_from, seq_to,
                 row_number() OVER (PARTITION BY ns, key ORDER BY seq_from DESC) AS rn FROM versions WHERE seq_to IS NOT NULL) WHERE rn > ?1";
            let m: Option<i64> = self.conn.query_row(
                &format!("SELECT MAX(seq_to) FROM ({doomed})"),
                [r.history_versions as i64],
                |row| row.get(0),
            )?;
            if let Some(m) = m {
                floor = floor.max(m as u64);
                self.conn.execute(
                    &format!(
                        "DELETE FROM versions WHERE (ns, key, seq_from) IN (SELECT ns, key, seq_from FROM ({doomed}))"
                    ),
                    [r.history_versions as i64],
                )?;
            }
        }
        if floor > self.history_floor {
            crate::storage::schema::meta_set(&self.conn, "history_floor", floor as i64)?;
            // The commit log is only needed inside the retained window (keep the newest row).
            self.conn.execute(
                "DELETE FROM commits WHERE seq < ?1 AND seq < (SELECT MAX(seq) FROM commits)",
                [floor as i64],
            )?;
            self.history_floor = floor;
        }
        Ok(())
    }
}
