// @ts-check
/**
 * The Worker as a real server for Node tests and benchmarks: `bundleWorker` bundles it with `wrangler deploy
 * --dry-run` (offline, the `workerd` entry of edgemem, the .wasm as a module) and `startWorker` serves that
 * bundle from Miniflare on a free port (cf: false; Durable Objects persisted under `persist` when given).
 * Used by the Worker's Node tests (test-node/) and, as `edgemem-worker/harness/miniflare`, by the other packages'
 * tests, the docs tools and the bench.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const workers = fileURLToPath(new URL('..', import.meta.url));
const root = join(workers, '..');

/**
 * The environment that keeps wrangler offline, its config and logs under `configDir`.
 * @param {string} configDir
 */
export function offlineEnv(configDir) {
  return {
    ...process.env,
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    XDG_CONFIG_HOME: configDir,
  };
}

/**
 * Bundles the Worker into `outDir` (index.js + the .wasm). Throws with wrangler's output when it fails.
 * `main` bundles another entry module with the Worker's config (the bench's instrumented probes): wrangler
 * reads a copy of wrangler.jsonc naming it, and its output is renamed index.js, the file `startWorker` serves.
 * @param {string} outDir
 * @param {string} configDir
 * @param {{ main?: string }} [o]
 */
export function bundleWorker(outDir, configDir, o = {}) {
  let config = join(workers, 'wrangler.jsonc');
  if (o.main) {
    const text = readFileSync(config, 'utf8').replace(/"main":\s*"[^"]*"/, `"main": ${JSON.stringify(o.main)}`);
    config = join(workers, `.probe-wrangler-${process.pid}.jsonc`);
    writeFileSync(config, text);
  }
  try {
    const r = spawnSync(
      join(root, 'node_modules/.bin/wrangler'),
      ['deploy', '--dry-run', '--outdir', outDir, '--config', config],
      { cwd: workers, env: offlineEnv(configDir), encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`wrangler bundle failed:\n${r.stdout}\n${r.stderr}`);
    if (o.main)
      renameSync(join(outDir, `${basename(o.main).replace(/\.[cm]?[jt]s$/, '')}.js`), join(outDir, 'index.js'));
  } finally {
    if (o.main) rmSync(config, { force: true });
  }
}

/**
 * Serves the bundle in `bundle` from Miniflare. `port` 0 (default) picks a free one; read the URL from `ready`.
 * @param {{ bundle: string, bindings: Record<string, string>, persist?: string, port?: number }} o
 */
export async function startWorker(o) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(o.bundle, 'index.js'),
    modulesRoot: o.bundle,
    modulesRules: [
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
      // Swagger UI's files for /v1/docs, text modules in the bundle (wrangler.jsonc `rules`).
      { type: 'Text', include: ['**/*swagger-ui-bundle.js', '**/*swagger-ui.css'] },
    ],
    compatibilityDate: '2026-04-20',
    durableObjects: { AGENT_MEMORY: { className: 'AgentMemory', useSQLite: true } },
    bindings: o.bindings,
    ...(o.persist ? { defaultPersistRoot: o.persist, durableObjectsPersist: true } : {}),
    cf: false,
    port: o.port ?? 0,
  });
  const url = await mf.ready;
  return { mf, url: url.origin };
}
