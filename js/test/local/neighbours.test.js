// @ts-check
// A store's `sequence` setting: "namespace" scores each memory with its neighbours in every search (a search's
// fusion.neighbourWeight: 0 turns it off); "none" (the default) leaves memories unordered.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from 'edgemem';

/** @param {import('edgemem').StoreSettings} settings */
async function conversation(settings) {
  const store = await openStore({ dims: 0, storage: 'memory', ...settings });
  /** @param {string[]} namespace @param {string} key @param {string} text */
  const turn = (namespace, key, text) => ({ namespace, key, value: text, text });
  // Turn 2 holds both words of the question; b1 and b2 one each (about half its score); 3 answers 2.
  await store.putBatch([
    turn(['chat', 'a'], '1', 'hello again'),
    turn(['chat', 'a'], '2', 'what did you research for the project?'),
    turn(['chat', 'a'], '3', 'adoption agencies, mostly local ones'),
    turn(['chat', 'b1'], 'b1', 'my research notes'),
    turn(['chat', 'b2'], 'b2', 'a project plan'),
    ...Array.from({ length: 10 }, (_, i) => turn(['other'], `o${i}`, `filler line ${i}`)),
  ]);
  return store;
}

/** @param {import('edgemem').MemoryStore} store @param {import('edgemem').FusionOptions} [fusion] */
const keys = async (store, fusion) =>
  (await store.search({ text: 'research project', k: 3, fusion })).map((h) => h.key);

test('sequence "namespace": the answer next to the matching question comes back', async () => {
  const store = await conversation({ sequence: 'namespace' });
  try {
    // Turn 2's neighbours borrow 0.6 of its score (reach 2: turn 3 is next) and pass the weaker matches.
    assert.deepEqual(await keys(store), ['2', '1', '3']);
    assert.deepEqual(await keys(store, { neighbourWeight: 0 }), ['2', 'b1', 'b2'], 'a search turns it off');
  } finally {
    await store.close();
  }
});

test('sequence "none" (the default) keeps memories unordered; an unknown sequence is INVALID_ARGUMENT', async () => {
  for (const settings of [{}, { sequence: /** @type {const} */ ('none') }]) {
    const store = await conversation(settings);
    try {
      assert.deepEqual(await keys(store), ['2', 'b1', 'b2']);
    } finally {
      await store.close();
    }
  }
  await assert.rejects(openStore({ dims: 0, storage: 'memory', sequence: /** @type {any} */ ('threads') }), {
    code: 'INVALID_ARGUMENT',
  });
});
