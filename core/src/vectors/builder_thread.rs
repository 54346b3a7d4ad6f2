//! The native HNSW builder thread: one long-lived thread per vector index that inserts the batches
//! it is handed into the graph, one at a time, and reports each batch's outcome. Handing a batch
//! over and learning it is done are channel operations, so the write that does either pays a few
//! microseconds (spawning and joining a thread per batch cost ~140 µs on that write). What a batch
//! means for searches meanwhile is `index.rs`' business.

use super::graph::{insert, GraphLock};
use crate::config::ScalarKind;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use usearch::Index;

/// Vectors to insert, in the order they enter the graph.
pub type Batch = Arc<Vec<(u64, Vec<f32>)>>;

pub struct GraphBuilder {
    jobs: Option<Sender<Batch>>,
    done: Receiver<Result<(), String>>,
    thread: Option<JoinHandle<()>>,
}

impl GraphBuilder {
    /// Starts the thread; it inserts into `index` (of `scalar` graph vectors), taking a turn of `lock` for
    /// each insert.
    pub fn spawn(index: Arc<Index>, lock: Arc<GraphLock>, scalar: ScalarKind) -> std::io::Result<Self> {
        let (jobs, inbox) = channel::<Batch>();
        let (report, done) = channel();
        let thread = std::thread::Builder::new().name("edgemem-hnsw".into()).spawn(move || {
            for batch in inbox {
                if report.send(insert(&index, &lock, &batch, scalar)).is_err() {
                    break;
                }
            }
        })?;
        Ok(GraphBuilder { jobs: Some(jobs), done, thread: Some(thread) })
    }

    /// Hands a batch over (one at a time: the caller waits for the last one's outcome first).
    pub fn submit(&self, batch: Batch) -> Result<(), String> {
        let jobs = self.jobs.as_ref().ok_or("the builder thread has stopped")?;
        jobs.send(batch).map_err(|_| "the builder thread has stopped".to_string())
    }

    /// The submitted batch's outcome if it is done.
    pub fn try_done(&self) -> Option<Result<(), String>> {
        match self.done.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the builder thread stopped mid-batch".into())),
        }
    }

    /// Waits for the submitted batch's outcome.
    pub fn wait(&self) -> Result<(), String> {
        self.done.recv().map_err(|_| "the builder thread stopped mid-batch".to_string())?
    }
}

impl Drop for GraphBuilder {
    fn drop(&mut self) {
        // Closing the job channel ends the thread's loop once it has finished its batch.
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
