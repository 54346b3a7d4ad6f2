// @ts-check
/**
 * The engine's database as a Durable Object holds it: the object's SQLite file (under `wrangler dev --persist-to`)
 * keeps the engine's 8 KiB pages in its KV table `_cf_KV` under `p:db/<n>` and the file length under `p:db/size`
 * (workers/src/do-page-store.ts), each value V8-serialized. `engineDbFromDo` rebuilds the engine's SQLite file from
 * them — reading the object's file in a copy with its WAL, so SQLite recovers the copy as workerd would — for
 * SQLite's integrity check (sqlite-check.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { deserialize } from 'node:v8';

const PAGE = 8192;

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
      [copy, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = '_cf_KV'"],
      { encoding: 'utf8' },
    ).trim();
    if (!tables) return false; // an object that never used its KV
    const json = execFileSync(
      'sqlite3',
      ['-json', copy, "SELECT key, hex(value) AS v FROM _cf_KV WHERE key LIKE 'p:db/%'"],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    ).trim();
    const rows = /** @type {{ key: string, v: string }[]} */ (json ? JSON.parse(json) : []);
    const size = rows.find((r) => r.key === 'p:db/size');
    if (!size) return false;
    const bytes = /** @param {string} hex */ (hex) => /** @type {Uint8Array} */ (deserialize(Buffer.from(hex, 'hex')));
    const len = Number(Buffer.from(bytes(size.v)).readBigUInt64LE(0));
    const file = Buffer.alloc(len);
    for (const r of rows) {
      const n = r.key.slice('p:db/'.length);
      if (n === 'size') continue;
      const at = Number(n) * PAGE;
      if (at < len) Buffer.from(bytes(r.v)).copy(file, at, 0, Math.min(PAGE, len - at));
    }
    writeFileSync(out, file);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
