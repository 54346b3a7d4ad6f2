// @ts-check
/**
 * The command line over a coherent memory, as a shared suite: `cliCoherenceSuite(name, fresh)` registers tests of
 * `remember` (its decisions, `--dry-run`, `--key`, `--valid-from`), `--valid-at` on get / list / search, `context`
 * and `consolidate` (page by page, `--pages` then `--cursor` to resume), through the built CLI on a fresh target
 * from `fresh(dims)` — a local file (cli-coherence.test.js), or an agent of the Worker.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, cliFails, cliJson } from './cli-run.js';

/** @typedef {{ args: string[], env?: Record<string, string> }} Target */

/**
 * @param {string} name
 * @param {(dims?: number) => Promise<Target>} fresh
 */
export function cliCoherenceSuite(name, fresh) {
  describe(`edgemem CLI, a coherent memory: ${name}`, () => {
    it('remember prints its decision: new, duplicate (folded), supersede (replaced); --dry-run writes nothing', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      const [first] = await run(['remember', 'user/ana', 'Ana lives in Porto.']);
      assert.equal(first.decision, 'new');
      assert.match(first.key, /^m-[0-9a-f]{16}$/);
      const [again] = await run(['remember', 'user/ana', 'ana lives in porto']);
      assert.deepEqual([again.decision, again.key, again.target.key], ['duplicate', first.key, first.key]);

      const before = (await run(['stats'])).seq;
      const dry = await run(['remember', 'user/ana', 'Ana now lives in Lisbon.', '--dry-run']);
      assert.deepEqual([dry.decision, dry.target?.key], ['supersede', first.key]);
      assert.equal((await run(['stats'])).seq, before, '--dry-run wrote nothing');

      const table = await cli(['remember', 'user/ana', 'Ana now lives in Lisbon.', ...t.args], { env: t.env });
      assert.equal(table.status, 0, table.stderr);
      assert.match(table.stdout, /^decision\s+key\s+version\s+seq\s+target\s+reason$/m);
      assert.match(
        table.stdout,
        new RegExp(`^supersede\\s+m-[0-9a-f]{16}\\s+1\\s+\\d+\\s+${first.key}: Ana lives in Porto\\.`, 'm'),
      );

      // The same key with other words: a new version of it. --valid-from: since when the fact holds.
      const [theme] = await run([
        'remember',
        'user/ana',
        'Prefers dark mode',
        '--key',
        'theme',
        '--metadata',
        '{"t":1}',
      ]);
      const [light] = await run(['remember', 'user/ana', 'Prefers light mode', '--key', 'theme']);
      assert.deepEqual([theme.decision, light.decision, light.key, light.version], ['new', 'supersede', 'theme', 2]);
      const [dated] = await run(['remember', 'org', 'The office is at Rua Augusta 12', '--valid-from', '2026-03-01']);
      assert.equal((await run(['get', 'org', dated.key])).validFrom, Date.parse('2026-03-01'));

      const fromStdin = await cli(['remember', 'user/bruno', '-', '--json', ...t.args], {
        env: t.env,
        input: 'Bruno plays the cello\n',
      });
      assert.equal(fromStdin.status, 0, fromStdin.stderr);
      assert.equal(JSON.parse(fromStdin.stdout)[0].decision, 'new');

      await cliFails(['remember', 'user/ana', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
      await cliFails(['remember', 'user/ana', ' ', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
      await cliFails(['remember', 'user/ana', 'x', '--valid-from', 'someday', ...t.args], 'INVALID_ARGUMENT', 2, {
        env: t.env,
      });
      // --messages and --judge need a chat model.
      await cliFails(['remember', 'user/ana', '--messages', '-', ...t.args], 'INVALID_ARGUMENT', 2, {
        env: t.env,
        input: '[{"role":"user","content":"hi"}]',
      });
      await cliFails(['remember', 'user/ana', 'x', '--judge', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
    });

    it('get, list and search answer with what is valid now, or at --valid-at (a time, or any)', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      const [porto] = await run(['remember', 'u', 'Ana lives in Porto']);
      await new Promise((r) => setTimeout(r, 5));
      const [lisbon] = await run(['remember', 'u', 'Ana now lives in Lisbon']);
      const closed = await run(['get', 'u', porto.key, '--valid-at', 'any']);
      assert.equal(closed.replacedBy, lisbon.key);
      const then = String(closed.validTo - 1);

      await cliFails(['get', 'u', porto.key, ...t.args], 'NOT_FOUND', 3, { env: t.env });
      assert.equal((await run(['get', 'u', porto.key, '--valid-at', then])).text, 'Ana lives in Porto');
      assert.equal(
        (await run(['get', 'u', porto.key, '--valid-at', new Date(closed.validTo - 1).toISOString()])).key,
        porto.key,
      );
      const keys = async (/** @type {string[]} */ args) =>
        (await run(args)).items.map((/** @type {any} */ m) => m.key).sort();
      assert.deepEqual(await keys(['list', 'u']), [lisbon.key]);
      assert.deepEqual(await keys(['list', 'u', '--valid-at', 'any']), [porto.key, lisbon.key].sort());
      assert.deepEqual(await keys(['list', 'u', '--valid-at', `${then}ms`]), [porto.key]);
      const hits = async (/** @type {string[]} */ args) => (await run(args)).map((/** @type {any} */ h) => h.key);
      assert.deepEqual(await hits(['search', 'Ana']), [lisbon.key]);
      assert.deepEqual((await hits(['search', 'Ana', '--valid-at', 'any'])).sort(), [porto.key, lisbon.key].sort());

      const table = await cli(['list', 'u', '--valid-at', 'any', ...t.args], { env: t.env });
      assert.match(table.stdout, /^namespace\s+key\s+version\s+seq\s+updated\s+valid\s+value\s+text$/m);
      assert.match(table.stdout, /→ \d{4}-\d\d-\d\dT[\d:.]+Z\s+"?Ana lives in Porto/);
      await cliFails(['list', '--valid-at', 'soon', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
    });

    it('context prints the block (or JSON), drawn from --prefix, within --budget', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      await run(['remember', 'u', "The user's name is Ana", '--pinned']);
      await run(['remember', 'u', 'Ana lives in Porto']);
      await run(['remember', 'u', 'Ana now lives in Lisbon']);
      await run(['remember', 'ops', 'The build server of Ana is ci-3']);

      const printed = await cli(['context', 'where does Ana live', '--prefix', 'u', ...t.args], { env: t.env });
      assert.equal(printed.status, 0, printed.stderr);
      assert.match(printed.stdout, /## Pinned\n- The user's name is Ana\n/);
      assert.match(printed.stdout, /## Relevant facts\n- Ana now lives in Lisbon/);
      assert.doesNotMatch(printed.stdout, /ci-3/);
      const both = await run(['context', 'Ana', '--prefix', 'u', '--prefix', 'ops']);
      assert.match(both.text, /ci-3/);
      assert.equal(both.tokens, Math.ceil(Buffer.byteLength(both.text) / 4));
      const small = await run(['context', 'Ana', '--budget', '12', '--recent', '0']);
      assert.ok(small.tokens <= 12, small.text);
      const none = await cli(['context', 'Ana', '--prefix', 'nobody', '--recent', '0', ...t.args], { env: t.env });
      assert.deepEqual([none.status, none.stdout], [0, '']);
      assert.match(none.stderr, /nothing in memory/);
      await cliFails(['context', 'Ana', '--budget', '0', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
    });

    it('consolidate runs page by page until done; --pages stops early and --cursor resumes', async () => {
      const t = await fresh();
      /** @param {string[]} args */
      const run = (args) => cliJson([...args, ...t.args], { env: t.env });
      const rows = [
        ['k0', 'Ana lives in Porto'],
        ['k1', 'Bruno likes jazz'],
        ['k2', 'ana lives in porto!'],
        ['k3', 'Carla works at Acme'],
        ['k4', 'Ana now lives in Lisbon'],
      ];
      for (const [key, text] of rows) {
        await run(['put', 'team/u', key, JSON.stringify(text), '--text', text]);
        await new Promise((r) => setTimeout(r, 3));
      }
      const first = await cli(['consolidate', 'team', '--limit', '2', '--pages', '1', '--json', ...t.args], {
        env: t.env,
      });
      assert.equal(first.status, 0, first.stderr);
      const part = JSON.parse(first.stdout);
      assert.equal(part.pages, 1);
      assert.ok(part.nextCursor, 'not done after one page of two');
      assert.match(first.stderr, /resume with --cursor \S+/);

      const rest = await run(['consolidate', 'team', '--limit', '2', '--cursor', part.nextCursor]);
      assert.equal(rest.nextCursor, null);
      assert.ok(rest.pages >= 2);
      const decisions = [...part.decisions, ...rest.decisions].map((/** @type {any} */ d) => [
        d.decision,
        d.target?.key,
      ]);
      assert.deepEqual(decisions, [
        ['duplicate', 'k0'],
        ['supersede', 'k0'],
      ]);
      assert.equal(part.duplicates + rest.duplicates, 1);
      assert.equal(part.supersedes + rest.supersedes, 1);
      assert.equal(part.examined + rest.examined, 5);
      const keys = (await run(['list', 'team'])).items.map((/** @type {any} */ m) => m.key);
      assert.deepEqual(keys, ['k1', 'k3', 'k4']);
      assert.equal((await run(['list', 'team', '--valid-at', 'any'])).items.length, 5, 'nothing deleted');

      const again = await cli(['consolidate', 'team', ...t.args], { env: t.env });
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /^duplicates\s+0$/m);
      assert.match(again.stdout, /^done\s+true$/m);
      await cliFails(['consolidate', 'team', '--limit', '0', ...t.args], 'INVALID_ARGUMENT', 2, { env: t.env });
      await cliFails(['consolidate', 'team', '--cursor', 'nonsense', ...t.args], 'INVALID_ARGUMENT', 2, {
        env: t.env,
      });
    });
  });
}
