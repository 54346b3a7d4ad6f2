// @ts-check
// The tarball installed into a Worker project (fixtures/worker-consumer), bundled the way users deploy it
// (`wrangler deploy --dry-run --outdir`, offline) and served by Miniflare: wrangler must pick the
// `workerd` entry (the .wasm imported as a compiled module) and GET /smoke must put, search and answer.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Miniflare } from 'miniflare';
import { installConsumer, repoRoot, run, workDir } from './consumer.js';

/** Keeps wrangler quiet and on this machine: no metrics, no update check, its config in the temp dir. */
const offline = () => ({
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  XDG_CONFIG_HOME: join(workDir(), 'xdg-config'),
});

describe('a Worker consumer (wrangler bundle, Miniflare)', () => {
  /** @type {string} */
  let out;
  /** @type {Miniflare | undefined} */
  let mf;

  before(() => {
    const dir = installConsumer('worker-consumer');
    mkdirSync(offline().XDG_CONFIG_HOME, { recursive: true });
    const wrangler = join(repoRoot, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', 'out'], { cwd: dir, env: offline() });
    out = join(dir, 'out');
  });
  after(async () => {
    await mf?.dispose();
  });

  it('bundles the workerd entry, with the wasm as a separate compiled module', () => {
    const bundle = readFileSync(join(out, 'index.js'), 'utf8');
    assert.match(bundle, /\/\/ node_modules\/edgemem\/dist\/workerd\.js/);
    assert.doesNotMatch(bundle, /\/\/ node_modules\/edgemem\/dist\/(index|node|browser)\.js/);
    assert.doesNotMatch(bundle, /node:fs|readFileSync/);
    const wasm = readdirSync(out).filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `one .wasm module next to the bundle, got ${wasm}`);
    assert.match(bundle, new RegExp(`import \\w+ from "\\./${wasm[0]?.replace(/\./g, '\\.')}"`));
  });

  it('serves GET /smoke from Miniflare: put, get, search and an EdgememError', async () => {
    mf = new Miniflare({
      scriptPath: join(out, 'index.js'),
      modules: true,
      modulesRoot: out,
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
      compatibilityDate: '2026-04-01',
      port: 0,
      cf: false,
    });
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
