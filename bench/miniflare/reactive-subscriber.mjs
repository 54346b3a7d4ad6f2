#!/usr/bin/env node
/**
 * The subscriber process of the reactive bench (bench/miniflare/reactive.mjs starts it): one agent's notify
 * events received two ways at once — pushed over the WebSocket feed (the package's `connect().subscribe`), and
 * polled with `GET /v1/agents/{agent}/events?after=…` on a fixed 1 s schedule (poll k is sent at t0 + k·interval,
 * whatever the previous poll took). Every arrival is stamped with `process.hrtime` (CLOCK_MONOTONIC, one clock
 * for every process on the machine), so the coordinator can subtract the publisher's stamps.
 *
 * stdout: a line `{"ready":true,"t0":ms,"interval":ms}` once subscribed and polling, then, when all `n` events
 * arrived both ways (or at the deadline), one line `{"push":{i:ms},"poll":{i:ms},"polls":count}`.
 *
 *   node reactive-subscriber.mjs URL AGENT TOKEN N INTERVAL_MS DEADLINE_MS
 */
import { connect } from 'edgemem';

const [url, agent, token, nArg, intervalArg, deadlineArg] = process.argv.slice(2);
const n = Number(nArg);
const interval = Number(intervalArg);
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

const push = {};
const poll = {};
let pushed = 0;
let polled = 0;
const store = await connect({ url, agent, token });
const sub = await store.subscribe({ kinds: ['notify'], channels: ['reactive'] }, (e) => {
  const t = nowMs();
  const i = e.payload?.i;
  if (typeof i === 'number' && push[i] === undefined) {
    push[i] = t;
    pushed++;
  }
});

const events = `${url}/v1/agents/${encodeURIComponent(agent)}/events`;
const headers = { authorization: `Bearer ${token}` };
async function pollOnce(after) {
  const res = await fetch(`${events}?after=${after}&kind=notify&channel=reactive&limit=1000`, { headers });
  if (!res.ok) throw new Error(`poll: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

let after = (await pollOnce(0)).last; // start at the head
const t0 = Math.ceil(nowMs()) + interval;
const deadline = t0 + Number(deadlineArg);
let polls = 0;
let finished = false;

function finish() {
  if (finished) return;
  finished = true;
  process.stdout.write(`${JSON.stringify({ push, poll, polls })}\n`);
  sub
    .unsubscribe()
    .catch(() => {})
    .finally(() =>
      store
        .close()
        .catch(() => {})
        .finally(() => process.exit(0)),
    );
}

async function pollLoop(k) {
  if (finished) return;
  if (nowMs() > deadline || (pushed >= n && polled >= n)) return finish();
  const page = await pollOnce(after);
  const t = nowMs();
  polls++;
  for (const e of page.events) {
    const i = e.payload?.i;
    if (typeof i === 'number' && poll[i] === undefined) {
      poll[i] = t;
      polled++;
    }
  }
  after = page.last;
  schedule(k + 1);
}

/** Poll k at t0 + k·interval: a fixed schedule, as a client's setInterval. */
function schedule(k) {
  let next = k;
  while (t0 + next * interval < nowMs()) next++; // a poll slower than the interval skips the missed slots
  setTimeout(
    () =>
      pollLoop(next).catch((e) => {
        console.error(e);
        finish();
      }),
    Math.max(0, t0 + next * interval - nowMs()),
  );
}

process.stdout.write(`${JSON.stringify({ ready: true, t0, interval })}\n`);
schedule(0);
