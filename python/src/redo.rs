//! `Log`: a file store's redo log (`<path>-redo`), the npm package's format (js/src/pages/redo-log.ts) written
//! and read from Rust: each transaction's chunks appended and made durable at once at its commit, and the
//! committed transactions a crashed writer (Python or Node) left found again on open.
//!
//! Layout (u32 words, little-endian): a 32-byte header (magic `edgemlog`, version 1, chunk size, salt, checksum
//! of the 24 bytes before it), then frames: a 32-byte head (kind, a, b, 0, salt, running checksum) and a payload:
//! page (kind 1, a = file id, b = chunk index, one chunk), cut (kind 3, a = file id, the new length as two
//! words), commit (kind 2, a = entry count, 24-byte entries: file id, exists, floor, size). A frame counts only
//! with the salt and SQLite's WAL checksum carried on from the header; the scan stops at the first that fails,
//! so a torn write, an uncommitted transaction's frames and frames from before the last reset are never used.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub const CHUNK: u64 = 8192;
const HEADER: u64 = 32;
const HEAD: usize = 32;
const MAGIC: [u32; 2] = [0x6567_6465, 0x676f_6c6d];
const VERSION: u32 = 1;
const KIND_PAGE: u32 = 1;
const KIND_COMMIT: u32 = 2;
const KIND_CUT: u32 = 3;
const ENTRY: usize = 24;
/// The file grows in steps of this many bytes, zeros written ahead of the frames: a flush of writes over blocks
/// the file has is a flush of data alone, one that grows it also commits the file system's journal.
const GROW_BYTES: u64 = 1 << 20;
/// A reset cuts the file back to its header once it grew past this (one very large transaction).
const KEEP_BYTES: u64 = 64 << 20;
/// Page frames written in one write at most (512 KiB): a larger transaction is written in pieces.
const BATCH: usize = 64;

/// A frame of a logged transaction: a chunk whose bytes are at `at` in the log, or a cut of a file.
pub enum Op {
    Page { file: u32, chunk: u64, at: u64 },
    Cut { file: u32, size: u64 },
}

/// What a commit says of one file: gone (`exists` false), or cut to `floor` first, chunks written, then `size`.
pub struct Entry {
    pub file: u32,
    pub exists: bool,
    pub floor: u64,
    pub size: u64,
}

/// A committed transaction: its frames in order, then what its commit says of each file.
pub struct Logged {
    pub ops: Vec<Op>,
    pub entries: Vec<Entry>,
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

fn put_words(b: &mut [u8], words: &[u32]) {
    for (i, w) in words.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
}

/// SQLite's WAL checksum over `b` (a multiple of 8 bytes), carried on from `sum`.
fn checksum(b: &[u8], sum: (u32, u32)) -> (u32, u32) {
    let (mut s1, mut s2) = sum;
    for pair in b.chunks_exact(8) {
        let v = u64::from_le_bytes(pair.try_into().unwrap_or([0; 8]));
        s1 = s1.wrapping_add(v as u32).wrapping_add(s2);
        s2 = s2.wrapping_add((v >> 32) as u32).wrapping_add(s1);
    }
    (s1, s2)
}

/// A salt unlike the last one (frames of an older salt then never pass for new ones): the time and the process,
/// hashed with the standard library's randomly keyed hasher.
fn new_salt(old: (u32, u32)) -> (u32, u32) {
    use std::hash::{BuildHasher, Hasher};
    loop {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        h.write_u32(std::process::id());
        let v = h.finish();
        let salt = (v as u32, (v >> 32) as u32);
        if salt != old {
            return salt;
        }
    }
}

pub struct Log {
    file: File,
    path: PathBuf,
    /// Commits flushed to the disk (power-loss safety), not only written (process-crash safety).
    durable: bool,
    salt: (u32, u32),
    /// Where the next frame goes, and the checksum carried to there.
    end: u64,
    sum: (u32, u32),
    /// The end of the last committed transaction, and the checksum there.
    committed_end: u64,
    committed_sum: (u32, u32),
    /// The file's length as last written or cut.
    length: u64,
    buf: Vec<u8>,
}

fn err(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("{what} {}: {e}", path.display())
}

impl Log {
    /// Opens (creating) the log at `path` and scans it: the committed transactions it holds, in order. A log
    /// without a valid header is started over.
    pub fn open(path: &Path, durable: bool) -> Result<(Log, Vec<Logged>), String> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| err("cannot open", path, e))?;
        let length = file.metadata().map_err(|e| err("cannot stat", path, e))?.len();
        let mut log = Log {
            file,
            path: path.to_path_buf(),
            durable,
            salt: (0, 0),
            end: HEADER,
            sum: (0, 0),
            committed_end: HEADER,
            committed_sum: (0, 0),
            length,
            buf: Vec::new(),
        };
        let found = match log.scan() {
            Some(found) => found,
            None => {
                log.reset()?;
                Vec::new()
            }
        };
        Ok((log, found))
    }

    /// Bytes of committed frames since the last reset.
    pub fn used(&self) -> u64 {
        self.committed_end - HEADER
    }

    /// The committed transactions, or None when the header is missing or torn; frames then go after them.
    fn scan(&mut self) -> Option<Vec<Logged>> {
        let mut head = [0u8; HEAD];
        self.file.read_exact_at(&mut head, 0).ok()?;
        let sum = checksum(&head[..24], (0, 0));
        if word(&head, 0) != MAGIC[0] || word(&head, 1) != MAGIC[1] || word(&head, 2) != VERSION {
            return None;
        }
        if word(&head, 3) as u64 != CHUNK || word(&head, 6) != sum.0 || word(&head, 7) != sum.1 {
            return None;
        }
        let salt = (word(&head, 4), word(&head, 5));
        self.salt = salt;
        let mut s = salt;
        self.committed_end = HEADER;
        self.committed_sum = s;
        let mut at = HEADER;
        let (mut found, mut ops) = (Vec::new(), Vec::new());
        let mut body = Vec::new();
        loop {
            if self.file.read_exact_at(&mut head, at).is_err() {
                break;
            }
            if word(&head, 4) != salt.0 || word(&head, 5) != salt.1 || word(&head, 3) != 0 {
                break;
            }
            let kind = word(&head, 0);
            let len = match kind {
                KIND_PAGE => CHUNK as usize,
                KIND_CUT => 8,
                KIND_COMMIT => word(&head, 1) as usize * ENTRY,
                _ => break,
            };
            if len > 1 << 20 {
                break;
            }
            body.resize(len, 0);
            if self.file.read_exact_at(&mut body, at + HEAD as u64).is_err() {
                break;
            }
            let next = checksum(&body, checksum(&head[..24], s));
            if word(&head, 6) != next.0 || word(&head, 7) != next.1 {
                break;
            }
            s = next;
            match kind {
                KIND_PAGE => {
                    ops.push(Op::Page { file: word(&head, 1), chunk: word(&head, 2) as u64, at: at + HEAD as u64 })
                }
                KIND_CUT => ops.push(Op::Cut {
                    file: word(&head, 1),
                    size: word(&body, 0) as u64 | (word(&body, 1) as u64) << 32,
                }),
                _ => {
                    let entries = body
                        .chunks_exact(ENTRY)
                        .map(|e| Entry {
                            file: word(e, 0),
                            exists: word(e, 1) == 1,
                            floor: word(e, 2) as u64 | (word(e, 3) as u64) << 32,
                            size: word(e, 4) as u64 | (word(e, 5) as u64) << 32,
                        })
                        .collect();
                    found.push(Logged { ops: std::mem::take(&mut ops), entries });
                    self.committed_end = at + (HEAD + len) as u64;
                    self.committed_sum = s;
                }
            }
            at += (HEAD + len) as u64;
        }
        self.end = self.committed_end;
        self.sum = self.committed_sum;
        Some(found)
    }

    /// Reads logged bytes at `at` into `dst`.
    pub fn read(&self, at: u64, dst: &mut [u8]) -> Result<(), String> {
        self.file.read_exact_at(dst, at).map_err(|e| err("cannot read", &self.path, e))
    }

    /// Writes `chunks` (file id, chunk index, bytes) as page frames of the running transaction, not committed (a
    /// large transaction's chunks leave memory this way): where each chunk's bytes are in the log.
    pub fn append(&mut self, chunks: &[(u32, u64, &[u8])]) -> Result<Vec<u64>, String> {
        let mut offsets = Vec::with_capacity(chunks.len());
        for part in chunks.chunks(BATCH) {
            let (start, sum) = (self.end, self.sum);
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            for at in self.frames(&mut buf, part) {
                offsets.push(start + at);
            }
            let r = self.write(&buf);
            self.buf = buf;
            if let Err(e) = r {
                self.sum = sum; // the frames never were: the chain goes on from before them
                return Err(e);
            }
        }
        Ok(offsets)
    }

    /// Commits the running transaction: its last `chunks` and a commit frame of `entries` in one write, then (when
    /// durable) a flush. From here on the transaction survives a crash.
    pub fn commit(&mut self, chunks: &[(u32, u64, &[u8])], entries: &[Entry]) -> Result<(), String> {
        let mut chunks = chunks;
        if chunks.len() > BATCH {
            self.append(&chunks[..chunks.len() - BATCH])?;
            chunks = &chunks[chunks.len() - BATCH..];
        }
        let (start, sum) = (self.end, self.sum);
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        self.frames(&mut buf, chunks);
        let mut body = vec![0u8; entries.len() * ENTRY];
        for (i, e) in entries.iter().enumerate() {
            let w =
                [e.file, e.exists as u32, e.floor as u32, (e.floor >> 32) as u32, e.size as u32, (e.size >> 32) as u32];
            put_words(&mut body[i * ENTRY..], &w);
        }
        let commit_at = start + buf.len() as u64;
        self.frame(&mut buf, KIND_COMMIT, entries.len() as u32, 0, &body);
        let written = self.write(&buf);
        self.buf = buf;
        if let Err(e) = written {
            self.sum = sum;
            return Err(e);
        }
        if let Err(e) = self.flush() {
            // Not committed after all: the commit frame's head is wiped, so no scan counts the transaction.
            let _ = self.file.write_all_at(&[0u8; HEAD], commit_at);
            self.end = start;
            self.sum = sum;
            return Err(e);
        }
        self.committed_end = self.end;
        self.committed_sum = self.sum;
        Ok(())
    }

    /// Logs a cut of `file` to `size` bytes, in order with the running transaction's logged chunks.
    pub fn cut(&mut self, file: u32, size: u64) -> Result<(), String> {
        let sum = self.sum;
        let mut buf = Vec::with_capacity(HEAD + 8);
        let mut body = [0u8; 8];
        put_words(&mut body, &[size as u32, (size >> 32) as u32]);
        self.frame(&mut buf, KIND_CUT, file, 0, &body);
        self.write(&buf).inspect_err(|_| self.sum = sum)
    }

    /// Forgets the running transaction's frames: the next frames overwrite them.
    pub fn abort(&mut self) {
        self.end = self.committed_end;
        self.sum = self.committed_sum;
    }

    /// Starts the log over (the data files hold everything it says): a new salt in the header, the file cut back
    /// to its header when it grew past `KEEP_BYTES`, and a flush before any frame of the new salt.
    pub fn reset(&mut self) -> Result<(), String> {
        let salt = new_salt(self.salt);
        let mut head = [0u8; HEAD];
        put_words(&mut head, &[MAGIC[0], MAGIC[1], VERSION, CHUNK as u32, salt.0, salt.1]);
        let sum = checksum(&head[..24], (0, 0));
        put_words(&mut head[24..], &[sum.0, sum.1]);
        self.file.write_all_at(&head, 0).map_err(|e| err("cannot write", &self.path, e))?;
        if self.length > KEEP_BYTES {
            self.file.set_len(HEADER).map_err(|e| err("cannot resize", &self.path, e))?;
            self.length = HEADER;
        }
        self.length = self.length.max(HEADER);
        self.flush()?;
        self.salt = salt;
        self.end = HEADER;
        self.committed_end = HEADER;
        self.sum = salt;
        self.committed_sum = salt;
        Ok(())
    }

    fn flush(&self) -> Result<(), String> {
        if self.durable {
            self.file.sync_data().map_err(|e| err("cannot flush", &self.path, e))?;
        }
        Ok(())
    }

    /// Writes `buf` at the end of the frames, the file first extended with zeros past its length (doubling from
    /// 64 KiB, then in steps of `GROW_BYTES`): writing over zeros was measured faster than extending the file,
    /// flushed or not (a LangGraph step, p50: 224 vs 245 µs).
    fn write(&mut self, buf: &[u8]) -> Result<(), String> {
        let end = self.end + buf.len() as u64;
        if end > self.length {
            let step = GROW_BYTES.min(self.length.max(64 << 10));
            let target = end.div_ceil(step) * step;
            // Zeros written, not a hole left: the blocks exist before a flush needs them.
            let zeros = vec![0u8; (target - self.length).min(GROW_BYTES) as usize];
            let mut at = self.length;
            while at < target {
                let n = (target - at).min(zeros.len() as u64) as usize;
                self.file.write_all_at(&zeros[..n], at).map_err(|e| err("cannot grow", &self.path, e))?;
                at += n as u64;
            }
            self.length = target;
        }
        self.file.write_all_at(buf, self.end).map_err(|e| err("cannot write", &self.path, e))?;
        self.end = end;
        Ok(())
    }

    /// Lays `chunks` out as page frames at the end of `buf`: each chunk's offset in `buf`.
    fn frames(&mut self, buf: &mut Vec<u8>, chunks: &[(u32, u64, &[u8])]) -> Vec<u64> {
        let mut offsets = Vec::with_capacity(chunks.len());
        let zeros = [0u8; CHUNK as usize];
        for &(file, chunk, bytes) in chunks {
            offsets.push((buf.len() + HEAD) as u64);
            if bytes.len() >= CHUNK as usize {
                self.frame(buf, KIND_PAGE, file, chunk as u32, &bytes[..CHUNK as usize]);
            } else {
                let mut body = bytes.to_vec();
                body.extend_from_slice(&zeros[bytes.len()..]);
                self.frame(buf, KIND_PAGE, file, chunk as u32, &body);
            }
        }
        offsets
    }

    /// Appends a frame (head and `body`) to `buf`, carrying the checksum on.
    fn frame(&mut self, buf: &mut Vec<u8>, kind: u32, a: u32, b: u32, body: &[u8]) {
        let mut head = [0u8; HEAD];
        put_words(&mut head, &[kind, a, b, 0, self.salt.0, self.salt.1]);
        self.sum = checksum(body, checksum(&head[..24], self.sum));
        put_words(&mut head[24..], &[self.sum.0, self.sum.1]);
        buf.extend_from_slice(&head);
        buf.extend_from_slice(body);
    }
}
