//! The change feed's part of the Store API: publishing (`notify`, and `emit` for every write's
//! events), reading (`changes`) and subscribing. The feed itself — events, filters, subscribers and
//! their SQL — is state/feed.rs.

use crate::base::error::{Error, ErrorCode, Result};
use crate::state::feed::{ChangesPage, Event, EventFilter, Feed, NewEvent, SubscriptionId};
use crate::store::{Store, Tx};
use serde_json::Value;

pub const MAX_NOTIFY_PAYLOAD_BYTES: usize = 64 * 1024;
pub const MAX_CHANNEL_BYTES: usize = 256;

impl Store {
    /// Appends an event to the feed inside the current write transaction, with the full-text mark
    /// its memory's change made, if any.
    pub(crate) fn emit(&mut self, tx: &mut Tx, seq: u64, e: NewEvent) -> Result<()> {
        let mark = self.lexical.take_mark();
        Feed::record(&self.conn, tx.now, (tx.start + 1, seq), e, mark, &mut tx.events)
    }

    /// Publishes an application message through the change feed. Returns its seq.
    pub fn notify(&mut self, channel: &str, payload: Value) -> Result<u64> {
        if channel.is_empty() || channel.len() > MAX_CHANNEL_BYTES || channel.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "channel must be 1..={MAX_CHANNEL_BYTES} bytes without control characters"
            )));
        }
        let size = payload.to_string().len();
        if size > MAX_NOTIFY_PAYLOAD_BYTES {
            return Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("notify payload is {size} bytes, limit {MAX_NOTIFY_PAYLOAD_BYTES}"),
            ));
        }
        let seq = self.write_tx(|s, tx| {
            let seq = tx.next_seq();
            s.emit(tx, seq, NewEvent::notify(channel, &payload))?;
            Ok(seq)
        })?;
        self.maybe_maintain();
        Ok(seq)
    }

    /// Events with seq > `after` that match `filter`, oldest first, at most `limit` (≤ 10,000).
    /// RESUME_GAP (with `oldest_seq`) when events after `after` were already pruned.
    pub fn changes(&self, after: u64, filter: &EventFilter, limit: usize) -> Result<Vec<Event>> {
        Ok(self.changes_page(after, filter, limit)?.events)
    }

    /// `changes`, as a page that also ends once it holds about `MAX_PAGE_BYTES` of events
    /// (page_bytes.rs); `more` says it ended early (by count or size) and the caller should go on
    /// after its last event. Without `more`, every matching event up to the head was returned.
    pub fn changes_page(&self, after: u64, filter: &EventFilter, limit: usize) -> Result<ChangesPage> {
        self.feed.page(&self.conn, after, filter, limit)
    }

    /// The seq of the oldest event still retained (the feed's window starts there).
    pub fn oldest_event_seq(&self) -> Result<Option<u64>> {
        Feed::oldest_seq(&self.conn)
    }

    /// Calls `callback` for every later committed event matching `filter`.
    pub fn subscribe(&mut self, filter: EventFilter, callback: impl FnMut(&Event) + 'static) -> SubscriptionId {
        self.feed.subscribe(filter, Box::new(callback))
    }

    /// Stops a subscription; false if it was not active.
    pub fn unsubscribe(&mut self, id: SubscriptionId) -> bool {
        self.feed.unsubscribe(id)
    }
}
