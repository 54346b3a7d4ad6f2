// @ts-check
// `remember` with the caller's models: an extractor turns messages into facts, a judge settles what the rules call
// uncertain (and only that), as functions and as an OpenAI-compatible chat endpoint (a local stand-in server); a
// model that fails or answers badly is MODEL_FAILED and nothing is written.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

/** Embeds by keyword, so the test controls which facts are close: one axis per topic. */
const embedder = async (/** @type {string[]} */ texts) =>
  texts.map((t) => {
    const v = [0.05, 0.05, 0.05];
    if (/meeting|reunião/i.test(t)) v[0] = 1;
    if (/lives|moved/i.test(t)) v[1] = 1;
    if (/coffee/i.test(t)) v[2] = 1;
    return v;
  });

/** A stand-in chat endpoint: extraction prompts get facts, judge prompts a decision; `fail` makes it answer 500. */
function standIn() {
  const state = { fail: false, asked: /** @type {string[]} */ ([]) };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const { messages } = JSON.parse(body);
      const system = messages[0].content;
      const user = messages[1].content;
      state.asked.push(user);
      if (state.fail) {
        res.writeHead(500).end('down');
        return;
      }
      const content = system.startsWith('You extract')
        ? JSON.stringify(user.includes('Lisbon') ? ['Ana moved to Lisbon.', 'Ana likes coffee.'] : [])
        : /Friday/.test(user)
          ? 'supersede'
          : 'new';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  return { server, state };
}

describe('remember with the caller models', () => {
  const { server, state } = standIn();
  let url = '';
  before(async () => {
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
    url = `http://127.0.0.1:${addr.port}/v1`;
  });
  after(() => server.close());

  it('extracts facts from messages, each remembered in turn', async () => {
    const s = await openStore({ embedder, dims: 3, extractor: { url, model: 'stand-in' } });
    await s.remember({ namespace: ['u'], text: 'Ana lives in Porto.' });
    const out = await s.remember({
      namespace: ['u'],
      messages: [
        { role: 'user', content: 'I finally moved to Lisbon last week!' },
        { role: 'assistant', content: 'Congratulations! How is Lisbon?' },
      ],
    });
    assert.deepEqual(
      out.map((r) => r.decision),
      ['supersede', 'new'],
    );
    assert.match(state.asked.at(-1) ?? '', /^user: I finally moved to Lisbon/);
    const none = await s.remember({ namespace: ['u'], messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(none, []);
    await s.close();
  });

  it('asks the judge only what the rules call uncertain', async () => {
    /** @type {string[]} */
    const questions = [];
    const judge = async (/** @type {any} */ q) => {
      questions.push(`${q.memory} | ${q.fact}`);
      return /Friday/.test(q.fact) ? 'supersede' : 'new';
    };
    const s = await openStore({ embedder, dims: 3, judge });
    await s.remember({ namespace: ['t'], text: 'Team meeting on Monday at 10.' });
    // The same words: the rules decide; the judge is not asked.
    const [same] = await s.remember({ namespace: ['t'], text: 'Team meeting on Monday at 10' });
    assert.deepEqual([same.decision, same.judged, questions.length], ['duplicate', false, 0]);
    // Only the day differs: uncertain; the judge says it moved.
    const [moved] = await s.remember({ namespace: ['t'], text: 'Team meeting on Friday at 10.' });
    assert.deepEqual([moved.decision, moved.judged, moved.reason], ['supersede', true, 'judge: supersede']);
    assert.equal(questions.length, 1);
    // Nothing close: nothing to ask.
    await s.remember({ namespace: ['t'], text: 'Ana likes coffee.' });
    assert.equal(questions.length, 1);
    await s.close();
  });

  it('uses a chat endpoint as the judge', async () => {
    const s = await openStore({ embedder, dims: 3, judge: { url, model: 'stand-in' } });
    await s.remember({ namespace: ['t'], text: 'Team meeting on Monday at 10.' });
    const [moved] = await s.remember({ namespace: ['t'], text: 'Team meeting on Friday at 10.' });
    assert.deepEqual([moved.decision, moved.judged], ['supersede', true]);
    assert.match(state.asked.at(-1) ?? '', /^STORED: Team meeting on Monday at 10\.\nNEW: Team meeting on Friday/);
    await s.close();
  });

  it('writes nothing when a model fails or answers badly (MODEL_FAILED)', async () => {
    state.fail = true;
    const s = await openStore({ embedder, dims: 3, extractor: { url, model: 'm' }, judge: { url, model: 'm' } });
    await s.remember({ namespace: ['t'], text: 'Team meeting on Monday at 10.' });
    const seq = await s.seq();
    await rejectsWith(
      s.remember({ namespace: ['u'], messages: [{ role: 'user', content: 'Lisbon' }] }),
      'MODEL_FAILED',
    );
    await rejectsWith(s.remember({ namespace: ['t'], text: 'Team meeting on Friday at 10.' }), 'MODEL_FAILED');
    assert.equal(await s.seq(), seq, 'nothing written');
    state.fail = false;
    await s.close();
    const bad = await openStore({ embedder, dims: 3, judge: async () => /** @type {any} */ ('maybe') });
    await bad.remember({ namespace: ['t'], text: 'Team meeting on Monday at 10.' });
    await rejectsWith(bad.remember({ namespace: ['t'], text: 'Team meeting on Friday at 10.' }), 'MODEL_FAILED');
    const thrower = await openStore({
      embedder,
      dims: 3,
      extractor: () => {
        throw new Error('quota');
      },
    });
    await rejectsWith(thrower.remember({ namespace: ['u'], messages: [] }), 'MODEL_FAILED');
    await rejectsWith(openStore({ judge: /** @type {any} */ (5) }), 'INVALID_ARGUMENT');
    await bad.close();
    await thrower.close();
  });
});
