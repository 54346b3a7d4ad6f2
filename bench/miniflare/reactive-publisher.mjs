#!/usr/bin/env node
/**
 * The publisher process of the reactive bench (bench/miniflare/reactive.mjs starts it): in each of `windows`
 * poll windows of the subscriber (which start at t0 + k·interval; from the first whole one after start-up), `perWindow` notifies at uniformly
 * random offsets in the window, each over HTTP through the package's `connect().notify`, carrying its index.
 * Every publish is stamped with `process.hrtime` (CLOCK_MONOTONIC, shared with the subscriber's process) just
 * before the request goes out.
 *
 * stdout: one line `{"pub":[ms…],"offset":[ms…],"notify_rtt":[ms…]}` (publish stamp, offset in its poll window,
 * and the notify request's round trip, per event index).
 *
 *   node reactive-publisher.mjs URL AGENT TOKEN T0_MS INTERVAL_MS WINDOWS PER_WINDOW SEED
 */
import { connect } from 'edgemem';
import { rng } from '../node/corpus.mjs';

const [url, agent, token, t0Arg, intervalArg, windowsArg, perWindowArg, seed] = process.argv.slice(2);
const t0 = Number(t0Arg);
const interval = Number(intervalArg);
const windows = Number(windowsArg);
const perWindow = Number(perWindowArg);
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleepUntil = (t) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - nowMs())));
const r = rng(Number(seed));

const store = await connect({ url, agent, token });
await store.notify('warm-up', null); // the connection and the agent's Durable Object are warm before event 0
const pub = [];
const offset = [];
const rtt = [];
let i = 0;
// The first whole poll window after this process is ready (starting it took some of the subscriber's windows).
const k0 = Math.max(0, Math.ceil((nowMs() - t0) / interval)) + 1;
for (let w = k0; w < k0 + windows; w++) {
  const start = t0 + w * interval;
  const offsets = Array.from({ length: perWindow }, () => r.below(interval * 1000) / 1000).sort((a, b) => a - b);
  for (const off of offsets) {
    await sleepUntil(start + off);
    const t = nowMs();
    await store.notify('reactive', { i });
    rtt.push(nowMs() - t);
    pub.push(t);
    offset.push(t - start);
    i++;
  }
}
await store.close();
process.stdout.write(`${JSON.stringify({ pub, offset, notify_rtt: rtt })}\n`);
