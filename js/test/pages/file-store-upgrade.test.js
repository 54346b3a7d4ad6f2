// @ts-check
// A store file written before the file store had its redo log — SQLite's rollback journal in `<path>-journal`,
// committed with journal_mode=TRUNCATE — opens with the current one: a hot journal (a crash after the database
// was written, before the journal was cut) is rolled back, an empty one removed, and the store goes on. The old
// layout is rebuilt here from a non-atomic page store (journal in the pages, as the old file store kept it),
// written out chunk by chunk as the old store wrote its files.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from 'edgemem';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-upgrade-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A page store without a transaction (the engine then journals into it and syncs, as the old file store did),
 * calling `onSync` at each sync.
 * @param {Map<string, Uint8Array>} pages @param {() => void} onSync
 * @returns {import('edgemem').PageStore}
 */
function journaled(pages, onSync) {
  return {
    get: (k) => pages.get(k),
    put: (k, v) => void pages.set(k, v.slice()),
    delete: (k) => void pages.delete(k),
    sync: onSync,
  };
}

/** Writes `<file>` of `pages` as the old file store laid it out: chunk n at n * 8192, cut at `<file>/size`. */
function writeOut(
  /** @type {Map<string, Uint8Array>} */ pages,
  /** @type {string} */ file,
  /** @type {string} */ path,
) {
  const sizeBytes = pages.get(`${file}/size`);
  if (!sizeBytes) return;
  const size = Number(new DataView(sizeBytes.buffer, sizeBytes.byteOffset, 8).getBigUint64(0, true));
  const out = new Uint8Array(size);
  for (let ci = 0; ci * 8192 < size; ci++) {
    const chunk = pages.get(`${file}/${ci}`);
    if (chunk) out.set(chunk.subarray(0, Math.min(chunk.length, size - ci * 8192)), ci * 8192);
  }
  writeFileSync(path, out);
}

/** @param {number} i */
const memory = (i, tag = 'a') => ({
  namespace: ['up'],
  key: `${tag}${i}`,
  value: { i, tag },
  text: `upgrade ${tag} ${i}`,
});

describe('a store file from before the redo log', () => {
  it('with a hot rollback journal: the interrupted write is rolled back, the rest kept', async () => {
    /** @type {Map<string, Uint8Array>} */
    const pages = new Map();
    let syncs = 0;
    /** @type {Map<string, Uint8Array> | undefined} */
    let crash;
    let armed = false;
    const old = await openStore({
      storage: {
        pages: journaled(pages, () => {
          // The second sync of the write: its journal synced, the database written; then the crash.
          if (armed && ++syncs === 2) crash = new Map(pages);
        }),
      },
    });
    for (let i = 0; i < 20; i++) await old.put(memory(i));
    armed = true;
    await old.putBatch(Array.from({ length: 30 }, (_, i) => memory(i, 'b')));
    await old.close();
    assert.ok(crash, 'the write synced twice');
    const path = join(dir, 'hot.db');
    writeOut(crash, 'db', path);
    writeOut(crash, 'journal', `${path}-journal`);
    assert.ok(statSync(`${path}-journal`).size > 0, 'a hot journal');

    const s = await openStore({ storage: { file: path } });
    assert.equal((await s.stats()).memories, 20, 'the interrupted batch is rolled back');
    for (let i = 0; i < 20; i++) assert.deepEqual((await s.get(['up'], `a${i}`))?.value, { i, tag: 'a' });
    assert.equal(await s.get(['up'], 'b0'), null);
    assert.equal((await s.search({ text: 'upgrade a 7', k: 1 }))[0]?.key, 'a7');
    await s.put(memory(99, 'c'));
    await s.close();
    const again = await openStore({ storage: { file: path } });
    assert.equal((await again.stats()).memories, 21);
    // Rolled back, the journal is empty; SQLite holds it open for the session (locking_mode=EXCLUSIVE), and the
    // next open removes it: from then on the journal lives in wasm memory.
    assert.equal(existsSync(`${path}-journal`), false, 'the journal is gone');
    assert.deepEqual((await again.get(['up'], 'c99'))?.value, { i: 99, tag: 'c' });
    await again.close();
  });

  it('closed cleanly (an empty journal beside it): opens with everything, the journal removed', async () => {
    /** @type {Map<string, Uint8Array>} */
    const pages = new Map();
    const old = await openStore({ storage: { pages: journaled(pages, () => {}) } });
    for (let i = 0; i < 10; i++) await old.put(memory(i));
    await old.close();
    const path = join(dir, 'clean.db');
    writeOut(pages, 'db', path);
    writeOut(pages, 'journal', `${path}-journal`);
    assert.equal(statSync(`${path}-journal`).size, 0);
    const s = await openStore({ storage: { file: path } });
    assert.equal((await s.stats()).memories, 10);
    assert.equal(existsSync(`${path}-journal`), false);
    await s.close();
  });
});
