#!/usr/bin/env node
// @ts-check
/**
 * The child of the file-store crash test (crash-file-store.mjs): opens a store on a file with `openStore` (Node,
 * file storage) and writes to it until it is killed, printing one JSON line per event on stdout with a
 * synchronous write as soon as the call resolves — `opening` (before openStore: the recovery of the previous
 * crash happens in it), `open` (with the store's seq), and one `ack` per acknowledged write: single puts
 * (overwriting a small key space, so versions grow), batches of `--batch` memories, and checkpoints. A line
 * that was not fully written when the kill came is not an acknowledgment.
 *
 *   node bench/robustness/file-writer.mjs --file F --mode write|batch --id N [--batch 100]
 */
import { writeSync } from 'node:fs';
import { openStore } from 'edgemem';

const args = process.argv.slice(2);
const flag = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const file = flag('--file', '');
const mode = flag('--mode', 'write');
const id = Number(flag('--id', '0'));
const batchSize = Number(flag('--batch', '100'));
if (!file) throw new Error('--file is required');

const say = (/** @type {unknown} */ o) => writeSync(1, `${JSON.stringify(o)}\n`);
const KEYS = 40;
let n = 0;
/** A memory with content unique to this child (`id`) and write (`n`), on one of KEYS keys. */
const memory = () => {
  const i = n++;
  const key = `k${(i * 7 + id) % KEYS}`;
  const value = { id, i, pad: 'x'.repeat((i * 37) % 700) };
  return {
    namespace: ['crash', String(i % 3)],
    key,
    value,
    text: `crash write ${id} ${i} word${i % 13}`,
    embedding: [Math.sin(i + id), Math.cos(i)],
  };
};

// The runtime (wasm) is loaded before `opening`, so what follows it is the store's open and recovery only.
await (await openStore({})).close();
say({ t: 'opening' });
const store = await openStore({ dims: 2, storage: { file } });
say({ t: 'open', seq: (await store.stats()).seq });

for (let round = 0; ; round++) {
  if (mode === 'batch') {
    const items = Array.from({ length: batchSize }, memory);
    const acks = await store.putBatch(items);
    say({
      t: 'ack',
      op: 'batch',
      items: items.map((m, j) => ({
        ns: m.namespace,
        key: m.key,
        value: m.value,
        seq: acks[j].seq,
        version: acks[j].version,
      })),
    });
  } else {
    const m = memory();
    const ack = await store.put(m);
    say({ t: 'ack', op: 'put', ns: m.namespace, key: m.key, value: m.value, seq: ack.seq, version: ack.version });
  }
  if (round % 10 === 9) {
    const data = { id, round, state: 'y'.repeat(round % 300) };
    const checkpointId = `c-${id}-${round}`;
    const seq = await store.putCheckpoint({ threadId: `t${id % 4}`, checkpointId, data });
    say({ t: 'ack', op: 'checkpoint', threadId: `t${id % 4}`, checkpointId, data, seq });
  }
}
