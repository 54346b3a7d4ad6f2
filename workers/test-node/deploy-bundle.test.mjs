// @ts-check
/**
 * The production deployment, offline: `wrangler deploy --dry-run --outdir` with workers/wrangler.production.jsonc
 * (what `npm run deploy` deploys) must build, ship the engine's .wasm (byte for byte the package's) and Swagger UI's
 * text modules, and fit Cloudflare's Worker size limit after compression: 3 MB on the Workers Free plan, 10 MB on
 * Workers Paid. The config needs Paid (its `limits.cpu_ms`), but the bundle is held to the Free plan's 3 MB, so
 * removing that one setting is all a Free account needs. The config itself: the bindings src/env.ts names, the
 * Durable Object migration, and no secret among the plain vars.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { offlineEnv } from '../harness/miniflare.mjs';

const workers = fileURLToPath(new URL('..', import.meta.url));
const root = join(workers, '..');
const config = join(workers, 'wrangler.production.jsonc');
// Cloudflare states the limits as 3 MB and 10 MB after compression; read as decimal megabytes, the stricter reading.
const FREE_LIMIT = 3_000_000;
const PAID_LIMIT = 10_000_000;

/** A wrangler config as data (JSONC: comments outside strings dropped). */
function readConfig(/** @type {string} */ path) {
  const text = readFileSync(path, 'utf8');
  let out = '';
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return JSON.parse(out);
}

describe('the production deployment bundle (wrangler deploy --dry-run)', () => {
  /** @type {string} */
  let work;
  /** @type {string} */
  let outDir;
  /** @type {string} */
  let wranglerOutput;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'edgemem-deploy-'));
    outDir = join(work, 'bundle');
    const r = spawnSync(
      join(root, 'node_modules/.bin/wrangler'),
      ['deploy', '--dry-run', '--outdir', outDir, '--config', config],
      {
        cwd: workers,
        env: offlineEnv(join(work, 'wrangler-config')),
        encoding: 'utf8',
      },
    );
    wranglerOutput = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.status, 0, `wrangler deploy --dry-run failed:\n${wranglerOutput}`);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** The files wrangler would upload: the modules, not source maps or its README. */
  const modules = () => readdirSync(outDir).filter((f) => !f.endsWith('.map') && f !== 'README.md');

  it('includes the engine .wasm, byte for byte the package’s, imported by the entry', () => {
    const wasm = modules().filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `wasm modules: ${wasm}`);
    const sha = (/** @type {Buffer} */ b) => createHash('sha256').update(b).digest('hex');
    const shipped = readFileSync(join(outDir, wasm[0]));
    assert.equal(sha(shipped), sha(readFileSync(join(root, 'js/dist-wasm/edgemem_wasm_bg.wasm'))));
    assert.ok(readFileSync(join(outDir, 'index.js'), 'utf8').includes(wasm[0]), 'index.js does not import the .wasm');
  });

  it('includes Swagger UI as text modules for /v1/docs', () => {
    const files = modules();
    assert.ok(
      files.some((f) => f.endsWith('swagger-ui-bundle.js')),
      `modules: ${files}`,
    );
    assert.ok(
      files.some((f) => f.endsWith('swagger-ui.css')),
      `modules: ${files}`,
    );
  });

  it('fits the Workers Free plan’s 3 MB compressed limit (and so the Paid plan’s 10 MB)', () => {
    const gzip = modules().reduce((sum, f) => sum + gzipSync(readFileSync(join(outDir, f)), { level: 9 }).length, 0);
    const reported = /gzip: ([\d.]+) KiB/.exec(wranglerOutput);
    assert.ok(reported, `wrangler printed no gzip size:\n${wranglerOutput}`);
    const wranglerGzip = Number(reported[1]) * 1024;
    const kib = (/** @type {number} */ n) => `${(n / 1024).toFixed(0)} KiB`;
    console.log(
      `deploy bundle: ${modules().length} modules, gzip ${kib(gzip)} (wrangler: ${kib(wranglerGzip)}); ` +
        `margin ${kib(FREE_LIMIT - Math.max(gzip, wranglerGzip))} under Free's 3 MB, ${kib(PAID_LIMIT - Math.max(gzip, wranglerGzip))} under Paid's 10 MB`,
    );
    assert.ok(gzip <= FREE_LIMIT, `bundle gzip ${gzip} B > 3 MB`);
    assert.ok(wranglerGzip <= FREE_LIMIT, `wrangler's gzip ${wranglerGzip} B > 3 MB`);
  });

  it('binds what src/env.ts names, migrates the Durable Object, keeps secrets out of vars, matches the local config', () => {
    const c = readConfig(config);
    const envTs = readFileSync(join(workers, 'src/env.ts'), 'utf8');
    assert.deepEqual(c.durable_objects.bindings, [{ name: 'AGENT_MEMORY', class_name: 'AgentMemory' }]);
    assert.match(envTs, /AGENT_MEMORY: DurableObjectNamespace<AgentMemory>/);
    assert.ok(
      c.migrations.some((/** @type {any} */ m) => m.new_sqlite_classes?.includes('AgentMemory')),
      'no migration creates the SQLite-backed AgentMemory class',
    );
    for (const secret of ['ADMIN_TOKEN', 'TOKEN_SECRET']) {
      assert.match(envTs, new RegExp(`${secret}\\?: string`), `${secret} is no longer in src/env.ts`);
      assert.ok(!(secret in (c.vars ?? {})), `${secret} must be a secret (wrangler secret put), not a var`);
    }
    // What `npm start` and the tests run is what gets deployed.
    const local = readConfig(join(workers, 'wrangler.jsonc'));
    for (const k of ['main', 'compatibility_date', 'rules', 'durable_objects', 'migrations']) {
      assert.deepEqual(c[k], local[k], `${k} differs between wrangler.jsonc and wrangler.production.jsonc`);
    }
  });
});
