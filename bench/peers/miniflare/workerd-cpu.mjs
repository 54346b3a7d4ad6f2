// CPU time of the workerd processes Miniflare starts (Linux /proc): which ones run under this process, and the
// user + system time each has used — the side-by-side benches divide it by the requests served, which stays
// meaningful on a loaded machine where wall-clock latency does not. Elsewhere the figures are null.

import { readdirSync, readFileSync } from 'node:fs';

/** The pids of every workerd process under `root` (default: this process). */
export function workerdPids(root = process.pid) {
  const out = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift();
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      let kids = [];
      try {
        kids = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        /* the thread ended */
      }
      for (const c of kids) {
        try {
          if (readFileSync(`/proc/${c}/comm`, 'utf8').trim() === 'workerd') out.push(c);
        } catch {
          /* gone */
        }
        queue.push(c);
      }
    }
  }
  return out;
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** User + system CPU ms `pid` has used so far (all its threads), or null. */
export function cpuMs(pid) {
  if (pid == null) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS; // utime (14), stime (15)
  } catch {
    return null;
  }
}

/**
 * CPU ms `pid`'s threads have run so far, to the nanosecond (the first field of each /proc/<pid>/task/<tid>/schedstat:
 * `cpuMs` counts in 10 ms ticks, too coarse for one request), or null. A thread that ended takes its time with it.
 */
export function cpuExactMs(pid) {
  if (pid == null) return null;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* the thread ended */
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

/** Bytes `pid` has written through write/pwrite calls so far (/proc/<pid>/io `wchar`: the DO's WAL and database
 * writes, its logs), or null. */
export function writtenBytes(pid) {
  if (pid == null) return null;
  try {
    return Number(/^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  } catch {
    return null;
  }
}
