// @ts-check
/**
 * The servers the demo's browser test runs against: the edgemem Worker under Miniflare (bundled by wrangler,
 * offline, its Durable Objects in a temporary folder, a test admin token) and the demo built by Vite and served
 * by `vite preview` on a free port, proxying /v1 (HTTP and WebSocket) to that Worker — what `npm start` does,
 * with the production build.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { build, preview } from 'vite';

const DEMO = fileURLToPath(new URL('..', import.meta.url));
const WORKERS = join(DEMO, '../workers');
export const ADMIN_TOKEN = 'demo-test-admin-token';

/** Bundles the Worker into `outDir` with `wrangler deploy --dry-run`, offline (its config under `dir`). */
function bundleWorker(/** @type {string} */ outDir, /** @type {string} */ dir) {
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', XDG_CONFIG_HOME: join(dir, 'wrangler-config') };
  const r = spawnSync(join(DEMO, '../node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', outDir, '--config', join(WORKERS, 'wrangler.jsonc')], { cwd: WORKERS, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wrangler bundle failed:\n${r.stdout}\n${r.stderr}`);
}

/** Serves the bundle from Miniflare on a free port, Durable Objects persisted under `persist`. */
async function startWorker(/** @type {string} */ bundle, /** @type {string} */ persist) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(bundle, 'index.js'),
    modulesRoot: bundle,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-20',
    durableObjects: { AGENT_MEMORY: { className: 'AgentMemory', useSQLite: true } },
    bindings: { ADMIN_TOKEN, EDGEMEM_DIMS: '4' },
    defaultPersistRoot: persist,
    durableObjectsPersist: true,
    cf: false,
    port: 0,
  });
  return { mf, url: (await mf.ready).origin };
}

/** A port that was free a moment ago. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export async function startServers() {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-demo-test-'));
  const bundle = join(dir, 'bundle');
  bundleWorker(bundle, dir);
  const worker = await startWorker(bundle, join(dir, 'state'));

  // Read by vite.config.ts and server/dev-token.ts when Vite loads them.
  process.env.EDGEMEM_WORKER_URL = worker.url;
  process.env.EDGEMEM_ADMIN_TOKEN = ADMIN_TOKEN;
  await build({ root: DEMO, logLevel: 'warn' });
  const port = await freePort();
  const server = await preview({ root: DEMO, logLevel: 'warn', preview: { port, strictPort: true } });
  const url = `http://127.0.0.1:${port}/`;

  return {
    url,
    workerUrl: worker.url,
    async close() {
      await server.close();
      await worker.mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
