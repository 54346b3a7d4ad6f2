/**
 * Per-agent settings (`PUT` / `GET /v1/agents/{agent}`): dims/metric/scalar while the agent holds no data, then
 * only caps, retention and limits; kept in the Durable Object's storage across instances; invalid settings leave
 * the old ones in place.
 */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../src/agent-memory';
import { agentId, api, expectError, token } from './helpers';

const stubOf = (a: string) => env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));

describe('agent settings', () => {
  it('an agent created with its own dims, caps and retention uses them', async () => {
    const a = agentId('cfg');
    const r = await api('PUT', `/v1/agents/${a}`, {
      body: { dims: 2, metric: 'l2', maxMemories: 2, retention: { eventsMax: 3 } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      agent: a,
      seq: 0,
      settings: { dims: 2, metric: 'l2', scalar: 'f32', maxMemories: 2, retention: { eventsMax: 3 } },
    });
    expectError(
      await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0, 0, 0] } }),
      422,
      'DIMENSION_MISMATCH',
    );
    for (const k of ['a', 'b', 'c']) {
      expect(
        (await api('PUT', `/v1/agents/${a}/memories/${k}?ns=n`, { body: { value: k, embedding: [1, 0] } })).status,
      ).toBe(200);
    }
    const stats = (await api('GET', `/v1/agents/${a}/stats`)).body;
    expect(stats).toMatchObject({ dims: 2, metric: 'l2', memories: 2, maxMemories: 2 });
    const got = await api('GET', `/v1/agents/${a}`, { token: await token(a, ['read']) });
    expect(got.body).toMatchObject({ agent: a, seq: stats.seq, settings: { dims: 2, metric: 'l2' } });
  });

  it('507 QUOTA_EXCEEDED when pinned data alone would pass the cap; 410 HISTORY_PRUNED before the history floor', async () => {
    const a = agentId('cfg');
    expect(
      (await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, maxMemories: 1, retention: { historyVersions: 1 } } }))
        .status,
    ).toBe(200);
    expect((await api('PUT', `/v1/agents/${a}/memories/p?ns=n`, { body: { value: 1, pinned: true } })).status).toBe(
      200,
    );
    expectError(
      await api('PUT', `/v1/agents/${a}/memories/q?ns=n`, { body: { value: 2, pinned: true } }),
      507,
      'QUOTA_EXCEEDED',
    );
    for (let v = 2; v <= 4; v++)
      await api('PUT', `/v1/agents/${a}/memories/p?ns=n`, { body: { value: v, pinned: true } });
    await runInDurableObject(stubOf(a), async (o: AgentMemory) => {
      const r = await o.call('sweep', []); // applies history retention (one version per key)
      expect(r.ok).toBe(true);
    });
    expectError(await api('GET', `/v1/agents/${a}/memories/p?ns=n&asOfSeq=1`), 410, 'HISTORY_PRUNED');
  });

  it('dims, metric and scalar are fixed once the agent holds data; caps and retention still change', async () => {
    const a = agentId('cfg');
    expect((await api('PUT', `/v1/agents/${a}`, { body: { dims: 3 } })).status).toBe(200);
    expect((await api('PUT', `/v1/agents/${a}`, { body: { dims: 2 } })).body.settings.dims).toBe(2); // still empty: re-created
    await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0] } });
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { dims: 3 } }), 409, 'CONFLICT');
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, metric: 'ip' } }), 409, 'CONFLICT');
    const caps = await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, maxBytes: 5000 } });
    expect(caps.status).toBe(200);
    expect(caps.body).toMatchObject({ seq: 1, settings: { dims: 2, maxBytes: 5000 } });
    expect((await api('GET', `/v1/agents/${a}/stats`)).body).toMatchObject({ maxBytes: 5000, memories: 1, dims: 2 });
    expect((await api('GET', `/v1/agents/${a}/memories/k?ns=n`)).body.value).toBe(1);
  });

  it('new agents index vectors as i4 with cosine (f32 otherwise); one holding data keeps its scalar on a caps-only PUT', async () => {
    const cos = agentId('cfg');
    expect((await api('PUT', `/v1/agents/${cos}`, { body: { dims: 2 } })).body.settings).toMatchObject({
      metric: 'cosine',
      scalar: 'i4',
    });
    await api('PUT', `/v1/agents/${cos}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0] } });
    expect((await api('GET', `/v1/agents/${cos}/stats`)).body).toMatchObject({ scalar: 'i4', dims: 2 });
    const l2 = agentId('cfg');
    expect((await api('PUT', `/v1/agents/${l2}`, { body: { dims: 2, metric: 'l2' } })).body.settings).toMatchObject({
      metric: 'l2',
      scalar: 'f32',
    });
    const f32 = agentId('cfg');
    expect((await api('PUT', `/v1/agents/${f32}`, { body: { dims: 2, scalar: 'f32' } })).status).toBe(200);
    await api('PUT', `/v1/agents/${f32}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0] } });
    const caps = await api('PUT', `/v1/agents/${f32}`, { body: { maxMemories: 10 } });
    expect(caps.status, JSON.stringify(caps.body)).toBe(200);
    expect(caps.body.settings).toMatchObject({ dims: 2, metric: 'cosine', scalar: 'f32', maxMemories: 10 });
    expect((await api('GET', `/v1/agents/${f32}/stats`)).body).toMatchObject({ scalar: 'f32', dims: 2 });
    expectError(await api('PUT', `/v1/agents/${f32}`, { body: { scalar: 'i8' } }), 409, 'CONFLICT');
  });

  it('settings live in the object storage: a fresh instance opens with them', async () => {
    const a = agentId('cfg');
    await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, maxMemories: 7 } });
    const stats = await runInDurableObject(stubOf(a), async (_old, state) => {
      const fresh = new AgentMemory(state, env);
      return fresh.call('stats', []);
    });
    expect(stats.ok && stats.value).toMatchObject({ dims: 2, maxMemories: 7 });
  });

  it('an existing store keeps its dims when the Worker default changes', async () => {
    const a = agentId('cfg');
    await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0, 0, 0] } });
    const r = await runInDurableObject(stubOf(a), async (_old, state) => {
      const fresh = new AgentMemory(state, { ...env, EDGEMEM_DIMS: '8' });
      return fresh.call('put', [{ namespace: ['n'], key: 'j', value: 2, embedding: [0, 1, 0, 0] }]);
    });
    expect(r.ok).toBe(true);
  });

  it('refuses invalid settings and keeps the previous ones', async () => {
    const a = agentId('cfg');
    await api('PUT', `/v1/agents/${a}`, { body: { dims: 2 } });
    expectError(
      await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, scalar: 'i8', metric: 'l2' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { dims: 2, bogus: 1 } }), 400, 'INVALID_ARGUMENT');
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { maxMemoryBytes: 10 << 20 } }), 400, 'INVALID_ARGUMENT');
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { dims: 99999 } }), 400, 'INVALID_ARGUMENT');
    expect((await api('GET', `/v1/agents/${a}`)).body.settings).toMatchObject({
      dims: 2,
      metric: 'cosine',
      scalar: 'i4',
    });
    expect(
      (await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: 1, embedding: [1, 0] } })).status,
    ).toBe(200);
  });

  it('subscribed sockets keep receiving after a reconfiguration', async () => {
    const a = agentId('cfg');
    await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: 1 } });
    const { TestSocket } = await import('./socket');
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe', since: 1 });
    await s.until('subscribed');
    expect((await api('PUT', `/v1/agents/${a}`, { body: { dims: 4, maxMemories: 100 } })).status).toBe(200);
    await api('PUT', `/v1/agents/${a}/memories/j?ns=n`, { body: { value: 2 } });
    expect(await s.next()).toMatchObject({ type: 'event', seq: 2, event: { key: 'j' } });
    s.close();
  });
});
