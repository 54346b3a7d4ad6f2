/** The change feed over HTTP: notify, `GET /events?after=` with filters, RESUME_GAP past the retained window. */

import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

describe('feed', () => {
  it('events after a seq, oldest first, with kind / prefix / channel filters', async () => {
    const a = agentId();
    await api('PUT', `/v1/agents/${a}/memories/k?ns=x/y`, { body: { value: 1 } });
    await api('PUT', `/v1/agents/${a}/memories/k?ns=other`, { body: { value: 1 } });
    const n = await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'chat', payload: { text: 'hi' } } });
    expect(n.body).toEqual({ seq: 3 });
    await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'other', payload: null } });
    await api('DELETE', `/v1/agents/${a}/memories/k?ns=x/y`);

    const all = await api('GET', `/v1/agents/${a}/events?after=0`);
    expect(all.status).toBe(200);
    expect(all.body.events.map((e: any) => [e.seq, e.kind])).toEqual([
      [1, 'put'],
      [2, 'put'],
      [3, 'notify'],
      [4, 'notify'],
      [5, 'delete'],
    ]);
    expect(all.body.last).toBe(5);
    expect(all.body.events[2]).toMatchObject({ channel: 'chat', payload: { text: 'hi' } });

    const page = await api('GET', `/v1/agents/${a}/events?after=2&limit=2`);
    expect(page.body.events.map((e: any) => e.seq)).toEqual([3, 4]);
    expect(page.body.last).toBe(4);
    expect(page.body.more).toBe(true);
    expect(all.body.more).toBe(false);
    const none = await api('GET', `/v1/agents/${a}/events?after=5`);
    expect(none.body).toEqual({ events: [], last: 5, more: false });

    const chat = await api('GET', `/v1/agents/${a}/events?kind=notify&channel=chat`);
    expect(chat.body.events.map((e: any) => e.seq)).toEqual([3]);
    // A page that is not full moves the cursor to the head, even when the filter matched nothing.
    expect(chat.body.last).toBe(5);
    expect((await api('GET', `/v1/agents/${a}/events?after=1&channel=nobody&kind=notify`)).body).toEqual({
      events: [],
      last: 5,
      more: false,
    });
    const prefix = await api('GET', `/v1/agents/${a}/events?kind=put&kind=delete&prefix=x`);
    expect(prefix.body.events.map((e: any) => e.seq)).toEqual([1, 5]);
    expectError(await api('GET', `/v1/agents/${a}/events?kind=bogus`), 400, 'INVALID_ARGUMENT');
  });

  it('410 RESUME_GAP with oldestSeq once the alarm applied event retention (the test config keeps 50)', async () => {
    const a = agentId();
    const memories = Array.from({ length: 80 }, (_, i) => ({ namespace: ['g'], key: `k${i}`, value: i }));
    await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } });
    await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'c', payload: 1 } });
    expect((await api('GET', `/v1/agents/${a}/events?after=0`)).status).toBe(200);
    expect(await runDurableObjectAlarm(env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a)))).toBe(true);
    const r = await api('GET', `/v1/agents/${a}/events?after=0`);
    expectError(r, 410, 'RESUME_GAP');
    expect(r.body.error.oldestSeq).toBeGreaterThan(1);
    const resumed = await api('GET', `/v1/agents/${a}/events?after=${r.body.error.oldestSeq - 1}&limit=1000`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.last).toBe(81);
  });

  it('a page of big events ends by size; its cursor is its last event, so polling skips nothing', async () => {
    const a = agentId();
    // The test config keeps 50 events: keep all 80 here, in case the alarm runs.
    expect((await api('PUT', `/v1/agents/${a}`, { body: { retention: { eventsMax: 200 } } })).status).toBe(200);
    const payload = 'p'.repeat(60_000);
    for (let i = 0; i < 80; i++)
      expect((await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'c', payload } })).status).toBe(200);
    const first = await api('GET', `/v1/agents/${a}/events?after=0&limit=1000`);
    expect(first.body.more).toBe(true);
    expect(first.body.events.length).toBeLessThan(80);
    expect(first.body.last).toBe(first.body.events.at(-1).seq);
    const rest = await api('GET', `/v1/agents/${a}/events?after=${first.body.last}&limit=1000`);
    expect(rest.body.more).toBe(false);
    expect(first.body.events.length + rest.body.events.length).toBe(80);
  });
});
