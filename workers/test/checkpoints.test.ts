/** Checkpoint routes: put, latest / by id, list with before / limit / filter, pending writes, delete a thread. */
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

describe('checkpoints', () => {
  it('stores JSON and byte checkpoints with pending writes, lists and deletes a thread', async () => {
    const a = agentId();
    const base = `/v1/agents/${a}/checkpoints`;
    const c1 = await api('POST', base, {
      body: { threadId: 't', checkpointId: 'c1', data: { step: 1 }, metadata: { source: 'input' } },
    });
    expect(c1.status).toBe(200);
    expect(c1.body.seq).toBe(1);
    const bytes = btoa(String.fromCharCode(0, 1, 2, 255));
    const c2 = await api('POST', base, {
      body: { threadId: 't', checkpointId: 'c2', parentId: 'c1', dataBase64: bytes, metadata: { source: 'loop' } },
    });
    expect(c2.status).toBe(200);
    const w = await api('POST', `${base}/t/writes`, {
      body: {
        checkpointId: 'c2',
        taskId: 'task',
        writes: [
          { channel: 'messages', data: ['hi'] },
          { channel: 'blob', dataBase64: bytes },
        ],
      },
    });
    expect(w.status).toBe(200);

    const latest = await api('GET', `${base}/t`);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ checkpointId: 'c2', parentId: 'c1', dataBase64: bytes });
    expect(latest.body.pendingWrites).toEqual([
      { taskId: 'task', idx: 0, channel: 'messages', data: ['hi'] },
      { taskId: 'task', idx: 1, channel: 'blob', dataBase64: bytes },
    ]);
    expect((await api('GET', `${base}/t?checkpointId=c1`)).body.data).toEqual({ step: 1 });

    const list = await api('GET', `${base}?threadId=t`);
    expect(list.body.checkpoints.map((c: any) => c.checkpointId)).toEqual(['c2', 'c1']);
    const before = await api('GET', `${base}?threadId=t&before=c2&limit=5`);
    expect(before.body.checkpoints.map((c: any) => c.checkpointId)).toEqual(['c1']);
    const filter = encodeURIComponent(JSON.stringify([{ field: 'source', op: 'eq', value: 'loop' }]));
    const filtered = await api('GET', `${base}?threadId=t&filter=${filter}`);
    expect(filtered.body.checkpoints.map((c: any) => c.checkpointId)).toEqual(['c2']);
    expectError(await api('GET', `${base}?threadId=t&filter=nope`), 400, 'INVALID_ARGUMENT');

    expect((await api('DELETE', `${base}/t`)).body).toEqual({ deleted: 2 });
    expectError(await api('GET', `${base}/t`), 404, 'NOT_FOUND');
  });

  it('needs exactly one of data and dataBase64', async () => {
    const a = agentId();
    const base = `/v1/agents/${a}/checkpoints`;
    expectError(await api('POST', base, { body: { threadId: 't', checkpointId: 'c' } }), 400, 'INVALID_ARGUMENT');
    expectError(
      await api('POST', base, { body: { threadId: 't', checkpointId: 'c', data: 1, dataBase64: 'AA==' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expectError(
      await api('POST', base, { body: { threadId: 't', checkpointId: 'c', dataBase64: '***' } }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});
