//! `FilePages`: the engine's page-store keys over ordinary files, in the npm package's file layout
//! (js/src/pages/node-file-page-store.ts): `<file>/<n>` is bytes `n * 8192 ..` of the file and `<file>/size` its
//! length, so the database at `path` is an ordinary SQLite file (page size 8192); SQLite's rollback journal is
//! `<path>-journal`. A store written by Python opens with the npm package and the reverse.
//!
//! Python's store commits through SQLite's own rollback journal (the engine's non-atomic page-store mode), not
//! through the npm package's redo log (`<path>-redo`). Opening replays what a crashed Node writer left committed
//! in that log (`replay_redo`), then empties it; the npm package rolls back a hot `-journal` a crashed Python
//! writer left. `sync` flushes to the disk only with `durable` (power-loss safety, the engine's `syncFull`):
//! a process crash keeps every completed write either way.

use edgemem_core::PageStore;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The VFS's chunk size (core/src/storage/vfs.rs `CHUNK`).
const CHUNK: u64 = 8192;
/// The files a store keeps, by their id in the npm package's redo log.
const FILES: [&str; 3] = ["db", "journal", "wal"];

struct Open {
    file: File,
    /// The logical length (`<file>/size`).
    size: u64,
    /// Chunks written past `size` (the VFS pads a partly written last chunk and records a larger size after its
    /// chunks): their bytes go to the file when a new size covers them.
    beyond: HashMap<u64, Vec<u8>>,
    unsynced: bool,
}

pub struct FilePages {
    path: PathBuf,
    files: RefCell<HashMap<&'static str, Open>>,
    durable: bool,
}

fn io(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("{what} {}: {e}", path.display())
}

fn split(key: &str) -> Result<(&'static str, &str), String> {
    let (name, part) = key.split_once('/').ok_or_else(|| format!("malformed page key {key:?}"))?;
    let name = FILES.iter().find(|f| **f == name).ok_or_else(|| format!("unknown page-store file {name:?}"))?;
    Ok((name, part))
}

fn chunk_index(part: &str) -> Result<u64, String> {
    part.parse().map_err(|_| format!("malformed chunk index {part:?}"))
}

impl FilePages {
    /// Opens the store's files at `path` (the database is created by the engine on its first write), after
    /// replaying a redo log a crashed npm-package writer left.
    pub fn open(path: &Path, durable: bool) -> Result<FilePages, String> {
        let pages = FilePages { path: path.to_path_buf(), files: RefCell::default(), durable };
        crate::redo::replay(&pages)?;
        Ok(pages)
    }

    pub fn path_of(&self, name: &str) -> PathBuf {
        let mut p = self.path.clone().into_os_string();
        if name != "db" {
            p.push(format!("-{name}"));
        }
        PathBuf::from(p)
    }

    /// Runs `f` on the open file `name`: opened if it exists, created when `create`; None when missing.
    fn with<R>(
        &self,
        name: &'static str,
        create: bool,
        f: impl FnOnce(&mut Open) -> Result<R, String>,
    ) -> Result<Option<R>, String> {
        let mut files = self.files.borrow_mut();
        if !files.contains_key(name) {
            let p = self.path_of(name);
            let file = match OpenOptions::new().read(true).write(true).create(create).truncate(false).open(&p) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(io("cannot open", &p, e)),
            };
            let size = file.metadata().map_err(|e| io("cannot stat", &p, e))?.len();
            files.insert(name, Open { file, size, beyond: HashMap::new(), unsynced: false });
        }
        let open = files.get_mut(name).expect("inserted above");
        f(open).map(Some)
    }

    /// Writes `bytes` at `at` in file `name` (created if missing), cutting or extending it to `size` after;
    /// used by the redo-log replay.
    pub fn write_raw(&self, name: &'static str, at: u64, bytes: &[u8]) -> Result<(), String> {
        let p = self.path_of(name);
        self.with(name, true, |o| {
            o.file.write_all_at(bytes, at).map_err(|e| io("cannot write", &p, e))?;
            o.size = o.size.max(at + bytes.len() as u64);
            o.unsynced = true;
            Ok(())
        })?;
        Ok(())
    }

    /// Cuts (or extends with zeros) file `name` to `size` bytes, creating it when missing.
    pub fn set_len_raw(&self, name: &'static str, size: u64) -> Result<(), String> {
        let p = self.path_of(name);
        self.with(name, true, |o| {
            o.file.set_len(size).map_err(|e| io("cannot resize", &p, e))?;
            o.size = size;
            o.unsynced = true;
            Ok(())
        })?;
        Ok(())
    }

    /// The file's length on disk now (0 when missing).
    pub fn len_raw(&self, name: &'static str) -> Result<u64, String> {
        Ok(self.with(name, false, |o| Ok(o.size))?.unwrap_or(0))
    }

    /// Removes file `name`.
    pub fn remove_raw(&self, name: &'static str) -> Result<(), String> {
        self.files.borrow_mut().remove(name);
        let p = self.path_of(name);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot remove", &p, e)),
            _ => Ok(()),
        }
    }

    /// Flushes every file written since the last flush to the disk.
    pub fn flush_all(&self) -> Result<(), String> {
        for (name, o) in self.files.borrow_mut().iter_mut() {
            if o.unsynced {
                o.file.sync_data().map_err(|e| io("cannot flush", &self.path_of(name), e))?;
                o.unsynced = false;
            }
        }
        Ok(())
    }
}

impl PageStore for FilePages {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let (name, part) = split(key)?;
        if part == "size" {
            return self.with(name, false, |o| Ok(o.size.to_le_bytes().to_vec()));
        }
        let ci = chunk_index(part)?;
        let p = self.path_of(name);
        Ok(self
            .with(name, false, |o| {
                let start = ci * CHUNK;
                let end = (start + CHUNK).min(o.size);
                if end <= start {
                    return Ok(None);
                }
                let mut buf = vec![0; (end - start) as usize];
                read_at(&o.file, &mut buf, start).map_err(|e| io("cannot read", &p, e))?;
                Ok(Some(buf))
            })?
            .flatten())
    }

    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        let (name, part) = split(key)?;
        if part == "size" {
            return Ok(self.get(key)?.map(|b| {
                let n = b.len().saturating_sub(offset).min(dst.len());
                dst[..n].copy_from_slice(&b[offset..offset + n]);
                n
            }));
        }
        let ci = chunk_index(part)?;
        let p = self.path_of(name);
        Ok(self
            .with(name, false, |o| {
                let start = ci * CHUNK;
                let end = (start + CHUNK).min(o.size);
                if end <= start {
                    return Ok(None);
                }
                let at = start + offset as u64;
                let n = (end.saturating_sub(at) as usize).min(dst.len());
                read_at(&o.file, &mut dst[..n], at).map_err(|e| io("cannot read", &p, e))?;
                Ok(Some(n))
            })?
            .flatten())
    }

    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        let (name, part) = split(key)?;
        let p = self.path_of(name);
        self.with(name, true, |o| {
            o.unsynced = true;
            if part == "size" {
                let size = u64::from_le_bytes(value.try_into().map_err(|_| format!("{key}: expected 8 bytes"))?);
                // Chunks written past the old length, now (partly) inside the new one.
                let mut pending: Vec<(u64, Vec<u8>)> = o.beyond.drain().collect();
                pending.sort_by_key(|(ci, _)| *ci);
                if size != o.size {
                    o.file.set_len(size).map_err(|e| io("cannot resize", &p, e))?;
                }
                for (ci, bytes) in pending {
                    let start = ci * CHUNK;
                    let n = (size.saturating_sub(start) as usize).min(bytes.len());
                    if n > 0 {
                        o.file.write_all_at(&bytes[..n], start).map_err(|e| io("cannot write", &p, e))?;
                    }
                }
                o.size = size;
                return Ok(());
            }
            let ci = chunk_index(part)?;
            let start = ci * CHUNK;
            let value = &value[..value.len().min(CHUNK as usize)];
            let below = (o.size.saturating_sub(start) as usize).min(value.len());
            if below > 0 {
                o.file.write_all_at(&value[..below], start).map_err(|e| io("cannot write", &p, e))?;
            }
            if below < value.len() {
                o.beyond.insert(ci, value.to_vec());
            } else {
                o.beyond.remove(&ci);
            }
            Ok(())
        })?;
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), String> {
        let (name, part) = split(key)?;
        if part != "size" {
            return Ok(()); // chunks past the end go with the truncation that precedes this
        }
        self.remove_raw(name)
    }

    fn sync(&self) -> Result<(), String> {
        if self.durable {
            self.flush_all()?;
        }
        Ok(())
    }
}

/// Reads `buf.len()` bytes at `at`; bytes past the file's end read as zeros.
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], at + done as u64)? {
            0 => break,
            n => done += n,
        }
    }
    buf[done..].fill(0);
    Ok(())
}
