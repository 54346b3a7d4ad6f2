// @ts-check
// The remote client `connect()` against a hostile or broken server (a fake fetch): a body nested a million levels
// deep, a body that is not JSON, an error body nested deep — every call settles with a value or an EdgememError,
// never a RangeError or a crash. And what it cannot put in a URL (a lone surrogate, `.`) never reaches fetch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect, EdgememError } from 'edgemem';
import { rejectsWith } from '../contract/suite.js';

const deep = (n = 1_000_000) => '['.repeat(n) + ']'.repeat(n);

/** A store whose every request is answered with `status` and `body`; `calls` counts the requests. */
async function serverSaying(/** @type {number} */ status, /** @type {string} */ body) {
  const calls = { n: 0 };
  /** @type {any} */
  const fetch = async () => {
    calls.n++;
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  };
  return { store: await connect({ url: 'http://edgemem.test', agent: 'a', token: 't', fetch }), calls };
}

describe('remote client: hostile responses', () => {
  it('takes a deeply nested 200 body without overflowing the stack', async () => {
    const { store } = await serverSaying(
      200,
      `{"namespace":["n"],"key":"k","value":${deep()},"metadata":{},"version":1,"seq":1}`,
    );
    const m = await store.get(['n'], 'k');
    assert.ok(Array.isArray(m?.value));
  });

  it('answers a non-JSON or deeply nested error body with an EdgememError', async () => {
    for (const [status, body] of /** @type {[number, string][]} */ ([
      [200, `${deep(10)}}`],
      [500, deep()],
      [400, `{"error":${deep()}}`],
    ])) {
      const { store } = await serverSaying(status, body);
      const e = await store.stats().then(
        () => assert.fail('expected a rejection'),
        (/** @type {unknown} */ err) => err,
      );
      assert.ok(e instanceof EdgememError, String(e));
      assert.equal(e.code, 'INTERNAL');
    }
  });

  it('refuses what a URL cannot carry before any request (INVALID_ARGUMENT)', async () => {
    const { store, calls } = await serverSaying(200, '{}');
    await rejectsWith(store.get(['n'], 'a\ud800'), 'INVALID_ARGUMENT');
    await rejectsWith(store.get(['a\udc00'], 'k'), 'INVALID_ARGUMENT');
    await rejectsWith(store.list({ prefix: ['\ud800'] }), 'INVALID_ARGUMENT');
    await rejectsWith(store.get(['n'], '.'), 'INVALID_ARGUMENT');
    await rejectsWith(store.deleteThread('..'), 'INVALID_ARGUMENT');
    await rejectsWith(store.put({ namespace: ['n'], key: 'k', value: JSON.parse(deep(100_000)) }), 'INVALID_ARGUMENT');
    assert.equal(calls.n, 0);
  });
});
