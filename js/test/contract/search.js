// @ts-check
/**
 * The MemoryStore contract, search: lexical, vector and hybrid with filters, each fusion method, feedback words,
 * finite scores, metadata fields a JSON path cannot quote.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejectsWith, vec } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/** @param {FreshStore} fresh */
export function searchCases(fresh) {
  it('searches lexically, by vector and hybrid, with filters', async () => {
    const s = await fresh({ dims: 4 });
    await s.putBatch([
      {
        namespace: ['u', '1'],
        key: 'milk',
        value: 'm',
        text: 'oat milk in coffee',
        embedding: [1, 0, 0, 0],
        metadata: { kind: 'drink', n: 1 },
      },
      {
        namespace: ['u', '1'],
        key: 'tea',
        value: 't',
        text: 'green tea in the morning',
        embedding: [0, 1, 0, 0],
        metadata: { kind: 'drink', n: 2 },
      },
      {
        namespace: ['u', '1'],
        key: 'bike',
        value: 'b',
        text: 'rides a bike to work',
        embedding: [0, 0, 1, 0],
        metadata: { kind: 'habit', n: 3 },
      },
      {
        namespace: ['u', '2'],
        key: 'milk2',
        value: 'm2',
        text: 'milk allergy',
        embedding: [0.9, 0.1, 0, 0],
        metadata: { kind: 'health', n: 4 },
      },
    ]);
    const lex = await s.search({ text: 'milk', mode: 'lexical' });
    assert.deepEqual(lex.map((h) => h.key).sort(), ['milk', 'milk2']);
    assert.ok(lex.every((h) => h.lexicalRank !== null));

    const v = await s.search({ vector: [1, 0, 0, 0], mode: 'vector', k: 2 });
    assert.deepEqual(
      v.map((h) => h.key),
      ['milk', 'milk2'],
    );
    assert.ok(v[0] && v[0].score >= (v[1]?.score ?? 0));

    const hy = await s.search({ text: 'bike', vector: vec([0, 0, 1, 0]), k: 3 });
    assert.equal(hy[0]?.key, 'bike');
    assert.ok(hy[0]?.vectorRank !== null && hy[0]?.lexicalRank !== null);

    const filtered = await s.search({
      vector: [1, 0, 0, 0],
      k: 10,
      filter: [{ field: 'kind', op: 'eq', value: 'drink' }],
    });
    assert.deepEqual(filtered.map((h) => h.key).sort(), ['milk', 'tea']);
    const gt = await s.search({ vector: [1, 0, 0, 0], k: 10, filter: [{ field: 'n', op: 'gte', value: 3 }] });
    assert.deepEqual(gt.map((h) => h.key).sort(), ['bike', 'milk2']);
    const ns = await s.search({ text: 'milk', namespace: ['u', '2'] });
    assert.deepEqual(
      ns.map((h) => h.key),
      ['milk2'],
    );
  });

  it('fuses hybrid rankings by each fusion method, z-scores included', async () => {
    const s = await fresh({ dims: 2 });
    const items = [
      { key: 'a', text: 'red apple pie', embedding: [1, 0] },
      { key: 'b', text: 'apple juice', embedding: [0.8, 0.6] },
      { key: 'c', text: 'green pear', embedding: [0.6, 0.8] },
      { key: 'd', text: 'apple tree by the pear tree', embedding: [0, 1] },
    ];
    await s.putBatch(items.map((m) => ({ ...m, namespace: ['z'], value: m.key })));
    const q = { text: 'apple', vector: [1, 0], k: 4, fusion: { feedbackDocs: 0 } };
    const scores = async (/** @type {any} */ method) =>
      (await s.search({ ...q, fusion: { ...q.fusion, method } })).map((h) => h.score);
    // Relative fusion scales each signal to [0, 1]; z-scores centre each on its mean, so over all the
    // candidates the fused scores sum to 0 and some are negative.
    const relative = await scores('relative');
    assert.ok(
      relative.every((x) => x >= 0 && x <= 1),
      `relative: ${relative}`,
    );
    const z = await scores('z_score');
    assert.equal(z.length, 4);
    assert.ok(Math.abs(z.reduce((a, b) => a + b, 0)) < 1e-9, `z_score: ${z}`);
    assert.ok(
      z.some((x) => x < 0),
      `z_score: ${z}`,
    );
    assert.deepEqual(await scores(undefined), relative, 'relative is the default');
    await rejectsWith(s.search({ ...q, fusion: { method: /** @type {any} */ ('zscore') } }), 'INVALID_ARGUMENT');
  });

  it('expands hybrid questions with feedback words unless told not to', async () => {
    const s = await fresh({ dims: 4 });
    const texts = [
      'kayak trip along the fjord with Ingrid',
      'planning a kayak trip to the fjord, Ingrid says',
      'Ingrid booked the kayak trip on the fjord',
      'the fjord kayak trip, Ingrid and me',
      ...Array.from(
        { length: 20 },
        (_, i) =>
          `a note about the ${['garden', 'invoice', 'piano', 'recipe', 'tennis', 'compiler', 'museum', 'harbour'][i % 8]}`,
      ),
      'Ingrid packed the drysuit for the fjord',
    ];
    await s.putBatch(texts.map((t, i) => ({ namespace: ['f'], key: `k${i}`, value: t, embedding: [1, 0, 0, 0] })));
    const q = { text: 'Which kayak trip?', vector: [0, 1, 0, 0], k: 5 };
    // "fjord" and "ingrid", shared by the best matches, give the drysuit memory a lexical score.
    const withFeedback = await s.search(q);
    assert.equal(withFeedback[4]?.key, 'k24');
    assert.equal(withFeedback[4]?.lexicalRank, 5);
    const without = await s.search({ ...q, fusion: { feedbackDocs: 0 } });
    assert.ok(without.every((h) => h.key !== 'k24'));
    assert.deepEqual(
      await s.search({ ...q, fusion: { feedbackDocs: 5, feedbackTerms: 10, feedbackWeight: 0.3 } }),
      withFeedback,
    );
    for (const fusion of [
      { feedbackDocs: 21 },
      { feedbackTerms: -1 },
      { feedbackWeight: 1.5 },
      { feedbackDocs: 2.5 },
    ]) {
      await rejectsWith(s.search({ ...q, fusion }), 'INVALID_ARGUMENT');
    }
  });

  it('vectors whose scores would overflow are INVALID_ARGUMENT; every score is finite', async () => {
    const s = await fresh({ dims: 2 });
    for (const embedding of [
      [3e38, 0],
      [3.4e38, 3.4e38],
      [1e-30, 0],
      [2e18, 1],
    ]) {
      await rejectsWith(s.put({ namespace: ['d'], key: 'k', value: 1, embedding }), 'INVALID_ARGUMENT');
      await rejectsWith(s.search({ vector: embedding }), 'INVALID_ARGUMENT');
    }
    await s.put({ namespace: ['d'], key: 'big', value: 1, text: 'x', embedding: [1e17, 1e17] });
    await s.put({ namespace: ['d'], key: 'small', value: 1, text: 'x', embedding: [1e-7, 0] });
    for (const hit of await s.search({ vector: [1e17, -1e17], text: 'x' }))
      assert.ok(Number.isFinite(hit.score), JSON.stringify(hit));
  });

  it('filters on metadata fields a JSON path cannot quote', async () => {
    const s = await fresh();
    const fields = ['a\\b', 'quote"d', '\\', 'a.b', '$[0]', 'sp ace', 'é😀'];
    for (const [i, f] of fields.entries())
      await s.put({ namespace: ['m'], key: `k${i}`, value: i, text: 'common', metadata: { [f]: i } });
    for (const [i, f] of fields.entries()) {
      const hits = await s.search({ text: 'common', k: 50, filter: [{ field: f, op: 'eq', value: i }] });
      assert.deepEqual(
        hits.map((h) => h.key),
        [`k${i}`],
        f,
      );
    }
  });
  it("scores a match's neighbours in its namespace when a search asks (fusion.neighbourWeight)", async () => {
    const s = await fresh({ dims: 0 });
    /** @param {string[]} namespace @param {string} key @param {string} text */
    const turn = (namespace, key, text) => ({ namespace, key, value: text, text });
    // Turn 2 holds both words of the question; b1 and b2 one each (about half its score); 3 answers 2.
    await s.putBatch([
      turn(['chat', 'a'], '1', 'hello again'),
      turn(['chat', 'a'], '2', 'what did you research for the project?'),
      turn(['chat', 'a'], '3', 'adoption agencies, mostly local ones'),
      turn(['chat', 'b1'], 'b1', 'my research notes'),
      turn(['chat', 'b2'], 'b2', 'a project plan'),
      ...Array.from({ length: 10 }, (_, i) => turn(['other'], `o${i}`, `filler line ${i}`)),
    ]);
    /** @param {import('edgemem').FusionOptions} [fusion] */
    const keys = async (fusion) => (await s.search({ text: 'research project', k: 3, fusion })).map((h) => h.key);
    assert.deepEqual(await keys(), ['2', 'b1', 'b2'], 'unordered by default');
    // Turn 2's neighbours borrow 0.8 of its score and pass the weaker matches (ties by id).
    assert.deepEqual(await keys({ neighbourWeight: 0.8, neighbourReach: 1 }), ['2', '1', '3']);
    assert.deepEqual(await keys({ neighbourWeight: 0.3, neighbourReach: 1 }), ['2', 'b1', 'b2']);
    await rejectsWith(s.search({ text: 'x', fusion: { neighbourReach: 5 } }), 'INVALID_ARGUMENT');
    await rejectsWith(s.search({ text: 'x', fusion: { neighbourWeight: -0.1 } }), 'INVALID_ARGUMENT');
  });
}
