// @ts-check
/**
 * Live local replicas of an agent (`openStore({ replicaOf })`) against the Worker under Miniflare: the first sync
 * from a snapshot, writes on either side converging, offline writes queued and pushed, the conflict rule (the agent
 * orders; the losing write stays in history and is reported on both sides), a CAS write refused by the agent rolled
 * back here, read-only replicas, retried pushes applied once, checkpoints both ways, and a reload past the agent's
 * feed retention.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { connect, createAgent, mintToken, openStore } from 'edgemem';
import { WebSocket as NodeWebSocket } from 'ws';
import { testWorker } from './test-worker.mjs';

const ADMIN = 'replica-admin';
const worker = testWorker('edgemem-replica', { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' });
const dir = mkdtempSync(join(tmpdir(), 'edgemem-replica-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;

/** Replicas a test opened: closed after it even when it fails, so no socket or timer keeps the process alive. */
/** @type {Set<import('edgemem').MemoryStore>} */
const opened = new Set();
afterEach(async () => {
  await Promise.all([...opened].map((s) => s.close().catch(() => undefined)));
  opened.clear();
});

/** Opens a store and remembers it for `afterEach`. */
async function tracked(/** @type {Parameters<typeof openStore>[0]} */ options) {
  const s = await openStore(options);
  opened.add(s);
  return s;
}

/**
 * A fresh agent (4-d vectors unless told) and what a replica or a plain client needs to reach it.
 * @param {Record<string, unknown>} [settings]
 */
async function freshAgent(settings = { dims: 4 }) {
  const agent = `replica-${process.pid}-${n++}`;
  await createAgent({ url: worker().url, adminToken: ADMIN, agent, settings });
  const token = async (/** @type {('read'|'write'|'subscribe')[]} */ scopes) =>
    (await mintToken({ url: worker().url, adminToken: ADMIN, agent, scopes, ttlSeconds: 600 })).token;
  const full = await token(['read', 'write', 'subscribe']);
  const remote = await connect({ url: worker().url, agent, token: full });
  return { agent, token, full, remote };
}

/** A fetch that can be cut: while `down`, every request fails as a network error would. */
function cuttable() {
  const net = { down: false, requests: 0 };
  /** @type {typeof fetch} */
  const f = (input, init) => {
    net.requests += 1;
    return net.down ? Promise.reject(new TypeError('network is down')) : fetch(input, init);
  };
  return { net, fetch: f };
}

/**
 * A replica of `a` kept in memory (or `file`), polling unless `live`.
 * @param {{ agent: string, full: string }} a
 * @param {{ live?: boolean, token?: string, fetch?: typeof fetch, file?: string, WebSocket?: any }} [o]
 */
function replicaOf(a, o = {}) {
  return tracked({
    storage: o.file ? { file: o.file } : 'memory',
    replicaOf: {
      url: worker().url,
      agent: a.agent,
      token: o.token ?? a.full,
      live: o.live ?? false,
      pollMs: 60_000,
      ...(o.fetch ? { fetch: o.fetch } : {}),
      ...(o.WebSocket ? { WebSocket: o.WebSocket } : {}),
    },
  });
}

/** Resolves once `check()` holds (polling), or fails naming `what`. */
async function eventually(/** @type {() => Promise<boolean> | boolean} */ check, what, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The live memories of a store, as comparable rows (versions included). */
async function liveRows(/** @type {import('edgemem').MemoryStore} */ s) {
  const page = await s.list({ limit: 1000 });
  return page.items
    .map((m) => ({ ns: m.namespace.join('/'), key: m.key, value: m.value, version: m.version, text: m.text }))
    .sort((x, y) => `${x.ns}\u0000${x.key}`.localeCompare(`${y.ns}\u0000${y.key}`));
}

describe('replica: first sync, reads, writes both ways', () => {
  it('a new replica loads a snapshot: memories with their vectors and versions, history, checkpoints', async () => {
    const a = await freshAgent();
    await a.remote.put({ namespace: ['u'], key: 'k1', value: 'first', text: 'porto harbour', embedding: [1, 0, 0, 0] });
    await a.remote.put({
      namespace: ['u'],
      key: 'k1',
      value: 'second',
      text: 'lisbon harbour',
      embedding: [0, 1, 0, 0],
    });
    await a.remote.put({ namespace: ['u'], key: 'k2', value: { n: 2 }, text: 'otter meadow', embedding: [0, 0, 1, 0] });
    await a.remote.putCheckpoint({ threadId: 't1', checkpointId: 'c1', data: { step: 1 } });
    await a.remote.putWrites({ threadId: 't1', checkpointId: 'c1', taskId: 'task', writes: [['ch', 'w0']] });
    const r = await replicaOf(a);
    await r.sync();
    assert.deepEqual(await liveRows(r), await liveRows(a.remote));
    const k1 = await r.get(['u'], 'k1', { includeEmbedding: true });
    assert.deepEqual([k1?.version, Array.from(k1?.embedding ?? [])], [2, [0, 1, 0, 0]]);
    assert.deepEqual(
      (await r.history(['u'], 'k1')).map((m) => m.value),
      ['first', 'second'],
    );
    const hits = await r.search({ text: 'harbour', vector: [0, 1, 0, 0], k: 2 });
    assert.equal(hits[0]?.key, 'k1');
    const cp = await r.getCheckpoint('t1');
    assert.deepEqual([cp?.checkpointId, cp?.data, cp?.pendingWrites.map((w) => w.value)], ['c1', { step: 1 }, ['w0']]);
    const st = r.status();
    assert.equal(st.phase, 'live');
    assert.equal(st.connected, true);
    assert.equal(st.pending, 0);
    assert.equal(st.agentSeq, await a.remote.seq());
    assert.equal(st.lag, 0);
    await r.close();
  });

  it("a replica's writes reach the agent and the other replicas, with the agent's versions", async () => {
    const a = await freshAgent();
    const r1 = await replicaOf(a, { live: true });
    const r2 = await replicaOf(a, { live: true });
    await Promise.all([r1.sync(), r2.sync()]);
    const ack = await r1.put({ namespace: ['n'], key: 'x', value: 1, text: 'alpha', embedding: [1, 0, 0, 0] });
    assert.equal(ack.version, 1);
    assert.equal((await r1.get(['n'], 'x'))?.value, 1, 'read-your-writes at once');
    await eventually(async () => (await r2.get(['n'], 'x'))?.value === 1, 'the write on the other replica (live)');
    assert.equal((await a.remote.get(['n'], 'x'))?.version, 1);
    await r2.put({ namespace: ['n'], key: 'x', value: 2 });
    await r2.delete(['n'], 'x');
    await r2.put({ namespace: ['n'], key: 'y', value: 'y' });
    await eventually(async () => (await r1.get(['n'], 'y'))?.value === 'y', 'the second batch on r1');
    assert.equal(await r1.get(['n'], 'x'), null);
    assert.deepEqual(await liveRows(r1), await liveRows(a.remote));
    assert.deepEqual(await liveRows(r2), await liveRows(a.remote));
    // The agent's history of x: every version, in order, on every side.
    assert.deepEqual(
      (await a.remote.history(['n'], 'x')).map((m) => [m.version, m.value]),
      [
        [1, 1],
        [2, 2],
      ],
    );
    await Promise.all([r1.close(), r2.close()]);
  });

  it("a write the agent commits while a replica's feed socket is still opening reaches that replica", async () => {
    const a = await freshAgent();
    /** @type {() => void} */
    let connect = () => undefined;
    const held = new Promise((resolve) => {
      connect = () => resolve(undefined);
    });
    /** A WebSocket that opens only once the test lets it: the write below lands before the socket subscribes. */
    class HeldWebSocket extends EventTarget {
      /** @param {string} url */
      constructor(url) {
        super();
        /** @type {NodeWebSocket | undefined} */
        this.inner = undefined;
        void held.then(() => {
          const ws = new NodeWebSocket(url);
          this.inner = ws;
          for (const type of ['open', 'message', 'close', 'error'])
            ws.addEventListener(type, (/** @type {any} */ e) => {
              const ev = new Event(type);
              Object.assign(ev, { data: e.data, code: e.code, reason: e.reason });
              this.dispatchEvent(ev);
            });
        });
      }
      /** @param {string} data */
      send(data) {
        this.inner?.send(data);
      }
      /** @param {number} [code] @param {string} [reason] */
      close(code, reason) {
        if (this.inner) this.inner.close(code, reason);
        else void held.then(() => this.inner?.close(code, reason));
      }
    }
    const r = await replicaOf(a, { live: true, WebSocket: HeldWebSocket });
    await r.sync();
    await a.remote.put({ namespace: ['n'], key: 'early', value: 'before the socket' });
    connect();
    await eventually(async () => (await r.get(['n'], 'early'))?.value === 'before the socket', 'the early write');
    assert.equal(r.status().pending, 0);
  });

  it('offline: writes are applied and queued, reads go on; back online they are pushed in order', async () => {
    const a = await freshAgent();
    const { net, fetch: f } = cuttable();
    const r = await replicaOf(a, { fetch: f });
    await r.sync();
    net.down = true;
    for (let i = 0; i < 20; i++) await r.put({ namespace: ['off'], key: `k${i % 5}`, value: i, text: `note ${i}` });
    await r.delete(['off'], 'k4');
    assert.equal((await r.get(['off'], 'k3'))?.value, 18);
    assert.equal((await r.search({ text: 'note', k: 10 })).length, 4);
    await assert.rejects(r.sync());
    const st = r.status();
    assert.deepEqual([st.connected, st.phase, st.pending], [false, 'offline', 21]);
    assert.ok(st.error);
    assert.equal((await a.remote.list()).items.length, 0, 'nothing reached the agent');
    net.down = false;
    await r.sync();
    assert.equal(r.status().pending, 0);
    assert.deepEqual(await liveRows(a.remote), await liveRows(r));
    assert.equal((await a.remote.get(['off'], 'k3'))?.version, 4, 'each queued write is a version at the agent');
    await r.close();
  });
});

describe('replica: conflicts, refusals, scopes, retries', () => {
  it('concurrent writes to a key: the agent orders them, the loser stays in history, both sides hear of it', async () => {
    const a = await freshAgent();
    await a.remote.put({ namespace: ['c'], key: 'k', value: 'base' });
    const n1 = cuttable();
    const n2 = cuttable();
    const r1 = await replicaOf(a, { fetch: n1.fetch });
    const r2 = await replicaOf(a, { fetch: n2.fetch });
    await Promise.all([r1.sync(), r2.sync()]);
    /** @type {import('edgemem').ConflictEvent[]} */
    const c1 = [];
    /** @type {import('edgemem').ConflictEvent[]} */
    const c2 = [];
    r1.on('conflict', (e) => c1.push(e));
    r2.on('conflict', (e) => c2.push(e));
    n1.net.down = true;
    n2.net.down = true;
    await r1.put({ namespace: ['c'], key: 'k', value: 'from r1' });
    await r2.put({ namespace: ['c'], key: 'k', value: 'from r2' });
    n1.net.down = false;
    await r1.sync();
    n2.net.down = false;
    await r2.sync();
    await r1.sync();
    // The agent applied r1's write (v2), then r2's (v3): r2 won over v2, which r1 had.
    assert.deepEqual(
      (await a.remote.history(['c'], 'k')).map((m) => [m.version, m.value]),
      [
        [1, 'base'],
        [2, 'from r1'],
        [3, 'from r2'],
      ],
    );
    assert.deepEqual(
      c2.map((e) => [e.side, e.version, e.lost]),
      [['won', 3, { from: 2, to: 2 }]],
    );
    assert.deepEqual(
      c1.map((e) => [e.side, e.version, e.lost]),
      [['lost', 3, { from: 2, to: 2 }]],
    );
    assert.equal((await r1.get(['c'], 'k'))?.value, 'from r2');
    assert.equal(r1.status().conflicts, 1);
    assert.ok(
      (await r1.history(['c'], 'k')).some((m) => m.value === 'from r1'),
      "the loser is in r1's history",
    );
    await Promise.all([r1.close(), r2.close()]);
  });

  it('a CAS write the agent refuses is rolled back on the replica, with the reason', async () => {
    const a = await freshAgent();
    await a.remote.put({ namespace: ['cas'], key: 'k', value: 'v1' });
    const { net, fetch: f } = cuttable();
    const r = await replicaOf(a, { fetch: f });
    await r.sync();
    /** @type {import('edgemem').RejectedEvent[]} */
    const rejected = [];
    r.on('rejected', (e) => rejected.push(e));
    net.down = true;
    await r.put({ namespace: ['cas'], key: 'k', value: 'mine', ifVersion: 1 });
    assert.equal((await r.get(['cas'], 'k'))?.value, 'mine');
    await a.remote.put({ namespace: ['cas'], key: 'k', value: 'theirs' });
    net.down = false;
    await r.sync();
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]?.error.code, 'CONFLICT');
    assert.equal(rejected[0]?.restored?.value, 'theirs');
    assert.deepEqual((await r.get(['cas'], 'k'))?.value, 'theirs', 'rolled back to the agent');
    assert.equal((await r.get(['cas'], 'k'))?.version, 2);
    assert.equal(r.status().rejected, 1);
    assert.deepEqual(await liveRows(r), await liveRows(a.remote));
    await r.close();
  });

  it('a token without the write scope makes a read-only replica: writes are FORBIDDEN here', async () => {
    const a = await freshAgent();
    await a.remote.put({ namespace: ['ro'], key: 'k', value: 1 });
    const r = await replicaOf(a, { token: await a.token(['read']) });
    await r.sync();
    assert.equal((await r.get(['ro'], 'k'))?.value, 1);
    assert.equal(r.status().writable, false);
    await assert.rejects(r.put({ namespace: ['ro'], key: 'k', value: 2 }), { code: 'FORBIDDEN' });
    await assert.rejects(r.delete(['ro'], 'k'), { code: 'FORBIDDEN' });
    await r.close();
  });

  it('a push whose answer is lost is retried and applied once', async () => {
    const a = await freshAgent();
    let dropAnswers = 0;
    let pushes = 0;
    /** @type {typeof fetch} */
    const f = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input).endsWith('/replica/push')) pushes += 1;
      if (String(input).endsWith('/replica/push') && dropAnswers > 0) {
        dropAnswers -= 1;
        throw new TypeError('connection reset after the request was sent');
      }
      return res;
    };
    const r = await replicaOf(a, { fetch: f });
    await r.sync();
    dropAnswers = 1;
    await r.put({ namespace: ['once'], key: 'k', value: 'v' });
    await r.sync(); // the first push (a cycle the write started) lost its answer; this one retries it
    assert.equal(dropAnswers, 0, 'an answer was lost');
    assert.ok(pushes >= 2, 'and the op pushed again');
    assert.equal(r.status().pending, 0);
    const h = await a.remote.history(['once'], 'k');
    assert.deepEqual(
      h.map((m) => [m.version, m.value]),
      [[1, 'v']],
      'one version at the agent',
    );
    await r.close();
  });
});

describe('replica: an interrupted first sync', () => {
  it('goes on from the last snapshot chunk it took, after a network cut and a reopen', async () => {
    const a = await freshAgent({ dims: 64 });
    const vector = (/** @type {number} */ i) => Array.from({ length: 64 }, (_, d) => Math.sin(i * 7 + d));
    for (let b = 0; b < 4; b++) {
      await a.remote.putBatch(
        Array.from({ length: 100 }, (_, i) => ({
          namespace: ['bulk'],
          key: `m${b * 100 + i}`,
          value: { i: b * 100 + i, pad: 'x'.repeat(200) },
          text: `bulk memory ${b * 100 + i}`,
          embedding: vector(b * 100 + i),
        })),
      );
    }
    const file = join(dir, 'resume.db');
    /** @type {string[]} */
    const asked = [];
    let cutAfter = 3;
    /** @type {typeof fetch} */
    const f = (input, init) => {
      const u = new URL(String(input));
      if (u.pathname.endsWith('/replica/snapshot')) {
        if (cutAfter-- <= 0) return Promise.reject(new TypeError('network cut mid-snapshot'));
        asked.push(u.searchParams.get('cursor') ?? 'start');
      }
      return fetch(input, init);
    };
    const open = () =>
      tracked({
        storage: { file },
        replicaOf: {
          url: worker().url,
          agent: a.agent,
          token: a.full,
          live: false,
          fetch: f,
          snapshotChunkBytes: 65536,
        },
      });
    let r = await open();
    await assert.rejects(r.sync());
    assert.equal(asked.length, 3, 'three chunks taken before the cut');
    assert.equal(r.status().phase, 'offline');
    await r.close();
    cutAfter = Number.POSITIVE_INFINITY;
    r = await open();
    await r.sync();
    assert.notEqual(asked[3], 'start', 'the reopened replica went on from a cursor, not from the start');
    assert.ok(asked.length > 6, 'in several chunks');
    assert.deepEqual(await liveRows(r), await liveRows(a.remote));
    const m = await r.get(['bulk'], 'm123', { includeEmbedding: true });
    assert.deepEqual(
      Array.from(m?.embedding ?? []).map((x) => x.toFixed(5)),
      vector(123).map((x) => Math.fround(x).toFixed(5)),
    );
    await r.close();
  });
});

describe('replica: checkpoints and reloads', () => {
  it('checkpoints and pending writes replicate both ways, thread deletions too', async () => {
    const a = await freshAgent();
    const r = await replicaOf(a);
    await r.sync();
    await r.putCheckpoint({
      threadId: 'local',
      checkpointId: 'c1',
      data: new Uint8Array([1, 2, 3]),
      channelVersions: { messages: '1' },
      blobs: [{ channel: 'messages', version: '1', data: ['hi'] }],
    });
    await r.putWrites({
      threadId: 'local',
      checkpointId: 'c1',
      taskId: 't',
      writes: [
        ['a', 1],
        ['b', 2],
      ],
    });
    await r.putWrites({ threadId: 'local', checkpointId: 'c1', taskId: 't', writes: [['__error__', 'boom']] });
    await r.sync();
    const there = await a.remote.getCheckpoint('local');
    assert.deepEqual(Array.from(/** @type {Uint8Array} */ (there?.data)), [1, 2, 3]);
    assert.deepEqual(there?.pendingWrites.map((w) => [w.channel, w.value]).sort(), [
      ['__error__', 'boom'],
      ['a', 1],
      ['b', 2],
    ]);
    assert.deepEqual(there?.blobs, [{ channel: 'messages', version: '1', data: ['hi'] }]);
    await a.remote.putCheckpoint({ threadId: 'edge', checkpointNs: 'sub:1', checkpointId: 'e1', data: { at: 'edge' } });
    await r.sync();
    assert.deepEqual((await r.getCheckpoint('edge', { checkpointNs: 'sub:1' }))?.data, { at: 'edge' });
    await a.remote.deleteThread('local');
    await r.sync();
    assert.equal(await r.getCheckpoint('local'), null);
    await r.close();
  });

  it('past the feed retention, a file replica reloads from a snapshot and keeps going', async () => {
    const a = await freshAgent({ dims: 4, retention: { eventsMax: 20 } });
    const file = join(dir, 'reload.db');
    const { net, fetch: f } = cuttable();
    let r = await replicaOf(a, { file, fetch: f });
    await r.sync();
    net.down = true;
    await r.put({ namespace: ['mine'], key: 'queued', value: 'offline' });
    for (let i = 0; i < 60; i++) await a.remote.put({ namespace: ['edge'], key: `k${i}`, value: i });
    await a.remote.sweep(); // retention drops the feed's older events
    net.down = false;
    await r.sync();
    assert.deepEqual(await liveRows(r), await liveRows(a.remote));
    assert.equal((await a.remote.get(['mine'], 'queued'))?.value, 'offline', 'the queued write was pushed first');
    await r.put({ namespace: ['mine'], key: 'after', value: 'reload' });
    await r.sync();
    assert.equal((await a.remote.get(['mine'], 'after'))?.value, 'reload');
    await r.close();
    // Reopened from the file, it goes on from where it was.
    r = await replicaOf(a, { file });
    assert.deepEqual(await liveRows(r), await liveRows(a.remote));
    await r.sync();
    assert.equal(r.status().pending, 0);
    await r.close();
  });
});
