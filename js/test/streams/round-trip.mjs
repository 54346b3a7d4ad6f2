// @ts-check
/**
 * A child process of export-stream.test.js: fills a file store with N memories, streams its export to an
 * NDJSON file and imports that file (read as a stream) into a second file store, then prints what both
 * hold as one JSON line. Run with a small V8 heap (--max-old-space-size): holding the export whole would
 * not fit in it, so finishing proves both directions stream in bounded memory.
 *
 *   node --max-old-space-size=64 round-trip.mjs DIR N
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from 'edgemem';

const [dir, nArg] = process.argv.slice(2);
const n = Number(nArg);
const DIMS = 16;
const a = await openStore({ dims: DIMS, storage: { file: join(dir, 'a.db') }, idleFlushMs: 0 });
const filler = 'x'.repeat(600);
for (let i = 0; i < n; i += 1000) {
  const batch = [];
  for (let j = i; j < Math.min(n, i + 1000); j++) {
    const embedding = Array.from({ length: DIMS }, (_, d) => Math.sin(j * 7 + d) + 1.5);
    batch.push({
      namespace: ['user', String(j % 17)],
      key: `k${j}`,
      value: { j, filler },
      text: `memory ${j} about ${j % 101}`,
      embedding,
    });
  }
  await a.putBatch(batch);
}
await a.putCheckpoint({ threadId: 't', checkpointId: 'c', data: { n } });

const file = join(dir, 'export.ndjson');
const out = createWriteStream(file);
let chunks = 0;
let largest = 0;
for await (const chunk of a.exportStream({ chunkBytes: 1 << 20 })) {
  chunks++;
  largest = Math.max(largest, chunk.length);
  if (!out.write(chunk)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');

const b = await openStore({ dims: DIMS, storage: { file: join(dir, 'b.db') }, idleFlushMs: 0 });
const progress = await b.importStream(createReadStream(file));
const [sa, sb] = [await a.stats(), await b.stats()];
const probe = {
  text: 'memory about 42',
  vector: Array.from({ length: DIMS }, (_, d) => Math.sin(42 * 7 + d) + 1.5),
  k: 5,
};
const keys = async (/** @type {import('edgemem').MemoryStore} */ s) => (await s.search(probe)).map((h) => h.key);
console.log(
  JSON.stringify({
    bytes: statSync(file).size,
    chunks,
    largest,
    progress,
    a: { memories: sa.memories, seq: sa.seq, bytes: sa.bytes },
    b: { memories: sb.memories, seq: sb.seq, bytes: sb.bytes },
    last: [
      await a.get(['user', String((n - 1) % 17)], `k${n - 1}`),
      await b.get(['user', String((n - 1) % 17)], `k${n - 1}`),
    ],
    search: [await keys(a), await keys(b)],
    heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  }),
);
await a.close();
await b.close();
