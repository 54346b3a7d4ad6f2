// @ts-check
// The HTTP API under property-based fuzzing (fuzz-run.mjs), the short run of `npm test`: the bundled Worker
// under Miniflare on a real port, ≥ 2,000 requests generated from /v1/openapi.json; every answer must be a
// success or a coded JSON 4xx (never a 5xx, a hang or a dropped connection), and the fuzz agents must still
// answer correctly during and after the run; then 300 generated WebSocket messages (ws-fuzz.mjs) to the live feed.
// Fails listing each class of failure with the command that replays it:
//
//   FUZZ_SEED=<seed> node --test workers/test-node/robustness/fuzz-http.test.mjs                # the same run
//   FUZZ_SEED=<seed> FUZZ_PATH=<i> node --test workers/test-node/robustness/fuzz-http.test.mjs  # request i alone
//   FUZZ_SEED=<seed> FUZZ_WS_PATH=<i> node --test workers/test-node/robustness/fuzz-http.test.mjs  # ws message i
//   FUZZ_RUNS=20000 FUZZ_WS_RUNS=2000 ...                                                       # a longer run
//   FUZZ_TRACE=1 ...                                                    # every request and answer, statuses per route
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundleWorker, startWorker } from '../../harness/miniflare.mjs';
import { adminCall, formatReport, runFuzz } from './fuzz-run.mjs';
import { runWsFuzz } from './ws-fuzz.mjs';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-fuzz-'));
const bundle = join(dir, 'bundle');
const ADMIN = 'fuzz-admin-token';
const runs = Number(process.env.FUZZ_RUNS ?? 3000);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;
const wsPath = process.env.FUZZ_WS_PATH;
const wsRuns = Number(process.env.FUZZ_WS_RUNS ?? 300);
/** @type {Awaited<ReturnType<typeof startWorker>> | undefined} */
let server;

before(async () => {
  bundleWorker(bundle, join(dir, 'config'));
  server = await startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '4' } });
});
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('HTTP API fuzzing (fast-check, from the OpenAPI document)', () => {
  it(
    path === undefined && wsPath === undefined
      ? `answers ${runs} generated requests with a success or a coded 4xx, and the agents keep working`
      : `replays request ${path} of seed ${seed}`,
    async () => {
      assert.ok(server);
      if (wsPath !== undefined) return; // replaying a WebSocket message only
      const cmd = 'FUZZ_SEED=%s FUZZ_PATH=%p node --test workers/test-node/robustness/fuzz-http.test.mjs';
      if (path !== undefined) {
        assert.ok(seed !== undefined, 'FUZZ_PATH needs FUZZ_SEED');
        await runFuzz({ url: server.url, admin: ADMIN, runs: 1, replay: { seed, path }, replayCommand: cmd });
        return;
      }
      const report = await runFuzz({
        url: server.url,
        admin: ADMIN,
        runs,
        seed,
        replayCommand: cmd,
        trace: Boolean(process.env.FUZZ_TRACE),
        log: (m) => console.error(`[fuzz] ${m}`),
      });
      console.error(formatReport(report, Boolean(process.env.FUZZ_TRACE)));
      assert.ok(
        report.requests >= Math.min(runs, 2000) * 0.95,
        `only ${report.requests} of ${runs} requests were sent`,
      );
      assert.equal(
        report.failures.length,
        0,
        `${report.failures.length} failures (seed ${report.seed}):\n${formatReport(report)}`,
      );
    },
  );

  it(
    wsPath === undefined
      ? `answers ${wsRuns} generated WebSocket messages with protocol messages, and the feed keeps working`
      : `replays WebSocket message ${wsPath}`,
    async () => {
      assert.ok(server);
      if (path !== undefined) return; // replaying an HTTP request only
      const url = server.url;
      const call = adminCall(url, ADMIN);
      const put = async (/** @type {string} */ key) => {
        const r = await call('PUT', `/v1/agents/fz-a/memories/${key}?ns=n`, { value: key });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return /** @type {number} */ (r.body.seq);
      };
      await call('PUT', '/v1/agents/fz-a', {}); // the agent exists even when this test runs alone
      const wsSeed = seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
      const cmd = 'FUZZ_SEED=%s FUZZ_WS_PATH=%p node --test workers/test-node/robustness/fuzz-http.test.mjs';
      const r = await runWsFuzz({
        url,
        admin: ADMIN,
        agent: 'fz-a',
        runs: wsRuns,
        seed: wsSeed,
        path: wsPath,
        put,
        replayCommand: cmd,
      });
      const lines = r.failures
        .slice(0, 10)
        .map((f) => `- ${f.why}\n    message: ${f.message}\n    replay: ${f.replay}`);
      console.error(
        `[fuzz-ws] ${r.messages} messages, seed ${r.seed}, replies ${JSON.stringify(r.replies)}, ${r.failures.length} failures${lines.length ? `\n${lines.join('\n')}` : ''}`,
      );
      assert.equal(
        r.failures.length,
        0,
        `${r.failures.length} WebSocket failures (seed ${r.seed}):\n${lines.join('\n')}`,
      );
    },
  );
});
