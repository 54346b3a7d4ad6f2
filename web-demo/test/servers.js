// @ts-check
/**
 * The servers the demo's browser test runs against: the edgemem Worker under Miniflare (bundled by wrangler,
 * offline, its Durable Objects in a temporary folder, a test admin token) and the demo built by Vite and served
 * by `vite preview` on a free port, proxying /v1 (HTTP and WebSocket) to that Worker — what `npm start` does,
 * with the production build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { build, preview } from 'vite';

const DEMO = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_TOKEN = 'demo-test-admin-token';

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
  bundleWorker(bundle, join(dir, 'wrangler-config'));
  const worker = await startWorker({
    bundle,
    bindings: { ADMIN_TOKEN, EDGEMEM_DIMS: '4' },
    persist: join(dir, 'state'),
  });

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
