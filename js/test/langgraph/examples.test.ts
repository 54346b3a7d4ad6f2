/**
 * The examples in examples/langgraph/ run as they are: the agent in a new Node process per turn over one
 * store file (each turn resumes the thread from its last checkpoint; an interrupt is answered after a
 * restart), and the same graph over `connect()` to the Worker under Miniflare.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { connect, createAgent, mintToken, openStore } from 'edgemem';
import { EdgememSaver } from 'edgemem/langgraph';
// @ts-expect-error: a JavaScript helper without types
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
// @ts-expect-error: a JavaScript example without types
import { buildAgent, Command } from '../../../examples/langgraph/agent.mjs';

const root = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One turn in a fresh process. */
function turn(
  file: string,
  thread: string,
  ...args: string[]
): { reply: string; messages: number; interrupt: { question: string } | null } {
  const r = spawnSync(process.execPath, [join(root, 'examples/langgraph/chat.mjs'), file, thread, ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('examples/langgraph', () => {
  it('keeps the conversation and the facts across restarts, and answers an interrupt after one', async () => {
    const file = join(dir, 'agent.db');
    expect(turn(file, 'ada-1', 'remember that I like green tea')).toEqual({
      reply: 'Noted: remembered "I like green tea".',
      messages: 4,
      interrupt: null,
    });
    expect(turn(file, 'ada-1', 'hello again')).toEqual({
      reply: 'You said: hello again (message 5).',
      messages: 6,
      interrupt: null,
    });
    // Facts are the user's, not the thread's: a new thread finds them in the store.
    expect(turn(file, 'ada-2', 'what do you know about tea?')).toMatchObject({
      reply: 'You told me: I like green tea.',
      messages: 2,
    });

    const asked = turn(file, 'ada-1', 'forget everything');
    expect(asked).toEqual({
      reply: '',
      messages: 8,
      interrupt: { question: 'Forget everything you know about this user?' },
    });
    expect(turn(file, 'ada-1', '--resume', 'yes')).toEqual({
      reply: 'Noted: forgot 1 facts.',
      messages: 10,
      interrupt: null,
    });
    expect(turn(file, 'ada-2', 'what do you know about tea?')).toMatchObject({
      reply: 'I know nothing about that yet.',
    });

    // What the restarts read back: the thread's history, newest first, each step a checkpoint with its parent.
    const memory = await openStore({ storage: { file } });
    const history: Awaited<ReturnType<EdgememSaver['getTuple']>>[] = [];
    for await (const t of new EdgememSaver(memory).list({ configurable: { thread_id: 'ada-1' } })) history.push(t);
    expect(history.length).toBeGreaterThan(10);
    expect(
      history.every(
        (t, i) =>
          i === history.length - 1 ||
          t?.parentConfig?.configurable?.checkpoint_id === history[i + 1]?.config.configurable?.checkpoint_id,
      ),
    ).toBe(true);
    // Channel values are stored once per version: far fewer blobs than checkpoints × channels.
    const checkpoints = await memory.listCheckpoints({ threadId: 'ada-1', limit: 1000 });
    const distinct = new Set(checkpoints.flatMap((c) => c.blobs.map((b) => `${b.channel}@${b.version}`)));
    const named = checkpoints.reduce((n, c) => n + c.blobs.length, 0);
    expect(distinct.size).toBeLessThan(named);
    await memory.close();
  });

  it('runs the same graph over connect() to the Worker under Miniflare', async () => {
    bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
    const server = await startWorker({
      bundle: join(dir, 'bundle'),
      bindings: { ADMIN_TOKEN: 'examples-admin', EDGEMEM_DIMS: '0' },
    });
    try {
      await createAgent({ url: server.url, adminToken: 'examples-admin', agent: 'ada' });
      const { token } = await mintToken({
        url: server.url,
        adminToken: 'examples-admin',
        agent: 'ada',
        scopes: ['read', 'write'],
      });
      const config = { configurable: { thread_id: 'edge', user_id: 'ada' } };
      // A client per turn, as separate requests to the edge would have.
      const turnAt = async (input: unknown) => {
        const agent = buildAgent(await connect({ url: server.url, agent: 'ada', token }));
        const result = await agent.invoke(input, config);
        return { reply: String(result.messages.at(-1)?.content), messages: result.messages.length };
      };
      expect(await turnAt({ messages: [new HumanMessage('remember that I live in Lyon')] })).toEqual({
        reply: 'Noted: remembered "I live in Lyon".',
        messages: 4,
      });
      expect(await turnAt({ messages: [new HumanMessage('what do you know about Lyon?')] })).toEqual({
        reply: 'You told me: I live in Lyon.',
        messages: 6,
      });
      expect((await turnAt({ messages: [new HumanMessage('forget everything')] })).messages).toBe(8);
      expect(await turnAt(new Command({ resume: 'no' }))).toEqual({ reply: 'Noted: kept everything.', messages: 10 });
    } finally {
      await server.mf.dispose();
    }
  });
});
