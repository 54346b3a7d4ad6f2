//! The change feed: every put / delete / expire / evict / checkpoint / notify is an event with
//! its seq, stored in SQLite for `changes(after)` (resume) and delivered in-process to
//! subscribers after the commit that made it true. Old events are pruned by retention;
//! asking for events older than the retained window is RESUME_GAP.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::namespace;
use crate::base::page_bytes::PageBudget;
use crate::base::wire_enum::wire_enum;
use crate::config::Retention;
use crate::storage::time_index::{last_seq_by_time, Bound};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::Value;

wire_enum! {
    /// What an event records: `as_str` is what serde, the stored `kind` column and the generated
    /// TypeScript use. A new kind is one line here.
    pub enum EventKind {
        Put = "put",
        Delete = "delete",
        Expire = "expire",
        Evict = "evict",
        Checkpoint = "checkpoint",
        Notify = "notify",
        Supersede = "supersede",
    }
}

impl EventKind {
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.as_str() == s)
    }
}

impl Serialize for EventKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(d)?;
        EventKind::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown event kind {name:?}")))
    }
}

/// One change. Memory events carry namespace/key/version; checkpoint events carry the thread
/// id in `channel` and the checkpoint id in `key` (a checkpoint put, or pending writes added to it; without a
/// `key`, the thread was deleted), and in `payload` `{"checkpointNs": …}` when the checkpoint namespace is not
/// the root (""); notify carries channel and payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Event {
    pub seq: u64,
    pub ts: i64,
    #[cfg_attr(test, ts(type = "EventKind"))]
    pub kind: EventKind,
    pub namespace: Option<Vec<String>>,
    pub key: Option<String>,
    pub version: Option<u64>,
    pub channel: Option<String>,
    pub payload: Option<Value>,
}

/// Which events a consumer wants. `kinds` applies to every event; `namespaces` (prefixes) only
/// to memory events (put / delete / expire / evict); `channels` only to notify events. An
/// empty list means "all".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EventFilter {
    #[serde(default)]
    #[cfg_attr(test, ts(type = "EventKind[]"))]
    pub kinds: Vec<EventKind>,
    /// Namespace prefixes (memory events only).
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    /// Notify channels (notify events only).
    #[serde(default)]
    pub channels: Vec<String>,
}

impl EventFilter {
    pub fn matches(&self, e: &Event) -> bool {
        if !self.kinds.is_empty() && !self.kinds.contains(&e.kind) {
            return false;
        }
        if !self.namespaces.is_empty() {
            if let Some(ns) = &e.namespace {
                if !self.namespaces.iter().any(|p| ns.len() >= p.len() && ns[..p.len()] == p[..]) {
                    return false;
                }
            }
        }
        if !self.channels.is_empty() && e.kind == EventKind::Notify {
            let Some(ch) = &e.channel else { return false };
            if !self.channels.contains(ch) {
                return false;
            }
        }
        true
    }
}

pub type SubscriptionId = u64;

pub(crate) type Callback = Box<dyn FnMut(&Event)>;

/// The Store's change-feed part: in-process subscribers and the floor below which events were pruned.
#[derive(Default)]
pub(crate) struct Feed {
    subs: Vec<(SubscriptionId, EventFilter, Callback)>,
    next_id: SubscriptionId,
    /// Highest pruned event seq: `changes(after)` with after < floor is RESUME_GAP.
    floor: u64,
}

/// What `Feed::record` stores of an event besides its seq and time.
pub(crate) struct NewEvent<'a> {
    kind: EventKind,
    /// Encoded (`namespace::encode`).
    ns: Option<&'a str>,
    key: Option<&'a str>,
    version: Option<u64>,
    channel: Option<&'a str>,
    payload: Option<&'a Value>,
}

impl<'a> NewEvent<'a> {
    /// A memory's put, delete, eviction or expiry (`ns` encoded).
    pub fn memory(kind: EventKind, ns: &'a str, key: &'a str, version: u64) -> Self {
        NewEvent { kind, ns: Some(ns), key: Some(key), version: Some(version), channel: None, payload: None }
    }
    /// The event with `payload`.
    pub fn with_payload(mut self, payload: Option<&'a Value>) -> Self {
        self.payload = payload;
        self
    }
    /// A checkpoint put: its id as the key, its thread as the channel.
    /// `in_ns`: `{"checkpointNs": …}` for a checkpoint outside the thread's root namespace.
    pub fn checkpoint(checkpoint_id: &'a str, thread_id: &'a str, in_ns: Option<&'a Value>) -> Self {
        NewEvent {
            kind: EventKind::Checkpoint,
            ns: None,
            key: Some(checkpoint_id),
            version: None,
            channel: Some(thread_id),
            payload: in_ns,
        }
    }
    /// A thread's checkpoints deleted: a checkpoint event without a checkpoint id.
    pub fn thread_deleted(thread_id: &'a str) -> Self {
        NewEvent {
            kind: EventKind::Checkpoint,
            ns: None,
            key: None,
            version: None,
            channel: Some(thread_id),
            payload: None,
        }
    }
    /// An application message.
    pub fn notify(channel: &'a str, payload: &'a Value) -> Self {
        NewEvent {
            kind: EventKind::Notify,
            ns: None,
            key: None,
            version: None,
            channel: Some(channel),
            payload: Some(payload),
        }
    }
}

impl Feed {
    /// Continues after the events pruned before (on open).
    pub fn load(conn: &Connection) -> Result<Feed> {
        Ok(Feed { floor: crate::storage::schema::meta_u64(conn, "events_floor")?, ..Feed::default() })
    }

    /// Highest pruned event seq: `changes(after)` with after < floor is RESUME_GAP.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// Sets the floor the feed's retained events start after: an import's seq, or the floor before a
    /// prune that rolled back.
    pub fn reset_floor(&mut self, floor: u64) {
        self.floor = floor;
    }

    /// Calls `callback` for every later delivered event matching `filter`.
    pub fn subscribe(&mut self, filter: EventFilter, callback: Callback) -> SubscriptionId {
        self.next_id += 1;
        let id = self.next_id;
        self.subs.push((id, filter, callback));
        id
    }

    /// Stops a subscription; false if it was not active.
    pub fn unsubscribe(&mut self, id: SubscriptionId) -> bool {
        let before = self.subs.len();
        self.subs.retain(|(i, _, _)| *i != id);
        self.subs.len() != before
    }

    /// Hands a committed event to the subscribers whose filter it matches.
    pub fn deliver(&mut self, e: &Event) {
        for (_, f, cb) in self.subs.iter_mut() {
            if f.matches(e) {
                cb(e);
            }
        }
    }

    /// Stores event `e` with its `seq` and time `now` (inside the current write transaction) and
    /// adds it to `out`, the events to deliver once that transaction commits. `tx`: the first seq of
    /// that transaction (its events' `tx`: the commit log's boundaries, time_index.rs) and the event's.
    /// `mark`: the full-text mark of the memory's change (lexical_buffer.rs).
    pub fn record(
        conn: &Connection,
        now: i64,
        (tx, seq): (u64, u64),
        e: NewEvent,
        mark: Option<crate::state::lexical_buffer::Mark>,
        out: &mut Vec<Event>,
    ) -> Result<()> {
        let payload_text = e.payload.map(|p| p.to_string());
        conn.prepare_cached(
            "INSERT INTO events (seq, ts, kind, ns, key, version, channel, payload, tx, fts_id, fts_indexed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(rusqlite::params![
            seq as i64,
            now,
            e.kind.as_str(),
            e.ns,
            e.key,
            e.version.map(|v| v as i64),
            e.channel,
            payload_text,
            tx as i64,
            mark.map(|m| m.0),
            mark.map(|m| m.1)
        ])?;
        out.push(Event {
            seq,
            ts: now,
            kind: e.kind,
            namespace: e.ns.map(namespace::decode),
            key: e.key.map(str::to_string),
            version: e.version,
            channel: e.channel.map(str::to_string),
            payload: e.payload.cloned(),
        });
        Ok(())
    }

    /// Stored events with seq > `after` that match `filter`, oldest first: at most `limit` (clamped
    /// to 1..=10,000) and about `MAX_PAGE_BYTES` (page_bytes.rs). RESUME_GAP (with `oldest_seq`) when
    /// events after `after` were already pruned.
    pub fn page(&self, conn: &Connection, after: u64, filter: &EventFilter, limit: usize) -> Result<ChangesPage> {
        if after < self.floor {
            let mut e = Error::new(
                ErrorCode::ResumeGap,
                format!("events after seq {after} were pruned; the feed starts after seq {}", self.floor),
            );
            e.oldest_seq = Some(self.floor + 1);
            return Err(e);
        }
        let limit = limit.clamp(1, 10_000);
        let mut events = Vec::new();
        let mut budget = PageBudget::new();
        let mut cursor = after;
        // Filter in Rust over pages of events, so a selective filter still fills `limit`.
        loop {
            let page: Vec<(Event, usize)> = {
                let mut st = conn.prepare_cached(
                    "SELECT seq, ts, kind, ns, key, version, channel, payload, COALESCE(length(payload), 0) FROM events WHERE seq > ?1 ORDER BY seq LIMIT 512",
                )?;
                let rows = st.query_map([cursor as i64], |r| Ok((row_to_event(r)?, r.get::<_, i64>(8)? as usize)))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            if page.is_empty() {
                break;
            }
            cursor = page.last().map(|(e, _)| e.seq).unwrap_or(cursor);
            for (e, bytes) in page {
                if filter.matches(&e) {
                    let full = budget.take(bytes);
                    events.push(e);
                    if full || events.len() >= limit {
                        return Ok(ChangesPage { events, more: true });
                    }
                }
            }
        }
        Ok(ChangesPage { events, more: false })
    }

    /// The seq of the oldest event still retained.
    pub fn oldest_seq(conn: &Connection) -> Result<Option<u64>> {
        let v: Option<i64> = conn.query_row("SELECT MIN(seq) FROM events", [], |r| r.get(0))?;
        Ok(v.map(|v| v as u64))
    }

    /// Prunes events beyond the retention window `r` (count, for a store at `seq`, and age at
    /// `now`); raises the floor.
    pub fn prune(&mut self, conn: &Connection, r: &Retention, seq: u64, now: i64) -> Result<()> {
        let mut cut: u64 = 0;
        if r.events_max > 0 && seq > r.events_max {
            let by_count: Option<i64> = conn
                .query_row("SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?1", [r.events_max as i64], |row| {
                    row.get(0)
                })
                .or_else(|e| if let rusqlite::Error::QueryReturnedNoRows = e { Ok(None) } else { Err(e) })?;
            cut = cut.max(by_count.unwrap_or(0) as u64);
        }
        if r.events_max_age_ms > 0 {
            let by_age = last_seq_by_time(conn, "events", now - r.events_max_age_ms as i64, Bound::Before)?;
            cut = cut.max(by_age.unwrap_or(0));
        }
        if cut > self.floor {
            // The events are the commit log too (time_index.rs): their commits stay in `commits`, one row each
            // (events written before schema v7 have no `tx`: their commits are there already).
            conn.execute(
                "INSERT OR REPLACE INTO commits (seq, ts)
                 SELECT MAX(seq), MAX(ts) FROM events WHERE seq <= ?1 AND tx IS NOT NULL GROUP BY tx",
                [cut as i64],
            )?;
            conn.execute("DELETE FROM events WHERE seq <= ?1", [cut as i64])?;
            crate::storage::schema::meta_set(conn, "events_floor", cut as i64)?;
            self.floor = cut;
        }
        Ok(())
    }
}

fn row_to_event(r: &rusqlite::Row) -> rusqlite::Result<Event> {
    let kind: String = r.get(2)?;
    let ns: Option<String> = r.get(3)?;
    let payload: Option<String> = r.get(7)?;
    Ok(Event {
        seq: r.get::<_, i64>(0)? as u64,
        ts: r.get(1)?,
        kind: EventKind::parse(&kind).ok_or_else(|| unknown_kind(&kind))?,
        namespace: ns.as_deref().map(namespace::decode),
        key: r.get(4)?,
        version: r.get::<_, Option<i64>>(5)?.map(|v| v as u64),
        channel: r.get(6)?,
        payload: payload.and_then(|p| serde_json::from_str(&p).ok()),
    })
}

/// A stored event of a kind this engine does not know (a newer engine wrote it, or the row was damaged):
/// an error, never mistaken for another kind.
fn unknown_kind(kind: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        2,
        rusqlite::types::Type::Text,
        format!("unknown event kind {kind:?} in the change feed").into(),
    )
}

/// A page of the change feed (see `Store::changes_page`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChangesPage {
    pub events: Vec<Event>,
    /// The page ended at its limit or its size: more events may follow its last one.
    pub more: bool,
}

#[cfg(test)]
mod tests {
    use super::EventKind;
    use crate::{ErrorCode, EventFilter, Store, StoreConfig};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn every_kind_round_trips_through_its_name_and_serde() {
        for &k in EventKind::ALL {
            assert_eq!(EventKind::parse(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<EventKind>(&json).unwrap(), k);
        }
        assert_eq!(EventKind::parse("Notify"), None);
        let err = serde_json::from_str::<EventKind>("\"bogus\"").unwrap_err();
        assert!(err.to_string().contains("unknown event kind"), "{err}");
    }

    /// A stored kind this engine does not know is an error, not a notify event.
    #[test]
    fn an_unknown_stored_kind_is_an_error() {
        let mut s = Store::open(StoreConfig::memory(0)).unwrap();
        let seq = s.notify("chan", serde_json::json!(1)).unwrap();
        s.conn.execute("UPDATE events SET kind = 'renamed' WHERE seq = ?1", [seq as i64]).unwrap();
        let err = s.changes(0, &EventFilter::default(), 10).unwrap_err();
        assert_eq!(err.code, ErrorCode::Internal);
        assert!(err.message.contains("unknown event kind \"renamed\""), "{}", err.message);
    }
}
