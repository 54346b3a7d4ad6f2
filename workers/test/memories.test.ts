/** Memory routes: put / get / delete / list / batch / history, AS OF reads, compare-and-set, dims. */
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

const mem = (a: string, key: string, ns = 'user/42') => `/v1/agents/${a}/memories/${encodeURIComponent(key)}?ns=${ns}`;

describe('memories', () => {
  it('PUT then GET returns the memory with its version and seq', async () => {
    const a = agentId();
    const put = await api('PUT', mem(a, 'coffee'), {
      body: {
        value: { pref: 'oat' },
        text: 'oat milk flat white',
        embedding: [1, 0, 0, 0],
        metadata: { topic: 'drinks' },
        pinned: true,
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ seq: 1, version: 1, evicted: [] });
    const get = await api('GET', mem(a, 'coffee'));
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({
      namespace: ['user', '42'],
      key: 'coffee',
      value: { pref: 'oat' },
      text: 'oat milk flat white',
      metadata: { topic: 'drinks' },
      pinned: true,
      version: 1,
      seq: 1,
    });
    expect(get.body.embedding).toBeUndefined();
    const withEmbedding = await api('GET', `${mem(a, 'coffee')}&embedding=true`);
    expect(withEmbedding.body.embedding).toEqual([1, 0, 0, 0]);
  });

  it('keys with slashes and unicode round-trip through the path', async () => {
    const a = agentId();
    const key = 'a/b c/é?#';
    expect((await api('PUT', mem(a, key), { body: { value: 1 } })).status).toBe(200);
    const get = await api('GET', mem(a, key));
    expect(get.status).toBe(200);
    expect(get.body.key).toBe(key);
  });

  it('GET of a missing memory is 404 NOT_FOUND; DELETE too', async () => {
    const a = agentId();
    expectError(await api('GET', mem(a, 'nope')), 404, 'NOT_FOUND');
    expectError(await api('DELETE', mem(a, 'nope')), 404, 'NOT_FOUND');
  });

  it('ifVersion compare-and-set: 409 CONFLICT on a stale version, 0 means must not exist', async () => {
    const a = agentId();
    expect((await api('PUT', mem(a, 'k'), { body: { value: 1, ifVersion: 0 } })).status).toBe(200);
    expectError(await api('PUT', mem(a, 'k'), { body: { value: 2, ifVersion: 0 } }), 409, 'CONFLICT');
    expect((await api('PUT', mem(a, 'k'), { body: { value: 2, ifVersion: 1 } })).body.version).toBe(2);
    expectError(await api('DELETE', `${mem(a, 'k')}&ifVersion=1`), 409, 'CONFLICT');
    expect((await api('DELETE', `${mem(a, 'k')}&ifVersion=2`)).body).toEqual({ seq: 3 });
  });

  it('an embedding of the wrong length is 422 DIMENSION_MISMATCH', async () => {
    const a = agentId();
    expectError(await api('PUT', mem(a, 'k'), { body: { value: 1, embedding: [1, 2, 3] } }), 422, 'DIMENSION_MISMATCH');
  });

  it('AS OF a seq or a time answers what was visible then', async () => {
    const a = agentId();
    await api('PUT', mem(a, 'k'), { body: { value: 'v1' } });
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await api('PUT', mem(a, 'k'), { body: { value: 'v2' } });
    await api('DELETE', mem(a, 'k'));
    expect((await api('GET', `${mem(a, 'k')}&asOfSeq=1`)).body.value).toBe('v1');
    expect((await api('GET', `${mem(a, 'k')}&asOfSeq=2`)).body.value).toBe('v2');
    expectError(await api('GET', `${mem(a, 'k')}&asOfSeq=3`), 404, 'NOT_FOUND');
    expect((await api('GET', `${mem(a, 'k')}&asOfTime=${t1}`)).body.value).toBe('v1');
    expectError(await api('GET', `${mem(a, 'k')}&asOfSeq=1&asOfTime=${t1}`), 400, 'INVALID_ARGUMENT');
    const list = await api('GET', `/v1/agents/${a}/memories?prefix=user&asOfSeq=1`);
    expect(list.body.items.map((m: any) => m.value)).toEqual(['v1']);
  });

  it('lists by prefix in pages with a cursor', async () => {
    const a = agentId();
    for (let i = 0; i < 5; i++) await api('PUT', mem(a, `k${i}`, 'p/q'), { body: { value: i } });
    await api('PUT', mem(a, 'other', 'z'), { body: { value: 'z' } });
    const p1 = await api('GET', `/v1/agents/${a}/memories?prefix=p&limit=3`);
    expect(p1.status).toBe(200);
    expect(p1.body.items).toHaveLength(3);
    expect(p1.body.nextCursor).toBeTypeOf('string');
    const p2 = await api(
      'GET',
      `/v1/agents/${a}/memories?prefix=p&limit=3&cursor=${encodeURIComponent(p1.body.nextCursor)}`,
    );
    expect(p2.body.items).toHaveLength(2);
    expect(p2.body.nextCursor).toBeNull();
    const all = await api('GET', `/v1/agents/${a}/memories?embeddings=true`);
    expect(all.body.items).toHaveLength(6);
  });

  it('batch put is all or nothing', async () => {
    const a = agentId();
    const ok = await api('POST', `/v1/agents/${a}/memories/batch`, {
      body: {
        memories: [
          { namespace: ['b'], key: 'x', value: 1 },
          { namespace: ['b'], key: 'y', value: 2, embedding: [0, 1, 0, 0] },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.acks.map((x: any) => x.seq)).toEqual([1, 2]);
    const bad = await api('POST', `/v1/agents/${a}/memories/batch`, {
      body: {
        memories: [
          { namespace: ['b'], key: 'z', value: 3 },
          { namespace: ['b'], key: 'x', value: 9, ifVersion: 7 },
        ],
      },
    });
    expectError(bad, 409, 'CONFLICT');
    expectError(await api('GET', mem(a, 'z', 'b')), 404, 'NOT_FOUND');
    expect((await api('GET', mem(a, 'x', 'b'))).body.value).toBe(1);
  });

  it('history lists every version, oldest first', async () => {
    const a = agentId();
    await api('PUT', mem(a, 'h'), { body: { value: 1 } });
    await api('PUT', mem(a, 'h'), { body: { value: 2 } });
    const h = await api('GET', `/v1/agents/${a}/memories/h/history?ns=user/42`);
    expect(h.status).toBe(200);
    expect(h.body.versions.map((v: any) => v.value)).toEqual([1, 2]);
  });

  it('a memory with ttlMs disappears at once when expired', async () => {
    const a = agentId();
    await api('PUT', mem(a, 't'), { body: { value: 1, ttlMs: 1 } });
    await new Promise((r) => setTimeout(r, 10));
    expectError(await api('GET', mem(a, 't')), 404, 'NOT_FOUND');
  });
});
