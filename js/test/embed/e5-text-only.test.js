// @ts-check
// End to end with the built-in embedder (edgemem-e5, the real multilingual-e5-small 4-bit model): a store opened
// with `embedder: await e5()` takes text-only puts and answers text-only questions that share no content word with the
// memory they should find, by its vector; the store records e5's id.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { e5 } from 'edgemem-e5';
import { rejectsWith } from '../contract/suite.js';
import { trigramEmbedder } from './trigram-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-e5-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MEMORIES = {
  coffee: 'Prefers oat milk flat whites',
  dog: 'Has a golden retriever named Biscuit',
  city: 'Moved to Lisbon in 2021 for a new job',
  allergy: 'Allergic to peanuts',
  sport: 'Plays tennis every Saturday morning',
};

describe('text only, with the built-in e5 embedder', () => {
  it('puts and searches by text alone; questions sharing no content word with their memory find it by its vector', async () => {
    const embedder = await e5();
    const file = join(dir, 'e5.db');
    const s = await openStore({ embedder, storage: { file } });
    assert.equal((await s.stats()).dims, 384);
    await s.putBatch(Object.entries(MEMORIES).map(([key, text]) => ({ namespace: ['user'], key, value: text })));
    for (const [question, key] of [
      ['what pet do they own?', 'dog'],
      ['which nuts make them sick?', 'allergy'],
      ['what coffee do they drink?', 'coffee'],
      ['which country did they relocate to?', 'city'],
      ['what sport do they play?', 'sport'],
    ]) {
      const hits = await s.search({ text: question, k: 3 });
      assert.equal(hits[0].key, key, `${question} -> ${hits.map((h) => h.key).join(', ')}`);
      assert.equal(hits[0].vectorRank, 1, question);
    }
    assert.deepEqual(
      await s.search({ text: 'what pet do they own?', mode: 'lexical' }),
      [],
      'no word in common with any memory',
    );
    await s.close();
    // The store recorded e5: another embedder is refused, naming it.
    const e = await rejectsWith(
      openStore({ embedder: trigramEmbedder({ dims: 384 }), storage: { file } }),
      'INVALID_ARGUMENT',
    );
    assert.ok(e.message.includes(`"${embedder.id}"`), e.message);
    embedder.close?.();
  });
});
