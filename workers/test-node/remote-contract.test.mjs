// @ts-check
/**
 * The MemoryStore contract (js/test/contract-suite.js) against the remote client `connect()`: the Worker,
 * bundled by wrangler, served by Miniflare on a real port; each fresh store is a new agent created with the
 * test's settings (`createAgent`, admin token) and reached with a token scoped to that agent only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { connect, createAgent, mintToken } from 'edgemem';
import { contractSuite } from '../../js/test/contract/suite.js';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const ADMIN = 'remote-contract-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-remote-'));
/** @type {{ mf: import('miniflare').Miniflare, url: string } | undefined} */
let server;

before(async () => {
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  // Env defaults as a fresh local store has them (dims 0, engine retention); each agent sets its own.
  server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
});
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
contractSuite('remote, the Worker under Miniflare', async (settings = {}) => {
  if (!server) throw new Error('the Worker is not running');
  const { url } = server;
  const agent = `contract-${process.pid}-${n++}`;
  const { dims, metric, scalar, maxBytes, maxMemories, retention, maxMemoryBytes, maxCheckpointBytes } = settings;
  // scalar: f32 unless the test asks, as in a local store (the Worker's own default is i8 with cosine).
  await createAgent({
    url,
    adminToken: ADMIN,
    agent,
    settings: {
      dims,
      metric,
      scalar: scalar ?? 'f32',
      maxBytes,
      maxMemories,
      retention,
      maxMemoryBytes,
      maxCheckpointBytes,
    },
  });
  const { token } = await mintToken({ url, adminToken: ADMIN, agent, scopes: ['read', 'write', 'subscribe'] });
  return connect({ url, agent, token });
});
