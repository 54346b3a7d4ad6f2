// @ts-check
// The tarball installed into a Worker project (fixtures/worker-consumer), bundled the way users deploy it
// (`wrangler deploy --dry-run --outdir`, offline) and served by Miniflare: wrangler must pick the
// `workerd` entry (the .wasm imported as a compiled module) and GET /smoke must put, search and answer.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleWorkerConsumer, serveBundle } from './worker-bundle.js';

describe('a Worker consumer (wrangler bundle, Miniflare)', () => {
  /** @type {string} */
  let out;
  /** @type {import('miniflare').Miniflare | undefined} */
  let mf;

  before(() => {
    ({ out } = bundleWorkerConsumer('worker-consumer'));
  });
  after(async () => {
    await mf?.dispose();
  });

  it('bundles the workerd entry, with the wasm as a separate compiled module', () => {
    const bundle = readFileSync(join(out, 'index.js'), 'utf8');
    assert.match(bundle, /\/\/ node_modules\/edgemem\/dist\/entries\/workerd\.js/);
    assert.doesNotMatch(bundle, /\/\/ node_modules\/edgemem\/dist\/entries\/(default|node|browser)\.js/);
    assert.doesNotMatch(bundle, /node:fs|readFileSync/);
    const wasm = readdirSync(out).filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `one .wasm module next to the bundle, got ${wasm}`);
    assert.match(bundle, new RegExp(`import \\w+ from "\\./${wasm[0]?.replace(/\./g, '\\.')}"`));
  });

  it('serves GET /smoke from Miniflare: put, get, search and an EdgememError', async () => {
    mf = serveBundle(out);
    const url = await mf.ready;
    // Twice: the second request reuses the isolate's already-initialised wasm instance.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(new URL('/smoke', url));
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), {
        ack: { seq: 1, version: 1 },
        value: { likes: 'oat milk' },
        hits: ['coffee', 'tea'],
        memories: 2,
        error: { isError: true, isEdgememError: true, code: 'DIMENSION_MISMATCH' },
      });
    }
  });
});
