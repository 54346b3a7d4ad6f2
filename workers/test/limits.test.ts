/** Limits on every input and malformed requests: coded 4xx answers, never a crash. */
import { ENGINE_LIMITS } from 'edgemem';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/limits';
import { agentId, api, expectError } from './helpers';

describe('limits and malformed input', () => {
  const a = agentId('lim');
  const put = (body: unknown, key = 'k', ns = 'n') => api('PUT', `/v1/agents/${a}/memories/${key}?ns=${ns}`, { body });

  it('body size → 413 PAYLOAD_TOO_LARGE', async () => {
    const big = 'x'.repeat(LIMITS.bodyBytes + 10);
    expectError(await put({ value: big }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('value size past the per-memory limit → 413 PAYLOAD_TOO_LARGE', async () => {
    expectError(await put({ value: 'x'.repeat(LIMITS.memoryBytes + 10) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('vector length past the dims limit, k, namespace depth, key length, batch size → 400 INVALID_ARGUMENT', async () => {
    expectError(await put({ value: 1, embedding: new Array(LIMITS.dims + 1).fill(0) }), 400, 'INVALID_ARGUMENT');
    expectError(
      await api('POST', `/v1/agents/${a}/search`, { body: { text: 'x', k: LIMITS.k + 1 } }),
      400,
      'INVALID_ARGUMENT',
    );
    const deep = Array.from({ length: LIMITS.namespaceDepth + 1 }, (_, i) => `s${i}`).join('/');
    expectError(await put({ value: 1 }, 'k', deep), 400, 'INVALID_ARGUMENT');
    expectError(await put({ value: 1 }, 'k', 'a//b'), 400, 'INVALID_ARGUMENT');
    expectError(await put({ value: 1 }, 'k'.repeat(LIMITS.keyChars + 1)), 400, 'INVALID_ARGUMENT');
    const memories = Array.from({ length: LIMITS.batchItems + 1 }, (_, i) => ({
      namespace: ['b'],
      key: `k${i}`,
      value: i,
    }));
    expectError(await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } }), 400, 'INVALID_ARGUMENT');
    expectError(await api('GET', `/v1/agents/${a}/memories?limit=${LIMITS.pageItems + 1}`), 400, 'INVALID_ARGUMENT');
    expectError(await api('GET', `/v1/agents/${a}/events?after=-1`), 400, 'INVALID_ARGUMENT');
    expectError(await api('GET', `/v1/agents/${a}/memories/k?ns=n&asOfSeq=9007199254740993`), 400, 'INVALID_ARGUMENT');
  });

  it('a namespace the engine refuses (control characters) is 400 from the engine', async () => {
    expectError(await put({ value: 1 }, 'k', 'a%01b'), 400, 'INVALID_ARGUMENT');
  });

  it('invalid JSON, a wrong content type, unknown fields of the wrong type → 400 INVALID_ARGUMENT', async () => {
    const bad = await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, {
      raw: '{"value":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(bad, 400, 'INVALID_ARGUMENT');
    const text = await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, {
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(text, 400, 'INVALID_ARGUMENT');
    expectError(await put({ value: 1, pinned: 'yes' }), 400, 'INVALID_ARGUMENT');
    expectError(await put({ value: 1, ttlMs: 0 }), 400, 'INVALID_ARGUMENT');
    expectError(await api('PUT', `/v1/agents/${a}/memories/k?ns=n`), 400, 'INVALID_ARGUMENT');
  });

  it('a bad agent id is 400; an unknown route 404 NOT_FOUND', async () => {
    expectError(await api('GET', '/v1/agents/-bad/stats'), 400, 'INVALID_ARGUMENT');
    expectError(await api('GET', '/v1/nothing'), 404, 'NOT_FOUND');
    expectError(await api('GET', `/v1/agents/${a}/ws`), 400, 'INVALID_ARGUMENT');
    // A handshake without its key or with another protocol version: coded, not the runtime's plain-text 400.
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade' };
    expectError(
      await api('GET', `/v1/agents/${a}/ws`, { headers: { ...upgrade, 'sec-websocket-version': '13' } }),
      400,
      'INVALID_ARGUMENT',
    );
    const key = { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    expectError(
      await api('GET', `/v1/agents/${a}/ws`, { headers: { ...upgrade, ...key, 'sec-websocket-version': '99' } }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('error bodies have exactly { error: { code, message } }', async () => {
    const r = await api('GET', `/v1/agents/${a}/memories/missing?ns=n`);
    expect(Object.keys(r.body)).toEqual(['error']);
    expect(Object.keys(r.body.error).sort()).toEqual(['code', 'message']);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
  });
});

describe("the Worker's limits against the engine's", () => {
  it('are the engine’s or tighter (ENGINE_LIMITS is generated from the Rust constants the engine checks)', () => {
    expect(LIMITS.k).toBeLessThanOrEqual(ENGINE_LIMITS.k);
    expect(LIMITS.batchItems).toBeLessThanOrEqual(ENGINE_LIMITS.batchItems);
    expect(LIMITS.dims).toBeLessThanOrEqual(ENGINE_LIMITS.dims);
    expect(LIMITS.namespaceDepth).toBeLessThanOrEqual(ENGINE_LIMITS.namespaceDepth);
    expect(LIMITS.segmentChars).toBeLessThanOrEqual(ENGINE_LIMITS.segmentBytes);
    expect(LIMITS.keyChars).toBeLessThanOrEqual(ENGINE_LIMITS.keyBytes);
    expect(LIMITS.filterConditions).toBeLessThanOrEqual(ENGINE_LIMITS.filterConditions);
    expect(LIMITS.pageItems).toBeLessThanOrEqual(ENGINE_LIMITS.historyPageItems);
  });

  it('refuse a fusion setting outside the engine’s range, and take its ends', async () => {
    const a = agentId('fusion');
    const search = (fusion: Record<string, number>) =>
      api('POST', `/v1/agents/${a}/search`, { body: { text: 'x', mode: 'lexical', fusion } });
    for (const [name, [lo, hi]] of Object.entries(ENGINE_LIMITS.fusion)) {
      expectError(await search({ [name]: lo - 1 }), 400, 'INVALID_ARGUMENT');
      expectError(await search({ [name]: hi + 1 }), 400, 'INVALID_ARGUMENT');
      expect((await search({ [name]: lo })).status).toBe(200);
      expect((await search({ [name]: hi })).status).toBe(200);
    }
  });
});
