// @ts-check
/**
 * The replica convergence fuzz: an agent on a running Worker, writer processes each keeping a file replica
 * (replica-child.mjs: seeded random puts, deletes, CAS puts, checkpoints, network cuts) SIGKILLed at random points
 * round after round, and an in-process memory replica writing alongside with its own network cuts. Then everyone
 * settles, and the run checks that every replica's live memories and checkpoints equal the agent's, and that every
 * acknowledged put is live or a version in its key's history at the agent (nothing lost). `npm test` runs it short
 * (replica-fuzz.test.mjs); the bench's robustness suite runs it long (bench/robustness/replica.mjs).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, createAgent, mintToken, openStore } from 'edgemem';

const CHILD = fileURLToPath(new URL('./replica-child.mjs', import.meta.url));

/**
 * @typedef {object} ReplicaFuzzReport
 * @property {number} kills  writer processes SIGKILLed before they finished
 * @property {number} rounds  writer processes started (killed or not)
 * @property {number} acked  acknowledged puts checked at the agent
 * @property {string[]} lost  acknowledged puts found neither live nor in history
 * @property {string[]} diverged  replicas whose live memories or checkpoints differ from the agent's
 * @property {number} seconds
 */

/**
 * @param {{ url: string, adminToken: string, dir: string, seed: number, writers: number, rounds: number,
 *   ops: number, killAfterMs: [number, number], log?: (line: string) => void }} o
 * @returns {Promise<ReplicaFuzzReport>}
 */
export async function runReplicaFuzz(o) {
  const started = Date.now();
  let seed = o.seed >>> 0 || 1;
  const rand = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const agent = `fuzz-${o.seed}-${process.pid}`;
  // Everything kept: an acknowledged put must be findable in history however many versions came after it.
  const retention = { historyVersions: 0, historyMaxAgeMs: 0, checkpointsPerThread: 0, checkpointsMaxBytes: 0 };
  await createAgent({ url: o.url, adminToken: o.adminToken, agent, settings: { dims: 0, retention } });
  const { token } = await mintToken({
    url: o.url,
    adminToken: o.adminToken,
    agent,
    scopes: ['read', 'write', 'subscribe'],
    ttlSeconds: 3600,
  });
  const remote = await connect({ url: o.url, agent, token });

  /** @type {{ ns: string[], key: string, value: string }[]} */
  const acked = [];
  /** @type {{ thread: string, checkpointId: string }[]} */
  const ackedCheckpoints = [];
  let kills = 0;
  let rounds = 0;

  // The in-process replica: writes alongside, with its own network cuts.
  let down = false;
  /** @type {typeof fetch} */
  const cuttable = (input, init) => (down ? Promise.reject(new TypeError('network cut')) : fetch(input, init));
  const mem = await openStore({
    storage: 'memory',
    replicaOf: { url: o.url, agent, token, live: true, fetch: cuttable },
  });
  let memWrites = 0;
  let stopMem = false;
  const memLoop = (async () => {
    while (!stopMem) {
      const key = `k${Math.floor(rand() * 6)}`;
      const value = `mem:${o.seed}:${memWrites++}`;
      await mem.put({ namespace: ['shared'], key, value, text: `shared note ${value}` });
      acked.push({ ns: ['shared'], key, value });
      if (rand() < 0.1) down = !down;
      await new Promise((res) => setTimeout(res, 5 + rand() * 20));
    }
    down = false;
  })();

  /** Runs one writer process; kills it `killMs` after its first output (not its start: that is Node's and the wasm's start-up) unless it ends first. */
  const runChild = (/** @type {string[]} */ args, /** @type {number | null} */ killMs) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      let killed = false;
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      child.stdout.on('data', (d) => {
        out += d;
        if (killMs !== null && timer === undefined)
          timer = setTimeout(() => {
            killed = true;
            child.kill('SIGKILL');
          }, killMs);
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        const lines = out.split('\n').filter(Boolean);
        const parsed = [];
        for (const [i, l] of lines.entries()) {
          try {
            parsed.push(JSON.parse(l));
          } catch (e) {
            // A line cut by the kill (the last one) was never acknowledged to anyone.
            if (!(killed && i === lines.length - 1)) return reject(e);
          }
        }
        if (!killed && code !== 0) return reject(new Error(`writer failed (${code ?? signal}):\n${err.slice(-2000)}`));
        resolve({ lines: parsed, killed: killed && signal === 'SIGKILL' });
      });
    });

  for (let round = 0; round < o.rounds; round++) {
    await Promise.all(
      Array.from({ length: o.writers }, async (_, w) => {
        const name = `w${w}`;
        const file = join(o.dir, `${agent}-${name}.db`);
        const [lo, hi] = o.killAfterMs;
        const killMs = lo + Math.floor(rand() * (hi - lo));
        const args = [o.url, agent, token, file, name, String(o.seed * 1000 + round * 10 + w), String(o.ops)];
        const r = /** @type {{ lines: any[], killed: boolean }} */ (await runChild(args, killMs));
        rounds += 1;
        if (r.killed) kills += 1;
        for (const l of r.lines) {
          if (l.kind === 'put') acked.push({ ns: l.ns, key: l.key, value: l.value });
          if (l.kind === 'checkpoint') ackedCheckpoints.push({ thread: l.thread, checkpointId: l.checkpointId });
        }
      }),
    );
    o.log?.(`replica fuzz: round ${round + 1}/${o.rounds}, ${kills} kills, ${acked.length} acknowledged puts`);
  }
  stopMem = true;
  await memLoop;

  // Settle: every writer pushes what it queued; then everyone pulls.
  for (let w = 0; w < o.writers; w++) {
    const file = join(o.dir, `${agent}-w${w}.db`);
    await runChild([o.url, agent, token, file, `w${w}`, '0', '0', '--settle'], null);
  }
  for (let i = 0; i < 3; i++) await mem.sync();

  const agentRows = await liveRows(remote);
  const agentCheckpoints = await checkpointIds(remote);
  /** @type {string[]} */
  const diverged = [];
  const compare = async (/** @type {string} */ name, /** @type {import('edgemem').MemoryStore} */ s) => {
    if (JSON.stringify(await liveRows(s)) !== JSON.stringify(agentRows)) diverged.push(`${name}: memories`);
    if (JSON.stringify(await checkpointIds(s)) !== JSON.stringify(agentCheckpoints))
      diverged.push(`${name}: checkpoints`);
  };
  await compare('memory replica', mem);
  await mem.close();
  for (let w = 0; w < o.writers; w++) {
    const r = await openStore({
      storage: { file: join(o.dir, `${agent}-w${w}.db`) },
      replicaOf: { url: o.url, agent, token, live: false },
    });
    await r.sync();
    await compare(`file replica w${w}`, r);
    await r.close();
  }

  /** @type {string[]} */
  const lost = [];
  /** @type {Map<string, Set<string>>} */
  const seen = new Map();
  for (const a of acked) {
    const id = JSON.stringify([a.ns, a.key]);
    let values = seen.get(id);
    if (!values) {
      values = new Set((await remote.history(a.ns, a.key)).map((m) => String(m.value)));
      seen.set(id, values);
    }
    if (!values.has(a.value)) lost.push(`${a.ns.join('/')}/${a.key} = ${a.value}`);
  }
  for (const c of ackedCheckpoints) {
    if (!(await remote.getCheckpoint(c.thread, { checkpointId: c.checkpointId })))
      lost.push(`checkpoint ${c.thread}/${c.checkpointId}`);
  }
  await remote.close();
  return { kills, rounds, acked: acked.length, lost, diverged, seconds: (Date.now() - started) / 1000 };
}

/** Live memories as comparable rows. @param {import('edgemem').MemoryStore} s */
async function liveRows(s) {
  /** @type {string[]} */
  const rows = [];
  let cursor;
  do {
    const page = await s.list({ limit: 1000, cursor });
    for (const m of page.items) rows.push(JSON.stringify([m.namespace, m.key, m.value, m.version]));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows.sort();
}

/** Every checkpoint's (thread, id), sorted. @param {import('edgemem').MemoryStore} s */
async function checkpointIds(s) {
  return (await s.listCheckpoints({ limit: 100_000 })).map((c) => `${c.threadId}/${c.checkpointId}`).sort();
}
