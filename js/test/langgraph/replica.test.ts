/**
 * LangGraph on a live local replica of an edge agent (`openStore({ replicaOf })`): the checkpointer validation suite
 * (1.1.x, unmodified) against EdgememSaver over a replica, and the example agent (examples/langgraph/) run offline on
 * a replica — its thread and facts reach the agent once back online, and the edge goes on with the same thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { connect, createAgent, mintToken, openStore, type ReplicaMemoryStore } from 'edgemem';
import { EdgememSaver } from 'edgemem/langgraph';
// @ts-expect-error: a JavaScript helper without types
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
// @ts-expect-error: a JavaScript example without types
import { buildAgent } from '../../../examples/langgraph/agent.mjs';

const ADMIN = 'langgraph-replica-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-replica-'));
let server: { mf: { dispose(): Promise<void> }; url: string } | undefined;
let n = 0;

async function start() {
  if (!server) {
    bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
    server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
  }
  return server as { url: string };
}

async function freshAgent() {
  const { url } = await start();
  const agent = `lg-replica-${process.pid}-${n++}`;
  await createAgent({ url, adminToken: ADMIN, agent });
  const { token } = await mintToken({ url, adminToken: ADMIN, agent, scopes: ['read', 'write', 'subscribe'] });
  return { url, agent, token };
}

afterAll(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

validate<EdgememSaver>({
  checkpointerName: 'EdgememSaver (a local replica of an agent on the Worker under Miniflare)',
  beforeAllTimeout: 120_000,
  beforeAll: async () => {
    await start();
  },
  async createCheckpointer() {
    const { url, agent, token } = await freshAgent();
    return new EdgememSaver(await openStore({ storage: 'memory', replicaOf: { url, agent, token, live: false } }));
  },
  async destroyCheckpointer(saver) {
    const replica = saver.store as ReplicaMemoryStore;
    await replica.sync();
    await replica.close();
  },
});

describe('a LangGraph agent on a replica', () => {
  it('runs offline; its thread and facts reach the edge once online, and the edge goes on with the thread', async () => {
    const { url, agent, token } = await freshAgent();
    let down = false;
    const cuttable: typeof fetch = (input, init) =>
      down ? Promise.reject(new TypeError('offline')) : fetch(input, init);
    const replica = await openStore({
      storage: { file: join(dir, 'agent-replica.db') },
      replicaOf: { url, agent, token, live: false, fetch: cuttable },
    });
    await replica.sync();
    down = true;
    const config = { configurable: { thread_id: 'offline-thread', user_id: 'ada' } };
    const local = buildAgent(replica);
    let result = await local.invoke({ messages: [new HumanMessage('remember that I live in Lyon')] }, config);
    expect(String(result.messages.at(-1)?.content)).toBe('Noted: remembered "I live in Lyon".');
    result = await local.invoke({ messages: [new HumanMessage('what do you know about Lyon?')] }, config);
    expect(String(result.messages.at(-1)?.content)).toBe('You told me: I live in Lyon.');
    expect(replica.status().pending).toBeGreaterThan(0);
    const remote = await connect({ url, agent, token });
    expect(await remote.listCheckpoints({ threadId: 'offline-thread' })).toEqual([]);

    down = false;
    await replica.sync();
    expect(replica.status().pending).toBe(0);
    const here = (await replica.listCheckpoints({ threadId: 'offline-thread', limit: 1000 })).map(
      (c) => c.checkpointId,
    );
    const there = (await remote.listCheckpoints({ threadId: 'offline-thread', limit: 1000 })).map(
      (c) => c.checkpointId,
    );
    expect(there).toEqual(here);
    expect(there.length).toBeGreaterThan(4);

    // The edge resumes the thread the replica ran, with the fact it remembered.
    const edge = buildAgent(remote);
    result = await edge.invoke({ messages: [new HumanMessage('what do you know about Lyon?')] }, config);
    expect(String(result.messages.at(-1)?.content)).toBe('You told me: I live in Lyon.');
    expect(result.messages.length).toBe(8);
    // And the replica sees the edge's turn.
    await replica.sync();
    const latest = await new EdgememSaver(replica).getTuple(config);
    expect((latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length).toBe(8);
    await replica.close();
    await remote.close();
  });
});
