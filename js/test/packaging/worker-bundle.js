// @ts-check
/**
 * A Worker consumer project as users deploy it: installed from the tarballs, bundled by `wrangler deploy
 * --dry-run --outdir out` (offline: no metrics, no update check, its config in the run's temp dir), and the
 * bundle served by Miniflare with each .wasm as a compiled module.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { installConsumer, repoRoot, run, workDir } from './consumer.js';

/**
 * Installs fixtures/`name` (with any `extra` tarballs) and bundles it with wrangler; returns the project's dir
 * and the bundle's folder.
 * @param {string} name
 * @param {string[]} [extra]
 */
export function bundleWorkerConsumer(name, extra = []) {
  const dir = installConsumer(name, extra);
  const env = {
    CI: 'true',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    XDG_CONFIG_HOME: join(workDir(), 'xdg-config'),
  };
  mkdirSync(env.XDG_CONFIG_HOME, { recursive: true });
  const wrangler = join(repoRoot, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', 'out'], { cwd: dir, env });
  return { dir, out: join(dir, 'out') };
}

/**
 * Serves the bundle in `out` (its index.js and .wasm modules) on a free port; dispose of it when done.
 * @param {string} out
 */
export function serveBundle(out) {
  return new Miniflare({
    scriptPath: join(out, 'index.js'),
    modules: true,
    modulesRoot: out,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2026-04-01',
    port: 0,
    cf: false,
  });
}
