#!/usr/bin/env node
// @ts-check
/**
 * The long HTTP fuzz run of the bench suite `robustness`: the bundled Worker under one Miniflare on a real port,
 * `--requests` (default 100,000) requests generated from the OpenAPI document by the fuzzer of the short test
 * (workers/test-node/robustness/fuzz-run.mjs), then `--ws-messages` (default 5,000) WebSocket messages
 * (ws-fuzz.mjs), every failure collected with the command that replays it.
 *
 *   node bench/robustness/fuzz.mjs [--requests 100000] [--ws-messages 5000] [--seed N] [--json]
 *
 * Progress on stderr; with --json, `{ requests, fivexx, failures, classes, seed, seconds, statuses }` on stdout and
 * exit 0 (a benchmark reports, the short run in npm test is the test); without it, exit 1 on any failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCall, formatReport, runFuzz, runWsFuzz } from 'edgemem-worker/harness/fuzz';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name, /** @type {string | undefined} */ dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const runs = Number(flag('--requests', '100000'));
const wsRuns = Number(flag('--ws-messages', '5000'));
const seedArg = flag('--seed', undefined);
const asJson = args.includes('--json');
const log = (/** @type {string} */ m) => console.error(`[fuzz] ${m}`);
const ADMIN = 'bench-fuzz-admin-token';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-bench-fuzz-'));
let code = 0;
try {
  bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
  const server = await startWorker({
    bundle: join(dir, 'bundle'),
    bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4' },
  });
  try {
    const r = await runFuzz({
      url: server.url,
      admin: ADMIN,
      runs,
      seed: seedArg === undefined ? undefined : Number(seedArg),
      livenessEvery: 1000,
      replayCommand: 'FUZZ_SEED=%s FUZZ_PATH=%p node --test workers/test-node/robustness/fuzz-http.test.mjs',
      log,
    });
    log(formatReport(r));
    const call = adminCall(server.url, ADMIN);
    const put = async (/** @type {string} */ key) =>
      (await call('PUT', `/v1/agents/fz-a/memories/${key}?ns=n`, { value: key })).body.seq;
    const w = await runWsFuzz({
      url: server.url,
      admin: ADMIN,
      agent: 'fz-a',
      runs: wsRuns,
      seed: r.seed,
      put,
      replayCommand: 'FUZZ_SEED=%s FUZZ_WS_PATH=%p node --test workers/test-node/robustness/fuzz-http.test.mjs',
    });
    log(`WebSocket: ${w.messages} messages, replies ${JSON.stringify(w.replies)}, ${w.failures.length} failures`);
    for (const f of w.failures.slice(0, 10)) log(`- ${f.why}; message ${f.message}; replay: ${f.replay}`);
    if (r.failures.length || w.failures.length) code = 1;
    if (asJson) {
      const classes = r.classes.map((c) => ({
        what: c.key,
        count: c.count,
        request: c.first.request.slice(0, 500),
        answer: c.first.answer.slice(0, 300),
        replay: c.first.replay,
      }));
      const ws = {
        messages: w.messages,
        failures: w.failures.length,
        first: w.failures.slice(0, 10),
        replies: w.replies,
      };
      console.log(
        JSON.stringify({
          requests: r.requests,
          fivexx: r.fivexx,
          failures: r.failures.length,
          classes,
          seed: r.seed,
          seconds: r.ms / 1000,
          statuses: r.statuses,
          ws,
        }),
      );
    }
  } finally {
    await server.mf.dispose();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(asJson ? 0 : code);
