/** Pages stored without their longest zero run (src/page-hole.ts): exact round trips, old pages, the object's table. */

import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { forceTrap } from 'edgemem/testing';
import { describe, expect, it } from 'vitest';
import { DurableObjectPageStore, PAGE_TABLE } from '../src/do-page-store';
import { elideHole, longZeroRun, MIN_HOLE, restoreHole } from '../src/page-hole';
import { agentId, api } from './helpers';

const SIZE = 8192;
const stubOf = (a: string) => env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));

/** A page of nonzero bytes (seeded) with zeros at [from, to). */
function page(seed: number, from: number, to: number): Uint8Array {
  const p = new Uint8Array(SIZE);
  let s = seed;
  for (let i = 0; i < SIZE; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    p[i] = i >= from && i < to ? 0 : (s >>> 24) | 1;
  }
  return p;
}

describe('page holes', () => {
  it('finds the longest zero run to the byte, on any alignment', () => {
    expect(longZeroRun(page(1, 1001, 3003))).toEqual([1001, 2002]);
    expect(longZeroRun(page(2, 0, 9))).toEqual([0, 9]);
    expect(longZeroRun(page(3, 8000, SIZE))).toEqual([8000, 192]);
    expect(longZeroRun(page(4, 0, 0))).toEqual([0, 0]);
    const two = page(5, 100, 700);
    two.fill(0, 4000, 6001);
    expect(longZeroRun(two)).toEqual([4000, 2001]);
  });

  it('stores a page without its hole and restores it exactly', () => {
    for (const [from, to] of [
      [13, 13 + MIN_HOLE],
      [0, 5000],
      [3000, SIZE],
      [1, SIZE - 1],
      [0, SIZE],
    ]) {
      const p = page(from + to, from, to);
      const stored = elideHole(p);
      expect(stored.length).toBe(SIZE - (to - from) + 2);
      expect(restoreHole(stored, SIZE)).toEqual(p);
    }
  });

  it('keeps a page with a short hole as it is, and reads a whole page as the page', () => {
    const p = page(9, 100, 100 + MIN_HOLE - 1);
    expect(elideHole(p)).toBe(p);
    expect(restoreHole(p, SIZE)).toBe(p);
  });

  it('refuses a stored value that is no page', () => {
    expect(() => restoreHole(new Uint8Array(1), SIZE, 'db/3')).toThrow(/db\/3 is stored in 1 bytes, not a page/);
    expect(() => restoreHole(new Uint8Array(SIZE + 1), SIZE)).toThrow(/not a page/);
    const bad = new Uint8Array(100);
    bad[98] = 200; // the hole would start past the 98 bytes kept
    expect(() => restoreHole(bad, SIZE, 'db/4')).toThrow(/db\/4's hole starts at 200, past its 98 bytes/);
  });

  it("the object's table holds pages without their holes, and a reopened store reads them", async () => {
    const a = agentId('hole');
    for (let i = 0; i < 30; i++) {
      const r = await api('PUT', `/v1/agents/${a}/memories/k${i}?ns=t`, {
        body: { value: `value ${i}`, text: `memory number ${i}`, embedding: [i, 1, 0, 0] },
      });
      expect(r.status).toBe(200);
    }
    await runInDurableObject(stubOf(a), async (_i, state) => {
      const lengths = state.storage.sql
        .exec<{ n: number }>(`SELECT length(data) AS n FROM ${PAGE_TABLE} WHERE id >= 0`)
        .toArray()
        .map((r) => r.n);
      expect(lengths.length).toBeGreaterThan(1);
      expect(lengths.every((n) => n <= SIZE)).toBe(true);
      expect(lengths.filter((n) => n < SIZE).length).toBeGreaterThan(lengths.length / 2);
      const pages = new DurableObjectPageStore(state.storage);
      expect(() => pages.transaction(() => pages.put('db/999', new Uint8Array(100)))).toThrow(/db\/999 is 100 bytes/);
      await forceTrap().catch(() => undefined); // the store reopens from the table on the next call
    });
    for (let i = 0; i < 30; i++)
      expect((await api('GET', `/v1/agents/${a}/memories/k${i}?ns=t`)).body.value).toBe(`value ${i}`);
    const hits = await api('POST', `/v1/agents/${a}/search`, {
      body: { text: 'memory number 7', vector: [7, 1, 0, 0], k: 1 },
    });
    expect(hits.body.hits[0].key).toBe('k7');
  });
});
