//! `Worker`: the thread that owns one open engine `Store`. The engine is single-threaded (its VFS finds a store's
//! page store in a thread-local registry, its parts are `Rc`s), while Python calls come from any thread — the
//! caller's, or asyncio's executor threads. Each call is a closure sent here and answered over its own channel;
//! the caller waits with the GIL released, so other Python threads (and an event loop) run meanwhile.
//!
//! The hand-off spins before it sleeps, on both sides: a call that follows another within `SPIN` costs no
//! futex wake-up. Measured on the 2-core VM: a round trip of a trivial call is ~1 µs while both sides spin and
//! ~100 µs through a sleeping thread's wake-up; with a spin shorter than that wake-up (50 µs was tried) one slow
//! wake makes the other side give up too, and every later call stays slow. So the spin outlasts a wake-up, and
//! it yields the core at each turn (a busy-wait in place on a loaded machine held the core the other side needed
//! for its whole length: 800 µs a call; spinning in place for the first 4–100 µs before yielding was measured
//! too, and gained nothing here). A side notifies the other only when that one sleeps: a condvar's notify is a
//! system call even with no one waiting, and two per call made a trivial call's round trip 1.3 µs, not 1.0.

use edgemem_core::{Error, Result, Store};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the store's thread does around calls for a host that commits each call on its own (a file store's redo
/// log, pages.rs): `begin` before a call, `commit` after it (before the answer: an acknowledged write is
/// committed), `after` once the call is answered, `abort` when it cannot be committed, `idle` as the thread goes
/// to sleep, `close` at the end.
pub trait Host {
    fn begin(&self) -> std::result::Result<(), String>;
    fn commit(&self) -> std::result::Result<(), String>;
    fn after(&self);
    fn abort(&self);
    fn idle(&self);
    fn close(&self) -> std::result::Result<(), String>;
    /// Gives up after a failure: nothing more is written.
    fn poison(&self);
}

/// The store's thread's state: the store (None once closed) and its host's hooks.
pub struct Engine {
    store: Option<Store>,
    host: Option<Rc<dyn Host>>,
}

impl Engine {
    /// Runs `f` as one call: `begin`, `f`, `commit`. A call the host cannot commit, or one that panicked (the
    /// engine's state unknown), is dropped and closes the store: nothing half-done is ever committed, and the
    /// files keep every earlier commit.
    fn call<R>(&mut self, f: impl FnOnce(&mut Option<Store>, Option<&dyn Host>) -> Result<R>) -> Result<R> {
        let Some(host) = self.host.clone() else {
            return std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut self.store, None)))
                .unwrap_or_else(|_| Err(Error::internal("the engine panicked")));
        };
        if self.store.is_none() {
            return f(&mut self.store, Some(&*host)); // closed: nothing to begin or commit
        }
        if let Err(e) = host.begin() {
            return Err(self.fail(&*host, format!("the store's files could not be recovered ({e})")));
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut self.store, Some(&*host)))) {
            Ok(r) => match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| host.commit())) {
                Ok(Ok(())) => r,
                Ok(Err(e)) => Err(self.fail(&*host, format!("the write could not be committed ({e})"))),
                Err(_) => Err(self.fail(&*host, "its commit panicked".into())),
            },
            Err(_) => Err(self.fail(&*host, "the engine panicked".into())),
        }
    }

    /// Drops the call's writes and the store (whatever closing it writes is dropped too), and the host gives up:
    /// the files keep every earlier commit, the log is left for the next open.
    fn fail(&mut self, host: &dyn Host, why: String) -> Error {
        let store = self.store.take();
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            host.abort();
            drop(store);
            host.abort();
        }));
        host.poison();
        Error::internal(format!("{why}; the store was closed without it: open it again"))
    }

    /// The host's work once a call is answered; a panic in it gives the host up (the next call fails and closes).
    fn after(&self) {
        if let Some(h) = &self.host {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.after())).is_err() {
                h.poison();
            }
        }
    }

    /// The host's work as the thread goes idle, as `after`.
    fn idle(&self) {
        if let Some(h) = &self.host {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.idle())).is_err() {
                h.poison();
            }
        }
    }
}

type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// How long either side spins for the other before it sleeps (longer than a futex wake-up here, ~100 µs).
const SPIN: Duration = Duration::from_micros(400);

/// One job slot shared by the caller and the store's thread.
struct Slot {
    /// EMPTY, JOB (a job waits in `job`), STOP (end the thread).
    state: AtomicU8,
    job: Mutex<Option<Job>>,
    wake: Condvar,
    /// The store's thread sleeps on `wake` (a notify is a system call: made only then).
    sleeping: AtomicBool,
}

const EMPTY: u8 = 0;
const JOB: u8 = 1;
const STOP: u8 = 2;

/// One call's answer: the caller spins, then sleeps on it.
struct Answer<R> {
    ready: AtomicU8,
    value: Mutex<Option<R>>,
    wake: Condvar,
    /// The caller sleeps on `wake`.
    sleeping: AtomicBool,
}

pub struct Worker {
    /// The process that started the thread: a forked child has the memory but not the thread.
    pid: u32,
    slot: Arc<Slot>,
    /// Callers take turns: one job in flight at a time (the engine runs one call at a time anyway).
    turn: Mutex<()>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// Waits until `flag` holds a value `want` accepts: spins for `SPIN`, then sleeps on `cv` with `lock`, saying so
/// in `sleeping`. The waker stores `flag`, then reads `sleeping` (`wake`); both sides' store-then-load are SeqCst,
/// so either the waker sees the sleeper, or the sleeper sees the flag before it waits: no wake-up is lost.
/// `before_sleep` runs once, just before the sleep (the store's thread checkpoints then).
fn wait_until<T>(
    flag: &AtomicU8,
    want: impl Fn(u8) -> bool,
    lock: &Mutex<T>,
    cv: &Condvar,
    sleeping: &AtomicBool,
    before_sleep: impl FnOnce(),
) {
    if want(flag.load(Ordering::Acquire)) {
        return;
    }
    let start = Instant::now();
    while !want(flag.load(Ordering::Acquire)) {
        if start.elapsed() > SPIN {
            before_sleep();
            let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
            sleeping.store(true, Ordering::SeqCst);
            while !want(flag.load(Ordering::SeqCst)) {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            sleeping.store(false, Ordering::Relaxed);
            return;
        }
        // Yield rather than spin in place: when the two threads share one core (the machine is busy), the other
        // side runs now instead of after this side's whole spin.
        std::thread::yield_now();
    }
}

/// Wakes the side sleeping on `cv` (after the caller's SeqCst store of the flag it waits for), if it sleeps.
fn wake<T>(lock: &Mutex<T>, cv: &Condvar, sleeping: &AtomicBool) {
    if sleeping.load(Ordering::SeqCst) {
        let _g = lock.lock().unwrap_or_else(|e| e.into_inner());
        cv.notify_one();
    }
}

impl Worker {
    /// Starts the thread and opens the store there with `open`; its error is returned as the engine's.
    pub fn spawn(open: impl FnOnce() -> Result<(Store, Option<Rc<dyn Host>>)> + Send + 'static) -> Result<Worker> {
        let slot = Arc::new(Slot {
            state: AtomicU8::new(EMPTY),
            job: Mutex::new(None),
            wake: Condvar::new(),
            sleeping: AtomicBool::new(false),
        });
        let (tx, rx) = std::sync::mpsc::channel::<Result<()>>();
        let s = slot.clone();
        let thread = std::thread::Builder::new()
            .name("edgemem-store".into())
            .spawn(move || {
                let opened = open().and_then(|(store, host)| {
                    // Opening may write (a new store's schema, a hot journal rolled back): committed first.
                    match &host {
                        Some(h) => {
                            h.commit().map_err(|e| Error::internal(format!("cannot commit the store's opening: {e}")))
                        }
                        None => Ok(()),
                    }
                    .map(|()| Engine { store: Some(store), host })
                });
                let mut engine = match opened {
                    Ok(engine) => {
                        let _ = tx.send(Ok(()));
                        engine
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                loop {
                    let idle = || engine.idle();
                    wait_until(&s.state, |v| v != EMPTY, &s.job, &s.wake, &s.sleeping, idle);
                    if s.state.load(Ordering::Acquire) == STOP {
                        break;
                    }
                    let job = s.job.lock().unwrap_or_else(|e| e.into_inner()).take();
                    s.state.store(EMPTY, Ordering::Release);
                    if let Some(job) = job {
                        job(&mut engine);
                        engine.after();
                    }
                }
                let _ = engine.call(|s, _| s.take().map_or(Ok(()), |st| st.close()));
                if let Some(h) = engine.host.take() {
                    let _ = h.close();
                }
            })
            .map_err(|e| Error::internal(format!("cannot start the store's thread: {e}")))?;
        match rx.recv() {
            Ok(Ok(())) => {
                Ok(Worker { pid: std::process::id(), slot, turn: Mutex::new(()), thread: Mutex::new(Some(thread)) })
            }
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(Error::internal("the store's thread ended while opening"))
            }
        }
    }

    /// Runs `f` on the store's thread and returns its answer; INVALID_ARGUMENT once the store is closed.
    pub fn run<R: Send + 'static>(&self, f: impl FnOnce(&mut Store) -> Result<R> + Send + 'static) -> Result<R> {
        self.run_with_host(move |s, _| f(s))
    }

    /// `run`, `f` also given the host (the bench commits each of its writes as a call's would be).
    pub fn run_with_host<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store, Option<&dyn Host>) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        self.run_opt(move |s, host| match s.as_mut() {
            Some(st) => f(st, host),
            None => Err(Error::invalid("the store is closed")),
        })
    }

    fn run_opt<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Option<Store>, Option<&dyn Host>) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        if std::process::id() != self.pid {
            // Waiting for a thread that does not exist in this process would hang.
            return Err(Error::invalid("this store was opened in another process (before a fork): open it again here"));
        }
        let _turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        if self.thread.lock().unwrap_or_else(|e| e.into_inner()).is_none() {
            return Err(Error::invalid("the store is closed"));
        }
        let answer = Arc::new(Answer {
            ready: AtomicU8::new(0),
            value: Mutex::new(None),
            wake: Condvar::new(),
            sleeping: AtomicBool::new(false),
        });
        let a = answer.clone();
        let job: Job = Box::new(move |engine| {
            let r = engine.call(f);
            *a.value.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            a.ready.store(1, Ordering::SeqCst);
            wake(&a.value, &a.wake, &a.sleeping);
        });
        *self.slot.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        self.slot.state.store(JOB, Ordering::SeqCst);
        wake(&self.slot.job, &self.slot.wake, &self.slot.sleeping);
        wait_until(&answer.ready, |v| v != 0, &answer.value, &answer.wake, &answer.sleeping, || {});
        let v = answer.value.lock().unwrap_or_else(|e| e.into_inner()).take();
        v.unwrap_or_else(|| Err(Error::internal("the store's thread gave no answer")))
    }

    /// Closes the store (flushing it) and ends its thread. Closing twice is a no-op.
    pub fn close(&self) -> Result<()> {
        if std::process::id() != self.pid {
            return Ok(()); // a forked child's copy: the parent's thread and file are the parent's to close
        }
        let r = self.run_opt(|s, _| match s.take() {
            Some(st) => st.close(),
            None => Ok(()),
        });
        let _turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            self.slot.state.store(STOP, Ordering::SeqCst);
            wake(&self.slot.job, &self.slot.wake, &self.slot.sleeping);
            let _ = t.join();
        }
        match r {
            Err(e) if e.message == "the store is closed" => Ok(()),
            r => r,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
