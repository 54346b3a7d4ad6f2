// @ts-check
// The command line over a coherent memory on local store files: the shared suite (cli-coherence-suite.js), then the
// chat model it lends `remember` — a stand-in OpenAI-compatible endpoint here — extracting the facts of --messages
// and judging with --judge, its key from EDGEMEM_CHAT_KEY, and a failing model as MODEL_FAILED (exit 14, nothing
// written); help lists the commands.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliCoherenceSuite } from './cli-coherence-suite.js';
import { cli, cliFails, cliJson } from './cli-run.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-cli-coherence-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(dir, `store-${n++}.db`);

cliCoherenceSuite('local store', async (dims) => ({
  args: ['--store', freshFile(), ...(dims ? ['--dims', String(dims)] : [])],
}));

/** @type {{ authorization: string | undefined, model: string, system: string, user: string }[]} */
const asked = [];
/** @type {import('node:http').Server} */
let chat;
let chatUrl = '';

/**
 * A stand-in chat endpoint: `POST /v1/chat/completions`. The extractor is answered with the user's lines that
 * state something (a JSON array), the judge with "supersede"; the model named `down` answers HTTP 503.
 */
before(async () => {
  chat = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const q = JSON.parse(body);
      const system = q.messages[0].content;
      const user = q.messages[1].content;
      asked.push({ authorization: req.headers.authorization, model: q.model, system, user });
      if (req.url !== '/v1/chat/completions' || q.model === 'down') {
        res.writeHead(503).end('overloaded');
        return;
      }
      const content = /extract facts/.test(system)
        ? JSON.stringify(
            String(user)
              .split('\n')
              .filter((l) => l.startsWith('user: ') && !l.endsWith('?'))
              .map((l) => l.slice('user: '.length)),
          )
        : 'supersede';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise((resolve) => chat.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (chat.address());
  chatUrl = `http://127.0.0.1:${address.port}/v1`;
});
after(() => chat.close());

describe('edgemem CLI: the chat model of remember', () => {
  it('--messages: the facts the model extracts from a conversation, each remembered', async () => {
    const store = ['--store', freshFile()];
    const conversation = JSON.stringify([
      { role: 'user', content: 'I moved to Lisbon last month' },
      { role: 'assistant', content: 'Nice! How do you like it?' },
      { role: 'user', content: 'Do you know good cafés?' },
    ]);
    const env = { EDGEMEM_CHAT_URL: chatUrl, EDGEMEM_CHAT_MODEL: 'stand-in', EDGEMEM_CHAT_KEY: 'sk-test' };
    const r = await cli(['remember', 'user/ana', '--messages', '-', '--json', ...store], { env, input: conversation });
    assert.equal(r.status, 0, r.stderr);
    const done = JSON.parse(r.stdout);
    assert.deepEqual(
      done.map((/** @type {any} */ d) => d.decision),
      ['new'],
    );
    assert.equal((await cliJson(['get', 'user/ana', done[0].key, ...store])).text, 'I moved to Lisbon last month');
    const last = asked.at(-1);
    assert.deepEqual([last?.authorization, last?.model], ['Bearer sk-test', 'stand-in']);
    assert.match(last?.user ?? '', /^user: I moved to Lisbon last month\nassistant: /);

    const nothing = await cli(['remember', 'user/ana', '--messages', '-', '--chat-url', chatUrl, ...store], {
      env: { EDGEMEM_CHAT_MODEL: 'stand-in' },
      input: JSON.stringify([{ role: 'user', content: 'How are you?' }]),
    });
    assert.equal(nothing.status, 0, nothing.stderr);
    assert.match(nothing.stderr, /held no fact/);
    await cliFails(
      ['remember', 'u', '--messages', '-', '--chat-url', chatUrl, '--chat-model', 'm', ...store],
      'INVALID_ARGUMENT',
      2,
      {
        input: '{"not":"a list"}',
      },
    );
    await cliFails(['remember', 'u', 'x', '--chat-url', chatUrl, '--judge', ...store], 'INVALID_ARGUMENT', 2);
  });

  it('--judge: the model settles what the rules cannot place; a failing model is MODEL_FAILED, exit 14, nothing written', async () => {
    const store = ['--store', freshFile(), '--dims', '2'];
    const model = ['--chat-url', chatUrl, '--chat-model', 'stand-in'];
    await cliJson(['remember', 'cal', 'Meeting with Bruno on Monday', '--embedding', '[1,0]', ...store]);
    const moved = ['remember', 'cal', 'Meeting with Bruno on Friday', '--embedding', '[0.99,0.05]', ...store];
    const dry = await cliJson([...moved, '--dry-run']);
    assert.equal(dry.decision, 'new');
    assert.equal(dry.uncertain.length, 1);

    const before = (await cliJson(['stats', ...store])).seq;
    await cliFails([...moved, '--chat-url', chatUrl, '--chat-model', 'down', '--judge'], 'MODEL_FAILED', 14);
    assert.equal((await cliJson(['stats', ...store])).seq, before, 'nothing written');

    const [judged] = await cliJson([...moved, ...model, '--judge']);
    assert.deepEqual([judged.decision, judged.judged, judged.reason], ['supersede', true, 'judge: supersede']);
    assert.match(asked.at(-1)?.user ?? '', /^STORED: Meeting with Bruno on Monday\nNEW: Meeting with Bruno on Friday$/);
  });

  it('help lists remember, context and consolidate, and MODEL_FAILED among the exit codes', async () => {
    const help = await cli(['--help']);
    for (const command of ['remember', 'context', 'consolidate'])
      assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    assert.match(help.stdout, /^\s+14 {2}MODEL_FAILED$/m);
    assert.match(help.stdout, /^\s+130 {2}interrupted/m);
    const remember = await cli(['remember', '--help']);
    assert.match(remember.stdout, /--valid-from <ms\|iso>/);
    assert.match(remember.stdout, /EDGEMEM_CHAT_URL/);
    for (const command of ['get', 'list', 'search', 'context'])
      assert.match((await cli([command, '--help'])).stdout, /--valid-at <ms\|iso\|any>/, command);
  });
});
