// @ts-check
/**
 * Throwaway consumer projects for the packaging tests: a fixture copied into the run's temp dir with the
 * packed tarball installed from disk (dependencies from npm's cache first). scripts/test-packaging packs the
 * packages and sets EDGEMEM_TARBALL, EDGEMEM_E5_TARBALL and EDGEMEM_PACKAGING_DIR.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root (its node_modules holds typescript, wrangler and miniflare). */
export const repoRoot = join(here, '..', '..', '..');

/** @param {string} name */
function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the packaging tests with scripts/test-packaging`);
  return v;
}

/** The packed `edgemem-<version>.tgz`. */
export const tarball = () => env('EDGEMEM_TARBALL');
/** The packed `edgemem-e5-<version>.tgz`. */
export const e5Tarball = () => env('EDGEMEM_E5_TARBALL');
/** This run's temp dir (removed by scripts/test-packaging). */
export const workDir = () => env('EDGEMEM_PACKAGING_DIR');

/**
 * Runs a command to completion; a failure throws with its output.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd: string; env?: Record<string, string>; timeoutMs?: number }} opts
 */
export function run(cmd, args, opts) {
  try {
    return execFileSync(cmd, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 60_000,
    });
  } catch (e) {
    const err = /** @type {{ stdout?: string; stderr?: string; message: string }} */ (e);
    throw new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

/**
 * Copies fixtures/`name` into the temp dir and installs the tarball (and any `extra` tarballs) there; returns
 * the project's dir.
 * @param {string} name
 * @param {string[]} [extra]
 */
export function installConsumer(name, extra = []) {
  const dir = join(workDir(), name);
  if (existsSync(dir)) throw new Error(`${dir} exists: one consumer per fixture and run`);
  cpSync(join(here, 'fixtures', name), dir, { recursive: true });
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      tarball(),
      ...extra,
    ],
    {
      cwd: dir,
    },
  );
  return dir;
}
