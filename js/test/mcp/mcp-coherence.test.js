// @ts-check
// The MCP tools over a coherent memory: `remember` answers with its decision (new, duplicate folded into a memory,
// supersede replacing one) and the memory concerned; `recall` answers with what is true now, or at `validAt`;
// `context` returns a prompt-ready block within its budget; history shows what replaced what; a judge's decision
// and a failing model reach the client as such; a read-only server offers `context` but not `remember`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from 'edgemem';
import { call, connectInProcess } from './mcp-client.js';

/** The texts of a recall's memories. */
const texts = (/** @type {any} */ r) => r.json.memories.map((/** @type {any} */ m) => m.text);

describe('remember, recall and context over a coherent memory', () => {
  it('remember folds a duplicate, supersedes an update, keeps a look-alike apart, and says which memory', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    const ns = ['user', 'ana'];
    const first = await call(client, 'remember', { text: 'Ana lives in Porto.', namespace: ns });
    assert.equal(first.error, undefined, first.text);
    assert.equal(first.json.decision, 'new');
    assert.equal(first.json.target, null);
    assert.match(first.json.key, /^m-[0-9a-f]{16}$/);
    assert.deepEqual(first.structured, first.json);

    const again = await call(client, 'remember', { text: 'ana lives in porto', namespace: ns });
    assert.deepEqual(
      [again.json.decision, again.json.key, again.json.target.key, again.json.target.text],
      ['duplicate', first.json.key, first.json.key, 'Ana lives in Porto.'],
    );
    assert.equal((await store.get(ns, first.json.key))?.seen, 2);

    const moved = await call(client, 'remember', { text: 'Ana now lives in Lisbon.', namespace: ns });
    assert.equal(moved.json.decision, 'supersede', moved.json.reason);
    assert.equal(moved.json.target.key, first.json.key);
    assert.notEqual(moved.json.key, first.json.key);
    assert.equal(typeof moved.json.reason, 'string');

    const bruno = await call(client, 'remember', { text: 'Bruno lives in Lisbon.', namespace: ns });
    assert.equal(bruno.json.decision, 'new', bruno.json.reason);

    // recall: what is true now; validAt "any" also what was; validAt a time before the move, what was true then.
    assert.deepEqual(texts(await call(client, 'recall', { query: 'Ana', namespace: ns })), [
      'Ana now lives in Lisbon.',
    ]);
    const any = await call(client, 'recall', { query: 'Ana', namespace: ns, validAt: 'any' });
    assert.deepEqual(texts(any).sort(), ['Ana lives in Porto.', 'Ana now lives in Lisbon.']);
    const porto = any.json.memories.find((/** @type {any} */ m) => m.key === first.json.key);
    const lisbon = any.json.memories.find((/** @type {any} */ m) => m.key === moved.json.key);
    assert.match(porto.validTo, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(porto.validFrom, undefined);
    assert.equal(lisbon.validFrom, porto.validTo);
    const before = new Date(Date.parse(porto.validTo) - 1).toISOString();
    assert.deepEqual(texts(await call(client, 'recall', { query: 'Ana', namespace: ns, validAt: before })), [
      'Ana lives in Porto.',
    ]);
    const bad = await call(client, 'recall', { query: 'Ana', validAt: 'yesterday-ish' });
    assert.match(bad.error ?? '', /^INVALID_ARGUMENT: validAt/);

    // history: the old memory told twice, then closed and linked to what replaced it.
    const history = await call(client, 'history', { namespace: ns, key: first.json.key });
    const last = history.json.versions.at(-1);
    assert.deepEqual([last.seen, last.replacedBy, last.validTo], [2, moved.json.key, porto.validTo]);
    assert.equal(
      (await call(client, 'history', { namespace: ns, key: moved.json.key })).json.versions[0].replaces,
      first.json.key,
    );
    const changes = await call(client, 'changes', { since: 0, kinds: ['supersede'] });
    assert.deepEqual(
      changes.json.changes.map((/** @type {any} */ e) => [e.kind, e.key, e.payload]),
      [['supersede', first.json.key, { by: moved.json.key }]],
    );
    await client.close();
    await store.close();
  });

  it('remember takes validFrom (ISO 8601) and refuses what is not a time', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    const r = await call(client, 'remember', {
      text: 'The office moved to Rua Augusta 12',
      namespace: ['org'],
      validFrom: '2026-03-01T00:00:00Z',
      metadata: { topic: 'office' },
    });
    const m = await store.get(['org'], r.json.key);
    assert.equal(m?.validFrom, Date.parse('2026-03-01T00:00:00Z'));
    assert.deepEqual(m?.metadata, { topic: 'office' });
    const early = await call(client, 'recall', { query: 'office', validAt: '2026-02-01' });
    assert.deepEqual(early.json.memories, []);
    const bad = await call(client, 'remember', { text: 'x', namespace: ['org'], validFrom: 'soon' });
    assert.match(bad.error ?? '', /^INVALID_ARGUMENT: validFrom/);
    await client.close();
    await store.close();
  });

  it('context returns the block as text, its items as structured content, within the budget', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    await call(client, 'remember', { text: "The user's name is Ana", namespace: ['u'], pinned: true });
    await call(client, 'remember', { text: 'Ana lives in Porto', namespace: ['u'] });
    await call(client, 'remember', { text: 'Ana now lives in Lisbon', namespace: ['u'] });
    await call(client, 'remember', { text: 'The build server is ci-3', namespace: ['ops'] });

    const c = await call(client, 'context', { query: 'where does Ana live', namespaces: [['u']] });
    assert.equal(c.error, undefined, c.text);
    const block = /** @type {any} */ (c.structured);
    assert.equal(c.text, block.text);
    assert.match(c.text, /## Pinned\n- The user's name is Ana/);
    assert.match(c.text, /## Relevant facts\n- Ana now lives in Lisbon/);
    assert.match(c.text, /## Recent changes\n.*\(was: Ana lives in Porto\)/);
    assert.doesNotMatch(c.text, /ci-3/);
    assert.ok(block.tokens <= 1000);
    assert.ok(
      block.items.some((/** @type {any} */ i) => i.section === 'pinned' && i.text === "The user's name is Ana"),
    );
    const relevant = block.items.find((/** @type {any} */ i) => i.section === 'relevant');
    assert.equal(relevant.text, 'Ana now lives in Lisbon');
    assert.match(relevant.validFrom, /Z$/);
    assert.match(relevant.updatedAt, /Z$/);

    const small = await call(client, 'context', { query: 'Ana', budget: 12, recent: 0 });
    assert.ok(/** @type {any} */ (small.structured).tokens <= 12, small.text);
    const empty = await call(client, 'context', { query: 'Ana', namespaces: [['nobody']], recent: 0 });
    assert.equal(empty.text, 'Nothing in memory for this context.');
    assert.equal(/** @type {any} */ (empty.structured).text, '');
    const schema = await call(client, 'context', { budget: 0 });
    assert.match(schema.error ?? '', /Input validation error/);
    const badTime = await call(client, 'context', { query: 'Ana', validAt: 'later' });
    assert.match(badTime.error ?? '', /^INVALID_ARGUMENT: /);
    await client.close();
    await store.close();
  });

  it("reports a judge's decision, and a model that fails as MODEL_FAILED with nothing written", async () => {
    const embedder = async (/** @type {string[]} */ texts) =>
      texts.map((t) => (t.includes('Bruno') ? [1, 0.01] : [0, 1]));
    const judged = await openStore({ embedder, judge: () => 'supersede' });
    const client = await connectInProcess(judged);
    await call(client, 'remember', { text: 'Meeting with Bruno on Monday' });
    const r = await call(client, 'remember', { text: 'Meeting with Bruno on Friday' });
    assert.deepEqual([r.json.decision, r.json.judged], ['supersede', true]);
    await client.close();
    await judged.close();

    const failing = await openStore({
      embedder,
      judge: () => {
        throw new Error('the model is down');
      },
    });
    const other = await connectInProcess(failing);
    await call(other, 'remember', { text: 'Meeting with Bruno on Monday' });
    const seq = await failing.seq();
    const failed = await call(other, 'remember', { text: 'Meeting with Bruno on Friday' });
    assert.match(failed.error ?? '', /^MODEL_FAILED: .*the model is down/);
    assert.equal(await failing.seq(), seq, 'nothing written');
    await other.close();
    await failing.close();
  });

  it('a read-only server offers context and recall, not remember', async () => {
    const store = await openStore({});
    await store.remember({ namespace: ['u'], text: 'Ana lives in Porto' });
    const client = await connectInProcess(store, { readOnly: true });
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('context') && names.includes('recall'));
    assert.ok(!names.includes('remember'));
    assert.match((await call(client, 'context', { query: 'Ana' })).text, /Ana lives in Porto/);
    await client.close();
    await store.close();
  });
});
