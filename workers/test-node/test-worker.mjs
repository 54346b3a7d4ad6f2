// @ts-check
/**
 * One Worker under Miniflare for a node:test file: bundled and started in `before`, disposed (with its temp
 * dir) in `after`. Returns a getter for the running server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

/**
 * @param {string} name  the temp dir's prefix
 * @param {Record<string, string>} bindings  ADMIN_TOKEN and the EDGEMEM_* defaults
 * @returns {() => { mf: import('miniflare').Miniflare, url: string }}
 */
export function testWorker(name, bindings) {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  /** @type {{ mf: import('miniflare').Miniflare, url: string } | undefined} */
  let server;
  before(async () => {
    bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
    server = await startWorker({ bundle: join(dir, 'bundle'), bindings });
  });
  after(async () => {
    await server?.mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!server) throw new Error('the Worker is not running');
    return server;
  };
}
