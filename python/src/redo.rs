//! Recovery from the npm package's redo log (`<path>-redo`, js/src/pages/redo-log.ts): the committed
//! transactions a crashed (or killed) Node writer left in it are applied to the files, which are flushed, and
//! the log is emptied (an empty log is what a fresh npm-package store starts from).
//!
//! Layout (u32 words, little-endian): a 32-byte header (magic `edgemlog`, version 1, chunk size, salt, checksum
//! of the 24 bytes before it), then frames: a 32-byte head (kind, a, b, 0, salt, running checksum) and a payload:
//! page (kind 1, a = file id, b = chunk index, one chunk), cut (kind 3, a = file id, the new length as two
//! words), commit (kind 2, a = entry count, 24-byte entries: file id, exists, floor, size). A frame counts only
//! with the salt and SQLite's WAL checksum carried on from the header; the scan stops at the first that fails.

use crate::pages::FilePages;
use std::fs::File;
use std::os::unix::fs::FileExt;

const HEADER: u64 = 32;
const HEAD: u64 = 32;
const MAGIC: [u32; 2] = [0x6567_6465, 0x676f_6c6d];
const VERSION: u32 = 1;
const CHUNK: u64 = 8192;
const KIND_PAGE: u32 = 1;
const KIND_COMMIT: u32 = 2;
const KIND_CUT: u32 = 3;
const ENTRY: usize = 24;
const FILES: [&str; 3] = ["db", "journal", "wal"];

enum Op {
    Page { file: u32, chunk: u64, at: u64 },
    Cut { file: u32, size: u64 },
}

struct Entry {
    file: u32,
    exists: bool,
    floor: u64,
    size: u64,
}

fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

/// SQLite's WAL checksum over `b` (a multiple of 8 bytes), carried on from `sum`.
fn checksum(b: &[u8], sum: (u32, u32)) -> (u32, u32) {
    let (mut s1, mut s2) = sum;
    let mut it = words(b);
    while let (Some(a), Some(c)) = (it.next(), it.next()) {
        s1 = s1.wrapping_add(a).wrapping_add(s2);
        s2 = s2.wrapping_add(c).wrapping_add(s1);
    }
    (s1, s2)
}

fn read_exact(f: &File, buf: &mut [u8], at: u64) -> bool {
    f.read_exact_at(buf, at).is_ok()
}

fn name(id: u32) -> Result<&'static str, String> {
    FILES.get(id as usize).copied().ok_or_else(|| format!("the redo log names an unknown file {id}"))
}

/// The committed transactions in `log`, in order.
fn scan(log: &File) -> Vec<(Vec<Op>, Vec<Entry>)> {
    let mut found = Vec::new();
    let mut head = [0u8; HEAD as usize];
    if !read_exact(log, &mut head, 0) {
        return found;
    }
    let sum = checksum(&head[..24], (0, 0));
    if word(&head, 0) != MAGIC[0] || word(&head, 1) != MAGIC[1] || word(&head, 2) != VERSION {
        return found;
    }
    if word(&head, 3) as u64 != CHUNK || word(&head, 6) != sum.0 || word(&head, 7) != sum.1 {
        return found;
    }
    let salt = (word(&head, 4), word(&head, 5));
    let mut s = salt;
    let mut at = HEADER;
    let mut ops = Vec::new();
    loop {
        if !read_exact(log, &mut head, at) {
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
        let mut body = vec![0u8; len];
        if !read_exact(log, &mut body, at + HEAD) {
            break;
        }
        let next = checksum(&body, checksum(&head[..24], s));
        if word(&head, 6) != next.0 || word(&head, 7) != next.1 {
            break;
        }
        s = next;
        match kind {
            KIND_PAGE => ops.push(Op::Page { file: word(&head, 1), chunk: word(&head, 2) as u64, at: at + HEAD }),
            KIND_CUT => {
                ops.push(Op::Cut { file: word(&head, 1), size: word(&body, 0) as u64 | (word(&body, 1) as u64) << 32 })
            }
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
                found.push((std::mem::take(&mut ops), entries));
            }
        }
        at += HEAD + len as u64;
    }
    found
}

/// Applies the committed transactions of `<path>-redo` to the files, flushes them and empties the log.
pub fn replay(pages: &FilePages) -> Result<(), String> {
    let path = pages.path_of("redo");
    let log = match File::options().read(true).write(true).open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot open {}: {e}", path.display())),
    };
    let found = scan(&log);
    if found.is_empty() {
        return Ok(());
    }
    let mut chunk = vec![0u8; CHUNK as usize];
    for (ops, entries) in &found {
        for e in entries.iter().filter(|e| e.exists) {
            let n = name(e.file)?;
            if e.floor < pages.len_raw(n)? {
                pages.set_len_raw(n, e.floor)?;
            }
        }
        for op in ops {
            match *op {
                Op::Cut { file, size } => pages.set_len_raw(name(file)?, size)?,
                Op::Page { file, chunk: ci, at } => {
                    if !read_exact(&log, &mut chunk, at) {
                        return Err(format!("{} ends before the chunk at {at}", path.display()));
                    }
                    pages.write_raw(name(file)?, ci * CHUNK, &chunk)?;
                }
            }
        }
        for e in entries {
            let n = name(e.file)?;
            if e.exists {
                pages.set_len_raw(n, e.size)?;
            } else {
                pages.remove_raw(n)?;
            }
        }
    }
    pages.flush_all()?;
    log.set_len(0).map_err(|e| format!("cannot empty {}: {e}", path.display()))?;
    log.sync_all().map_err(|e| format!("cannot flush {}: {e}", path.display()))?;
    Ok(())
}
