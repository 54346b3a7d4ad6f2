// @ts-check
// The embedder a store records and re-embedding: a store opened with another embedder is INVALID_ARGUMENT naming
// both; `reembed: true` + `reembed()` re-embeds every memory (value, metadata, pin and expiry kept); a re-embed
// killed in the middle (SIGKILL) resumes where its saved progress says.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';
import { trigramEmbedder, trigramVector } from './trigram-embedder.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'edgemem-reembed-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
function near(a, b) {
  return a.length === b.length && Array.from(a).every((x, i) => Math.abs(x - b[i]) < 1e-6);
}

/**
 * A file store of `n` memories embedded by the plain trigram embedder.
 * @param {string} name @param {number} n
 */
async function filled(name, n) {
  const file = join(dir, name);
  const s = await openStore({ embedder: trigramEmbedder(), storage: { file } });
  await s.putBatch(
    Array.from({ length: n }, (_, i) => ({
      namespace: ['r', String(i % 3)],
      key: `k${i}`,
      value: { i },
      text: `memory ${i} about topic ${i % 7}`,
      metadata: { i },
      pinned: i === 1,
      ...(i === 2 ? { ttlMs: 3_600_000 } : {}),
    })),
  );
  await s.close();
  return file;
}

/**
 * Checks every memory holds the salted embedder's vector of its text, and kept its other fields.
 * @param {import('edgemem').MemoryStore} s @param {number} n
 */
async function assertReembedded(s, n) {
  for (let i = 0; i < n; i++) {
    const m = await s.get(['r', String(i % 3)], `k${i}`, { includeEmbedding: true });
    assert.ok(m, `k${i}`);
    assert.ok(
      near(/** @type {Float32Array} */ (m.embedding), trigramVector(`v2memory ${i} about topic ${i % 7}`, 64)),
      `k${i} re-embedded`,
    );
    assert.deepEqual(m.value, { i });
    assert.deepEqual(m.metadata, { i });
    assert.equal(m.pinned, i === 1);
    if (i === 2) assert.ok(m.expiresAt !== null && m.expiresAt > Date.now() + 3_500_000, 'expiry kept');
    else assert.equal(m.expiresAt, null);
  }
}

describe('the embedder a store records', () => {
  it('opening with another embedder is INVALID_ARGUMENT naming both; the same one opens', async () => {
    const file = await filled('a.db', 5);
    const e = await rejectsWith(
      openStore({ embedder: trigramEmbedder({ salt: 'v2' }), storage: { file } }),
      'INVALID_ARGUMENT',
    );
    assert.match(e.message, /"test\/trigram-64" \(64 dims, normalized\)/);
    assert.match(e.message, /"test\/trigram-64-v2" \(64 dims, normalized\)/);
    await rejectsWith(
      openStore({ embedder: async (t) => t.map(() => new Float32Array(64).fill(1)), storage: { file } }),
      'INVALID_ARGUMENT',
    );
    // The refused open released the file: it opens again, with its own embedder, or with none.
    const s = await openStore({ embedder: trigramEmbedder(), storage: { file } });
    assert.equal(s.reembedPending, false);
    await s.close();
    const plain = await openStore({ storage: { file }, dims: 64 });
    assert.equal((await plain.stats()).memories, 5);
    await plain.close();
  });

  it('reembed: true, then reembed(), re-embeds every memory with progress; then the store records the new one', async () => {
    const n = 70;
    const file = await filled('b.db', n);
    const v2 = trigramEmbedder({ salt: 'v2' });
    const s = await openStore({ embedder: v2, storage: { file }, reembed: true });
    assert.equal(s.reembedPending, true);
    /** @type {{ done: number, total: number }[]} */
    const progress = [];
    const result = await s.reembed({
      onProgress: (p) => {
        progress.push(p);
      },
    });
    assert.deepEqual(result, { done: n, total: n });
    assert.deepEqual(
      progress.map((p) => p.done),
      [32, 64, 70],
    );
    assert.equal(s.reembedPending, false);
    assert.equal(v2.calls.flatMap((c) => c.texts).length, n);
    assert.ok(v2.calls.every((c) => c.kind === 'passage'));
    await assertReembedded(s, n);
    assert.equal((await s.history(['r', '0'], 'k0')).length, 2, 'a re-embed is a new version');
    assert.equal((await s.search({ text: 'memory 5 about topic 5', k: 1 }))[0].key, 'k5');
    await s.close();
    await rejectsWith(openStore({ embedder: trigramEmbedder(), storage: { file } }), 'INVALID_ARGUMENT');
    (await openStore({ embedder: trigramEmbedder({ salt: 'v2' }), storage: { file } })).close();
  });

  it('a re-embed killed in the middle resumes from its saved progress', async () => {
    const n = 100;
    const file = await filled('c.db', n);
    const child = spawnSync(process.execPath, [join(here, 'reembed-child.js'), file, '64'], { encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', `child: status ${child.status} ${child.stderr}`);

    // Mid-way, the store belongs to neither embedder alone: the old one is refused, the new one resumes.
    const e = await rejectsWith(openStore({ embedder: trigramEmbedder(), storage: { file } }), 'INVALID_ARGUMENT');
    assert.match(e.message, /being re-embedded with embedder "test\/trigram-64-v2"/);
    const v2 = trigramEmbedder({ salt: 'v2' });
    const s = await openStore({ embedder: v2, storage: { file } });
    assert.equal(s.reembedPending, true);
    const result = await s.reembed();
    assert.deepEqual(result, { done: n, total: n });
    assert.equal(v2.calls.flatMap((c) => c.texts).length, n - 64, 'only what the killed run had not saved');
    await assertReembedded(s, n);
    assert.equal(s.reembedPending, false);
    await s.close();
  });

  it('reembed() on a store whose embedder is current re-embeds everything again', async () => {
    const file = await filled('d.db', 10);
    const e = trigramEmbedder();
    const s = await openStore({ embedder: e, storage: { file } });
    assert.deepEqual(await s.reembed(), { done: 10, total: 10 });
    assert.equal(e.calls.flatMap((c) => c.texts).length, 10);
    await rejectsWith(s.reembed(/** @type {any} */ ({ onProgress: 5 })), 'INVALID_ARGUMENT');
    await s.close();
  });
});
