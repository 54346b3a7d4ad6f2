// @ts-check
// Persistence across a Miniflare restart: the Worker (bundled by `wrangler deploy --dry-run`, offline) runs
// under Miniflare with its Durable Object state in a temporary folder; a second Miniflare over the same folder
// — a new workerd process — still has every acknowledged write, its history and its vector index.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-persist-'));
const bundle = join(dir, 'bundle');
const state = join(dir, 'state');
const ADMIN = 'persist-test-token';

/** A Miniflare running the bundled Worker with its Durable Objects persisted under `state`. */
const start = () => startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4' }, persist: state });

/** @param {{ url: string }} server @param {string} method @param {string} path @param {unknown} [body] */
async function call(server, method, path, body) {
  const url = new URL(path, server.url);
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

before(() => bundleWorker(bundle, join(dir, 'config')));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('persistence across a Miniflare restart', () => {
  it('keeps memories, history, checkpoints and the vector index', async () => {
    const a = 'persisted-agent';
    let server = await start();
    try {
      for (let i = 0; i < 30; i++) {
        const r = await call(server, 'PUT', `/v1/agents/${a}/memories/k${i}?ns=p`, {
          value: i,
          text: `note ${i}`,
          embedding: [i, 1, 0, 0],
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      await call(server, 'PUT', `/v1/agents/${a}/memories/k0?ns=p`, { value: 'v2' });
      await call(server, 'POST', `/v1/agents/${a}/checkpoints`, { threadId: 't', checkpointId: 'c1', data: { s: 1 } });
    } finally {
      await server.mf.dispose();
    }
    assert.ok(readdirSync(state).length > 0, 'state was written to the persist folder');

    server = await start();
    try {
      assert.equal((await call(server, 'GET', `/v1/agents/${a}/memories/k0?ns=p`)).body.value, 'v2');
      assert.equal((await call(server, 'GET', `/v1/agents/${a}/memories/k0?ns=p&asOfSeq=1`)).body.value, 0);
      assert.equal((await call(server, 'GET', `/v1/agents/${a}/memories/k29?ns=p`)).body.value, 29);
      assert.deepEqual((await call(server, 'GET', `/v1/agents/${a}/checkpoints/t`)).body.data, { s: 1 });
      const hits = await call(server, 'POST', `/v1/agents/${a}/search`, {
        vector: [17, 1, 0, 0],
        text: 'note 17',
        k: 1,
      });
      assert.equal(hits.body.hits[0].key, 'k17');
      const stats = await call(server, 'GET', `/v1/agents/${a}/stats`);
      assert.equal(stats.body.seq, 32);
      assert.equal(stats.body.memories, 30);
      const next = await call(server, 'PUT', `/v1/agents/${a}/memories/new?ns=p`, { value: 1 });
      assert.equal(next.body.seq, 33);
    } finally {
      await server.mf.dispose();
    }
  });
});
