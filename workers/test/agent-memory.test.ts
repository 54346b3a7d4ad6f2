/** The Durable Object itself: trap recovery, the maintenance alarm, page-level writes to its storage. */

import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { EdgememError, openStore } from 'edgemem';
import { forceTrap, trapAfterPageWrites, trapCount } from 'edgemem/testing';
import { describe, expect, it } from 'vitest';
import { DurableObjectPageStore, PAGE_PREFIX, PAGE_TABLE } from '../src/do-page-store';
import { agentId, api, expectError } from './helpers';

const stubOf = (a: string) => env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));

/** Every engine page the object holds (its table, else its KV: do-page-store.ts), key → bytes as text. */
function pagesIn(state: DurableObjectState): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of state.storage.kv.list<Uint8Array>({ prefix: PAGE_PREFIX })) out.set(k, Array.from(v).join(','));
  try {
    for (const [id, data] of state.storage.sql.exec(`SELECT id, data FROM ${PAGE_TABLE}`).raw())
      out.set(`table:${id}`, Array.from(new Uint8Array(data as ArrayBuffer)).join(','));
  } catch {
    // no table
  }
  return out;
}

describe('AgentMemory', () => {
  it('after a wasm trap it reopens from storage and keeps every acknowledged write', async () => {
    const a = agentId('trap');
    for (let i = 0; i < 20; i++) {
      const r = await api('PUT', `/v1/agents/${a}/memories/k${i}?ns=t`, {
        body: { value: i, text: `memory ${i}`, embedding: [i, 1, 0, 0] },
      });
      expect(r.status).toBe(200);
    }
    const before = trapCount();
    const err = await runInDurableObject(stubOf(a), async () =>
      forceTrap().then(
        () => null,
        (e) => e,
      ),
    );
    expect(err).toBeInstanceOf(EdgememError);
    expect((err as EdgememError).code).toBe('INTERNAL');
    expect(trapCount()).toBe(before + 1);

    for (let i = 0; i < 20; i++) expect((await api('GET', `/v1/agents/${a}/memories/k${i}?ns=t`)).body.value).toBe(i);
    const hits = await api('POST', `/v1/agents/${a}/search`, {
      body: { text: 'memory 7', vector: [7, 1, 0, 0], k: 1 },
    });
    expect(hits.body.hits[0].key).toBe('k7');
    const after = await api('PUT', `/v1/agents/${a}/memories/after?ns=t`, { body: { value: 'x' } });
    expect(after.body.seq).toBe(21);
  });

  it('a trap in the middle of a write rolls back the pages it wrote: not acknowledged, not applied, nothing lost', async () => {
    const a = agentId('trapw');
    for (let i = 0; i < 5; i++)
      await api('PUT', `/v1/agents/${a}/memories/k${i}?ns=t`, { body: { value: i, text: `memory ${i}` } });
    const pages = () => runInDurableObject(stubOf(a), async (_i, state) => pagesIn(state));
    const before = await pages();
    const traps = trapCount();
    await runInDurableObject(stubOf(a), async () => trapAfterPageWrites(2)); // the 2nd page write of the next call
    expectError(
      await api('PUT', `/v1/agents/${a}/memories/doomed?ns=t`, { body: { value: 'x', text: 'doomed write' } }),
      500,
      'INTERNAL',
    );
    expect(trapCount()).toBe(traps + 1);
    expect(await pages()).toEqual(before);
    expectError(await api('GET', `/v1/agents/${a}/memories/doomed?ns=t`), 404, 'NOT_FOUND');
    for (let i = 0; i < 5; i++) expect((await api('GET', `/v1/agents/${a}/memories/k${i}?ns=t`)).body.value).toBe(i);
    expect((await api('PUT', `/v1/agents/${a}/memories/after?ns=t`, { body: { value: 1 } })).body.seq).toBe(6);
  });

  it('a call that throws inside transactionSync leaves no page behind', async () => {
    const a = agentId('tx');
    await api('PUT', `/v1/agents/${a}/memories/k?ns=t`, { body: { value: 1 } });
    await runInDurableObject(stubOf(a), async (_i, state) => {
      const before = pagesIn(state);
      expect(before.size).toBeGreaterThan(0);
      const pages = new DurableObjectPageStore(state.storage);
      expect(() =>
        pages.transaction(() => {
          pages.put('db/999999', new Uint8Array(8192).fill(7));
          pages.put('db/0', new Uint8Array(8192));
          pages.put('other', new Uint8Array(8));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(pagesIn(state)).toEqual(before);
    });
  });

  it('new stores keep their pages in a table; a store made in the KV keeps that layout', async () => {
    const fresh = agentId('layout');
    await api('PUT', `/v1/agents/${fresh}/memories/k?ns=t`, { body: { value: 1, text: 'in the table' } });
    await runInDurableObject(stubOf(fresh), async (_i, state) => {
      const keys = [...pagesIn(state).keys()];
      expect(keys.filter((k) => k.startsWith('table:')).length).toBeGreaterThan(1);
      expect(keys).toContain('table:-1'); // the file's length
      expect(keys.filter((k) => k.startsWith(PAGE_PREFIX))).toEqual([]);
    });

    const old = agentId('layoutkv');
    await runInDurableObject(stubOf(old), async (_i, state) => {
      const store = await openStore({
        dims: 4,
        storage: { pages: new DurableObjectPageStore(state.storage, 'kv'), atomic: true },
        idleFlushMs: 0,
      });
      await store.put({
        namespace: ['t'],
        key: 'before',
        value: 'kv',
        text: 'made in the KV',
        embedding: [1, 0, 0, 0],
      });
      await store.close();
    });
    expect((await api('GET', `/v1/agents/${old}/memories/before?ns=t`)).body.value).toBe('kv');
    expect((await api('PUT', `/v1/agents/${old}/memories/after?ns=t`, { body: { value: 2 } })).status).toBe(200);
    const hits = await api('POST', `/v1/agents/${old}/search`, { body: { vector: [1, 0, 0, 0], k: 2 } });
    expect(hits.body.hits.map((h: { key: string }) => h.key)).toContain('before');
    await runInDurableObject(stubOf(old), async (_i, state) => {
      const keys = [...pagesIn(state).keys()];
      expect(keys).toContain('p:db/0');
      expect(keys.filter((k) => k.startsWith('table:'))).toEqual([]);
    });
  });

  it('a write rewrites a few pages, never the whole database', async () => {
    const a = agentId('pages');
    const memories = Array.from({ length: 100 }, (_, i) => ({
      namespace: ['p'],
      key: `k${i}`,
      value: 'v'.repeat(500),
      text: `text ${i}`,
    }));
    await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } });
    const snapshot = () => runInDurableObject(stubOf(a), async (_i, state) => pagesIn(state));
    const before = await snapshot();
    await api('PUT', `/v1/agents/${a}/memories/one?ns=p`, { body: { value: 1 } });
    const after = await snapshot();
    const changed = [...after].filter(([k, v]) => before.get(k) !== v).length;
    expect(before.size).toBeGreaterThan(20);
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(before.size / 2);
  });

  it('the alarm sweeps expired memories (expire events) and is armed by writes', async () => {
    const a = agentId('ttl');
    await api('PUT', `/v1/agents/${a}/memories/gone?ns=t`, { body: { value: 1, ttlMs: 1 } });
    await api('PUT', `/v1/agents/${a}/memories/kept?ns=t`, { body: { value: 2 } });
    await new Promise((r) => setTimeout(r, 5));
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.memories).toBe(2); // invisible, not yet swept
    expect(await runDurableObjectAlarm(stubOf(a))).toBe(true);
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.memories).toBe(1);
    const ev = await api('GET', `/v1/agents/${a}/events?after=2`);
    expect(ev.body.events).toMatchObject([{ kind: 'expire', key: 'gone' }]);
  });
});
