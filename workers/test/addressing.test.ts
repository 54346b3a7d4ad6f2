/**
 * What a URL can carry, over raw HTTP: every key the engine takes is addressable by the single-key routes
 * (PUT / GET / history / DELETE) once percent-encoded, namespace segments round-trip through `ns`; keys and
 * thread ids `.` / `..` (dot segments, which a URL resolves away) are INVALID_ARGUMENT where a body or query
 * carries them; a URL whose percent-encoding is not UTF-8 is INVALID_ARGUMENT; `__proto__` keys survive the Worker.
 */
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

const KEYS = [
  'a/b',
  '100%',
  '%',
  '%2E',
  '%2e%2E',
  '.%2E',
  '%2F',
  '%25',
  'a?b#c',
  '?',
  '#',
  'a+b c',
  ' ',
  '+',
  'a&b=c',
  'ünï',
  '😀',
  'a.',
  '...',
  '.a',
  '\\',
  "it's",
  'history',
  'batch',
  '%ZZ',
];
const SEGMENTS = ['.', '..', '%', '%2E', '+', ' ', 'a?b', '#', '&', '=', 'ü', '%2F', '😀'];

const memoryUrl = (a: string, key: string, ns: string[], suffix = '') =>
  `/v1/agents/${a}/memories/${encodeURIComponent(key)}${suffix}?${new URLSearchParams({ ns: ns.join('/') })}`;

describe('addressing over HTTP', () => {
  it('reaches every key through the single-key routes, percent-encoded', async () => {
    const a = agentId('keys');
    for (const key of KEYS) {
      expect((await api('PUT', memoryUrl(a, key, ['n']), { body: { value: key } })).status, key).toBe(200);
    }
    const listed = await api('GET', `/v1/agents/${a}/memories?prefix=n`);
    expect(listed.body.items.map((m: { key: string }) => m.key).sort()).toEqual([...KEYS].sort());
    for (const key of KEYS) {
      const got = await api('GET', memoryUrl(a, key, ['n']));
      expect([got.status, got.body.key, got.body.value], key).toEqual([200, key, key]);
      const history = await api('GET', memoryUrl(a, key, ['n'], '/history'));
      expect(
        history.body.versions.map((m: { key: string }) => m.key),
        key,
      ).toEqual([key]);
      expect((await api('DELETE', memoryUrl(a, key, ['n']))).status, key).toBe(200);
      expectError(await api('GET', memoryUrl(a, key, ['n'])), 404, 'NOT_FOUND');
    }
  });

  it('round-trips namespace segments through the ns query, dots included', async () => {
    const a = agentId('ns');
    const namespaces = [...SEGMENTS.map((s) => [s]), ['.', '..'], ['..', '%2E', '+']];
    for (const ns of namespaces) {
      expect((await api('PUT', memoryUrl(a, 'k', ns), { body: { value: ns } })).status, ns.join('|')).toBe(200);
    }
    for (const ns of namespaces) {
      const got = await api('GET', memoryUrl(a, 'k', ns));
      expect([got.status, got.body.namespace, got.body.value], ns.join('|')).toEqual([200, ns, ns]);
      const listed = await api('GET', `/v1/agents/${a}/memories?${new URLSearchParams({ prefix: ns.join('/') })}`);
      expect(
        listed.body.items.some((m: { namespace: string[] }) => JSON.stringify(m.namespace) === JSON.stringify(ns)),
      ).toBe(true);
    }
  });

  it("refuses keys and thread ids '.' and '..' in bodies (batch, checkpoints) with 400 INVALID_ARGUMENT", async () => {
    const a = agentId('dots');
    for (const key of ['.', '..']) {
      expectError(
        await api('POST', `/v1/agents/${a}/memories/batch`, {
          body: { memories: [{ namespace: ['n'], key, value: 1 }] },
        }),
        400,
        'INVALID_ARGUMENT',
      );
      expectError(
        await api('POST', `/v1/agents/${a}/checkpoints`, { body: { threadId: key, checkpointId: 'c', data: 1 } }),
        400,
        'INVALID_ARGUMENT',
      );
      expectError(await api('GET', `/v1/agents/${a}/checkpoints?threadId=${key}`), 400, 'INVALID_ARGUMENT');
    }
    // (Imports too: the contract suite's input-fidelity cases, through the package and the remote client.)
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.seq).toBe(0);
  });

  it('answers a URL whose percent-encoding is not UTF-8 with 400 INVALID_ARGUMENT (not another key)', async () => {
    const a = agentId('enc');
    for (const url of [
      `/v1/agents/${a}/memories/%ED%A0%80?ns=n`, // a lone surrogate, CESU-style
      `/v1/agents/${a}/memories/%FF?ns=n`,
      `/v1/agents/${a}/memories/100%?ns=n`,
      `/v1/agents/${a}/memories/k?ns=%ED%A0%80`,
      `/v1/agents/${a}/memories/k?ns=%`,
      `/v1/agents/${a}/events?channel=%C0%80`,
      `/v1/agents/${a}/checkpoints/%ED%B0%80`,
    ]) {
      expectError(await api('GET', url), 400, 'INVALID_ARGUMENT');
    }
    expectError(
      await api('PUT', `/v1/agents/${a}/memories/%ED%A0%80?ns=n`, { body: { value: 1 } }),
      400,
      'INVALID_ARGUMENT',
    );
    expect((await api('GET', `/v1/agents/${a}/stats`)).body.seq).toBe(0);
  });

  it('keeps __proto__ and constructor keys of values, metadata and checkpoints', async () => {
    const a = agentId('proto');
    const raw = '{"value":{"__proto__":{"x":1}},"metadata":{"__proto__":"p","constructor":{"__proto__":[1]}}}';
    const headers = { 'content-type': 'application/json' };
    expect((await api('PUT', `/v1/agents/${a}/memories/k?ns=n`, { raw, headers })).status).toBe(200);
    const m = (await api('GET', `/v1/agents/${a}/memories/k?ns=n`)).body;
    const sent = JSON.parse(raw);
    expect(Object.keys(m.metadata)).toEqual(Object.keys(sent.metadata));
    expect(JSON.stringify([m.value, m.metadata])).toBe(JSON.stringify([sent.value, sent.metadata]));
    const cp = '{"threadId":"t","checkpointId":"c","data":{"__proto__":2},"metadata":{"__proto__":3}}';
    expect((await api('POST', `/v1/agents/${a}/checkpoints`, { raw: cp, headers })).status).toBe(200);
    const got = (await api('GET', `/v1/agents/${a}/checkpoints/t`)).body;
    expect(JSON.stringify([got.data, got.metadata])).toBe('[{"__proto__":2},{"__proto__":3}]');
  });
});
