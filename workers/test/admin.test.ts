/** Stats, NDJSON export and import (round trips into another agent, past a Durable Object call's size; refused, cut and duplicated imports), sweep and maintain. */
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

describe('stats, export, import', () => {
  it('stats count memories and report the latest seq', async () => {
    const a = agentId();
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, { body: { value: 'x', embedding: [1, 0, 0, 0] } });
    const s = await api('GET', `/v1/agents/${a}/stats`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ seq: 1, memories: 1, dims: 4, metric: 'cosine' });
  });

  it('export then import into an empty agent reproduces memories, history and checkpoints (NDJSON)', async () => {
    const a = agentId();
    const b = agentId();
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, { body: { value: 1, text: 'first' } });
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, {
      body: { value: 2, text: 'second', embedding: [0, 0, 0, 1] },
    });
    await api('POST', `/v1/agents/${a}/checkpoints`, { body: { threadId: 't', checkpointId: 'c', data: { x: 1 } } });
    const exp = await api<string>('GET', `/v1/agents/${a}/export`);
    expect(exp.status).toBe(200);
    expect(exp.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = exp.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ kind: 'header', format: 'edgemem-export/2', seq: 3 });
    expect(lines.at(-1)).toMatchObject({ kind: 'end', versions: 2, checkpoints: 1 });
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const imp = await api('POST', `/v1/agents/${b}/import`, { raw: exp.body, headers: ndjson });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body).toEqual({ done: true, versions: 2, commits: 3, checkpoints: 1, writes: 0 });
    expect((await api('GET', `/v1/agents/${b}/memories/k?ns=s`)).body).toMatchObject({ value: 2, version: 2 });
    expect((await api('GET', `/v1/agents/${b}/memories/k?ns=s&asOfSeq=1`)).body.value).toBe(1);
    expect((await api('GET', `/v1/agents/${b}/checkpoints/t`)).body.data).toEqual({ x: 1 });
    const hits = await api('POST', `/v1/agents/${b}/search`, { body: { vector: [0, 0, 0, 1], k: 1 } });
    expect(hits.body.hits[0].key).toBe('k');

    expectError(await api('POST', `/v1/agents/${b}/import`, { raw: exp.body, headers: ndjson }), 409, 'CONFLICT');
    // JSON is not the import format; a body cut before its end line imports nothing.
    const c = agentId();
    expectError(await api('POST', `/v1/agents/${c}/import`, { body: lines }), 400, 'INVALID_ARGUMENT');
    const cut = exp.body.trim().split('\n').slice(0, -1).join('\n');
    expectError(await api('POST', `/v1/agents/${c}/import`, { raw: cut, headers: ndjson }), 400, 'INVALID_ARGUMENT');
    const dup = exp.body.trim().split('\n');
    dup.splice(1, 0, dup[1]!);
    expectError(
      await api('POST', `/v1/agents/${c}/import`, { raw: dup.join('\n'), headers: ndjson }),
      400,
      'INVALID_ARGUMENT',
    );
    expect((await api('GET', `/v1/agents/${c}/stats`)).body).toMatchObject({ memories: 0, seq: 0 });
    expect((await api('PUT', `/v1/agents/${c}/memories/k?ns=s`, { body: { value: 1 } })).status).toBe(200);
  });

  it('exports and imports an agent bigger than one Durable Object call carries (32 MiB), streamed', {
    timeout: 120_000,
  }, async () => {
    const a = agentId();
    const b = agentId();
    for (const agent of [a, b])
      expect((await api('PUT', `/v1/agents/${agent}`, { body: { dims: 384 } })).status).toBe(200);
    // ~36 MB: 150 memories of 240 KB, and 200 with 384-dimension vectors.
    const filler = 'x'.repeat(240_000);
    for (let i = 0; i < 150; i++) {
      expect(
        (await api('PUT', `/v1/agents/${a}/memories/big${i}?ns=s`, { body: { value: { i, filler } } })).status,
      ).toBe(200);
    }
    const vec = (i: number) => Array.from({ length: 384 }, (_, d) => Math.sin(i * 13 + d));
    for (let i = 0; i < 200; i += 100) {
      const memories = Array.from({ length: 100 }, (_, j) => ({
        namespace: ['v'],
        key: `v${i + j}`,
        value: i + j,
        embedding: vec(i + j),
      }));
      expect((await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } })).status).toBe(200);
    }
    const exp = await api<string>('GET', `/v1/agents/${a}/export`);
    expect(exp.status).toBe(200);
    expect(exp.body.length).toBeGreaterThan(32 * 2 ** 20);
    const imp = await api('POST', `/v1/agents/${b}/import`, {
      raw: exp.body,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imp.status, JSON.stringify(imp.body).slice(0, 300)).toBe(200);
    expect(imp.body).toMatchObject({ done: true, versions: 350 });
    const [sa, sb] = [
      (await api('GET', `/v1/agents/${a}/stats`)).body,
      (await api('GET', `/v1/agents/${b}/stats`)).body,
    ];
    expect({ memories: sb.memories, bytes: sb.bytes, seq: sb.seq }).toEqual({
      memories: sa.memories,
      bytes: sa.bytes,
      seq: sa.seq,
    });
    expect((await api('GET', `/v1/agents/${b}/memories/big149?ns=s`)).body.value).toEqual({ i: 149, filler });
    const hits = await api('POST', `/v1/agents/${b}/search`, { body: { vector: vec(42), k: 1 } });
    expect(hits.body.hits[0].key).toBe('v42');
  });

  it('sweep removes expired memories now; maintain flushes buffered vectors into the index', async () => {
    const a = agentId();
    await api('PUT', `/v1/agents/${a}/memories/gone?ns=s`, { body: { value: 1, ttlMs: 1, embedding: [1, 0, 0, 0] } });
    await api('PUT', `/v1/agents/${a}/memories/kept?ns=s`, { body: { value: 2, embedding: [0, 1, 0, 0] } });
    await new Promise((r) => setTimeout(r, 5));
    const sw = await api('POST', `/v1/agents/${a}/sweep`);
    expect(sw.status).toBe(200);
    expect(sw.body).toEqual({ expired: 1 });
    expect((await api('POST', `/v1/agents/${a}/sweep`)).body).toEqual({ expired: 0 });
    expect((await api('POST', `/v1/agents/${a}/maintain`)).body).toEqual({ ok: true });
    const s = await api('GET', `/v1/agents/${a}/stats`);
    expect(s.body).toMatchObject({ memories: 1, indexVectors: 1, indexPending: 0 });
  });
});
