//! Time → seq over the engine's seq-keyed logs (`commits`, `events`), whose `ts` never decreases as
//! seq grows (the store's clock never goes backwards): a binary search over rowid seeks, so the logs
//! need no index on `ts` — one b-tree page fewer to write on every commit.
//!
//! The commit log is two tables: every seq's event carries its commit's time, so a write stores no
//! commit row of its own (one page fewer per commit); `commits` holds what the events no longer do —
//! rows of pruned events (feed.rs keeps one per time) and an import's history. A question about the
//! commit log asks both tables.

use crate::base::error::Result;
use rusqlite::{Connection, OptionalExtension};

/// The tables the commit log is kept in.
const LOGS: [&str; 2] = ["commits", "events"];

/// The last committed (seq, ts), or None for an empty store.
pub(crate) fn last_commit(conn: &Connection) -> Result<Option<(u64, i64)>> {
    let mut last: Option<(u64, i64)> = None;
    for table in LOGS {
        let row: Option<(i64, i64)> = conn
            .prepare_cached(&format!("SELECT seq, ts FROM {table} ORDER BY seq DESC LIMIT 1"))?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((seq, ts)) = row {
            if last.is_none_or(|(s, _)| seq as u64 > s) {
                last = Some((seq as u64, ts));
            }
        }
    }
    Ok(last)
}

/// The commit log in (after, upto]: each commit's last seq and time, oldest first, at most `max` of them, and
/// whether more follow. A commit is a `commits` row, or the run of events that share a `tx` (events written
/// before schema v7 have none: their commits are `commits` rows). Reads the rows once, in seq order.
pub(crate) fn commit_times(conn: &Connection, after: u64, upto: u64, max: usize) -> Result<(Vec<(u64, i64)>, bool)> {
    const PAGE: i64 = 4096;
    // A `commits` row is a commit of its own: its group is -seq, never an event's tx (a seq, positive).
    let mut st = conn.prepare_cached(
        "SELECT seq, ts, -seq FROM commits WHERE seq > ?1 AND seq <= ?2
         UNION ALL SELECT seq, ts, tx FROM events WHERE seq > ?1 AND seq <= ?2 AND tx IS NOT NULL ORDER BY seq LIMIT ?3",
    )?;
    let mut out: Vec<(u64, i64)> = Vec::new();
    let mut group = None;
    let mut from = after.min(i64::MAX as u64) as i64;
    loop {
        let rows: Vec<(i64, i64, i64)> = st
            .query_map(rusqlite::params![from, upto.min(i64::MAX as u64) as i64, PAGE], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        for &(seq, ts, tx) in &rows {
            let full = out.len() == max;
            match out.last_mut() {
                Some(last) if group == Some(tx) => *last = (seq as u64, ts),
                _ if full => return Ok((out, true)),
                _ => {
                    out.push((seq as u64, ts));
                    group = Some(tx);
                }
            }
        }
        match rows.last() {
            Some(&(seq, ..)) if rows.len() as i64 == PAGE => from = seq,
            _ => return Ok((out, false)),
        }
    }
}

/// The last seq committed within `bound` of time `t`, or None.
pub(crate) fn seq_by_time(conn: &Connection, t: i64, bound: Bound) -> Result<Option<u64>> {
    let a = last_seq_by_time(conn, LOGS[0], t, bound)?;
    let b = last_seq_by_time(conn, LOGS[1], t, bound)?;
    Ok(a.max(b))
}

/// The commit time of the first seq at or after `seq`, or None past the last commit.
pub(crate) fn ts_at_or_after(conn: &Connection, seq: u64) -> Result<Option<i64>> {
    let mut first: Option<(i64, i64)> = None;
    for table in LOGS {
        let row: Option<(i64, i64)> = conn
            .prepare_cached(&format!("SELECT seq, ts FROM {table} WHERE seq >= ?1 ORDER BY seq LIMIT 1"))?
            .query_row([seq.min(i64::MAX as u64) as i64], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some(r) = row {
            if first.is_none_or(|f| r.0 < f.0) {
                first = Some(r);
            }
        }
    }
    Ok(first.map(|(_, ts)| ts))
}

/// Which rows count as "before" the time.
#[derive(Clone, Copy)]
pub(crate) enum Bound {
    /// ts <= t
    AtOrBefore,
    /// ts < t
    Before,
}

/// The largest seq in `table` (a `seq INTEGER PRIMARY KEY, ts` log) whose ts is within `bound` of
/// `t`, or None. O(log n) primary-key seeks.
pub(crate) fn last_seq_by_time(conn: &Connection, table: &'static str, t: i64, bound: Bound) -> Result<Option<u64>> {
    let ok = |ts: i64| match bound {
        Bound::AtOrBefore => ts <= t,
        Bound::Before => ts < t,
    };
    let range: Option<(i64, i64)> = conn
        // Two subqueries: SQLite answers a lone MIN or MAX from the b-tree's ends, MIN and MAX together by a scan.
        .prepare_cached(&format!("SELECT (SELECT MIN(seq) FROM {table}), (SELECT MAX(seq) FROM {table})"))?
        .query_row([], |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)))?;
    let Some((first, last)) = range else { return Ok(None) };
    // The first row at or after `seq` (it exists while seq <= last).
    let mut at = conn.prepare_cached(&format!("SELECT seq, ts FROM {table} WHERE seq >= ?1 ORDER BY seq LIMIT 1"))?;
    let mut row_at = |seq: i64| -> Result<Option<(i64, i64)>> {
        Ok(at.query_row([seq], |r| Ok((r.get(0)?, r.get(1)?))).optional()?)
    };
    match row_at(first)? {
        Some((_, ts)) if ok(ts) => {}
        _ => return Ok(None),
    }
    // Invariant: `lo` is a row that is within the bound; no row in (hi, last] is.
    let (mut lo, mut hi) = (first, last);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        match row_at(mid)? {
            Some((seq, ts)) if ok(ts) => lo = seq,
            _ => hi = mid - 1,
        }
    }
    Ok(Some(lo as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The commit log read from both tables: a `commits` row is a commit, a run of events sharing a `tx` is one
    /// (events without a `tx` are left to `commits`), in lines of `max`.
    #[test]
    fn commit_times_keep_the_last_seq_of_each_commit() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE commits (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL);
             CREATE TABLE events (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL, tx INTEGER);
             INSERT INTO commits VALUES (2, 10), (4, 20);
             INSERT INTO events VALUES (3, 20, NULL), (4, 20, NULL), (5, 20, 5), (6, 20, 5), (7, 20, 7), (8, 30, 8),
               (9, 40, 9), (10, 40, 9), (11, 50, 11);",
        )
        .unwrap();
        let all = commit_times(&c, 0, 100, usize::MAX).unwrap();
        assert_eq!(all, (vec![(2, 10), (4, 20), (6, 20), (7, 20), (8, 30), (10, 40), (11, 50)], false));
        assert_eq!(commit_times(&c, 0, 9, 2).unwrap(), (vec![(2, 10), (4, 20)], true));
        assert_eq!(commit_times(&c, 4, 9, 3).unwrap(), (vec![(6, 20), (7, 20), (8, 30)], true));
        assert_eq!(commit_times(&c, 8, 9, 3).unwrap(), (vec![(9, 40)], false));
        assert_eq!(last_commit(&c).unwrap(), Some((11, 50)));
        assert_eq!(ts_at_or_after(&c, 3).unwrap(), Some(20));
        assert_eq!(seq_by_time(&c, 25, Bound::AtOrBefore).unwrap(), Some(7));
    }

    #[test]
    fn finds_the_last_row_within_the_bound() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE log (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL)").unwrap();
        let empty = |t| last_seq_by_time(&c, "log", t, Bound::AtOrBefore).unwrap();
        assert_eq!(empty(10), None);
        // Gaps in seq, runs of equal ts.
        let rows = [(3, 100), (4, 100), (9, 105), (12, 105), (13, 105), (20, 110), (41, 200)];
        for (s, t) in rows {
            c.execute("INSERT INTO log VALUES (?1, ?2)", [s, t]).unwrap();
        }
        for t in 90..=210 {
            let want_le = rows.iter().filter(|(_, ts)| *ts <= t).map(|(s, _)| *s as u64).max();
            let want_lt = rows.iter().filter(|(_, ts)| *ts < t).map(|(s, _)| *s as u64).max();
            assert_eq!(last_seq_by_time(&c, "log", t, Bound::AtOrBefore).unwrap(), want_le, "<= {t}");
            assert_eq!(last_seq_by_time(&c, "log", t, Bound::Before).unwrap(), want_lt, "< {t}");
        }
    }
}
