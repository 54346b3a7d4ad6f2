/**
 * What a result was measured on and with: the machine (CPU model and count, memory, kernel, load before the
 * run) and the versions of everything in the measured path (Node, rustc, miniflare/workerd, wasmtime-py, the
 * edgemem package, the git commit and whether the tree had uncommitted changes). Read-only: runs
 * `rustc -V`, `git rev-parse`, `git status --porcelain` and reads package.json files.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
    wasmtime_py: cmd(
      join(root, '.state/wasmtime-py/bin/python'),
      ['-c', 'from importlib.metadata import version; print(version("wasmtime"))'],
      root,
    ),
    edgemem: pkgVersion(root, 'js/package.json'),
    git_commit: cmd('git', ['rev-parse', 'HEAD'], root),
    git_dirty: (cmd('git', ['status', '--porcelain', '--untracked-files=no'], root) ?? '') !== '',
  };
}

/**
 * Median ms of five runs of a fixed workload: SHA-256 over 8 MiB and 1M dependent random reads in a 64 MiB
 * array (latency-bound, like a B-tree or HNSW walk). Only comparable between runs on the same machine.
 */
export function speedProbe() {
  const bytes = new Uint8Array(8 << 20).fill(7);
  const table = new Uint32Array(16 << 20);
  for (let i = 0; i < table.length; i++) table[i] = (i * 2654435761) >>> 8;
  const times = [];
  for (let run = 0; run < 5; run++) {
    const t = performance.now();
    createHash('sha256').update(bytes).digest();
    let at = run;
    for (let i = 0; i < 1_000_000; i++) at = (table[at & (table.length - 1)] + i) >>> 0;
    if (at === -1) throw new Error('unreachable'); // keeps the loop's result alive
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[2] * 10) / 10;
}
