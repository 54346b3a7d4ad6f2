/**
 * The memory of the workerd process that Miniflare started from this Node process, read from Linux's /proc:
 * `workerdPid()` finds it among this process's descendants (by its command name), `rss(pid)` reads its resident
 * set (VmRSS) and peak (VmHWM) in bytes, and `rssSampler(pid)` keeps the peak seen while a suite runs.
 * Used by the scaling and size benches (bench/miniflare/scaling.mjs, size.mjs). Linux only; elsewhere the
 * figures are null.
 */
import { readdirSync, readFileSync } from 'node:fs';

function children(pid) {
  const out = [];
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      out.push(...readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** The pid of the (first) workerd process under `root` (default: this process), or null. */
export function workerdPid(root = process.pid) {
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift();
    for (const c of children(pid)) {
      try {
        if (readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'workerd') return c;
      } catch {
        /* gone */
      }
      queue.push(c);
    }
  }
  return null;
}

/** `{ rss, hwm }` of `pid` in bytes (resident now, and its peak), or nulls when it cannot be read. */
export function rss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: null, hwm: null };
  }
}

/** Samples `pid`'s RSS every `ms` until `stop()`, which returns the peak seen (bytes; null if never read). */
export function rssSampler(pid, ms = 200) {
  let peak = null;
  const sample = () => {
    const r = rss(pid).rss;
    if (r !== null && (peak === null || r > peak)) peak = r;
  };
  sample();
  const timer = setInterval(sample, ms);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
