// @ts-check
// Persistence across a Miniflare restart: the Worker (bundled by `wrangler deploy --dry-run`, offline) runs
// under Miniflare with its Durable Object state in a temporary folder; a second Miniflare over the same folder
// — a new workerd process — still has every acknowledged write, its history and its vector index.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const workers = fileURLToPath(new URL('..', import.meta.url));
const root = join(workers, '..');
const dir = mkdtempSync(join(tmpdir(), 'edgemem-persist-'));
const bundle = join(dir, 'bundle');
const state = join(dir, 'state');
const ADMIN = 'persist-test-token';
const OFFLINE = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', XDG_CONFIG_HOME: join(dir, 'config') };

/** A Miniflare running the bundled Worker with its Durable Objects persisted under `state`. */
function start() {
  return new Miniflare({
    modules: true,
    scriptPath: join(bundle, 'index.js'),
    modulesRoot: bundle,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-20',
    durableObjects: { AGENT_MEMORY: { className: 'AgentMemory', useSQLite: true } },
    bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4' },
    defaultPersistRoot: state,
    durableObjectsPersist: true,
    cf: false,
    port: 0,
  });
}

/** @param {Miniflare} mf @param {string} method @param {string} path @param {unknown} [body] */
async function call(mf, method, path, body) {
  const url = new URL(path, await mf.ready);
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

before(() => {
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['deploy', '--dry-run', '--outdir', bundle, '--config', join(workers, 'wrangler.jsonc')],
    { cwd: workers, env: OFFLINE, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, `wrangler bundle failed:\n${r.stdout}\n${r.stderr}`);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('persistence across a Miniflare restart', () => {
  it('keeps memories, history, checkpoints and the vector index', async () => {
    const a = 'persisted-agent';
    let mf = start();
    try {
      for (let i = 0; i < 30; i++) {
        const r = await call(mf, 'PUT', `/v1/agents/${a}/memories/k${i}?ns=p`, { value: i, text: `note ${i}`, embedding: [i, 1, 0, 0] });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      await call(mf, 'PUT', `/v1/agents/${a}/memories/k0?ns=p`, { value: 'v2' });
      await call(mf, 'POST', `/v1/agents/${a}/checkpoints`, { threadId: 't', checkpointId: 'c1', data: { s: 1 } });
    } finally {
      await mf.dispose();
    }
    assert.ok(readdirSync(state).length > 0, 'state was written to the persist folder');

    mf = start();
    try {
      assert.equal((await call(mf, 'GET', `/v1/agents/${a}/memories/k0?ns=p`)).body.value, 'v2');
      assert.equal((await call(mf, 'GET', `/v1/agents/${a}/memories/k0?ns=p&asOfSeq=1`)).body.value, 0);
      assert.equal((await call(mf, 'GET', `/v1/agents/${a}/memories/k29?ns=p`)).body.value, 29);
      assert.deepEqual((await call(mf, 'GET', `/v1/agents/${a}/checkpoints/t`)).body.data, { s: 1 });
      const hits = await call(mf, 'POST', `/v1/agents/${a}/search`, { vector: [17, 1, 0, 0], text: 'note 17', k: 1 });
      assert.equal(hits.body.hits[0].key, 'k17');
      const stats = await call(mf, 'GET', `/v1/agents/${a}/stats`);
      assert.equal(stats.body.seq, 32);
      assert.equal(stats.body.memories, 30);
      const next = await call(mf, 'PUT', `/v1/agents/${a}/memories/new?ns=p`, { value: 1 });
      assert.equal(next.body.seq, 33);
    } finally {
      await mf.dispose();
    }
  });
});
