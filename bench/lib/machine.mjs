/**
 * What a result was measured on and with: the machine (CPU model and count, memory, kernel, load before the
 * run) and the versions of everything in the measured path (Node, rustc, miniflare/workerd, wasmtime-py, the
 * edgemem package, the git commit and whether the tree had uncommitted changes). Read-only: runs
 * `rustc -V`, `git rev-parse`, `git status --porcelain` and reads package.json files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

function cmd(file, args, cwd) {
  try {
    return execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function pkgVersion(root, rel) {
  try {
    return JSON.parse(readFileSync(join(root, rel), 'utf8')).version;
  } catch {
    return null;
  }
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model ?? null,
    cpus: cpus.length,
    memory_bytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    hostname: os.hostname(),
    load_avg_before: os.loadavg(),
  };
}

export function versions(root) {
  return {
    node: process.version,
    rustc: cmd('rustc', ['-V'], root),
    miniflare: pkgVersion(root, 'node_modules/miniflare/package.json'),
    workerd: pkgVersion(root, 'node_modules/workerd/package.json'),
    wasmtime_py: cmd(join(root, '.state/wasmtime-py/bin/python'), ['-c', 'from importlib.metadata import version; print(version("wasmtime"))'], root),
    edgemem: pkgVersion(root, 'wasm/package.json'),
    git_commit: cmd('git', ['rev-parse', 'HEAD'], root),
    git_dirty: (cmd('git', ['status', '--porcelain', '--untracked-files=no'], root) ?? '') !== '',
  };
}
