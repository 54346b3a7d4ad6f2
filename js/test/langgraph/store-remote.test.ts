/** The EdgememStore suite over the remote client `connect()`: the Worker under Miniflare, a new agent per store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createAgent, mintToken } from 'edgemem';
// @ts-expect-error: a JavaScript helper without types
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { storeSuite } from './store-suite.js';

const ADMIN = 'langgraph-store-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-store-remote-'));
let server: { mf: { dispose(): Promise<void> }; url: string } | undefined;
let n = 0;

beforeAll(async () => {
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
}, 120_000);
afterAll(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

storeSuite('remote, the Worker under Miniflare', async (dims) => {
  if (!server) throw new Error('the Worker is not running');
  const { url } = server;
  const agent = `langgraph-store-${process.pid}-${n++}`;
  // f32 and cosine, as a local store: scores then match InMemoryStore's to four places.
  await createAgent({ url, adminToken: ADMIN, agent, settings: { dims, scalar: 'f32', metric: 'cosine' } });
  const { token } = await mintToken({ url, adminToken: ADMIN, agent, scopes: ['read', 'write'] });
  return connect({ url, agent, token });
});
