// @ts-check
/**
 * The Worker as a real server for Node tests and benchmarks: `bundleWorker` bundles it with `wrangler deploy
 * --dry-run` (offline, the `workerd` entry of edgemem, the .wasm as a module) and `startWorker` serves that
 * bundle from Miniflare on a free port (cf: false; Durable Objects persisted under `persist` when given).
 * Used by the Worker's Node tests (test-node/) and, as `edgemem-worker/harness/miniflare`, by the other packages'
 * tests, the docs tools and the bench.
 */
import { ChildProcess, spawnSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
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

/** workerd processes already claimed by a `runtimeWatch`. @type {WeakSet<ChildProcess>} */
const claimed = new WeakSet();

/**
 * @typedef {object} RuntimeReport What a workerd process did, for a failure report.
 * @property {number | null} pid
 * @property {boolean | null} alive false once it exited (or is a zombie); null when its pid is unknown
 * @property {{ code: number | null, signal: string | null, at: string } | null} exit
 * @property {number | null} rss_bytes its resident memory now (Linux /proc), null elsewhere or once it is gone
 * @property {number | null} peak_rss_bytes its peak resident memory (VmHWM)
 * @property {string[]} stderr_tail its last lines on stderr
 * @property {string[]} stdout_tail its last lines on stdout
 */

/** `VmRSS` and `VmHWM` of `pid` in bytes (Linux), nulls elsewhere or once it is gone. @param {number | null} pid */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (/** @type {string} */ key) => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM'), zombie: /^State:\s+Z/m.test(status) };
  } catch {
    return null;
  }
}

/** Whether a process `pid` exists (a zombie does too: `memoryOf` tells). @param {number} pid */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Watches the workerd process a Miniflare instance runs, so that a failed request can say whether workerd was still
 * alive, how it ended and what it printed: pass `options` to `new Miniflare` and call `report()` when something
 * fails (after `settle()`, which lets its exit and last output arrive). Its stdout and stderr are still passed
 * through to this process's, as Miniflare does by default, and their last `lines` lines kept.
 * @param {number} [lines]
 */
export function runtimeWatch(lines = 50) {
  /** @type {ChildProcess | null} */
  let child = null;
  /** @type {RuntimeReport['exit']} */
  let exit = null;
  /** @type {string[]} */
  const stdoutTail = [];
  /** @type {string[]} */
  const stderrTail = [];
  const keep = (/** @type {string[]} */ tail, /** @type {string} */ line) => {
    tail.push(line);
    if (tail.length > lines) tail.shift();
  };
  /**
   * Miniflare calls this right after spawning workerd, in the same tick: the newest workerd child process not
   * claimed yet is this instance's (found among the active handles; Miniflare does not expose it).
   * @param {import('node:stream').Readable} stdout
   * @param {import('node:stream').Readable} stderr
   */
  const handleRuntimeStdio = (stdout, stderr) => {
    const handles = /** @type {{ _getActiveHandles?: () => unknown[] }} */ (process)._getActiveHandles?.() ?? [];
    const mine = handles.filter(
      (h) => h instanceof ChildProcess && /workerd/.test(h.spawnfile ?? '') && !claimed.has(h),
    );
    child = /** @type {ChildProcess | undefined} */ (mine.at(-1)) ?? null;
    exit = null;
    if (child) {
      claimed.add(child);
      child.once('exit', (code, signal) => {
        exit = { code, signal, at: new Date().toISOString() };
      });
    }
    createInterface({ input: stdout }).on('line', (l) => {
      keep(stdoutTail, l);
      console.log(l);
    });
    createInterface({ input: stderr }).on('line', (l) => {
      keep(stderrTail, l);
      console.error(l);
    });
  };
  return {
    options: { handleRuntimeStdio },
    /** The workerd process's pid, null when it could not be found. */
    get pid() {
      return child?.pid ?? null;
    },
    /** Waits `ms` (default 500) for a dying process's exit and last lines to arrive. */
    settle: (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms)),
    /** @returns {RuntimeReport} */
    report() {
      const pid = child?.pid ?? null;
      const mem = pid === null ? null : memoryOf(pid);
      return {
        pid,
        alive: pid === null ? null : exit === null && !mem?.zombie && running(pid),
        exit,
        rss_bytes: mem?.rss ?? null,
        peak_rss_bytes: mem?.peak ?? null,
        stderr_tail: [...stderrTail],
        stdout_tail: [...stdoutTail],
      };
    },
  };
}

/**
 * Serves the bundle in `bundle` from Miniflare. `port` 0 (default) picks a free one; read the URL from `ready`.
 * `runtime` watches the workerd process (`runtimeWatch`): its pid, and `report()` when something fails.
 * @param {{ bundle: string, bindings: Record<string, string>, persist?: string, port?: number }} o
 */
export async function startWorker(o) {
  const runtime = runtimeWatch();
  const mf = new Miniflare({
    ...runtime.options,
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
  return { mf, url: url.origin, runtime };
}
