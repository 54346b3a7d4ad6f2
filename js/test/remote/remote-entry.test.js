// @ts-check
// `edgemem/remote`: the remote client alone. It answers as `connect` from the main entry does, and loading it
// loads none of the local engine (no wasm-bindgen glue, no page store) — what a bundler would pull in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, EdgememError } from 'edgemem/remote';

describe('edgemem/remote', () => {
  it('connects and calls with the same API (a fake fetch)', async () => {
    /** @type {string[]} */
    const urls = [];
    /** @type {any} */
    const fetch = async (/** @type {string} */ url) => {
      urls.push(String(url));
      return new Response('{"error":{"code":"NOT_FOUND","message":"no such memory"}}', { status: 404 });
    };
    const store = await connect({ url: 'http://edgemem.test', agent: 'a', token: 't', fetch });
    const e = await store.delete(['n'], 'k').catch((/** @type {unknown} */ x) => x);
    assert.ok(e instanceof EdgememError);
    assert.equal(/** @type {EdgememError} */ (e).code, 'NOT_FOUND');
    assert.deepEqual(urls, ['http://edgemem.test/v1/agents/a/memories/k?ns=n']);
  });

  it('imports no module of the local engine (its built files, followed import by import)', () => {
    const entry = fileURLToPath(import.meta.resolve('edgemem/remote'));
    const dist = join(dirname(entry), '..');
    const seen = new Set([entry]);
    const queue = [entry];
    while (queue.length) {
      const file = /** @type {string} */ (queue.shift());
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = resolve(dirname(file), m[1]);
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    const files = [...seen].map((f) => relative(dist, f));
    assert.ok(files.includes('remote/store.js'), files.join(' '));
    const engine = files.filter((f) => /^(local|pages)\/|dist-wasm|wasm/.test(f));
    assert.deepEqual(engine, []);
  });
});
