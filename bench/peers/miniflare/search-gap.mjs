#!/usr/bin/env node
/**
 * What a pause before a request costs edgemem's SEARCH in the Worker under Miniflare: one agent loaded with the
 * latency corpus (`POST /import`, then `maintain()`), then hybrid searches (paired.mjs's: a LoCoMo question's text
 * and vector, k 10, through `connect()`) in three modes taken in turn, request by request — right after the previous
 * search, after the client sleeps `--gap` ms, after it spins the CPU for `--gap` ms — the first `--warm` rounds
 * discarded. Prints each mode's p50 / p99 and the workerd process's CPU per search (all its threads, /proc schedstat,
 * read just before and after each search: `back_to_back`'s also holds what trails the search before it, which the
 * other modes' pauses take). `paired.mjs` alternates which side goes first, so half of edgemem's searches there follow
 * the plain Durable Object's (~6 ms at 10k); the latency suite's separate runs put only a trivial fetch between two.
 *
 *   node bench/peers/miniflare/search-gap.mjs [--data DIR] [--n 10000] [--iters 600] [--warm 300] [--gap 6] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { flag as flagOf, generators, loadCorpus, summarize } from '../../node/corpus.mjs';
import { corpusMemory, loadedWorker } from './bulk-load.mjs';
import { cpuExactMs } from './workerd-cpu.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '600'));
const warm = Number(flag('--warm', '300'));
const gap = Number(flag('--gap', '6'));
const asJson = args.includes('--json');
const log = (...m) => console.error(...m);

const dir = mkdtempSync(join(tmpdir(), 'search-gap-'));
const { texts, questions, questionVecs, vecs } = loadCorpus(data, n);
const { r, nsOf, value1k } = generators(1);
const memory = corpusMemory({ texts, vecs, nsOf, value1k });

const { server, store, pid } = await loadedWorker({ dir, n, memory, log });
try {
  /** What the client does before each mode's search. */
  const before = {
    back_to_back: async () => {},
    after_sleep: () => new Promise((resolve) => setTimeout(resolve, gap)),
    after_spin: async () => {
      const t = performance.now();
      while (performance.now() - t < gap) {
        // the client's own CPU work, as a peer's request in between would be
      }
    },
  };
  const samples = Object.fromEntries(Object.keys(before).map((m) => [m, []]));
  const cpu = Object.fromEntries(Object.keys(before).map((m) => [m, 0]));
  log(`${warm} rounds to warm up, then ${iters} of each mode…`);
  for (let it = 0; it < warm + iters; it++) {
    for (const [mode, wait] of Object.entries(before)) {
      await wait();
      const q = r.below(questions.length);
      const c0 = cpuExactMs(pid);
      const t = performance.now();
      const hits = await store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
      if (it >= warm) {
        samples[mode].push(performance.now() - t);
        cpu[mode] += cpuExactMs(pid) - c0;
      }
      if (hits.length !== 10) throw new Error(`search returned ${hits.length} hits`);
    }
  }
  await store.close();
  const modes = Object.fromEntries(
    Object.keys(before).map((m) => [m, { ...summarize(samples[m]), cpu_ms: pid ? cpu[m] / iters : null }]),
  );
  if (asJson) {
    console.log(JSON.stringify({ host: 'miniflare', memories: n, iters, warm, gap_ms: gap, modes }));
  } else {
    console.log(`edgemem hybrid SEARCH at ${n} memories, ${iters} of each mode after ${warm} rounds, gap ${gap} ms`);
    for (const [m, v] of Object.entries(modes)) {
      const ms = (us) => (us / 1000).toFixed(2).padStart(6);
      console.log(
        `${m.padEnd(14)} p50 ${ms(v.p50_us)}  p99 ${ms(v.p99_us)} ms  workerd CPU ${v.cpu_ms?.toFixed(2)} ms`,
      );
    }
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
