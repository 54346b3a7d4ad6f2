#!/usr/bin/env node
/**
 * The scaling bench: many agents — one Durable Object each — stepping at once against one Worker under
 * Miniflare (one workerd process) over a real port. Levels of 1, 4, 16, 64, 256 agents; agent j holds `--memories`
 * memories of the latency corpus (bench/node/corpus.mjs) and has its own scoped token and remote client. A step is
 * what an agent does per turn, in order: GET a memory, hybrid SEARCH top-10, PUT a memory (1 KB value + 384-d
 * vector), CHECKPOINT PUT (1 KB JSON), NOTIFY. At each level every agent takes one warm-up step, then all of them
 * loop for `--seconds`; a step that throws counts as a failure (and the loop goes on; failed warm-up steps are
 * counted apart). Agents of a level stay for the next, which adds the new ones. Reports per level: steps/s, step
 * latency p50/p95/p99, failures, and the workerd process's RSS after the level and its peak during it
 * (bench/miniflare/workerd-rss.mjs). The load generator is this one Node process, on the same 2 cores as workerd.
 *
 *   node bench/miniflare/scaling.mjs [--data DIR] [--levels 1,4,16,64,256] [--seconds 8] [--memories 100] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect, createAgent, mintToken } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { LOCOMO_DIR } from '../lib/locomo.mjs';
import { summarizeMs } from '../lib/stats.mjs';
import { DIMS, flag as flagOf, generators, loadCorpus } from '../node/corpus.mjs';
import { rss, rssSampler, workerdPid } from './workerd-rss.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', LOCOMO_DIR);
const levels = flag('--levels', '1,4,16,64,256').split(',').map(Number);
const seconds = Number(flag('--seconds', '8'));
const memories = Number(flag('--memories', '100'));
const asJson = args.includes('--json');
const log = (m) => console.error(`[scaling] ${m}`);

const ADMIN = 'bench-admin-token';
const { texts, questions, questionVecs, vecs } = loadCorpus(data, memories * 4);
const { r, value1k, nsOf, checkpointPayload } = generators(5);
const cpPayload = checkpointPayload();

const dir = mkdtempSync(join(tmpdir(), 'edgemem-scaling-'));
log('bundling the Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
const server = await startWorker({
  bundle: join(dir, 'bundle'),
  bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: String(DIMS) },
  persist: join(dir, 'state'),
});
const pid = workerdPid();
const agents = [];

/** Agent j: created, given a token, loaded with `memories` memories (vectors vary per agent). */
async function addAgent(j) {
  const { url } = server;
  const agent = `scale-${j}`;
  await createAgent({ url, adminToken: ADMIN, agent, settings: { dims: DIMS } });
  const { token } = await mintToken({
    url,
    adminToken: ADMIN,
    agent,
    scopes: ['read', 'write', 'subscribe'],
    ttlSeconds: 3600,
  });
  const store = await connect({ url, agent, token });
  for (let start = 0; start < memories; start += 100) {
    const batch = [];
    for (let i = start; i < Math.min(memories, start + 100); i++) {
      batch.push({
        namespace: nsOf(i),
        key: `m${i}`,
        value: value1k(i),
        text: texts[(i + j * 7) % texts.length],
        embedding: vecs[(i + j) % vecs.length],
      });
    }
    await store.putBatch(batch);
  }
  return { store, j, steps: 0 };
}

/** One agent step: GET, SEARCH, PUT, CHECKPOINT PUT, NOTIFY. */
async function step(a) {
  const i = r.below(memories);
  if (!(await a.store.get(nsOf(i), `m${i}`))) throw new Error(`agent ${a.j}: GET m${i} found nothing`);
  const q = r.below(questions.length);
  await a.store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
  const k = r.below(memories);
  await a.store.put({
    namespace: nsOf(k),
    key: `m${k}`,
    value: value1k(k),
    text: texts[r.below(texts.length)],
    embedding: vecs[r.below(vecs.length)],
  });
  const s = a.steps++;
  await a.store.putCheckpoint({
    threadId: 'main',
    checkpointId: `cp-${String(s).padStart(8, '0')}`,
    parentId: s ? `cp-${String(s - 1).padStart(8, '0')}` : null,
    data: cpPayload,
    metadata: { step: s },
  });
  await a.store.notify('steps', { step: s });
}

const results = [];
let setupRetries = 0;
try {
  for (const level of levels) {
    log(`${level} agent(s): adding ${Math.max(0, level - agents.length)}…`);
    // Added in small parallel groups (what a burst of new agents looks like), not all at once.
    while (agents.length < level) {
      const group = [];
      for (let j = agents.length; j < Math.min(level, agents.length + 8); j++) {
        // One retry: a set-up request lost under load is reported (setup_retries), not fatal.
        group.push(
          addAgent(j).catch((e) => {
            setupRetries++;
            log(`agent ${j}: set-up failed (${e?.message}); retrying`);
            return addAgent(j);
          }),
        );
      }
      agents.push(...(await Promise.all(group)));
    }
    const active = agents.slice(0, level);
    let failures = 0;
    let warmupFailures = 0;
    const firstErrors = [];
    const failed = (e) => {
      if (firstErrors.length < 3) firstErrors.push(String(e?.cause?.cause?.message ?? e?.message ?? e).slice(0, 200));
    };
    // Warm-up: every DO instantiated and its store open. A failed step here is counted apart, not fatal.
    await Promise.all(
      active.map((a) =>
        step(a).catch((e) => {
          warmupFailures++;
          failed(e);
        }),
      ),
    );
    log(`${level} agent(s): stepping for ${seconds} s…`);
    const sampler = pid ? rssSampler(pid) : null;
    const lat = [];
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      active.map(async (a) => {
        while (performance.now() < end) {
          const t = performance.now();
          try {
            await step(a);
            lat.push(performance.now() - t);
          } catch (e) {
            failures++;
            failed(e);
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const peak = sampler ? sampler.stop() : null;
    const s = summarizeMs(lat);
    const row = {
      agents: level,
      steps: lat.length,
      seconds: elapsed,
      steps_per_s: lat.length / elapsed,
      p50: s?.p50 ?? null,
      p95: s?.p95 ?? null,
      p99: s?.p99 ?? null,
      max: s?.max ?? null,
      n: lat.length,
      failures,
      warmup_failures: warmupFailures,
      errors: firstErrors,
      workerd_rss_bytes: pid ? rss(pid).rss : null,
      workerd_peak_rss_bytes: peak,
    };
    results.push(row);
    log(
      `${level} agent(s): ${row.steps_per_s.toFixed(1)} steps/s, p99 ${row.p99?.toFixed(1)} ms, ${failures} failures (+${warmupFailures} in warm-up), workerd RSS ${(row.workerd_rss_bytes / 2 ** 20).toFixed(0)} MiB`,
    );
  }
} finally {
  await Promise.all(agents.map((a) => a.store.close().catch(() => {})));
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
const out = { memories_per_agent: memories, seconds_per_level: seconds, setup_retries: setupRetries, levels: results };
if (asJson) console.log(JSON.stringify(out));
else {
  console.log('agents  steps/s   p50 ms   p95 ms   p99 ms  failures  workerd RSS MiB');
  for (const x of results) {
    console.log(
      `${String(x.agents).padStart(6)} ${x.steps_per_s.toFixed(1).padStart(8)} ${x.p50.toFixed(1).padStart(8)} ${x.p95.toFixed(1).padStart(8)} ${x.p99.toFixed(1).padStart(8)} ${String(x.failures).padStart(9)} ${(x.workerd_rss_bytes / 2 ** 20).toFixed(0).padStart(16)}`,
    );
  }
}
