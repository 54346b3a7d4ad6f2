/** WebSocket push: live events, `since` replay then live with no gap or duplicate, filters, RESUME_GAP, protocol errors. */

import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../src/agent-memory';
import { agentId, api, mint, pastExpiry } from './helpers';
import { TestSocket } from './socket';

const put = (a: string, key: string, ns = 'n', value: unknown = key) =>
  api('PUT', `/v1/agents/${a}/memories/${key}?ns=${ns}`, { body: { value } });
const seqs = (ms: { type: string; seq: number }[]) => ms.map((m) => m.seq);

describe('WebSocket', () => {
  it('pushes each committed change with its seq', async () => {
    const a = agentId('ws');
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe' });
    expect(await s.next()).toEqual({ type: 'subscribed', seq: 0 });
    await put(a, 'k1');
    const m = await s.next();
    expect(m).toMatchObject({
      type: 'event',
      seq: 1,
      event: { seq: 1, kind: 'put', namespace: ['n'], key: 'k1', version: 1 },
    });
    await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'chat', payload: { hi: 1 } } });
    expect(await s.next()).toMatchObject({
      type: 'event',
      seq: 2,
      event: { kind: 'notify', channel: 'chat', payload: { hi: 1 } },
    });
    s.send({ type: 'ping' });
    expect(await s.next()).toEqual({ type: 'pong', seq: 2 });
    s.send({ type: 'unsubscribe' });
    expect(await s.next()).toEqual({ type: 'unsubscribed', seq: 2 });
    await put(a, 'k2');
    await s.quiet();
    s.close();
  });

  it('closes a socket (4401) once its scoped token expires: no push and no answer after that', async () => {
    const a = agentId('ws');
    // The agent opened first; 6 s (5 to 6: whole seconds): time enough to open and subscribe on a loaded machine.
    expect((await api('GET', `/v1/agents/${a}/stats`)).status).toBe(200);
    const { token: t, expiresAt } = await mint(a, ['subscribe'], 6);
    const s = await TestSocket.open(a, t);
    s.send({ type: 'subscribe' });
    await s.until('subscribed');
    await put(a, 'k1');
    expect(await s.next()).toMatchObject({ type: 'event', seq: 1 });
    await pastExpiry(expiresAt);
    await put(a, 'k2');
    expect(await s.closed()).toBe(4401);
    expect(s.messages.map((m) => m.seq)).toEqual([0, 1]);
  });

  it('since: replays retained events after it, then goes live, in seq order without gaps or duplicates', async () => {
    const a = agentId('ws');
    for (let i = 1; i <= 5; i++) await put(a, `k${i}`);
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe', since: 2 });
    const { msg, before } = await s.until('subscribed');
    expect(seqs(before as never)).toEqual([3, 4, 5]);
    expect(msg).toEqual({ type: 'subscribed', seq: 5 });
    await put(a, 'k6');
    await put(a, 'k7');
    expect(seqs([await s.next(), await s.next()] as never)).toEqual([6, 7]);
    await s.quiet();
    s.close();
  });

  it('filters by namespace prefix, kind and notify channel', async () => {
    const a = agentId('ws');
    const s = await TestSocket.open(a);
    s.send({
      type: 'subscribe',
      filter: { kinds: ['put', 'notify'], namespaces: [['user', '1']], channels: ['chat'] },
    });
    await s.until('subscribed');
    await put(a, 'x', 'user/2');
    await put(a, 'y', 'user/1/prefs');
    await api('DELETE', `/v1/agents/${a}/memories/y?ns=user/1/prefs`);
    await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'other', payload: 1 } });
    await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'chat', payload: 2 } });
    const got = [await s.next(), await s.next()];
    expect(got.map((m) => (m.type === 'event' ? [m.seq, m.event.kind, m.event.key ?? m.event.channel] : m))).toEqual([
      [2, 'put', 'y'],
      [5, 'notify', 'chat'],
    ]);
    await s.quiet();
    s.close();
  });

  it('RESUME_GAP (with oldestSeq) when since is older than the retained window', async () => {
    const a = agentId('ws');
    const memories = Array.from({ length: 80 }, (_, i) => ({ namespace: ['g'], key: `k${i}`, value: i }));
    await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } });
    await runDurableObjectAlarm(env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a)));
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe', since: 0 });
    const m = await s.next();
    expect(m.type).toBe('error');
    if (m.type !== 'error') return;
    expect(m.error.code).toBe('RESUME_GAP');
    expect(m.error.oldestSeq).toBeGreaterThan(1);
    expect(m.seq).toBe(80);
    s.send({ type: 'subscribe', since: m.error.oldestSeq! - 1 });
    const { before } = await s.until('subscribed');
    expect(before.at(-1)?.seq).toBe(80);
    s.close();
  });

  it('answers malformed messages with INVALID_ARGUMENT and keeps the socket', async () => {
    const a = agentId('ws');
    const s = await TestSocket.open(a);
    s.ws.send('not json');
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'INVALID_ARGUMENT' } });
    s.send({ type: 'subscribe', filter: { kinds: ['bogus'] } } as never);
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'INVALID_ARGUMENT' } });
    s.ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(20_000) }));
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'PAYLOAD_TOO_LARGE' } });
    s.send({ type: 'ping' });
    expect(await s.next()).toMatchObject({ type: 'pong' });
    s.close();
  });

  it('subscriptions survive hibernation: a fresh instance over the same state restores them from the attachments', async () => {
    const a = agentId('ws');
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe', filter: { kinds: ['put'] } });
    await s.until('subscribed');
    const stub = env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));
    // What workerd does on a wake from hibernation: a new object over the same storage and accepted sockets,
    // with none of the old instance's memory. Its first call (here a write) must re-create the subscriptions.
    const ack = await runInDurableObject(stub, async (_old, state) => {
      const fresh = new AgentMemory(state, env);
      const r = await fresh.call('put', [{ namespace: ['n'], key: 'after-wake', value: 1 }]);
      await fresh.call('notify', ['c', 1]);
      return r;
    });
    expect(ack.ok).toBe(true);
    const m = await s.next();
    expect(m).toMatchObject({ type: 'event', seq: 1, event: { kind: 'put', key: 'after-wake' } });
    await s.quiet();
    s.close();
  });

  it('a ping to an object woken from hibernation is answered without opening the store', async () => {
    const a = agentId('ws');
    await put(a, 'k1');
    const s = await TestSocket.open(a);
    s.send({ type: 'subscribe' });
    expect((await s.until('subscribed')).msg).toEqual({ type: 'subscribed', seq: 1 });
    const stub = env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));
    const pageReads = await runInDurableObject(stub, async (_old, state) => {
      // A fresh instance (a wake from hibernation), with the KV's reads counted: opening the store reads pages.
      let reads = 0;
      const kv = state.storage.kv;
      const get = kv.get;
      kv.get = ((...args: Parameters<typeof get>) => {
        reads++;
        return get.apply(kv, args);
      }) as typeof get;
      try {
        const fresh = new AgentMemory(state, env);
        await fresh.webSocketMessage(state.getWebSockets()[0]!, JSON.stringify({ type: 'ping' }));
      } finally {
        kv.get = get;
      }
      return reads;
    });
    expect(await s.next()).toEqual({ type: 'pong', seq: 1 });
    expect(pageReads).toBe(0);
    s.close();
  });
});
