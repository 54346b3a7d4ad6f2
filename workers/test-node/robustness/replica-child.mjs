// @ts-check
/**
 * One writer of the replica fuzz (replica-fuzz.mjs), as its own process so it can be SIGKILLed at any point: opens a
 * file replica of an agent, then makes `ops` seeded random writes — puts and deletes of shared keys, CAS puts of
 * its own keys, checkpoints and their pending writes — printing one JSON line per acknowledged write, and starts
 * syncs along the way without waiting for them (so a kill lands mid-push or mid-pull as often as between). Its
 * network is cut and restored at random (a fetch that fails while down). With `--settle` it only syncs until
 * nothing is pending and prints `{"settled":true}`.
 *
 *   node replica-child.mjs URL AGENT TOKEN FILE NAME SEED OPS [--settle]
 */
import { openStore } from 'edgemem';

const [url, agent, token, file, name, seedText, opsText] = process.argv.slice(2);
const settle = process.argv.includes('--settle');
let seed = Number(seedText) >>> 0 || 1;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const pick = (/** @type {number} */ n) => Math.floor(rand() * n);

let down = false;
/** @type {typeof fetch} */
const cuttable = (input, init) => (down ? Promise.reject(new TypeError('network cut')) : fetch(input, init));

const out = (/** @type {object} */ line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const r = await openStore({
  storage: { file: String(file) },
  replicaOf: {
    url: String(url),
    agent: String(agent),
    token: String(token),
    live: false,
    pollMs: 3_600_000,
    fetch: cuttable,
  },
});

if (settle) {
  for (let i = 0; ; i++) {
    try {
      await r.sync();
      if (r.status().pending === 0) break;
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  out({ settled: true, pending: r.status().pending });
  await r.close();
  process.exit(0);
}

const ops = Number(opsText);
for (let i = 0; i < ops; i++) {
  const value = `${name}:${seedText}:${i}`;
  const roll = pick(100);
  if (roll < 45) {
    const key = `k${pick(6)}`;
    const ack = await r.put({ namespace: ['shared'], key, value, text: `shared note ${value}` });
    out({ kind: 'put', ns: ['shared'], key, value, version: ack.version });
  } else if (roll < 55) {
    const key = `k${pick(6)}`;
    try {
      await r.delete(['shared'], key);
      out({ kind: 'delete', ns: ['shared'], key });
    } catch (e) {
      if (/** @type {{ code?: string }} */ (e).code !== 'NOT_FOUND') throw e;
    }
  } else if (roll < 75) {
    // Its own keys: nobody else writes them, so a CAS write made here never loses at the agent.
    const key = `own${pick(3)}`;
    const live = await r.get([name], key);
    const ack = await r.put({ namespace: [name], key, value, ifVersion: live?.version ?? 0 });
    out({ kind: 'put', ns: [name], key, value, version: ack.version });
  } else if (roll < 85) {
    const thread = `${name}-t${pick(2)}`;
    await r.putCheckpoint({ threadId: thread, checkpointId: `c${String(i).padStart(6, '0')}`, data: { value } });
    out({ kind: 'checkpoint', thread, checkpointId: `c${String(i).padStart(6, '0')}` });
  } else if (roll < 92) {
    down = !down;
  } else {
    void r.sync().catch(() => undefined);
  }
  if (pick(4) === 0) await new Promise((res) => setTimeout(res, pick(5)));
}
down = false;
await r.sync().catch(() => undefined);
out({ done: true });
await r.close();
