// @ts-check
/**
 * The engine's database as a Durable Object holds it: the object's SQLite file (under `wrangler dev --persist-to`)
 * keeps the engine's 8 KiB pages in its table `edgemem_pages` (chunk n at id n, the file length at id -1; a row
 * shorter than 8 KiB is a chunk stored without its longest zero run: workers/src/page-hole.ts) or, for stores
 * created before that table, in its KV table `_cf_KV` under `p:db/<n>` and `p:db/size`, each value V8-serialized
 * (workers/src/do-page-store.ts). `engineDbFromDo` rebuilds the engine's SQLite file from them — reading the
 * object's file in a copy with its WAL, so SQLite recovers the copy as workerd would — for SQLite's integrity check
 * (sqlite-check.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { deserialize } from 'node:v8';

const PAGE = 8192;

/**
 * Chunk `id`'s bytes from its stored form, read independently of the Worker's code: a whole page as it is, else the
 * bytes before the hole, the bytes after it and the hole's start as a little-endian u16 (workers/src/page-hole.ts).
 * @param {number} id @param {Buffer} stored
 */
function chunkOf(id, stored) {
  if (stored.length === PAGE) return stored;
  const kept = stored.length - 2;
  const start = kept >= 0 ? stored.readUInt16LE(kept) : -1;
  if (kept < 0 || kept > PAGE || start > kept)
    throw new Error(`edgemem_pages row ${id}: ${stored.length} bytes is no page`);
  const chunk = Buffer.alloc(PAGE);
  stored.copy(chunk, 0, 0, start);
  stored.copy(chunk, start + PAGE - kept, start, kept);
  return chunk;
}

/**
 * The Durable Objects' SQLite files under a `--persist-to` folder (one per object; not miniflare's metadata).
 * @param {string} persist
 */
export function doSqliteFiles(persist) {
  const root = join(persist, 'v3', 'do');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((ns) =>
    readdirSync(join(root, ns))
      .filter((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite')
      .map((f) => join(root, ns, f)),
  );
}

/**
 * Writes the engine database held by the object file `doFile` to `out`; false when the object holds none.
 * @param {string} doFile @param {string} out
 */
export function engineDbFromDo(doFile, out) {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-do-pages-'));
  try {
    const copy = join(dir, basename(doFile));
    copyFileSync(doFile, copy);
    for (const s of ['-wal', '-shm']) if (existsSync(doFile + s)) copyFileSync(doFile + s, copy + s);
    const tables = execFileSync(
      'sqlite3',
      [copy, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('_cf_KV', 'edgemem_pages')"],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    /** @param {string} sql */
    const query = (sql) => {
      const json = execFileSync('sqlite3', ['-json', copy, sql], { encoding: 'utf8', maxBuffer: 1 << 30 }).trim();
      return /** @type {{ key: string, v: string }[]} */ (json ? JSON.parse(json) : []);
    };
    /** chunk index (-1: the length) → its bytes */
    const chunks = new Map();
    if (tables.includes('edgemem_pages')) {
      for (const r of query('SELECT CAST(id AS TEXT) AS key, hex(data) AS v FROM edgemem_pages'))
        chunks.set(
          Number(r.key),
          r.key === '-1' ? Buffer.from(r.v, 'hex') : chunkOf(Number(r.key), Buffer.from(r.v, 'hex')),
        );
    } else if (tables.includes('_cf_KV')) {
      const bytes = /** @param {string} hex */ (hex) => Buffer.from(deserialize(Buffer.from(hex, 'hex')));
      for (const r of query("SELECT key, hex(value) AS v FROM _cf_KV WHERE key LIKE 'p:db/%'")) {
        const n = r.key.slice('p:db/'.length);
        chunks.set(n === 'size' ? -1 : Number(n), bytes(r.v));
      }
    }
    const size = chunks.get(-1);
    if (!size) return false; // an object that holds no engine database
    const len = Number(size.readBigUInt64LE(0));
    const file = Buffer.alloc(len);
    for (const [n, chunk] of chunks) {
      const at = n * PAGE;
      if (n >= 0 && at < len) chunk.copy(file, at, 0, Math.min(PAGE, len - at));
    }
    writeFileSync(out, file);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
