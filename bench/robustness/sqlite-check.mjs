// @ts-check
/**
 * SQLite's own integrity check over a database file, with the sqlite3 shell (Debian package `sqlite3`, installed
 * by scripts/bootstrap): `PRAGMA integrity_check`, plus FTS5's `integrity-check` command for each FTS5 table. The
 * file is checked in a copy together with its `-journal` / `-wal` / `-shm` / `-redo` companions, so a crash image
 * (a hot journal, a WAL not checkpointed; edgemem's redo log, with `recover`) is recovered in the copy and the
 * original is left as the crash left it. Used by the crash tests (crash-file-store.mjs, crash-wrangler.mjs).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** Throws a clear error when the sqlite3 shell is missing. */
export function requireSqlite3() {
  try {
    execFileSync('sqlite3', ['-version'], { encoding: 'utf8' });
  } catch {
    throw new Error(
      'the sqlite3 shell is needed for the integrity checks (apt-get install sqlite3; scripts/bootstrap installs it)',
    );
  }
}

/**
 * @param {string} file a SQLite database
 * @param {{ sql?: string, recover?: (copy: string) => void }} [o] `sql`: extra SQL to run before the checks (in
 *   the copy); `recover`: brings the copy to what its store would open (edgemem's file store replays its `-redo`
 *   log into the database file) before SQLite sees it
 * @returns {{ ok: boolean, output: string, companions: string[], hotJournal: boolean, replayed: boolean }}
 *   `hotJournal`: a `-journal` with a valid header was there (the crash came inside a write transaction; SQLite
 *   rolled it back in the copy); `replayed`: `recover` changed the database file (the crash came between a
 *   commit and its writes in place)
 */
export function integrityCheck(file, o = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-integrity-'));
  try {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    /** @type {string[]} */
    const companions = [];
    for (const suffix of ['-journal', '-wal', '-shm', '-redo']) {
      if (existsSync(file + suffix)) {
        copyFileSync(file + suffix, copy + suffix);
        companions.push(suffix);
      }
    }
    const MAGIC = 'd9d505f920a163d7';
    const hotJournal =
      companions.includes('-journal') && readFileSync(`${copy}-journal`).subarray(0, 8).toString('hex') === MAGIC;
    let replayed = false;
    if (o.recover) {
      const before = readFileSync(copy);
      o.recover(copy);
      replayed = !before.equals(readFileSync(copy));
    }
    const run = (/** @type {string} */ sql) =>
      execFileSync('sqlite3', ['-batch', '-bail', copy, sql], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
    try {
      if (o.sql) run(o.sql);
      const main = run('PRAGMA integrity_check;');
      const fts = run(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%';",
      )
        .split('\n')
        .filter(Boolean);
      const ftsOut = fts.map((t) => {
        const q = `"${t.replace(/"/g, '""')}"`;
        return run(`INSERT INTO ${q}(${q}) VALUES('integrity-check');`);
      });
      const ok = main === 'ok' && ftsOut.every((x) => x === '');
      return { ok, output: [main, ...ftsOut.filter(Boolean)].join('\n'), companions, hotJournal, replayed };
    } catch (e) {
      const err = /** @type {{ stderr?: string, message: string }} */ (e);
      return { ok: false, output: (err.stderr || err.message).trim(), companions, hotJournal, replayed };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
