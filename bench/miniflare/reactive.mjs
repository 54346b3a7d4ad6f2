#!/usr/bin/env node
/**
 * The reactive bench: push vs polling. The Worker runs under Miniflare (a workerd process) on a real port; a
 * subscriber process (reactive-subscriber.mjs) receives one agent's notify events both over the WebSocket feed
 * and by polling `GET /events` every `interval` ms (1 s), and a publisher process (reactive-publisher.mjs)
 * sends `perWindow` notifies at uniformly random offsets in each poll window. Latency of an event = its arrival
 * in the subscriber minus its publish stamp (both CLOCK_MONOTONIC, which all processes share); push and poll
 * are measured on the very same events. Reports p50/p95/p99 of both, poll/push ratios, the percentile curves,
 * and the events that never arrived.
 *
 *   node bench/miniflare/reactive.mjs [--windows 60] [--per-window 2] [--interval 1000] [--json]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createAgent, mintToken } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { curve, summarizeMs } from '../lib/stats.mjs';
import { flag as flagOf } from '../node/corpus.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const windows = Number(flag('--windows', '60'));
const perWindow = Number(flag('--per-window', '2'));
const interval = Number(flag('--interval', '1000'));
const asJson = args.includes('--json');
const log = (m) => console.error(`[reactive] ${m}`);
const here = (f) => fileURLToPath(new URL(f, import.meta.url));

/** Starts `node script args`; resolves each stdout line through `onLine`; `done` resolves with the last line. */
function child(script, argv, onLine = () => {}) {
  const p = spawn(process.execPath, [here(script), ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last;
  createInterface({ input: p.stdout }).on('line', (l) => {
    last = l;
    onLine(l);
  });
  const done = new Promise((resolve, reject) =>
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(last)) : reject(new Error(`${script} exited ${code}`)))),
  );
  return { p, done };
}

const ADMIN = 'bench-admin-token';
const AGENT = 'reactive-agent';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-reactive-'));
log('bundling the Worker…');
bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
const server = await startWorker({
  bundle: join(dir, 'bundle'),
  bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '384' },
  persist: join(dir, 'state'),
});
try {
  const { url } = server;
  await createAgent({ url, adminToken: ADMIN, agent: AGENT, settings: { dims: 384 } });
  const { token } = await mintToken({
    url,
    adminToken: ADMIN,
    agent: AGENT,
    scopes: ['read', 'write', 'subscribe'],
    ttlSeconds: 3600,
  });
  const n = windows * perWindow;
  let ready;
  const readyP = new Promise((resolve) => {
    ready = resolve;
  });
  const sub = child(
    './reactive-subscriber.mjs',
    [url, AGENT, token, String(n), String(interval), String((windows + 10) * interval)],
    (l) => {
      const m = JSON.parse(l);
      if (m.ready) ready(m);
    },
  );
  const { t0 } = await Promise.race([
    readyP,
    sub.done.then(() => {
      throw new Error('subscriber ended before it was ready');
    }),
  ]);
  log(
    `${n} events, ${perWindow} per ${interval} ms poll window at random offsets (≈ ${Math.round((windows * interval) / 1000)} s)…`,
  );
  const progress = setInterval(
    () =>
      log(
        `… ${Math.min(100, Math.round(((Number(process.hrtime.bigint()) / 1e6 - t0) / (windows * interval)) * 100))} %`,
      ),
    15_000,
  );
  const pub = await child('./reactive-publisher.mjs', [
    url,
    AGENT,
    token,
    String(t0),
    String(interval),
    String(windows),
    String(perWindow),
    '7',
  ]).done;
  const got = await sub.done;
  clearInterval(progress);

  const push = [];
  const poll = [];
  for (let i = 0; i < n; i++) {
    if (got.push[i] !== undefined) push.push(got.push[i] - pub.pub[i]);
    if (got.poll[i] !== undefined) poll.push(got.poll[i] - pub.pub[i]);
  }
  const p = summarizeMs(push);
  const q = summarizeMs(poll);
  const result = {
    events: n,
    interval_ms: interval,
    per_window: perWindow,
    push: { ...p, missing: n - push.length, curve: curve(push) },
    poll: { ...q, missing: n - poll.length, curve: curve(poll), polls: got.polls },
    ratio: p && q ? { p50: q.p50 / p.p50, p95: q.p95 / p.p95, p99: q.p99 / p.p99 } : null,
    publish_offset_ms: summarizeMs(pub.offset),
    notify_rtt: summarizeMs(pub.notify_rtt),
  };
  if (asJson) console.log(JSON.stringify(result));
  else {
    const f = (s) => `p50 ${s.p50.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms (n ${s.n})`;
    console.log(`push (WebSocket): ${f(p)}; missing ${result.push.missing}`);
    console.log(`poll (every ${interval} ms): ${f(q)}; missing ${result.poll.missing}`);
    console.log(`poll / push: p50 ×${result.ratio.p50.toFixed(0)}, p99 ×${result.ratio.p99.toFixed(0)}`);
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
