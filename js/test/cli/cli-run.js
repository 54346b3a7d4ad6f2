// @ts-check
/**
 * Runs the built command line (`dist/bin/edgemem.js`, the package's `bin`: the CLI with its dependencies bundled in) as a child process, for the CLI tests
 * here and the Worker's (workers/test-node/cli-remote.test.mjs): `cli` to completion, `startCli` for one that
 * keeps running (tail), with its output as it comes. The EDGEMEM_* variables of the test's own environment are
 * dropped so only what a test passes counts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/bin/edgemem.js', import.meta.url));

/** @typedef {{ env?: Record<string, string>, input?: string, cwd?: string }} RunOptions */
/** @typedef {{ status: number | null, stdout: string, stderr: string }} RunResult */

/** @param {Record<string, string> | undefined} extra */
function environment(extra) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('EDGEMEM_') && v !== undefined) env[k] = v;
  return { ...env, ...extra };
}

/**
 * Starts the CLI with `args`; `output()` is what it printed so far.
 * @param {string[]} args
 * @param {RunOptions} [o]
 */
export function startCli(args, o = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: o.cwd,
    env: environment(o.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  /** @type {Promise<RunResult>} */
  const done = new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
  child.stdin.end(o.input ?? '');
  return {
    child,
    done,
    output: () => ({ stdout, stderr }),
    /**
     * Waits until `stream` matches `pattern`.
     * @param {'stdout' | 'stderr'} stream
     * @param {RegExp} pattern
     */
    async waitFor(stream, pattern, ms = 10_000) {
      const end = Date.now() + ms;
      while (!pattern.test(stream === 'stdout' ? stdout : stderr)) {
        if (Date.now() > end)
          assert.fail(`timed out waiting for ${pattern} on ${stream}; stdout: ${stdout}\nstderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/**
 * Runs the CLI with `args` to completion (30 s at most).
 * @param {string[]} args
 * @param {RunOptions} [o]
 * @returns {Promise<RunResult>}
 */
export async function cli(args, o = {}) {
  const run = startCli(args, o);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  try {
    return await run.done;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the CLI with `args` and `--json`, expecting success; returns its parsed stdout.
 * @param {string[]} args
 * @param {RunOptions} [o]
 * @returns {Promise<any>}
 */
export async function cliJson(args, o = {}) {
  const r = await cli([...args, '--json'], o);
  assert.equal(r.status, 0, `edgemem ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Runs the CLI expecting it to fail with engine code `code` (message `edgemem: CODE: …`) and exit status `status`.
 * @param {string[]} args
 * @param {string} code
 * @param {number} status
 * @param {RunOptions} [o]
 */
export async function cliFails(args, code, status, o = {}) {
  const r = await cli(args, o);
  assert.equal(
    r.status,
    status,
    `edgemem ${args.join(' ')}: expected exit ${status} (${code}), got ${r.status}: ${r.stderr}`,
  );
  assert.match(r.stderr, new RegExp(`^edgemem: ${code}: `, 'm'));
  return r;
}
