/**
 * JSON nested too deep: every route that takes a JSON body, the checkpoint list's `filter` query and WebSocket
 * messages refuse it with 400 INVALID_ARGUMENT before parsing (no stack overflow, no 500); the limit sits exactly
 * at the engine's own (serde_json), so what the engine takes passes and what it refuses is refused alike. The
 * NDJSON import's lines go to the engine unparsed: its own limit answers them, with the same code.
 */
import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../src/json-depth';
import { LIMITS } from '../src/limits';
import { agentId, api, expectError } from './helpers';
import { ROUTES } from './routes-table';
import { TestSocket } from './socket';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const json = { 'content-type': 'application/json' };

describe('JSON depth', () => {
  it('is measured outside strings, escapes included', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[]]]', 2)).toBe(true);
    expect(nestedDeeperThan('["[[[[", {"a":"\\"[[{{"}]', 2)).toBe(false);
    expect(nestedDeeperThan('["[[[[", {"a":"\\"[[{{"}]', 1)).toBe(true);
    expect(nestedDeeperThan('["\\\\", [[1]]]', 2)).toBe(true);
    expect(nestedDeeperThan(`"${arrays(10_000)}"`, 0)).toBe(false);
  });

  // Every JSON body (POST /import streams NDJSON lines to the engine, which parses each itself: below).
  for (const r of ROUTES.filter((route) => route.body !== undefined && !route.path.endsWith('/import'))) {
    it(`${r.method} ${r.path}: 400 INVALID_ARGUMENT for a body nested thousands of levels deep`, async () => {
      const a = agentId('deep');
      for (const depth of [LIMITS.jsonDepth + 1, 50_000]) {
        const res = await api(r.method, r.url(a), { raw: `{"deep":${arrays(depth - 1)}}`, headers: json });
        expectError(res, 400, 'INVALID_ARGUMENT');
        expect(res.body.error.message).toContain(`nested deeper than ${LIMITS.jsonDepth}`);
      }
    });
  }

  it('POST /import: a deep NDJSON line is 400 INVALID_ARGUMENT (the engine parses each line with its own limit)', async () => {
    const raw = `{"kind":"header","deep":${arrays(5000)}}\n`;
    const res = await api('POST', `/v1/agents/${agentId('deep')}/import`, {
      raw,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expectError(res, 400, 'INVALID_ARGUMENT');
  });

  it('passes what the engine takes, and the engine refuses one level more alike', async () => {
    const a = agentId('deep');
    const nested = (depth: number): unknown => JSON.parse(arrays(depth));
    // A notify body wraps the payload in one object: payload depth 127 is the engine's own limit.
    const top = LIMITS.jsonDepth - 1;
    expect((await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'c', payload: nested(top) } })).status).toBe(
      200,
    );
    expectError(
      await api('POST', `/v1/agents/${a}/notify`, { body: { channel: 'c', payload: nested(top + 1) } }),
      400,
      'INVALID_ARGUMENT',
    );
    // A memory's value sits one level deeper in the engine's document than the payload: 126 is its limit.
    const ok = await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: nested(top - 1) } });
    expect(ok.status).toBe(200);
    expect((await api('GET', `/v1/agents/${a}/memories/k?ns=n`)).body.value).toEqual(nested(top - 1));
    const refused = await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { body: { value: nested(top) } });
    expectError(refused, 400, 'INVALID_ARGUMENT');
    // Deep in a field the routes use (value, payload, data): before the check, a 500 from the stack.
    for (const [method, url, field] of [
      ['PUT', `/v1/agents/${a}/memories/k?ns=n`, 'value'],
      ['POST', `/v1/agents/${a}/notify`, 'payload'],
      ['POST', `/v1/agents/${a}/checkpoints`, 'data'],
    ] as const) {
      const raw = `{"channel":"c","threadId":"t","checkpointId":"c","${field}":${arrays(50_000)}}`;
      expectError(await api(method, url, { raw, headers: json }), 400, 'INVALID_ARGUMENT');
    }
    // Brackets inside strings do not count.
    expect((await api('PUT', `/v1/agents/${a}/memories/s?ns=n`, { body: { value: arrays(20_000) } })).status).toBe(200);
  });

  it('refuses a deep checkpoint list filter (query string) with 400 INVALID_ARGUMENT', async () => {
    const a = agentId('deep');
    const filter = encodeURIComponent(arrays(3000));
    const res = await api('GET', `/v1/agents/${a}/checkpoints?threadId=t&filter=${filter}`);
    expectError(res, 400, 'INVALID_ARGUMENT');
    expect(res.body.error.message).toContain('nested deeper');
  });

  it('answers a deep WebSocket message with an INVALID_ARGUMENT error message', async () => {
    const s = await TestSocket.open(agentId('deep'));
    s.ws.send(`{"type":"subscribe","filter":${arrays(5000)}}`);
    expect(await s.next()).toMatchObject({ type: 'error', error: { code: 'INVALID_ARGUMENT' } });
    s.send({ type: 'ping' });
    expect(await s.next()).toMatchObject({ type: 'pong' });
    s.close();
  });
});
