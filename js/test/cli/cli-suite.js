// @ts-check
/**
 * The command line's behaviour on any store, as a shared suite: `cliSuite(name, fresh)` registers tests that run
 * every store command (put, get, list, history, search, stats, export, import) through the built CLI, with its
 * exit codes, on a fresh target from `fresh(dims)` — a local file (cli-local.test.js) or an agent of the Worker
 * under Miniflare (workers/test-node/cli-remote.test.mjs).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cli, cliFails, cliJson } from './cli-run.js';

/** @typedef {{ args: string[], env?: Record<string, string> }} Target */

/**
 * @param {string} name
 * @param {(dims?: number) => Promise<Target>} fresh
 */
export function cliSuite(name, fresh) {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-cli-suite-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe(`edgemem CLI: ${name}`, () => {
    it('put, get (now and --as-of a seq or a time), list and history', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      assert.deepEqual(await run(['put', 'user/42', 'coffee', '{"pref":"oat"}', '--text', 'Prefers oat milk']), {
        seq: 1,
        version: 1,
        evicted: [],
      });
      const before = Date.now();
      await new Promise((r) => setTimeout(r, 5));
      await run([
        'put',
        'user/42',
        'coffee',
        '{"pref":"soy"}',
        '--text',
        'Now soy milk',
        '--metadata',
        '{"src":"chat"}',
      ]);
      await run(['put', 'user/7', 'tea', '"green"', '--pinned']);

      const now = await run(['get', 'user/42', 'coffee']);
      assert.deepEqual(
        [now.value, now.text, now.version, now.metadata],
        [{ pref: 'soy' }, 'Now soy milk', 2, { src: 'chat' }],
      );
      assert.deepEqual((await run(['get', 'user/42', 'coffee', '--as-of', '1'])).value, { pref: 'oat' });
      assert.deepEqual((await run(['get', 'user/42', 'coffee', '--as-of', `${before}ms`])).value, { pref: 'oat' });
      assert.deepEqual((await run(['get', 'user/42', 'coffee', '--as-of', new Date(before).toISOString()])).value, {
        pref: 'oat',
      });
      await cliFails(['get', 'user/42', 'coffee', '--as-of', '0ms', ...t.args], 'NOT_FOUND', 3, { env: t.env });

      const table = await cli(['get', 'user/42', 'coffee', ...t.args], { env: t.env });
      assert.equal(table.status, 0, table.stderr);
      assert.match(table.stdout, /^namespace\s+user\/42$/m);
      assert.match(table.stdout, /^value\s+\{"pref":"soy"\}$/m);

      const all = await run(['list']);
      assert.deepEqual(all.items.map((/** @type {any} */ m) => `${m.namespace.join('/')} ${m.key}`).sort(), [
        'user/42 coffee',
        'user/7 tea',
      ]);
      const page = await run(['list', 'user/42', '--limit', '1']);
      assert.deepEqual([page.items.length, page.items[0].key], [1, 'coffee']);
      assert.deepEqual(
        (await run(['list', 'user', '--as-of', '1'])).items.map((/** @type {any} */ m) => m.value),
        [{ pref: 'oat' }],
      );

      const history = await run(['history', 'user/42', 'coffee']);
      assert.deepEqual(
        history.map((/** @type {any} */ v) => [v.version, v.value]),
        [
          [1, { pref: 'oat' }],
          [2, { pref: 'soy' }],
        ],
      );
      const listed = await cli(['history', 'user/42', 'coffee', ...t.args], { env: t.env });
      assert.match(listed.stdout, /^version\s+seq\s+updated\s+value\s+text$/m);
    });

    it('search: lexical by default, vector and hybrid with --vector; stats', async () => {
      const t = await fresh(3);
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      await run(['put', 'docs', 'a', '1', '--text', 'oat milk flat white', '--embedding', '[1,0,0]']);
      await run(['put', 'docs', 'b', '2', '--text', 'green tea', '--embedding', '[0,1,0]']);
      await run(['put', 'other', 'c', '3', '--text', 'more oat milk', '--embedding', '[1,0.1,0]']);
      assert.deepEqual((await run(['search', 'milk'])).map((/** @type {any} */ h) => h.key).sort(), ['a', 'c']);
      assert.deepEqual(
        (await run(['search', 'milk', '--prefix', 'docs'])).map((/** @type {any} */ h) => h.key),
        ['a'],
      );
      assert.equal((await run(['search', 'milk', '--k', '1'])).length, 1);
      assert.deepEqual(
        (await run(['search', '--vector', '[0,1,0]', '--k', '1'])).map((/** @type {any} */ h) => h.key),
        ['b'],
      );
      const hybrid = await run(['search', 'tea', '--vector', '[0,1,0]', '--mode', 'hybrid', '--k', '2']);
      assert.equal(hybrid[0].key, 'b');
      await cliFails(['search', 'milk', '--mode', 'vector', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
      await cliFails(['put', 'docs', 'd', '4', '--embedding', '[1,0]', ...t.args], 'DIMENSION_MISMATCH', 5, {
        env: t.env,
      });

      const stats = await run(['stats']);
      assert.deepEqual([stats.seq, stats.memories, stats.dims], [3, 3, 3]);
      const table = await cli(['stats', ...t.args], { env: t.env });
      assert.match(table.stdout, /^memories\s+3$/m);
    });

    it('export (--out FILE and stdout) and import (FILE and -) carry the whole store, with progress on stderr', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      await run(['put', 'a/b', 'k1', '{"n":1}', '--text', 'first']);
      await run(['put', 'a/b', 'k1', '{"n":2}', '--text', 'second']);
      await run(['put', 'a', 'k2', '[1,2]']);
      const file = join(dir, `export-${Date.now()}-${Math.random()}.ndjson`);
      const exported = await cli(['export', '--out', file, ...t.args], { env: t.env });
      assert.equal(exported.status, 0, exported.stderr);
      assert.match(exported.stderr, /^export: [\d.]+ (B|KiB|MiB) in [\d.]+ s, to /m);
      const text = readFileSync(file, 'utf8');
      assert.match(text, /^\{"kind":"header","format":"edgemem-export\/2"/);

      const copy = await fresh();
      const imported = await cliJson(['import', file, ...copy.args], { env: copy.env });
      assert.deepEqual([imported.done, imported.versions], [true, 3]);
      const got = await cliJson(['history', 'a/b', 'k1', ...copy.args], { env: copy.env });
      assert.deepEqual(
        got.map((/** @type {any} */ v) => v.value),
        [{ n: 1 }, { n: 2 }],
      );
      await cliFails(['import', file, ...copy.args], 'CONFLICT', 4, { env: copy.env });

      const piped = await cli(['export', ...t.args], { env: t.env });
      assert.equal(piped.stdout, text);
      const third = await fresh();
      const fromStdin = await cli(['import', '-', ...third.args], { env: third.env, input: piped.stdout });
      assert.equal(fromStdin.status, 0, fromStdin.stderr);
      assert.match(fromStdin.stderr, /^import: .* 3 versions, 3 commits/m);
      assert.deepEqual((await cliJson(['get', 'a', 'k2', ...third.args], { env: third.env })).value, [1, 2]);
      await cliFails(['import', join(dir, 'missing.ndjson'), ...third.args], 'INVALID_ARGUMENT', 2, { env: third.env });
    });

    it('errors: engine codes as exit codes, usage errors as INVALID_ARGUMENT', async () => {
      const t = await fresh();
      const env = { env: t.env };
      await cliFails(['get', 'x', 'missing', ...t.args], 'NOT_FOUND', 3, env);
      await cliJson(['put', 'x', 'k', '1', ...t.args], env);
      await cliFails(['put', 'x', 'k', '2', '--if-version', '7', ...t.args], 'CONFLICT', 4, env);
      await cliFails(['put', 'x', 'k', '{oops', ...t.args], 'INVALID_ARGUMENT', 2, env);
      await cliFails(['get', 'a//b', 'k', ...t.args], 'INVALID_ARGUMENT', 2, env);
      await cliFails(['get', 'x', 'k', '--as-of', 'yesterday-ish', ...t.args], 'INVALID_ARGUMENT', 2, env);
      await cliFails(['list', '--bogus', ...t.args], 'INVALID_ARGUMENT', 2, env);
      await cliFails(['search', ...t.args], 'INVALID_ARGUMENT', 2, env);
    });
  });
}
