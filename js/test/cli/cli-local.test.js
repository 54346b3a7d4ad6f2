// @ts-check
// The command line (`edgemem`, dist/bin/edgemem.js) on local store files: the shared CLI suite, then what is local
// only — `tail` printing a file's retained changes, `mcp`, help and version, and which store the options pick.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cli, cliFails, cliJson, startCli } from './cli-run.js';
import { cliSuite } from './cli-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-cli-local-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(dir, `store-${n++}.db`);

cliSuite('local store', async (dims) => ({
  args: ['--store', freshFile(), ...(dims ? ['--dims', String(dims)] : [])],
}));

describe('edgemem CLI: local only', () => {
  it('tail prints the retained changes after --since (all by default), filtered by --kinds, and ends', async () => {
    const store = ['--store', freshFile()];
    await cliJson(['put', 'a', 'k', '1', ...store]);
    await cliJson(['put', 'a', 'k', '2', ...store]);
    await cliJson(['put', 'b', 'j', '3', ...store]);
    const all = await cli(['tail', ...store]);
    assert.equal(all.status, 0, all.stderr);
    assert.deepEqual(
      all.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 1).concat(l.split('\t').slice(2))),
      [
        ['1', 'put', 'a k v1'],
        ['2', 'put', 'a k v2'],
        ['3', 'put', 'b j v1'],
      ],
    );
    const since = await cli(['tail', '--since', '1', '--prefix', 'a', '--json', ...store]);
    const events = since.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.map((e) => [e.seq, e.kind, e.namespace, e.key, e.version]),
      [[2, 'put', ['a'], 'k', 2]],
    );
    const none = await cli(['tail', '--kinds', 'delete', ...store]);
    assert.deepEqual([none.status, none.stdout], [0, '']);
    await cliFails(['tail', '--kinds', 'nope', ...store], 'INVALID_ARGUMENT', 2);
  });

  it('mcp: serves MCP on stdio (answers initialize, ends with stdin) and imports a JSONL memory graph', async () => {
    const store = ['--store', freshFile()];
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '0' } },
    };
    const served = startCli(['mcp', ...store], { input: `${JSON.stringify(initialize)}\n` });
    const result = await served.done;
    assert.equal(result.status, 0, result.stderr);
    const answer = JSON.parse(result.stdout.trim().split('\n')[0] ?? '');
    assert.equal(answer.id, 1);
    assert.ok(answer.result.serverInfo, result.stdout);
    const graph = join(dir, 'graph.jsonl');
    writeFileSync(
      graph,
      `${JSON.stringify({ type: 'entity', name: 'Alice', entityType: 'person', observations: ['likes tea'] })}\n`,
    );
    assert.deepEqual(await cliJson(['mcp', '--import-jsonl', graph, ...store]), { entities: 1, relations: 0 });
    await cliFails(['mcp', '--import-jsonl', join(dir, 'missing.jsonl'), ...store], 'INVALID_ARGUMENT', 2);
  });

  it('help lists every command and the exit codes; --version; no store is INVALID_ARGUMENT', async () => {
    const help = await cli(['--help']);
    assert.equal(help.status, 0);
    for (const command of [
      'stats',
      'get',
      'put',
      'search',
      'list',
      'history',
      'remember',
      'context',
      'consolidate',
      'export',
      'import',
      'tail',
      'token',
      'mcp',
    ]) {
      assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    }
    assert.match(help.stdout, /^\s+3 {2}NOT_FOUND$/m);
    assert.match(help.stdout, /^\s+12 {2}INTERNAL$/m);
    const version = await cli(['--version']);
    assert.deepEqual([version.status, version.stdout.trim()], [0, '0.1.0']);
    await cliFails(['stats'], 'INVALID_ARGUMENT', 2);
    await cliFails(['nope'], 'INVALID_ARGUMENT', 2);
    await cliFails(['stats', '--url', 'http://127.0.0.1:9'], 'INVALID_ARGUMENT', 2);
  });

  it('--store wins over a Worker named by the environment; an unreachable Worker is INTERNAL', async () => {
    const env = { EDGEMEM_URL: 'http://127.0.0.1:9', EDGEMEM_AGENT: 'a', EDGEMEM_TOKEN: 't' };
    const stats = await cliJson(['stats', '--store', freshFile()], { env });
    assert.equal(stats.seq, 0);
    await cliFails(['stats'], 'INTERNAL', 12, { env });
  });
});
