/** `FilePageStore`: the page-key scheme over real files, each call committed through a redo log; shared by the Node and OPFS stores. */

import { CHUNK_BYTES as CHUNK, chunkIndex, chunkRead, copyInto, splitKey as split } from './page-keys.js';
import type { PageStore } from './page-store.js';
import { type ChunkWrite, type FileEntry, type LoggedTransaction, RedoLog } from './redo-log.js';

/** The VFS files a store keeps (core/src/storage/vfs.rs), by their id in the redo log. */
export const FILES = ['db', 'journal', 'wal'] as const;

/** Chunks a transaction keeps in memory before it moves them to the redo log (4 MiB). */
const MAX_PENDING_CHUNKS = 512;

/** The redo log's size past which a commit checkpoints: flushes the data files and starts the log over. */
const CHECKPOINT_BYTES = 16 << 20;

/**
 * Once commits pause this long with at least IDLE_CHECKPOINT_BYTES in the log, the store checkpoints then, off
 * any call's path: an agent that writes between model calls never waits for one.
 */
const IDLE_CHECKPOINT_MS = 200;
const IDLE_CHECKPOINT_BYTES = 1 << 20;

/** A checkpoint cuts the log file back to its header once it grew past this (one very large transaction). */
const KEEP_LOG_BYTES = 4 * CHECKPOINT_BYTES;

/** Chunk buffers kept for reuse (each write transaction would otherwise allocate its chunks anew). */
const FREE_CHUNKS = 64;

/** Positional access to one file: a Node file descriptor or an OPFS synchronous access handle. */
export interface FileIo {
  /** Reads into `dst` from file position `at`: the count (0 at the end of the file). */
  read(dst: Uint8Array, at: number): number;
  /** Writes `src` at file position `at`: the count written. */
  write(src: Uint8Array, at: number): number;
  truncate(size: number): void;
  /** Makes the file's writes durable (fdatasync, or the access handle's flush). */
  flush(): void;
  close(): void;
}

/** One VFS file (`db`, `journal`, `wal`) as a store holds it open. */
export interface OpenFile {
  /** Its index in `FILES`. */
  readonly id: number;
  io: FileIo;
  /** The file's logical length, with the running transaction's changes. */
  size: number;
  /** Whether `<file>/size` exists, with the running transaction's changes. */
  exists: boolean;
  /** Length and existence as of the last commit (an abort goes back to them). */
  committedSize: number;
  committedExists: boolean;
  /** The running transaction's chunks in memory (index to a private CHUNK-byte copy). */
  pending: Map<number, Uint8Array>;
  /** The running transaction's chunks moved to the redo log (index to where their bytes are in it). */
  spilled: Map<number, number>;
  /** The least length the running transaction cut the file to (Infinity: none): the file reads as zeros from here. */
  floor: number;
  /** Changed by the running transaction. */
  changed: boolean;
  /** Written in place since the last checkpoint: the next one flushes it. */
  unsynced: boolean;
  /** The file's length on disk. */
  onDisk: number;
}

/** An open file's state as a store finds it on open (`size` bytes on disk). */
export function openFile(id: number, io: FileIo, size: number, exists: boolean): OpenFile {
  return {
    id,
    io,
    size,
    exists,
    committedSize: size,
    committedExists: exists,
    pending: new Map(),
    spilled: new Map(),
    floor: Number.POSITIVE_INFINITY,
    changed: false,
    unsynced: false,
    onDisk: size,
  };
}

/**
 * Maps `<file>/<n>` to bytes `n * 8192 ..` of one file and `<file>/size` to its length, so the database is an
 * ordinary SQLite file (page size 8192) that the sqlite3 shell can open once the store is closed.
 *
 * A host that commits atomically (open it with `atomic: true`): `transaction(fn)` keeps the puts `fn` makes
 * (reads see them) and, when `fn` returns, appends them to the redo log as one transaction and flushes the log
 * — the commit point, one flush — then writes them in place without a flush. If `fn` throws, they are dropped.
 * A checkpoint (the data files flushed, then the log started over) runs when commits pause with a MiB in the
 * log, once it passes CHECKPOINT_BYTES, and at close; opening replays the log's committed transactions, so a
 * crash between a commit and its checkpoint loses nothing. Puts made outside a transaction commit at the next
 * `sync`. Subclasses say how a file is found, created and removed, open the log (`openLog`) and close the store.
 */
export abstract class FilePageStore implements PageStore {
  #log: RedoLog | undefined;
  #inTransaction = false;
  /** Files the running transaction (or the writes outside one) changed. */
  readonly #changed = new Set<OpenFile>();
  /** Pending chunks of the running transaction, all files. */
  #pendingCount = 0;
  /** Some of the running transaction's chunks are in the log. */
  #spilledAny = false;
  /** A commit reached the log but not the files in place: replay the log before the next transaction. */
  #replayDue = false;
  readonly #free: Uint8Array[] = [];
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #lastCommit = 0;

  /** The open file `name` (opened, or created when `create`), whether or not its `<file>/size` exists now. */
  protected abstract file(name: string, create: boolean): OpenFile | undefined;
  /** Removes file `name` from disk (a commit that deleted `<file>/size`). */
  protected abstract removeFile(name: string): void;
  /** The files open now. */
  protected abstract openFiles(): Iterable<OpenFile>;
  abstract close(): void;

  /** Opens the redo log (`length` bytes on disk) and recovers what it holds: call once, from the constructor. */
  protected openLog(io: FileIo, length: number): void {
    const log = new RedoLog(io, length);
    this.#log = log;
    const found = log.scan();
    if (found.length > 0) {
      this.#replay(found);
      this.#checkpoint();
    } else if (!log.headed) {
      log.reset(KEEP_LOG_BYTES);
    }
  }

  get #redo(): RedoLog {
    if (!this.#log) throw new Error('the file store is closed');
    return this.#log;
  }

  /** The file `name` when `<file>/size` exists. */
  #existing(name: string): OpenFile | undefined {
    const f = this.file(name, false);
    return f?.exists ? f : undefined;
  }

  get(key: string): Uint8Array | undefined {
    const [name, part] = split(key);
    const f = this.#existing(name);
    if (!f) return undefined;
    if (part === 'size') {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(f.size), true);
      return b;
    }
    const ci = chunkIndex(part);
    const end = Math.min((ci + 1) * CHUNK, f.size);
    if (end <= ci * CHUNK) return undefined;
    const buf = new Uint8Array(end - ci * CHUNK);
    this.#read(f, ci, 0, buf);
    return buf;
  }

  /** Reads straight from the file (or the transaction's chunks) into `dst`. */
  readInto(key: string, offset: number, dst: Uint8Array): number {
    const [name, part] = split(key);
    if (part === 'size') return copyInto(this.get(key), offset, dst);
    const f = this.#existing(name);
    if (!f) return -1;
    const span = chunkRead(part, offset, f.size, dst.length);
    if (!span) return -1;
    this.#read(f, chunkIndex(part), offset, dst.subarray(0, span.n));
    return span.n;
  }

  /** Fills `dst` with chunk `ci`'s bytes from `from` on, as the running transaction sees them. */
  #read(f: OpenFile, ci: number, from: number, dst: Uint8Array): void {
    const pending = f.pending.get(ci);
    if (pending) {
      dst.set(pending.subarray(from, from + dst.length));
      return;
    }
    const logged = f.spilled.get(ci);
    if (logged !== undefined) {
      this.#redo.read(logged + from, dst);
      return;
    }
    const at = ci * CHUNK + from;
    const n = Math.max(0, Math.min(dst.length, Math.min(f.onDisk, f.floor) - at));
    let done = 0;
    while (done < n) {
      const r = f.io.read(dst.subarray(done, n), at + done);
      if (r === 0) break;
      done += r;
    }
    if (done < dst.length) dst.fill(0, done);
  }

  put(key: string, bytes: Uint8Array): void {
    const [name, part] = split(key);
    const f = this.file(name, true);
    if (!f) throw new Error(`cannot create page-store file ${JSON.stringify(name)}`);
    this.#touch(f);
    if (!f.exists) {
      f.exists = true;
      f.size = 0;
    }
    if (part === 'size') {
      if (bytes.length !== 8) throw new Error(`${key}: expected 8 bytes, got ${bytes.length}`);
      const size = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
      if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${key}: size ${size} too large`);
      const n = Number(size);
      if (n < f.size) this.#shrink(f, n);
      else f.size = n;
      return;
    }
    // A chunk may reach past the logical size (the VFS pads a partly written last chunk, and writes chunks
    // before it records a larger size): only bytes below the size at commit are written in place.
    const ci = chunkIndex(part);
    let chunk = f.pending.get(ci);
    if (!chunk) {
      chunk = this.#free.pop() ?? new Uint8Array(CHUNK);
      if (bytes.length < CHUNK) {
        const below = Math.max(0, Math.min(CHUNK, f.size - ci * CHUNK));
        this.#read(f, ci, 0, chunk.subarray(0, below)); // a short put keeps the rest of the chunk
        chunk.fill(0, below);
      }
      f.pending.set(ci, chunk);
      f.spilled.delete(ci);
      this.#pendingCount++;
    }
    chunk.set(bytes.length > CHUNK ? bytes.subarray(0, CHUNK) : bytes);
    if (this.#pendingCount >= MAX_PENDING_CHUNKS) this.#spill();
  }

  delete(key: string): void {
    const [name, part] = split(key);
    if (part !== 'size') return; // chunks past the end go with the truncation that precedes this
    const f = this.#existing(name);
    if (!f) return;
    this.#touch(f);
    this.#shrink(f, 0);
    f.exists = false;
  }

  /** Commits the writes made outside a transaction; inside one, nothing (its end is the sync point). */
  sync(): void {
    if (!this.#inTransaction) this.#commit();
  }

  /** Runs `fn`; its puts all take effect, durably, if it returns, and none if it throws. */
  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn(); // nested: part of the outer transaction
    if (this.#replayDue) this.#recover();
    this.#commit(); // writes made outside a transaction
    this.#inTransaction = true;
    let result: T;
    try {
      result = fn();
    } catch (e) {
      this.#abort();
      throw e;
    } finally {
      this.#inTransaction = false;
    }
    this.#commit();
    return result;
  }

  /** Commits what is pending, checkpoints and closes the log: the files then hold everything, flushed. */
  protected closeLog(): void {
    const log = this.#log;
    if (!log) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    try {
      if (this.#replayDue) this.#recover();
      this.#commit();
      if (log.used > 0) this.#checkpoint();
    } finally {
      this.#log = undefined;
      log.close();
    }
  }

  #touch(f: OpenFile): void {
    if (f.changed) return;
    f.changed = true;
    this.#changed.add(f);
  }

  /** Cuts `f` to `n` bytes in the running transaction. */
  #shrink(f: OpenFile, n: number): void {
    for (const ci of f.pending.keys()) {
      if (ci * CHUNK >= n) this.#drop(f, ci);
    }
    for (const ci of f.spilled.keys()) if (ci * CHUNK >= n) f.spilled.delete(ci);
    const cut = n % CHUNK;
    const ci = Math.floor(n / CHUNK);
    if (cut !== 0 && f.spilled.has(ci)) {
      // The chunk across the cut comes back from the log, zeroed past it, so in place and replayed agree.
      const chunk = this.#free.pop() ?? new Uint8Array(CHUNK);
      this.#read(f, ci, 0, chunk);
      f.spilled.delete(ci);
      f.pending.set(ci, chunk);
      this.#pendingCount++;
    }
    f.pending.get(ci)?.fill(0, cut);
    if (this.#spilledAny) this.#redo.cut(f.id, n); // after chunks of this file that are logged already
    f.size = n;
    f.floor = Math.min(f.floor, n);
  }

  #drop(f: OpenFile, ci: number): void {
    const chunk = f.pending.get(ci);
    if (!chunk) return;
    f.pending.delete(ci);
    this.#pendingCount--;
    if (this.#free.length < FREE_CHUNKS) this.#free.push(chunk);
  }

  /** Moves the running transaction's chunks to the log (not committed): memory stays bounded. */
  #spill(): void {
    const chunks: ChunkWrite[] = [];
    const files: OpenFile[] = [];
    for (const f of this.#changed) {
      for (const [ci, chunk] of f.pending) {
        chunks.push([f.id, ci, chunk]);
        files.push(f);
      }
    }
    const at = this.#redo.append(chunks);
    chunks.forEach(([, ci], i) => {
      const f = files[i] as OpenFile;
      f.spilled.set(ci, at[i] as number);
      this.#drop(f, ci);
    });
    this.#spilledAny = true;
  }

  /** Logs the changed files' chunks and new lengths (the commit point), then writes them in place. */
  #commit(): void {
    if (this.#changed.size === 0) return;
    const changed = [...this.#changed];
    const chunks: ChunkWrite[] = [];
    for (const f of changed) for (const [ci, chunk] of f.pending) chunks.push([f.id, ci, chunk]);
    const entries: FileEntry[] = changed.map((f) => ({
      file: f.id,
      exists: f.exists,
      floor: Math.min(f.floor, f.committedSize),
      size: f.exists ? f.size : 0,
    }));
    try {
      this.#redo.commit(chunks, entries);
    } catch (e) {
      this.#abort();
      throw e;
    }
    try {
      for (const f of changed) this.#writeInPlace(f);
    } catch {
      // Committed (the log has it) but not all in place: the next transaction, checkpoint or close replays the
      // log first, so nothing reads the files in between. The call succeeded.
      this.#replayDue = true;
    } finally {
      for (const f of changed) this.#settle(f, true);
      this.#changed.clear();
      this.#spilledAny = false;
    }
    const used = this.#redo.used;
    if (used > CHECKPOINT_BYTES) this.#checkpoint();
    else if (used >= IDLE_CHECKPOINT_BYTES) {
      this.#lastCommit = performance.now();
      this.#idleTimer ??= this.#armIdleCheckpoint(IDLE_CHECKPOINT_MS);
    }
  }

  /** Checkpoints once no commit came for IDLE_CHECKPOINT_MS (a timer per pause, not per commit). */
  #armIdleCheckpoint(ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (!this.#log || this.#inTransaction || this.#redo.used === 0) return;
      const quiet = performance.now() - this.#lastCommit;
      if (quiet < IDLE_CHECKPOINT_MS) {
        this.#idleTimer = this.#armIdleCheckpoint(IDLE_CHECKPOINT_MS - quiet);
        return;
      }
      try {
        if (this.#replayDue) this.#recover();
        else this.#checkpoint();
      } catch {
        // Nothing is lost: the log keeps every commit, and the next checkpoint tries again.
      }
    }, ms);
    (timer as { unref?: () => void }).unref?.(); // Node: a pending checkpoint does not keep the process alive
    return timer;
  }

  /** Drops the running transaction's writes. */
  #abort(): void {
    for (const f of this.#changed) this.#settle(f, false);
    this.#changed.clear();
    this.#spilledAny = false;
    this.#redo.abort();
  }

  /** Ends the transaction for `f`: its state becomes the committed one, or goes back to it. */
  #settle(f: OpenFile, committed: boolean): void {
    for (const ci of [...f.pending.keys()]) this.#drop(f, ci);
    f.spilled.clear();
    f.floor = Number.POSITIVE_INFINITY;
    f.changed = false;
    if (committed) {
      f.committedSize = f.size;
      f.committedExists = f.exists;
    } else {
      f.size = f.committedSize;
      f.exists = f.committedExists;
    }
  }

  /** Writes a committed transaction's chunks of `f` in place (no flush: the log has them). */
  #writeInPlace(f: OpenFile): void {
    if (!f.exists) {
      if (f.committedExists) this.removeFile(FILES[f.id] as string);
      f.onDisk = 0;
      return;
    }
    f.unsynced = true;
    const floor = Math.min(f.floor, f.committedSize);
    if (floor < f.onDisk) {
      f.io.truncate(floor);
      f.onDisk = floor;
    }
    if (f.spilled.size > 0) {
      const chunk = new Uint8Array(CHUNK);
      for (const [ci, at] of f.spilled) {
        this.#redo.read(at, chunk);
        writeRun(f, [chunk], ci);
      }
    }
    writeChunks(f, [...f.pending]);
    if (f.onDisk !== f.size) {
      f.io.truncate(f.size);
      f.onDisk = f.size;
    }
  }

  /** Applies the log's committed transactions to the files, in order (on open, or after a failed write in place). */
  #replay(found: LoggedTransaction[]): void {
    const chunk = new Uint8Array(CHUNK);
    const named = (id: number) => {
      const name = FILES[id];
      if (name === undefined) throw new Error(`the redo log names an unknown file ${id}`);
      const f = this.file(name, true);
      if (!f) throw new Error(`cannot create page-store file ${name}`);
      f.unsynced = true;
      return f;
    };
    for (const tx of found) {
      for (const e of tx.entries) {
        if (!e.exists) continue;
        const f = named(e.file);
        if (e.floor < f.onDisk) {
          f.io.truncate(e.floor);
          f.onDisk = e.floor;
        }
      }
      for (const op of tx.ops) {
        const f = named(op.file);
        if ('size' in op) {
          f.io.truncate(op.size);
          f.onDisk = op.size;
        } else {
          this.#redo.read(op.at, chunk);
          f.size = Math.max(f.onDisk, (op.chunk + 1) * CHUNK);
          writeRun(f, [chunk], op.chunk);
        }
      }
      for (const e of tx.entries) {
        const name = FILES[e.file] as string;
        if (!e.exists) {
          if (this.file(name, false)) this.removeFile(name);
          continue;
        }
        const f = named(e.file);
        if (f.onDisk !== e.size) f.io.truncate(e.size);
        f.onDisk = e.size;
      }
    }
    for (const f of this.openFiles()) {
      f.size = f.committedSize = f.onDisk;
      f.exists = f.committedExists = f.exists || f.onDisk > 0;
    }
  }

  /** Replays the whole log again (a commit did not reach the files in place), then checkpoints. */
  #recover(): void {
    const found = this.#redo.scan();
    this.#replay(found);
    this.#checkpoint();
    this.#replayDue = false;
  }

  /** Flushes the files written in place since the last checkpoint, then starts the log over. */
  #checkpoint(): void {
    for (const f of this.openFiles()) {
      if (!f.unsynced) continue;
      f.io.flush();
      f.unsynced = false;
    }
    this.#redo.reset(KEEP_LOG_BYTES);
  }
}

/** Writes `chunks` (index, bytes), runs of consecutive ones in one write each, cut at the logical size. */
function writeChunks(f: OpenFile, chunks: [number, Uint8Array][]): void {
  chunks.sort((x, y) => x[0] - y[0]);
  let run: Uint8Array[] = [];
  let first = 0;
  for (const [ci, chunk] of chunks) {
    if (run.length > 0 && ci !== first + run.length) {
      writeRun(f, run, first);
      run = [];
    }
    if (run.length === 0) first = ci;
    run.push(chunk);
  }
  if (run.length > 0) writeRun(f, run, first);
}

/** Writes the consecutive chunks `run`, the first of them chunk `first`, cut at the logical size. */
function writeRun(f: OpenFile, run: Uint8Array[], first: number): void {
  const at = first * CHUNK;
  const end = Math.min((first + run.length) * CHUNK, f.size);
  if (end <= at) return;
  let src: Uint8Array;
  if (run.length === 1 && run[0]) {
    src = run[0].subarray(0, end - at);
  } else {
    src = new Uint8Array(end - at);
    run.forEach((chunk, k) => {
      if (k * CHUNK < src.length) src.set(chunk.subarray(0, Math.min(CHUNK, src.length - k * CHUNK)), k * CHUNK);
    });
  }
  let done = 0;
  while (done < src.length) done += f.io.write(src.subarray(done), at + done);
  if (end > f.onDisk) f.onDisk = end;
}
