// @ts-check
/**
 * The MemoryStore contract, coherence and valid time: reads answer with what is valid at `validAt` (default now,
 * `'any'` for all), `remember` folds duplicates and supersedes updates (closing and linking, never deleting) and
 * keeps apart what only looks alike, `assess` + `decided` apply an outside decision, `consolidate` applies the rules
 * to stored memories, `context` assembles a block within its budget, and the change feed, export and import carry it.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejectsWith } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} FreshStore */

/**
 * @param {string} text
 * @param {number[]} embedding
 */
const fact = (text, embedding) => ({ namespace: ['u'], text, embedding });

/** @param {FreshStore} fresh */
export function coherenceCases(fresh) {
  it('answers reads with what is valid then', async () => {
    const s = await fresh({ dims: 2 });
    const now = Date.now();
    await s.put({ namespace: ['u'], key: 'old', value: 'Porto', validTo: now - 1000, embedding: [1, 0] });
    await s.put({ namespace: ['u'], key: 'new', value: 'Lisbon', validFrom: now - 1000, embedding: [0.9, 0.1] });
    await s.put({ namespace: ['u'], key: 'later', value: 'Faro', validFrom: now + 3_600_000, embedding: [0.8, 0.2] });
    const keys = async (/** @type {any} */ o) => (await s.list({ prefix: ['u'], ...o })).items.map((m) => m.key);
    assert.deepEqual(await keys({}), ['new']);
    assert.deepEqual(await keys({ validAt: now - 5000 }), ['old']);
    assert.deepEqual(await keys({ validAt: 'any' }), ['later', 'new', 'old']);
    assert.equal(await s.get(['u'], 'old'), null);
    const old = await s.get(['u'], 'old', { validAt: 'any' });
    assert.equal(old?.validTo, now - 1000);
    assert.equal(old?.validFrom, undefined);
    const hits = await s.search({ vector: [1, 0], k: 5 });
    assert.deepEqual(
      hits.map((h) => h.key),
      ['new'],
    );
    assert.equal(hits[0].validFrom, now - 1000);
    const all = await s.search({ vector: [1, 0], k: 5, validAt: 'any' });
    assert.deepEqual(all.map((h) => h.key).sort(), ['later', 'new', 'old']);
    await rejectsWith(s.put({ namespace: ['u'], key: 'bad', value: 1, validFrom: 5, validTo: 4 }), 'INVALID_ARGUMENT');
    await rejectsWith(s.list({ validAt: /** @type {any} */ ('soon') }), 'INVALID_ARGUMENT');
  });

  it('remembers: folds duplicates, supersedes updates, keeps apart look-alikes', async () => {
    const s = await fresh({ dims: 2 });
    const [first] = await s.remember(fact('Ana lives in Porto.', [1, 0]));
    assert.equal(first.decision, 'new');
    assert.match(first.key, /^m-[0-9a-f]{16}$/);
    const [again] = await s.remember(fact('ana lives in porto', [0.99, 0.01]));
    assert.equal(again.decision, 'duplicate');
    assert.equal(again.key, first.key);
    assert.equal(again.target?.key, first.key);
    const folded = await s.get(['u'], first.key);
    assert.equal(folded?.seen, 2);
    assert.equal(typeof folded?.lastSeen, 'number');

    const [moved] = await s.remember(fact('Ana now lives in Lisbon.', [0.95, 0.3]));
    assert.equal(moved.decision, 'supersede', moved.reason);
    assert.equal(moved.target?.key, first.key);
    assert.equal(await s.get(['u'], first.key), null, 'the old fact is not valid now');
    const closed = await s.get(['u'], first.key, { validAt: 'any' });
    assert.equal(closed?.replacedBy, moved.key);
    const current = await s.get(['u'], moved.key);
    assert.equal(current?.replaces, first.key);
    assert.equal(current?.validFrom, closed?.validTo);
    assert.equal((await s.history(['u'], first.key)).length, 3, 'put, fold, close: nothing deleted');
    const events = await s.changes(0, { filter: { kinds: ['supersede'] } });
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].payload, { by: moved.key });

    for (const look of ["Ana's sister lives in Lisbon.", 'Ana does not live in Lisbon.', 'Bruno lives in Lisbon.']) {
      const [r] = await s.remember(fact(look, [0.95, 0.3]));
      assert.equal(r.decision, 'new', `${look}: ${r.reason}`);
    }
    // An explicit key names the attribute: other words under it supersede, as a new version.
    const [a] = await s.remember({ namespace: ['u'], key: 'theme', text: 'Prefers dark mode' });
    const [b] = await s.remember({ namespace: ['u'], key: 'theme', text: 'Prefers light mode' });
    assert.deepEqual([a.decision, b.decision, b.key, b.version], ['new', 'supersede', 'theme', 2]);
    await rejectsWith(s.remember({ namespace: ['u'], text: ' ' }), 'INVALID_ARGUMENT');
    await rejectsWith(
      s.remember({ namespace: ['u'], messages: [{ role: 'user', content: 'hi' }] }),
      'INVALID_ARGUMENT',
    );
  });

  it('assesses without writing, and applies a decision made outside the rules', async () => {
    const s = await fresh({ dims: 2 });
    await s.remember(fact('Meeting with Bruno on Monday', [1, 0]));
    const seq = await s.seq();
    const moved = fact('Meeting with Bruno on Friday', [0.99, 0.05]);
    const a = await s.assess(moved);
    assert.equal(await s.seq(), seq, 'nothing written');
    assert.equal(a.decision, 'new');
    assert.equal(a.uncertain.length, 1);
    const [r] = await s.remember({ ...moved, decided: { decision: 'supersede', target: a.uncertain[0] } });
    assert.deepEqual([r.decision, r.judged], ['supersede', true]);
    // The target changed since that decision: CONFLICT, decide again.
    await rejectsWith(s.remember({ ...moved, decided: { decision: 'duplicate', target: a.uncertain[0] } }), 'CONFLICT');
  });

  it('consolidates what is stored, resumably, deleting nothing', async () => {
    const s = await fresh({ dims: 2 });
    const rows = [
      ['k0', 'Ana lives in Porto', [1, 0]],
      ['k1', 'Bruno likes jazz', [0, 1]],
      ['k2', 'ana lives in porto!', [1, 0.02]],
      ['k3', 'Ana moved to Lisbon', [0.95, 0.3]],
    ];
    for (const [key, text, embedding] of rows) {
      await s.put({
        namespace: ['u'],
        key: /** @type {string} */ (key),
        value: text,
        embedding: /** @type {number[]} */ (embedding),
      });
      await new Promise((r) => setTimeout(r, 3));
    }
    /** @type {string | undefined} */
    let cursor;
    const decisions = [];
    do {
      const r = await s.consolidate({ namespace: ['u'], cursor, limit: 2 });
      decisions.push(...r.decisions);
      cursor = r.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(
      decisions.map((d) => [d.decision, d.target?.key]),
      [
        ['duplicate', 'k0'],
        ['supersede', 'k0'],
      ],
    );
    assert.deepEqual(
      (await s.list({ prefix: ['u'] })).items.map((m) => m.key),
      ['k1', 'k3'],
    );
    assert.equal((await s.list({ prefix: ['u'], validAt: 'any' })).items.length, 4);
  });

  it('builds a context block within its budget', async () => {
    const s = await fresh({ dims: 2 });
    await s.put({ namespace: ['u'], key: 'name', value: "The user's name is Ana", pinned: true });
    await s.remember(fact('Ana lives in Porto', [1, 0]));
    await s.remember(fact('Ana moved to Lisbon', [0.95, 0.3]));
    const c = await s.context({ query: 'where does Ana live', namespaces: [['u']] });
    assert.match(c.text, /^## Pinned\n- The user's name is Ana\n/);
    assert.match(c.text, /## Relevant facts\n- Ana moved to Lisbon \(since \d{4}-\d\d-\d\d\)/);
    assert.match(c.text, /## Recent changes\n- Ana moved to Lisbon .*\(was: Ana lives in Porto\)/);
    assert.ok(c.tokens <= 1000 && c.tokens === Math.ceil(new TextEncoder().encode(c.text).length / 4));
    assert.deepEqual([...new Set(c.items.map((i) => i.section))], ['pinned', 'relevant', 'recent']);
    const small = await s.context({ query: 'where does Ana live', budget: 12 });
    assert.ok(small.tokens <= 12, small.text);
    await rejectsWith(s.context({ budget: 0 }), 'INVALID_ARGUMENT');
  });

  it('carries valid time and links through export and import', async () => {
    const s = await fresh({ dims: 2 });
    await s.remember(fact('Ana lives in Porto', [1, 0]));
    await s.remember(fact('Ana lives in Porto', [1, 0]));
    await s.remember(fact('Ana moved to Lisbon', [0.95, 0.3]));
    const doc = await s.export();
    const t = await fresh({ dims: 2 });
    await t.import(doc);
    const all = async (/** @type {import('edgemem').MemoryStore} */ x) =>
      (await x.list({ prefix: ['u'], validAt: 'any' })).items.map(({ seq: _s, ...m }) => m);
    assert.deepEqual(await all(t), await all(s));
    const closed = (await all(t)).find((m) => m.validTo !== undefined);
    assert.equal(closed?.seen, 2);
    assert.ok(closed?.replacedBy);
  });
}
