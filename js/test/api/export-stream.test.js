// @ts-check
// A streamed export and import of 100,000 memories (~100 MB of NDJSON) between two file stores, in a child
// process whose V8 heap is capped at 64 MB: the export written to a file chunk by chunk, the import read
// from a file stream. Either direction holding the export whole would not fit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-stream-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('100k memories stream out to NDJSON and back in, in bounded memory', () => {
  const script = fileURLToPath(new URL('../streams/round-trip.mjs', import.meta.url));
  const n = 100_000;
  const r = spawnSync(process.execPath, ['--max-old-space-size=64', script, dir, String(n)], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  assert.equal(r.status, 0, `the child failed (status ${r.status}, signal ${r.signal}):\n${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout);
  assert.ok(out.bytes > 64 * 2 ** 20, `the export (${out.bytes} bytes) is bigger than the child's heap`);
  assert.ok(out.largest <= (1 << 20) + 4096, `chunks stay near their size (largest ${out.largest})`);
  assert.deepEqual(out.progress, {
    done: true,
    versions: n,
    commits: Math.ceil(n / 1000) + 1,
    checkpoints: 1,
    writes: 0,
  });
  assert.deepEqual(out.b, out.a);
  assert.deepEqual(out.last[1], out.last[0]);
  assert.equal(out.search[0].length, 5);
  assert.deepEqual(out.search[1], out.search[0]);
});
