// @ts-check
/**
 * What the MemoryStore contract's cases share: assertions on coded errors and corrupt imports, waiting for
 * asynchronous deliveries, and Float32Array literals. Other tests import `rejectsWith` too.
 */
import assert from 'node:assert/strict';
import { EdgememError } from 'edgemem';

/** @typedef {import('edgemem').MemoryStore} MemoryStore */
/** @typedef {import('edgemem').StoreSettings} StoreSettings */
/**
 * A fresh, empty store with those settings (the suite closes it at the end).
 * @typedef {(settings?: StoreSettings) => Promise<MemoryStore>} FreshStore
 */

/**
 * Awaits `promise`, expecting an EdgememError with `code`.
 * @param {Promise<unknown>} promise
 * @param {import('edgemem').ErrorCode} code
 */
export async function rejectsWith(promise, code) {
  const e = await promise.then(
    () => assert.fail(`expected ${code}, but the call succeeded`),
    (err) => err,
  );
  assert.ok(e instanceof Error, 'an Error');
  assert.ok(e instanceof EdgememError, `an EdgememError, got ${e}`);
  assert.equal(e.name, 'EdgememError');
  assert.equal(e.code, code, e.message);
  assert.equal(typeof e.message, 'string');
  return e;
}

/**
 * Imports `doc` changed by each of `corruptions` into a fresh store: each import is INVALID_ARGUMENT and leaves
 * the store empty.
 * @param {() => Promise<MemoryStore>} fresh
 * @param {import('edgemem').ExportDoc} doc
 * @param {((d: any) => void)[]} corruptions
 */
export async function rejectsCorruptImports(fresh, doc, corruptions) {
  for (const corrupt of corruptions) {
    const bad = JSON.parse(JSON.stringify(doc));
    corrupt(bad);
    const b = await fresh();
    await rejectsWith(b.import(bad), 'INVALID_ARGUMENT');
    const stats = await b.stats();
    assert.deepEqual([stats.memories, stats.seq], [0, 0]);
  }
}

/**
 * Polls `check` until it returns true (subscriptions may deliver asynchronously on remote stores).
 * @param {() => boolean} check
 */
export async function waitFor(check, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** @param {number[]} v */
export const vec = (v) => Float32Array.from(v);
