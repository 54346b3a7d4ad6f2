// @ts-check
// edgemem/rpc: a store served over a MessageChannel (what a Web Worker's postMessage is) answers the allowed
// methods in order, with values that survive structured clone, and errors that come back as EdgememErrors
// with the store's code; a method not allowed is INVALID_ARGUMENT and never reaches the store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EdgememError, openStore } from 'edgemem';
import {
  CALL_METHODS,
  callStore,
  outcome,
  RpcClient,
  STORE_METHODS,
  serveRpc,
  serveStore,
  toWireError,
  unwrap,
} from 'edgemem/rpc';

/** @param {unknown} e @param {string} code */
function isCode(e, code) {
  assert.ok(e instanceof EdgememError, `expected an EdgememError, got ${String(e)}`);
  assert.equal(e.code, code);
  return true;
}

describe('edgemem/rpc over a MessageChannel', () => {
  /** @type {import('edgemem').MemoryStore} */
  let store;
  /** @type {MessageChannel} */
  let channel;
  /** @type {RpcClient} */
  let client;

  before(async () => {
    store = await openStore({ dims: 3 });
    channel = new MessageChannel();
    serveStore(channel.port1, store, ['put', 'get', 'delete', 'search', 'changes']);
    client = new RpcClient(channel.port2);
    channel.port1.start();
    channel.port2.start();
  });

  after(async () => {
    channel.port1.close();
    channel.port2.close();
    await store.close();
  });

  it('answers the allowed methods with their results, embeddings included', async () => {
    const ack = await client.store('put', {
      namespace: ['notes'],
      key: 'k1',
      value: { text: 'tea' },
      embedding: new Float32Array([1, 0, 0]),
    });
    assert.equal(ack.version, 1);
    const got = await client.store('get', ['notes'], 'k1', { includeEmbedding: true });
    assert.deepEqual(got?.value, { text: 'tea' });
    assert.deepEqual(Array.from(got?.embedding ?? []), [1, 0, 0]);
    const hits = await client.store('search', { vector: new Float32Array([1, 0, 0]), k: 1 });
    assert.equal(hits[0]?.key, 'k1');
  });

  it('answers in the order the calls were made', async () => {
    const writes = Array.from({ length: 20 }, (_, i) =>
      client.store('put', { namespace: ['order'], key: 'same', value: i }),
    );
    const acks = await Promise.all(writes);
    assert.deepEqual(
      acks.map((a) => a.version),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("rejects with the store's error code", async () => {
    await assert.rejects(client.store('delete', ['notes'], 'missing'), (e) => isCode(e, 'NOT_FOUND'));
    await assert.rejects(
      client.store('put', { namespace: ['notes'], key: 'k2', value: 1, embedding: new Float32Array([1, 2]) }),
      (e) => isCode(e, 'DIMENSION_MISMATCH'),
    );
  });

  it('refuses a method it does not serve, without touching the store', async () => {
    const before = (await store.stats()).seq;
    await assert.rejects(client.call('deleteThread', 't'), (e) => isCode(e, 'INVALID_ARGUMENT'));
    await assert.rejects(client.call('close'), (e) => isCode(e, 'INVALID_ARGUMENT'));
    await assert.rejects(client.call('toString'), (e) => isCode(e, 'INVALID_ARGUMENT'));
    assert.equal((await store.stats()).seq, before);
  });

  it('fails the calls still waiting when told the other side died', async () => {
    const silent = new MessageChannel(); // nothing serves port1
    const orphan = new RpcClient(silent.port2);
    silent.port2.start();
    const pending = orphan.call('get', ['notes'], 'k1');
    orphan.failAll(new EdgememError('INTERNAL', 'the worker died'));
    await assert.rejects(pending, (e) => isCode(e, 'INTERNAL'));
    silent.port1.close();
    silent.port2.close();
  });
});

describe('edgemem/rpc building blocks', () => {
  it('outcome and unwrap carry a value, and an error with its code and oldestSeq', async () => {
    assert.deepEqual(await outcome(() => 42), { ok: true, value: 42 });
    const gap = await outcome(() => {
      throw new EdgememError('RESUME_GAP', 'too old', { oldestSeq: 7 });
    });
    assert.deepEqual(gap, { ok: false, error: { code: 'RESUME_GAP', message: 'too old', oldestSeq: 7 } });
    assert.throws(
      () => unwrap(gap),
      (e) => isCode(e, 'RESUME_GAP') && /** @type {EdgememError} */ (e).oldestSeq === 7,
    );
    assert.equal(unwrap({ ok: true, value: 'v' }), 'v');
  });

  it('an error without a known code crosses as INTERNAL', () => {
    assert.equal(toWireError(new TypeError('boom')).code, 'INTERNAL');
    assert.equal(toWireError({ code: 'EPIPE', message: 'x' }).code, 'INTERNAL');
    assert.equal(toWireError('plain').message, 'plain');
  });

  it('callStore reaches only the allowed methods', async () => {
    const store = await openStore({ dims: 0 });
    try {
      const allowed = new Set(['stats']);
      assert.equal((await callStore(store, allowed, 'stats', [])).memories, 0);
      await assert.rejects(callStore(store, allowed, 'put', [{ namespace: ['a'], key: 'k', value: 1 }]), (e) =>
        isCode(e, 'INVALID_ARGUMENT'),
      );
    } finally {
      await store.close();
    }
  });

  it('serveRpc leaves messages that are not requests to other listeners', async () => {
    const { port1, port2 } = new MessageChannel();
    serveRpc(port1, (method) => `called ${method}`);
    /** @type {unknown[]} */
    const others = [];
    port2.addEventListener('message', ({ data }) => {
      if (!('rpc' in data)) others.push(data);
    });
    const client = new RpcClient(port2);
    port1.start();
    port2.start();
    port1.postMessage({ progress: 0.5 }); // from the serving side: a message of the app's own
    assert.equal(await client.call('x'), 'called x');
    assert.deepEqual(others, [{ progress: 0.5 }]);
    port1.close();
    port2.close();
  });

  it('a result that cannot cross is an INTERNAL error, not a call that never settles', async () => {
    const { port1, port2 } = new MessageChannel();
    serveRpc(port1, () => ({ callback: () => 1 }));
    const client = new RpcClient(port2);
    port1.start();
    port2.start();
    await assert.rejects(client.call('f'), (e) => isCode(e, 'INTERNAL'));
    port1.close();
    port2.close();
  });
});

describe('edgemem/rpc: a MemoryStore over the boundary, built from the method table', () => {
  it('serves every one-call method, answers the paged reads whole and refuses what cannot cross', async () => {
    const store = await openStore({ dims: 0 });
    const channel = new MessageChannel();
    serveStore(channel.port1, store, CALL_METHODS);
    const remote = new RpcClient(channel.port2).memoryStore();
    channel.port1.start();
    channel.port2.start();
    try {
      for (let i = 0; i < 3; i++) await remote.put({ namespace: ['n'], key: 'k', value: i });
      await remote.putCheckpoint({ threadId: 't', checkpointId: 'c1', data: { step: 1 } });
      assert.deepEqual(
        (await remote.history(['n'], 'k')).map((m) => m.value),
        [0, 1, 2],
      );
      assert.equal((await remote.changes(0)).length, 4);
      assert.deepEqual(
        (await remote.listCheckpoints({ threadId: 't' })).map((c) => c.checkpointId),
        ['c1'],
      );
      assert.equal(await remote.seq(), await store.seq());
      await assert.rejects(
        remote.subscribe({}, () => {}),
        (e) => isCode(e, 'INVALID_ARGUMENT'),
      );
      await assert.rejects(remote.export(), (e) => isCode(e, 'INVALID_ARGUMENT'));
      await assert.rejects(remote.exportStream()[Symbol.asyncIterator]().next(), (e) => isCode(e, 'INVALID_ARGUMENT'));
      await remote.close(); // closes nothing on the serving side
      assert.equal((await store.stats()).memories, 1);
      // Every method of the table is there, and the one-call ones are exactly what crosses as a call.
      assert.deepEqual(Object.keys(remote).sort(), Object.keys(STORE_METHODS).sort());
      assert.deepEqual(
        CALL_METHODS.filter((m) => STORE_METHODS[m].crossing !== 'call'),
        [],
      );
    } finally {
      channel.port1.close();
      channel.port2.close();
      await store.close();
    }
  });
});
