// The edgemem Worker under Miniflare for the Python tests: bundles it (wrangler, offline), serves it on a free
// port, prints `{"url": ..., "admin": ...}` as one line, and stops when its stdin closes.
//   node tests/worker_server.mjs DIR
import { join } from 'node:path';
import { bundleWorker, startWorker } from '../../workers/harness/miniflare.mjs';

const dir = process.argv[2];
const admin = 'python-tests-admin';
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
const server = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: admin, EDGEMEM_DIMS: '3' } });
process.stdout.write(`${JSON.stringify({ url: server.url, admin })}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.mf.dispose();
  process.exit(0);
});
