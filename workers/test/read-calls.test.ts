/**
 * Read-only store calls in the Durable Object run without `transactionSync` (src/do-page-store.ts `reading`):
 * reads through the API open no transaction and answer as before, writes still open one, a page write inside a
 * read is refused before it reaches storage, and a read after a trap (its store reopened) still answers. A search
 * runs as a read once the writes buffered for the full-text index are applied, in a transaction before.
 */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { forceTrap } from 'edgemem/testing';
import { describe, expect, it } from 'vitest';
import { DurableObjectPageStore, PAGE_TABLE } from '../src/do-page-store';
import { agentId, api } from './helpers';

const stubOf = (a: string) => env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));

/** Counts the `transactionSync` calls of every object's storage in this isolate while `run` runs. */
async function transactionsDuring(a: string, run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const restore = await runInDurableObject(stubOf(a), async (_i, state) => {
    const proto = Object.getPrototypeOf(state.storage) as { transactionSync: (fn: () => unknown) => unknown };
    const original = proto.transactionSync;
    proto.transactionSync = function (this: unknown, fn: () => unknown) {
      count++;
      return original.call(this, fn);
    };
    return () => {
      proto.transactionSync = original;
    };
  });
  try {
    await run();
  } finally {
    await runInDurableObject(stubOf(a), async () => restore());
  }
  return count;
}

async function seed(a: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const r = await api('PUT', `/v1/agents/${a}/memories/k${i}?ns=t`, {
      body: { value: { i }, text: `memory number ${i}`, embedding: [i, 1, 0, 0] },
    });
    expect(r.status).toBe(200);
  }
  const cp = await api('POST', `/v1/agents/${a}/checkpoints`, {
    body: { threadId: 'th', checkpointId: 'c1', data: { step: 1 } },
  });
  expect(cp.status).toBe(200);
}

describe('read-only calls', () => {
  it('answer without a transaction; writes still run in one', async () => {
    const a = agentId('reads');
    await seed(a);
    const reads = await transactionsDuring(a, async () => {
      expect((await api('GET', `/v1/agents/${a}/memories/k1?ns=t`)).body.value).toEqual({ i: 1 });
      expect((await api('GET', `/v1/agents/${a}/memories/k1?ns=t&embedding=true`)).body.embedding).toHaveLength(4);
      expect((await api('GET', `/v1/agents/${a}/memories/k1?ns=t&asOfSeq=1`)).status).toBe(404);
      expect((await api('GET', `/v1/agents/${a}/memories?prefix=t`)).body.items).toHaveLength(3);
      expect((await api('GET', `/v1/agents/${a}/memories/k2/history?ns=t`)).body.versions).toHaveLength(1);
      expect((await api('GET', `/v1/agents/${a}/checkpoints/th`)).body.data).toEqual({ step: 1 });
      expect((await api('GET', `/v1/agents/${a}/checkpoints?threadId=th`)).body.checkpoints).toHaveLength(1);
      expect((await api('GET', `/v1/agents/${a}/stats`)).body.memories).toBe(3);
      expect((await api('GET', `/v1/agents/${a}/namespaces`)).status).toBe(200);
      expect((await api('GET', `/v1/agents/${a}/events?after=0`)).body.events).toHaveLength(4);
      const changes = await runInDurableObject(stubOf(a), (instance) =>
        instance.call('changesPage', [0, { limit: 10 }]),
      );
      expect(changes.ok && changes.value.events.length).toBe(4);
      // The latest seq alone (what the MCP server asks before its writes and feed reads), as stats reports it.
      const seq = await runInDurableObject(stubOf(a), (instance) => instance.call('seq', []));
      expect(seq).toEqual({ ok: true, value: (await api('GET', `/v1/agents/${a}/stats`)).body.seq });
      expect(seq.ok && seq.value).toBe(4);
    });
    expect(reads).toBe(0);
    const writes = await transactionsDuring(a, async () => {
      expect((await api('PUT', `/v1/agents/${a}/memories/k9?ns=t`, { body: { value: 9 } })).status).toBe(200);
    });
    expect(writes).toBeGreaterThan(0);
  });

  it('search as reads once the full-text buffer is applied, and see every write either way', async () => {
    const a = agentId('search-reads');
    await seed(a);
    const search = async (text: string) => {
      const r = await api('POST', `/v1/agents/${a}/search`, { body: { text, mode: 'lexical', k: 5 } });
      expect(r.status).toBe(200);
      return (r.body.hits as { key: string }[]).map((h) => h.key).sort();
    };
    // The seeded writes wait in the buffer: the first search applies them (a write), and BM25 finds them.
    expect(await transactionsDuring(a, async () => expect(await search('number')).toEqual(['k0', 'k1', 'k2']))).toBe(1);
    expect(await transactionsDuring(a, async () => expect(await search('number')).toEqual(['k0', 'k1', 'k2']))).toBe(0);
    const put = await api('PUT', `/v1/agents/${a}/memories/k1?ns=t`, {
      body: { value: 1, text: 'zebra crossing', embedding: [1, 1, 0, 0] },
    });
    expect(put.status).toBe(200);
    expect(await transactionsDuring(a, async () => expect(await search('zebra')).toEqual(['k1']))).toBe(1);
    expect(await transactionsDuring(a, async () => expect(await search('number')).toEqual(['k0', 'k2']))).toBe(0);
  });

  it('refuses a page write inside a read before it reaches storage, and says so', async () => {
    const a = agentId('refuse');
    await seed(a);
    await runInDurableObject(stubOf(a), async (_i, state) => {
      const pages = new DurableObjectPageStore(state.storage);
      const before = state.storage.sql.exec(`SELECT count(*) AS n, sum(length(data)) AS b FROM ${PAGE_TABLE}`).one();
      const page = pages.get('db/0');
      expect(page?.length).toBeGreaterThan(0);
      const read = pages.reading(() => pages.transaction(() => pages.get('db/0')?.length));
      expect(read).toEqual({ value: page?.length, refused: false });
      const tried = pages.reading(() => {
        expect(() => pages.put('db/999', new Uint8Array(8192))).toThrow(/read-only/);
        expect(() => pages.delete('db/0')).toThrow(/read-only/);
        return 'done';
      });
      expect(tried).toEqual({ value: 'done', refused: true });
      const after = state.storage.sql.exec(`SELECT count(*) AS n, sum(length(data)) AS b FROM ${PAGE_TABLE}`).one();
      expect(after).toEqual(before);
      expect(pages.get('db/999')).toBeUndefined();
      // Outside `reading` it writes again.
      pages.transaction(() => pages.put('db/999', new Uint8Array(8192)));
      expect(pages.get('db/999')?.length).toBe(8192);
      pages.transaction(() => pages.delete('db/999'));
    });
  });

  it('answer after a trap, their store reopened', async () => {
    const a = agentId('reads-trap');
    await seed(a);
    await runInDurableObject(stubOf(a), async () => forceTrap().catch(() => undefined));
    expect((await api('GET', `/v1/agents/${a}/memories/k2?ns=t`)).body.value).toEqual({ i: 2 });
    await runInDurableObject(stubOf(a), async () => forceTrap().catch(() => undefined));
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.memories).toBe(3);
    const put = await api('PUT', `/v1/agents/${a}/memories/k3?ns=t`, { body: { value: 3 } });
    expect(put.body.seq).toBe(5);
    expect((await api('GET', `/v1/agents/${a}/memories/k3?ns=t`)).body.value).toBe(3);
  });

  it('run again as a write when they try to write a page after all', async () => {
    const a = agentId('reads-retry');
    await seed(a);
    // A cold engine (after a trap) reads pages to reopen; the first page it reads is written back as it was,
    // once: inside a read that write is refused, so the call must run again in a transaction.
    await runInDurableObject(stubOf(a), async () => forceTrap().catch(() => undefined));
    const proto = DurableObjectPageStore.prototype;
    const get = proto.get;
    let armed = true;
    proto.get = function (this: DurableObjectPageStore, key: string) {
      const v = get.call(this, key);
      if (armed && v) {
        armed = false;
        this.put(key, v);
      }
      return v;
    };
    try {
      const n = await transactionsDuring(a, async () => {
        expect((await api('GET', `/v1/agents/${a}/memories/k1?ns=t`)).body.value).toEqual({ i: 1 });
      });
      expect(armed).toBe(false);
      expect(n).toBeGreaterThan(0);
    } finally {
      proto.get = get;
    }
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.memories).toBe(3);
    expect((await api('PUT', `/v1/agents/${a}/memories/k4?ns=t`, { body: { value: 4 } })).body.seq).toBe(5);
  });
});
