// @ts-check
/**
 * What only the remote client has: a subscription that survives a dropped socket and a restarted Worker with
 * no gap and no duplicate (it resumes from the last seq it saw), RESUME_GAP through `onError` when the events
 * it missed were pruned, and the Worker's auth codes — a token for another agent is FORBIDDEN, an expired or
 * forged one UNAUTHORIZED — on HTTP calls and on `subscribe` alike.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, createAgent, EdgememError, mintToken } from 'edgemem';
import { WebSocket as WsWebSocket } from 'ws';
import { rejectsWith } from '../../js/test/contract/suite.js';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const ADMIN = 'remote-client-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-remote-client-'));
const bundle = join(dir, 'bundle');
const persist = join(dir, 'state');
/** @type {{ mf: import('miniflare').Miniflare, url: string }} */
let server;
let port = 0;

const start = async () => {
  server = await startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' }, persist, port });
  port = Number(new URL(server.url).port);
};

before(async () => {
  bundleWorker(bundle, join(dir, 'config'));
  await start();
});
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The `ws` WebSocket, keeping every socket the client opens so a test can cut them; while `down`, a socket goes
 * to a closed port instead (refused, as with the network down), so the client cannot reconnect.
 */
class TrackedWebSocket extends WsWebSocket {
  /** @type {TrackedWebSocket[]} */
  static opened = [];
  static down = false;
  /** @param {string} url */
  constructor(url) {
    super(TrackedWebSocket.down ? 'ws://127.0.0.1:9/' : url);
    TrackedWebSocket.opened.push(this);
  }
}

let n = 0;
/** A new agent and a store on it with an all-scopes token; `extra` goes to connect. */
async function agentStore(settings = {}, extra = {}) {
  const agent = `client-${process.pid}-${n++}`;
  await createAgent({ url: server.url, adminToken: ADMIN, agent, settings });
  const { token } = await mintToken({
    url: server.url,
    adminToken: ADMIN,
    agent,
    scopes: ['read', 'write', 'subscribe'],
  });
  const store = await connect({
    url: server.url,
    agent,
    token,
    WebSocket: /** @type {any} */ (TrackedWebSocket),
    reconnect: { minDelayMs: 50, maxDelayMs: 200 },
    ...extra,
  });
  // Writes through a second client (the admin token), as another process would make them.
  const writer = await connect({ url: server.url, agent, token: ADMIN });
  return { agent, store, writer };
}

/** @param {() => boolean} check */
async function waitFor(check, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('remote client', () => {
  it('resumes after its socket drops: every event once, in order, including those written while it was away', async () => {
    const { store, writer } = await agentStore();
    /** @type {number[]} */
    const seqs = [];
    const before = TrackedWebSocket.opened.length;
    const sub = await store.subscribe({ kinds: ['put'] }, (e) => seqs.push(e.seq));
    const socket = TrackedWebSocket.opened[before];
    assert.ok(socket);
    const a = await writer.put({ namespace: ['n'], key: 'a', value: 1 });
    await waitFor(() => seqs.length === 1);

    socket.terminate(); // abrupt: no close handshake
    const missed = [];
    for (let i = 0; i < 5; i++) missed.push((await writer.put({ namespace: ['n'], key: `m${i}`, value: i })).seq);
    await writer.notify('not-a-put', 1);
    await waitFor(() => seqs.length === 6);
    assert.ok(TrackedWebSocket.opened.length > before + 1, 'it reconnected');
    const live = await writer.put({ namespace: ['n'], key: 'z', value: 2 });
    await waitFor(() => seqs.length === 7);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seqs, [a.seq, ...missed, live.seq]);
    await sub.unsubscribe();
    await store.close();
    await writer.close();
  });

  it('resumes across a Worker restart (a new workerd over the same state), with no gap and no duplicate', async () => {
    const { store, writer } = await agentStore();
    /** @type {number[]} */
    const seqs = [];
    await store.subscribe({}, (e) => seqs.push(e.seq));
    for (let i = 0; i < 3; i++) await writer.put({ namespace: ['r'], key: `k${i}`, value: i });
    await waitFor(() => seqs.length === 3);

    await server.mf.dispose();
    await start(); // same port, same persisted Durable Objects
    for (let i = 3; i < 6; i++) await writer.put({ namespace: ['r'], key: `k${i}`, value: i });
    await waitFor(() => seqs.length === 6);
    await writer.notify('c', 'live');
    await waitFor(() => seqs.length === 7);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6, 7]);
    await store.close();
    await writer.close();
  });

  it('ends a subscription with RESUME_GAP (onError, with oldestSeq) when the events it missed were pruned', async () => {
    /** @type {EdgememError[]} */
    const errors = [];
    const { store, writer } = await agentStore(
      { retention: { eventsMax: 2 } },
      {
        reconnect: { minDelayMs: 1500, maxDelayMs: 1500 },
        onError: (/** @type {EdgememError} */ e) => errors.push(e),
      },
    );
    /** @type {number[]} */
    const seqs = [];
    const before = TrackedWebSocket.opened.length;
    await store.subscribe({}, (e) => seqs.push(e.seq));
    await writer.notify('c', 0);
    await waitFor(() => seqs.length === 1);
    // Cut, and kept from reconnecting until the events it missed are pruned.
    TrackedWebSocket.down = true;
    try {
      TrackedWebSocket.opened[before]?.terminate();
      for (let i = 1; i <= 10; i++) await writer.notify('c', i);
      await writer.sweep(); // applies the retention: only the last 2 events remain
    } finally {
      TrackedWebSocket.down = false;
    }
    await waitFor(() => errors.length === 1);
    assert.ok(errors[0] instanceof EdgememError);
    assert.equal(errors[0].code, 'RESUME_GAP');
    assert.equal(errors[0].oldestSeq, 10);
    assert.deepEqual(seqs, [1], 'no event after the gap was delivered');
    await store.close();
    await writer.close();
  });

  it('a token for another agent is FORBIDDEN, on calls and on subscribe', async () => {
    const { agent } = await agentStore();
    const other = await agentStore();
    const { token } = await mintToken({
      url: server.url,
      adminToken: ADMIN,
      agent: other.agent,
      scopes: ['read', 'write', 'subscribe'],
    });
    const s = await connect({ url: server.url, agent, token, WebSocket: /** @type {any} */ (WsWebSocket) });
    await rejectsWith(s.get(['n'], 'k'), 'FORBIDDEN');
    await rejectsWith(s.put({ namespace: ['n'], key: 'k', value: 1 }), 'FORBIDDEN');
    await rejectsWith(
      s.subscribe({}, () => {}),
      'FORBIDDEN',
    );
    const readOnly = await mintToken({ url: server.url, adminToken: ADMIN, agent, scopes: ['read'] });
    const r = await connect({
      url: server.url,
      agent,
      token: readOnly.token,
      WebSocket: /** @type {any} */ (WsWebSocket),
    });
    assert.equal(await r.get(['n'], 'k'), null);
    await rejectsWith(r.put({ namespace: ['n'], key: 'k', value: 1 }), 'FORBIDDEN');
    await rejectsWith(
      r.subscribe({}, () => {}),
      'FORBIDDEN',
    );
    await rejectsWith(createAgent({ url: server.url, adminToken: readOnly.token, agent, settings: {} }), 'FORBIDDEN');
    await s.close();
    await r.close();
    await other.store.close();
    await other.writer.close();
  });

  it('an expired or forged token is UNAUTHORIZED, on calls and on subscribe; a token function is asked again', async () => {
    const { agent } = await agentStore();
    const { token } = await mintToken({
      url: server.url,
      adminToken: ADMIN,
      agent,
      scopes: ['read', 'subscribe'],
      ttlSeconds: 1,
    });
    await new Promise((r) => setTimeout(r, 2100));
    const s = await connect({ url: server.url, agent, token, WebSocket: /** @type {any} */ (WsWebSocket) });
    await rejectsWith(s.stats(), 'UNAUTHORIZED');
    await rejectsWith(
      s.subscribe({}, () => {}),
      'UNAUTHORIZED',
    );
    const forged = await connect({
      url: server.url,
      agent,
      token: `${token.slice(0, -4)}AAAA`,
      WebSocket: /** @type {any} */ (WsWebSocket),
    });
    await rejectsWith(forged.stats(), 'UNAUTHORIZED');

    let calls = 0;
    const renewing = await connect({
      url: server.url,
      agent,
      token: async () => {
        calls++;
        return (await mintToken({ url: server.url, adminToken: ADMIN, agent, scopes: ['read'], ttlSeconds: 60 })).token;
      },
    });
    assert.equal((await renewing.stats()).seq, 0);
    assert.equal((await renewing.stats()).seq, 0);
    assert.equal(calls, 2);
    await s.close();
    await forged.close();
    await renewing.close();
  });

  it('connect checks its options; a closed store refuses subscribe', async () => {
    await rejectsWith(connect({ url: 'not a url', agent: 'a', token: 't' }), 'INVALID_ARGUMENT');
    await rejectsWith(connect({ url: server.url, agent: '', token: 't' }), 'INVALID_ARGUMENT');
    const { store, writer } = await agentStore();
    await rejectsWith(store.put({ namespace: ['a/b'], key: 'k', value: 1 }), 'INVALID_ARGUMENT');
    await store.close();
    await rejectsWith(
      store.subscribe({}, () => {}),
      'INVALID_ARGUMENT',
    );
    await writer.close();
  });
});
