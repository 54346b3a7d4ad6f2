/** Stats, export and import (round trip into another agent; import into a non-empty store is refused), sweep and maintain. */
import { describe, expect, it } from 'vitest';
import { agentId, api } from './helpers';

describe('stats, export, import', () => {
  it('stats count memories and report the latest seq', async () => {
    const a = agentId();
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, { body: { value: 'x', embedding: [1, 0, 0, 0] } });
    const s = await api('GET', `/v1/agents/${a}/stats`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ seq: 1, memories: 1, dims: 4, metric: 'cosine' });
  });

  it('export then import into an empty agent reproduces memories, history and checkpoints', async () => {
    const a = agentId();
    const b = agentId();
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, { body: { value: 1, text: 'first' } });
    await api('PUT', `/v1/agents/${a}/memories/k?ns=s`, { body: { value: 2, text: 'second', embedding: [0, 0, 0, 1] } });
    await api('POST', `/v1/agents/${a}/checkpoints`, { body: { threadId: 't', checkpointId: 'c', data: { x: 1 } } });
    const doc = await api('GET', `/v1/agents/${a}/export`);
    expect(doc.status).toBe(200);
    expect(doc.body.format).toBe('edgemem-export/1');
    const imp = await api('POST', `/v1/agents/${b}/import`, { body: doc.body });
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect((await api('GET', `/v1/agents/${b}/memories/k?ns=s`)).body).toMatchObject({ value: 2, version: 2 });
    expect((await api('GET', `/v1/agents/${b}/memories/k?ns=s&asOfSeq=1`)).body.value).toBe(1);
    expect((await api('GET', `/v1/agents/${b}/checkpoints/t`)).body.data).toEqual({ x: 1 });
    const hits = await api('POST', `/v1/agents/${b}/search`, { body: { vector: [0, 0, 0, 1], k: 1 } });
    expect(hits.body.hits[0].key).toBe('k');

    const again = await api('POST', `/v1/agents/${b}/import`, { body: doc.body });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
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
