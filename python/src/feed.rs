//! `NativeFeed`: one in-process subscription's events, handed from the store's thread to Python's.

use pyo3::prelude::*;
use std::sync::{Arc, Condvar, Mutex};

/// The events of one in-process subscription, queued by the engine's callback on the store's thread (which never
/// calls into Python: a callback that called the store back would wait on the thread running it) and taken by
/// `next` on the caller's, with the GIL released while it waits.
#[pyclass(frozen, module = "edgemem._native")]
pub(crate) struct NativeFeed {
    pub(crate) queue: Arc<(Mutex<FeedQueue>, Condvar)>,
    pub(crate) id: u64,
}

#[derive(Default)]
pub(crate) struct FeedQueue {
    pub(crate) events: std::collections::VecDeque<String>,
    pub(crate) closed: bool,
}

#[pymethods]
impl NativeFeed {
    /// The next event as JSON; None when the feed is closed, or when nothing came within `timeout` seconds.
    #[pyo3(signature = (timeout=None))]
    fn next(&self, py: Python<'_>, timeout: Option<f64>) -> Option<String> {
        let q = self.queue.clone();
        py.detach(move || {
            let (lock, cv) = &*q;
            let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
            let deadline = timeout.map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t.max(0.0)));
            loop {
                if let Some(e) = g.events.pop_front() {
                    return Some(e);
                }
                if g.closed {
                    return None;
                }
                match deadline {
                    None => g = cv.wait(g).unwrap_or_else(|e| e.into_inner()),
                    Some(d) => {
                        let now = std::time::Instant::now();
                        if now >= d {
                            return None;
                        }
                        g = cv.wait_timeout(g, d - now).unwrap_or_else(|e| e.into_inner()).0;
                    }
                }
            }
        })
    }

    /// The subscription's id in the engine.
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }

    /// Marks the feed closed (its store closed): `next` answers None once the queued events are taken.
    fn close(&self) {
        close_feed(&self.queue);
    }
}

pub(crate) fn close_feed(q: &(Mutex<FeedQueue>, Condvar)) {
    q.0.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
    q.1.notify_all();
}
