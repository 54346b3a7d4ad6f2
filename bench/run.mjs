#!/usr/bin/env node
/**
 * The benchmark harness (`npm run bench`, through scripts/bench, which builds first): runs the selected suites'
 * jobs (bench/lib/jobs.mjs) one after another, each a process printing JSON, with their progress lines passed
 * through; assembles one results document (bench/lib/assemble.mjs, shape in docs/benchmarks/results.md) and writes
 * bench/results/<timestamp>.json, bench/results/latest.json, bench/results/latest.md and the charts
 * latency.svg, reactive.svg, scaling.svg, peers.svg beside it. A failed job is reported and its figures are null; the run
 * itself never fails for a slow or failing benchmark (exit 0), only for bad arguments.
 *
 *   node bench/run.mjs [--suite latency,reactive,...] [--quick] [--data DIR] [--out DIR]
 *   suites: latency reactive temporal caps scaling cold_start recall embed size langgraph robustness replica coherence (default: all)
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemble } from './lib/assemble.mjs';
import { jobs, SUITES } from './lib/jobs.mjs';
import { LOCOMO_DIR } from './lib/locomo.mjs';
import { machine, speedProbe, versions } from './lib/machine.mjs';
import { runJson } from './lib/proc.mjs';
import { latencyChart, reactiveChart, scalingChart } from './report/charts.mjs';
import { headline, markdown } from './report/markdown.mjs';
import { peersChart } from './report/peers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const quick = args.includes('--quick');
const suites = new Set(
  (flag('--suite', SUITES.join(',')) ?? '')
    .split(',')
    .map((s) => s.trim().replace('-', '_'))
    .filter(Boolean),
);
const unknown = [...suites].filter((s) => !SUITES.includes(s));
if (unknown.length || args.includes('--help')) {
  console.error(`usage: npm run bench -- [--suite ${SUITES.join(',')}] [--quick] [--data DIR] [--out DIR]`);
  if (unknown.length) console.error(`unknown suite(s): ${unknown.join(', ')}`);
  process.exit(2);
}
const data = flag('--data', LOCOMO_DIR);
const outDir = flag('--out', join(root, 'bench/results'));

const started = new Date();
const doc = {
  schema: 1,
  started_at: started.toISOString(),
  mode: quick ? 'quick' : 'full',
  suites: SUITES.filter((s) => suites.has(s)),
  machine: { ...machine(), speed_probe_ms_before: speedProbe() },
  versions: versions(root),
};
const todo = jobs({ data, root }).filter((j) => j.suites.some((s) => suites.has(s)));
const out = {};
const errors = [];
const durations = {};
const params = {};
console.error(`bench: ${doc.mode} run of ${doc.suites.join(', ')} — ${todo.length} jobs`);
for (const [k, job] of todo.entries()) {
  const [cmd, argv] = job.cmd(quick);
  params[job.id] = argv.filter((a) => !a.startsWith('/')).join(' ');
  const elapsed = ((Date.now() - started) / 1000).toFixed(0);
  console.error(`bench: [${k + 1}/${todo.length}] ${job.id} (${elapsed} s so far)`);
  const res = await runJson(job.id, cmd, argv, { cwd: root, env: job.env, timeoutS: quick ? 300 : 900 });
  durations[job.id] = res.seconds;
  if (res.ok) out[job.id] = res.json;
  else {
    // Why, for the next reader of the results: the job's own failure report (./lib/failure.mjs) and its stderr's tail.
    errors.push({ job: job.id, message: res.error, failure: res.failure ?? null, stderr_tail: res.stderr_tail ?? [] });
    console.error(`bench: ${job.id} FAILED (${res.error}); going on with the others`);
  }
}

doc.machine.speed_probe_ms_after = speedProbe();
const finished = new Date();
const results = {
  ...doc,
  finished_at: finished.toISOString(),
  duration_s: (finished - started) / 1000,
  params,
  durations_s: durations,
  errors,
  ...assemble(out, suites),
};
mkdirSync(outDir, { recursive: true });
const stamp = started.toISOString().replace(/[:.]/g, '-');
const json = `${JSON.stringify(results, null, 2)}\n`;
writeFileSync(join(outDir, `${stamp}.json`), json);
writeFileSync(join(outDir, 'latest.json'), json);
for (const [name, chart] of [
  ['latency.svg', latencyChart],
  ['reactive.svg', reactiveChart],
  ['scaling.svg', scalingChart],
  ['peers.svg', peersChart],
]) {
  const svg = chart(results);
  if (svg) writeFileSync(join(outDir, name), svg);
  else rmSync(join(outDir, name), { force: true }); // no stale chart from an earlier run beside this one
}
writeFileSync(join(outDir, 'latest.md'), markdown(results));

const rel = relative(process.cwd(), outDir) || '.';
console.log(headline(results));
console.log(
  `\nbench: ${doc.mode} run done in ${results.duration_s.toFixed(0)} s; ${rel}/latest.md, latest.json, ${stamp}.json${errors.length ? `; ${errors.length} job(s) failed: ${errors.map((e) => e.job).join(', ')}` : ''}`,
);
