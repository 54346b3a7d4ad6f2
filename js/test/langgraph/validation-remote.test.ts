/**
 * LangGraph's checkpointer validation suite (1.1.x, unmodified) against EdgememSaver over the remote client
 * `connect()`: the Worker bundled by wrangler, served by Miniflare on a real port, a new agent per checkpointer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { connect, createAgent, mintToken } from 'edgemem';
import { EdgememSaver } from 'edgemem/langgraph';
// @ts-expect-error: a JavaScript helper without types
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';

const ADMIN = 'langgraph-validation-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-remote-'));
let server: { mf: { dispose(): Promise<void> }; url: string } | undefined;
let n = 0;

validate<EdgememSaver>({
  checkpointerName: 'EdgememSaver (remote, the Worker under Miniflare)',
  beforeAllTimeout: 120_000,
  async beforeAll() {
    bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
    server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
  },
  async afterAll() {
    await server?.mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  },
  async createCheckpointer() {
    if (!server) throw new Error('the Worker is not running');
    const { url } = server;
    const agent = `langgraph-${process.pid}-${n++}`;
    await createAgent({ url, adminToken: ADMIN, agent });
    const { token } = await mintToken({ url, adminToken: ADMIN, agent, scopes: ['read', 'write'] });
    return new EdgememSaver(await connect({ url, agent, token }));
  },
  destroyCheckpointer: (saver) => saver.store.close(),
});
