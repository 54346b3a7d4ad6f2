// @ts-check
// How the engine reads pages from a host page store: through the store's own `readInto` when it has one
// (the Node file store reads straight into the engine's page buffer), else `get` and a copy into wasm
// memory (at the right address also after that memory grew; every memory store's test reads this way); what a
// broken `readInto` does to a call (an error, never a crash), and the file store's `readInto` returning
// exactly what its `get` returns.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EdgememError, MemoryPageStore, NodeFilePageStore, openStore } from 'edgemem';
import { EnginePages } from 'edgemem/testing';

/** Pages in a Map with a `readInto`; counts which read path the engine took. */
class ReadIntoPages {
  /** @param {Map<string, Uint8Array>} [pages] */
  constructor(pages = new Map()) {
    this.pages = pages;
    this.gets = 0;
    this.reads = 0;
    /** @type {((key: string) => number | undefined) | undefined} replaces the next reads' result when set */
    this.override = undefined;
  }
  /** @param {string} k */
  get(k) {
    if (!k.endsWith('/size')) this.gets++;
    return this.pages.get(k);
  }
  /** @param {string} k @param {number} offset @param {Uint8Array} dst */
  readInto(k, offset, dst) {
    this.reads++;
    const forced = this.override?.(k);
    if (forced !== undefined) return forced;
    const b = this.pages.get(k);
    if (!b) return -1;
    const n = Math.max(0, Math.min(dst.length, b.length - offset));
    dst.set(b.subarray(offset, offset + n));
    return n;
  }
  /** @param {string} k @param {Uint8Array} b */
  put(k, b) {
    this.pages.set(k, b.slice());
  }
  /** @param {string} k */
  delete(k) {
    this.pages.delete(k);
  }
  sync() {}
}

/** @param {number} i */
const value = (i) => ({ i, pad: 'p'.repeat(2000) });

/** A store of 40 memories in `pages`, closed; returns the pages' Map. */
async function filled() {
  const pages = new ReadIntoPages();
  const s = await openStore({ storage: { pages } });
  await s.putBatch(Array.from({ length: 40 }, (_, i) => ({ namespace: ['r'], key: `k${i}`, value: value(i) })));
  await s.close();
  return pages.pages;
}

describe('page reads', () => {
  it("a host page store's readInto serves every page read; get only the file sizes", async () => {
    const pages = new ReadIntoPages(await filled());
    const s = await openStore({ storage: { pages } });
    for (let i = 0; i < 40; i++) assert.deepEqual((await s.get(['r'], `k${i}`))?.value, value(i));
    assert.ok(pages.reads > 0, 'no page was read through readInto');
    assert.equal(pages.gets, 0);
    await s.close();
  });

  it('EnginePages copies a page into wasm memory at the address asked, also after the memory grew', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const host = new MemoryPageStore();
    host.put('db/0', new Uint8Array(8192).fill(7));
    host.put('db/1', new Uint8Array(8192).fill(8));
    host.put('db/size', new Uint8Array([0, 64, 0, 0, 0, 0, 0, 0]));
    const pages = new EnginePages(host);
    const at = (/** @type {number} */ ptr, /** @type {number} */ len) => new Uint8Array(memory.buffer, ptr, len);

    assert.equal(pages.readPage('db/0', 0, memory, 100, 8192), 8192);
    assert.ok(at(100, 8192).every((b) => b === 7));
    assert.equal(at(99, 1)[0], 0);
    assert.equal(at(100 + 8192, 1)[0], 0);
    assert.equal(pages.readPage('db/0', 8000, memory, 0, 500), 192); // from an offset: as far as the page goes
    assert.equal(pages.readPage('db/size', 0, memory, 20000, 8), 8);
    assert.deepEqual([...at(20000, 8)], [0, 64, 0, 0, 0, 0, 0, 0]);
    assert.equal(pages.readPage('db/9', 0, memory, 0, 8192), -1);

    memory.grow(1); // replaces the buffer the first reads went into
    assert.equal(pages.readPage('db/1', 0, memory, 65536 + 10, 8192), 8192);
    assert.ok(at(65536 + 10, 8192).every((b) => b === 8));
    assert.ok(
      at(100, 8192).every((b) => b === 7),
      'growing kept the earlier contents',
    );
  });

  it('a readInto that throws fails that call with an EdgememError; the store reads again afterwards', async () => {
    const pages = new ReadIntoPages(await filled());
    const s = await openStore({ storage: { pages } });
    pages.override = () => {
      throw new Error('disk unreadable');
    };
    // Reopened with a cold cache, so the GET must read a page.
    await assert.rejects(
      s.get(['r'], 'k7'),
      (e) => e instanceof EdgememError && /disk unreadable|I\/O|disk I\/O/i.test(e.message),
    );
    pages.override = undefined;
    assert.deepEqual((await s.get(['r'], 'k7'))?.value, value(7));
    await s.close();
  });

  it('a readInto returning something other than a count is an error, not a crash', async () => {
    const pages = new ReadIntoPages(await filled());
    const s = await openStore({ storage: { pages } });
    pages.override = () => /** @type {number} */ (/** @type {unknown} */ ('8192'));
    await assert.rejects(s.get(['r'], 'k3'), (e) => e instanceof EdgememError);
    pages.override = () => 8193; // more than the page buffer holds
    await assert.rejects(s.get(['r'], 'k3'), (e) => e instanceof EdgememError);
    pages.override = undefined;
    assert.deepEqual((await s.get(['r'], 'k3'))?.value, value(3));
    await s.close();
  });

  it("the Node file store's readInto returns what its get returns", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgemem-reads-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'r.db');
    const s = await openStore({ storage: { file } });
    await s.putBatch(Array.from({ length: 20 }, (_, i) => ({ namespace: ['r'], key: `k${i}`, value: value(i) })));
    await s.close();

    const fp = new NodeFilePageStore(file);
    try {
      const size = fp.get('db/size');
      assert.ok(size);
      const bytes = Number(new DataView(size.buffer, size.byteOffset, 8).getBigUint64(0, true));
      const chunks = Math.ceil(bytes / 8192);
      assert.ok(chunks > 2);
      /** @param {string} key @param {number} offset @param {number} len */
      const viaReadInto = (key, offset, len) => {
        const dst = new Uint8Array(len).fill(0xee);
        const n = fp.readInto(key, offset, dst);
        return n < 0 ? undefined : dst.subarray(0, n);
      };
      /** @param {string} key @param {number} offset @param {number} len */
      const viaGet = (key, offset, len) => fp.get(key)?.subarray(offset, offset + len);
      /** @type {[string, number, number][]} */
      const cases = [
        ['db/0', 0, 8192],
        ['db/0', 0, 100],
        ['db/1', 24, 4],
        [`db/${chunks - 1}`, 0, 8192],
        ['db/1', 8192, 16],
        [`db/${chunks}`, 0, 8192],
        ['db/size', 0, 8],
        ['db/size', 2, 4],
        ['journal/0', 0, 8192],
      ];
      for (const [key, offset, len] of cases) {
        assert.deepEqual(viaReadInto(key, offset, len), viaGet(key, offset, len), `${key} at ${offset}, ${len} bytes`);
      }
    } finally {
      fp.close();
    }
  });
});
